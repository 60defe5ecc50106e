//! The Python class `JaggedShape`.

use plait_core::{Edge, JaggedShape};
use pyo3::basic::CompareOp;
use pyo3::prelude::*;

use crate::errors::guard;
use crate::py_slice::wrap;

/// The partition tree of a DataSlice: one edge per dimension.
#[pyclass(name = "JaggedShape", module = "plait.types", frozen, weakref)]
pub struct PyJaggedShape {
    pub inner: JaggedShape,
}

/// One dimension of a shape: split points mapping parents to children.
#[pyclass(name = "Edge", module = "plait.types", frozen)]
pub struct PyEdge {
    pub inner: Edge,
}

#[pymethods]
impl PyEdge {
    /// An edge from split points (cumulative sizes starting at 0).
    #[staticmethod]
    fn from_split_points(split_points: Vec<i64>) -> PyResult<PyEdge> {
        Ok(PyEdge { inner: guard(|| Edge::from_split_points(split_points))? })
    }

    /// An edge from the number of children of each parent.
    #[staticmethod]
    fn from_sizes(sizes: Vec<i64>) -> PyResult<PyEdge> {
        Ok(PyEdge { inner: guard(|| Edge::from_sizes(&sizes))? })
    }

    /// Number of parents (items of the previous dimension).
    fn parent_size(&self) -> usize {
        self.inner.parent_size()
    }

    /// Number of children (items of this dimension).
    fn child_size(&self) -> usize {
        self.inner.child_size()
    }

    /// The split points: parent `i` has children `split_points[i]:split_points[i + 1]`.
    fn split_points(&self) -> Vec<i64> {
        self.inner.split_points().iter().copied().collect()
    }

    /// The number of children of each parent.
    fn sizes(&self) -> Vec<i64> {
        self.inner.sizes()
    }

    fn __repr__(&self) -> String {
        format!("Edge(split_points={:?}, parent_size={}, child_size={})", self.split_points(), self.inner.parent_size(), self.inner.child_size())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyEdge>().is_ok_and(|o| o.get().inner == self.inner)
    }
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

    /// The edges, outermost first (seed 000, "Edges").
    fn edges(&self) -> Vec<PyEdge> {
        self.inner.edges().iter().map(|e| PyEdge { inner: e.clone() }).collect()
    }

    /// A shape from edges; each must start where the previous one ends.
    #[staticmethod]
    #[pyo3(signature = (*edges))]
    fn from_edges(edges: Vec<PyRef<'_, PyEdge>>) -> PyResult<PyJaggedShape> {
        let edges = edges.iter().map(|e| e.inner.clone()).collect();
        Ok(PyJaggedShape { inner: guard(|| JaggedShape::from_edges(edges))? })
    }

    /// Sizes of every dimension as a 2-D INT64 DataSlice.
    fn get_sizes(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        wrap(py, guard(|| plait_ops::shapes::sizes_slice(&self.inner))?)
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
