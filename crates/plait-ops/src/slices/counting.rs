//! Counting and positions: `kd.slices.agg_count`, `agg_size`, `count`, `size`,
//! `cum_count`, `index`, `collapse`, `is_empty`.

use plait_core::broadcast::expand_to_shape;
use plait_core::column::MISSING_INDEX;
use plait_core::{Column, DataSlice, Edge, Error, Result, Schema, SliceData, Values};

use super::keys::{KeyUser, with_item_keys};
use crate::groups::{Groups, groups};
use crate::kernel::set_bits_per_group;
use crate::masking::mask_where;

pub(crate) fn int64_slice(shape: &plait_core::JaggedShape, values: Vec<i64>, presence: Option<arrow_buffer::NullBuffer>) -> Result<DataSlice> {
    let column = Column::new(Values::Int64(values.into()), presence);
    let data = SliceData::from_column(column);
    DataSlice::new(shape.clone(), data, Schema::Int64)
}

/// The groups of the counting operators: as [`groups`], but a DataItem
/// without `ndim` is refused with Koda's words for these operators (they
/// read the last edge of the shape).
fn counting_groups(op: &str, x: &DataSlice, ndim: Option<i64>) -> Result<Groups> {
    if x.rank() == 0 && ndim.is_none() {
        return Err(Error::value(op, "expected rank > 0, but got rank = 0, when trying to get the edge at dim = -1"));
    }
    groups(op, x, ndim)
}

/// Number of present items per group of the last `ndim` dimensions.
pub fn agg_count(x: &DataSlice, ndim: Option<i64>) -> Result<DataSlice> {
    let g = counting_groups("kd.slices.agg_count", x, ndim)?;
    // Every item present: the counts are the group sizes.
    if x.data().present_count() == x.size() {
        return int64_slice(&g.shape, g.edge.sizes(), None);
    }
    let counts = set_bits_per_group(&g.edge, &x.data().present_bits());
    int64_slice(&g.shape, counts, None)
}

/// Number of items (present or not) per group of the last `ndim` dimensions.
pub fn agg_size(x: &DataSlice, ndim: Option<i64>) -> Result<DataSlice> {
    let g = counting_groups("kd.slices.agg_size", x, ndim)?;
    int64_slice(&g.shape, g.edge.sizes(), None)
}

/// Number of present items over all dimensions.
pub fn count(x: &DataSlice) -> Result<DataSlice> {
    agg_count(x, Some(x.rank() as i64))
}

/// Number of items over all dimensions.
pub fn size(x: &DataSlice) -> Result<DataSlice> {
    agg_size(x, Some(x.rank() as i64))
}

/// For each present item, how many present items of its group precede it, plus one.
pub fn cum_count(x: &DataSlice, ndim: Option<i64>) -> Result<DataSlice> {
    let g = counting_groups("kd.slices.cum_count", x, ndim)?;
    let bits = x.data().present_bits();
    let mut out = vec![0i64; x.size()];
    for group in 0..g.len() {
        let mut k = 0;
        for i in g.edge.child_range(group) {
            if bits.value(i) {
                k += 1;
                out[i] = k;
            }
        }
    }
    int64_slice(x.shape(), out, Some(arrow_buffer::NullBuffer::new(bits)))
}

/// Koda's refusal of `kd.index` of an item (checked before `dim` is read).
pub fn index_rank(x: &DataSlice) -> Result<()> {
    if x.is_item() {
        return Err(Error::value("kd.slices.index", "argument `x` must have non-zero rank"));
    }
    Ok(())
}

/// For each present item, its index along dimension `dim` (negative counts from the end).
pub fn index(x: &DataSlice, dim: i64) -> Result<DataSlice> {
    let op = "kd.slices.index";
    let rank = x.rank() as i64;
    let d = if dim < 0 { dim + rank } else { dim };
    index_rank(x)?;
    if d < 0 || d >= rank {
        return Err(Error::value(op, format!("expected -get_ndim(x) <= dim < get_ndim(x), got dim={dim}, ndim={rank}")));
    }
    let d = d as usize;
    // Indices within the groups of dimension `d`, then broadcast to the items.
    let shape = x.shape().prefix(d + 1);
    let edge = &shape.edges()[d];
    let mut positions = Vec::with_capacity(edge.child_size());
    edge.for_each_parent(|_, n| positions.extend(0..n as i64));
    let at_dim = int64_slice(&shape, positions, None)?;
    let expanded = expand_to_shape(op, &at_dim, x.shape(), 0)?;
    // An index is present where the item of dimension `d` it belongs to has
    // a present item below it.
    let has = crate::masking::agg_has(x, Some((x.rank() - 1 - d) as i64))?;
    let keep = expand_to_shape(op, &has, x.shape(), 0)?.data().present_bits();
    DataSlice::new(x.shape().clone(), expanded.data().masked(&keep), Schema::Int64)
}

/// Per group of the last `ndim` dimensions: the common value if all present
/// items are equal, otherwise missing.
pub fn collapse(x: &DataSlice, ndim: Option<i64>) -> Result<DataSlice> {
    // (With ndim given, its range is checked first.)
    if x.is_item() && ndim.is_none() {
        return Err(Error::value("kd.slices.collapse", "DataItem is not supported"));
    }
    let g = groups("kd.slices.collapse", x, ndim)?;
    // "The same item" as unique sees it (keys::with_item_keys): INT32 1 is
    // INT64 1; NaN is NaN in a float column, each NaN its own item among
    // items of several types. Each group's first present item when all its
    // present items are the same, gathered a column at a time.
    struct Picks<'a>(&'a Edge);
    impl KeyUser for Picks<'_> {
        type Output = Vec<usize>;
        fn use_keys<K: std::hash::Hash + Ord + Copy + Send + Sync>(self, key: impl Fn(usize) -> Option<K> + Sync) -> Vec<usize> {
            let edge = self.0;
            crate::kernel::map_groups(edge, |range| {
                let mut first: Option<K> = None;
                let mut at = MISSING_INDEX;
                for i in range {
                    match (key(i), first) {
                        (None, _) => {}
                        (Some(k), None) => (first, at) = (Some(k), i),
                        (Some(k), Some(f)) if k != f => return MISSING_INDEX,
                        (Some(_), Some(_)) => {}
                    }
                }
                at
            })
        }
    }
    let picks = with_item_keys(x.data(), Picks(&g.edge));
    DataSlice::new(g.shape, x.data().take(&picks), x.schema())
}

/// Present when `x` has no present item.
pub fn is_empty(x: &DataSlice) -> Result<DataSlice> {
    let empty = x.present_count() == 0;
    mask_where(&plait_core::JaggedShape::scalar(), 1, |_| empty)
}
