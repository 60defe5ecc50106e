//! Loop drivers shared by the typed kernels: they allocate the output once,
//! write every slot exactly once, and split large inputs across threads.
//!
//! The closures they take are the whole per-item work of an operator, so the
//! loops here are tight and vectorise on the all-present path (presence is
//! combined separately, as bitmaps).

use std::mem::MaybeUninit;
use std::ops::Range;

use arrow_buffer::{BooleanBuffer, NullBuffer};
use plait_core::cast::NumSlice;
use plait_core::{Edge, parallel};
use rayon::prelude::*;

use crate::num::Num;

pub use plait_core::parallel::PARALLEL_MIN;
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

impl<'a, T: Copy> Side<'a, T> {
    /// The items of `range` of the result.
    #[inline(always)]
    fn cut(self, range: Range<usize>) -> Side<'a, T> {
        match self {
            Side::Many(values) => Side::Many(&values[range]),
            one => one,
        }
    }
}

/// Items converted per step by the kernels over [`Lane`]s: the converted
/// block stays in L1 while the kernel reads it.
const BLOCK: usize = 1 << 10;

/// One side of an elementwise kernel computing in `T`, as an operand gives it
/// (see [`crate::elementwise::Operand::lane`]): a [`Side`], or values of a
/// lower numeric type that the kernel converts to `T` a block at a time as it
/// reads them. An argument of another type then costs one conversion per
/// item inside the kernel's loop, not a cast of the whole column first.
#[derive(Clone, Copy, Debug)]
pub enum Lane<'a, T> {
    Many(&'a [T]),
    One(T),
    Widen(NumSlice<'a>),
}

impl<'a, T: Num> Lane<'a, T> {
    /// The lane as a side when it needs no conversion.
    #[inline(always)]
    pub fn as_side(self) -> Option<Side<'a, T>> {
        match self {
            Lane::Many(values) => Some(Side::Many(values)),
            Lane::One(v) => Some(Side::One(v)),
            Lane::Widen(_) => None,
        }
    }

    /// The items of `range` (at most [`BLOCK`] long) as a side in `T`,
    /// converted into `buf` when the lane holds another type.
    #[inline(always)]
    fn block<'b>(self, range: Range<usize>, buf: &'b mut [T]) -> Side<'b, T>
    where
        'a: 'b,
    {
        match self {
            Lane::Many(values) => Side::Many(&values[range]),
            Lane::One(v) => Side::One(v),
            Lane::Widen(src) => {
                let out = &mut buf[..range.len()];
                T::widen_block(src, range.start, out);
                Side::Many(out)
            }
        }
    }
}

pub use plait_core::alloc::output_vec;

/// The part of an output that [`build_vec`] hands to its `fill`: slots
/// `range()` of the result, written in order by [`Chunk::write_all`]. A
/// chunk can only be written through it, and `build_vec` checks that every
/// slot was, so the result never holds an uninitialised item.
pub struct Chunk<'a, R> {
    start: usize,
    slots: &'a mut [MaybeUninit<R>],
    /// Slots `0..written` are initialised.
    written: usize,
}

impl<R> Chunk<'_, R> {
    /// The index in the whole output of the chunk's first slot.
    #[inline(always)]
    pub fn start(&self) -> usize {
        self.start
    }

    /// The number of slots of the chunk.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether the chunk has no slot.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The indices in the whole output of the chunk's slots.
    #[inline(always)]
    pub fn range(&self) -> Range<usize> {
        self.start..self.start + self.slots.len()
    }

    /// Writes `value` into the next slot. Panics when every slot is written.
    #[inline(always)]
    pub fn push(&mut self, value: R) {
        self.slots[self.written].write(value);
        self.written += 1;
    }

    /// Writes `values` into the next slots, in order, until either runs out.
    /// Zipping slices and ranges, the loop has no bounds checks, vectorises
    /// like a loop over the slots, and the count of written slots is its
    /// trip count (no per-item work).
    #[inline(always)]
    pub fn write_all(&mut self, values: impl IntoIterator<Item = R>) {
        let mut written = 0;
        for (slot, value) in self.slots[self.written..].iter_mut().zip(values) {
            slot.write(value);
            written += 1;
        }
        self.written += written;
    }
}

