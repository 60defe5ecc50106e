//! `kd.math`: arithmetic, elementwise functions, aggregations and
//! distributions over numbers.

mod aggregate;
pub(crate) mod arithmetic;
mod cumulative;
mod dense_groups;
mod distributions;
pub mod items;
pub(crate) mod unary;

pub use aggregate::{
    agg_inverse_cdf, agg_max, agg_mean, agg_median, agg_min, agg_std, agg_sum, agg_var, argmax, argmin, inverse_cdf, max, mean, median, min, sum,
};
pub use arithmetic::{add, divide, floordiv, maximum, minimum, modulo, multiply, pow, subtract};
pub use cumulative::{cdf, cum_max, cum_min, cum_sum, softmax};
pub use distributions::t_distribution_inverse_cdf;
pub use unary::{abs, ceil, exp, floor, is_nan, log, log10, neg, pos, round, sigmoid, sign, sqrt};

use crate::registry::Registry;

pub(crate) fn register(r: &mut Registry) {
    r.add(
        "kd.math.add",
        &["kd.add"],
        "x, y",
        r#"Computes x + y item by item: sums numbers, concatenates strings or bytes.

The arguments are broadcast to a common shape; a position where either item
is missing is missing in the result. Numbers are promoted to their common type
(INT32 + FLOAT32 gives FLOAT32), and integers wrap on overflow. Mixing numbers
with text raises a ValueError.

Args:
  x: a DataSlice of numbers, strings or bytes.
  y: a DataSlice or Python value of the same kind.

Examples:
  >>> kd.math.add(kd.slice([1, 2, None]), 3)
  DataSlice([4, 5, None], schema: INT32, present: 2/3)
  >>> kd.math.add(kd.slice([[1, 2], [3]]), kd.slice([0.5, 10]))
  DataSlice([[1.5, 2.5], [13.0]], schema: FLOAT32, present: 3/3)
  >>> kd.math.add(kd.slice(['a', 'b']), '!')
  DataSlice(['a!', 'b!'], schema: STRING, present: 2/2)"#,
        |a| add(a.slice("x")?, a.slice("y")?),
    );
    r.add(
        "kd.math.subtract",
        &["kd.subtract"],
        "x, y",
        r#"Computes x - y item by item.

The arguments are broadcast to a common shape and promoted to their common
numeric type; a position where either item is missing is missing in the
result. Integers wrap on overflow.

Args:
  x: a DataSlice of numbers.
  y: a DataSlice or Python number.

Examples:
  >>> kd.math.subtract(kd.slice([5, None, 1]), 2)
  DataSlice([3, None, -1], schema: INT32, present: 2/3)
  >>> kd.math.subtract(kd.slice([[5, 4], [3]]), kd.slice([1, 0.5]))
  DataSlice([[4.0, 3.0], [2.5]], schema: FLOAT32, present: 3/3)"#,
        |a| subtract(a.slice("x")?, a.slice("y")?),
    );
    r.add(
        "kd.math.multiply",
        &["kd.multiply"],
        "x, y",
        r#"Computes x * y item by item.

The arguments are broadcast to a common shape and promoted to their common
numeric type; a position where either item is missing is missing in the
result. Integers wrap on overflow.

Args:
  x: a DataSlice of numbers.
  y: a DataSlice or Python number.

Examples:
  >>> kd.math.multiply(kd.slice([2, None, 4]), 3)
  DataSlice([6, None, 12], schema: INT32, present: 2/3)
  >>> kd.math.multiply(kd.slice([[1, 2], [3]]), kd.slice([1.5, 2]))
  DataSlice([[1.5, 3.0], [6.0]], schema: FLOAT32, present: 3/3)"#,
        |a| multiply(a.slice("x")?, a.slice("y")?),
    );
    r.add(
        "kd.math.divide",
        &["kd.divide"],
        "x, y",
        r#"Computes x / y item by item, always in floats.

The arguments are broadcast to a common shape; a position where either item
is missing is missing in the result. The result is FLOAT64 when an argument is
FLOAT64 and FLOAT32 otherwise. Division by zero gives inf, -inf or nan rather
than an error.

Args:
  x: a DataSlice of numbers (the dividends).
  y: a DataSlice or Python number (the divisors).

Examples:
  >>> kd.math.divide(kd.slice([1, 6, None]), 4)
  DataSlice([0.25, 1.5, None], schema: FLOAT32, present: 2/3)
  >>> kd.math.divide(kd.slice([1, -1, 0]), 0)
  DataSlice([inf, -inf, nan], schema: FLOAT32, present: 3/3)"#,
        |a| divide(a.slice("x")?, a.slice("y")?),
    );
    r.add(
        "kd.math.floordiv",
        &["kd.floordiv"],
        "x, y",
        r#"Computes x // y item by item, rounding the quotient down (toward negative infinity).

The arguments are broadcast to a common shape and promoted to their common
numeric type; a position where either item is missing is missing in the
result. A zero divisor at a present position raises a ValueError.

Args:
  x: a DataSlice of numbers (the dividends).
  y: a DataSlice or Python number (the divisors).

Examples:
  >>> kd.math.floordiv(kd.slice([7, -7, None]), 2)
  DataSlice([3, -4, None], schema: INT32, present: 2/3)
  >>> kd.math.floordiv(kd.slice([7.5, -7.5]), 2)
  DataSlice([3.0, -4.0], schema: FLOAT32, present: 2/2)
  >>> kd.math.floordiv(kd.slice([7, 1]), 0)
  Traceback (most recent call last):
  ...
  ValueError: kd.math.floordiv: division by zero"#,
        |a| floordiv(a.slice("x")?, a.slice("y")?),
    );
    r.add(
        "kd.math.mod",
        &["kd.mod"],
        "x, y",
        r#"Computes the remainder x % y item by item, with the sign of y as in Python.

The arguments are broadcast to a common shape and promoted to their common
numeric type; a position where either item is missing is missing in the
result. A zero divisor at a present position raises a ValueError.

Args:
  x: a DataSlice of numbers (the dividends).
  y: a DataSlice or Python number (the divisors).

Examples:
  >>> kd.math.mod(kd.slice([7, -7, None]), 3)
  DataSlice([1, 2, None], schema: INT32, present: 2/3)
  >>> kd.math.mod(kd.slice([7, -7]), -3)
  DataSlice([-2, -1], schema: INT32, present: 2/2)
  >>> kd.math.mod(kd.slice([7.5, -7.5]), 2)
  DataSlice([1.5, 0.5], schema: FLOAT32, present: 2/2)"#,
        |a| modulo(a.slice("x")?, a.slice("y")?),
    );
    r.add(
        "kd.math.pow",
        &["kd.pow"],
        "x, y",
        r#"Computes x raised to the power y item by item, always in floats.

The arguments are broadcast to a common shape; a position where either item
is missing is missing in the result. The result is FLOAT64 when an argument is
FLOAT64 and FLOAT32 otherwise; a fractional power of a negative number is nan.

Args:
  x: a DataSlice of numbers (the bases).
  y: a DataSlice or Python number (the exponents).

Examples:
  >>> kd.math.pow(kd.slice([2, 3, None]), 2)
  DataSlice([4.0, 9.0, None], schema: FLOAT32, present: 2/3)
  >>> kd.math.pow(kd.float64(2), kd.slice([0.5, -1]))
  DataSlice([1.4142135623730951, 0.5], schema: FLOAT64, present: 2/2)"#,
        |a| pow(a.slice("x")?, a.slice("y")?),
    );
    r.add(
        "kd.math.maximum",
        &["kd.maximum"],
        "x, y",
        r#"Computes the larger of x and y item by item.

The arguments are broadcast to a common shape and promoted to their common
numeric type; a position where either item is missing is missing in the
result, and a NaN on either side gives NaN.

Args:
  x: a DataSlice of numbers.
  y: a DataSlice or Python number.

Examples:
  >>> kd.maximum(kd.slice([1, 5, None]), 3)
  DataSlice([3, 5, None], schema: INT32, present: 2/3)
  >>> kd.maximum(kd.slice([[1, 5], [2]]), kd.slice([2.5, 0]))
  DataSlice([[2.5, 5.0], [2.0]], schema: FLOAT32, present: 3/3)"#,
        |a| maximum(a.slice("x")?, a.slice("y")?),
    );
    r.add(
        "kd.math.minimum",
        &["kd.minimum"],
        "x, y",
        r#"Computes the smaller of x and y item by item.

The arguments are broadcast to a common shape and promoted to their common
numeric type; a position where either item is missing is missing in the
result, and a NaN on either side gives NaN.

Args:
  x: a DataSlice of numbers.
  y: a DataSlice or Python number.

Examples:
  >>> kd.minimum(kd.slice([1, 5, None]), 3)
  DataSlice([1, 3, None], schema: INT32, present: 2/3)
  >>> kd.minimum(kd.slice([1, 5]), kd.slice([2.5, None]))
  DataSlice([1.0, None], schema: FLOAT32, present: 1/2)"#,
        |a| minimum(a.slice("x")?, a.slice("y")?),
    );
    r.add(
        "kd.math.neg",
        &["kd.neg"],
        "x",
        r#"Computes -x item by item.

Missing items stay missing and the result has the schema of x. Integers wrap:
the negation of the smallest INT32 is itself.

Args:
  x: a DataSlice of numbers.

Examples:
  >>> kd.math.neg(kd.slice([1, -2, None]))
  DataSlice([-1, 2, None], schema: INT32, present: 2/3)
  >>> kd.math.neg(kd.float64(0.5))
  DataItem(-0.5, schema: FLOAT64)"#,
        |a| neg(a.slice("x")?),
    );
    r.add(
        "kd.math.pos",
        &["kd.pos"],
        "x",
        r#"Returns x unchanged (+x), after checking that it holds numbers.

Args:
  x: a DataSlice of numbers.

Examples:
  >>> kd.math.pos(kd.slice([1, -2, None]))
  DataSlice([1, -2, None], schema: INT32, present: 2/3)
  >>> kd.math.pos(kd.slice(['a']))
  Traceback (most recent call last):
  ...
  ValueError: kd.math.pos: argument `x` must be a slice of numeric values, got a slice of STRING"#,
        |a| pos(a.slice("x")?),
    );
    r.add(
        "kd.math.abs",
        &[],
        "x",
        r#"Computes the absolute value of each item.

Missing items stay missing and the result has the schema of x. Integers wrap:
the absolute value of the smallest INT32 is itself.

Args:
  x: a DataSlice of numbers.

Examples:
  >>> kd.math.abs(kd.slice([1, -2, None]))
  DataSlice([1, 2, None], schema: INT32, present: 2/3)
  >>> kd.math.abs(kd.slice([-1.5, 0.0]))
  DataSlice([1.5, 0.0], schema: FLOAT32, present: 2/2)"#,
        |a| abs(a.slice("x")?),
    );
    r.add(
        "kd.math.sign",
        &[],
        "x",
        r#"Returns the sign of each item: -1, 0 or 1, in the schema of x.

Missing items stay missing; NaN stays NaN.

Args:
  x: a DataSlice of numbers.

Examples:
  >>> kd.math.sign(kd.slice([-3, 0, 7, None]))
  DataSlice([-1, 0, 1, None], schema: INT32, present: 3/4)
  >>> kd.math.sign(kd.slice([-3.5, 2.0]))
  DataSlice([-1.0, 1.0], schema: FLOAT32, present: 2/2)"#,
        |a| sign(a.slice("x")?),
    );
    r.add(
        "kd.math.round",
        &[],
        "x",
        r#"Rounds each item to the nearest integer value, halves away from zero.

Unlike Python's round, 2.5 becomes 3.0 and -2.5 becomes -3.0. Floats stay
floats of the same schema; integers are returned unchanged. Missing items stay
missing.

Args:
  x: a DataSlice of numbers.

Examples:
  >>> kd.math.round(kd.slice([1.5, 2.5, -2.5, 0.4, None]))
  DataSlice([2.0, 3.0, -3.0, 0.0, None], schema: FLOAT32, present: 4/5)
  >>> kd.math.round(kd.slice([1, 2]))
  DataSlice([1, 2], schema: INT32, present: 2/2)"#,
        |a| round(a.slice("x")?),
    );
    r.add(
        "kd.math.floor",
        &[],
        "x",
        r#"Rounds each item down to the nearest integer value.

Floats stay floats of the same schema; integers are returned unchanged.
Missing items stay missing.

Args:
  x: a DataSlice of numbers.

Examples:
  >>> kd.math.floor(kd.slice([1.5, -1.5, None]))
  DataSlice([1.0, -2.0, None], schema: FLOAT32, present: 2/3)
  >>> kd.math.floor(kd.slice([3, -3]))
  DataSlice([3, -3], schema: INT32, present: 2/2)"#,
        |a| floor(a.slice("x")?),
    );
    r.add(
        "kd.math.ceil",
        &[],
        "x",
        r#"Rounds each item up to the nearest integer value.

Floats stay floats of the same schema; integers are returned unchanged.
Missing items stay missing.

Args:
  x: a DataSlice of numbers.

Examples:
  >>> kd.math.ceil(kd.slice([1.5, -1.5, None]))
  DataSlice([2.0, -1.0, None], schema: FLOAT32, present: 2/3)
  >>> kd.math.ceil(kd.slice([3, -3]))
  DataSlice([3, -3], schema: INT32, present: 2/2)"#,
        |a| ceil(a.slice("x")?),
    );
    r.add(
        "kd.math.log",
        &[],
        "x",
        r#"Computes the natural logarithm of each item.

The result is FLOAT64 when x is FLOAT64 and FLOAT32 otherwise; missing items
stay missing. The logarithm of 0 is -inf and of a negative number nan.

Args:
  x: a DataSlice of numbers.

Examples:
  >>> kd.math.log(kd.slice([1, 0, -1, None]))
  DataSlice([0.0, -inf, nan, None], schema: FLOAT32, present: 3/4)
  >>> kd.math.log(kd.float64(10))
  DataItem(2.302585092994046, schema: FLOAT64)"#,
        |a| log(a.slice("x")?),
    );
    r.add(
        "kd.math.log10",
        &[],
        "x",
        r#"Computes the base-10 logarithm of each item.

The result is FLOAT64 when x is FLOAT64 and FLOAT32 otherwise; missing items
stay missing. The logarithm of 0 is -inf and of a negative number nan.

Args:
  x: a DataSlice of numbers.

Examples:
  >>> kd.math.log10(kd.slice([1, 10, 1000, None]))
  DataSlice([0.0, 1.0, 3.0, None], schema: FLOAT32, present: 3/4)"#,
        |a| log10(a.slice("x")?),
    );
    r.add(
        "kd.math.exp",
        &[],
        "x",
        r#"Computes e raised to the power of each item.

The result is FLOAT64 when x is FLOAT64 and FLOAT32 otherwise; missing items
stay missing, and results too large for the type are inf.

Args:
  x: a DataSlice of numbers.

Examples:
  >>> kd.math.exp(kd.slice([0, 1, None]))
  DataSlice([1.0, 2.7182817, None], schema: FLOAT32, present: 2/3)
  >>> kd.math.exp(kd.float64(1))
  DataItem(2.718281828459045, schema: FLOAT64)"#,
        |a| exp(a.slice("x")?),
    );
    r.add(
        "kd.math.sqrt",
        &[],
        "x",
        r#"Computes the square root of each item.

The result is FLOAT64 when x is FLOAT64 and FLOAT32 otherwise; missing items
stay missing, and the square root of a negative number is nan.

Args:
  x: a DataSlice of numbers.

Examples:
  >>> kd.math.sqrt(kd.slice([4, 2, -1, None]))
  DataSlice([2.0, 1.4142135, nan, None], schema: FLOAT32, present: 3/4)
  >>> kd.math.sqrt(kd.float64(2))
  DataItem(1.4142135623730951, schema: FLOAT64)"#,
        |a| sqrt(a.slice("x")?),
    );
    r.add(
        "kd.math.t_distribution_inverse_cdf",
        &[],
        "x, degrees_of_freedom",
        r#"Returns the quantile of Student's t distribution at probability x.

Computes, item by item, the value t such that a t-distributed variable with
degrees_of_freedom degrees of freedom is below t with probability x. The
arguments are broadcast to a common shape; the result is FLOAT64 when an
argument is FLOAT64 and FLOAT32 otherwise, and missing where either is. A
probability outside [0, 1] or a non-positive degrees_of_freedom raises a
ValueError.

Args:
  x: a DataSlice of probabilities in [0, 1].
  degrees_of_freedom: a DataSlice or Python number, positive.

Examples:
  >>> kd.math.t_distribution_inverse_cdf(kd.slice([0.025, 0.5, 0.975, None]), 10)
  DataSlice([-2.228139, 0.0, 2.2281394, None], schema: FLOAT32, present: 3/4)
  >>> kd.math.t_distribution_inverse_cdf(0.975, kd.slice([1, 3, 30]))
  DataSlice([12.706217, 3.1824474, 2.0422728], schema: FLOAT32, present: 3/3)"#,
        |a| t_distribution_inverse_cdf(a.slice("x")?, a.slice("degrees_of_freedom")?),
    );
    r.add(
        "kd.math.sigmoid",
        &[],
        "x, half=0.0, slope=1.0",
        r#"Computes the logistic function 1 / (1 + exp(-slope * (x - half))) of each item.

The result is 0.5 at x == half, and slope sets how steep it is there. The
arguments are broadcast to a common shape; the result is FLOAT64 when an
argument is FLOAT64 and FLOAT32 otherwise, and missing where x is.

Args:
  x: a DataSlice of numbers.
  half: where the result is 0.5 (0.0 by default).
  slope: the steepness (1.0 by default).

Examples:
  >>> kd.math.sigmoid(kd.slice([0, 1, -1, None]))
  DataSlice([0.5, 0.7310586, 0.26894143, None], schema: FLOAT32, present: 3/4)
  >>> kd.math.sigmoid(kd.slice([0, 1, 2]), half=1, slope=2)
  DataSlice([0.11920292, 0.5, 0.880797], schema: FLOAT32, present: 3/3)"#,
        |a| sigmoid(a.slice("x")?, a.slice("half")?, a.slice("slope")?),
    );
    r.add(
        "kd.math.is_nan",
        &["kd.is_nan"],
        "x",
        r#"Returns present where an item is NaN.

Missing items and integers are never NaN, so they give missing.

Args:
  x: a DataSlice of numbers.

Examples:
  >>> kd.is_nan(kd.slice([1.0, float('nan'), None]))
  DataSlice([missing, present, missing], schema: MASK, present: 1/3)
  >>> kd.is_nan(kd.math.divide(kd.slice([0, 1]), 0))
  DataSlice([present, missing], schema: MASK, present: 1/2)"#,
        |a| is_nan(a.slice("x")?),
    );
    r.add(
        "kd.math.agg_sum",
        &["kd.agg_sum"],
        "x, ndim=unspecified",
        r#"Returns the sum of each group of the last ndim dimensions.

Missing items are skipped, and a group with no present item sums to 0. The
result has ndim fewer dimensions than x and the schema of x (INT32 when x has
no present item and no numeric schema). Integers wrap on overflow.

Args:
  x: a DataSlice of numbers.
  ndim: how many trailing dimensions to sum over (1 when unspecified).

Examples:
  >>> kd.agg_sum(kd.slice([[1, 2], [3, None], [None]]))
  DataSlice([3, 3, 0], schema: INT32, present: 3/3)
  >>> kd.agg_sum(kd.slice([[1, 2], [3]]), ndim=2)
  DataItem(6, schema: INT32)"#,
        |a| agg_sum(a.slice("x")?, a.agg_ndim()?),
    );
    r.add(
        "kd.math.agg_mean",
        &[],
        "x, ndim=unspecified",
        r#"Returns the mean of each group of the last ndim dimensions.

Missing items are skipped, and a group with no present item gives missing. The
result is FLOAT64 when x is FLOAT64 and FLOAT32 otherwise, with ndim fewer
dimensions than x.

Args:
  x: a DataSlice of numbers.
  ndim: how many trailing dimensions to aggregate over (1 when unspecified).

Examples:
  >>> kd.math.agg_mean(kd.slice([[1, 2, None], [None], [3, 4, 8]]))
  DataSlice([1.5, None, 5.0], schema: FLOAT32, present: 2/3)
  >>> kd.math.agg_mean(kd.slice([[1, 2], [3]]), ndim=2)
  DataItem(2.0, schema: FLOAT32)"#,
        |a| agg_mean(a.slice("x")?, a.agg_ndim()?),
    );
    r.add(
        "kd.math.agg_max",
        &["kd.agg_max"],
        "x, ndim=unspecified",
        r#"Returns the maximum of each group of the last ndim dimensions.

Missing items are skipped, and a group with no present item gives missing. A
group holding NaN gives NaN. The result has ndim fewer dimensions than x and
the schema of x.

Args:
  x: a DataSlice of numbers.
  ndim: how many trailing dimensions to aggregate over (1 when unspecified).

Examples:
  >>> kd.agg_max(kd.slice([[1, 5, None], [None], [-2]]))
  DataSlice([5, None, -2], schema: INT32, present: 2/3)
  >>> kd.agg_max(kd.slice([[1, 5], [7]]), ndim=2)
  DataItem(7, schema: INT32)"#,
        |a| agg_max(a.slice("x")?, a.agg_ndim()?),
    );
    r.add(
        "kd.math.agg_min",
        &["kd.agg_min"],
        "x, ndim=unspecified",
        r#"Returns the minimum of each group of the last ndim dimensions.

Missing items are skipped, and a group with no present item gives missing. A
group holding NaN gives NaN. The result has ndim fewer dimensions than x and
the schema of x.

Args:
  x: a DataSlice of numbers.
  ndim: how many trailing dimensions to aggregate over (1 when unspecified).

Examples:
  >>> kd.agg_min(kd.slice([[1, 5, None], [None], [-2]]))
  DataSlice([1, None, -2], schema: INT32, present: 2/3)
  >>> kd.agg_min(kd.slice([[1, 5], [7]]), ndim=2)
  DataItem(1, schema: INT32)"#,
        |a| agg_min(a.slice("x")?, a.agg_ndim()?),
    );
    r.add(
        "kd.math.agg_median",
        &[],
        "x, ndim=unspecified",
        r#"Returns the median of each group of the last ndim dimensions.

Missing items are skipped, and a group with no present item gives missing. For
an even count the lower of the two middle values is taken, so the median is
always an item of the group and keeps the schema of x. A group holding NaN
gives NaN. The result has ndim fewer dimensions than x.

Args:
  x: a DataSlice of numbers.
  ndim: how many trailing dimensions to aggregate over (1 when unspecified).

Examples:
  >>> kd.math.agg_median(kd.slice([[3, 1, 2], [4, 1, None, 2], [None]]))
  DataSlice([2, 2, None], schema: INT32, present: 2/3)
  >>> kd.math.agg_median(kd.slice([[1.0, 4.0], [3.0]]), ndim=2)
  DataItem(3.0, schema: FLOAT32)"#,
        |a| agg_median(a.slice("x")?, a.agg_ndim()?),
    );
    r.add(
        "kd.math.agg_var",
        &[],
        "x, unbiased=True, ndim=unspecified",
        r#"Returns the variance of each group of the last ndim dimensions.

Missing items are skipped. With unbiased (the default) the sum of squares is
divided by n - 1, so a group needs two present items; otherwise by n. Groups
with too few items give missing. The result is FLOAT64 when x is FLOAT64 and
FLOAT32 otherwise, with ndim fewer dimensions than x.

Args:
  x: a DataSlice of numbers.
  unbiased: whether to divide by n - 1 rather than n (True by default).
  ndim: how many trailing dimensions to aggregate over (1 when unspecified).

Examples:
  >>> x = kd.slice([[1, 2, 3, 4], [5], [None]])
  >>> kd.math.agg_var(x)
  DataSlice([1.6666666, None, None], schema: FLOAT32, present: 1/3)
  >>> kd.math.agg_var(x, unbiased=False)
  DataSlice([1.25, 0.0, None], schema: FLOAT32, present: 2/3)
  >>> kd.math.agg_var(kd.slice([[1, 2], [3, 4]]), ndim=2)
  DataItem(1.6666666, schema: FLOAT32)"#,
        |a| agg_var(a.slice("x")?, || a.bool("unbiased"), a.agg_ndim()?),
    );
    r.add(
        "kd.math.agg_std",
        &[],
        "x, unbiased=True, ndim=unspecified",
        r#"Returns the standard deviation of each group of the last ndim dimensions.

Missing items are skipped. With unbiased (the default) the sum of squares is
divided by n - 1, so a group needs two present items; otherwise by n. Groups
with too few items give missing. The result is FLOAT64 when x is FLOAT64 and
FLOAT32 otherwise, with ndim fewer dimensions than x.

Args:
  x: a DataSlice of numbers.
  unbiased: whether to divide by n - 1 rather than n (True by default).
  ndim: how many trailing dimensions to aggregate over (1 when unspecified).

Examples:
  >>> x = kd.slice([[1, 2, 3, 4], [5], [None]])
  >>> kd.math.agg_std(x)
  DataSlice([1.2909944, None, None], schema: FLOAT32, present: 1/3)
  >>> kd.math.agg_std(x, unbiased=False)
  DataSlice([1.118034, 0.0, None], schema: FLOAT32, present: 2/3)
  >>> kd.math.agg_std(kd.slice([[2, 4], [4, 6]]), ndim=2)
  DataItem(1.6329932, schema: FLOAT32)"#,
        |a| agg_std(a.slice("x")?, || a.bool("unbiased"), a.agg_ndim()?),
    );
    r.add(
        "kd.math.argmax",
        &["kd.argmax"],
        "x, ndim=unspecified",
        r#"Returns the position of the largest item in each group of the last ndim dimensions.

Positions count every item of the group, missing ones included, from 0 (over
the flattened last ndim dimensions). Missing items are skipped; on ties the
first largest wins, and a NaN counts as the largest. A group with no present
item gives missing. The result is INT64, with ndim fewer dimensions than x.

Args:
  x: a DataSlice of numbers.
  ndim: how many trailing dimensions to search (1 when unspecified).

Examples:
  >>> kd.argmax(kd.slice([[1, 5, 5, None], [None], [None, 3, 8]]))
  DataSlice([1, None, 2], schema: INT64, present: 2/3)
  >>> kd.argmax(kd.slice([[1, 5], [8, 2]]), ndim=2)
  DataItem(2, schema: INT64)"#,
        |a| argmax(a.slice("x")?, a.agg_ndim()?),
    );
    r.add(
        "kd.math.argmin",
        &["kd.argmin"],
        "x, ndim=unspecified",
        r#"Returns the position of the smallest item in each group of the last ndim dimensions.

Positions count every item of the group, missing ones included, from 0 (over
the flattened last ndim dimensions). Missing items are skipped; on ties the
first smallest wins, and a NaN counts as the smallest. A group with no present
item gives missing. The result is INT64, with ndim fewer dimensions than x.

Args:
  x: a DataSlice of numbers.
  ndim: how many trailing dimensions to search (1 when unspecified).

Examples:
  >>> kd.argmin(kd.slice([[4, 1, 1, None], [None], [None, 3, 8]]))
  DataSlice([1, None, 1], schema: INT64, present: 2/3)
  >>> kd.argmin(kd.slice([[1, 5], [0, 2]]), ndim=2)
  DataItem(2, schema: INT64)"#,
        |a| argmin(a.slice("x")?, a.agg_ndim()?),
    );
    r.add(
        "kd.math.agg_inverse_cdf",
        &[],
        "x, cdf_arg, ndim=unspecified",
        r#"Returns, for each group of the last ndim dimensions, the value at quantile cdf_arg.

Missing items are skipped. The result is an item of the group itself (no
interpolation): the smallest one with at least a fraction cdf_arg of the
group's present items at or below it. A group with no present item gives
missing. The result has ndim fewer dimensions than x and the schema of x.

Args:
  x: a DataSlice of numbers.
  cdf_arg: a scalar number in [0, 1]; other values raise a ValueError.
  ndim: how many trailing dimensions to aggregate over (1 when unspecified).

Examples:
  >>> x = kd.slice([[1, 2, 3, 4, 5], [20, 10, None], [None]])
  >>> kd.math.agg_inverse_cdf(x, 0.5)
  DataSlice([3, 10, None], schema: INT32, present: 2/3)
  >>> kd.math.agg_inverse_cdf(x, 1.0)
  DataSlice([5, 20, None], schema: INT32, present: 2/3)
  >>> kd.math.agg_inverse_cdf(kd.slice([[4, 1], [3, 2]]), 0.5, ndim=2)
  DataItem(2, schema: INT32)"#,
        |a| agg_inverse_cdf(a.slice("x")?, a.slice("cdf_arg")?, a.agg_ndim()?),
    );
    r.add(
        "kd.math.inverse_cdf",
        &[],
        "x, cdf_arg",
        r#"Returns the value at quantile cdf_arg over all items of x.

Missing items are skipped. The result is an item of x itself (no
interpolation): the smallest one with at least a fraction cdf_arg of the
present items at or below it. It is missing when x has no present item and has
the schema of x.

Args:
  x: a DataSlice of numbers.
  cdf_arg: a scalar number in [0, 1]; other values raise a ValueError.

Examples:
  >>> x = kd.slice([[1, 2, 3], [4, 5, None]])
  >>> kd.math.inverse_cdf(x, 0.5)
  DataItem(3, schema: INT32)
  >>> kd.math.inverse_cdf(x, 0.0)
  DataItem(1, schema: INT32)"#,
        |a| inverse_cdf(a.slice("x")?, a.slice("cdf_arg")?),
    );
    r.add(
        "kd.math.sum",
        &["kd.sum"],
        "x",
        r#"Returns the sum of all items of x, as a DataItem.

Missing items are skipped, and with no present item the sum is 0. The result
has the schema of x (INT32 when x has no present item and no numeric schema).

Args:
  x: a DataSlice of numbers.

Examples:
  >>> kd.sum(kd.slice([[1, 2], [3, None]]))
  DataItem(6, schema: INT32)
  >>> kd.sum(kd.slice([None, None]))
  DataItem(0, schema: INT32)"#,
        |a| sum(a.slice("x")?),
    );
    r.add(
        "kd.math.mean",
        &[],
        "x",
        r#"Returns the mean of all items of x, as a DataItem.

Missing items are skipped; with no present item the result is missing. The
result is FLOAT64 when x is FLOAT64 and FLOAT32 otherwise.

Args:
  x: a DataSlice of numbers.

Examples:
  >>> kd.math.mean(kd.slice([[1, 2], [3, None]]))
  DataItem(2.0, schema: FLOAT32)"#,
        |a| mean(a.slice("x")?),
    );
    r.add(
        "kd.math.max",
        &["kd.max"],
        "x",
        r#"Returns the maximum of all items of x, as a DataItem.

Missing items are skipped; with no present item the result is missing. A NaN
among the items gives NaN. The result has the schema of x.

Args:
  x: a DataSlice of numbers.

Examples:
  >>> kd.max(kd.slice([[1, 7], [3, None]]))
  DataItem(7, schema: INT32)
  >>> kd.max(kd.slice([None, None]))
  DataItem(None, schema: NONE)"#,
        |a| max(a.slice("x")?),
    );
    r.add(
        "kd.math.min",
        &["kd.min"],
        "x",
        r#"Returns the minimum of all items of x, as a DataItem.

Missing items are skipped; with no present item the result is missing. A NaN
among the items gives NaN. The result has the schema of x.

Args:
  x: a DataSlice of numbers.

Examples:
  >>> kd.min(kd.slice([[1, 7], [-3, None]]))
  DataItem(-3, schema: INT32)"#,
        |a| min(a.slice("x")?),
    );
    r.add(
        "kd.math.median",
        &[],
        "x",
        r#"Returns the median of all items of x, as a DataItem.

Missing items are skipped; with no present item the result is missing. For an
even count the lower of the two middle values is taken, so the median is an
item of x and keeps its schema. A NaN among the items gives NaN.

Args:
  x: a DataSlice of numbers.

Examples:
  >>> kd.math.median(kd.slice([[1, 7], [3, None]]))
  DataItem(3, schema: INT32)
  >>> kd.math.median(kd.slice([4.0, 1.0, 3.0, 2.0]))
  DataItem(2.0, schema: FLOAT32)"#,
        |a| median(a.slice("x")?),
    );
    r.add(
        "kd.math.cum_sum",
        &[],
        "x, ndim=unspecified",
        r#"Returns the running sum within each group of the last ndim dimensions.

Each present item becomes the sum of the present items of its group up to and
including it; missing items are skipped and stay missing. The result has the
shape and schema of x. FLOAT32 sums are accumulated in FLOAT64 and each
rounded once.

Args:
  x: a DataSlice of numbers.
  ndim: how many trailing dimensions form a group (1 when unspecified).

Examples:
  >>> kd.math.cum_sum(kd.slice([[1, 2, None, 3], [4, 5]]))
  DataSlice([[1, 3, None, 6], [4, 9]], schema: INT32, present: 5/6)
  >>> kd.math.cum_sum(kd.slice([[1, 2], [3, 4]]), ndim=2)
  DataSlice([[1, 3], [6, 10]], schema: INT32, present: 4/4)
  >>> kd.math.cum_sum(kd.slice([49.14, -2.99, -34.87]))
  DataSlice([49.14, 46.149998, 11.280001], schema: FLOAT32, present: 3/3)"#,
        |a| cum_sum(a.slice("x")?, a.agg_ndim()?),
    );
    r.add(
        "kd.math.cum_max",
        &["kd.cum_max"],
        "x, ndim=unspecified",
        r#"Returns the running maximum within each group of the last ndim dimensions.

Each present item becomes the largest present item of its group up to and
including it; missing items are skipped and stay missing. Once a NaN is met,
the rest of the group is NaN. The result has the shape and schema of x.

Args:
  x: a DataSlice of numbers.
  ndim: how many trailing dimensions form a group (1 when unspecified).

Examples:
  >>> kd.cum_max(kd.slice([[1, 3, None, 2, 5], [4, 1]]))
  DataSlice([[1, 3, None, 3, 5], [4, 4]], schema: INT32, present: 6/7)
  >>> kd.cum_max(kd.slice([[1, 3], [2, 5]]), ndim=2)
  DataSlice([[1, 3], [3, 5]], schema: INT32, present: 4/4)"#,
        |a| cum_max(a.slice("x")?, a.agg_ndim()?),
    );
    r.add(
        "kd.math.cum_min",
        &[],
        "x, ndim=unspecified",
        r#"Returns the running minimum within each group of the last ndim dimensions.

Each present item becomes the smallest present item of its group up to and
including it; missing items are skipped and stay missing. Once a NaN is met,
the rest of the group is NaN. The result has the shape and schema of x.

Args:
  x: a DataSlice of numbers.
  ndim: how many trailing dimensions form a group (1 when unspecified).

Examples:
  >>> kd.math.cum_min(kd.slice([[5, 3, None, 4, 1], [4, 1]]))
  DataSlice([[5, 3, None, 3, 1], [4, 1]], schema: INT32, present: 6/7)
  >>> kd.math.cum_min(kd.slice([[5, 3], [4, 1]]), ndim=2)
  DataSlice([[5, 3], [3, 1]], schema: INT32, present: 4/4)"#,
        |a| cum_min(a.slice("x")?, a.agg_ndim()?),
    );
    r.add(
        "kd.math.softmax",
        &[],
        "x, beta=1.0, ndim=unspecified",
        r#"Returns the softmax of x within each group of the last ndim dimensions.

Each present item becomes exp(beta * x) divided by the sum of exp(beta * x)
over the present items of its group, so every group sums to 1. Missing items
stay missing. A larger beta sharpens the result, beta = 0 makes it uniform.
The result has the shape of x and is FLOAT64 when x is FLOAT64, FLOAT32
otherwise.

Args:
  x: a DataSlice of numbers.
  beta: a scalar number multiplying x (1.0 by default).
  ndim: how many trailing dimensions form a group (1 when unspecified).

Examples:
  >>> kd.math.softmax(kd.slice([[1, 2, 3], [0, 0, None]]))
  DataSlice([[0.09003057, 0.24472848, 0.66524094], [0.5, 0.5, None]], schema: FLOAT32, present: 5/6)
  >>> kd.math.softmax(kd.slice([1, 2, 3]), beta=0)
  DataSlice([0.33333334, 0.33333334, 0.33333334], schema: FLOAT32, present: 3/3)"#,
        |a| softmax(a.slice("x")?, a.slice("beta")?, a.agg_ndim()?),
    );
    r.add(
        "kd.math.cdf",
        &[],
        "x, weights=unspecified, ndim=unspecified",
        r#"Returns, for each item, the fraction of its group that is less than or equal to it.

Groups are formed by the last ndim dimensions. With weights, the fraction is
of the total weight of the group rather than of the item count. Missing items
(and items whose weight is missing) are skipped and stay missing; a group
holding NaN gives NaN for all its items. The result has the shape of x and is
FLOAT64 when an argument is FLOAT64, FLOAT32 otherwise.

Args:
  x: a DataSlice of numbers.
  weights: a DataSlice of numbers with the shape of x (all 1 when unspecified).
  ndim: how many trailing dimensions form a group (1 when unspecified).

Examples:
  >>> kd.math.cdf(kd.slice([[3, 1, 2, 2], [5, None]]))
  DataSlice([[1.0, 0.25, 0.75, 0.75], [1.0, None]], schema: FLOAT32, present: 5/6)
  >>> kd.math.cdf(kd.slice([1, 2, 3]), weights=kd.slice([1, 1, 2]))
  DataSlice([0.25, 0.5, 1.0], schema: FLOAT32, present: 3/3)
  >>> kd.math.cdf(kd.slice([[3, 1, 2], [5, 4]]), ndim=2)
  DataSlice([[0.6, 0.2, 0.4], [1.0, 0.8]], schema: FLOAT32, present: 5/5)"#,
        |a| cdf(a.slice("x")?, a.opt_slice("weights")?, a.agg_ndim()?),
    );
    // Type rules (see `crate::typing`).
    use crate::promote::TypeClass::{Numeric, NumericOrText};
    use crate::typing::rules::{Out, aggregate, aggregate_all, elementwise, same_dims};
    use plait_core::Schema;
    const XY: &[&str] = &["x", "y"];
    const X: &[&str] = &["x"];
    use crate::typing::rules::{SizeOp, size_arithmetic};
    r.type_rule("kd.math.add", size_arithmetic(SizeOp::Add, elementwise(XY, NumericOrText, Out::Common)));
    r.type_rule("kd.math.subtract", size_arithmetic(SizeOp::Subtract, elementwise(XY, Numeric, Out::Common)));
    r.type_rule("kd.math.multiply", size_arithmetic(SizeOp::Multiply, elementwise(XY, Numeric, Out::Common)));
    for name in ["kd.math.floordiv", "kd.math.mod", "kd.math.maximum", "kd.math.minimum"] {
        r.type_rule(name, elementwise(XY, Numeric, Out::Common));
    }
    for name in ["kd.math.divide", "kd.math.pow"] {
        r.type_rule(name, elementwise(XY, Numeric, Out::Float));
    }
    for name in ["kd.math.neg", "kd.math.pos", "kd.math.abs", "kd.math.sign", "kd.math.round", "kd.math.floor", "kd.math.ceil"] {
        r.type_rule(name, elementwise(X, Numeric, Out::Common));
    }
    for name in ["kd.math.log", "kd.math.log10", "kd.math.exp", "kd.math.sqrt"] {
        r.type_rule(name, elementwise(X, Numeric, Out::Float));
    }
    r.type_rule("kd.math.sigmoid", elementwise(&["x", "half", "slope"], Numeric, Out::AlwaysFloat));
    r.type_rule("kd.math.is_nan", elementwise(X, Numeric, Out::Fixed(Schema::Mask)));
    r.type_rule("kd.math.agg_sum", aggregate(Numeric, Out::CommonOr(Schema::Int32)));
    for name in ["kd.math.agg_max", "kd.math.agg_min", "kd.math.agg_median"] {
        r.type_rule(name, aggregate(Numeric, Out::Common));
    }
    for name in ["kd.math.agg_mean", "kd.math.agg_var", "kd.math.agg_std"] {
        r.type_rule(name, aggregate(Numeric, Out::Float));
    }
    for name in ["kd.math.argmax", "kd.math.argmin"] {
        r.type_rule(name, aggregate(Numeric, Out::Fixed(Schema::Int64)));
    }
    r.type_rule("kd.math.sum", aggregate_all(Some(Numeric), Out::CommonOr(Schema::Int32)));
    for name in ["kd.math.max", "kd.math.min", "kd.math.median"] {
        r.type_rule(name, aggregate_all(Some(Numeric), Out::Common));
    }
    r.type_rule("kd.math.mean", aggregate_all(Some(Numeric), Out::Float));
    r.type_rule("kd.math.inverse_cdf", aggregate_all(Some(Numeric), Out::Common));
    r.type_rule("kd.math.agg_inverse_cdf", aggregate(Numeric, Out::Common));
    r.type_rule("kd.math.t_distribution_inverse_cdf", elementwise(&["x", "degrees_of_freedom"], Numeric, Out::Float));
    for name in ["kd.math.cum_sum", "kd.math.cum_max", "kd.math.cum_min"] {
        r.type_rule(name, same_dims(Some(Numeric), Out::Common));
    }
    for name in ["kd.math.softmax", "kd.math.cdf"] {
        r.type_rule(name, same_dims(Some(Numeric), Out::AlwaysFloat));
    }
}
