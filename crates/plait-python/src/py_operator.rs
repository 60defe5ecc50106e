//! Operators as Python callables: `kd.math.add` and friends are `Operator`
//! objects built from the Rust registry, binding Python arguments to Koda's
//! signature and boxing Python scalars into DataItems.
//! Also the Python operators of DataSlice (`+`, `==`, `&`, ...).

use plait_core::{DataBag, DataSlice};
use plait_ops::registry::{self, Boxing, ParamKind, Value};
use pyo3::prelude::*;
use pyo3::pyclass::CompareOp;
use pyo3::types::{PyDict, PyList, PySlice, PyTuple};

/// Koda's errors for a Python list or dict given as the attribute value of
/// many items (which one Koda list or dict would be shared by).
pub const LIST_ATTR_OF_SLICE: &str = "assigning a Python list/tuple to an attribute is only supported for Koda List DataItem, but not for \
                                      1+-dimensional slices. use kd.list() if you want to create the same list instance to be assigned to \
                                      all items in the slice, kd.list_like() to create multiple list instances, or kd.slice() to create a slice";
pub const DICT_ATTR_OF_SLICE: &str = "assigning a Python dict to an attribute is only supported for Koda Dict DataItem, but not for \
                                      1+-dimensional slices. use kd.dict() if you want to create the same dictionary instance to be \
                                      assigned to all items in the slice, or kd.dict_like() to create multiple dictionary instances";

/// A Python list, tuple or dict (not a subclass: Koda refuses those).
pub(crate) fn is_container(x: &Bound<'_, PyAny>) -> bool {
    x.is_exact_instance_of::<PyList>() || x.is_exact_instance_of::<PyTuple>() || x.is_exact_instance_of::<PyDict>()
}

/// Whether keyword `name` of `op` is an attribute (`**attrs`), not one of
/// the parameters a keyword can name (`schema=`, `itemid=`, ...).
fn is_attribute(op: &registry::Operator, name: &str) -> bool {
    !op.params.iter().any(|p| p.name == name && matches!(p.kind, ParamKind::PositionalOrKeyword | ParamKind::KeywordOnly))
}

/// Whether the items `op` makes are one: its shape argument (a shape, or a
/// slice to take the shape of) and its attribute values have rank 0, as Koda
/// requires before one list or dict may be every item's attribute. Ids
/// given as `itemid=` do not count.
fn makes_one_item(op: &registry::Operator, positional: &[Option<Value>], keywords: &[(String, Option<Value>)]) -> bool {
    let shaped = op.params.first().is_some_and(|p| matches!(p.name.as_str(), "shape" | "shape_from" | "shape_and_mask_from"));
    let rank = |v: &Value| match v {
        Value::Slice(x) => x.rank(),
        Value::Shape(s) => s.rank(),
        _ => 0,
    };
    let shape_rank = if shaped { positional.first().and_then(Option::as_ref).map_or(0, rank) } else { 0 };
    shape_rank == 0 && keywords.iter().filter(|(k, _)| is_attribute(op, k)).all(|(_, v)| v.as_ref().map_or(0, rank) == 0)
}

/// A Python list, tuple or dict as one Koda list or dict item, by Koda's
/// rule for attribute values and assigned values (Python's glue,
/// `plait.kd._container_values`, converts nested data); `op` names the
/// caller in its errors. Made `into` the mutable bag it is assigned in
/// where one is given and the rule allows (no merge then).
pub(crate) fn container_item(op: &str, x: &Bound<'_, PyAny>, into: Option<&DataBag>) -> PyResult<DataSlice> {
    let py = x.py();
    // A dict, or a list or tuple of no containers (most values given): as
    // kd.from_py infers it where that is Koda's rule (always for a flat
    // one), without the glue. (Koda's rule takes a list of lists as
    // kd.slice does, which the glue asks for.)
    let inferred = x.is_exact_instance_of::<PyDict>() || x.try_iter()?.all(|v| v.is_ok_and(|v| !is_container(&v)));
    if inferred {
        if let Some(made) = crate::from_py_plain::container_value_inferred(py, op, x, into)? {
            return Ok(made);
        }
    }
    let item = py.import("plait.kd._container_values")?.getattr("container_item")?.call1((x, op))?;
    Ok(item.cast::<PyDataSlice>()?.get().inner.clone())
}

