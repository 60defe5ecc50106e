"""kd.proto, kd.from_proto / kd.to_proto / kd.schema_from_proto: protobuf
messages to Koda data and back.

The message types are built here from a FileDescriptorProto added to
protobuf's default pool (every scalar type, nested messages, repeated
fields, maps, an enum, a oneof, a custom default and an extension), plus
protobuf's well-known types. Where koladata is installed each case also runs
on it and must give the same repr (ids and bag ids left out) or the same
error. koladata finds `proto_path` names only in its C++ pool, so the
`*_bytes` / `*_json` operators are compared on the well-known types.
"""

import re
import sys

import pytest

pytest.importorskip("google.protobuf")

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory  # noqa: E402
from google.protobuf import duration_pb2, struct_pb2, timestamp_pb2, wrappers_pb2  # noqa: E402

from plait import kd  # noqa: E402

F = descriptor_pb2.FieldDescriptorProto
SCALARS = [
    ("i32", F.TYPE_INT32),
    ("i64", F.TYPE_INT64),
    ("u32", F.TYPE_UINT32),
    ("u64", F.TYPE_UINT64),
    ("s32", F.TYPE_SINT32),
    ("s64", F.TYPE_SINT64),
    ("f32", F.TYPE_FIXED32),
    ("f64", F.TYPE_FIXED64),
    ("sf32", F.TYPE_SFIXED32),
    ("sf64", F.TYPE_SFIXED64),
    ("fl", F.TYPE_FLOAT),
    ("db", F.TYPE_DOUBLE),
    ("b", F.TYPE_BOOL),
    ("s", F.TYPE_STRING),
    ("by", F.TYPE_BYTES),
]


def _field(m, name, number, ty, label=F.LABEL_OPTIONAL, type_name=None, default=None, oneof=None):
    f = m.field.add(name=name, number=number, type=ty, label=label)
    if type_name:
        f.type_name = type_name
    if default is not None:
        f.default_value = default
    if oneof is not None:
        f.oneof_index = oneof
    return f


def _build():
    fdp = descriptor_pb2.FileDescriptorProto(name="plait_test_proto/t.proto", package="plait_test_proto", syntax="proto2")
    inner = fdp.message_type.add(name="Inner")
    _field(inner, "x", 1, F.TYPE_INT32)
    m = fdp.message_type.add(name="Msg")
    for i, (name, ty) in enumerate(SCALARS):
        _field(m, name, i + 1, ty)
    _field(m, "inner", 20, F.TYPE_MESSAGE, type_name=".plait_test_proto.Inner")
    _field(m, "rep", 21, F.TYPE_INT32, F.LABEL_REPEATED)
    _field(m, "rinner", 22, F.TYPE_MESSAGE, F.LABEL_REPEATED, ".plait_test_proto.Inner")
    _field(m, "dflt", 23, F.TYPE_INT32, default="7")
    e = m.enum_type.add(name="Color")
    e.value.add(name="RED", number=0)
    e.value.add(name="BLUE", number=5)
    _field(m, "color", 24, F.TYPE_ENUM, type_name=".plait_test_proto.Msg.Color")
    entry = m.nested_type.add(name="MEntry")
    entry.options.map_entry = True
    _field(entry, "key", 1, F.TYPE_STRING)
    _field(entry, "value", 2, F.TYPE_INT64)
    _field(m, "m", 25, F.TYPE_MESSAGE, F.LABEL_REPEATED, ".plait_test_proto.Msg.MEntry")
    entry = m.nested_type.add(name="MiEntry")
    entry.options.map_entry = True
    _field(entry, "key", 1, F.TYPE_INT32)
    _field(entry, "value", 2, F.TYPE_MESSAGE, type_name=".plait_test_proto.Inner")
    _field(m, "mi", 26, F.TYPE_MESSAGE, F.LABEL_REPEATED, ".plait_test_proto.Msg.MiEntry")
    m.oneof_decl.add(name="choice")
    _field(m, "c_int", 27, F.TYPE_INT32, oneof=0)
    _field(m, "c_str", 28, F.TYPE_STRING, oneof=0)
    _field(m, "packed", 29, F.TYPE_SINT64, F.LABEL_REPEATED).options.packed = True
    _field(m, "bool_dflt", 30, F.TYPE_BOOL, default="true")
    m.extension_range.add(start=100, end=200)
    fdp.extension.add(name="ext_i", number=100, type=F.TYPE_INT32, label=F.LABEL_OPTIONAL, extendee=".plait_test_proto.Msg")
    fdp.extension.add(
        name="ext_inner", number=101, type=F.TYPE_MESSAGE, label=F.LABEL_OPTIONAL, extendee=".plait_test_proto.Msg", type_name=".plait_test_proto.Inner"
    )
    pool = descriptor_pool.Default()
    try:
        pool.FindMessageTypeByName("plait_test_proto.Msg")
    except KeyError:
        pool.Add(fdp)

    def cls(name):
        return message_factory.GetMessageClass(pool.FindMessageTypeByName(name))

    return cls("plait_test_proto.Msg"), cls("plait_test_proto.Inner")


