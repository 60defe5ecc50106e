//! Control flow over functors: `kd.call`, `kd.if_`, `kd.map`, `kd.while_`,
//! `kd.for_`, `kd.functor.reduce`, `flat_map_chain` and
//! `flat_map_interleaved`. They decide at evaluation which functors to call
//! (a Python `if` or `for` in a traced function runs once, at tracing), and
//! run in Rust: each functor is compiled once per operator call and its
//! plan reused for every item or round.

use std::collections::HashMap;
use std::sync::Arc;

use plait_core::{DataSlice, Error, ItemId, Result, ScalarRef, Schema};
use plait_ops::registry::{self, Value};

use super::{iterables::chain_items, required, slice_arg, take, type_name};
use crate::functor::{self, Compiled};
use crate::operator::{Builtin, BuiltinDef, CallArgs};
use crate::value::{ExprValue, Iterable};

const CALL: &str = "kd.functor.call";
const IF: &str = "kd.functor.if_";
const CALL_AND_UPDATE: &str = "kd.functor.call_and_update_namedtuple";
const MAP: &str = "kd.functor.map";
const WHILE: &str = "kd.functor.while_";
const FOR: &str = "kd.functor.for_";
const REDUCE: &str = "kd.functor.reduce";

pub const DEFS: &[BuiltinDef] = &[
    BuiltinDef {
        name: CALL,
        aliases: &["kd.call"],
        signature: "fn, *args, return_type_as=None, **kwargs",
        doc: CALL_DOC,
        call,
        deterministic: false,
        role: Builtin::Call,
    },
    BuiltinDef {
        name: CALL_AND_UPDATE,
        aliases: &[],
        signature: "fn, *args, namedtuple_to_update, **kwargs",
        doc: CALL_AND_UPDATE_DOC,
        call: call_and_update_namedtuple,
        deterministic: false,
        role: Builtin::Other,
    },
    BuiltinDef {
        name: "kd.functor._call_bound",
        aliases: &[],
        signature: "fn, bound_args, bound_kwargs, args, kwargs",
        doc: CALL_BOUND_DOC,
        call: call_bound,
        deterministic: false,
        role: Builtin::Other,
    },
    BuiltinDef {
        name: IF,
        aliases: &["kd.if_"],
        signature: "cond, yes_fn, no_fn, *args, return_type_as=None, **kwargs",
        doc: IF_DOC,
        call: if_,
        deterministic: false,
        role: Builtin::Other,
    },
    BuiltinDef {
        name: MAP,
        aliases: &["kd.map"],
        signature: "fn, *args, include_missing=False, **kwargs",
        doc: MAP_DOC,
        call: map,
        deterministic: false,
        role: Builtin::Other,
    },
    BuiltinDef {
        name: WHILE,
        aliases: &["kd.while_"],
        signature: "condition_fn, body_fn, *, returns=unspecified, yields=unspecified, yields_interleaved=unspecified, **initial_state",
        doc: WHILE_DOC,
        call: while_,
        deterministic: false,
        role: Builtin::Other,
    },
    BuiltinDef {
        name: FOR,
        aliases: &["kd.for_"],
        signature: "iterable, body_fn, *, finalize_fn=unspecified, condition_fn=unspecified, returns=unspecified, \
                    yields=unspecified, yields_interleaved=unspecified, **initial_state",
        doc: FOR_DOC,
        call: for_,
        deterministic: false,
        role: Builtin::Other,
    },
    BuiltinDef {
        name: REDUCE,
        aliases: &[],
        signature: "fn, items, initial_value",
        doc: REDUCE_DOC,
        call: reduce,
        deterministic: false,
        role: Builtin::Other,
    },
    BuiltinDef {
        name: "kd.functor.flat_map_chain",
        aliases: &["kd.flat_map_chain"],
        signature: "iterable, fn, value_type_as=None",
        doc: FLAT_MAP_CHAIN_DOC,
        call: flat_map_chain,
        deterministic: false,
        role: Builtin::Other,
    },
    BuiltinDef {
        name: "kd.functor.flat_map_interleaved",
        aliases: &["kd.flat_map_interleaved"],
        signature: "iterable, fn, value_type_as=None",
        doc: FLAT_MAP_INTERLEAVED_DOC,
        call: flat_map_interleaved,
        deterministic: false,
        role: Builtin::Other,
    },
];

/// A functor argument of operator `op`, compiled (Koda's error when it is
/// none: its operators call `kd.call`).
pub(crate) fn functor_arg(op: &str, v: ExprValue) -> Result<Arc<Compiled>> {
    match v {
        ExprValue::Data(Value::Slice(f)) => functor::compile_as(op, &f),
        other => Err(Error::value(op, format!("the first argument of kd.call must be a functor, got {}", describe(&other)))),
    }
}

