"""`kd.assertion`, `kd.with_print`, `kd.check_inputs` / `kd.check_output`:
checks and prints that run when a functor is evaluated (and right away
eagerly).

Inside tracing `with_assertion` and `with_print` become operator nodes, and
the `check_*` decorators put `with_assertion` nodes on the traced function's
inputs and output, so a traced functor checks its arguments at every call.
"""

import functools
import inspect

from plait import _plait

__all__ = ["assert_present_scalar", "assert_primitive", "with_assertion"]


def _kd():
    from plait import kd

    return kd


def with_assertion(x, condition, message_or_fn, *args):
    """Returns `x` if `condition` is present, and raises a ValueError otherwise.

    The error message is `message_or_fn` itself, or the result of calling it
    with `args` (so an expensive message is built only on failure). In a
    functor (`kd.lazy.assertion.with_assertion`) the check runs at every call.

    Args:
      x: the value to return.
      condition: a MASK DataItem.
      message_or_fn: the error message, or a function returning it.
      *args: arguments for `message_or_fn` when it is a function.

    Examples:
      >>> x = kd.item(3)
      >>> kd.assertion.with_assertion(x, x > 0, 'x must be positive')
      DataItem(3, schema: INT32)
      >>> f = kd.fn(kd.lazy.assertion.with_assertion(I.x, I.x > 0, 'x must be positive'))
      >>> f(x=-1)
      Traceback (most recent call last):
      ...
      ValueError: x must be positive
      ...
    """
    kd = _kd()
    if not isinstance(condition, kd.types.DataSlice) or str(condition.get_schema()) not in ("MASK", "NONE"):
        raise ValueError("kd.assertion.with_assertion: `condition` must be a MASK item")
    n = condition.get_size().to_py()
    if n > 0 and condition.get_present_count().to_py() == n:
        return x
    message = message_or_fn(*args) if callable(message_or_fn) and not isinstance(message_or_fn, kd.types.DataSlice) else message_or_fn
    if isinstance(message, kd.types.DataSlice):
        message = message.to_py()
    raise ValueError(str(message))


def assert_primitive(arg_name, ds, primitive_schema):
    """Returns `ds` if its items can be implicitly cast to `primitive_schema`, and raises a ValueError otherwise.

    A slice whose items are all missing (schema NONE) always passes. The error
    message names the argument as `arg_name`.

    Args:
      arg_name: the argument's name, for the error message.
      ds: the DataSlice to check.
      primitive_schema: the expected primitive schema (e.g. `kd.INT64`).

    Examples:
      >>> kd.assertion.assert_primitive('x', kd.slice([1, 2]), kd.INT64)
      DataSlice([1, 2], schema: INT32, present: 2/2)
      >>> kd.assertion.assert_primitive('x', kd.slice(['a']), kd.INT32)
      Traceback (most recent call last):
      ...
      ValueError: kd.assertion.assert_primitive: argument `x` must be a slice of INT32, got a slice of STRING
    """
    kd = _kd()
    try:
        common = kd.schema.common_schema(kd.slice([ds.get_schema(), primitive_schema]))
    except ValueError:
        common = None
    if str(ds.get_schema()) not in ("NONE", str(primitive_schema)) and (common is None or str(common) != str(primitive_schema)):
        raise ValueError(f"kd.assertion.assert_primitive: argument `{_py(arg_name)}` must be a slice of "
                         f"{primitive_schema}, got a slice of {ds.get_schema()}")
    return ds


def assert_present_scalar(arg_name, ds, primitive_schema):
    """Returns `ds` if it is a present DataItem castable to `primitive_schema`, and raises a ValueError otherwise.

    Args:
      arg_name: the argument's name, for the error message.
      ds: the DataItem to check.
      primitive_schema: the expected primitive schema (e.g. `kd.INT64`).

    Examples:
      >>> kd.assertion.assert_present_scalar('x', kd.item(1), kd.INT64)
      DataItem(1, schema: INT32)
      >>> kd.assertion.assert_present_scalar('x', kd.item(None, kd.INT32), kd.INT64)
      Traceback (most recent call last):
      ...
      ValueError: kd.assertion.assert_present_scalar: argument `x` must be a present item
    """
    if not ds.is_item() or ds.get_present_count().to_py() != 1:
        raise ValueError(f"kd.assertion.assert_present_scalar: argument `{_py(arg_name)}` must be a present item")
    return assert_primitive(arg_name, ds, primitive_schema)


def _py(x):
    return x.to_py() if isinstance(x, _plait.DataSlice) else x


def with_print(x, *args, sep=" ", end="\n"):
    """Prints `args` and returns `x` unchanged.

    The arguments are printed like Python's `print` (primitive DataItems as
    their values), separated by `sep` and followed by `end`. In a functor
    (`kd.lazy.with_print`) the printing happens at every evaluation.

    Args:
      x: the value to return.
      *args: the values to print.
      sep: the separator between the printed values.
      end: the text printed after the last value.

    Examples:
      >>> kd.with_print(kd.item(1), 'x is', kd.item(1))
      x is 1
      DataItem(1, schema: INT32)
      >>> kd.with_print(kd.slice([1, 2]), 'values', kd.slice([1, 2]), sep=': ')
      values: [1, 2]
      DataSlice([1, 2], schema: INT32, present: 2/2)
      >>> f = kd.fn(kd.lazy.with_print(I.x + 1, 'x =', I.x))
      >>> f(x=5)
      x = 5
      DataItem(6, schema: INT32)
    """
    print(*[_text(a) for a in args], sep=_py(sep), end=_py(end))
    return x


def _text(a):
    kd = _kd()
    if isinstance(a, kd.types.DataSlice) and a.is_item() and str(a.get_schema()) in ("STRING", "INT32", "INT64", "FLOAT32",
                                                                                      "FLOAT64", "BOOLEAN"):
        return str(a.to_py())
    return str(a)


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
        return kd.lazy.assertion.with_assertion(value, condition, _Mismatch(message, constraint), got)
    if isinstance(value, kd.types.DataSlice) and value.get_schema() != constraint:
        raise TypeError(f"{message}{value.get_schema()}")
    return value


class _Mismatch:
    """The message of a failed check inside a functor (a Python function of
    the schema found, stored in the assertion node)."""

    def __init__(self, message, constraint):
        self.message, self.constraint = message, constraint

    def __call__(self, got):
        return self.message + str(got)

    def __repr__(self):
        return f"<check: {self.message.removesuffix(', got ')}>"


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
