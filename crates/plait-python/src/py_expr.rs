//! `plait.types.Expr`: expressions from Python — `kd.I.x`, literals,
//! operator nodes (from `kd.lazy.*`, `kd.optools` operators and Python
//! operators on Exprs), Koda's text form, passes, and `kd.eval`.
//!
//! Also the bridge the other way: Python-function operators, values that
//! only Python understands (a DataBag inside an expression), and the tracing
//! mode in which `kd.<op>` builds expressions instead of computing.

use std::any::Any;
use std::cell::Cell;
use std::collections::HashMap;
use std::sync::Arc;

use plait_core::error::HostError;
use plait_core::{Error, ErrorKind};
use plait_expr::eval::{Bindings, evaluate};
use plait_expr::operator::{self as ops, CallArgs, Function, OpRef, Operator, OperatorKind};
use plait_expr::value::Foreign;
use plait_expr::{Expr, ExprValue, NodeKind};
use plait_ops::registry::{self as backend, Param, ParamKind, Value};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};

use crate::errors::{guard, to_py_err, type_error};
use crate::py_operator::{ParameterInfo, parameter_info, positional_name, value_arg};
use crate::py_shape::PyJaggedShape;
use crate::py_slice::{PyDataSlice, wrap};

// ---------------------------------------------------------------- tracing

thread_local! {
    /// How many tracing scopes are open on this thread.
    static TRACING: Cell<u32> = const { Cell::new(0) };
}

/// Whether `kd.<op>` builds expressions on this thread (inside tracing).
pub fn is_tracing() -> bool {
    TRACING.with(|t| t.get() > 0)
}

#[pyfunction]
fn tracing_enter() {
    TRACING.with(|t| t.set(t.get() + 1));
}

#[pyfunction]
fn tracing_exit() {
    TRACING.with(|t| t.set(t.get().saturating_sub(1)));
}

/// Leaves tracing until [`tracing_resume`] (returns the depth to restore).
#[pyfunction]
fn tracing_suspend() -> u32 {
    TRACING.with(|t| t.replace(0))
}

#[pyfunction]
fn tracing_resume(depth: u32) {
    TRACING.with(|t| t.set(depth));
}

#[pyfunction(name = "is_tracing")]
fn py_is_tracing() -> bool {
    is_tracing()
}

/// A Python exception raised inside `context` (a Python-function operator,
/// a pass) as a plait error carrying it: [`to_py_err`] re-raises that very
/// exception when the error comes back to Python.
fn host_error(context: &str, py: Python<'_>, err: PyErr) -> Error {
    let message = format!("{context}: {}", err.value(py));
    Error::from_host(ErrorKind::Value, message, HostError::new(err))
}

// ---------------------------------------------------------------- values

/// A Python object inside an expression.
struct PyForeign(Py<PyAny>);

impl std::fmt::Debug for PyForeign {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.repr())
    }
}

impl Foreign for PyForeign {
    fn repr(&self) -> String {
        Python::attach(|py| {
            let obj = self.0.bind(py);
            if let Ok(slice) = obj.cast::<pyo3::types::PySlice>() {
                return slice_text(slice);
            }
            if obj.is(py.Ellipsis()) {
                return "...".to_string();
            }
            // As Koda prints a Python object held in an expression.
            format!("PyObject{{{}}}", obj.repr().map(|r| r.to_string()).unwrap_or_else(|_| "<object>".to_string()))
        })
    }

