//! numpy interop (`kd_ext.npkd`): a read-only numpy view of a numeric
//! column without copying (`__array_interface__` over plait's buffer, which
//! the view keeps alive), and numeric slices from any buffer-protocol object
//! (numpy arrays) in one copy — plait's data is immutable and numpy's is not,
//! so loading always copies.

use arrow_buffer::{Buffer, ScalarBuffer};
use plait_core::column::packed_bits;
use plait_core::{Column, DataSlice, Edge, JaggedShape, Schema, SliceData, Values};
use pyo3::buffer::{Element, PyBuffer};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{guard, value_error};
use crate::py_slice::{PyDataSlice, wrap};

/// A buffer of plait's (a column's values, split points, text bytes), seen
/// by numpy through `__array_interface__` as a read-only one-dimensional
/// array; the view keeps the buffer alive.
#[pyclass(module = "plait.types", frozen)]
pub struct ArrayView {
    buffer: Buffer,
    typestr: &'static str,
    len: usize,
}

impl ArrayView {
    /// A view of numbers.
    pub fn of<T: NumpyType>(values: &ScalarBuffer<T>) -> ArrayView {
        ArrayView { buffer: values.inner().clone(), typestr: T::TYPESTR, len: values.len() }
    }

    /// A view of raw bytes.
    pub fn bytes(buffer: Buffer) -> ArrayView {
        let len = buffer.len();
        ArrayView { buffer, typestr: "|u1", len }
    }
}

/// The numbers a view can hold, with numpy's name for each.
pub trait NumpyType: arrow_buffer::ArrowNativeType {
    const TYPESTR: &'static str;
}

impl NumpyType for i32 {
    const TYPESTR: &'static str = "<i4";
}
impl NumpyType for i64 {
    const TYPESTR: &'static str = "<i8";
}
impl NumpyType for f32 {
    const TYPESTR: &'static str = "<f4";
}
impl NumpyType for f64 {
    const TYPESTR: &'static str = "<f8";
}

#[pymethods]
impl ArrayView {
    #[getter]
    fn __array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("shape", (self.len,))?;
        d.set_item("typestr", self.typestr)?;
        // Read-only: plait's data is immutable.
        d.set_item("data", (self.buffer.as_ptr() as usize, true))?;
        d.set_item("version", 3)?;
        Ok(d)
    }
}

/// A view of `ds`'s values when they are one numeric column, and its
/// presence bitmap (LSB first) when some item is missing; None when the
/// values are not one numeric column (the caller converts item by item).
#[pyfunction]
fn numpy_view<'py>(py: Python<'py>, ds: PyRef<'_, PyDataSlice>) -> Option<(ArrayView, Option<Bound<'py, pyo3::types::PyBytes>>)> {
    match ds.inner.data().columns() {
        [Column { values: v @ (Values::Int32(_) | Values::Int64(_) | Values::Float32(_) | Values::Float64(_)), presence }]
            if ds.inner.schema().is_numeric() =>
        {
            let bits = presence.as_ref().map(|p| pyo3::types::PyBytes::new(py, &packed_bits(p.inner())));
            let view = match v {
                Values::Int32(v) => ArrayView::of(v),
                Values::Int64(v) => ArrayView::of(v),
                Values::Float32(v) => ArrayView::of(v),
                Values::Float64(v) => ArrayView::of(v),
                _ => unreachable!("matched above"),
            };
            Some((view, bits))
        }
        _ => None,
    }
}

fn copy<T: Element + Copy>(py: Python<'_>, obj: &Bound<'_, PyAny>) -> Option<Vec<T>> {
    let buffer = PyBuffer::<T>::get(obj).ok()?;
    if !buffer.is_c_contiguous() {
        return None;
    }
    buffer.to_vec(py).ok()
}

/// A DataSlice of `shape` (uniform dimensions) from a C-contiguous buffer
/// of int32, int64, float32 or float64 values, or of bytes 0/1 read as
/// BOOLEAN with `booleans` (numpy's bool arrays viewed as uint8), copied.
#[pyfunction]
fn slice_from_buffer(py: Python<'_>, obj: &Bound<'_, PyAny>, shape: Vec<usize>, booleans: bool) -> PyResult<Py<PyAny>> {
    let op = "kd_ext.npkd.from_array";
    let booleans = if booleans { copy::<u8>(py, obj) } else { None };
    let (values, schema) = if let Some(v) = booleans {
        (Values::Boolean(v.into_iter().map(|b| b != 0).collect()), Schema::Boolean)
    } else if let Some(v) = copy::<i32>(py, obj) {
        (Values::Int32(ScalarBuffer::from(v)), Schema::Int32)
    } else if let Some(v) = copy::<i64>(py, obj) {
        (Values::Int64(ScalarBuffer::from(v)), Schema::Int64)
    } else if let Some(v) = copy::<f32>(py, obj) {
        (Values::Float32(ScalarBuffer::from(v)), Schema::Float32)
    } else if let Some(v) = copy::<f64>(py, obj) {
        (Values::Float64(ScalarBuffer::from(v)), Schema::Float64)
    } else {
        return Err(value_error(op, "expected a C-contiguous buffer of int32, int64, float32, float64 or bool values"));
    };
    let mut edges = Vec::with_capacity(shape.len());
    let mut parents = 1usize;
    for &size in &shape {
        edges.push(Edge::uniform(parents, size));
        parents = parents.checked_mul(size).ok_or_else(|| value_error(op, "the array is too large"))?;
    }
    if parents != values.len() {
        return Err(value_error(op, format!("a shape of {parents} items for {} values", values.len())));
    }
    let shape = guard(|| JaggedShape::from_edges(edges))?;
    let data = SliceData::from_column(Column::new(values, None));
    wrap(py, guard(|| DataSlice::new(shape, data, schema))?)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<ArrayView>()?;
    m.add_function(wrap_pyfunction!(numpy_view, m)?)?;
    m.add_function(wrap_pyfunction!(slice_from_buffer, m)?)?;
    Ok(())
}
