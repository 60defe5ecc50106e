//! Reading items by position in the last dimension: `kd.slices.take` (`at`)
//! and `reverse`.
//!
//! ```text
//! take([[1, 2, 3], [4]], [[0, -1], [0, 5]])   [[1, 3], [4, None]]
//! reverse([[1, 2], [3]])                       [[2, 1], [3]]
//! ```

use plait_core::column::MISSING_INDEX;
use plait_core::{DataSlice, Error, Result};

use super::gather::ancestors;
use super::keys::int64_values;

/// For each index, the item at that position in the matching group of the
/// last dimension of `x`; negative indices count from the end, indices out of
/// range give missing items. `shape(x)[:-1]` and `shape(indices)` broadcast.
pub fn take(x: &DataSlice, indices: &DataSlice) -> Result<DataSlice> {
    let op = "kd.slices.take";
    if x.is_item() {
        return Err(Error::value(op, "DataItem is not supported."));
    }
    let Some((values, present)) = int64_values(indices) else {
        // Koda's two texts: one for a flat x, one for groups.
        let what = if x.rank() == 1 { "invalid indices DataSlice is provided" } else { "the provided indices must contain only integers" };
        return Err(Error::value(op, format!("{what}, got {}", crate::describe(indices))));
    };
    let groups_shape = x.shape().prefix(x.rank() - 1);
    let edge = &x.shape().edges()[x.rank() - 1];
    // The result has the larger of the two shapes; each result item reads
    // one index and one group.
    // (`None`: result item i reads index i, or group i.)
    let (shape, index_of, group_of) = if indices.shape() == &groups_shape {
        (groups_shape.clone(), None, None)
    } else if groups_shape.is_prefix_of(indices.shape()) {
        let shape = indices.shape().clone();
        let groups = ancestors(&shape, groups_shape.rank());
        (shape, None, Some(groups))
    } else if indices.shape().is_prefix_of(&groups_shape) {
        let shape = groups_shape.clone();
        let index_of = ancestors(&shape, indices.rank());
        (shape, Some(index_of), None)
    } else {
        return Err(Error::value(
            op,
            format!(
                "DataSlice with shape={groups_shape} is not compatible with shape={}; kd.take requires shape(x)[:-1] to be compatible with shape(indices)",
                indices.shape()
            ),
        ));
    };
    let gather: Vec<usize> = (0..shape.size())
        .map(|i| {
            let k = index_of.as_ref().map_or(i, |m| m[i]);
            if !present.value(k) {
                return MISSING_INDEX;
            }
            let range = edge.child_range(group_of.as_ref().map_or(i, |g| g[i]));
            let n = range.len() as i64;
            let v = values[k];
            let v = if v < 0 { v + n } else { v };
            if (0..n).contains(&v) { range.start + v as usize } else { MISSING_INDEX }
        })
        .collect();
    DataSlice::new(shape, x.data().take(&gather), x.schema())
}

/// The items of each group of the last dimension in reverse order.
pub fn reverse(ds: &DataSlice) -> Result<DataSlice> {
    if ds.is_item() {
        return Ok(ds.clone());
    }
    let edge = &ds.shape().edges()[ds.rank() - 1];
    let mut gather = Vec::with_capacity(ds.size());
    edge.for_each_parent(|p, _| gather.extend(edge.child_range(p).rev()));
    DataSlice::new(ds.shape().clone(), ds.data().take(&gather), ds.schema())
}
