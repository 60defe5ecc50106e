"""`kd.from_py` (and its alias `kd.from_pytree`): Python values as Koda data.

Python lists and tuples become Koda lists, dicts become Koda dicts (or objects
with `dict_as_obj=True`), dataclasses and other Python objects with
attributes become objects (entities under an entity schema), primitives and
DataItems stay items; the outer `from_dim` levels of nested lists become
dimensions of the result instead. By default (`schema=kd.OBJECT`)
everything is OBJECT; with a schema, it is followed level by level (list,
dict and entity schemas, primitives cast); with `schema=None` the schema is
inferred, level by level, from the values (`[[1, 2], [3]]` is
`LIST[LIST[INT32]]`, a dataclass an entity of its fields' schemas).

Plain values (exact lists, tuples and dicts of exact ints, floats, strs,
bytes, bools and None) under the default OBJECT schema, or with the schema
inferred, are converted in one native call (`_plait.from_py_plain` and
`_plait.from_py_inferred`, crates/plait-python/src/from_py_plain.rs), and so
are they under a given schema (`_plait.from_py_typed`, from_py_typed.rs);
everything else takes the walk below, which works one nesting level at a
time over all the values of that level, so a million Python values cost a
few vectorized calls per level, not a Koda call per value. The levels are
walked with an explicit stack (each level's conversion is a generator that
asks for the conversion of the level below by yielding it), so nesting
costs no Python recursion; it is bounded by `MAX_DEPTH` (as in Koda), and
values that contain themselves are found within a few levels (see
`_Converter.run`), with Koda's error.
"""

import builtins
import dataclasses
import functools
import types as pytypes

from plait import _plait
from plait.kd import shapes, types
from plait.kd._nested import run_nested as _run_nested
from plait.kd._operators import OPERATORS
from plait.kd.schema import NONE, OBJECT, cast_to_implicit, to_object

_PRIMITIVES = (bool, int, float, str, bytes, type(None))

#: The deepest nesting of lists, dicts and attributes converted (Koda's limit).
MAX_DEPTH = 10_000

#: The depth from which containers are counted to find cycles (see
#: `_Converter.run`): a cycle makes at most 2**_CYCLE_FROM values first.
_CYCLE_FROM = 12

#: Nesting past which the result's bag layers (one per level) are merged.
_MERGE_DEPTH = 16
_SEQUENCES = (builtins.list, tuple)


def from_py(py_obj, *, dict_as_obj=False, itemid=None, schema=OBJECT, from_dim=0):
    """Returns `py_obj` as a DataSlice (see the module docstring).

    Args:
      py_obj: a Python value: primitives, lists, tuples, dicts, dataclasses,
        objects with attributes, DataItems.
      dict_as_obj: whether dicts become objects (entities when the schema is
        inferred) instead of Koda dicts.
      itemid: the ItemIds of the top-level items made.
      schema: the schema to follow (OBJECT by default); None infers it.
      from_dim: how many outer list levels become dimensions.

    Examples:
      >>> kd.from_py({'a': [1, 2]})
      DataItem(Dict{'a'=List[1, 2]}, schema: OBJECT, bag_id: $...)
      >>> kd.from_py([[1, 2], [3]], from_dim=1)
      DataSlice([List[1, 2], List[3]], schema: OBJECT, present: 2/2, bag_id: $...)
      >>> kd.from_py([[1, 2], [3]], schema=None)
      DataItem(List[List[1, 2], List[3]], schema: LIST[LIST[INT32]], bag_id: $...)
      >>> kd.from_py({'a': 1.5}, schema=None)
      DataItem(Dict{'a'=1.5}, schema: DICT{STRING, FLOAT32}, bag_id: $...)
    """
    if schema is None:
        schema = _INFER
    if not isinstance(from_dim, int) or from_dim < 0:
        raise ValueError(f"kd.from_py: from_dim must be a non-negative int, got {from_dim!r}")
    leaves, shape = _outer_dims(py_obj, from_dim) if from_dim else ([py_obj], None)
    # Plain lists, dicts and primitives (most conversions): one native call;
    # None when some value needs the walk below. (A given schema item may be
    # OBJECT too: from_py_typed converts as from_py_plain then.)
    converted = None
    if itemid is None:
        if schema is OBJECT:
            converted = _plait.from_py_plain(leaves, dict_as_obj, from_dim == 0)
        elif schema is _INFER:
            converted = _plait.from_py_inferred(leaves, dict_as_obj, from_dim == 0)
        elif isinstance(schema, types.DataSlice):
            converted = _plait.from_py_typed(leaves, schema, dict_as_obj, from_dim == 0)
    if converted is not None:
        return shapes.reshape(converted, shape) if from_dim > 0 else converted
    converter = _Converter(dict_as_obj)
    flat = converter.run(leaves, schema, itemid if from_dim == 0 else None)
    if converter.deepest > _MERGE_DEPTH and flat._bag() is not None:
        # Each level adds a bag layer over the levels below; reads through
        # thousands of layers would cost that much each, so merge them once.
        flat = flat.with_merged_bag()
    if itemid is not None and from_dim > 0:
        raise ValueError("kd.from_py: itemid= is only supported with from_dim=0")
    return shapes.reshape(flat, shape) if from_dim > 0 else flat.S[0]