/// A value as errors show it.
pub(crate) fn describe(v: &ExprValue) -> String {
    match v {
        ExprValue::Data(Value::Slice(x)) => plait_core::repr::repr_slice(x),
        other => other.kind_name(),
    }
}

/// Calls a compiled functor; the error keeps the notes of the call.
pub(crate) fn call_fn(f: &Compiled, positional: Vec<ExprValue>, keywords: Vec<(String, ExprValue)>) -> Result<ExprValue> {
    functor::call_compiled(f, positional, keywords).map_err(|e| e.error)
}

/// Whether `v` is a present MASK DataItem; `None` when it is no MASK item.
pub(crate) fn mask_item(v: &ExprValue) -> Option<bool> {
    match v {
        ExprValue::Data(Value::Slice(x)) if x.is_item() && x.schema() == Schema::Mask => Some(x.get(0).is_some()),
        _ => None,
    }
}

const CALL_DOC: &str = "Calls the functor `fn` with the given arguments and returns its result.

The arguments are bound to the functor's signature like a Python call's;
calling the functor directly (`fn(...)`) is the same.

Args:
  fn: the functor to call.
  *args: positional arguments.
  return_type_as: accepted for compatibility with Koda; not used by plait.
  **kwargs: keyword arguments.

Examples:
  >>> kd.call(kd.fn(I.x + 1), x=2)
  DataItem(3, schema: INT32)
  >>> kd.call(kd.fn(lambda x, y: x - y), kd.slice([10, 20]), y=3)
  DataSlice([7, 17], schema: INT32, present: 2/2)";

fn call(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    let f = match take(&mut args, 0) {
        Some(ExprValue::Data(Value::Slice(f))) => f,
        Some(other) => {
            return Err(Error::value(CALL, format!("the first argument of kd.call must be a functor, got {}", other.kind_name())));
        }
        None => return Err(Error::value(op, "the first argument of kd.call must be a functor")),
    };
    functor::call(&f, args.var_args, args.var_kwargs).map_err(|e| e.error)
}

const CALL_AND_UPDATE_DOC: &str = "Calls the functor `fn` and returns `namedtuple_to_update` with the fields of the named tuple it returns.

The functor must return a named tuple whose fields are some (or all, or
none) of `namedtuple_to_update`'s, in any order; those fields take the
returned values, the others keep theirs.

Args:
  fn: the functor to call.
  *args: positional arguments of the call.
  namedtuple_to_update: the named tuple to update.
  **kwargs: keyword arguments of the call.

Examples:
  >>> f = kd.fn(lambda x: kd.namedtuple(x=x * 2))
  >>> kd.functor.call_and_update_namedtuple(f, x=2, namedtuple_to_update=kd.namedtuple(x=1, y=2))
  namedtuple<x=DATA_SLICE,y=DATA_SLICE>{(DataItem(4, schema: INT32), DataItem(2, schema: INT32))}
  >>> kd.functor.call_and_update_namedtuple(kd.fn(lambda x: x), 1, namedtuple_to_update=kd.namedtuple(x=1))
  Traceback (most recent call last):
  ...
  ValueError: kd.functor.call_and_update_namedtuple: the functor must return a namedtuple, but it returned `DATA_SLICE`";

/// `kd.functor.call_and_update_namedtuple(fn, *args, namedtuple_to_update, **kwargs)`.
fn call_and_update_namedtuple(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    let f = functor_arg(CALL, required(op, &mut args, 0)?)?;
    let original = match required(op, &mut args, 2)? {
        ExprValue::Tuple(t) if t.names.is_some() => t,
        other => {
            return Err(Error::value(
                CALL_AND_UPDATE,
                format!("expected a namedtuple, got namedtuple_to_update: {}", crate::stream::value_type_name(&other)),
            ));
        }
    };
    let update = match call_fn(&f, std::mem::take(&mut args.var_args), std::mem::take(&mut args.var_kwargs))? {
        ExprValue::Tuple(t) if t.names.is_some() => t,
        other => {
            return Err(Error::value(
                CALL_AND_UPDATE,
                format!("the functor must return a namedtuple, but it returned `{}`", crate::stream::value_type_name(&other)),
            ));
        }
    };
    let names = original.names.as_ref().expect("a named tuple");
    let mut items = original.items.clone();
    for (name, value) in update.names.iter().flatten().zip(&update.items) {
        let Some(i) = names.iter().position(|n| n == name) else {
            return Err(Error::value(
                CALL_AND_UPDATE,
                format!("the functor returned a namedtuple with field `{name}`, but the original namedtuple does not have such a field"),
            ));
        };
        items[i] = value.clone();
    }
    Ok(ExprValue::Tuple(Arc::new(crate::value::Tuple { items, names: original.names.clone() })))
}

