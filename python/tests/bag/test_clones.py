"""Koda parity of clones, stubs, deep uuids and with_schema (issue 18).
Expected values were checked against koladata 0.0.4 (bag ids and item ids
removed)."""

import re

import pytest

from plait import kd


def text(x):
    return re.sub(r"[#$][0-9A-Za-z]{22}", "ID", re.sub(r", bag_id: \$[0-9a-f]{4}", "", repr(x)))


def same(a, b):
    return str(a == b) == "present"


def has_bag(x):
    return str(kd.has_bag(x)) == "present"


def distinct(x):
    """How many different ids the present items of `x` have."""
    return len({str(i) for i in kd.select_present(x.get_itemid().flatten()).L})


# --- one clone per position ---------------------------------------------------


def test_clone_of_a_repeated_entity_gives_one_clone_per_position():
    z = kd.new(x=1)
    a = kd.new(x=kd.slice([1, 2, 3]))
    a = a.with_attrs(z=z.expand_to(a).clone())
    assert same(a.S[0].z.get_itemid() != a.S[1].z.get_itemid(), kd.present)
    assert a.updated(kd.attrs(a.S[2].z, x=10)).z.x.to_py() == [1, 1, 10]


@pytest.mark.parametrize("op", [kd.clone, kd.shallow_clone])
@pytest.mark.parametrize("make", [lambda: kd.new(x=1), lambda: kd.obj(x=1), lambda: kd.list([1, 2]),
                                  lambda: kd.dict({1: 2})])
def test_clone_and_shallow_clone_clone_each_position(op, make):
    x = make().expand_to(kd.slice([[1, 2], [3]]))
    c = op(x)
    assert distinct(c.flatten()) == 3
    assert all(not same(c.flatten().S[i].get_itemid(), x.flatten().S[0].get_itemid()) for i in range(3))


def test_clones_per_position_hold_the_same_data():
    e = kd.new(x=1)
    assert kd.clone(e.expand_to(kd.slice([1, 2]))).x.to_py() == [1, 1]
    assert kd.shallow_clone(e.expand_to(kd.slice([1, 2]))).x.to_py() == [1, 1]
    assert kd.clone(kd.list([1, 2]).expand_to(kd.slice([1, 2])))[:].to_py() == [[1, 2], [1, 2]]
    assert kd.clone(kd.dict({1: 2}).expand_to(kd.slice([1, 2])))[1].to_py() == [2, 2]
    masked = e.expand_to(kd.slice([1, 2, 3])) & kd.slice([kd.present, None, kd.present])
    c = kd.clone(masked)
    assert c.x.to_py() == [1, None, 1]
    assert distinct(kd.select_present(c)) == 2


def test_cloned_objects_get_implicit_schemas_of_their_own():
    o = kd.obj(x=1)
    for op in (kd.clone, kd.shallow_clone, kd.deep_clone):
        assert not same(op(o).get_obj_schema(), o.get_obj_schema())
    c = kd.clone(o.expand_to(kd.slice([1, 2])))
    assert text(c.get_obj_schema()) == (
        "DataSlice([IMPLICIT_ENTITY(x=INT32), IMPLICIT_ENTITY(x=INT32)], schema: SCHEMA, present: 2/2)")
    assert not same(c.S[0].get_obj_schema(), c.S[1].get_obj_schema())
    # What a clone refers to keeps its id and its schema; a deep clone renews both.
    assert same(kd.clone(kd.obj(y=o)).y.get_obj_schema(), o.get_obj_schema())
    assert not same(kd.deep_clone(kd.obj(y=o)).y.get_obj_schema(), o.get_obj_schema())
    # The clones' schemas are separate: updating one leaves the other as it was.
    u = c.updated(kd.attrs(c.S[0], z=5))
    assert u.S[1].get_attr_names(intersection=True) == ["x"]


