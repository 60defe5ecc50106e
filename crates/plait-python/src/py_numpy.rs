//! numpy interop (`kd_ext.npkd`): a read-only numpy view of a numeric
//! column without copying (`__array_interface__` over plait's buffer, which
//! the view keeps alive), and numeric slices from any buffer-protocol object
//! (numpy arrays) in one copy — plait's data is immutable and numpy's is not,
//! so loading always copies.

use std::ffi::CStr;

use arrow_buffer::{Buffer, ScalarBuffer};
use plait_core::column::packed_bits;
use plait_core::{Column, DataSlice, Edge, JaggedShape, Schema, SliceData, Values};
use pyo3::buffer::{Element, PyBuffer};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{guard, value_error};
use crate::py_slice::{PyDataSlice, wrap};

/// A buffer of plait's (a column's values, split points, text bytes), seen
/// as a read-only one-dimensional array through the buffer protocol (what
/// `pyarrow.py_buffer` and `memoryview` read, without numpy in between) and
/// `__array_interface__`; the view keeps the buffer alive.
#[pyclass(module = "plait.types", frozen)]
pub struct ArrayView {
    buffer: Buffer,
    typestr: &'static str,
    /// The buffer protocol's item format (a C string).
    format: &'static CStr,
    /// Items, and bytes per item: the shape and stride the buffer protocol
    /// points at (fields, so they live as long as the view).
    len: isize,
    itemsize: isize,
}

impl ArrayView {
    /// A view of numbers.
    pub fn of<T: NumpyType>(values: &ScalarBuffer<T>) -> ArrayView {
        let itemsize = std::mem::size_of::<T>() as isize;
        ArrayView { buffer: values.inner().clone(), typestr: T::TYPESTR, format: T::FORMAT, len: values.len() as isize, itemsize }
    }

    /// A view of raw bytes.
    pub fn bytes(buffer: Buffer) -> ArrayView {
        let len = buffer.len() as isize;
        ArrayView { buffer, typestr: "|u1", format: c"B", len, itemsize: 1 }
    }
}

/// The numbers a view can hold, with numpy's name and the buffer protocol's
/// format of each (native order and sizes: plait builds for little-endian
/// targets, where C's int is 4 bytes).
pub trait NumpyType: arrow_buffer::ArrowNativeType {
    const TYPESTR: &'static str;
    const FORMAT: &'static CStr;
}

impl NumpyType for i32 {
    const TYPESTR: &'static str = "<i4";
    const FORMAT: &'static CStr = c"i";
}
impl NumpyType for i64 {
    const TYPESTR: &'static str = "<i8";
    // numpy's own int64 is C's long where that is 8 bytes (Linux, macOS):
    // "q" would give an equal but distinct dtype that prints `dtype=int64`.
    const FORMAT: &'static CStr = if std::mem::size_of::<std::os::raw::c_long>() == 8 { c"l" } else { c"q" };
}
impl NumpyType for f32 {
    const TYPESTR: &'static str = "<f4";
    const FORMAT: &'static CStr = c"f";
}
impl NumpyType for f64 {
    const TYPESTR: &'static str = "<f8";
    const FORMAT: &'static CStr = c"d";
}

#[pymethods]
impl ArrayView {
    #[getter]
    fn __array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("shape", (self.len as usize,))?;
        d.set_item("typestr", self.typestr)?;
        // Read-only: plait's data is immutable.
        d.set_item("data", (self.buffer.as_ptr() as usize, true))?;
        d.set_item("version", 3)?;
        Ok(d)
    }

    /// The buffer protocol: a read-only, C-contiguous, one-dimensional view;
    /// a request for a writable one is a BufferError.
    ///
    /// # Safety
    /// `view` is a `Py_buffer` CPython hands over to fill.
    unsafe fn __getbuffer__(slf: Bound<'_, Self>, view: *mut pyo3::ffi::Py_buffer, flags: std::os::raw::c_int) -> PyResult<()> {
        use pyo3::ffi;
        if view.is_null() {
            return Err(pyo3::exceptions::PyBufferError::new_err("ArrayView: no view to fill"));
        }
        if flags & ffi::PyBUF_WRITABLE == ffi::PyBUF_WRITABLE {
            return Err(pyo3::exceptions::PyBufferError::new_err("ArrayView: plait's data is read-only"));
        }
        let this = slf.get();
        // SAFETY: `view` is not null and CPython lends it to this call to be
        // filled. `buf`, `format`, `shape` and `strides` point into the view
        // object (its buffer, a static string, its fields), which `obj` keeps
        // alive until CPython releases the view; the buffer is never written
        // (`readonly`), and CPython does not write through `shape` or
        // `strides`.
        unsafe {
            (*view).obj = slf.clone().into_any().into_ptr();
            (*view).buf = this.buffer.as_ptr() as *mut std::os::raw::c_void;
            (*view).len = this.len * this.itemsize;
            (*view).readonly = 1;
            (*view).itemsize = this.itemsize;
            (*view).format = if flags & ffi::PyBUF_FORMAT == ffi::PyBUF_FORMAT { this.format.as_ptr() as *mut _ } else { std::ptr::null_mut() };
            (*view).ndim = 1;
            (*view).shape = if flags & ffi::PyBUF_ND == ffi::PyBUF_ND { &this.len as *const isize as *mut isize } else { std::ptr::null_mut() };
            (*view).strides =
                if flags & ffi::PyBUF_STRIDES == ffi::PyBUF_STRIDES { &this.itemsize as *const isize as *mut isize } else { std::ptr::null_mut() };
            (*view).suboffsets = std::ptr::null_mut();
            (*view).internal = std::ptr::null_mut();
        }
        Ok(())
    }

    /// Nothing to free: the view's fields outlive every buffer view of it.
    ///
    /// # Safety
    /// `_view` is a view `__getbuffer__` filled.
    unsafe fn __releasebuffer__(&self, _view: *mut pyo3::ffi::Py_buffer) {}
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
