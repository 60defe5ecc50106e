"""`kd_ext.npkd`: numpy arrays to and from DataSlices (Koda's `npkd`).

`to_array` of a numeric slice with every item present is a read-only numpy
view of plait's buffer: no copy, whatever the size. Slices with missing
items are filled (0 for integers, NaN for floats) in one pass; text and
mixed slices become object arrays. `from_array` copies numeric and bool
arrays in one memcpy-like pass (plait's data is immutable, numpy's is not).
"""

import numpy as np

from plait import _plait

__all__ = ["from_array", "get_elements_indices_from_ds", "reshape_based_on_indices", "to_array"]

# The numpy dtype of each numeric schema (kd_ext.arrow uses it too).
NUMPY_DTYPES = {"INT32": np.int32, "INT64": np.int64, "FLOAT32": np.float32, "FLOAT64": np.float64}
_NUMERIC = {np.dtype(t) for t in NUMPY_DTYPES.values()}


def _kd():
    from plait import kd

    return kd


def from_array(arr):
    """A DataSlice with the values and the (uniform) shape of numpy array
    `arr`.

    >>> kd_ext.npkd.from_array(np.array([[1, 2], [3, 4]]))
    DataSlice([[1, 2], [3, 4]], schema: INT64, present: 4/4)
    """
    kd = _kd()
    arr = np.asarray(arr)
    if arr.dtype in _NUMERIC or arr.dtype.kind in "iu" or arr.dtype == np.bool_:
        if arr.dtype.kind in "iu" and arr.dtype not in _NUMERIC:
            arr = arr.astype(np.int64 if arr.dtype.itemsize >= 4 else np.int32)
        arr = np.ascontiguousarray(arr)
        if arr.dtype == np.bool_:
            return _plait.slice_from_buffer(arr.view(np.uint8), list(arr.shape), True)
        return _plait.slice_from_buffer(arr, list(arr.shape), False)
    if arr.dtype.kind == "f":
        return from_array(arr.astype(np.float32 if arr.dtype.itemsize < 4 else np.float64))
    values = arr.tolist()
    return kd.slice(values) if arr.ndim else kd.item(values)


def to_array(ds):
    """A numpy array with the values and the (uniform) shape of `ds`:
    a zero-copy read-only view when the values are numeric and all present.

    >>> kd_ext.npkd.to_array(kd.slice([[1, 2], [3, 4]]))
    array([[1, 2],
           [3, 4]], dtype=int32)
    """
    kd = _kd()
    dims = [int(d) for d in _dims(ds)]
    flat = ds.flatten()
    parts = _plait.numpy_view(flat) if flat.get_size().to_py() else None
    if parts is not None:
        view, presence = parts
        values = np.asarray(view)
        if presence is not None:
            present = np.unpackbits(np.frombuffer(presence, np.uint8), bitorder="little")[:len(values)].astype(bool)
            values = values.copy()
            values[~present] = _missing_fill(values.dtype)
        return values.reshape(dims)
    schema = str(flat.get_schema())
    if schema in NUMPY_DTYPES:  # empty, or all missing
        dtype = NUMPY_DTYPES[schema]
        return np.full(flat.get_size().to_py(), _missing_fill(dtype), dtype=dtype).reshape(dims)
    if schema == "MASK":
        return np.array([v is not None for v in kd.has(flat).to_py()], dtype=bool).reshape(dims)
    values = flat.to_py() if schema != "NONE" else [None] * flat.get_size().to_py()
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out.reshape(dims)


def _missing_fill(dtype):
    """What a missing item becomes, as Koda fills it: NaN for floats, 0 for integers."""
    return np.nan if np.dtype(dtype).kind == "f" else 0


def _dims(ds):
    """The size of each dimension of `ds` (uniform), outermost first."""
    dims = []
    for sizes in _kd().shapes.get_sizes(ds.get_shape()).to_py():
        distinct = set(sizes)
        if len(distinct) > 1:
            raise ValueError("DataSlice has non-uniform shape. Please flatten it first.")
        dims.append(distinct.pop() if distinct else 0)
    return dims


def get_elements_indices_from_ds(ds):
    """For each dimension of `ds`, the index of each item in that dimension
    (numpy arrays of the flattened items' coordinates).

    >>> kd_ext.npkd.get_elements_indices_from_ds(kd.slice([[1, 2], [3]]))
    [array([0, 0, 1]), array([0, 1, 0])]
    """
    kd = _kd()
    rank = ds.get_ndim().to_py()
    return [to_array(kd.index(ds, dim=d).flatten()).astype(np.int64) for d in range(rank)]


def reshape_based_on_indices(ds, indices):
    """The items of flat `ds` placed at the coordinates `indices` (as
    `get_elements_indices_from_ds` gives them): a jagged slice.

    >>> ds = kd.slice([[1, 2], [3]])
    >>> kd_ext.npkd.reshape_based_on_indices(ds.flatten(), kd_ext.npkd.get_elements_indices_from_ds(ds))
    DataSlice([[1, 2], [3]], schema: INT32, present: 3/3)
    """
    kd = _kd()
    if ds.get_ndim().to_py() != 1:
        raise ValueError("kd_ext.npkd.reshape_based_on_indices: only 1D DataSlices are supported")
    indices = [np.asarray(i, dtype=np.int64) for i in indices]
    if not indices:
        return ds
    if any(len(i) != ds.get_size().to_py() for i in indices):
        raise ValueError("kd_ext.npkd.reshape_based_on_indices: one index per item is needed in each dimension")
    # Sizes level by level: the number of children of each parent is one
    # more than the largest index among its items.
    sizes = []
    parents = np.zeros(len(indices[0]), dtype=np.int64)
    n_parents = 1
    for level in indices:
        counts = np.zeros(n_parents, dtype=np.int64)
        np.maximum.at(counts, parents, level + 1)
        sizes.append(counts)
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        parents = starts[parents] + level
        n_parents = int(counts.sum())
    order = np.argsort(parents, kind="stable")
    flat = kd.take(ds, from_array(order)) if len(order) else ds
    shape = kd.shapes.new(*[kd.slice(s.tolist()) for s in sizes])
    return flat.reshape(shape)
