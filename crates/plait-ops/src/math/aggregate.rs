//! Aggregations over the last `ndim` dimensions: `kd.math.agg_sum`,
//! `agg_mean`, `agg_max`, `agg_min`, `agg_median`, `agg_std`, `agg_var`,
//! `argmax`, `argmin`, `agg_inverse_cdf`, and their all-dimension forms
//! (`sum`, `mean`, `max`, `min`, `median`, `inverse_cdf`).
//!
//! Missing items are skipped. A group without present items sums to 0 and has
//! no other aggregate.

use std::ops::Range;

use arrow_buffer::NullBuffer;
use plait_core::{DataSlice, Error, Result, Schema, SliceData};

use super::dense_groups::{Max, Min, Reduction, SumF64, WrappingSum, reduce_groups};
use crate::elementwise::{Prepared, float_type, prepare};
use crate::groups::{Groups, groups};
use crate::kernel::{bits_of, bits_of_pairs, is_present, map_groups, map1};
use crate::num::Num;
use crate::promote::TypeClass;

/// The numeric argument of an aggregation and its groups.
struct Input {
    p: Prepared,
    groups: Groups,
}

impl Input {
    fn new(op: &str, x: &DataSlice, ndim: Option<i64>) -> Result<Input> {
        Input::checked(op, x, ndim, || Ok(())).map(|(input, ())| input)
    }

    /// [`Input::new`] and the operator's other arguments, read by `others`,
    /// checked in Koda's order (after a given `ndim`, which
    /// `Args::agg_ndim` checks): `x`'s type, the other arguments, and last
    /// that `x` has a dimension to aggregate when `ndim` is not given.
    fn checked<A>(op: &str, x: &DataSlice, ndim: Option<i64>, others: impl FnOnce() -> Result<A>) -> Result<(Input, A)> {
        let p = prepare(op, &[("x", x)], TypeClass::Numeric)?;
        let others = others()?;
        let groups = groups(op, x, ndim)?;
        Ok((Input { p, groups }, others))
    }

    fn presence(&self) -> Option<&NullBuffer> {
        self.p.operands[0].presence()
    }

    /// The result when no item is present: missing, typed `out`.
    fn missing(&self, out: Schema) -> DataSlice {
        DataSlice::missing(self.groups.shape.clone(), self.p.promotion.schema(out))
    }

    /// One value (or none) per group, of the result type `R`.
    fn finish<R: Num>(&self, out: Vec<Option<R>>) -> Result<DataSlice> {
        self.finish_with_schema(out, self.p.promotion.schema(R::SCHEMA))
    }

    /// Like [`Self::finish`] with the result schema given.
    fn finish_with_schema<R: Num>(&self, out: Vec<Option<R>>, schema: Schema) -> Result<DataSlice> {
        let presence = NullBuffer::new(bits_of(&out, |v| v.is_some()));
        let values = map1(&out, |v| v.unwrap_or(R::ZERO));
        let column = plait_core::Column::new(R::into_values(values), (presence.null_count() > 0).then_some(presence));
        let data = SliceData::from_column(column);
        DataSlice::new(self.groups.shape.clone(), data, schema)
    }

    /// One value per group, every one present.
    fn finish_present<R: Num>(&self, values: Vec<R>) -> Result<DataSlice> {
        let column = plait_core::Column::new(R::into_values(values), None);
        DataSlice::new(self.groups.shape.clone(), SliceData::from_column(column), self.p.promotion.schema(R::SCHEMA))
    }

    /// One value per group, where a group of no items is missing (the value
    /// written for it is ignored). Split points do not decrease, so a group
    /// is empty where its end equals its start (`!=` of i64 vectorises on
    /// SSE2, `>` does not).
    fn finish_nonempty<R: Num>(&self, values: Vec<R>, schema: Schema) -> Result<DataSlice> {
        let edge = &self.groups.edge;
        let presence = match edge {
            plait_core::Edge::Split(points) if points.windows(2).any(|e| e[0] == e[1]) => {
                Some(NullBuffer::new(bits_of_pairs(&points[1..], &points[..values.len()], |end, start| end != start)))
            }
            plait_core::Edge::Uniform { size: 0, .. } => Some(NullBuffer::new_null(values.len())),
            _ => None,
        };
        let column = plait_core::Column::new(R::into_values(values), presence);
        DataSlice::new(self.groups.shape.clone(), SliceData::from_column(column), schema)
    }