/// A vector of `n` items written by `fill(chunk)` chunk by chunk (chunks of
/// `chunk_size` slots, in parallel when `parallel`). Panics, leaking what was
/// written, if `fill` leaves a slot of its chunk unwritten.
pub fn fill_vec<R: Send>(n: usize, chunk_size: usize, parallel: bool, fill: impl Fn(&mut Chunk<'_, R>) + Sync) -> Vec<R> {
    let mut out: Vec<R> = output_vec(n);
    let run = |start: usize, slots: &mut [MaybeUninit<R>]| {
        let mut chunk = Chunk { start, slots, written: 0 };
        fill(&mut chunk);
        assert_eq!(chunk.written, chunk.slots.len(), "a kernel left slots of its output unwritten");
    };
    let spare = &mut out.spare_capacity_mut()[..n];
    if parallel {
        parallel::install(|| spare.par_chunks_mut(chunk_size).enumerate().for_each(|(k, slots)| run(k * chunk_size, slots)));
    } else {
        run(0, spare);
    }
    // SAFETY: `run` returned for every chunk of `spare[..n]` (a panic in one
    // unwinds past this), and it asserts that its chunk was written through
    // `Chunk::write_all`, which initialises slots `0..written` in order:
    // slots `0..n` are initialised, and `n` is within the capacity.
    unsafe { out.set_len(n) };
    out
}

/// A vector of `n` items where `fill(chunk)` writes each slot of the chunk it
/// is given (see [`Chunk`]); runs the chunks in parallel for large `n`.
pub fn build_vec<R: Send>(n: usize, fill: impl Fn(&mut Chunk<'_, R>) + Sync) -> Vec<R> {
    fill_vec(n, CHUNK, n >= PARALLEL_MIN, fill)
}

/// `f` applied to each item.
pub fn map1<A: Copy + Sync, R: Send>(a: &[A], f: impl Fn(A) -> R + Sync) -> Vec<R> {
    build_vec(a.len(), |out| {
        let range = out.range();
        out.write_all(a[range].iter().map(|&x| f(x)));
    })
}

/// `f` applied to each pair of items; either side may be a single value.
pub fn map2<A: Copy + Sync, B: Copy + Sync, R: Copy + Send>(n: usize, a: Side<'_, A>, b: Side<'_, B>, f: impl Fn(A, B) -> R + Sync) -> Vec<R> {
    build_vec(n, |out| {
        let range = out.range();
        write_pairs(out, range.len(), a.cut(range.clone()), b.cut(range), &f);
    })
}

/// Writes `f` of the `len` pairs of `a` and `b` (cut to the same items)
/// into the next slots of `out`.
#[inline(always)]
fn write_pairs<A: Copy, B: Copy, R: Copy>(out: &mut Chunk<'_, R>, len: usize, a: Side<'_, A>, b: Side<'_, B>, f: &impl Fn(A, B) -> R) {
    match (a, b) {
        (Side::Many(a), Side::Many(b)) => out.write_all(a.iter().zip(b).map(|(&x, &y)| f(x, y))),
        (Side::Many(a), Side::One(y)) => out.write_all(a.iter().map(|&x| f(x, y))),
        (Side::One(x), Side::Many(b)) => out.write_all(b.iter().map(|&y| f(x, y))),
        (Side::One(x), Side::One(y)) => out.write_all(std::iter::repeat_n(f(x, y), len)),
    }
}

/// [`map2`] over lanes: `f` on each pair of items converted to `T`.
pub fn map_lanes2<T: Num, R: Copy + Send>(n: usize, a: Lane<'_, T>, b: Lane<'_, T>, f: impl Fn(T, T) -> R + Sync) -> Vec<R> {
    if let (Some(a), Some(b)) = (a.as_side(), b.as_side()) {
        return map2(n, a, b, f);
    }
    build_vec(n, |out| {
        let (mut buf_a, mut buf_b) = ([T::default(); BLOCK], [T::default(); BLOCK]);
        let range = out.range();
        for start in range.clone().step_by(BLOCK) {
            let block = start..(start + BLOCK).min(range.end);
            let len = block.len();
            write_pairs(out, len, a.block(block.clone(), &mut buf_a), b.block(block, &mut buf_b), &f);
        }
    })
}

/// [`map1`] over a lane: `f` on each item converted to `T` (a single value
/// gives a single result).
pub fn map_lane1<T: Num, R: Copy + Send>(a: Lane<'_, T>, f: impl Fn(T) -> R + Sync) -> Vec<R> {
    match a {
        Lane::Many(values) => map1(values, f),
        Lane::One(v) => vec![f(v)],
        Lane::Widen(src) => build_vec(src.len(), |out| {
            let mut buf = [T::default(); BLOCK];
            let range = out.range();
            for start in range.clone().step_by(BLOCK) {
                let Side::Many(values) = a.block(start..(start + BLOCK).min(range.end), &mut buf) else { unreachable!("a converted block") };
                out.write_all(values.iter().map(|&x| f(x)));
            }
        }),
    }
}

/// The groups one task of [`map_group_chunks`] handles: the child range of
/// each of its parents.
#[derive(Clone, Copy, Debug)]
pub enum GroupSpans<'a> {
    /// Parent `j` of the task has children `ends[j]..ends[j + 1]`.
    Split(&'a [i64]),
    /// The task's parents start at parent `first`; each has `size` children.
    Uniform { first: usize, size: usize },
}

impl GroupSpans<'_> {
    /// The largest number of children of one of the task's parents. Inlined,
    /// so that a caller compiled for AVX2 compares the i64 sizes in vectors
    /// (SSE2 has no 64-bit compare: there the loop costs a third as much as
    /// an aggregation of the groups).
    #[inline(always)]
    pub fn widest(&self) -> usize {
        match self {
            GroupSpans::Split(ends) => ends.windows(2).map(|e| e[1] - e[0]).max().unwrap_or(0) as usize,
            GroupSpans::Uniform { size, .. } => *size,
        }
    }
}

/// `f(spans, out)` for tasks of consecutive parents of `edge`, `out` being
/// the task's slots of the result (one per parent); tasks of about CHUNK
/// children each run in parallel for large inputs. The edge's variant is
/// matched once per task, not once per group.
pub fn map_group_chunks<R: Send>(edge: &Edge, f: impl Fn(GroupSpans<'_>, &mut Chunk<'_, R>) + Sync) -> Vec<R> {
    let groups = edge.parent_size();
    let run = |out: &mut Chunk<'_, R>| {
        let spans = match edge {
            Edge::Split(points) => GroupSpans::Split(&points[out.start()..out.start() + out.len() + 1]),
            Edge::Uniform { size, .. } => GroupSpans::Uniform { first: out.start(), size: *size },
        };
        f(spans, out)
    };
    if edge.child_size() >= PARALLEL_MIN && groups > 1 {
        // Tasks of about CHUNK children each, whatever the group sizes.
        let per_task = (groups * CHUNK / edge.child_size().max(1)).max(1);
        fill_vec(groups, per_task, true, run)
    } else {
        build_vec(groups, run)
    }
}

