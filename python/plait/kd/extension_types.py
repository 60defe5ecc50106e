"""`kd.extension_types` and `kd.extension_type`: user classes whose values
are Koda values.

A class decorated with `@kd.extension_type()` declares its attributes with
annotations (schemas, `kd.types.DataSlice`, `kd.types.DataBag`,
`kd.types.JaggedShape` or other extension types). Its values are objects —
attributes by name — labelled with the class's QType (`LABEL[module.Class]`);
they are computed on by the Rust operators `kd.extension_types.*`
(`crates/plait-expr/src/builtins/extension_types.rs`) and pass through
expressions, functors and `py_fn` as any value does.

This module is glue: it binds constructor arguments, casts them to the
annotations (with `kd.schema.cast_to_narrow`), and makes two classes per
extension type:
* `<Class>_QValue`, the class of its values (a subclass of `plait.types.Object`
  and of the user's class, so the user's methods apply);
* `<Class>_Expr`, the view of an expression of its values (a subclass of
  `Expr`): attribute access builds `kd.extension_types.get_attr` nodes and
  the user's methods run at tracing time on the expression.
Virtual methods (`@kd.extension_types.virtual()`) are traced once per class
into functors kept in the value's prototype, so a value cast to a base class
still calls its own implementation.
"""

import inspect

from plait import _plait
from plait.kd import _builtins, qtypes

# Extension classes by QType name (the latest class registered under it).
_BY_NAME = {}

# The attribute prefix of the functors implementing virtual methods.
_IMPL_PREFIX = "_functor_impl__"

# Names of this module that are not operators (no lazy forms).
_NOT_OPERATORS = frozenset({
    "NullableMixin", "extension_type", "get_annotations", "get_extension_cls", "get_extension_qtype",
    "is_koda_extension", "is_koda_extension_type", "override", "virtual",
})


_modules = {}


def _kd():
    kd = _modules.get("kd")
    if kd is None:
        from plait import kd

        _modules["kd"] = kd
    return kd


def _expr():
    expr = _modules.get("expr")
    if expr is None:
        from plait.kd import expr

        _modules["expr"] = expr
    return expr


class _Info:
    """What the decorator knows about an extension class."""

    __slots__ = ("cls", "qtype", "fields", "defaults", "virtuals", "value_class", "expr_class", "_prototype")

    def __init__(self, cls, qtype, fields, defaults, virtuals):
        self.cls = cls
        self.qtype = qtype
        self.fields = fields  # name -> annotation, bases' first
        self.defaults = defaults
        self.virtuals = virtuals  # method name -> (defining class, function)
        self.value_class = None
        self.expr_class = None
        self._prototype = None

    def prototype(self):
        """The OBJECT holding this class's virtual method functors (traced
        on first use), or None when it has none."""
        if self.virtuals and self._prototype is None:
            with _expr().eager():
                impls = {_IMPL_PREFIX + name: _method_functor(owner, fn) for name, (owner, fn) in self.virtuals.items()}
                self._prototype = _eager("unwrap")(_eager("make")(self.qtype, **impls))
        return self._prototype


def _info(cls):
    info = cls.__dict__.get("__plait_extension__") if isinstance(cls, type) else None
    if info is None:
        raise ValueError(f"{cls} is not a registered extension type")
    return info


def _eager(short):
    """The eager form of operator `kd.extension_types.<short>`: its
    computation, called with values."""
    return _plait.registry_lookup(f"kd.extension_types.{short}")._eval


def _lazy(short):
    return _builtins.FORMS[f"kd.extension_types.{short}"][0]


# ---------------------------------------------------------------- annotations

def _field_qtype(annotation):
    """The QType an attribute annotated with `annotation` has."""
    kd = _kd()
    if isinstance(annotation, type):
        if "__plait_extension__" in annotation.__dict__:
            return annotation.__plait_extension__.qtype
        if issubclass(annotation, kd.types.DataSlice):
            return qtypes.DATA_SLICE
        if issubclass(annotation, kd.types.DataBag):
            return qtypes.DATA_BAG
        if issubclass(annotation, kd.types.JaggedShape):
            return qtypes.JAGGED_SHAPE
    elif isinstance(annotation, kd.types.DataItem) and annotation.get_schema() == kd.SCHEMA:
        return qtypes.DATA_SLICE
    raise ValueError(f"unsupported extension type annotation: {annotation}")


