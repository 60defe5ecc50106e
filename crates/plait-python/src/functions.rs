//! Module-level functions of `plait._plait`. Each takes the Koda operator name
//! it is exposed under where several `kd` names share it, so errors name the
//! function the user called.

use plait_core::subslice::subslice as subslice_core;
use plait_core::{DataSlice, ScalarRef, Schema};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::boxing::{box_item, box_slice};
use crate::errors::{guard, value_error};
use crate::py_slice::{schema_arg, schema_item, slice_args, wrap};

fn optional_schema(op: &str, schema: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Schema>> {
    match schema {
        Some(s) if !s.is_none() => Ok(Some(schema_arg(op, "schema", s)?)),
        _ => Ok(None),
    }
}

/// `kd.slice(x, schema=None)`.
#[pyfunction]
#[pyo3(signature = (x, /, schema=None))]
fn slice(py: Python<'_>, x: &Bound<'_, PyAny>, schema: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
    let schema = optional_schema("kd.slice", schema)?;
    wrap(py, box_slice("kd.slice", x, schema)?)
}

/// `kd.item(x, schema=None)`.
#[pyfunction]
#[pyo3(signature = (x, /, schema=None))]
fn item(py: Python<'_>, x: &Bound<'_, PyAny>, schema: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
    let schema = optional_schema("kd.item", schema)?;
    wrap(py, box_item("kd.item", x, schema)?)
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

/// Returns the items of x chosen by one slicing argument per dimension.
///
/// Each argument applies to one dimension of x: an integer takes one item (and
/// removes the dimension; negative counts from the end, out of range gives
/// missing), a DataSlice of integers takes several, and a Python slice takes a
/// range. An Ellipsis (`...`) stands for all the dimensions not given; without
/// one, the arguments apply to the last dimensions. `x.S[...]` is the same.
///
/// Args:
///   x: the DataSlice to slice.
///   *slices: the slicing arguments, at most one per dimension of x.
///
/// Examples:
///   >>> x = kd.slice([[1, 2, 3], [4, 5]])
///   >>> kd.subslice(x, -1)
///   DataSlice([3, 5], schema: INT32, present: 2/2)
///   >>> kd.subslice(x, 1, ...)
///   DataSlice([4, 5], schema: INT32, present: 2/2)
///   >>> kd.subslice(x, slice(1, None))
///   DataSlice([[2, 3], [5]], schema: INT32, present: 3/3)
///   >>> kd.subslice(x, kd.slice([[0, 2], [1]]))
///   DataSlice([[1, 3], [5]], schema: INT32, present: 3/3)
#[pyfunction]
#[pyo3(signature = (x, *slices))]
fn subslice(py: Python<'_>, x: &Bound<'_, PyAny>, slices: &Bound<'_, PyTuple>) -> PyResult<Py<PyAny>> {
    let op = "kd.slices.subslice";
    let x = box_slice(op, x, None)?;
    let keys: Vec<Bound<'_, PyAny>> = slices.iter().collect();
    let args = slice_args(op, &keys)?;
    wrap(py, guard(|| subslice_core(&x, &args))?)
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
    m.add_function(wrap_pyfunction!(mask_item, m)?)?;
    m.add_function(wrap_pyfunction!(subslice, m)?)?;
    m.add_function(wrap_pyfunction!(_debug_panic, m)?)?;
    Ok(())
}