Msg, Inner = _build()
EXT_I = Msg.DESCRIPTOR.file.extensions_by_name["ext_i"]

ENV = {
    "Msg": Msg,
    "Inner": Inner,
    "Timestamp": timestamp_pb2.Timestamp,
    "Duration": duration_pb2.Duration,
    "Struct": struct_pb2.Struct,
    "Value": struct_pb2.Value,
    "ListValue": struct_pb2.ListValue,
    "Int64Value": wrappers_pb2.Int64Value,
    "FULL": Msg(
        i32=-1, i64=2**40, u32=2**32 - 1, u64=2**64 - 1, s32=-5, s64=-6, f32=7, f64=8, sf32=-9, sf64=-10, fl=1.5, db=2.25,
        b=True, s="é", by=b"\xff", inner=Inner(x=3), rep=[1, 2], rinner=[Inner(x=1), Inner()], color=5, m={"a": 1},
        mi={3: Inner(x=4)}, c_str="z", packed=[-1, 0, 300],
    ),
    "EXT_I": EXT_I,
    "TS": timestamp_pb2.Timestamp(seconds=10, nanos=5).SerializeToString(),
}


def norm(text):
    text = re.sub(r"[#$][0-9A-Za-z]{22}", "ID", text)
    text = re.sub(r", bag_id: \$[0-9a-f]+", "", text)
    # Koda names its internal operators, and its C++ descriptor pool.
    text = text.replace("kd.proto._from_proto", "kd.proto.from_proto")
    text = text.replace("C++ generated descriptor pool", "the default descriptor pool")
    text = re.sub(r"got (plait\.types|koladata\.types\.\w+)\.", "got ", text)
    text = re.sub(r"^kd\.(to_proto|from_proto|schema_from_proto): ", "", text)
    # Koda shows the offending values with their shape.
    return text.split(", but got ")[0].split(" but got ")[0]


def outcome(kd_module, expr):
    try:
        return "ok", norm(repr(eval(expr, {"kd": kd_module, **ENV})))
    except (ValueError, TypeError) as e:
        return "error", norm(str(e).split("\n")[0])