    /// `finish(reduction, size)` of each group of `x`, which has no missing
    /// items (see `dense_groups`).
    fn dense<T: Num, O: Reduction<T>, R: Send>(&self, finish: impl Fn(O::Acc, usize) -> R + Sync) -> Vec<R> {
        let values = T::slice_of(self.p.operands[0].values()).expect("numeric operand");
        reduce_groups::<T, O, R>(values, &self.groups.edge, finish)
    }

    /// `f(values, range)` for each group, where `values` are the items of `x`.
    fn per_group<T: Num, R: Send>(&self, f: impl Fn(&[T], Range<usize>) -> R + Sync) -> Vec<R> {
        let values = T::slice_of(self.p.operands[0].values()).expect("numeric operand");
        map_groups(&self.groups.edge, |r| f(values, r))
    }
}

/// Sum of the present values in `r`; floats accumulate in f64 (as Koda does),
/// integers wrap.
fn sum_range<T: Num>(values: &[T], presence: Option<&NullBuffer>, r: Range<usize>) -> T {
    match presence {
        _ if T::IS_FLOAT => T::from_f64(sum_f64(values, presence, r)),
        None => values[r].iter().fold(T::ZERO, |a, &v| a.add(v)),
        Some(p) => r.fold(T::ZERO, |a, i| a.add(if p.is_valid(i) { values[i] } else { T::ZERO })),
    }
}

/// Sum of the present values in `r`, in f64.
fn sum_f64<T: Num>(values: &[T], presence: Option<&NullBuffer>, r: Range<usize>) -> f64 {
    match presence {
        // FLOAT32 values in f64 lanes: four independent lanes let the loop
        // vectorise, and differ from the sequential sum only past f64
        // precision; wider values add in order, as Koda adds them.
        None if T::SCHEMA == Schema::Float32 => {
            let chunk = &values[r];
            let mut lanes = [0f64; 4];
            let mut quads = chunk.chunks_exact(4);
            for q in &mut quads {
                for k in 0..4 {
                    lanes[k] += q[k].to_f64();
                }
            }
            let tail: f64 = quads.remainder().iter().map(|v| v.to_f64()).sum();
            lanes[0] + lanes[1] + lanes[2] + lanes[3] + tail
        }
        None => values[r].iter().fold(0.0, |a, v| a + v.to_f64()),
        Some(p) => r.filter(|&i| p.is_valid(i)).fold(0.0, |a, i| a + values[i].to_f64()),
    }
}

/// Sum (in f64) and count of the present FLOAT32 or INT32 values in `r`,
/// a presence word (64 items) at a time in four f64 lanes, as [`sum_f64`]
/// adds them without missing items: f64 holds those sums exactly enough
/// that the order does not show. A missing item adds +0.0 (its bits masked
/// off, so whatever filler the slot holds, NaN included, does not count).
fn masked_sum_f64<T: Num>(values: &[T], presence: &NullBuffer, r: Range<usize>) -> (f64, usize) {
    // KEEP[m][k]: all ones when bit k of m is set.
    const KEEP: [[u64; 4]; 16] = {
        let mut table = [[0u64; 4]; 16];
        let mut m = 0;
        while m < 16 {
            let mut k = 0;
            while k < 4 {
                table[m][k] = if m >> k & 1 == 1 { u64::MAX } else { 0 };
                k += 1;
            }
            m += 1;
        }
        table
    };
    let bits = presence.inner();
    let chunks = bits.inner().bit_chunks(bits.offset() + r.start, r.len());
    let values = &values[r];
    let mut lanes = [0f64; 4];
    let mut count = 0;
    let mut add = |word: u64, values: &[T]| {
        count += word.count_ones() as usize;
        for (j, quad) in values.chunks(4).enumerate() {
            let keep = &KEEP[(word >> (4 * j)) as usize & 15];
            for (k, v) in quad.iter().enumerate() {
                lanes[k] += f64::from_bits(v.to_f64().to_bits() & keep[k]);
            }
        }
    };
    for (w, word) in chunks.iter().enumerate() {
        add(word, &values[64 * w..64 * w + 64]);
    }
    if chunks.remainder_len() > 0 {
        add(chunks.remainder_bits(), &values[64 * chunks.chunk_len()..]);
    }
    (lanes[0] + lanes[1] + lanes[2] + lanes[3], count)
}

/// The present values of `r`, in order.
fn present_values<T: Num>(values: &[T], presence: Option<&NullBuffer>, r: Range<usize>) -> Vec<T> {
    match presence {
        None => values[r].to_vec(),
        Some(p) => r.filter(|&i| p.is_valid(i)).map(|i| values[i]).collect(),
    }
}