def _outer_dims(py_obj, from_dim):
    """The values below the outer `from_dim` (> 0) list levels, and the
    shape those levels form."""
    level = [py_obj]
    sizes = []
    for depth in range(from_dim):
        if not level:
            # Nothing below to say the nesting goes on (Koda's rule too).
            raise ValueError(f"could not traverse the nested list of depth {depth} up to the level {from_dim}")
        below = []
        row_sizes = []
        for x in level:
            if not isinstance(x, _SEQUENCES):
                raise ValueError(f"could not traverse the nested list of depth {depth} up to the level {from_dim}")
            row_sizes.append(len(x))
            below.extend(x)
        sizes.append(row_sizes)
        level = below
    return level, shapes.new(sizes[0][0], *sizes[1:])


def _is_schema(schema, name):
    return isinstance(schema, types.DataSlice) and str(schema) == name


_NO_VALUE = object()


def _takes_only_items(schema):
    """Whether `schema` is NONE, SCHEMA or ITEMID: schemas of no Python
    value but None, which from_py takes as DataItems."""
    return isinstance(schema, types.DataSlice) and not schema.is_struct_schema() and str(schema) in ("NONE", "SCHEMA", "ITEMID")


def _refuse_first_none(values, schema):
    """Koda's mismatch for `values` (an iterable) under NONE, SCHEMA or
    ITEMID whose first value is None or a container: these schemas take
    DataItems, or the primitives a first primitive says the values are
    (which then fail to cast)."""
    if not _takes_only_items(schema):
        return
    first = next(iter(values), _NO_VALUE)
    if first is not _NO_VALUE and not isinstance(first, types.DataSlice) and (first is None or not isinstance(first, _PRIMITIVES)):
        raise ValueError("schema mismatch: expected an object schema here.")


class _Infer:
    """The schema of values to infer from them (`schema=None`)."""

    def __repr__(self):
        return "<inferred>"


_INFER = _Infer()