/// Koda's error for a Python list given where a value is expected (a slice
/// or a Koda list?); Python's glue raises it too (`_plait.AMBIGUOUS_LIST`).
pub const AMBIGUOUS_LIST: &str = "passing a Python list to a Koda operation is ambiguous. Please use kd.slice(...) to create a slice or a \
                                  multi-dimensional slice, and kd.list(...) to create a single Koda list";

use crate::boxing::{box_item, box_slice, is_sequence_subclass, unsupported_type};
use crate::errors::{guard, value_error};
use crate::py_bag::PyDataBag;
use crate::py_shape::PyJaggedShape;
use crate::py_slice::{PyDataSlice, wrap};

/// `(name, kind, has_default, default)` of one parameter, for `inspect.Signature`.
pub type ParameterInfo = (String, String, bool, Option<Py<PyAny>>);

/// A Koda operator (e.g. `kd.math.add`), callable eagerly.
#[pyclass(module = "plait.types", frozen, dict)]
pub struct Operator {
    op: &'static registry::Operator,
    /// Computes even inside tracing (the `kd.eager` form).
    eager: bool,
}

/// An argument of operator `op` as a value: DataSlices, shapes and bags
/// pass as they are, Python scalars become DataItems, lists are refused as
/// in Koda. (`None` is a missing item; the null bag is a `NullDataBag`.)
pub fn value_arg(op: &str, x: &Bound<'_, PyAny>) -> PyResult<Value> {
    if let Ok(ds) = x.cast::<PyDataSlice>() {
        return Ok(Value::Slice(ds.get().inner.clone()));
    }
    if let Ok(shape) = x.cast::<PyJaggedShape>() {
        return Ok(Value::Shape(shape.get().inner.clone()));
    }
    if let Ok(bag) = x.cast::<PyDataBag>() {
        return Ok(Value::Bag(Some(bag.get().inner.clone())));
    }
    if x.is_instance_of::<crate::py_bag::PyNullBag>() {
        return Ok(Value::Bag(None));
    }
    if let Ok(range) = x.cast::<crate::py_range::PyRange>() {
        return Ok(range.get().value());
    }
    if x.is_instance_of::<PyList>() || x.is_instance_of::<PyTuple>() {
        return Err(value_error(op, AMBIGUOUS_LIST));
    }
    Ok(Value::Slice(box_item(op, x, None)?))
}

/// Koda's `unspecified` (`plait.kd._operators.unspecified`): an optional
/// argument passed without a value.
pub fn unspecified(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    static UNSPECIFIED: pyo3::sync::PyOnceLock<Py<PyAny>> = pyo3::sync::PyOnceLock::new();
    Ok(UNSPECIFIED.get_or_try_init(py, || py.import("plait.kd._operators")?.getattr("unspecified").map(Bound::unbind))?.bind(py))
}

/// Whether `x` is [`unspecified`].
pub fn is_unspecified(x: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(x.is(unspecified(x.py())?))
}

/// An argument of `op` boxed by its own rule for Python lists and tuples
/// (see [`Boxing`]); anything else as [`value_arg`] boxes it. `position`:
/// where the argument is among `*args`, if known (for error messages).
pub fn boxed_arg(op: &registry::Operator, x: &Bound<'_, PyAny>, position: Option<usize>) -> PyResult<Value> {
    let sequence = x.is_instance_of::<PyList>() || x.is_instance_of::<PyTuple>();
    match op.boxing {
        Boxing::Lists | Boxing::AtBinding { item: false } if sequence => Ok(Value::Slice(box_slice(op.name, x, None)?)),
        Boxing::Float64 if !x.is_instance_of::<PyDataSlice>() => Ok(Value::Slice(box_slice(op.name, x, Some(plait_core::Schema::Float64))?)),
        Boxing::Tuples if x.is_instance_of::<PyTuple>() => {
            let items = x
                .cast::<PyTuple>()?
                .iter()
                .map(|i| if i.is_instance_of::<PyList>() { Ok(Value::Slice(box_slice(op.name, &i, None)?)) } else { value_arg(op.name, &i) });
            Ok(Value::Tuple(items.collect::<PyResult<_>>()?))
        }
        Boxing::Keys => key_arg(op.name, x, position),
        _ => value_arg(op.name, x),
    }
}