CASES = [
    # Every scalar type, nested and repeated messages, maps, enums, oneofs.
    "kd.from_proto(FULL).to_py(obj_as_dict=True)",
    "kd.from_proto(FULL).inner",
    "kd.from_proto(FULL).get_schema()",
    "kd.from_proto(FULL).mi[3]",
    "kd.from_proto(Msg())",
    "kd.from_proto(Msg(dflt=1, c_int=0))",
    "kd.from_proto(Msg(rinner=[Inner()])).rinner[:]",
    # Slices with missing items, nested lists, empty inputs.
    "kd.from_proto([Msg(i32=1), None, Msg()])",
    "kd.from_proto([[Msg(i32=1)], [None, Msg(i32=2)]])",
    "kd.from_proto((Msg(s='a'), Msg(s='b'))).s",
    "kd.from_proto([])",
    "kd.from_proto(None)",
    "kd.from_proto([None, None])",
    # proto3 fields without presence read as their zero value.
    "kd.from_proto(Timestamp())",
    "kd.from_proto([Timestamp(seconds=1), Timestamp(nanos=2)])",
    "kd.from_proto(Struct(fields={'a': Value(number_value=1.5)}))",
    "kd.from_proto(Value(bool_value=False))",
    "kd.from_proto(ListValue())",
    # Extensions by path.
    "kd.from_proto(Msg(i32=1), extensions=['(plait_test_proto.ext_i)'])",
    "kd.schema_from_proto(Msg, extensions=['(plait_test_proto.ext_inner)'])",
    "kd.from_proto(Msg(), extensions=['(plait_test_proto.nope)'])",
    "kd.from_proto(Msg(), extensions=['inner.(plait_test_proto.ext_i)'])",
    # schema=.
    "kd.from_proto(Msg(i32=1, inner=Inner(x=1), rep=[1], m={'a': 1}), schema=kd.OBJECT)",
    "kd.from_proto(Msg(i32=1, inner=Inner(x=1), rep=[1]), schema=kd.OBJECT).rep.get_obj_schema()",
    "kd.from_proto(Msg(i32=1, i64=5, inner=Inner(x=1)), schema=kd.schema.new_schema(i32=kd.INT64, inner=kd.OBJECT))",
    "kd.from_proto(Msg(i32=1), schema=kd.schema.new_schema(i32=kd.STRING))",
    # Schemas and their metadata.
    "kd.schema_from_proto(Msg)",
    "kd.schema_from_proto(Timestamp)",
    "kd.from_proto(Msg(i32=1)).get_schema() == kd.schema_from_proto(Msg)",
    "kd.proto.get_proto_full_name(kd.from_proto([Msg(), None]))",
    "kd.proto.get_proto_full_name(kd.schema_from_proto(Inner))",
    "kd.proto.get_proto_full_name(kd.new(a=1))",
    "kd.proto.get_proto_full_name(kd.item(None))",
    "kd.proto.get_proto_full_name(kd.slice([1, 2]))",
    "kd.proto.get_proto_field_custom_default(kd.from_proto([Msg(), None]), 'dflt')",
    "kd.proto.get_proto_field_custom_default(kd.schema_from_proto(Msg), 'bool_dflt')",
    "kd.proto.get_proto_field_custom_default(kd.schema_from_proto(Msg), 'i32')",
    "kd.get_proto_attr(kd.from_proto([Msg(dflt=1), Msg(), None]), 'dflt')",
    "kd.get_proto_attr(kd.from_proto([Msg(b=True), Msg(b=False), Msg()]), 'b')",
    "kd.get_proto_attr(kd.from_proto([Msg(i32=1), Msg()]), 'i32')",
    "kd.get_proto_attr(kd.new(a=True), 'a')",
    "kd.get_proto_attr(kd.from_proto(Msg()), 'zz')",
    # Converting back.
    "kd.to_proto(kd.from_proto(FULL), Msg) == FULL",
    "kd.to_proto(kd.from_proto([Msg(i32=1), None]), Msg)",
    "kd.to_proto(kd.from_proto([[Msg(i32=1)], [None]]), Msg)",
    "kd.to_proto(kd.slice([]), Msg)",
    "kd.to_proto(kd.item(None), Msg)",
    "kd.to_proto(kd.new(i32=1, zz=3, s='a', inner=kd.new(x=2), rep=kd.list([1, 2]), m=kd.dict({'a': 1})), Msg)",
    "kd.to_proto(kd.obj(i32=1, inner=kd.obj(x=2)), Msg)",
    "kd.to_proto(kd.new(fl=1, db=2, b=kd.present, u64=kd.int64(-1)), Msg)",
    "kd.to_proto(kd.new(u64=-1), Msg)",
    "kd.to_proto(kd.new(fl=kd.float64(1.5)), Msg)",
    "kd.to_proto(kd.new(db=kd.float32(1.5)), Msg)",
    "kd.to_proto(kd.new(fl=kd.int64(3), db=kd.float64(0.25)), Msg)",
    "kd.to_proto(kd.new(m=kd.dict({'b': None})), Msg)",
    "kd.to_proto(kd.new(**{'(plait_test_proto.ext_i)': 3}), Msg).Extensions[EXT_I]",
    "kd.to_proto(kd.item(1), Msg)",
    "kd.to_proto(kd.new(i32='a'), Msg)",
    "kd.to_proto(kd.new(s=1), Msg)",
    "kd.to_proto(kd.new(i32=kd.int64(2**40)), Msg)",
    "kd.to_proto(kd.new(i32=1.5), Msg)",
    "kd.to_proto(kd.new(i32=True), Msg)",
    "kd.to_proto(kd.new(u32=-1), Msg)",
    "kd.to_proto(kd.new(inner=1), Msg)",
    "kd.to_proto(kd.new(rep=kd.list([1, None, 2])), Msg)",
    # Errors of the Python glue.
    "kd.from_proto(1)",
    "kd.from_proto([Msg(), 1])",
    "kd.from_proto([[Msg()], [1]])",
    "kd.from_proto([Msg(), Inner()])",
    "kd.from_proto([Msg()], itemid=kd.new_itemid())",
    "kd.schema_from_proto(1)",
    "kd.to_proto(kd.new(x=1), int)",
    "kd.to_proto(kd.new(x=1), kd.item(1))",
    "kd.get_proto_attr(kd.item('a'), 'x')",
    "kd.get_proto_attr(kd.new(a=1), kd.obj(a=1))",
    # The operators, on types koladata's pool has.
    "kd.proto.from_proto_bytes(kd.slice([TS, None, b'']), 'google.protobuf.Timestamp')",
    "kd.from_proto_bytes(TS, 'google.protobuf.Timestamp')",
    "kd.from_proto_bytes(kd.slice([[TS], []]), 'google.protobuf.Timestamp').seconds",
    "kd.from_proto_bytes(kd.slice([TS]), 'google.protobuf.Timestamp', schema=kd.OBJECT)",
    "kd.from_proto_bytes(kd.slice([], schema=kd.BYTES), 'google.protobuf.Timestamp')",
    "kd.from_proto_bytes(kd.slice([None], schema=kd.BYTES), 'google.protobuf.Timestamp')",
    "kd.from_proto_bytes(kd.slice([TS, b'\\xff\\xff']), 'google.protobuf.Timestamp')",
    "kd.from_proto_bytes(kd.slice([TS, b'\\xff\\xff']), 'google.protobuf.Timestamp', on_invalid=-1)",
    "kd.from_proto_bytes(kd.slice([TS, b'\\xff\\xff']), 'google.protobuf.Timestamp', schema=kd.OBJECT, on_invalid=-1)",
    "kd.from_proto_bytes(kd.slice(['a']), 'google.protobuf.Timestamp')",
    "kd.from_proto_bytes(kd.slice([TS]), 'foo.Bar')",
    "kd.from_proto_bytes(kd.slice([TS]), kd.slice(['foo.Bar']))",
    "kd.from_proto_bytes(kd.slice([TS]), 1)",
    "kd.from_proto_bytes(Struct(fields={'a': Value(number_value=1.5)}).SerializeToString(), 'google.protobuf.Struct')",
    "kd.from_proto_bytes(ListValue(values=[Value(number_value=1.5), Value(string_value='x')]).SerializeToString(), 'google.protobuf.ListValue')",
    "kd.from_proto_bytes(b'', 'google.protobuf.EnumValueDescriptorProto')",
    "kd.proto.from_proto_json(kd.slice(['\"1970-01-01T00:00:10.000000005Z\"', None]), 'google.protobuf.Timestamp')",
    "kd.from_proto_json(kd.slice(['5']), 'google.protobuf.Int64Value')",
    "kd.from_proto_json(kd.slice(['{\"x\": 1}']), 'google.protobuf.Duration')",
    "kd.from_proto_json(kd.slice(['{\"x\": 1}']), 'google.protobuf.Duration', schema=kd.OBJECT, on_invalid=0)",
    "kd.schema_from_proto_path('google.protobuf.Struct')",
    "kd.proto.schema_from_proto_path('google.protobuf.Timestamp')",
    "kd.schema_from_proto_path('x.Y')",
    "kd.proto.to_proto_bytes(kd.from_proto_bytes(kd.slice([TS, None]), 'google.protobuf.Timestamp'), 'google.protobuf.Timestamp')",
    "kd.to_proto_bytes(kd.slice([1]), 'google.protobuf.Timestamp')",
    "kd.to_proto_bytes(kd.slice([None]), 'google.protobuf.Timestamp')",
    "kd.to_proto_bytes(kd.new(seconds='a'), 'google.protobuf.Timestamp')",
    "kd.to_proto_bytes(kd.new(seconds=1), 'x.Y')",
    "kd.proto.to_proto_json(kd.from_proto_bytes(kd.slice([TS, None]), 'google.protobuf.Timestamp'), 'google.protobuf.Timestamp')",
    "kd.to_proto_json(kd.new(seconds=1, nanos=2), 'google.protobuf.Duration')",
    "kd.to_proto_json(kd.new(value=5), 'google.protobuf.Int64Value')",
    "kd.to_proto_json(kd.from_proto(Struct(fields={'a': Value(number_value=1.5)})), 'google.protobuf.Struct')",
    "kd.lazy.proto.to_proto_bytes(kd.I.x, 'google.protobuf.Timestamp').eval(x=kd.new(seconds=1))",
    "kd.fn(lambda a: kd.from_proto_bytes(a, 'google.protobuf.Timestamp').seconds)(kd.slice([b'\\x08\\x07']))",
]


