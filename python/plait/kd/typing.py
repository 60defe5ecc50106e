"""`kd.typing`: abstract types and symbolic shapes (plait's own namespace).

A `SliceType` says what is known of a DataSlice before it is computed: its
schema and one dimension per rank. A dimension is an int, a named size
(`'n'`), an affine expression of sizes (`kd.typing.size('n') * 2 + 1`),
`kd.typing.RAGGED` (rows of different sizes) or `kd.typing.UNKNOWN`.
`kd.typing.infer(fn, *types)` traces `fn` once with inputs of those types and
returns the type of its result, typing each operation of the trace: a type
error names the line that made it, and is raised before anything runs. Types are
opt-in: nothing is checked where none is declared. See docs/typing.md.
"""

import inspect as _inspect

from plait import _plait
from plait.kd._operators import export as _export

_export(globals(), "kd.typing")  # count_named, resizable

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
    parameter; each operation of the trace is then typed from the types of its
    arguments, so nothing is computed but operations on constants. Parameters
    given no type are unknown: nothing is checked about them. A typed functor
    (`kd.fn(f, input_types=...)`) gives the output type it was traced with.

    Args:
      fn: a Python function, or a functor (typed from its body, variables
        included, without tracing; a functor made with `input_types` and
        given no types gives the output type it was traced with).
      *arg_types: `kd.typing.SliceType`s (or their text) of the first
        parameters; a size (`kd.typing.size('sz')`) types an integer item
        whose value is that size, as a dimension argument.
      **kwarg_types: `kd.typing.SliceType`s (or their text) of parameters by
        name.

    Returns:
      A `kd.typing.SliceType` (or a tuple of them, a size for an integer
      item whose value is one, or `kd.typing.UNKNOWN` where nothing is
      known).

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
    if _plait.is_functor(fn):
        declared = get_type(fn)
        if declared is not None and not arg_types and not kwarg_types:
            return declared.output
        return _plait.typing_infer_functor(fn, _bind_functor_types(fn, arg_types, kwarg_types))
    if not callable(fn):
        raise TypeError(f"kd.typing.infer: fn must be a Python function, got {type(fn).__name__}")
    return _traced(fn, _bind_types("kd.typing.infer", fn, arg_types, kwarg_types))[1]


def _bind_types(where, fn, arg_types, kwarg_types):
    """{parameter: type} of `fn` for types given by position and by name (a
    text read as a SliceType)."""
    signature = _inspect.signature(fn)
    try:
        bound = signature.bind_partial(*arg_types, **kwarg_types)
    except TypeError as e:
        raise TypeError(f"{where}: the types do not match the parameters of {_name(fn)}: {e}") from None
    for name in bound.arguments:
        if signature.parameters[name].kind in (_inspect.Parameter.VAR_POSITIONAL, _inspect.Parameter.VAR_KEYWORD):
            raise TypeError(f"{where}: parameter `{name}` of {_name(fn)} is variadic; only named parameters take types")
    return {name: _as_type(where, name, t) for name, t in bound.arguments.items()}


def _bind_functor_types(fn, arg_types, kwarg_types):
    """{parameter: type} of functor `fn`: positional types in the order of its
    positional parameters, the others by name (a text read as a SliceType)."""
    from plait.kd import signature_utils

    names, positional = signature_utils._names_and_positional(fn)
    if len(arg_types) > len(positional):
        raise TypeError(f"kd.typing.infer: {len(arg_types)} positional types for {len(positional)} positional parameters")
    types = dict(zip(positional, arg_types))
    for name, t in kwarg_types.items():
        if name not in names or name in types:
            raise TypeError(f"kd.typing.infer: the functor has no parameter `{name}` to type (or it is typed twice)")
        types[name] = t
    return {name: _as_type("kd.typing.infer", name, t) for name, t in types.items()}


