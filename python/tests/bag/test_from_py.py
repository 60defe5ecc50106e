"""kd.from_py (issue 4): Python lists, tuples, dicts and primitives as Koda
data, `dict_as_obj`, `from_dim`, `schema=`. Expected texts were checked
against koladata 0.0.4 (bag ids removed)."""

import dataclasses
import re

import pytest

from plait import kd


def text(x):
    return re.sub(r", bag_id: \$[0-9a-f]{4}", "", repr(x))


@pytest.mark.parametrize("value, expected", [
    (1, "DataItem(1, schema: OBJECT)"),
    (None, "DataItem(None, schema: OBJECT)"),
    ("a", "DataItem('a', schema: OBJECT)"),
    (1.5, "DataItem(1.5, schema: OBJECT)"),
    (b"x", "DataItem(b'x', schema: OBJECT)"),
    ([1, 2, 3], "DataItem(List[1, 2, 3], schema: OBJECT)"),
    ((1, 2), "DataItem(List[1, 2], schema: OBJECT)"),
    ([[1, 2], [3]], "DataItem(List[List[1, 2], List[3]], schema: OBJECT)"),
    ([1, "a", None], "DataItem(List[1, 'a', None], schema: OBJECT)"),
    ([[1], "a"], "DataItem(List[List[1], 'a'], schema: OBJECT)"),
    ([], "DataItem(List[], schema: OBJECT)"),
    ({}, "DataItem(Dict{}, schema: OBJECT)"),
    ({"a": 1}, "DataItem(Dict{'a'=1}, schema: OBJECT)"),
    ({"a": {"b": [1, 2]}}, "DataItem(Dict{'a'=Dict{'b'=List[1, 2]}}, schema: OBJECT)"),
    ([{"a": 1}, {"b": 2}], "DataItem(List[Dict{'a'=1}, Dict{'b'=2}], schema: OBJECT)"),
    ([kd.item(1), 2], "DataItem(List[1, 2], schema: OBJECT)"),
])
def test_objects_by_default(value, expected):
    assert text(kd.from_py(value)) == expected


def test_schemas_of_the_converted_containers():
    assert text(kd.from_py([1, 2]).get_obj_schema()) == "DataItem(LIST[OBJECT], schema: SCHEMA)"
    assert text(kd.from_py({"a": 1}).get_obj_schema()) == "DataItem(DICT{OBJECT, OBJECT}, schema: SCHEMA)"
    assert text(kd.from_py([kd.new(x=1)])) == "DataItem(List[Obj(x=1)], schema: OBJECT)"


def test_dict_as_obj():
    o = kd.from_py({"a": 1, "b": {"c": 2}}, dict_as_obj=True)
    assert text(o) == "DataItem(Obj(a=1, b=Obj(c=2)), schema: OBJECT)"
    assert text(o.get_obj_schema()) == "DataItem(IMPLICIT_ENTITY(a=OBJECT, b=OBJECT), schema: SCHEMA)"
    # Each object gets the attributes of its own dict.
    two = kd.from_py([{"a": 1}, {"b": 2}, {"a": 3}], dict_as_obj=True, from_dim=1)
    assert text(two) == "DataSlice([Obj(a=1), Obj(b=2), Obj(a=3)], schema: OBJECT, present: 3/3)"
    with pytest.raises(ValueError, match="dict_as_obj requires keys to be valid unicode objects, got int"):
        kd.from_py({1: 2}, dict_as_obj=True)