    fn fingerprint(&self) -> u128 {
        // The literal holds a reference, so the address is not reused while
        // the fingerprint is in use.
        self.0.as_ptr() as usize as u128
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// A Python slice as Koda prints a subslice key: `DataItem(1, schema: INT32):`.
fn slice_text(slice: &Bound<'_, pyo3::types::PySlice>) -> String {
    let bound = |name: &str| -> String {
        match slice.getattr(name) {
            Ok(v) if !v.is_none() => match value_arg("kd.subslice", &v) {
                Ok(Value::Slice(item)) => plait_core::repr::repr_slice(&item),
                _ => v.repr().map(|r| r.to_string()).unwrap_or_default(),
            },
            _ => String::new(),
        }
    };
    let (start, stop, step) = (bound("start"), bound("stop"), bound("step"));
    if step.is_empty() { format!("{start}:{stop}") } else { format!("{start}:{stop}:{step}") }
}

/// `x` as a value: DataSlices, shapes and Python scalars as data, tuples as
/// tuples, and (unless `strict`) any other object as itself. Strict values
/// are what eager operators accept (errors as theirs).
pub fn to_value(op: &str, x: &Bound<'_, PyAny>, strict: bool) -> PyResult<ExprValue> {
    if !x.is_instance_of::<PyDataSlice>() {
        // Extension values and QTypes are values of every operator that takes them.
        if let Some(v) = crate::py_extension::to_extension_value(x)? {
            return Ok(v);
        }
    }
    if x.is_instance_of::<PyDataSlice>()
        || x.is_instance_of::<PyJaggedShape>()
        || x.is_instance_of::<crate::py_bag::PyDataBag>()
        || x.is_instance_of::<crate::py_bag::PyNullBag>()
        || strict
    {
        return value_arg(op, x).map(ExprValue::from);
    }
    if x.is_instance_of::<PyExpr>() {
        return Err(type_error(op, "expected a value, got an Expr"));
    }
    if crate::py_operator::is_unspecified(x)? {
        return Ok(ExprValue::Unspecified);
    }
    if let Ok(range) = x.cast::<crate::py_range::PyRange>() {
        return Ok(ExprValue::from(range.get().value()));
    }
    if let Some(v) = crate::py_stream::to_stream_value(x) {
        return Ok(v);
    }
    if let Ok(t) = x.cast::<PyTuple>() {
        let items = t.iter().map(|i| to_value(op, &i, false)).collect::<PyResult<Vec<_>>>()?;
        return Ok(ExprValue::tuple(items));
    }
    let py = x.py();
    if x.is_instance(python_type(py, &NAMED_TUPLE)?)? {
        let names: Vec<String> = x.call_method0("keys")?.extract()?;
        let values = x.call_method0("values")?;
        let items = values.try_iter()?.map(|v| to_value(op, &v?, false)).collect::<PyResult<Vec<_>>>()?;
        return Ok(ExprValue::named_tuple(names.into_iter().zip(items).collect()));
    }
    if x.is_instance(python_type(py, &ITERABLE)?)? {
        let ordered: bool = x.getattr("_ordered")?.extract()?;
        let value_type: String = x.call_method0("_value_qtype")?.str()?.extract()?;
        let items = x.try_iter()?.map(|v| to_value(op, &v?, false)).collect::<PyResult<Vec<_>>>()?;
        return Ok(ExprValue::iterable_of(items, ordered, value_type));
    }
    let is_scalar = x.is_none()
        || x.is_instance_of::<pyo3::types::PyBool>()
        || x.is_instance_of::<pyo3::types::PyInt>()
        || x.is_instance_of::<pyo3::types::PyFloat>()
        || x.is_instance_of::<PyString>()
        || x.is_instance_of::<pyo3::types::PyBytes>()
        || x.is_instance_of::<PyList>();
    if is_scalar {
        return value_arg(op, x).map(ExprValue::from);
    }
    Ok(ExprValue::Foreign(Arc::new(PyForeign(x.clone().unbind()))))
}

/// The Python classes of named tuples and iterables (`module`, `name`).
type PyClassRef = (&'static str, &'static str, pyo3::sync::PyOnceLock<Py<pyo3::types::PyType>>);
static NAMED_TUPLE: PyClassRef = ("plait.kd.tuples", "NamedTuple", pyo3::sync::PyOnceLock::new());
static TUPLE: PyClassRef = ("plait.kd.tuples", "Tuple", pyo3::sync::PyOnceLock::new());
static ITERABLE: PyClassRef = ("plait.kd.iterables", "Iterable", pyo3::sync::PyOnceLock::new());

fn python_type<'py>(py: Python<'py>, class: &'static PyClassRef) -> PyResult<&'py Bound<'py, pyo3::types::PyType>> {
    class.2.import(py, class.0, class.1)
}

/// The values of a tuple as a Python `Tuple` (a tuple printed as Koda's).
pub fn tuple_to_py(py: Python<'_>, items: Vec<Py<PyAny>>) -> PyResult<Py<PyAny>> {
    Ok(python_type(py, &TUPLE)?.call1((PyTuple::new(py, items)?,))?.unbind())
}

/// `v` as a Python object.
pub fn from_value(py: Python<'_>, v: ExprValue) -> PyResult<Py<PyAny>> {
    match v {
        ExprValue::Data(v) => crate::py_operator::value_to_py(py, v),
        ExprValue::Tuple(t) => {
            let items = t.items.iter().map(|i| from_value(py, i.clone())).collect::<PyResult<Vec<_>>>()?;
            match &t.names {
                None => tuple_to_py(py, items),
                Some(names) => {
                    let names: Vec<&str> = names.iter().map(|n| n.as_ref()).collect();
                    Ok(python_type(py, &NAMED_TUPLE)?.call1((names, PyTuple::new(py, items)?))?.unbind())
                }
            }
        }
        ExprValue::Iterable(it) => {
            let items = it.items.iter().map(|i| from_value(py, i.clone())).collect::<PyResult<Vec<_>>>()?;
            Ok(python_type(py, &ITERABLE)?.call1((PyTuple::new(py, items)?, it.ordered, &it.value_type))?.unbind())
        }
        ExprValue::Foreign(f) => match f.as_any().downcast_ref::<PyForeign>() {
            Some(obj) => Ok(obj.0.clone_ref(py)),
            None if let Some(obj) = crate::py_stream::from_stream_value(py, &ExprValue::Foreign(f.clone()))? => Ok(obj),
            None if let Some(obj) = crate::py_extension::from_extension_value(py, &ExprValue::Foreign(f.clone()))? => Ok(obj),
            None => Err(type_error("kd.eval", format!("cannot return {} to Python", f.repr()))),
        },
        ExprValue::Unspecified => Ok(crate::py_operator::unspecified(py)?.clone().unbind()),
    }
}

/// A value of the type that Python class `x` names, where argument `param`
/// is a `*_type_as` one (`value_type_as=kd.types.DataBag`, as Koda takes
/// it): a missing item for DataSlice classes, the null bag, a rank-0
/// shape. None for anything else.
fn type_witness(param: &str, x: &Bound<'_, PyAny>) -> PyResult<Option<ExprValue>> {
    let Ok(class) = x.cast::<pyo3::types::PyType>() else { return Ok(None) };
    if !param.ends_with("_type_as") {
        return Ok(None);
    }
    let witness = if class.is_subclass_of::<PyDataSlice>()? {
        ExprValue::slice(guard(|| plait_core::DataSlice::item(None, plait_core::Schema::None))?)
    } else if class.is_subclass_of::<crate::py_bag::PyDataBag>()? {
        ExprValue::from(Value::Bag(None))
    } else if class.is_subclass_of::<PyJaggedShape>()? {
        ExprValue::from(Value::Shape(plait_core::JaggedShape::scalar()))
    } else {
        return Ok(None);
    };
    Ok(Some(witness))
}

/// `x` as an argument of operator `op`: an Expr as it is, anything else as
/// a literal (checked as eager operators check their arguments, for backend
/// operators).
fn arg_expr(op: &Operator, param: &str, x: &Bound<'_, PyAny>) -> PyResult<Expr> {
    if let Ok(e) = x.cast::<PyExpr>() {
        return Ok(e.get().inner.clone());
    }
    if crate::py_operator::is_unspecified(x)? {
        return Ok(Expr::literal(ExprValue::Unspecified));
    }
    if let Some(witness) = type_witness(param, x)? {
        return Ok(Expr::literal(witness));
    }
    if let Some(t) = tuple_of_exprs(x)? {
        return Ok(t);
    }
    if let OperatorKind::Backend(backend) = &op.kind {
        // Boxed as the eager operator boxes it (lists and tuples by its rule).
        return Ok(Expr::literal(crate::py_operator::boxed_arg(backend, x, None).map(ExprValue::from)?));
    }
    // A Python function given where a builtin takes a functor (`fn`,
    // `body_fn`, ...) is traced into one, as Koda boxes it (`kd.fn`).
    if matches!(op.kind, OperatorKind::Builtin(_)) && (param == "fn" || param.ends_with("_fn")) && is_python_function(x)? {
        let functor = x.py().import("plait.kd")?.getattr("fn")?.call1((x,))?;
        return Ok(Expr::literal(to_value(&op.name, &functor, false)?));
    }
    Ok(Expr::literal(to_value(&op.name, x, false)?))
}

/// Whether `x` is a Python function or method (what Koda traces into a
/// functor when given as an operator's functor argument).
fn is_python_function(x: &Bound<'_, PyAny>) -> PyResult<bool> {
    let types = x.py().import("types")?;
    Ok(x.is_instance(&types.getattr("FunctionType")?)? || x.is_instance(&types.getattr("MethodType")?)?)
}

/// `op(*args, **kwargs)` as an expression.
fn build(op: &OpRef, args: &Bound<'_, PyTuple>, kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<PyExpr> {
    if let OperatorKind::Backend(backend) = &op.kind {
        if let plait_ops::registry::Boxing::AtBinding { item } = backend.boxing {
            if let Some(boxed) = boxed_at_binding(backend.name, item, args, kwargs)? {
                return build(op, &PyTuple::new(args.py(), [boxed])?, None);
            }
        }
    }
    // A value that cannot be an argument: the error says which argument (as Koda's note does).
    let noted = |name: &str, err: PyErr| {
        let _ = err.value(args.py()).call_method1("add_note", (format!("Error occurred while processing argument: `{name}`"),));
        err
    };
    // Non-determinism tokens (`kd.optools.unified_non_deterministic_arg`)
    // are dropped: a non-deterministic operator is never folded, so every
    // evaluation computes afresh without one.
    let positional = args
        .iter()
        .filter(|a| !is_token(a))
        .enumerate()
        .map(|(i, a)| {
            let name = positional_name(&op.params, i);
            arg_expr(op, &name, &a).map_err(|e| noted(&name, e))
        })
        .collect::<PyResult<Vec<_>>>()?;
    let mut keywords = Vec::new();
    if let Some(kwargs) = kwargs {
        for (k, v) in kwargs.iter() {
            let k = k.extract::<String>()?;
            if (k == NON_DETERMINISTIC_PARAM && !op.params.iter().any(|p| p.name == k)) || is_token(&v) {
                continue;
            }
            let value = arg_expr(op, &k, &v).map_err(|e| noted(&k, e))?;
            keywords.push((k, value));
        }
    }
    located(guard(|| Expr::call(op, positional, keywords))?)
}

/// `kd.slice(x, schema)` / `kd.item` (`item`) built with a Python value
/// `x` (not an Expr or a DataSlice): `x` boxed now, with the schema, which
/// must then be a value (`Boxing::AtBinding`). None for other calls, built
/// as they are.
fn boxed_at_binding<'py>(
    op: &str,
    item: bool,
    args: &Bound<'py, PyTuple>,
    kwargs: Option<&Bound<'py, PyDict>>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let py = args.py();
    let keywords: Vec<(String, Bound<'py, PyAny>)> = match kwargs {
        Some(kwargs) => kwargs.iter().map(|(k, v)| Ok((k.extract::<String>()?, v))).collect::<PyResult<_>>()?,
        None => Vec::new(),
    };
    let schema = match (args.len(), keywords.as_slice()) {
        (1, []) => None,
        (2, []) => Some(args.get_item(1)?),
        (1, [(name, schema)]) if name == "schema" => Some(schema.clone()),
        // Anything else: the binding says what is wrong.
        _ => return Ok(None),
    };
    let x = args.get_item(0)?;
    if x.cast::<PyExpr>().is_ok() || x.cast::<crate::py_slice::PyDataSlice>().is_ok() || is_token(&x) {
        return Ok(None);
    }
    if schema.as_ref().is_some_and(|s| s.cast::<PyExpr>().is_ok()) {
        return Err(crate::errors::value_error(
            op,
            "`schema` cannot be an expression when `x` is a Python value, since we need to convert the Python value to a Koda value at binding time",
        ));
    }
    let boxed = if item { crate::functions::item(py, &x, schema.as_ref())? } else { crate::functions::slice(py, &x, schema.as_ref())? };
    Ok(Some(boxed.into_bound(py)))
}

