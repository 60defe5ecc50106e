//! Arrow interop (`kd_ext.arrow`), below the Python module: a flat slice's
//! column as Arrow buffers (views, not copies), the shape's split points as
//! offsets, and slices over pyarrow's buffers. Structs, lists, maps and
//! unions are assembled in Python from these.
//!
//! plait's data is immutable, so a buffer is used in place only when
//! pyarrow says its memory cannot be written (`is_mutable` false: bytes,
//! IPC and memory-mapped reads, read-only numpy arrays, plait's own
//! exports). A mutable one is copied: it may wrap a numpy array the user
//! goes on writing (`pa.array(np_array)` shares its memory), or be written
//! through `memoryview(buffer)`.

use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer, ScalarBuffer};
use plait_core::column::VarBinary;
use plait_core::column::packed_bits;
use plait_core::{Column, DataSlice, Edge, JaggedShape, Schema, SliceData, Values};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::errors::{guard, value_error};
use crate::py_numpy::ArrayView;
use crate::py_slice::{PyDataSlice, wrap};

const FROM_ARROW: &str = "kd_ext.arrow.from_arrow";

/// An Arrow type's name, its data buffers, and a presence bitmap.
type ArrowLeaf<'py> = (&'static str, Vec<ArrayView>, Option<Bound<'py, PyBytes>>);

/// The Arrow layout of `ds`'s values when they are one column of a primitive
/// type: the Arrow type's name ("int32", "int64", "float", "double", "bool",
/// "large_string", "large_binary", or "mask" for MASK, which has no
/// payload), its buffers after the validity bitmap (views; booleans are
/// repacked from bit 0), and the presence bitmap when an item is missing.
/// None when the values are not one such column (mixed, or ids).
#[pyfunction]
fn arrow_leaf<'py>(py: Python<'py>, ds: PyRef<'_, PyDataSlice>) -> Option<ArrowLeaf<'py>> {
    leaf_of(py, &ds.inner)
}

fn leaf_of<'py>(py: Python<'py>, ds: &DataSlice) -> Option<ArrowLeaf<'py>> {
    let [Column { values, presence }] = ds.data().columns() else { return None };
    let (kind, buffers) = match values {
        Values::Int32(v) => ("int32", vec![ArrayView::of(v)]),
        Values::Int64(v) => ("int64", vec![ArrayView::of(v)]),
        Values::Float32(v) => ("float", vec![ArrayView::of(v)]),
        Values::Float64(v) => ("double", vec![ArrayView::of(v)]),
        Values::Boolean(bits) => ("bool", vec![ArrayView::bytes(Buffer::from(packed_bits(bits).into_owned()))]),
        Values::Mask(_) => ("mask", vec![]),
        Values::String(text) => ("large_string", vec![ArrayView::of(text.offsets.inner()), ArrayView::bytes(text.data.clone())]),
        Values::Bytes(text) => ("large_binary", vec![ArrayView::of(text.offsets.inner()), ArrayView::bytes(text.data.clone())]),
        Values::Schema(_) | Values::ItemId(_) | Values::Expr(_) => return None,
    };
    let presence = presence.as_ref().map(|p| PyBytes::new(py, &packed_bits(p.inner())));
    Some((kind, buffers, presence))
}

/// Everything `to_arrow` needs of a slice whose schema is a primitive one
/// (or MASK or NONE), in one call: the schema's name, the item count, the
/// leaf (as [`arrow_leaf`]; None when no item is present) and the shape's
/// offsets (as [`shape_offsets`]). None for other schemas.
#[pyfunction]
fn arrow_primitive<'py>(py: Python<'py>, ds: PyRef<'_, PyDataSlice>) -> Option<(String, usize, Option<ArrowLeaf<'py>>, Vec<ArrayView>)> {
    let schema = ds.inner.schema();
    if !(schema.is_primitive() || matches!(schema, Schema::Mask | Schema::None)) {
        return None;
    }
    let leaf = if ds.inner.data().columns().is_empty() { None } else { Some(leaf_of(py, &ds.inner)?) };
    let offsets = ds.inner.shape().edges().iter().map(|e| ArrayView::of(e.split_points().inner())).collect();
    Some((schema.to_string(), ds.inner.size(), leaf, offsets))
}

