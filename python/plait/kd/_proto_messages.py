"""`kd.from_proto`, `kd.to_proto` and `kd.schema_from_proto`: protobuf
message objects and classes to Koda data and back (Koda has them at the top
level only, and not as operators). Messages are serialized (and results
parsed) by the `protobuf` package; the bytes and the message type's
descriptors go to the Rust codec of `kd.proto`."""

from plait import _plait
from plait.kd.proto import _descriptor_set, _protobuf


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
    fit the field's type (integers may widen and are range-checked, integers
    become floats, FLOAT32 fills float and FLOAT64 double fields, MASK is a
    true bool), entities become messages, lists
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
