"""`kd.assertion`, `kd.with_print`, `kd.check_inputs` / `kd.check_output`:
checks and prints that run when a functor is evaluated (and right away
eagerly).

Inside tracing `with_assertion` and `with_print` become operator nodes, and
the `check_*` decorators put `with_assertion` nodes on the traced function's
inputs and output, so a traced functor checks its arguments at every call.
"""

import functools
import inspect
import types

from plait import _plait

__all__ = ["assert_present_scalar", "assert_primitive", "with_assertion"]


def _kd():
    from plait import kd

    return kd


def with_assertion(x, condition, message_or_fn, *args):
    """Returns `x` if `condition` is present, and raises a ValueError otherwise.

    The error message is `message_or_fn` itself (a STRING item, and then
    `args` must be empty), or the result of calling it with `args` when it is
    a functor or a Python function (so an expensive message is built only on
    failure); as in Koda, a Python function is traced into a functor
    (`kd.fn`). In a functor (`kd.lazy.assertion.with_assertion`) the check
    runs at every call.

    Args:
      x: the value to return.
      condition: a MASK DataItem.
      message_or_fn: the error message, or a functor returning it.
      *args: arguments for `message_or_fn` when it is a functor.

    Examples:
      >>> x = kd.item(3)
      >>> kd.assertion.with_assertion(x, x > 0, 'x must be positive')
      DataItem(3, schema: INT32)
      >>> kd.assertion.with_assertion(x, x > 5, lambda x: kd.format('x={x} is too small', x=x), x)
      Traceback (most recent call last):
      ...
      ValueError: x=3 is too small
      >>> f = kd.fn(kd.lazy.assertion.with_assertion(I.x, I.x > 0, 'x must be positive'))
      >>> f(x=-1)
      Traceback (most recent call last):
      ...
      ValueError: x must be positive
      ...
    """
    kd = _kd()
    op = "kd.assertion.with_assertion"
    if _present(op, condition, kd.MASK):
        return _boxed(x)
    if isinstance(message_or_fn, (types.FunctionType, functools.partial)):
        from plait.kd.functor import trace_py_fn

        message_or_fn = trace_py_fn(message_or_fn)
    if _plait.is_functor(message_or_fn):
        message = _plait.functor_call(message_or_fn, *args)
    elif callable(message_or_fn) and not isinstance(message_or_fn, kd.types.DataSlice):
        message = message_or_fn(*args)  # plait's own message builders (`_Mismatch`)
    elif args:
        raise ValueError(f"{op}: expected `args` to be empty when `message_or_fn` is a STRING message")
    else:
        message = message_or_fn
    if not _present(op, message, kd.STRING):
        raise ValueError(f"{op}: expected a present value")
    raise ValueError(_py(message))


def _boxed(x):
    return _kd().item(x) if isinstance(x, (bool, int, float, str, bytes, type(None))) else x


def _present(op, item, schema):
    """Whether `item`, a DataItem narrowly castable to `schema` (Python values
    are boxed), is present."""
    kd = _kd()
    item = _boxed(item)
    if item.get_ndim().to_py() != 0:
        raise ValueError(f"{op}: expected rank 0, but got rank={item.get_ndim().to_py()}")
    try:
        item = kd.schema.cast_to_narrow(item, schema)
    except ValueError as error:
        raise ValueError(f"{op}: {str(error).removeprefix('kd.schema.cast_to_narrow: ')}") from None
    return item.get_present_count().to_py() == 1


def _check_primitive_schema(op, primitive_schema):
    kd = _kd()
    if str(primitive_schema.get_schema()) != "SCHEMA":
        raise ValueError(f"{op}: primitive schema's schema must be SCHEMA, got: {primitive_schema.get_schema()}")
    if not kd.schema.is_primitive_schema(primitive_schema):
        raise ValueError(f"{op}: primitive schema must contain a primitive DType, got {primitive_schema}")


