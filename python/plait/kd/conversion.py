"""`to_py` for slices holding lists, dicts, entities and objects: nested
Python lists, Python dicts, and `Obj` objects (or dicts with
`obj_as_dict=True`) for entities.

Primitive slices take the Rust path (`DataSlice.to_py` of the extension);
structured items are walked here, level by level, down to `max_depth` levels
(deeper items stay DataItems, as in Koda; a negative depth means no limit).
The levels are walked with an explicit stack of generators (as `from_py`
does), so deep data costs no Python recursion; past `MAX_DEPTH` levels (data
nested that deep, or a cycle with `max_depth=-1`) the conversion raises.
"""

import builtins

from plait import _plait
from plait.kd import shapes, types
from plait.kd._nested import run_nested as _run_nested
from plait.kd._operators import OPERATORS

_native_to_py = types.DataSlice.to_py

#: The deepest nesting converted with `max_depth=-1`.
MAX_DEPTH = 100_000

#: Nesting past which each level is checked against the levels it is inside
#: of (with `max_depth=-1`), to stop at a cycle rather than at `MAX_DEPTH`.
_CYCLE_CHECK_DEPTH = 1_000


class Obj:
    """An entity or object converted by `to_py`: its attributes as Python attributes."""

    def __init__(self, **attrs):
        self.__dict__.update(attrs)

    def __repr__(self):
        return "Obj(" + ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items()) + ")"

    def __eq__(self, other):
        return isinstance(other, Obj) and self.__dict__ == other.__dict__


def to_py(ds, max_depth=2, obj_as_dict=False, include_missing_attrs=True):
    """Returns the contents of `ds` as Python values (as `kd.to_py`).

    Dimensions become nested Python lists and missing items None; Koda lists
    become Python lists, dicts Python dicts, and entities and objects `Obj`
    instances (Python dicts with `obj_as_dict=True`). Items more than
    `max_depth` levels deep stay DataItems.

    Args:
      ds: a DataSlice.
      max_depth: how many levels to convert (2 by default; -1 for no limit).
      obj_as_dict: whether to give entities and objects as Python dicts.
      include_missing_attrs: whether to include attributes whose value is
        missing (as None).

    Examples:
      >>> kd.to_py(kd.dict({'a': kd.list([1, 2])}))
      {'a': [1, 2]}
      >>> x = kd.slice([kd.obj(a=1), kd.obj(a=None)])
      >>> kd.to_py(x, obj_as_dict=True, include_missing_attrs=False)
      [{'a': 1}, {}]
    """
    if ds._converts_natively():
        return _native_to_py(ds)
    ndim = ds.get_ndim().to_py()
    flat = ds.flatten() if ndim != 1 else ds
    values = _Converter(max_depth, obj_as_dict, include_missing_attrs).run(flat)
    if ndim == 0:
        return values[0]
    # The nesting of `ds` as nested lists of positions, filled with the values.
    if ndim == 1:
        return values
    positions = _native_to_py(shapes.reshape(_plait.slice(builtins.list(range(len(values))), None), ds.get_shape()))
    return _fill(positions, values)


def _fill(positions, values):
    """`positions` (nested lists of ints) with each int replaced by its value,
    without recursion (a slice may have thousands of dimensions)."""
    if not isinstance(positions, builtins.list):
        return values[positions]
    out = []
    stack = [(positions, out)]
    while stack:
        rows, into = stack.pop()
        for row in rows:
            if isinstance(row, builtins.list):
                inner = []
                into.append(inner)
                stack.append((row, inner))
            else:
                into.append(values[row])
    return out


def _keyed(conversion, keys, key):
    """`conversion`, with `key` in `keys` while it runs."""
    keys.append(key)
    try:
        return (yield from conversion)
    finally:
        keys.pop()


