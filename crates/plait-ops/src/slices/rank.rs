//! Ordering within groups: `kd.slices.ordinal_rank`, `dense_rank`, `sort`
//! and `inverse_mapping` (the inverse permutation of ranks).
//!
//! ```text
//! x            [3, None, 1, 2, 1]
//! ordinal_rank [3, None, 0, 2, 1]     ties by position (or tie_breaker)
//! dense_rank   [2, None, 0, 1, 0]     ties share a rank
//! sort         [1, 1, 2, 3, None]     missing items last
//! ```
//!
//! NaN sorts after every number in both directions; every NaN has its own
//! dense rank.

use std::cmp::Reverse;

use arrow_buffer::{BooleanBufferBuilder, NullBuffer};
use plait_core::broadcast::expand_to_shape;
use plait_core::column::MISSING_INDEX;
use plait_core::{Column, DataSlice, Error, Result, Schema, SliceData, Values};
use rayon::slice::ParallelSliceMut;

use super::gather::int64_slice;
use super::keys::{fixed_keys, int64_values, is_nan_key, sortable_dtype};
use crate::groups::{Groups, groups};
use crate::kernel::PARALLEL_MIN;

/// The ranked items of `x` grouped over the last `ndim` dimensions: each
/// group's items (present in `x` and in the tie breaker) in rank order.
struct Ranking {
    groups: Groups,
    /// Positions of the ranked items, group after group, in rank order.
    order: Vec<usize>,
    /// Whether `order[k]` has a different value than `order[k - 1]` (or
    /// starts its group, or is a NaN): where dense ranks go up.
    new_value: Vec<bool>,
    /// `order[bounds[g]..bounds[g + 1]]` are the items of group `g`.
    bounds: Vec<usize>,
}

fn rank_items(op: &str, x: &DataSlice, tie_breaker: Option<&DataSlice>, descending: bool, ndim: Option<i64>) -> Result<Ranking> {
    sortable_dtype(op, "x", x)?;
    // `tie_breaker` is checked before `x`'s rank (Koda's order).
    let ties = match tie_breaker {
        None => None,
        Some(t) => {
            let expanded = expand_to_shape(op, t, x.shape(), 0)?;
            Some(int64_values(&expanded).ok_or_else(|| Error::value(op, "tie_breaker must be integers"))?)
        }
    };
    let g = groups(op, x, ndim)?;
    let ties = ties.as_ref();
    // `sortable_dtype` leaves at most one column.
    let Some(column) = x.data().single_column() else {
        return Ok(rank_by(g, |_| None::<u64>, ties, |_| false));
    };
    let present = |i: usize| column.is_present(i);
    Ok(match (fixed_keys(&column.values), &column.values) {
        (Some(keys), values) => {
            // Descending flips the key bits, except for NaN, which stays last.
            let float = values.dtype().is_float();
            let nan = move |k: &u64| float && is_nan_key(*k);
            let key = |i: usize| present(i).then(|| if descending && !nan(&keys[i]) { !keys[i] } else { keys[i] });
            rank_by(g, key, ties, nan)
        }
        (None, Values::String(v) | Values::Bytes(v)) if descending => rank_by(g, |i| present(i).then(|| Reverse(v.value(i))), ties, |_| false),
        (None, Values::String(v) | Values::Bytes(v)) => rank_by(g, |i| present(i).then(|| v.value(i)), ties, |_| false),
        (None, _) => unreachable!("every other type has fixed keys"),
    })
}

/// Sorts the items of each group by (`key`, tie breaker, position).
fn rank_by<K: Ord + Copy + Send>(
    g: Groups,
    key: impl Fn(usize) -> Option<K>,
    ties: Option<&(Vec<i64>, arrow_buffer::BooleanBuffer)>,
    is_nan: impl Fn(&K) -> bool,
) -> Ranking {
    let mut entries: Vec<(K, i64, usize)> = Vec::new();
    let mut bounds = Vec::with_capacity(g.len() + 1);
    bounds.push(0);
    for group in 0..g.len() {
        for i in g.edge.child_range(group) {
            let Some(k) = key(i) else { continue };
            let tie = match ties {
                None => 0,
                Some((values, present)) if present.value(i) => values[i],
                Some(_) => continue,
            };
            entries.push((k, tie, i));
        }
        bounds.push(entries.len());
    }
    let mut new_value = vec![true; entries.len()];
    for w in bounds.windows(2) {
        let part = &mut entries[w[0]..w[1]];
        // Positions make entries distinct, so an unstable sort is stable.
        if part.len() >= PARALLEL_MIN {
            plait_core::parallel::install(|| part.par_sort_unstable());
        } else {
            part.sort_unstable();
        }
        for k in w[0] + 1..w[1] {
            new_value[k] = entries[k].0 != entries[k - 1].0 || is_nan(&entries[k].0);
        }
    }
    Ranking { groups: g, order: entries.into_iter().map(|e| e.2).collect(), new_value, bounds }
}

