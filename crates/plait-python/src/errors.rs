//! The one place where plait errors become Python exceptions.

use std::panic::{AssertUnwindSafe, catch_unwind};

use plait_core::{Error, ErrorKind};
use pyo3::exceptions::{PyIndexError, PyKeyError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::PyAnyMethods;
use pyo3::types::PyTypeMethods;
use pyo3::{PyErr, Python};

/// The Python exception for a plait error: the exception a Python function
/// raised when the error carries one (the same object, with its own notes),
/// else a new one of the type [`ErrorKind`] decides; then the error's
/// context chain as notes, innermost first.
pub fn to_py_err(error: Error) -> PyErr {
    let notes = error.notes();
    let err = match error.host().and_then(|host| host.downcast_ref::<PyErr>()) {
        Some(raised) => Python::attach(|py| raised.clone_ref(py)),
        None => match error.kind {
            ErrorKind::Value => PyValueError::new_err(error.message),
            ErrorKind::Type => PyTypeError::new_err(error.message),
            ErrorKind::Index => PyIndexError::new_err(error.message),
            ErrorKind::Key => PyKeyError::new_err(error.message),
            ErrorKind::Internal => PyRuntimeError::new_err(error.message),
        },
    };
    if !notes.is_empty() {
        Python::attach(|py| {
            let value = err.value(py);
            for note in notes {
                let _ = value.call_method1("add_note", (note,));
            }
        });
    }
    err
}

/// Runs `f`, turning its error into a Python exception and a Rust panic into a
/// `RuntimeError` (so a bug never aborts the interpreter and is catchable with
/// `except Exception`).
pub fn guard<T>(f: impl FnOnce() -> plait_core::Result<T>) -> pyo3::PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result.map_err(to_py_err),
        Err(payload) => {
            let detail = panic_detail(&payload).unwrap_or("unknown panic");
            Err(PyRuntimeError::new_err(format!("internal error in plait (please report it): {detail}")))
        }
    }
}

/// The message a panic carried (`panic!("...")` gives a `&str` or a
/// `String`), if it carried one.
pub fn panic_detail(payload: &(dyn std::any::Any + Send)) -> Option<&str> {
    payload.downcast_ref::<String>().map(String::as_str).or_else(|| payload.downcast_ref::<&str>().copied())
}

/// [`guard`] of work that may wait (for streams, for other threads): the
/// GIL is released while `f` runs, so a thread it waits for may call
/// Python (which takes the GIL back).
pub fn guard_detached<T: Send>(py: pyo3::Python<'_>, f: impl FnOnce() -> plait_core::Result<T> + Send) -> pyo3::PyResult<T> {
    let outcome = py.detach(|| catch_unwind(AssertUnwindSafe(f)).map_err(|payload| panic_detail(&*payload).unwrap_or("unknown panic").to_string()));
    match outcome {
        Ok(result) => result.map_err(to_py_err),
        Err(detail) => Err(PyRuntimeError::new_err(format!("internal error in plait (please report it): {detail}"))),
    }
}

/// A `ValueError` from operator `op`.
pub fn value_error(op: &str, message: impl std::fmt::Display) -> PyErr {
    to_py_err(Error::value(op, message))
}

/// The name of `x`'s Python type as Koda's errors give it: `list`, `int`,
/// or with its module for other than builtins (`plait.types.DataBag`).
pub fn python_type_name(x: &pyo3::Bound<'_, pyo3::PyAny>) -> pyo3::PyResult<String> {
    let ty = x.get_type();
    let (module, name) = (ty.module()?.to_string(), ty.qualname()?.to_string());
    Ok(if module == "builtins" { name } else { format!("{module}.{name}") })
}

/// A `TypeError` from operator `op`.
pub fn type_error(op: &str, message: impl std::fmt::Display) -> PyErr {
    to_py_err(Error::type_error(op, message))
}