@pytest.mark.parametrize("expr", CASES)
def test_cases_against_koladata(koda, expr):
    ours = outcome(kd, expr)
    theirs = outcome(koda, expr)
    assert ours == theirs, expr


@pytest.mark.parametrize("expr", CASES)
def test_cases_run(expr):
    # Without koladata: every case runs to a value or a ValueError/TypeError.
    outcome(kd, expr)


def test_itemids_derive_from_the_given_ones():
    ids = kd.new_itemid()
    a = kd.from_proto(Msg(inner=Inner(x=1), rep=[1], rinner=[Inner()], m={"a": 1}), itemid=ids)
    b = kd.from_proto(Msg(inner=Inner(x=1), rep=[1], rinner=[Inner()], m={"a": 1}), itemid=ids)
    assert a.get_itemid() == ids
    for attr in ("inner", "rep", "rinner", "m"):
        assert a.get_attr(attr).get_itemid() == b.get_attr(attr).get_itemid()
    assert a.rinner[0].get_itemid() == b.rinner[0].get_itemid()
    assert a.rinner[0].get_itemid() != a.inner.get_itemid()
    c = kd.from_proto(Msg(inner=Inner(x=1)))
    assert c.inner.get_itemid() != a.inner.get_itemid()


def test_bytes_round_trip_of_a_message_of_the_default_pool():
    full = ENV["FULL"]
    data = kd.slice([full.SerializeToString(), None, Msg().SerializeToString()])
    x = kd.proto.from_proto_bytes(data, "plait_test_proto.Msg")
    assert x.S[0].i32.to_py() == -1 and x.S[0].u64.to_py() == -1 and x.S[1].to_py() is None
    back = kd.proto.to_proto_bytes(x, "plait_test_proto.Msg")
    assert Msg.FromString(back.S[0].to_py()) == full
    assert back.S[1].to_py() is None and back.S[2].to_py() == b""
    assert kd.to_proto(x, Msg) == [full, None, Msg()]
    # Packed and unpacked encodings of a repeated field read alike.
    unpacked = b"".join(b"\xe8\x01" + bytes([v]) for v in (2, 4))
    assert kd.from_proto_bytes(unpacked, "plait_test_proto.Msg").packed[:].to_py() == [1, 2]
    text = kd.proto.to_proto_json(x, "plait_test_proto.Msg")
    again = kd.proto.from_proto_json(text, "plait_test_proto.Msg")
    assert kd.to_proto(again, Msg) == [full, None, Msg()]


