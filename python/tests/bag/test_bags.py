"""Bags as values (issue 4): attribute updates as bags (kd.attrs, kd.attr),
layering (kd.updated / kd.enriched, updated_bag / enriched_bag, << and >>),
merging (with_merged_bag), attaching and removing bags, and the kind tests
(is_primitive, has_entity, ...). Expected values checked against koladata 0.0.4."""

import re

import pytest

from plait import kd


def text(x):
    return re.sub(r", bag_id: \$[0-9a-f]{4}", "", repr(x))


@pytest.fixture
def e():
    return kd.new(x=1, y=2)


def test_attrs_are_bags_of_updates(e):
    update = kd.attrs(e, x=5, z="a")
    assert repr(update).split("\n")[1:4] == [
        "  1 Entities/Objects with 2 values in 2 attrs", "  0 non empty Lists with 0 items",
        "  0 non empty Dicts with 0 key/value entries"]
    assert text(e.updated(update)) == "DataItem(Entity(x=5, y=2, z='a'), schema: ENTITY(x=INT32, y=INT32, z=STRING))"
    assert text(e) == "DataItem(Entity(x=1, y=2), schema: ENTITY(x=INT32, y=INT32))"
    assert text(e.updated(kd.attr(e, "x", 7))) == "DataItem(Entity(x=7, y=2), schema: ENTITY(x=INT32, y=INT32))"
    with pytest.raises(ValueError, match="the schema for attribute 'x' is incompatible"):
        kd.attrs(e, x="s")
    assert text(e.updated(kd.attrs(e, x="s", overwrite_schema=True))) == (
        "DataItem(Entity(x='s', y=2), schema: ENTITY(x=STRING, y=INT32))")
    nested = e.updated(kd.attrs(e, z=kd.new(a=1)))
    assert nested.z.a.to_py() == 1


def test_layering_priorities(e):
    assert kd.updated(e, kd.attrs(e, x=5), kd.attrs(e, x=6)).x.to_py() == 6
    assert kd.enriched(e, kd.attrs(e, x=5)).x.to_py() == 1
    assert kd.enriched(e, kd.attrs(e, z=5)).z.to_py() == 5
    assert e.with_bag(e.get_bag() << kd.attrs(e, x=9)).x.to_py() == 9
    assert e.with_bag(e.get_bag() >> kd.attrs(e, x=9)).x.to_py() == 1
    assert (e << kd.attrs(e, x=9)).x.to_py() == 9
    assert (e >> kd.attrs(e, x=9)).x.to_py() == 1
    bag = kd.updated_bag(kd.attrs(e, x=5), kd.attrs(e, x=6))
    assert e.with_bag(bag).x.to_py() == 6
    assert e.with_bag(kd.enriched_bag(kd.attrs(e, x=5), kd.attrs(e, x=6))).x.to_py() == 5
    null = kd.get_bag(kd.item(1))  # the null bag: Python's None is refused, as in Koda
    assert e.with_bag(kd.bags.updated(null, kd.attrs(e, x=3))).x.to_py() == 3
    with pytest.raises(ValueError, match="expected all arguments to be DATA_BAG"):
        kd.bags.updated(None, kd.attrs(e, x=3))


def test_merged_bags_read_the_same(e):
    layered = e.updated(kd.attrs(e, x=9), kd.attrs(e, z=kd.dict({"k": 1})))
    merged = kd.with_merged_bag(layered)
    assert not merged.get_bag()._same_as(layered.get_bag())
    assert (merged.x.to_py(), merged.y.to_py(), merged.z["k"].to_py()) == (9, 2, 1)
    assert not merged.is_mutable()
    with pytest.raises(ValueError, match="expect the DataSlice to have a DataBag attached"):
        kd.with_merged_bag(kd.slice([1]))


