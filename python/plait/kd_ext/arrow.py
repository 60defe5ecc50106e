"""`kd_ext.arrow`: jagged DataSlices to and from Arrow arrays (pyarrow).

A DataSlice of rank `r` becomes a nested LargeListArray of depth `r - 1`
over a primitive array: the values buffer is plait's column and the offsets
are the shape's split points, shared without copying (only the small
validity bitmap is copied). `from_arrow` reads list and large-list arrays
the same way: values and int64 offsets are used in place (int32 offsets
are widened, a copy of the offsets only). DataSlices also implement the
Arrow PyCapsule interface (`__arrow_c_array__`), so polars, duckdb and
others read them directly.
"""

import numpy as np
import pyarrow as pa

from plait import _plait
from plait.kd_ext.npkd import NUMPY_DTYPES

__all__ = ["from_arrow", "to_arrow"]

_TYPES = {"INT32": pa.int32(), "INT64": pa.int64(), "FLOAT32": pa.float32(), "FLOAT64": pa.float64()}


def to_arrow(ds):
    """`ds` as an Arrow array (nested large lists for rank > 1), sharing
    plait's buffers.

    >>> kd_ext.arrow.to_arrow(kd.slice([[1, 2], [3]])).to_pylist()
    [[1, 2], [3]]
    """
    flat = ds.flatten()
    schema = str(flat.get_schema())
    if schema == "NONE":  # no values: Arrow's null type, nested as `ds` is
        return pa.array(ds.to_py() if ds.get_ndim().to_py() else [None])
    if schema not in _TYPES:
        raise ValueError(f"kd_ext.arrow.to_arrow: DataSlices of {schema} are not supported yet (numeric schemas only)")
    n = flat.get_size().to_py()
    parts = _plait.numpy_view(flat) if n else None
    if parts is None:  # empty, or every item missing
        values, validity = pa.py_buffer(np.zeros(n, dtype=NUMPY_DTYPES[schema])), (pa.py_buffer(bytes((n + 7) // 8)) if n else None)
    else:
        view, presence = parts
        values, validity = pa.py_buffer(np.asarray(view)), (pa.py_buffer(presence) if presence is not None else None)
    array = pa.Array.from_buffers(_TYPES[schema], n, [validity, values])
    # The first dimension's edge has one parent: the array itself.
    for offsets in reversed(_plait.shape_offsets(ds)[1:]):
        offsets = np.asarray(offsets)
        array = pa.Array.from_buffers(pa.large_list(array.type), len(offsets) - 1, [None, pa.py_buffer(offsets)], children=[array])
    return array


def from_arrow(array):
    """A DataSlice from an Arrow array of numbers, or (nested) lists of
    them, using its buffers in place.

    >>> kd_ext.arrow.from_arrow(pa.array([[1, 2], [3]]))
    DataSlice([[1, 2], [3]], schema: INT64, present: 3/3)
    """
    if isinstance(array, pa.ChunkedArray):
        array = pa.concat_arrays(array.chunks) if array.num_chunks != 1 else array.chunk(0)
    if not isinstance(array, pa.Array):
        array = pa.array(array)
    if _sliced(array):
        array = pa.concat_arrays([array])  # a slice of a list array: its own copy, offsets from 0
    if pa.types.is_null(_leaf_type(array.type)):
        from plait import kd

        return kd.slice(array.to_pylist())
    levels = []
    current = array
    while pa.types.is_list(current.type) or pa.types.is_large_list(current.type):
        if current.null_count:
            raise ValueError("kd_ext.arrow.from_arrow: missing lists are not supported (a DataSlice dimension has no missing rows)")
        offsets = current.buffers()[1]
        if pa.types.is_list(current.type):  # int32 offsets: widen (a copy of the offsets)
            widened = np.frombuffer(offsets, dtype=np.int32)[current.offset:current.offset + len(current) + 1].astype(np.int64)
            levels.append((pa.py_buffer(widened), 0, len(current)))
        else:
            levels.append((offsets, current.offset, len(current)))
        current = current.values
    if str(current.type) not in ("int32", "int64", "float", "double"):
        raise ValueError(f"kd_ext.arrow.from_arrow: Arrow values of type {current.type} are not supported yet (numbers only)")
    buffers = current.buffers()
    validity = bytes(buffers[0]) if buffers[0] is not None and current.null_count else None
    return _plait.slice_from_arrow(buffers[1], str(current.type), current.offset, len(current), validity, levels)


def _leaf_type(t):
    while pa.types.is_list(t) or pa.types.is_large_list(t):
        t = t.value_type
    return t


def _sliced(array):
    """Whether a list level of `array` starts past its offsets' origin."""
    while pa.types.is_list(array.type) or pa.types.is_large_list(array.type):
        if array.offset != 0 or (len(array) and array.offsets[0].as_py() != 0):
            return True
        array = array.values
    return False


def _arrow_c_array(self, requested_schema=None):
    """The Arrow PyCapsule interface: `to_arrow(self)`'s capsules."""
    return to_arrow(self).__arrow_c_array__(requested_schema)