def _traced(fn, types):
    """(expression, output type) of `fn` traced, then typed with inputs of
    `types` (an error names the line that made the node)."""
    from plait.kd import expr

    returns = expr.trace_function(fn, lambda name: expr.I[name])
    return returns, _plait.typing_infer_expr(returns, types)


class FunctorType:
    """The type of a functor traced with `input_types`: the types of its
    inputs (by parameter name) and of its output.

    Examples:
      >>> f = kd.fn(lambda x: kd.agg_sum(x), input_types={'x': 'FLOAT32[n, *]'})
      >>> kd.typing.get_type(f)
      (x: FLOAT32[n, *]) -> FLOAT32[n]
    """

    def __init__(self, inputs, output):
        self.inputs = dict(inputs)
        self.output = output

    def __repr__(self):
        # A ragged edge in two places is named (`*a`): an output's rows are
        # then known to be an input's, also where the functor is called.
        *inputs, output = _plait.typing_name_shared_edges([*self.inputs.values(), self.output])
        params = ", ".join(f"{name}: {_input_text(t)}" for name, t in zip(self.inputs, inputs))
        return f"({params}) -> {_output_text(output)}"

    def __eq__(self, other):
        return isinstance(other, FunctorType) and repr(self) == repr(other)

    def __hash__(self):
        return hash(repr(self))


def _input_text(t):
    """An input's type; an integer item standing for a size is `INT64[]=sz`."""
    return f"INT64[]={t!r}" if isinstance(t, Size) else repr(t)


def _output_text(t):
    """The output's text as the functor type's reader (in Rust) reads it."""
    if isinstance(t, tuple):
        return "(" + ", ".join(_output_text(i) for i in t) + ")"
    if isinstance(t, _plait.DimMarker) and t == UNKNOWN:
        return "?"
    # Shapes and bags come as their text (`JAGGED_SHAPE[n]`, `DATA_BAG`).
    return t if isinstance(t, str) else repr(t)


def get_type(fn):
    """Returns the type of functor `fn` made with `input_types`, else None.

    Examples:
      >>> f = kd.fn(lambda x, y: x + y, input_types=('INT32[n]', 'FLOAT32[n]'))
      >>> kd.typing.get_type(f)
      (x: INT32[n], y: FLOAT32[n]) -> FLOAT32[n]
      >>> kd.typing.get_type(kd.fn(lambda x: x)) is None
      True
    """
    if not _plait.is_functor(fn):
        raise TypeError(f"kd.typing.get_type: expected a functor, got {type(fn).__name__}")
    text = fn.get_attr("__type__", None).to_py()
    if text is None:
        return None
    inputs, output = _plait.typing_parse_functor_type(text)
    return FunctorType(inputs, output)


def _as_type(where, name, t):
    if isinstance(t, str):
        return SliceType(t)
    if isinstance(t, (SliceType, Size)):
        return t
    raise TypeError(f"{where}: the type of argument `{name}` must be a kd.typing.SliceType or its text, got {type(t).__name__}")


def _trace_typed(where, fn, input_types):
    """(expression, {input: type}, output type) of `fn` traced with
    `input_types` (a dict by parameter name, or a tuple by position; a type
    may be a SliceType or its text): what `kd.fn(fn, input_types=...)`
    stores."""
    if isinstance(input_types, dict):
        types = _bind_types(where, fn, (), input_types)
    elif isinstance(input_types, (tuple, list)):
        types = _bind_types(where, fn, tuple(input_types), {})
    else:
        raise TypeError(f"{where}: input_types must be a dict or a tuple of types, got {type(input_types).__name__}")
    returns, output = _traced(fn, types)
    return returns, types, output


def _name(fn):
    return getattr(fn, "__qualname__", None) or repr(fn)


__all__ = ["RAGGED", "UNKNOWN", "FunctorType", "Size", "SliceType", "count_named", "get_type", "infer", "resizable", "size", "type_of"]  # noqa: F822 - count_named and resizable are exported above
