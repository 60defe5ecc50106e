//! The one place where plait errors become Python exceptions.

use std::panic::{AssertUnwindSafe, catch_unwind};

use plait_core::{Error, ErrorKind};
use pyo3::PyErr;
use pyo3::exceptions::{PyIndexError, PyKeyError, PyRuntimeError, PyTypeError, PyValueError};

/// The Python exception for a plait error.
pub fn to_py_err(error: Error) -> PyErr {
    match error.kind {
        ErrorKind::Value => PyValueError::new_err(error.message),
        ErrorKind::Type => PyTypeError::new_err(error.message),
        ErrorKind::Index => PyIndexError::new_err(error.message),
        ErrorKind::Key => PyKeyError::new_err(error.message),
        ErrorKind::Internal => PyRuntimeError::new_err(error.message),
    }
}

/// Runs `f`, turning its error into a Python exception and a Rust panic into a
/// `RuntimeError` (so a bug never aborts the interpreter and is catchable with
/// `except Exception`).
pub fn guard<T>(f: impl FnOnce() -> plait_core::Result<T>) -> pyo3::PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result.map_err(to_py_err),
        Err(payload) => {
            let detail =
                payload.downcast_ref::<String>().map(String::as_str).or_else(|| payload.downcast_ref::<&str>().copied()).unwrap_or("unknown panic");
            Err(PyRuntimeError::new_err(format!("internal error in plait (please report it): {detail}")))
        }
    }
}

/// A `ValueError` from operator `op`.
pub fn value_error(op: &str, message: impl std::fmt::Display) -> PyErr {
    to_py_err(Error::value(op, message))
}

/// A `TypeError` from operator `op`.
pub fn type_error(op: &str, message: impl std::fmt::Display) -> PyErr {
    to_py_err(Error::type_error(op, message))
}
