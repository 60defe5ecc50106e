"""Behaviours where plait once differed from Koda, found while writing the
docstring examples (issue 8); each expected value was checked on koladata."""

import math

import pytest

from plait import kd


def test_inverse_cdf_rank_follows_koda():
    x = kd.slice([18, 25, 31, 32, 37])
    # 0.6 as FLOAT32 is a little above 0.6: still the third item.
    assert kd.math.inverse_cdf(x, 0.6).to_py() == 31
    assert kd.math.inverse_cdf(x, 0.4).to_py() == 25
    assert kd.math.inverse_cdf(x, 0.0).to_py() == 18
    assert kd.math.inverse_cdf(x, 1.0).to_py() == 37
    assert kd.math.agg_inverse_cdf(kd.slice([[1, 2, 3], [4, 5, None]]), 0.8).to_py() == [3, 5]
    assert kd.math.inverse_cdf(kd.slice([[1, 2, 3], [4, 5, None]]), 0.8).to_py() == 4


def test_inverse_cdf_of_a_group_with_nan_is_nan():
    result = kd.math.agg_inverse_cdf(kd.slice([[1.0, float("nan"), 3.0, 4.0], [1.0]]), 0.2).to_py()
    assert math.isnan(result[0]) and result[1] == 1.0


def test_abs_and_sign_of_negative_zero():
    assert str(kd.math.abs(kd.slice([-0.0, -1.5]))) == "[0.0, 1.5]"
    assert str(kd.math.sign(kd.slice([-0.0, -2.0]))) == "[0.0, -1.0]"


@pytest.mark.parametrize("x", [kd.item(None), kd.slice([None, None]), kd.slice([]), kd.slice([None], kd.OBJECT)])
def test_nothing_is_vacuously_every_kind(x):
    for check in (kd.is_list, kd.is_dict, kd.is_entity, kd.is_primitive):
        assert check(x).to_py() == kd.present.to_py()


def test_struct_schemas_are_not_primitives():
    entity_schema = kd.new(a=1).get_schema()
    assert kd.is_primitive(entity_schema).to_py() is None
    assert kd.has_primitive(kd.slice([kd.INT32, entity_schema])).to_py() == [kd.present.to_py(), None]
    assert kd.is_primitive(kd.slice([kd.INT32])).to_py() == kd.present.to_py()


def test_to_object_embeds_struct_schemas():
    assert repr(kd.to_object(kd.new(a=1))).startswith("DataItem(Obj(a=1), schema: OBJECT")
    assert repr(kd.cast_to(kd.new(a=1), kd.OBJECT)).startswith("DataItem(Obj(a=1), schema: OBJECT")
    assert str(kd.to_object(kd.list([1, 2]))) == "List[1, 2]"
    assert str(kd.schema.to_object(kd.dict({"a": 1}))) == "Dict{'a'=1}"
    with pytest.raises(ValueError, match="kd.schema.to_object: ITEMID DataSlices cannot be converted"):
        kd.to_object(kd.new_itemid())


def test_schemas_can_be_objects():
    x = kd.slice([kd.INT32, None], kd.OBJECT)
    assert repr(x) == "DataSlice([INT32, None], schema: OBJECT, present: 1/2)"
    assert str(kd.get_obj_schema(x)) == "[SCHEMA, None]"
    assert repr(kd.to_object(kd.INT32)) == "DataItem(INT32, schema: OBJECT)"
    with pytest.raises(ValueError, match="cannot find a common schema"):
        kd.slice([1, kd.INT32])


def test_uuid_checks():
    assert kd.ids.is_uuid(kd.slice([None])).to_py() == kd.present.to_py()  # vacuously
    assert kd.ids.is_uuid(kd.slice([])).to_py() == kd.present.to_py()
    assert kd.ids.is_uuid(kd.uu_schema(x=kd.INT32)).to_py() == kd.present.to_py()
    assert kd.ids.has_uuid(kd.named_schema("a")).to_py() == kd.present.to_py()
    assert kd.ids.is_uuid(kd.INT32).to_py() is None
    assert str(kd.ids.has_uuid(kd.slice([kd.INT32, kd.uu_schema()]))) == "[missing, present]"


def test_hash_itemid_is_not_negative():
    ids = kd.new_itemid_shaped(kd.shapes.new(1000))
    assert kd.min(kd.hash_itemid(ids)).to_py() >= 0


def test_collapse_compares_items_as_unique_does():
    assert kd.collapse(kd.slice([[1, kd.int64(1)]], schema=kd.OBJECT)).to_py() == [1]
    assert math.isnan(kd.collapse(kd.slice([[float("nan"), float("nan")]])).to_py()[0])
    assert kd.collapse(kd.slice([[1.0, float("nan")]])).to_py() == [None]


def test_xor_operator():
    assert str(kd.slice([kd.present, None]) ^ kd.slice([kd.present, kd.present])) == "[missing, present]"
    assert repr(kd.I.a ^ kd.I.b) == "kd.xor(I.a, I.b)"
    assert repr(1 ^ kd.I.b) == "kd.xor(DataItem(1, schema: INT32), I.b)"