/// An INT64 result over the shape of `x` with `value[i]` for ranked items.
fn ranks_slice(x: &DataSlice, fill: impl Fn(&mut [i64], &mut BooleanBufferBuilder)) -> Result<DataSlice> {
    let mut values = vec![0i64; x.size()];
    let mut present = BooleanBufferBuilder::new(x.size());
    present.append_n(x.size(), false);
    fill(&mut values, &mut present);
    int64_slice(x.shape(), values, Some(NullBuffer::new(present.finish())))
}

/// The position of each item in its group's order (ties broken by
/// `tie_breaker`, then by position).
pub fn ordinal_rank(x: &DataSlice, tie_breaker: Option<&DataSlice>, descending: bool, ndim: Option<i64>) -> Result<DataSlice> {
    let ranking = rank_items("kd.slices.ordinal_rank", x, tie_breaker, descending, ndim)?;
    ranks_slice(x, |values, present| {
        for w in ranking.bounds.windows(2) {
            for (rank, &i) in ranking.order[w[0]..w[1]].iter().enumerate() {
                values[i] = rank as i64;
                present.set_bit(i, true);
            }
        }
    })
}

/// The number of distinct smaller values (larger with `descending`) in each
/// item's group.
pub fn dense_rank(x: &DataSlice, descending: bool, ndim: Option<i64>) -> Result<DataSlice> {
    let ranking = rank_items("kd.slices.dense_rank", x, None, descending, ndim)?;
    ranks_slice(x, |values, present| {
        for w in ranking.bounds.windows(2) {
            let mut rank = -1i64;
            for k in w[0]..w[1] {
                rank += ranking.new_value[k] as i64;
                values[ranking.order[k]] = rank;
                present.set_bit(ranking.order[k], true);
            }
        }
    })
}

/// The items of `x` ordered along the last dimension by `sort_by` (`x` itself
/// by default); items whose key is missing go last.
pub fn sort(x: &DataSlice, sort_by: Option<&DataSlice>, descending: bool) -> Result<DataSlice> {
    let op = "kd.slices.sort";
    let by = match sort_by {
        None => x,
        Some(by) => {
            if by.shape() != x.shape() {
                return Err(Error::value(op, "arguments `x` and `sort_by` must have the same shape"));
            }
            let unsorted = &x.data().present_bits() & &!&by.data().present_bits();
            if unsorted.count_set_bits() > 0 {
                return Err(Error::value(op, "trying to sort `x` by `sort_by` that is more sparse"));
            }
            by
        }
    };
    if sort_by.is_none() {
        if let Some(sorted) = sort_dense_numbers(x, descending) {
            return sorted;
        }
    }
    let ranking = rank_items("kd.slices.ordinal_rank", by, None, descending, None)?;
    let mut indices = vec![MISSING_INDEX; x.size()];
    for (group, w) in ranking.bounds.windows(2).enumerate() {
        let start = ranking.groups.edge.child_range(group).start;
        indices[start..start + (w[1] - w[0])].copy_from_slice(&ranking.order[w[0]..w[1]]);
    }
    DataSlice::new(x.shape().clone(), x.data().take(&indices), x.schema())
}

