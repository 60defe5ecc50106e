"""Which value wins when bags combine (docs/bags.md, plait-core's
bag/layering.rs): updates win over what they update, enrichments lose to it,
and inputs merged into a new bag must agree. Every expected value here is
what koladata 0.0.4 gives for the same program."""

import pytest

from plait import kd


def conflict(attr, ours, theirs):
    return (f"(?s)cannot merge DataBags due to an exception encountered when merging entities.*"
            f"The cause is the values of attribute '{attr}' are different: {ours} vs {theirs}")


# --- the examples of issue 18

def test_an_update_of_a_sub_entity_given_to_with_attrs_wins():
    r = kd.new(x=1, y=2, z=kd.new(a=3, b=4, schema="Data"), schema="PointWithData")
    updated = r.with_attrs(z=r.z.with_attrs(a=30, c=50))
    assert updated.z.a.to_py() == 30
    assert updated.z.c.to_py() == 50
    assert updated.z.b.to_py() == 4
    assert r.z.a.to_py() == 3  # the original is unchanged


def test_new_of_two_versions_of_one_entity_is_a_merge_conflict():
    x = kd.new(a=1)
    with pytest.raises(ValueError, match=conflict("a", 1, 5)):
        kd.new(p=x, q=x.with_attrs(a=5))
    with pytest.raises(ValueError, match=conflict("a", 1, 5)):
        kd.obj(p=x, q=x.with_attrs(a=5))


def test_clone_of_a_repeated_entity_makes_one_clone_per_position():
    z = kd.new(x=1)
    a = kd.new(x=kd.slice([1, 2, 3]))
    a = a.with_attrs(z=z.expand_to(a).clone())
    assert (a.S[0].z.get_itemid() != a.S[1].z.get_itemid()).to_py() == kd.present
    assert a.updated(kd.attrs(a.S[2].z, x=10)).z.x.to_py() == [1, 1, 10]


# --- the merge rule: inputs' bags must agree

@pytest.mark.parametrize("make", [
    lambda x, y: kd.list([x, y]),
    lambda x, y: kd.slice([x, y]),
    lambda x, y: kd.dict({1: x, 2: y}),
    lambda x, y: kd.stack(x, y),
    lambda x, y: kd.concat(kd.slice([x]), kd.slice([y])),
    lambda x, y: kd.zip(x, y),
    lambda x, y: kd.attrs(x, p=y, q=x.with_attrs(a=6)),
])
def test_every_merge_of_disagreeing_bags_raises(make):
    x = kd.new(a=1)
    with pytest.raises(ValueError, match="cannot merge DataBags"):
        make(x, x.with_attrs(a=5))


def test_set_to_missing_disagrees_with_a_value():
    x = kd.new(a=1)
    with pytest.raises(ValueError, match=conflict("a", 1, "None")):
        kd.new(p=x, q=x.with_attrs(a=None))


def test_a_dict_entry_set_twice_differently_is_a_conflict():
    d = kd.dict({1: 2})
    with pytest.raises(ValueError, match="(?s)merging dicts.*Dict\\{1=2\\}.*Dict\\{1=3\\}.*key 1 is incompatible: 2 vs 3"):
        kd.new(p=d, q=kd.with_dict_update(d, 1, 3))
    # Other keys merge.
    assert sorted(kd.new(p=d, q=kd.with_dict_update(d, 2, 3)).q.to_py().items()) == [(1, 2), (2, 3)]


def test_agreeing_bags_merge_and_each_input_adds_what_it_knows():
    x = kd.new(a=1)
    both = kd.new(p=x, q=x.with_attrs(b=5))
    assert both.to_py(obj_as_dict=True) == {"p": {"a": 1, "b": 5}, "q": {"a": 1, "b": 5}}
    assert kd.slice([x, x]).get_bag()._same_as(x.get_bag())  # one bag: nothing to merge


def test_unrelated_bags_merge_without_comparing_items():
    xs = kd.new(a=kd.slice(list(range(1000))))
    ys = kd.new(a=kd.slice(list(range(1000))))
    pairs = kd.new(p=xs, q=ys)
    assert pairs.q.a.to_py()[-1] == 999


# --- the update rule: the update wins, and values' bags win over x's

