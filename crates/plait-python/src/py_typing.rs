//! `kd.typing` from Python: slice types, sizes, and the scope in which
//! tracing types each node it builds (so that a type error is raised at the
//! line of user code that built the node).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use plait_core::typing::{Dim, RAGGED_PREFIX, SchemaType, Size, SliceType, check_size_name, parse_functor_type, parse_slice_type};
use plait_expr::typing::TypeEnv;
use plait_ops::typing::{TypeValue, schema_type, type_of};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::errors::guard;
use crate::py_expr::PyExpr;
use crate::py_slice::PyDataSlice;

const OP: &str = "kd.typing";

// ---------------------------------------------------------------- sizes

/// A size: an affine expression in named sizes (`kd.typing.size('n') * 2 + 1`).
#[pyclass(name = "Size", module = "plait.kd.typing", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PySize {
    inner: Size,
}

/// A size or a Python int, as a size.
fn size_of(x: &Bound<'_, PyAny>, what: &str) -> PyResult<Size> {
    if let Ok(s) = x.cast::<PySize>() {
        return Ok(s.get().inner.clone());
    }
    if x.is_instance_of::<pyo3::types::PyInt>() && !x.is_instance_of::<pyo3::types::PyBool>() {
        return x.extract::<i64>().map(Size::constant).map_err(|_| PyValueError::new_err(format!("{OP}: {what} must fit in 64 bits, got {x}")));
    }
    Err(PyTypeError::new_err(format!("{OP}: {what} must be a size or an int, got {}", x.get_type().name()?)))
}

fn overflow() -> PyErr {
    PyValueError::new_err(format!("{OP}: the size's coefficients overflow 64-bit integers"))
}

#[pymethods]
impl PySize {
    fn __add__(&self, other: &Bound<'_, PyAny>) -> PyResult<PySize> {
        Ok(PySize { inner: self.inner.checked_add(&size_of(other, "the other operand")?).ok_or_else(overflow)? })
    }

    fn __radd__(&self, other: &Bound<'_, PyAny>) -> PyResult<PySize> {
        self.__add__(other)
    }

    fn __sub__(&self, other: &Bound<'_, PyAny>) -> PyResult<PySize> {
        Ok(PySize { inner: self.inner.checked_sub(&size_of(other, "the other operand")?).ok_or_else(overflow)? })
    }

    fn __rsub__(&self, other: &Bound<'_, PyAny>) -> PyResult<PySize> {
        Ok(PySize { inner: size_of(other, "the other operand")?.checked_sub(&self.inner).ok_or_else(overflow)? })
    }

    fn __mul__(&self, other: &Bound<'_, PyAny>) -> PyResult<PySize> {
        let other = size_of(other, "the other operand")?;
        match self.inner.checked_mul(&other) {
            Some(inner) => Ok(PySize { inner }),
            None if self.inner.as_constant().is_none() && other.as_constant().is_none() => {
                Err(PyValueError::new_err(format!("{OP}: {} * {} is not an affine size (one factor must be an int)", self.inner, other)))
            }
            None => Err(overflow()),
        }
    }

    fn __rmul__(&self, other: &Bound<'_, PyAny>) -> PyResult<PySize> {
        self.__mul__(other)
    }

    fn __neg__(&self) -> PyResult<PySize> {
        Ok(PySize { inner: self.inner.checked_scale(-1).ok_or_else(overflow)? })
    }

    fn __repr__(&self) -> String {
        self.inner.to_string()
    }
}

/// `kd.typing.size(name)`: the size called `name`.
#[pyfunction]
fn typing_size(name: &str) -> PyResult<PySize> {
    Ok(PySize { inner: Size::param(&checked_size_name(name)?) })
}

/// `name`, when a user may give it to a size.
fn checked_size_name(name: &str) -> PyResult<String> {
    check_size_name(name).map_err(|why| PyValueError::new_err(format!("{OP}: {why}")))?;
    Ok(name.to_string())
}

// ---------------------------------------------------------------- dims

/// `kd.typing.RAGGED` (row sizes vary) and `kd.typing.UNKNOWN`.
#[pyclass(name = "DimMarker", module = "plait.kd.typing", frozen, eq)]
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum PyDimMarker {
    Ragged,
    Unknown,
}

#[pymethods]
impl PyDimMarker {
    fn __repr__(&self) -> &'static str {
        match self {
            PyDimMarker::Ragged => "kd.typing.RAGGED",
            PyDimMarker::Unknown => "kd.typing.UNKNOWN",
        }
    }
}

/// Each ragged dimension declared gets a total of its own, named so that
/// no user size (an identifier) can have the name.
fn fresh_ragged_total() -> Size {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    Size::param(&format!("*{}", NEXT.fetch_add(1, Ordering::Relaxed)))
}

