//! The operator registry: every eager operator under its `kd.*` name, with
//! Koda's signature and a one-line description. The Python `kd` namespaces are
//! built from it, so a new operator needs one entry here and nothing else.
//!
//! Signatures are written as Python parameter lists, e.g.
//! `"x, unbiased=True, ndim=unspecified"` or `"*args, ndim=1"`; `unspecified`
//! marks an optional argument with no value.

use std::collections::HashMap;
use std::sync::OnceLock;

use plait_core::{DataBag, DataSlice, Error, JaggedShape, Result, ScalarRef, Schema};

use crate::describe;
use crate::typing::TypeRule;

/// An argument or result value.
#[derive(Clone, Debug)]
pub enum Value {
    Slice(DataSlice),
    Shape(JaggedShape),
    /// A DataBag; `None` is Koda's null bag (the bag of a slice without
    /// one, which Python sees as a `NullDataBag`).
    Bag(Option<DataBag>),
    /// Several values: what `kd.align` returns, or the dimensions
    /// `kd.reshape` takes as a Python tuple.
    Tuple(Vec<Value>),
    /// A slice `start:stop:step` (`kd.tuples.slice`, Python's `1:3`; each
    /// a DataSlice or unspecified) and `...`: the keys of `kd.subslice`,
    /// which refuses a step.
    /// (Boxed: a value is moved at every step of an evaluation, and the
    /// common ones are a DataSlice's size.)
    Range {
        start: Option<Box<DataSlice>>,
        stop: Option<Box<DataSlice>>,
        step: Option<Box<DataSlice>>,
    },
    Ellipsis,
}

impl Value {
    /// The value as a DataSlice, or a TypeError of operator `op`.
    pub fn into_slice(self, op: &str) -> Result<DataSlice> {
        match self {
            Value::Slice(x) => Ok(x),
            other => Err(Error::type_error(op, format!("expected a DataSlice, got {}", other.describe()))),
        }
    }

    /// A short description for errors (`a JaggedShape`, `DataSlice(...)`).
    pub fn describe(&self) -> String {
        match self {
            Value::Slice(x) => describe(x),
            Value::Shape(s) => s.to_string(),
            Value::Bag(Some(_)) => "a DataBag".to_string(),
            Value::Bag(None) => "a null DataBag".to_string(),
            Value::Tuple(items) => format!("a tuple of {} values", items.len()),
            Value::Range { .. } | Value::Ellipsis => self.key_text(),
        }
    }

    /// The name Koda gives the value's kind (its QType): `DATA_SLICE`,
    /// `JAGGED_SHAPE`, `DATA_BAG`, `TUPLE`, `SLICE`, `ELLIPSIS`.
    pub fn qtype_name(&self) -> &'static str {
        match self {
            Value::Slice(_) => "DATA_SLICE",
            Value::Shape(_) => "JAGGED_SHAPE",
            Value::Bag(_) => "DATA_BAG",
            Value::Tuple(_) => "TUPLE",
            Value::Range { .. } => "SLICE",
            Value::Ellipsis => "ELLIPSIS",
        }
    }

    /// A value as Koda prints it on its own: a slice `start:stop:step` as
    /// `slice(DataItem(1, schema: INT32), unspecified, unspecified)`, the
    /// Ellipsis as `...`; other values as [`Value::describe`].
    pub fn text(&self) -> String {
        match self {
            Value::Range { start, stop, step } => {
                let part = |b: &Option<Box<DataSlice>>| b.as_deref().map_or_else(|| "unspecified".to_string(), plait_core::repr::repr_slice);
                format!("slice({}, {}, {})", part(start), part(stop), part(step))
            }
            other => other.key_text(),
        }
    }

    /// A subslice key as Python writes it: `DataItem(1, schema: INT32):`, `...`.
    pub fn key_text(&self) -> String {
        let bound = |b: &Option<Box<DataSlice>>| b.as_deref().map(describe).unwrap_or_default();
        match self {
            Value::Range { start, stop, step: None } => format!("{}:{}", bound(start), bound(stop)),
            Value::Range { start, stop, step } => format!("{}:{}:{}", bound(start), bound(stop), bound(step)),
            Value::Ellipsis => "...".to_string(),
            other => other.describe(),
        }
    }
}

pub use plait_core::signature::ParamKind;

/// One parameter of an operator.
#[derive(Clone, Debug)]
pub struct Param {
    pub name: String,
    pub kind: ParamKind,
    /// `None`: required. `Some(None)`: optional without a value (`unspecified`).
    pub default: Option<Option<DataSlice>>,
}

/// The bound arguments of one call.
#[derive(Debug)]
pub struct Args<'a> {
    op: &'a Operator,
    /// One entry per named parameter (not `*args`/`**kwargs`); `None` = unspecified.
    values: Vec<Option<Value>>,
    var_args: Vec<Value>,
    var_kwargs: Vec<(String, Value)>,
}

