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
    let n = keep.count_set_bits();
    let columns = data.columns().iter().map(|c| filter_column(c, keep, n)).collect();
    SliceData::from_columns(n, columns)
}

fn filter_column(column: &Column, keep: &BooleanBuffer, n: usize) -> Column {
    fn runs<T: arrow_buffer::ArrowNativeType>(v: &ScalarBuffer<T>, keep: &BooleanBuffer, n: usize) -> ScalarBuffer<T> {
        let mut out = Vec::with_capacity(n);
        for (start, end) in keep.set_slices() {
            out.extend_from_slice(&v[start..end]);
        }
        ScalarBuffer::from(out)
    }
    let bits = |b: &BooleanBuffer| {
        let mut out = BooleanBufferBuilder::new(n);
        for (start, end) in keep.set_slices() {
            out.append_buffer(&b.slice(start, end - start));
        }
        out.finish()
    };
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
        Values::Int32(v) => Values::Int32(runs(v, keep, n)),
        Values::Int64(v) => Values::Int64(runs(v, keep, n)),
        Values::Float32(v) => Values::Float32(runs(v, keep, n)),
        Values::Float64(v) => Values::Float64(runs(v, keep, n)),
        Values::Boolean(v) => Values::Boolean(bits(v)),
        Values::Mask(_) => Values::Mask(n),
        Values::Bytes(v) => Values::Bytes(binary(v)),
        Values::String(v) => Values::String(binary(v)),
        Values::Schema(v) => Values::Schema(keep.set_indices().map(|i| v.get(i)).collect::<Vec<_>>().into()),
        Values::ItemId(v) => Values::ItemId(runs(v.bits(), keep, n).into()),
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
