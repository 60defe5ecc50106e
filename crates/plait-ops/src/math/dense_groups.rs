//! Reductions of each group of a numeric column with no missing items: the
//! fast paths of `agg_sum`, `agg_mean`, `agg_max` and `agg_min`.
//!
//! A group of 32 values or more is reduced in 32 independent lanes, so the
//! loop vectorises; a shorter one is reduced in order. On x86-64 with AVX2
//! (picked at run time, as numpy picks its kernels: the portable build
//! targets SSE2) the loops are compiled a second time for AVX2, and groups
//! of FLOAT32 or INT32 values of a task whose groups are all at most 32 wide
//! are each read as one window of 8, 16, 24 or 32 values with the lanes past
//! the group masked (see `avx2`), so that no branch depends on a group's
//! size: with about ten values per group, branches on sizes mispredict
//! often enough to cost more than reading the values. Wider groups of those
//! types are read in runs of 32 values and a masked window for the rest.

use plait_core::Edge;

use crate::kernel::{Chunk, GroupSpans, map_group_chunks};
use crate::num::Num;

/// Which reduction a [`Reduction`] is, for the SIMD kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    SumF64,
    WrappingSum,
    Max,
    Min,
}

/// How a group's values combine. Lanes start `EMPTY`, take values through
/// `lift` and merge with `combine`, in an order that differs from the
/// values' order, so `combine` must be associative and commutative (float
/// sums are exact enough in f64: they differ from the ordered sum only
/// past f64 precision).
pub(crate) trait Reduction<T: Num>: Copy + Sync {
    type Acc: Num;
    const KIND: Kind;
    /// The value of a lane that took no value.
    const EMPTY: Self::Acc;
    /// Whether a NaN decides the result alone (maximum, minimum): NaNs are
    /// then looked for on the side, so that `combine` stays one instruction.
    const NAN_WINS: bool = false;
    fn lift(v: T) -> Self::Acc;
    fn combine(a: Self::Acc, b: Self::Acc) -> Self::Acc;
}

/// Sum of the values as f64 (FLOAT32 and INT32 sums and means).
#[derive(Clone, Copy)]
pub(crate) struct SumF64;

impl<T: Num> Reduction<T> for SumF64 {
    type Acc = f64;
    const KIND: Kind = Kind::SumF64;
    const EMPTY: f64 = 0.0;
    #[inline(always)]
    fn lift(v: T) -> f64 {
        v.to_f64()
    }
    #[inline(always)]
    fn combine(a: f64, b: f64) -> f64 {
        a + b
    }
}

/// Sum of integers, wrapping on overflow as Koda's does.
#[derive(Clone, Copy)]
pub(crate) struct WrappingSum;

impl<T: Num> Reduction<T> for WrappingSum {
    type Acc = T;
    const KIND: Kind = Kind::WrappingSum;
    const EMPTY: T = T::ZERO;
    #[inline(always)]
    fn lift(v: T) -> T {
        v
    }
    #[inline(always)]
    fn combine(a: T, b: T) -> T {
        a.add(b)
    }
}

/// The largest value (a NaN wins: see [`Reduction::NAN_WINS`]).
#[derive(Clone, Copy)]
pub(crate) struct Max;

impl<T: Num> Reduction<T> for Max {
    type Acc = T;
    const KIND: Kind = Kind::Max;
    const EMPTY: T = T::LOWEST;
    const NAN_WINS: bool = T::IS_FLOAT;
    #[inline(always)]
    fn lift(v: T) -> T {
        v
    }
    /// `maxps` on x86.
    #[inline(always)]
    fn combine(a: T, b: T) -> T {
        if a > b { a } else { b }
    }
}

/// The smallest value (a NaN wins).
#[derive(Clone, Copy)]
pub(crate) struct Min;

impl<T: Num> Reduction<T> for Min {
    type Acc = T;
    const KIND: Kind = Kind::Min;
    const EMPTY: T = T::HIGHEST;
    const NAN_WINS: bool = T::IS_FLOAT;
    #[inline(always)]
    fn lift(v: T) -> T {
        v
    }
    /// `minps` on x86.
    #[inline(always)]
    fn combine(a: T, b: T) -> T {
        if a < b { a } else { b }
    }
}

