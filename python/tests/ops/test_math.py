"""kd.math: values, schemas, missing items, OBJECT inputs, ndim and errors
(expected values checked against koladata 0.0.4)."""

import math

import pytest

from plait import kd


def r(x):
    return repr(x)


class TestArithmetic:
    def test_promotion_and_broadcasting(self):
        assert r(kd.slice([1, 2]) + 1.5) == "DataSlice([2.5, 3.5], schema: FLOAT32, present: 2/2)"
        assert r(kd.slice([1, 2]) + kd.int64(1)) == "DataSlice([2, 3], schema: INT64, present: 2/2)"
        assert r(kd.slice([[1, 2], [3]]) + kd.slice([10, 20])) == "DataSlice([[11, 12], [23]], schema: INT32, present: 3/3)"
        assert r(kd.math.add(1, 2)) == "DataItem(3, schema: INT32)"

    def test_missing_propagates(self):
        assert r(kd.slice([None, 1]) + kd.slice([1, None])) == "DataSlice([None, None], schema: INT32, present: 0/2)"
        assert r(kd.slice([None, None]) + 1) == "DataSlice([None, None], schema: INT32, present: 0/2)"
        assert r(kd.slice([None, None]) + kd.slice([None, None])) == "DataSlice([None, None], schema: NONE, present: 0/2)"
        assert r(kd.math.add(kd.slice([1]), None)) == "DataSlice([None], schema: INT32, present: 0/1)"

    def test_text_concatenation(self):
        assert r(kd.slice(["a", "b"]) + "c") == "DataSlice(['ac', 'bc'], schema: STRING, present: 2/2)"
        assert r(kd.math.add(kd.slice([b"a"]), kd.slice([b"b"]))) == "DataSlice([b'ab'], schema: BYTES, present: 1/1)"

    def test_division_family(self):
        assert r(kd.slice([1, 2]) / kd.slice([2, 0])) == "DataSlice([0.5, inf], schema: FLOAT32, present: 2/2)"
        assert r(kd.slice(-7) // 2) == "DataItem(-4, schema: INT32)"
        assert r(kd.slice(-7) % 2) == "DataItem(1, schema: INT32)"
        assert r(kd.slice(-7.5) % 2) == "DataItem(0.5, schema: FLOAT32)"
        assert r(kd.math.mod(kd.slice([5, -5]), kd.slice([-2, -2]))) == "DataSlice([-1, -1], schema: INT32, present: 2/2)"
        assert r(kd.math.floordiv(kd.slice([-2**31]), -1)) == "DataSlice([-2147483648], schema: INT32, present: 1/1)"
        assert r(kd.math.divide(kd.slice([1.0], kd.FLOAT64), 3)) == "DataSlice([0.3333333333333333], schema: FLOAT64, present: 1/1)"

    def test_zero_divisor_only_matters_where_present(self):
        with pytest.raises(ValueError, match=r"^kd.math.floordiv: division by zero$"):
            kd.slice([1, 2]) // kd.slice([2, 0])
        with pytest.raises(ValueError, match=r"^kd.math.mod: division by zero$"):
            kd.math.mod(kd.slice([5.5]), kd.slice([0.0]))
        assert r(kd.slice([1, None]) // kd.slice([2, 0])) == "DataSlice([0, None], schema: INT32, present: 1/2)"

    def test_pow_is_float(self):
        assert r(kd.slice([1, 2]) ** 2) == "DataSlice([1.0, 4.0], schema: FLOAT32, present: 2/2)"
        assert r(kd.math.pow(kd.slice([0]), kd.slice([-1]))) == "DataSlice([inf], schema: FLOAT32, present: 1/1)"

    def test_integer_overflow_wraps(self):
        assert r(kd.slice([2**31 - 1]) + 1) == "DataSlice([-2147483648], schema: INT32, present: 1/1)"

    def test_reflected_operators(self):
        x = kd.slice([1, 2])
        assert (10 - x).to_py() == [9, 8]
        assert (10 / x).to_py() == [10.0, 5.0]
        assert (2 ** x).to_py() == [2.0, 4.0]
        assert (7 // x).to_py() == [7, 3]
        assert (7 % x).to_py() == [0, 1]
        assert (3 * x).to_py() == [3, 6]

    def test_maximum_minimum(self):
        assert r(kd.math.maximum(kd.slice([1, None]), kd.slice([2.0, 3]))) == "DataSlice([2.0, None], schema: FLOAT32, present: 1/2)"
        assert kd.math.minimum(kd.slice([1.0, float("nan")]), 0.0).to_py()[0] == 0.0
        assert math.isnan(kd.math.maximum(kd.slice([1.0, float("nan")]), 0.0).to_py()[1])

    def test_object_inputs(self):
        assert r(kd.slice([1, 2], kd.OBJECT) + kd.slice([1.5, None])) == "DataSlice([2.5, None], schema: OBJECT, present: 1/2)"
        assert r(kd.slice([None], kd.OBJECT) + 1) == "DataSlice([None], schema: OBJECT, present: 0/1)"
        assert r(kd.math.abs(kd.item(1, kd.OBJECT))) == "DataItem(1, schema: OBJECT)"

    def test_errors_name_operator_argument_and_types(self):
        with pytest.raises(ValueError, match=r"^kd.math.add: .*common non-primitive schema OBJECT.\n\nSchema for `x`: INT32\nSchema for `y`: STRING$"):
            kd.slice([1]) + "a"
        with pytest.raises(ValueError, match=r"^kd.math.add: argument `x` must be a slice of consistent numeric, bytes or string values, got a slice of BOOLEAN$"):
            kd.slice([True]) + 1
        with pytest.raises(ValueError, match=r"^kd.math.add: argument `y` must be .* got a slice of MASK$"):
            kd.math.add(kd.slice([1]), kd.slice([kd.present]))
        with pytest.raises(ValueError, match=r"^kd.math.subtract: argument `x` must be a slice of numeric values, got a slice of STRING$"):
            kd.math.subtract(kd.slice(["a"]), kd.slice(["b"]))
        with pytest.raises(ValueError, match=r"^kd.math.add: DataSlice with mixed types is not supported$"):
            kd.slice([1, 2.5], kd.OBJECT) + 1
        with pytest.raises(ValueError, match=r"got a slice of OBJECT containing INT32 and STRING values$"):
            kd.slice([1, "a"]) + 1
        with pytest.raises(ValueError, match=r"^kd.math.add: shapes are not compatible"):
            kd.slice([[1, 2], [3]]) + kd.slice([10, 20, 30])
        with pytest.raises(ValueError, match=r"ambiguous"):
            kd.math.add([1], 2)


class TestUnary:
    def test_values(self):
        assert r(-kd.slice([1, 2])) == "DataSlice([-1, -2], schema: INT32, present: 2/2)"
        assert r(kd.math.abs(kd.slice([-2**31]))) == "DataSlice([-2147483648], schema: INT32, present: 1/1)"
        assert r(kd.math.sign(kd.slice([-3, 0, 2.5]))) == "DataSlice([-1.0, 0.0, 1.0], schema: FLOAT32, present: 3/3)"
        assert r(kd.math.sign(kd.slice([-2, 0, 3]))) == "DataSlice([-1, 0, 1], schema: INT32, present: 3/3)"
        assert r(kd.math.round(kd.slice([0.5, -1.5, 2.4999]))) == "DataSlice([1.0, -2.0, 2.0], schema: FLOAT32, present: 3/3)"
        assert r(kd.math.ceil(kd.slice([1, 2]))) == "DataSlice([1, 2], schema: INT32, present: 2/2)"
        assert r(kd.math.floor(kd.slice([1.5, 2, -0.5]))) == "DataSlice([1.0, 2.0, -1.0], schema: FLOAT32, present: 3/3)"
        assert r(kd.math.log(kd.slice([0, -1]))) == "DataSlice([-inf, nan], schema: FLOAT32, present: 2/2)"
        assert r(kd.math.log10(kd.slice([100]))) == "DataSlice([2.0], schema: FLOAT32, present: 1/1)"
        assert r(kd.math.exp(kd.slice([1], kd.FLOAT64))) == "DataSlice([2.718281828459045], schema: FLOAT64, present: 1/1)"
        assert r(kd.math.sqrt(kd.slice([4, -1]))) == "DataSlice([2.0, nan], schema: FLOAT32, present: 2/2)"
        assert r(kd.math.sigmoid(kd.slice([0.0, 1.0]))) == "DataSlice([0.5, 0.7310586], schema: FLOAT32, present: 2/2)"
        assert r(kd.math.is_nan(kd.slice([float("nan"), 1, None]))) == "DataSlice([present, missing, missing], schema: MASK, present: 1/3)"
        assert r(kd.math.log(kd.slice([None]))) == "DataSlice([None], schema: NONE, present: 0/1)"

    def test_errors(self):
        with pytest.raises(ValueError, match=r"^kd.math.neg: argument `x` must be a slice of numeric values, got a slice of BOOLEAN$"):
            kd.math.neg(kd.slice([True]))
        with pytest.raises(ValueError, match=r"^kd.math.is_nan: argument `x` must be a slice of numeric values, got a slice of STRING$"):
            kd.math.is_nan(kd.slice(["a"]))


class TestAggregations:
    x = kd.slice([[1, 2], [None], []])

    def test_sum_max_mean(self):
        assert r(kd.agg_sum(self.x)) == "DataSlice([3, 0, 0], schema: INT32, present: 3/3)"
        assert r(kd.agg_max(self.x)) == "DataSlice([2, None, None], schema: INT32, present: 1/3)"
        assert r(kd.math.agg_mean(kd.slice([[1, 2], [3], []]))) == "DataSlice([1.5, 3.0, None], schema: FLOAT32, present: 2/3)"
        assert r(kd.agg_sum(kd.slice([None, None], kd.OBJECT))) == "DataItem(0, schema: OBJECT)"
        assert r(kd.math.agg_sum(kd.slice([[2**31 - 1, 1]]))) == "DataSlice([-2147483648], schema: INT32, present: 1/1)"

    def test_ndim(self):
        y = kd.slice([[1, 2], [3]])
        assert r(kd.agg_sum(y, ndim=2)) == "DataItem(6, schema: INT32)"
        assert r(kd.agg_sum(y, ndim=0)) == r(y)
        assert r(kd.math.agg_sum(kd.slice([[1, None], [3]]), ndim=0)) == "DataSlice([[1, 0], [3]], schema: INT32, present: 3/3)"
        assert r(kd.math.sum(y)) == "DataItem(6, schema: INT32)"
        with pytest.raises(ValueError, match=r"^kd.math.agg_sum: expected 0 <= ndim <= rank"):
            kd.agg_sum(y, ndim=3)
        with pytest.raises(ValueError, match=r"^kd.math.agg_sum: expected rank\(x\) > 0$"):
            kd.agg_sum(kd.slice(1))
        with pytest.raises(ValueError, match=r"^kd.math.agg_sum: argument `ndim`: unsupported narrowing cast to INT64 for the given FLOAT32 DataSlice"):
            kd.agg_sum(y, ndim=1.5)

    def test_median_std_var(self):
        assert r(kd.math.agg_median(kd.slice([[1, 2, 3, 4], [None]]))) == "DataSlice([2, None], schema: INT32, present: 1/2)"
        assert r(kd.math.agg_std(kd.slice([[1, 2, 3, 4], [1]]))) == "DataSlice([1.2909944, None], schema: FLOAT32, present: 1/2)"
        assert r(kd.math.agg_var(kd.slice([[1, 2, 3, 4], [1]]))) == "DataSlice([1.6666666, None], schema: FLOAT32, present: 1/2)"
        assert r(kd.math.agg_std(kd.slice([[1, 2, 3, 4], [1]]), unbiased=False)) == "DataSlice([1.118034, 0.0], schema: FLOAT32, present: 2/2)"
        with pytest.raises(ValueError, match=r"^kd.math.agg_std: argument `unbiased` must be an item holding BOOLEAN, got an item of INT32$"):
            kd.math.agg_std(kd.slice([[1, 2]]), unbiased=1)

    def test_arg_and_cumulative(self):
        assert r(kd.math.argmax(kd.slice([[1, None, 3], [None]]))) == "DataSlice([2, None], schema: INT64, present: 1/2)"
        assert r(kd.math.argmax(kd.slice([[1, 3, 3], [3]]), ndim=2)) == "DataItem(1, schema: INT64)"
        assert r(kd.math.cum_sum(kd.slice([[1, None, 3], [1]]))) == "DataSlice([[1, None, 4], [1]], schema: INT32, present: 3/4)"
        assert r(kd.math.cum_sum(kd.slice([[1, 2], [3]]), ndim=2)) == "DataSlice([[1, 3], [6]], schema: INT32, present: 3/3)"
        assert r(kd.math.cum_max(kd.slice([[1, float("nan"), 0]]))) == "DataSlice([[1.0, nan, nan]], schema: FLOAT32, present: 3/3)"

    def test_distributions(self):
        assert r(kd.math.softmax(kd.slice([[1.0, 2, 3], [1]]))) == "DataSlice([[0.09003057, 0.24472848, 0.66524094], [1.0]], schema: FLOAT32, present: 4/4)"
        # Integers are shifted by their maximum exactly before FLOAT32 (as
        # Koda; 2**25 + 1 is not a FLOAT32), without Koda's INT32 overflow.
        assert r(kd.math.softmax(kd.slice([2**25, 2**25 + 1, 3]))) == "DataSlice([0.26894143, 0.7310586, 0.0], schema: FLOAT32, present: 3/3)"
        assert r(kd.math.softmax(kd.slice([2**25, 2**25 + 1, 3]), beta=0.5)) == "DataSlice([0.37754068, 0.62245935, 0.0], schema: FLOAT32, present: 3/3)"
        assert r(kd.math.softmax(kd.slice([2**40, 2**40 + 1, None]))) == "DataSlice([0.26894143, 0.7310586, None], schema: FLOAT32, present: 2/3)"
        assert kd.math.softmax(kd.slice([2**31 - 1, -2**31])).to_py() == [1.0, 0.0]
        assert r(kd.math.cdf(kd.slice([[1.0, 2, 3, 2], [1]]))) == "DataSlice([[0.25, 0.75, 1.0, 0.75], [1.0]], schema: FLOAT32, present: 5/5)"
        assert r(kd.math.cdf(kd.slice([[1.0, 2, None, 3]]), weights=kd.slice([[1.0, 2, 3, 4]]))) == "DataSlice([[0.14285715, 0.42857143, None, 1.0]], schema: FLOAT32, present: 3/4)"
        assert r(kd.math.agg_inverse_cdf(kd.slice([[4, 2, 3, 1]]), 0.25)) == "DataSlice([1], schema: INT32, present: 1/1)"
        assert r(kd.math.inverse_cdf(kd.slice([[1.0, 2, 3, 2], [1]]), 0.5)) == "DataItem(2.0, schema: FLOAT32)"
        with pytest.raises(ValueError, match=r"cdf_arg must be in \[0, 1\], got 1.500000$"):
            kd.math.agg_inverse_cdf(kd.slice([[1.0, 2]]), 1.5)
        with pytest.raises(ValueError, match=r"^kd.math.agg_inverse_cdf: expected `cdf_arg` argument to contain a scalar float value"):
            kd.math.agg_inverse_cdf(kd.slice([[1, 2]]), kd.slice([0.5]))

    def test_errors(self):
        with pytest.raises(ValueError, match=r"^kd.math.agg_sum: argument `x` must be a slice of numeric values, got a slice of STRING$"):
            kd.agg_sum(kd.slice(["a"]))
        with pytest.raises(ValueError, match=r"^kd.math.agg_max: argument `x` must be a slice of numeric values, got a slice of MASK$"):
            kd.math.agg_max(kd.slice([[kd.present]]))


def test_large_inputs_use_the_parallel_path():
    n = 300_000
    x = kd.slice(list(range(n)))
    assert (x * 2 + 1).to_py()[-1] == 2 * (n - 1) + 1
    assert kd.math.sum(kd.float64(x)).to_py() == n * (n - 1) / 2
    assert kd.count(x > 10).to_py() == n - 11


def test_ndim_given_as_none_is_refused():
    # As in Koda: leaving ndim out means the default; passing None does not.
    x = kd.slice([[1, 2], [3]])
    assert kd.agg_sum(x).to_py() == [3, 3]
    with pytest.raises(ValueError, match=r"^kd.math.agg_sum: argument `ndim`: expected a present value$"):
        kd.agg_sum(x, ndim=None)
    with pytest.raises(ValueError, match=r"argument `ndim`: cannot find a common schema"):
        kd.agg_sum(x, ndim=kd.INT32)


def test_t_distribution_inverse_cdf():
    # Checked against koladata 0.0.4.
    q = kd.math.t_distribution_inverse_cdf(kd.slice([0.5, 0.975, 0.025, 0.9, 0.0, 1.0, None]), 3)
    assert repr(q) == "DataSlice([0.0, 3.1824474, -3.1824462, 1.6377441, -inf, inf, None], schema: FLOAT32, present: 6/7)"
    by_dof = kd.math.t_distribution_inverse_cdf(0.975, kd.slice([1, 2, 10, 1000.0]))
    assert repr(by_dof) == "DataSlice([12.706217, 4.3026547, 2.2281394, 1.9623395], schema: FLOAT32, present: 4/4)"
    assert abs(kd.math.t_distribution_inverse_cdf(kd.float64(0.975), 3).to_py() - 3.1824463052837086) < 1e-12
    assert repr(kd.math.t_distribution_inverse_cdf(0.999999, 1)) == "DataItem(314138.47, schema: FLOAT32)"
    broadcast = kd.math.t_distribution_inverse_cdf(kd.slice([0.1, 0.2]), kd.slice([[1, 2], [3]]))
    assert repr(broadcast) == "DataSlice([[-3.0776834, -1.8856181], [-0.9784723]], schema: FLOAT32, present: 3/3)"
    with pytest.raises(ValueError, match="degrees_of_freedom for t-distribution must be a positive number, got: -1.000000"):
        kd.math.t_distribution_inverse_cdf(0.9, -1)
    with pytest.raises(ValueError, match="inverse CDF accepts only values between 0 and 1, got x: 1.500000"):
        kd.math.t_distribution_inverse_cdf(1.5, 3)
    with pytest.raises(ValueError, match="got x: nan"):
        kd.math.t_distribution_inverse_cdf(float("nan"), 1)
    with pytest.raises(ValueError, match="argument `x` must be a slice of numeric values, got a slice of STRING"):
        kd.math.t_distribution_inverse_cdf("a", 1)