const CALL_BOUND_DOC: &str = "The body of `kd.bind` functors: calls `fn` with the bound positional
arguments, then the caller's, and the bound keyword arguments overridden by
the caller's.";

fn call_bound(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    let f = functor_arg(CALL, required(op, &mut args, 0)?)?;
    let tuple = |v: ExprValue, what: &str| match v {
        ExprValue::Tuple(t) => Ok(t),
        other => Err(Error::type_error(op, format!("`{what}` must be a tuple, got {}", other.kind_name()))),
    };
    let bound_args = tuple(required(op, &mut args, 1)?, "bound_args")?;
    let bound_kwargs = tuple(required(op, &mut args, 2)?, "bound_kwargs")?;
    let caller_args = tuple(required(op, &mut args, 3)?, "args")?;
    let caller_kwargs = tuple(required(op, &mut args, 4)?, "kwargs")?;
    let positional = bound_args.items.iter().chain(&caller_args.items).cloned().collect();
    let mut keywords: Vec<(String, ExprValue)> = Vec::new();
    for t in [&bound_kwargs, &caller_kwargs] {
        let names = t.names.iter().flatten();
        for (name, value) in names.zip(&t.items) {
            match keywords.iter_mut().find(|(n, _)| **n == **name) {
                Some(slot) => slot.1 = value.clone(),
                None => keywords.push((name.to_string(), value.clone())),
            }
        }
    }
    call_fn(&f, positional, keywords)
}

const IF_DOC: &str = "Calls `yes_fn` if `cond` is present and `no_fn` otherwise.

`cond` must be a MASK DataItem (a ValueError is raised otherwise); the
other arguments are passed to the chosen functor and its result is
returned. Only the chosen functor is called. As in Koda, a Python function
is traced into a functor (`kd.fn`), once, and Python values are boxed.

Args:
  cond: a MASK DataItem.
  yes_fn: the functor to call when `cond` is present.
  no_fn: the functor to call when `cond` is missing.
  *args: positional arguments for the functor.
  return_type_as: accepted for compatibility with Koda; not used by plait.
  **kwargs: keyword arguments for the functor.

Examples:
  >>> kd.if_(kd.present, kd.fn(I.x + 1), kd.fn(I.x - 1), x=5)
  DataItem(6, schema: INT32)
  >>> x = kd.item(1)
  >>> kd.if_(x > 2, lambda x: x + 1, lambda x: x - 1, x)
  DataItem(0, schema: INT32)";

fn if_(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    let cond = required(op, &mut args, 0)?;
    let present = mask_item(&cond).ok_or_else(|| Error::value(IF, "the condition in kd.if_ must be a MASK scalar"))?;
    let (yes, no) = (required(op, &mut args, 1)?, required(op, &mut args, 2)?);
    let chosen = if present { yes } else { no };
    let f = functor_arg(CALL, chosen)?;
    call_fn(&f, args.var_args, args.var_kwargs)
}

const MAP_DOC: &str = "Calls the functor `fn` on each item of the arguments and returns the results.

The arguments (and `fn`, which may be a DataSlice of functors) are aligned
to a common shape, and the result has that shape. An item is missing where
the functor is missing, or where an argument is missing unless
`include_missing` is true (then the functor receives the missing item).
The result has the common schema of the results (an error is raised if
they have none). A Python function is traced into a functor (`kd.fn`), as
Koda does. Each functor is compiled once, and the calls run in Rust.

Args:
  fn: a functor, or a DataSlice of functors.
  *args: positional arguments, one item of each per call.
  include_missing: whether to call the functor for missing items of the
    arguments.
  **kwargs: keyword arguments, one item of each per call.

Examples:
  >>> kd.map(kd.fn(lambda x: x * 2), kd.slice([1, 2, None]))
  DataSlice([2, 4, None], schema: INT32, present: 2/3)
  >>> fns = kd.slice([kd.fn(I.x + 1), kd.fn(I.x * 10)])
  >>> kd.map(fns, x=kd.slice([5, 6]))
  DataSlice([6, 60], schema: INT32, present: 2/2)
  >>> kd.map(kd.fn(lambda x: x | 0), kd.slice([1, None]), include_missing=True)
  DataSlice([1, 0], schema: INT32, present: 2/2)
  >>> kd.map(lambda x: kd.str(x), kd.slice([1, 2]))
  DataSlice(['1', '2'], schema: STRING, present: 2/2)";