/// Views of the split points of each dimension of `ds`'s shape (int64;
/// uniform dimensions are written out, split points are shared).
#[pyfunction]
fn shape_offsets(ds: PyRef<'_, PyDataSlice>) -> Vec<ArrayView> {
    ds.inner.shape().edges().iter().map(|e| ArrayView::of(e.split_points().inner())).collect()
}

/// Keeps a Python buffer object (an immutable pyarrow Buffer) alive while
/// plait reads its memory.
struct PythonOwner {
    _buffer: std::panic::AssertUnwindSafe<Py<PyAny>>,
}

/// Whether the memory of pyarrow Buffer `buf` can be written. pyarrow marks
/// a slice of a buffer immutable even when its parent is writable (a sliced
/// or cast array shares its parent's validity bitmap that way), so the
/// parents are asked too.
fn writable(buf: &Bound<'_, PyAny>) -> PyResult<bool> {
    let mut buf = buf.clone();
    loop {
        if buf.getattr("is_mutable")?.extract::<bool>()? {
            return Ok(true);
        }
        let parent = buf.getattr("parent")?;
        if parent.is_none() {
            return Ok(false);
        }
        buf = parent;
    }
}

/// A buffer with the memory of pyarrow Buffer `buf`: the memory itself
/// when pyarrow marks it immutable, else a copy (see the module docs).
fn foreign_buffer(buf: &Bound<'_, PyAny>) -> PyResult<Buffer> {
    let address: usize = buf.getattr("address")?.extract()?;
    let size: usize = buf.getattr("size")?.extract()?;
    let mutable = writable(buf)?;
    if size > isize::MAX as usize || (address == 0 && size > 0) {
        return Err(value_error(FROM_ARROW, format!("an Arrow buffer of {size} bytes at address {address:#x}")));
    }
    let ptr = std::ptr::NonNull::new(address as *mut u8).unwrap_or(std::ptr::NonNull::dangling());
    if mutable {
        // SAFETY: a pyarrow Buffer's memory is valid for `size` bytes while
        // the Buffer lives (`buf` holds it) and the GIL is held, so no
        // Python code writes it during the copy.
        let bytes = unsafe { std::slice::from_raw_parts(ptr.as_ptr(), size) };
        return Ok(plait_core::alloc::copy_bytes(bytes));
    }
    let owner = std::sync::Arc::new(PythonOwner { _buffer: std::panic::AssertUnwindSafe(buf.clone().unbind()) });
    // SAFETY: an immutable pyarrow Buffer's memory is valid for `size` bytes
    // and does not change while the Buffer object lives, which `owner` ensures.
    Ok(unsafe { Buffer::from_custom_allocation(ptr, size, owner) })
}

/// `len` values of type T from value `offset` of `buffer`, checked to lie
/// inside it and to be aligned.
fn typed<T: arrow_buffer::ArrowNativeType>(buffer: Buffer, offset: usize, len: usize) -> PyResult<ScalarBuffer<T>> {
    let size = std::mem::size_of::<T>();
    let end = offset.checked_add(len).and_then(|n| n.checked_mul(size));
    if end.is_none_or(|end| end > buffer.len()) || buffer.as_ptr().align_offset(std::mem::align_of::<T>()) != 0 {
        return Err(value_error(FROM_ARROW, "an Arrow buffer shorter than its array, or misaligned"));
    }
    Ok(ScalarBuffer::new(buffer, offset, len))
}

/// `len` bits from bit `offset` of `buffer`, checked to lie inside it.
fn bits(buffer: Buffer, offset: usize, len: usize, what: &str) -> PyResult<BooleanBuffer> {
    if offset.checked_add(len).is_none_or(|end| end.div_ceil(8) > buffer.len()) {
        return Err(value_error(FROM_ARROW, format!("{what} shorter than its array")));
    }
    Ok(BooleanBuffer::new(buffer, offset, len))
}

