"""`kd.assertion`, `kd.with_print`, `kd.check_inputs` / `kd.check_output`:
checks and prints that run when a functor is evaluated (and right away
eagerly).

The operators are builtins of the expression engine (computed in Rust,
`crates/plait-expr/src/builtins/assertion.rs`). The `check_*` decorators
put `with_assertion` nodes on the traced function's inputs and output, so a
traced functor checks its arguments at every call.
"""

import functools
import inspect

from plait.kd import _builtins

# `with_assertion`, `assert_primitive`, `assert_present_scalar`, `with_print`.
_builtins.export(globals(), "kd.assertion")


def _kd():
    from plait import kd

    return kd


_OBJECT_NOTE = (
    "\n\nIt seems you ran a type checking decorator on a Koda Object. Each object stores its own schema, so, in a "
    "slice of objects, each object may have a different type. If the types of the objects in your slice are the same, "
    "you should be using entities instead of objects( go/koda-common-pitfalls#non-objects-vs-objects ). You can create "
    "entities by using kd.new/kd.uu instead of kd.obj/kd.uuobj."
)


class DuckType:
    """A constraint for `kd.check_inputs` / `kd.check_output`: the value's
    schema has (at least) the given attributes, each meeting its own
    constraint (a schema item or another duck type). Made by `kd.duck_type`,
    `kd.duck_list` (attribute `__items__`) and `kd.duck_dict` (`__keys__`,
    `__values__`)."""

    def __init__(self, attrs):
        self.attrs = dict(attrs)

    def __repr__(self):
        return "DuckType(" + ", ".join(f"{k}={v!r}" for k, v in self.attrs.items()) + ")"


class StaticWhenTraced:
    """A constraint for `kd.check_inputs`: the argument must not be an
    expression while tracing (and has schema `base_type` when given)."""

    def __init__(self, base_type=None):
        self.base_type = base_type

    def __repr__(self):
        return f"static_when_tracing({self.base_type!r})" if self.base_type is not None else "static_when_tracing()"


def duck_type(**kwargs):
    """Returns a constraint that a value's schema has (at least) the given attributes.

    For `kd.check_inputs` / `kd.check_output`: each keyword names an
    attribute the value's schema must have and gives its constraint, a
    schema item or another duck type (`kd.duck_type()` for an attribute of
    any schema). Other attributes are allowed.

    Args:
      **kwargs: the constraint of each attribute, by name.

    Examples:
      >>> @kd.check_inputs(q=kd.duck_type(text=kd.STRING, meta=kd.duck_type()))
      ... def text_of(q):
      ...   return q.text
      >>> text_of(kd.new(text='hi', meta=kd.new(n=1), extra=2))
      DataItem('hi', schema: STRING, bag_id: $...)
      >>> text_of(kd.new(text='hi'))
      Traceback (most recent call last):
      ...
      TypeError: kd.check_inputs: expected parameter q to have attribute `meta`; no attribute `meta` on q=ENTITY(text=STRING) with id $...
    """
    return DuckType(kwargs)


def duck_list(item_constraint):
    """Returns a constraint that a value is a list whose items meet `item_constraint`.

    For `kd.check_inputs` / `kd.check_output`, where it can be nested in
    duck types.

    Args:
      item_constraint: a schema item or a duck type for the items.

    Examples:
      >>> @kd.check_inputs(x=kd.duck_list(kd.duck_type(a=kd.INT32)))
      ... def first(x):
      ...   return x[0]
      >>> first(kd.list([kd.new(a=1)])).a
      DataItem(1, schema: INT32, bag_id: $...)
      >>> first(kd.list([kd.new(a='x')]))
      Traceback (most recent call last):
      ...
      TypeError: kd.check_inputs: type mismatch for parameter x.get_items().a; expected type INT32, got STRING
    """
    return DuckType({"__items__": item_constraint})


def duck_dict(key_constraint, value_constraint):
    """Returns a constraint that a value is a dict whose keys and values meet the given constraints.

    For `kd.check_inputs` / `kd.check_output`, where it can be nested in
    duck types.

    Args:
      key_constraint: a schema item or a duck type for the keys.
      value_constraint: a schema item or a duck type for the values.

    Examples:
      >>> @kd.check_output(kd.duck_dict(kd.STRING, kd.INT32))
      ... def same(x):
      ...   return x
      >>> same(kd.dict({'a': 1}))
      DataItem(Dict{'a'=1}, schema: DICT{STRING, INT32}, bag_id: $...)
      >>> same(kd.dict({'a': 'b'}))
      Traceback (most recent call last):
      ...
      TypeError: kd.check_output: type mismatch for output.get_values(); expected type INT32, got STRING
    """
    return DuckType({"__keys__": key_constraint, "__values__": value_constraint})


