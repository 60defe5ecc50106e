"""`kd.dicts`: Koda's dict operators (built from the Rust registry), and the
creating forms (`kd.dict`, `kd.dict_shaped`, `_shaped_as`, `_like`), which
also take a Python dict, plus `select_keys` / `select_values`, which also take
a function as the filter."""

import builtins

from plait import _plait
from plait.kd._operators import OPERATORS, export, unspecified

export(globals(), "kd.dicts")


def dict_update(x, keys, values=unspecified):
    """A new bag holding the update of dicts `x`: `keys` set to `values`, or
    the entries of the dicts `keys` when `values` is not given (None sets
    missing values)."""
    if values is unspecified:
        return _plait.dict_update(x, keys)
    return _plait.dict_update(x, keys, _plait.item(None, None) if values is None else values)

_NESTED = (builtins.list, builtins.dict, tuple)


def _entries(items_or_keys, values):
    """(keys, values) from the creating forms' first two arguments: a Python
    dict unpacked, or the keys and values as given."""
    if values is None:
        if items_or_keys is None:
            return None, None
        if not isinstance(items_or_keys, builtins.dict):
            raise TypeError("`items_or_keys` must be a Python dict if `values` is not provided, "
                            f"but got {type(items_or_keys).__name__}")
        keys, vals = builtins.list(items_or_keys.keys()), builtins.list(items_or_keys.values())
        for v in keys + vals:
            if isinstance(v, _NESTED):
                raise ValueError(f"object with unsupported type: {type(v).__name__}")
        return _plait.slice(keys, None), _plait.slice(vals, None)
    if isinstance(items_or_keys, builtins.dict):
        raise TypeError("`items_or_keys` must be a DataSlice or DataItem (or convertible to DataItem) "
                        "if `values` is provided, but got dict")
    return items_or_keys, values


def _options(keys, values, key_schema, value_schema, schema, itemid):
    given = {"keys": keys, "values": values, "key_schema": key_schema, "value_schema": value_schema,
             "schema": schema, "itemid": itemid}
    return {k: v for k, v in given.items() if v is not None}


def new(items_or_keys=None, values=None, *, key_schema=None, value_schema=None, schema=None, itemid=None):
    """A dict from a Python dict, or dicts from keys and values: one dict per
    row of the last dimension of `keys` (one dict for a DataItem key).

    >>> kd.dict({'a': 1})
    DataItem(Dict{'a'=1}, schema: DICT{STRING, INT32}, bag_id: $...)
    """
    keys, values = _entries(items_or_keys, values)
    return OPERATORS["kd.dicts._new"](**_options(keys, values, key_schema, value_schema, schema, itemid))


def shaped(shape, /, items_or_keys=None, values=None, key_schema=None, value_schema=None, schema=None, itemid=None):
    """Dicts of `shape`, each holding the given entries (keys with one more
    dimension than `shape` give several entries per dict)."""
    if isinstance(items_or_keys, builtins.dict) and shape.rank() > 0:
        raise ValueError("cannot create a DataSlice of dicts from a Python dictionary, only DataItem can be created "
                         "directly from Python dictionary")
    keys, values = _entries(items_or_keys, values)
    return OPERATORS["kd.dicts._shaped"](shape, **_options(keys, values, key_schema, value_schema, schema, itemid))


def shaped_as(shape_from, /, items_or_keys=None, values=None, key_schema=None, value_schema=None, schema=None,
              itemid=None):
    """Dicts of the shape of `shape_from`."""
    return shaped(shape_from.get_shape(), items_or_keys, values, key_schema, value_schema, schema, itemid)


def like(shape_and_mask_from, /, items_or_keys=None, values=None, *, key_schema=None, value_schema=None, schema=None,
         itemid=None):
    """Dicts of the shape of `shape_and_mask_from`, missing where it is."""
    dicts = shaped_as(shape_and_mask_from, items_or_keys, values, key_schema, value_schema, schema, itemid)
    mask = OPERATORS["kd.masking.has"](shape_and_mask_from)
    return OPERATORS["kd.masking.apply_mask"](dicts, mask).with_bag(dicts.get_bag())


def select_keys(ds, fltr):
    """The keys of each dict where `fltr` (a mask, or a function of the keys) is present."""
    keys = OPERATORS["kd.dicts.get_keys"](ds)
    return OPERATORS["kd.slices.select"](keys, _apply_filter(fltr, keys))


def select_values(ds, fltr):
    """The values of each dict where `fltr` (a mask, or a function of the values) is present."""
    values = OPERATORS["kd.dicts.get_values"](ds)
    return OPERATORS["kd.slices.select"](values, _apply_filter(fltr, values))


def _apply_filter(fltr, x):
    """`fltr(x)` for a Python function or a functor; a mask as it is."""
    from plait.kd.functor import is_fn

    if is_fn(fltr) or (callable(fltr) and not isinstance(fltr, _plait.DataSlice)):
        return fltr(x)
    return fltr
