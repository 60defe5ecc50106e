//! Extension values in Python: `Object` (Koda's OBJECT, what
//! `kd.extension_types.unwrap` returns) and, through Python subclasses of
//! it made by `kd.extension_type` (`Point_QValue`), the values of each
//! extension type. The values and their operators are
//! `plait_expr::extension` and `builtins/extension_types.rs`; this file
//! converts.

use plait_expr::ExprValue;
use plait_expr::extension::{self, ObjectValue, QTypeValue};
use std::collections::HashMap;
use std::sync::{OnceLock, RwLock};

use pyo3::prelude::*;
use pyo3::types::PyType;

use crate::errors::guard;

/// An object value: attributes and a prototype, labelled with an extension
/// type's QType in the subclasses `kd.extension_type` makes.
#[pyclass(name = "Object", module = "plait.types", frozen, subclass)]
pub struct PyObjectValue {
    /// Always an [`ObjectValue`] (kept as the expression value, so passing
    /// it to an evaluation clones one `Arc`).
    pub inner: ExprValue,
}

impl PyObjectValue {
    fn object(&self) -> &ObjectValue {
        ObjectValue::of(&self.inner).expect("a PyObjectValue holds an ObjectValue")
    }
}

#[pymethods]
impl PyObjectValue {
    /// A copy of `value` (how the subclass of an extension type is made from
    /// the value an operator returned).
    #[new]
    fn new(value: PyRef<'_, PyObjectValue>) -> PyObjectValue {
        PyObjectValue { inner: value.inner.clone() }
    }

    fn __repr__(&self) -> String {
        match &self.inner {
            ExprValue::Foreign(f) => f.repr(),
            other => other.repr(),
        }
    }

    fn __str__(&self) -> String {
        self.__repr__()
    }

    /// The QType's name: `OBJECT`, or the extension type's `LABEL[...]`.
    #[getter]
    fn _qtype_name(&self) -> String {
        extension::qtype_of(&self.inner)
    }

    /// The QType: `OBJECT`, or the extension type's (`LABEL[module.Class]`).
    #[getter]
    fn qtype(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        python_qtype(py, &extension::qtype_of(&self.inner))
    }

    /// Equal for equal values (same type, same attributes).
    #[getter]
    fn fingerprint(&self) -> crate::py_fingerprint::PyFingerprint {
        crate::py_fingerprint::PyFingerprint(self.inner.fingerprint())
    }

    /// Attribute `name`, checked to be of QType `qtype` (`ext.attr`):
    /// `kd.extension_types.get_attr` without building a call.
    fn _get_attr(&self, py: Python<'_>, name: &str, qtype: &str) -> PyResult<Py<PyAny>> {
        let v = guard(|| extension::get_attr("kd.extension_types.get_attr", self.object(), name, qtype))?;
        crate::py_expr::from_value(py, v)
    }

    /// Whether the attribute `name` is set (through the prototypes).
    fn _has_attr(&self, name: &str) -> bool {
        self.object().object.get(name).is_some()
    }
}

/// The Python classes of the values of each extension type, by QType name
/// (registered by `kd.extension_type` with the type).
fn value_classes() -> &'static RwLock<HashMap<String, Py<PyType>>> {
    static CLASSES: OnceLock<RwLock<HashMap<String, Py<PyType>>>> = OnceLock::new();
    CLASSES.get_or_init(Default::default)
}

/// The Python class of the values of the extension type named `qtype_name`
/// (`Object` for a type registered without one).
fn value_class<'py>(py: Python<'py>, qtype_name: &str) -> Bound<'py, PyType> {
    match value_classes().read().unwrap_or_else(|e| e.into_inner()).get(qtype_name) {
        Some(cls) => cls.bind(py).clone(),
        None => py.get_type::<PyObjectValue>(),
    }
}

/// The QType named `name` as Python's `kd.qtypes` knows it.
fn python_qtype(py: Python<'_>, name: &str) -> PyResult<Py<PyAny>> {
    static FROM_NAME: pyo3::sync::PyOnceLock<Py<PyAny>> = pyo3::sync::PyOnceLock::new();
    let f = FROM_NAME.get_or_try_init(py, || py.import("plait.kd.qtypes")?.getattr("_from_name").map(Bound::unbind))?;
    Ok(f.bind(py).call1((name,))?.unbind())
}

/// An object value or a QType as its Python object, if `v` is one.
pub fn from_extension_value(py: Python<'_>, v: &ExprValue) -> PyResult<Option<Py<PyAny>>> {
    if let Some(o) = ObjectValue::of(v) {
        let base = Py::new(py, PyObjectValue { inner: v.clone() })?;
        return match &o.label {
            None => Ok(Some(base.into_any())),
            Some(ext) => Ok(Some(value_class(py, &ext.qtype_name).call1((base,))?.unbind())),
        };
    }
    if let Some(q) = QTypeValue::of(v) {
        return python_qtype(py, &q.0).map(Some);
    }
    Ok(None)
}

/// A Python object value or QType as an expression value, if `x` is one.
pub fn to_extension_value(x: &Bound<'_, PyAny>) -> PyResult<Option<ExprValue>> {
    if let Ok(o) = x.cast::<PyObjectValue>() {
        return Ok(Some(o.get().inner.clone()));
    }
    static QTYPE: pyo3::sync::PyOnceLock<Py<PyType>> = pyo3::sync::PyOnceLock::new();
    let qtype = QTYPE.import(x.py(), "plait.kd.qtypes", "QType")?;
    if x.is_instance(qtype)? {
        let name: String = x.getattr("name")?.extract()?;
        return Ok(Some(QTypeValue::value(&name)));
    }
    Ok(None)
}

/// Registers the extension type of class `label` (`module.qualname`),
/// printed as `class_name(field=..., ...)`, whose values come to Python as
/// `value_class` (a subclass of `Object`); returns its QType's name.
#[pyfunction]
fn register_extension_type(label: &str, class_name: &str, fields: Vec<String>, value_class: Bound<'_, PyType>) -> PyResult<String> {
    if !value_class.is_subclass_of::<PyObjectValue>()? {
        return Err(crate::errors::type_error("kd.extension_type", "the class of values must be a subclass of Object"));
    }
    let name = extension::register(label, class_name, fields).qtype_name.to_string();
    value_classes().write().unwrap_or_else(|e| e.into_inner()).insert(name.clone(), value_class.unbind());
    Ok(name)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyObjectValue>()?;
    m.add_function(wrap_pyfunction!(register_extension_type, m)?)?;
    Ok(())
}
