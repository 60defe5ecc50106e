//! `kd.dumps` / `kd.loads`: plait's binary format from Python (the format
//! is `plait-persist`'s); Python's `pickle` and `copy` protocols, which go
//! through it.
//!
//! `pickle.dumps(x)` of a DataSlice, DataBag, JaggedShape or Expr saves `x`
//! in plait's format (a DataSlice with its whole bag, flattened, as Koda
//! pickles it); loading gives a mutable bag back where `x` had one.
//! `copy.copy` / `copy.deepcopy` of a DataSlice or a DataBag give a value
//! whose bag is detached from the original's (`DataBag::detached_copy`,
//! O(1) per layer): writes to either never show in the other. A deep copy of
//! several values sharing one bag gives copies sharing one new bag.

use plait_core::{DataBag, DataSlice};
use plait_persist::Saved;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple};

use crate::errors::guard;
use crate::py_bag::PyDataBag;
use crate::py_expr::PyExpr;
use crate::py_extension::PyObjectValue;
use crate::py_shape::PyJaggedShape;
use crate::py_slice::{PyDataSlice, wrap};

/// The bytes of a DataSlice (with its bag), a DataBag or an Expr;
/// `compression` is "zstd", "lz4" or None.
#[pyfunction]
#[pyo3(signature = (x, compression = Some("zstd")))]
fn dumps<'py>(py: Python<'py>, x: &Bound<'py, PyAny>, compression: Option<&str>) -> PyResult<Bound<'py, PyBytes>> {
    let compression = match compression {
        None => plait_persist::Compression::None,
        Some("zstd") => plait_persist::Compression::Zstd,
        Some("lz4") => plait_persist::Compression::Lz4,
        Some(other) => {
            return Err(crate::errors::value_error("kd.dumps", format!("unknown compression '{other}' (expected 'zstd', 'lz4' or None)")));
        }
    };
    let value = if let Ok(ds) = x.cast::<PyDataSlice>() {
        Saved::Slice(ds.get().inner.clone())
    } else if let Ok(bag) = x.cast::<PyDataBag>() {
        Saved::Bag(bag.get().inner.clone())
    } else if let Ok(e) = x.cast::<PyExpr>() {
        Saved::Expr(e.get().inner.clone())
    } else if let Ok(shape) = x.cast::<PyJaggedShape>() {
        Saved::Shape(shape.borrow().inner.clone())
    } else if let Ok(ext) = x.cast::<PyObjectValue>() {
        Saved::Extension(ext.get().inner.clone())
    } else {
        let message =
            format!("expected a DataSlice, DataBag, JaggedShape, or an extension type derived from DataSlice, got {}", x.get_type().repr()?);
        return Err(crate::errors::value_error("kd.dumps", message));
    };
    let bytes = guard(|| plait_persist::dumps_with(&value, compression))?;
    Ok(PyBytes::new(py, &bytes))
}

/// The value saved in `data`.
#[pyfunction]
fn loads(py: Python<'_>, data: &[u8]) -> PyResult<Py<PyAny>> {
    boxed(py, guard(|| plait_persist::loads(data))?)
}

/// A loaded value as Python's.
fn boxed(py: Python<'_>, value: Saved) -> PyResult<Py<PyAny>> {
    match value {
        Saved::Slice(ds) => wrap(py, ds),
        Saved::Bag(bag) => Ok(Py::new(py, PyDataBag { inner: bag })?.into_any()),
        Saved::Expr(e) => Ok(Py::new(py, PyExpr { inner: e })?.into_any()),
        Saved::Shape(shape) => Ok(Py::new(py, PyJaggedShape { inner: shape })?.into_any()),
        Saved::Extension(v) => crate::py_extension::from_extension_value(py, &v)?
            .ok_or_else(|| crate::errors::value_error("kd.loads", "invalid data: not an extension value")),
    }
}

// ------------------------------------------------------------- pickle, copy

/// What `__reduce__` gives: `(_unpickle, (bytes, mutable))`.
fn reduced<'py>(py: Python<'py>, value: &Saved, mutable: bool) -> PyResult<Bound<'py, PyTuple>> {
    let bytes = guard(|| plait_persist::dumps(value))?;
    let module = py.import("plait._plait")?;
    let args = PyTuple::new(py, [PyBytes::new(py, &bytes).into_any(), mutable.into_pyobject(py)?.to_owned().into_any()])?;
    PyTuple::new(py, [module.getattr("_unpickle")?, args.into_any()])
}