/// `finish(reduction of the group, group size)` for each group of `edge`
/// over `values` (the column the edge's children index, all present).
pub(crate) fn reduce_groups<T: Num, O: Reduction<T>, R: Send>(values: &[T], edge: &Edge, finish: impl Fn(O::Acc, usize) -> R + Sync) -> Vec<R> {
    map_group_chunks(edge, |spans, out| {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above.
            let widest = unsafe { avx2::widest(&spans) };
            if let Some(lanes) = T::lanes32(values) {
                // SAFETY: the CPU has AVX2, checked just above.
                return unsafe { avx2::windows::<O::Acc, R, _>(lanes, O::KIND, spans, widest, out, &finish) };
            }
            // SAFETY: the CPU has AVX2, checked just above.
            return unsafe { reduce_chunk_avx2::<T, O, R, _>(values, spans, out, &finish) };
        }
        reduce_chunk::<T, O, R, _>(values, spans, out, &finish)
    })
}

/// [`reduce_chunk`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn reduce_chunk_avx2<T: Num, O: Reduction<T>, R, F: Fn(O::Acc, usize) -> R>(values: &[T], spans: GroupSpans<'_>, out: &mut Chunk<'_, R>, finish: &F) {
    reduce_chunk::<T, O, R, F>(values, spans, out, finish)
}

/// Reduces one task's groups, each by [`reduce`]. Plain loops and
/// functions, not closures, so that all of it is inlined into (and compiled
/// for the features of) [`reduce_chunk_avx2`].
#[inline(always)]
fn reduce_chunk<T: Num, O: Reduction<T>, R, F: Fn(O::Acc, usize) -> R>(values: &[T], spans: GroupSpans<'_>, out: &mut Chunk<'_, R>, finish: &F) {
    match spans {
        GroupSpans::Split(ends) => {
            for e in ends.windows(2) {
                let group = &values[e[0] as usize..e[1] as usize];
                out.push(finish(reduce::<T, O>(group), group.len()));
            }
        }
        GroupSpans::Uniform { first, size } => {
            for g in first..first + out.len() {
                out.push(finish(reduce::<T, O>(&values[g * size..g * size + size]), size));
            }
        }
    }
}

/// The reduction of one group: in order when short, else in 32 lanes.
#[inline(always)]
fn reduce<T: Num, O: Reduction<T>>(group: &[T]) -> O::Acc {
    const LANES: usize = 32;
    if group.len() < LANES {
        let mut acc = O::EMPTY;
        for &v in group {
            let v = O::lift(v);
            if O::NAN_WINS && v.is_nan() {
                return v;
            }
            acc = O::combine(acc, v);
        }
        return acc;
    }
    let mut lanes = [O::EMPTY; LANES];
    let mut chunks = group.chunks_exact(LANES);
    for chunk in &mut chunks {
        for (lane, &v) in lanes.iter_mut().zip(chunk) {
            *lane = O::combine(*lane, O::lift(v));
        }
    }
    for (lane, &v) in lanes.iter_mut().zip(chunks.remainder()) {
        *lane = O::combine(*lane, O::lift(v));
    }
    // A second pass (over values just read) for NaNs keeps `combine` one
    // instruction in the first.
    if O::NAN_WINS && group.iter().fold(false, |nan, v| nan | v.is_nan()) {
        return O::lift(*group.iter().find(|v| v.is_nan()).expect("a NaN value"));
    }
    // Lanes combined pairwise, halving their number each step.
    let mut width = LANES;
    while width > 1 {
        width /= 2;
        for k in 0..width {
            lanes[k] = O::combine(lanes[k], lanes[k + width]);
        }
    }
    lanes[0]
}

