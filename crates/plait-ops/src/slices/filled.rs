//! Slices filled with one value: `kd.slices.val_like`, `val_shaped`,
//! `empty_shaped` (and their `_as` forms, which take the shape of a slice).

use plait_core::broadcast::expand_to_shape;
use plait_core::{DataSlice, JaggedShape, Result, Schema};

/// `val` at every item of `shape`.
pub fn val_shaped(shape: &JaggedShape, val: &DataSlice) -> Result<DataSlice> {
    expand_to_shape("kd.slices.val_shaped", val, shape, 0)
}

/// `val` where `x` is present, missing elsewhere.
pub fn val_like(x: &DataSlice, val: &DataSlice) -> Result<DataSlice> {
    let filled = expand_to_shape("kd.slices.val_like", val, x.shape(), 0)?;
    let keep = x.data().present_bits();
    DataSlice::new(x.shape().clone(), filled.data().masked(&keep), filled.schema())
}

/// All-missing slice of `shape` with `schema`.
pub fn empty_shaped(shape: &JaggedShape, schema: Schema) -> Result<DataSlice> {
    Ok(DataSlice::missing(shape.clone(), schema))
}
