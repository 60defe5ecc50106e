//! Operators as DataSlice methods (`ds.get_keys()` is `kd.get_keys(ds)`)
//! without a Python function in between: [`OperatorMethod`] is the class
//! attribute, and reading it from a slice gives a [`BoundOperator`] that
//! calls the operator's kernel with the slice first.
//!
//! (Operators themselves do not bind: like Koda's, an operator kept as an
//! attribute of a user's class stays the operator.)

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::py_operator::Operator;

/// An operator as a method: read from an instance, it is bound to it.
#[pyclass(module = "plait.types", frozen, dict)]
pub struct OperatorMethod {
    op: Py<Operator>,
}

#[pymethods]
impl OperatorMethod {
    #[new]
    fn new(op: Py<Operator>) -> Self {
        OperatorMethod { op }
    }

    fn __get__(slf: &Bound<'_, Self>, obj: &Bound<'_, PyAny>, _owner: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        if obj.is_none() {
            return Ok(slf.clone().into_any().unbind());
        }
        let bound = BoundOperator { method: slf.clone().unbind(), this: obj.clone().unbind() };
        Ok(Py::new(slf.py(), bound)?.into_any())
    }

    /// Calls the operator with all arguments as given (`DataSlice.get_keys(ds)`).
    #[pyo3(signature = (*args, **kwargs))]
    fn __call__(&self, py: Python<'_>, args: &Bound<'_, PyTuple>, kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Py<PyAny>> {
        self.op.get().__call__(py, args, kwargs)
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        Ok(format!("<method {}>", slf.getattr("__qualname__")?))
    }

    /// The operator this method calls.
    #[getter]
    fn __func__(&self, py: Python<'_>) -> Py<Operator> {
        self.op.clone_ref(py)
    }
}

// An [`OperatorMethod`] read from a slice: calling it calls the operator
// with the slice as its first argument. (No doc comment: `__doc__` is the
// operator's.)
#[pyclass(module = "plait.types", frozen)]
pub struct BoundOperator {
    method: Py<OperatorMethod>,
    this: Py<PyAny>,
}

#[pymethods]
impl BoundOperator {
    #[pyo3(signature = (*args, **kwargs))]
    fn __call__(&self, py: Python<'_>, args: &Bound<'_, PyTuple>, kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Py<PyAny>> {
        let mut all = Vec::with_capacity(args.len() + 1);
        all.push(self.this.bind(py).clone());
        all.extend(args.iter());
        let all = PyTuple::new(py, all)?;
        self.method.get().op.get().__call__(py, &all, kwargs)
    }

    /// The slice the method is bound to.
    #[getter]
    fn __self__(&self, py: Python<'_>) -> Py<PyAny> {
        self.this.clone_ref(py)
    }

    #[getter]
    fn __doc__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(self.method.bind(py).getattr("__doc__")?.unbind())
    }

    /// The method's (the operator's) name, docstring and signature.
    fn __getattr__(&self, py: Python<'_>, name: &str) -> PyResult<Py<PyAny>> {
        Ok(self.method.bind(py).getattr(name)?.unbind())
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let name = self.method.bind(py).getattr("__name__")?;
        Ok(format!("<bound method {name} of {}>", self.this.bind(py).repr()?))
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<OperatorMethod>()?;
    m.add_class::<BoundOperator>()
}