def test_attaching_and_removing_bags(e):
    assert kd.is_null_bag(kd.get_bag(kd.slice([1])))
    assert kd.get_bag(e)._same_as(e.get_bag())
    assert text(kd.core.has_bag(e)) == "DataItem(present, schema: MASK)"
    assert text(kd.core.has_bag(kd.slice([1]))) == "DataItem(missing, schema: MASK)"
    bare = kd.no_bag(e)
    assert re.fullmatch(r"DataItem\(\$[0-9A-Za-z]{22}, schema: \$[0-9A-Za-z]{22}\)", repr(bare))
    assert re.fullmatch(r"DataItem\(\$[0-9A-Za-z]{22}, schema: OBJECT\)", repr(kd.obj(x=1).no_bag()))
    assert repr(kd.new_itemid()).startswith("DataItem(Entity:$")
    assert kd.with_bag(bare, e.get_bag()).x.to_py() == 1
    frozen = kd.freeze_bag(e.fork_bag())
    assert text(frozen.is_mutable()) == "DataItem(missing, schema: MASK)"
    assert text(e.fork_bag().is_mutable()) == "DataItem(present, schema: MASK)"
    assert text(kd.mutable_bag().is_mutable()) == "DataItem(present, schema: MASK)"
    assert text(kd.bags.new()).startswith("DataBag(empty, $")
    assert text(kd.bags.is_null_bag(kd.get_bag(kd.item(1)))) == "DataItem(present, schema: MASK)"
    with pytest.raises(ValueError, match="expected DATA_BAG, got bag: DATA_SLICE"):
        kd.bags.is_null_bag(None)


def test_kinds_of_items(e):
    assert text(kd.is_primitive(kd.slice([1, 2]))) == "DataItem(present, schema: MASK)"
    assert text(kd.is_primitive(e)) == "DataItem(missing, schema: MASK)"
    assert text(kd.is_primitive(kd.slice([1, e], kd.OBJECT))) == "DataItem(missing, schema: MASK)"
    assert text(kd.has_primitive(kd.slice([1, None, kd.obj(x=1)]))) == (
        "DataSlice([present, missing, missing], schema: MASK, present: 1/3)")
    assert text(kd.is_entity(e)) == "DataItem(present, schema: MASK)"
    assert text(kd.is_entity(kd.obj(x=1))) == "DataItem(present, schema: MASK)"
    assert text(kd.is_entity(kd.slice([1]))) == "DataItem(missing, schema: MASK)"
    assert text(kd.is_entity(kd.list([1]))) == "DataItem(missing, schema: MASK)"
    assert text(kd.has_entity(kd.slice([1, None, kd.obj(x=1), kd.obj(kd.new(x=2))]))) == (
        "DataSlice([missing, missing, present, present], schema: MASK, present: 2/4)")


def test_entities_in_an_object_slice_become_objects(e):
    mixed = kd.slice([1, e], kd.OBJECT)
    assert text(mixed) == "DataSlice([1, Obj(x=1, y=2)], schema: OBJECT, present: 2/2)"
    assert text(mixed.S[1].get_obj_schema()) == "DataItem(ENTITY(x=INT32, y=INT32), schema: SCHEMA)"


def test_like_forms(e):
    assert text(kd.new_like(kd.slice([1, None]), x=2)) == (
        "DataSlice([Entity(x=2), None], schema: ENTITY(x=INT32), present: 1/2)")
    assert text(kd.obj_like(kd.slice([None, 1]), x=2)) == "DataSlice([None, Obj(x=2)], schema: OBJECT, present: 1/2)"
    ids = kd.new_itemid_shaped(kd.shapes.new(2))
    made = kd.new_shaped(kd.shapes.new(2), x=1, itemid=ids)
    assert str(made.get_itemid()) == str(ids)


