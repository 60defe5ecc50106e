"""Walking reachable data (issue 4): kd.extract, kd.clone, kd.shallow_clone,
kd.deep_clone, kd.stub and kd.deep_uuid. Expected texts were checked against
koladata 0.0.4 (bag ids and item ids removed)."""

import re

import pytest

from plait import kd


def text(x):
    return re.sub(r"[#$][0-9A-Za-z]{22}", "ID", re.sub(r", bag_id: \$[0-9a-f]{4}", "", repr(x)))


def same(a, b):
    return str(a == b) == "present"


@pytest.fixture
def data():
    inner = kd.new(b=1)
    e = kd.new(a=inner, c="x")
    return inner, e


def test_extract_keeps_only_what_is_reachable(data):
    inner, e = data
    big = e.updated(kd.attrs(kd.new(z=1), z=2))
    out = kd.extract(big)
    assert text(out) == "DataItem(Entity(a=Entity(b=1), c='x'), schema: ENTITY(a=ENTITY(b=INT32), c=STRING))"
    assert repr(out.get_bag()).split("\n")[1:5] == [
        "  2 Entities/Objects with 3 values in 3 attrs", "  0 non empty Lists with 0 items",
        "  0 non empty Dicts with 0 key/value entries", "  2 schemas with 3 values"]
    assert same(out.get_itemid(), e.get_itemid())
    assert text(kd.extract(e, kd.uu_schema(c=kd.STRING))) == "DataItem(Entity(c='x'), schema: ENTITY(c=STRING))"
    assert text(kd.extract(kd.new(x=kd.slice([1, 2])))) == (
        "DataSlice([Entity(x=1), Entity(x=2)], schema: ENTITY(x=INT32), present: 2/2)")
    assert text(kd.extract(kd.dict({"a": kd.new(x=1)}))) == (
        "DataItem(Dict{'a'=Entity(x=1)}, schema: DICT{STRING, ENTITY(x=INT32)})")
    assert text(kd.extract(kd.list([kd.obj(y=2)]))) == "DataItem(List[Obj(y=2)], schema: LIST[OBJECT])"
    with pytest.raises(ValueError, match="kd.core.extract: cannot extract without a DataBag"):
        kd.extract(kd.slice([1, 2]))


def test_clones(data):
    inner, e = data
    c = kd.clone(e)
    assert text(c) == "DataItem(Entity(a=Entity(b=1), c='x'), schema: ENTITY(a=ENTITY(b=INT32), c=STRING))"
    assert not same(c.get_itemid(), e.get_itemid()) and same(c.a.get_itemid(), inner.get_itemid())
    assert text(kd.clone(e, c="y")) == "DataItem(Entity(a=Entity(b=1), c='y'), schema: ENTITY(a=ENTITY(b=INT32), c=STRING))"
    ids = kd.new_itemid()
    assert same(kd.clone(e, itemid=ids).get_itemid(), ids)
    shallow = kd.shallow_clone(e)
    assert text(shallow) == "DataItem(Entity(a=Entity():ID, c='x'), schema: ENTITY(a=ENTITY(), c=STRING))"
    assert same(shallow.a.get_itemid(), inner.get_itemid())
    with pytest.raises(AttributeError, match="the attribute 'b' is missing on the schema"):
        shallow.a.b
    deep = kd.deep_clone(e)
    assert text(deep) == "DataItem(Entity(a=Entity(b=1), c='x'), schema: ENTITY(a=ENTITY(b=INT32), c=STRING))"
    assert not same(deep.get_itemid(), e.get_itemid()) and not same(deep.a.get_itemid(), inner.get_itemid())
    assert same(deep.get_schema(), e.get_schema())
    assert text(kd.clone(kd.list([kd.new(x=1)]))) == "DataItem(List[Entity(x=1)], schema: LIST[ENTITY(x=INT32)])"
    assert text(kd.clone(kd.obj(a=kd.obj(b=1)))) == "DataItem(Obj(a=Obj(b=1)), schema: OBJECT)"
    assert kd.deep_clone(kd.list([kd.new(x=1)]))[0].x.to_py() == 1
    with pytest.raises(ValueError, match="kd.core.clone: cannot clone without a DataBag"):
        kd.clone(kd.slice([1, 2]))


def test_deep_clone_keeps_sharing_and_cycles():
    a = kd.new(x=1).fork_bag()
    a.self = a
    clone = kd.deep_clone(a)
    assert clone.self.x.to_py() == 1
    assert same(clone.self.get_itemid(), clone.get_itemid())
    assert not same(clone.get_itemid(), a.get_itemid())
    shared = kd.new(v=1)
    pair = kd.new(l=shared, r=shared)
    copy = kd.deep_clone(pair)
    assert same(copy.l.get_itemid(), copy.r.get_itemid()) and not same(copy.l.get_itemid(), shared.get_itemid())


def test_stub(data):
    inner, e = data
    s = kd.stub(e)
    assert text(s) == "DataItem(Entity():ID, schema: ENTITY())"
    assert text(s.get_bag()).startswith("DataBag(empty, ")
    assert same(s.get_itemid(), e.get_itemid())
    assert text(kd.stub(kd.obj(x=1))) == "DataItem(Obj():ID, schema: OBJECT)"
    assert text(kd.stub(kd.list([1, 2]))) == "DataItem(List[1, 2], schema: LIST[INT32])"
    with_a = kd.stub(e, attrs=kd.slice(["a"]))
    assert text(with_a) == "DataItem(Entity(a=Entity():ID), schema: ENTITY(a=ENTITY()))"


def test_deep_uuid(data):
    inner, e = data
    assert text(kd.deep_uuid(e)) == "DataItem(Entity:ID, schema: ITEMID)"
    assert same(kd.deep_uuid(e), kd.deep_uuid(kd.new(a=kd.new(b=1), c="x")))
    assert not same(kd.deep_uuid(e), kd.deep_uuid(kd.new(a=kd.new(b=2), c="x")))
    assert not same(kd.deep_uuid(e, seed="s"), kd.deep_uuid(e))
    # Dicts hash by content, whatever the order their keys were set in.
    assert same(kd.deep_uuid(kd.dict({"a": 1, "b": 2})), kd.deep_uuid(kd.dict({"b": 2, "a": 1})))
    a = kd.new(x=1).fork_bag()
    a.self = a
    assert text(kd.deep_uuid(a)) == "DataItem(Entity:ID, schema: ITEMID)"
