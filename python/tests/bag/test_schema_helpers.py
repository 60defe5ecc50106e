"""Schema helpers that need bags (issue 4): schema_from_py, get_primitive_schema,
with_schema_from_obj, to_itemid, strict_new, objs.uu and list_append_update.
Expected texts were checked against koladata 0.0.4."""

import dataclasses
import re

import pytest

from plait import kd


def text(x):
    return re.sub(r", bag_id: \$[0-9a-f]{4}", "", repr(x))


@dataclasses.dataclass
class Point:
    x: int
    tags: list[str]


def test_schema_from_py():
    assert [str(kd.schema.schema_from_py(t)) for t in (int, float, str, bool, bytes, int | None)] == [
        "INT64", "FLOAT32", "STRING", "BOOLEAN", "BYTES", "INT64"]
    assert text(kd.schema.schema_from_py(list[int])) == "DataItem(LIST[INT64], schema: SCHEMA)"
    assert text(kd.schema.schema_from_py(dict[str, float])) == "DataItem(DICT{STRING, FLOAT32}, schema: SCHEMA)"
    point = kd.schema.schema_from_py(Point)
    assert str(point) == f"__schema_from_py__{__name__}.Point(tags=LIST[STRING], x=INT64)"
    assert str(point == kd.schema.schema_from_py(Point)) == "present"
    with pytest.raises(TypeError, match="unsupported type in kd.schema_from_py: <class 'object'>"):
        kd.schema.schema_from_py(object)


def test_primitive_schemas_and_schema_from_objects():
    assert text(kd.schema.get_primitive_schema(kd.slice([1, 2]))) == "DataItem(INT32, schema: SCHEMA)"
    assert text(kd.schema.get_primitive_schema(kd.obj(1))) == "DataItem(INT32, schema: SCHEMA)"
    assert text(kd.schema.get_dtype(kd.slice([1.5]))) == "DataItem(FLOAT32, schema: SCHEMA)"
    assert text(kd.schema.get_primitive_schema(kd.slice([1, "a"]))) == "DataItem(None, schema: SCHEMA)"
    assert text(kd.schema.get_primitive_schema(kd.new(x=1))) == "DataItem(None, schema: SCHEMA)"
    assert text(kd.schema.with_schema_from_obj(kd.obj(kd.new(x=1)))) == "DataItem(Entity(x=1), schema: ENTITY(x=INT32))"
    assert text(kd.schema.with_schema_from_obj(kd.slice([1, 2], kd.OBJECT))) == "DataSlice([1, 2], schema: INT32, present: 2/2)"
    assert text(kd.schema.with_schema_from_obj(kd.slice([1, "a"], kd.OBJECT))) == (
        "DataSlice([1, 'a'], schema: OBJECT, present: 2/2)")
    with pytest.raises(ValueError, match="DataSlice cannot have an implicit schema as its schema"):
        kd.schema.with_schema_from_obj(kd.obj(x=1))
    # Koda: no slice takes an object's own schema, however it is given.
    implicit = kd.obj(x=1).get_obj_schema()
    for make in (lambda: kd.obj(x=1).with_schema(implicit), lambda: kd.obj(x=1).fork_bag().set_schema(implicit),
                 lambda: implicit.new(x=1), lambda: kd.new(x=1, schema=implicit)):
        with pytest.raises(ValueError, match="DataSlice cannot have an implicit schema as its schema"):
            make()
    assert str(kd.schema.to_itemid(kd.new(x=1)).get_schema()) == "ITEMID"


def test_strict_new_and_uu_objects():
    p = kd.named_schema("P", x=kd.INT32)
    assert text(kd.entities.strict_new(x=1, schema=p)) == "DataItem(Entity(x=1), schema: P(x=INT32))"
    with pytest.raises(ValueError, match="cannot create a new entity with attribute 'z' not defined in the schema"):
        kd.entities.strict_new(x=1, z=2, schema=p)
    assert text(kd.objs.uu(x=1)) == "DataItem(Obj(x=1), schema: OBJECT)"