def test_filters_may_be_functions_or_functors():
    x = kd.slice([1, 2, 3])
    assert kd.select(x, lambda v: v >= 2).to_py() == [2, 3]
    assert kd.select(x, kd.fn(lambda v: v >= 2)).to_py() == [2, 3]
    assert x.select(lambda v: v > 1).to_py() == [2, 3]
    lst = kd.list([1, 2, 3])
    assert kd.select_items(lst, lambda v: v > 1).to_py() == [2, 3]
    assert lst.select_items(lambda v: v > 2).to_py() == [3]
    # Lazily, and traced, the operator is the same.
    assert repr(kd.lazy.select(kd.I.x, kd.I.y)) == "kd.select(I.x, I.y, DataItem(True, schema: BOOLEAN))"
    assert kd.fn(lambda v: kd.select(v, v > 1))(x).to_py() == [2, 3]


def test_new_and_obj_of_python_lists_and_dicts():
    assert repr(kd.new([1, 2])).startswith("DataItem(List[1, 2], schema: LIST[INT32]")
    assert repr(kd.new({"a": 1})).startswith("DataItem(Dict{'a'=1}, schema: DICT{STRING, INT32}")
    assert repr(kd.new([1, 2], schema=kd.list_schema(kd.INT64))).startswith("DataItem(List[1, 2], schema: LIST[INT64]")
    assert repr(kd.obj([1, 2])).startswith("DataItem(List[1, 2], schema: OBJECT")
    assert repr(kd.obj({"a": 1})).startswith("DataItem(Dict{'a'=1}, schema: OBJECT")
    assert repr(kd.obj([[1], [2, 3]])).startswith("DataItem(List[List[1], List[2, 3]], schema: OBJECT")


def test_reshape_with_a_placeholder_dimension():
    x = kd.slice([1, 2, 3, 4, 5, 6])
    assert kd.reshape(x, (-1, 3)).to_py() == [[1, 2, 3], [4, 5, 6]]
    assert kd.reshape(x, (2, -1, 3)).to_py() == [[[1, 2, 3]], [[4, 5, 6]]]
    assert kd.reshape(x, (2, kd.slice([1, 2]), -1)).to_py() == [[[1, 2]], [[3, 4], [5, 6]]]
    with pytest.raises(ValueError, match="parent_size=4 does not divide child_size=6"):
        kd.reshape(x, (4, -1))
    with pytest.raises(ValueError, match="only one dimension can be a placeholder"):
        kd.reshape(x, (-1, -1))


def test_get_item_with_a_python_slice():
    lists = kd.implode(kd.slice([[1, 2, 3], [4]]))
    assert kd.get_item(lists, slice(1, None)).to_py() == [[2, 3], []]
    assert kd.lists.get_item(lists, slice(0, 1)).to_py() == [[1], [4]]


def test_values_errors_and_types_follow_koda():
    assert repr(kd.eval(5)) == "DataItem(5, schema: INT32)"
    with pytest.raises(KeyError, match="no field `c`"):
        kd.tuples.get_namedtuple_field(kd.namedtuple(a=1), "c")
    with pytest.raises(ValueError, match="operator no.such.op is not registered"):
        kd.optools.add_alias("no.such.op", "x.y")
    with pytest.raises(ValueError, match="either a list schema or item schema, but not both"):
        kd.list_shaped(kd.shapes.new(2), item_schema=kd.INT64, schema=kd.list_schema(kd.STRING))
    with pytest.raises(ValueError, match="argument `x` must be a schema item"):
        kd.schema.new_schema(x=1)
    with pytest.raises(ValueError, match="kd.schema.get_obj_schema: DataSlice must have OBJECT schema"):
        kd.get_obj_schema(kd.new(x=1))
    with pytest.raises(ValueError, match="^kd.core.get_attr: failed to get attribute 'y'"):
        kd.get_attr(kd.new(x=1), "y")
    with pytest.raises(AttributeError, match="^failed to get attribute 'y'"):
        kd.new(x=1).y
    with pytest.raises(ValueError, match="primitives do not have attributes, got INT32"):
        kd.with_attr(kd.slice([1]), "a", 1)
    with pytest.raises(ValueError, match="^kd.slices.subslice: "):
        kd.slices.subslice(kd.slice([1]), 0, 0)
    with pytest.raises(ValueError, match="DataSlice must have at least one dimension to iterate"):
        kd.to_pylist(kd.item(1))
    assert repr(kd.schema.cast_to_implicit(1, kd.INT64)) == "DataItem(1, schema: INT64)"