/// The `k`-th smallest of `values` (from 0); NaN when a value is NaN, as in
/// Koda's medians and quantiles.
fn kth_smallest<T: Num>(mut values: Vec<T>, k: usize) -> T {
    if let Some(&nan) = values.iter().find(|v| v.is_nan()) {
        return nan;
    }
    let (_, at, _) = values.select_nth_unstable_by(k, |a, b| a.partial_cmp(b).expect("no NaN"));
    *at
}

/// Sums per group; empty groups give 0.
pub fn agg_sum(x: &DataSlice, ndim: Option<i64>) -> Result<DataSlice> {
    let input = Input::new("kd.math.agg_sum", x, ndim)?;
    let dtype = match input.p.dtype() {
        // With nothing to add, the sum is the integer 0 (Koda's choice too).
        Schema::None => Schema::Int32,
        t => t,
    };
    if input.p.all_missing() {
        return crate::with_num_type!(dtype, T => input.finish_present::<T>(vec![T::ZERO; input.groups.len()]));
    }
    let presence = input.presence();
    if presence.is_none() {
        // FLOAT32 adds in f64 (as sum_range does), integers wrap; FLOAT64
        // keeps the values' order, as Koda adds them.
        match dtype {
            Schema::Float32 => return input.finish_present(input.dense::<f32, SumF64, f32>(|sum, _| sum as f32)),
            Schema::Int32 => return input.finish_present(input.dense::<i32, WrappingSum, i32>(|sum, _| sum)),
            Schema::Int64 => return input.finish_present(input.dense::<i64, WrappingSum, i64>(|sum, _| sum)),
            _ => {}
        }
    }
    crate::with_num_type!(dtype, T => input.finish_present(input.per_group::<T, _>(|v, r| sum_range(v, presence, r))))
}

/// `select(a, b)` of present values per group (max, min).
fn agg_select<T: Num>(input: &Input, pick: impl Fn(T, T) -> T + Sync) -> Vec<Option<T>> {
    let presence = input.presence();
    input.per_group::<T, _>(|v, r| match presence {
        None => v[r].iter().copied().reduce(&pick),
        Some(p) => r.filter(|&i| p.is_valid(i)).map(|i| v[i]).reduce(&pick),
    })
}

/// Maxima per group (NaN if the group has a NaN).
pub fn agg_max(x: &DataSlice, ndim: Option<i64>) -> Result<DataSlice> {
    let input = Input::new("kd.math.agg_max", x, ndim)?;
    if input.p.all_missing() {
        return Ok(input.missing(input.p.dtype()));
    }
    if input.presence().is_none() {
        let schema = input.p.promotion.schema(input.p.dtype());
        return crate::with_num_type!(input.p.dtype(), T => input.finish_nonempty(input.dense::<T, Max, T>(|m, _| m), schema));
    }
    crate::with_num_type!(input.p.dtype(), T => input.finish(agg_select::<T>(&input, T::max_nan)))
}

/// Minima per group (NaN if the group has a NaN).
pub fn agg_min(x: &DataSlice, ndim: Option<i64>) -> Result<DataSlice> {
    let input = Input::new("kd.math.agg_min", x, ndim)?;
    if input.p.all_missing() {
        return Ok(input.missing(input.p.dtype()));
    }
    if input.presence().is_none() {
        let schema = input.p.promotion.schema(input.p.dtype());
        return crate::with_num_type!(input.p.dtype(), T => input.finish_nonempty(input.dense::<T, Min, T>(|m, _| m), schema));
    }
    crate::with_num_type!(input.p.dtype(), T => input.finish(agg_select::<T>(&input, T::min_nan)))
}

/// Means per group, in floats (FLOAT32 unless `x` is FLOAT64).
pub fn agg_mean(x: &DataSlice, ndim: Option<i64>) -> Result<DataSlice> {
    let input = Input::new("kd.math.agg_mean", x, ndim)?;
    let out = float_type(input.p.dtype());
    if input.p.all_missing() {
        return Ok(input.missing(out));
    }
    let presence = input.presence();
    if presence.is_none() && matches!(input.p.dtype(), Schema::Float32 | Schema::Int32) {
        // f64 holds every sum of FLOAT32 or INT32 values exactly enough to
        // add them in lanes; the result is FLOAT32.
        let schema = input.p.promotion.schema(out);
        let means = crate::with_num_type!(input.p.dtype(), T => input.dense::<T, SumF64, f32>(mean_in::<f32>));
        return input.finish_nonempty(means, schema);
    }
    crate::with_num_type!(input.p.dtype(), T => {
        // The sum in f64 as agg_sum adds (no copy of the group's values).
        let sums = input.per_group::<T, _>(|v, r| {
            let (sum, count) = match presence {
                Some(p) if matches!(T::SCHEMA, Schema::Float32 | Schema::Int32) => masked_sum_f64(v, p, r),
                None => (sum_f64(v, presence, r.clone()), r.len()),
                Some(p) => (sum_f64(v, presence, r.clone()), r.filter(|&i| p.is_valid(i)).count()),
            };
            (count > 0).then_some((sum, count))
        });
        crate::with_float_type!(out, F => input.finish::<F>(sums.into_iter().map(|m| m.map(|(sum, n)| mean_in::<F>(sum, n))).collect()))
    })
}

