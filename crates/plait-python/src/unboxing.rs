//! DataSlices to Python values (`to_py`): ints, floats, str, bytes, bool, None;
//! MASK items stay `kd.present`, schemas stay schema DataItems (as Koda).

use plait_core::{DataSlice, JaggedShape, ScalarRef};
use pyo3::IntoPyObjectExt;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};

use crate::errors::guard;
use crate::py_slice::wrap;

/// One item as a Python object.
pub fn item_to_py(py: Python<'_>, item: Option<ScalarRef<'_>>) -> PyResult<Py<PyAny>> {
    Ok(match item {
        None => py.None(),
        Some(ScalarRef::Int32(v)) => v.into_py_any(py)?,
        Some(ScalarRef::Int64(v)) => v.into_py_any(py)?,
        Some(ScalarRef::Float32(v)) => (v as f64).into_py_any(py)?,
        Some(ScalarRef::Float64(v)) => v.into_py_any(py)?,
        Some(ScalarRef::Boolean(v)) => v.into_py_any(py)?,
        Some(ScalarRef::Bytes(v)) => PyBytes::new(py, v).into_any().unbind(),
        Some(ScalarRef::String(v)) => v.into_py_any(py)?,
        Some(value @ (ScalarRef::Mask | ScalarRef::Schema(_) | ScalarRef::ItemId(_) | ScalarRef::Expr(_))) => {
            wrap(py, guard(|| DataSlice::item(Some(value), value.dtype()))?)?
        }
    })
}

/// The whole slice as nested Python lists (a scalar for a DataItem). Ids
/// stay DataItems of the slice's schema and bag (as Koda: an entity with
/// no bag to read it from is itself).
pub fn to_py(py: Python<'_>, ds: &DataSlice) -> PyResult<Py<PyAny>> {
    let mut items: Vec<Py<PyAny>> = Vec::with_capacity(ds.size());
    for i in 0..ds.size() {
        items.push(match ds.get(i) {
            Some(id @ ScalarRef::ItemId(_)) => wrap(py, guard(|| DataSlice::item(Some(id), ds.schema()))?.with_bag(ds.bag().cloned()))?,
            item => item_to_py(py, item)?,
        });
    }
    nest(py, items, ds.shape())
}

/// `values` (one per item of `shape`) as nested Python lists of `shape`
/// (the value itself for a scalar shape).
pub fn nest(py: Python<'_>, values: Vec<Py<PyAny>>, shape: &JaggedShape) -> PyResult<Py<PyAny>> {
    let mut level = values;
    // Group items into lists from the innermost dimension outwards.
    for edge in shape.edges().iter().rev() {
        let mut grouped = Vec::with_capacity(edge.parent_size());
        for p in 0..edge.parent_size() {
            let range = edge.child_range(p);
            grouped.push(PyList::new(py, &level[range])?.into_any().unbind());
        }
        level = grouped;
    }
    Ok(level.pop().unwrap_or_else(|| py.None()))
}
