"""`to_py` for slices holding lists, dicts, entities and objects: nested
Python lists, Python dicts, and `Obj` objects (or dicts with
`obj_as_dict=True`) for entities.

The Rust walk (`_plait.to_py_tree`) converts slices; it hands back the
unusual ones (nofollow schemas, attributes of no common schema across
objects, data deeper than `MAX_DEPTH`, errors), which the walk here
converts the same way (or raises). Structured
items are walked level by level, down to `max_depth` levels
(deeper items stay DataItems, as in Koda; a negative depth means no limit).
Each list, dict, entity and object is converted once: reached again (shared
by two attributes, or inside itself) it is the same Python value, as in
Koda, so a cycle gives Python values that refer to themselves. The data is
walked breadth first, a level at a time (a loop: deep data costs no Python
recursion), so an item is converted at the least depth it is reached at, as
in Koda; past `MAX_DEPTH` levels the conversion raises.
"""

import builtins
import functools
import reprlib

from plait import _plait
from plait.kd import shapes, types
from plait.kd._operators import OPERATORS

_native_to_py = types.DataSlice.to_py

#: The deepest nesting converted with `max_depth=-1`.
MAX_DEPTH = 100_000


class Obj:
    """An entity or object converted by `to_py`: its attributes as Python attributes."""

    def __init__(self, **attrs):
        self.__dict__.update(attrs)

    # An Obj inside itself (converted from a cycle) prints as `...`.
    @reprlib.recursive_repr()
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
    # Lists, dicts, entities and objects are walked in Rust, primitives
    # converted there; anything unusual comes back `NotImplemented` and is
    # walked here.
    value = _plait.to_py_tree(ds, max_depth, obj_as_dict, include_missing_attrs, Obj, MAX_DEPTH)
    if value is not NotImplemented:
        return value
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


