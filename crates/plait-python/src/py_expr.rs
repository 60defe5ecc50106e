//! `plait.types.Expr`: expressions from Python — `kd.I.x`, literals,
//! operator nodes (from `kd.lazy.*` and Python operators on Exprs), Koda's
//! text form, and `kd.eval`.

use std::collections::HashMap;

use plait_expr::{Expr, NodeKind};
use plait_ops::registry::Value;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::errors::{guard, type_error};
use crate::py_operator::value_arg;
use crate::py_shape::PyJaggedShape;
use crate::py_slice::wrap;

/// An expression: a node of a computation to evaluate later.
#[pyclass(name = "Expr", module = "plait.types", frozen)]
pub struct PyExpr {
    pub inner: Expr,
}

/// `x` as an expression: an Expr as it is, anything else as a literal.
fn as_expr(op: &str, x: &Bound<'_, PyAny>) -> PyResult<Expr> {
    if let Ok(e) = x.cast::<PyExpr>() {
        return Ok(e.get().inner.clone());
    }
    Ok(Expr::literal(value_arg(op, x)?))
}

fn node(op: &str, args: Vec<Option<Expr>>) -> PyResult<PyExpr> {
    Ok(PyExpr { inner: guard(|| Expr::op(op, args))? })
}

impl PyExpr {
    /// `self <op> other` (or `other <op> self` when `reflected`).
    fn binary(&self, op: &str, other: &Bound<'_, PyAny>, reflected: bool) -> PyResult<PyExpr> {
        let (mine, theirs) = (self.inner.clone(), as_expr(op, other)?);
        let args = if reflected { vec![Some(theirs), Some(mine)] } else { vec![Some(mine), Some(theirs)] };
        node(op, args)
    }
}

#[pymethods]
impl PyExpr {
    fn __repr__(&self) -> String {
        plait_expr::text::expr_text(&self.inner)
    }

    fn __str__(&self) -> String {
        self.__repr__()
    }

    /// The structural fingerprint, as an int.
    #[getter]
    fn fingerprint(&self) -> u128 {
        self.inner.fingerprint()
    }

    fn __hash__(&self) -> u64 {
        self.inner.fingerprint() as u64
    }

    /// Evaluates with the inputs given by name (`expr.eval(x=...)`).
    #[pyo3(signature = (**inputs))]
    fn eval(&self, py: Python<'_>, inputs: Option<&Bound<'_, PyDict>>) -> PyResult<Py<PyAny>> {
        eval_expr(py, self, inputs)
    }