def _cast(annotation, value, lazy):
    """`value` as the attribute `annotation` declares: schemas cast to
    narrower schemas only, extension types cast with `dynamic_cast`."""
    if not lazy and not isinstance(annotation, type):
        # The common case: data cast to a schema.
        return _CAST_TO_NARROW(value, annotation)
    kd = _kd()
    Expr = _expr().Expr
    if isinstance(annotation, type):
        info = annotation.__dict__.get("__plait_extension__")
        if info is not None:
            return _view(_lazy("dynamic_cast")(value, info.qtype)) if lazy else _eager("dynamic_cast")(value, info.qtype)
        if lazy:
            return value
        if issubclass(annotation, kd.types.DataSlice):
            if isinstance(value, kd.types.DataSlice):
                return value
            if isinstance(value, list):
                raise ValueError(_plait.AMBIGUOUS_LIST)
            return kd.item(value)
        if not isinstance(value, annotation):
            raise ValueError(f"expected {_field_qtype(annotation)}, got {type(value).__name__}")
        return value
    if lazy or isinstance(value, Expr):
        return kd.lazy.schema.cast_to_narrow(value, annotation)
    return kd.schema.cast_to_narrow(value, annotation)


# ---------------------------------------------------------------- construction

def _bind(info, args, kwargs):
    """The attribute values of a call `cls(*args, **kwargs)`, by field."""
    names = list(info.fields)
    if len(args) > len(names):
        raise TypeError("too many positional arguments")
    values = dict(zip(names, args))
    for name, value in kwargs.items():
        if name not in info.fields:
            raise TypeError(f"got an unexpected keyword argument '{name}'")
        if name in values:
            raise TypeError(f"multiple values for argument '{name}'")
        values[name] = value
    for name in names:
        if name not in values:
            if name not in info.defaults:
                raise TypeError(f"missing a required argument: '{name}'")
            values[name] = info.defaults[name]
    return values


def _construct(info, values):
    Expr = _expr().Expr
    boxing = getattr(info.cls, "_extension_arg_boxing", None)
    if boxing is not None:
        # The class boxes its arguments itself (each value with its field's
        # annotation), as Koda lets it; the results are used as they are.
        attrs = {name: boxing(value, info.fields[name]) for name, value in values.items()}
        lazy = _plait.is_tracing() or any(isinstance(v, Expr) for v in attrs.values())
    else:
        lazy = _plait.is_tracing() or any(isinstance(v, Expr) for v in values.values())
        attrs = {name: _cast(info.fields[name], value, lazy) for name, value in values.items()}
    prototype = info.prototype()
    head = (info.qtype,) if prototype is None else (info.qtype, prototype)
    made = _view(_lazy("make")(*head, **attrs)) if lazy else _MAKE(*head, **attrs)
    if getattr(info.cls, "_extension_post_init", None) is not None:
        # The last step of `cls(...)`: the class checks or adjusts the value.
        made = made._extension_post_init()
        if made is None:
            raise ValueError("_extension_post_init must return an instance")
        if isinstance(made, Expr):
            made = _view(made)
    return made


def _new(cls, *args, **kwargs):
    info = _info(cls)
    return _construct(info, _bind(info, args, kwargs))


def _cast_attrs(info, attrs, lazy):
    # (A name the class does not annotate is a KeyError, as Koda's.)
    return {n: _cast(info.fields[n], v, lazy) for n, v in attrs.items()}


# ---------------------------------------------------------------- values and views

def _disabled(what):
    def method(self, *args):
        raise TypeError(f"{what} disabled for {type(self).__name__}")

    return method


def _value_property(name, qtype_name):
    def get(self):
        return self._get_attr(name, qtype_name)

    return property(get, doc=f"The attribute `{name}`.")


def _expr_property(name, qtype):
    def get(self):
        return _view(_lazy("get_attr")(self, name, qtype))

    return property(get, doc=f"`kd.extension_types.get_attr(self, '{name}', {qtype})` as an expression.")