/// `f` applied to the child range of each parent of `edge` (a segmented map).
pub fn map_groups<R: Send>(edge: &Edge, f: impl Fn(Range<usize>) -> R + Sync) -> Vec<R> {
    map_group_chunks(edge, |spans, out| match spans {
        GroupSpans::Split(ends) => out.write_all(ends.windows(2).map(|e| f(e[0] as usize..e[1] as usize))),
        GroupSpans::Uniform { first, size } => out.write_all((first..first + out.len()).map(|g| f(g * size..g * size + size))),
    })
}

/// A bitmap of `n` bits where bit `i` is `pred(i)` (in parallel for large `n`).
pub fn collect_bits(n: usize, pred: impl Fn(usize) -> bool + Sync) -> BooleanBuffer {
    collect_words(n, |base, flags| {
        for (j, flag) in flags.iter_mut().enumerate() {
            *flag = pred(base + j) as u8;
        }
    })
}

/// The bitmap of `pred` on each value. Prefer this (and [`bits_of_pairs`])
/// to [`collect_bits`] when the predicate reads slices: iterating the slices
/// leaves no bounds checks in the loop, which then vectorises.
pub fn bits_of<T: Copy + Sync>(values: &[T], pred: impl Fn(T) -> bool + Sync) -> BooleanBuffer {
    collect_words(values.len(), |base, flags| {
        let end = base + flags.len();
        for (flag, &v) in flags.iter_mut().zip(&values[base..end]) {
            *flag = pred(v) as u8;
        }
    })
}