def test_clone_of_an_item_also_reached_inside_keeps_the_inner_reference():
    x = kd.new(v=1, schema="X")
    y = kd.new(v=2, r=x, schema="X")
    for op in (kd.clone, kd.shallow_clone):
        c = op(kd.slice([x, x, y]))
        assert distinct(c) == 3
        assert same(c.S[2].r.get_itemid(), x.get_itemid())
    assert kd.clone(kd.slice([x, x, y])).S[2].r.v.to_py() == 1
    assert kd.shallow_clone(kd.slice([x, x, y])).S[2].r.v.to_py() is None


def test_deep_clone_keeps_sharing_even_at_the_top():
    e = kd.new(x=1)
    c = kd.deep_clone(e.expand_to(kd.slice([1, 2, 3])))
    assert distinct(c) == 1 and not same(c.S[0].get_itemid(), e.get_itemid())
    for make in (lambda: kd.obj(x=1), lambda: kd.list([1, 2]), lambda: kd.dict({1: 2})):
        assert distinct(kd.deep_clone(make().expand_to(kd.slice([1, 2])))) == 1
    sub = kd.new(v=1)
    b = kd.new(p=sub, q=sub)
    d = kd.deep_clone(b.expand_to(kd.slice([1, 2])))
    assert distinct(d) == 1 and distinct(d.p) == 1 and same(d.S[0].p.get_itemid(), d.S[0].q.get_itemid())
    assert not same(d.S[0].p.get_itemid(), sub.get_itemid())
    # An item at the top and inside another one has one clone.
    x = kd.new(v=1, schema="X")
    y = kd.new(v=2, r=x, schema="X")
    c = kd.deep_clone(kd.slice([x, y]))
    assert same(c.S[1].r.get_itemid(), c.S[0].get_itemid())
    items = kd.deep_clone(kd.list([sub, sub]))[:]
    assert same(items.S[0].get_itemid(), items.S[1].get_itemid()) and not same(items.S[0].get_itemid(), sub.get_itemid())


def test_clone_overrides_and_itemid_per_position():
    e = kd.new(x=1)
    two = e.expand_to(kd.slice([1, 2]))
    c = kd.clone(two, a=kd.slice([5, 6]))
    assert c.a.to_py() == [5, 6] and c.x.to_py() == [1, 1] and distinct(c) == 2
    assert kd.shallow_clone(two, a=kd.slice([5, 6])).a.to_py() == [5, 6]
    # deep_clone has one clone for both positions: the last value wins.
    assert kd.deep_clone(two, a=kd.slice([5, 6])).a.to_py() == [6, 6]
    i, j = kd.new_itemid(), kd.new_itemid()
    c = kd.clone(two, itemid=kd.slice([i, j]))
    assert same(c.S[0].get_itemid(), i) and same(c.S[1].get_itemid(), j) and c.x.to_py() == [1, 1]
    c = kd.clone(two, itemid=kd.slice([i, i]))
    assert distinct(c) == 1 and c.x.to_py() == [1, 1]
    masked = two & kd.slice([None, kd.present])
    assert text(kd.clone(masked, itemid=kd.slice([i, i]))) == (
        "DataSlice([None, Entity(x=1)], schema: ENTITY(x=INT32), present: 1/2)")
    with pytest.raises(ValueError, match="itemid must have an objectId for each item present in ds"):
        kd.clone(two, itemid=kd.slice([i, None]))
    with pytest.raises(ValueError, match=r"obj and itemid must have the same rank. Got rank\(obj\): 1, rank\(itemid\): 0"):
        kd.clone(two, itemid=i)


# --- stub ---------------------------------------------------------------------


