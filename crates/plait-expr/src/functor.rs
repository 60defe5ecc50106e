//! Functors (seed 000, "Functors", "Functor Evaluation"): items whose
//! `returns` attribute is an expression, with variables (`V.x`) as other
//! attributes — expressions, values or nested functors — and the parameters
//! in `__signature__`.
//!
//! A call compiles the functor once into one expression: every variable
//! reached from `returns` is inlined, so a variable used twice is one shared
//! subexpression (computed once per call, by the plan), and a functor value
//! becomes a literal that `kd.call` nodes call. The compiled form is cached
//! for functors in frozen bags (immutable, reading through no mutable bag),
//! by item id and bag.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock};

use plait_core::error::Context;
use plait_core::limits::MAX_CALL_DEPTH;
use plait_core::{DataBag, DataSlice, Error, ItemId, Result, ScalarRef, Schema};
use plait_ops::registry::{Param, ParamKind, Value, try_bind};

use crate::eval::{Bindings, EvalError, Plan, own_node};
use crate::expr::{Expr, NodeKind};
use crate::packed;
use crate::transform::transform;
use crate::value::ExprValue;

const CALL: &str = "kd.functor.call";

/// The attribute names of a signature (as Koda lays them out).
pub const SIGNATURE_ATTR: &str = "__signature__";
pub const RETURNS_ATTR: &str = "returns";

/// A functor ready to call: its parameters and its body with every
/// variable inlined.
#[derive(Debug)]
pub struct Compiled {
    pub params: Vec<Param>,
    pub body: Expr,
    /// The body's evaluation plan, made at the first call (its errors
    /// belong to the call) and held so that later calls skip the plan cache.
    plan: OnceLock<Arc<Plan>>,
    /// The variables, inlined (to say which one failed).
    pub variables: Vec<(String, Expr)>,
    /// `__qualname__`, when the functor has one.
    pub name: Option<String>,
}

/// Whether `x` is a functor: a present item with a bag whose `returns`
/// attribute is present.
pub fn is_functor(x: &DataSlice) -> bool {
    if !x.is_item() || x.bag().is_none() || !matches!(x.get(0), Some(ScalarRef::ItemId(_))) {
        return false;
    }
    plait_ops::objects::access::has_attr(x, RETURNS_ATTR).is_ok_and(|h| h.present_count() == 1)
}

fn not_a_functor(op: &str, x: &DataSlice) -> Error {
    Error::value(op, format!("the first argument of kd.call must be a functor, got {}", plait_core::repr::repr_slice(x)))
}

/// The compiled form of functor `f` (cached when its bag is frozen).
pub fn compile(f: &DataSlice) -> Result<Arc<Compiled>> {
    compile_as(CALL, f)
}

/// [`compile`] for operator `op` (which names itself when `f` is no functor).
pub fn compile_as(op: &str, f: &DataSlice) -> Result<Arc<Compiled>> {
    let key = match (f.bag(), f.get(0)) {
        // An immutable bag may read through a mutable one (`updated` by a
        // mutable bag): only a bag frozen all the way down reads the same
        // functor at every call.
        (Some(bag), Some(ScalarRef::ItemId(id))) if bag.is_frozen() => Some((id, bag.id())),
        _ => None,
    };
    if let Some(key) = key {
        if let Some(compiled) = cache().lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return Ok(compiled.clone());
        }
    }
    if !is_functor(f) {
        return Err(not_a_functor(op, f));
    }
    let (body, variables) = inline_variables(f)?;
    let name = match plait_ops::objects::access::get_attr(f, "__qualname__", None) {
        Ok(q) => match q.get(0) {
            Some(ScalarRef::String(s)) => Some(s.to_string()),
            _ => None,
        },
        Err(_) => None,
    };
    let compiled = Arc::new(Compiled { params: read_signature(f)?, body, plan: OnceLock::new(), variables: variables.into_iter().collect(), name });
    if let Some(key) = key {
        let mut cache = cache().lock().unwrap_or_else(|e| e.into_inner());
        if cache.len() >= MAX_CACHED {
            cache.clear();
        }
        cache.insert(key, compiled.clone());
    }
    Ok(compiled)
}

const MAX_CACHED: usize = 4096;

/// Compiled functors by (item id, bag id).
type Cache = Mutex<HashMap<(ItemId, u64), Arc<Compiled>>>;

fn cache() -> &'static Cache {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// Forgets every compiled functor (`kd.clear_eval_cache`).
pub fn clear_compiled() {
    cache().lock().unwrap_or_else(|e| e.into_inner()).clear();
}