def test_from_dim():
    assert text(kd.from_py([1, 2, 3], from_dim=1)) == "DataSlice([1, 2, 3], schema: OBJECT, present: 3/3)"
    assert text(kd.from_py([[1, 2], [3]], from_dim=1)) == "DataSlice([List[1, 2], List[3]], schema: OBJECT, present: 2/2)"
    assert text(kd.from_py([[1, 2], [3]], from_dim=2)) == "DataSlice([[1, 2], [3]], schema: OBJECT, present: 3/3)"
    assert text(kd.from_py([{"a": 1}, {"a": 2}], from_dim=1)) == (
        "DataSlice([Dict{'a'=1}, Dict{'a'=2}], schema: OBJECT, present: 2/2)")
    with pytest.raises(ValueError, match="could not traverse the nested list of depth 1 up to the level 2"):
        kd.from_py([1, 2], from_dim=2)
    with pytest.raises(ValueError, match="could not traverse the nested list of depth 0 up to the level 1"):
        kd.from_py({"a": 1}, from_dim=1)


def test_schema_argument():
    assert text(kd.from_py([1, 2], schema=kd.list_schema(kd.INT64))) == "DataItem(List[1, 2], schema: LIST[INT64])"
    assert text(kd.from_py({"a": 1}, schema=kd.dict_schema(kd.STRING, kd.FLOAT32))) == (
        "DataItem(Dict{'a'=1.0}, schema: DICT{STRING, FLOAT32})")
    p = kd.named_schema("P", a=kd.INT32, b=kd.STRING)
    assert text(kd.from_py({"a": 1, "b": "x"}, schema=p)) == "DataItem(Entity(a=1, b='x'), schema: P(a=INT32, b=STRING))"
    assert text(kd.from_py({"a": 1}, schema=p)) == "DataItem(Entity(a=1, b=None), schema: P(a=INT32, b=STRING))"
    assert text(kd.from_py({"a": 1, "c": 3}, schema=kd.named_schema("P", a=kd.INT32))) == (
        "DataItem(Entity(a=1), schema: P(a=INT32))")
    q = kd.named_schema("Q", p=kd.named_schema("P", a=kd.INT32))
    assert text(kd.from_py({"p": {"a": 1}}, schema=q)) == "DataItem(Entity(p=Entity(a=1)), schema: Q(p=P(a=INT32)))"
    assert text(kd.from_py(1, schema=kd.INT64)) == "DataItem(1, schema: INT64)"
    assert text(kd.from_py([1, 2], schema=kd.INT64, from_dim=1)) == "DataSlice([1, 2], schema: INT64, present: 2/2)"
    assert text(kd.from_py([1, 2], schema=kd.OBJECT)) == "DataItem(List[1, 2], schema: OBJECT)"
    lists = kd.from_py([[1, 2], None], schema=kd.list_schema(kd.INT32), from_dim=1)
    assert text(lists) == "DataSlice([List[1, 2], None], schema: LIST[INT32], present: 1/2)"


def test_errors():
    with pytest.raises(ValueError, match="object with unsupported type: set"):
        kd.from_py({1, 2})
    with pytest.raises(ValueError, match="object with unsupported type: object"):
        kd.from_py([object()])
    with pytest.raises(ValueError, match="dict keys cannot be FLOAT32"):
        kd.from_py({1.5: 1})
    with pytest.raises(ValueError, match="from_dim must be a non-negative int"):
        kd.from_py([1], from_dim=-1)


def test_round_trip_through_to_py():
    value = {"a": [1, {"b": 2}], "c": None, "d": "x"}
    assert kd.from_py(value).to_py(max_depth=-1) == value
    assert kd.from_pytree([1, [2, 3]]).to_py() == [1, [2, 3]]


def test_schema_items_have_attribute_schemas():
    p = kd.named_schema("P", a=kd.INT32, b=kd.list_schema(kd.INT32))
    assert text(p.a) == "DataItem(INT32, schema: SCHEMA)"
    assert p.get_attr_names(intersection=True) == ["a", "b"]
    assert kd.dir(p) == ["a", "b"]
    with pytest.raises(AttributeError, match="the attribute .z. is missing on the schema"):
        p.z
    with pytest.raises(AttributeError, match="primitives do not have attributes, got SCHEMA DataItem with primitive INT32"):
        kd.INT32.a
    assert text(kd.schema.is_list_schema(kd.list_schema(kd.INT32))) == "DataItem(present, schema: MASK)"
    assert text(kd.schema.is_entity_schema(p)) == "DataItem(present, schema: MASK)"
    assert text(kd.schema.is_struct_schema(kd.dict_schema(kd.INT32, kd.INT32))) == "DataItem(present, schema: MASK)"
    assert text(kd.schema.is_entity_schema(kd.INT32)) == "DataItem(missing, schema: MASK)"


