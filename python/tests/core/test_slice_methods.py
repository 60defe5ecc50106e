"""DataSlice, DataItem and JaggedShape methods of issue 21 (those that are
not DataBag methods): clone_as_full, extract_update, strict_with_attrs,
pop, clear, get_sizes, get_dtype, schema `.new`, from_vals, qtype,
with_name, bind, embed_schema, set_schema, shape slicing; and the kd
functions that change a mutable bag in place."""

import pytest

from plait import kd

IMMUTABLE = r"cannot modify/create item\(s\) on an immutable DataBag"


def test_clone_as_full_fills_missing_items():
    e = kd.new(x=1, y=kd.new(z=2))
    c = kd.clone_as_full(kd.slice([e, None]))
    assert c.get_present_count().to_py() == 2
    assert c.x.to_py() == [1, None]
    assert bool(c.S[0].y.get_itemid() == e.y.get_itemid())
    assert not bool(c.S[0].get_itemid() == e.get_itemid())
    assert e.clone_as_full(x=5).x.to_py() == 5
    ids = kd.new_itemid_shaped(kd.shapes.new(2))
    assert bool(kd.all(kd.clone_as_full(kd.slice([e, None]), itemid=ids).get_itemid() == ids))
    with pytest.raises(ValueError, match="kd.entities.shaped: expected Entity schema, got OBJECT"):
        kd.clone_as_full(kd.obj(a=1))


def test_extract_update_and_strict_attrs():
    e = kd.new(x=1, y=kd.new(z=2))
    update = e.y.extract_update()
    assert e.y.no_bag().with_bag(update).z.to_py() == 2
    assert kd.strict_with_attrs(e, x=3).x.to_py() == 3 and e.strict_with_attrs(x=4).x.to_py() == 4
    assert kd.updated(e, kd.strict_attrs(e, x=5)).x.to_py() == 5
    with pytest.raises(ValueError, match="attribute 'q' not found in schema: ENTITY"):
        kd.strict_attrs(e, q=1)
    with pytest.raises(ValueError, match="the schema for attribute 'x' is incompatible"):
        kd.strict_with_attrs(e, x=kd.int64(2))


def test_pop_and_clear():
    lists = kd.slice([kd.list([1, 2]), kd.list([3])]).fork_bag()
    assert lists.pop(kd.slice([1, 0])).to_py() == [2, 3]
    assert lists[:].to_py() == [[1], []]
    one = kd.list([1, 2, 3]).fork_bag()
    assert one.pop(-1).to_py() == 3 and one[:].to_py() == [1, 2]
    with pytest.raises(IndexError, match="List index out of range: list size 2 vs index 5"):
        one.pop(5)
    with pytest.raises(ValueError, match=IMMUTABLE):
        kd.list([1]).pop(0)
    one.clear()
    assert one[:].to_py() == []
    d = kd.dict({1: 2, 3: 4}).fork_bag()
    d.clear()
    assert d[1].to_py() is None and d[3].to_py() is None
    with pytest.raises(ValueError, match="cannot clear lists or dicts without a DataBag"):
        kd.item(1).clear()
    with pytest.raises(ValueError, match=IMMUTABLE):
        kd.list([1]).clear()


def test_small_slice_methods():
    assert kd.slice([[1, 2], [3]]).get_sizes().to_py() == [[2], [2, 1]]
    assert kd.slice([1]).get_dtype().to_py() == kd.INT32.to_py()
    assert str(kd.ITEMID.internal_is_itemid_schema()) == "present"
    assert str(kd.INT32.internal_is_itemid_schema()) == "missing"
    assert kd.named_schema("P", a=kd.INT32).new(a=1).a.to_py() == 1
    with pytest.raises(NotImplementedError, match="only Schema can create new Entities"):
        kd.slice([1]).new(a=1)
    with pytest.raises(ValueError, match="only SchemaItems with DataBags"):
        kd.INT32.new(a=1)
    assert kd.types.DataSlice.from_vals([1, 2]).to_py() == [1, 2]
    assert repr(kd.types.DataItem.from_vals(1, kd.INT64)) == "DataItem(1, schema: INT64)"
    assert repr(kd.slice([1]).qtype) == "DATA_SLICE" and repr(kd.shapes.new(2).qtype) == "JAGGED_SHAPE"
    x = kd.slice([1])
    assert x.with_name("x") is x
    with pytest.raises(ValueError, match="Name must be a string"):
        x.with_name(1)
    f = kd.fn(lambda a, b: a + b)
    assert f.bind(b=1)(2).to_py() == 3
    with pytest.raises(ValueError, match="bind\\(\\) expects a functor"):
        kd.item(1).bind(b=1)


@pytest.mark.parametrize("name", ["internal_as_arolla_value", "internal_as_dense_array"])
def test_arolla_conversions_raise_clearly(name):
    with pytest.raises(NotImplementedError, match="plait has no Arolla"):
        getattr(kd.slice([1]), name)()


def test_container_protocols():
    assert len(kd.list([1, 2])) == 2 and [x.to_py() for x in kd.list([1, 2])] == [1, 2]
    assert 1 in kd.list([1, 2]) and 5 not in kd.list([1, 2])
    assert len(kd.dict({1: 2})) == 1 and [k.to_py() for k in kd.dict({1: 2})] == [1]
    assert 1 in kd.dict({1: 2}) and 5 not in kd.dict({1: 2})
    with pytest.raises(TypeError, match="has no len"):
        len(kd.item(1))