class _Converter:
    def __init__(self, dict_as_obj):
        self.dict_as_obj = dict_as_obj
        self.deepest = 0

    def run(self, values, schema, itemid=None):
        """The Python `values` as a 1-D DataSlice of `schema`.

        Each conversion below is a generator: it yields the arguments of
        `convert` for the values one level down and is sent the result."""

        # Values that contain themselves make a level walk grow without
        # bound (a list holding itself twice doubles each level, long before
        # MAX_DEPTH): a path through more levels below _CYCLE_FROM than there
        # are containers there repeats one, a cycle. (As in
        # crates/plait-python/src/cycles.rs; only deep values pay for the set.)
        below = set()

        def descend(request, depth):
            if depth > MAX_DEPTH or (depth > _CYCLE_FROM and depth - _CYCLE_FROM > len(below)):
                raise ValueError(f"kd.from_py: objects with depth > {MAX_DEPTH} are not supported, "
                                 "recursive Python object cannot be converted")
            if depth >= _CYCLE_FROM:
                # (DataItems and subclasses of primitives are counted too:
                # more than the containers only finds a cycle later.)
                below.update(id(v) for v in request[0] if v is not None and not isinstance(v, _PRIMITIVES))
            self.deepest = max(self.deepest, depth + 1)
            return self.convert(*request)

        return _run_nested(self.convert(values, schema, itemid), descend)

    def convert(self, values, schema, itemid=None):
        """The Python `values` as a 1-D DataSlice of `schema` (a generator,
        see `run`)."""
        if schema is _INFER:
            return (yield from self._inferred(values, itemid))
        if _is_schema(schema, "OBJECT"):
            return (yield from self._objects(values, itemid))
        if values:
            _refuse_first_none(values, schema)
        if schema.is_struct_schema() and all(v is None for v in values):
            # Nothing present: missing items of the schema, with nothing
            # below them to walk (a recursive schema would go on forever).
            # (The schema's bag frozen: later writes to it do not reach this.)
            missing = _plait.slice([None] * len(values), None).with_schema(schema)
            return missing.with_bag(schema.freeze_bag()._bag()) if schema._bag() is not None else missing
        if schema.is_struct_schema() and any(issubclass(t, types.DataSlice) for t in set(map(type, values))):
            return _given_items(values, schema)
        # The first value says what the values of a struct schema are taken
        # for (Koda's rule): a primitive makes them primitives, which do not
        # cast to the schema.
        if not schema.is_struct_schema() or (values and values[0] is not None and isinstance(values[0], _PRIMITIVES)):
            return self._primitives(values, schema)
        if schema.is_dict_schema():
            if self.dict_as_obj and any(isinstance(v, builtins.dict) for v in values):
                raise ValueError("dict_as_obj=True is not supported for dict schema")
            return (yield from self._dicts(values, schema.get_key_schema(), schema.get_value_schema(), itemid))
        if schema.is_list_schema():
            return (yield from self._lists(values, schema.get_item_schema(), itemid))
        if schema.is_entity_schema():
            return (yield from self._entities(values, schema, itemid))
        return self._primitives(values, schema)

    # --- OBJECT: each kind of value converted together, then put back in order

    def _objects(self, values, itemid):
        # Flat primitives (the common case) are boxed in one call; anything
        # else takes the general path below. (Checked first: boxing nested
        # values to find out would walk all the levels below this one.)
        values = _as_list(values)
        if _plait.from_py_only_primitives(values):
            return _plait.slice(values, OBJECT)
        groups = {"sequence": [], "dict": [], "item": [], "primitive": [], "attrs": []}
        for i, v in enumerate(values):
            groups[_kind(v)].append(i)
        parts = []
        if groups["primitive"]:
            prims = [values[i] for i in groups["primitive"]]
            parts.append((groups["primitive"], _plait.slice(prims, OBJECT)))
        if groups["item"]:
            items = [_as_object_item(values[i]) for i in groups["item"]]
            parts.append((groups["item"], OPERATORS["kd.slices.stack"](*items)))
        if groups["sequence"]:
            lists = yield from self._lists([values[i] for i in groups["sequence"]], OBJECT, _at(itemid, groups["sequence"]))
            parts.append((groups["sequence"], OPERATORS["kd.objs.new"](lists)))
        if groups["dict"]:
            dicts = [values[i] for i in groups["dict"]]
            dict_ids = _at(itemid, groups["dict"])
            if self.dict_as_obj:
                made = yield from self._dicts_as_objects(dicts, dict_ids)
            else:
                made = yield from self._dicts(dicts, OBJECT, OBJECT, dict_ids)
            parts.append((groups["dict"], OPERATORS["kd.objs.new"](made)))
        if groups["attrs"]:
            made = yield from self._dicts_as_objects([_fields(values[i]) for i in groups["attrs"]], _at(itemid, groups["attrs"]))
            parts.append((groups["attrs"], made))
        return _in_order(parts, len(values))

    # --- schema=None: one schema for all the values of a level, from them

    def _inferred(self, values, itemid):
        # Kinds by type, not by value: a level of a million values has a
        # handful of types.
        values = values if type(values) is builtins.list else builtins.list(values)
        if _plait.from_py_only_primitives(values):
            return _plait.slice(values, None)
        seen = set(map(type, values)) - {type(None)}
        kinds = {"primitive" if t in _PRIMITIVES_SET else _kind(next(v for v in values if type(v) is t)) for t in seen}
        if "item" in kinds:
            for v in values:  # each must be a DataItem
                if isinstance(v, types.DataSlice):
                    _kind(v)
        if kinds == {"primitive"}:
            # Subclasses of int, str, ... (the check above takes exact types).
            return _plait.slice(values, None)
        if "item" in kinds and kinds <= {"primitive", "item"}:
            # DataItems (and primitives): their common schema, as kd.slice.
            try:
                if kinds == {"item"}:
                    return OPERATORS["kd.slices.stack"](*[v if v is not None else _plait.slice(None, None) for v in values])
                return _plait.slice(values, None)
            except ValueError as error:
                raise ValueError(f"could not parse list of primitives / data items: {_without_context(error)}") from None
        if kinds == {"sequence"}:
            return (yield from self._lists(values, _INFER, itemid))
        if kinds == {"dict"} and not self.dict_as_obj:
            return (yield from self._dicts(values, _INFER, _INFER, itemid))
        if kinds <= {"dict", "attrs"} and (self.dict_as_obj or "dict" not in kinds):
            return (yield from self._inferred_entities(values, itemid))
        # Values of different kinds: the first one's kind is the level's
        # (Koda's rule), which the others do not fit.
        raise ValueError(_mixed_kinds_error(values, self.dict_as_obj))

    def _inferred_entities(self, values, itemid):
        """Entities of one new schema whose attributes are the union of the
        values' fields, each inferred from all the values having it."""
        rows = [_fields(v) if v is not None else {} for v in values]
        _check_attr_names(rows)
        names = builtins.list(builtins.dict.fromkeys(k for row in rows for k in row))
        ids = _ids(itemid, "object")
        attrs = {}
        for name in names:
            attrs[name] = yield ([row.get(name) for row in rows], _INFER, _ChildIds.of_attr(ids, name, len(rows)))
        entities = OPERATORS["kd.entities.shaped"](shapes.new(len(rows)), **attrs, **_itemid_option(ids))
        return _masked(entities, _presence(values))

    # --- lists, dicts and entities: the children of all values at once

    def _lists(self, values, item_schema, itemid):
        present, shape, children, _ = _plait.from_py_rows(_as_list(values), False, "schema mismatch: expected list/tuple")
        ids = _ids(itemid, "list")
        items = yield (children, item_schema, _ChildIds.of_rows(ids, shape))
        lists = OPERATORS["kd.lists.implode"](shapes.reshape(items, shape), itemid=ids)
        return _masked(lists, present)

    def _dicts(self, values, key_schema, value_schema, itemid):
        present, shape, keys, vals = _plait.from_py_rows(
            _as_list(values), True, "schema mismatch: expected dict object for dict schema")
        ids = _ids(itemid, "dict")
        keys = yield (keys, key_schema, None)
        vals = yield (vals, value_schema, _ChildIds.of_rows(ids, shape, keys))
        if key_schema is _INFER:
            key_schema, value_schema = keys.get_schema(), vals.get_schema()
        dicts = OPERATORS["kd.dicts._shaped"](
            shapes.new(len(values)),
            keys=shapes.reshape(keys, shape),
            values=shapes.reshape(vals, shape),
            key_schema=key_schema, value_schema=value_schema,
            **_itemid_option(ids))
        return _masked(dicts, present)

    def _dicts_as_objects(self, dicts, itemid):
        """Objects whose attributes are the dicts' entries (each object's
        schema has its own keys): the values of all the entries converted
        as one level, the objects made in one call."""
        _check_attr_names(dicts)
        if any("__schema__" in d for d in dicts):
            raise ValueError("only schemas can be assigned to the '__schema__' attribute, got OBJECT")
        if itemid is None:
            rows = [i for i, d in enumerate(dicts) for _ in d]
            names = [k for d in dicts for k in d]
            values = yield ([v for d in dicts for v in d.values()], OBJECT)
            return _plait.objects_with_attrs_at(len(dicts), rows, names, values)
        by_keys = {}
        for i, d in enumerate(dicts):
            by_keys.setdefault(tuple(d.keys()), []).append(i)
        ids = _ids(itemid, "object")
        parts = []
        for names, positions in by_keys.items():
            group_ids = _at(ids, positions)
            attrs = {}
            for name in names:
                attrs[name] = yield ([dicts[i][name] for i in positions], OBJECT, _ChildIds.of_attr(group_ids, name, len(positions)))
            shape = shapes.new(len(positions))
            parts.append((positions, OPERATORS["kd.objs.shaped"](shape, **attrs, **_itemid_option(group_ids))))
        return _in_order(parts, len(dicts))

    def _entities(self, values, schema, itemid):
        """Entities of `schema` from dicts (all of them, when the first value
        is one; a missing key is a missing attribute) or else from objects'
        attributes (each must have every attribute), as Koda takes them."""
        names = sorted(schema.get_attr_names(intersection=True))
        first = next((v for v in values if v is not None), None)
        if isinstance(first, builtins.dict):
            for v in values:
                if v is not None and not isinstance(v, builtins.dict):
                    raise ValueError("schema mismatch: expected dict object when parsing dict as object")
            _check_attr_names(v for v in values if v is not None)
            columns = {name: [v.get(name) if v is not None else None for v in values] for name in names}
        else:
            columns = {name: [getattr(v, name) if v is not None else None for v in values] for name in names}
        ids = _ids(itemid, "object")
        attrs = {}
        for name in names:
            attr_schema = schema.get_attr(name)
            # (An attribute no dict has is not converted at all, as in Koda;
            # else missing keys and entities are its None values.)
            if not isinstance(first, builtins.dict) or any(v is not None and name in v for v in values):
                _refuse_first_none(columns[name], attr_schema)
            if attr_schema.is_struct_schema() or _is_schema(attr_schema, "OBJECT"):
                attrs[name] = yield (columns[name], attr_schema, _ChildIds.of_attr(ids, name, len(values)))
            elif _takes_only_items(attr_schema):
                attrs[name] = self._primitives(columns[name], attr_schema)
            else:
                # Koda converts the values of a primitive attribute as
                # they are, then casts them as an assignment would.
                attrs[name] = _assigned((yield (columns[name], _INFER, None)), attr_schema, name)
        shape = shapes.new(len(values))
        entities = OPERATORS["kd.entities.shaped"](shape, schema=schema, **attrs, **_itemid_option(ids))
        return _masked(entities, _presence(values))

    def _primitives(self, values, schema):
        """Primitives (and DataItems) cast to `schema` by the implicit rules
        (INT32 to INT64 yes, INT32 to STRING no), with Koda's errors."""
        values = values if type(values) is builtins.list else builtins.list(values)
        if not _plait.from_py_only_primitives(values):
            for v in values:
                if not isinstance(v, _PRIMITIVES + (types.DataSlice,)):
                    raise ValueError(f"{_UNPARSED}object with unsupported type: {_plait.type_name(v)}")
        boxed = _plait.slice(values, None)
        if boxed.get_present_count() == 0:
            return boxed.with_schema(schema)
        if _is_schema(schema, "FLOAT64") and _is_schema(boxed.get_schema(), "FLOAT32"):
            # Floats given FLOAT64 keep all their digits (boxed FLOAT32 first,
            # they would not).
            return _plait.slice(values, schema)
        try:
            return cast_to_implicit(boxed, schema)
        except ValueError:
            raise ValueError(f"{_UNPARSED}the schema is incompatible:\nexpected schema: {boxed.get_schema()}\n"
                             f"assigned schema: {schema}") from None