/// Item `i` of `x`, as the functor receives it: with `x`'s schema and bag.
fn item_of(x: &DataSlice, i: usize) -> Result<DataSlice> {
    Ok(DataSlice::item(x.get(i), x.schema())?.with_bag(x.bag().cloned()))
}

fn map(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    let fns = slice_arg(MAP, "fn", required(op, &mut args, 0)?)?;
    // Parameters: fn, *args, include_missing, **kwargs.
    let include_missing = take(&mut args, 2).map_or(Ok(false), |v| match &v {
        ExprValue::Data(Value::Slice(x)) if x.is_item() && matches!(x.get(0), Some(ScalarRef::Boolean(_)) | None) => {
            Ok(x.get(0) == Some(ScalarRef::Boolean(true)))
        }
        _ => Err(Error::type_error(MAP, format!("`include_missing` must be a BOOLEAN item, got {}", describe(&v)))),
    })?;
    let n_positional = args.var_args.len();
    let mut names = Vec::with_capacity(args.var_kwargs.len());
    let mut inputs = vec![fns];
    for (k, v) in args.var_args.into_iter().enumerate() {
        inputs.push(slice_arg(MAP, &format!("args[{k}]"), v)?);
    }
    for (name, v) in args.var_kwargs {
        inputs.push(slice_arg(MAP, &name, v)?);
        names.push(name);
    }
    let refs: Vec<&DataSlice> = inputs.iter().collect();
    let aligned = plait_core::broadcast::align(MAP, &refs)?;
    let (fns, values) = aligned.split_first().expect("fn is an input");
    if let Some(executor) = crate::stream::parallel_executor().filter(|_| fns.size() > 1) {
        return map_parallel(&executor, fns, values, n_positional, names, include_missing);
    }
    let mut compiled: HashMap<ItemId, Arc<Compiled>> = HashMap::new();
    let mut results = Results::with_capacity(fns.size());
    let mut progress = crate::host::Progress::start("kd.map", fns.size());
    for i in 0..fns.size() {
        progress.tick();
        let id = match fns.get(i) {
            None => {
                results.push_missing();
                continue;
            }
            Some(ScalarRef::ItemId(id)) => id,
            // Not a functor: the error names it.
            Some(_) => return Err(functor_arg(MAP, ExprValue::slice(item_of(fns, i)?)).expect_err("a primitive is no functor")),
        };
        if !include_missing && values.iter().any(|v| v.get(i).is_none()) {
            results.push_missing();
            continue;
        }
        let f = match compiled.get(&id) {
            Some(f) => f.clone(),
            None => {
                let f = functor_arg(MAP, ExprValue::slice(item_of(fns, i)?))?;
                compiled.insert(id, f.clone());
                f
            }
        };
        let mut items = values.iter().map(|v| item_of(v, i).map(ExprValue::slice));
        let positional = items.by_ref().take(n_positional).collect::<Result<Vec<_>>>()?;
        let keywords = names.iter().cloned().zip(items).map(|(k, v)| Ok((k, v?))).collect::<Result<Vec<_>>>()?;
        match call_fn(&f, positional, keywords)? {
            ExprValue::Data(Value::Slice(r)) if r.is_item() => results.push(r)?,
            ExprValue::Data(Value::Slice(r)) => {
                return Err(Error::value(
                    MAP,
                    format!("the functor is expected to be evaluated to a DataItem, but the result has shape: {}", r.shape()),
                ));
            }
            other => {
                return Err(Error::value(
                    MAP,
                    format!("the functor is expected to be evaluated to a DataItem, but it returned {}", other.kind_name()),
                ));
            }
        }
    }
    Ok(ExprValue::slice(results.finish()?.with_shape(MAP, fns.shape().clone())?))
}

