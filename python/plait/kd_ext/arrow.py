"""`kd_ext.arrow`: jagged DataSlices to and from Arrow arrays (pyarrow).

A DataSlice of rank `r` becomes a nested LargeListArray of depth `r - 1`
whose offsets are the shape's split points, over an array of its items:

- numbers, BOOLEAN, STRING, BYTES: the Arrow type of the same name
  (large_string, large_binary); values, offsets and text bytes are plait's
  buffers, shared without copying (booleans and the validity bitmap are
  small copies). MASK becomes bool (true where present, null where
  missing). An all-missing slice without a type becomes Arrow's null type.
- entities: a struct array, one field per attribute of their schema;
  lists: list arrays; dicts: map arrays; all with nulls where missing.
- OBJECT: the items' own type when they share one, otherwise a dense
  union with a child per kind of item.

`from_arrow` reads the same types back (and list, string and binary with
32-bit offsets, dictionary-encoded arrays, and the narrower integer and
float types, which are widened), using values and 64-bit offsets in place
when pyarrow marks their buffers immutable, and copying mutable ones (see
docs/limits.md, "Shared memory").
DataSlices also implement the Arrow PyCapsule interface
(`__arrow_c_array__`), so polars, duckdb and others read them directly.
"""

import functools

import numpy as np
import pyarrow as pa

from plait import _plait

__all__ = ["from_arrow", "to_arrow"]

_TO_ARROW = "kd_ext.arrow.to_arrow"
_FROM_ARROW = "kd_ext.arrow.from_arrow"

# The Arrow type of each primitive schema (for slices with no values).
_TYPES = {
    "INT32": pa.int32(), "INT64": pa.int64(), "FLOAT32": pa.float32(), "FLOAT64": pa.float64(),
    "BOOLEAN": pa.bool_(), "MASK": pa.bool_(), "STRING": pa.large_string(), "BYTES": pa.large_binary(),
    "NONE": pa.null(), "OBJECT": pa.null(),
}

# Arrow types read by widening into a plait type (a copy).
_WIDENED = {
    "int8": pa.int32(), "int16": pa.int32(), "uint8": pa.int32(), "uint16": pa.int32(),
    "uint32": pa.int64(), "uint64": pa.int64(), "halffloat": pa.float32(),
}


def _kd():
    from plait import kd

    return kd


