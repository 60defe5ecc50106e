//! Module-level functions of `plait._plait`. Each takes the Koda operator name
//! it is exposed under where several `kd` names share it, so errors name the
//! function the user called.

use plait_core::{DataSlice, ScalarRef, Schema};
use pyo3::prelude::*;

use crate::boxing::{box_item, box_slice, box_with_schema, is_sequence_subclass, unsupported_type};
use crate::errors::{guard, type_error, value_error};
use crate::py_slice::{PyDataSlice, schema_item, wrap};

/// The schema argument of `kd.slice` / `kd.item`: a schema DataItem, or
/// None.
fn optional_schema<'a>(op: &str, schema: Option<&'a Bound<'_, PyAny>>) -> PyResult<Option<PyRef<'a, PyDataSlice>>> {
    match schema {
        Some(s) if !s.is_none() => match s.cast::<PyDataSlice>() {
            Ok(ds) => Ok(Some(ds.borrow())),
            Err(_) => Err(type_error(op, format!("expecting schema to be a DataSlice, got {}", s.get_type().name()?))),
        },
        _ => Ok(None),
    }
}

/// `kd.slice(x, schema=None)`.
#[pyfunction]
#[pyo3(signature = (x, /, schema=None))]
pub(crate) fn slice(py: Python<'_>, x: &Bound<'_, PyAny>, schema: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
    if is_sequence_subclass(x) {
        return Err(unsupported_type("kd.slice", x));
    }
    match optional_schema("kd.slice", schema)? {
        Some(schema) => wrap(py, box_with_schema("kd.slice", x, &schema.inner, false)?),
        None => wrap(py, box_slice("kd.slice", x, None)?),
    }
}

/// `kd.item(x, schema=None)`.
#[pyfunction]
#[pyo3(signature = (x, /, schema=None))]
pub(crate) fn item(py: Python<'_>, x: &Bound<'_, PyAny>, schema: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
    if is_sequence_subclass(x) {
        return Err(unsupported_type("kd.item", x));
    }
    match optional_schema("kd.item", schema)? {
        Some(schema) => wrap(py, box_with_schema("kd.item", x, &schema.inner, true)?),
        None => wrap(py, box_item("kd.item", x, None)?),
    }
}

/// Raises Koda's unsupported-type error for a list, tuple or dict of a
/// subclass given to `op` (Koda makes Koda lists and dicts of exact ones
/// only; the Python glue of `kd.obj`, `kd.new`, `kd.list` asks).
#[pyfunction]
fn refuse_container_subclass(op: &str, x: &Bound<'_, PyAny>) -> PyResult<()> {
    if is_sequence_subclass(x) || (x.is_instance_of::<pyo3::types::PyDict>() && !x.is_exact_instance_of::<pyo3::types::PyDict>()) {
        return Err(unsupported_type(op, x));
    }
    Ok(())
}

/// Python lists `rows` (of no lists or dicts) as one 2-D DataSlice, each row
/// boxed as `kd.slice` boxes it, when every row gets the same schema; None
/// when they do not (Koda makes a list per row, and lists of different item
/// schemas do not go together: the caller makes them one by one and gets
/// Koda's error). For the Python glue converting many small lists at once.
#[pyfunction]
fn slice_of_rows(py: Python<'_>, op: &str, rows: &Bound<'_, pyo3::types::PyList>) -> PyResult<Option<Py<PyAny>>> {
    let mut schema = None;
    for row in rows.iter() {
        let row_schema = box_slice(op, &row, None)?.schema();
        if schema.is_some_and(|s| s != row_schema) {
            return Ok(None);
        }
        schema = Some(row_schema);
    }
    wrap(py, box_slice(op, rows.as_any(), schema)?).map(Some)
}

/// A schema constant by name (`INT32`, ...).
#[pyfunction]
fn schema_constant(py: Python<'_>, name: &str) -> PyResult<Py<PyAny>> {
    let schema = Schema::from_name(name).ok_or_else(|| value_error("kd.schema", format!("unknown schema {name}")))?;
    schema_item(py, schema)
}

/// `kd.present` / `kd.missing`.
#[pyfunction]
pub fn mask_item(py: Python<'_>, present: bool) -> PyResult<Py<PyAny>> {
    wrap(py, guard(|| DataSlice::item(present.then_some(ScalarRef::Mask), Schema::Mask))?)
}

/// Raises a Rust panic, to test that a bug surfaces as a Python exception.
#[pyfunction]
fn _debug_panic() -> PyResult<()> {
    guard(|| -> plait_core::Result<()> { panic!("deliberate panic for testing") })
}

/// Adds the functions to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(slice, m)?)?;
    m.add_function(wrap_pyfunction!(item, m)?)?;
    m.add_function(wrap_pyfunction!(schema_constant, m)?)?;
    m.add_function(wrap_pyfunction!(refuse_container_subclass, m)?)?;
    m.add_function(wrap_pyfunction!(slice_of_rows, m)?)?;
    m.add_function(wrap_pyfunction!(crate::boxing::type_name, m)?)?;
    m.add_function(wrap_pyfunction!(mask_item, m)?)?;
    m.add_function(wrap_pyfunction!(_debug_panic, m)?)?;
    Ok(())
}