/// `kd.map` inside `kd.parallel`: the calls run on `executor`'s threads
/// (each functor compiled once, first), the results kept in item order.
fn map_parallel(
    executor: &crate::stream::Executor,
    fns: &DataSlice,
    values: &[DataSlice],
    n_positional: usize,
    names: Vec<String>,
    include_missing: bool,
) -> Result<ExprValue> {
    let mut compiled: HashMap<ItemId, Arc<Compiled>> = HashMap::new();
    for i in 0..fns.size() {
        match fns.get(i) {
            None => {}
            Some(ScalarRef::ItemId(id)) => {
                if let std::collections::hash_map::Entry::Vacant(slot) = compiled.entry(id) {
                    slot.insert(functor_arg(MAP, ExprValue::slice(item_of(fns, i)?))?);
                }
            }
            Some(_) => return Err(functor_arg(MAP, ExprValue::slice(item_of(fns, i)?)).expect_err("a primitive is no functor")),
        }
    }
    let (fns_all, values, compiled) = (fns.clone(), values.to_vec(), Arc::new(compiled));
    let call_one = move |i: usize| -> Result<Option<DataSlice>> {
        let Some(ScalarRef::ItemId(id)) = fns_all.get(i) else { return Ok(None) };
        if !include_missing && values.iter().any(|v| v.get(i).is_none()) {
            return Ok(None);
        }
        let mut items = values.iter().map(|v| item_of(v, i).map(ExprValue::slice));
        let positional = items.by_ref().take(n_positional).collect::<Result<Vec<_>>>()?;
        let keywords = names.iter().cloned().zip(items).map(|(k, v)| Ok((k, v?))).collect::<Result<Vec<_>>>()?;
        match call_fn(&compiled[&id], positional, keywords)? {
            ExprValue::Data(Value::Slice(r)) if r.is_item() => Ok(Some(r)),
            ExprValue::Data(Value::Slice(r)) => {
                Err(Error::value(MAP, format!("the functor is expected to be evaluated to a DataItem, but the result has shape: {}", r.shape())))
            }
            other => Err(Error::value(MAP, format!("the functor is expected to be evaluated to a DataItem, but it returned {}", other.kind_name()))),
        }
    };
    let items = crate::stream::parallel_for(executor, fns.size(), Arc::new(call_one))?;
    let mut results = Results::with_capacity(fns.size());
    for item in items {
        match item {
            Some(r) => results.push(r)?,
            None => results.push_missing(),
        }
    }
    Ok(ExprValue::slice(results.finish()?.with_shape(MAP, fns.shape().clone())?))
}

/// The results of `kd.map`, one DataItem per call. While they share a
/// schema and read at most one bag (the common case: a functor computing
/// numbers, or entities of one bag) their values go straight into one
/// column; once they differ, they are kept as items and stacked by
/// `kd.slices.stack` at the end (common schema, merged bags).
struct Results {
    column: plait_core::column::SliceBuilder,
    len: usize,
    /// The schema of the present results so far (NONE before the first).
    schema: Schema,
    bag: Option<plait_core::DataBag>,
    /// The results as items, once they differ.
    mixed: Option<Vec<DataSlice>>,
}

impl Results {
    fn with_capacity(n: usize) -> Results {
        Results { column: plait_core::column::SliceBuilder::with_capacity(n), len: 0, schema: Schema::None, bag: None, mixed: None }
    }

    fn push_missing(&mut self) {
        match &mut self.mixed {
            Some(items) => items.push(DataSlice::missing(plait_core::JaggedShape::scalar(), Schema::None)),
            None => {
                self.column.push(None);
                self.len += 1;
            }
        }
    }

    fn push(&mut self, x: DataSlice) -> Result<()> {
        if self.mixed.is_none() {
            let missing = x.schema() == Schema::None && x.get(0).is_none();
            if self.schema == Schema::None && !missing {
                self.schema = x.schema();
            }
            let same_bag = match (x.bag(), &self.bag) {
                (None, _) => true,
                (Some(b), Some(mine)) => b.id() == mine.id(),
                (Some(b), None) => {
                    self.bag = Some(b.clone());
                    true
                }
            };
            if (missing || x.schema() == self.schema) && same_bag {
                self.column.push(x.get(0));
                self.len += 1;
                return Ok(());
            }
            let so_far = self.uniform()?;
            self.mixed = Some((0..so_far.size()).map(|i| item_of(&so_far, i)).collect::<Result<_>>()?);
        }
        self.mixed.as_mut().expect("mixed results").push(x);
        Ok(())
    }

    /// The results pushed while they were uniform, as one flat slice.
    fn uniform(&mut self) -> Result<DataSlice> {
        let column = std::mem::take(&mut self.column);
        let flat = DataSlice::new(plait_core::JaggedShape::flat(self.len), column.finish(), self.schema)?;
        Ok(flat.with_bag(self.bag.clone()))
    }

    fn finish(mut self) -> Result<DataSlice> {
        let Some(items) = self.mixed.take() else { return self.uniform() };
        let values = items.into_iter().map(Value::Slice).collect();
        registry::call_slice("kd.slices.stack", values, Vec::new()).map_err(|e| e.raised_by("kd.slices.stack", MAP))
    }
}

