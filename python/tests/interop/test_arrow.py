"""kd_ext.arrow (issue 8): jagged DataSlices to and from Arrow (nested
large-list arrays over primitive, struct, list, map and union arrays),
sharing buffers both ways, and the Arrow PyCapsule interface."""

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")

from plait import kd  # noqa: E402
from plait.kd_ext import arrow, npkd  # noqa: E402


@pytest.mark.parametrize("values", [
    [1, 2, 3], [[1, 2], [3], []], [[[1.5], [2.5, None]], []], [1.0, None], [], [[None, None]],
    ["a", None, "ccc"], [[b"x"], [None, b""]], [True, None, False], [[1, "a"], [None, 2.5, b"b", True]],
])
def test_round_trips(values):
    ds = kd.slice(values)
    array = arrow.to_arrow(ds)
    assert array.to_pylist() == values
    assert repr(arrow.from_arrow(array)) == repr(ds)


def test_types_and_items():
    assert arrow.to_arrow(kd.slice([[1, 2], [3]])).type == pa.large_list(pa.int32())
    assert arrow.to_arrow(kd.int64(kd.slice([1]))).type == pa.int64()
    assert arrow.to_arrow(kd.item(3)).to_pylist() == [3]
    assert repr(arrow.from_arrow(pa.array([[1, 2], [3]]))) == "DataSlice([[1, 2], [3]], schema: INT64, present: 3/3)"
    assert repr(arrow.from_arrow(pa.array([1.5, None], type=pa.float32()))) == (
        "DataSlice([1.5, None], schema: FLOAT32, present: 1/2)")
    assert arrow.from_arrow(pa.chunked_array([[1], [2, 3]])).to_py() == [1, 2, 3]
    sliced = pa.array([[1], [2, 3], [4]]).slice(1, 2)
    assert arrow.from_arrow(sliced).to_py() == [[2, 3], [4]]
    with pytest.raises(ValueError, match="missing lists cannot be dimensions"):
        arrow.from_arrow(pa.array([[1], None]))
    with pytest.raises(ValueError, match="kd_ext.arrow.from_arrow: Arrow values of type timestamp.* have no plait schema"):
        arrow.from_arrow(pa.array([1], type=pa.timestamp("s")))
    with pytest.raises(ValueError, match="DataSlices of ITEMID have no Arrow form"):
        arrow.to_arrow(kd.new_itemid_shaped(kd.shapes.new(0)))


def test_primitive_types():
    assert arrow.to_arrow(kd.slice(["a"])).type == pa.large_string()
    assert arrow.to_arrow(kd.slice([b"a"])).type == pa.large_binary()
    assert arrow.to_arrow(kd.slice([kd.present, None])).to_pylist() == [True, None]  # MASK: bool
    assert arrow.to_arrow(kd.slice([None, None], kd.STRING)).type == pa.large_string()
    assert arrow.to_arrow(kd.slice([None])).type == pa.null()
    assert repr(arrow.from_arrow(pa.array(["a", None]))) == "DataSlice(['a', None], schema: STRING, present: 1/2)"
    assert repr(arrow.from_arrow(pa.array([b"a"]))) == "DataSlice([b'a'], schema: BYTES, present: 1/1)"
    assert repr(arrow.from_arrow(pa.array([True, None]))) == "DataSlice([True, None], schema: BOOLEAN, present: 1/2)"
    assert repr(arrow.from_arrow(pa.array([None, None]))) == "DataSlice([None, None], schema: NONE, present: 0/2)"
    # Narrower types are widened; dictionary arrays decoded.
    assert repr(arrow.from_arrow(pa.array([1, None], type=pa.int8()))) == "DataSlice([1, None], schema: INT32, present: 1/2)"
    assert repr(arrow.from_arrow(pa.array([7], type=pa.uint32()))) == "DataSlice([7], schema: INT64, present: 1/1)"
    assert arrow.from_arrow(pa.array(["x", "y", "x"]).dictionary_encode()).to_py() == ["x", "y", "x"]
    with pytest.raises(ValueError, match="uint64 values do not fit int64"):
        arrow.from_arrow(pa.array([2**63], type=pa.uint64()))
    # Booleans and strings that start inside their buffers (sliced arrays).
    assert arrow.from_arrow(pa.array([True, False, None, True] * 3).slice(5, 6)).to_py() == [False, None, True, True, False, None]
    assert arrow.from_arrow(pa.array(["ab", None, "cde", "f"]).slice(1, 3)).to_py() == [None, "cde", "f"]
    assert arrow.from_arrow(pa.array([["a"], ["b", "c"], []]).slice(1)).to_py() == [["b", "c"], []]


def test_bad_text_is_refused():
    bad = pa.Array.from_buffers(pa.large_string(), 1, [None, pa.py_buffer(np.array([0, 2], dtype=np.int64)),
                                                       pa.py_buffer(b"\xff\xfe")])
    with pytest.raises(ValueError, match="kd_ext.arrow.from_arrow: a STRING value is not valid UTF-8"):
        arrow.from_arrow(bad)


