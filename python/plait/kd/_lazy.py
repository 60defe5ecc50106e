"""`kd.lazy` and `kd.eager`, and the choice between them by context.

Every operator of `kd` has three forms:
* `kd.lazy.<ns>.<op>` builds an expression node;
* `kd.eager.<ns>.<op>` computes, always;
* `kd.<ns>.<op>` computes, except inside tracing (`kd.expr.tracing()`,
  used by `kd.optools.as_lambda_operator` and functors), where it builds.

Registry operators decide in Rust (one thread-local flag read per call);
the builtins of `plait-expr` (`kd.if_`, `kd.map`, ...) through their forms
in `_builtins.py`. Python glue marked `traced_through` (`kd.dict`,
`kd.select`, ...) runs as it is inside tracing, its registry operators
building the nodes. The few other functions written in Python
(`kd.from_py`, ...) become Python-function operators for their lazy form,
and their `kd.` names get a small wrapper that checks the flag.
"""

import functools
import types as pytypes

from plait import _plait
from plait.kd import _builtins, optools

# The `kd` namespaces whose operators get lazy and eager forms.
NAMESPACES = ("allocation", "assertion", "bags", "comparison", "core", "dicts", "entities", "ids", "iterables", "lists", "masking",
              "math", "objs", "py", "schema", "shapes", "slices", "streams", "strings", "tuples")
NAMESPACES += ("bitwise", "curves", "json", "proto", "random", "extension_types")

# Top-level names that are not operators.
_NOT_OPERATORS = {"eval", "I", "V", "S", "lazy", "eager", "expr", "optools", "types", "with_name", "to_pylist", "is_item",
                  "is_slice", "dir", "get_attr_names",
                  # Functor construction runs now, even inside tracing.
                  "functor", "fn", "compile", "compiled", "vmap", "vmapped", "shard_map", "sharded", "runners", "py_fn", "trace_py_fn", "trace_as_fn",
                  "check_inputs", "check_output", "dumps", "loads", "dump", "load", "vis", "progress", "parallel",
                  # Python message objects in and out: no operators in Koda either.
                  "from_proto", "to_proto", "schema_from_proto",
                  # A class decorator: runs now.
                  "extension_type",
                  # Holds Python values; inside tracing it names expressions.
                  "named_container"}
# Helpers of the namespace modules that are not operators.
_HELPERS = {"check_inputs", "check_output"}


def _is_python_function(x):
    return isinstance(x, (pytypes.FunctionType, pytypes.BuiltinFunctionType))


def _param_spec(fn):
    """Parameters of a Python-defined operator; optional ones are left
    unspecified, so that the function applies its own (Python) defaults."""
    try:
        return optools._param_spec(fn, python_defaults=True)
    except (TypeError, ValueError):  # no signature (a builtin): anything goes
        return [("args", "VAR_POSITIONAL", "required", None), ("kwargs", "VAR_KEYWORD", "required", None)]


def _python_operator(name, fn):
    """The lazy form of Python-defined operator `fn`, registered as `name`."""
    op = _plait.registry_lookup(name)
    if op is None:
        op = _plait.make_py_function_operator(name, _param_spec(fn), fn.__doc__ or "", fn, False)
        op = _plait.registry_add(name, op, False)
    return optools._with_python_face(op, fn)


def _backend_operator(name, op):
    """The lazy form of Rust operator `op`, as it is called by `name`."""
    return optools._with_python_face(_plait.registry_lookup(name) or _plait.registry_lookup(op.name))


def _dispatching(fn, lazy_op):
    """`fn`, building `lazy_op` nodes instead inside tracing."""
    is_tracing = _plait.is_tracing

    @functools.wraps(fn)
    def dispatch(*args, **kwargs):
        if is_tracing():
            return lazy_op(*args, **kwargs)
        return fn(*args, **kwargs)

    dispatch.__wrapped_eager__ = fn
    return dispatch


def _forms(name, value, operator_type):
    """(lazy, eager, kd) forms of `value` called `name`, or None when it is
    not an operator."""
    builtin = _builtins.forms_of(value)
    if builtin is not None:
        return builtin
    if getattr(value, "__plait_traced_through__", False):
        # Lazily, the registry operator of the same name where there is one
        # (it prints as Koda's does); else the glue run inside tracing. Glue
        # whose arguments the operator cannot take as they are (f-strings of
        # expressions) keeps itself lazily too.
        op = _plait.registry_lookup(name)
        if getattr(value, "__plait_lazy_is_glue__", False) or op is None:
            lazy = _traced_lazy(value)
            # Its own signature where it differs from the eager glue's (as
            # Koda's eager wrappers name parameters otherwise).
            signature = getattr(value, "__plait_lazy_signature__", None)
            if signature is not None:
                lazy.__signature__ = signature
        else:
            lazy = optools._with_python_face(op)
            glue_when = getattr(value, "__plait_lazy_glue_when__", None)
            if glue_when is not None:
                lazy = _glue_when(glue_when, _traced_lazy(value), lazy)
        return lazy, _eager_only_call(value), value
    if isinstance(value, operator_type):
        return _backend_operator(name, value), _eager_copy(value), value
    if _is_python_function(value) and name.rsplit(".", 1)[-1] not in _HELPERS:
        fn = getattr(value, "__wrapped_eager__", value)
        lazy = _python_operator(name, fn)
        return lazy, fn, _dispatching(fn, lazy)
    return None