# Koda's start of the errors of values given a primitive schema.
_UNPARSED = "could not parse list of primitives / data items: "


def _assigned(values, schema, name):
    """The values of attribute `name` cast to its primitive `schema` as an
    assignment casts them, with Koda's error."""
    if values.get_present_count() == 0:
        return values.with_schema(schema)
    try:
        return cast_to_implicit(values, schema)
    except ValueError:
        raise ValueError(f"the schema for attribute '{name}' is incompatible.\n\nExpected schema for '{name}': {schema}\n"
                         f"Assigned schema for '{name}': {values.get_schema()}\n\nTo fix this, explicitly override "
                         f"schema of '{name}' in the original schema by passing overwrite_schema=True.") from None


def _check_attr_names(dicts):
    """Koda's errors for dicts made objects (or entities) that are not
    exactly dicts (OrderedDict, ...), or whose keys are not all strs."""
    for d in dicts:
        if type(d) is not builtins.dict:
            raise ValueError("schema mismatch: expected dict object when parsing dict as object")
        for k in d:
            if not isinstance(k, str):
                raise ValueError(f"dict_as_obj requires keys to be valid unicode objects, got {type(k).__name__}")


def _given_items(values, schema):
    """A level of a struct `schema` whose values are DataItems (a list given
    as `kd.list(...)` where a list is expected): they are taken as they are,
    and must all be DataItems of exactly that schema, as in Koda."""
    # A missing item without a schema (`kd.item(None)`) is a missing value.
    values = [None if isinstance(v, types.DataItem) and v.get_schema() == NONE and v.get_present_count() == 0 else v
              for v in values]
    for v in values:
        if v is not None and not isinstance(v, types.DataItem):
            kind = "DataSlice" if isinstance(v, types.DataSlice) else type(v).__name__
            raise ValueError(f"could not parse list of primitives / data items: object with unsupported type: {kind}")
        if v is not None and v.get_schema() != schema:
            raise ValueError("could not parse list of primitives / data items: the schema is incompatible:\n"
                             f"expected schema: {v.get_schema()}\nassigned schema: {schema}")
    missing = _plait.slice(None, None).with_schema(schema)
    return OPERATORS["kd.slices.stack"](*[missing if v is None else v for v in values]).with_schema(schema)