def test_values_given_to_with_attrs_win_over_the_bag_they_update():
    x = kd.new(a=1)
    assert x.with_attrs(q=x.with_attrs(a=5)).a.to_py() == 5
    assert kd.with_attrs(x.with_attrs(a=7), q=x.with_attrs(a=5)).a.to_py() == 5
    # ... and the attributes set by with_attrs itself win over the values.
    assert x.with_attrs(a=9, q=x.with_attrs(a=5)).a.to_py() == 9
    with pytest.raises(ValueError, match=conflict("a", 5, 6)):
        x.with_attrs(q=x.with_attrs(a=5), p=x.with_attrs(a=6))


def test_updated_and_enriched_order():
    x = kd.new(a=1)
    update = x.with_attrs(a=5).get_bag()
    assert x.updated(update).a.to_py() == 5
    assert x.enriched(update).a.to_py() == 1
    assert kd.with_bag(x, x.get_bag() << update).a.to_py() == 5
    assert kd.with_bag(x, x.get_bag() >> update).a.to_py() == 1
    assert x.updated(kd.attrs(x, a=2), kd.attrs(x, a=3)).a.to_py() == 3
    assert kd.with_bag(x, kd.enriched_bag(kd.attrs(x, a=2), kd.attrs(x, a=3))).a.to_py() == 2


# --- mutable inputs: merges copy them, layering reads through

def test_merges_snapshot_mutable_inputs_and_layering_reads_through():
    m = kd.new(a=1).fork_bag()
    made = kd.new(p=m)
    in_dict = kd.dict({1: m})
    enriched = kd.new(b=1).enriched(m.get_bag())
    with_attrs = m.with_attrs(c=1)
    m.a = 2
    assert made.p.a.to_py() == 1
    assert in_dict[1].a.to_py() == 1
    assert kd.with_bag(m, enriched.get_bag()).a.to_py() == 2
    assert with_attrs.a.to_py() == 2


def test_fork_and_freeze_copy():
    m = kd.new(a=1).fork_bag()
    frozen = m.freeze_bag()
    m.a = 2
    fork = m.fork_bag()
    m.a = 3
    assert (frozen.a.to_py(), fork.a.to_py(), m.a.to_py()) == (1, 2, 3)


def test_a_mutable_bag_adopts_values_and_raises_on_conflicts():
    m = kd.mutable_bag()
    e = m.new(a=1)
    x = kd.new(b=2)
    e.p = x
    assert e.p.b.to_py() == 2
    with pytest.raises(ValueError, match=conflict("b", 2, 3)):
        e.q = x.with_attrs(b=3)


# --- bags on primitive results, as in Koda

def test_operators_that_pass_items_through_keep_the_bag():
    bag = kd.bag()
    x = kd.slice([1, 2]).with_bag(bag)
    mask = kd.slice([kd.present, None])
    for result in [kd.select(x, mask), kd.reverse(x), kd.take(x, 0), kd.coalesce(x, 0), x & mask,
                   kd.stack(x, x), kd.sort(x)]:
        assert result.get_bag()._same_as(bag), result
    for result in [x + 1, kd.agg_sum(x), x == 1, kd.has(x), kd.count(x)]:
        assert not result.has_bag(), result


def test_new_and_obj_of_a_primitive_give_a_bag():
    assert kd.obj(1).has_bag()
    assert kd.new(1).has_bag()
    bag = kd.bag()
    assert kd.obj(kd.item(1).with_bag(bag)).get_bag()._same_as(bag)


@pytest.mark.no_type_checks
def test_deep_layering_reads_without_recursion():
    x = kd.new(a=1)
    for _ in range(20_000):
        x = x.enriched(kd.bag())
    assert x.a.to_py() == 1
    y = kd.new(a=1)
    for i in range(3_000):
        y = y.with_attrs(a=i)
    assert y.a.to_py() == 2_999