class _Converter:
    """Converts the items of 1-D slices, all items of one kind (lists,
    dicts, entities of one schema, primitives) in one vectorised step per
    nesting level, instead of one Koda call per item."""

    def __init__(self, max_depth, obj_as_dict, include_missing_attrs):
        self.max_depth = max_depth
        self.obj_as_dict = obj_as_dict
        self.include_missing_attrs = include_missing_attrs
        # The Python value of each structured item converted, by its encoded
        # id. A value is recorded before the items inside it are converted,
        # so an item met again inside itself is its own (unfinished) value.
        self.made = {}

    def run(self, flat):
        """The items of 1-D slice `flat` as a Python list.

        The data is walked breadth first, a level at a time (as Koda): each
        item is converted at the least depth it is reached at. Converting a
        level makes its lists, dicts and entities (empty) and queues, for the
        level below, `(items, fill)`: the items inside them (a slice, or
        their values already) and the function their values fill them with."""
        top = []
        level = [(flat, top.extend)]
        depth = 0
        while level:
            if depth > MAX_DEPTH:
                raise ValueError(f"kd.to_py: the data is nested more than {MAX_DEPTH} levels deep; "
                                 "pass max_depth= to stop earlier")
            below = []
            for items, fill in level:
                fill(items if isinstance(items, builtins.list) else self.convert(items, depth, below))
            level = below
            depth += 1
        return top

    def convert(self, flat, depth, below):
        """The items of 1-D slice `flat`, `depth` levels down, as a Python
        list; what fills the values made goes to `below` (see `run`)."""
        n = flat.get_size().to_py()
        if flat._converts_natively():
            return _as_list(_native_to_py(flat), n)
        # Too deep: structured items stay DataItems (as in Koda), unless
        # they were converted already.
        too_deep = 0 <= self.max_depth <= depth
        if str(flat.get_schema()).startswith("NOFOLLOW("):
            return _leaves(flat) if too_deep else _emptied(OPERATORS["kd.core.follow"](flat))
        out = _leaves(flat) if too_deep else [None] * n
        one_kind = _one_kind(flat, n)
        if one_kind is not None:
            # Every item present and of one kind (by the schema): no
            # sorting out by kind.
            parts = [(one_kind, range(n), flat)]
        else:
            parts = self._by_kind(flat, too_deep)
        for kind, positions, sub in parts:
            if kind == "primitive":
                for p, v in zip(positions, _native_to_py(sub)):
                    out[p] = v
                continue
            keys = _native_to_py(OPERATORS["kd.ids.encode_itemid"](sub))
            if not too_deep:
                # The items not converted yet, each once.
                fresh, seen = [], set()
                for k, key in enumerate(keys):
                    if key not in self.made and key not in seen:
                        seen.add(key)
                        fresh.append(k)
                if fresh:
                    part = sub if len(fresh) == len(keys) else OPERATORS["kd.slices.take"](sub, _plait.slice(fresh, None))
                    getattr(self, "_" + kind + "s")(part, [keys[k] for k in fresh], depth, below)
            for p, key in zip(positions, keys):
                if key in self.made:
                    out[p] = self.made[key]
        return out

    def _by_kind(self, flat, too_deep):
        """The items of `flat` by kind: `(kind, positions, items)` for each
        kind present (primitives only when they are converted)."""
        index = OPERATORS["kd.slices.index"](flat)
        kinds = (("primitive", "kd.core.has_primitive"), ("list", "kd.lists.has_list"), ("dict", "kd.dicts.has_dict"),
                 ("entity", "kd.core.has_entity"))
        for kind, has in kinds:
            mask = OPERATORS[has](flat)
            if mask.get_present_count() == 0 or (too_deep and kind == "primitive"):
                continue
            yield kind, OPERATORS["kd.slices.select"](index, mask).to_py(), OPERATORS["kd.slices.select"](flat, mask)

    def _record(self, keys, values):
        self.made.update(zip(keys, values))
        return values

    def _lists(self, lists, keys, depth, below):
        made = self._record(keys, [[] for _ in keys])
        rows = OPERATORS["kd.lists.explode"](lists)
        sizes = OPERATORS["kd.lists.size"](lists).to_py()

        def fill(children):
            for target, row in zip(made, _split(children, sizes)):
                target.extend(row)

        below.append((rows.flatten(), fill))

    def _dicts(self, dicts, keys, depth, below):
        made = self._record(keys, [{} for _ in keys])
        dict_keys = OPERATORS["kd.dicts.get_keys"](dicts).flatten()
        values = OPERATORS["kd.dicts.get_values"](dicts).flatten()
        # Entity, list and dict keys stay DataItems: their Python forms could not be keys.
        key_items = _leaves(dict_keys)
        sizes = OPERATORS["kd.dicts.size"](dicts).to_py()

        def fill(value_items):
            for target, k, v in zip(made, _split(key_items, sizes), _split(value_items, sizes)):
                target.update(zip(k, v))

        below.append((values, fill))

    def _entitys(self, entities, keys, depth, below):
        """Entities and objects: each attribute read once, for the items
        whose schema declares it (objects each have their own schema:
        records with differing keys read only their own). An item whose
        schema declares no attribute is an empty dict, as in Koda."""
        n = entities.get_size().to_py()
        is_object = str(entities.get_schema()) == "OBJECT"
        declared = _plait.declared_attrs(entities)
        with_attrs = [False] * n
        for _, positions, _ in declared:
            for j in positions:
                with_attrs[j] = True
        made = self._record(keys, [Obj() if has and not self.obj_as_dict else {} for has in with_attrs])
        for name, positions, nofollow in declared:
            nofollow_at = dict(zip(positions, nofollow))
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
                # Leaving missing attributes out is for dicts (as Koda: an
                # `Obj` lists every attribute of its schema).
                present = None if self.include_missing_attrs or not self.obj_as_dict else _flags(attr.flatten())
                fill = functools.partial(_set_attr, [made[j] for j in at], name, present)
                self._attr_values(attr.flatten(), [nofollow_at[j] for j in at], depth, fill, below)

    def _attr_values(self, attr, nofollow, depth, fill, below):
        """Queues the values of attribute slice `attr` for `fill` (see
        `run`); where it is declared nofollow, empty as Koda gives it,
        unfollowed. Values known already are queued too, so that each
        entity takes its attributes in order."""
        if not any(nofollow):
            below.append((attr, fill))
            return
        if 0 <= self.max_depth <= depth + 1:
            # Too deep: DataItems, nofollow ones as such (as in Koda).
            values = _leaves(attr)
            skipped = [k for k, skip in enumerate(nofollow) if skip]
            wrapped = OPERATORS["kd.core.nofollow"](OPERATORS["kd.slices.take"](attr, _plait.slice(skipped, None)))
            for k, v in zip(skipped, _leaves(wrapped)):
                values[k] = v
            below.append((values, fill))
            return
        values = _emptied(attr)
        followed = [k for k, skip in enumerate(nofollow) if not skip]
        if not followed:
            below.append((values, fill))
            return

        def fill_followed(followed_values):
            for k, v in zip(followed, followed_values):
                values[k] = v
            fill(values)

        below.append((OPERATORS["kd.slices.take"](attr, _plait.slice(followed, None)), fill_followed))


def _set_attr(targets, name, present, values):
    """Sets attribute `name` of each of `targets` (`Obj`s or dicts) to its
    value in `values`, where `present` (if given) says it is present."""
    for k, target in enumerate(targets):
        if present is None or present[k]:
            if isinstance(target, dict):
                target[name] = values[k]
            else:
                setattr(target, name, values[k])


def _emptied(items):
    """Items of 1-D slice `items` as Koda gives them where a nofollow schema
    stops `to_py`: an empty list for a list, an empty dict for anything else
    (by the kind of each item's id: the bag need not hold its schema)."""
    as_objects = OPERATORS["kd.schema.with_schema"](items, _plait.schema_constant("OBJECT"))
    is_list = _flags(OPERATORS["kd.lists.has_list"](as_objects))
    return [([] if lst else {}) if present else None for present, lst in zip(_flags(items), is_list)]


def _one_kind(flat, n):
    """"list", "dict" or "entity" when the schema of 1-D slice `flat` (of `n`
    items) says every item is of that kind and none is missing; None
    otherwise (objects, missing items: sorted out by kind)."""
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