def _mixed_kinds_error(values, dict_as_obj):
    """Koda's error for a level whose values are not all of the first
    (present) value's kind."""
    first = next(v for v in values if v is not None)
    kind = _kind(first)
    if kind == "dict" and not dict_as_obj:
        return "schema mismatch: expected dict object for dict schema"
    if kind == "sequence":
        return "schema mismatch: expected list/tuple"
    other = next(v for v in values if v is not None and _kind(v) not in (kind, "item" if kind == "primitive" else kind))
    if kind in ("primitive", "item"):
        return f"could not parse list of primitives / data items: object with unsupported type: {_plait.type_name(other)}"
    return f"object with unsupported type: {_plait.type_name(other)}"


def _without_context(error):
    """An error's message without its leading `kd.op: ` context."""
    message = str(error)
    head, sep, rest = message.partition(": ")
    return rest if sep and head.startswith("kd.") else message


def _kind(v):
    if isinstance(v, _SEQUENCES):
        return "sequence"
    if isinstance(v, builtins.dict):
        return "dict"
    if isinstance(v, types.DataSlice):
        if v.get_ndim() != 0:
            raise ValueError(f"kd.from_py: a DataSlice inside a Python value must be a DataItem, got {v!r}")
        return "item"
    if isinstance(v, _PRIMITIVES):
        return "primitive"
    if _has_fields(v):
        return "attrs"
    raise ValueError(f"object with unsupported type: {_plait.type_name(v)}")


