//! Per-item results computed within groups of the last `ndim` dimensions:
//! `kd.math.cum_sum`, `cum_max`, `cum_min`, `softmax`, `cdf`.

use std::ops::Range;

use plait_core::{Column, DataSlice, Result, Schema, SliceData};

use crate::elementwise::{NumBinary, Prepared, float_type, prepare, prepare_as};
use crate::groups::groups;
use crate::kernel::{Side, presence_from_flags};
use crate::num::{Float, Num};
use crate::promote::{Promotion, TypeClass, promote};

/// Fills one value per item of `x`, group by group: `f(range, out)` writes
/// `out[i]` for the items `i` of the group that are present in the result.
fn per_item<R: Num>(op: &str, p: &Prepared, x: &DataSlice, ndim: Option<i64>, f: impl Fn(Range<usize>, &mut [Option<R>])) -> Result<DataSlice> {
    let g = groups(op, x, ndim)?;
    let mut out: Vec<Option<R>> = vec![None; p.len()];
    if !p.all_missing() {
        for group in 0..g.len() {
            f(g.edge.child_range(group), &mut out);
        }
    }
    let flags: Vec<bool> = out.iter().map(Option::is_some).collect();
    let values: Vec<R> = out.into_iter().map(|v| v.unwrap_or(R::ZERO)).collect();
    let column = Column::new(R::into_values(values), presence_from_flags(&flags));
    let data = SliceData::from_column(column);
    DataSlice::new(x.shape().clone(), data, p.promotion.schema(R::SCHEMA))
}

struct Max;
impl NumBinary for Max {
    fn apply<T: Num>(a: T, b: T) -> T {
        a.max_nan(b)
    }
}

struct Min;
impl NumBinary for Min {
    fn apply<T: Num>(a: T, b: T) -> T {
        a.min_nan(b)
    }
}

/// `K` folded over the present items of each group, keeping every step.
fn running<K: NumBinary>(op: &str, x: &DataSlice, ndim: Option<i64>) -> Result<DataSlice> {
    let p = prepare(op, &[("x", x)], TypeClass::Numeric)?;
    if p.all_missing() {
        groups(op, x, ndim)?;
        return Ok(p.missing(p.dtype()));
    }
    let a = &p.operands[0];
    crate::with_num_type!(p.dtype(), T => {
        let values = T::slice_of(a.values()).expect("numeric operand");
        per_item::<T>(op, &p, x, ndim, |r, out| {
            let mut acc: Option<T> = None;
            for i in r {
                if a.is_present(i) {
                    acc = Some(acc.map_or(values[i], |s| K::apply(s, values[i])));
                    out[i] = acc;
                }
            }
        })
    })
}

/// Running sums within each group (missing items stay missing). FLOAT32
/// sums accumulate in FLOAT64 and each is rounded once, as Koda's do. One
/// pass writing the values; the result's presence is the input's.
pub fn cum_sum(x: &DataSlice, ndim: Option<i64>) -> Result<DataSlice> {
    let op = "kd.math.cum_sum";
    let p = prepare(op, &[("x", x)], TypeClass::Numeric)?;
    let g = groups(op, x, ndim)?;
    if p.all_missing() {
        return Ok(p.missing(p.dtype()));
    }
    let a = &p.operands[0];
    let presence = a.presence().cloned();
    let present = |i: usize| presence.as_ref().is_none_or(|b| b.is_valid(i));
    let wide = p.dtype() == Schema::Float32;
    crate::with_num_type!(p.dtype(), T => {
        let values = T::slice_of(a.values()).expect("numeric operand");
        let mut out = vec![T::ZERO; p.len()];
        for group in 0..g.len() {
            let range = g.edge.child_range(group);
            if wide {
                let mut acc = 0f64;
                for i in range.filter(|&i| present(i)) {
                    acc += values[i].to_f64();
                    out[i] = T::from_f64(acc);
                }
            } else {
                let mut acc = T::ZERO;
                for i in range.filter(|&i| present(i)) {
                    acc = acc.add(values[i]);
                    out[i] = acc;
                }
            }
        }
        p.finish(T::into_values(out), presence.clone())
    })
}

/// Running maxima within each group (NaN propagates).
pub fn cum_max(x: &DataSlice, ndim: Option<i64>) -> Result<DataSlice> {
    running::<Max>("kd.math.cum_max", x, ndim)
}

/// Running minima within each group (NaN propagates).
pub fn cum_min(x: &DataSlice, ndim: Option<i64>) -> Result<DataSlice> {
    running::<Min>("kd.math.cum_min", x, ndim)
}

/// Prepares numeric arguments in floats (FLOAT64 if involved, else FLOAT32,
/// also when nothing is present).
fn prepare_float(op: &str, args: &[(&str, &DataSlice)]) -> Result<Prepared> {
    let promotion = promote(op, args, TypeClass::Numeric)?;
    let dtype = match float_type(promotion.dtype) {
        Schema::None => Schema::Float32,
        t => t,
    };
    prepare_as(op, args, Promotion { dtype, ..promotion })
}

