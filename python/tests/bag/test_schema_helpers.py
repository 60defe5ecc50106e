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
