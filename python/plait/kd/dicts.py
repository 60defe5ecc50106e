"""`kd.dicts`: Koda's dict operators (built from the Rust registry), and the
creating forms (`kd.dict`, `kd.dict_shaped`, `_shaped_as`, `_like`), which
also take a Python dict, plus `select_keys` / `select_values`, which also take
a function as the filter."""

import builtins

from plait import _plait
from plait.kd._operators import OPERATORS as _OPERATORS
from plait.kd._operators import export as _export, traced_through as _traced_through
from plait.kd.slices import select as _select

_export(globals(), "kd.dicts")


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
    if isinstance(items_or_keys, _NESTED):
        raise TypeError("`items_or_keys` must be a DataSlice or DataItem (or convertible to DataItem) "
                        f"if `values` is provided, but got {type(items_or_keys).__name__}")
    # As Koda's: Python lists (and tuples) of values are made a slice, nested
    # ones one dimension per level.
    if isinstance(values, (builtins.list, tuple)):
        values = _plait.slice(builtins.list(values), None)
    return items_or_keys, values


def _options(keys, values, key_schema, value_schema, schema, itemid):
    given = {"keys": keys, "values": values, "key_schema": key_schema, "value_schema": value_schema,
             "schema": schema, "itemid": itemid}
    return {k: v for k, v in given.items() if v is not None}


@_traced_through
def new(items_or_keys=None, values=None, *, key_schema=None, value_schema=None, schema=None, itemid=None):
    """A dict from a Python dict, or dicts from keys and values: one dict per
    row of the last dimension of `keys` (one dict for a DataItem key).

    >>> kd.dict({'a': 1})
    DataItem(Dict{'a'=1}, schema: DICT{STRING, INT32}, bag_id: $...)
    """
    keys, values = _entries(items_or_keys, values)
    return _OPERATORS["kd.dicts._new"](**_options(keys, values, key_schema, value_schema, schema, itemid))


@_traced_through
def shaped(shape, /, items_or_keys=None, values=None, key_schema=None, value_schema=None, schema=None, itemid=None):
    """Returns new dicts of the given shape, in a new immutable bag.

    Without keys the dicts are empty. Keys and values broadcast to `shape`
    (one entry per dict), or have one dimension more (several entries per
    dict). A Python dict gives the entries only when `shape` has no
    dimensions. Key and value schemas are inferred unless given (OBJECT for
    empty dicts).

    Args:
      shape: the JaggedShape of the result.
      items_or_keys: a Python dict (when `values` is not given), or the keys.
      values: the values, when `items_or_keys` holds the keys.
      key_schema: the schema of the keys.
      value_schema: the schema of the values.
      schema: a DICT schema for the dicts (instead of key_schema and
        value_schema).
      itemid: ITEMIDs to use for the dicts.

    Examples:
      >>> kd.dict_shaped(kd.shapes.new(2), 'a', kd.slice([1, 2]))
      DataSlice([Dict{'a'=1}, Dict{'a'=2}], schema: DICT{STRING, INT32}, present: 2/2, bag_id: $...)
      >>> kd.dict_shaped(kd.shapes.new(2), key_schema=kd.STRING, value_schema=kd.INT64)
      DataSlice([Dict{}, Dict{}], schema: DICT{STRING, INT64}, present: 2/2, bag_id: $...)
      >>> kd.dict_shaped(kd.shapes.new(), {'x': 1.5})
      DataItem(Dict{'x'=1.5}, schema: DICT{STRING, FLOAT32}, bag_id: $...)
    """
    if not isinstance(shape, _plait.Expr):
        _plait.expect_shape(shape)  # before the entries, as Koda
    if isinstance(items_or_keys, builtins.dict) and shape.rank() > 0:
        raise ValueError("cannot create a DataSlice of dicts from a Python dictionary, only DataItem can be created "
                         "directly from Python dictionary")
    keys, values = _entries(items_or_keys, values)
    return _OPERATORS["kd.dicts._shaped"](shape, **_options(keys, values, key_schema, value_schema, schema, itemid))