def test_jagged_shape_methods():
    s = kd.shapes.new(2, [2, 1], [1, 2, 3])
    with pytest.raises(TypeError, match="__bool__ disabled for JaggedShape"):
        bool(s)
    assert s[:2] == kd.shapes.new(2, [2, 1]) and s[:0] == kd.shapes.new() and s[:-1] == s[:2]
    assert s[1].sizes() == [2, 1] and s[-1].sizes() == [1, 2, 3]
    with pytest.raises(ValueError, match="jagged shape slicing must start at 0"):
        s[1:]
    with pytest.raises(ValueError, match="expected rank > 5, but got rank = 3"):
        s[5]
    with pytest.raises(TypeError, match="unsupported type: str"):
        s["a"]
    assert s.fingerprint == kd.shapes.new(2, [2, 1], [1, 2, 3]).fingerprint != s[:2].fingerprint
    # Uniform and split storage of the same shape agree; a huge uniform
    # shape costs nothing to fingerprint.
    assert kd.shapes.new(2, 3).fingerprint == kd.shapes.new(2, [3, 3]).fingerprint
    assert int(kd.shapes.new(10**6, 10**6).fingerprint) >= 0


def test_fingerprints_print_as_koda():
    # As Koda's Fingerprint: 32 hex digits, equal for equal values,
    # hashable, and it pickles.
    import pickle

    values = [kd.item(1), kd.bag(), kd.shapes.new(2), kd.I.x + 1, kd.tuple(1, 2), kd.namedtuple(a=1),
              kd.iterables.make(1), kd.qtypes.DATA_SLICE]
    for value in values:
        f = value.fingerprint
        assert len(repr(f)) == 32 and str(f) == repr(f) and int(repr(f), 16) == int(f)
        assert pickle.loads(pickle.dumps(f)) == f and {f: 1}[f] == 1
    assert kd.tuple(1, 2).fingerprint == kd.tuple(1, 2).fingerprint != kd.tuple(1, 3).fingerprint
    assert kd.namedtuple(a=1).fingerprint != kd.namedtuple(b=1).fingerprint
    assert kd.iterables.make(1).fingerprint != kd.iterables.make(1, 1).fingerprint


def test_in_place_functions():
    e = kd.new(x=1).fork_bag()
    kd.set_attr(e, "x", 5)
    kd.set_attrs(e, q="a")
    assert e.x.to_py() == 5 and e.q.to_py() == "a"
    kd.del_attr(e, "x")
    assert e.x.to_py() is None and "x" in e.get_attr_names(intersection=True)
    with pytest.raises(ValueError, match="the attribute 'nope' is missing on the schema"):
        kd.del_attr(e, "nope")
    o = kd.obj(a=1, b=2).fork_bag()
    kd.del_attr(o, "a")
    assert o.get_attr_names(intersection=True) == ["b"]
    with pytest.raises(ValueError, match="failed to delete 'x' attribute; primitives do not have attributes"):
        kd.del_attr(kd.item(1), "x")
    embedded = kd.embed_schema(kd.new(x=1).fork_bag())
    assert str(embedded.get_schema()) == "OBJECT" and embedded.x.to_py() == 1
    assert kd.new(x=1).fork_bag().embed_schema().get_obj_schema().x.to_py() == kd.INT32.to_py()
    with pytest.raises(ValueError, match="cannot embed object schema without a mutable DataBag"):
        kd.embed_schema(kd.new(x=1))
    m = kd.new(x=1).fork_bag()
    assert "x=INT64" in repr(kd.set_schema(m, kd.schema.new_schema(x=kd.INT64)).get_schema())
    assert "x=INT64" in repr(m.set_schema(kd.schema.new_schema(x=kd.INT64)).get_schema())
    with pytest.raises(ValueError, match=IMMUTABLE):
        kd.set_schema(kd.new(x=1), kd.schema.new_schema(x=kd.INT64))
    u = kd.new(x=1).fork_bag()
    assert "q=STRING" in repr(kd.update_schema(u, q=kd.STRING).get_schema())
    with pytest.raises(ValueError, match="only schemas can be assigned as attributes of schemas"):
        kd.update_schema(u, q=1)
    # Schemas' attributes can be set in place too.
    schema = kd.new(x=1).fork_bag().get_schema()
    schema.y = kd.STRING
    assert "y=STRING" in repr(schema)


def test_operator_methods_bind_natively():
    # `ds.get_keys` is the operator bound to the slice, without a Python
    # function in between; read from the class it is unbound.
    d = kd.dict({"a": 1})
    method = d.get_keys
    assert method.__self__ is d and method.__name__ == "get_keys"
    assert method.__doc__ == kd.get_keys.__doc__
    assert method().to_py() == ["a"]
    assert kd.types.DataSlice.get_keys(d).to_py() == ["a"]
    assert repr(kd.types.DataSlice.get_keys) == "<method DataSlice.get_keys>"
    assert repr(method).startswith("<bound method get_keys of DataItem(")
    with pytest.raises(TypeError):
        kd.types.DataSlice.get_keys()


def test_attribute_reads_skip_the_class_lookup_only_for_data():
    # `e.x` reads the attribute `x` of the items, unless the class has `x`
    # (a method, a property), including methods attached after import.
    e = kd.new(a=1, get_keys=2, qtype=3)
    assert e.a.to_py() == 1
    assert e.get_attr("get_keys").to_py() == 2 and callable(e.get_keys)
    assert str(e.qtype) == "DATA_SLICE"
    kd.types.DataSlice.late_method = lambda self: "late"
    try:
        assert e.late_method() == "late"
    finally:
        del kd.types.DataSlice.late_method
    with pytest.raises(AttributeError, match="the attribute 'missing' is missing"):
        e.missing
    with pytest.raises(AttributeError, match="object has no attribute '_private'"):
        e._private