/// The keyword Koda binds a non-determinism token to.
const NON_DETERMINISTIC_PARAM: &str = "_non_deterministic_token";

/// Whether `x` is a non-determinism token: a `koda_internal.non_deterministic` node.
fn is_token(x: &Bound<'_, PyAny>) -> bool {
    x.cast::<PyExpr>().is_ok_and(|e| matches!(e.get().inner.kind(), NodeKind::Op { op, .. } if &*op.name == "koda_internal.non_deterministic"))
}

/// The lazy form of eager operator `name` (inside tracing).
pub fn lazy_call(py: Python<'_>, name: &str, args: &Bound<'_, PyTuple>, kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Py<PyAny>> {
    let op = guard(|| ops::lookup_or_error(name))?;
    Ok(Py::new(py, build(&op, args, kwargs)?)?.into_any())
}

/// The error of an eager operator given an Expr (Koda's wording), or `err`.
pub fn eager_arg_error(op: &backend::Operator, param: &str, x: &Bound<'_, PyAny>, err: PyErr) -> PyErr {
    match x.cast::<PyExpr>() {
        Ok(e) => type_error(
            op.name,
            format!(
                "for eager evaluation, all arguments must be eager values (e.g. DataSlices), got an Expr for the argument '{param}': {}; \
                 if it is intentional, perhaps wrap the Expr into a Koda Functor using kd.fn(expr) or use corresponding kd.lazy operator",
                plait_expr::text::expr_text(&e.get().inner)
            ),
        ),
        Err(_) => err,
    }
}

// ---------------------------------------------------------------- Expr

/// An expression: a node of a computation to evaluate later. Not iterable
/// (a mapping to Python: `e[0]`, `e[1]`, ... are expressions, so iterating
/// by index would never stop).
/// Subclassed by the views of extension types (`Point_Expr`: the
/// attributes and methods of the class on an expression of its values).
#[pyclass(name = "Expr", module = "plait.types", frozen, mapping, weakref, subclass)]
pub struct PyExpr {
    pub inner: Expr,
}

fn node(op: &str, args: Vec<Option<Expr>>) -> PyResult<PyExpr> {
    located(guard(|| Expr::op(op, args))?)
}

/// `expr`, with a tag saying where the user's code built it when tracing
/// (errors at evaluation then name the line).
/// Inside a typed tracing scope (`kd.typing.infer`), the node is typed
/// here, so that a type error is raised at the line that built it.
fn located(expr: Expr) -> PyResult<PyExpr> {
    if !is_tracing() {
        return Ok(PyExpr { inner: expr });
    }
    static LOCATION: pyo3::sync::PyOnceLock<Py<PyAny>> = pyo3::sync::PyOnceLock::new();
    let expr = Python::attach(|py| {
        let location = LOCATION.get_or_try_init(py, || py.import("plait.kd._source")?.getattr("location").map(Bound::unbind))?;
        let found = location.bind(py).call0()?;
        if found.is_none() {
            return Ok::<_, PyErr>(expr);
        }
        let text = format!("{}{}", plait_expr::expr::SOURCE_TAG_PREFIX, found.extract::<String>()?);
        let mut tags = expr.tags().to_vec();
        tags.push(to_value("kd.expr", &PyString::new(py, &text).into_any(), true)?);
        Ok(expr.with_tags(tags))
    })?;
    Ok(PyExpr { inner: expr })
}

/// A Python tuple holding expressions as a `kd.tuples.tuple` node, a dict
/// of them (by name) as a `kd.tuples.namedtuple` node (what Python's `*args`
/// and `**kwargs` make of expressions), and a Python slice with expression
/// bounds as a `kd.tuples.slice` node.
fn tuple_of_exprs(x: &Bound<'_, PyAny>) -> PyResult<Option<Expr>> {
    if let Ok(d) = x.cast::<PyDict>() {
        if !d.values().iter().any(|v| v.is_instance_of::<PyExpr>()) {
            return Ok(None);
        }
        let op = guard(|| ops::lookup_or_error("kd.tuples.namedtuple"))?;
        let mut named = Vec::new();
        for (k, v) in d.iter() {
            let name = k.extract::<String>()?;
            let value = arg_expr(&op, &name, &v)?;
            named.push((name, value));
        }
        return Ok(Some(guard(|| Expr::call(&op, vec![], named))?));
    }
    if let Ok(s) = x.cast::<pyo3::types::PySlice>() {
        // `x.S[:I.n]`: a range with computed bounds is `kd.tuples.slice`.
        let (start, stop, step) = (s.getattr("start")?, s.getattr("stop")?, s.getattr("step")?);
        if ![&start, &stop, &step].iter().any(|b| b.is_instance_of::<PyExpr>()) {
            return Ok(None);
        }
        let op = guard(|| ops::lookup_or_error("kd.tuples.slice"))?;
        let bound = |b: &Bound<'_, PyAny>| if b.is_none() { Ok(None) } else { arg_expr(&op, "bound", b).map(Some) };
        let args = vec![bound(&start)?, bound(&stop)?, bound(&step)?];
        return Ok(Some(guard(|| Expr::op("kd.tuples.slice", args))?));
    }
    let Ok(t) = x.cast::<PyTuple>() else { return Ok(None) };
    if !t.iter().any(|i| i.is_instance_of::<PyExpr>()) {
        return Ok(None);
    }
    let op = guard(|| ops::lookup_or_error("kd.tuples.tuple"))?;
    let items = t.iter().map(|i| arg_expr(&op, "item", &i)).collect::<PyResult<Vec<_>>>()?;
    Ok(Some(guard(|| Expr::call(&op, items, vec![]))?))
}

/// `x` as an expression: an Expr as it is, anything else as a literal.
fn as_expr(op: &str, x: &Bound<'_, PyAny>) -> PyResult<Expr> {
    if let Ok(e) = x.cast::<PyExpr>() {
        return Ok(e.get().inner.clone());
    }
    if let Some(t) = tuple_of_exprs(x)? {
        return Ok(t);
    }
    Ok(Expr::literal(to_value(op, x, true)?))
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
    /// The same expression (how a view of an extension type, a subclass,
    /// is made from an expression).
    #[new]
    fn new(expr: PyRef<'_, PyExpr>) -> PyExpr {
        PyExpr { inner: expr.inner.clone() }
    }

    fn __repr__(&self) -> String {
        plait_expr::text::expr_text(&self.inner)
    }

    fn __str__(&self) -> String {
        self.__repr__()
    }

    /// The structural fingerprint, as an int.
    #[getter]
    fn fingerprint(&self) -> crate::py_fingerprint::PyFingerprint {
        crate::py_fingerprint::PyFingerprint(self.inner.fingerprint())
    }

    fn __hash__(&self) -> u64 {
        self.inner.fingerprint() as u64
    }

    /// Evaluates with the inputs given by name (`expr.eval(x=...)`).
    #[pyo3(signature = (**inputs))]
    fn eval(&self, py: Python<'_>, inputs: Option<&Bound<'_, PyDict>>) -> PyResult<Py<PyAny>> {
        eval_expr(py, self, inputs, None)
    }

    /// What the node is: "input", "variable", "placeholder", "literal" or
    /// "operator".
    fn _kind(&self) -> &'static str {
        match self.inner.kind() {
            NodeKind::Input(_) => "input",
            NodeKind::Variable(_) => "variable",
            NodeKind::Placeholder(_) => "placeholder",
            NodeKind::Literal(_) => "literal",
            NodeKind::Op { .. } => "operator",
        }
    }

    /// The name of an input, variable or placeholder leaf (else None).
    #[getter]
    fn leaf_name(&self) -> Option<String> {
        match self.inner.kind() {
            NodeKind::Input(n) | NodeKind::Variable(n) | NodeKind::Placeholder(n) => Some(n.to_string()),
            _ => None,
        }
    }

    /// The arguments of an operator node (unspecified ones left out), a
    /// tuple as Koda's.
    #[getter]
    fn node_deps<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.inner.children().map(|c| PyExpr { inner: c.clone() }).collect::<Vec<_>>())
    }

    /// The operator of an operator node, else None.
    #[getter]
    fn op(&self) -> Option<PyExprOperator> {
        self.inner.op_ref().map(|op| PyExprOperator { op: op.clone() })
    }

    /// The value of a literal node, else None.
    #[getter]
    fn qvalue(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        self.inner.literal_value().map(|v| from_value(py, v.clone())).transpose()
    }

    /// The tags of this node (descriptive metadata; see `kd.expr.tagged`).
    #[getter]
    fn tags(&self, py: Python<'_>) -> PyResult<Vec<Py<PyAny>>> {
        self.inner.tags().iter().map(|t| from_value(py, t.clone())).collect()
    }

    /// This node with `tags` in place of its own (same fingerprint).
    fn _with_tags(&self, tags: &Bound<'_, PyTuple>) -> PyResult<PyExpr> {
        let tags = tags.iter().map(|t| to_value("kd.expr.tagged", &t, false)).collect::<PyResult<Vec<_>>>()?;
        Ok(PyExpr { inner: self.inner.with_tags(tags) })
    }

    /// This operator node with other arguments (same operator, tags kept).
    fn _with_node_deps(&self, deps: Vec<PyRef<'_, PyExpr>>) -> PyResult<PyExpr> {
        let slots = self.inner.args();
        if deps.len() != self.inner.children().count() {
            return Err(crate::errors::value_error("kd.expr", format!("expected {} node deps, got {}", self.inner.children().count(), deps.len())));
        }
        let mut deps = deps.into_iter();
        let args = slots.iter().map(|s| s.as_ref().map(|_| deps.next().expect("counted").inner.clone())).collect();
        Ok(PyExpr { inner: self.inner.with_args(args) })
    }

    fn __bool__(&self) -> PyResult<bool> {
        Err(type_error(
            "kd.expr",
            "__bool__ is disabled for an Expr: it has no value until it is evaluated (in a traced function, Python `if` \
             runs once, at tracing; use kd.if_ or kd.cond to decide at evaluation)",
        ))
    }

    /// Expressions are immutable: `e.x = v` is refused with what to use.
    fn __setattr__(&self, name: &str, _value: &Bound<'_, PyAny>) -> PyResult<()> {
        Err(crate::errors::value_error(
            "kd.expr",
            format!("setting attribute '{name}' on a DataSlice is not supported in expr/tracing mode; use .with_attrs({name}=...) instead"),
        ))
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
    fn __xor__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        self.binary("kd.xor", other, false)
    }
    fn __rxor__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        self.binary("kd.xor", other, true)
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
        let name_item = Expr::literal(to_value("kd.core.get_attr", &PyString::new(py, name).into_any(), true)?);
        node("kd.core.get_attr", vec![Some(self.inner.clone()), Some(name_item)])
    }

    /// `f(*args, **kwargs)`: a call of the functor `f` evaluates to.
    #[pyo3(signature = (*args, **kwargs))]
    fn __call__(&self, py: Python<'_>, args: &Bound<'_, PyTuple>, kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<PyExpr> {
        let op = guard(|| ops::lookup_or_error("kd.functor.call"))?;
        let me = Py::new(py, PyExpr { inner: self.inner.clone() })?.into_any();
        let all = PyTuple::new(py, std::iter::once(me.bind(py).clone()).chain(args.iter()).collect::<Vec<_>>())?;
        build(&op, &all, kwargs)
    }

    /// `e[k]`: items of lists or values of dicts.
    /// `e[key]`: `kd.core.get_item`; a Python slice `e[a:b]` is the list
    /// items in that range, as on DataSlices: the rows of `kd.explode(e)`,
    /// cut by `kd.subslice` unless the range is whole.
    fn __getitem__(&self, key: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        if key.is_instance_of::<pyo3::types::PySlice>() {
            let one = Expr::literal(ExprValue::slice(guard(|| {
                plait_core::DataSlice::item(Some(plait_core::ScalarRef::Int32(1)), plait_core::Schema::Int32)
            })?));
            let rows = node("kd.lists.explode", vec![Some(self.inner.clone()), Some(one)])?;
            let range = match tuple_of_exprs(key)? {
                Some(computed) => computed,
                None => match crate::py_operator::key_arg("kd.core.get_item", key, None)? {
                    Value::Range { start: None, stop: None, step: None } => return Ok(rows),
                    range => Expr::literal(ExprValue::Data(range)),
                },
            };
            let keys = vec![Expr::literal(ExprValue::Data(Value::Ellipsis)), range];
            let op = guard(|| ops::lookup_or_error("kd.slices.subslice"))?;
            return located(guard(|| Expr::call(&op, std::iter::once(rows.inner).chain(keys).collect(), Vec::new()))?);
        }
        node("kd.core.get_item", vec![Some(self.inner.clone()), Some(as_expr("kd.core.get_item", key)?)])
    }
}

