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
    """The shape of DataSlice `x`."""
    return _plait.get_shape(x)


def _shape(x) -> JaggedShape:
    return x if isinstance(x, JaggedShape) else _plait.get_shape(x)


def rank(shape):
    """The number of dimensions of a shape (an INT64 DataItem)."""
    return _plait.item(_shape(shape).rank(), _plait.schema_constant("INT64"))


ndim = rank


def size(shape):
    """The total number of items of a shape (an INT64 DataItem)."""
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
    """`kd.present` if `x` can be expanded to `target_shape`, else `kd.missing`."""
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
    """`x` with its last `n_times + 1` dimensions merged into one."""
    rank = _plait.get_shape(x).rank()
    return _plait.flatten(x, max(rank - n_times - 1, 0), rank)


def reshape(x, shape):
    """`x` with the same items under `shape` (which must have the same size)."""
    return _plait.reshape("kd.shapes.reshape", x, shape)


def reshape_as(x, shape_from):
    """`x` reshaped to the shape of DataSlice `shape_from`."""
    return _plait.reshape("kd.shapes.reshape_as", x, _plait.get_shape(shape_from))
