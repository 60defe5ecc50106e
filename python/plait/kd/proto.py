"""`kd.proto`: protobuf messages to Koda data and back.

The operators (`from_proto_bytes`, `to_proto_json`, ...) are in the Rust
registry: they read and write the protobuf wire format themselves, column by
column, and find message types by full name in protobuf's default descriptor
pool through the hooks below. `kd.from_proto`, `kd.to_proto` and
`kd.schema_from_proto` (in `_proto_messages`) take Python message objects and
classes and hand their bytes and descriptors to the same Rust code.

The `protobuf` package is imported only when one of these is used.
"""

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