# --- schema=None infers the schema; dataclasses and objects with attributes


def test_schema_none_infers_primitives_lists_and_dicts():
    assert repr(kd.from_py(1, schema=None)) == "DataItem(1, schema: INT32)"
    assert repr(kd.from_py(None, schema=None)) == "DataItem(None, schema: NONE)"
    assert str(kd.from_py([[1, 2], [3]], schema=None).get_schema()) == "LIST[LIST[INT32]]"
    assert str(kd.from_py([1, 2.5], schema=None).get_schema()) == "LIST[FLOAT32]"
    assert str(kd.from_py([1, "a"], schema=None).get_schema()) == "LIST[OBJECT]"
    assert str(kd.from_py([{"a": 1}, {"b": 2}], schema=None).get_schema()) == "LIST[DICT{STRING, INT32}]"


def test_schema_none_makes_entities_of_dataclasses_and_dicts_as_objects():
    @dataclasses.dataclass
    class Point:
        x: int
        y: str

    one = kd.from_py(Point(1, "a"), schema=None)
    assert str(one.get_schema()) == "ENTITY(x=INT32, y=STRING)"
    assert one.x.to_py() == 1 and one.y.to_py() == "a"
    many = kd.from_py([Point(1, "a"), None, Point(2, "b")], schema=None)
    assert str(many.get_schema()) == "LIST[ENTITY(x=INT32, y=STRING)]"
    assert many[:].x.to_py() == [1, None, 2]
    assert str(kd.from_py({"a": [1, 2]}, schema=None, dict_as_obj=True).get_schema()) == "ENTITY(a=LIST[INT32])"


def test_dataclasses_and_plain_objects_are_objects_by_default():
    @dataclasses.dataclass
    class Point:
        x: int
        y: str

    class Thing:
        def __init__(self):
            self.a = 1
            self.b = [1, 2]
            self._hidden = 3

    p = kd.from_py(Point(1, "a"))
    assert str(p.get_schema()) == "OBJECT" and p.x.to_py() == 1
    t = kd.from_py(Thing())
    assert sorted(kd.dir(t)) == ["a", "b"] and t.b[:].to_py() == [1, 2]
    typed = kd.from_py(Point(3, "c"), schema=kd.named_schema("Point", x=kd.INT64, y=kd.STRING))
    assert str(typed.get_schema()) == "Point(x=INT64, y=STRING)" and typed.x.to_py() == 3
    with pytest.raises(ValueError, match="object with unsupported type: function"):
        kd.from_py(lambda: 1)


def test_objects_with_attrs_at_groups_rows_by_their_names():
    # Rows given out of order, and two rows with the same names in another
    # order: each object gets exactly its own entries.
    from plait import _plait

    values = kd.slice([1, "x", 2, 3, 4])
    objs = _plait.objects_with_attrs_at(4, [2, 0, 2, 0, 3], ["a", "b", "b", "a", "a"], values)
    assert objs.to_py(obj_as_dict=True) == [{"a": 3, "b": "x"}, {}, {"a": 1, "b": 2}, {"a": 4}]
    assert kd.get_attr_names(objs.S[2], intersection=True) == ["a", "b"]
    # Entries that do not fit the objects are refused, not written.
    with pytest.raises(ValueError, match="one row below `n`"):
        _plait.objects_with_attrs_at(1, [3], ["a"], kd.slice([1]))