def _value_virtual(name):
    attr = _IMPL_PREFIX + name

    def method(self, *args, **kwargs):
        return _kd().call(self._get_attr(attr, "DATA_SLICE"), self, *args, **kwargs)

    method.__name__ = name
    return method


def _expr_virtual(name):
    attr = _IMPL_PREFIX + name

    def method(self, *args, **kwargs):
        return _kd().lazy.call(_lazy("get_attr")(self, attr, qtypes.DATA_SLICE), self, *args, **kwargs)

    method.__name__ = name
    return method


def _value_with_attrs(self, **attrs):
    """Returns this value with `attrs` set, cast to the annotations."""
    info = type(self).__plait_extension__
    return _WITH_ATTRS(self, **_cast_attrs(info, attrs, False))


def _expr_with_attrs(self, **attrs):
    """`kd.extension_types.with_attrs(self, ...)`, cast to the annotations."""
    info = type(self).__plait_extension__
    return _view(_lazy("with_attrs")(self, **_cast_attrs(info, attrs, True)))


def _user_members(cls):
    """The members the user's class and its bases define (not `object`'s),
    base classes' first."""
    members = {}
    for klass in reversed(cls.__mro__):
        if klass is object:
            continue
        for name, member in vars(klass).items():
            if name in ("__dict__", "__weakref__", "__module__", "__qualname__", "__doc__", "__annotations__",
                        "__plait_extension__", "__new__", "__init__", "__init_subclass__", "__firstlineno__",
                        "__static_attributes__"):
                continue
            members[name] = member
    return members


def _make_classes(info):
    cls = info.cls
    members = _user_members(cls)
    value_ns = {"__slots__": (), "__module__": cls.__module__, "__qualname__": f"{cls.__name__}_QValue",
                "__plait_extension__": info, "with_attrs": _value_with_attrs,
                "__eq__": _disabled("__eq__ and __ne__"), "__ne__": _disabled("__eq__ and __ne__"),
                "__bool__": _disabled("__bool__"), "__hash__": None}
    for name in ("__repr__", "__str__"):
        if name in members:
            value_ns[name] = members[name]
    expr_ns = {"__slots__": (), "__module__": cls.__module__, "__qualname__": f"{cls.__qualname__}_Expr",
               "__plait_extension__": info, "with_attrs": _expr_with_attrs}
    for name, member in members.items():
        if name.startswith("__") and name.endswith("__"):
            continue
        expr_ns[name] = member
    for name, annotation in info.fields.items():
        qtype = _field_qtype(annotation)
        value_ns[name] = _value_property(name, qtype.name)
        expr_ns[name] = _expr_property(name, qtype)
    for name in info.virtuals:
        value_ns[name] = _value_virtual(name)
        expr_ns[name] = _expr_virtual(name)
    # No `__init__`: Python calls `object.__init__` after the constructor,
    # which ignores the constructor's arguments (the class has its own `__new__`).
    info.value_class = type(f"{cls.__name__}_QValue", (_plait.Object, cls), value_ns)
    info.expr_class = type("Expr", (_expr().Expr,), expr_ns)


# The operators whose result's QType is their argument at this position, and
# those whose result has the QType of their first argument.
_QTYPE_ARGUMENT = {"kd.extension_types.make": 0, "kd.extension_types.make_null": 0, "kd.extension_types.wrap": 1,
                   "kd.extension_types.dynamic_cast": 1, "kd.extension_types.get_attr": 2}
_SAME_AS_FIRST = {"kd.extension_types.with_attrs", "kd.annotation.with_name", "kd.assertion.with_assertion"}


def _static_qtype(e):
    """The QType `e` evaluates to, where its node tells (an extension value
    literal, an extension operator with a QType argument)."""
    expr = _expr()
    while True:
        if expr.is_literal(e):
            value = e.qvalue
            return value.qtype if isinstance(value, _plait.Object) else None
        op = e.op
        if op is None:
            return None
        if op.name in _SAME_AS_FIRST:
            e = e.node_deps[0]
            continue
        position = _QTYPE_ARGUMENT.get(op.name)
        if position is None:
            return None
        dep = e.node_deps[position]
        value = dep.qvalue if expr.is_literal(dep) else None
        return value if isinstance(value, qtypes.QType) else None