/// Groups of FLOAT32 or INT32 values read in windows of 8, 16, 24 or 32
/// AVX2 lanes.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    use super::Kind;
    use crate::kernel::{Chunk, GroupSpans};
    use crate::num::{Lanes32, Num};

    /// `KEEP[32 - n..][..w]` is `n` all-ones masks and then zeros: which
    /// lanes of a window of `w` hold a group of `n` values (`n <= w <= 32`).
    static KEEP: [u32; 64] = {
        let mut keep = [0; 64];
        let mut i = 0;
        while i < 32 {
            keep[i] = u32::MAX;
            i += 1;
        }
        keep
    };

    /// [`GroupSpans::widest`] compiled for AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) fn widest(spans: &GroupSpans<'_>) -> usize {
        spans.widest()
    }

    /// The window size (in vectors of 8 lanes) that stands for groups of any
    /// size: runs of 32 values, then a masked window for the rest.
    const ANY: usize = 0;

    /// `finish(reduction, size)` of each group of the task (the widest has
    /// `widest` items), the reduction given as `A` (exact: a FLOAT32
    /// or INT32 maximum, minimum or wrapping sum, or an f64 sum).
    #[target_feature(enable = "avx2")]
    pub(super) fn windows<A: Num, R, F: Fn(A, usize) -> R>(
        values: Lanes32<'_>,
        kind: Kind,
        spans: GroupSpans<'_>,
        widest: usize,
        out: &mut Chunk<'_, R>,
        finish: &F,
    ) {
        match widest {
            0..=8 => by_kind::<A, R, F, 1>(values, kind, spans, out, finish),
            9..=16 => by_kind::<A, R, F, 2>(values, kind, spans, out, finish),
            17..=24 => by_kind::<A, R, F, 3>(values, kind, spans, out, finish),
            25..=32 => by_kind::<A, R, F, 4>(values, kind, spans, out, finish),
            _ => by_kind::<A, R, F, ANY>(values, kind, spans, out, finish),
        }
    }

    /// [`each`] with the window's reduction for the values' type and
    /// `kind` fixed, so that the loop over groups holds one small body.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn by_kind<A: Num, R, F: Fn(A, usize) -> R, const V: usize>(
        values: Lanes32<'_>,
        kind: Kind,
        spans: GroupSpans<'_>,
        out: &mut Chunk<'_, R>,
        finish: &F,
    ) {
        match (values, kind) {
            (Lanes32::F32(v), Kind::Max) => each::<A, R, F, V>(spans, out, finish, |s, n| window_f32::<V>(v, s, n, Kind::Max)),
            (Lanes32::F32(v), Kind::Min) => each::<A, R, F, V>(spans, out, finish, |s, n| window_f32::<V>(v, s, n, Kind::Min)),
            (Lanes32::F32(v), Kind::SumF64 | Kind::WrappingSum) => {
                each::<A, R, F, V>(spans, out, finish, |s, n| window_f32::<V>(v, s, n, Kind::SumF64))
            }
            (Lanes32::I32(v), Kind::Max) => each::<A, R, F, V>(spans, out, finish, |s, n| window_i32::<V>(v, s, n, Kind::Max)),
            (Lanes32::I32(v), Kind::Min) => each::<A, R, F, V>(spans, out, finish, |s, n| window_i32::<V>(v, s, n, Kind::Min)),
            (Lanes32::I32(v), Kind::SumF64) => each::<A, R, F, V>(spans, out, finish, |s, n| window_i32::<V>(v, s, n, Kind::SumF64)),
            (Lanes32::I32(v), Kind::WrappingSum) => each::<A, R, F, V>(spans, out, finish, |s, n| window_i32::<V>(v, s, n, Kind::WrappingSum)),
        }
    }

    /// `finish(group(start, len), len)` for each group of the task.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn each<A: Num, R, F: Fn(A, usize) -> R, const V: usize>(
        spans: GroupSpans<'_>,
        out: &mut Chunk<'_, R>,
        finish: &F,
        group: impl Fn(usize, usize) -> f64,
    ) {
        match spans {
            GroupSpans::Split(ends) => {
                for e in ends.windows(2) {
                    let len = (e[1] - e[0]) as usize;
                    out.push(finish(A::from_f64(group(e[0] as usize, len)), len));
                }
            }
            GroupSpans::Uniform { first, size } => {
                for g in first..first + out.len() {
                    out.push(finish(A::from_f64(group(g * size, size)), size));
                }
            }
        }
    }

    /// `reduce(window, keep)` of the window of `8 * V` values from `start`
    /// (copied into a padded one where it would pass the end of `values`)
    /// and the mask of its first `len` lanes.
    #[inline(always)]
    fn window<T: Copy + Default, const V: usize>(values: &[T], start: usize, len: usize, reduce: impl Fn(*const T, *const __m256i) -> f64) -> f64 {
        debug_assert!(len <= 8 * V);
        let keep = KEEP[32 - len..][..8 * V].as_ptr() as *const __m256i;
        match values.get(start..start + 8 * V) {
            Some(w) => reduce(w.as_ptr(), keep),
            None => {
                let mut padded = [T::default(); 32];
                padded[..len].copy_from_slice(&values[start..start + len]);
                reduce(padded.as_ptr(), keep)
            }
        }
    }

    /// The reduction of `values[start..start + len]` (`len <= 8 * V`).
    #[target_feature(enable = "avx2")]
    #[inline]
    fn window_f32<const V: usize>(values: &[f32], start: usize, len: usize, kind: Kind) -> f64 {
        if V == ANY {
            let whole = len / 32 * 32;
            let tail = window_f32::<4>(values, start + whole, len - whole, kind);
            return combine(kind, runs_f32(&values[start..start + whole], kind), tail);
        }
        window::<f32, V>(values, start, len, |w, keep| reduce_f32::<V>(w, keep, kind))
    }

    /// The reduction of `values`, a whole number of runs of 32, in four
    /// vector accumulators.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn runs_f32(values: &[f32], kind: Kind) -> f64 {
        // SAFETY: each run holds 32 values.
        let lane = |run: &[f32], j: usize| unsafe { _mm256_loadu_ps(run.as_ptr().add(8 * j)) };
        match kind {
            Kind::Max | Kind::Min => {
                let best = |a, b| if kind == Kind::Max { _mm256_max_ps(a, b) } else { _mm256_min_ps(a, b) };
                let mut acc = [_mm256_set1_ps(if kind == Kind::Max { f32::NEG_INFINITY } else { f32::INFINITY }); 4];
                let mut nan = _mm256_setzero_ps();
                for run in values.chunks_exact(32) {
                    for (j, acc) in acc.iter_mut().enumerate() {
                        let v = lane(run, j);
                        nan = _mm256_or_ps(nan, _mm256_cmp_ps::<_CMP_UNORD_Q>(v, v));
                        *acc = best(*acc, v);
                    }
                }
                if _mm256_movemask_ps(nan) != 0 {
                    return f64::NAN;
                }
                best_of_f32(best(best(acc[0], acc[1]), best(acc[2], acc[3])), kind)
            }
            Kind::SumF64 | Kind::WrappingSum => {
                let mut acc = [_mm256_setzero_pd(); 4];
                for run in values.chunks_exact(32) {
                    for (j, acc) in acc.iter_mut().enumerate() {
                        let v = lane(run, j);
                        *acc = _mm256_add_pd(*acc, _mm256_cvtps_pd(_mm256_castps256_ps128(v)));
                        *acc = _mm256_add_pd(*acc, _mm256_cvtps_pd(_mm256_extractf128_ps::<1>(v)));
                    }
                }
                sum_pd(_mm256_add_pd(_mm256_add_pd(acc[0], acc[1]), _mm256_add_pd(acc[2], acc[3])))
            }
        }
    }

    /// The reductions of two parts of a group combined.
    fn combine(kind: Kind, a: f64, b: f64) -> f64 {
        match kind {
            Kind::Max | Kind::Min if a.is_nan() || b.is_nan() => f64::NAN,
            Kind::Max => a.max(b),
            Kind::Min => a.min(b),
            Kind::SumF64 => a + b,
            // Both parts are i32 sums, exact in f64.
            Kind::WrappingSum => (a as i32).wrapping_add(b as i32) as f64,
        }
    }

    /// The reduction of the `8 * V` lanes at `w` masked by `keep`.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn reduce_f32<const V: usize>(w: *const f32, keep: *const __m256i, kind: Kind) -> f64 {
        // SAFETY: `window` gives `8 * V` readable values and masks.
        let lane = |j: usize| unsafe { (_mm256_loadu_ps(w.add(8 * j)), _mm256_castsi256_ps(_mm256_loadu_si256(keep.add(j)))) };
        match kind {
            Kind::Max | Kind::Min => {
                let empty = _mm256_set1_ps(if kind == Kind::Max { f32::NEG_INFINITY } else { f32::INFINITY });
                let (mut acc, mut nan) = (empty, _mm256_setzero_ps());
                for j in 0..V {
                    let (v, m) = lane(j);
                    let v = _mm256_blendv_ps(empty, v, m);
                    nan = _mm256_or_ps(nan, _mm256_cmp_ps::<_CMP_UNORD_Q>(v, v));
                    acc = if kind == Kind::Max { _mm256_max_ps(acc, v) } else { _mm256_min_ps(acc, v) };
                }
                if _mm256_movemask_ps(nan) != 0 {
                    return f64::NAN;
                }
                best_of_f32(acc, kind)
            }
            Kind::SumF64 | Kind::WrappingSum => {
                let mut acc = _mm256_setzero_pd();
                for j in 0..V {
                    let (v, m) = lane(j);
                    let v = _mm256_and_ps(v, m);
                    acc = _mm256_add_pd(acc, _mm256_cvtps_pd(_mm256_castps256_ps128(v)));
                    acc = _mm256_add_pd(acc, _mm256_cvtps_pd(_mm256_extractf128_ps::<1>(v)));
                }
                sum_pd(acc)
            }
        }
    }

    /// The maximum (or minimum) of 8 FLOAT32 lanes without NaNs, by halving
    /// with shuffles: a scalar compare per step would be a data-dependent
    /// branch.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn best_of_f32(acc: __m256, kind: Kind) -> f64 {
        let best = |a: __m128, b: __m128| if kind == Kind::Max { _mm_max_ps(a, b) } else { _mm_min_ps(a, b) };
        let four = best(_mm256_castps256_ps128(acc), _mm256_extractf128_ps::<1>(acc));
        let two = best(four, _mm_movehl_ps(four, four));
        let one = best(two, _mm_shuffle_ps::<0b01>(two, two));
        _mm_cvtss_f32(one) as f64
    }

    /// The reduction of `values[start..start + len]` (`len <= 8 * V`).
    #[target_feature(enable = "avx2")]
    #[inline]
    fn window_i32<const V: usize>(values: &[i32], start: usize, len: usize, kind: Kind) -> f64 {
        if V == ANY {
            let whole = len / 32 * 32;
            let tail = window_i32::<4>(values, start + whole, len - whole, kind);
            return combine(kind, runs_i32(&values[start..start + whole], kind), tail);
        }
        window::<i32, V>(values, start, len, |w, keep| reduce_i32::<V>(w, keep, kind))
    }

    /// The reduction of the `8 * V` lanes at `w` masked by `keep`.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn reduce_i32<const V: usize>(w: *const i32, keep: *const __m256i, kind: Kind) -> f64 {
        // SAFETY: `window` gives `8 * V` readable values and masks.
        let lane = |j: usize| unsafe { (_mm256_loadu_si256(w.add(8 * j) as *const __m256i), _mm256_loadu_si256(keep.add(j))) };
        match kind {
            Kind::Max | Kind::Min => {
                let empty = _mm256_set1_epi32(if kind == Kind::Max { i32::MIN } else { i32::MAX });
                let mut acc = empty;
                for j in 0..V {
                    let (v, m) = lane(j);
                    let v = _mm256_blendv_epi8(empty, v, m);
                    acc = if kind == Kind::Max { _mm256_max_epi32(acc, v) } else { _mm256_min_epi32(acc, v) };
                }
                best_of_i32(acc, kind)
            }
            Kind::WrappingSum => {
                let mut acc = _mm256_setzero_si256();
                for j in 0..V {
                    let (v, m) = lane(j);
                    acc = _mm256_add_epi32(acc, _mm256_and_si256(v, m));
                }
                wrapping_sum_i32(acc)
            }
            Kind::SumF64 => {
                let mut acc = _mm256_setzero_pd();
                for j in 0..V {
                    let (v, m) = lane(j);
                    let v = _mm256_and_si256(v, m);
                    acc = _mm256_add_pd(acc, _mm256_cvtepi32_pd(_mm256_castsi256_si128(v)));
                    acc = _mm256_add_pd(acc, _mm256_cvtepi32_pd(_mm256_extracti128_si256::<1>(v)));
                }
                sum_pd(acc)
            }
        }
    }

    /// The reduction of `values`, a whole number of runs of 32, in four
    /// vector accumulators.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn runs_i32(values: &[i32], kind: Kind) -> f64 {
        // SAFETY: each run holds 32 values.
        let lane = |run: &[i32], j: usize| unsafe { _mm256_loadu_si256(run.as_ptr().add(8 * j) as *const __m256i) };
        let runs = values.chunks_exact(32);
        match kind {
            Kind::Max | Kind::Min => {
                let best = |a, b| if kind == Kind::Max { _mm256_max_epi32(a, b) } else { _mm256_min_epi32(a, b) };
                let mut acc = [_mm256_set1_epi32(if kind == Kind::Max { i32::MIN } else { i32::MAX }); 4];
                for run in runs {
                    for (j, acc) in acc.iter_mut().enumerate() {
                        *acc = best(*acc, lane(run, j));
                    }
                }
                best_of_i32(best(best(acc[0], acc[1]), best(acc[2], acc[3])), kind)
            }
            Kind::WrappingSum => {
                let mut acc = [_mm256_setzero_si256(); 4];
                for run in runs {
                    for (j, acc) in acc.iter_mut().enumerate() {
                        *acc = _mm256_add_epi32(*acc, lane(run, j));
                    }
                }
                wrapping_sum_i32(_mm256_add_epi32(_mm256_add_epi32(acc[0], acc[1]), _mm256_add_epi32(acc[2], acc[3])))
            }
            Kind::SumF64 => {
                let mut acc = [_mm256_setzero_pd(); 4];
                for run in runs {
                    for (j, acc) in acc.iter_mut().enumerate() {
                        let v = lane(run, j);
                        *acc = _mm256_add_pd(*acc, _mm256_cvtepi32_pd(_mm256_castsi256_si128(v)));
                        *acc = _mm256_add_pd(*acc, _mm256_cvtepi32_pd(_mm256_extracti128_si256::<1>(v)));
                    }
                }
                sum_pd(_mm256_add_pd(_mm256_add_pd(acc[0], acc[1]), _mm256_add_pd(acc[2], acc[3])))
            }
        }
    }

    /// The maximum (or minimum) of 8 INT32 lanes, halving with shuffles as
    /// for FLOAT32 (a scalar pass over the lanes costs as much as a window).
    #[target_feature(enable = "avx2")]
    #[inline]
    fn best_of_i32(acc: __m256i, kind: Kind) -> f64 {
        let best = |a: __m128i, b: __m128i| if kind == Kind::Max { _mm_max_epi32(a, b) } else { _mm_min_epi32(a, b) };
        let four = best(_mm256_castsi256_si128(acc), _mm256_extracti128_si256::<1>(acc));
        let two = best(four, _mm_shuffle_epi32::<0b01_00_11_10>(four));
        let one = best(two, _mm_shuffle_epi32::<0b10_11_00_01>(two));
        _mm_cvtsi128_si32(one) as f64
    }

    /// The wrapping sum of 8 INT32 lanes.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn wrapping_sum_i32(acc: __m256i) -> f64 {
        let mut lanes = [0i32; 8];
        // SAFETY: `lanes` holds 8 i32.
        unsafe { _mm256_storeu_si256(lanes.as_mut_ptr() as *mut __m256i, acc) };
        lanes.iter().fold(0i32, |a, &b| a.wrapping_add(b)) as f64
    }

    /// The sum of 4 f64 lanes.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn sum_pd(acc: __m256d) -> f64 {
        let pair = _mm_add_pd(_mm256_castpd256_pd128(acc), _mm256_extractf128_pd::<1>(acc));
        let mut lanes = [0f64; 2];
        // SAFETY: `lanes` holds 2 f64.
        unsafe { _mm_storeu_pd(lanes.as_mut_ptr(), pair) };
        lanes[0] + lanes[1]
    }
}
