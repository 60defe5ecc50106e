"""`kd.optools`: defining operators (seed 000, "Operators").

* `as_lambda_operator(name)` — the decorated function is traced once, with
  placeholders `P.<param>` for its parameters, into the operator's body;
  evaluation inlines the body (lowering).
* `as_py_function_operator(name)` — the decorated Python function is called
  at evaluation with the argument values.
* `as_backend_operator(name)` — declares an operator over a Rust kernel of
  the registry (the decorated function gives the signature and doc only).
* `add_to_registry(name=None, aliases=())` — registers an operator by name
  so that `kd.optools.make_operators_container` and the text of
  expressions find it.
"""

import inspect

from plait import _plait
from plait.kd import expr as _expr
from plait.kd._operators import unspecified


def _param_spec(fn, python_defaults=False):
    """`(name, kind, default_kind, default)` for each parameter of `fn`.
    With `python_defaults`, parameters with a default are left unspecified,
    so that calling `fn` applies its own (Python) defaults."""
    spec = []
    for p in inspect.signature(fn).parameters.values():
        if p.default is inspect.Parameter.empty:
            spec.append((p.name, p.kind.name, "required", None))
        elif p.default is unspecified or python_defaults:
            spec.append((p.name, p.kind.name, "unspecified", None))
        else:
            spec.append((p.name, p.kind.name, "value", p.default))
    return spec


def _with_python_face(op, fn=None):
    """Gives `op` a Python signature and doc (for `help` and `inspect`)."""
    op.__signature__ = _signature(op)
    op.__doc__ = op.doc or (fn.__doc__ if fn is not None else None)
    op.__name__ = op.name.rsplit(".", 1)[-1]
    return op


def _signature(op):
    params = []
    for name, kind, has_default, default in op.parameters():
        kind = getattr(inspect.Parameter, kind)
        if has_default:
            params.append(inspect.Parameter(name, kind, default=unspecified if default is None else default))
        else:
            params.append(inspect.Parameter(name, kind))
    return inspect.Signature(params)


def _name_of(name, fn):
    return name if name is not None else fn.__name__


def as_lambda_operator(name, *, doc=None, **_options):
    """A decorator making a lambda operator of a function: the function is
    called once, in tracing mode, with `P.<param>` for each parameter (a
    tuple for `*args`), and what it returns is the body.

    >>> @kd.optools.as_lambda_operator('my_add')
    ... def my_add(x, y):
    ...   return x + y * 2
    >>> kd.eval(my_add(I.a, 3), a=1)
    DataItem(7, schema: INT32)
    """

    def decorate(fn):
        body = _expr.trace_function(fn, lambda name: _expr.P[name])
        op = _plait.make_lambda_operator(_name_of(name, fn), _param_spec(fn), doc or fn.__doc__ or "", body)
        return _with_python_face(op, fn)

    return decorate


def as_py_function_operator(name, *, deterministic=True, doc=None, **_options):
    """Returns a decorator making an operator that calls a Python function.

    The operator builds expression nodes; at evaluation the decorated
    function is called with the values of the arguments (DataSlices, or
    whatever the argument expressions compute) and its result is the value.
    The operator is not registered (see `kd.optools.add_to_registry`). Other
    Koda options are accepted and ignored.

    Args:
      name: the operator's name, shown in expressions.
      deterministic: False keeps calls on literal arguments from being
        computed ahead of evaluation, so the function runs at each evaluation.
      doc: the operator's docstring (the function's own when unspecified).

    Examples:
      >>> @kd.optools.as_py_function_operator('doc_example.py_double')
      ... def double(x):
      ...   return x * 2
      >>> double(I.a)
      doc_example.py_double(I.a)
      >>> kd.eval(double(I.a), a=kd.slice([1, 2]))
      DataSlice([2, 4], schema: INT32, present: 2/2)
    """

    def decorate(fn):
        op = _plait.make_py_function_operator(_name_of(name, fn), _param_spec(fn), doc or fn.__doc__ or "", fn, deterministic)
        return _with_python_face(op, fn)

    return decorate


def as_backend_operator(name, *, kernel=None, doc=None, **_options):
    """Returns a decorator declaring an operator over a kernel of plait's registry.

    The decorated function only gives the parameters and the docstring; its
    body never runs. At evaluation the Rust kernel registered as `kernel`
    (by default `name`) computes the result. Raises ValueError when no such
    kernel exists. Other Koda options are accepted and ignored.

    Args:
      name: the operator's name.
      kernel: the name of the Rust kernel, when it differs from `name`.
      doc: the operator's docstring (the function's own when unspecified).

    Examples:
      >>> @kd.optools.as_backend_operator('kd.math.subtract')
      ... def minus(x, y):
      ...   '''Returns x minus y.'''
      >>> kd.eval(minus(I.a, 1), a=5)
      DataItem(4, schema: INT32)
    """

    def decorate(fn):
        op = _plait.make_backend_operator(_name_of(name, fn), kernel or name, _param_spec(fn), doc or fn.__doc__ or "")
        return _with_python_face(op, fn)

    return decorate