def _view(e):
    """`e` as the view of its extension type when its node says which (so
    `e.attr` and the class's methods apply), else `e`."""
    qtype = _static_qtype(e)
    cls = _BY_NAME.get(qtype.name) if qtype is not None else None
    if cls is None:
        return e
    expr_class = cls.__plait_extension__.expr_class
    return e if type(e) is expr_class else expr_class(e)


def _parameter_view(leaf, annotation):
    """The expression standing for a traced parameter annotated with
    `annotation`: cast to it (and viewed as it) for an extension type."""
    if isinstance(annotation, type) and "__plait_extension__" in annotation.__dict__:
        return _view(_lazy("dynamic_cast")(leaf, annotation.__plait_extension__.qtype))
    return leaf


def _method_functor(owner, fn):
    """The functor of virtual method `fn` of class `owner`: traced with
    `self` cast to `owner`."""
    from plait.kd import functor

    sig = inspect.signature(fn)
    params = list(sig.parameters.values())
    params[0] = params[0].replace(annotation=owner)

    def method(*args, **kwargs):
        return fn(*args, **kwargs)

    method.__signature__ = sig.replace(parameters=params)
    method.__name__ = fn.__name__
    method.__qualname__ = fn.__qualname__
    method.__module__ = fn.__module__
    return functor.trace_py_fn(method)


# ---------------------------------------------------------------- the decorator

def virtual():
    """Returns a decorator marking a method of an extension type as virtual.

    Subclasses replace a virtual method with `@kd.extension_types.override()`;
    a value calls the implementation of the class it was made as, even when
    cast to a base class (`dynamic_cast`) or seen through a base-class
    annotation in a traced functor.

    Examples:
      >>> @kd.extension_type()
      ... class VShape:
      ...   @kd.extension_types.virtual()
      ...   def area(self):
      ...     return kd.item(0.0)
      >>> @kd.extension_type()
      ... class VSquare(VShape):
      ...   side: kd.FLOAT32
      ...   @kd.extension_types.override()
      ...   def area(self):
      ...     return self.side * self.side
      >>> shape = kd.extension_types.dynamic_cast(VSquare(side=3), kd.extension_types.get_extension_qtype(VShape))
      >>> shape.area()
      DataItem(9.0, schema: FLOAT32)
    """

    def decorate(fn):
        fn.__plait_virtual__ = "virtual"
        return fn

    return decorate


def override():
    """Returns a decorator marking a method as replacing a virtual method of a base class.

    The decorator `kd.extension_type` checks that a base class declares the
    method virtual (`@kd.extension_types.virtual()`).

    Examples:
      >>> @kd.extension_type()
      ... class OAnimal:
      ...   @kd.extension_types.virtual()
      ...   def sound(self):
      ...     return kd.item('...')
      >>> @kd.extension_type()
      ... class ODog(OAnimal):
      ...   @kd.extension_types.override()
      ...   def sound(self):
      ...     return kd.item('woof')
      >>> ODog().sound()
      DataItem('woof', schema: STRING)
    """

    def decorate(fn):
        fn.__plait_virtual__ = "override"
        return fn

    return decorate


def _virtuals(cls):
    """The virtual methods of `cls` (name -> (class implementing it, function)),
    after checking its `virtual` and `override` marks against its bases."""
    inherited = {}
    for base in reversed(cls.__mro__[1:]):
        info = base.__dict__.get("__plait_extension__")
        if info is not None:
            inherited.update(info.virtuals)
    virtuals = dict(inherited)
    for name, member in vars(cls).items():
        mark = getattr(member, "__plait_virtual__", None)
        if mark == "virtual":
            if name in inherited or any(name in vars(b) for b in cls.__mro__[1:-1]):
                raise AssertionError(f"redefinition of an existing method {name} for the class {cls} is not allowed "
                                     "for the @virtual annotation")
            virtuals[name] = (cls, member)
        elif mark == "override":
            if name not in inherited:
                raise AssertionError(f"the @override annotation on class {cls} requires a @virtual annotation on an "
                                     f"ancestor for the method {name}")
            virtuals[name] = (cls, member)
        elif name in inherited and callable(member):
            raise AssertionError(f"missing @override annotation on class {cls} for the @virtual method {name} "
                                 "defined on an ancestor class")
    return virtuals


