"""Entities, objects and struct schemas (seed 000 "Struct Schemas", "OBJECT",
"Implicit and Explicit Entity Schemas", "Narrowing")."""

import pytest

from plait import kd


def test_entity_repr_schema_and_bag():
    e = kd.new(x=1, y="a")
    assert repr(e).startswith("DataItem(Entity(x=1, y='a'), schema: ENTITY(x=INT32, y=STRING), bag_id: $")
    assert repr(e.get_schema()).startswith("DataItem(ENTITY(x=INT32, y=STRING), schema: SCHEMA, bag_id: $")
    assert repr(e.get_itemid()).startswith("DataItem(Entity:$")
    assert e.x.to_py() == 1 and e.y.to_py() == "a"
    assert not e.get_bag().is_mutable()


def test_entity_schemas_are_allocated_and_uu_named():
    assert kd.new(x=1).get_schema() != kd.new(x=1).get_schema()
    assert kd.named_schema("Point") == kd.named_schema("Point")
    p = kd.new(x=kd.slice([1, None]), schema="Point")
    assert "schema: Point(x=INT32)" in repr(p)
    point = kd.new(x=1, schema=kd.named_schema("Point", x=kd.INT32))
    assert repr(point).startswith("DataItem(Entity(x=1), schema: Point(x=INT32)")


def test_slices_of_entities():
    es = kd.new(x=kd.slice([1, 2, None]))
    assert repr(es).startswith("DataSlice([Entity(x=1), Entity(x=2), Entity(x=None)], schema: ENTITY(x=INT32), present: 3/3")
    assert es.x.to_py() == [1, 2, None]
    nested = kd.new(x=kd.slice([1, 2]), y=kd.slice([[1], [2, 3]]))
    assert nested.y.to_py() == [[1], [2, 3]] and nested.x.to_py() == [[1], [2, 2]]


def test_objects_have_implicit_schemas():
    o = kd.obj(x=1)
    assert repr(o).startswith("DataItem(Obj(x=1), schema: OBJECT")
    assert repr(o.get_obj_schema()).startswith("DataItem(IMPLICIT_ENTITY(x=INT32), schema: SCHEMA")
    ds = kd.slice([1, "abc", kd.obj(x=1)])
    assert ds.get_schema() == kd.OBJECT
    assert repr(ds.get_obj_schema()).startswith("DataSlice([INT32, STRING, IMPLICIT_ENTITY(x=INT32)], schema: SCHEMA")


def test_objects_attribute_schemas_combine():
    assert kd.slice([kd.obj(x=1), kd.obj(x=kd.int64(2))]).x.get_schema() == kd.INT64
    mixed = kd.slice([kd.obj(x=1), kd.obj(x="a"), kd.obj(y=1)])
    assert mixed.maybe("x").to_py() == [1, "a", None]
    with pytest.raises(AttributeError, match=r"the attribute 'x' is missing for at least one object at ds.flatten\(\).S\[2\]"):
        mixed.x


def test_objects_or_float_but_not_entities():
    mask = kd.slice([kd.present, None] * 5)
    objects = kd.obj(x=kd.slice([1] * 10)) & mask
    entities = kd.new(x=kd.slice([1] * 10)) & mask
    filled = objects | 2.0
    assert filled.get_schema() == kd.OBJECT
    assert filled.S[1].to_py() == 2.0
    assert repr(filled.S[0]).startswith("DataItem(Obj(x=1)")
    with pytest.raises(ValueError):
        entities | 2.0
    assert entities.x.to_py() == [1, None] * 5


def test_explicit_schema_refuses_overwrite():
    entity = kd.new(a=1)
    with pytest.raises(ValueError, match="the schema for attribute 'a' is incompatible"):
        entity.with_attrs(a="2")
    entity = entity.with_attrs(a="2", overwrite_schema=True)
    assert repr(entity.get_schema()).startswith("DataItem(ENTITY(a=STRING)")
    obj = kd.obj(a=1).with_attrs(a="2")
    assert repr(obj.get_obj_schema()).startswith("DataItem(IMPLICIT_ENTITY(a=STRING)")


def test_new_attributes_are_allowed_on_both():
    entity = kd.new(a=1).with_attrs(b="2")
    assert repr(entity.get_schema()).startswith("DataItem(ENTITY(a=INT32, b=STRING)")
    obj = kd.obj(a=1).with_attrs(b="2")
    assert repr(obj.get_obj_schema()).startswith("DataItem(IMPLICIT_ENTITY(a=INT32, b=STRING)")


