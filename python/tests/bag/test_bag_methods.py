"""Koda's DataBag methods: creating items in a mutable bag (`bag.new`,
`bag.list`, `bag.uu`, schemas, ...), adopting, merging in place, the triples
reprs, and the small ones (`__bool__`, `__getitem__`, `qtype`, ...)."""

import re

import pytest

from plait import kd

IMMUTABLE = r"cannot modify/create item\(s\) on an immutable DataBag"


def test_creating_methods_write_into_the_bag():
    bag = kd.mutable_bag()
    made = [
        bag.new(a=1), bag.new_like(kd.slice([1, None]), a=1), bag.new_shaped(kd.shapes.new(2), a=1),
        bag.obj(a=1), bag.obj_like(kd.slice([1, None]), a=1), bag.obj_shaped(kd.shapes.new(2), a=1),
        bag.uu(a=1), bag.uuobj(a=1), bag.list([1, 2]), bag.list_shaped(kd.shapes.new(2)),
        bag.list_like(kd.slice([1, None]), kd.slice([1, 2])), bag.dict({"a": 1}),
        bag.dict_like(kd.slice([1, None]), "a", 1), bag.dict_shaped(kd.shapes.new(2)),
        bag.implode(kd.slice([[1, 2], [3]])), bag.concat_lists(kd.list([1]), kd.list([2])),
        bag.named_schema("N", a=kd.INT32), bag.new_schema(a=kd.INT32), bag.uu_schema(a=kd.INT32),
        bag.list_schema(kd.INT32), bag.dict_schema(kd.STRING, kd.INT32),
    ]
    for x in made:
        assert x.get_bag()._same_as(bag), x
    # What was made lives in the bag itself: it can be changed in place.
    e = made[0]
    e.a = 5
    assert e.a.to_py() == 5
    assert made[8][:].to_py() == [1, 2]
    assert bag.concat_lists(made[8], made[8])[:].to_py() == [1, 2, 1, 2]


def test_creating_methods_need_a_mutable_bag():
    for make in [lambda b: b.list([1]), lambda b: b.dict({1: 2}), lambda b: b.uu(a=1),
                 lambda b: b.named_schema("N"), lambda b: b.implode(kd.slice([[1]]))]:
        with pytest.raises(ValueError, match=IMMUTABLE):
            make(kd.bag())
    # As Koda words it for entities and objects: the immutable bag's error
    # is the cause.
    for make in [lambda b: b.new(a=1), lambda b: b.obj(a=1), lambda b: b.new_shaped(kd.shapes.new(2)),
                 lambda b: b.obj_like(kd.slice([1]))]:
        with pytest.raises(ValueError, match=r"^DataBag\.\w+: cannot create Item\(s\)$") as caught:
            make(kd.bag())
        assert re.search(IMMUTABLE, str(caught.value.__cause__))


def test_chain_built_in_one_bag_stays_in_it():
    bag = kd.mutable_bag()
    node = bag.obj(v=0)
    for i in range(1, 50):
        node = bag.obj(v=i, next=node)
    assert node.get_bag()._same_as(bag)
    assert node.next.next.v.to_py() == 47


def test_nested_data_built_level_by_level_in_one_bag():
    # Each level is made from the one before, in the same bag: what the
    # creating method is given is in the bag already, so nothing is copied
    # along (each call is O(1) in the depth, as in Koda; it was a walk of
    # everything below).
    bag = kd.mutable_bag()
    depth = 5_000
    cur = bag.list([0])
    for _ in range(depth):
        cur = bag.list([cur])
    assert cur.get_bag()._same_as(bag)
    for _ in range(depth):
        cur = cur[0]
    assert cur[:].to_py() == [0]
    # (make a level from the one below, read it back)
    makers = [(lambda x: bag.dict({"k": x}), lambda d: d["k"]),
              (lambda x: bag.implode(kd.slice([x])), lambda li: li[0]),
              (lambda x: bag.obj(k=x), lambda o: o.k),
              (lambda x: bag.new(k=[x]), lambda e: e.k[0]),
              (lambda x: bag.dict(kd.slice(["k"]), kd.slice([x])), lambda d: d["k"])]
    for make, down in makers:
        cur = bag.new(v=7)
        for _ in range(1_000):
            cur = make(cur)
        assert cur.get_bag()._same_as(bag)
        for _ in range(1_000):
            cur = down(cur)
        assert cur.v.to_py() == 7


def test_values_of_the_bag_given_to_creating_methods():
    bag = kd.mutable_bag()
    inner, e = bag.list([1, 2]), bag.new(a=1)
    x = kd.mutable_bag().obj(c=3)
    given = [[inner], (inner,), [inner]]
    assert bag.list(given)[:][:][:].to_py() == [[[1, 2]], [[1, 2]], [[1, 2]]]
    assert given[0][0].get_bag()._same_as(bag)  # what was given is unchanged
    shared = [inner]
    assert bag.list([shared, shared])[:][:][:].to_py() == [[[1, 2]], [[1, 2]]]
    assert bag.dict({e: inner})[e][:].to_py() == [1, 2]
    # Values of other bags are brought along as before.
    assert bag.list([bag.obj(b=2), x])[:].to_py() == [kd.obj(b=2).to_py(), x.to_py()]
    assert bag.obj(a={"k": e}).a["k"].a.to_py() == 1
    # `_left_off` returns what it was given when no value of the bag is in it.
    plain = [[1, x], {"k": (2,)}]
    assert bag._left_off(plain) is plain
    assert bag._left_off(inner)._bag() is None
    cyclic = [inner]
    cyclic.append(cyclic)
    assert bag._left_off(cyclic)[1] is cyclic
    # Errors read as they do for the arguments as given (schemas shown with
    # their attributes).
    with pytest.raises(ValueError, match=r"first conflicting schema \S+: ENTITY\(a=INT32\)"):
        bag.list([e, x])
    with pytest.raises(ValueError, match=r"Expected schema for list items: ENTITY\(a=INT64\)"):
        bag.list([e], item_schema=bag.new_schema(a=kd.INT64))
    with pytest.raises(ValueError, match="non-lists and lists cannot be mixed"):
        bag.list(cyclic)