/// Which of `returns`, `yields` and `yields_interleaved` a loop has, and its
/// initial value.
fn result_var(op: &str, returns: Option<ExprValue>, yields: Option<ExprValue>, interleaved: Option<ExprValue>) -> Result<(&'static str, ExprValue)> {
    let given: Vec<(&'static str, ExprValue)> =
        [("returns", returns), ("yields", yields), ("yields_interleaved", interleaved)].into_iter().filter_map(|(n, v)| Some((n, v?))).collect();
    match <[_; 1]>::try_from(given) {
        Ok([one]) => Ok(one),
        Err(_) => Err(Error::value(op, "exactly one of `returns`, `yields`, `yields_interleaved` must be specified")),
    }
}

/// The variables of a loop, and the iterables it yields.
struct LoopState {
    op: &'static str,
    vars: Vec<(String, ExprValue)>,
    result: &'static str,
    yielded: Vec<Arc<Iterable>>,
}

/// A loop's `yields` value, which must be an iterable.
fn as_iterable(op: &str, name: &str, value: ExprValue) -> Result<Arc<Iterable>> {
    match value {
        ExprValue::Iterable(it) => Ok(it),
        other => Err(Error::value(op, format!("expected `{name}` value to have type `ITERABLE[DATA_SLICE]`, got `{}`", type_name(&other)))),
    }
}

/// Applies the named tuple of updates a loop functor (`fn_name`) returned:
/// each field sets the state variable of its name, except the one named
/// `result` (`yields` / `yields_interleaved`), which goes to `yielded`.
/// Shared by `kd.while_` / `kd.for_` and their stream forms.
pub(crate) fn apply_loop_updates(
    op: &str,
    fn_name: &str,
    updates: ExprValue,
    vars: &mut [(String, ExprValue)],
    result: &str,
    mut yielded: impl FnMut(&str, &ExprValue) -> Result<()>,
) -> Result<()> {
    let fields = match updates {
        ExprValue::Tuple(t) if t.names.is_some() => t,
        other => return Err(Error::value(op, format!("{fn_name} must return a namedtuple, got type `{}`", type_name(&other)))),
    };
    let names = fields.names.as_ref().expect("a named tuple");
    for (name, value) in names.iter().zip(&fields.items) {
        if **name == *result && result != "returns" {
            yielded(name, value)?;
        } else if let Some(slot) = vars.iter_mut().find(|(n, _)| **n == **name) {
            slot.1 = value.clone();
        } else {
            return Err(Error::value(
                op,
                format!(
                    "{fn_name} must return a namedtuple with field names that are a subset of the state variable names, got an unknown field: `{name}`"
                ),
            ));
        }
    }
    Ok(())
}

impl LoopState {
    /// As in Koda, `yields` / `yields_interleaved` is not passed to the
    /// functors, only set by them.
    fn new(op: &'static str, initial: Vec<(String, ExprValue)>, result: (&'static str, ExprValue)) -> Result<LoopState> {
        let (name, value) = result;
        let mut state = LoopState { op, vars: initial, result: name, yielded: Vec::new() };
        if name == "returns" {
            state.vars.push((name.to_string(), value));
        } else {
            state.yielded.push(as_iterable(op, name, value)?);
        }
        Ok(state)
    }

    /// Whether the MASK DataItem `condition_fn` returned is present.
    fn go_on(&self, condition: &Compiled) -> Result<bool> {
        let cond = call_fn(condition, Vec::new(), self.vars.clone())?;
        mask_item(&cond).ok_or_else(|| Error::value(self.op, format!("condition_fn must return a MASK DataItem, got {}", describe(&cond))))
    }

    /// Applies the named tuple of updates a functor (`fn_name`) returned.
    fn apply(&mut self, fn_name: &str, updates: ExprValue) -> Result<()> {
        let (op, result) = (self.op, self.result);
        let yielded = &mut self.yielded;
        apply_loop_updates(op, fn_name, updates, &mut self.vars, result, |name, value| {
            yielded.push(as_iterable(op, name, value.clone())?);
            Ok(())
        })
    }

    fn finish(self) -> ExprValue {
        if self.result == "returns" {
            return self.vars.into_iter().find(|(n, _)| n == "returns").map(|(_, v)| v).expect("returns is a variable");
        }
        let ordered = self.result == "yields";
        // (Of the values of the first iterable: the initial `yields`.)
        let value_type = self.yielded.first().map_or_else(|| "DATA_SLICE".to_string(), |it| it.value_type.clone());
        ExprValue::iterable_of(chain_items(&self.yielded), ordered, value_type)
    }
}

const WHILE_DOC: &str = "Runs `body_fn` while `condition_fn` is present, and returns the loop's result.

