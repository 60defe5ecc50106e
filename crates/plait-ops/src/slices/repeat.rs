//! New last dimensions from sizes: `kd.slices.range`, `repeat`,
//! `repeat_present`, and `tile` (a whole slice under every item of a shape).
//!
//! ```text
//! range([1, 3])               [[0], [0, 1, 2]]
//! repeat([1, None], 2)        [[1, 1], [None, None]]
//! repeat_present([1, None], 2)  [[1, 1], []]
//! ```

use arrow_buffer::BooleanBuffer;
use plait_core::broadcast::{align, align_to_first_widest, expand_to_shape};
use plait_core::{DataSlice, Edge, Error, JaggedShape, Result, ScalarRef, Schema};

use super::gather::int64_slice;
use super::keys::int64_values;

/// The INT64 values of integer argument `arg`.
fn integers(op: &str, arg: &str, x: &DataSlice) -> Result<(Vec<i64>, BooleanBuffer)> {
    int64_values(x).ok_or_else(|| Error::value(op, format!("argument `{arg}` must be a slice of integer values, got {}", crate::describe(x))))
}

/// Fails cleanly when `items` results could not be allocated.
fn check_allocatable(op: &str, items: u128) -> Result<usize> {
    let n = usize::try_from(items).map_err(|_| plait_core::limits::too_large(op, items))?;
    plait_core::limits::ensure_allocatable(op, n, 8)?;
    Ok(n)
}

/// For each pair of `start` and `end` items, the integers `start..end` in a new
/// last dimension (empty when either is missing). With `end` unspecified the
/// range is `0..start`.
pub fn range(start: &DataSlice, end: Option<&DataSlice>) -> Result<DataSlice> {
    let op = "kd.slices.range";
    integers(op, "start", start)?;
    if let Some(end) = end {
        integers(op, "end", end)?;
    }
    let zero;
    let (start, end) = match end {
        None => {
            zero = DataSlice::item(Some(ScalarRef::Int64(0)), Schema::Int64)?;
            (&zero, start)
        }
        Some(end) => (start, end),
    };
    let (s, s_present) = integers(op, "start", start)?;
    let (e, e_present) = integers(op, "end", end)?;
    let aligned = align(op, &[start, end])?;
    let shape = aligned[0].shape().clone();
    let n = shape.size();
    // Which input item each result item reads (items broadcast).
    let pick = |x: &DataSlice| if x.is_item() { vec![0; n] } else { super::gather::ancestors(&shape, x.rank()) };
    let (si, ei) = (pick(start), pick(end));
    let sizes: Vec<i64> = (0..n)
        .map(|i| {
            let (a, b) = (si[i], ei[i]);
            if s_present.value(a) && e_present.value(b) { (e[b].saturating_sub(s[a])).max(0) } else { 0 }
        })
        .collect();
    check_allocatable(op, sizes.iter().map(|&k| k as u128).sum())?;
    let mut values = Vec::with_capacity(sizes.iter().sum::<i64>() as usize);
    for (i, &k) in sizes.iter().enumerate() {
        let from = s[si[i]];
        values.extend((0..k).map(|j| from + j));
    }
    int64_slice(&shape.with_edge(Edge::from_sizes(&sizes)?)?, values, None)
}

fn repeat_impl(op: &str, x: &DataSlice, sizes: &DataSlice, present_only: bool) -> Result<DataSlice> {
    if !present_only {
        integers(op, "sizes", sizes)?;
    }
    let aligned = align_to_first_widest(op, &[x, sizes])?;
    let x = &aligned[0];
    // repeat_present reads sizes only where x is present (as Koda does:
    // elsewhere they may be missing or of any kind); a size masked out
    // reads as 0.
    let sizes = if present_only { crate::masking::apply_mask(&aligned[1], &crate::masking::has(x)?)? } else { aligned[1].clone() };
    let (counts, present) = integers(op, "sizes", &sizes)?;
    let kept = x.data().present_bits();
    // A missing size is an error where it is read.
    let read = |i: usize| !present_only || kept.value(i);
    if (0..counts.len()).any(|i| !present.value(i) && read(i)) {
        return Err(Error::value(op, "operator edge.from_sizes expects no missing size values"));
    }
    if let Some(bad) = counts.iter().find(|&&k| k < 0) {
        return Err(Error::value(op, format!("sizes must be non-negative, got {bad}")));
    }
    check_allocatable(op, counts.iter().map(|&k| k as u128).sum())?;
    let edge = Edge::from_sizes(&counts)?;
    let shape = x.shape().with_edge(edge.clone())?;
    DataSlice::new(shape, x.data().repeat_by_edge(None, &edge), x.schema())
}

/// Each item of `x` repeated `sizes` times in a new last dimension.
pub fn repeat(x: &DataSlice, sizes: &DataSlice) -> Result<DataSlice> {
    repeat_impl("kd.slices.repeat", x, sizes, false)
}

/// Like [`repeat`], but missing items of `x` get no repetitions.
pub fn repeat_present(x: &DataSlice, sizes: &DataSlice) -> Result<DataSlice> {
    repeat_impl("kd.slices.repeat_present", x, sizes, true)
}

/// The whole of `x` under every item of `shape`.
pub fn tile(x: &DataSlice, shape: &JaggedShape) -> Result<DataSlice> {
    expand_to_shape("kd.slices.tile", x, shape, x.rank())
}
