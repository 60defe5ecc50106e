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
    """A decorator making an operator that calls the Python function at
    evaluation, with the values of its arguments (DataSlices, or whatever
    the expression computed). `deterministic=False` keeps it from being
    folded into a literal.
    """

    def decorate(fn):
        op = _plait.make_py_function_operator(_name_of(name, fn), _param_spec(fn), doc or fn.__doc__ or "", fn, deterministic)
        return _with_python_face(op, fn)

    return decorate


def as_backend_operator(name, *, kernel=None, doc=None, **_options):
    """A decorator declaring an operator over the Rust kernel registered as
    `kernel` (default: `name`); the decorated function gives the signature
    and the doc, its body is never run."""

    def decorate(fn):
        op = _plait.make_backend_operator(_name_of(name, fn), kernel or name, _param_spec(fn), doc or fn.__doc__ or "")
        return _with_python_face(op, fn)

    return decorate


def add_to_registry(name=None, *, aliases=(), unsafe_override=False, **_options):
    """A decorator registering an operator (under its own name, or `name`)
    and each of `aliases`; returns the registered operator."""

    def decorate(op):
        if not isinstance(op, _expr.ExprOperator):
            raise TypeError(f"kd.optools.add_to_registry: expected an operator, got {type(op).__name__}")
        registered = _with_python_face(_plait.registry_add(name or op.name, op, unsafe_override), op)
        for alias in aliases:
            _plait.registry_add(alias, op, unsafe_override)
        return registered

    return decorate


def add_alias(name, alias):
    """Registers the operator called `name` under `alias` too."""
    op = _plait.registry_lookup(name)
    if op is None:
        raise LookupError(f"kd.optools.add_alias: unknown operator: {name}")
    _plait.registry_add(alias, op, False)


class _Container:
    """Registered operators by dotted name: `container.kd.my_ns.my_op`."""

    def __init__(self, prefix):
        self._prefix = prefix

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        full = f"{self._prefix}.{name}" if self._prefix else name
        op = _plait.registry_lookup(full)
        if op is not None:
            return _with_python_face(op)
        return _Container(full)

    def __repr__(self):
        return f"OperatorsContainer({self._prefix!r})"


def make_operators_container(*namespaces):
    """A container to reach registered operators by name (`.kd.math.add`)."""
    del namespaces  # every registered operator is reachable by its full name
    return _Container("")