def test_threads_sharing_a_mutable_bag():
    import threading

    n = 1000
    entities = kd.new(x=kd.slice([0] * n)).fork_bag()
    errors = []

    def write():
        for k in range(1, 50):
            entities.x = kd.slice([k] * n)

    def read():
        try:
            for _ in range(50):
                values = entities.x.to_py()
                assert len(set(values)) == 1
        except AssertionError as error:
            errors.append(error)

    threads = [threading.Thread(target=write)] + [threading.Thread(target=read) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert entities.x.to_py() == [49] * n


def test_adoption_refuses_conflicting_data():
    e = kd.new(x=1)
    e2 = e.with_attrs(x=2)
    r = kd.new(a=1).fork_bag()
    r.c1 = e
    with pytest.raises(ValueError, match="cannot merge DataBags due to an exception encountered when merging entities.\n\n"
                                         "The conflicting entities in the both DataBags: Entity\\(\\):\\$.*\n\n"
                                         "The cause is the values of attribute 'x' are different: 1 vs 2"):
        r.c2 = e2
    d = kd.dict({"a": 1})
    r.d1 = d
    with pytest.raises(ValueError, match="(?s)encountered when merging dicts.*the key 'a' is incompatible: 1 vs 2"):
        r.d2 = kd.with_dict_update(d, "a", 2)
    # The same data twice, or a layered bag whose own value wins over its
    # fallback, merges without a conflict.
    r.c3 = e
    fresh = kd.new(a=1).fork_bag()
    fresh.c = e2
    assert fresh.c.x.to_py() == 2


_E = kd.new(a=1)

# (operator, args, kwargs, expected repr without bag ids): each is one
# registry operator, the same eagerly, lazily and inside a saved functor
# (where a bag argument becomes a bag literal or an input).
_BAG_OPERATORS = [
    ("attrs", (_E,), {"a": 2, "b": "z"}, None),
    ("attr", (_E, "full name", "Ann"), {}, None),
    ("updated", (_E, kd.attrs(_E, a=2, b="z")), {}, "DataItem(Entity(a=2, b='z'), schema: ENTITY(a=INT32, b=STRING))"),
    ("enriched", (_E, kd.attrs(_E, a=2, b=3)), {}, "DataItem(Entity(a=1, b=3), schema: ENTITY(a=INT32, b=INT32))"),
    ("updated_bag", (kd.attrs(_E, a=2), kd.attrs(_E, a=3)), {}, None),
    ("bags.enriched", (kd.attrs(_E, a=2), kd.attrs(_E, b=3)), {}, None),
    ("with_bag", (kd.no_bag(_E), _E.get_bag()), {}, "DataItem(Entity(a=1), schema: ENTITY(a=INT32))"),
    ("no_bag", (kd.slice([1, 2]),), {}, "DataSlice([1, 2], schema: INT32, present: 2/2)"),
    ("get_bag", (_E,), {}, None),
    ("has_bag", (_E,), {}, "DataItem(present, schema: MASK)"),
    ("is_null_bag", (_E.get_bag(),), {}, "DataItem(missing, schema: MASK)"),
    ("freeze_bag", (_E,), {}, "DataItem(Entity(a=1), schema: ENTITY(a=INT32))"),
    ("with_merged_bag", (kd.updated(_E, kd.attrs(_E, b=2)),), {}, "DataItem(Entity(a=1, b=2), schema: ENTITY(a=INT32, b=INT32))"),
    ("dict_update", (kd.dict({"a": 1}), "a", 5), {}, None),
    ("dicts.dict_update", (kd.dict({"a": 1}), kd.dict({"b": 2})), {}, None),
    ("list_append_update", (kd.list([1, 2]), kd.slice([3, 4])), {}, None),
]


@pytest.mark.parametrize("name,args,kwargs,expected", _BAG_OPERATORS, ids=[c[0] for c in _BAG_OPERATORS])
def test_bag_operators_are_one_operator(one_operator, name, args, kwargs, expected):
    result = one_operator(name, *args, **kwargs)
    if expected is not None:
        assert text(result) == expected
    else:
        assert isinstance(result, kd.types.DataBag)


def test_bag_results_and_literals_in_functors():
    update = kd.attrs(_E, a=5)
    f = kd.fn(lambda x: kd.with_bag(x, update))  # a bag literal inside the functor
    loaded = kd.loads(kd.dumps(f))
    assert loaded(kd.no_bag(_E)).a.to_py() == f(kd.no_bag(_E)).a.to_py() == 5
    g = kd.fn(lambda x: kd.updated(x, kd.attrs(x, b=kd.get_ndim(x))))  # a bag made inside the functor
    assert text(kd.loads(kd.dumps(g))(_E)) == "DataItem(Entity(a=1, b=0), schema: ENTITY(a=INT32, b=INT64))"
    # The null bag travels through expressions as None.
    assert kd.is_null_bag(kd.eval(kd.lazy.get_bag(kd.I.x), x=kd.item(1)))
    assert kd.eval(kd.lazy.is_null_bag(kd.lazy.get_bag(kd.I.x)), x=kd.item(1)) == kd.present