fn dim_of(x: &Bound<'_, PyAny>) -> PyResult<Dim> {
    if let Ok(marker) = x.cast::<PyDimMarker>() {
        return Ok(match *marker.get() {
            PyDimMarker::Ragged => Dim::Ragged { total: fresh_ragged_total() },
            PyDimMarker::Unknown => Dim::Unknown,
        });
    }
    if let Ok(name) = x.extract::<String>() {
        return Ok(Dim::Uniform(Size::param(&checked_size_name(&name)?)));
    }
    // An int too large keeps its own error; anything else is not a dimension.
    let size = size_of(x, "a dimension").map_err(|e| {
        if !e.is_instance_of::<PyTypeError>(x.py()) {
            return e;
        }
        PyTypeError::new_err(format!(
            "{OP}: a dimension must be an int, a size name, a size, kd.typing.RAGGED or kd.typing.UNKNOWN, got {}",
            x.get_type().name().map(|n| n.to_string()).unwrap_or_default()
        ))
    })?;
    if size.as_constant().is_some_and(|k| k < 0) {
        return Err(PyValueError::new_err(format!("{OP}: a dimension's size cannot be negative, got {size}")));
    }
    Ok(Dim::Uniform(size))
}

fn dim_to_py(py: Python<'_>, d: &Dim) -> PyResult<Py<PyAny>> {
    Ok(match d {
        Dim::Uniform(s) => match s.as_constant() {
            Some(k) => k.into_pyobject(py)?.into_any().unbind(),
            None => Py::new(py, PySize { inner: s.clone() })?.into_any(),
        },
        Dim::Ragged { .. } => Py::new(py, PyDimMarker::Ragged)?.into_any(),
        Dim::Unknown => Py::new(py, PyDimMarker::Unknown)?.into_any(),
    })
}

// ---------------------------------------------------------------- slice types

/// `kd.typing.SliceType(schema, dims)`: what is known of a DataSlice.
#[pyclass(name = "SliceType", module = "plait.kd.typing", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PySliceType {
    pub inner: SliceType,
}

#[pymethods]
impl PySliceType {
    /// `schema`: a schema item (`kd.INT32`, an entity schema, `kd.list_schema(...)`)
    /// or None (unknown); `dims`: a tuple with one entry per dimension, or
    /// None (rank unknown). Or the type's text form alone (`'FLOAT32[n, *]'`).
    #[new]
    #[pyo3(signature = (schema=None, dims=None))]
    fn new(schema: Option<&Bound<'_, PyAny>>, dims: Option<&Bound<'_, PyAny>>) -> PyResult<PySliceType> {
        if let Some(text) = schema.and_then(|s| s.extract::<String>().ok()) {
            if dims.is_some_and(|d| !d.is_none()) {
                return Err(PyTypeError::new_err(format!("{OP}.SliceType: a type's text form (`{text}`) takes no dims")));
            }
            return parse_type(&text);
        }
        let schema = match schema {
            None => SchemaType::Unknown,
            Some(s) if s.is_none() => SchemaType::Unknown,
            Some(s) => {
                let item = s.cast::<PyDataSlice>().map_err(|_| {
                    PyTypeError::new_err(format!(
                        "{OP}.SliceType: schema must be a schema item or None, got {}",
                        s.get_type().name().map(|n| n.to_string()).unwrap_or_default()
                    ))
                })?;
                let ds = &item.get().inner;
                match (ds.is_item(), ds.schema(), ds.get(0)) {
                    (true, plait_core::Schema::Schema, Some(plait_core::ScalarRef::Schema(schema))) => schema_type(schema, ds.bag(), 6),
                    _ => {
                        return Err(PyTypeError::new_err(format!(
                            "{OP}.SliceType: schema must be a schema item or None, got {}",
                            plait_ops::describe(ds)
                        )));
                    }
                }
            }
        };
        let dims = match dims {
            None => None,
            Some(d) if d.is_none() => None,
            Some(d) => {
                if d.is_instance_of::<pyo3::types::PyString>() {
                    return Err(PyTypeError::new_err(format!("{OP}.SliceType: dims must be a tuple or list of dimensions, got a str")));
                }
                Some(d.try_iter()?.map(|x| dim_of(&x?)).collect::<PyResult<Vec<_>>>()?)
            }
        };
        Ok(PySliceType { inner: SliceType { schema, dims } })
    }

    /// The schema's text form (`INT32`, `Entity(x=INT32)`, `?`).
    #[getter]
    fn schema(&self) -> String {
        self.inner.schema.to_string()
    }

    /// One entry per dimension (an int, a size, RAGGED or UNKNOWN); None
    /// when the rank is unknown.
    #[getter]
    fn dims(&self, py: Python<'_>) -> PyResult<Option<Py<PyTuple>>> {
        let Some(dims) = &self.inner.dims else { return Ok(None) };
        let items = dims.iter().map(|d| dim_to_py(py, d)).collect::<PyResult<Vec<_>>>()?;
        Ok(Some(PyTuple::new(py, items)?.unbind()))
    }

