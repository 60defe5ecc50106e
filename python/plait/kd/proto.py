"""`kd.proto`: protobuf messages to Koda data and back.

The operators (`from_proto_bytes`, `to_proto_json`, ...) are in the Rust
registry: they read and write the protobuf wire format themselves, column by
column, and find message types by full name in protobuf's default descriptor
pool through the hooks below. `kd.from_proto`, `kd.to_proto` and
`kd.schema_from_proto` take Python message objects and classes: they
serialize the messages (or parse the results) with the `protobuf` package
and hand the bytes and the message type's descriptors to the same Rust code.

The `protobuf` package is imported only when one of these is used.
"""

from plait import _plait
from plait.kd._operators import export as _export

_export(globals(), "kd.proto")

# The modules of protobuf's well-known types, loaded into the default pool
# when a full name is not found there yet.
_WELL_KNOWN = (
    "any_pb2",
    "api_pb2",
    "descriptor_pb2",
    "duration_pb2",
    "empty_pb2",
    "field_mask_pb2",
    "source_context_pb2",
    "struct_pb2",
    "timestamp_pb2",
    "type_pb2",
    "wrappers_pb2",
)


def _protobuf(op):
    """The protobuf modules, or an ImportError naming `op`."""
    try:
        from google.protobuf import descriptor_pool, json_format, message, message_factory
    except ImportError as e:
        raise ImportError(f"{op} needs the protobuf package: pip install protobuf (or plait[proto])") from e
    return descriptor_pool, json_format, message, message_factory


def _varint(n):
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


_SETS = {}


def _descriptor_set(descriptor):
    """A serialized FileDescriptorSet with the file of message type
    `descriptor`, its dependencies, and the files of the extensions its pool
    knows for the message types reachable from it (cached per type)."""
    key = (id(descriptor.file.pool), descriptor.full_name)
    cached = _SETS.get(key)
    if cached is not None and cached[0] is descriptor:
        return cached[1]
    pool = descriptor.file.pool
    files = {}

    def add_file(f):
        if f.name in files:
            return
        for dep in f.dependencies:
            add_file(dep)
        files[f.name] = f.serialized_pb

    seen = set()
    stack = [descriptor]
    while stack:
        d = stack.pop()
        if d.full_name in seen:
            continue
        seen.add(d.full_name)
        add_file(d.file)
        try:
            extensions = pool.FindAllExtensions(d)
        except Exception:  # noqa: BLE001 - a pool that cannot list extensions has none to add
            extensions = []
        for ext in extensions:
            add_file(ext.file)
            if ext.message_type is not None:
                stack.append(ext.message_type)
        for field in d.fields:
            if field.message_type is not None:
                stack.append(field.message_type)
    out = b"".join(b"\x0a" + _varint(len(b)) + b for b in files.values())
    _SETS[key] = (descriptor, out)
    return out


def _find(full_name, op="kd.proto"):
    """The descriptor of message type `full_name` in the default pool, or None."""
    descriptor_pool, _, _, _ = _protobuf(op)
    pool = descriptor_pool.Default()
    try:
        return pool.FindMessageTypeByName(full_name)
    except KeyError:
        pass
    import importlib

    for name in _WELL_KNOWN:
        try:
            importlib.import_module(f"google.protobuf.{name}")
        except ImportError:
            continue
    try:
        return pool.FindMessageTypeByName(full_name)
    except KeyError:
        return None


def _host_descriptors(full_name):
    descriptor = _find(full_name)
    return None if descriptor is None else _descriptor_set(descriptor)


def _message_class(full_name):
    _, _, _, message_factory = _protobuf("kd.proto")
    return message_factory.GetMessageClass(_find(full_name))


def _host_json_to_binary(full_name, texts):
    _, json_format, _, _ = _protobuf("kd.proto.from_proto_json")
    cls = _message_class(full_name)
    out = []
    for text in texts:
        try:
            out.append(json_format.Parse(text, cls()).SerializePartialToString())
        except Exception:  # noqa: BLE001 - any parse failure makes the text invalid
            out.append(None)
    return out


def _host_binary_to_json(full_name, messages):
    import json

    _, json_format, _, _ = _protobuf("kd.proto.to_proto_json")
    cls = _message_class(full_name)
    out = []
    for data in messages:
        m = cls()
        m.MergeFromString(data)
        out.append(json.dumps(json_format.MessageToDict(m), separators=(",", ":"), ensure_ascii=False))
    return out


def _nested_none(x):
    """The nesting of lists/tuples `x` with None leaves."""
    if isinstance(x, (list, tuple)):
        return [_nested_none(v) for v in x]
    return None


def _flatten(x, out):
    if isinstance(x, (list, tuple)):
        for v in x:
            _flatten(v, out)
    else:
        out.append(x)
    return out


def _unflatten(shape, it):
    return [_unflatten(s, it) for s in shape] if shape is not None else next(it)


