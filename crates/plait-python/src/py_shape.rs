//! The Python class `JaggedShape`.

use plait_core::{DataSlice, Edge, JaggedShape, ScalarRef, Schema};
use plait_core::column::SliceBuilder;
use pyo3::prelude::*;
use pyo3::basic::CompareOp;

use crate::errors::guard;
use crate::py_slice::wrap;

/// The partition tree of a DataSlice: one edge per dimension.
#[pyclass(name = "JaggedShape", module = "plait.types", frozen)]
pub struct PyJaggedShape {
    pub inner: JaggedShape,
}

/// Sizes of every dimension as a 2-D INT64 slice (`kd.shapes.get_sizes`).
pub fn sizes_slice(shape: &JaggedShape) -> plait_core::Result<DataSlice> {
    let mut builder = SliceBuilder::new();
    let mut row_sizes = Vec::with_capacity(shape.rank());
    for edge in shape.edges() {
        let sizes = edge.sizes();
        row_sizes.push(sizes.len() as i64);
        for s in sizes {
            builder.push(Some(ScalarRef::Int64(s)));
        }
    }
    let out_shape = JaggedShape::from_edges(vec![Edge::uniform(1, shape.rank()), Edge::from_sizes(&row_sizes)?])?;
    let data = builder.finish();
    DataSlice::new(out_shape, data, Schema::Int64)
}

#[pymethods]
impl PyJaggedShape {
    fn __repr__(&self) -> String {
        self.inner.to_string()
    }

    /// Number of dimensions.
    fn rank(&self) -> usize {
        self.inner.rank()
    }

    /// Sizes of every dimension as a 2-D INT64 DataSlice.
    fn get_sizes(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        wrap(py, guard(|| sizes_slice(&self.inner))?)
    }

    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> PyResult<Py<PyAny>> {
        let py = other.py();
        let Ok(other) = other.cast::<PyJaggedShape>() else {
            return Ok(py.NotImplemented());
        };
        let equal = self.inner == other.get().inner;
        Ok(match op {
            CompareOp::Eq => pyo3::types::PyBool::new(py, equal).to_owned().into_any().unbind(),
            CompareOp::Ne => pyo3::types::PyBool::new(py, !equal).to_owned().into_any().unbind(),
            _ => py.NotImplemented(),
        })
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        for edge in self.inner.edges() {
            edge.sizes().hash(&mut h);
        }
        h.finish()
    }
}
