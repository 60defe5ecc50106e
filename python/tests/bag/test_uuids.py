"""Ids derived from content (kd.uuid, kd.uu, kd.uu_schema, kd.uuobj,
uuid_for_list/dict, agg_uuid, uuids_with_allocation_size), id text and
hashes, and fresh ids (kd.allocation.*). Checked against koladata 0.0.4 for
everything but the id values themselves (the layouts differ)."""

import re

import pytest

from plait import kd


def text(x):
    """The repr without bag ids, ids replaced by ID and wrapped lines joined."""
    one_line = re.sub(r"\[\n\s*", "[", re.sub(r",\n\s*", ", ", repr(x))).replace(", ]", "]")
    return re.sub(r"[#$][0-9A-Za-z]{22}", "ID", re.sub(r", bag_id: \$[0-9a-f]{4}", "", one_line))


def present(mask):
    return str(mask) == "present"


def test_uuids_are_derived_from_content():
    assert text(kd.uuid(x=1)) == "DataItem(Entity:ID, schema: ITEMID)"
    assert repr(kd.uuid(x=1)).startswith("DataItem(Entity:#")
    assert present(kd.uuid(x=1, y="a") == kd.uuid(y="a", x=1))
    assert not present(kd.uuid(x=1) == kd.uuid(x=2))
    assert not present(kd.uuid(seed="s", x=1) == kd.uuid(x=1))
    assert not present(kd.uuid(x=1) == kd.uuid(x=kd.int64(1)))
    assert not present(kd.uuid(x=1) == kd.uuid(y=1))
    assert text(kd.uuid()) == "DataItem(Entity:ID, schema: ITEMID)"
    items = kd.uuid(x=kd.slice([1, 2, None]))
    assert text(items) == "DataSlice([Entity:ID, Entity:ID, Entity:ID], schema: ITEMID, present: 3/3)"
    assert present(items.S[0] == kd.uuid(x=1))
    e = kd.new(a=1)
    assert text(kd.uuid(x=e)) == "DataItem(Entity:ID, schema: ITEMID)"  # no bag: ids hold no data
    assert text(kd.uuid_for_list(x=1)) == "DataItem(List:ID, schema: ITEMID)"
    assert text(kd.uuid_for_dict(x=1)) == "DataItem(Dict:ID, schema: ITEMID)"
    assert not present(kd.uuid_for_list(x=1) == kd.uuid(x=1))


def test_agg_uuid_and_allocation_size():
    rows = kd.ids.agg_uuid(kd.slice([[1, 2], [3], [1, 2]]))
    assert text(rows) == "DataSlice([Entity:ID, Entity:ID, Entity:ID], schema: ITEMID, present: 3/3)"
    assert present(rows.S[0] == rows.S[2]) and not present(rows.S[0] == rows.S[1])
    ids = kd.uuids_with_allocation_size(seed="a", size=3)
    assert ids.get_size().to_py() == 3
    encoded = kd.encode_itemid(ids).to_py()
    assert len(set(encoded)) == 3 and encoded[0][:-1] == encoded[1][:-1]
    assert kd.uuids_with_allocation_size(seed="a", size=3).to_py() is not None
    with pytest.raises(ValueError, match="size must be non-negative"):
        kd.uuids_with_allocation_size(size=-1)