/// The bitmap of `pred` on each pair of values of two slices of equal length.
pub fn bits_of_pairs<A: Copy + Sync, B: Copy + Sync>(a: &[A], b: &[B], pred: impl Fn(A, B) -> bool + Sync) -> BooleanBuffer {
    assert_eq!(a.len(), b.len(), "paired slices differ in length");
    collect_words(a.len(), |base, flags| {
        let end = base + flags.len();
        for ((flag, &x), &y) in flags.iter_mut().zip(&a[base..end]).zip(&b[base..end]) {
            *flag = pred(x, y) as u8;
        }
    })
}

/// The bitmap of `pred` on each pair of items of two lanes (`n` items; at
/// least one lane is not a single value).
pub fn bits_of_lanes<T: Num>(n: usize, a: Lane<'_, T>, b: Lane<'_, T>, pred: impl Fn(T, T) -> bool + Sync) -> BooleanBuffer {
    collect_words(n, |base, flags| {
        let (mut buf_a, mut buf_b) = ([T::default(); 64], [T::default(); 64]);
        let word = base..base + flags.len();
        match (a.block(word.clone(), &mut buf_a), b.block(word, &mut buf_b)) {
            (Side::Many(x), Side::Many(y)) => {
                for ((flag, &x), &y) in flags.iter_mut().zip(x).zip(y) {
                    *flag = pred(x, y) as u8;
                }
            }
            (Side::Many(x), Side::One(y)) => flags.iter_mut().zip(x).for_each(|(flag, &x)| *flag = pred(x, y) as u8),
            (Side::One(x), Side::Many(y)) => flags.iter_mut().zip(y).for_each(|(flag, &y)| *flag = pred(x, y) as u8),
            (Side::One(x), Side::One(y)) => flags.fill(pred(x, y) as u8),
        }
    })
}

/// A bitmap of `n` bits, 64 at a time: `fill(base, flags)` sets `flags[j]`
/// to bit `base + j` (0 or 1) for a word's worth of flags. Testing into a byte
/// array and packing afterwards vectorises, where shifting each flag into the
/// word does not.
fn collect_words(n: usize, fill: impl Fn(usize, &mut [u8]) + Sync) -> BooleanBuffer {
    let packed: Vec<u64> = build_vec(n.div_ceil(64), |out| {
        out.write_all(out.range().map(|word| {
            let base = word * 64;
            let mut flags = [0u8; 64];
            fill(base, &mut flags[..(n - base).min(64)]);
            pack_flags(&flags)
        }));
    });
    BooleanBuffer::new(arrow_buffer::Buffer::from_vec(packed), 0, n)
}