def _glue_when(applies, glue, operator):
    """A lazy form that is `glue` for the arguments `applies` to (a filter
    that is a Python function, say) and `operator` for all others (which
    then prints under the name it was called by, as Koda's). It wraps the
    glue, which is where it is written."""

    @functools.wraps(glue)
    def lazy(*args, **kwargs):
        return (glue if applies(*args, **kwargs) else operator)(*args, **kwargs)

    return lazy


def _traced_lazy(fn):
    """The lazy form of traced-through glue `fn`: `fn` run inside tracing."""

    @functools.wraps(fn)
    def lazy(*args, **kwargs):
        with _expr().tracing():
            return _expr().as_expr(fn(*args, **kwargs))

    return lazy


def _eager_only_call(fn):
    """The eager form of traced-through glue `fn`: `fn` run outside tracing."""

    @functools.wraps(fn)
    def eager(*args, **kwargs):
        with _expr().eager():
            return fn(*args, **kwargs)

    return eager


def _expr():
    from plait.kd import expr

    return expr


def _eager_copy(op):
    eager = op._eager()
    eager.__signature__ = op.__signature__
    eager.__doc__ = op.__doc__
    eager.__name__ = op.__name__
    eager.__qualname__ = op.__qualname__
    return eager


def _add_forms(module, prefix, lazy, eager, operator_type, skip):
    """Puts the lazy and eager forms of the operators of `module` (named
    `prefix.<name>`) into `lazy` and `eager`, and the form that follows
    tracing back into `module`."""
    for short, value in list(vars(module).items()):
        if short.startswith("_") or short in skip:
            continue
        forms = _forms(f"{prefix}.{short}", value, operator_type)
        if forms is None:
            continue
        setattr(lazy, short, forms[0])
        setattr(eager, short, forms[1])
        setattr(module, short, forms[2])


def build(kd):
    """Builds `kd.lazy` and `kd.eager`, and makes the Python-defined `kd`
    operators follow tracing."""
    operator_type = type(kd.math.add)
    lazy = pytypes.ModuleType("plait.kd.lazy", "Lazy forms of the kd operators: each builds an expression.")
    eager = pytypes.ModuleType("plait.kd.eager", "Eager forms of the kd operators: each computes, even in tracing.")
    for ns in NAMESPACES:
        lazy_ns = pytypes.ModuleType(f"plait.kd.lazy.{ns}")
        eager_ns = pytypes.ModuleType(f"plait.kd.eager.{ns}")
        module = getattr(kd, ns)
        _add_forms(module, f"kd.{ns}", lazy_ns, eager_ns, operator_type, skip=getattr(module, "_NOT_OPERATORS", ()))
        setattr(lazy, ns, lazy_ns)
        setattr(eager, ns, eager_ns)
    _add_forms(kd, "kd", lazy, eager, operator_type, skip=_NOT_OPERATORS | set(NAMESPACES) | set(_EAGER_ONLY) | {"bag"})
    # `kd.bag` is Rust (a bag is often made per call) and builds this node
    # while tracing: the operator `kd.bag`, whose body is kd.bags.new's.
    lazy.bag = _python_operator("kd.bag", getattr(kd.bags.new, "__wrapped_eager__", kd.bags.new))
    eager.bag = kd.bag
    for name in _EAGER_ONLY:
        if name in _REFUSED_NATIVELY:
            # (The eager form works while tracing.)
            setattr(eager, name, _untraced_bag(kd, name))
        else:
            setattr(eager, name, getattr(kd, name))
            setattr(kd, name, _eager_only(kd, name))
    # `kd.functor`'s operators (its other names make functors, now).
    lazy.functor = pytypes.ModuleType("plait.kd.lazy.functor")
    eager.functor = pytypes.ModuleType("plait.kd.eager.functor")
    for short in dir(kd.functor):
        forms = _builtins.forms_of(getattr(kd.functor, short))
        if forms is not None:
            setattr(lazy.functor, short, forms[0])
            setattr(eager.functor, short, forms[1])
    with_name = optools._with_python_face(_plait.registry_lookup("kd.annotation.with_name"))
    lazy.with_name = with_name
    lazy.annotation = pytypes.ModuleType("plait.kd.lazy.annotation")
    lazy.annotation.with_name = with_name
    for name in ("I", "V", "S"):
        if hasattr(kd, name):
            setattr(eager, name, getattr(kd, name))
    _expr_methods(kd, lazy)
    return lazy, eager


