//! Questions about shapes, answered as MASK items:
//! `kd.slices.is_shape_compatible` and `is_expandable_to`.

use plait_core::{DataSlice, Error, JaggedShape, Result};

use crate::masking::mask_where;

fn answer(yes: bool) -> Result<DataSlice> {
    mask_where(&JaggedShape::scalar(), 1, |_| yes)
}

/// Present when one of the shapes is a prefix of the other (they broadcast).
pub fn is_shape_compatible(x: &DataSlice, y: &DataSlice) -> Result<DataSlice> {
    answer(x.shape().is_prefix_of(y.shape()) || y.shape().is_prefix_of(x.shape()))
}

/// Present when `x`, without its last `ndim` dimensions, expands to `target`.
pub fn is_expandable_to(x: &DataSlice, target: &DataSlice, ndim: Option<i64>) -> Result<DataSlice> {
    let ndim = ndim.unwrap_or(0);
    if ndim < 0 || ndim as usize > x.rank() {
        return Err(Error::value("kd.slices.is_expandable_to", format!("expected 0 <= ndim <= rank, got ndim={ndim}, rank={}", x.rank())));
    }
    answer(x.shape().prefix(x.rank() - ndim as usize).is_prefix_of(target.shape()))
}
