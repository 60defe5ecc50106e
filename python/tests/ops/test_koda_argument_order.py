"""Koda's behaviour on unusual arguments that the probe comparison
(test_probes_vs_koladata.py) found plait differing on: which check comes
first, which argument's bag a result keeps, and values where plait raised.
Each expected outcome was checked on koladata 0.0.4."""

import pytest

from plait import kd


def test_binding_errors_use_pythons_words():
    with pytest.raises(TypeError, match=r"get_attr_names\(\) missing 1 required keyword-only argument: 'intersection'"):
        kd.get_attr_names(kd.new(a=1))
    with pytest.raises(TypeError, match=r"takes 1 positional argument but 2 were given"):
        kd.dir(kd.new(a=1), 1)
    # Koda's operators say "were" whatever the count.
    with pytest.raises(TypeError, match=r"takes 0 positional arguments but 1 were given"):
        kd.schema.new_schema(kd.INT32)
    with pytest.raises(TypeError, match=r"expected bool for `intersection`, got: int"):
        kd.new(a=1).get_attr_names(intersection=1)
    assert kd.get_attr_names(kd.obj(a=1), intersection=False) == ["a"]


def test_implode_reads_ndim_as_an_index():
    x = kd.slice([[1, 2], [3]])
    assert kd.implode(x, kd.int64(1)).to_py() == [[1, 2], [3]]
    assert kd.implode(x, kd.item(True)).to_py() == [[1, 2], [3]]
    for ndim in (1.0, kd.item(None), kd.slice([1])):
        with pytest.raises(TypeError, match="an integer is required"):
            kd.implode(x, ndim)


@pytest.mark.parametrize(
    ("dim", "message"),
    [
        (kd.item("a"), "unsupported narrowing cast to INT64 for the given STRING DataSlice"),
        (kd.slice(["a"]), "unsupported narrowing cast to INT64 for the given STRING DataSlice"),
        (kd.new(a=1), "cannot find a common schema"),
        (kd.item(None), "expected a present value for dimension 0"),
        (kd.slice([[1]]), "unsupported DataSlice rank: 2"),
    ],
)
def test_shape_dimensions_are_integers(dim, message):
    with pytest.raises(ValueError, match=message):
        kd.shapes.new(dim)


def test_reshape_and_expand_want_shapes():
    with pytest.raises(ValueError, match="expected JAGGED_SHAPE, got shape: DATA_SLICE"):
        kd.expand_to_shape(kd.item(1), kd.slice([1]))
    with pytest.raises(ValueError, match="expected a JaggedShape or a tuple of dimensions, got shape: DATA_SLICE"):
        kd.reshape(kd.slice([1]), kd.slice([1]))


def test_list_updates_check_the_bag_first():
    with pytest.raises(ValueError, match="cannot update a DataSlice of lists; the DataSlice is a reference without a Bag"):
        kd.appended_list(kd.item(1), 2)
    with pytest.raises(ValueError, match="expected first argument to be a DataSlice of lists"):
        kd.list_append_update(kd.dict({"a": 1}), 2)
    with pytest.raises(ValueError, match=r"cannot explode 'x' to have additional 1 dimension\(s\)"):
        kd.select_items(kd.item(1), kd.present)


def test_dict_updates_read_the_given_dicts_first():
    with pytest.raises(ValueError, match="kd.dicts.get_keys: cannot get dict keys without a DataBag"):
        kd.dict_update(kd.item(1), kd.item(1))
    with pytest.raises(ValueError, match="the attribute '__keys__' is missing on the schema"):
        kd.dict_update(kd.item(1), kd.new(a=1))
    with pytest.raises(ValueError, match="cannot update a DataSlice of dicts without a DataBag"):
        kd.with_dict_update(kd.item(1), kd.dict({1: 2}))
    with pytest.raises(ValueError, match="expected a DataSlice of dicts"):
        kd.dict_update(kd.new(a=1), kd.dict({1: 2}))
    with pytest.raises(ValueError, match="cannot get or set attributes on schema: INT32"):
        kd.get_keys(kd.slice([1]).with_bag(kd.bag()))