def test_stub_of_a_dict_is_empty_and_of_a_list_keeps_its_items():
    assert text(kd.stub(kd.dict({1: 2}))) == "DataItem(Dict{}, schema: DICT{INT32, INT32})"
    assert text(kd.stub(kd.list([1, 2]))) == "DataItem(List[1, 2], schema: LIST[INT32])"
    lo = kd.stub(kd.obj(kd.list([1, 2])))
    assert text(lo) == "DataItem(List[1, 2], schema: OBJECT)"
    assert text(lo.get_obj_schema()) == "DataItem(LIST[INT32], schema: SCHEMA)"
    do = kd.stub(kd.obj(kd.dict({1: 2})))
    assert text(do) == "DataItem(Dict{}, schema: OBJECT)"
    assert text(do.get_obj_schema()) == "DataItem(DICT{INT32, INT32}, schema: SCHEMA)"
    d = kd.dict({1: 2})
    assert same(kd.stub(d).get_itemid(), d.get_itemid())


def test_stub_follows_list_items_only():
    s = kd.stub(kd.list([kd.list([1]), kd.list([2])]))
    assert text(s) == "DataItem(List[List[1], List[2]], schema: LIST[LIST[INT32]])"
    assert s[:][:].to_py() == [[1], [2]]
    e = kd.new(a=1, schema="E")
    s = kd.stub(kd.list([e, e]))
    assert text(s) == "DataItem(List[Entity():ID, Entity():ID], schema: LIST[ENTITY()])"
    s = kd.stub(kd.list([kd.obj(a=1)]))
    assert text(s[:].get_obj_schema()) == "DataSlice([IMPLICIT_ENTITY()], schema: SCHEMA, present: 1/1)"
    assert text(kd.stub(kd.list([kd.dict({1: 2})]))[:]) == (
        "DataSlice([Dict{}], schema: DICT{INT32, INT32}, present: 1/1)")
    assert text(kd.stub(kd.dict({1: kd.list([1])}))) == "DataItem(Dict{}, schema: DICT{INT32, ENTITY()})"


def test_stub_without_a_bag_gets_an_empty_one():
    s = kd.stub(kd.item(1))
    assert text(s) == "DataItem(1, schema: INT32)" and has_bag(s)
    s = kd.stub(kd.slice([1, None]))
    assert text(s) == "DataSlice([1, None], schema: INT32, present: 1/2)" and has_bag(s)
    assert has_bag(kd.stub(kd.item(None)))
    e = kd.new(x=1)
    s = kd.stub(e.no_bag())
    assert text(s) == "DataItem(Entity():ID, schema: ENTITY())" and same(s.get_itemid(), e.get_itemid())
    s = kd.stub(e.no_bag().get_itemid())
    assert text(s) == "DataItem(Entity:ID, schema: ITEMID)" and has_bag(s)


# --- deep_uuid ----------------------------------------------------------------


def uuid_of(x, **kw):
    return kd.deep_uuid(x, **kw)


def test_deep_uuid_of_primitives_and_missing_items():
    one = uuid_of(kd.item(1))
    assert text(one) == "DataItem(Entity:ID, schema: ITEMID)" and not has_bag(one)
    assert same(one, uuid_of(kd.item(1)))
    assert not same(one, uuid_of(kd.item(2)))
    assert not same(one, uuid_of(kd.int64(1)))
    assert not same(one, uuid_of(kd.item(1.0)))
    assert same(one, uuid_of(kd.obj(1)))
    assert not same(uuid_of(kd.item("a")), uuid_of(kd.item(b"a")))
    none = uuid_of(kd.item(None))
    assert text(none) == "DataItem(Entity:ID, schema: ITEMID)"
    for missing in (kd.item(None, kd.INT32), kd.item(None, kd.OBJECT), kd.item(None, kd.SCHEMA), kd.new(x=1) & kd.missing,
                    kd.obj(x=1) & kd.missing, kd.list([1]) & kd.missing):
        assert same(uuid_of(missing), none)
    for present in (kd.new(x=None), kd.new(), kd.list([])):
        assert not same(uuid_of(present), none)
    assert same(uuid_of(kd.INT32), uuid_of(kd.INT32)) and not same(uuid_of(kd.INT32), uuid_of(kd.INT64))
    assert not same(uuid_of(kd.present), uuid_of(kd.item(True)))