/// A key of `kd.subslice` or `get_item` (`position` among its keys, where
/// known): a Python slice as its bounds, `...`, or any value boxed.
pub fn key_arg(op: &str, x: &Bound<'_, PyAny>, position: Option<usize>) -> PyResult<Value> {
    if x.is(x.py().Ellipsis()) {
        return Ok(Value::Ellipsis);
    }
    let Ok(s) = x.cast::<PySlice>() else { return value_arg(op, x) };
    if op == "kd.slices.subslice" {
        // Koda refuses any step of subslice keys (even 1), naming it boxed.
        if !s.getattr("step")?.is_none() {
            let at = position.map(|p| format!(" at position {p}")).unwrap_or_default();
            return Err(value_error(op, format!("slicing argument{at} is invalid: 'step' argument of a Slice is not supported, got: DATA_SLICE")));
        }
    } else if !crate::py_slice::unit_step(s)? {
        return Err(value_error(op, "slice with step != 1 is not supported"));
    }
    // A bound is any value boxed: an int, an integer item or a DataSlice of
    // integers (a range per item); the kernel refuses others.
    let bound = |name: &str| -> PyResult<Option<DataSlice>> {
        let v = s.getattr(name)?;
        if v.is_none() {
            return Ok(None);
        }
        if let Ok(ds) = v.cast::<PyDataSlice>() {
            return Ok(Some(ds.get().inner.clone()));
        }
        Ok(Some(box_item(op, &v, None)?))
    };
    Ok(Value::Range { start: bound("start")?.map(Box::new), stop: bound("stop")?.map(Box::new), step: None })
}

/// A DataSlice operand of a Python operator (`x + 1`): boxed like
/// [`value_arg`]; `None` for an expression, which computes the operator
/// itself (`kd.item(1) + I.a` is an expression).
fn operand(op: &str, x: &Bound<'_, PyAny>) -> PyResult<Option<DataSlice>> {
    if let Ok(ds) = x.cast::<PyDataSlice>() {
        return Ok(Some(ds.get().inner.clone()));
    }
    if x.is_instance_of::<crate::py_expr::PyExpr>() {
        return Ok(None);
    }
    match value_arg(op, x)? {
        Value::Slice(ds) => Ok(Some(ds)),
        other => Err(crate::errors::type_error(op, format!("expected a DataSlice, got {}", other.describe()))),
    }
}

/// An operator's result as a Python object: a DataSlice, a `JaggedShape`,
/// a `DataBag`, or a `NullDataBag` for the null bag.
pub fn value_to_py(py: Python<'_>, v: Value) -> PyResult<Py<PyAny>> {
    match v {
        Value::Slice(ds) => wrap(py, ds),
        Value::Shape(shape) => Ok(Py::new(py, PyJaggedShape { inner: shape })?.into_any()),
        Value::Bag(Some(bag)) => Ok(Py::new(py, PyDataBag { inner: bag })?.into_any()),
        Value::Bag(None) => Ok(Py::new(py, crate::py_bag::PyNullBag)?.into_any()),
        Value::Tuple(items) => {
            let items = items.into_iter().map(|v| value_to_py(py, v)).collect::<PyResult<Vec<_>>>()?;
            crate::py_expr::tuple_to_py(py, items)
        }
        Value::Range { start, stop, step } => {
            let unboxed = |b: Option<Box<DataSlice>>| b.map(|b| *b);
            crate::py_range::PyRange::new_py(py, unboxed(start), unboxed(stop), unboxed(step))
        }
        Value::Ellipsis => Ok(py.Ellipsis()),
    }
}

/// The name of the parameter the `i`-th positional argument binds to
/// (`args[k]` inside `*args`).
pub fn positional_name(params: &[registry::Param], i: usize) -> String {
    if let (Some(k), Some(var)) = (var_position(params, i), params.iter().find(|p| p.kind == ParamKind::VarPositional)) {
        return format!("{}[{k}]", var.name);
    }
    match params.iter().filter(|p| matches!(p.kind, ParamKind::PositionalOnly | ParamKind::PositionalOrKeyword)).nth(i) {
        Some(p) => p.name.clone(),
        None => format!("#{i}"),
    }
}

