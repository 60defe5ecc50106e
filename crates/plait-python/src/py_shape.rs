//! The Python class `JaggedShape`.

use plait_core::{Edge, JaggedShape};
use pyo3::basic::CompareOp;
use pyo3::prelude::*;

use crate::errors::guard;
use crate::py_slice::wrap;

/// Koda's TypeError for a value given where its Python functions want a
/// JaggedShape (`kd.list_shaped(kd.item(1))`): the value's type as
/// `module.name` (`int` for a builtin).
pub fn expect_shape(x: &Bound<'_, PyAny>) -> PyResult<()> {
    if x.is_instance_of::<PyJaggedShape>() {
        return Ok(());
    }
    Err(pyo3::exceptions::PyTypeError::new_err(format!("expecting shape to be a JaggedShape, got {}", crate::errors::python_type_name(x)?)))
}

/// `kd.dict_shaped`'s check of its shape (see [`expect_shape`]).
#[pyfunction]
#[pyo3(name = "expect_shape")]
pub fn py_expect_shape(x: &Bound<'_, PyAny>) -> PyResult<()> {
    expect_shape(x)
}

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

    /// Refused, as in Koda: a shape is neither true nor false.
    fn __bool__(&self) -> PyResult<bool> {
        Err(pyo3::exceptions::PyTypeError::new_err("__bool__ disabled for JaggedShape"))
    }

    /// `shape[i]`: the edge of dimension `i` (negative counts from the
    /// end); `shape[:n]`: the shape of the first `n` dimensions (Koda
    /// slices shapes from the start only, with step 1).
    fn __getitem__(&self, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let py = key.py();
        let rank = self.inner.rank() as i64;
        if let Ok(range) = key.cast::<pyo3::types::PySlice>() {
            let start: Option<i64> = range.getattr("start")?.extract()?;
            let stop: Option<i64> = range.getattr("stop")?.extract()?;
            let step: Option<i64> = range.getattr("step")?.extract()?;
            if start.is_some_and(|s| s != 0) || step.is_some_and(|s| s != 1) {
                let text = |v: Option<i64>| v.map_or("None".to_string(), |v| v.to_string());
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "jagged shape slicing must start at 0 (or None) and have a step size of 1 (or None), got: (start, stop, step)=slice({}, {}, {})",
                    text(start),
                    text(stop),
                    text(step)
                )));
            }
            let stop = stop.map_or(rank, |s| if s < 0 { (s + rank).max(0) } else { s.min(rank) });
            return Ok(Py::new(py, PyJaggedShape { inner: self.inner.prefix(stop as usize) })?.into_any());
        }
        if key.is_instance_of::<pyo3::types::PyBool>() || key.cast::<pyo3::types::PyInt>().is_err() {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!("unsupported type: {}", key.get_type().name()?)));
        }
        let i: i64 = key.extract()?;
        let dim = if i < 0 { i + rank } else { i };
        if !(0..rank).contains(&dim) {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "expected rank > {i}, but got rank = {rank}, when trying to get the edge at dim = {i}"
            )));
        }
        Ok(Py::new(py, PyEdge { inner: self.inner.edges()[dim as usize].clone() })?.into_any())
    }

    /// A number identifying the shape by its content (equal shapes have
    /// equal fingerprints).
    #[getter]
    fn fingerprint(&self) -> crate::py_fingerprint::PyFingerprint {
        let mut h = plait_core::itemid::UuidHasher::new("JaggedShape.fingerprint");
        // An edge whose rows all have one size hashes as that size (however
        // it is stored: a uniform edge of 10**12 rows costs two numbers).
        for edge in self.inner.edges() {
            let parents = edge.parent_size() as u64;
            let uniform = edge.uniform_size().or_else(|| {
                let points = edge.split_points();
                let first = points.windows(2).next().map(|w| w[1] - w[0]);
                first.filter(|&f| points.windows(2).all(|w| w[1] - w[0] == f)).map(|f| f as usize)
            });
            match uniform {
                Some(size) => {
                    h.write_str("uniform");
                    h.write_bytes(&parents.to_le_bytes());
                    h.write_bytes(&(size as u64).to_le_bytes());
                }
                None => {
                    h.write_str("split");
                    for p in edge.split_points().iter() {
                        h.write_bytes(&p.to_le_bytes());
                    }
                }
            }
        }
        crate::py_fingerprint::PyFingerprint(h.finish())
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