def test_deep_uuid_of_mixed_slices():
    x = kd.slice([kd.obj(x=1), None, 2, kd.obj(x=1), "a"])
    u = uuid_of(x)
    assert text(u.get_schema()) == "DataItem(ITEMID, schema: SCHEMA)"
    assert u.get_present_count().to_py() == 5
    assert (u == uuid_of(kd.item(None))).to_py() == [None, kd.present, None, None, None]
    assert (u == uuid_of(kd.item(2))).to_py() == [None, None, kd.present, None, None]
    assert same(u.S[0], u.S[3]) and same(u.S[0], uuid_of(kd.new(x=1)))
    assert uuid_of(kd.slice([[1, None], [2]])).get_present_count().to_py() == 3
    assert uuid_of(kd.slice([None, None], kd.OBJECT)).get_present_count().to_py() == 2
    entities = kd.new(x=kd.slice([1, None])) & kd.slice([None, kd.present])
    assert same(uuid_of(entities).S[0], uuid_of(kd.item(None)))
    assert text(uuid_of(kd.slice([]))) == "DataSlice([], schema: ITEMID, present: 0/0)"


def test_deep_uuid_of_ids_and_schemas():
    e = kd.new(x=1)
    assert same(uuid_of(e.get_itemid()), e.get_itemid())
    assert same(uuid_of(e.get_itemid().no_bag()), e.get_itemid())
    assert text(uuid_of(kd.item(None, kd.ITEMID))) == "DataItem(None, schema: ITEMID)"
    assert same(uuid_of(kd.schema.new_schema(x=kd.INT32)), uuid_of(kd.schema.new_schema(x=kd.INT32)))
    assert not same(uuid_of(kd.schema.new_schema(x=kd.INT32)), uuid_of(kd.schema.new_schema(x=kd.INT64)))
    assert not same(uuid_of(kd.named_schema("A", x=kd.INT32)), uuid_of(kd.named_schema("B", x=kd.INT32)))
    assert not same(uuid_of(kd.named_schema("A", x=kd.INT32)), uuid_of(kd.schema.new_schema(x=kd.INT32)))
    # An entity's name does not count, only its content.
    assert same(uuid_of(kd.new(x=1, schema="N")), uuid_of(kd.new(x=1, schema=kd.schema.new_schema(x=kd.INT32))))


def test_deep_uuid_seed_and_errors():
    assert not same(uuid_of(kd.item(1), seed="s"), uuid_of(kd.item(1)))
    assert same(uuid_of(kd.item(1), seed="s"), uuid_of(kd.item(1), seed="s"))
    assert not same(uuid_of(kd.item(None), seed="s"), uuid_of(kd.item(None)))
    assert same(uuid_of(kd.new(x=1), seed="a"), uuid_of(kd.new(x=1), seed=kd.item("a")))
    assert same(uuid_of(kd.new(x=1), seed=kd.item(None, kd.STRING)), uuid_of(kd.new(x=1)))
    with pytest.raises(ValueError, match=r"seed can only be 0-rank schema slice, got: rank\(1\)"):
        kd.deep_uuid(kd.new(x=1), seed=kd.slice(["a", "b"]))
    with pytest.raises(ValueError, match="seed must be a string"):
        kd.deep_uuid(kd.new(x=1), seed=1)
    with pytest.raises(ValueError, match="cannot compute deep_uuid of entity slice without a DataBag"):
        kd.deep_uuid(kd.new(x=1).no_bag())
    with pytest.raises(ValueError, match="cannot compute deep_uuid of entity slice without a DataBag"):
        kd.deep_uuid(kd.new(x=1).no_bag() & kd.missing)
    with pytest.raises(ValueError, match="is missing __schema__ attribute"):
        kd.deep_uuid(kd.new(x=1).with_schema(kd.OBJECT))


