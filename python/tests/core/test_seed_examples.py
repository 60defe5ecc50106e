"""Every example of seed 000's JaggedShape and Schema sections, with the stated outputs."""

import pytest

from plait import kd

# --- JaggedShape -------------------------------------------------------------


def test_three_dimensional_shape_repr_and_sizes():
    x = kd.slice([[["a", "b"], ["c"]], [["d", "e", "f"]]])
    assert repr(x.get_shape()) == "JaggedShape(2, [2, 1], [2, 1, 3])"
    assert kd.shapes.get_sizes(x).to_py() == [[2], [2, 1], [2, 1, 3]]
    assert x.get_shape().rank() == 3


def test_broadcasting_prefix_rules():
    ds_1 = kd.slice(["a", "b"])
    ds_2 = kd.slice([["c", "d", "e"], ["f", "g", "h"]])
    assert repr(ds_1.get_shape()) == "JaggedShape(2)"
    assert repr(ds_2.get_shape()) == "JaggedShape(2, 3)"
    out = kd.expand_to_shape(ds_1, ds_2.get_shape())
    assert out.to_py() == [["a", "a", "a"], ["b", "b", "b"]]

    with pytest.raises(ValueError, match=r"shape=JaggedShape\(2, 3\) cannot be expanded to shape=JaggedShape\(2\)"):
        kd.expand_to_shape(ds_2, ds_1.get_shape())

    ds_3 = kd.slice(["a", "b", "c"])
    with pytest.raises(ValueError, match=r"shape=JaggedShape\(3\) cannot be expanded to shape=JaggedShape\(2, 3\)"):
        kd.expand_to_shape(ds_3, ds_2.get_shape())


def test_queries_and_docs():
    queries = kd.slice(["query_1", "query_2"])
    docs = kd.slice([["doc_1", "doc_2"], ["doc_3"]])
    assert kd.expand_to(queries, docs).to_py() == [["query_1", "query_1"], ["query_2"]]


def test_indexing_steps():
    x = kd.slice([["a", "b"], ["c"], ["d", "e", "f"]])
    assert repr(x.get_shape()) == "JaggedShape(3, [2, 1, 3])"
    row = x.S[2, ...]
    assert row.to_py() == ["d", "e", "f"]
    assert kd.shapes.get_sizes(row).to_py() == [[3]]
    assert repr(row.S[1]) == "DataItem('e', schema: STRING)"
    assert repr(x.S[2, 1]) == "DataItem('e', schema: STRING)"
    assert kd.shapes.get_sizes(x.S[2, 1]).to_py() == []


def test_split_points_and_edges():
    shape = kd.shapes.new(3, [2, 1, 3])
    # Split points [[0, 3], [0, 2, 3, 6]]: the parent of each item of a dimension.
    assert kd.shapes.dim_mapping(shape, 1).to_py() == [0, 0, 1, 2, 2, 2]
    assert kd.shapes.dim_sizes(shape, 1).to_py() == [2, 1, 3]
    # Edges: parent_size of dim 0 is 1; child_size of dim i is parent_size of dim i+1.
    x = kd.slice([[["a", "b"], ["c"]], [["d", "e", "f"]]])
    sizes = kd.shapes.get_sizes(x).to_py()
    assert [len(s) for s in sizes] == [1, 2, 3]
    assert [sum(s) for s in sizes] == [2, 3, 6]


def test_flatten_shape_api():
    x = kd.slice([[["a", "b"], ["c"]], [["d", "e", "f"]]])
    assert repr(kd.shapes.flatten(x, 1, 3).get_shape()) == "JaggedShape(2, 3)"
    assert repr(kd.flatten(x).get_shape()) == "JaggedShape(6)"
    assert repr(kd.flatten(x, 1, 1).get_shape()) == "JaggedShape(2, 1, [2, 1], [2, 1, 3])"


# --- Schema ------------------------------------------------------------------


