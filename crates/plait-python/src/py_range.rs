//! `Slice`: what `kd.tuples.slice(start, stop, step)` returns, as Koda's
//! (an Arolla slice): its bounds and step, each a DataSlice or unspecified,
//! printed `slice(DataItem(1, schema: INT32), ..., unspecified)`. Operators
//! take it back as the same range key (`kd.subslice(x, s)`).

use plait_core::DataSlice;
use plait_ops::registry::Value;
use pyo3::prelude::*;

use crate::py_slice::wrap;

/// A slice `start:stop:step` of DataSlices (or unspecified).
#[pyclass(name = "Slice", module = "plait._plait", frozen)]
pub struct PyRange {
    start: Option<DataSlice>,
    stop: Option<DataSlice>,
    step: Option<DataSlice>,
}

impl PyRange {
    /// The Python object of range value `start:stop:step`.
    pub fn new_py(py: Python<'_>, start: Option<DataSlice>, stop: Option<DataSlice>, step: Option<DataSlice>) -> PyResult<Py<PyAny>> {
        Ok(Py::new(py, PyRange { start, stop, step })?.into_any())
    }

    /// The range as an operator's value.
    pub fn value(&self) -> Value {
        let boxed = |b: &Option<DataSlice>| b.clone().map(Box::new);
        Value::Range { start: boxed(&self.start), stop: boxed(&self.stop), step: boxed(&self.step) }
    }

    fn parts(&self) -> [&Option<DataSlice>; 3] {
        [&self.start, &self.stop, &self.step]
    }
}

/// A part as Python's: the DataSlice, or `unspecified`.
fn part(py: Python<'_>, x: &Option<DataSlice>) -> PyResult<Py<PyAny>> {
    match x {
        Some(x) => wrap(py, x.clone()),
        None => Ok(crate::py_operator::unspecified(py)?.clone().unbind()),
    }
}

#[pymethods]
impl PyRange {
    #[getter]
    fn start(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        part(py, &self.start)
    }

    #[getter]
    fn stop(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        part(py, &self.stop)
    }

    #[getter]
    fn step(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        part(py, &self.step)
    }

    fn __repr__(&self) -> String {
        self.value().text()
    }

    /// `slice<DATA_SLICE,DATA_SLICE,UNSPECIFIED>`, as Koda names it.
    #[getter]
    fn qtype(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let name = |x: &Option<DataSlice>| if x.is_some() { "DATA_SLICE" } else { "UNSPECIFIED" };
        let [start, stop, step] = self.parts().map(name);
        let qtype = format!("slice<{start},{stop},{step}>");
        Ok(py.import("plait.kd.qtypes")?.getattr("_from_name")?.call1((qtype,))?.unbind())
    }
}
