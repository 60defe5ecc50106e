"""kd.typing.SliceType, sizes and type_of: the text forms and the checks of
what a type is made of."""

import pytest

from plait import kd

T = kd.typing.SliceType
size = kd.typing.size


def test_text_forms():
    assert repr(T(kd.FLOAT32, ("n", kd.typing.RAGGED))) == "FLOAT32[n, *]"
    assert repr(T(kd.schema.new_schema(x=kd.INT32), ("n", "m"))) == "Entity(x=INT32)[n, m]"
    assert repr(T(kd.INT32, ())) == "INT32[]"
    assert repr(T()) == "?[...]"
    assert repr(T(kd.list_schema(kd.STRING), (3, kd.typing.UNKNOWN))) == "LIST[STRING][3, ?]"
    assert repr(T(kd.dict_schema(kd.STRING, kd.INT64), (size("n") * 2 + 1,))) == "DICT{STRING, INT64}[2*n + 1]"
    assert T(kd.INT32, ("n",)).schema == "INT32"


def test_dims_and_rank():
    t = T(kd.FLOAT32, ("n", 3, kd.typing.RAGGED, kd.typing.UNKNOWN))
    assert t.rank == 4
    assert t.dims == (size("n"), 3, kd.typing.RAGGED, kd.typing.UNKNOWN)
    assert T(kd.FLOAT32).rank is None and T(kd.FLOAT32).dims is None


def test_size_algebra_normal_form():
    n, m = size("n"), size("m")
    assert 2 * m + 1 == m + m + 1
    assert n != m
    assert repr(m - 3 * n - 4) == "m - 3*n - 4"
    assert repr(n - n) == "0"
    assert hash(n + 1) == hash(1 + n)
    assert T(kd.INT32, (2 * m + 1,)) == T(kd.INT32, (m + m + 1,))
    with pytest.raises(ValueError, match="not an affine size"):
        n * m
    with pytest.raises(ValueError, match="overflow"):
        n * (2**62) * 4


def test_bad_declarations_are_refused():
    with pytest.raises(ValueError, match="identifier"):
        size("2n")
    with pytest.raises(ValueError, match="reserved"):
        size("_pd_shp0")
    with pytest.raises(ValueError, match="reserved"):
        T(kd.INT32, ("_pd_shp1",))
    with pytest.raises(ValueError, match="negative"):
        T(kd.INT32, (-1,))
    with pytest.raises(TypeError, match="a dimension must be"):
        T(kd.INT32, (1.5,))
    with pytest.raises(ValueError, match="a dimension must fit in 64 bits, got 1180591620717411303424"):
        T(kd.INT32, (2**70,))
    with pytest.raises(ValueError, match="must fit in 64 bits"):
        kd.typing.size("n") + 2**70
    with pytest.raises(TypeError, match="schema must be a schema item"):
        T(kd.slice([1]), (1,))
    with pytest.raises(TypeError, match="takes no dims"):
        T("INT32", (1,))
    with pytest.raises(TypeError, match="schema must be a schema item"):
        T(1, (1,))
    with pytest.raises(TypeError, match="dims must be a tuple"):
        T(kd.INT32, "n")
    with pytest.raises(TypeError, match="must be a size or an int"):
        size("n") + "m"


def test_type_of_values():
    assert repr(kd.typing.type_of(kd.slice([[1, 2], [3]]))) == "INT32[2, *]"
    assert repr(kd.typing.type_of(kd.slice([[1, 2], [3, 4]]))) == "INT32[2, 2]"
    assert repr(kd.typing.type_of(kd.item("a"))) == "STRING[]"
    assert repr(kd.typing.type_of(kd.new(a=1.0, b=kd.new(c="x")))) == "Entity(a=FLOAT32, b=Entity(c=STRING))[]"
    assert repr(kd.typing.type_of(kd.list([1, 2]))) == "LIST[INT32][]"
    assert repr(kd.typing.type_of(kd.obj(a=1))) == "OBJECT[]"


def test_type_of_a_recursive_schema_stops():
    db = kd.mutable_bag()
    node = db.named_schema("Node", v=kd.INT32)
    node.next = node
    text = repr(kd.typing.type_of(node.new(v=1)))
    assert text.startswith("Entity(next=Entity(next=") and "next=?" in text
    assert "__" not in text
