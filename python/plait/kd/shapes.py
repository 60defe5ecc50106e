"""`kd.shapes`: creating, inspecting and changing JaggedShapes."""

from plait import _plait
from plait._plait import JaggedShape, dim_mapping, dim_sizes, get_sizes

__all__ = [
    "dim_mapping",
    "dim_sizes",
    "expand_to_shape",
    "flatten",
    "flatten_end",
    "get_shape",
    "get_sizes",
    "is_expandable_to_shape",
    "ndim",
    "new",
    "rank",
    "reshape",
    "reshape_as",
    "size",
]


def new(*dimensions) -> JaggedShape:
    """A JaggedShape from its dimensions, outermost first.

    Each dimension is an int (every parent has that many children), a list of
    sizes (one per parent), or a DataSlice of sizes.

    >>> kd.shapes.new(2, [2, 1], [2, 1, 3])
    JaggedShape(2, [2, 1], [2, 1, 3])
    """
    return _plait.shapes_new(*dimensions)


def get_shape(x) -> JaggedShape:
    """Returns the JaggedShape of DataSlice `x`.

    A DataItem has the shape with no dimensions.

    Args:
      x: a DataSlice.

    Examples:
      >>> kd.get_shape(kd.slice([[1, 2], [3]]))
      JaggedShape(2, [2, 1])
      >>> kd.get_shape(kd.item(1))
      JaggedShape()
    """
    return _plait.get_shape(x)


def _shape(x) -> JaggedShape:
    return x if isinstance(x, JaggedShape) else _plait.get_shape(x)


def rank(shape):
    """Returns the number of dimensions of a JaggedShape, as an INT64 DataItem.

    A DataSlice is also accepted (its shape's rank). `kd.shapes.ndim` is
    the same function.

    Args:
      shape: a JaggedShape.

    Examples:
      >>> kd.shapes.rank(kd.shapes.new(2, [2, 1]))
      DataItem(2, schema: INT64)
      >>> kd.shapes.rank(kd.shapes.new())
      DataItem(0, schema: INT64)
    """
    return _plait.item(_shape(shape).rank(), _plait.schema_constant("INT64"))


ndim = rank


def size(shape):
    """Returns the number of items a JaggedShape holds, as an INT64 DataItem.

    That is the size of its last dimension (1 for the shape of a DataItem).
    A DataSlice is also accepted (its shape's size, missing items included).

    Args:
      shape: a JaggedShape.

    Examples:
      >>> kd.shapes.size(kd.shapes.new(2, [2, 1]))
      DataItem(3, schema: INT64)
      >>> kd.shapes.size(kd.shapes.new())
      DataItem(1, schema: INT64)
    """
    sizes = _plait.get_sizes(_shape(shape)).to_py()
    return _plait.item(sum(sizes[-1]) if sizes else 1, _plait.schema_constant("INT64"))


def expand_to_shape(x, shape, ndim=0):
    """Expands `x` to `shape` by prefix broadcasting (seed 000, "Broadcasting").

    `shape` must start with the shape of `x`; with `ndim`, the last `ndim`
    dimensions of `x` are kept and travel with each item.

    >>> kd.shapes.expand_to_shape(kd.slice(['a', 'b']), kd.shapes.new(2, 3))
    DataSlice([['a', 'a', 'a'], ['b', 'b', 'b']], schema: STRING, present: 6/6)
    """
    return _plait.expand_to_shape("kd.shapes.expand_to_shape", x, shape, ndim)


def is_expandable_to_shape(x, target_shape, ndim=0):
    """Returns `kd.present` if `x` can be expanded to `target_shape`, else `kd.missing`.

    This is whether `kd.shapes.expand_to_shape(x, target_shape, ndim)`
    would succeed: the shape of `x` (without its last `ndim` dimensions)
    must be a prefix of `target_shape`.

    Args:
      x: a DataSlice.
      target_shape: a JaggedShape.
      ndim: how many trailing dimensions of `x` travel with each item (0 by
        default).

    Examples:
      >>> shape = kd.shapes.new(2, [2, 1])
      >>> kd.shapes.is_expandable_to_shape(kd.slice([1, 2]), shape)
      DataItem(present, schema: MASK)
      >>> kd.shapes.is_expandable_to_shape(kd.slice([1, 2, 3]), shape)
      DataItem(missing, schema: MASK)
      >>> kd.shapes.is_expandable_to_shape(kd.slice([[1, 2], [3]]), kd.shapes.new(2), ndim=1)
      DataItem(present, schema: MASK)
    """
    try:
        _plait.expand_to_shape("kd.shapes.is_expandable_to_shape", x, target_shape, ndim)
    except ValueError:
        return _plait.mask_item(False)
    return _plait.mask_item(True)