/// Attribute `name` of functor `f` as an expression: an EXPR item unpacked,
/// any other value as a literal.
fn attribute_expr(f: &DataSlice, name: &str) -> Result<Expr> {
    let value = plait_ops::objects::access::get_attr(f, name, None)
        .map_err(|e| Error::value(CALL, format!("the functor has no variable V.{name}: {}", e.message)))?;
    if value.schema() == Schema::Expr || matches!(value.get(0), Some(ScalarRef::Expr(_))) {
        return packed::unpack(&value);
    }
    Ok(Expr::literal(ExprValue::slice(value)))
}

/// `returns` with every variable replaced by its (inlined) definition, and
/// those definitions.
fn inline_variables(f: &DataSlice) -> Result<(Expr, HashMap<String, Expr>)> {
    let mut done: HashMap<String, Expr> = HashMap::new();
    let mut open: HashSet<String> = HashSet::new();
    let returns = attribute_expr(f, RETURNS_ATTR)?;
    let body = inline(f, &returns, &mut done, &mut open)?;
    Ok((body, done))
}

fn inline(f: &DataSlice, expr: &Expr, done: &mut HashMap<String, Expr>, open: &mut HashSet<String>) -> Result<Expr> {
    for name in expr.variable_names() {
        if done.contains_key(&name) {
            continue;
        }
        if !open.insert(name.clone()) {
            return Err(Error::value(CALL, format!("variable V.{name} is defined in terms of itself")));
        }
        let definition = attribute_expr(f, &name)?;
        let inlined = inline(f, &definition, done, open)?;
        open.remove(&name);
        done.insert(name, inlined);
    }
    transform(expr, &mut |_: &Expr, node: Expr| {
        Ok(match node.kind() {
            NodeKind::Variable(name) => done[name.as_ref()].clone(),
            _ => node,
        })
    })
}

/// The parameters in `__signature__` (Koda's layout: a list of objects
/// with `name`, `kind.kind` and `default_value`, where an entity with
/// `no_default_value` marks a required parameter).
fn read_signature(f: &DataSlice) -> Result<Vec<Param>> {
    use plait_ops::objects::access::{get_attr, has_attr};
    let context = |e: Error| Error::value(CALL, format!("the functor has no valid {SIGNATURE_ATTR}: {}", e.message));
    let signature = get_attr(f, SIGNATURE_ATTR, None).map_err(context)?;
    let parameters = plait_ops::objects::lists::explode(&get_attr(&signature, "parameters", None).map_err(context)?, 1).map_err(context)?;
    let names = get_attr(&parameters, "name", None).map_err(context)?;
    let kinds = get_attr(&get_attr(&parameters, "kind", None).map_err(context)?, "kind", None).map_err(context)?;
    let mut params = Vec::with_capacity(names.size());
    for i in 0..names.size() {
        let text = |x: &DataSlice| match x.get(i) {
            Some(ScalarRef::String(s)) => Ok(s.to_string()),
            _ => Err(Error::value(CALL, format!("the functor has no valid {SIGNATURE_ATTR}: parameter {i} has no name or kind"))),
        };
        let (name, kind) = (text(&names)?, text(&kinds)?);
        let kind = ParamKind::from_name(&kind).ok_or_else(|| Error::value(CALL, format!("unknown parameter kind '{kind}' in {SIGNATURE_ATTR}")))?;
        // Read one by one: the defaults of different parameters have
        // different schemas (values, and Koda's marker entities).
        let default = get_attr(&item_at(&parameters, i)?, "default_value", None).map_err(context)?;
        // A missing default is a value (`y=None`), as in Koda.
        let required =
            matches!(default.get(0), Some(ScalarRef::ItemId(_))) && has_attr(&default, "no_default_value").is_ok_and(|h| h.present_count() == 1);
        let default = if required || matches!(kind, ParamKind::VarPositional | ParamKind::VarKeyword) { None } else { Some(Some(default)) };
        params.push(Param { name, kind, default });
    }
    Ok(params)
}

/// Item `i` of a one-dimensional slice, as a DataItem with the slice's bag.
pub(crate) fn item_at(x: &DataSlice, i: usize) -> Result<DataSlice> {
    // A primitive among objects is an item of its own type.
    let schema = match x.get(i) {
        Some(ScalarRef::ItemId(_)) | None => x.schema(),
        Some(v) if x.schema() == Schema::Object => v.dtype(),
        Some(_) => x.schema(),
    };
    let item = DataSlice::item(x.get(i), schema)?;
    Ok(item.with_bag(x.bag().cloned()))
}