def test_entities_lists_and_dicts():
    people = kd.new(name=kd.slice(["ann", "bob", None]), age=kd.slice([30, None, 5]),
                    tags=kd.implode(kd.slice([["a"], [], ["b", "c"]])))
    people = people & kd.slice([kd.present, kd.present, None])
    array = arrow.to_arrow(people)
    assert array.type == pa.struct([("age", pa.int32()), ("name", pa.large_string()), ("tags", pa.large_list(pa.large_string()))])
    assert array.to_pylist() == [{"age": 30, "name": "ann", "tags": ["a"]}, {"age": None, "name": "bob", "tags": []}, None]
    back = arrow.from_arrow(array)
    assert back.get_present_count().to_py() == 2
    assert back.age.to_py() == [30, None, None]
    assert back.tags[:].to_py() == [["a"], [], []]
    dicts = kd.dict(kd.slice([["a", "b"], ["c"]]), kd.slice([[1, 2], [3]]))
    array = arrow.to_arrow(dicts)
    assert array.type == pa.map_(pa.large_string(), pa.int32())
    back = arrow.from_arrow(array)
    assert back["b"].to_py() == [2, None]
    assert back.get_schema().get_key_schema() == kd.STRING
    # Lists inside a struct may be null: missing Koda lists.
    table = pa.array([{"xs": [1, 2]}, {"xs": None}, None], type=pa.struct([("xs", pa.list_(pa.int64()))]))
    back = arrow.from_arrow(table)
    assert kd.has(back).to_py() == [kd.present, kd.present, None]
    assert kd.has(back.xs).to_py() == [kd.present, None, None]
    assert back.xs[:].to_py() == [[1, 2], [], []]


def test_object_slices_and_unions():
    mixed = kd.slice([1, "a", None, 2.5])
    array = arrow.to_arrow(mixed)
    assert pa.types.is_union(array.type) and array.type.mode == "dense"
    assert array.to_pylist() == [1, "a", None, 2.5]
    assert repr(arrow.from_arrow(array)) == repr(mixed)
    assert arrow.to_arrow(kd.obj(kd.slice([1, None]))).type == pa.int32()  # one kind: no union
    objects = kd.obj(a=kd.slice([1, 2]))
    assert arrow.to_arrow(objects).to_pylist() == [{"a": 1}, {"a": 2}]
    sparse = pa.UnionArray.from_sparse(pa.array([0, 1, 0], type=pa.int8()),
                                       [pa.array([1, 2, 3]), pa.array(["x", "y", "z"])])
    assert arrow.from_arrow(sparse).to_py() == [1, "y", 3]


def test_text_buffers_are_shared_not_copied():
    built = pa.array(["alpha", "beta", None, "gamma"] * 100, type=pa.large_string())
    # Immutable buffers (here over bytes; IPC and memory-mapped reads alike)
    # are used in place.
    text = pa.Array.from_buffers(built.type, len(built), [pa.py_buffer(b.to_pybytes()) for b in built.buffers()],
                                 null_count=built.null_count)
    ds = arrow.from_arrow(text)
    again = arrow.to_arrow(ds)
    assert again.buffers()[1].address == text.buffers()[1].address  # offsets
    assert again.buffers()[2].address == text.buffers()[2].address  # bytes
    # Mutable ones (pyarrow's own allocations, writable through a memoryview)
    # are copied: a later write does not reach the slice.
    ds = arrow.from_arrow(built)
    memoryview(built.buffers()[2]).cast("B")[0] = ord("A")
    assert ds.to_py()[0] == "alpha" and built.to_pylist()[0] == "Alpha"
    assert arrow.to_arrow(kd.slice(["a", "b"])).buffers()[2].to_pybytes() == b"ab"


def test_values_and_offsets_are_shared_not_copied():
    ds = kd.slice([[1.0, 2.0], [3.0]] * 1000)
    array = arrow.to_arrow(ds)
    values = array.values
    assert values.buffers()[1].address == npkd.to_array(ds.flatten()).__array_interface__["data"][0]
    back = arrow.from_arrow(array)
    assert npkd.to_array(back.flatten()).__array_interface__["data"][0] == values.buffers()[1].address
    # The offsets are the shape's split points, shared too.
    offsets = np.frombuffer(array.buffers()[1], dtype=np.int64)
    assert offsets[:4].tolist() == [0, 2, 3, 5]
    assert arrow.to_arrow(back).buffers()[1].address == array.buffers()[1].address


def test_arrow_pycapsule_interface():
    ds = kd.slice([[1, 2], [3]])
    assert pa.array(ds).to_pylist() == [[1, 2], [3]]
    assert pa.array(kd.slice([1.5, None])).to_pylist() == [1.5, None]
