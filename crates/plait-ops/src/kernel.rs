//! Loop drivers shared by the typed kernels: they allocate the output once,
//! write every slot exactly once, and split large inputs across threads.
//!
//! The closures they take are the whole per-item work of an operator, so the
//! loops here are tight and vectorise on the all-present path (presence is
//! combined separately, as bitmaps).

use std::mem::MaybeUninit;
use std::ops::Range;

use arrow_buffer::{BooleanBuffer, NullBuffer};
use plait_core::Edge;
use rayon::prelude::*;

/// Inputs of at least this many items are split across threads.
pub const PARALLEL_MIN: usize = 1 << 17;
/// Items per parallel task.
const CHUNK: usize = 1 << 15;

/// One side of an elementwise kernel: a column's values or one value for all.
#[derive(Clone, Copy, Debug)]
pub enum Side<'a, T> {
    Many(&'a [T]),
    One(T),
}

impl<T: Copy> Side<'_, T> {
    /// The value item `i` reads.
    #[inline(always)]
    pub fn get(&self, i: usize) -> T {
        match self {
            Side::Many(values) => values[i],
            Side::One(v) => *v,
        }
    }
}

pub use plait_core::alloc::output_vec;

/// A vector of `n` items where `fill(start, out)` writes items
/// `start..start + out.len()`; runs the chunks in parallel for large `n`.
pub fn build_vec<R: Send>(n: usize, fill: impl Fn(usize, &mut [MaybeUninit<R>]) + Sync) -> Vec<R> {
    let mut out: Vec<R> = output_vec(n);
    let spare = &mut out.spare_capacity_mut()[..n];
    if n >= PARALLEL_MIN {
        spare.par_chunks_mut(CHUNK).enumerate().for_each(|(k, chunk)| fill(k * CHUNK, chunk));
    } else {
        fill(0, spare);
    }
    // SAFETY: every caller's `fill` writes each slot of the chunk it is given
    // (the loops below zip the output with inputs of the same length).
    unsafe { out.set_len(n) };
    out
}

/// `f` applied to each item.
pub fn map1<A: Copy + Sync, R: Send>(a: &[A], f: impl Fn(A) -> R + Sync) -> Vec<R> {
    build_vec(a.len(), |start, out| {
        let end = start + out.len();
        for (o, &x) in out.iter_mut().zip(&a[start..end]) {
            o.write(f(x));
        }
    })
}

/// `f` applied to each pair of items; either side may be a single value.
pub fn map2<A: Copy + Sync, B: Copy + Sync, R: Copy + Send>(
    n: usize,
    a: Side<'_, A>,
    b: Side<'_, B>,
    f: impl Fn(A, B) -> R + Sync,
) -> Vec<R> {
    build_vec(n, |start, out| {
        let range = start..start + out.len();
        match (a, b) {
            (Side::Many(a), Side::Many(b)) => {
                for ((o, &x), &y) in out.iter_mut().zip(&a[range.clone()]).zip(&b[range]) {
                    o.write(f(x, y));
                }
            }
            (Side::Many(a), Side::One(y)) => {
                for (o, &x) in out.iter_mut().zip(&a[range]) {
                    o.write(f(x, y));
                }
            }
            (Side::One(x), Side::Many(b)) => {
                for (o, &y) in out.iter_mut().zip(&b[range]) {
                    o.write(f(x, y));
                }
            }
            (Side::One(x), Side::One(y)) => {
                let v = f(x, y);
                for o in out.iter_mut() {
                    o.write(v);
                }
            }
        }
    })
}

/// `f` applied to the child range of each parent of `edge` (a segmented map).
pub fn map_groups<R: Send>(edge: &Edge, f: impl Fn(Range<usize>) -> R + Sync) -> Vec<R> {
    let groups = edge.parent_size();
    let run = |start: usize, out: &mut [MaybeUninit<R>]| {
        for (k, o) in out.iter_mut().enumerate() {
            o.write(f(edge.child_range(start + k)));
        }
    };
    if edge.child_size() >= PARALLEL_MIN && groups > 1 {
        // Tasks of about CHUNK children each, whatever the group sizes.
        let per_task = (groups * CHUNK / edge.child_size().max(1)).max(1);
        let mut out: Vec<R> = output_vec(groups);
        out.spare_capacity_mut()[..groups]
            .par_chunks_mut(per_task)
            .enumerate()
            .for_each(|(k, chunk)| run(k * per_task, chunk));
        // SAFETY: `run` writes every slot of every chunk.
        unsafe { out.set_len(groups) };
        out
    } else {
        build_vec(groups, run)
    }
}

/// A bitmap of `n` bits where bit `i` is `pred(i)`, built 64 bits at a time
/// (in parallel for large `n`).
pub fn collect_bits(n: usize, pred: impl Fn(usize) -> bool + Sync) -> BooleanBuffer {
    let words = n.div_ceil(64);
    let packed: Vec<u64> = build_vec(words, |start, out| {
        for (k, o) in out.iter_mut().enumerate() {
            let base = (start + k) * 64;
            let end = (base + 64).min(n);
            let mut word = 0u64;
            for i in base..end {
                word |= (pred(i) as u64) << (i - base);
            }
            o.write(word);
        }
    });
    BooleanBuffer::new(arrow_buffer::Buffer::from_vec(packed), 0, n)
}

/// The presence of items present in every input (`None` = all present).
pub fn and_presence(a: Option<&NullBuffer>, b: Option<&NullBuffer>) -> Option<NullBuffer> {
    NullBuffer::union(a, b)
}

/// A presence bitmap from per-item flags.
pub fn presence_from_flags(flags: &[bool]) -> Option<NullBuffer> {
    let bits = BooleanBuffer::from(flags);
    let presence = NullBuffer::new(bits);
    (presence.null_count() > 0).then_some(presence)
}

/// Whether item `i` is present under `presence`.
#[inline(always)]
pub fn is_present(presence: Option<&NullBuffer>, i: usize) -> bool {
    presence.is_none_or(|p| p.is_valid(i))
}