/// What an operator computes from its arguments: most give a DataSlice,
/// whose bag the operator's [`BagRule`] completes.
pub type Kernel = fn(&Args<'_>) -> Result<DataSlice>;

/// A kernel giving any value (a shape, a bag, or a slice whose bag it has
/// chosen itself: no [`BagRule`] applies, so `kd.no_bag` can drop it).
pub type ValueKernel = fn(&Args<'_>) -> Result<Value>;

/// The kernel of an operator, by the kind of value it returns.
#[derive(Clone, Copy, Debug)]
pub enum Compute {
    Slice(Kernel),
    Value(ValueKernel),
}

/// A registered operator.
#[derive(Debug)]
pub struct Operator {
    /// The canonical name, e.g. `kd.math.agg_sum`; errors use it.
    pub name: &'static str,
    /// Other names, e.g. `kd.agg_sum`.
    pub aliases: Vec<&'static str>,
    pub params: Vec<Param>,
    /// The signature as written (Python syntax).
    pub signature: &'static str,
    pub doc: &'static str,
    pub kernel: Compute,
    /// Which bag the result reads (see [`BagRule`]).
    pub bags: BagRule,
    /// Whether equal arguments always give equal results (false for
    /// operators that allocate fresh ids); only those are folded.
    pub deterministic: bool,
    /// How Python lists and tuples become arguments (see [`Boxing`]).
    pub boxing: Boxing,
    /// What an eager call requires its first argument (each of them, for
    /// `*args`) to be, refusing anything else with Koda's TypeError
    /// (`kd.list_shaped(kd.item(1))`, `kd.implode([1, 2])`: Koda's Python
    /// function checks it before calling the operator).
    pub first_arg: Option<FirstArg>,
    /// The result's type from the arguments' types (see `typing`); `None`:
    /// unknown until evaluated.
    pub type_rule: Option<TypeRule>,
}

/// What an eager call requires of its first argument (see
/// [`Operator::first_arg`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FirstArg {
    /// A JaggedShape (`expecting shape to be a JaggedShape, got ...`).
    Shape,
    /// A DataSlice (`expecting x to be a DataSlice, got list`).
    Slice,
}

/// How a Python list or tuple argument is boxed, as Koda decides per
/// operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Boxing {
    /// Refused as ambiguous (a slice or a Koda list?): most operators.
    Items,
    /// Boxed as `kd.slice` boxes it (`kd.int32([1, 2])`, the sizes of
    /// `kd.shapes.new(2, [2, 1])`).
    Lists,
    /// As `Lists`, with Python floats boxed as FLOAT64 (`kd.float64(0.1)`
    /// keeps the precision a FLOAT32 boxing would lose).
    Float64,
    /// A tuple is a [`Value::Tuple`] of its items, a list within it a
    /// DataSlice (the dimensions of `kd.reshape(x, (2, -1))`).
    Tuples,
    /// Python slices and `...` are [`Value::Range`] and [`Value::Ellipsis`]
    /// (the keys of `kd.subslice(x, 1:, ...)`).
    Keys,
    /// The value `x` of `kd.slice` / `kd.item` (`item`): a Python value is
    /// boxed as they box it, with the `schema` argument, when the call is
    /// built (so the schema must then be a value, and the node keeps the
    /// boxed value and no schema, as in Koda); eagerly, as `Lists` (slice)
    /// or `Items` (item) box it.
    AtBinding { item: bool },
    /// Python lists, tuples and dicts given as attribute values (the
    /// `**attrs` of `kd.new`, `kd.obj`, their `_shaped` / `_like` forms)
    /// become one Koda list or dict item (Koda's rule for such values,
    /// `plait/kd/_container_values.py`),
    /// allowed only where the shape argument and the other attribute values
    /// have rank 0 (ids given as `itemid=` do not count), as in Koda.
    Containers,
}

/// Which bag an operator's result reads, from its inputs' bags. (The
/// operators that build a bag of their own, `kd.new`, `kd.list`,
/// `with_attrs` ..., return it and follow `plait_core::bag::layering`.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BagRule {
    /// None (ids derived from content, which hold no data: `kd.uuid`).
    Drop,
    /// A result of entities, objects, ids or schemas reads the inputs' bags
    /// (the first that knows an item wins); a computed primitive result
    /// carries none, as in Koda (`x + 1`, `kd.agg_sum`).
    Structured,
    /// Any result reads the inputs' bags: operators that pass the inputs'
    /// items through (`select`, `take`, `coalesce`, casts), whose primitive
    /// results keep the bag in Koda too.
    PassThrough,
    /// Like `PassThrough`, but only the bags of the named arguments, whose
    /// items the result holds (`kd.select(ds, fltr)` keeps `ds`'s bag, not
    /// the filter's), as in Koda.
    From(&'static [&'static str]),
    /// Like `PassThrough`, and the inputs' bags are merged: they must agree,
    /// else Koda's "cannot merge DataBags" ValueError (`stack`, `concat`,
    /// `zip`).
    Merge,
}

/// A value's QType as Koda writes it in errors (`DATA_SLICE`,
/// `tuple<DATA_SLICE,DATA_BAG>`).
fn qtype_text(v: &Value) -> String {
    match v {
        Value::Tuple(items) => format!("tuple<{}>", items.iter().map(qtype_text).collect::<Vec<_>>().join(",")),
        other => other.qtype_name().to_string(),
    }
}

/// All operators, by name.
#[derive(Debug, Default)]
pub struct Registry {
    ops: Vec<Operator>,
    by_name: HashMap<&'static str, usize>,
}