    #[getter]
    fn rank(&self) -> Option<usize> {
        self.inner.rank()
    }

    fn __repr__(&self) -> String {
        self.inner.to_string()
    }
}

/// The slice type written `text` (`FLOAT32[n, *]`); its size names are
/// checked as declared ones are.
fn parse_type(text: &str) -> PyResult<PySliceType> {
    let t = parse_slice_type(text, fresh_ragged_total).map_err(|e| PyValueError::new_err(format!("{OP}.SliceType: cannot read {text:?}: {e}")))?;
    for d in t.dims.iter().flatten() {
        if let Dim::Uniform(s) = d {
            for name in s.params() {
                checked_size_name(name)?;
            }
        }
    }
    Ok(PySliceType { inner: t })
}

/// An input's name and type, as Python sees them.
type NamedType = (String, Py<PyAny>);

/// A functor's type read from its text (`(x: INT32[n]) -> FLOAT32[n]`):
/// `([(input, SliceType or Size)], output)`, the output as `type_to_py`
/// gives types.
#[pyfunction]
fn typing_parse_functor_type(py: Python<'_>, text: &str) -> PyResult<(Vec<NamedType>, Py<PyAny>)> {
    let (inputs, output) = parse_functor_type(text, fresh_ragged_total)
        .map_err(|e| PyValueError::new_err(format!("{OP}: cannot read the functor type {text:?}: {e}")))?;
    let inputs = inputs
        .into_iter()
        .map(|(name, t, value)| {
            let t = match value {
                Some(size) => Py::new(py, PySize { inner: size })?.into_any(),
                None => Py::new(py, PySliceType { inner: t })?.into_any(),
            };
            Ok((name, t))
        })
        .collect::<PyResult<Vec<_>>>()?;
    let output = guard(|| TypeValue::of_output(&output, &mut |d| Ok(d.clone())))?;
    Ok((inputs, type_to_py(py, &output)?))
}

/// `kd.typing.type_of(x)`: the exact type of a DataSlice.
/// Whether eager operator calls check their type rules
/// (`PLAIT_CHECK_TYPES`); with `on`, turns the checks on or off first.
#[pyfunction]
#[pyo3(signature = (on=None))]
fn typing_check_types(on: Option<bool>) -> bool {
    if let Some(on) = on {
        plait_ops::typing::check::set_enabled(on);
    }
    plait_ops::typing::check::enabled()
}

#[pyfunction]
fn typing_type_of(x: PyRef<'_, PyDataSlice>) -> PySliceType {
    PySliceType { inner: type_of(&x.inner) }
}

/// A type as Python sees it: a SliceType, a tuple of types, or the text of
/// other kinds (`JAGGED_SHAPE[n]`, `DATA_BAG`, `?`).
fn type_to_py(py: Python<'_>, t: &TypeValue) -> PyResult<Py<PyAny>> {
    Ok(match t {
        TypeValue::Slice(s, _) => Py::new(py, PySliceType { inner: SliceType::clone(s) })?.into_any(),
        TypeValue::Tuple(items) => PyTuple::new(py, items.iter().map(|i| type_to_py(py, i)).collect::<PyResult<Vec<_>>>()?)?.into_any().unbind(),
        TypeValue::Unknown => Py::new(py, PyDimMarker::Unknown)?.into_any(),
        TypeValue::SizeItem(size) => Py::new(py, PySize { inner: size.clone() })?.into_any(),
        other => other.to_string().into_pyobject(py)?.into_any().unbind(),
    })
}

// ---------------------------------------------------------------- typed tracing

/// The types of a call's inputs: `types[name]` for each name.
fn input_types(types: &Bound<'_, PyDict>) -> PyResult<Vec<(String, TypeValue)>> {
    let mut inputs = Vec::new();
    for (name, t) in types.iter() {
        let name: String = name.extract()?;
        if let Ok(size) = t.cast::<PySize>() {
            inputs.push((name, TypeValue::SizeItem(size.get().inner.clone())));
            continue;
        }
        let t = t.cast::<PySliceType>().map_err(|_| {
            PyTypeError::new_err(format!(
                "{OP}: the type of argument `{name}` must be a kd.typing.SliceType (or a size, for an integer item), got {}",
                t.get_type().name().map(|n| n.to_string()).unwrap_or_default()
            ))
        })?;
        inputs.push((name, TypeValue::slice(t.get().inner.clone())));
    }
    Ok(inputs)
}