def test_narrowing_on_assignment():
    schema = kd.schema.new_schema(x=kd.INT32)
    e = kd.new(x=kd.item(1, schema=kd.OBJECT), schema=schema)
    assert repr(e.x) .startswith("DataItem(1, schema: INT32")
    with pytest.raises(ValueError, match="cannot create Item"):
        kd.new(x="a", schema=schema)
    assert kd.new(x=1, schema=kd.schema.new_schema(x=kd.INT64)).x.get_schema() == kd.INT64


def test_immutable_bag_points_to_fork_bag():
    e = kd.new(x=1)
    with pytest.raises(ValueError, match="fork_bag"):
        e.x = 2
    m = e.fork_bag()
    m.x = 5
    m.y = "q"
    assert repr(m).startswith("DataItem(Entity(x=5, y='q'), schema: ENTITY(x=INT32, y=STRING)")
    assert e.x.to_py() == 1  # the fork does not change the original
    with pytest.raises(ValueError, match="incompatible"):
        m.x = "a"
    m.set_attr("x", "a", overwrite_schema=True)
    assert m.x.to_py() == "a"


def test_attribute_errors():
    with pytest.raises(AttributeError, match="primitives do not have attributes, got INT32"):
        kd.slice(1).x
    with pytest.raises(AttributeError, match="reference without a bag"):
        kd.new(x=1).no_bag().x
    with pytest.raises(AttributeError, match="ITEMIDs do not allow attribute access"):
        kd.new(x=1).get_itemid().x
    with pytest.raises(AttributeError, match="the attribute 'zz' is missing on the schema"):
        kd.new(x=1).zz
    assert not hasattr(kd.new(x=1), "zz")


def test_get_attr_default_maybe_has_attr_dir():
    assert kd.new(x=1).get_attr("y", default=0).to_py() == 0
    assert kd.new(x=kd.slice([1, None])).get_attr("x", default=5).to_py() == [1, 5]
    assert kd.new(x=kd.slice([1, None])).maybe("y").to_py() == [None, None]
    assert kd.has_attr(kd.new(x=1), "x") == kd.present
    assert kd.dir(kd.new(y=1, x=2)) == ["x", "y"]
    assert kd.get_attr_names(kd.slice([kd.obj(a=1, b=2), kd.obj(a=3)]), intersection=True) == ["a"]
    assert kd.get_attr_names(kd.slice([kd.obj(a=1, b=2), kd.obj(a=3)]), intersection=False) == ["a", "b"]


def test_nested_entities_and_objects():
    assert repr(kd.new(a=kd.new(b=1))).startswith("DataItem(Entity(a=Entity(b=1)), schema: ENTITY(a=ENTITY(b=INT32))")
    assert repr(kd.obj(a=kd.obj(b=1))).startswith("DataItem(Obj(a=Obj(b=1)), schema: OBJECT")
    assert kd.new(a=kd.new(b=1)).a.b.to_py() == 1
    assert repr(kd.new()).startswith("DataItem(Entity():$")


def test_mutable_bag_new_and_bag_repr():
    b = kd.mutable_bag()
    assert repr(b).startswith("DataBag(empty, $")
    x = b.new(a=1)
    assert x.get_bag()._same_as(b)
    x.a = 2
    assert x.a.to_py() == 2
    assert "a => 2" in b.contents_repr()


def test_with_attr_keeps_original():
    e = kd.new(x=1)
    e2 = e.with_attr("y", 2)
    assert repr(e2).startswith("DataItem(Entity(x=1, y=2)")
    assert kd.dir(e) == ["x"]


def test_obj_of_primitives_and_new_of_primitives():
    assert repr(kd.obj(1)).startswith("DataItem(1, schema: OBJECT, bag_id: $")  # an empty bag, as in Koda
    assert repr(kd.new(1)).startswith("DataItem(1, schema: INT32, bag_id: $")


def test_many_entities_share_one_dense_column():
    n = 100_000
    es = kd.new(x=kd.slice(list(range(n))))
    assert es.x.to_py()[-1] == n - 1
    objs = kd.obj(x=kd.slice(list(range(n))))
    assert objs.x.get_schema() == kd.INT32
    assert kd.agg_sum(kd.int64(objs.x)).to_py() == n * (n - 1) // 2


def test_object_attributes_without_a_value_schema_are_none():
    # Koda: an attribute whose schemas are all NONE (or that no object has,
    # with maybe/default) gives NONE items, not OBJECT.
    assert kd.obj(x=None).x.get_schema() == kd.NONE
    objects = kd.obj(x=kd.slice([1, None, 3]))
    assert objects.maybe("y").get_schema() == kd.NONE
    assert objects.get_attr("y", default=5).get_schema() == kd.INT32