impl Registry {
    /// Registers an operator; panics on a malformed signature or a name
    /// registered twice (both are programming errors caught by the tests).
    pub fn add(&mut self, name: &'static str, aliases: &[&'static str], signature: &'static str, doc: &'static str, kernel: Kernel) {
        self.add_compute(name, aliases, signature, doc, Compute::Slice(kernel));
    }

    /// Registers an operator whose kernel returns any [`Value`] (shapes,
    /// bags), as [`Registry::add`] does.
    pub fn add_value(&mut self, name: &'static str, aliases: &[&'static str], signature: &'static str, doc: &'static str, kernel: ValueKernel) {
        self.add_compute(name, aliases, signature, doc, Compute::Value(kernel));
    }

    fn add_compute(&mut self, name: &'static str, aliases: &[&'static str], signature: &'static str, doc: &'static str, kernel: Compute) {
        let params = parse_signature(signature).unwrap_or_else(|e| panic!("{name}: {e}"));
        let index = self.ops.len();
        for n in std::iter::once(&name).chain(aliases) {
            assert!(self.by_name.insert(n, index).is_none(), "operator {n} registered twice");
        }
        self.ops.push(Operator {
            name,
            aliases: aliases.to_vec(),
            params,
            signature,
            doc,
            kernel,
            bags: BagRule::Structured,
            deterministic: true,
            boxing: Boxing::Items,
            first_arg: None,
            type_rule: None,
        });
    }

    /// Sets which bag the results of operator `name` read (the default is
    /// [`BagRule::Structured`]).
    pub fn bag_rule(&mut self, name: &str, rule: BagRule) {
        let index = self.by_name[name];
        self.ops[index].bags = rule;
    }

    /// Sets how operator `name` boxes Python lists and tuples.
    pub fn boxing(&mut self, name: &str, boxing: Boxing) {
        let index = self.by_name[name];
        self.ops[index].boxing = boxing;
    }

    /// Marks operator `name` as taking `kind` first (see
    /// [`Operator::first_arg`]).
    pub fn first_arg(&mut self, name: &str, kind: FirstArg) {
        let index = self.by_name[name];
        self.ops[index].first_arg = Some(kind);
    }

    /// Sets the type rule of operator `name` (see `typing`).
    pub fn type_rule(&mut self, name: &str, rule: TypeRule) {
        let index = *self.by_name.get(name).unwrap_or_else(|| panic!("a type rule for {name}, which is not registered (yet)"));
        self.ops[index].type_rule = Some(rule);
    }

    /// Marks operator `name` as giving a new result on every call.
    pub fn non_deterministic(&mut self, name: &str) {
        let index = self.by_name[name];
        self.ops[index].deterministic = false;
    }

    /// The operator called `name` (canonical or alias).
    pub fn get(&self, name: &str) -> Option<&Operator> {
        self.by_name.get(name).map(|&i| &self.ops[i])
    }

    /// Every operator, in registration order.
    pub fn operators(&self) -> &[Operator] {
        &self.ops
    }
}

/// The registry of every operator in this crate.
pub fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let mut r = Registry::default();
        crate::math::register(&mut r);
        crate::comparison::register(&mut r);
        crate::masking::register(&mut r);
        crate::slices::register(&mut r);
        crate::shapes::register(&mut r);
        crate::schema::register(&mut r);
        crate::bags::register(&mut r);
        crate::objects::register(&mut r);
        crate::strings::register(&mut r);
        crate::bitwise::register(&mut r);
        crate::proto::register(&mut r);
        crate::curves::register(&mut r);
        crate::random::register(&mut r);
        crate::json::register(&mut r);
        crate::timestamp::register(&mut r);
        crate::typing::register(&mut r);
        r
    })
}

/// Calls registered operator `name` with `var_args` and named arguments,
/// bound as any eager call (defaults applied, its bag rule followed): how
/// Rust code outside an operator's kernel reuses another operator.
pub fn call(name: &str, var_args: Vec<Value>, named: Vec<(&str, Value)>) -> Result<Value> {
    let op = registry().get(name).ok_or_else(|| Error::internal(format!("{name} is not registered")))?;
    op.call(var_args, named.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

/// [`call`] of an operator that gives a DataSlice.
pub fn call_slice(name: &str, var_args: Vec<Value>, named: Vec<(&str, Value)>) -> Result<DataSlice> {
    match call(name, var_args, named)? {
        Value::Slice(x) => Ok(x),
        _ => Err(Error::internal(format!("{name} returned no DataSlice"))),
    }
}

/// Arguments bound to a parameter list, before defaults are filled in.
#[derive(Debug)]
pub struct Bound<T> {
    /// One entry per parameter (always `None` at `*args`/`**kwargs`):
    /// `None` where the caller gave nothing.
    pub values: Vec<Option<T>>,
    pub var_args: Vec<T>,
    pub var_kwargs: Vec<(String, T)>,
}

/// Why arguments do not bind to a parameter list.
#[derive(Debug, Clone, PartialEq)]
pub enum BindError {
    TooManyPositional {
        /// The positional parameters without a default, and all of them.
        min: usize,
        max: usize,
        given: usize,
    },
    Twice(String),
    /// Every keyword that names no parameter, in call order.
    UnknownKeywords(Vec<String>),
    /// The required parameters not given: the positional ones, or when all
    /// of those are given, the keyword-only ones (Python's order).
    Missing {
        names: Vec<String>,
        keyword_only: bool,
    },
}

/// `'a'`, `'a' and 'b'`, `'a', 'b', and 'c'`: names as Python lists them.
fn python_names(names: &[String]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
    match quoted.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [a, b] => format!("{a} and {b}"),
        [rest @ .., last] => format!("{}, and {last}", rest.join(", ")),
    }
}

/// `argument` or `arguments`, for `n`.
fn arguments(n: usize) -> &'static str {
    if n == 1 { "argument" } else { "arguments" }
}

