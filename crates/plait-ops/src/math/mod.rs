//! `kd.math`: arithmetic, elementwise functions, aggregations and
//! distributions over numbers.

mod aggregate;
mod arithmetic;
mod cumulative;
mod distributions;
pub mod items;
mod unary;

pub use aggregate::{
    agg_inverse_cdf, agg_max, agg_mean, agg_median, agg_min, agg_std, agg_sum, agg_var, argmax, argmin, inverse_cdf,
    max, mean, median, min, sum,
};
pub use arithmetic::{add, divide, floordiv, maximum, minimum, modulo, multiply, pow, subtract};
pub use cumulative::{cdf, cum_max, cum_min, cum_sum, softmax};
pub use distributions::t_distribution_inverse_cdf;
pub use unary::{abs, ceil, exp, floor, is_nan, log, log10, neg, pos, round, sigmoid, sign, sqrt};

use crate::registry::Registry;

pub(crate) fn register(r: &mut Registry) {
    r.add("kd.math.add", &["kd.add"], "x, y", "Computes pointwise x + y (sums numbers, concatenates text).", |a| add(a.slice("x")?, a.slice("y")?));
    r.add("kd.math.subtract", &["kd.subtract"], "x, y", "Computes pointwise x - y.", |a| subtract(a.slice("x")?, a.slice("y")?));
    r.add("kd.math.multiply", &["kd.multiply"], "x, y", "Computes pointwise x * y.", |a| multiply(a.slice("x")?, a.slice("y")?));
    r.add("kd.math.divide", &["kd.divide"], "x, y", "Computes pointwise x / y in floats.", |a| divide(a.slice("x")?, a.slice("y")?));
    r.add("kd.math.floordiv", &["kd.floordiv"], "x, y", "Computes pointwise x // y.", |a| floordiv(a.slice("x")?, a.slice("y")?));
    r.add("kd.math.mod", &["kd.mod"], "x, y", "Computes pointwise x % y.", |a| modulo(a.slice("x")?, a.slice("y")?));
    r.add("kd.math.pow", &["kd.pow"], "x, y", "Computes pointwise x ** y in floats.", |a| pow(a.slice("x")?, a.slice("y")?));
    r.add("kd.math.maximum", &["kd.maximum"], "x, y", "Computes pointwise max(x, y).", |a| maximum(a.slice("x")?, a.slice("y")?));
    r.add("kd.math.minimum", &["kd.minimum"], "x, y", "Computes pointwise min(x, y).", |a| minimum(a.slice("x")?, a.slice("y")?));
    r.add("kd.math.neg", &["kd.neg"], "x", "Computes pointwise -x.", |a| neg(a.slice("x")?));
    r.add("kd.math.pos", &["kd.pos"], "x", "Computes pointwise +x.", |a| pos(a.slice("x")?));
    r.add("kd.math.abs", &[], "x", "Computes pointwise absolute values.", |a| abs(a.slice("x")?));
    r.add("kd.math.sign", &[], "x", "Computes the sign of each item: -1, 0 or 1.", |a| sign(a.slice("x")?));
    r.add("kd.math.round", &[], "x", "Rounds each item to the nearest integer, halves away from zero.", |a| round(a.slice("x")?));
    r.add("kd.math.floor", &[], "x", "Rounds each item down.", |a| floor(a.slice("x")?));
    r.add("kd.math.ceil", &[], "x", "Rounds each item up.", |a| ceil(a.slice("x")?));
    r.add("kd.math.log", &[], "x", "Computes the natural logarithm of each item.", |a| log(a.slice("x")?));
    r.add("kd.math.log10", &[], "x", "Computes the base-10 logarithm of each item.", |a| log10(a.slice("x")?));
    r.add("kd.math.exp", &[], "x", "Computes e to the power of each item.", |a| exp(a.slice("x")?));
    r.add("kd.math.sqrt", &[], "x", "Computes the square root of each item.", |a| sqrt(a.slice("x")?));
    r.add(
        "kd.math.t_distribution_inverse_cdf",
        &[],
        "x, degrees_of_freedom",
        "Computes the quantile of Student's t distribution at probability x.",
        |a| t_distribution_inverse_cdf(a.slice("x")?, a.slice("degrees_of_freedom")?),
    );
    r.add("kd.math.sigmoid", &[], "x, half=0.0, slope=1.0", "Computes 1 / (1 + exp(-slope * (x - half))).", |a| {
        sigmoid(a.slice("x")?, a.slice("half")?, a.slice("slope")?)
    });
    r.add("kd.math.is_nan", &["kd.is_nan"], "x", "Returns present where x is NaN.", |a| is_nan(a.slice("x")?));
    r.add("kd.math.agg_sum", &["kd.agg_sum"], "x, ndim=unspecified", "Returns the sums along the last ndim dimensions.", |a| agg_sum(a.slice("x")?, a.ndim()?));
    r.add("kd.math.agg_mean", &[], "x, ndim=unspecified", "Returns the means along the last ndim dimensions.", |a| agg_mean(a.slice("x")?, a.ndim()?));
    r.add("kd.math.agg_max", &["kd.agg_max"], "x, ndim=unspecified", "Returns the maxima along the last ndim dimensions.", |a| agg_max(a.slice("x")?, a.ndim()?));
    r.add("kd.math.agg_min", &["kd.agg_min"], "x, ndim=unspecified", "Returns the minima along the last ndim dimensions.", |a| agg_min(a.slice("x")?, a.ndim()?));
    r.add("kd.math.agg_median", &[], "x, ndim=unspecified", "Returns the medians along the last ndim dimensions (lower middle for even counts).", |a| {
        agg_median(a.slice("x")?, a.ndim()?)
    });
    r.add("kd.math.agg_var", &[], "x, unbiased=True, ndim=unspecified", "Returns the variances along the last ndim dimensions.", |a| {
        agg_var(a.slice("x")?, a.bool("unbiased")?, a.ndim()?)
    });
    r.add("kd.math.agg_std", &[], "x, unbiased=True, ndim=unspecified", "Returns the standard deviations along the last ndim dimensions.", |a| {
        agg_std(a.slice("x")?, a.bool("unbiased")?, a.ndim()?)
    });
    r.add("kd.math.argmax", &["kd.argmax"], "x, ndim=unspecified", "Returns the position of the first maximum along the last ndim dimensions.", |a| {
        argmax(a.slice("x")?, a.ndim()?)
    });
    r.add("kd.math.argmin", &["kd.argmin"], "x, ndim=unspecified", "Returns the position of the first minimum along the last ndim dimensions.", |a| {
        argmin(a.slice("x")?, a.ndim()?)
    });
    r.add("kd.math.agg_inverse_cdf", &[], "x, cdf_arg, ndim=unspecified", "Returns the value at quantile cdf_arg along the last ndim dimensions.", |a| {
        agg_inverse_cdf(a.slice("x")?, a.slice("cdf_arg")?, a.ndim()?)
    });
    r.add("kd.math.inverse_cdf", &[], "x, cdf_arg", "Returns the value at quantile cdf_arg over all items.", |a| inverse_cdf(a.slice("x")?, a.slice("cdf_arg")?));
    r.add("kd.math.sum", &["kd.sum"], "x", "Returns the sum of all items.", |a| sum(a.slice("x")?));
    r.add("kd.math.mean", &[], "x", "Returns the mean of all items.", |a| mean(a.slice("x")?));
    r.add("kd.math.max", &["kd.max"], "x", "Returns the maximum of all items.", |a| max(a.slice("x")?));
    r.add("kd.math.min", &["kd.min"], "x", "Returns the minimum of all items.", |a| min(a.slice("x")?));
    r.add("kd.math.median", &[], "x", "Returns the median of all items.", |a| median(a.slice("x")?));
    r.add("kd.math.cum_sum", &[], "x, ndim=unspecified", "Returns running sums along the last ndim dimensions.", |a| cum_sum(a.slice("x")?, a.ndim()?));
    r.add("kd.math.cum_max", &["kd.cum_max"], "x, ndim=unspecified", "Returns running maxima along the last ndim dimensions.", |a| cum_max(a.slice("x")?, a.ndim()?));
    r.add("kd.math.cum_min", &[], "x, ndim=unspecified", "Returns running minima along the last ndim dimensions.", |a| cum_min(a.slice("x")?, a.ndim()?));
    r.add("kd.math.softmax", &[], "x, beta=1.0, ndim=unspecified", "Returns the softmax of x along the last ndim dimensions.", |a| {
        softmax(a.slice("x")?, a.slice("beta")?, a.ndim()?)
    });
    r.add("kd.math.cdf", &[], "x, weights=unspecified, ndim=unspecified", "Returns the weighted CDF of each item within the last ndim dimensions.", |a| {
        cdf(a.slice("x")?, a.opt_slice("weights")?, a.ndim()?)
    });
}