def test_single_writes_into_a_large_mutable_bag_are_read_everywhere():
    # Writes of a few items land as patches over the column (O(1) each);
    # every read, copy and save sees them.
    n = 5000
    objs = kd.obj(a=kd.slice(list(range(n)))).fork_bag()
    ents = kd.new(a=kd.slice(list(range(n)))).fork_bag()
    for x in (objs, ents):
        frozen = x.freeze_bag()
        x.S[7].a = -7
        x.S[8].a = None
        x.S[9].a = 'nine' if x is objs else 9
        values = x.a.to_py()
        assert values[6:10] == [6, -7, None, 'nine' if x is objs else 9]
        assert kd.select(x, kd.slice([i in (7, 9) for i in range(n)]) == True).a.to_py()[0] == -7  # noqa: E712
        assert frozen.a.to_py()[7] == 7
        assert kd.loads(kd.dumps(x)).a.to_py()[6:10] == values[6:10]
        assert kd.with_merged_bag(x).a.to_py()[6:10] == values[6:10]
    for i in range(3000):  # enough to fold the patches into the column
        ents.S[i].a = i + 1
    assert ents.a.to_py()[:3] == [1, 2, 3] and ents.a.to_py()[3000] == 3000


def test_items_of_one_mutable_bag_keep_reading_it():
    # Nothing to merge: kd.slice / kd.stack keep the one bag, as in Koda; items
    # of different bags are merged, which copies them.
    y = kd.new(a=1).fork_bag()
    one = kd.slice([y])
    two = kd.stack(y, y)
    mixed = kd.slice([y, y.clone()])
    made = kd.new(p=y)
    y.a = 7
    assert one.a.to_py() == [7]
    assert two.a.to_py() == [7, 7]
    assert mixed.a.to_py() == [1, 1]
    assert made.p.a.to_py() == 1


def test_many_bags_merge_into_one_layer_and_still_check_conflicts():
    # kd.slice of items made one by one: each with its own bag. The merge is
    # linear (one new layer), and a disagreement among them is still found.
    items = [kd.obj(a=i) for i in range(500)]
    merged = kd.slice(items)
    assert merged.a.to_py() == list(range(500))
    x = kd.obj(a=1)
    with pytest.raises(ValueError, match=conflict("a", 1, 5)):
        kd.slice(items[:20] + [x, x.with_attrs(a=5)])


def test_many_bags_sharing_no_item_merge_whole_and_exactly():
    # Bags each holding items of one allocation the others hold too (one
    # entity each, updated), beside objects made one by one: every value
    # read back from the merge, and the shared base still agrees.
    ents = kd.obj(a=kd.slice(list(range(40))))
    parts = [ents.S[i].updated(kd.attrs(ents.S[i], b=i * 10)) for i in range(40)]
    parts += [kd.obj(a=i, s=f"t{i}") for i in range(40)]
    merged = kd.slice(parts)
    assert merged.a.to_py() == list(range(40)) * 2
    assert merged.S[:40].b.to_py() == [i * 10 for i in range(40)]
    assert merged.S[40:].s.to_py() == [f"t{i}" for i in range(40)]
    with pytest.raises(ValueError, match=conflict("b", 0, 1)):
        kd.slice(parts + [ents.S[0].updated(kd.attrs(ents.S[0], b=1))])


# --- values bring along only what is reachable from them (Koda's adopt)

def unreachable_conflict():
    """`u` with a=1, and `w` whose bag also holds u.a=2, u.c=3, which `w`
    does not reach."""
    u = kd.obj(a=1)
    w = kd.obj(z=1).enriched(kd.attrs(u, a=2, c=3))
    return u, w


@pytest.mark.parametrize("build", [
    lambda u, w: kd.slice([u, w]).S[0],
    lambda u, w: kd.stack(u, w).S[0],
    lambda u, w: kd.concat(kd.slice([u]), kd.slice([w])).S[0],
    lambda u, w: kd.zip(u, w).S[0],
    lambda u, w: kd.new(p=u, q=w).p,
    lambda u, w: kd.obj(p=u, q=w).p,
    lambda u, w: kd.uu(p=u, q=w).p,
    lambda u, w: kd.list([u, w])[0],
    lambda u, w: kd.dict({"x": u, "y": w})["x"],
    lambda u, w: kd.implode(kd.slice([u, w]))[0],
    lambda u, w: u.with_attrs(q=w),
    lambda u, w: kd.obj(z=u).with_attrs(q=w).z,
    lambda u, w: u.updated(kd.attrs(u, q=w)),
    lambda u, w: kd.obj(d=kd.dict({"x": u})).d.with_dict_update("y", w)["x"],
    lambda u, w: kd.list([u]).with_list_append_update(w)[0],
])
def test_values_bring_along_only_what_they_reach(build):
    u, w = unreachable_conflict()
    # No conflict with u.a=1, and u.c stays behind.
    result = build(u, w)
    assert result.a.to_py() == 1
    assert result.maybe("c").to_py() is None