impl BindError {
    /// Python's TypeError, as operator calls raise it.
    pub fn python_error(&self, op: &str) -> Error {
        Error::type_error(
            op,
            match self {
                BindError::TooManyPositional { min, max, given } => {
                    let takes = if min == max {
                        format!("{max} positional {}", arguments(*max))
                    } else {
                        format!("from {min} to {max} positional arguments")
                    };
                    // Koda says "were" whatever the count.
                    format!("takes {takes} but {given} were given")
                }
                BindError::Twice(name) => format!("multiple values for argument '{name}'"),
                BindError::UnknownKeywords(names) => {
                    format!("an unexpected keyword argument: '{}'", names[0])
                }
                BindError::Missing { names, keyword_only } => format!(
                    "missing {} required {} {}: {}",
                    names.len(),
                    if *keyword_only { "keyword-only" } else { "positional" },
                    arguments(names.len()),
                    python_names(names)
                ),
            },
        )
    }

    /// Koda's ValueError, as functor calls raise it.
    pub fn functor_error(&self, op: &str) -> Error {
        Error::value(
            op,
            match self {
                BindError::TooManyPositional { max, given, .. } => {
                    format!("too many positional arguments passed ({} extra)", given - max)
                }
                BindError::Twice(name) => format!("parameter [{name}] specified twice"),
                BindError::UnknownKeywords(names) => {
                    format!("unknown keyword arguments: [{}]", names.join(", "))
                }
                BindError::Missing { names, keyword_only: false } => {
                    format!("no value provided for positional or keyword parameter [{}]", names[0])
                }
                BindError::Missing { names, keyword_only: true } => {
                    format!("no value provided for keyword only parameter [{}]", names[0])
                }
            },
        )
    }
}

/// Binds positional and keyword arguments to `params` as Python does;
/// errors name operator `op`. A parameter without a default must be given.
/// Generic so that values (eager calls) and expressions (lazy calls) bind by
/// the same rules.
pub fn bind_params<T>(op: &str, params: &[Param], positional: Vec<T>, keywords: Vec<(String, T)>) -> Result<Bound<T>> {
    try_bind(params, positional, keywords, BindOrder::Operator).map_err(|e| e.python_error(op))
}

/// Which binding error a call reports when it has several: Koda's
/// operators and functors order them differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BindOrder {
    /// An argument given twice, missing ones, too many positional ones,
    /// unknown keywords (operators).
    Operator,
    /// Too many positional ones, an argument given twice, unknown keywords,
    /// missing ones (functor calls).
    Functor,
}

/// [`bind_params`], with the reason it fails for the caller to word.
pub fn try_bind<T>(params: &[Param], positional: Vec<T>, keywords: Vec<(String, T)>, order: BindOrder) -> std::result::Result<Bound<T>, BindError> {
    let mut values: Vec<Option<T>> = params.iter().map(|_| None).collect();
    let mut var_args = Vec::new();
    let mut positional = positional.into_iter();
    for (i, p) in params.iter().enumerate() {
        match p.kind {
            ParamKind::PositionalOnly | ParamKind::PositionalOrKeyword => {
                if let Some(v) = positional.next() {
                    values[i] = Some(v);
                }
            }
            ParamKind::VarPositional => var_args.extend(positional.by_ref()),
            _ => {}
        }
    }
    let extra = positional.count();
    let too_many = (extra > 0).then(|| {
        let positional = || params.iter().filter(|p| matches!(p.kind, ParamKind::PositionalOnly | ParamKind::PositionalOrKeyword));
        let (min, max) = (positional().filter(|p| p.default.is_none()).count(), positional().count());
        BindError::TooManyPositional { min, max, given: max + extra }
    });
    if let (BindOrder::Functor, Some(e)) = (order, &too_many) {
        return Err(e.clone());
    }
    let mut var_kwargs = Vec::new();
    let mut unknown = Vec::new();
    let takes_kwargs = params.iter().any(|p| p.kind == ParamKind::VarKeyword);
    for (name, v) in keywords {
        let slot = params.iter().position(|p| p.name == name && matches!(p.kind, ParamKind::PositionalOrKeyword | ParamKind::KeywordOnly));
        match slot {
            Some(i) if values[i].is_some() => return Err(BindError::Twice(name)),
            Some(i) => values[i] = Some(v),
            None if takes_kwargs => var_kwargs.push((name, v)),
            None => unknown.push(name),
        }
    }
    if order == BindOrder::Functor && !unknown.is_empty() {
        return Err(BindError::UnknownKeywords(unknown));
    }
    let missing = |keyword_only: bool| -> Vec<String> {
        params
            .iter()
            .zip(&values)
            .filter(|(p, v)| {
                v.is_none()
                    && p.default.is_none()
                    && !matches!(p.kind, ParamKind::VarPositional | ParamKind::VarKeyword)
                    && (p.kind == ParamKind::KeywordOnly) == keyword_only
            })
            .map(|(p, _)| p.name.clone())
            .collect()
    };
    for keyword_only in [false, true] {
        let names = missing(keyword_only);
        if !names.is_empty() {
            return Err(BindError::Missing { names, keyword_only });
        }
    }
    if let Some(e) = too_many {
        return Err(e);
    }
    if !unknown.is_empty() {
        return Err(BindError::UnknownKeywords(unknown));
    }
    Ok(Bound { values, var_args, var_kwargs })
}