def static_when_tracing(base_type=None):
    """Returns a constraint that an argument is a value, not an expression, while tracing.

    For `kd.check_inputs`: tracing a function that passes an input of the
    functor (an expression) to such a parameter raises a TypeError, which
    catches arguments meant to choose what is traced. With `base_type`, the
    argument's schema is checked too.

    Args:
      base_type: the schema the argument must have (optional).

    Examples:
      >>> @kd.check_inputs(n=kd.static_when_tracing())
      ... def repeat(x, n):
      ...   return kd.concat(*([x] * n))
      >>> kd.fn(lambda x: repeat(x, 2))(kd.slice([1]))
      DataSlice([1, 1], schema: INT32, present: 2/2)
      >>> kd.fn(lambda x, n: repeat(x, n))
      Traceback (most recent call last):
      ...
      TypeError: argument "n" must be resolved statically during tracing and not depend on the inputs
    """
    return StaticWhenTraced(base_type)


def _path(what, name):
    """The text naming attribute `name` of `what` in messages."""
    return {"__items__": f"{what}.get_items()", "__keys__": f"{what}.get_keys()", "__values__": f"{what}.get_values()"}.get(
        name, f"{what}.{name}")


def _missing_message(op, what, name):
    # "parameter x.a" is named "x.a" after "on".
    return f"{op}: expected {what} to have attribute `{name}`; no attribute `{name}` on {what.removeprefix('parameter ')}="


def _mismatch_message(op, what, constraint):
    return f"{op}: type mismatch for {what}; expected type {constraint}, got "


def _verify_eager(op, what, constraint, schema):
    """Checks schema item `schema` against `constraint`; raises TypeError."""
    kd = _kd()
    if isinstance(constraint, DuckType):
        for name, inner in constraint.attrs.items():
            if not (kd.schema.is_struct_schema(schema) and kd.has_attr(schema, name)):
                note = _OBJECT_NOTE if schema == kd.OBJECT else ""
                raise TypeError(f"{_missing_message(op, what, name)}{kd.schema.get_repr(schema).to_py()}{note}")
            _verify_eager(op, _path(what, name), inner, schema.get_attr(name))
    elif schema != constraint:
        raise TypeError(f"{_mismatch_message(op, what, constraint)}{schema}")


def _verify_traced(op, what, constraint, value, schema, guard=None):
    """`value` with assertion nodes checking schema expression `schema`
    against `constraint` where `guard` (a mask expression: the path to here
    exists; None at the top) is present; the checks read attributes
    leniently, so that each raises only its own message."""
    kd = _kd()
    lazy = kd.lazy

    def where_guarded(condition):
        return condition if guard is None else ~guard | condition

    if not isinstance(constraint, DuckType):
        condition = where_guarded(lazy.comparison.equal(schema, constraint))
        message = _mismatch_message(op, what, constraint)
        return kd.assertion.with_assertion(value, condition, lambda got: kd.strings.join(message, kd.schema.get_repr(got)), schema)
    # A struct schema, or an empty schema of its own (so that attribute
    # reads are missing rather than errors).
    struct = lazy.masking.cond(lazy.schema.is_struct_schema(schema), schema, lazy.schema.new_schema())
    for name, inner in constraint.attrs.items():
        has = lazy.core.has_attr(struct, name)
        message = _missing_message(op, what, name)
        value = kd.assertion.with_assertion(
            value,
            where_guarded(has),
            lambda got: kd.strings.join(message, kd.schema.get_repr(got)),
            schema,
        )
        inner_guard = has if guard is None else guard & has
        value = _verify_traced(op, _path(what, name), inner, value, lazy.core.maybe(struct, name), inner_guard)
    return value