/// Where positional argument `i` is among `*args` of `params`, if there.
fn var_position(params: &[registry::Param], i: usize) -> Option<usize> {
    let positional = params.iter().filter(|p| matches!(p.kind, ParamKind::PositionalOnly | ParamKind::PositionalOrKeyword)).count();
    (i >= positional && params.iter().any(|p| p.kind == ParamKind::VarPositional)).then(|| i - positional)
}

/// From how many items of their arguments operators compute without the GIL.
const DETACH_MIN_ITEMS: usize = 1 << 15;

/// Runs the kernel `f` of an operator on `args` (`x + y`, `x == y`): from
/// [`DETACH_MIN_ITEMS`] items without the GIL, as registry calls, so that
/// other Python threads run meanwhile.
fn compute(py: Python<'_>, args: &[&DataSlice], f: impl FnOnce() -> plait_core::Result<DataSlice> + Send) -> PyResult<DataSlice> {
    if args.iter().map(|x| x.size()).sum::<usize>() >= DETACH_MIN_ITEMS { crate::errors::guard_detached(py, f) } else { guard(f) }
}

/// The items of an argument (a DataSlice's; 0 for other values).
fn value_items(v: &Value) -> usize {
    match v {
        Value::Slice(x) => x.size(),
        _ => 0,
    }
}

#[pymethods]
impl Operator {
    #[pyo3(signature = (*args, **kwargs))]
    pub(crate) fn __call__(&self, py: Python<'_>, args: &Bound<'_, PyTuple>, kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Py<PyAny>> {
        let name = self.op.name;
        if !self.eager && crate::py_expr::is_tracing() {
            return crate::py_expr::lazy_call(py, name, args, kwargs);
        }
        // As Koda's Python function: the arguments bind first (binding
        // errors win), then the first one is checked.
        if let Some(kind) = self.op.first_arg {
            if binds(self.op, args.len(), kwargs)? {
                check_first(self.op, kind, args, kwargs)?;
            }
        }
        // `unspecified` given for a parameter (not among `*args`) is None.
        let positional = args
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let position = var_position(&self.op.params, i);
                if position.is_none() && is_unspecified(&a)? {
                    return Ok(None);
                }
                boxed_arg(self.op, &a, position)
                    .map(Some)
                    .map_err(|e| crate::py_expr::eager_arg_error(self.op, &positional_name(&self.op.params, i), &a, e))
            })
            .collect::<PyResult<Vec<_>>>()?;
        let mut keywords = Vec::new();
        // The Python container given as an attribute value, if any (see
        // `Boxing::Containers`).
        let mut container = None;
        if let Some(kwargs) = kwargs {
            for (k, v) in kwargs.iter() {
                let k = k.extract::<String>()?;
                let attribute = self.op.boxing == registry::Boxing::Containers && is_attribute(self.op, &k);
                let value = if !is_attribute(self.op, &k) && is_unspecified(&v)? {
                    keywords.push((k, None));
                    continue;
                } else if attribute && is_container(&v) {
                    container = container.or(Some(if v.is_exact_instance_of::<PyDict>() { DICT_ATTR_OF_SLICE } else { LIST_ATTR_OF_SLICE }));
                    Value::Slice(container_item(name, &v, None).map_err(|e| crate::py_expr::eager_arg_error(self.op, &k, &v, e))?)
                } else if attribute && (is_sequence_subclass(&v) || v.is_instance_of::<PyDict>()) {
                    // Subclasses (an OrderedDict, a list subclass) are not
                    // Koda lists or dicts, nor slices (as in Koda).
                    return Err(unsupported_type(name, &v));
                } else {
                    boxed_arg(self.op, &v, None).map_err(|e| crate::py_expr::eager_arg_error(self.op, &k, &v, e))?
                };
                keywords.push((k, Some(value)));
            }
        }
        if let Some(message) = container {
            if !makes_one_item(self.op, &positional, &keywords) {
                return Err(value_error(name, message));
            }
        }
        // Large inputs compute without the GIL (other Python threads run
        // meanwhile, and threads calling operators at once compute at once);
        // small ones keep it: releasing costs more than they take.
        let items: usize = positional.iter().chain(keywords.iter().map(|(_, v)| v)).flatten().map(value_items).sum();
        let op = self.op;
        let result = if items >= DETACH_MIN_ITEMS {
            crate::errors::guard_detached(py, move || op.call_given(positional, keywords))?
        } else {
            guard(|| op.call_given(positional, keywords))?
        };
        value_to_py(py, result)
    }

    /// The form that computes even inside tracing (for `kd.eager`).
    fn _eager(&self) -> Operator {
        Operator { op: self.op, eager: true }
    }

    /// The canonical name, e.g. `kd.math.add`.
    #[getter]
    fn name(&self) -> &'static str {
        self.op.name
    }

    /// Other names of the operator (e.g. `kd.add`).
    #[getter]
    fn aliases(&self) -> Vec<&'static str> {
        self.op.aliases.clone()
    }

    /// The one-line description.
    #[getter]
    fn doc(&self) -> &'static str {
        self.op.doc
    }

    /// Whether the operator has a type rule (`kd.typing`); without one its
    /// result is unknown to inference.
    #[getter]
    fn _has_type_rule(&self) -> bool {
        self.op.type_rule.is_some()
    }

    /// The parameters, for `inspect.Signature` (see [`parameter_info`]).
    fn parameters(&self, py: Python<'_>) -> PyResult<Vec<ParameterInfo>> {
        parameter_info(py, &self.op.params)
    }

    fn __repr__(&self) -> String {
        format!("<Operator {}({})>", self.op.name, self.op.signature)
    }
}