thread_local! {
    /// How many functor calls are running on this thread, one inside another.
    static CALL_DEPTH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Stack left below which a call moves to a fresh stack segment, and the
/// size of such a segment: a functor calling itself (through `kd.call`,
/// `kd.if_`, `kd.map` ...) thousands of times deep never overflows the
/// thread's stack; [`MAX_CALL_DEPTH`] bounds what the segments may cost.
const STACK_RED_ZONE: usize = 256 * 1024;
const STACK_SEGMENT: usize = 4 * 1024 * 1024;

/// Calls functor `f` with arguments bound to its signature as Python binds.
/// Calls nest at most [`MAX_CALL_DEPTH`] deep (a `ValueError` past it).
pub fn call(f: &DataSlice, positional: Vec<ExprValue>, keywords: Vec<(String, ExprValue)>) -> std::result::Result<ExprValue, EvalError> {
    call_compiled(&*compile(f)?, positional, keywords)
}

/// [`call`] of a functor compiled already: loops (`kd.map`, `kd.while_`)
/// compile each functor once and call it many times.
pub fn call_compiled(
    compiled: &Compiled,
    positional: Vec<ExprValue>,
    keywords: Vec<(String, ExprValue)>,
) -> std::result::Result<ExprValue, EvalError> {
    let depth = CALL_DEPTH.with(|d| d.get());
    if depth >= MAX_CALL_DEPTH {
        let message = format!("functor calls nested more than {MAX_CALL_DEPTH} deep (infinite recursion?); see docs/limits.md");
        return Err(Error::value(CALL, message).into());
    }
    /// Restores the depth however the call ends.
    struct Leave(usize);
    impl Drop for Leave {
        fn drop(&mut self) {
            CALL_DEPTH.with(|d| d.set(self.0));
        }
    }
    let _leave = Leave(depth);
    CALL_DEPTH.with(|d| d.set(depth + 1));
    stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || call_here(compiled, positional, keywords))
}

/// [`call_compiled`] on the current stack.
fn call_here(compiled: &Compiled, positional: Vec<ExprValue>, keywords: Vec<(String, ExprValue)>) -> std::result::Result<ExprValue, EvalError> {
    let name = CALL;
    let mut bound = try_bind(&compiled.params, positional, keywords, plait_ops::registry::BindOrder::Functor).map_err(|e| e.functor_error(name))?;
    let mut inputs: Vec<(&str, ExprValue)> = Vec::with_capacity(compiled.params.len());
    for (param, value) in compiled.params.iter().zip(bound.values) {
        let value = match param.kind {
            ParamKind::VarPositional => Some(ExprValue::tuple(std::mem::take(&mut bound.var_args))),
            ParamKind::VarKeyword => Some(ExprValue::named_tuple(std::mem::take(&mut bound.var_kwargs))),
            _ => value.or_else(|| param.default.clone().flatten().map(|d| ExprValue::Data(Value::Slice(d)))),
        };
        if let Some(value) = value {
            inputs.push((&param.name, value));
        }
    }
    let plan = match compiled.plan.get() {
        Some(plan) => plan,
        None => {
            let plan = crate::eval::plan(&compiled.body).map_err(|e| with_context(compiled, e.into()))?;
            compiled.plan.get_or_init(|| plan)
        }
    };
    let bindings = Bindings { inputs: Some(&inputs), variables: None };
    plan.run(&bindings).map_err(|failure| with_context(compiled, own_node(&compiled.body, failure)))
}

/// The failure of a call, its context added to the error's context chain:
/// the failing node (and where it was traced), then the functor and the
/// variable it belongs to. Nested calls add theirs first, so the chain
/// reads innermost first.
fn with_context(compiled: &Compiled, failure: EvalError) -> EvalError {
    let EvalError { mut error, node } = failure;
    if let Some(node) = &node {
        error = error.in_context_with(|| EvalError::node_context(node));
    }
    let variable = || node.as_ref().and_then(|node| variable_of(compiled, node));
    let error = error.in_context_with(|| Context::Functor { name: compiled.name.clone(), variable: variable() });
    EvalError { error, node: None }
}

/// The smallest variable whose (prepared) expression holds `node`.
fn variable_of(compiled: &Compiled, node: &Expr) -> Option<String> {
    compiled
        .variables
        .iter()
        .filter_map(|(name, expr)| {
            let nodes = crate::prepare::prepare(expr).ok()?.post_order();
            nodes.iter().any(|n| n.fingerprint() == node.fingerprint()).then(|| (nodes.len(), name.clone()))
        })
        .min()
        .map(|(_, name)| name)
}

// ---------------------------------------------------------------- creation

/// The default of a parameter, as a signature stores it.
#[derive(Clone, Debug)]
pub enum DefaultValue {
    /// No default: the caller must give the argument.
    Required,
    /// Koda's `self` parameter of expression functors: bound to a marker
    /// when not given.
    SelfNotSpecified,
    Value(DataSlice),
}

