"""`kd.functor`: functors — computations stored as Koda items (seed 000,
"Functors", "Tracing", "Functor Evaluation").

A functor is an object whose `returns` attribute is an expression (an EXPR
item); its other attributes are variables (`V.x`): expressions, values or
nested functors. `__signature__` lists the parameters as Koda lays them out.
Calling compiles the functor once (variables inlined, so each is computed
once per call) and evaluates it in Rust (`plait_expr::functor`).
"""

import functools
import inspect

from plait import _plait
from plait.kd import expr as _expr
from plait.kd import optools as _optools
from plait.kd._operators import unspecified


def _kd():
    from plait import kd

    return kd


def _signature(params):
    """A signature item from `(name, kind, default)` triples (`kind` an
    `inspect.Parameter` kind, `default` a value, `inspect.Parameter.empty`,
    or `_SELF` for Koda's `self` parameter)."""
    spec = []
    for name, kind, default in params:
        if default is _SELF:
            spec.append((name, kind.name, "self", None))
        elif default is inspect.Parameter.empty or default is unspecified:
            spec.append((name, kind.name, "required", None))
        else:
            spec.append((name, kind.name, "value", default))
    return _plait.make_signature(spec)


# The default of the `self` parameter of `expr_fn` functors.
_SELF = object()

# The parameters `(*args, **kwargs)` of `py_fn` and `bind` functors.
_ARGS_KWARGS = [("args", inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.empty),
                ("kwargs", inspect.Parameter.VAR_KEYWORD, inspect.Parameter.empty)]


def _python_signature_params(f, defaults):
    params = []
    for p in inspect.signature(f).parameters.values():
        default = defaults.get(p.name, p.default)
        params.append((p.name, p.kind, default))
    return params


def _make(returns, signature, variables, qualname=None, module=None):
    """The functor item (made in Rust: `plait_expr::functor::make_functor`)."""
    variables = [(name, _as_value(_as_attribute(value))) for name, value in variables.items()]
    return _plait.make_functor(_as_value(_as_attribute(returns)), signature, variables, qualname, module)


def _as_attribute(value):
    """A variable's stored form: expressions packed, literals by value."""
    if isinstance(value, _expr.Expr):
        if _expr.is_literal(value):
            return value.qvalue
        return _expr.pack_expr(value)
    return value


def _extract_variables(returns):
    """Named subexpressions (`kd.with_name`) become variables: each is
    replaced by `V.<name>`; a name used for two different expressions gets
    a numbered suffix."""
    variables = {}
    fingerprints = {}

    def visit(node):
        name = _expr.get_name(node)
        if name is None:
            return node
        inner = node.node_deps[0]
        base, k = name, 1
        while name in variables and fingerprints[name] != inner.fingerprint:
            name = f"{base}_{k}"
            k += 1
        variables[name] = inner
        fingerprints[name] = inner.fingerprint
        return _expr.V[name]

    return _expr.transform(returns, visit), variables


def expr_fn(returns, *, signature=None, auto_variables=False, **variables):
    """A functor computing `returns` (an expression or a value) with
    `variables` (`V.<name>`). Without `signature`, its inputs are
    keyword-only parameters (as Koda's)."""
    returns = _expr.as_expr(returns)
    if auto_variables:
        returns, extracted = _extract_variables(returns)
        variables = {**extracted, **variables}
    if signature is None:
        names = set(_expr.get_input_names(returns))
        for value in variables.values():
            if isinstance(value, _expr.Expr):
                names.update(_expr.get_input_names(value))
        names.discard("self")
        params = [("self", inspect.Parameter.POSITIONAL_ONLY, _SELF)]
        params += [(n, inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.empty) for n in sorted(names)]
        params.append(("__extra_inputs__", inspect.Parameter.VAR_KEYWORD, inspect.Parameter.empty))
        signature = _signature(params)
    return _make(returns, signature, variables)


def trace_py_fn(f, *, auto_variables=True, **defaults):
    """A functor made by tracing Python function `f` once: each parameter
    is an input (`I.<name>`; `*args` a tuple, `**kwargs` a named tuple), `kd`
    operators build expressions, Python control flow runs now. Subexpressions
    named with `kd.with_name` and functions decorated with
    `@kd.trace_as_fn()` become variables (with `auto_variables`)."""
    returns = _expr.trace_function(f, lambda name: _expr.I[name])
    variables = {}
    if auto_variables:
        returns, variables = _extract_variables(returns)
    signature = _signature(_python_signature_params(f, defaults))
    return _make(returns, signature, variables, getattr(f, "__qualname__", None), getattr(f, "__module__", None))


def py_fn(f, *, return_type_as=None, **defaults):
    """A functor calling Python function `f` at evaluation (no tracing)."""
    del return_type_as  # results are whatever `f` returns
    body = _plait.expr_call("kd.functor._apply_py", _expr.literal(f), _expr.I.args, _expr.I.kwargs)
    functor = _make(body, _signature(_ARGS_KWARGS), {}, getattr(f, "__qualname__", None), getattr(f, "__module__", None))
    return bind(functor, **defaults) if defaults else functor