/// Koda's TypeError unless the first argument of `op` (each of them, for
/// `*args`) is of `kind`.
fn check_first(op: &registry::Operator, kind: registry::FirstArg, args: &Bound<'_, PyTuple>, kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<()> {
    let Some(param) = op.params.first() else { return Ok(()) };
    let expect = |name: &str, x: &Bound<'_, PyAny>| match kind {
        registry::FirstArg::Shape => crate::py_shape::expect_shape(x),
        registry::FirstArg::Slice if x.is_instance_of::<PyDataSlice>() => Ok(()),
        registry::FirstArg::Slice => {
            Err(crate::errors::type_error(op.name, format!("expecting {name} to be a DataSlice, got {}", crate::errors::python_type_name(x)?)))
        }
    };
    if param.kind == ParamKind::VarPositional {
        return args.iter().try_for_each(|a| expect(&format!("*{}", param.name), &a));
    }
    let first = args.get_item(0).ok().or_else(|| kwargs.and_then(|k| k.get_item(param.name.as_str()).ok().flatten()));
    first.map_or(Ok(()), |x| expect(&param.name, &x))
}

/// Whether `positional` arguments and the keywords of `kwargs` fit the
/// operator's parameters (counts and names only; the call reports what
/// does not).
fn binds(op: &registry::Operator, positional: usize, kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<bool> {
    let has = |kind| op.params.iter().any(|p| p.kind == kind);
    let positional_params = op.params.iter().filter(|p| matches!(p.kind, ParamKind::PositionalOnly | ParamKind::PositionalOrKeyword)).count();
    if positional > positional_params && !has(ParamKind::VarPositional) {
        return Ok(false);
    }
    if let (Some(kwargs), false) = (kwargs, has(ParamKind::VarKeyword)) {
        for key in kwargs.keys() {
            let key = key.extract::<String>()?;
            let known = op.params.iter().any(|p| p.name == key && !matches!(p.kind, ParamKind::PositionalOnly | ParamKind::VarPositional));
            if !known {
                return Ok(false);
            }
        }
    }
    Ok(true)
}

/// The parameters as `(name, kind, has_default, default)`; `kind` is the
/// name of the `inspect.Parameter` kind, `default` a DataItem, or None when
/// required or unspecified (with `has_default` telling which).
pub fn parameter_info(py: Python<'_>, params: &[registry::Param]) -> PyResult<Vec<ParameterInfo>> {
    params
        .iter()
        .map(|p| {
            let kind = p.kind.name().to_ascii_uppercase();
            let default = match &p.default {
                Some(Some(item)) => Some(wrap(py, item.clone())?),
                _ => None,
            };
            Ok((p.name.clone(), kind, p.default.is_some(), default))
        })
        .collect()
}

/// The parameter kind named `name` (an `inspect.Parameter` kind name).
pub fn param_kind(op: &str, name: &str) -> PyResult<ParamKind> {
    ParamKind::ALL
        .into_iter()
        .find(|k| k.name().to_ascii_uppercase() == name)
        .ok_or_else(|| crate::errors::type_error(op, format!("unknown parameter kind {name}")))
}

/// Every registered operator.
#[pyfunction]
fn operators(py: Python<'_>) -> PyResult<Vec<Py<Operator>>> {
    registry::registry().operators().iter().map(|op| Py::new(py, Operator { op, eager: false })).collect()
}

/// The Python operators of DataSlice, computed by the `kd` operators.
#[pymethods]
impl PyDataSlice {
    fn __add__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Some(y) = operand("kd.math.add", other)? else { return Ok(py.NotImplemented()) };
        wrap(py, compute(py, &[&self.inner, &y], || plait_ops::math::add(&self.inner, &y))?)
    }

    fn __radd__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Some(x) = operand("kd.math.add", other)? else { return Ok(py.NotImplemented()) };
        wrap(py, compute(py, &[&self.inner, &x], || plait_ops::math::add(&x, &self.inner))?)
    }

    fn __sub__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Some(y) = operand("kd.math.subtract", other)? else { return Ok(py.NotImplemented()) };
        wrap(py, compute(py, &[&self.inner, &y], || plait_ops::math::subtract(&self.inner, &y))?)
    }

    fn __rsub__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Some(x) = operand("kd.math.subtract", other)? else { return Ok(py.NotImplemented()) };
        wrap(py, compute(py, &[&self.inner, &x], || plait_ops::math::subtract(&x, &self.inner))?)
    }

    fn __mul__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Some(y) = operand("kd.math.multiply", other)? else { return Ok(py.NotImplemented()) };
        wrap(py, compute(py, &[&self.inner, &y], || plait_ops::math::multiply(&self.inner, &y))?)
    }

    fn __rmul__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Some(x) = operand("kd.math.multiply", other)? else { return Ok(py.NotImplemented()) };
        wrap(py, compute(py, &[&self.inner, &x], || plait_ops::math::multiply(&x, &self.inner))?)
    }

    fn __truediv__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Some(y) = operand("kd.math.divide", other)? else { return Ok(py.NotImplemented()) };
        wrap(py, compute(py, &[&self.inner, &y], || plait_ops::math::divide(&self.inner, &y))?)
    }

    fn __rtruediv__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Some(x) = operand("kd.math.divide", other)? else { return Ok(py.NotImplemented()) };
        wrap(py, compute(py, &[&self.inner, &x], || plait_ops::math::divide(&x, &self.inner))?)
    }

    fn __floordiv__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Some(y) = operand("kd.math.floordiv", other)? else { return Ok(py.NotImplemented()) };
        wrap(py, compute(py, &[&self.inner, &y], || plait_ops::math::floordiv(&self.inner, &y))?)
    }

    fn __rfloordiv__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Some(x) = operand("kd.math.floordiv", other)? else { return Ok(py.NotImplemented()) };
        wrap(py, compute(py, &[&self.inner, &x], || plait_ops::math::floordiv(&x, &self.inner))?)
    }

    fn __mod__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Some(y) = operand("kd.math.mod", other)? else { return Ok(py.NotImplemented()) };
        wrap(py, compute(py, &[&self.inner, &y], || plait_ops::math::modulo(&self.inner, &y))?)
    }

    fn __rmod__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Some(x) = operand("kd.math.mod", other)? else { return Ok(py.NotImplemented()) };
        wrap(py, compute(py, &[&self.inner, &x], || plait_ops::math::modulo(&x, &self.inner))?)
    }

    fn __pow__(&self, py: Python<'_>, other: &Bound<'_, PyAny>, modulo: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
        let _ = modulo;
        let Some(y) = operand("kd.math.pow", other)? else { return Ok(py.NotImplemented()) };
        wrap(py, compute(py, &[&self.inner, &y], || plait_ops::math::pow(&self.inner, &y))?)
    }

    fn __rpow__(&self, py: Python<'_>, other: &Bound<'_, PyAny>, modulo: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
        let _ = modulo;
        let Some(x) = operand("kd.math.pow", other)? else { return Ok(py.NotImplemented()) };
        wrap(py, compute(py, &[&self.inner, &x], || plait_ops::math::pow(&x, &self.inner))?)
    }

    fn __neg__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        wrap(py, compute(py, &[&self.inner], || plait_ops::math::neg(&self.inner))?)
    }

    fn __pos__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        wrap(py, compute(py, &[&self.inner], || plait_ops::math::pos(&self.inner))?)
    }

    /// `~x` is `kd.has_not(x)`.
    fn __invert__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        wrap(py, compute(py, &[&self.inner], || plait_ops::masking::has_not(&self.inner))?)
    }

    /// `x & mask` is `kd.apply_mask(x, mask)`.
    fn __and__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Some(y) = operand("kd.masking.apply_mask", other)? else { return Ok(py.NotImplemented()) };
        wrap(
            py,
            compute(py, &[&self.inner, &y], || {
                with_operator_bags("kd.masking.apply_mask", plait_ops::masking::apply_mask(&self.inner, &y)?, &[&self.inner])
            })?,
        )
    }

    fn __rand__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Some(x) = operand("kd.masking.apply_mask", other)? else { return Ok(py.NotImplemented()) };
        wrap(
            py,
            compute(py, &[&self.inner, &x], || with_operator_bags("kd.masking.apply_mask", plait_ops::masking::apply_mask(&x, &self.inner)?, &[&x]))?,
        )
    }

    /// `x | y` is `kd.coalesce(x, y)`.
    fn __or__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Some(y) = operand("kd.masking.coalesce", other)? else { return Ok(py.NotImplemented()) };
        wrap(
            py,
            compute(py, &[&self.inner, &y], || {
                with_operator_bags("kd.masking.coalesce", plait_ops::masking::coalesce(&self.inner, &y)?, &[&self.inner, &y])
            })?,
        )
    }

    fn __ror__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Some(x) = operand("kd.masking.coalesce", other)? else { return Ok(py.NotImplemented()) };
        wrap(
            py,
            compute(py, &[&self.inner, &x], || {
                with_operator_bags("kd.masking.coalesce", plait_ops::masking::coalesce(&x, &self.inner)?, &[&x, &self.inner])
            })?,
        )
    }

    /// `x ^ y` is `kd.xor(x, y)`.
    fn __xor__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Some(y) = operand("kd.masking.xor", other)? else { return Ok(py.NotImplemented()) };
        wrap(py, compute(py, &[&self.inner, &y], || with_operator_bags("kd.masking.xor", plait_ops::masking::xor(&self.inner, &y)?, &[&self.inner]))?)
    }

    fn __rxor__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Some(x) = operand("kd.masking.xor", other)? else { return Ok(py.NotImplemented()) };
        wrap(py, compute(py, &[&self.inner, &x], || with_operator_bags("kd.masking.xor", plait_ops::masking::xor(&x, &self.inner)?, &[&x]))?)
    }

    /// Comparisons give MASK slices, as in Koda.
    fn __richcmp__(&self, py: Python<'_>, other: &Bound<'_, PyAny>, op: CompareOp) -> PyResult<Py<PyAny>> {
        use plait_ops::comparison as c;
        let name = match op {
            CompareOp::Eq => "kd.comparison.equal",
            CompareOp::Ne => "kd.comparison.not_equal",
            CompareOp::Lt => "kd.comparison.less",
            CompareOp::Le => "kd.comparison.less_equal",
            CompareOp::Gt => "kd.comparison.greater",
            CompareOp::Ge => "kd.comparison.greater_equal",
        };
        let Some(y) = operand(name, other)? else { return Ok(py.NotImplemented()) };
        let x = &self.inner;
        wrap(
            py,
            compute(py, &[x, &y], || match op {
                CompareOp::Eq => c::equal(x, &y),
                CompareOp::Ne => c::not_equal(x, &y),
                CompareOp::Lt => c::less(x, &y),
                CompareOp::Le => c::less_equal(x, &y),
                CompareOp::Gt => c::greater(x, &y),
                CompareOp::Ge => c::greater_equal(x, &y),
            })?,
        )
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Operator>()?;
    m.add_function(wrap_pyfunction!(operators, m)?)
}

/// `result` with the bags operator `name` gives its results (for the Python
/// operators that run a kernel directly); `inputs` are the arguments whose
/// bags its rule reads (for `BagRule::From`, only the named ones).
fn with_operator_bags(name: &str, result: DataSlice, inputs: &[&DataSlice]) -> plait_core::Result<DataSlice> {
    match plait_ops::registry::registry().get(name) {
        Some(op) => op.with_input_bags(result, inputs),
        None => Err(plait_core::Error::internal(format!("{name} is not a registered operator"))),
    }
}