/// A group's mean as Koda computes it: the sum (added in f64, as agg_sum
/// adds) rounded to the result type `F`, then divided by the count in `F`.
/// (A quotient of two `F` values computed in f64 and rounded once is the
/// quotient in `F`: f64 has more than twice f32's precision.)
fn mean_in<F: Num>(sum: f64, n: usize) -> F {
    F::from_f64(F::from_f64(sum).to_f64() / F::from_f64(n as f64).to_f64())
}

/// Medians per group: the lower middle value for an even count.
pub fn agg_median(x: &DataSlice, ndim: Option<i64>) -> Result<DataSlice> {
    let input = Input::new("kd.math.agg_median", x, ndim)?;
    if input.p.all_missing() {
        return Ok(input.missing(input.p.dtype()));
    }
    let presence = input.presence();
    crate::with_num_type!(input.p.dtype(), T => {
        input.finish(input.per_group::<T, _>(|v, r| {
            let values = present_values(v, presence, r);
            let k = values.len().checked_sub(1)? / 2;
            Some(kth_smallest(values, k))
        }))
    })
}

fn variance(op: &str, x: &DataSlice, unbiased: impl FnOnce() -> Result<bool>, ndim: Option<i64>, sqrt: bool) -> Result<DataSlice> {
    let (input, unbiased) = Input::checked(op, x, ndim, unbiased)?;
    let out = float_type(input.p.dtype());
    if input.p.all_missing() {
        return Ok(input.missing(out));
    }
    let presence = input.presence();
    crate::with_num_type!(input.p.dtype(), T => crate::with_float_type!(out, F => {
        // Koda's steps, each rounded to the result type F: the mean (as
        // agg_mean), each deviation and its square, their sum (added in f64),
        // the quotient by the degrees of freedom; a deviation is the variance
        // to the power 0.5 (`powf`, which can differ from `sqrt` in the last
        // digit, as Koda's does).
        let round = |v: f64| F::from_f64(v).to_f64();
        let stats = input.per_group::<T, _>(|v, r| {
            let values: Vec<f64> = present_values(v, presence, r).iter().map(|v| v.to_f64()).collect();
            let n = values.len();
            let dof = if unbiased { n.checked_sub(1)? } else { n };
            if n == 0 || dof == 0 {
                return None;
            }
            let mean = mean_in::<F>(values.iter().sum::<f64>(), n).to_f64();
            // (Integers become F before they are subtracted.)
            let squares: f64 = values
                .iter()
                .map(|&v| {
                    let deviation = round(round(v) - mean);
                    round(deviation * deviation)
                })
                .sum();
            let var = F::from_f64(round(squares) / round(dof as f64));
            Some(if sqrt { var.powf(0.5) } else { var })
        });
        input.finish::<F>(stats)
    }))
}

/// Variances per group (`unbiased()` true divides by n - 1).
pub fn agg_var(x: &DataSlice, unbiased: impl FnOnce() -> Result<bool>, ndim: Option<i64>) -> Result<DataSlice> {
    variance("kd.math.agg_var", x, unbiased, ndim, false)
}

/// Standard deviations per group (`unbiased()` true divides by n - 1).
pub fn agg_std(x: &DataSlice, unbiased: impl FnOnce() -> Result<bool>, ndim: Option<i64>) -> Result<DataSlice> {
    variance("kd.math.agg_std", x, unbiased, ndim, true)
}

/// Position within its group of the first largest (`better = >`) or smallest
/// value; NaN counts as the extreme.
fn arg_extreme(op: &str, x: &DataSlice, ndim: Option<i64>, max: bool) -> Result<DataSlice> {
    let input = Input::new(op, x, ndim)?;
    if input.p.all_missing() {
        return Ok(DataSlice::missing(input.groups.shape.clone(), Schema::Int64));
    }
    let presence = input.presence();
    let positions = crate::with_num_type!(input.p.dtype(), T => input.per_group::<T, _>(|v, r| {
        let start = r.start;
        let mut best: Option<(usize, T)> = None;
        for i in r {
            if !is_present(presence, i) {
                continue;
            }
            let value = v[i];
            let better = match best {
                None => true,
                Some((_, b)) if b.is_nan() => false,
                Some((_, b)) => value.is_nan() || if max { value > b } else { value < b },
            };
            if better {
                best = Some((i - start, value));
            }
        }
        best.map(|(i, _)| i as i64)
    }));
    // Positions are INT64 whatever the input, OBJECT included.
    input.finish_with_schema(positions, Schema::Int64)
}

