"""`kd.expr`, `kd.I`, `kd.V`, `kd.lazy` and `kd.eval`: building expressions
and evaluating them (seed 000, "Expressions and Operators").

`kd.lazy.<ns>.<op>(...)` builds an operator node instead of computing: its
arguments are bound to the operator's signature (defaults filled in, as Koda
shows them) and non-expression arguments become literals. Evaluation runs in
Rust (`plait-expr`): a plan per expression, cached by fingerprint.
"""

import inspect
import types as pytypes

from plait import _plait
from plait.kd._operators import OPERATORS, unspecified

Expr = _plait.Expr


class _Leaves:
    """`kd.I` / `kd.V`: `kd.I.x` is the input named `x`."""

    def __init__(self, make, prefix):
        self._make = make
        self._prefix = prefix

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return self._make(name)

    def __getitem__(self, name):
        return self._make(name)

    def __repr__(self):
        return self._prefix


I = _Leaves(_plait.expr_input, "I")
V = _Leaves(_plait.expr_variable, "V")


def literal(value):
    """An expression holding `value`."""
    return _plait.expr_literal(value)


def is_literal(expr):
    """Whether `expr` is a literal node."""
    return isinstance(expr, Expr) and expr._kind() == "literal"


def get_input_names(expr):
    """The names of the inputs (`I.x`) of `expr`, sorted."""
    return _plait.expr_input_names(expr)


def eval(expr, /, **inputs):  # noqa: A001 - Koda's name
    """The value of `expr` with the inputs given by name; a DataSlice (or
    a value that is not an expression) evaluates to itself."""
    if not isinstance(expr, Expr):
        return expr
    return _plait.eval_expr(expr, inputs)


def _lazy(op):
    """The lazy form of operator `op`: builds an operator node."""
    signature = op.__signature__
    names = list(signature.parameters)

    def build(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        values = [bound.arguments.get(name, unspecified) for name in names]
        return _plait.expr_op(op.name, [None if v is unspecified else v for v in values])

    build.__name__ = op.__name__
    build.__qualname__ = op.__name__
    build.__doc__ = f"Lazy `{op.name}`: builds an expression. " + (op.__doc__ or "")
    build.__signature__ = signature
    return build


def _namespaces():
    """`kd.lazy`: one namespace per `kd.<ns>`, plus the top-level aliases."""
    lazy = pytypes.SimpleNamespace()
    for name, op in OPERATORS.items():
        kinds = {p.kind for p in op.__signature__.parameters.values()}
        if inspect.Parameter.VAR_POSITIONAL in kinds or inspect.Parameter.VAR_KEYWORD in kinds:
            continue  # not available in expressions yet
        head, _, short = name.rpartition(".")
        parts = head.split(".")[1:]
        target = lazy
        for part in parts:
            if not hasattr(target, part):
                setattr(target, part, pytypes.SimpleNamespace())
            target = getattr(target, part)
        fn = _lazy(op)
        setattr(target, short, fn)
        for alias in op.aliases:
            alias_head, _, alias_short = alias.rpartition(".")
            if alias_head == "kd":
                setattr(lazy, alias_short, fn)
    return lazy


lazy = _namespaces()
