"""kd.comparison, kd.masking and the counting operators of kd.slices
(expected values checked against koladata 0.0.4)."""

import inspect

import pytest

from plait import kd


def r(x):
    return repr(x)


def test_comparisons():
    assert r(kd.slice([1, None]) == kd.slice([1.0, 2])) == "DataSlice([present, missing], schema: MASK, present: 1/2)"
    assert r(kd.slice([1]) == kd.slice(["a"])) == "DataSlice([missing], schema: MASK, present: 0/1)"
    assert r(kd.slice([1, None]) != kd.slice([2, 2])) == "DataSlice([present, missing], schema: MASK, present: 1/2)"
    assert r(kd.slice(["a"]) < kd.slice(["b"])) == "DataSlice([present], schema: MASK, present: 1/1)"
    assert r(kd.slice([True]) < kd.slice([False])) == "DataSlice([missing], schema: MASK, present: 0/1)"
    assert r(kd.slice(1) == None) == "DataItem(missing, schema: MASK)"  # noqa: E711 - Koda semantics
    assert r(kd.full_equal(kd.slice([1, None]), kd.slice([1, None]))) == "DataItem(present, schema: MASK)"
    with pytest.raises(ValueError, match=r"^kd.comparison.less: arguments do not contain values castable"):
        kd.slice([1]) < kd.slice(["b"])


def test_masks_and_presence():
    assert r(kd.has(kd.slice([1, None]))) == "DataSlice([present, missing], schema: MASK, present: 1/2)"
    assert r(~kd.slice([1])) == "DataSlice([missing], schema: MASK, present: 0/1)"
    assert r(kd.slice([1, 2]) & kd.slice([kd.present, None])) == "DataSlice([1, None], schema: INT32, present: 1/2)"
    assert r(kd.slice([1, None]) | kd.slice(["a", "b"])) == "DataSlice([1, 'b'], schema: OBJECT, present: 2/2)"
    assert r(kd.coalesce(kd.slice([1, None]), kd.slice([2.5, 4]))) == "DataSlice([1.0, 4.0], schema: FLOAT32, present: 2/2)"
    assert r(kd.cond(kd.slice([kd.present, None]), 1, "a")) == "DataSlice([1, 'a'], schema: OBJECT, present: 2/2)"
    assert r(kd.cond(kd.slice([kd.present, None]), 1)) == "DataSlice([1, None], schema: INT32, present: 1/2)"
    assert r(kd.masking.xor(kd.slice([kd.present, None]), kd.present)) == "DataSlice([missing, present], schema: MASK, present: 1/2)"
    assert r(kd.masking.mask_equal(kd.slice([kd.present, None]), kd.missing)) == "DataSlice([missing, present], schema: MASK, present: 1/2)"
    with pytest.raises(ValueError, match=r"^kd.masking.apply_mask: argument `mask` must be a slice of MASK, got a slice of BOOLEAN$"):
        kd.apply_mask(kd.slice([1, 2]), kd.slice([True, None]))
    with pytest.raises(ValueError, match=r"^kd.masking.disjoint_coalesce: `x` and `y` cannot overlap"):
        kd.disjoint_coalesce(kd.slice([1, None]), kd.slice([2, 4]))
    with pytest.raises(ValueError, match=r"^kd.masking.mask_and: argument `x` must be a slice of MASK, got a slice of INT32$"):
        kd.masking.mask_and(kd.slice(1), kd.present)


def test_mask_aggregations():
    assert r(kd.agg_has(kd.slice([[1, None], [None]]))) == "DataSlice([present, missing], schema: MASK, present: 1/2)"
    assert r(kd.agg_all(kd.slice([[kd.present, None], [None], []]))) == "DataSlice([missing, missing, present], schema: MASK, present: 1/3)"
    assert r(kd.masking.any(kd.slice([[kd.present, None], [None]]))) == "DataItem(present, schema: MASK)"
    assert r(kd.present_shaped(kd.shapes.new(2))) == "DataSlice([present, present], schema: MASK, present: 2/2)"


def test_counting():
    x = kd.slice([[1, None], [None]])
    assert r(kd.agg_count(x)) == "DataSlice([1, 0], schema: INT64, present: 2/2)"
    assert r(kd.agg_size(x)) == "DataSlice([2, 1], schema: INT64, present: 2/2)"
    assert r(kd.count(x)) == "DataItem(1, schema: INT64)"
    assert r(kd.size(x)) == "DataItem(3, schema: INT64)"
    assert r(kd.index(x)) == "DataSlice([[0, None], [None]], schema: INT64, present: 1/3)"
    assert r(kd.index(x, dim=0)) == "DataSlice([[0, 0], [None]], schema: INT64, present: 2/3)"
    assert r(kd.slices.cum_count(kd.slice([[1, None, 3]]))) == "DataSlice([[1, None, 2]], schema: INT64, present: 2/3)"
    assert r(kd.collapse(kd.slice([[1, None], [None], [1, 1], [1, 2.5]]))) == "DataSlice([1.0, None, 1.0, None], schema: FLOAT32, present: 2/4)"
    assert r(kd.is_empty(kd.slice([None]))) == "DataItem(present, schema: MASK)"
    assert r(kd.val_like(kd.slice([1, None]), "a")) == "DataSlice(['a', None], schema: STRING, present: 1/2)"
    assert r(kd.val_shaped(kd.shapes.new(2), 1.5)) == "DataSlice([1.5, 1.5], schema: FLOAT32, present: 2/2)"
    assert r(kd.empty_shaped(kd.shapes.new(2))) == "DataSlice([missing, missing], schema: MASK, present: 0/2)"


def test_operators_have_koda_signatures_and_names():
    assert str(inspect.signature(kd.math.agg_std)) == "(x, unbiased=DataItem(True, schema: BOOLEAN), ndim=unspecified)"
    assert str(inspect.signature(kd.cond)) == "(condition, yes, no=DataItem(None, schema: NONE))"
    assert kd.agg_sum is kd.math.agg_sum
    assert kd.math.agg_sum.__name__ == "agg_sum"
    assert "sums" in kd.math.agg_sum.__doc__


def test_argument_binding_errors():
    with pytest.raises(TypeError, match=r"^kd.math.add: missing 1 required positional argument: 'y'$"):
        kd.math.add(1)
    with pytest.raises(TypeError, match=r"^kd.math.add: takes 2 positional arguments but 3 were given$"):
        kd.math.add(1, 2, 3)
    with pytest.raises(TypeError, match=r"^kd.math.agg_sum: an unexpected keyword argument: 'dims'$"):
        kd.agg_sum(kd.slice([1]), dims=1)
    with pytest.raises(TypeError, match=r"^kd.math.add: multiple values for argument 'x'$"):
        kd.math.add(1, x=2)
    with pytest.raises(ValueError, match=r"expected JAGGED_SHAPE, got shape: DATA_SLICE"):
        kd.present_shaped(kd.slice([1]))