/// Index of the largest value per group.
pub fn argmax(x: &DataSlice, ndim: Option<i64>) -> Result<DataSlice> {
    arg_extreme("kd.math.argmax", x, ndim, true)
}

/// Index of the smallest value per group.
pub fn argmin(x: &DataSlice, ndim: Option<i64>) -> Result<DataSlice> {
    arg_extreme("kd.math.argmin", x, ndim, false)
}

/// The value below which a fraction `cdf_arg` of each group's values lie.
pub fn agg_inverse_cdf(x: &DataSlice, cdf_arg: &DataSlice, ndim: Option<i64>) -> Result<DataSlice> {
    let op = "kd.math.agg_inverse_cdf";
    let (input, q) = Input::checked(op, x, ndim, || {
        let q = match (cdf_arg.is_item(), cdf_arg.get(0)) {
            (true, Some(plait_core::ScalarRef::Float32(v))) => v as f64,
            (true, Some(plait_core::ScalarRef::Float64(v))) => v,
            (true, Some(plait_core::ScalarRef::Int32(v))) => v as f64,
            (true, Some(plait_core::ScalarRef::Int64(v))) => v as f64,
            _ => {
                let got = plait_core::repr::repr_with_shape(cdf_arg);
                return Err(Error::value(op, format!("expected `cdf_arg` argument to contain a scalar float value, got {got}")));
            }
        };
        if !(0.0..=1.0).contains(&q) {
            return Err(Error::value(op, format!("unable to compute math.inverse_cdf: invalid cdf_arg, cdf_arg must be in [0, 1], got {q:.6}")));
        }
        Ok(q)
    })?;
    if input.p.all_missing() {
        return Ok(input.missing(input.p.dtype()));
    }
    let presence = input.presence();
    crate::with_num_type!(input.p.dtype(), T => input.finish(input.per_group::<T, _>(|v, r| {
        let values = present_values(v, presence, r);
        let last = values.len().checked_sub(1)?;
        // Koda's rank: floor((q - 1e-6) * n), so that a q just above k / n
        // (0.6 stored as FLOAT32) still picks the k-th item.
        let k = ((q - 1e-6) * values.len() as f64).floor().clamp(0.0, last as f64) as usize;
        Some(kth_smallest(values, k))
    })))
}

/// [`agg_inverse_cdf`] over all dimensions.
pub fn inverse_cdf(x: &DataSlice, cdf_arg: &DataSlice) -> Result<DataSlice> {
    agg_inverse_cdf(x, cdf_arg, Some(x.rank() as i64))
}

/// Sum over all dimensions.
pub fn sum(x: &DataSlice) -> Result<DataSlice> {
    agg_sum(x, Some(x.rank() as i64))
}

/// Mean over all dimensions.
pub fn mean(x: &DataSlice) -> Result<DataSlice> {
    agg_mean(x, Some(x.rank() as i64))
}

/// Maximum over all dimensions.
pub fn max(x: &DataSlice) -> Result<DataSlice> {
    agg_max(x, Some(x.rank() as i64))
}

/// Minimum over all dimensions.
pub fn min(x: &DataSlice) -> Result<DataSlice> {
    agg_min(x, Some(x.rank() as i64))
}

/// Median over all dimensions.
pub fn median(x: &DataSlice) -> Result<DataSlice> {
    agg_median(x, Some(x.rank() as i64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masked_sums_match_a_sum_of_the_present_items() {
        let values: Vec<f32> = (0..1000).map(|k| if k % 7 == 0 { f32::NAN } else { k as f32 * 0.5 - 100.0 }).collect();
        let presence = NullBuffer::from((0..1000).map(|k| k % 7 != 0 && k % 3 != 1).collect::<Vec<_>>());
        for r in [0..0, 0..1, 5..68, 0..64, 64..129, 3..1000, 0..1000] {
            let present: Vec<f64> = r.clone().filter(|&i| presence.is_valid(i)).map(|i| values[i] as f64).collect();
            let (sum, count) = masked_sum_f64(&values, &presence, r.clone());
            assert_eq!(count, present.len(), "{r:?}");
            assert_eq!(sum, present.iter().sum::<f64>(), "{r:?}");
        }
    }
}