# DataSlice methods that change data or leave Koda: refused on expressions,
# with the immutable alternative where there is one.
_EAGER_METHODS = {
    "to_py": None, "to_pytree": None, "internal_as_py": None, "fork_bag": None,
    "set_attr": "with_attr", "set_attrs": "with_attrs", "append": "with_list_append_update", "clear": None,
    "pop": None, "set_schema": "with_schema",
}

# `kd` functions that only work eagerly (mutable bags, Python values out).
_EAGER_ONLY = ("mutable_bag", "to_py", "to_pylist")
# (Of which these refuse tracing themselves, without a Python wrapper.)
_REFUSED_NATIVELY = ("mutable_bag",)


class EvaluationInTracingError(ValueError):
    """A traced function asked for a value (`.to_py()` of an expression):
    it has none until evaluated. `kd.compile` falls back to eager calls on it."""


# Methods that read a value out: refused with EvaluationInTracingError.
_VALUE_METHODS = ("to_py", "to_pytree", "internal_as_py")


def _refused_method(name, instead, owner="a DataSlice"):
    error = EvaluationInTracingError if name in _VALUE_METHODS else ValueError

    def method(self, *args, **kwargs):
        hint = f"; use .{instead}() instead." if instead else ""
        raise error(f"calling .{name}() on {owner} is not supported in expr/tracing mode{hint}")

    method.__name__ = name
    return method


def _eager_only(kd, name):
    fn = getattr(kd, name)

    @functools.wraps(fn)
    def call(*args, **kwargs):
        _plait.refuse_tracing(name)
        return fn(*args, **kwargs)

    return call


def _untraced_bag(kd, name):
    """`kd.eager.bag` / `kd.eager.mutable_bag`: a new bag, also while tracing."""

    @functools.wraps(getattr(kd, name))
    def call():
        return _plait.new_bag(name == "mutable_bag")

    return call


# Names of Expr's own API, which DataSlice methods must not replace.
_EXPR_OWN = {"eval", "fingerprint", "node_deps", "op", "qvalue", "tags", "leaf_name"}


def _method(op):
    def method(self, *args, **kwargs):
        return op(self, *args, **kwargs)

    method.__name__ = op.__name__
    method.__doc__ = f"`{getattr(op, 'name', op.__name__)}(self, ...)` as an expression."
    return method


class _Subslicer:
    """`expr.S[...]`: `kd.subslice` of the expression."""

    # Not iterable: `[0]`, `[1]`, ... are expressions, so Python's fallback
    # iteration by index would never stop.
    __iter__ = None

    def __init__(self, expr, subslice):
        self._expr = expr
        self._subslice = subslice

    def __getitem__(self, key):
        keys = key if isinstance(key, tuple) else (key,)
        return self._subslice(self._expr, *keys)


def _expr_methods(kd, lazy):
    """Expressions get the methods of DataSlices (`I.x.flatten()` is
    `kd.lazy.flatten(I.x)`), `.S[...]` and `.with_name(...)`, as in Koda."""
    expr_type = kd.expr.Expr
    for name in dir(kd.types.DataSlice):
        if name.startswith("_") or name in _EXPR_OWN:
            continue
        op = getattr(lazy, name, None)
        if op is None or isinstance(op, pytypes.ModuleType):
            continue
        setattr(expr_type, name, _method(op))
    from plait.kd import _methods

    for name, op_name in {**_methods._METHODS, **_EXPR_METHOD_OPS}.items():
        op = _lazy_form(lazy, op_name)
        if op is not None:
            setattr(expr_type, name, _method(op))
    for name in ("new", "strict_new"):
        op = _lazy_form(lazy, f"kd.entities.{name}")
        setattr(expr_type, name, _schema_method(op))
    for name, instead in _EAGER_METHODS.items():
        setattr(expr_type, name, _refused_method(name, instead))
    for name, owner in _NOT_IN_EXPRESSIONS.items():
        setattr(expr_type, name, _refused_method(name, None, owner))
    from plait.kd import extension_types

    # Named, an extension type's view stays one.
    expr_type.with_name = lambda self, name: extension_types._view(lazy.with_name(self, name))
    expr_type.S = property(lambda self: _Subslicer(self, lazy.subslice), doc="`kd.subslice` of the expression.")
    expr_type.L = property(lambda self: _Subslicer(self, lambda e, *keys: lazy.subslice(e, *keys, ...)),
                           doc="`kd.subslice` of the expression's first dimension: `I.x.L[0]`.")
    _node_api(kd, expr_type)