def test_with_schema_from_obj_uses_the_common_schema():
    assert repr(kd.schema.with_schema_from_obj(kd.slice([1, 2.5], kd.OBJECT))) == (
        "DataSlice([1.0, 2.5], schema: FLOAT32, present: 2/2)")
    assert repr(kd.schema.with_schema_from_obj(kd.slice([None], kd.OBJECT))) == (
        "DataSlice([None], schema: NONE, present: 0/1)")
    assert repr(kd.schema.with_schema_from_obj(kd.slice([1, kd.int64(2)], kd.OBJECT))) == (
        "DataSlice([1, 2], schema: INT64, present: 2/2)")
    with pytest.raises(ValueError, match="must have OBJECT schema"):
        kd.schema.with_schema_from_obj(kd.slice([1]))
    with pytest.raises(ValueError, match="no common schema"):
        kd.schema.with_schema_from_obj(kd.slice([kd.obj(a=1), kd.obj(b=1)]))


def test_functor_calls_bind_with_kodas_errors():
    f = kd.fn(lambda x, y=1: x)
    cases = [
        (lambda: f(1, 2, 3), "too many positional arguments passed (1 extra)"),
        (lambda: f(1, x=2), "parameter [x] specified twice"),
        (lambda: f(z=1, w=2), "unknown keyword arguments: [z, w]"),
        (lambda: f(), "no value provided for positional or keyword parameter [x]"),
        (lambda: kd.fn(lambda x, *, k: x)(1), "no value provided for keyword only parameter [k]"),
    ]
    for call, message in cases:
        with pytest.raises(ValueError) as info:
            call()
        assert str(info.value) == f"kd.functor.call: {message}"
    # Operators keep Python's TypeError.
    with pytest.raises(TypeError, match="an unexpected keyword argument: 'z'"):
        kd.math.add(1, 2, z=2)
    # Koda's order: a missing argument is named before an unknown keyword.
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'y'"):
        kd.math.add(1, z=2)


def test_concat_lists_of_nothing_is_an_empty_list():
    assert repr(kd.concat_lists()).startswith("DataItem(List[], schema: LIST[OBJECT]")


def test_equal_and_in_need_a_common_schema():
    # As Koda: two entity schemas, an entity and a SCHEMA, OBJECT and an
    # entity schema have no common schema; INT32 and STRING do (OBJECT).
    message = r"arguments do not have a common schema\.\n\nSchema for `x`: "
    with pytest.raises(ValueError, match="^kd.comparison.equal: " + message):
        kd.equal(kd.new(a=1), kd.new(a=1))
    with pytest.raises(ValueError, match=message):
        kd.equal(kd.slice([1]), kd.INT32)
    with pytest.raises(ValueError, match=message):
        kd.not_equal(kd.obj(a=1), kd.new(a=1))
    with pytest.raises(ValueError, match=message):
        _ = 1 in kd.list([[1], [2]])
    assert kd.equal(kd.slice([1]), kd.slice(["a"])).to_py() == [None]
    e = kd.new(a=1)
    assert kd.equal(e, e).to_py() is not None


def test_shaped_functions_want_a_jagged_shape_first():
    # Koda's Python functions check the shape after binding their arguments.
    for make in (kd.list_shaped, kd.dict_shaped, kd.new_shaped, kd.obj_shaped):
        with pytest.raises(TypeError, match=r"^expecting shape to be a JaggedShape, got plait\.types\.DataItem$"):
            make(kd.item(1))
        with pytest.raises(TypeError, match=r"^expecting shape to be a JaggedShape, got int$"):
            make(5)
    with pytest.raises(TypeError, match="positional"):
        kd.new_shaped(kd.item(1), kd.item(1))
    assert kd.list_shaped(kd.shapes.new(2)).get_ndim().to_py() == 1


def test_inverse_select_checks_in_koda_order():
    with pytest.raises(ValueError, match="cannot select from DataItem"):
        kd.inverse_select(kd.item(1), kd.item(1))
    with pytest.raises(ValueError, match="should only be Object or Mask"):
        kd.inverse_select(kd.slice([[1, 2], [3]]), kd.slice([True, False]))
    with pytest.raises(ValueError, match="rank of the ds and fltr DataSlice must be the same"):
        kd.inverse_select(kd.slice([1, None, 3]), kd.obj(a=1))


def test_more_argument_checks_as_koda():
    with pytest.raises(ValueError, match="arguments do not have a common schema"):
        kd.full_equal(kd.slice([[1, 2], [3]]), kd.INT32)
    with pytest.raises(ValueError, match="expected multidim DataSlice, got DataItem"):
        kd.flatten_end(kd.item(1))
    with pytest.raises(ValueError, match=r"x must have an Entity schema, actual schema: LIST\[INT32\]"):
        kd.strict_with_attrs(kd.list([1, 2]), a=1)
    # A primitive schema for entities: Koda's error, never an internal one.
    e = kd.new(a=1)
    with pytest.raises(ValueError, match="^kd.core.extract: during extract/clone, .* primitive type INT32"):
        kd.extract(e, kd.INT32)
    for clone in (kd.deep_clone, kd.deep_uuid):
        with pytest.raises(ValueError, match="during traversal, got a slice with primitive type INT32"):
            clone(e, kd.INT32)