@pytest.mark.parametrize("build", [
    lambda u, w: u.updated(w.get_bag()),
    lambda u, w: u.enriched(w.get_bag()),
    lambda u, w: kd.select(kd.slice([u, u]).enriched(w.get_bag()), kd.present).S[0],
    lambda u, w: kd.coalesce(u, w),
])
def test_bags_given_whole_are_read_whole(build):
    u, w = unreachable_conflict()
    assert build(u, w).c.to_py() == 3


def test_an_assigned_value_brings_along_what_it_reaches_after_the_write():
    x = kd.obj(a=1).fork_bag()
    # The value reads through x's bag: it sees a=7 written in the same call.
    x.set_attrs(a=7, q=x.with_attrs(b=2))
    assert (x.a.to_py(), x.q.b.to_py(), x.q.a.to_py()) == (7, 2, 7)
    y = kd.obj(a=1).fork_bag()
    with pytest.raises(ValueError, match=conflict("a", "…", "…").replace("…", ".*")):
        y.q = y.with_attrs(a=5)
    v = kd.obj(a=1).fork_bag()
    held = v.with_attrs(b=5)
    v.a = 9
    v.q = held
    assert (v.a.to_py(), v.b.to_py()) == (9, 5)


def test_an_item_reached_as_entity_and_as_object_keeps_its_object_schema():
    v1 = kd.new(p=kd.obj(a=7, b=7))
    v2 = v1.with_attrs(q=v1, p=v1.with_attrs(a=2))
    v5 = kd.new(a=2, q=v2.with_attrs(a=2))
    assert v5.q.p.a.to_py() == 2
    assert v5.q.p.get_obj_schema().get_attr_names(intersection=True) == ["a", "p", "q"]


def test_unset_attributes_stay_unset_in_what_a_value_brings():
    s = kd.named_schema("S", a=kd.INT32)
    e = kd.new(schema=s)
    x = e.with_attrs(a=5)
    assert kd.obj(p=x, q=e).p.a.to_py() == 5
    assert kd.obj(p=e, q=x).q.a.to_py() == 5
    assert x.with_attrs(z=e).a.to_py() == 5


def test_schemas_as_values_are_extracted_and_cloned_with_their_attributes():
    s = kd.schema.new_schema(x=kd.INT32, y=kd.named_schema("Q", z=kd.INT32))
    assert kd.named_schema("P", x=kd.INT32).extract().get_attr_names(intersection=True) == ["x"]
    assert s.extract().y.get_attr_names(intersection=True) == ["z"]
    clone = s.clone()
    assert clone != s
    assert clone.get_attr_names(intersection=True) == ["x", "y"]
    assert clone.y.get_attr_names(intersection=True) == ["z"]
    assert s.shallow_clone().y.get_attr_names(intersection=True) == []
    assert kd.new(p=s).p.y.get_attr_names(intersection=True) == ["z"]


def test_extract_of_whole_allocations_shares_columns_and_checks_nothing_twice():
    n = 10_000
    x = kd.new(a=kd.range(n))
    y = x.with_attrs(b=kd.range(n) * 2)
    both = kd.new(p=x, q=y)
    assert both.p.a.to_py() == list(range(n))
    assert both.q.b.to_py()[-1] == 2 * (n - 1)
    with pytest.raises(ValueError, match=conflict("a", ".*", ".*")):
        kd.new(p=x, q=y.with_attrs(a=kd.range(n) + 1))


def test_objects_made_in_a_mutable_bag_from_its_own_items_bring_nothing_along():
    bag = kd.mutable_bag()
    x, e = bag.obj(v=0), bag.new(v=0)
    for i in range(1, 50):
        x, e = bag.obj(v=i, next=x), bag.new(v=i, next=e)
    assert (x.next.next.v.to_py(), e.next.v.to_py()) == (47, 48)
    assert x.get_bag()._same_as(bag) and e.next.get_bag()._same_as(bag)
    outside = kd.obj(a=1)
    y = bag.obj(p=outside, q=x)
    assert (y.p.a.to_py(), y.q.v.to_py()) == (1, 49)
