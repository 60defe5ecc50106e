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


def _schema_check(op, what, constraint, value):
    """Checks `value`'s schema against `constraint` (a schema item); inside
    tracing, an assertion node on the expression."""
    kd = _kd()
    if not isinstance(constraint, kd.types.DataSlice):
        return value  # duck-type constraints are not checked
    message = f"{op}: type mismatch for {what}; expected type {constraint}, got "
    if isinstance(value, kd.expr.Expr):
        got = kd.lazy.get_schema(value)
        condition = kd.lazy.comparison.equal(got, constraint)
        # The message is built only when the check fails, by a functor of the schema found.
        return kd.assertion.with_assertion(value, condition, lambda got: kd.strings.join(message, kd.schema.get_repr(got)), got)
    if isinstance(value, kd.types.DataSlice) and value.get_schema() != constraint:
        raise TypeError(f"{message}{value.get_schema()}")
    return value


def check_inputs(**kw_constraints):
    """Returns a decorator that checks the schemas of a function's arguments at each call.

    Each keyword names a parameter and gives its expected schema; an argument
    whose schema differs raises a TypeError. When the decorated function is
    traced into a functor, the checks become part of the functor and run at
    each of its calls (raising a ValueError there).

    Args:
      **kw_constraints: the expected schema of each named parameter.

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

    def decorate(fn):
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            for name, constraint in kw_constraints.items():
                if name in bound.arguments:
                    bound.arguments[name] = _schema_check("kd.check_inputs", f"parameter {name}", constraint,
                                                          bound.arguments[name])
            return fn(*bound.args, **bound.kwargs)

        return wrapper

    return decorate


def check_output(constraint):
    """Returns a decorator that checks the schema of a function's result.

    A result whose schema is not `constraint` raises a TypeError. When the
    decorated function is traced into a functor, the check runs at each call
    of the functor (raising a ValueError there).

    Args:
      constraint: the expected schema of the result.

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

    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            return _schema_check("kd.check_output", "output", constraint, fn(*args, **kwargs))

        return wrapper

    return decorate