The loop variables are `initial_state` and `returns`. Each round,
`condition_fn` is called with the state as keyword arguments and must
return a MASK DataItem; while it is present, `body_fn` (called the same way)
returns a `kd.namedtuple` of the variables it changes. Exactly one of
`returns`, `yields` and `yields_interleaved` must be given; with `returns`
its final value is the result, with `yields` the result is its initial
iterable followed by every iterable the body returned as `yields` (the
functors are not passed `yields`). As in Koda, Python functions are traced
into functors (`kd.fn`) and Python values are boxed.

Args:
  condition_fn: a functor of the state returning a MASK DataItem.
  body_fn: a functor of the state returning a named tuple of updates.
  returns: the initial value of the result variable.
  yields: an initial iterable, chained with the ones the body yields.
  yields_interleaved: as `yields`, but the iterables may be interleaved.
  **initial_state: the other loop variables and their initial values.

Examples:
  >>> cond = kd.fn(lambda n, returns: n > 0)
  >>> body = kd.fn(lambda n, returns: kd.namedtuple(n=n - 1, returns=returns * n))
  >>> kd.while_(cond, body, n=5, returns=1)
  DataItem(120, schema: INT32)
  >>> res = kd.while_(lambda n: n > 0, lambda n: kd.namedtuple(n=n - 1, yields=kd.iterables.make(n)),
  ...                 n=3, yields=kd.iterables.make())
  >>> [x.to_py() for x in res]
  [3, 2, 1]";

fn while_(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    let condition = functor_arg(WHILE, required(op, &mut args, 0)?)?;
    let body = functor_arg(WHILE, required(op, &mut args, 1)?)?;
    let result = result_var(WHILE, take(&mut args, 2), take(&mut args, 3), take(&mut args, 4))?;
    let mut state = LoopState::new(WHILE, args.var_kwargs, result)?;
    while state.go_on(&condition)? {
        let updates = call_fn(&body, Vec::new(), state.vars.clone())?;
        state.apply("body_fn", updates)?;
    }
    Ok(state.finish())
}

const FOR_DOC: &str = "Runs `body_fn` on each item of an iterable, and returns the loop's result.

`body_fn` is called with the item (positionally) and the loop variables
(`initial_state` and `returns`) as keyword arguments, and returns a
`kd.namedtuple` of the variables it changes. When `condition_fn` is given,
the loop stops as soon as it is missing. `finalize_fn` (if given) runs once
after the last item, unless `condition_fn` stopped the loop, and may update
the state too. Exactly one of `returns`, `yields` and `yields_interleaved`
must be given, as in `kd.while_`.

Args:
  iterable: the items to loop over (`kd.iterables.make(...)`).
  body_fn: a functor of the item and the state returning a named tuple of
    updates.
  finalize_fn: an optional functor of the state run after the last item
    (if `condition_fn` is still present).
  condition_fn: an optional functor of the state returning a MASK DataItem;
    the loop continues while it is present.
  returns: the initial value of the result variable.
  yields: an initial iterable, chained with the ones the body yields.
  yields_interleaved: as `yields`, but the iterables may be interleaved.
  **initial_state: the other loop variables and their initial values.

Examples:
  >>> body = kd.fn(lambda x, returns: kd.namedtuple(returns=returns + x))
  >>> kd.for_(kd.iterables.make(1, 2, 3), body, returns=0)
  DataItem(6, schema: INT32)
  >>> kd.for_(kd.iterables.make(1, 2, 3, 4), body, returns=0,
  ...         condition_fn=kd.fn(lambda returns: returns < 3))
  DataItem(3, schema: INT32)
  >>> kd.for_(kd.iterables.make(1, 2, 3), body, returns=0,
  ...         finalize_fn=kd.fn(lambda returns: kd.namedtuple(returns=returns * 100)))
  DataItem(600, schema: INT32)
  >>> res = kd.for_(kd.iterables.make(1, 2), lambda x: kd.namedtuple(yields=kd.iterables.make(x * 10)),
  ...               yields=kd.iterables.make())
  >>> [x.to_py() for x in res]
  [10, 20]";

/// Iterable argument `what` of operator `op`.
fn iterable_arg(op: &str, what: &str, v: ExprValue) -> Result<Arc<Iterable>> {
    match v {
        ExprValue::Iterable(it) => Ok(it),
        other => Err(Error::value(op, format!("expected an iterable type, got {what}: {}", type_name(&other)))),
    }
}