// ---------------------------------------------------------------- operators

/// An operator of expressions (`kd.optools`): calling it builds a node.
#[pyclass(name = "ExprOperator", module = "plait.types", frozen, dict)]
#[derive(Clone)]
pub struct PyExprOperator {
    op: OpRef,
}

#[pymethods]
impl PyExprOperator {
    #[pyo3(signature = (*args, **kwargs))]
    fn __call__(slf: &Bound<'_, Self>, args: &Bound<'_, PyTuple>, kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<PyExpr> {
        let op = slf.get().op.clone();
        if CALL_HOOKS.load(std::sync::atomic::Ordering::Relaxed) {
            // Operators of `kd.optools` with qtype constraints, overloads or
            // boxing policies: the hook checks (and re-boxes) the arguments.
            static HOOK: pyo3::sync::PyOnceLock<Py<PyAny>> = pyo3::sync::PyOnceLock::new();
            let py = slf.py();
            let hook = HOOK.get_or_try_init(py, || py.import("plait.kd.optools")?.getattr("_call_hook").map(Bound::unbind))?;
            let found = hook.bind(py).call1((slf, args, kwargs))?;
            if !found.is_none() {
                let (args, kwargs): (Bound<'_, PyTuple>, Option<Bound<'_, PyDict>>) = found.extract()?;
                return build(&op, &args, kwargs.as_ref());
            }
        }
        build(&op, args, kwargs)
    }

    /// An identity shared by an operator and its aliases (two operators
    /// with equal `_impl_id` compute the same).
    #[getter]
    fn _impl_id(&self) -> u128 {
        let mut h = plait_core::itemid::UuidHasher::new("expr_operator_impl");
        match &self.op.kind {
            OperatorKind::Backend(op) => h.write_str(op.name),
            OperatorKind::Builtin(def) => h.write_str(def.name),
            OperatorKind::Lambda(body) => {
                h.write_str(&self.op.signature());
                h.write_bytes(&body.fingerprint().to_le_bytes());
            }
            OperatorKind::Function { function, .. } => h.write_bytes(&(Arc::as_ptr(function) as *const () as usize as u64).to_le_bytes()),
        }
        h.finish()
    }

    /// Computes the operator now, on values (the eager form of a builtin
    /// operator, `kd.if_` ...): Python scalars are boxed, tuples, named
    /// tuples and iterables become theirs.
    #[pyo3(signature = (*args, **kwargs))]
    fn _eval(&self, py: Python<'_>, args: &Bound<'_, PyTuple>, kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Py<PyAny>> {
        let name = &self.op.name;
        let positional = args.iter().map(|a| to_value(name, &a, false)).collect::<PyResult<Vec<_>>>()?;
        let mut keywords = Vec::new();
        if let Some(kwargs) = kwargs {
            for (k, v) in kwargs.iter() {
                let k = k.extract::<String>()?;
                let value = match type_witness(&k, &v)? {
                    Some(witness) => witness,
                    None => to_value(name, &v, false)?,
                };
                keywords.push((k, value));
            }
        }
        let bound = guard(|| backend::bind_params(name, &self.op.params, positional, keywords))?;
        // A builtin may wait (for streams, for other threads calling Python).
        let op = self.op.clone();
        from_value(py, crate::errors::guard_detached(py, move || op.call(bound))?)
    }

    /// Other names of the operator (`kd.if_` for `kd.functor.if_`).
    #[getter]
    fn aliases(&self) -> Vec<&'static str> {
        match &self.op.kind {
            OperatorKind::Builtin(def) => def.aliases.to_vec(),
            OperatorKind::Backend(op) => op.aliases.clone(),
            _ => Vec::new(),
        }
    }

    #[getter]
    fn name(&self) -> String {
        self.op.name.to_string()
    }

    #[getter]
    fn doc(&self) -> String {
        self.op.doc.clone()
    }

    /// The Python symbol the operator prints as (`+`, `~`, ...), if any.
    #[getter(_symbol)]
    fn symbol(&self) -> Option<&'static str> {
        plait_expr::text::operator_symbol(&self.op)
    }