impl Operator {
    /// Binds positional and keyword arguments to the parameters (as Python
    /// does) and runs.
    pub fn call(&self, positional: Vec<Value>, keywords: Vec<(String, Value)>) -> Result<Value> {
        self.call_given(positional.into_iter().map(Some).collect(), keywords.into_iter().map(|(k, v)| (k, Some(v))).collect())
    }

    /// [`Operator::call`] where an argument may be `None`: Koda's
    /// `unspecified` passed explicitly. At a parameter whose default is
    /// unspecified that is as if it were not given; at any other it is
    /// Koda's error for a value of the wrong kind. (`*args` and `**kwargs`
    /// take values only: the caller boxes `unspecified` there, and fails.)
    pub fn call_given(&self, positional: Vec<Option<Value>>, keywords: Vec<(String, Option<Value>)>) -> Result<Value> {
        let bound = bind_params(self.name, &self.params, positional, keywords)?;
        let mut values = Vec::with_capacity(self.params.len());
        for (v, p) in bound.values.into_iter().zip(&self.params) {
            values.push(match v {
                Some(Some(v)) => Some(v),
                Some(None) if matches!(p.default, Some(None)) => None,
                Some(None) => return Err(Error::value(self.name, format!("expected DATA_SLICE, got {}: UNSPECIFIED", p.name))),
                None => p.default.clone().flatten().map(Value::Slice),
            });
        }
        let given = |v: Option<Value>| v.ok_or_else(|| Error::internal("unspecified among *args or **kwargs"));
        let var_args = bound.var_args.into_iter().map(given).collect::<Result<_>>()?;
        let var_kwargs = bound.var_kwargs.into_iter().map(|(k, v)| Ok((k, given(v)?))).collect::<Result<_>>()?;
        self.run(Args { op: self, values, var_args, var_kwargs })
    }

    /// Runs on arguments already bound: one value per parameter (`None`:
    /// unspecified, no default applied), then `*args` and `**kwargs`.
    pub fn call_bound(&self, values: Vec<Option<Value>>, var_args: Vec<Value>, var_kwargs: Vec<(String, Value)>) -> Result<Value> {
        debug_assert_eq!(values.len(), self.params.len());
        self.run(Args { op: self, values, var_args, var_kwargs })
    }

    fn run(&self, args: Args<'_>) -> Result<Value> {
        EVAL_EPOCH.with(|e| e.set(e.get() + 1));
        let result = match self.kernel {
            Compute::Slice(kernel) => attach_input_bags(self, kernel(&args)?, &args).map(Value::Slice),
            Compute::Value(kernel) => kernel(&args),
        }?;
        if let Some(rule) = &self.type_rule
            && crate::typing::check::enabled()
        {
            crate::typing::check::check_result(self, rule, &args.values, &args.var_args, &args.var_kwargs, &result)?;
        }
        Ok(result)
    }
}