def to_arrow(ds):
    """Converts a DataSlice to an Arrow array, sharing plait's buffers.

    A DataSlice of rank r > 1 becomes nested large lists (depth r - 1) whose
    offsets are the shape's split points; a DataItem becomes an array of
    one. Entities become struct arrays, Koda lists list arrays and dicts map
    arrays; OBJECT slices of mixed kinds become dense unions.

    Args:
      ds: a DataSlice.

    Returns:
      A pyarrow.Array.

    Examples:
      >>> kd_ext.arrow.to_arrow(kd.slice([[1, 2], [3]])).to_pylist()
      [[1, 2], [3]]
      >>> kd_ext.arrow.to_arrow(kd.slice(['a', None])).type
      DataType(large_string)
      >>> kd_ext.arrow.to_arrow(kd.new(x=kd.slice([1, 2]), y='a')).to_pylist()
      [{'x': 1, 'y': 'a'}, {'x': 2, 'y': 'a'}]
    """
    # Primitive slices (the common case) come in one call.
    parts = _plait.arrow_primitive(ds)
    if parts is not None:
        name, n, leaf, all_offsets = parts
        array = _leaf_array(name, n, leaf)
    else:
        array, all_offsets = _flat_array(ds.flatten()), _plait.shape_offsets(ds)
    # The first dimension's edge has one parent: the array itself.
    for offsets in reversed(all_offsets[1:]):
        offsets = pa.py_buffer(offsets)  # int64 split points, through the buffer protocol
        array = pa.Array.from_buffers(pa.large_list(array.type), offsets.size // 8 - 1, [None, offsets], children=[array])
    return array


def _flat_array(flat):
    """A one-dimensional slice as an Arrow array of the same length."""
    kd = _kd()
    schema = flat.get_schema()
    name = str(schema)
    # Primitive schemas first: their name says it (no operator calls).
    if name in _TYPES and name != "OBJECT":
        return _primitive_array(flat, name)
    if kd.schema.is_entity_schema(schema):
        return _struct_array(flat, schema.get_attr_names(intersection=True))
    if kd.schema.is_list_schema(schema) or kd.schema.is_dict_schema(schema):
        return _container_array(flat, bool(kd.schema.is_list_schema(schema)))
    if name == "OBJECT" and flat.get_present_count().to_py():
        return _object_array(flat)
    return _primitive_array(flat, name)


def _primitive_array(flat, schema):
    # None without one column of a primitive type (no present item); a
    # column of missing items only gives an all-null array of its type.
    return _leaf_array(schema, flat.get_size().to_py(), _plait.arrow_leaf(flat))


def _leaf_array(schema, n, leaf):
    """The Arrow array of `n` items of schema `schema` (a name) whose column
    is `leaf` (from `_plait.arrow_leaf`)."""
    if leaf is None:
        if schema not in _TYPES:
            raise ValueError(f"{_TO_ARROW}: DataSlices of {schema} have no Arrow form")
        return pa.nulls(n, _TYPES[schema])
    kind, buffers, presence = leaf
    validity = pa.py_buffer(presence) if presence is not None else None
    if kind == "mask":  # present items are true: the values are the validity bits
        values = validity if validity is not None else pa.py_buffer(np.full((n + 7) // 8, 0xFF, dtype=np.uint8))
        return pa.Array.from_buffers(pa.bool_(), n, [validity, values])
    return pa.Array.from_buffers(_arrow_type(kind), n, [validity] + [pa.py_buffer(b) for b in buffers])


@functools.cache
def _arrow_type(alias):
    return pa.type_for_alias(alias)


def _presence_bits(x):
    """The presence bitmap of `x` (LSB first), or None when every item is present."""
    kd = _kd()
    if x.get_present_count().to_py() == 0:
        return bytes((x.get_size().to_py() + 7) // 8)
    return _plait.arrow_leaf(kd.has(x))[2]


def _validity(flat):
    """The presence bitmap of `flat` as a pyarrow Buffer (None when all are present)."""
    bits = _presence_bits(flat)
    return pa.py_buffer(bits) if bits is not None else None


def _present(x):
    """Where `x` is present, as a numpy bool array."""
    n = x.get_size().to_py()
    bits = _presence_bits(x)
    if bits is None:
        return np.ones(n, dtype=bool)
    return np.unpackbits(np.frombuffer(bits, dtype=np.uint8), bitorder="little")[:n].astype(bool)


def _struct_array(flat, names):
    fields = [_flat_array(flat.get_attr(name, None)) for name in names]
    n = flat.get_size().to_py()
    validity = _validity(flat)
    struct = pa.struct([pa.field(name, f.type) for name, f in zip(names, fields)])
    return pa.Array.from_buffers(struct, n, [validity], children=fields)


def _container_array(flat, lists):
    """Koda lists (`lists`) as a large list array, or dicts as a map array."""
    n = flat.get_size().to_py()
    validity = _validity(flat)
    if lists:
        items = flat[:]
        offsets = np.asarray(_plait.shape_offsets(items)[-1])
        values = _flat_array(items.flatten())
        return pa.Array.from_buffers(pa.large_list(values.type), n, [validity, pa.py_buffer(offsets)], children=[values])
    keys = flat.get_keys()
    offsets = np.asarray(_plait.shape_offsets(keys)[-1])
    if offsets[-1] > np.iinfo(np.int32).max:
        raise ValueError(f"{_TO_ARROW}: the dicts hold {offsets[-1]} entries, more than an Arrow map array can")
    keys_array, values_array = _flat_array(keys.flatten()), _flat_array(flat[keys].flatten())
    return pa.MapArray.from_arrays(pa.array(offsets.astype(np.int32)), keys_array, values_array,
                                   mask=None if validity is None else pa.array(~_present(flat)))


def _object_array(flat):
    """OBJECT items: converted as their own type when all share one kind,
    else a dense union with one child per kind (missing items point into a
    null child)."""
    kd = _kd()
    kinds = []  # (name, mask) of each kind of item present
    for name, mask in (("entity", kd.has_entity(flat)), ("list", kd.has_list(flat)), ("dict", kd.has_dict(flat))):
        if mask.get_present_count().to_py():
            kinds.append((name, mask))
    primitives = kd.has_primitive(flat)
    if primitives.get_present_count().to_py():
        item_schemas = kd.get_obj_schema(flat & primitives)
        for schema in kd.unique(item_schemas.flatten()).to_py():
            if schema is not None:
                kinds.append((str(schema), item_schemas == schema))
    if len(kinds) == 1:
        return _as_kind(flat, kinds[0][0])
    missing = ~_present(flat)
    n = flat.get_size().to_py()
    type_ids = np.zeros(n, dtype=np.int8)
    value_offsets = np.zeros(n, dtype=np.int32)
    children, names = [], []
    for code, (name, mask) in enumerate(kinds):
        where = _present(mask)
        type_ids[where] = code
        value_offsets[where] = np.arange(int(where.sum()), dtype=np.int32)
        children.append(_as_kind(kd.select(flat, mask), name))
        names.append(name)
    if missing.any():
        type_ids[missing] = len(kinds)
        value_offsets[missing] = np.arange(int(missing.sum()), dtype=np.int32)
        children.append(pa.nulls(int(missing.sum())))
        names.append("missing")
    return pa.UnionArray.from_dense(pa.array(type_ids), pa.array(value_offsets), children, names)


def _as_kind(flat, kind):
    """OBJECT items all of one kind, converted as that kind."""
    kd = _kd()
    if kind == "entity":
        return _struct_array(flat, kd.get_attr_names(flat, intersection=False))
    if kind in ("list", "dict"):
        return _container_array(flat, kind == "list")
    return _primitive_array(flat, kind)


def from_arrow(array):
    """Converts an Arrow array to a DataSlice, using its buffers in place
    when pyarrow marks them immutable and copying the others (a mutable
    buffer may be a numpy array's memory, which the user can still write).

    Each level of (large) list nesting becomes a dimension, whose split
    points are the list offsets (lists at those levels must not be null).
    Below them, numbers, bool, strings and binary become the plait schema of
    the same name; structs become entities, lists inside structs Koda
    lists, maps dicts, unions OBJECT items, and the null type NONE.
    Dictionary-encoded arrays are decoded; narrower integers and half floats
    are widened; chunked arrays are joined.

    Args:
      array: a pyarrow Array or ChunkedArray (or anything `pa.array` takes).

    Returns:
      A DataSlice.

    Examples:
      >>> kd_ext.arrow.from_arrow(pa.array([[1, 2], [3]]))
      DataSlice([[1, 2], [3]], schema: INT64, present: 3/3)
      >>> kd_ext.arrow.from_arrow(pa.array(['a', None, 'c']))
      DataSlice(['a', None, 'c'], schema: STRING, present: 2/3)
    """
    if isinstance(array, pa.ChunkedArray):
        array = pa.concat_arrays(array.chunks) if array.num_chunks != 1 else array.chunk(0)
    if not isinstance(array, pa.Array):
        array = pa.array(array)
    levels = []
    while _is_list(array.type):
        if array.null_count:
            raise ValueError(f"{_FROM_ARROW}: missing lists cannot be dimensions (a DataSlice dimension has no missing "
                             "rows); put the lists inside a struct to read them as Koda lists")
        lists = len(array)
        offsets, array = _offsets_and_values(array)
        levels.append((offsets, lists))
    flat = _flat_slice(array)
    return _plait.with_arrow_offsets(flat, levels) if levels else flat


def _is_list(t):
    return pa.types.is_list(t) or pa.types.is_large_list(t)


def _offsets_and_values(array):
    """The int64 offsets of list array `array`, from 0, as a pyarrow Buffer,
    and the values they index. Arrow's own buffer is passed on when it
    already is so (`with_arrow_offsets` copies it when it is writable, then
    checks that it does not decrease)."""
    wide = pa.types.is_large_list(array.type)
    buffer = array.buffers()[1]
    offsets = np.frombuffer(buffer, dtype=np.int64 if wide else np.int32)
    offsets = offsets[array.offset:array.offset + len(array) + 1]
    # Offsets are checked before they index anything: one per list plus one,
    # inside the values (read here from Arrow's memory, and again by
    # `with_arrow_offsets` from the copy it keeps).
    if len(offsets) != len(array) + 1:
        raise ValueError(f"{_FROM_ARROW}: a list array of {len(array)} lists with {len(offsets)} offsets")
    if len(offsets) > 1 and (offsets[0] < 0 or offsets[-1] > len(array.values) or offsets[0] > offsets[-1]):
        raise ValueError(f"{_FROM_ARROW}: list offsets that decrease or leave the {len(array.values)} values")
    start = int(offsets[0])
    values = array.values
    if start or len(values) != int(offsets[-1]):
        values = values.slice(start, int(offsets[-1]) - start)
    if wide and not start:
        return buffer.slice(array.offset * 8, len(offsets) * 8), values
    rebased = offsets.astype(np.int64) - start
    rebased.flags.writeable = False  # a fresh array no one else holds: used in place
    return pa.py_buffer(rebased), values


def _writable(buffer):
    """Whether pyarrow Buffer `buffer`'s memory can be written: pyarrow marks
    a slice of a writable buffer immutable, so its parents are asked too."""
    while buffer is not None:
        if buffer.is_mutable:
            return True
        buffer = buffer.parent
    return False


def _flat_slice(array):
    """A one-dimensional DataSlice of the items of `array` (not a list level)."""
    kd = _kd()
    t = array.type
    if pa.types.is_dictionary(t):
        return _flat_slice(array.dictionary_decode())
    name = str(t)
    if name in _WIDENED:
        try:
            return _flat_slice(array.cast(_WIDENED[name]))
        except pa.ArrowInvalid as e:
            raise ValueError(f"{_FROM_ARROW}: {name} values do not fit {_WIDENED[name]}: {e}") from None
    if pa.types.is_string(t) or pa.types.is_binary(t):
        return _flat_slice(array.cast(pa.large_string() if pa.types.is_string(t) else pa.large_binary()))
    if pa.types.is_null(t):
        return kd.slice([None] * len(array))
    if pa.types.is_struct(t):
        fields = {t.field(i).name: _flat_slice(child) for i, child in enumerate(array.flatten())}
        return _with_validity(kd.new(**fields) if fields else kd.new_shaped(kd.shapes.new(len(array))), array)
    if pa.types.is_map(t):
        return _map_slice(array)
    if _is_list(t):
        offsets, values = _offsets_and_values(array)
        items = _plait.with_arrow_offsets(_flat_slice(values), [(offsets, len(array))])
        return _with_validity(kd.implode(items), array)
    if pa.types.is_union(t):
        return _union_slice(array)
    if name not in ("int32", "int64", "float", "double", "bool", "large_string", "large_binary"):
        raise ValueError(f"{_FROM_ARROW}: Arrow values of type {t} have no plait schema")
    buffers = array.buffers()
    validity = buffers[0] if array.null_count else None
    return _plait.slice_from_arrow(name, buffers[1:], array.offset, len(array), validity)


def _with_validity(ds, array):
    """`ds` with the items missing where `array` is null."""
    if not array.null_count:
        return ds
    return ds & (_flat_slice(array.is_valid()) == True)  # noqa: E712 - a pointwise comparison


def _map_slice(array):
    """Dicts from a map array: a list array of key-item structs."""
    kd = _kd()
    offsets, entries = _offsets_and_values(array)
    level = [(offsets, len(array))]
    keys, items = entries.flatten()
    keys = _plait.with_arrow_offsets(_flat_slice(keys), level)
    values = _plait.with_arrow_offsets(_flat_slice(items), level)
    return _with_validity(kd.dict(keys, values), array)


def _union_slice(array):
    """A union's items as OBJECT: each child's items put in place."""
    kd = _kd()
    type_ids = np.asarray(array.type_codes)
    dense = array.type.mode == "dense"
    offsets = np.asarray(array.offsets) if dense else np.arange(len(array))
    codes = array.type.type_codes
    result = kd.slice([None] * len(array), kd.OBJECT)
    for i, code in enumerate(codes):
        where = type_ids == code
        if not where.any():
            continue
        child = array.field(i).take(pa.array(offsets[where]))
        items = kd.to_object(_flat_slice(child))
        mask = _flat_slice(pa.array(where)) == True  # noqa: E712 - a pointwise comparison
        result = kd.coalesce(result, kd.inverse_select(items, mask))
    return result


def _arrow_c_array(self, requested_schema=None):
    """The Arrow PyCapsule interface: `to_arrow(self)`'s capsules."""
    return to_arrow(self).__arrow_c_array__(requested_schema)