def test_uu_in_a_bag_is_deterministic():
    bag = kd.mutable_bag()
    assert bool(bag.uu(a=1).get_itemid() == bag.uu(a=1).get_itemid())
    assert bool(bag.uu(a=1).get_itemid() == kd.uu(a=1).get_itemid())


def test_adopt_and_adopt_stub():
    e = kd.new(x=1, y=kd.new(z=2))
    bag = kd.mutable_bag()
    adopted = bag.adopt(e)
    assert adopted.get_bag()._same_as(bag) and adopted.y.z.to_py() == 2
    stub = kd.mutable_bag().adopt_stub(e)
    assert stub.get_attr_names(intersection=True) == []
    with pytest.raises(ValueError, match=IMMUTABLE):
        kd.bag().adopt(e)


def test_merge_inplace_options():
    e = kd.new(x=1)
    update = e.with_attrs(x=2).get_bag()
    bag = e.get_bag().fork()
    assert bag.merge_inplace(update) is bag
    assert e.with_bag(bag).x.to_py() == 2
    bag = e.get_bag().fork()
    bag.merge_inplace([update], overwrite=False)
    assert e.with_bag(bag).x.to_py() == 1
    with pytest.raises(ValueError, match="cannot merge DataBags"):
        e.get_bag().fork().merge_inplace(update, allow_data_conflicts=False)
    schema_change = e.with_attrs(x="a", overwrite_schema=True).get_bag()
    with pytest.raises(ValueError, match="merging schemas"):
        e.get_bag().fork().merge_inplace(schema_change)
    bag = e.get_bag().fork()
    bag.merge_inplace(schema_change, allow_schema_conflicts=True)
    assert e.with_bag(bag).x.to_py() == "a"
    with pytest.raises(ValueError, match=IMMUTABLE):
        kd.bag().merge_inplace(update)
    with pytest.raises(TypeError, match="must be an iterable"):
        kd.mutable_bag().merge_inplace(1)


def test_merge_fallbacks_is_a_mutable_copy():
    e = kd.new(x=1)
    layered = kd.updated(e, kd.attrs(e, y=2)).get_bag()
    merged = layered.merge_fallbacks()
    assert bool(merged.is_mutable()) and merged.fallbacks() == [] if hasattr(merged, "fallbacks") else True
    assert e.with_bag(merged).y.to_py() == 2


def test_triples_reprs():
    bag = kd.mutable_bag()
    o = bag.obj(a=1, b="x")
    bag.list([1, 2])
    bag.dict({"k": 1.5})
    data, schema = bag.data_triples_repr(), bag.schema_triples_repr()
    assert repr(data).startswith("DataBag $") and repr(schema).startswith("SchemaBag $")
    assert ".get_obj_schema() =>" in data and ".a => 1" in data and ".b => x" in data
    assert "[:] => [1, 2]" in data and "['k'] => 1.5" in data
    assert ".a => INT32" in schema and ".get_item_schema() => INT32" in schema
    assert ".get_key_schema() => STRING" in schema and ".get_value_schema() => FLOAT32" in schema
    contents = bag.contents_repr()
    assert contents == data + "\nSchemaBag:\n" + schema.split("\n", 1)[1]
    limited = bag.contents_repr(triple_limit=2)
    assert limited.endswith("Showing only the first 2 triples. Use 'triple_limit' parameter of 'db.contents_repr()' "
                            "to adjust this\n")
    assert str(o.get_bag().contents_repr()).count("\n") > 3
    with pytest.raises(ValueError, match="triple_limit"):
        bag.contents_repr(triple_limit=0)


def test_small_methods():
    bag = kd.mutable_bag()
    with pytest.raises(TypeError, match="__bool__ disabled"):
        bool(bag)
    assert bag[kd.slice([1])].get_bag()._same_as(bag)
    with pytest.raises(TypeError, match="expected DataSlice, got int"):
        bag[1]
    assert repr(bag.qtype) == "DATA_BAG"
    assert bag.with_name("x") is bag
    with pytest.raises(ValueError, match="Name must be a string"):
        bag.with_name(1)
    assert not bool(kd.types.DataBag.empty().is_mutable())
    assert bool(kd.types.DataBag.empty_mutable().is_mutable())
    assert bag.fingerprint == bag.fingerprint != kd.bag().fingerprint
    assert kd.bag().get_approx_size() == 0
    assert kd.list([1, 2, 3]).get_bag().get_approx_size() == 4
    assert kd.obj(x=1).get_bag().get_approx_size() == 3