def extension_type(unsafe_override=False):
    """Returns a class decorator making the class a Koda extension type.

    The class's annotations declare its attributes: a schema (`kd.INT32`, an
    entity schema: values are cast to it with `kd.schema.cast_to_narrow`),
    `kd.types.DataSlice` (any DataSlice), `kd.types.DataBag`,
    `kd.types.JaggedShape`, or another extension type. Class attributes with a value give defaults. Calling the class
    makes a value (`Point(x=1, y=2)`, or positionally in annotation order);
    values are immutable (`with_attrs` gives a changed copy), print with
    their attributes, and pass through `kd.eval`, functors and `py_fn`.
    Subclasses add attributes; `@kd.extension_types.virtual()` methods are
    replaced in subclasses by `@kd.extension_types.override()` ones.

    When tracing (`kd.fn`), a parameter annotated with an extension type is
    cast to it, `p.x` becomes `kd.extension_types.get_attr`, and methods run
    on the expression.

    Args:
      unsafe_override: accepted for compatibility with Koda.

    Examples:
      >>> @kd.extension_type()
      ... class EtPoint:
      ...   x: kd.FLOAT32
      ...   y: kd.FLOAT32
      ...   def norm(self):
      ...     return kd.math.sqrt(self.x * self.x + self.y * self.y)
      >>> p = EtPoint(x=3, y=4)
      >>> p
      EtPoint(x=DataItem(3.0, schema: FLOAT32), y=DataItem(4.0, schema: FLOAT32))
      >>> p.norm()
      DataItem(5.0, schema: FLOAT32)
      >>> def length(p: EtPoint):
      ...   return p.norm()
      >>> kd.fn(length)(EtPoint(x=6, y=8))
      DataItem(10.0, schema: FLOAT32)
    """
    del unsafe_override  # Koda's checks of overriding non-virtual methods are not made

    def decorate(cls):
        if not isinstance(cls, type):
            raise TypeError(f"kd.extension_type: expected a class, got {type(cls).__name__}")
        fields, defaults = {}, {}
        for klass in reversed(cls.__mro__):
            base_info = klass.__dict__.get("__plait_extension__")
            if base_info is not None and klass is not cls:
                fields.update(base_info.fields)
                defaults.update(base_info.defaults)
        for name, annotation in inspect.get_annotations(cls).items():
            _field_qtype(annotation)
            fields[name] = annotation
            if name in cls.__dict__:
                defaults[name] = cls.__dict__[name]
            else:
                defaults.pop(name, None)
        virtuals = _virtuals(cls)
        label = f"{cls.__module__}.{cls.__qualname__}"
        info = _Info(cls, None, fields, defaults, virtuals)
        try:
            cls.__plait_extension__ = info
            cls.__new__ = _new
        except TypeError as error:
            raise TypeError(f"kd.extension_type: cannot make {cls} an extension type: {error}") from None
        _make_classes(info)
        qtype_name = _plait.register_extension_type(label, cls.__name__, list(fields), info.value_class)
        info.qtype = qtypes.QType(qtype_name)
        _BY_NAME[qtype_name] = cls
        return cls

    return decorate


class NullableMixin:
    """A base class giving an extension type a null value.

    `Class.get_null()` returns the null value, `value.is_null()` is present
    for it (a null value has no attributes).

    Examples:
      >>> @kd.extension_type()
      ... class NmBox(kd.extension_types.NullableMixin):
      ...   v: kd.INT32
      >>> NmBox.get_null().is_null()
      DataItem(present, schema: MASK)
      >>> NmBox(v=1).is_null()
      DataItem(missing, schema: MASK)
    """

    @classmethod
    def get_null(cls):
        """Returns the null value of this extension type."""
        qtype = _info(cls).qtype
        if _plait.is_tracing():
            return _view(_lazy("make_null")(qtype))
        return _eager("make_null")(qtype)

    def is_null(self):
        """Returns present when this value is null."""
        if isinstance(self, _expr().Expr):
            return _lazy("is_null")(self)
        return _eager("is_null")(self)