def test_schema_arguments_are_checked_schema_first():
    with pytest.raises(ValueError, match="schema's schema must be SCHEMA, got: INT32"):
        kd.item(1, kd.slice([1]))
    with pytest.raises(ValueError, match="schema can only be 0-rank schema slice, got: rank\\(1\\)"):
        kd.item(1, kd.slice([kd.INT32]))


def test_new_of_a_dataslice_keeps_its_items():
    e = kd.new(a=1)
    copy = kd.new(e)
    assert copy.get_itemid() == e.get_itemid() and copy.a.to_py() == 1
    assert kd.new(kd.dict({"a": 1})).to_py() == {"a": 1}
    assert kd.new(kd.item(1), schema=kd.INT64).get_schema() == kd.INT64
    assert kd.new(kd.dict({"a": 1}), schema=kd.OBJECT).get_schema() == kd.OBJECT


def test_refusals_koda_makes():
    with pytest.raises(ValueError, match="schema embedding is only supported for a DataSlice with primitive"):
        kd.obj(kd.INT32)
    with pytest.raises(ValueError, match="casting data of type DTYPE to ITEMID is not supported"):
        kd.ref(kd.INT32)
    with pytest.raises(ValueError, match="only ItemIds can be encoded, got NONE"):
        kd.encode_itemid(kd.item(None))
    with pytest.raises(ValueError, match="only ItemIds can be encoded, got NONE"):
        kd.hash_itemid(kd.slice([None, None]))
    with pytest.raises(ValueError, match="only STRING can be decoded, got NONE"):
        kd.decode_itemid(kd.item(None))
    with pytest.raises(ValueError, match=r"dict values being assigned in .* got 0 < 1"):
        kd.dict(kd.item(1), kd.slice([b"x"]))


def test_values_where_plait_raised():
    # A short id text is a number with its leading zeros left out.
    assert kd.encode_itemid(kd.decode_itemid(kd.item("a"))).to_py() == "000000000000000000000a"
    assert kd.set_attrs(kd.item(1)) is None
    assert kd.repeat_present(kd.slice([1, None]), kd.slice([2, None])).to_py() == [[1, 1], []]
    with pytest.raises(ValueError, match="expects no missing size values"):
        kd.repeat_present(kd.slice([1, None]), kd.slice([None, 2]))
    assert kd.repeat_present(kd.item(None), kd.obj(a=1)).to_py() == []
    assert kd.unique(kd.item(1), "a").to_py() == 1
    nested = kd.list_shaped(kd.shapes.new(2), kd.slice([[[1], [2, 3]], [[4]]]))
    assert nested.to_py() == [[1, 2, 3], [4]]


def test_results_keep_the_bag_of_the_items_they_hold():
    bag = kd.bag()
    x = kd.slice([1, 2])
    mask = kd.slice([kd.present, None]).with_bag(bag)
    assert not kd.select(x, mask).has_bag()
    assert not (x & mask).has_bag()
    assert not kd.apply_mask(x, mask).has_bag()
    assert not kd.expand_to(x, kd.slice([[1], [2]]).with_bag(bag)).has_bag()
    assert not kd.take(x, kd.slice([0]).with_bag(bag)).has_bag()
    assert not kd.val_like(x.with_bag(bag), 1).has_bag()
    assert kd.translate(x, x, kd.slice([3, 4]).with_bag(bag)).has_bag()
    assert not kd.cond(mask, x).has_bag()
    assert kd.cond(mask, x, kd.slice([3, 4]).with_bag(bag)).has_bag()
    assert kd.coalesce(x, kd.slice([None, None]).with_bag(bag)).has_bag()


def test_items_refused_in_koda_words():
    with pytest.raises(ValueError, match="argument `x` must have non-zero rank"):
        kd.index(kd.item(1), kd.present)
    with pytest.raises(ValueError, match="DataItem is not supported"):
        kd.collapse(kd.item(1))
    with pytest.raises(ValueError, match="Can't take agg_uuid over a DataItem"):
        kd.agg_uuid(kd.item(1))
    # With ndim given, its range is checked first.
    with pytest.raises(ValueError, match="expected 0 <= ndim <= rank"):
        kd.collapse(kd.item(1), ndim=1)