    /// "backend", "lambda", "py_function" or "builtin".
    #[getter]
    fn kind(&self) -> &'static str {
        match self.op.kind {
            OperatorKind::Backend(_) => "backend",
            OperatorKind::Lambda(_) => "lambda",
            OperatorKind::Function { .. } => "py_function",
            OperatorKind::Builtin(_) => "builtin",
        }
    }

    /// The body of a lambda operator (over placeholders `P.<param>`).
    #[getter]
    fn lambda_body(&self) -> Option<PyExpr> {
        match &self.op.kind {
            OperatorKind::Lambda(body) => Some(PyExpr { inner: body.clone() }),
            _ => None,
        }
    }

    #[getter]
    fn fingerprint(&self) -> crate::py_fingerprint::PyFingerprint {
        crate::py_fingerprint::PyFingerprint(self.op.fingerprint)
    }

    fn parameters(&self, py: Python<'_>) -> PyResult<Vec<ParameterInfo>> {
        parameter_info(py, &self.op.params)
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyExprOperator>().is_ok_and(|o| o.get().op.fingerprint == self.op.fingerprint)
    }

    fn __hash__(&self) -> u64 {
        self.op.fingerprint as u64
    }

    fn __repr__(&self) -> String {
        let kind = match &self.op.kind {
            OperatorKind::Lambda(_) => "LambdaOperator",
            OperatorKind::Function { .. } => "PyFunctionOperator",
            OperatorKind::Backend(_) => "BackendOperator",
            OperatorKind::Builtin(_) => "Operator",
        };
        let body = match &self.op.kind {
            OperatorKind::Lambda(body) => format!(": {}", plait_expr::text::expr_text(body)),
            _ => String::new(),
        };
        format!("<{kind} '{}'({}){body}>", self.op.name, self.op.signature())
    }
}