thread_local! {
    /// Operator runs on this thread so far (see [`eval_epoch`]).
    static EVAL_EPOCH: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many times an operator has computed on this thread: `kd.compile`
/// compares it before and after tracing a function, to find evaluations
/// inside it (seed 003, "Side Effect Detection"). Per thread, so that
/// other threads computing meanwhile do not count.
pub fn eval_epoch() -> u64 {
    EVAL_EPOCH.with(|e| e.get())
}

impl Args<'_> {
    fn slot(&self, name: &str) -> &Option<Value> {
        let i = self.op.params.iter().position(|p| p.name == name).unwrap_or_else(|| panic!("{}: no parameter {name}", self.op.name));
        &self.values[i]
    }

    /// Koda's error for argument `name` of the wrong kind (`expected` is a
    /// QType name: `DATA_SLICE`, `JAGGED_SHAPE`, `DATA_BAG`).
    fn type_error(&self, name: &str, expected: &str, got: &Value) -> Error {
        Error::value(self.op.name, format!("expected {expected}, got {name}: {}", qtype_text(got)))
    }

    /// Koda's error for `*args` (`**kwargs` when `named`) that are not all
    /// of QType `expected`: the QTypes of all of them.
    fn var_type_error(&self, expected: &str, named: bool) -> Error {
        let kind = if named { ParamKind::VarKeyword } else { ParamKind::VarPositional };
        let name = self.op.params.iter().find(|p| p.kind == kind).map_or(if named { "kwargs" } else { "args" }, |p| p.name.as_str());
        let got = if named {
            let fields: Vec<String> = self.var_kwargs.iter().map(|(n, v)| format!("{n}={}", qtype_text(v))).collect();
            format!("namedtuple<{}>", fields.join(","))
        } else {
            let items: Vec<String> = self.var_args.iter().map(qtype_text).collect();
            format!("tuple<{}>", items.join(","))
        };
        Error::value(self.op.name, format!("expected all arguments to be {expected}, got {name}: {got}"))
    }

    /// The name of the operator being run (for errors).
    pub fn op_name(&self) -> &'static str {
        self.op.name
    }

    /// The value of argument `name`, `None` when unspecified.
    pub fn value(&self, name: &str) -> Option<&Value> {
        self.slot(name).as_ref()
    }

    /// A DataBag argument: `None` for the null bag, which Python passes as
    /// `None` (a missing DataItem of schema NONE).
    pub fn bag(&self, name: &str) -> Result<Option<&DataBag>> {
        match self.slot(name) {
            Some(Value::Bag(b)) => Ok(b.as_ref()),
            Some(v) => bag_of_value(v).ok_or_else(|| self.type_error(name, "DATA_BAG", v)),
            None => Err(Error::type_error(self.op.name, format!("argument `{name}` must be given"))),
        }
    }

    /// The `*args` values, which must all be DataBags (null bags: `None`).
    pub fn var_bags(&self) -> Result<Vec<Option<&DataBag>>> {
        self.var_args
            .iter()
            .map(|v| match v {
                Value::Bag(b) => Ok(b.as_ref()),
                other => bag_of_value(other).ok_or_else(|| self.var_type_error("DATA_BAG", false)),
            })
            .collect()
    }

    /// A DataSlice argument that has a value.
    pub fn slice(&self, name: &str) -> Result<&DataSlice> {
        self.opt_slice(name)?.ok_or_else(|| Error::type_error(self.op.name, format!("argument `{name}` must be given")))
    }

    /// A DataSlice argument, or `None` when unspecified.
    pub fn opt_slice(&self, name: &str) -> Result<Option<&DataSlice>> {
        match self.slot(name) {
            None => Ok(None),
            Some(Value::Slice(x)) => Ok(Some(x)),
            Some(v) => Err(self.type_error(name, "DATA_SLICE", v)),
        }
    }

    /// A DataSlice argument, or `None` when unspecified or given as Python
    /// `None` (a missing DataItem): for arguments whose default is None.
    pub fn opt_given(&self, name: &str) -> Result<Option<&DataSlice>> {
        Ok(self.opt_slice(name)?.filter(|s| s.schema() != Schema::None || s.rank() > 0))
    }

    /// A JaggedShape argument. The operators taking one build a result of
    /// its size (`*_shaped`, `tile`), so a shape whose items could not be
    /// allocated (a uniform shape of 10**12 items costs two numbers) is
    /// refused here, before anything is built.
    pub fn shape(&self, name: &str) -> Result<&JaggedShape> {
        let s = self.shape_read(name)?;
        // (`kd.dicts._shaped` is what `kd.dict_shaped`, Koda's `kd.dicts.shaped`, calls.)
        plait_core::limits::ensure_allocatable(&self.op.name.replace("._", "."), s.size(), 8)?;
        Ok(s)
    }

    /// A JaggedShape argument that is only read (`kd.shapes.rank`), of any
    /// size.
    pub fn shape_read(&self, name: &str) -> Result<&JaggedShape> {
        match self.slot(name) {
            Some(Value::Shape(s)) => Ok(s),
            Some(v) => Err(self.type_error(name, "JAGGED_SHAPE", v)),
            None => Err(Error::type_error(self.op.name, format!("argument `{name}` must be given"))),
        }
    }

    /// An integer item argument, `None` when unspecified or missing. Other
    /// values are refused with Koda's texts (its conversion to an integer).
    pub fn opt_int(&self, name: &str) -> Result<Option<i64>> {
        let Some(x) = self.opt_slice(name)? else {
            return Ok(None);
        };
        if !x.is_item() {
            return Err(Error::value(self.op.name, format!("argument `{name}`: expected rank 0, but got rank={}", x.rank())));
        }
        match x.get(0) {
            None => Ok(None),
            Some(ScalarRef::Int32(v)) => Ok(Some(v as i64)),
            Some(ScalarRef::Int64(v)) => Ok(Some(v)),
            Some(v) => Err(Error::value(self.op.name, format!("argument `{name}`: {}", not_integer(v.dtype())))),
        }
    }

    /// An integer item argument that has a value.
    pub fn int(&self, name: &str) -> Result<i64> {
        self.opt_int(name)?.ok_or_else(|| Error::value(self.op.name, format!("argument `{name}`: expected a present value")))
    }

    /// The `ndim` argument of an aggregation (`None` = unspecified).
    /// Given, it must hold a value (Koda refuses `ndim=None`).
    pub fn ndim(&self) -> Result<Option<i64>> {
        if self.opt_slice("ndim")?.is_some_and(|x| x.is_item() && x.get(0).is_none()) {
            return Err(Error::value(self.op.name, "argument `ndim`: expected a present value"));
        }
        self.opt_int("ndim")
    }

    /// The `ndim` of an operator over the last dimensions of its argument
    /// `x`: a given `ndim` is checked against `x`'s rank here, before any
    /// other argument, as Koda checks it (a precondition of the operator).
    pub fn agg_ndim(&self) -> Result<Option<i64>> {
        let ndim = self.ndim()?;
        if ndim.is_some() {
            crate::groups::resolve_ndim(self.op.name, self.slice("x")?, ndim)?;
        }
        Ok(ndim)
    }

    /// An argument Koda reads with Python's `operator.index`: an integer or
    /// BOOLEAN item (in OBJECT too); anything else is Python's TypeError.
    pub fn index(&self, name: &str) -> Result<i64> {
        let x = self.slice(name)?;
        match (x.is_item(), x.get(0)) {
            (true, Some(ScalarRef::Int32(v))) => Ok(v as i64),
            (true, Some(ScalarRef::Int64(v))) => Ok(v),
            (true, Some(ScalarRef::Boolean(b))) => Ok(b as i64),
            _ => Err(Error::type_error(self.op.name, format!("an integer is required for argument `{name}`, got {}", describe(x)))),
        }
    }

    /// A BOOLEAN item argument.
    pub fn bool(&self, name: &str) -> Result<bool> {
        let x = self.slice(name)?;
        crate::checks::present_scalar_for(self.op.name, name, x, Schema::Boolean)?;
        match x.get(0) {
            Some(ScalarRef::Boolean(b)) => Ok(b),
            _ => Err(Error::value(self.op.name, format!("argument `{name}` must be an item holding BOOLEAN"))),
        }
    }

    /// A SCHEMA item argument.
    pub fn schema(&self, name: &str) -> Result<Schema> {
        let x = self.slice(name)?;
        match (x.is_item(), x.get(0)) {
            (true, Some(ScalarRef::Schema(s))) => Ok(s),
            // Koda's text for a value that is not a schema.
            _ if x.schema() != Schema::Schema => Err(not_a_schema(self.op.name, name, x)),
            _ => Err(Error::value(self.op.name, format!("{name} must be a schema item, got {}", describe(x)))),
        }
    }

    /// The `*args` values.
    pub fn var_args(&self) -> &[Value] {
        &self.var_args
    }

    /// The `*args` values, which must all be DataSlices.
    pub fn var_slices(&self) -> Result<Vec<&DataSlice>> {
        self.var_args
            .iter()
            .map(|v| match v {
                Value::Slice(x) => Ok(x),
                _ => Err(self.var_type_error("DATA_SLICE", false)),
            })
            .collect()
    }

    /// The `**kwargs` values, by name.
    pub fn var_kwargs(&self) -> &[(String, Value)] {
        &self.var_kwargs
    }

    /// The `**kwargs` values, which must all be DataSlices.
    pub fn named_slices(&self) -> Result<Vec<(String, DataSlice)>> {
        self.var_kwargs
            .iter()
            .map(|(n, v)| match v {
                Value::Slice(x) => Ok((n.clone(), x.clone())),
                _ => Err(self.var_type_error("DATA_SLICE", true)),
            })
            .collect()
    }

    /// A STRING item argument (an attribute or schema name, a seed); other
    /// values raise Koda's `argument `name` must be an item holding STRING`.
    pub fn text(&self, name: &str) -> Result<String> {
        crate::checks::string_item(self.op.name, name, self.slice(name)?).map(str::to_string)
    }
}

