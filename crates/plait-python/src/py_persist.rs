//! `kd.dumps` / `kd.loads`: plait's binary format from Python (the format
//! is `plait-persist`'s).

use plait_persist::Saved;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::errors::{guard, type_error};
use crate::py_bag::PyDataBag;
use crate::py_expr::PyExpr;
use crate::py_slice::{PyDataSlice, wrap};

/// The bytes of a DataSlice (with its bag), a DataBag or an Expr;
/// `compression` is None or "lz4".
#[pyfunction]
#[pyo3(signature = (x, compression = None))]
fn dumps<'py>(py: Python<'py>, x: &Bound<'py, PyAny>, compression: Option<&str>) -> PyResult<Bound<'py, PyBytes>> {
    let compression = match compression {
        None => plait_persist::Compression::None,
        Some("lz4") => plait_persist::Compression::Lz4,
        Some(other) => {
            return Err(crate::errors::value_error("kd.dumps", format!("unknown compression '{other}' (expected None or 'lz4')")));
        }
    };
    let value = if let Ok(ds) = x.cast::<PyDataSlice>() {
        Saved::Slice(ds.get().inner.clone())
    } else if let Ok(bag) = x.cast::<PyDataBag>() {
        Saved::Bag(bag.get().inner.clone())
    } else if let Ok(e) = x.cast::<PyExpr>() {
        Saved::Expr(e.get().inner.clone())
    } else {
        return Err(type_error("kd.dumps", format!("expected a DataSlice, a DataBag or an Expr, got {}", x.get_type().name()?)));
    };
    let bytes = guard(|| plait_persist::dumps_with(&value, compression))?;
    Ok(PyBytes::new(py, &bytes))
}

/// The value saved in `data`.
#[pyfunction]
fn loads(py: Python<'_>, data: &[u8]) -> PyResult<Py<PyAny>> {
    match guard(|| plait_persist::loads(data))? {
        Saved::Slice(ds) => wrap(py, ds),
        Saved::Bag(bag) => Ok(Py::new(py, PyDataBag { inner: bag })?.into_any()),
        Saved::Expr(e) => Ok(Py::new(py, PyExpr { inner: e })?.into_any()),
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(dumps, m)?)?;
    m.add_function(wrap_pyfunction!(loads, m)?)?;
    Ok(())
}