def get_annotations(cls):
    """Returns the annotations of the extension type `cls`: attribute -> annotation.

    The attributes of base classes come first.

    Examples:
      >>> @kd.extension_type()
      ... class GaPoint:
      ...   x: kd.INT32
      >>> kd.extension_types.get_annotations(GaPoint)
      {'x': DataItem(INT32, schema: SCHEMA)}
      >>> kd.extension_types.get_annotations(int)
      Traceback (most recent call last):
      ...
      ValueError: <class 'int'> is not a registered extension type
    """
    return dict(_info(cls).fields)


def get_extension_qtype(cls):
    """Returns the QType of the values of the extension type `cls`.

    Examples:
      >>> @kd.extension_type()
      ... class QPoint:
      ...   x: kd.INT32
      >>> kd.extension_types.get_extension_qtype(QPoint)
      LABEL[builtins.QPoint]
      >>> kd.extension_types.get_extension_qtype(QPoint) == QPoint(x=1).qtype
      True
    """
    info = _info(cls)
    if _BY_NAME.get(info.qtype.name) is not cls:
        raise ValueError(f"{info.qtype} is already registered with a different class: {_BY_NAME.get(info.qtype.name)}")
    return info.qtype


def get_extension_cls(qtype):
    """Returns the extension type class whose values have QType `qtype`.

    Examples:
      >>> @kd.extension_type()
      ... class ClsPoint:
      ...   x: kd.INT32
      >>> kd.extension_types.get_extension_cls(kd.extension_types.get_extension_qtype(ClsPoint)) is ClsPoint
      True
      >>> kd.extension_types.get_extension_cls(kd.qtypes.DATA_SLICE)
      Traceback (most recent call last):
      ...
      ValueError: there is no registered extension type corresponding to the QType DATA_SLICE
    """
    cls = _BY_NAME.get(getattr(qtype, "name", None))
    if cls is None:
        raise ValueError(f"there is no registered extension type corresponding to the QType {qtype}")
    return cls


def is_koda_extension(x):
    """Returns True when `x` is a value of an extension type.

    Examples:
      >>> @kd.extension_type()
      ... class IsPoint:
      ...   x: kd.INT32
      >>> kd.extension_types.is_koda_extension(IsPoint(x=1))
      True
      >>> kd.extension_types.is_koda_extension(IsPoint)
      False
      >>> kd.extension_types.is_koda_extension(kd.item(1))
      False
    """
    return isinstance(x, _plait.Object) and "__plait_extension__" in type(x).__dict__


def is_koda_extension_type(cls):
    """Returns True when `cls` is a class decorated with `kd.extension_type`.

    Examples:
      >>> @kd.extension_type()
      ... class IstPoint:
      ...   x: kd.INT32
      >>> kd.extension_types.is_koda_extension_type(IstPoint)
      True
      >>> kd.extension_types.is_koda_extension_type(int)
      False
    """
    return isinstance(cls, type) and "__plait_extension__" in cls.__dict__ and cls.__plait_extension__.cls is cls


# The operators (Rust builtins) in their `kd` form; the lazy form of those
# whose result's type their arguments tell gives the type's view.
_VIEWED = ("make", "make_null", "wrap", "dynamic_cast", "get_attr", "with_attrs")


def _viewing_forms(name):
    lazy_op, eager, follow = _builtins.FORMS[name]

    def lazy(*args, **kwargs):
        return _view(lazy_op(*args, **kwargs))

    def follow_tracing(*args, **kwargs):
        if _plait.is_tracing():
            return lazy(*args, **kwargs)
        return eager(*args, **kwargs)

    for f in (lazy, follow_tracing):
        f.__signature__ = follow.__signature__
        f.__doc__ = follow.__doc__
        f.__name__ = f.__qualname__ = follow.__name__
        f.__module__ = "plait.kd"
        f._builtin_operator = lazy_op
    follow_tracing.__wrapped_eager__ = eager
    return lazy, eager, follow_tracing


_MAKE = _eager("make")
_WITH_ATTRS = _eager("with_attrs")
_CAST_TO_NARROW = _plait.registry_lookup("kd.schema.cast_to_narrow")._eval

for _short in _VIEWED:
    _builtins.FORMS[f"kd.extension_types.{_short}"] = _viewing_forms(f"kd.extension_types.{_short}")
del _short
_builtins.export(globals(), "kd.extension_types")