/// A one-dimensional DataSlice over the buffers of a primitive Arrow array,
/// without copying: `buffers` are the array's pyarrow Buffers after the
/// validity bitmap (values; or offsets and data for "large_string" /
/// "large_binary", whose offsets are int64), `len` items from item `offset`,
/// and `validity` the validity bitmap Buffer (None when all are valid).
#[pyfunction]
#[pyo3(signature = (dtype, buffers, offset, len, validity))]
fn slice_from_arrow(
    py: Python<'_>,
    dtype: &str,
    buffers: Vec<Bound<'_, PyAny>>,
    offset: usize,
    len: usize,
    validity: Option<Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let expected = if matches!(dtype, "large_string" | "large_binary") { 2 } else { 1 };
    if buffers.len() != expected {
        return Err(value_error(FROM_ARROW, format!("an Arrow {dtype} array has {expected} data buffers, got {}", buffers.len())));
    }
    let buffer = foreign_buffer(&buffers[0])?;
    let (values, schema) = match dtype {
        "int32" => (Values::Int32(typed(buffer, offset, len)?), Schema::Int32),
        "int64" => (Values::Int64(typed(buffer, offset, len)?), Schema::Int64),
        "float" => (Values::Float32(typed(buffer, offset, len)?), Schema::Float32),
        "double" => (Values::Float64(typed(buffer, offset, len)?), Schema::Float64),
        "bool" => (Values::Boolean(bits(buffer, offset, len, "a boolean values buffer")?), Schema::Boolean),
        "large_string" | "large_binary" => {
            let offsets = typed::<i64>(buffer, offset, len + 1)?;
            let utf8 = dtype == "large_string";
            let text = VarBinary::checked(offsets, foreign_buffer(&buffers[1])?, utf8).map_err(|e| value_error(FROM_ARROW, e))?;
            if utf8 { (Values::String(text), Schema::String) } else { (Values::Bytes(text), Schema::Bytes) }
        }
        other => return Err(value_error(FROM_ARROW, format!("values of Arrow type {other} are not supported"))),
    };
    let presence = match validity {
        None => None,
        Some(buf) => Some(NullBuffer::new(bits(foreign_buffer(&buf)?, offset, len, "a validity bitmap")?)),
    };
    let shape = guard(|| JaggedShape::from_edges(vec![Edge::uniform(1, len)]))?;
    let data = SliceData::from_column(Column::new(values, presence));
    wrap(py, guard(|| DataSlice::new(shape, data, schema))?)
}

/// `flat` (one dimension) given the dimensions of Arrow list `levels`, outermost
/// first: each an int64 offsets Buffer, from 0, with one offset per
/// parent plus one. The offsets become split points without copying.
#[pyfunction]
fn with_arrow_offsets(py: Python<'_>, flat: PyRef<'_, PyDataSlice>, levels: Vec<(Bound<'_, PyAny>, usize)>) -> PyResult<Py<PyAny>> {
    let len = flat.inner.shape().size();
    let mut edges = vec![Edge::uniform(1, levels.first().map_or(len, |(_, parents)| *parents))];
    for (buffer, parents) in &levels {
        let points = typed::<i64>(foreign_buffer(buffer)?, 0, parents + 1)?;
        // Checked before they index anything: from 0 and not decreasing (the
        // caller checked the last against the values).
        let edge = Edge::from_offsets(points).map_err(|_| value_error(FROM_ARROW, "list offsets that do not start at 0 or decrease"))?;
        edges.push(edge);
    }
    let shape = guard(|| JaggedShape::from_edges(edges))?;
    if shape.size() != len {
        return Err(value_error(FROM_ARROW, format!("the list offsets reach {} values, the array has {len}", shape.size())));
    }
    let ds = &flat.inner;
    wrap(py, guard(|| DataSlice::new(shape, ds.data().clone(), ds.schema()))?)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(arrow_leaf, m)?)?;
    m.add_function(wrap_pyfunction!(arrow_primitive, m)?)?;
    m.add_function(wrap_pyfunction!(shape_offsets, m)?)?;
    m.add_function(wrap_pyfunction!(slice_from_arrow, m)?)?;
    m.add_function(wrap_pyfunction!(with_arrow_offsets, m)?)?;
    Ok(())
}