def test_extensions_round_trip():
    m = Msg(i32=1)
    m.Extensions[EXT_I] = 7
    x = kd.from_proto(m, extensions=["(plait_test_proto.ext_i)"])
    assert x.get_attr("(plait_test_proto.ext_i)").to_py() == 7
    assert kd.to_proto(x, Msg) == m
    assert "(plait_test_proto.ext_i)" not in kd.dir(kd.from_proto(m))


def test_invalid_bytes_take_on_invalid():
    data = kd.slice([b"\x08\x01", b"\x0a", None])
    with pytest.raises(ValueError, match="failed to parse input as a binary proto of type `plait_test_proto.Msg`"):
        kd.from_proto_bytes(data, "plait_test_proto.Msg")
    x = kd.from_proto_bytes(data, "plait_test_proto.Msg", schema=kd.OBJECT, on_invalid=kd.item("bad"))
    assert x.S[1].to_py() == "bad" and x.S[2].to_py() is None and x.S[0].i32.to_py() == 1
    # Invalid UTF-8 in a string field is invalid too.
    assert kd.from_proto_bytes(b"\x72\x01\xff", "plait_test_proto.Msg", on_invalid=kd.item(None)).to_py() is None


def test_wrong_message_class():
    with pytest.raises(ValueError, match="message cast from python to C.. failed, got type int"):
        kd.to_proto(kd.new(x=1), int)
    with pytest.raises(TypeError, match="to_proto expects message_class to be a proto class"):
        kd.to_proto(kd.new(x=1), kd.item(1))
    # Attributes the class does not have as fields are left out.
    assert kd.to_proto(kd.new(x=1, i32=2), Inner) == Inner(x=1)


def test_metadata_survives_extract_and_clone():
    x = kd.from_proto(Msg(inner=Inner(x=1)))
    for y in (kd.extract(x), kd.clone(x), kd.deep_clone(x)):
        assert kd.proto.get_proto_full_name(y).to_py() == "plait_test_proto.Msg"
        assert "__schema_metadata__=Obj(" in repr(y.get_schema())
    assert kd.dir(x) == ["inner"]


def test_missing_protobuf_names_the_operator(monkeypatch):
    for name in [m for m in sys.modules if m == "google.protobuf" or m.startswith("google.protobuf.")]:
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(ImportError, match="kd.from_proto needs the protobuf package"):
        kd.from_proto(None)
    with pytest.raises(ImportError, match="kd.schema_from_proto needs the protobuf package"):
        kd.schema_from_proto(Msg)
