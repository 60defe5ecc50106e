//! Moving items between shapes: keeping the items under a bitmap (the kernel
//! of `select`), dropping items of one dimension with their subtrees, and
//! building result slices from new edges.

use arrow_buffer::{BooleanBuffer, BooleanBufferBuilder, NullBuffer, ScalarBuffer};
use plait_core::column::VarBinaryBuilder;
use plait_core::{Column, DataSlice, Edge, JaggedShape, Result, Schema, SliceData, Values};

/// The number of set bits of `keep` under each parent of `edge`.
pub fn kept_sizes(edge: &Edge, keep: &BooleanBuffer) -> Vec<i64> {
    crate::kernel::set_bits_per_group(edge, keep)
}

/// The items of `data` where `keep` is set, in order. Copies runs of kept
/// items at once rather than item by item.
pub fn filter_data(data: &SliceData, keep: &BooleanBuffer) -> SliceData {
    // Large filters count their kept items a chunk at a time, once for
    // every column.
    let chunks = filter_chunks(keep);
    let n = match &chunks {
        Some((_, counts)) => counts.iter().sum(),
        None => keep.count_set_bits(),
    };
    let columns = data.columns().iter().map(|c| filter_column(c, keep, n, chunks.as_ref())).collect();
    SliceData::from_columns(n, columns)
}

/// Items per task of a parallel filter (a multiple of 64: chunks of `keep`
/// start at word boundaries).
const FILTER_CHUNK: usize = 1 << 16;

/// The starts of the chunks of a filter over `len` items, and how many
/// items each keeps; `None` when the filter is small enough for one pass.
fn filter_chunks(keep: &BooleanBuffer) -> Option<(Vec<usize>, Vec<usize>)> {
    use rayon::prelude::*;
    let len = keep.len();
    if len < crate::kernel::PARALLEL_MIN {
        return None;
    }
    let starts: Vec<usize> = (0..len).step_by(FILTER_CHUNK).collect();
    let counts = plait_core::parallel::install(|| starts.par_iter().map(|&s| keep.slice(s, FILTER_CHUNK.min(len - s)).count_set_bits()).collect());
    Some((starts, counts))
}

/// The values of `v` where `keep` is set (`n` of them), a run of kept items
/// at a time; large filters in chunks on the worker pool, each writing its
/// own segment of the output.
fn filter_values<T: arrow_buffer::ArrowNativeType>(
    v: &ScalarBuffer<T>,
    keep: &BooleanBuffer,
    n: usize,
    chunks: Option<&(Vec<usize>, Vec<usize>)>,
) -> ScalarBuffer<T> {
    use rayon::prelude::*;
    let Some((starts, counts)) = chunks else {
        let mut out = Vec::with_capacity(n);
        for (start, end) in keep.set_slices() {
            out.extend_from_slice(&v[start..end]);
        }
        return ScalarBuffer::from(out);
    };
    let mut out = vec![T::default(); n];
    let mut segments = Vec::with_capacity(counts.len());
    let mut rest = &mut out[..];
    for &c in counts {
        let (segment, tail) = rest.split_at_mut(c);
        segments.push(segment);
        rest = tail;
    }
    let len = keep.len();
    plait_core::parallel::install(|| {
        segments.into_par_iter().zip(starts.par_iter()).for_each(|(segment, &s)| {
            let mut k = 0;
            for (a, b) in keep.slice(s, FILTER_CHUNK.min(len - s)).set_slices() {
                segment[k..k + b - a].copy_from_slice(&v[s + a..s + b]);
                k += b - a;
            }
        })
    });
    ScalarBuffer::from(out)
}

/// The bits of `b` where `keep` is set (`n` of them); large filters in
/// chunks on the worker pool, joined in order.
fn filter_bits(b: &BooleanBuffer, keep: &BooleanBuffer, n: usize, chunks: Option<&(Vec<usize>, Vec<usize>)>) -> BooleanBuffer {
    use rayon::prelude::*;
    let one = |offset: usize, keep: &BooleanBuffer, n: usize| compact_bits(&b.slice(offset, keep.len()), keep, n);
    let Some((starts, counts)) = chunks else {
        return one(0, keep, n);
    };
    let len = keep.len();
    let parts: Vec<BooleanBuffer> = plait_core::parallel::install(|| {
        starts.par_iter().zip(counts.par_iter()).map(|(&s, &c)| one(s, &keep.slice(s, FILTER_CHUNK.min(len - s)), c)).collect()
    });
    let mut out = BooleanBufferBuilder::new(n);
    for part in &parts {
        out.append_buffer(part);
    }
    out.finish()
}

/// The bits of `b` where `keep` (of the same length) is set, `n` of them,
/// packed a word at a time: each word of `keep` picks its bits of `b` by
/// walking its set bits (a whole word when all are set), and the picked bits
/// are appended to the output word. A filter of short runs (every other
/// item) costs a few operations per kept bit, not a copy per run.
fn compact_bits(b: &BooleanBuffer, keep: &BooleanBuffer, n: usize) -> BooleanBuffer {
    debug_assert_eq!(b.len(), keep.len());
    let mut out: Vec<u64> = Vec::with_capacity(n.div_ceil(64));
    // The output word being filled and how many of its bits are written.
    let (mut word, mut filled) = (0u64, 0u32);
    for (k, v) in keep.bit_chunks().iter_padded().zip(b.bit_chunks().iter_padded()) {
        let count = k.count_ones();
        let picked = if k == u64::MAX {
            v
        } else {
            let (mut picked, mut rest, mut at) = (0u64, k, 0);
            while rest != 0 {
                picked |= ((v >> rest.trailing_zeros()) & 1) << at;
                at += 1;
                rest &= rest - 1;
            }
            picked
        };
        if count == 0 {
            continue;
        }
        word |= picked << filled;
        if filled + count >= 64 {
            out.push(word);
            // The bits of `picked` that did not fit start the next word.
            word = if filled == 0 { 0 } else { picked >> (64 - filled) };
            filled = filled + count - 64;
        } else {
            filled += count;
        }
    }
    if filled > 0 {
        out.push(word);
    }
    BooleanBuffer::new(arrow_buffer::Buffer::from_vec(out), 0, n)
}