_PRIMITIVES_SET = frozenset(_PRIMITIVES)


def _has_fields(v):
    """Whether `v` is a dataclass instance or a plain Python object with
    attributes (not a function, class or module)."""
    if dataclasses.is_dataclass(v):
        return not isinstance(v, type)
    if callable(v) or isinstance(v, (type, pytypes.ModuleType)):
        return False
    return hasattr(v, "__dict__")


def _fields(v):
    """The fields of a dataclass, or the public attributes of an object, as
    a dict (a dict as it is)."""
    if isinstance(v, builtins.dict):
        return v
    if dataclasses.is_dataclass(v):
        return {name: getattr(v, name) for name in _field_names(type(v))}
    return {k: x for k, x in vars(v).items() if not k.startswith("_")}


@functools.lru_cache(maxsize=256)
def _field_names(cls):
    """The field names of dataclass `cls` (looked up once per class)."""
    return tuple(f.name for f in dataclasses.fields(cls))


def _as_object_item(item):
    """A DataItem as an OBJECT item (entities keep their schema in the bag)."""
    if str(item.get_schema()) == "OBJECT":
        return item
    if item._bag() is not None and item.get_schema().is_struct_schema():  # entities, lists, dicts
        return OPERATORS["kd.objs.new"](item)
    return to_object(item)