/// [`sort`] of one numeric column without missing items: the values of
/// each group sorted in a copy (NaN last in either direction, ties in
/// order), without ranking positions first. `None` for other slices.
fn sort_dense_numbers(x: &DataSlice, descending: bool) -> Option<Result<DataSlice>> {
    use crate::num::Num;
    fn order<T: Num>(a: &T, b: &T, descending: bool) -> std::cmp::Ordering {
        match (a.is_nan(), b.is_nan()) {
            (false, false) => {
                let o = a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal);
                if descending { o.reverse() } else { o }
            }
            (nan_a, nan_b) => nan_a.cmp(&nan_b),
        }
    }
    let edge = x.shape().edges().last()?;
    let column = x.data().single_column()?;
    let dtype = column.values.dtype();
    if !dtype.is_numeric() || column.present_count() != x.size() {
        return None;
    }
    crate::with_num_type!(dtype, T => {
        let mut values = T::slice_of(&column.values)?.to_vec();
        let cuts: Vec<usize> = edge.split_points().iter().map(|&p| p as usize).collect();
        // Groups split among tasks of about PARALLEL_MIN values each.
        sort_groups(&mut values, &cuts, |group| group.sort_by(|a, b| order(a, b, descending)));
        let sorted = Column::new(T::into_values(values), None);
        Some(DataSlice::new(x.shape().clone(), SliceData::from_column(sorted), x.schema()))
    })
}

/// `sort(group)` for every group `values[cuts[g]..cuts[g + 1]]`, in
/// parallel over runs of whole groups.
fn sort_groups<T: Send>(values: &mut [T], cuts: &[usize], sort: impl Fn(&mut [T]) + Sync) {
    use rayon::prelude::*;
    // Runs of consecutive groups holding about PARALLEL_MIN values each.
    let mut runs: Vec<(&mut [T], &[usize])> = Vec::new();
    let (mut rest, mut first, mut offset) = (values, 0usize, 0usize);
    while first + 1 < cuts.len() {
        let mut last = first + 1;
        while last + 1 < cuts.len() && cuts[last] - cuts[first] < PARALLEL_MIN {
            last += 1;
        }
        let (run, tail) = std::mem::take(&mut rest).split_at_mut(cuts[last] - offset);
        runs.push((run, &cuts[first..=last]));
        offset = cuts[last];
        rest = tail;
        first = last;
    }
    let sort_run = |(run, run_cuts): (&mut [T], &[usize])| {
        let base = run_cuts[0];
        for w in run_cuts.windows(2) {
            sort(&mut run[w[0] - base..w[1] - base]);
        }
    };
    // One run (small input): sorted here; handing it to the pool's threads
    // would cost more than sorting it.
    if runs.len() <= 1 {
        runs.into_iter().for_each(sort_run);
        return;
    }
    // In plait's pool (made again after a fork), as every parallel kernel.
    plait_core::parallel::install(|| runs.into_par_iter().for_each(sort_run));
}

/// For each group of the last `ndim` dimensions holding a permutation of
/// `0..n` (with gaps where items are missing), its inverse permutation.
pub fn inverse_mapping(x: &DataSlice, ndim: Option<i64>) -> Result<DataSlice> {
    let op = "kd.slices.inverse_mapping";
    crate::promote::data_type(op, "x", x, crate::promote::TypeClass::Integer)?;
    let Some((values, present)) = int64_values(x) else {
        return Err(Error::value(op, "DataSlice with mixed types is not supported"));
    };
    let g = groups(op, x, ndim)?;
    let mut out = vec![0i64; x.size()];
    let mut filled = vec![false; x.size()];
    let invalid = |message: String| Error::value(op, format!("unable to compute array.inverse_mapping: invalid permutation, {message}"));
    for group in 0..g.len() {
        let r = g.edge.child_range(group);
        let n = r.len() as i64;
        for i in r.clone() {
            if !present.value(i) {
                continue;
            }
            let v = values[i];
            if v < 0 || v >= n {
                return Err(invalid(format!("element {v} is not a valid element of a permutation of size {n}")));
            }
            let target = r.start + v as usize;
            if filled[target] {
                return Err(invalid(format!("element {v} appears twice in the permutation")));
            }
            filled[target] = true;
            out[target] = (i - r.start) as i64;
        }
    }
    let presence = crate::kernel::presence_from_flags(&filled);
    if !filled.iter().any(|&f| f) {
        return Ok(DataSlice::missing(x.shape().clone(), x.schema()));
    }
    // The result keeps the integer type of `x` (INT64 for mixed OBJECT).
    let dtypes: Vec<Schema> = x.data().dtypes().collect();
    let values = match dtypes.as_slice() {
        [Schema::Int32] => Values::Int32(out.iter().map(|&v| v as i32).collect()),
        _ => Values::Int64(out.into()),
    };
    DataSlice::new(x.shape().clone(), SliceData::from_column(Column::new(values, presence)), x.schema())
}
