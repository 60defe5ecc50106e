"""`kd.typing`: abstract types and symbolic shapes (plait's own namespace).

A `SliceType` says what is known of a DataSlice before it is computed: its
schema and one dimension per rank. A dimension is an int, a named size
(`'n'`), an affine expression of sizes (`kd.typing.size('n') * 2 + 1`),
`kd.typing.RAGGED` (rows of different sizes) or `kd.typing.UNKNOWN`.
`kd.typing.infer(fn, *types)` traces `fn` once with inputs of those types and
returns the type of its result, typing each operation as it is traced: a type
error is raised at the line that made it, before anything runs. Types are
opt-in: nothing is checked where none is declared. See docs/typing.md.
"""

import inspect as _inspect

from plait import _plait

SliceType = _plait.SliceType
Size = _plait.Size
RAGGED = _plait.DimMarker.Ragged
UNKNOWN = _plait.DimMarker.Unknown


def size(name):
    """Returns the size called `name`, for dimensions and size arithmetic.

    Sizes combine with `+`, `-` and `*` by an int into affine expressions;
    two expressions are the same size when they are equal as expressions
    (`2 * n + 1` is `n + n + 1`), and sizes with different names differ.

    Args:
      name: an identifier (names starting with `_pd_shp` are reserved for
        the sizes inference makes up).

    Examples:
      >>> n = kd.typing.size('n')
      >>> n * 2 + 1
      2*n + 1
      >>> kd.typing.SliceType(kd.FLOAT32, (n, kd.typing.RAGGED))
      FLOAT32[n, *]
    """
    return _plait.typing_size(name)


def type_of(x):
    """Returns the exact type of DataSlice `x`.

    Examples:
      >>> kd.typing.type_of(kd.slice([[1, 2], [3]]))
      INT32[2, *]
      >>> kd.typing.type_of(kd.new(a=1.0))
      Entity(a=FLOAT32)[]
    """
    return _plait.typing_type_of(x)


def infer(fn, *arg_types, **kwarg_types):
    """Returns the type of what `fn` returns on arguments of the given types.

    `fn` is traced once (as `kd.fn` traces it) with an input for each
    parameter; each operation is typed as it is traced, from the types of its
    arguments, so nothing is computed but operations on constants. Parameters
    given no type are unknown: nothing is checked about them.

    Args:
      fn: a Python function.
      *arg_types: `kd.typing.SliceType`s of the first parameters.
      **kwarg_types: `kd.typing.SliceType`s of parameters by name.

    Returns:
      A `kd.typing.SliceType` (or a tuple of them, or `kd.typing.UNKNOWN`
      where nothing is known).

    Raises:
      ValueError: an operation cannot be applied to arguments of the
        inferred types; the message names the operator, the argument, what
        was expected and the inferred types, and a note names the line.

    Examples:
      >>> T = kd.typing.SliceType
      >>> ds = T(kd.schema.new_schema(x=kd.INT32), ('n', kd.typing.RAGGED))
      >>> kd.typing.infer(lambda ds: kd.agg_sum(ds.x), ds)
      INT32[n]
      >>> kd.typing.infer(lambda a, b: a + b, T(kd.INT32, (10,)), T(kd.INT32, (20,)))
      Traceback (most recent call last):
      ...
      ValueError: kd.math.add: arguments `x` and `y` cannot be broadcast: inferred INT32[10] and INT32[20], which differ in dimension 0 (10 and 20)
      while inferring the type of I.a + I.b (created at ...)
    """
    from plait.kd import expr

    if not callable(fn) or not (_inspect.isfunction(fn) or _inspect.ismethod(fn) or hasattr(fn, "__call__")):
        raise TypeError(f"kd.typing.infer: fn must be a Python function, got {type(fn).__name__}")
    signature = _inspect.signature(fn)
    try:
        bound = signature.bind_partial(*arg_types, **kwarg_types)
    except TypeError as e:
        raise TypeError(f"kd.typing.infer: the types do not match the parameters of {_name(fn)}: {e}") from None
    for name in bound.arguments:
        if signature.parameters[name].kind in (_inspect.Parameter.VAR_POSITIONAL, _inspect.Parameter.VAR_KEYWORD):
            raise TypeError(f"kd.typing.infer: parameter `{name}` of {_name(fn)} is variadic; only named parameters take types")
    _plait.typing_enter(dict(bound.arguments))
    try:
        returns = expr.trace_function(fn, lambda name: expr.I[name])
        return _plait.typing_infer(returns)
    finally:
        _plait.typing_exit()


def _name(fn):
    return getattr(fn, "__qualname__", None) or repr(fn)


__all__ = ["RAGGED", "UNKNOWN", "Size", "SliceType", "infer", "size", "type_of"]
