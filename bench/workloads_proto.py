"""Benchmark workloads of kd.proto: converting 100k protobuf messages (a
message with scalars, a nested message, a repeated field and a map, here the
well-known google.protobuf.Struct / Value types and descriptor.proto's
FieldDescriptorProto, which koladata's C++ pool also has) to Koda data and
back, as message objects (kd.from_proto / kd.to_proto) and as serialized
bytes (kd.from_proto_bytes / kd.to_proto_bytes)."""

from google.protobuf import descriptor_pb2

from bench_common import on_both

PATH = "google.protobuf.FieldDescriptorProto"


def _message(i):
    m = descriptor_pb2.FieldDescriptorProto(
        name=f"field_{i}", number=i, label=1 + i % 3, type=1 + i % 18, type_name=f".pkg.T{i % 7}", json_name=f"f{i}", oneof_index=i % 4
    )
    m.options.packed = i % 2 == 0
    m.options.deprecated = i % 5 == 0
    if i % 3 == 0:
        m.options.targets.extend([1, 2, 3][: 1 + i % 3])
    return m


def workloads(scale, pkd, kkd):
    n = int(100_000 * scale)
    messages = [_message(i) for i in range(n)]
    data = [m.SerializeToString() for m in messages]
    state = {}

    def prepare(kd, name):
        x = kd.from_proto(messages)
        state[name] = (kd.slice(data), x)

    both = on_both(state, pkd, kkd)
    cls = descriptor_pb2.FieldDescriptorProto
    yield f"from_proto of {n:,} messages", both(lambda kd, s: kd.from_proto(messages)), prepare
    yield f"to_proto of {n:,} messages", both(lambda kd, s: kd.to_proto(s[1], cls)), None
    yield f"from_proto_bytes of {n:,} messages", both(lambda kd, s: kd.from_proto_bytes(s[0], PATH)), None
    yield f"to_proto_bytes of {n:,} messages", both(lambda kd, s: kd.to_proto_bytes(s[1], PATH)), None
