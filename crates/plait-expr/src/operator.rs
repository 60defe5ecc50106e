//! Operators of expressions, and the registry that finds them by name.
//!
//! Four kinds:
//! * backend — an eager operator of `plait-ops` (a Rust kernel);
//! * lambda — an expression over placeholders `P.<param>`, inlined into the
//!   expression that uses it when the expression is prepared;
//! * function — a host function (Python) called at evaluation;
//! * builtin — the few operators that work on expressions' own values:
//!   names, tuples.
//!
//! Every eager operator is found under its canonical name and each alias
//! (an expression shows the name it was built with, as Koda does); operators
//! added at run time (`kd.optools.add_to_registry`) live beside them.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, RwLock};

use plait_core::itemid::UuidHasher;
use plait_core::{Error, Result, ScalarRef};
use plait_ops::registry::{self as backend, Param, ParamKind, Value, parse_signature};

use crate::expr::Expr;
use crate::value::ExprValue;

/// Arguments of one call, bound to an operator's parameters (`None` at
/// `*args`/`**kwargs`, and where unspecified).
pub type CallArgs = backend::Bound<ExprValue>;

/// A host function called by a function operator.
pub trait Function: Send + Sync {
    fn call(&self, op: &Operator, args: CallArgs) -> Result<ExprValue>;
}

/// What the rest of the crate needs to know about a builtin operator:
/// names are dropped before evaluation, calls print as calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    /// `kd.annotation.with_name(expr, name)`: `expr`, named.
    WithName,
    /// `kd.functor.call(fn, *args, return_type_as=None, **kwargs)`.
    Call,
    Other,
}

/// An operator this crate evaluates itself, on the values of expressions
/// (tuples, iterables, functors): one entry with its names, signature,
/// docstring and the function that computes it, side by side (the
/// operators of `plait-ops` are the other half of the registry).
#[derive(Debug)]
pub struct BuiltinDef {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub signature: &'static str,
    pub doc: &'static str,
    /// Computes the operator (called by the name it was used under).
    pub call: fn(&str, CallArgs) -> Result<ExprValue>,
    /// Whether equal arguments always give equal results (only those are
    /// folded into literals; operators calling functors never are, as a
    /// functor may allocate).
    pub deterministic: bool,
    pub role: Builtin,
}

#[derive(Clone)]
pub enum OperatorKind {
    Backend(&'static backend::Operator),
    /// The body, over placeholders named after the parameters.
    Lambda(Expr),
    Function {
        function: Arc<dyn Function>,
        deterministic: bool,
    },
    Builtin(&'static BuiltinDef),
}

/// An operator.
pub struct Operator {
    /// The name expressions show (for eager operators: the name used).
    pub name: Arc<str>,
    pub params: Vec<Param>,
    pub doc: String,
    pub kind: OperatorKind,
    pub fingerprint: u128,
}

impl std::fmt::Debug for Operator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Operator({})", self.name)
    }
}

/// A shared handle to an operator.
pub type OpRef = Arc<Operator>;

impl Operator {
    fn new(name: &str, params: Vec<Param>, doc: String, kind: OperatorKind) -> OpRef {
        let mut h = UuidHasher::new("expr_operator");
        h.write_str(name);
        match &kind {
            OperatorKind::Backend(op) => h.write_str(op.name),
            OperatorKind::Lambda(body) => {
                h.write_str(&signature_text(&params));
                h.write_bytes(&body.fingerprint().to_le_bytes());
            }
            // Each host function is its own operator.
            OperatorKind::Function { .. } => {
                static COUNTER: AtomicU64 = AtomicU64::new(0);
                h.write_bytes(&COUNTER.fetch_add(1, Ordering::Relaxed).to_le_bytes());
                h.write_bytes(&(std::process::id() as u64).to_le_bytes());
            }
            OperatorKind::Builtin(b) => h.write_str(b.name),
        }
        let fingerprint = h.finish();
        Arc::new(Operator { name: Arc::from(name), params, doc, kind, fingerprint })
    }

    /// The same operator under another name (an alias).
    pub fn renamed(&self, name: &str) -> OpRef {
        Operator::new(name, self.params.clone(), self.doc.clone(), self.kind.clone())
    }

    /// A lambda operator: `body` over placeholders `P.<param>`. Its
    /// placeholders must be parameters.
    pub fn lambda(name: &str, params: Vec<Param>, doc: &str, body: Expr) -> Result<OpRef> {
        for placeholder in body.placeholder_names() {
            if !params.iter().any(|p| p.name == placeholder) {
                return Err(Error::value(
                    "kd.optools.as_lambda_operator",
                    format!("the body of {name} uses P.{placeholder}, which is not a parameter"),
                ));
            }
        }
        Ok(Operator::new(name, params, doc.to_string(), OperatorKind::Lambda(body)))
    }