/// `exp(beta * x)` normalised to sum to 1 within each group.
pub fn softmax(x: &DataSlice, beta: &DataSlice, ndim: Option<i64>) -> Result<DataSlice> {
    let op = "kd.math.softmax";
    let p = prepare_float(op, &[("x", x)])?;
    let beta = crate::scalar_f64(op, "beta", beta)?;
    if p.all_missing() {
        groups(op, x, ndim)?;
        return Ok(p.missing(p.dtype()));
    }
    let a = &p.operands[0];
    // Integers are shifted by their group's maximum exactly first (as Koda:
    // 2**25 and 2**25 + 1 differ by 1, which FLOAT32 would lose), in i128
    // (no overflow, unlike Koda's INT32 subtraction).
    let ints: Option<Vec<i64>> = matches!(x.schema(), Schema::Int32 | Schema::Int64).then(|| {
        (0..x.size())
            .map(|i| match x.get(i) {
                Some(plait_core::ScalarRef::Int32(v)) => i64::from(v),
                Some(plait_core::ScalarRef::Int64(v)) => v,
                _ => 0,
            })
            .collect()
    });
    crate::with_float_type!(p.dtype(), T => {
        let values = T::slice_of(a.values()).expect("float operand");
        let beta = T::from_f64(beta);
        per_item::<T>(op, &p, x, ndim, |r, out| {
            // In the item type, shifted by the group's maximum so that large
            // values do not overflow (infinities still give NaN, as in Koda).
            let present: Vec<usize> = r.filter(|&i| a.is_present(i)).collect();
            let shifted: Vec<T> = match &ints {
                Some(ints) => {
                    let top = present.iter().map(|&i| ints[i]).max().unwrap_or(0);
                    present.iter().map(|&i| T::from_f64((i128::from(ints[i]) - i128::from(top)) as f64)).collect()
                }
                None => present.iter().map(|&i| values[i]).collect(),
            };
            let top = shifted.iter().map(|&v| v.mul(beta)).fold(T::from_f64(f64::NEG_INFINITY), T::max_nan);
            let exps: Vec<T> = shifted.iter().map(|&v| v.mul(beta).sub(top).exp()).collect();
            let total = exps.iter().fold(T::ZERO, |s, &e| s.add(e));
            for (&i, e) in present.iter().zip(exps) {
                out[i] = Some(e.div(total));
            }
        })
    })
}

/// For each item, the weighted fraction of its group's items that are <= it.
pub fn cdf(x: &DataSlice, weights: Option<&DataSlice>, ndim: Option<i64>) -> Result<DataSlice> {
    let op = "kd.math.cdf";
    let ones;
    let weights = match weights {
        Some(w) => w,
        None => {
            ones = crate::slices::val_like(x, &DataSlice::item(Some(plait_core::ScalarRef::Float32(1.0)), Schema::Float32)?)?;
            &ones
        }
    };
    let p = prepare_float(op, &[("x", x), ("weights", weights)])?;
    if p.all_missing() || p.shape != *x.shape() {
        groups(op, x, ndim)?;
        if p.shape != *x.shape() {
            return Err(plait_core::Error::value(op, "`weights` must have the shape of `x`"));
        }
        return Ok(p.missing(p.dtype()));
    }
    let (a, w) = (&p.operands[0], &p.operands[1]);
    crate::with_float_type!(p.dtype(), T => {
        let values = T::slice_of(a.values()).expect("float operand");
        let weight = w.side::<T>();
        per_item::<T>(op, &p, x, ndim, |r, out| {
            let mut present: Vec<usize> = r.filter(|&i| a.is_present(i) && w.is_present(i)).collect();
            let total: f64 = present.iter().map(|&i| weight_at(weight, i)).sum();
            if present.iter().any(|&i| values[i].is_nan()) {
                // NaN has no place in the order: the whole group is NaN.
                for &i in &present {
                    out[i] = Some(T::from_f64(f64::NAN));
                }
                return;
            }
            present.sort_by(|&i, &j| values[i].partial_cmp(&values[j]).unwrap_or(std::cmp::Ordering::Equal));
            let mut k = 0;
            let mut running = 0.0;
            while k < present.len() {
                // Items with equal values share the fraction up to the last of them.
                let mut end = k + 1;
                while end < present.len() && values[present[end]] == values[present[k]] {
                    end += 1;
                }
                running += present[k..end].iter().map(|&i| weight_at(weight, i)).sum::<f64>();
                for &i in &present[k..end] {
                    out[i] = Some(T::from_f64(running / total));
                }
                k = end;
            }
        })
    })
}

fn weight_at<T: Float>(w: Side<'_, T>, i: usize) -> f64 {
    w.get(i).to_f64()
}
