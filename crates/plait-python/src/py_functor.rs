//! Functors from Python: `kd.call(fn, ...)`, `fn(...)` on a functor item, and
//! `kd.is_fn`. Compiling and evaluating are `plait_expr::functor`'s.

use plait_expr::ExprValue;
use plait_expr::functor;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::errors::{guard, type_error, value_error};
use crate::py_expr::{eval_failure, from_value, is_tracing, lazy_call, to_value};
use crate::py_slice::{PyDataItem, PyDataSlice};

/// Calls functor `f` with Python arguments (`kd.call`); `return_type_as=`
/// is accepted and not used.
pub fn call_functor(py: Python<'_>, f: &PyDataSlice, args: &Bound<'_, PyTuple>, kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Py<PyAny>> {
    let op = "kd.functor.call";
    let positional = args.iter().map(|a| to_value(op, &a, false)).collect::<PyResult<Vec<ExprValue>>>()?;
    let mut keywords = Vec::new();
    if let Some(kwargs) = kwargs {
        for (k, v) in kwargs.iter() {
            let name = k.extract::<String>()?;
            // Koda's type declaration of the result: plait's results carry
            // their own type.
            if name != "return_type_as" {
                keywords.push((name, to_value(op, &v, false)?));
            }
        }
    }
    let f = f.inner.clone();
    match crate::errors::guard_detached(py, move || Ok(functor::call(&f, positional, keywords)))? {
        Ok(value) => from_value(py, value),
        Err(failure) => Err(eval_failure(py, failure)),
    }
}

/// `kd.call(fn, *args, return_type_as=None, **kwargs)`: builds the call
/// inside tracing.
#[pyfunction]
#[pyo3(signature = (f, *args, **kwargs))]
fn functor_call(py: Python<'_>, f: &Bound<'_, PyAny>, args: &Bound<'_, PyTuple>, kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Py<PyAny>> {
    if is_tracing() || f.is_instance_of::<crate::py_expr::PyExpr>() {
        return lazy_functor_call(py, f, args, kwargs);
    }
    match f.cast::<PyDataSlice>() {
        Ok(f) => call_functor(py, f.get(), args, kwargs),
        Err(_) => Err(type_error("kd.functor.call", format!("the first argument of kd.call must be a functor, got {}", f.get_type().name()?))),
    }
}

/// A `kd.functor.call` node calling `f` (a functor, or an expression of one).
fn lazy_functor_call(py: Python<'_>, f: &Bound<'_, PyAny>, args: &Bound<'_, PyTuple>, kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Py<PyAny>> {
    let all = PyTuple::new(py, std::iter::once(f.clone()).chain(args.iter()).collect::<Vec<_>>())?;
    lazy_call(py, "kd.functor.call", &all, kwargs)
}

/// The body of functor `f`: its `returns` with every variable inlined,
/// over inputs named after its parameters.
#[pyfunction]
fn functor_body(f: &PyDataSlice) -> PyResult<crate::py_expr::PyExpr> {
    let compiled = crate::errors::guard(|| functor::compile(&f.inner))?;
    Ok(crate::py_expr::PyExpr { inner: compiled.body.clone() })
}

/// Whether `x` is a functor.
#[pyfunction]
fn is_functor(x: &Bound<'_, PyAny>) -> bool {
    x.cast::<PyDataSlice>().is_ok_and(|ds| functor::is_functor(&ds.get().inner))
}

/// Functor items are callable: `fn(*args, **kwargs)` is `kd.call(fn, ...)`.
#[pymethods]
impl PyDataItem {
    #[pyo3(signature = (*args, **kwargs))]
    fn __call__(slf: &Bound<'_, Self>, args: &Bound<'_, PyTuple>, kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        if is_tracing() {
            return lazy_functor_call(py, slf.as_any(), args, kwargs);
        }
        call_functor(py, slf.as_super().get(), args, kwargs)
    }
}

/// Koda's error for a parameter default other than an item.
const ONLY_ITEMS: &str = "only DataItems can be used as default values for parameters";

/// A `__signature__` item from `(name, kind, default_kind, default)`
/// tuples: `kind` an `inspect.Parameter` kind name, `default_kind`
/// "required", "self" (Koda's `self_not_specified`) or "value".
#[pyfunction]
fn make_signature(spec: Vec<(String, String, String, Py<PyAny>)>, py: Python<'_>) -> PyResult<Py<PyAny>> {
    use plait_expr::functor::{DefaultValue, Parameter};
    let op = "kd.functor";
    let mut params = Vec::with_capacity(spec.len());
    for (name, kind, default_kind, default) in spec {
        let kind = crate::py_operator::param_kind(op, &kind)?;
        let default = match default_kind.as_str() {
            "required" => DefaultValue::Required,
            "self" => DefaultValue::SelfNotSpecified,
            // Koda takes items only (`y=None` is a missing one).
            _ if crate::py_operator::is_unspecified(default.bind(py))? => return Err(value_error(op, ONLY_ITEMS)),
            _ => match crate::py_operator::value_arg(op, default.bind(py))? {
                plait_ops::registry::Value::Slice(v) if v.rank() == 0 => DefaultValue::Value(v),
                _ => return Err(value_error(op, ONLY_ITEMS)),
            },
        };
        params.push(Parameter { name, kind, default });
    }
    crate::py_slice::wrap(py, guard(|| functor::make_signature(&params))?)
}

/// A functor item from its `returns`, `signature` and variables (DataSlices:
/// EXPR items, values or functors); errors name operator `op`.
#[pyfunction]
#[pyo3(signature = (returns, signature, variables, qualname = None, module = None, op = "kd.functor.fn"))]
fn make_functor(
    py: Python<'_>,
    returns: PyRef<'_, PyDataSlice>,
    signature: PyRef<'_, PyDataSlice>,
    variables: Vec<(String, PyRef<'_, PyDataSlice>)>,
    qualname: Option<&str>,
    module: Option<&str>,
    op: &str,
) -> PyResult<Py<PyAny>> {
    let variables: Vec<(String, plait_core::DataSlice)> = variables.into_iter().map(|(k, v)| (k, v.inner.clone())).collect();
    crate::py_slice::wrap(py, guard(|| functor::make_functor(op, &returns.inner, &signature.inner, &variables, qualname, module))?)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(make_signature, m)?)?;
    m.add_function(wrap_pyfunction!(make_functor, m)?)?;
    m.add_function(wrap_pyfunction!(functor_call, m)?)?;
    m.add_function(wrap_pyfunction!(is_functor, m)?)?;
    m.add_function(wrap_pyfunction!(functor_body, m)?)?;
    Ok(())
}
