"""Nofollow schemas: `kd.nofollow` / `kd.follow`, `kd.nofollow_schema` /
`kd.get_nofollowed_schema`, walks that stop at nofollow values, and
`kd.ref` / `kd.reify`."""

import pytest

from plait import kd


def test_nofollow_round_trip_and_reprs():
    e = kd.new(z=2)
    n = kd.nofollow(e)
    assert repr(n).startswith("DataItem(Nofollow(Entity:$")
    assert "NOFOLLOW($" in repr(n.get_schema())
    assert bool(n.get_schema() == kd.nofollow_schema(e.get_schema()))
    assert bool(kd.get_nofollowed_schema(n.get_schema()) == e.get_schema())
    assert kd.follow(n).z.to_py() == 2 and n.follow().z.to_py() == 2
    assert repr(kd.nofollow(kd.obj(a=1)).get_schema()).startswith("DataItem(NOFOLLOW(OBJECT)")
    assert repr(kd.get_nofollowed_schema(kd.nofollow_schema(kd.OBJECT))) == "DataItem(OBJECT, schema: SCHEMA)"
    # A nofollow schema is a struct schema with no attributes of its own.
    assert bool(kd.schema.is_struct_schema(n.get_schema()))
    with pytest.raises(AttributeError, match="missing on the schema"):
        n.z


@pytest.mark.parametrize("x, message", [
    (kd.item(1), "calling nofollow on INT32 slice is not allowed"),
    (kd.INT32, "calling nofollow on SCHEMA slice is not allowed"),
    (kd.item(None), "calling nofollow on NONE slice is not allowed"),
    (kd.slice([kd.obj(a=1), 1]), "DataSlice with an Entity schema must hold Entities or Objects."),
])
def test_nofollow_refuses(x, message):
    with pytest.raises(ValueError, match=f"kd.core.nofollow: {message}"):
        kd.nofollow(x)


def test_nofollow_of_nofollow_and_follow_of_plain():
    n = kd.nofollow(kd.new(x=1))
    with pytest.raises(ValueError, match="on a nofollow slice is not allowed"):
        kd.nofollow(n)
    with pytest.raises(ValueError, match="a nofollow schema is required"):
        kd.follow(kd.new(x=1))
    with pytest.raises(ValueError, match="schema can only be 0-rank schema slice, got: rank\\(1\\)"):
        kd.nofollow_schema(kd.slice([kd.OBJECT]))
    with pytest.raises(ValueError, match="schema's schema must be SCHEMA, got: INT32"):
        kd.get_nofollowed_schema(kd.item(1))


def test_walks_stop_at_nofollow():
    inner = kd.new(z=2)
    holder = kd.new(x=1, y=kd.nofollow(inner))
    # Reading the attribute gives the original schema, without following.
    assert bool(holder.y.get_schema() == inner.get_schema())
    extracted = kd.extract(holder)
    assert extracted.y.get_attr_names(intersection=True) == []
    assert bool(extracted.y.get_itemid() == inner.get_itemid())
    assert kd.clone(holder).y.get_attr_names(intersection=True) == []
    deep = kd.deep_clone(holder)
    # A deep clone renews the nofollow item's id (as Koda) without its data.
    assert not bool(deep.y.get_itemid() == inner.get_itemid())
    assert kd.stub(holder).get_attr_names(intersection=True) == []
    same_content = kd.new(x=1, y=kd.nofollow(kd.new(z=3)))
    assert bool(kd.deep_uuid(holder) == kd.deep_uuid(same_content))
    assert kd.extract(kd.obj(a=kd.nofollow(inner))).a.get_attr_names(intersection=True) == []


def test_ref_and_reify():
    e = kd.new(x=1)
    r = kd.ref(e)
    assert not r.has_bag() and bool(r.get_itemid() == e.get_itemid())
    assert kd.reify(r, e).x.to_py() == 1
    assert not e.ref().has_bag()
    assert not kd.ref(kd.item(None)).has_bag()
    with pytest.raises(ValueError, match="casting a DataSlice with schema INT32 to ITEMID is not supported"):
        kd.ref(kd.item(1))
    with pytest.raises(ValueError, match="casting data of type INT32 to ITEMID is not supported"):
        kd.ref(kd.slice([kd.obj(a=1), 1]))
    with pytest.raises(ValueError, match="must hold Entities or Objects"):
        kd.reify(kd.item(1), e)


def test_nofollow_saves_and_loads():
    holder = kd.new(x=1, y=kd.nofollow(kd.new(z=2)))
    loaded = kd.loads(kd.dumps(holder))
    assert repr(loaded.get_schema().y).startswith("DataItem(NOFOLLOW($")
    assert loaded.x.to_py() == 1