/// One parameter of a signature being made.
#[derive(Clone, Debug)]
pub struct Parameter {
    pub name: String,
    pub kind: ParamKind,
    pub default: DefaultValue,
}

impl Parameter {
    /// A required positional-or-keyword parameter.
    pub fn positional(name: &str) -> Parameter {
        Parameter { name: name.to_string(), kind: ParamKind::PositionalOrKeyword, default: DefaultValue::Required }
    }
}

fn text_item(s: &str) -> DataSlice {
    DataSlice::item(Some(ScalarRef::String(s)), Schema::String).expect("a STRING item")
}

/// The marker entities signatures use (Koda's layout): `Entity(kind=...)`
/// for the kinds, `Entity(no_default_value=present)` and
/// `Entity(self_not_specified=present)` for the defaults. Made once.
fn marker(attr: &str, value: Option<&str>) -> Result<DataSlice> {
    static MARKERS: OnceLock<Mutex<HashMap<String, DataSlice>>> = OnceLock::new();
    let key = format!("{attr}={}", value.unwrap_or(""));
    let mut markers = MARKERS.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    if let Some(m) = markers.get(&key) {
        return Ok(m.clone());
    }
    let value = match value {
        Some(text) => text_item(text),
        None => DataSlice::item(Some(ScalarRef::Mask), Schema::Mask)?,
    };
    // Uu entities as Koda's (the same id for the same marker) of the uu
    // schema of their attribute: the kinds of all parameters share a
    // schema, so `parameters[:].kind.kind` reads them together.
    let m = plait_ops::objects::create::uu("", &[(attr.to_string(), value)], None, false)?;
    markers.insert(key, m.clone());
    Ok(m)
}

/// What `S` is where no value was given for it, as in Koda: the entity
/// `self_not_specified=present` (also the default of an `expr_fn` functor's
/// `self`), the same item every time.
pub fn self_not_specified() -> Result<DataSlice> {
    marker("self_not_specified", None)
}

/// A `__signature__` item for `params`.
pub fn make_signature(params: &[Parameter]) -> Result<DataSlice> {
    use plait_ops::objects::create::obj;
    let mut items = Vec::with_capacity(params.len());
    for p in params {
        let default = match &p.default {
            DefaultValue::Required => marker("no_default_value", None)?,
            DefaultValue::SelfNotSpecified => self_not_specified()?,
            DefaultValue::Value(v) => v.clone(),
        };
        let attrs = [
            ("name".to_string(), text_item(&p.name)),
            ("kind".to_string(), marker("kind", Some(p.kind.name()))?),
            ("default_value".to_string(), default),
        ];
        items.push(obj(&attrs, None, None)?);
    }
    let refs: Vec<&DataSlice> = items.iter().collect();
    let parameters = if refs.is_empty() {
        DataSlice::missing(plait_core::JaggedShape::flat(0), Schema::Object)
    } else {
        let bag = DataBag::combined(items.iter().filter_map(DataSlice::bag));
        plait_ops::slices::stack(&refs, 0)?.with_bag(bag)
    };
    let list = plait_ops::objects::lists::implode(&parameters, 1, None)?;
    obj(&[("parameters".to_string(), list)], None, None)
}

/// A functor: `returns` (an EXPR item, or a value), `signature`, variables
/// (EXPR items, values, functors) and, when given, `__qualname__` and
/// `__module__`. Its bag is merged into one immutable layer.
pub fn make_functor(
    op: &str,
    returns: &DataSlice,
    signature: &DataSlice,
    variables: &[(String, DataSlice)],
    qualname: Option<&str>,
    module: Option<&str>,
) -> Result<DataSlice> {
    // A functor is one item: its variables are items too (a slice would
    // make a slice of functors), as Koda requires.
    if let Some((name, value)) = variables.iter().find(|(_, v)| !v.is_item()) {
        return Err(Error::value(op, format!("variable [{name}] must be a data item, but has shape: {}", value.shape())));
    }
    let mut attrs = vec![(RETURNS_ATTR.to_string(), returns.clone()), (SIGNATURE_ATTR.to_string(), signature.clone())];
    if let Some(q) = qualname {
        attrs.push(("__qualname__".to_string(), text_item(q)));
        attrs.push(("__module__".to_string(), text_item(module.unwrap_or(""))));
    }
    attrs.extend(variables.iter().cloned());
    let f = plait_ops::objects::create::obj(&attrs, None, None)?;
    let merged = f.bag().map(DataBag::merged);
    Ok(f.with_bag(merged))
}