@_traced_through
def shaped_as(shape_from, /, items_or_keys=None, values=None, key_schema=None, value_schema=None, schema=None,
              itemid=None):
    """Returns new dicts of the shape of `shape_from`, in a new immutable bag.

    Like `kd.dict_shaped(shape_from.get_shape(), ...)`: every position gets a
    dict, even where `shape_from` is missing (see `kd.dict_like` to keep the
    missing items).

    Args:
      shape_from: a DataSlice whose shape to use.
      items_or_keys: a Python dict (when `values` is not given), or the keys.
      values: the values, when `items_or_keys` holds the keys.
      key_schema: the schema of the keys.
      value_schema: the schema of the values.
      schema: a DICT schema for the dicts (instead of key_schema and
        value_schema).
      itemid: ITEMIDs to use for the dicts.

    Examples:
      >>> kd.dict_shaped_as(kd.slice([None, 'x']), 'k', kd.slice([1, 2]))
      DataSlice([Dict{'k'=1}, Dict{'k'=2}], schema: DICT{STRING, INT32}, present: 2/2, bag_id: $...)
    """
    return shaped(shape_from.get_shape(), items_or_keys, values, key_schema, value_schema, schema, itemid)


@_traced_through
def like(shape_and_mask_from, /, items_or_keys=None, values=None, *, key_schema=None, value_schema=None, schema=None,
         itemid=None):
    """Returns new dicts of the shape and sparsity of `shape_and_mask_from`.

    Like `kd.dict_shaped_as`, but the result is missing where
    `shape_and_mask_from` is missing. The dicts are in a new immutable bag.

    Args:
      shape_and_mask_from: a DataSlice whose shape and present items to use.
      items_or_keys: a Python dict (when `values` is not given), or the keys.
      values: the values, when `items_or_keys` holds the keys.
      key_schema: the schema of the keys.
      value_schema: the schema of the values.
      schema: a DICT schema for the dicts (instead of key_schema and
        value_schema).
      itemid: ITEMIDs to use for the dicts.

    Examples:
      >>> kd.dict_like(kd.slice([[1, None], [2]]), 'k', 1)
      DataSlice([[Dict{'k'=1}, None], [Dict{'k'=1}]], schema: DICT{STRING, INT32}, present: 2/3, bag_id: $...)
      >>> kd.dict_like(kd.item(1), {'a': 1})
      DataItem(Dict{'a'=1}, schema: DICT{STRING, INT32}, bag_id: $...)
    """
    dicts = shaped_as(shape_and_mask_from, items_or_keys, values, key_schema, value_schema, schema, itemid)
    mask = _OPERATORS["kd.masking.has"](shape_and_mask_from)
    return _OPERATORS["kd.masking.apply_mask"](dicts, mask).with_bag(dicts._bag())


@_traced_through
def select_keys(ds, fltr):
    """Returns the keys of each dict of `ds` where `fltr` is present.

    `fltr` is a MASK DataSlice aligned with `kd.get_keys(ds)`, or a function
    (Python function or functor) that gets the keys and returns such a mask.
    The result has one more dimension than `ds`, like `kd.get_keys`.

    Args:
      ds: a DataSlice of dicts.
      fltr: a mask over the keys, or a function computing it from the keys.

    Examples:
      >>> d = kd.dict({'a': 1, 'b': 2, 'c': 3})
      >>> kd.sort(kd.select_keys(d, lambda k: k != 'b'))
      DataSlice(['a', 'c'], schema: STRING, present: 2/2, bag_id: $...)
      >>> ds = kd.dict_shaped(kd.shapes.new(2), kd.slice([['a', 'b'], ['c']]), 1)
      >>> kd.select_keys(ds, lambda k: k == 'a')
      DataSlice([['a'], []], schema: STRING, present: 1/1, bag_id: $...)
    """
    keys = _OPERATORS["kd.dicts.get_keys"](ds)
    return _select(keys, fltr)


@_traced_through
def select_values(ds, fltr):
    """Returns the values of each dict of `ds` where `fltr` is present.

    `fltr` is a MASK DataSlice aligned with `kd.get_values(ds)`, or a
    function (Python function or functor) that gets the values and returns
    such a mask. The result has one more dimension than `ds`, like
    `kd.get_values`.

    Args:
      ds: a DataSlice of dicts.
      fltr: a mask over the values, or a function computing it from the
        values.

    Examples:
      >>> d = kd.dict({'a': 1, 'b': 2, 'c': 3})
      >>> kd.sort(kd.select_values(d, lambda v: v >= 2))
      DataSlice([2, 3], schema: INT32, present: 2/2, bag_id: $...)
      >>> ds = kd.dict_shaped(kd.shapes.new(2), 'k', kd.slice([1, 5]))
      >>> kd.select_values(ds, lambda v: v > 2)
      DataSlice([[], [5]], schema: INT32, present: 1/1, bag_id: $...)
    """
    values = _OPERATORS["kd.dicts.get_values"](ds)
    return _select(values, fltr)