# Expr methods whose operator differs from what their name says (Koda's
# expression view): method -> operator.
_EXPR_METHOD_OPS = {
    "get_size": "kd.slices.size",
    "get_present_count": "kd.slices.count",
    "get_dtype": "kd.schema.get_dtype",
    "get_sizes": "kd.shapes.get_sizes",
    "bind": "kd.functor.bind",
    "with_schema_from_obj": "kd.schema.with_schema_from_obj",
    "freeze": "kd.core.freeze",
    "clone_as_full": "kd.core.clone_as_full",
    "extract_update": "kd.core.extract_update",
    "follow": "kd.core.follow",
    "ref": "kd.core.ref",
    "get_nofollowed_schema": "kd.schema.get_nofollowed_schema",
    "strict_with_attrs": "kd.core.strict_with_attrs",
}

# Methods of DataBags and DataSlices that only mean something on data, which
# Koda refuses on expressions: method -> what Koda says it is a method of.
_NOT_IN_EXPRESSIONS = {
    **dict.fromkeys(
        ("list", "dict", "uu", "uuobj", "obj", "obj_like", "obj_shaped", "new_like", "new_shaped", "list_like",
         "list_shaped", "dict_like", "dict_shaped", "concat_lists", "fork", "contents_repr", "data_triples_repr",
         "schema_triples_repr", "get_approx_size", "merge_inplace", "merge_fallbacks", "empty", "empty_mutable",
         "adopt", "adopt_stub", "named_schema", "new_schema", "list_schema", "dict_schema", "uu_schema"),
        "a DataBag"),
    **dict.fromkeys(
        ("get_attr_names", "from_vals", "embed_schema", "display", "internal_as_arolla_value",
         "internal_as_dense_array", "internal_is_itemid_schema"),
        "a DataSlice"),
    "is_mutable": "a DataSlice/DataBag",
}


def _lazy_form(lazy, op_name):
    """The lazy form of operator `op_name` (`kd.schema.get_dtype` ->
    `kd.lazy.schema.get_dtype`), or None when plait does not have it."""
    obj = lazy
    for part in op_name.split(".")[1:]:
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _schema_method(op):
    """`schema_expr.new(**attrs)`: `kd.new(schema=schema_expr, **attrs)`."""

    def method(self, **attrs):
        return op(schema=self, **attrs)

    method.__name__ = op.__name__
    method.__doc__ = f"`{getattr(op, 'name', op.__name__)}(schema=self, ...)` as an expression."
    return method


def _node_api(kd, expr_type):
    """What an expression node says about itself (Koda's Expr API):
    `equals`, `inputs`, `is_literal`, `is_leaf`, `is_operator`,
    `is_placeholder`, `leaf_key`, `placeholder_key` and `qtype`."""
    expr = kd.expr

    def equals(self, other):
        """True when `other` is the same expression (same structure, same
        literals), as `fingerprint` tells."""
        return isinstance(other, expr_type) and self.fingerprint == other.fingerprint

    def inputs(self):
        """The names of the inputs (`I.x`) the expression uses, sorted."""
        return list(expr.get_input_names(self))

    def qtype(self):
        """The QType of a literal's value; None for any other node (its type
        is known when it is evaluated)."""
        if not expr.is_literal(self):
            return None
        value = self.qvalue
        return getattr(value, "qtype", None)

    def evaluate(self, self_input=None, /, **inputs):
        """Evaluates the expression: `self_input` is `S` (`I.self`), the
        keyword arguments the other inputs (`kd.eval(self, ...)`)."""
        return expr.eval(self, self_input, **inputs)

    from plait.kd import strings

    expr_type.__format__ = strings._format_expr
    expr_type.eval = evaluate
    expr_type.equals = equals
    expr_type.inputs = inputs
    expr_type.qtype = property(qtype)
    expr_type.is_literal = property(lambda self: bool(expr.is_literal(self)), doc="True for a literal node.")
    # Inputs and variables are operator nodes in Koda; plait has no other leaves.
    expr_type.is_leaf = property(lambda self: False, doc="False: inputs and variables are operators, as in Koda.")
    expr_type.is_operator = property(lambda self: self._kind() in ("operator", "input", "variable"),
                                     doc="True for a node applying an operator (inputs and variables too, as in Koda).")
    expr_type.is_placeholder = property(lambda self: self._kind() == "placeholder", doc="True for a placeholder `P.x`.")
    expr_type.leaf_key = property(lambda self: "", doc="'': plait expressions have no Arolla leaves.")
    expr_type.placeholder_key = property(lambda self: self.leaf_name if self._kind() == "placeholder" else "",
                                         doc="The name of a placeholder, else ''.")
