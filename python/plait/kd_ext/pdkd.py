"""`kd_ext.pdkd`: DataSlices to and from pandas DataFrames (Koda's
`pdkd`).

`to_dataframe` gives one row per item and one column per attribute of the
items (or `self_` for primitives), with pandas' nullable dtypes (Int32,
Float32, string, boolean, ...) so missing items stay missing; a DataSlice
of rank > 1 gets a MultiIndex of the items' positions. `from_dataframe`
makes entities (or objects) with one attribute per column; a MultiIndex
gives the slice's jagged shape.
"""

import numpy as np
import pandas as pd

from plait.kd_ext import npkd

__all__ = ["from_dataframe", "to_dataframe"]

_DTYPES = {"INT32": "Int32", "INT64": "Int64", "FLOAT32": "Float32", "FLOAT64": "Float64", "STRING": "string",
           "BOOLEAN": "boolean", "MASK": "boolean"}


def _kd():
    from plait import kd

    return kd


def _column(values):
    """A flat DataSlice as a pandas array with a nullable dtype."""
    schema = str(values.get_schema())
    if schema == "MASK":
        return pd.array([True if v is not None else pd.NA for v in _kd().has(values).to_py()], dtype="boolean")
    if schema in _DTYPES:
        return pd.array(values.to_py(), dtype=_DTYPES[schema])
    items = values.to_py() if schema in ("BYTES", "OBJECT", "NONE") else list(values.L)
    out = np.empty(len(items), dtype=object)
    out[:] = [pd.NA if v is None else v for v in items]
    return out


def _index(ds):
    rank = ds.get_ndim().to_py()
    if rank <= 1:
        return None
    return pd.MultiIndex.from_arrays(npkd.get_elements_indices_from_ds(ds))


def to_dataframe(ds, cols=None, include_self=False):
    """A DataFrame of the items of `ds`: columns for their attributes (all
    of them, or `cols`: attribute names or expressions over `kd.S`), and
    `self_` for the items themselves (primitives, or with `include_self`).

    >>> kd_ext.pdkd.to_dataframe(kd.new(a=kd.slice([1, 2]))).to_dict("list")
    {'a': [1, 2]}
    """
    kd = _kd()
    if ds.is_item():
        ds = kd.slice([ds])
    flat = ds.flatten()
    columns = {}
    has_attrs = ds._bag() is not None and str(ds.get_schema()) not in _DTYPES
    names = cols if cols is not None else (kd.dir(ds) if has_attrs else [])
    for col in names:
        if isinstance(col, kd.expr.Expr):
            try:
                values = kd.eval(col, ds)
            except (ValueError, TypeError) as error:
                raise ValueError(f"Cannot evaluate {col} on {ds!r}.") from error
            columns[str(col)] = _column(values.flatten())
        else:
            columns[col] = _column(flat.get_attr(col))
    if include_self or not columns:
        columns["self_"] = _column(flat)
    return pd.DataFrame(columns, index=_index(ds))


def _slice_of(series):
    """A pandas column as a flat DataSlice (missing for NA and NaN)."""
    kd = _kd()
    if isinstance(series.dtype, np.dtype) and series.dtype.kind in "iufb":
        values = npkd.from_array(np.ascontiguousarray(series.to_numpy()))
        if series.dtype.kind == "f" and series.hasnans:
            values = kd.apply_mask(values, npkd.from_array(series.notna().to_numpy()) == True)  # noqa: E712
        return values
    if series.dtype.kind in "iufb" and hasattr(series.dtype, "numpy_dtype"):  # pandas' nullable Int32, ...
        filled = series.to_numpy(dtype=series.dtype.numpy_dtype, na_value=0)
        return kd.apply_mask(npkd.from_array(filled), npkd.from_array(series.notna().to_numpy()) == True)  # noqa: E712
    values = series.to_numpy(dtype=object, na_value=None)
    return kd.slice([v.item() if isinstance(v, np.generic) else v for v in values])


def from_dataframe(df, as_obj=False):
    """Entities (objects with `as_obj`) with one attribute per column of
    `df`; a MultiIndex gives the slice its jagged shape.

    >>> kd_ext.pdkd.from_dataframe(pd.DataFrame({'x': [1, 2]}))
    DataSlice([Entity(x=1), Entity(x=2)], schema: ENTITY(x=INT64), present: 2/2, bag_id: ...)
    """
    kd = _kd()
    if len(df.columns) == 0:
        raise ValueError("DataFrame has no columns.")
    attrs = {str(name): _slice_of(df[name]) for name in df.columns}
    if isinstance(df.index, pd.MultiIndex):
        positions = [np.asarray(df.index.get_level_values(i), dtype=np.int64) for i in range(df.index.nlevels)]
        attrs = {name: npkd.reshape_based_on_indices(v, positions) for name, v in attrs.items()}
    return kd.obj(**attrs) if as_obj else kd.new(**attrs)