    /// What the node is: "input", "variable", "literal" or "operator".
    fn _kind(&self) -> &'static str {
        match self.inner.kind() {
            NodeKind::Input(_) => "input",
            NodeKind::Variable(_) => "variable",
            NodeKind::Literal(_) => "literal",
            NodeKind::Op { .. } => "operator",
        }
    }

    fn __bool__(&self) -> PyResult<bool> {
        Err(type_error("kd.expr", "__bool__ is disabled for an Expr: it has no value until it is evaluated"))
    }

    fn __add__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        self.binary("kd.math.add", other, false)
    }
    fn __radd__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        self.binary("kd.math.add", other, true)
    }
    fn __sub__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        self.binary("kd.math.subtract", other, false)
    }
    fn __rsub__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        self.binary("kd.math.subtract", other, true)
    }
    fn __mul__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        self.binary("kd.math.multiply", other, false)
    }
    fn __rmul__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        self.binary("kd.math.multiply", other, true)
    }
    fn __truediv__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        self.binary("kd.math.divide", other, false)
    }
    fn __rtruediv__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        self.binary("kd.math.divide", other, true)
    }
    fn __floordiv__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        self.binary("kd.math.floordiv", other, false)
    }
    fn __rfloordiv__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        self.binary("kd.math.floordiv", other, true)
    }
    fn __mod__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        self.binary("kd.math.mod", other, false)
    }
    fn __rmod__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        self.binary("kd.math.mod", other, true)
    }
    fn __pow__(&self, other: &Bound<'_, PyAny>, _modulo: Option<&Bound<'_, PyAny>>) -> PyResult<PyExpr> {
        self.binary("kd.math.pow", other, false)
    }
    fn __rpow__(&self, other: &Bound<'_, PyAny>, _modulo: Option<&Bound<'_, PyAny>>) -> PyResult<PyExpr> {
        self.binary("kd.math.pow", other, true)
    }
    fn __and__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        self.binary("kd.masking.apply_mask", other, false)
    }
    fn __rand__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        self.binary("kd.masking.apply_mask", other, true)
    }
    fn __or__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        self.binary("kd.masking.coalesce", other, false)
    }
    fn __ror__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        self.binary("kd.masking.coalesce", other, true)
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        self.binary("kd.comparison.equal", other, false)
    }
    fn __ne__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        self.binary("kd.comparison.not_equal", other, false)
    }
    fn __lt__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        self.binary("kd.comparison.less", other, false)
    }
    fn __le__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        self.binary("kd.comparison.less_equal", other, false)
    }
    fn __gt__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        self.binary("kd.comparison.greater", other, false)
    }
    fn __ge__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        self.binary("kd.comparison.greater_equal", other, false)
    }

    fn __neg__(&self) -> PyResult<PyExpr> {
        node("kd.math.neg", vec![Some(self.inner.clone())])
    }

    fn __pos__(&self) -> PyResult<PyExpr> {
        node("kd.math.pos", vec![Some(self.inner.clone())])
    }

    fn __invert__(&self) -> PyResult<PyExpr> {
        node("kd.masking.has_not", vec![Some(self.inner.clone())])
    }

    /// `e.x`: the attribute `x` of the items `e` evaluates to.
    fn __getattr__(&self, py: Python<'_>, name: &str) -> PyResult<PyExpr> {
        if name.starts_with("__") {
            return Err(pyo3::exceptions::PyAttributeError::new_err(name.to_string()));
        }
        let name_item = Expr::literal(value_arg("kd.core.get_attr", &pyo3::types::PyString::new(py, name).into_any())?);
        node("kd.core.get_attr", vec![Some(self.inner.clone()), Some(name_item)])
    }

    /// `e[k]`: items of lists or values of dicts.
    fn __getitem__(&self, key: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        node("kd.core.get_item", vec![Some(self.inner.clone()), Some(as_expr("kd.core.get_item", key)?)])
    }
}

/// `kd.I.name`.
#[pyfunction]
fn expr_input(name: &str) -> PyExpr {
    PyExpr { inner: Expr::input(name) }
}

/// `kd.V.name`.
#[pyfunction]
fn expr_variable(name: &str) -> PyExpr {
    PyExpr { inner: Expr::variable(name) }
}

/// `kd.expr.literal(value)`.
#[pyfunction]
fn expr_literal(value: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
    Ok(PyExpr { inner: Expr::literal(value_arg("kd.expr.literal", value)?) })
}

/// Operator `name` applied to `args` (one per parameter; None: unspecified).
#[pyfunction]
fn expr_op(name: &str, args: &Bound<'_, PyList>) -> PyResult<PyExpr> {
    let args = args
        .iter()
        .map(|a| if a.is_none() { Ok(None) } else { as_expr(name, &a).map(Some) })
        .collect::<PyResult<Vec<_>>>()?;
    node(name, args)
}

/// The names of the inputs of `expr`, sorted.
#[pyfunction]
fn expr_input_names(expr: PyRef<'_, PyExpr>) -> Vec<String> {
    expr.inner.input_names()
}

/// `kd.eval(expr, **inputs)`.
#[pyfunction]
#[pyo3(signature = (expr, inputs = None))]
fn eval_expr(py: Python<'_>, expr: &PyExpr, inputs: Option<&Bound<'_, PyDict>>) -> PyResult<Py<PyAny>> {
    let mut values: HashMap<String, Value> = HashMap::new();
    if let Some(inputs) = inputs {
        for (name, value) in inputs.iter() {
            let name: String = name.extract()?;
            values.insert(name, value_arg("kd.eval", &value)?);
        }
    }
    match guard(|| plait_expr::eval(&expr.inner, &values))? {
        Value::Slice(ds) => wrap(py, ds),
        Value::Shape(shape) => Ok(Py::new(py, PyJaggedShape { inner: shape })?.into_any()),
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyExpr>()?;
    m.add_function(wrap_pyfunction!(expr_input, m)?)?;
    m.add_function(wrap_pyfunction!(expr_variable, m)?)?;
    m.add_function(wrap_pyfunction!(expr_literal, m)?)?;
    m.add_function(wrap_pyfunction!(expr_op, m)?)?;
    m.add_function(wrap_pyfunction!(expr_input_names, m)?)?;
    m.add_function(wrap_pyfunction!(eval_expr, m)?)?;
    Ok(())
}