/// A Python function called by a function operator.
struct PyFunction(Py<PyAny>);

impl Function for PyFunction {
    fn call(&self, op: &Operator, args: CallArgs) -> plait_core::Result<ExprValue> {
        // The function computes: `kd.<op>` inside it is eager even when the
        // evaluation was started inside tracing.
        let tracing = TRACING.with(|t| t.replace(0));
        let result = self.call_python(op, args);
        TRACING.with(|t| t.set(tracing));
        result
    }
}

impl PyFunction {
    fn call_python(&self, op: &Operator, args: CallArgs) -> plait_core::Result<ExprValue> {
        Python::attach(|py| {
            let result = (|| -> PyResult<ExprValue> {
                let mut positional: Vec<Py<PyAny>> = Vec::new();
                let kwargs = PyDict::new(py);
                // Positional while the arguments come in order; by keyword
                // after an unspecified one (so the function's default applies).
                let mut gap = false;
                for (p, v) in op.params.iter().zip(args.values) {
                    match (p.kind, v) {
                        (ParamKind::VarPositional, _) => {
                            for a in &args.var_args {
                                positional.push(from_value(py, a.clone())?);
                            }
                        }
                        (ParamKind::VarKeyword, _) => {}
                        (_, None) => gap = true,
                        (ParamKind::KeywordOnly, Some(v)) => kwargs.set_item(&p.name, from_value(py, v)?)?,
                        (_, Some(v)) if gap => kwargs.set_item(&p.name, from_value(py, v)?)?,
                        (_, Some(v)) => positional.push(from_value(py, v)?),
                    }
                }
                for (k, v) in args.var_kwargs {
                    kwargs.set_item(k, from_value(py, v)?)?;
                }
                let out = self.0.bind(py).call(PyTuple::new(py, positional)?, Some(&kwargs))?;
                to_value(&op.name, &out, false)
            })();
            result.map_err(|e| host_error(&op.name, py, e))
        })
    }
}

/// Parameters from `(name, kind, default_kind, default)` tuples, where
/// `default_kind` is "required", "unspecified" or "value".
fn params_from_py(op: &str, spec: Vec<(String, String, String, Py<PyAny>)>, py: Python<'_>) -> PyResult<Vec<Param>> {
    spec.into_iter()
        .map(|(name, kind, default_kind, default)| {
            let kind = crate::py_operator::param_kind(op, &kind)?;
            let default = match default_kind.as_str() {
                "required" => None,
                "unspecified" => Some(None),
                _ => match value_arg(op, default.bind(py)) {
                    Ok(Value::Slice(item)) => Some(Some(item)),
                    _ => {
                        return Err(type_error(
                            op,
                            format!("the default of parameter '{name}' must be a DataItem or a Python scalar, got {}", default.bind(py).repr()?),
                        ));
                    }
                },
            };
            Ok(Param { name, kind, default })
        })
        .collect()
}

type ParamSpec = Vec<(String, String, String, Py<PyAny>)>;

/// `kd.optools.as_lambda_operator`: an operator whose body is `body`.
#[pyfunction]
fn make_lambda_operator(py: Python<'_>, name: &str, params: ParamSpec, doc: &str, body: &Bound<'_, PyAny>) -> PyResult<PyExprOperator> {
    let params = params_from_py("kd.optools.as_lambda_operator", params, py)?;
    let body = as_expr("kd.optools.as_lambda_operator", body)?;
    Ok(PyExprOperator { op: guard(|| Operator::lambda(name, params, doc, body))? })
}

/// `kd.optools.as_py_function_operator`: an operator calling `function`.
#[pyfunction]
fn make_py_function_operator(
    py: Python<'_>,
    name: &str,
    params: ParamSpec,
    doc: &str,
    function: Py<PyAny>,
    deterministic: bool,
) -> PyResult<PyExprOperator> {
    let params = params_from_py("kd.optools.as_py_function_operator", params, py)?;
    Ok(PyExprOperator { op: Operator::function(name, params, doc, Arc::new(PyFunction(function)), deterministic) })
}

/// `kd.optools.as_backend_operator`: the Rust kernel `kernel` under `name`.
#[pyfunction]
fn make_backend_operator(py: Python<'_>, name: &str, kernel: &str, params: ParamSpec, doc: &str) -> PyResult<PyExprOperator> {
    let params = params_from_py("kd.optools.as_backend_operator", params, py)?;
    Ok(PyExprOperator { op: guard(|| Operator::backend(name, kernel, params, doc))? })
}