/// Loads what `__reduce__` saved (pickle calls it; not for direct use).
#[pyfunction]
fn _unpickle(py: Python<'_>, data: &[u8], mutable: bool) -> PyResult<Py<PyAny>> {
    // (Pickles of format version 3 and before carry `mutable` beside the
    // bytes; newer bytes say it themselves.)
    let fork = |bag: DataBag| if mutable && !bag.is_mutable() { bag.fork(true) } else { bag };
    let value = match guard(|| plait_persist::loads(data))? {
        Saved::Slice(ds) => {
            let bag = ds.bag().cloned().map(fork);
            Saved::Slice(ds.with_bag(bag))
        }
        Saved::Bag(bag) => Saved::Bag(fork(bag)),
        other => other,
    };
    boxed(py, value)
}

/// Loads a JaggedShape pickled by format version 3 and before (as the
/// shape of a NONE slice).
#[pyfunction]
fn _unpickle_shape(data: &[u8]) -> PyResult<PyJaggedShape> {
    match guard(|| plait_persist::loads(data))? {
        Saved::Slice(ds) => Ok(PyJaggedShape { inner: ds.shape().clone() }),
        Saved::Shape(shape) => Ok(PyJaggedShape { inner: shape }),
        _ => Err(crate::errors::value_error("pickle", "the data of a JaggedShape is not a DataSlice")),
    }
}

/// A deep copy of `bag` shares what `memo` (copy.deepcopy's) already made
/// for the same bag, so values sharing a bag keep sharing one copy.
fn copied_bag(py: Python<'_>, bag: &DataBag, memo: Option<&Bound<'_, PyDict>>) -> PyResult<Py<PyDataBag>> {
    let Some(memo) = memo else { return Py::new(py, PyDataBag { inner: bag.detached_copy() }) };
    let key = ("plait.DataBag", bag.id());
    if let Some(found) = memo.get_item(key)? {
        if let Ok(found) = found.cast_into::<PyDataBag>() {
            return Ok(found.unbind());
        }
    }
    let copy = Py::new(py, PyDataBag { inner: bag.detached_copy() })?;
    memo.set_item(key, copy.clone_ref(py))?;
    Ok(copy)
}

fn copied_slice(py: Python<'_>, ds: &DataSlice, memo: Option<&Bound<'_, PyDict>>) -> PyResult<Py<PyAny>> {
    let bag = match ds.bag() {
        Some(bag) => Some(copied_bag(py, bag, memo)?.get().inner.clone()),
        None => None,
    };
    wrap(py, ds.clone().with_bag(bag))
}

#[pymethods]
impl PyDataSlice {
    /// `pickle`: the slice and its whole bag, in plait's format.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        reduced(py, &Saved::Slice(self.inner.clone()), self.inner.bag().is_some_and(DataBag::is_mutable))
    }

    /// `copy.copy`: the same items with a detached copy of the bag (as in
    /// Koda, writing to one never changes the other).
    fn __copy__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        copied_slice(py, &self.inner, None)
    }

    /// `copy.deepcopy`: as `copy.copy`; values sharing a bag share its copy.
    fn __deepcopy__(&self, py: Python<'_>, memo: Option<&Bound<'_, PyDict>>) -> PyResult<Py<PyAny>> {
        copied_slice(py, &self.inner, memo)
    }
}

#[pymethods]
impl PyDataBag {
    /// `pickle`: the bag (flattened) in plait's format; mutable again when loaded if it was.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        reduced(py, &Saved::Bag(self.inner.clone()), self.inner.is_mutable())
    }

    /// `copy.copy`: a detached copy (writes to one never show in the other).
    fn __copy__(&self, py: Python<'_>) -> PyResult<Py<PyDataBag>> {
        copied_bag(py, &self.inner, None)
    }

    /// `copy.deepcopy`: as `copy.copy`, once per bag within one deep copy.
    fn __deepcopy__(&self, py: Python<'_>, memo: Option<&Bound<'_, PyDict>>) -> PyResult<Py<PyDataBag>> {
        copied_bag(py, &self.inner, memo)
    }
}

#[pymethods]
impl PyJaggedShape {
    /// `pickle`: the shape in plait's format.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        reduced(py, &Saved::Shape(self.inner.clone()), false)
    }

    /// Shapes are immutable: a copy is the same shape.
    fn __copy__(&self) -> PyJaggedShape {
        PyJaggedShape { inner: self.inner.clone() }
    }

    fn __deepcopy__(&self, _memo: Option<&Bound<'_, PyAny>>) -> PyJaggedShape {
        PyJaggedShape { inner: self.inner.clone() }
    }
}

#[pymethods]
impl PyExpr {
    /// `pickle` (and so `copy`): the expression in plait's format (Python-function operators are refused).
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        reduced(py, &Saved::Expr(self.inner.clone()), false)
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(dumps, m)?)?;
    m.add_function(wrap_pyfunction!(loads, m)?)?;
    m.add_function(wrap_pyfunction!(_unpickle, m)?)?;
    m.add_function(wrap_pyfunction!(_unpickle_shape, m)?)?;
    Ok(())
}
