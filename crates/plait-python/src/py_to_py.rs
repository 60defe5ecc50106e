//! `_plait.to_py_tree`: `to_py` of a DataSlice in Rust (the native walk of
//! [`crate::to_py_walk`]), for `plait/kd/conversion.py`, which converts
//! the slice itself when given `NotImplemented` back.

use plait_core::{JaggedShape, ScalarRef, Schema};
use pyo3::prelude::*;

use crate::errors::guard;
use crate::py_slice::PyDataSlice;
use crate::to_py_reads::converts_natively;
use crate::to_py_walk::{Options, Stop, walk};
use crate::unboxing::{nest, to_py};

/// `to_py(x, max_depth, obj_as_dict, include_missing_attrs)` with entities
/// and objects as instances of `obj_class`, walking at most `max_levels`
/// levels; `NotImplemented` for what the Python walk converts (a slice it
/// is not, arguments it does not take as they are, anything [`walk`]
/// stops at).
#[pyfunction]
fn to_py_tree(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    max_depth: &Bound<'_, PyAny>,
    obj_as_dict: &Bound<'_, PyAny>,
    include_missing_attrs: &Bound<'_, PyAny>,
    obj_class: &Bound<'_, PyAny>,
    max_levels: usize,
) -> PyResult<Py<PyAny>> {
    let Ok(x) = x.cast::<PyDataSlice>() else { return Ok(py.NotImplemented()) };
    let ds = &x.get().inner;
    if converts_natively(ds) {
        if ds.schema() == Schema::Schema && (0..ds.size()).any(|i| matches!(ds.get(i), Some(ScalarRef::Schema(Schema::Struct(_))))) {
            return Err(crate::to_py_walk::struct_schema_error());
        }
        return to_py(py, ds);
    }
    let (Ok(max_depth), Ok(obj_as_dict), Ok(include_missing_attrs)) =
        (max_depth.extract::<i64>(), obj_as_dict.is_truthy(), include_missing_attrs.is_truthy())
    else {
        return Ok(py.NotImplemented());
    };
    let options = Options { max_depth, obj_as_dict, include_missing_attrs, max_levels };
    let flat = guard(|| ds.with_shape("kd.to_py", JaggedShape::flat(ds.size())))?;
    let values = match guard(|| Ok(walk(py, flat, &options, obj_class)))? {
        Ok(values) => values,
        Err(Stop::Python) => return Ok(py.NotImplemented()),
        Err(Stop::Raised(err)) => return Err(err),
    };
    nest(py, values.into_iter().map(Bound::unbind).collect(), ds.shape())
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(to_py_tree, m)?)
}
