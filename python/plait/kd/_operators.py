"""Builds the `kd.<namespace>` modules from the Rust operator registry.

Each operator is a `plait.types.Operator` object: calling it binds the
arguments to Koda's signature and runs the Rust kernel. Here it also gets a
Python signature (`inspect.signature`, `help`) and a docstring.
"""

import inspect

from plait import _plait

_KINDS = {
    "POSITIONAL_ONLY": inspect.Parameter.POSITIONAL_ONLY,
    "POSITIONAL_OR_KEYWORD": inspect.Parameter.POSITIONAL_OR_KEYWORD,
    "VAR_POSITIONAL": inspect.Parameter.VAR_POSITIONAL,
    "KEYWORD_ONLY": inspect.Parameter.KEYWORD_ONLY,
    "VAR_KEYWORD": inspect.Parameter.VAR_KEYWORD,
}


class Unspecified:
    """The default of an optional argument that has no value."""

    def __repr__(self):
        return "unspecified"


unspecified = Unspecified()


def _signature(op):
    params = []
    for name, kind, has_default, default in op.parameters():
        if has_default:
            value = unspecified if default is None else default
            params.append(inspect.Parameter(name, _KINDS[kind], default=value))
        else:
            params.append(inspect.Parameter(name, _KINDS[kind]))
    return inspect.Signature(params)


def _prepare(op):
    short = op.name.rsplit(".", 1)[1]
    op.__signature__ = _signature(op)
    op.__name__ = short
    op.__qualname__ = short
    op.__doc__ = op.doc
    return op


OPERATORS = {op.name: _prepare(op) for op in _plait.operators()}


def export(namespace, prefix):
    """Puts the operators named `prefix.<name>` into `namespace` as `<name>`.

    This is how plait fills its `kd.<namespace>` modules from the operator
    registry; `namespace` is a dict such as a module's `globals()`.
    """
    for name, op in OPERATORS.items():
        head, _, short = name.rpartition(".")
        if head == prefix:
            namespace[short] = op


def export_aliases(namespace, prefix="kd"):
    """Puts the operators having an alias `prefix.<name>` into `namespace` as `<name>`.

    This is how plait gives operators their short names (`kd.add` for
    `kd.math.add`); `namespace` is a dict such as a module's `globals()`.
    """
    for op in OPERATORS.values():
        for alias in op.aliases:
            head, _, short = alias.rpartition(".")
            if head == prefix:
                namespace[short] = op


def traced_through(fn):
    """Marks `fn` as glue over registry operators (boxing Python values,
    choosing an operator by the arguments given): inside tracing it runs
    as it is, and the registry operators it calls build the expression, so
    a functor using it holds registry operators only (and can be saved).
    Its `kd.lazy` form does the same."""
    fn.__plait_traced_through__ = True
    return fn