/// Koda's error for values of `dtype` where integers (INT64) are wanted:
/// ids and schemas have no common schema with INT64, other primitives would
/// be narrowed.
pub fn not_integer(dtype: Schema) -> String {
    match dtype {
        Schema::ItemId | Schema::Schema | Schema::Struct(_) => "cannot find a common schema".to_string(),
        other => format!("unsupported narrowing cast to INT64 for the given {other} DataSlice"),
    }
}

/// The bag a bag argument holds (`Some(None)`: the null bag); `None` for a
/// value that is not a bag (a DataSlice, Python's `None` included, as in
/// Koda: the null bag is `kd.get_bag` of a slice without one).
fn bag_of_value(v: &Value) -> Option<Option<&DataBag>> {
    match v {
        Value::Bag(b) => Some(b.as_ref()),
        _ => None,
    }
}

/// The result with the bag `op`'s [`BagRule`] gives it from the slice
/// arguments' bags.
fn attach_input_bags(op: &Operator, result: DataSlice, args: &Args<'_>) -> Result<DataSlice> {
    let values = args.values.iter().flatten().chain(args.var_args.iter()).chain(args.var_kwargs.iter().map(|(_, v)| v));
    let inputs: Vec<&DataSlice> = match op.bags {
        BagRule::From(names) => names.iter().map(|n| args.opt_slice(n)).collect::<Result<Vec<_>>>()?.into_iter().flatten().collect(),
        _ => values.filter_map(|v| if let Value::Slice(x) = v { Some(x) } else { None }).collect(),
    };
    op.with_input_bags(result, &inputs)
}