def test_uu_entities_and_objects():
    assert text(kd.uu(x=1, y=2)) == "DataItem(Entity(x=1, y=2), schema: ENTITY(x=INT32, y=INT32))"
    assert present(kd.uu(x=1).get_itemid() == kd.uu(x=1).get_itemid())
    assert not present(kd.uu(seed="q", x=1).get_itemid() == kd.uu(x=1).get_itemid())
    assert present(kd.uu(x=1).get_schema() == kd.uu_schema(x=kd.INT32))
    assert text(kd.uu(x=1, schema=kd.uu_schema(x=kd.INT32))) == "DataItem(Entity(x=1), schema: ENTITY(x=INT32))"
    assert text(kd.uu(x=kd.slice([1, 2]))) == "DataSlice([Entity(x=1), Entity(x=2)], schema: ENTITY(x=INT32), present: 2/2)"
    assert text(kd.uu(x=kd.new(a=1))) == "DataItem(Entity(x=Entity(a=1)), schema: ENTITY(x=ENTITY(a=INT32)))"
    assert text(kd.uuobj(x=1)) == "DataItem(Obj(x=1), schema: OBJECT)"
    assert present(kd.uuobj(x=1).get_itemid() == kd.uuid(x=1))


def test_uu_schemas():
    assert text(kd.uu_schema(x=kd.INT32)) == "DataItem(ENTITY(x=INT32), schema: SCHEMA)"
    assert present(kd.uu_schema(x=kd.INT32) == kd.uu_schema(x=kd.INT32))
    assert not present(kd.uu_schema(x=kd.INT32) == kd.uu_schema(x=kd.INT64))
    assert not present(kd.uu_schema(seed="s", x=kd.INT32) == kd.uu_schema(x=kd.INT32))
    with pytest.raises(ValueError, match="argument `x` must be a schema item"):
        kd.uu_schema(x=1)


def test_ids_as_text_and_hashes():
    u = kd.uuid(x=1)
    assert text(kd.encode_itemid(u)) == "DataItem('" + kd.encode_itemid(u).to_py() + "', schema: STRING)"
    assert present(kd.decode_itemid(kd.encode_itemid(u)) == u)
    e = kd.new(x=1)
    assert present(kd.decode_itemid(kd.encode_itemid(e)) == kd.get_itemid(e))
    assert text(kd.hash_itemid(u).get_schema()) == "DataItem(INT64, schema: SCHEMA)"
    assert kd.hash_itemid(u).to_py() == kd.hash_itemid(kd.uuid(x=1)).to_py()
    assert text(kd.ids.is_uuid(u)) == "DataItem(present, schema: MASK)"
    assert text(kd.ids.is_uuid(e)) == "DataItem(missing, schema: MASK)"
    assert text(kd.ids.has_uuid(kd.slice([u, None]))) == "DataSlice([present, missing], schema: MASK, present: 1/2)"
    with pytest.raises(ValueError, match="kd.ids.encode_itemid: kd.encode_itemid: only ItemIds can be encoded, got INT32"):
        kd.encode_itemid(kd.slice([1]))
    with pytest.raises(ValueError, match="kd.ids.decode_itemid: invalid ItemId text"):
        kd.decode_itemid("not an id!")


def test_fresh_ids():
    assert text(kd.new_itemid()) == "DataItem(Entity:ID, schema: ITEMID)"
    assert repr(kd.new_itemid()).startswith("DataItem(Entity:$")
    assert text(kd.new_listid_shaped(kd.shapes.new(2))) == "DataSlice([List:ID, List:ID], schema: ITEMID, present: 2/2)"
    assert text(kd.new_dictid_like(kd.slice([1, None]))) == "DataSlice([Dict:ID, None], schema: ITEMID, present: 1/2)"
    assert text(kd.allocation.new_itemid_shaped_as(kd.slice([1, 2]))).count("Entity:ID") == 2
    assert not present(kd.new_itemid() == kd.new_itemid())


def test_uuids_as_itemid_arguments():
    assert text(kd.new(x=1, itemid=kd.uuid(a=1))) == "DataItem(Entity(x=1), schema: ENTITY(x=INT32))"
    assert text(kd.dict({"a": 1}, itemid=kd.uuid_for_dict(a=1))) == "DataItem(Dict{'a'=1}, schema: DICT{STRING, INT32})"
    assert text(kd.list([1], itemid=kd.uuid_for_list(a=1))) == "DataItem(List[1], schema: LIST[INT32])"
