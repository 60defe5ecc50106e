"""`kd.get_attr`, `kd.maybe` and `kd.has_attr` with a name per item (a
STRING DataSlice as `attr_name`), and their checks of `attr_name`; the
values are koladata's."""

import pytest

from plait import kd


def test_one_name_per_item():
    e = kd.new(a=1, b="x", c=2)
    assert kd.get_attr(e, kd.slice(["a", "c"])).to_py() == [1, 2]
    assert kd.get_attr(e, kd.slice(["a", "c"])).get_schema() == kd.INT32
    # Attributes of different primitive schemas meet in OBJECT.
    mixed = kd.get_attr(e, kd.slice(["a", "b"]))
    assert mixed.to_py() == [1, "x"] and mixed.get_schema() == kd.OBJECT
    # The method is the operator.
    assert e.get_attr(kd.slice(["b", "a"])).to_py() == ["x", 1]


def test_names_broadcast_with_x():
    e = kd.new(a=kd.slice([1, 2]))
    assert kd.get_attr(e, kd.slice([["a"], ["a", "a"]])).to_py() == [[1], [2, 2]]
    with pytest.raises(ValueError, match="shapes are not compatible"):
        kd.get_attr(kd.slice([kd.obj(a=1), kd.obj(a=2)]), kd.slice(["a"]))


def test_missing_names_and_items():
    e = kd.new(a=1)
    assert kd.get_attr(e, kd.slice(["a", None])).to_py() == [1, None]
    none = kd.get_attr(e, kd.slice([None, None], kd.STRING))
    assert none.get_schema() == kd.NONE and none.to_py() == [None, None]
    assert kd.get_attr(e, kd.slice([], kd.STRING)).to_py() == []
    assert kd.maybe(kd.slice([e, None]), kd.slice(["a", "b"])).to_py() == [1, None]


def test_absent_attributes():
    e = kd.new(a=1)
    with pytest.raises(ValueError, match="the attribute 'z' is missing on the schema"):
        kd.get_attr(e, kd.slice(["a", "z"]))
    assert kd.maybe(e, kd.slice(["a", "z"])).to_py() == [1, None]
    with_default = kd.get_attr(e, kd.slice(["a", "z"]), "q")
    assert with_default.to_py() == [1, "q"] and with_default.get_schema() == kd.OBJECT
    objs = kd.slice([kd.obj(a=1), kd.obj(b=2.0)])
    assert kd.get_attr(objs, kd.slice(["b", "a"]), 0).to_py() == [0, 0]
    assert kd.has_attr(objs, kd.slice([["a", "b"], ["b"]])).to_py() == [[kd.present, None], [kd.present]]
    assert kd.has_attr(objs, kd.slice([None, None], kd.STRING)).get_schema() == kd.MASK


def test_error_points_at_the_item_of_the_input():
    objs = kd.slice([kd.obj(b=1), kd.obj(a=1), kd.obj(b=2)])
    with pytest.raises(ValueError, match=r"ds\.flatten\(\)\.S\[2\]"):
        kd.get_attr(objs, kd.slice(["b", "a", "a"]))


def test_parts_of_different_numeric_schemas_are_promoted():
    e = kd.new(a=1, d=kd.int64(3), f=1.5)
    assert kd.get_attr(e, kd.slice(["a", "d"])).get_schema() == kd.INT64
    assert kd.get_attr(e, kd.slice(["a", "f"])).to_py() == [1.0, 1.5]
    with pytest.raises(ValueError, match="no common schema"):
        kd.get_attr(kd.new(a=1, n=kd.new(z=1)), kd.slice(["a", "n"]))


@pytest.mark.parametrize(
    ("name", "message"),
    [
        (kd.item(1), "argument `attr_name` must be an item holding STRING, got an item of INT32"),
        (kd.item(None), "argument `attr_name` must be an item holding STRING, got missing"),
        (kd.obj(1), "argument `attr_name` must be an item holding STRING, got an item of OBJECT containing INT32 values"),
        (kd.slice([1]), "argument `attr_name` must be a slice of STRING, got a slice of INT32"),
        (kd.INT32, "argument `attr_name` must be an item holding STRING, got an item of SCHEMA"),
    ],
)
def test_attr_name_checks(name, message):
    for op in (kd.get_attr, kd.maybe, kd.has_attr):
        with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
            op(kd.new(a=1), name)
