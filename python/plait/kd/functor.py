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
import typing

from plait import _plait
from plait.kd import _builtins
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
        elif default is inspect.Parameter.empty:
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


def _make(returns, signature, variables, qualname=None, module=None, op="kd.functor.fn"):
    """The functor item (made in Rust: `plait_expr::functor::make_functor`);
    errors name operator `op`."""
    variables = [(name, _as_value(_as_attribute(value))) for name, value in variables.items()]
    if isinstance(returns, _expr.Expr):
        returns = _expr.pack_expr(returns)  # a literal too, as Koda (an EXPR item makes a functor)
    return _plait.make_functor(_as_value(returns), signature, variables, qualname, module, op)


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
    a numbered suffix. A functor's variables are items, so a named literal
    DataSlice of ndim > 0 is stored imploded into a list and read back as
    `kd.explode(V.<name>, ndim)`, as Koda stores it."""
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
        fingerprints[name] = inner.fingerprint
        value = inner.qvalue if _expr.is_literal(inner) else None
        if isinstance(value, _plait.DataSlice) and value.get_ndim() > 0:
            ndim = int(value.get_ndim())
            variables[name] = _kd().implode(value, ndim=ndim)
            return _plait.expr_call("kd.lists.explode", _expr.V[name], ndim)
        variables[name] = inner
        return _expr.V[name]

    return _expr.transform(returns, visit), variables


def expr_fn(returns, *, signature=None, auto_variables=False, **variables):
    """Returns a functor that computes the expression `returns`.

    The inputs (`I.<name>`) used by `returns` and by the expression variables
    become keyword-only parameters of the functor, and keyword arguments it does
    not use are accepted and ignored. Each variable is reachable as `V.<name>`
    and is computed at most once per call.

    Args:
      returns: the expression to compute (a value is turned into a literal).
      signature: the functor's signature (as `kd.functor.get_signature` returns
        it); by default one is built from the inputs of the expressions.
      auto_variables: when true, subexpressions named with `kd.with_name` are
        moved into variables of the functor.
      **variables: the functor's variables: expressions, values or functors.

    Examples:
      >>> f = kd.functor.expr_fn(I.x + V.a, a=I.y * 2)
      >>> f(x=1, y=3)
      DataItem(7, schema: INT32)
      >>> f
      DataItem(Functor[self=Entity(self_not_specified=present), /, *, x, y, **__extra_inputs__](a=I.y * DataItem(2, schema: INT32), returns=I.x + V.a), schema: OBJECT, bag_id: $...)
      >>> g = kd.functor.expr_fn(kd.lazy.with_name(I.x + 1, 'a') * 2, auto_variables=True)
      >>> kd.dir(g)
      ['__signature__', 'a', 'returns']
    """
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
    return _make(returns, signature, variables, op="kd.functor.expr_fn")


def fstr_fn(returns, **kwargs):
    """Returns a functor that formats the f-string `returns`.

    The f-string's fields are expressions with a format spec (`{I.x:s}`,
    `{V.y:.2f}`); the functor's inputs are the expressions' inputs, and
    `kwargs` give its variables (used as `V.name`).

    Args:
      returns: an f-string with at least one formatted expression.
      **kwargs: the functor's variables.

    Examples:
      >>> kd.call(kd.functor.fstr_fn(f'{I.x:s} {I.y:s}'), x=1, y=2)
      DataItem('1 2', schema: STRING)
      >>> kd.call(kd.functor.fstr_fn(f'{V.x:s} {I.y:s}', x=1), y=2)
      DataItem('1 2', schema: STRING)
      >>> kd.functor.fstr_fn('abc')
      Traceback (most recent call last):
      ...
      ValueError: FString has nothing to format. Forgot to specify format `{...:s}`?
    """
    from plait.kd import strings

    if not strings._has_expr_fields(returns):
        raise ValueError("FString has nothing to format. Forgot to specify format `{...:s}`?")
    return expr_fn(strings._expr_fstr(returns), **kwargs)


def trace_py_fn(f, *, auto_variables=True, return_type_as=None, input_types=None, **defaults):
    """Returns a functor made by tracing the Python function `f`.

    `f` runs once, with an input expression (`I.<name>`) for each parameter, so
    the `kd` operations it performs build the functor's expression; Python
    control flow (`if`, loops) is decided during that single run. The functor
    keeps the parameters of `f`.

    Args:
      f: the Python function to trace.
      auto_variables: when true (the default), subexpressions named with
        `kd.with_name` and calls of functions decorated with `@kd.trace_as_fn()`
        become variables of the functor.
      return_type_as: accepted for compatibility with Koda; not used by plait.
      input_types: types of the parameters (`kd.typing.SliceType`s or their
        text, a dict by name or a tuple by position; plait's extension): each
        operation of the trace is typed, a type error names the line that
        made it, and `kd.typing.get_type` gives the functor's type.
      **defaults: default values for parameters of `f` (they replace the
        defaults of `f` itself); each is also a variable of the functor
        (`f.y`), as Koda keeps them.

    Examples:
      >>> f = kd.trace_py_fn(lambda x, y: x + y, y=5)
      >>> f(kd.slice([1, 2]))
      DataSlice([6, 7], schema: INT32, present: 2/2)
      >>> f(1, y=10)
      DataItem(11, schema: INT32)
      >>> f.y
      DataItem(5, schema: INT32, bag_id: $...)
      >>> g = kd.trace_py_fn(lambda x: kd.with_name(x + 1, 'a') * 2)
      >>> 'a' in kd.dir(g)
      True
    """
    del return_type_as  # results are whatever the traced expression computes
    if input_types is None and getattr(f, "_plait_input_types", None) is not None:
        # A `@kd.trace_as_fn(input_types=...)` function made into a functor
        # (a branch of `kd.if_`, a `kd.map` body) keeps its types.
        f, input_types = f.__wrapped__, f._plait_input_types
    variables = {}
    if input_types is None:
        returns = _expr.trace_function(f, lambda name: _expr.I[name])
    else:
        from plait.kd import typing

        returns, types, output = typing._trace_typed("kd.trace_py_fn", f, input_types)
        variables["__type__"] = repr(typing.FunctorType(types, output))
    _check_inputs(f, returns)
    if auto_variables:
        returns, extracted = _extract_variables(returns)
        variables.update(extracted)
    for name, value in defaults.items():
        if isinstance(value, _plait.DataSlice) and value.get_ndim() > 0:
            raise ValueError(f"kd.trace_py_fn: variable [{name}] must be a data item, but has shape: {value.get_shape()}")
    signature = _signature(_python_signature_params(f, defaults))
    for name, value in defaults.items():
        # Readable as `f.<name>` (Koda binds them as variables); a named
        # subexpression of the same name keeps the name.
        variables.setdefault(name, value)
    return _make(returns, signature, variables, getattr(f, "__qualname__", None), getattr(f, "__module__", None),
                 op="kd.trace_py_fn")


def _check_inputs(f, returns):
    """Refuses a trace of `f` that reads inputs other than its parameters (an
    `I.<name>` written in its body, or one it captured from a function being
    traced around it), as Koda does: the functor could never be given them."""
    unexpected = sorted(set(_expr.get_input_names(returns)) - set(inspect.signature(f).parameters))
    if unexpected:
        raise ValueError(f"unexpected inputs {unexpected} found during tracing of function: `{f}`. "
                         "Traced functions must not create new or capture external inputs")


def py_fn(f, *, return_type_as=None, **defaults):
    """Returns a functor that calls the Python function `f` each time it is evaluated.

    Unlike `kd.trace_py_fn`, `f` is not traced: it receives the actual
    arguments (DataItems and DataSlices) at every call, and may run any Python
    code. Its result is returned as it is (Python values are boxed).

    Args:
      f: the Python function to call.
      return_type_as: accepted for compatibility with Koda; plait returns
        whatever `f` returns.
      **defaults: values bound to parameters of `f` (as with `kd.bind`); callers
        may override them.

    Examples:
      >>> f = kd.py_fn(lambda x, y: x * y, y=3)
      >>> f(2)
      DataItem(6, schema: INT32)
      >>> kd.py_fn(lambda x: x.get_size())(kd.slice([[1, 2], [3]]))
      DataItem(3, schema: INT64)
    """
    del return_type_as  # results are whatever `f` returns
    body = _plait.expr_call("kd.functor._apply_py", _plait.expr_literal(f), _expr.I.args, _expr.I.kwargs)
    functor = _make(body, _signature(_ARGS_KWARGS), {}, getattr(f, "__qualname__", None), getattr(f, "__module__", None))
    return bind(functor, **defaults) if defaults else functor  # noqa: F821 - exported from the registry below


def _registered_name(f):
    """The operator name `register_py_fn` gives `f`: its module and
    qualified name (a lambda or a function defined inside another has
    none that another process could find)."""
    name = f"{getattr(f, '__module__', None)}.{getattr(f, '__qualname__', None)}"
    if not all(part.isidentifier() for part in name.split(".")):
        raise ValueError(f"attempt to register an operator with invalid name: '{name}'")
    return name


def register_py_fn(f, *, return_type_as=None, unsafe_override=False, **defaults):
    """Returns a functor that calls the Python function `f`, registered as an operator.

    Unlike `kd.py_fn`, the functor holds no Python object: its body calls the
    operator named after `f`'s module and qualified name
    (`my_module.my_function`), which `f` is registered as. So the functor
    can be saved with `kd.dumps` and loaded in another process where the
    same call to `register_py_fn` has been made (typically at import of
    the module defining `f`). `f` must be a named top-level function; a
    name that is registered already raises ValueError unless
    `unsafe_override` is True.

    Args:
      f: a top-level Python function.
      return_type_as: accepted for compatibility with Koda; plait returns
        whatever `f` returns.
      unsafe_override: whether to replace an operator of the same name.
      **defaults: values bound to parameters of `f` (as with `kd.bind`).

    Examples:
      >>> def triple(x):
      ...   return x * 3
      >>> f = kd.register_py_fn(triple, unsafe_override=True)
      >>> f(kd.slice([1, 2]))
      DataSlice([3, 6], schema: INT32, present: 2/2)
      >>> kd.register_py_fn(lambda x: x)
      Traceback (most recent call last):
      ...
      ValueError: attempt to register an operator with invalid name: '...<lambda>'
    """
    del return_type_as  # results are whatever `f` returns
    name = _registered_name(f)

    def call(args, kwargs):
        return f(*args, **dict(kwargs.items()))

    op = _plait.make_py_function_operator(name, _optools._param_spec(call), f.__doc__ or "", call, False)
    if _plait.registry_lookup(name) is not None and not unsafe_override:
        raise ValueError(f"operator '{name}' is already registered")
    _plait.registry_add(name, op, True)
    body = _plait.expr_call(name, _expr.I.args, _expr.I.kwargs)
    functor = _make(body, _signature(_ARGS_KWARGS), {}, f.__qualname__, f.__module__)
    return bind(functor, **defaults) if defaults else functor  # noqa: F821 - exported from the registry below


def map_py_fn(f, *, schema=None, max_threads=1, ndim=0, include_missing=None, **defaults):
    """Returns a functor that applies the Python function `f` to items, as `kd.map_py` does.

    Calling the functor with slices is `kd.map_py(f, ...)` with the given
    options; `defaults` are bound to `f`'s parameters (callers may override
    them).

    Args:
      f: a Python function.
      schema: the schema of the result (inferred when None).
      max_threads: how many threads may call `f` at once.
      ndim: the dimensions of the items `f` receives (0: single items).
      include_missing: whether `f` is called for missing items too.
      **defaults: values bound to parameters of `f`.

    Examples:
      >>> f = kd.functor.map_py_fn(lambda x, y: x + y, y=10)
      >>> f(kd.slice([1, 2, None]))
      DataSlice([11, 12, None], schema: INT32, present: 2/3)
      >>> kd.functor.map_py_fn(lambda x: len(x), ndim=1)(kd.slice([[1, 2], [3]]))
      DataSlice([2, 1], schema: INT32, present: 2/2)
    """
    options = {"schema": schema, "max_threads": max_threads, "ndim": ndim, "include_missing": include_missing}
    for name in ("schema", "max_threads", "ndim", "include_missing"):
        if isinstance(options[name], _expr.Expr):
            raise TypeError(f"kd.functor.map_py_fn: `{name}` cannot be an expression")
    body = _plait.expr_call("kd.functor._map_py_apply", _plait.expr_literal((f, options)), _expr.I.args, _expr.I.kwargs)
    functor = _make(body, _signature(_ARGS_KWARGS), {}, getattr(f, "__qualname__", None), getattr(f, "__module__", None))
    return bind(functor, **defaults) if defaults else functor  # noqa: F821 - exported from the registry below


class FunctorFactory(typing.Protocol):
    """The type of the `functor_factory` argument of `kd.trace_as_fn`: a
    callable taking a Python function and `return_type_as=` and returning a
    functor, as `kd.trace_py_fn`, `kd.py_fn` and `kd.register_py_fn` do.

    Examples:
      >>> def factory(fn, return_type_as=None) -> kd.types.DataItem:
      ...   return kd.py_fn(fn)
      >>> @kd.trace_as_fn(functor_factory=factory)
      ... def inc(x):
      ...   return x + 1
      >>> kd.fn(lambda x: inc(x))(1)
      DataItem(2, schema: INT32)
    """

    def __call__(self, fn, return_type_as=None): ...


def fn(f, *, use_tracing=True, **kwargs):
    """Returns a functor made from an expression, a Python function or a functor.

    An expression becomes a functor through `kd.functor.expr_fn`, a Python
    function through `kd.trace_py_fn` (or `kd.py_fn` with `use_tracing=False`);
    a functor is returned unchanged.

    Args:
      f: an expression, a Python function or a functor.
      use_tracing: whether a Python function is traced once (True, the default)
        or called at every evaluation (False).
      **kwargs: passed on to `expr_fn`, `trace_py_fn` or `py_fn` (for example the
        variables of an expression functor).

    Examples:
      >>> kd.fn(I.x + I.y)(x=1, y=2)
      DataItem(3, schema: INT32)
      >>> f = kd.fn(lambda x, y=2: x + y)
      >>> f(kd.slice([1, 2]))
      DataSlice([3, 4], schema: INT32, present: 2/2)
      >>> kd.fn(lambda x: x + 1, use_tracing=False)(kd.item(5))
      DataItem(6, schema: INT32)
    """
    if isinstance(f, _expr.Expr):
        return expr_fn(f, **kwargs)
    if _plait.is_functor(f):
        return f
    if not callable(f) or isinstance(f, _plait.DataSlice):
        # (A DataSlice is callable, for functor items.)
        raise TypeError(f"kd.fn: cannot convert {f} into a functor")
    return trace_py_fn(f, **kwargs) if use_tracing else py_fn(f, **kwargs)


def trace_as_fn(*, name=None, py_fn=False, return_type_as=None, functor_factory=None, input_types=None):  # noqa: A002 - Koda's name
    """Returns a decorator that makes a function its own functor when traced.

    When a function decorated this way is called while another function is
    being traced (by `kd.fn` or `kd.trace_py_fn`), it is traced into a functor
    of its own, stored as variable `name` of the outer functor, and the call
    becomes `kd.call` of it, stored as variable `_<name>_result`. Outside
    tracing the function runs as usual, with its arguments and its result
    boxed as operators box them (Python scalars become DataItems).

    Args:
      name: the variable name of the inner functor (by default, the name of the
        decorated function).
      py_fn: when true, the inner functor is made with `kd.py_fn` (not traced).
      return_type_as: passed on to `functor_factory`; not used by plait
        otherwise.
      functor_factory: the function that makes the inner functor (instead of
        `kd.trace_py_fn` or `kd.py_fn`), called with the function and
        `return_type_as=` (see `kd.functor.FunctorFactory`).
      input_types: the types of the parameters, as `kd.trace_py_fn` takes them
        (plait's extension): the inner functor is traced with them.

    Examples:
      >>> @kd.trace_as_fn()
      ... def double(x):
      ...   return x * 2
      >>> f = kd.fn(lambda x: double(x) + 1)
      >>> f(3)
      DataItem(7, schema: INT32)
      >>> f.double(4)
      DataItem(8, schema: INT32)
      >>> double(3)
      DataItem(6, schema: INT32)
    """
    if input_types is not None and (py_fn or functor_factory is not None):
        raise ValueError("kd.trace_as_fn: input_types type a traced functor; it cannot be given with py_fn or functor_factory")

    def decorate(f):
        fn_name = name or f.__name__
        signature = inspect.signature(f)
        traced = {}

        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            if not _plait.is_tracing():
                return _call_boxed(f, signature, fn_name, args, kwargs)
            if "functor" not in traced:
                if functor_factory is not None:
                    traced["functor"] = functor_factory(f, return_type_as=return_type_as)
                else:
                    traced["functor"] = globals()["py_fn"](f) if py_fn else trace_py_fn(f, input_types=input_types)
            functor = _plait.expr_call("kd.annotation.with_name", _expr.literal(traced["functor"]), fn_name)
            call = _plait.expr_call("kd.functor.call", functor, *args, **kwargs)
            return _plait.expr_call("kd.annotation.with_name", call, f"_{fn_name}_result")

        wrapper._plait_input_types = input_types
        return wrapper

    return decorate


def _call_boxed(f, signature, fn_name, args, kwargs):
    """Calls `f` (of `signature`) outside tracing as Koda does for
    `@kd.trace_as_fn()` functions: its arguments and its result boxed as
    operators box them (Python scalars become DataItems), so that it behaves
    as its functor."""
    from plait.kd import optools

    bound = signature.bind(*args, **kwargs)
    for name, param in signature.parameters.items():
        if name not in bound.arguments:
            continue
        value = bound.arguments[name]
        if param.kind == param.VAR_KEYWORD:
            bound.arguments[name] = {k: optools.as_qvalue_or_expr(v) for k, v in value.items()}
        else:
            bound.arguments[name] = optools.as_qvalue_or_expr(value)
    result = f(*bound.args, **bound.kwargs)
    if isinstance(result, _expr.Expr):
        raise ValueError(f"The function [{fn_name}] annotated with @kd.trace_as_fn() was expected to return a value in "
                         "eager mode, but the computation returned an Expr instead.")
    return optools.as_qvalue_or_expr(result)


def _as_value(v):
    kd = _kd()
    if isinstance(v, (_expr.Expr, kd.types.DataSlice)):
        return v
    return kd.item(v)


def get_signature(fn_def):
    """Returns the signature of the functor `fn_def` (its `__signature__` attribute).

    The signature is an object whose `parameters` list has, for each
    parameter, its `name`, `kind` and `default_value`.

    Args:
      fn_def: a functor.

    Examples:
      >>> sig = kd.functor.get_signature(kd.fn(lambda x, y=1: x))
      >>> sig.parameters[:].name
      DataSlice(['x', 'y'], schema: STRING, present: 2/2, bag_id: $...)
      >>> sig.parameters[1].default_value
      DataItem(1, schema: INT32, bag_id: $...)
    """
    return fn_def.get_attr("__signature__")


def allow_arbitrary_unused_inputs(fn_def):
    """Returns the functor changed to accept and ignore unknown keyword arguments.

    A functor traced from a Python function rejects keyword arguments it has no
    parameter for; the returned functor gets a `**__extra_inputs__` parameter
    that takes them. A functor that already has a `**` parameter is returned
    unchanged.

    Args:
      fn_def: a functor.

    Examples:
      >>> g = kd.functor.allow_arbitrary_unused_inputs(kd.fn(lambda x: x))
      >>> g(x=1, z=2)
      DataItem(1, schema: INT32)
      >>> g
      DataItem(Functor <lambda>[x, **__extra_inputs__](returns=I.x), schema: OBJECT, bag_id: $...)
    """
    kd = _kd()
    params = get_signature(fn_def).parameters[:]
    kinds = params.kind.kind.to_py()
    if "var_keyword" in kinds:
        return fn_def
    extra = _plait.make_signature([("__extra_inputs__", "VAR_KEYWORD", "required", None)]).parameters[:]
    items = kd.concat(params, extra)
    return fn_def.with_attrs(__signature__=kd.obj(parameters=kd.implode(items)))


def apply_py(fn, *args, return_type_as=unspecified, **kwargs):
    """Calls the Python function `fn` on the arguments and returns its result.

    Unlike `kd.map_py`, `fn` is called once, with the whole DataSlices. The
    arguments and the result are boxed as operators box them (a Python
    number is a DataItem; a Python list is refused as ambiguous). In an
    expression (`kd.lazy.apply_py`) the call happens when the expression is
    evaluated.

    Args:
      fn: a Python function.
      *args: positional arguments for `fn`.
      return_type_as: a value of the type `fn` returns (a DataSlice by
        default; e.g. `kd.types.DataBag` or a DataBag for a function that
        returns a bag).
      **kwargs: keyword arguments for `fn`.

    Examples:
      >>> kd.apply_py(lambda x, y: x + y, kd.slice([1, 2]), y=kd.item(10))
      DataSlice([11, 12], schema: INT32, present: 2/2)
      >>> kd.apply_py(lambda x: x + 1, 1)
      DataItem(2, schema: INT32)
      >>> f = kd.fn(kd.lazy.apply_py(lambda x: x.get_size(), I.x))
      >>> f(x=kd.slice([1, 2, 3]))
      DataItem(3, schema: INT64)
    """
    if not callable(fn) or isinstance(fn, _plait.DataSlice):
        got = _optools._qtype_of(_optools.as_qvalue(fn))
        raise ValueError(f"kd.apply_py: expected a python callable, got fn: {got.name}")
    args = [_optools.as_qvalue(a) for a in args]
    kwargs = {k: _optools.as_qvalue(v) for k, v in kwargs.items()}
    result = _optools.as_qvalue(fn(*args, **kwargs))
    expected = _expected_qtype(return_type_as)
    got = _optools._qtype_of(result)
    if got != expected:
        hint = "; consider specifying the `return_type_as=` parameter" if return_type_as is unspecified else ""
        raise ValueError(f"kd.apply_py: expected the result to have qtype {expected.name}, got {got.name}{hint}")
    return result


def _expected_qtype(return_type_as):
    """The QType of what a Python function returns, given as `return_type_as`
    (a value, or a class such as `kd.types.DataBag`)."""
    from plait.kd import qtypes

    if return_type_as is unspecified:
        return qtypes.DATA_SLICE
    if isinstance(return_type_as, type):
        for cls, qtype in ((_plait.DataSlice, qtypes.DATA_SLICE), (_plait.DataBag, qtypes.DATA_BAG),
                           (_plait.JaggedShape, qtypes.JAGGED_SHAPE)):
            if issubclass(return_type_as, cls):
                return qtype
    return _optools._qtype_of(_optools.as_qvalue(return_type_as))


def _apply_py(fn, args, kwargs):
    """The body of `py_fn` functors: calls the Python function."""
    return fn(*args, **dict(kwargs.items()))


def _map_py_apply(fn_and_options, args, kwargs):
    """The body of `map_py_fn` functors: `kd.map_py` with the options."""
    fn, options = fn_and_options
    return _kd().map_py(fn, *args, **options, **dict(kwargs.items()))


def _register():
    for name, f in (("kd.functor._apply_py", _apply_py), ("kd.functor._map_py_apply", _map_py_apply)):
        op = _plait.make_py_function_operator(name, _optools._param_spec(f), f.__doc__ or "", f, False)
        _plait.registry_add(name, op, True)


_register()


# `kd.functor.call`, `if_`, `map`, `while_`, `for_`, `reduce`, `flat_map_*`.
_builtins.export(globals(), "kd.functor")