def test_schema_and_with_schema():
    ds = kd.slice([1, 2])
    assert ds.get_schema() is not None
    assert str(ds.get_schema()) == "INT32"
    assert str(kd.cast_to(ds, kd.INT64).get_schema()) == "INT64"
    assert str(ds.with_schema(kd.OBJECT).get_schema()) == "OBJECT"


def test_object_slice_of_mixed_values():
    ds = kd.slice([1, "abc", 2.0])
    assert str(ds.get_schema()) == "OBJECT"


@pytest.mark.parametrize(
    ("a", "b", "common"),
    [
        ("INT32", "INT64", "INT64"),
        ("INT32", "FLOAT64", "FLOAT64"),
        ("INT32", "MASK", "OBJECT"),
        ("INT64", "FLOAT32", "FLOAT32"),
        ("FLOAT32", "FLOAT64", "FLOAT64"),
        ("NONE", "STRING", "STRING"),
        ("BYTES", "STRING", "OBJECT"),
        ("EXPR", "BOOLEAN", "OBJECT"),
        ("OBJECT", "INT32", "OBJECT"),
    ],
)
def test_lattice(a, b, common):
    got = kd.schema.common_schema(kd.slice([getattr(kd, a), getattr(kd, b)]))
    assert str(got) == common


@pytest.mark.parametrize(("a", "b"), [("INT32", "ITEMID"), ("SCHEMA", "INT32"), ("ITEMID", "OBJECT")])
def test_lattice_has_no_common_schema(a, b):
    with pytest.raises(ValueError, match="cannot find a common schema"):
        kd.schema.common_schema(kd.slice([getattr(kd, a), getattr(kd, b)]))


def test_implicit_casting_examples():
    assert repr(kd.slice([1, 2.0])) == "DataSlice([1.0, 2.0], schema: FLOAT32, present: 2/2)"
    assert str(kd.schema.common_schema(kd.slice([kd.INT32, kd.INT64]))) == "INT64"
    assert repr(kd.schema.cast_to_implicit(kd.int32(1), kd.INT64)) == "DataItem(1, schema: INT64)"
    with pytest.raises(ValueError, match="unsupported implicit cast from INT64 to INT32"):
        kd.schema.cast_to_implicit(kd.int64(1), kd.INT32)


def test_explicit_casting_examples():
    assert repr(kd.int32(kd.float32(1.9))) == "DataItem(1, schema: INT32)"
    assert repr(kd.slice([1, 2], schema=kd.INT64)) == "DataSlice([1, 2], schema: INT64, present: 2/2)"
    with pytest.raises(ValueError, match=r"cannot cast int64\{1099511627776\} to int32"):
        kd.int32(2**40)


def test_narrowing():
    obj = kd.item(1, schema=kd.OBJECT)
    assert repr(kd.schema.cast_to_narrow(obj, kd.INT64)) == "DataItem(1, schema: INT64)"
    with pytest.raises(ValueError):
        kd.schema.cast_to_implicit(obj, kd.INT64)
    with pytest.raises(ValueError):
        kd.schema.cast_to_narrow(kd.item("a", schema=kd.OBJECT), kd.INT64)


def test_agg_common_schema():
    schemas = kd.slice([[kd.INT32, kd.FLOAT32], [kd.INT64, kd.MASK]])
    assert kd.schema.agg_common_schema(schemas).to_py()[0].to_py() is not None
    assert [str(s) for s in kd.to_pylist(kd.schema.agg_common_schema(schemas))] == ["FLOAT32", "OBJECT"]


# --- Boxing ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1, "DataItem(1, schema: INT32)"),
        (2**31, "DataItem(2147483648, schema: INT64)"),
        (2**64 + 5, "DataItem(5, schema: INT64)"),
        (2**63, "DataItem(-9223372036854775808, schema: INT64)"),
        (1.5, "DataItem(1.5, schema: FLOAT32)"),
        # Seed 000: floats whose magnitude does not fit FLOAT32 fall back to FLOAT64.
        (1e300, "DataItem(1e300, schema: FLOAT64)"),
        (True, "DataItem(True, schema: BOOLEAN)"),
        (b"ab", "DataItem(b'ab', schema: BYTES)"),
        ("ab", "DataItem('ab', schema: STRING)"),
        (None, "DataItem(None, schema: NONE)"),
    ],
)
def test_scalar_boxing(value, expected):
    assert repr(kd.item(value)) == expected