/// The type of what functor `f` returns when input `name` has
/// `types[name]`: its body, variables inlined, typed without tracing.
#[pyfunction]
fn typing_infer_functor(py: Python<'_>, f: PyRef<'_, PyDataSlice>, types: &Bound<'_, PyDict>) -> PyResult<Py<PyAny>> {
    let inputs = input_types(types)?;
    let t = guard(|| {
        let compiled = plait_expr::functor::compile_as("kd.typing.infer", &f.inner)?;
        TypeEnv::new(inputs)?.infer(&compiled.body)
    })?;
    type_to_py(py, &t)
}

/// `types` (slice types, tuples of them, anything else), with each ragged
/// edge that stands in two places or more named (`*a`, `*b`, ...) so that
/// a functor's type says which output rows are which input's:
/// `(x: FLOAT32[n, *a]) -> FLOAT32[n, *a]`.
#[pyfunction]
fn typing_name_shared_edges(py: Python<'_>, types: Vec<Bound<'_, PyAny>>) -> PyResult<Vec<Py<PyAny>>> {
    fn edges(x: &Bound<'_, PyAny>, counts: &mut HashMap<String, usize>) {
        if let Ok(t) = x.cast::<PySliceType>() {
            for d in t.get().inner.dims.iter().flatten() {
                if let Dim::Ragged { total } = d
                    && let Some(p) = total.as_param()
                {
                    *counts.entry(p.to_string()).or_default() += 1;
                }
            }
        } else if let Ok(items) = x.cast::<PyTuple>() {
            items.iter().for_each(|i| edges(&i, counts));
        }
    }
    fn renamed(py: Python<'_>, x: &Bound<'_, PyAny>, names: &HashMap<String, String>) -> PyResult<Py<PyAny>> {
        if let Ok(t) = x.cast::<PySliceType>() {
            let mut inner = t.get().inner.clone();
            for d in inner.dims.iter_mut().flatten() {
                if let Dim::Ragged { total } = d
                    && let Some(name) = total.as_param().and_then(|p| names.get(p))
                {
                    *total = Size::param(name);
                }
            }
            return Ok(Py::new(py, PySliceType { inner })?.into_any());
        }
        if let Ok(items) = x.cast::<PyTuple>() {
            return Ok(PyTuple::new(py, items.iter().map(|i| renamed(py, &i, names)).collect::<PyResult<Vec<_>>>()?)?.into_any().unbind());
        }
        Ok(x.clone().unbind())
    }
    let mut counts = HashMap::new();
    types.iter().for_each(|t| edges(t, &mut counts));
    // Edges the user named keep their names; the others get letters, in
    // order of first appearance.
    let mut shared: Vec<String> = Vec::new();
    for t in &types {
        let mut seen = HashMap::new();
        edges(t, &mut seen);
        let mut order: Vec<&String> = seen.keys().collect();
        order.sort();
        for p in order {
            if counts[p] > 1 && !shared.contains(p) {
                shared.push(p.clone());
            }
        }
    }
    let taken: Vec<String> = counts.keys().cloned().collect();
    let mut letters = (0..).map(|i: usize| {
        let letter = (b'a' + (i % 26) as u8) as char;
        if i < 26 { format!("{RAGGED_PREFIX}{letter}") } else { format!("{RAGGED_PREFIX}{letter}{}", i / 26) }
    });
    let mut names = HashMap::new();
    for p in shared {
        let named = p.strip_prefix(RAGGED_PREFIX).is_some_and(|n| n.starts_with(|c: char| c.is_alphabetic() || c == '_'));
        let name = if named { p.clone() } else { letters.by_ref().find(|l| !taken.contains(l)).unwrap_or_default() };
        names.insert(p, name);
    }
    types.iter().map(|t| renamed(py, t, &names)).collect()
}

/// The type of traced expression `expr` when input `name` has
/// `types[name]` (what `kd.fn(f, input_types=...)` checks once `f` is
/// traced): a type error names the node and the line that created it.
#[pyfunction]
fn typing_infer_expr(py: Python<'_>, expr: PyRef<'_, PyExpr>, types: &Bound<'_, PyDict>) -> PyResult<Py<PyAny>> {
    let inputs = input_types(types)?;
    let t = guard(|| TypeEnv::new(inputs)?.infer(&expr.inner))?;
    type_to_py(py, &t)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PySize>()?;
    m.add_class::<PyDimMarker>()?;
    m.add_class::<PySliceType>()?;
    m.add_function(wrap_pyfunction!(typing_size, m)?)?;
    m.add_function(wrap_pyfunction!(typing_type_of, m)?)?;
    m.add_function(wrap_pyfunction!(typing_check_types, m)?)?;
    m.add_function(wrap_pyfunction!(typing_parse_functor_type, m)?)?;
    m.add_function(wrap_pyfunction!(typing_infer_expr, m)?)?;
    m.add_function(wrap_pyfunction!(typing_name_shared_edges, m)?)?;
    m.add_function(wrap_pyfunction!(typing_infer_functor, m)?)?;
    Ok(())
}