def test_whole_allocation_reads_and_writes():
    # kd.new of many items stores each attribute as one column; partial
    # updates and layered bags still read item by item.
    es = kd.new(x=kd.slice(list(range(40))))
    assert es.x.to_py() == list(range(40))
    m = es.fork_bag()
    m.S[3].x = -1
    assert m.x.to_py()[:5] == [0, 1, 2, -1, 4]
    assert es.x.to_py()[3] == 3
    part = es.S[10:30].with_attrs(y=1)
    assert kd.maybe(es.with_bag(part.get_bag()), "y").to_py() == [None] * 10 + [1] * 20 + [None] * 10
    objects = kd.obj(x=kd.slice(list(range(40)))).with_attrs(y=2.5)
    assert objects.y.to_py() == [2.5] * 40 and objects.x.to_py()[-1] == 39


def test_fixes_found_by_the_differential_tests():
    # An entity attribute read through objects keeps the entity schema.
    o = kd.obj(x=kd.slice([1, 2]), y=kd.new(z=1.5))
    assert o.y.z.to_py() == [1.5, 1.5]
    assert kd.slice([kd.obj(x=kd.new(z=1)), kd.obj(x=None)]).x.z.to_py() == [1, None]
    # Missing values fit any entity schema; entities fit an OBJECT attribute.
    e = kd.new(x=kd.new(z=1)).with_attrs(x=None)
    assert str(e.x.get_schema()) == "ENTITY(z=INT32)" and e.x.to_py() is None
    assert kd.new(x=kd.slice([1, "a"])).with_attrs(x=kd.new(y=kd.slice([5, 6]))).x.y.to_py() == [5, 6]
    with pytest.raises(ValueError, match="incompatible"):
        kd.new(x=kd.new(z=1)).with_attrs(x=kd.int32(None))
    # get_attr's default fills in for present items only, with its schema.
    m = kd.slice([kd.present, None, kd.present])
    e = kd.new(x=kd.slice([1, None, 3])) & m
    assert e.get_attr("y", default=5).to_py() == [5, None, 5]
    assert e.get_attr("x", default=5).to_py() == [1, None, 3]
    assert e.get_attr("y", default=kd.new(z=1)).z.to_py() == [1, None, 1]
    # Primitives and bag-less slices have no attributes to check or list.
    with pytest.raises(ValueError, match="primitives do not have attributes"):
        kd.has_attr(kd.slice([1, 2]), "x")
    with pytest.raises(ValueError, match="without a bag"):
        kd.has_attr(kd.slice([None, None]), "x")
    with pytest.raises(ValueError, match="without a DataBag"):
        kd.dir(kd.slice([1, 2]))
    assert kd.dir(kd.new(x=kd.slice([1, 2])).x) == []
    # with_attrs on a NONE slice with a bag leaves it as is.
    none = kd.slice([None, None]).with_bag(kd.bag())
    assert none.with_attrs(x=1).get_schema() == kd.NONE


def test_partial_writes_keep_earlier_values_of_the_allocation():
    # A value set alone (stored sparsely) survives a later write of 16 items
    # of the same allocation (stored as a column) that does not reach it.
    ds = kd.new(a=kd.slice(list(range(200)))).fork_bag()
    ds.S[100].set_attr("x", 5)
    ds.S[0:16].set_attr("x", kd.slice(list(range(16))))
    assert ds.S[100].x.to_py() == 5
    assert ds.S[3].x.to_py() == 3



def test_the_schema_attribute_cannot_be_given_as_a_value():
    # Koda makes a broken object of it (see docs/differences.md).
    with pytest.raises(ValueError, match="the attribute '__schema__' cannot be set directly"):
        kd.obj(__schema__=1)
    with pytest.raises(ValueError, match="the attribute '__schema__' cannot be set directly"):
        kd.new(__schema__=kd.INT32)
    # from_py of a dict with that key, as objects: Koda's error.
    for value in ({"__schema__": 1}, [{"a": 1}, {"__schema__": "x"}], {"a": {"__schema__": 1}}):
        with pytest.raises(ValueError, match="only schemas can be assigned to the '__schema__' attribute, got OBJECT"):
            kd.from_py(value, dict_as_obj=True)
    # Under an entity schema the key is not an attribute: left out.
    assert kd.from_py({"__schema__": 1, "a": 2}, schema=kd.named_schema("A", a=kd.INT32)).a.to_py() == 2


def test_attribute_values_of_one_id_with_different_data_are_a_merge_conflict():
    # Koda says only "cannot create Item(s)"; plait names the entity and the
    # attribute (docs/differences.md).
    e = kd.new(a=1)
    other = kd.new(a=2, itemid=e.get_itemid())
    with pytest.raises(ValueError, match="(?s)kd.entities.new: cannot merge DataBags.*attribute 'a' are different: 1 vs 2"):
        kd.new(x=e, y=other)