def from_proto(messages, /, *, extensions=None, itemid=None, schema=None):
    """Converts protobuf messages to Koda entities.

    `messages` is a message, or a (nested) list or tuple of messages of one
    type (None gives a missing item). Each message becomes an entity whose
    attributes are the message's set fields: scalars as Koda primitives
    (int32, sint32, sfixed32 and enums as INT32; other integers, unsigned
    ones included, as INT64; float FLOAT32; double FLOAT64; bool BOOLEAN;
    string STRING; bytes BYTES), messages as entities, repeated fields as
    lists and maps as dicts. Unset fields are missing (fields without
    presence, as in proto3, read as their zero value). The schema is a uu
    schema derived from the message type's full name, holding the fields
    set in the messages, with the full name and the fields' custom defaults
    in its metadata (`kd.proto.get_proto_full_name`).

    Extensions are read where `extensions` names them: paths of field names
    ending in a parenthesized extension name, e.g. `'(pkg.ext)'`,
    `'child.(pkg.ext)'`, `'map_field.values.(pkg.ext)'`; their attributes
    are named `(pkg.ext)`.

    Args:
      messages: a message or nested list/tuple of messages of one type.
      extensions: extension paths to read.
      itemid: ItemIds for the top-level messages (the shape of `messages`);
        the ids of everything inside derive from them, so converting the
        same messages again gives the same ids.
      schema: the schema of the result: OBJECT for objects, or an entity
        schema (its attributes are the fields read, cast to their schemas).

    Examples:
      >>> from google.protobuf import timestamp_pb2
      >>> x = kd.from_proto([timestamp_pb2.Timestamp(seconds=3), None])
      >>> x.seconds
      DataSlice([3, None], schema: INT64, present: 1/2, bag_id: ...)
      >>> kd.proto.get_proto_full_name(x.S[0])
      DataItem('google.protobuf.Timestamp', schema: STRING, bag_id: ...)
    """
    _, _, message, _ = _protobuf("kd.from_proto")
    from plait import kd

    shape_list = _nested_none(messages)
    flat = _flatten(messages, [])
    rank = 0 if shape_list is None else None
    kind = None
    for i, m in enumerate(flat):
        if m is None:
            continue
        if not isinstance(m, message.Message):
            if rank == 0:
                where = ""
            elif all(v is None or not isinstance(v, (list, tuple)) for v in (messages or [])) and isinstance(messages, (list, tuple)):
                where = f"list containing type {type(m)} at index {i} with value {m}"
            else:
                where = f"nested list containing type {type(m)} at leaf index {i} with value {m}"
            if not where:
                raise ValueError(f"messages must be Message or nested list of Message, got type {type(m)} with value {m}")
            raise ValueError(f"messages must be Message or nested list of Message, got {where}")
        if kind is None:
            kind = m.DESCRIPTOR
        elif m.DESCRIPTOR is not kind and m.DESCRIPTOR.full_name != kind.full_name:
            raise ValueError(f"expected all messages to have the same type, got {kind.full_name} and {m.DESCRIPTOR.full_name}")
    shape = kd.slice(shape_list).get_shape()
    if itemid is not None:
        if itemid.get_shape() != shape:
            raise ValueError(f"itemid must match the shape of messages, got {itemid.get_shape()} != {shape}")
        itemid = itemid.flatten()
    if kind is None:
        # No message: nothing tells the type.
        result = kd.slice(shape_list, schema=schema if schema is not None else kd.OBJECT)
        return result.with_bag(kd.bag())
    data = [None if m is None else m.SerializePartialToString() for m in flat]
    result = _plait.proto_from_messages(data, _descriptor_set(kind), kind.full_name, list(extensions or []), itemid, schema)
    return kd.reshape(result, shape)


def to_proto(x, /, message_class):
    """Converts the entities or objects of `x` to protobuf messages.

    A DataItem gives one message (None when missing), a DataSlice nested
    Python lists of messages of its shape. Attributes named as fields of
    `message_class` become those fields (others are ignored; `(pkg.ext)`
    attributes become extensions the descriptor pool knows): primitives must
    fit the field's type (integers may widen and be range-checked, numbers
    become floats, MASK is a true bool), entities become messages, lists
    repeated fields (without missing items) and dicts maps.

    Args:
      x: a DataSlice of entities or objects.
      message_class: the message class to make.

    Examples:
      >>> from google.protobuf import timestamp_pb2
      >>> kd.to_proto(kd.new(seconds=3, nanos=5), timestamp_pb2.Timestamp)
      seconds: 3
      nanos: 5
      <BLANKLINE>
      >>> kd.to_proto(kd.slice([kd.new(seconds=1), None]), timestamp_pb2.Timestamp)
      [seconds: 1
      , None]
    """
    _, _, message, _ = _protobuf("kd.to_proto")
    from plait import kd

    if not isinstance(message_class, type):
        kind = type(message_class)
        raise TypeError(f"to_proto expects message_class to be a proto class, got {kind.__module__}.{kind.__qualname__}")
    if not issubclass(message_class, message.Message):
        raise ValueError(f"message cast from python to C++ failed, got type {message_class.__name__}")
    descriptor = message_class.DESCRIPTOR
    flat = _plait.proto_to_messages(x.flatten(), _descriptor_set(descriptor), descriptor.full_name, "kd.to_proto")
    parse = message_class.FromString
    messages = [None if b is None else parse(b) for b in flat]
    if x.get_ndim() == 0:
        return messages[0]
    shape = (x & kd.missing).to_py()
    return _unflatten(shape, iter(messages))


def schema_from_proto(message_class, /, *, extensions=None):
    """Returns the Koda schema of protobuf message class `message_class`.

    The uu schema `kd.from_proto` gives messages of this type, with every
    field of it (and of the message types it holds) and the extensions
    named by `extensions` (paths as `kd.from_proto` takes them).

    Args:
      message_class: a protobuf message class.
      extensions: extension paths to add.

    Examples:
      >>> from google.protobuf import timestamp_pb2
      >>> kd.schema_from_proto(timestamp_pb2.Timestamp)
      DataItem(ENTITY(
        nanos=INT32,
        seconds=INT64,
        __schema_metadata__=Obj(__proto_schema_metadata_full_name__='google.protobuf.Timestamp'),
      ), schema: SCHEMA, bag_id: ...)
    """
    _protobuf("kd.schema_from_proto")
    descriptor = message_class().DESCRIPTOR
    return _plait.proto_schema(_descriptor_set(descriptor), descriptor.full_name, list(extensions or []))