impl Operator {
    /// `result` with the bag this operator's [`BagRule`] gives it from the
    /// bags of `inputs` (a result that has a bag of its own keeps it). Also
    /// for callers that run a kernel directly (`x & y` in Python).
    pub fn with_input_bags(&self, result: DataSlice, inputs: &[&DataSlice]) -> Result<DataSlice> {
        if self.bags == BagRule::Drop || result.bag().is_some() {
            return Ok(result);
        }
        Ok(match self.bags {
            BagRule::Drop => result,
            BagRule::Structured => crate::objects::model::keep_bags(result, inputs),
            BagRule::PassThrough | BagRule::From(_) => {
                let bag = plait_core::DataBag::combined(inputs.iter().filter_map(|x| x.bag()));
                result.with_bag(bag)
            }
            BagRule::Merge => {
                let bag = crate::objects::model::merged_bag_of(self.name, inputs)?;
                result.with_bag(bag)
            }
        })
    }
}

/// Parses a Python parameter list.
pub fn parse_signature(text: &str) -> std::result::Result<Vec<Param>, String> {
    let mut params = Vec::new();
    let mut keyword_only = false;
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        if part == "/" {
            for p in params.iter_mut() {
                let p: &mut Param = p;
                p.kind = ParamKind::PositionalOnly;
            }
            continue;
        }
        if part == "*" {
            keyword_only = true;
            continue;
        }
        if let Some(name) = part.strip_prefix("**") {
            params.push(Param { name: name.to_string(), kind: ParamKind::VarKeyword, default: None });
            continue;
        }
        if let Some(name) = part.strip_prefix('*') {
            params.push(Param { name: name.to_string(), kind: ParamKind::VarPositional, default: None });
            keyword_only = true;
            continue;
        }
        let (name, default) = match part.split_once('=') {
            Some((n, d)) => (n.trim(), Some(parse_default(d.trim())?)),
            None => (part, None),
        };
        let kind = if keyword_only { ParamKind::KeywordOnly } else { ParamKind::PositionalOrKeyword };
        params.push(Param { name: name.to_string(), kind, default });
    }
    Ok(params)
}

/// A Python string literal's body with its escapes (`\\n`, `\\t`, `\\\\`, `\\'`) resolved.
fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

fn parse_default(text: &str) -> std::result::Result<Option<DataSlice>, String> {
    let item = |v: Option<ScalarRef<'_>>, s: Schema| DataSlice::item(v, s).map(Some).map_err(|e| e.to_string());
    match text {
        "unspecified" => Ok(None),
        "None" => item(None, Schema::None),
        "True" => item(Some(ScalarRef::Boolean(true)), Schema::Boolean),
        "False" => item(Some(ScalarRef::Boolean(false)), Schema::Boolean),
        // An empty 1-D slice, as Koda's defaults meaning "none given" where
        // a DataSlice of names or values is taken.
        "[]" => Ok(Some(DataSlice::missing(JaggedShape::flat(0), Schema::None))),
        _ => {
            // A typed integer item (`int64(0)`, `int64(None)`): Koda's
            // defaults for dimensions and string positions are INT64.
            if let Some((dtype, value)) = text.strip_suffix(')').and_then(|t| t.split_once('(')) {
                let schema = match dtype {
                    "int32" => Schema::Int32,
                    "int64" => Schema::Int64,
                    _ => return Err(format!("unknown default {text}")),
                };
                if value == "None" {
                    return item(None, schema);
                }
                let v: i64 = value.parse().map_err(|_| format!("unknown default {text}"))?;
                let v = if schema == Schema::Int32 {
                    ScalarRef::Int32(i32::try_from(v).map_err(|_| format!("unknown default {text}"))?)
                } else {
                    ScalarRef::Int64(v)
                };
                return item(Some(v), schema);
            }
            if let Some(s) = Schema::from_name(text) {
                return item(Some(ScalarRef::Schema(s)), Schema::Schema);
            }
            if let Some(inner) = text.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')) {
                return item(Some(ScalarRef::String(&unescape(inner))), Schema::String);
            }
            if let Ok(v) = text.parse::<i32>() {
                return item(Some(ScalarRef::Int32(v)), Schema::Int32);
            }
            if let Ok(v) = text.parse::<f32>() {
                return item(Some(ScalarRef::Float32(v)), Schema::Float32);
            }
            Err(format!("unknown default {text}"))
        }
    }
}

/// Koda's error for a value given where a schema item is expected:
/// `{name}'s schema must be SCHEMA, got: {its schema}` (a struct schema
/// shown by its id, as `Schema:$...`).
/// The schema a present SCHEMA item argument `name` of `op` holds, checked
/// in Koda's order: the argument's schema, its rank, then presence.
pub fn schema_item_arg(op: &str, name: &str, x: &DataSlice) -> Result<Schema> {
    if x.schema() != Schema::Schema {
        return Err(not_a_schema(op, name, x));
    }
    if !x.is_item() {
        return Err(Error::value(op, format!("{name} can only be 0-rank schema slice, got: rank({})", x.rank())));
    }
    match x.get(0) {
        Some(ScalarRef::Schema(s)) => Ok(s),
        _ => Err(Error::value(op, format!("{name} must contain either a DType or valid schema ItemId, got None"))),
    }
}

pub fn not_a_schema(op: &str, name: &str, x: &DataSlice) -> Error {
    let got = match x.schema() {
        Schema::Struct(id) => format!("Schema:{}", id.short()),
        other => other.to_string(),
    };
    Error::value(op, format!("{name}'s schema must be SCHEMA, got: {got}"))
}
