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
    """`x` if `condition` (a MASK item) is present, else a ValueError with
    `message_or_fn` (a message, or a function of `args` returning one)."""
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
    """`ds` if its items can be implicitly cast to `primitive_schema`."""
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
    """`ds` if it is a present item castable to `primitive_schema`."""
    if not ds.is_item() or ds.get_present_count().to_py() != 1:
        raise ValueError(f"kd.assertion.assert_present_scalar: argument `{_py(arg_name)}` must be a present item")
    return assert_primitive(arg_name, ds, primitive_schema)


def _py(x):
    return x.to_py() if isinstance(x, _plait.DataSlice) else x


def with_print(x, *args, sep=" ", end="\n"):
    """Prints `args` (separated by `sep`, ended by `end`) and returns `x`."""
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
    """A decorator checking the schemas of the named arguments at each call
    (inside a traced functor: at each call of the functor)."""

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
    """A decorator checking the schema of the function's result."""

    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            return _schema_check("kd.check_output", "output", constraint, fn(*args, **kwargs))

        return wrapper

    return decorate