def flatten(x, from_dim=0, to_dim=None):
    """`x` with dimensions `[from_dim:to_dim]` merged into one (no data copy).

    Negative dims count from the end; `from_dim == to_dim` inserts a unit
    dimension there.

    >>> kd.flatten(kd.slice([[1, 2], [3]]))
    DataSlice([1, 2, 3], schema: INT32, present: 3/3)
    """
    return _plait.flatten(x, from_dim, to_dim)


def flatten_end(x, n_times=1):
    """Returns `x` with its last `n_times + 1` dimensions merged into one.

    The result has `n_times` fewer dimensions; `n_times=0` returns `x` as it
    is. The items are not copied.

    Args:
      x: a DataSlice.
      n_times: how many dimensions to remove, counting from the end (1 by
        default).

    Examples:
      >>> x = kd.slice([[[1, 2], [3]], [[4]]])
      >>> kd.shapes.flatten_end(x)
      DataSlice([[1, 2, 3], [4]], schema: INT32, present: 4/4)
      >>> kd.shapes.flatten_end(x, n_times=2)
      DataSlice([1, 2, 3, 4], schema: INT32, present: 4/4)
    """
    rank = _plait.get_shape(x).rank()
    return _plait.flatten(x, max(rank - n_times - 1, 0), rank)


def reshape(x, shape):
    """Returns `x` with the same items, in the same order, under `shape`.

    `shape` is a JaggedShape, or a tuple of dimensions as `kd.shapes.new`
    takes them (ints, lists or DataSlices of sizes); one of them may be -1,
    a uniform dimension whose size is inferred. Its size must equal the
    number of items of `x`, or it raises.

    Args:
      x: a DataSlice.
      shape: a JaggedShape or a tuple of dimensions.

    Examples:
      >>> kd.reshape(kd.slice([1, 2, 3, 4]), kd.shapes.new(2, 2))
      DataSlice([[1, 2], [3, 4]], schema: INT32, present: 4/4)
      >>> kd.reshape(kd.slice([[1, 2], [3]]), (3,))
      DataSlice([1, 2, 3], schema: INT32, present: 3/3)
      >>> kd.reshape(kd.slice([1, 2, 3, 4, 5, 6]), (-1, 3))
      DataSlice([[1, 2, 3], [4, 5, 6]], schema: INT32, present: 6/6)
      >>> kd.reshape(kd.slice([1, 2, 3]), kd.shapes.new(2, 2))
      Traceback (most recent call last):
      ...
      ValueError: kd.shapes.reshape: shape size must be compatible with number of items: shape_size=4 != items_size=3
    """
    if isinstance(shape, tuple):
        shape = _resolve_placeholder(x, shape)
    return _plait.reshape("kd.shapes.reshape", x, shape)


def _resolve_placeholder(x, dims):
    """`dims` with its -1 (at most one) replaced by the uniform size that
    makes the shape hold the items of `x`, as Koda resolves it."""
    holes = [i for i, d in enumerate(dims) if isinstance(d, int) and d == -1]
    if not holes:
        return dims
    if len(holes) > 1:
        raise ValueError("kd.shapes.reshape: only one dimension can be a placeholder")
    at = holes[0]

    def sizes(d):  # the sizes a jagged dimension lists, one per parent
        return d.flatten().to_py() if isinstance(d, _plait.DataSlice) else list(d)

    def total(d, parents):  # the items of a dimension given its parents
        return parents * d if isinstance(d, int) else sum(v or 0 for v in sizes(d))

    parent_size = 1
    for d in dims[:at]:
        parent_size = total(d, parent_size)
    child_size = x.get_size().to_py()
    for d in reversed(dims[at + 1:]):
        if not isinstance(d, int):
            child_size = len(sizes(d))
        elif d == 0 or child_size % d:
            raise ValueError(f"kd.shapes.reshape: {child_size} items cannot be split into dimensions of size {d}, "
                             f"so the placeholder dimension at index {at} cannot be resolved")
        else:
            child_size //= d
    if parent_size == 0 or child_size % parent_size:
        raise ValueError(f"kd.shapes.reshape: parent_size={parent_size} does not divide child_size={child_size}, "
                         f"so the placeholder dimension at index {at} cannot be resolved")
    return dims[:at] + (child_size // parent_size,) + dims[at + 1:]


def reshape_as(x, shape_from):
    """Returns `x` with the same items, in the same order, in the shape of `shape_from`.

    `shape_from` must have as many items as `x` (missing ones included), or
    it raises.

    Args:
      x: a DataSlice.
      shape_from: a DataSlice whose shape to use.

    Examples:
      >>> kd.reshape_as(kd.slice([1, 2, 3]), kd.slice([['a', 'b'], ['c']]))
      DataSlice([[1, 2], [3]], schema: INT32, present: 3/3)
      >>> kd.reshape_as(kd.slice([[1], [2]]), kd.slice([None, 'x']))
      DataSlice([1, 2], schema: INT32, present: 2/2)
    """
    return _plait.reshape("kd.shapes.reshape_as", x, _plait.get_shape(shape_from))