    /// A function operator calling `function`.
    pub fn function(name: &str, params: Vec<Param>, doc: &str, function: Arc<dyn Function>, deterministic: bool) -> OpRef {
        Operator::new(name, params, doc.to_string(), OperatorKind::Function { function, deterministic })
    }

    /// A backend operator: the eager operator registered as `kernel`, under
    /// `name` with `params` (a signature of the caller's, as
    /// `kd.optools.as_backend_operator` declares it).
    pub fn backend(name: &str, kernel: &str, params: Vec<Param>, doc: &str) -> Result<OpRef> {
        let op = backend::registry()
            .get(kernel)
            .ok_or_else(|| Error::value("kd.optools.as_backend_operator", format!("no backend operator is registered as {kernel}")))?;
        let fixed = |ps: &[Param]| ps.iter().filter(|p| !is_variadic(p)).count();
        if fixed(&params) != fixed(&op.params)
            || params.iter().filter(|p| is_variadic(p)).count() != op.params.iter().filter(|p| is_variadic(p)).count()
        {
            return Err(Error::value(
                "kd.optools.as_backend_operator",
                format!("the signature ({}) does not match the backend operator {kernel}({})", signature_text(&params), op.signature),
            ));
        }
        Ok(Operator::new(name, params, doc.to_string(), OperatorKind::Backend(op)))
    }

    /// Whether equal arguments always give equal results (only those are
    /// folded into literals).
    pub fn deterministic(&self) -> bool {
        match &self.kind {
            OperatorKind::Backend(op) => op.deterministic,
            OperatorKind::Function { deterministic, .. } => *deterministic,
            OperatorKind::Builtin(b) => b.deterministic,
            OperatorKind::Lambda(_) => true,
        }
    }

    /// The number of parameters that are not `*args`/`**kwargs`: an
    /// operator node holds one argument for each, then the variadic ones.
    pub fn fixed_params(&self) -> usize {
        self.params.iter().filter(|p| !is_variadic(p)).count()
    }

    /// A node's argument slots split as [`crate::NodeKind::Op`] lays them
    /// out: the fixed parameters' arguments, `*args`, and the `**kwargs`
    /// values (`n_kwargs` of them, last).
    pub fn split_args<'a, T>(&self, args: &'a [T], n_kwargs: usize) -> (&'a [T], &'a [T], &'a [T]) {
        let (fixed, rest) = args.split_at(self.fixed_params());
        let (var_args, kwargs) = rest.split_at(rest.len() - n_kwargs);
        (fixed, var_args, kwargs)
    }

    /// The signature as Python writes it.
    pub fn signature(&self) -> String {
        signature_text(&self.params)
    }

    /// Calls the operator on the values of a node's argument slots (laid
    /// out as [`crate::NodeKind::Op`] says).
    pub fn call_slots(&self, mut slots: Vec<Option<ExprValue>>, kwarg_names: &[Arc<str>]) -> Result<ExprValue> {
        let fixed = self.fixed_params();
        // The common case, an eager operator without `*args`/`**kwargs`:
        // the slots are its arguments as they are.
        if let (OperatorKind::Backend(op), true) = (&self.kind, fixed == self.params.len()) {
            let values = slots.into_iter().map(|v| v.map(|v| v.into_data(&self.name)).transpose()).collect::<Result<Vec<_>>>()?;
            return op.call_bound(values, Vec::new(), Vec::new()).map(ExprValue::from);
        }
        let kwargs = slots.split_off(slots.len() - kwarg_names.len());
        let var_args: Vec<ExprValue> = slots.split_off(fixed).into_iter().flatten().collect();
        let mut fixed_values = slots.into_iter();
        let values = self.params.iter().map(|p| if is_variadic(p) { None } else { fixed_values.next().flatten() }).collect();
        let var_kwargs = kwarg_names.iter().zip(kwargs).filter_map(|(n, v)| Some((n.to_string(), v?))).collect();
        self.call(CallArgs { values, var_args, var_kwargs })
    }

    /// Calls a backend, function or builtin operator (lambdas are inlined
    /// before evaluation and never called).
    pub fn call(&self, args: CallArgs) -> Result<ExprValue> {
        match &self.kind {
            OperatorKind::Backend(op) => {
                let data = |v: ExprValue| v.into_data(&self.name);
                let values = args.values.into_iter().map(|v| v.map(data).transpose()).collect::<Result<Vec<_>>>()?;
                let var_args = args.var_args.into_iter().map(data).collect::<Result<Vec<_>>>()?;
                let var_kwargs = args.var_kwargs.into_iter().map(|(k, v)| Ok((k, data(v)?))).collect::<Result<Vec<_>>>()?;
                op.call_bound(values, var_args, var_kwargs).map(ExprValue::from)
            }
            OperatorKind::Function { function, .. } => function.call(self, args),
            OperatorKind::Builtin(b) => (b.call)(&self.name, args),
            OperatorKind::Lambda(_) => Err(Error::value(&self.name, "a lambda operator is inlined, not called")),
        }
    }
}