def _check(op, what, name, constraint, value):
    """Checks `value` against `constraint` (a schema item, a duck type or
    static_when_tracing); inside tracing, assertion nodes on the expression."""
    kd = _kd()
    if isinstance(constraint, StaticWhenTraced):
        if isinstance(value, kd.expr.Expr):
            raise TypeError(f'argument "{name}" must be resolved statically during tracing and not depend on the inputs')
        if constraint.base_type is None:
            return value
        constraint = constraint.base_type
    if isinstance(value, kd.expr.Expr):
        return _verify_traced(op, what, constraint, value, kd.lazy.get_schema(value))
    if isinstance(value, kd.types.DataSlice):
        _verify_eager(op, what, constraint, value.get_schema())
    elif op == "kd.check_output":
        raise TypeError(f"{op}: expected DataItem/DataSlice output, got {type(value)}")
    else:
        # Python values are checked as the DataSlices they box into.
        _verify_eager(op, what, constraint, kd.slice(value).get_schema())
    return value


def _valid_constraint(op, what, constraint, static_allowed=True):
    kd = _kd()
    if isinstance(constraint, DuckType) or (static_allowed and isinstance(constraint, StaticWhenTraced)):
        return
    if isinstance(constraint, kd.types.DataItem) and constraint.get_schema() == kd.SCHEMA:
        return
    kinds = "a schema DataItem, a DuckType or ConstantWhenTraced" if static_allowed else "a schema DataItem or a DuckType"
    raise TypeError(f"{op}: invalid constraint: expected constraint for {what} to be {kinds}, got {constraint}")


def check_inputs(**kw_constraints):
    """Returns a decorator that checks the schemas of a function's arguments at each call.

    Each keyword names a parameter and gives its constraint: a schema the
    argument must have, a duck type (`kd.duck_type`, `kd.duck_list`,
    `kd.duck_dict`: attributes the schema must have), or
    `kd.static_when_tracing(...)`. An argument that does not meet it raises
    a TypeError. When the decorated function is traced into a functor, the
    checks become part of the functor and run at each of its calls (raising
    a ValueError there).

    Args:
      **kw_constraints: the constraint of each named parameter.

    Examples:
      >>> @kd.check_inputs(x=kd.INT32)
      ... def inc(x):
      ...   return x + 1
      >>> inc(kd.item(1))
      DataItem(2, schema: INT32)
      >>> inc(kd.item('a'))
      Traceback (most recent call last):
      ...
      TypeError: kd.check_inputs: type mismatch for parameter x; expected type INT32, got STRING
      >>> kd.fn(inc)(kd.item(1))
      DataItem(2, schema: INT32)
    """

    for name, constraint in kw_constraints.items():
        _valid_constraint("kd.check_inputs", f"parameter {name}", constraint)

    def decorate(fn):
        signature = inspect.signature(fn)
        # As Koda's: the constraints are checked against the signature once,
        # when the function is decorated.
        if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in signature.parameters.values()):
            raise TypeError("kd.check_inputs does not support variadic parameters in the decorated function")
        for name in kw_constraints:
            if name not in signature.parameters:
                raise TypeError(f"kd.check_inputs: parameter name `{name}` does not match any parameter in function signature")

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            for name, constraint in kw_constraints.items():
                if name in bound.arguments:
                    bound.arguments[name] = _check("kd.check_inputs", f"parameter {name}", name, constraint,
                                                   bound.arguments[name])
            return fn(*bound.args, **bound.kwargs)

        return wrapper

    return decorate


def check_output(constraint):
    """Returns a decorator that checks the schema of a function's result.

    A result that does not meet `constraint` (a schema, or a duck type as
    for `kd.check_inputs`) raises a TypeError. When the decorated function
    is traced into a functor, the check runs at each call of the functor
    (raising a ValueError there).

    Args:
      constraint: the expected schema (or duck type) of the result.

    Examples:
      >>> @kd.check_output(kd.STRING)
      ... def to_text(x):
      ...   return kd.str(x)
      >>> to_text(kd.item(1))
      DataItem('1', schema: STRING)
      >>> @kd.check_output(kd.STRING)
      ... def same(x):
      ...   return x
      >>> same(kd.item(1))
      Traceback (most recent call last):
      ...
      TypeError: kd.check_output: type mismatch for output; expected type STRING, got INT32
    """

    _valid_constraint("kd.check_output", "output", constraint, static_allowed=False)

    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            return _check("kd.check_output", "output", "output", constraint, fn(*args, **kwargs))

        return wrapper

    return decorate