def add_to_registry(name=None, *, aliases=(), unsafe_override=False, **_options):
    """Returns a decorator that registers an operator by name.

    The operator is registered under `name` (its own name when unspecified)
    and under each of `aliases`, so that `kd.optools.make_operators_container`
    finds it; the decorator returns the registered operator. Registering a
    name that is taken raises ValueError unless `unsafe_override` is True.
    Other Koda options are accepted and ignored.

    Args:
      name: the name to register (the operator's own name when None).
      aliases: more names for the same operator.
      unsafe_override: whether to replace an operator already registered.

    Examples:
      >>> @kd.optools.add_to_registry(aliases=['doc_example.thrice'])
      ... @kd.optools.as_lambda_operator('doc_example.triple')
      ... def triple(x):
      ...   return x * 3
      >>> kd.eval(triple(I.a), a=2)
      DataItem(6, schema: INT32)
      >>> ops = kd.optools.make_operators_container('doc_example')
      >>> kd.eval(ops.doc_example.thrice(I.a), a=2)
      DataItem(6, schema: INT32)
    """

    def decorate(op):
        if not isinstance(op, _expr.ExprOperator):
            raise TypeError(f"kd.optools.add_to_registry: expected an operator, got {type(op).__name__}")
        registered = _with_python_face(_plait.registry_add(name or op.name, op, unsafe_override), op)
        for alias in aliases:
            _plait.registry_add(alias, op, unsafe_override)
        return registered

    return decorate


def add_alias(name, alias):
    """Registers the operator registered as `name` under `alias` as well.

    Raises LookupError when no operator is registered as `name`.

    Args:
      name: the full name of a registered operator.
      alias: the additional name.

    Examples:
      >>> kd.optools.add_alias('kd.math.add', 'doc_example.plus')
      >>> ops = kd.optools.make_operators_container('doc_example')
      >>> kd.eval(ops.doc_example.plus(I.a, 1), a=2)
      DataItem(3, schema: INT32)
    """
    op = _plait.registry_lookup(name)
    if op is None:
        raise ValueError(f"kd.optools.add_alias: operator {name} is not registered")
    _plait.registry_add(alias, op, False)


class _Container:
    """Registered operators by dotted name (`container.kd.math.add`), limited
    to the operators of the container's namespaces (as Koda's are)."""

    def __init__(self, prefix, namespaces):
        self._prefix = prefix
        self._namespaces = namespaces

    def _full(self, name):
        return f"{self._prefix}.{name}" if self._prefix else name

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        full = self._full(name)
        if full.rpartition(".")[0] in self._namespaces:
            op = _plait.registry_lookup(full)
            if op is not None:
                return _with_python_face(op)
        if any(ns == full or ns.startswith(full + ".") for ns in self._namespaces):
            return _Container(full, self._namespaces)
        raise AttributeError(f"'{full}' is not present in container")

    def __dir__(self):
        """The operators and namespaces reachable one level down."""
        names = set()
        prefix = self._full("")
        if self._prefix in self._namespaces:
            names.update(n[len(prefix):] for n in _plait.registry_names() if n.startswith(prefix) and "." not in n[len(prefix):])
        for ns in self._namespaces:
            if ns.startswith(prefix) and ns != self._prefix:
                names.add(ns[len(prefix):].split(".")[0])
        return sorted(names)

    def __repr__(self):
        return f"OperatorsContainer({self._prefix!r})"


def make_operators_container(*namespaces):
    """Returns a container to reach registered operators by their dotted names.

    `container.kd.math.add` is the operator registered as 'kd.math.add'. The
    operators directly in one of `namespaces` are reachable (`'kd'` reaches
    `kd.add`, not `kd.math.add`); any other name raises AttributeError.

    Args:
      *namespaces: the namespaces to reach (for example 'kd.math').

    Examples:
      >>> ops = kd.optools.make_operators_container('kd.math')
      >>> kd.eval(ops.kd.math.add(I.x, 1), x=2)
      DataItem(3, schema: INT32)
      >>> ops.kd.strings.length
      Traceback (most recent call last):
      ...
      AttributeError: 'kd.strings' is not present in container
    """
    return _Container("", frozenset(namespaces))