def _presence(values):
    """Which of `values` are not None, as a MASK slice (None when all are)."""
    if all(v is not None for v in values):
        return None
    return _plait.slice([True if v is not None else None for v in values], None)


def _masked(x, present):
    """`x` missing where `present` (a mask or boolean slice, None when
    everything is present) is missing (its bag kept)."""
    if present is None:
        return x
    return OPERATORS["kd.masking.apply_mask"](x, OPERATORS["kd.masking.has"](present)).with_bag(x._bag())


def _as_list(values):
    return values if type(values) is builtins.list else builtins.list(values)


class _ChildIds:
    """The ids of the children of items made with given ids: derived from
    each parent's id and the child's place in it (attribute name, dict key
    or list index), so that converting the same value with the same
    `itemid` again gives the same ids all the way down, as Koda promises.
    Lists and dicts take ids of their own kind: they are made when the
    children's kind is known (`of`)."""

    def __init__(self, parents, places):
        self.parents, self.places = parents, places  # 1-D, one per child

    @staticmethod
    def of_attr(ids, name, n):
        """For attribute `name` of the `n` items with `ids` (None: none)."""
        if ids is None:
            return None
        return _ChildIds(OPERATORS["kd.shapes.expand_to_shape"](ids, shapes.new(n)), _plait.slice([name] * n, None))

    @staticmethod
    def of_rows(ids, shape, keys=None):
        """For the items (dict values at `keys`) of the containers with
        `ids`, one row each of `shape`."""
        if ids is None:
            return None
        parents = OPERATORS["kd.shapes.expand_to_shape"](ids, shape)
        places = keys if keys is not None else OPERATORS["kd.slices.index"](parents).flatten()
        return _ChildIds(parents.flatten(), places)

    def of(self, kind):
        op = {"list": "kd.ids.uuid_for_list", "dict": "kd.ids.uuid_for_dict"}.get(kind, "kd.ids.uuid")
        return OPERATORS[op]("__from_py_child__", parent=self.parents, place=self.places)

    def at(self, positions):
        where = _plait.slice(positions, None)
        return _ChildIds(OPERATORS["kd.slices.take"](self.parents, where), OPERATORS["kd.slices.take"](self.places, where))


def _ids(itemid, kind):
    """The ids to make containers of `kind` with: given, derived, or None."""
    return itemid.of(kind) if isinstance(itemid, _ChildIds) else itemid


def _at(itemid, positions):
    """The ids of the values at `positions` (a given item: the same)."""
    if isinstance(itemid, _ChildIds):
        return itemid.at(positions)
    if itemid is None or itemid.get_ndim() == 0:
        return itemid
    return OPERATORS["kd.slices.take"](itemid, _plait.slice(positions, None))


def _itemid_option(itemid):
    """The `itemid=` keyword for the creating operators, when one is given."""
    return {"itemid": itemid} if itemid is not None else {}


def _in_order(parts, n):
    """One 1-D slice of `n` items from `parts` of (positions, slice)."""
    if len(parts) == 1 and len(parts[0][0]) == n:
        return parts[0][1]
    if not parts:
        return _plait.slice([], OBJECT)
    positions = [p for ps, _ in parts for p in ps]
    joined = OPERATORS["kd.slices.concat"](*(s for _, s in parts))
    order = [0] * n
    for k, p in enumerate(positions):
        order[p] = k
    return OPERATORS["kd.slices.take"](joined, _plait.slice(order, None))
