//! The per-value work of `kd.from_py`'s level walk (`plait/kd/from_py.py`),
//! done here so that a level of a million Python values costs one call:
//! the rows of the dicts or lists of a level, and whether a level holds only
//! primitives.

use arrow_buffer::{BooleanBufferBuilder, NullBuffer};
use plait_core::column::{Column, SliceData, Values};
use plait_core::{DataSlice, Edge, JaggedShape, Schema};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

use crate::errors::guard;
use crate::py_shape::PyJaggedShape;
use crate::py_slice::wrap;

/// The rows of a level of `values`, each a Python dict (`dicts=True`) or a
/// list or tuple, or None: which are present (a MASK slice, or None when
/// all are), the shape of the rows (one row per value, a missing value an
/// empty row), and the children, in order: the keys and the values of the
/// dicts, or the items of the lists. A value of another type raises
/// `ValueError(mismatch)`.
#[pyfunction]
#[allow(clippy::type_complexity)]
fn from_py_rows<'py>(
    py: Python<'py>,
    values: &Bound<'py, PyList>,
    dicts: bool,
    mismatch: &str,
) -> PyResult<(Option<Py<PyAny>>, Py<PyJaggedShape>, Bound<'py, PyList>, Option<Bound<'py, PyList>>)> {
    let n = values.len();
    let mut sizes = Vec::with_capacity(n);
    let mut present = BooleanBufferBuilder::new(n);
    let mut missing = 0usize;
    // Pass 1: the type and the size of each value.
    for value in values.iter() {
        let size = if value.is_none() {
            missing += 1;
            present.append(false);
            0
        } else {
            present.append(true);
            if dicts {
                // (Exactly dicts, as Koda: not OrderedDict and the like.)
                value.cast_exact::<PyDict>().map_err(|_| PyValueError::new_err(mismatch.to_string()))?.len()
            } else if let Ok(list) = value.cast::<PyList>() {
                list.len()
            } else {
                value.cast::<PyTuple>().map_err(|_| PyValueError::new_err(mismatch.to_string()))?.len()
            }
        };
        sizes.push(size as i64);
    }
    let shape = guard(|| JaggedShape::from_edges(vec![Edge::uniform(1, n), Edge::from_sizes(&sizes)?]))?;
    let total = shape.size();
    // Pass 2: the children, each list made at its final size and filled in
    // place (no Python code runs in between, so no value changed size).
    let first = new_list(py, total)?;
    let second = if dicts { Some(new_list(py, total)?) } else { None };
    let mut at = 0usize;
    for value in values.iter() {
        if value.is_none() {
            continue;
        }
        if let Some(second) = &second {
            let dict = value.cast_exact::<PyDict>()?;
            for (k, v) in dict.iter() {
                put(&first, at, k)?;
                put(second, at, v)?;
                at += 1;
            }
        } else if let Ok(list) = value.cast::<PyList>() {
            for item in list.iter() {
                put(&first, at, item)?;
                at += 1;
            }
        } else {
            for item in value.cast::<PyTuple>()?.iter() {
                put(&first, at, item)?;
                at += 1;
            }
        }
    }
    if at != total {
        return Err(PyRuntimeError::new_err("kd.from_py: a dict or list changed size while it was read"));
    }
    let mask = if missing == 0 {
        None
    } else {
        let column = Column::new(Values::Mask(n), Some(NullBuffer::new(present.finish())));
        let data = SliceData::from_column(column);
        Some(wrap(py, guard(|| DataSlice::new(JaggedShape::flat(n), data, Schema::Mask))?)?)
    };
    Ok((mask, Py::new(py, PyJaggedShape { inner: shape })?, first, second))
}

/// A list of `len` empty places (filled by [`put`]).
fn new_list(py: Python<'_>, len: usize) -> PyResult<Bound<'_, PyList>> {
    let len = ffi::Py_ssize_t::try_from(len).map_err(|_| PyValueError::new_err("kd.from_py: too many values"))?;
    // SAFETY: PyList_New returns a new reference (or NULL with an exception
    // set, which from_owned_ptr_or_err turns into the error); its places are
    // NULL until put, and a list with NULL places is safe to drop.
    unsafe { Ok(Bound::from_owned_ptr_or_err(py, ffi::PyList_New(len))?.cast_into_unchecked()) }
}

/// Puts `item` at place `at` of a list made by [`new_list`] (a place past
/// its end raises IndexError instead of writing).
fn put(list: &Bound<'_, PyList>, at: usize, item: Bound<'_, PyAny>) -> PyResult<()> {
    // SAFETY: PyList_SetItem checks `at` against the list's length (and
    // raises past it); it steals the reference `into_ptr` gives up, and
    // releases the (NULL) item it replaces.
    let status = unsafe { ffi::PyList_SetItem(list.as_ptr(), at as ffi::Py_ssize_t, item.into_ptr()) };
    if status != 0 {
        return Err(PyErr::fetch(list.py()));
    }
    Ok(())
}

/// Whether every one of `values` is None or exactly a bool, int, float,
/// str or bytes (not a subclass: those take the general path).
#[pyfunction]
fn from_py_only_primitives(values: &Bound<'_, PyList>) -> bool {
    values.iter().all(|v| crate::from_py_plain::is_primitive_type(&v))
}

/// `n` new objects, each with only its own attributes (dicts with differing
/// keys, `dict_as_obj=True`): entry `k` sets attribute `names[k]` of object
/// `rows[k]` to item `k` of `values`, the entries' values converted as one
/// level. One call for the whole level, however many key sets it has.
#[pyfunction]
fn objects_with_attrs_at(
    py: Python<'_>,
    n: usize,
    rows: Vec<usize>,
    names: Vec<String>,
    values: PyRef<'_, crate::py_slice::PyDataSlice>,
) -> PyResult<Py<PyAny>> {
    let values = values.inner.clone();
    wrap(py, guard(|| plait_ops::objects::create::objects_with_attrs_at(n, &rows, &names, &values))?)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(from_py_rows, m)?)?;
    m.add_function(wrap_pyfunction!(objects_with_attrs_at, m)?)?;
    m.add_function(wrap_pyfunction!(from_py_only_primitives, m)?)?;
    Ok(())
}