class _Converter:
    """Converts the items of 1-D slices, all items of one kind (lists,
    dicts, entities of one schema, primitives) in one vectorised step per
    nesting level, instead of one Koda call per item."""

    def __init__(self, max_depth, obj_as_dict, include_missing_attrs):
        self.max_depth = max_depth
        self.obj_as_dict = obj_as_dict
        self.include_missing_attrs = include_missing_attrs

    def run(self, flat):
        """The items of 1-D slice `flat` as a Python list.

        Each conversion below is a generator: it yields `(slice, depth)` for
        the items one level down and is sent their Python values."""
        # The items the deep levels being converted convert: converting the
        # same items again inside themselves would never end (a cycle).
        keys = []

        def descend(request, depth):
            if depth > MAX_DEPTH:
                raise ValueError(f"kd.to_py: the data is nested more than {MAX_DEPTH} levels deep; "
                                 "pass max_depth= to stop earlier")
            if self.max_depth >= 0 or depth <= _CYCLE_CHECK_DEPTH:
                return self.convert(*request)
            key = _items_key(request[0])
            if key in keys:
                raise ValueError("kd.to_py: the data holds a cycle (an item reached again inside itself), "
                                 "which has no Python form here; pass max_depth= to stop at a depth")
            return _keyed(self.convert(*request), keys, key)

        return _run_nested(self.convert(flat, 0), descend)

    def convert(self, flat, depth):
        """The items of 1-D slice `flat` as a Python list (a generator, see `run`)."""
        n = flat.get_size().to_py()
        if flat._converts_natively():
            return _as_list(_native_to_py(flat), n)
        if 0 <= self.max_depth <= depth:
            return _leaves(flat)  # too deep: structured items stay DataItems (as in Koda)
        kind = _one_kind(flat, n)
        if kind is not None:
            # Every item present and of one kind: converted whole.
            return (yield from getattr(self, "_" + kind + "s")(flat, depth))
        out = [None] * n
        index = OPERATORS["kd.slices.index"](flat)
        kinds = (("primitive", "kd.core.has_primitive"), ("list", "kd.lists.has_list"), ("dict", "kd.dicts.has_dict"),
                 ("entity", "kd.core.has_entity"))
        for kind, has in kinds:
            mask = OPERATORS[has](flat)
            if mask.get_present_count() == 0:
                continue
            positions = OPERATORS["kd.slices.select"](index, mask).to_py()
            sub = OPERATORS["kd.slices.select"](flat, mask)
            values = _native_to_py(sub) if kind == "primitive" else (yield from getattr(self, "_" + kind + "s")(sub, depth))
            for p, v in zip(positions, values):
                out[p] = v
        return out

    def _lists(self, lists, depth):
        rows = OPERATORS["kd.lists.explode"](lists)
        children = yield (rows.flatten(), depth + 1)
        return _split(children, OPERATORS["kd.lists.size"](lists).to_py())

    def _dicts(self, dicts, depth):
        keys = OPERATORS["kd.dicts.get_keys"](dicts).flatten()
        values = OPERATORS["kd.dicts.get_values"](dicts).flatten()
        # Entity, list and dict keys stay DataItems: their Python forms could not be keys.
        key_items = _leaves(keys)
        value_items = yield (values, depth + 1)
        sizes = OPERATORS["kd.dicts.size"](dicts).to_py()
        return [dict(zip(k, v)) for k, v in zip(_split(key_items, sizes), _split(value_items, sizes))]

    def _entitys(self, entities, depth):
        """Entities and objects: each attribute read once, for the items
        whose schema declares it (objects each have their own schema:
        records with differing keys read only their own)."""
        n = entities.get_size().to_py()
        is_object = str(entities.get_schema()) == "OBJECT"
        out = [{} for _ in range(n)]
        for name, positions in _plait.declared_attrs(entities):
            holders = entities if len(positions) == n else OPERATORS["kd.slices.take"](
                entities, _plait.slice(positions, None))
            try:
                parts = [(positions, OPERATORS["kd.core.maybe" if is_object else "kd.core.get_attr"](holders, name))]
            except ValueError:
                if not is_object:
                    raise
                # Objects whose schemas give the attribute schemas with no
                # common one (a number here, a list there): each on its own.
                parts = [([j], OPERATORS["kd.core.maybe"](entities.S[j], name)) for j in positions]
            for at, attr in parts:
                values = yield (attr.flatten(), depth + 1)
                # Leaving missing attributes out is for dicts (as Koda: an
                # `Obj` lists every attribute of its schema).
                present = None if self.include_missing_attrs or not self.obj_as_dict else _flags(attr.flatten())
                for k, j in enumerate(at):
                    if present is None or present[k]:
                        out[j][name] = values[k]
        # An item whose schema has no attributes is an empty dict (Koda's).
        return out if self.obj_as_dict else [Obj(**attrs) if attrs else {} for attrs in out]


def _one_kind(flat, n):
    """"list", "dict" or "entity" when the schema of 1-D slice `flat` (of `n`
    items) says all its items are of that kind and none is missing; None
    otherwise (objects, missing items: sorted out item by item)."""
    schema = flat.get_schema()
    if schema.is_list_schema():
        kind = "list"
    elif schema.is_dict_schema():
        kind = "dict"
    elif schema.is_entity_schema():
        kind = "entity"
    else:
        return None
    return kind if flat.get_present_count() == n else None


def _items_key(flat):
    """What identifies the items of 1-D slice `flat`: their schema and ids."""
    values = _native_to_py(flat)
    return (str(flat.get_schema()), tuple(str(v) if isinstance(v, types.DataSlice) else v for v in values))


def _flags(x):
    """Whether each item of `x` is present, as Python ints (1 or 0)."""
    return _native_to_py(OPERATORS["kd.masking.cond"](OPERATORS["kd.masking.has"](x), 1, 0))


def _as_list(value, n):
    """The native `to_py` result of a 1-D slice of `n` items, as a list."""
    assert isinstance(value, builtins.list) and len(value) == n
    return value


def _split(values, sizes):
    """`values` cut into consecutive rows of `sizes`."""
    out, start = [], 0
    for size in sizes:
        size = size or 0
        out.append(values[start:start + size])
        start += size
    return out


def _leaves(flat):
    """The items of 1-D slice `flat` as Python values, with entities, lists
    and dicts left as DataItems."""
    out = _as_list(_native_to_py(flat), flat.get_size().to_py())
    return [flat.S[i] if isinstance(v, types.DataSlice) else v for i, v in enumerate(out)]


def _method(self, max_depth=2, obj_as_dict=False, include_missing_attrs=True):
    return to_py(self, max_depth, obj_as_dict, include_missing_attrs)


_method.__doc__ = to_py.__doc__
types.DataSlice.to_py = _method