fn filter_column(column: &Column, keep: &BooleanBuffer, n: usize, chunks: Option<&(Vec<usize>, Vec<usize>)>) -> Column {
    let bits = |b: &BooleanBuffer| filter_bits(b, keep, n, chunks);
    let binary = |v: &plait_core::column::VarBinary| {
        let mut out = VarBinaryBuilder::with_capacity(n);
        for (start, end) in keep.set_slices() {
            for i in start..end {
                out.push(v.value(i));
            }
        }
        out.finish()
    };
    let values = match &column.values {
        Values::Int32(v) => Values::Int32(filter_values(v, keep, n, chunks)),
        Values::Int64(v) => Values::Int64(filter_values(v, keep, n, chunks)),
        Values::Float32(v) => Values::Float32(filter_values(v, keep, n, chunks)),
        Values::Float64(v) => Values::Float64(filter_values(v, keep, n, chunks)),
        Values::Boolean(v) => Values::Boolean(bits(v)),
        Values::Mask(_) => Values::Mask(n),
        Values::Bytes(v) => Values::Bytes(binary(v)),
        Values::String(v) => Values::String(binary(v)),
        Values::Schema(v) => Values::Schema(keep.set_indices().map(|i| v.get(i)).collect::<Vec<_>>().into()),
        Values::ItemId(v) => Values::ItemId(filter_values(v.bits(), keep, n, chunks).into()),
        Values::Expr(v) => Values::Expr(keep.set_indices().map(|i| v[i].clone()).collect()),
    };
    let presence = column.presence.as_ref().map(|p| NullBuffer::new(bits(p.inner())));
    Column::new(values, presence)
}

/// Drops the items of dimension `dim` (edge index) where `keep` is unset,
/// with everything below them. Returns the new shape and which final items
/// remain.
pub fn filter_dim(shape: &JaggedShape, dim: usize, keep: &BooleanBuffer) -> Result<(JaggedShape, BooleanBuffer)> {
    let edges = shape.edges();
    let mut new_edges: Vec<Edge> = edges[..dim].to_vec();
    new_edges.push(Edge::from_sizes(&kept_sizes(&edges[dim], keep))?);
    let mut keep = keep.clone();
    for edge in &edges[dim + 1..] {
        let mut sizes = Vec::with_capacity(keep.count_set_bits());
        let mut child_keep = BooleanBufferBuilder::new(edge.child_size());
        edge.for_each_parent(|p, n| {
            let kept = keep.value(p);
            if kept {
                sizes.push(n as i64);
            }
            child_keep.append_n(n, kept);
        });
        new_edges.push(Edge::from_sizes(&sizes)?);
        keep = child_keep.finish();
    }
    Ok((JaggedShape::from_edges(new_edges)?, keep))
}

/// `shape` without its last dimension, followed by one with the given sizes.
pub fn replace_last_edge(shape: &JaggedShape, sizes: &[i64]) -> Result<JaggedShape> {
    shape.prefix(shape.rank() - 1).with_edge(Edge::from_sizes(sizes)?)
}

/// An INT64 slice from values and presence.
pub fn int64_slice(shape: &JaggedShape, values: Vec<i64>, presence: Option<NullBuffer>) -> Result<DataSlice> {
    let column = Column::new(Values::Int64(values.into()), presence);
    let data = SliceData::from_column(column);
    DataSlice::new(shape.clone(), data, Schema::Int64)
}

/// For each item of `shape`, the index of its ancestor among the first
/// `ndim` dimensions (identity when `ndim == rank`).
pub fn ancestors(shape: &JaggedShape, ndim: usize) -> Vec<usize> {
    shape.prefix(ndim).broadcast_map(shape).unwrap_or_else(|| (0..shape.size()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_bits_keeps_the_bits_where_keep_is_set() {
        // Lengths across word boundaries; filters of every density, and
        // offsets into the buffers (slices of longer bitmaps).
        for len in [0, 1, 63, 64, 65, 130, 1000] {
            for (pattern, offset) in [(1usize, 0usize), (2, 3), (3, 64), (7, 1), (64, 5)] {
                let whole_b = BooleanBuffer::collect_bool(len + offset, |i| (i * 7 + i / 3) % 5 < 2);
                let whole_k = BooleanBuffer::collect_bool(len + offset, |i| i % pattern != pattern / 2 || i % 11 == 0);
                let (b, keep) = (whole_b.slice(offset, len), whole_k.slice(offset, len));
                let expected: Vec<bool> = (0..len).filter(|&i| keep.value(i)).map(|i| b.value(i)).collect();
                let got = compact_bits(&b, &keep, expected.len());
                assert_eq!(got.iter().collect::<Vec<_>>(), expected, "len {len} pattern {pattern} offset {offset}");
            }
        }
    }
}