def fn(f, *, use_tracing=True, **kwargs):
    """A functor from an expression (`expr_fn`), a functor (itself) or a
    Python function (`trace_py_fn`, or `py_fn` with `use_tracing=False`)."""
    if isinstance(f, _expr.Expr):
        return expr_fn(f, **kwargs)
    if is_fn(f):
        return f
    if not callable(f):
        raise TypeError(f"kd.fn: expected a function, an Expr or a functor, got {type(f).__name__}")
    return trace_py_fn(f, **kwargs) if use_tracing else py_fn(f, **kwargs)


def trace_as_fn(*, name=None, py_fn=False, return_type_as=None, functor_factory=None):  # noqa: A002 - Koda's name
    """A decorator: inside tracing, the function becomes a functor of its
    own, stored as the variable `name` (default: the function's name) of the
    functor being traced, and its call a `kd.call` whose result is the
    variable `_<name>_result`. Outside tracing it runs as it is."""
    del return_type_as

    def decorate(f):
        fn_name = name or f.__name__
        traced = {}

        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            if not _plait.is_tracing():
                return f(*args, **kwargs)
            if "functor" not in traced:
                factory = functor_factory or (globals()["py_fn"] if py_fn else trace_py_fn)
                traced["functor"] = factory(f)
            functor = _plait.expr_call("kd.annotation.with_name", _expr.literal(traced["functor"]), fn_name)
            call = _plait.expr_call("kd.functor.call", functor, *args, **kwargs)
            return _plait.expr_call("kd.annotation.with_name", call, f"_{fn_name}_result")

        return wrapper

    return decorate


def call(fn, *args, return_type_as=None, **kwargs):  # noqa: A002 - Koda's name
    """Calls functor `fn` with the arguments (bound to its signature)."""
    del return_type_as
    return _plait.functor_call(fn, *args, **kwargs)


def bind(fn_def, /, *args, return_type_as=None, **kwargs):
    """A functor calling `fn_def` with `args` first and `kwargs` as defaults
    that callers may override (like `functools.partial`)."""
    del return_type_as
    if not is_fn(fn_def):
        raise TypeError(f"kd.functor.bind: expected a functor, got {fn_def!r}")
    bound_args = [_expr.V[f"_arg_{k}"] for k in range(len(args))]
    variables = {f"_arg_{k}": a for k, a in enumerate(args)}
    variables.update(kwargs)
    variables["_aux_fn"] = fn_def
    body = _plait.expr_call(
        "kd.functor._call_bound", _expr.V._aux_fn,
        _plait.expr_call("kd.tuples.tuple", *bound_args),
        _plait.expr_call("kd.tuples.namedtuple", **{k: _expr.V[k] for k in kwargs}),
        _expr.I.args, _expr.I.kwargs)
    return _make(body, _signature(_ARGS_KWARGS), variables)


def _as_value(v):
    kd = _kd()
    if isinstance(v, (_expr.Expr, kd.types.DataSlice)):
        return v
    return kd.item(v)


def is_fn(obj):
    """`kd.present` if `obj` is a functor item, else `kd.missing`."""
    kd = _kd()
    return kd.present if _plait.is_functor(obj) else kd.missing


def has_fn(x):
    """`kd.present` for each item of `x` that is a functor."""
    kd = _kd()
    if x.is_item():
        return is_fn(x)
    flags = [True if _plait.is_functor(item) else None for item in x.flatten().L]
    return kd.has(kd.slice(flags, kd.BOOLEAN)).reshape(x.get_shape())


def get_signature(fn_def):
    """The `__signature__` of a functor."""
    return fn_def.get_attr("__signature__")


def allow_arbitrary_unused_inputs(fn_def):
    """The functor, accepting (and ignoring) keyword arguments it has no
    parameter for."""
    kd = _kd()
    params = get_signature(fn_def).parameters[:]
    kinds = params.kind.kind.to_py()
    if "var_keyword" in kinds:
        return fn_def
    extra = _plait.make_signature([("__extra_inputs__", "VAR_KEYWORD", "required", None)]).parameters[:]
    items = kd.concat(params, extra)
    return fn_def.with_attrs(__signature__=kd.obj(parameters=kd.implode(items)))


def apply_py(fn, *args, return_type_as=unspecified, **kwargs):
    """Calls Python function `fn` on the arguments (in an expression: when
    it is evaluated)."""
    del return_type_as
    if not callable(fn):
        raise TypeError(f"kd.apply_py: expected a Python function, got {type(fn).__name__}")
    return fn(*args, **kwargs)


def _apply_py(fn, args, kwargs):
    """The body of `py_fn` functors: calls the Python function."""
    return fn(*args, **dict(kwargs.items()))


def _call_bound(fn, bound_args, bound_kwargs, args, kwargs):
    """The body of `bind` functors: the bound arguments, overridden by the
    caller's keywords."""
    merged = dict(bound_kwargs.items())
    merged.update(kwargs.items())
    return _plait.functor_call(fn, *bound_args, *args, **merged)


def _register():
    for name, f in (("kd.functor._apply_py", _apply_py), ("kd.functor._call_bound", _call_bound)):
        op = _plait.make_py_function_operator(name, _optools._param_spec(f), f.__doc__ or "", f, False)
        _plait.registry_add(name, op, True)


_register()


from plait.kd.control_flow import flat_map_chain, flat_map_interleaved, reduce  # noqa: E402,F401,A004 - Koda's names