/// The word whose bit `j` is `flags[j]` (each flag 0 or 1).
#[inline(always)]
fn pack_flags(flags: &[u8; 64]) -> u64 {
    let mut word = 0u64;
    for (b, eight) in flags.chunks_exact(8).enumerate() {
        let bytes = u64::from_le_bytes(eight.try_into().expect("8 bytes"));
        // Byte k holds bit k at position 8k; the multiply adds each of them
        // into bit 56 + k of the product, so the top byte is the 8 flags.
        word |= (bytes.wrapping_mul(0x0102_0408_1020_4080) >> 56) << (b * 8);
    }
    word
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

/// Counts of set bits over ranges of a bitmap in O(1) each, from a prefix
/// count per 64-bit word. (Slicing the bitmap per range would clone its Arc,
/// and a million atomic increments shared by the worker threads cost more
/// than the counting.)
pub struct BitCounter {
    words: Vec<u64>,
    /// `prefix[k]`: set bits in words `0..k`.
    prefix: Vec<u32>,
}

impl BitCounter {
    pub fn new(bits: &BooleanBuffer) -> BitCounter {
        // One word past the end keeps `below(len)` in bounds.
        let mut words: Vec<u64> = bits.inner().bit_chunks(bits.offset(), bits.len()).iter_padded().collect();
        words.push(0);
        let mut prefix = Vec::with_capacity(words.len());
        let mut total = 0u32;
        for w in &words {
            prefix.push(total);
            total += w.count_ones();
        }
        BitCounter { words, prefix }
    }

    /// Set bits at positions below `i`.
    #[inline(always)]
    fn below(&self, i: usize) -> usize {
        let (k, bit) = (i / 64, i % 64);
        let partial = self.words[k] & ((1u64 << bit) - 1);
        self.prefix[k] as usize + partial.count_ones() as usize
    }

    /// Set bits in `r`.
    #[inline(always)]
    pub fn count(&self, r: Range<usize>) -> usize {
        self.below(r.end) - self.below(r.start)
    }
}

/// The number of set bits of `bits` under each parent of `edge`.
pub fn set_bits_per_group(edge: &Edge, bits: &BooleanBuffer) -> Vec<i64> {
    let counter = BitCounter::new(bits);
    map_groups(edge, |r| counter.count(r) as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collected_bits_match_the_predicate_in_full_and_partial_words() {
        for n in [0, 1, 63, 64, 65, 200] {
            let bits = collect_bits(n, |i| i % 3 == 0 || i % 5 == 1);
            let values: Vec<usize> = (0..n).collect();
            let from_values = bits_of(&values, |i| i % 3 == 0 || i % 5 == 1);
            let from_pairs = bits_of_pairs(&values, &values, |i, _| i % 3 == 0 || i % 5 == 1);
            assert_eq!(bits.len(), n);
            for i in 0..n {
                assert_eq!(bits.value(i), i % 3 == 0 || i % 5 == 1, "bit {i} of {n}");
            }
            assert_eq!(from_values, bits);
            assert_eq!(from_pairs, bits);
        }
    }

    #[test]
    fn built_vectors_hold_every_item_serial_and_parallel() {
        for n in [0, 1, CHUNK - 1, CHUNK + 1, PARALLEL_MIN + CHUNK / 2 + 3] {
            let a: Vec<i64> = (0..n as i64).collect();
            assert_eq!(map1(&a, |x| x * 2), (0..n as i64).map(|x| x * 2).collect::<Vec<_>>(), "map1 of {n}");
            let sums = map2(n, Side::Many(&a), Side::One(1), |x, y| x + y);
            assert_eq!(sums, (1..=n as i64).collect::<Vec<_>>(), "map2 of {n}");
            assert_eq!(map2(n, Side::One(2), Side::One(3), |x: i64, y: i64| x * y), vec![6; n]);
        }
        // Groups of 3 children: a parallel run over chunks of groups.
        let groups = PARALLEL_MIN / 3 + 5;
        let edge = Edge::uniform(groups, 3);
        assert_eq!(map_groups(&edge, |r| r.start), (0..groups).map(|g| g * 3).collect::<Vec<_>>());
    }

    #[test]
    #[should_panic(expected = "a kernel left slots of its output unwritten")]
    fn a_fill_leaving_slots_unwritten_panics_instead_of_exposing_them() {
        let _ = build_vec(10, |out: &mut Chunk<'_, String>| out.write_all(std::iter::repeat_n(String::from("x"), out.len() - 1)));
    }

    #[test]
    fn bit_counts_over_ranges_match_a_direct_count() {
        let flags: Vec<bool> = (0..300).map(|i| i % 3 == 0 || i % 7 == 0).collect();
        let bits = BooleanBuffer::from(flags.as_slice()).slice(5, 290);
        let counter = BitCounter::new(&bits);
        for (start, end) in [(0, 0), (0, 290), (3, 64), (63, 65), (100, 290), (289, 290), (128, 192)] {
            let direct = (start..end).filter(|&i| bits.value(i)).count();
            assert_eq!(counter.count(start..end), direct, "{start}..{end}");
        }
    }
}
