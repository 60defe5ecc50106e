//! plait-ops: the eager operators of plait over DataSlices.
//!
//! One module per Koda namespace ([`math`], [`comparison`], [`masking`],
//! [`slices`], [`shapes`], [`strings`], ...), one function per operator. Every elementwise operator
//! goes through [`elementwise::prepare`] (broadcasting + [`promote`]), then a
//! typed kernel driven by [`kernel`]. Aggregations group items with
//! [`groups`]. The [`registry`] lists every operator by its `kd.*` name with
//! Koda's signature, for the Python front and for expressions.

pub mod bags;
pub mod bitwise;
pub mod cells;
pub mod checks;
pub mod comparison;
pub mod curves;
pub mod elementwise;
pub mod fused;
pub mod groups;
pub mod json;
pub mod kernel;
pub mod masking;
pub mod math;
pub mod num;
pub mod objects;
pub mod promote;
pub mod proto;
pub mod random;
pub mod registry;
pub mod schema;
pub mod shapes;
pub mod slices;
pub mod strings;
pub mod timestamp;
pub mod typing;

use plait_core::repr::repr_slice;
use plait_core::{DataSlice, Error, Result, ScalarRef};

/// How errors show an argument.
pub fn describe(x: &DataSlice) -> String {
    repr_slice(x)
}

/// The number held by a numeric DataItem argument.
pub fn scalar_f64(op: &str, arg: &str, x: &DataSlice) -> Result<f64> {
    // Koda's message for values of a wrong type first.
    promote::data_type(op, arg, x, promote::TypeClass::Numeric)?;
    let value = if x.is_item() { x.get(0) } else { None };
    match value {
        Some(ScalarRef::Int32(v)) => Ok(v as f64),
        Some(ScalarRef::Int64(v)) => Ok(v as f64),
        Some(ScalarRef::Float32(v)) => Ok(v as f64),
        Some(ScalarRef::Float64(v)) => Ok(v),
        _ => Err(Error::value(op, format!("argument `{arg}` must be a numeric item, got {}", describe(x)))),
    }
}