# --- with_schema --------------------------------------------------------------


POINT = {"x": kd.INT32, "y": kd.INT32}


def test_with_schema_of_objects_and_entities_keeps_their_attributes():
    p = kd.named_schema("Point", **POINT)
    r = kd.obj(x=1, y=2).with_schema(p)
    assert text(r) == "DataItem(Entity(x=1, y=2), schema: Point(x=INT32, y=INT32))"
    assert text(r.get_schema()) == "DataItem(Point(x=INT32, y=INT32), schema: SCHEMA)"
    assert r.x.to_py() == 1
    assert text(kd.with_schema(kd.obj(x=1, y=2), p)) == text(r)
    assert text(kd.schema.with_schema(kd.obj(x=1, y=2), p)) == text(r)
    assert text(kd.new(x=1).with_schema(kd.named_schema("Q", x=kd.INT32))) == "DataItem(Entity(x=1), schema: Q(x=INT32))"
    assert text(kd.obj(x=1).with_schema(kd.schema.new_schema(x=kd.INT32))) == "DataItem(Entity(x=1), schema: ENTITY(x=INT32))"
    z = kd.obj(x=1).with_schema(kd.schema.new_schema(z=kd.INT32))
    assert text(z) == "DataItem(Entity(z=None), schema: ENTITY(z=INT32))"
    assert z.get_attr_names(intersection=True) == ["z"]
    assert text(kd.slice([kd.obj(x=1, y=2), kd.obj(x=3)]).with_schema(p)) == (
        "DataSlice([Entity(x=1, y=2), Entity(x=3, y=None)], schema: Point(x=INT32, y=INT32), present: 2/2)")
    assert text(kd.new(x=1, y=2).get_itemid().with_schema(p)) == "DataItem(Entity(x=1, y=2), schema: Point(x=INT32, y=INT32))"
    assert text(kd.eval(kd.lazy.with_schema(kd.I.x, kd.I.s), x=kd.obj(x=1, y=2), s=p)) == text(r)


def test_with_schema_bags():
    p = kd.named_schema("Point", **POINT)
    # The data's bag and the schema's: the result reads both.
    assert "2 schemas with 5 values" in repr(kd.obj(x=1, y=2).with_schema(p).get_bag())
    # A schema without a bag: the data's bag as it is, mutable or not.
    m = kd.obj(x=1, y=2).fork_bag()
    assert text(m.with_schema(p.no_bag())) == "DataItem(Entity():ID, schema: ENTITY())"
    assert m.with_schema(p.no_bag()).get_bag().is_mutable()
    assert not kd.with_schema(m, p).get_bag().is_mutable()
    # Data without a bag: the schema's bag.
    assert text(kd.obj(x=1).no_bag().with_schema(p)) == "DataItem(Entity(x=None, y=None), schema: Point(x=INT32, y=INT32))"
    assert text(kd.item(None).with_schema(p)) == "DataItem(None, schema: Point(x=INT32, y=INT32))"
    # Primitive schemas keep the data's bag, or none.
    assert has_bag(kd.obj(1).with_bag(kd.bag()).with_schema(kd.INT32))
    assert not has_bag(kd.item(1).with_schema(kd.OBJECT))


def test_with_schema_errors():
    p = kd.named_schema("Point", **POINT)
    with pytest.raises(ValueError, match=r"kd.schema.with_schema: schema can only be 0-rank schema slice, got: rank\(1\)"):
        kd.with_schema(kd.obj(x=1), kd.slice([p]))
    with pytest.raises(ValueError, match="schema's schema must be SCHEMA, got: INT32"):
        kd.obj(x=1).with_schema(kd.item(1))
    with pytest.raises(ValueError, match="INT64 schema can only be assigned"):
        kd.slice([1, 2]).with_schema(kd.INT64)