def _not_castable(ds, primitive_schema):
    """None if the items of `ds` can be implicitly cast to `primitive_schema`,
    and else the text describing them (`STRING`, `OBJECT containing INT32
    and STRING values`)."""
    kd = _kd()
    schema = ds.get_schema()
    if str(schema) != "OBJECT":
        return None if str(schema) == "NONE" or _implicitly(schema, primitive_schema) else str(schema)
    names, castable = set(), True
    for item_schema in kd.unique(kd.get_obj_schema(ds).flatten()).L:
        if kd.schema.is_primitive_schema(item_schema):
            names.add(str(item_schema))
            castable = castable and _implicitly(item_schema, primitive_schema)
        else:
            names.add("DTYPE" if str(item_schema) == "SCHEMA" else "non-primitive")
            castable = False
    if castable:
        return None
    names = sorted(names)
    listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    return f"OBJECT containing {listed} values"


def _implicitly(schema, primitive_schema):
    """Whether `schema` can be implicitly cast to `primitive_schema`."""
    kd = _kd()
    try:
        return kd.schema.common_schema(kd.slice([schema, primitive_schema])) == primitive_schema
    except ValueError:
        return False


def assert_primitive(arg_name, ds, primitive_schema):
    """Returns `ds` if its items can be implicitly cast to `primitive_schema`, and raises a ValueError otherwise.

    A slice whose items are all missing (schema NONE) always passes; so does
    an OBJECT slice whose present items all can be cast. The error message
    names the argument as `arg_name`.

    Args:
      arg_name: the argument's name, for the error message.
      ds: the DataSlice to check.
      primitive_schema: the expected primitive schema (e.g. `kd.INT64`).

    Examples:
      >>> kd.assertion.assert_primitive('x', kd.slice([1, 2]), kd.INT64)
      DataSlice([1, 2], schema: INT32, present: 2/2)
      >>> kd.assertion.assert_primitive('x', kd.slice([1, 2], kd.OBJECT), kd.INT32)
      DataSlice([1, 2], schema: OBJECT, present: 2/2)
      >>> kd.assertion.assert_primitive('x', kd.slice(['a']), kd.INT32)
      Traceback (most recent call last):
      ...
      ValueError: kd.assertion.assert_primitive: argument `x` must be a slice of INT32, got a slice of STRING
      >>> kd.assertion.assert_primitive('x', kd.slice([1, 'a']), kd.INT32)
      Traceback (most recent call last):
      ...
      ValueError: kd.assertion.assert_primitive: argument `x` must be a slice of INT32, got a slice of OBJECT containing INT32 and STRING values
    """
    op = "kd.assertion.assert_primitive"
    _check_primitive_schema(op, primitive_schema)
    ds = _boxed(ds)
    got = _not_castable(ds, primitive_schema)
    if got is not None:
        raise ValueError(f"{op}: argument `{_py(arg_name)}` must be a slice of {primitive_schema}, got a slice of {got}")
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
      ValueError: kd.assertion.assert_present_scalar: argument `x` must be an item holding INT64, got missing
      >>> kd.assertion.assert_present_scalar('x', kd.slice([1]), kd.INT64)
      Traceback (most recent call last):
      ...
      ValueError: kd.assertion.assert_present_scalar: argument `x` must be an item holding INT64, got a slice of rank 1 > 0
    """
    op = "kd.assertion.assert_present_scalar"
    _check_primitive_schema(op, primitive_schema)
    ds = _boxed(ds)
    expected = f"{op}: argument `{_py(arg_name)}` must be an item holding {primitive_schema}, got"
    if not ds.is_item():
        raise ValueError(f"{expected} a slice of rank {ds.get_ndim().to_py()} > 0")
    if ds.get_present_count().to_py() != 1:
        raise ValueError(f"{expected} missing")
    got = _not_castable(ds, primitive_schema)
    if got is not None:
        raise ValueError(f"{expected} an item of {got}")
    return ds


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
