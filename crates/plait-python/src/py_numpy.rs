//! numpy interop (`kd_ext.npkd`): a read-only numpy view of a numeric
//! column without copying (`__array_interface__` over plait's buffer, which
//! the view keeps alive), and numeric slices from any buffer-protocol object
//! (numpy arrays) in one copy — plait's data is immutable and numpy's is not,
//! so loading always copies.

use arrow_buffer::ScalarBuffer;
use plait_core::column::packed_bits;
use plait_core::{Column, DataSlice, Edge, JaggedShape, Schema, SliceData, Values};
use pyo3::buffer::{Element, PyBuffer};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{guard, value_error};
use crate::py_slice::{wrap, PyDataSlice};

/// A numeric column, seen by numpy through `__array_interface__`.
#[pyclass(module = "plait.types", frozen)]
pub struct ArrayView {
    values: Values,
}

#[pymethods]
impl ArrayView {
    #[getter]
    fn __array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let (typestr, ptr) = match &self.values {
            Values::Int32(v) => ("<i4", v.as_ptr() as usize),
            Values::Int64(v) => ("<i8", v.as_ptr() as usize),
            Values::Float32(v) => ("<f4", v.as_ptr() as usize),
            Values::Float64(v) => ("<f8", v.as_ptr() as usize),
            _ => unreachable!("only numeric columns are viewed"),
        };
        let d = PyDict::new(py);
        d.set_item("shape", (self.values.len(),))?;
        d.set_item("typestr", typestr)?;
        // Read-only: plait's data is immutable.
        d.set_item("data", (ptr, true))?;
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
            Some((ArrayView { values: v.clone() }, bits))
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

/// Numpy views of the split points of each dimension of `ds`'s shape
/// (int64; uniform dimensions are written out, split points are shared).
#[pyfunction]
fn shape_offsets(ds: PyRef<'_, PyDataSlice>) -> Vec<ArrayView> {
    ds.inner.shape().edges().iter().map(|e| ArrayView { values: Values::Int64(e.split_points().into_inner()) }).collect()
}

/// Keeps a Python buffer object (a pyarrow Buffer, which is immutable)
/// alive while plait reads its memory.
struct PythonOwner {
    _buffer: std::panic::AssertUnwindSafe<Py<PyAny>>,
}

/// A buffer over the memory of pyarrow Buffer `buf`, without copying.
fn foreign_buffer(buf: &Bound<'_, PyAny>) -> PyResult<arrow_buffer::Buffer> {
    let address: usize = buf.getattr("address")?.extract()?;
    let size: usize = buf.getattr("size")?.extract()?;
    let ptr = std::ptr::NonNull::new(address as *mut u8).unwrap_or(std::ptr::NonNull::dangling());
    let owner = std::sync::Arc::new(PythonOwner { _buffer: std::panic::AssertUnwindSafe(buf.clone().unbind()) });
    // Safety: a pyarrow Buffer's memory is valid for `size` bytes and never
    // changes while the Buffer object lives, which `owner` ensures.
    Ok(unsafe { arrow_buffer::Buffer::from_custom_allocation(ptr, size, owner) })
}

fn typed<T: arrow_buffer::ArrowNativeType>(op: &str, buffer: arrow_buffer::Buffer, offset: usize, len: usize) -> PyResult<ScalarBuffer<T>> {
    let size = std::mem::size_of::<T>();
    let end = offset.checked_add(len).and_then(|n| n.checked_mul(size));
    if end.is_none_or(|end| end > buffer.len()) || buffer.as_ptr().align_offset(std::mem::align_of::<T>()) != 0 {
        return Err(value_error(op, "an Arrow buffer shorter than its array, or misaligned"));
    }
    Ok(ScalarBuffer::new(buffer, offset, len))
}

/// A DataSlice over Arrow buffers, without copying values or offsets:
/// `values` (a pyarrow Buffer of `dtype` "int32" / "int64" / "float32" /
/// "float64", `len` values from `offset`), the validity bitmap bytes (or
/// None), and one int64 offsets Buffer per list level, outermost first.
#[pyfunction]
#[pyo3(signature = (values, dtype, offset, len, validity, levels))]
fn slice_from_arrow(
    py: Python<'_>,
    values: &Bound<'_, PyAny>,
    dtype: &str,
    offset: usize,
    len: usize,
    validity: Option<Vec<u8>>,
    levels: Vec<(Bound<'_, PyAny>, usize, usize)>,
) -> PyResult<Py<PyAny>> {
    let op = "kd_ext.arrow.from_arrow";
    let buffer = foreign_buffer(values)?;
    let (values, schema) = match dtype {
        "int32" => (Values::Int32(typed(op, buffer, offset, len)?), Schema::Int32),
        "int64" => (Values::Int64(typed(op, buffer, offset, len)?), Schema::Int64),
        "float" => (Values::Float32(typed(op, buffer, offset, len)?), Schema::Float32),
        "double" => (Values::Float64(typed(op, buffer, offset, len)?), Schema::Float64),
        other => return Err(value_error(op, format!("values of Arrow type {other} are not supported yet"))),
    };
    let presence = match validity {
        None => None,
        Some(bytes) => {
            if bytes.len() * 8 < offset + len {
                return Err(value_error(op, "a validity bitmap shorter than its array"));
            }
            let bits = arrow_buffer::BooleanBuffer::new(arrow_buffer::Buffer::from(bytes), offset, len);
            Some(arrow_buffer::NullBuffer::new(bits))
        }
    };
    let mut edges = vec![Edge::uniform(1, levels.first().map_or(len, |(_, _, n)| *n))];
    for (buf, level_offset, parents) in &levels {
        let points = typed::<i64>(op, foreign_buffer(buf)?, *level_offset, parents + 1)?;
        // Offsets of a sliced array start past 0: rebase (a copy, only then).
        let points = if points.first() == Some(&0) { points } else {
            let base = points[0];
            ScalarBuffer::from(points.iter().map(|p| p - base).collect::<Vec<i64>>())
        };
        edges.push(guard(|| Edge::from_offsets(points))?);
    }
    let shape = guard(|| JaggedShape::from_edges(edges))?;
    if shape.size() != len {
        return Err(value_error(op, format!("the list offsets reach {} values, the array has {len}", shape.size())));
    }
    let column = Column::new(values, presence);
    let data = SliceData::from_column(column);
    wrap(py, guard(|| DataSlice::new(shape, data, schema))?)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(shape_offsets, m)?)?;
    m.add_function(wrap_pyfunction!(slice_from_arrow, m)?)?;
    m.add_class::<ArrayView>()?;
    m.add_function(wrap_pyfunction!(numpy_view, m)?)?;
    m.add_function(wrap_pyfunction!(slice_from_buffer, m)?)?;
    Ok(())
}