def test_list_append_update():
    lists = kd.list([1, 2])
    update = kd.lists.list_append_update(lists, 3)
    assert repr(update).split("\n")[1:5] == [
        "  0 Entities/Objects with 0 values in 0 attrs", "  1 non empty Lists with 3 items",
        "  0 non empty Dicts with 0 key/value entries", "  1 schemas with 1 values"]
    assert text(lists.updated(update)) == "DataItem(List[1, 2, 3], schema: LIST[INT32])"
    assert text(lists) == "DataItem(List[1, 2], schema: LIST[INT32])"


_OBJ = kd.slice([1, None, 3], kd.OBJECT)

# (operator, args, expected repr): each is one registry operator, the same
# eagerly, lazily and inside a saved functor.
_SCHEMA_OPERATORS = [
    ("schema.to_int32", (kd.slice([1.9, -1.9, None]),), "DataSlice([1, -1, None], schema: INT32, present: 2/3)"),
    ("int32", (kd.slice(["1", "22"]),), "DataSlice([1, 22], schema: INT32, present: 2/2)"),
    ("slices.int64", (kd.item(7),), "DataItem(7, schema: INT64)"),
    ("float64", (kd.item("0.1"),), "DataItem(0.1, schema: FLOAT64)"),
    ("schema.to_str", (kd.slice([1, 2.5]),), "DataSlice(['1', '2.5'], schema: STRING, present: 2/2)"),
    ("str", (kd.item(True),), "DataItem('true', schema: STRING)"),
    ("bool", (kd.slice([0, 2]),), "DataSlice([False, True], schema: BOOLEAN, present: 2/2)"),
    ("to_object", (kd.slice([1, 2]),), "DataSlice([1, 2], schema: OBJECT, present: 2/2)"),
    ("schema.to_none", (kd.slice([None, None]),), "DataSlice([None, None], schema: NONE, present: 0/2)"),
    ("cast_to", (kd.slice([1, 2]), kd.FLOAT32), "DataSlice([1.0, 2.0], schema: FLOAT32, present: 2/2)"),
    ("schema.cast_to_implicit", (kd.slice([1, None]), kd.INT64), "DataSlice([1, None], schema: INT64, present: 1/2)"),
    ("schema.cast_to_narrow", (_OBJ, kd.INT64), "DataSlice([1, None, 3], schema: INT64, present: 2/3)"),
    ("get_schema", (kd.slice([1, 2]),), "DataItem(INT32, schema: SCHEMA)"),
    ("schema.is_primitive_schema", (kd.STRING,), "DataItem(present, schema: MASK)"),
    ("get_primitive_schema", (_OBJ,), "DataItem(INT32, schema: SCHEMA)"),
    ("schema.get_dtype", (kd.slice([1, "a"]),), "DataItem(None, schema: SCHEMA)"),
    ("with_schema_from_obj", (_OBJ,), "DataSlice([1, None, 3], schema: INT32, present: 2/3)"),
    ("schema.agg_common_schema", (kd.slice([[kd.INT32, None], [kd.FLOAT32, kd.INT64]]),),
     "DataSlice([INT32, FLOAT32], schema: SCHEMA, present: 2/2)"),
    ("schema.common_schema", (kd.slice([kd.INT32, kd.FLOAT32]),), "DataItem(FLOAT32, schema: SCHEMA)"),
]


@pytest.mark.parametrize("name,args,expected", _SCHEMA_OPERATORS, ids=[c[0] for c in _SCHEMA_OPERATORS])
def test_schema_operators_are_one_operator(one_operator, name, args, expected):
    assert repr(one_operator(name, *args)) == expected


def test_itemid_names_are_one_operator(one_operator):
    x = kd.obj(a=1)
    ids = [one_operator(name, x) for name in ("get_itemid", "to_itemid", "schema.get_itemid", "schema.to_itemid")]
    assert all(kd.all(i == ids[0]) for i in ids)


def test_casters_box_python_lists_as_koda_does():
    assert repr(kd.int32([1, 2])) == "DataSlice([1, 2], schema: INT32, present: 2/2)"
    assert repr(kd.float64(0.1)) == "DataItem(0.1, schema: FLOAT64)"
    assert repr(kd.schema.to_float64(0.1)) == "DataItem(0.10000000149011612, schema: FLOAT64)"
    with pytest.raises(ValueError, match="passing a Python list to a Koda operation is ambiguous"):
        kd.schema.to_int32([1, 2])