pub fn is_variadic(p: &Param) -> bool {
    matches!(p.kind, ParamKind::VarPositional | ParamKind::VarKeyword)
}

/// A parameter list as Python writes it (`x, /, y=..., *args, z, **kwargs`).
pub fn signature_text(params: &[Param]) -> String {
    plait_core::signature::parameter_list(params.iter().map(|p| {
        let default = match &p.default {
            None => None,
            Some(None) => Some("unspecified".to_string()),
            Some(Some(v)) => Some(plait_core::repr::repr_slice(v)),
        };
        (p.name.as_str(), p.kind, default)
    }))
}

/// The name string of a `with_name` / `get_namedtuple_field` argument.
pub fn text_item(op: &str, what: &str, v: &ExprValue) -> Result<String> {
    if let ExprValue::Data(Value::Slice(x)) = v {
        if let (true, Some(ScalarRef::String(s))) = (x.is_item(), x.get(0)) {
            return Ok(s.to_string());
        }
    }
    Err(Error::type_error(op, format!("`{what}` must be a STRING item, got {}", v.kind_name())))
}

/// The operators every process has: each eager operator and each builtin
/// under each of its names.
fn standard() -> &'static HashMap<String, OpRef> {
    static STANDARD: OnceLock<HashMap<String, OpRef>> = OnceLock::new();
    STANDARD.get_or_init(|| {
        let mut ops = HashMap::new();
        for op in backend::registry().operators() {
            for name in std::iter::once(&op.name).chain(&op.aliases) {
                let wrapped = Operator::new(name, op.params.clone(), op.doc.to_string(), OperatorKind::Backend(op));
                ops.insert(name.to_string(), wrapped);
            }
        }
        for def in crate::builtins::all() {
            let params = parse_signature(def.signature).unwrap_or_else(|e| panic!("{}: {e}", def.name));
            for name in std::iter::once(&def.name).chain(def.aliases) {
                ops.insert(name.to_string(), Operator::new(name, params.clone(), def.doc.to_string(), OperatorKind::Builtin(def)));
            }
        }
        ops
    })
}

/// Operators added at run time, by name.
fn added() -> &'static RwLock<HashMap<String, OpRef>> {
    static ADDED: OnceLock<RwLock<HashMap<String, OpRef>>> = OnceLock::new();
    ADDED.get_or_init(Default::default)
}

/// The operator called `name`.
pub fn lookup(name: &str) -> Option<OpRef> {
    if let Some(op) = standard().get(name) {
        return Some(op.clone());
    }
    added().read().unwrap_or_else(|e| e.into_inner()).get(name).cloned()
}

/// Every name an operator is registered under (standard and added), sorted.
pub fn registered_names() -> Vec<String> {
    let mut names: Vec<String> = standard().keys().cloned().collect();
    names.extend(added().read().unwrap_or_else(|e| e.into_inner()).keys().cloned());
    names.sort();
    names.dedup();
    names
}

/// The operator called `name`, or an error naming it.
pub fn lookup_or_error(name: &str) -> Result<OpRef> {
    lookup(name).ok_or_else(|| Error::value("kd.lazy", format!("unknown operator: {name}")))
}

/// Adds `op` to the registry under `name`. A name taken by a standard
/// operator is refused; one taken by an added operator needs `replace`.
pub fn add_to_registry(name: &str, op: OpRef, replace: bool) -> Result<()> {
    if standard().contains_key(name) {
        return Err(Error::value("kd.optools.add_to_registry", format!("operator '{name}' already exists and cannot be replaced")));
    }
    let mut added = added().write().unwrap_or_else(|e| e.into_inner());
    if added.contains_key(name) && !replace {
        return Err(Error::value("kd.optools.add_to_registry", format!("operator '{name}' already exists; pass unsafe_override=True to replace it")));
    }
    added.insert(name.to_string(), op);
    Ok(())
}
