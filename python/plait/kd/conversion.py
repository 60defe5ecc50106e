"""`to_py` for slices holding lists, dicts, entities and objects: nested
Python lists, Python dicts, and `Obj` objects (or dicts with
`obj_as_dict=True`) for entities.

Primitive slices take the Rust path (`DataSlice.to_py` of the extension);
structured items are walked here, item by item, down to `max_depth` levels
(deeper items stay DataItems, as in Koda; a negative depth means no limit).
"""

from plait import _plait
from plait.kd import types
from plait.kd._operators import OPERATORS

_native_to_py = types.DataSlice.to_py


class Obj:
    """An entity or object converted by `to_py`: its attributes as Python attributes."""

    def __init__(self, **attrs):
        self.__dict__.update(attrs)

    def __repr__(self):
        return "Obj(" + ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items()) + ")"

    def __eq__(self, other):
        return isinstance(other, Obj) and self.__dict__ == other.__dict__


def _holds_ids(ds):
    schema = str(ds.get_schema())
    return schema == "OBJECT" or schema not in _PRIMITIVE_NAMES


_PRIMITIVE_NAMES = {"INT32", "INT64", "FLOAT32", "FLOAT64", "BOOLEAN", "MASK", "BYTES", "STRING", "SCHEMA", "ITEMID", "NONE", "EXPR"}


def to_py(ds, max_depth=2, obj_as_dict=False, include_missing_attrs=True):
    """`ds` as Python values: nested lists for the dimensions, Python lists
    for Koda lists, `Obj` (or dicts) for entities and objects."""
    if not _holds_ids(ds) or ds.get_bag() is None:
        return _native_to_py(ds)
    if ds.get_ndim() > 0:
        return [to_py(row, max_depth, obj_as_dict, include_missing_attrs) for row in ds.L]
    return _item_to_py(ds, 0, max_depth, obj_as_dict, include_missing_attrs)


def _item_to_py(item, depth, max_depth, obj_as_dict, include_missing_attrs):
    value = _native_to_py(item)
    if not isinstance(value, types.DataSlice):
        return value  # a primitive (or missing) item
    if not _holds_ids(item) or item.get_bag() is None:
        return value
    if 0 <= max_depth <= depth:
        return item
    convert = lambda x: _item_to_py(x, depth + 1, max_depth, obj_as_dict, include_missing_attrs)  # noqa: E731
    if OPERATORS["kd.lists.is_list"](item):
        return [convert(x) for x in OPERATORS["kd.lists.explode"](item).L]
    if OPERATORS["kd.dicts.is_dict"](item):
        keys = OPERATORS["kd.dicts.get_keys"](item).L
        values = OPERATORS["kd.dicts.get_values"](item).L
        return {_key_to_py(k): convert(v) for k, v in zip(keys, values)}
    names = _plait.get_attr_names(item, intersection=True)
    attrs = {}
    for name in names:
        attr = OPERATORS["kd.core.get_attr"](item, name)
        if attr.get_present_count() == 0 and not include_missing_attrs:
            continue
        attrs[name] = convert(attr)
    return attrs if obj_as_dict else Obj(**attrs)


def _key_to_py(key):
    """A dict key as a Python value; entities, lists and dicts stay DataItems
    (their Python forms could not be keys)."""
    value = _native_to_py(key)
    return key if isinstance(value, types.DataSlice) else value


def _method(self, max_depth=2, obj_as_dict=False, include_missing_attrs=True):
    return to_py(self, max_depth, obj_as_dict, include_missing_attrs)


_method.__doc__ = to_py.__doc__
types.DataSlice.to_py = _method