/// Whether some operator has a call hook (`plait.kd.optools._call_hook`).
static CALL_HOOKS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Turns on the call hook of `kd.optools` operators (once one needs it).
#[pyfunction]
fn enable_call_hooks() {
    CALL_HOOKS.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// `kd.optools.add_to_registry`: registers `op` under `name` (returns the
/// registered operator, which shows `name`).
#[pyfunction]
fn registry_add(name: &str, op: PyRef<'_, PyExprOperator>, replace: bool) -> PyResult<PyExprOperator> {
    let named = if &*op.op.name == name { op.op.clone() } else { op.op.renamed(name) };
    guard(|| ops::add_to_registry(name, named.clone(), replace))?;
    Ok(PyExprOperator { op: named })
}

/// The builtin operators (`kd.if_`, `kd.iterables.make`, ...) under their
/// canonical names.
#[pyfunction]
fn builtin_operators() -> Vec<PyExprOperator> {
    plait_expr::builtins::all().filter_map(|def| ops::lookup(def.name)).map(|op| PyExprOperator { op }).collect()
}

/// Every name an operator is registered under, sorted.
#[pyfunction]
fn registry_names() -> Vec<String> {
    ops::registered_names()
}

/// The operator registered as `name`, or None.
#[pyfunction]
fn registry_lookup(name: &str) -> Option<PyExprOperator> {
    ops::lookup(name).map(|op| PyExprOperator { op })
}

// ---------------------------------------------------------------- functions

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

/// `P.name` (lambda bodies).
#[pyfunction]
fn expr_placeholder(name: &str) -> PyExpr {
    PyExpr { inner: Expr::placeholder(name) }
}

/// `kd.expr.literal(value)`; any Python object is kept as it is.
#[pyfunction]
fn expr_literal(value: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
    Ok(PyExpr { inner: Expr::literal(to_value("kd.expr.literal", value, false)?) })
}

/// `kd.expr.as_expr(value)` of a value: as [`expr_literal`], but a Python
/// object that is no Koda value is boxed as operators box it (a NumPy
/// number is an item; a dict, a set or an arbitrary object is refused), as
/// Koda does, rather than kept as a Python object.
#[pyfunction]
fn expr_boxed_literal(value: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
    const OP: &str = "kd.expr.as_expr";
    if value.is(value.py().Ellipsis()) {
        return Ok(PyExpr { inner: Expr::literal(ExprValue::from(Value::Ellipsis)) });
    }
    if let Ok(s) = value.cast::<pyo3::types::PySlice>() {
        // Python's slice is Koda's (`kd.tuples.slice`): None parts unspecified.
        let part = |name: &str| -> PyResult<Option<Box<plait_core::DataSlice>>> {
            let v = s.getattr(name)?;
            match if v.is_none() { None } else { Some(value_arg(OP, &v)?) } {
                None => Ok(None),
                Some(Value::Slice(x)) => Ok(Some(Box::new(x))),
                Some(other) => Err(type_error(OP, format!("a slice's {name} must be a DataSlice, got {}", other.describe()))),
            }
        };
        let range = Value::Range { start: part("start")?, stop: part("stop")?, step: part("step")? };
        return Ok(PyExpr { inner: Expr::literal(ExprValue::from(range)) });
    }
    let literal = match to_value(OP, value, false)? {
        ExprValue::Foreign(f) if f.as_any().is::<PyForeign>() => ExprValue::from(value_arg(OP, value)?),
        other => other,
    };
    Ok(PyExpr { inner: Expr::literal(literal) })
}

/// Operator `name` applied to `args` (one per parameter; None: unspecified).
#[pyfunction]
fn expr_op(name: &str, args: &Bound<'_, PyList>) -> PyResult<PyExpr> {
    let args = args.iter().map(|a| if a.is_none() { Ok(None) } else { as_expr(name, &a).map(Some) }).collect::<PyResult<Vec<_>>>()?;
    node(name, args)
}

/// Operator `name` called with `*args, **kwargs` (lazily).
#[pyfunction]
#[pyo3(signature = (name, *args, **kwargs))]
fn expr_call(name: &str, args: &Bound<'_, PyTuple>, kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<PyExpr> {
    let op = guard(|| ops::lookup_or_error(name))?;
    build(&op, args, kwargs)
}

/// `kd.expr.pack_expr`: `expr` as an EXPR DataItem.
#[pyfunction]
fn expr_pack(py: Python<'_>, expr: PyRef<'_, PyExpr>) -> PyResult<Py<PyAny>> {
    wrap(py, plait_expr::packed::pack(&expr.inner))
}

/// `kd.expr.unpack_expr`: the expression in an EXPR DataItem.
#[pyfunction]
fn expr_unpack(ds: PyRef<'_, PyDataSlice>) -> PyResult<PyExpr> {
    Ok(PyExpr { inner: guard(|| plait_expr::packed::unpack(&ds.inner))? })
}

/// The names of the inputs of `expr` (with `variables`, of its variables), sorted.
#[pyfunction]
#[pyo3(signature = (expr, variables = false))]
fn expr_input_names(expr: PyRef<'_, PyExpr>, variables: bool) -> Vec<String> {
    if variables { expr.inner.variable_names() } else { expr.inner.input_names() }
}

/// The name of a named expression (`kd.with_name`), else None.
#[pyfunction]
fn expr_get_name(expr: PyRef<'_, PyExpr>) -> Option<String> {
    plait_expr::transform::node_name(&expr.inner)
}

/// `expr` prepared for evaluation (names dropped, lambdas lowered,
/// literals folded).
#[pyfunction]
fn expr_prepare(expr: PyRef<'_, PyExpr>) -> PyResult<PyExpr> {
    Ok(PyExpr { inner: guard(|| plait_expr::prepare::prepare(&expr.inner))? })
}

/// Every distinct node of `expr`, each after its arguments.
#[pyfunction]
fn expr_post_order(expr: PyRef<'_, PyExpr>) -> Vec<PyExpr> {
    expr.inner.post_order().into_iter().map(|inner| PyExpr { inner }).collect()
}

/// `kd.expr.transform(expr, fn)`: a bottom-up pass calling `fn(node)` on
/// each distinct node (with its arguments already transformed).
#[pyfunction]
fn expr_transform(py: Python<'_>, expr: PyRef<'_, PyExpr>, function: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
    let result = plait_expr::transform::transform(&expr.inner, &mut |_: &Expr, node: Expr| {
        let out = function.call1((PyExpr { inner: node },)).map_err(|e| host_error("kd.expr.transform", py, e))?;
        match out.cast::<PyExpr>() {
            Ok(e) => Ok(e.get().inner.clone()),
            Err(_) => Ok(Expr::literal(to_value("kd.expr.transform", &out, false).map_err(|e| host_error("kd.expr.transform", py, e))?)),
        }
    });
    Ok(PyExpr { inner: result.map_err(to_py_err)? })
}

/// Substitutions by fingerprint: `kd.expr.sub`.
#[pyfunction]
fn expr_sub(expr: PyRef<'_, PyExpr>, pairs: Vec<(PyRef<'_, PyExpr>, Bound<'_, PyAny>)>) -> PyResult<PyExpr> {
    let mut subs = HashMap::new();
    for (old, new) in pairs {
        subs.insert(old.inner.fingerprint(), as_expr("kd.expr.sub", &new)?);
    }
    Ok(PyExpr { inner: plait_expr::transform::substitute(&expr.inner, &subs) })
}

fn named_subs(op: &str, subs: &Bound<'_, PyDict>) -> PyResult<HashMap<String, Expr>> {
    subs.iter().map(|(k, v)| Ok((k.extract::<String>()?, as_expr(op, &v)?))).collect()
}

/// `kd.expr.sub_by_name`.
#[pyfunction]
fn expr_sub_by_name(expr: PyRef<'_, PyExpr>, subs: &Bound<'_, PyDict>) -> PyResult<PyExpr> {
    let subs = named_subs("kd.expr.sub_by_name", subs)?;
    Ok(PyExpr { inner: plait_expr::transform::substitute_by_name(&expr.inner, &subs) })
}

/// `kd.expr.sub_inputs`.
#[pyfunction]
fn expr_sub_inputs(expr: PyRef<'_, PyExpr>, subs: &Bound<'_, PyDict>) -> PyResult<PyExpr> {
    let subs = named_subs("kd.expr.sub_inputs", subs)?;
    Ok(PyExpr { inner: plait_expr::transform::substitute_inputs(&expr.inner, &subs) })
}

fn value_map(op: &str, values: Option<&Bound<'_, PyDict>>) -> PyResult<HashMap<String, ExprValue>> {
    let mut out = HashMap::new();
    if let Some(values) = values {
        for (name, value) in values.iter() {
            out.insert(name.extract::<String>()?, to_value(op, &value, false)?);
        }
    }
    Ok(out)
}

/// `kd.eval(expr, **inputs)` (and variables, for functors). An error
/// raised by an operator carries a note naming the node. `S` (`I.self`)
/// not given is Koda's entity saying so (`self_not_specified=present`).
#[pyfunction]
#[pyo3(signature = (expr, inputs = None, variables = None))]
fn eval_expr(py: Python<'_>, expr: &PyExpr, inputs: Option<&Bound<'_, PyDict>>, variables: Option<&Bound<'_, PyDict>>) -> PyResult<Py<PyAny>> {
    let mut inputs = value_map("kd.eval", inputs)?;
    if !inputs.contains_key("self") {
        inputs.insert("self".to_string(), ExprValue::from(Value::Slice(guard(plait_expr::functor::self_not_specified)?)));
    }
    let variables = variables.map(|v| value_map("kd.eval", Some(v))).transpose()?;
    let expr = expr.inner.clone();
    let result = crate::errors::guard_detached(py, move || {
        let bindings = Bindings { inputs: Some(&inputs), variables: variables.as_ref() };
        Ok(evaluate(&expr, &bindings))
    })?;
    match result {
        Ok(value) => from_value(py, value),
        Err(failure) => Err(eval_failure(py, failure)),
    }
}

/// The Python exception for a failed evaluation: the error (or the Python
/// exception behind it) with its context as notes, then a note naming the
/// failing node (after the count of notes left out, if any).
pub fn eval_failure(py: Python<'_>, failure: plait_expr::eval::EvalError) -> PyErr {
    let err = to_py_err(failure.error);
    if let Some(node) = failure.node {
        let _ = err.value(py).call_method1("add_note", (plait_expr::eval::EvalError::node_context(&node).to_string(),));
    }
    err
}

// ---------------------------------------------------------------- host

/// Output of evaluation goes to `sys.stdout`, and long loops in Rust
/// (`kd.map`) show `kd.progress` bars.
struct PyHost;

/// A `kd.progress.Bar` being shown.
struct PyBar(Py<PyAny>);

impl plait_expr::host::Host for PyHost {
    fn print(&self, text: &str) {
        // Printing is not the computation: a failing stdout is no error of it.
        Python::attach(|py| {
            if let Ok(stdout) = py.import("sys").and_then(|sys| sys.getattr("stdout")) {
                drop(stdout.call_method1("write", (text,)));
            }
        });
    }

    fn progress(&self, label: &str, total: usize) -> Option<Box<dyn plait_expr::host::Bar>> {
        Python::attach(|py| {
            let progress = py.import("plait.kd.progress").ok()?;
            if !progress.call_method1("enabled", (total,)).ok()?.is_truthy().ok()? {
                return None;
            }
            let bar = progress.getattr("Bar").ok()?.call1((total, label)).ok()?;
            bar.call_method0("__enter__").ok()?;
            Some(Box::new(PyBar(bar.unbind())) as Box<dyn plait_expr::host::Bar>)
        })
    }
}

impl plait_expr::host::Bar for PyBar {
    fn update(&mut self, done: usize) {
        // A bar that fails to draw is not the computation's failure.
        Python::attach(|py| drop(self.0.bind(py).call_method1("update", (done,))));
    }

    fn finish(&mut self) {
        Python::attach(|py| drop(self.0.bind(py).call_method1("__exit__", (py.None(), py.None(), py.None()))));
    }
}

/// Forgets the cached evaluation plans and compiled functors
/// (`kd.clear_eval_cache`); they are rebuilt on next use.
#[pyfunction]
fn clear_eval_cache() {
    plait_expr::eval::clear_plans();
    plait_expr::functor::clear_compiled();
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    plait_expr::host::set_host(Box::new(PyHost));
    m.add_class::<PyExpr>()?;
    m.add_class::<PyExprOperator>()?;
    m.add_function(wrap_pyfunction!(clear_eval_cache, m)?)?;
    m.add_function(wrap_pyfunction!(tracing_enter, m)?)?;
    m.add_function(wrap_pyfunction!(tracing_exit, m)?)?;
    m.add_function(wrap_pyfunction!(py_is_tracing, m)?)?;
    m.add_function(wrap_pyfunction!(tracing_suspend, m)?)?;
    m.add_function(wrap_pyfunction!(tracing_resume, m)?)?;
    m.add_function(wrap_pyfunction!(make_lambda_operator, m)?)?;
    m.add_function(wrap_pyfunction!(make_py_function_operator, m)?)?;
    m.add_function(wrap_pyfunction!(make_backend_operator, m)?)?;
    m.add_function(wrap_pyfunction!(registry_add, m)?)?;
    m.add_function(wrap_pyfunction!(enable_call_hooks, m)?)?;
    m.add_function(wrap_pyfunction!(registry_lookup, m)?)?;
    m.add_function(wrap_pyfunction!(builtin_operators, m)?)?;
    m.add_function(wrap_pyfunction!(expr_input, m)?)?;
    m.add_function(wrap_pyfunction!(expr_variable, m)?)?;
    m.add_function(wrap_pyfunction!(expr_placeholder, m)?)?;
    m.add_function(wrap_pyfunction!(expr_literal, m)?)?;
    m.add_function(wrap_pyfunction!(expr_boxed_literal, m)?)?;
    m.add_function(wrap_pyfunction!(registry_names, m)?)?;
    m.add_function(wrap_pyfunction!(expr_op, m)?)?;
    m.add_function(wrap_pyfunction!(expr_call, m)?)?;
    m.add_function(wrap_pyfunction!(expr_input_names, m)?)?;
    m.add_function(wrap_pyfunction!(expr_pack, m)?)?;
    m.add_function(wrap_pyfunction!(expr_unpack, m)?)?;
    m.add_function(wrap_pyfunction!(expr_get_name, m)?)?;
    m.add_function(wrap_pyfunction!(expr_prepare, m)?)?;
    m.add_function(wrap_pyfunction!(expr_post_order, m)?)?;
    m.add_function(wrap_pyfunction!(expr_transform, m)?)?;
    m.add_function(wrap_pyfunction!(expr_sub, m)?)?;
    m.add_function(wrap_pyfunction!(expr_sub_by_name, m)?)?;
    m.add_function(wrap_pyfunction!(expr_sub_inputs, m)?)?;
    m.add_function(wrap_pyfunction!(eval_expr, m)?)?;
    Ok(())
}