def test_numpy_scalars_keep_their_width():
    np = pytest.importorskip("numpy")
    assert repr(kd.item(np.int32(1))) == "DataItem(1, schema: INT32)"
    assert repr(kd.item(np.int64(1))) == "DataItem(1, schema: INT64)"
    assert repr(kd.item(np.float32(0.5))) == "DataItem(0.5, schema: FLOAT32)"
    assert repr(kd.item(np.float64(0.5))) == "DataItem(0.5, schema: FLOAT64)"
    assert repr(kd.item(np.bool_(True))) == "DataItem(True, schema: BOOLEAN)"
    assert repr(kd.slice(np.array([[1, 2], [3, 4]], dtype=np.int64))) == (
        "DataSlice([[1, 2], [3, 4]], schema: INT64, present: 4/4)"
    )


def test_slice_boxing():
    assert str(kd.slice([1, 2.0]).get_schema()) == "FLOAT32"
    assert repr(kd.slice([])) == "DataSlice([], schema: NONE, present: 0/0)"
    x = [1, None, 3, 4]
    for i in range(len(x) + 1):
        left, right = kd.slice(x[:i]), kd.slice(x[i:])
        assert str(left.get_schema()) in ("INT32", "NONE") and str(right.get_schema()) in ("INT32", "NONE")
    assert repr(kd.slice([0.1, 1e300])) == "DataSlice([0.1, 1e300], schema: FLOAT64, present: 2/2)"
    assert repr(kd.slice([0.1], schema=kd.FLOAT64)) == "DataSlice([0.1], schema: FLOAT64, present: 1/1)"


def test_flatten_on_a_shape_as_the_seed_shows():
    shape = kd.slice([[["a", "b"], ["c"]], [["d", "e", "f"]]]).get_shape()
    assert repr(kd.shapes.flatten(shape, from_dim=1, to_dim=3)) == "JaggedShape(2, 3)"
    assert repr(kd.shapes.flatten(shape)) == "JaggedShape(6)"
    assert repr(kd.shapes.flatten(shape, -1)) == "JaggedShape(2, [2, 1], [2, 1, 3])"


def test_edges_as_the_seed_shows():
    shape = kd.shapes.new(2, [2, 1], [2, 1, 3])
    assert [repr(e) for e in shape.edges()] == [
        "Edge(split_points=[0, 2], parent_size=1, child_size=2)",
        "Edge(split_points=[0, 2, 3], parent_size=2, child_size=3)",
        "Edge(split_points=[0, 2, 3, 6], parent_size=3, child_size=6)",
    ]
    # Split points of JaggedShape(3, [2, 1, 3]) are [[0, 3], [0, 2, 3, 6]].
    assert [e.split_points() for e in kd.shapes.new(3, [2, 1, 3]).edges()] == [[0, 3], [0, 2, 3, 6]]
    # dim[0].parent_size() == 1; dim[i].child_size() == dim[i + 1].parent_size().
    edges = shape.edges()
    assert edges[0].parent_size() == 1
    assert all(a.child_size() == b.parent_size() for a, b in zip(edges, edges[1:]))
    rebuilt = kd.types.JaggedShape.from_edges(*(kd.types.Edge.from_split_points(e.split_points()) for e in edges))
    assert rebuilt == shape
    with pytest.raises(ValueError, match="dimension 1 has 3 parent"):
        kd.types.JaggedShape.from_edges(kd.types.Edge.from_sizes([2]), kd.types.Edge.from_sizes([1, 1, 1]))
    with pytest.raises(ValueError, match="must start with 0"):
        kd.types.Edge.from_split_points([1, 2])