fn for_(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    let items = iterable_arg(FOR, "iterable", required(op, &mut args, 0)?)?;
    let body = functor_arg(FOR, required(op, &mut args, 1)?)?;
    let finalize = take(&mut args, 2).map(|f| functor_arg(FOR, f)).transpose()?;
    let condition = take(&mut args, 3).map(|f| functor_arg(FOR, f)).transpose()?;
    let result = result_var(FOR, take(&mut args, 4), take(&mut args, 5), take(&mut args, 6))?;
    let mut state = LoopState::new(FOR, args.var_kwargs, result)?;
    let go_on = |state: &LoopState| condition.as_ref().map_or(Ok(true), |c| state.go_on(c));
    for item in &items.items {
        if !go_on(&state)? {
            return Ok(state.finish());
        }
        let updates = call_fn(&body, vec![item.clone()], state.vars.clone())?;
        state.apply("body_fn", updates)?;
    }
    // As in Koda, the condition is checked before `finalize_fn` too.
    if let Some(finalize) = &finalize {
        if go_on(&state)? {
            let updates = call_fn(finalize, Vec::new(), state.vars.clone())?;
            state.apply("finalize_fn", updates)?;
        }
    }
    Ok(state.finish())
}

const REDUCE_DOC: &str = "Folds the items of an iterable with `fn`, starting from `initial_value`.

The result is `fn(...fn(fn(initial_value, items[0]), items[1])..., items[-1])`;
`fn` is called with the accumulated value and the next item as positional
arguments. As in Koda, a Python function is traced into a functor (`kd.fn`)
and a Python `initial_value` is boxed.

Args:
  fn: a functor of two positional arguments.
  items: an iterable (`kd.iterables.make(...)`).
  initial_value: the starting value.

Examples:
  >>> kd.functor.reduce(kd.fn(lambda acc, x: acc * 10 + x), kd.iterables.make(1, 2, 3), 0)
  DataItem(123, schema: INT32)
  >>> kd.functor.reduce(lambda acc, x: acc + x, kd.iterables.make(), 0)
  DataItem(0, schema: INT32)";

fn reduce(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    let f = functor_arg(REDUCE, required(op, &mut args, 0)?)?;
    let items = iterable_arg(REDUCE, "items", required(op, &mut args, 1)?)?;
    let mut out = required(op, &mut args, 2)?;
    for item in &items.items {
        out = call_fn(&f, vec![out, item.clone()], Vec::new())?;
    }
    Ok(out)
}

const FLAT_MAP_CHAIN_DOC: &str = "Calls `fn` on each item of an iterable and chains the iterables it returns, in order.

Args:
  iterable: the input iterable.
  fn: a functor that takes one item and returns an iterable.
  value_type_as: accepted for compatibility with Koda; not used by plait.

Examples:
  >>> res = kd.functor.flat_map_chain(kd.iterables.make(1, 2),
  ...                                 kd.fn(lambda x: kd.iterables.make(x, x * 10)))
  >>> [x.to_py() for x in res]
  [1, 10, 2, 20]";

/// The iterables `fn` returns for each item of `iterable`.
fn flat_map(name: &'static str, op: &str, mut args: CallArgs) -> Result<Vec<Arc<Iterable>>> {
    let items = iterable_arg(name, "iterable", required(op, &mut args, 0)?)?;
    let f = functor_arg(name, required(op, &mut args, 1)?)?;
    items
        .items
        .iter()
        .map(|item| match call_fn(&f, vec![item.clone()], Vec::new())? {
            ExprValue::Iterable(it) => Ok(it),
            other => Err(Error::value(name, format!("`fn` must return an iterable, got `{}`", type_name(&other)))),
        })
        .collect()
}

fn flat_map_chain(op: &str, args: CallArgs) -> Result<ExprValue> {
    let parts = flat_map("kd.functor.flat_map_chain", op, args)?;
    Ok(ExprValue::iterable(chain_items(&parts), true))
}

const FLAT_MAP_INTERLEAVED_DOC: &str = "Calls `fn` on each item of an iterable and interleaves the iterables it returns.

The order of the result is not specified (plait takes one item of each
iterable in turn), but the items of one returned iterable keep their order.

Args:
  iterable: the input iterable.
  fn: a functor that takes one item and returns an iterable.
  value_type_as: accepted for compatibility with Koda; not used by plait.

Examples:
  >>> res = kd.functor.flat_map_interleaved(kd.iterables.make(1, 2),
  ...                                       kd.fn(lambda x: kd.iterables.make(x, x * 10)))
  >>> sorted(x.to_py() for x in res)
  [1, 2, 10, 20]";

fn flat_map_interleaved(op: &str, args: CallArgs) -> Result<ExprValue> {
    let parts = flat_map("kd.functor.flat_map_interleaved", op, args)?;
    Ok(ExprValue::iterable(super::iterables::interleave_items(&parts), false))
}
