//! `kd.iterables.*`: values one after another (Koda's ITERABLE), for
//! `kd.for_`, the `yields` of loops and `flat_map_chain`.

use std::sync::Arc;

use plait_core::{DataSlice, Error, Result, ScalarRef, Schema};
use plait_ops::registry::{self, Value};

use super::{int_of, required, take};
use crate::operator::{Builtin, BuiltinDef, CallArgs};
use crate::stream::value_type_name;
use crate::value::{ExprValue, Iterable};

pub const DEFS: &[BuiltinDef] = &[
    BuiltinDef {
        name: "kd.iterables.make",
        aliases: &[],
        signature: "*items, value_type_as=unspecified",
        doc: MAKE_DOC,
        call: make,
        deterministic: true,
        role: Builtin::Other,
    },
    BuiltinDef {
        name: "kd.iterables.make_unordered",
        aliases: &[],
        signature: "*items, value_type_as=unspecified",
        doc: MAKE_UNORDERED_DOC,
        call: make_unordered,
        deterministic: true,
        role: Builtin::Other,
    },
    BuiltinDef {
        name: "kd.iterables.chain",
        aliases: &[],
        signature: "*iterables, value_type_as=unspecified",
        doc: CHAIN_DOC,
        call: chain,
        deterministic: true,
        role: Builtin::Other,
    },
    BuiltinDef {
        name: "kd.iterables.interleave",
        aliases: &[],
        signature: "*iterables, value_type_as=unspecified",
        doc: INTERLEAVE_DOC,
        call: interleave,
        deterministic: true,
        role: Builtin::Other,
    },
    BuiltinDef {
        name: "kd.iterables.from_1d_slice",
        aliases: &[],
        signature: "slice_",
        doc: FROM_1D_SLICE_DOC,
        call: from_1d_slice,
        deterministic: true,
        role: Builtin::Other,
    },
    BuiltinDef {
        name: "kd.iterables.reduce_concat",
        aliases: &[],
        signature: "items, initial_value, ndim=1",
        doc: REDUCE_CONCAT_DOC,
        call: reduce_concat,
        deterministic: true,
        role: Builtin::Other,
    },
    BuiltinDef {
        name: "kd.iterables.reduce_updated_bag",
        aliases: &[],
        signature: "items, initial_value",
        doc: REDUCE_UPDATED_BAG_DOC,
        call: reduce_updated_bag,
        deterministic: true,
        role: Builtin::Other,
    },
];

/// The items of `iterables`, one iterable after another.
pub(crate) fn chain_items(iterables: &[Arc<Iterable>]) -> Vec<ExprValue> {
    iterables.iter().flat_map(|it| it.items.iter().cloned()).collect()
}

/// The items of `iterables`, one of each in turn.
pub(crate) fn interleave_items(iterables: &[Arc<Iterable>]) -> Vec<ExprValue> {
    let longest = iterables.iter().map(|it| it.items.len()).max().unwrap_or(0);
    (0..longest).flat_map(|k| iterables.iter().filter_map(move |it| it.items.get(k).cloned())).collect()
}

/// The `*iterables` of operator `op`.
fn iterables(op: &str, values: Vec<ExprValue>) -> Result<Vec<Arc<Iterable>>> {
    values
        .into_iter()
        .map(|v| match v {
            ExprValue::Iterable(it) => Ok(it),
            other => Err(Error::type_error(op, format!("expected iterables, got {}", other.kind_name()))),
        })
        .collect()
}

const MAKE_DOC: &str = "Returns an iterable of the given items, in order.

Python values are boxed into DataItems; DataSlices (of any shape) and
DataBags are kept as they are.

Args:
  *items: the items.
  value_type_as: a value of the type of the items (what an empty iterable
    holds; DataSlices by default).

Examples:
  >>> it = kd.iterables.make(1, kd.slice([2, 3]))
  >>> list(it)
  [DataItem(1, schema: INT32), DataSlice([2, 3], schema: INT32, present: 2/2)]
  >>> list(kd.iterables.make())
  []";

fn make(op: &str, args: CallArgs) -> Result<ExprValue> {
    made(op, args, true)
}

/// An iterable of the items of `args` (`value_type_as` at 1): Koda's check
/// that the items (and `value_type_as`, first) are of one QType (all
/// DataSlices, all DataBags, ...).
fn made(op: &str, mut args: CallArgs, ordered: bool) -> Result<ExprValue> {
    let value_type_as = take(&mut args, 1);
    let names: Vec<String> = value_type_as.iter().chain(&args.var_args).map(value_type_name).collect();
    if names.windows(2).any(|pair| pair[0] != pair[1]) {
        return Err(Error::value(op, format!("arguments should be all of the same type, got *args: ({})", names.join(", "))));
    }
    let value_type = names.into_iter().next().unwrap_or_else(|| "DATA_SLICE".to_string());
    Ok(ExprValue::iterable_of(args.var_args, ordered, value_type))
}

/// The value type of the iterables `iterables` joined (`value_type_as`'s
/// when given, else theirs), with Koda's check that they hold values of
/// that one QType (an empty one holds any).
fn joined_value_type(op: &str, iterables: &[Arc<Iterable>], value_type_as: Option<&ExprValue>) -> Result<String> {
    let mut found = value_type_as.map(value_type_name);
    for it in iterables.iter().filter(|it| !it.items.is_empty()) {
        match &found {
            Some(f) if *f != it.value_type => return Err(Error::value(op, "all given iterables must have the same value type")),
            Some(_) => {}
            None => found = Some(it.value_type.clone()),
        }
    }
    Ok(found.or_else(|| iterables.first().map(|it| it.value_type.clone())).unwrap_or_else(|| "DATA_SLICE".to_string()))
}

const MAKE_UNORDERED_DOC: &str = "Returns an iterable of the given items, in no particular order.

Code must not depend on the order of the items (plait keeps the given
order, Koda may not).

Args:
  *items: the items.
  value_type_as: a value of the type of the items (what an empty iterable
    holds; DataSlices by default).

Examples:
  >>> it = kd.iterables.make_unordered(1, 2, 3)
  >>> sorted(x.to_py() for x in it)
  [1, 2, 3]";

fn make_unordered(op: &str, args: CallArgs) -> Result<ExprValue> {
    made(op, args, false)
}

const CHAIN_DOC: &str = "Returns the items of all the iterables, one iterable after another.

Args:
  *iterables: the iterables to chain.
  value_type_as: a value of the type of the items (what an empty iterable
    holds; DataSlices by default).

Examples:
  >>> it = kd.iterables.chain(kd.iterables.make(1, 2), kd.iterables.make(3))
  >>> [x.to_py() for x in it]
  [1, 2, 3]";

fn chain(_: &str, args: CallArgs) -> Result<ExprValue> {
    joined("kd.iterables.chain", args, chain_items, true)
}

/// The iterables of `args` (`value_type_as` at 1) joined by `join`, of
/// their value type ([`joined_value_type`]).
fn joined(op: &str, mut args: CallArgs, join: fn(&[Arc<Iterable>]) -> Vec<ExprValue>, ordered: bool) -> Result<ExprValue> {
    let value_type_as = take(&mut args, 1);
    let parts = iterables(op, args.var_args)?;
    let value_type = joined_value_type(op, &parts, value_type_as.as_ref())?;
    Ok(ExprValue::iterable_of(join(&parts), ordered, value_type))
}

const INTERLEAVE_DOC: &str = "Returns the items of all the iterables, interleaved in an unspecified order.

The items of each input iterable keep their relative order; plait takes one
item of each iterable in turn.

Args:
  *iterables: the iterables to interleave.
  value_type_as: a value of the type of the items (what an empty iterable
    holds; DataSlices by default).

Examples:
  >>> it = kd.iterables.interleave(kd.iterables.make(1, 2), kd.iterables.make(3))
  >>> sorted(x.to_py() for x in it)
  [1, 2, 3]";

fn interleave(_: &str, args: CallArgs) -> Result<ExprValue> {
    joined("kd.iterables.interleave", args, interleave_items, false)
}

const FROM_1D_SLICE_DOC: &str = "Returns an iterable of the items of a one-dimensional DataSlice, as DataItems.

Missing items are kept (as missing DataItems). A DataSlice of another rank
raises a ValueError.

Args:
  slice_: a one-dimensional DataSlice.

Examples:
  >>> list(kd.iterables.from_1d_slice(kd.slice([1, None, 3])))
  [DataItem(1, schema: INT32), DataItem(None, schema: INT32), DataItem(3, schema: INT32)]";

fn from_1d_slice(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    const OP: &str = "kd.iterables.from_1d_slice";
    let x = match required(op, &mut args, 0)? {
        ExprValue::Data(Value::Slice(x)) => x,
        other => return Err(Error::type_error(OP, format!("expected a DataSlice, got {}", other.kind_name()))),
    };
    if x.rank() != 1 {
        return Err(Error::value(OP, format!("expected a 1-dimensional DataSlice, got rank {}", x.rank())));
    }
    let items = (0..x.size()).map(|i| crate::functor::item_at(&x, i).map(ExprValue::slice)).collect::<Result<Vec<_>>>()?;
    Ok(ExprValue::iterable(items, true))
}

const REDUCE_CONCAT_DOC: &str = "Returns `initial_value` concatenated with each item of `items` in turn.

Each step is `kd.concat(result, item, ndim=ndim)`, so the items must have
the rank of `initial_value`.

Args:
  items: an iterable of DataSlices.
  initial_value: the DataSlice to start from.
  ndim: how many trailing dimensions are concatenated (1 by default).

Examples:
  >>> items = kd.iterables.make(kd.slice([2, 3]), kd.slice([4]))
  >>> kd.iterables.reduce_concat(items, kd.slice([1]))
  DataSlice([1, 2, 3, 4], schema: INT32, present: 4/4)
  >>> items = kd.iterables.make(kd.slice([[3]]), kd.slice([[4, 5]]))
  >>> kd.iterables.reduce_concat(items, kd.slice([[1], [2]]), ndim=2)
  DataSlice([[1], [2], [3], [4, 5]], schema: INT32, present: 5/5)";

fn reduce_concat(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    const OP: &str = "kd.iterables.reduce_concat";
    let items = iterables(OP, vec![required(op, &mut args, 0)?])?.pop().expect("one iterable");
    let initial = required(op, &mut args, 1)?.into_data(OP)?;
    let ndim = take(&mut args, 2)
        .map_or(Ok(1), |n| int_of(&n).ok_or_else(|| Error::type_error(OP, format!("`ndim` must be an integer item, got {}", n.kind_name()))))?;
    let ndim = Value::Slice(DataSlice::item(Some(ScalarRef::Int64(ndim)), Schema::Int64)?);
    // One concatenation of everything, as the steps one by one would give.
    let mut parts = vec![initial];
    for item in &items.items {
        parts.push(item.clone().into_data(OP)?);
    }
    Ok(ExprValue::slice(registry::call_slice("kd.slices.concat", parts, vec![("ndim", ndim)])?))
}

const REDUCE_UPDATED_BAG_DOC: &str = "Returns the DataBag `initial_value` updated by each DataBag of `items`, in order.

Where two bags set the same attribute, the later bag wins.

Args:
  items: an iterable of DataBags.
  initial_value: the DataBag to start from.

Examples:
  >>> e = kd.new(a=0)
  >>> updates = kd.iterables.make(kd.attrs(e, a=1), kd.attrs(e, b=2), kd.attrs(e, a=3))
  >>> bag = kd.iterables.reduce_updated_bag(updates, kd.bag())
  >>> e.updated(bag)
  DataItem(Entity(a=3, b=2), schema: ENTITY(a=INT32, b=INT32), bag_id: $...)";

fn reduce_updated_bag(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    const OP: &str = "kd.iterables.reduce_updated_bag";
    let items = iterables(OP, vec![required(op, &mut args, 0)?])?.pop().expect("one iterable");
    let mut bags = vec![required(op, &mut args, 1)?.into_data(OP)?];
    for item in &items.items {
        bags.push(item.clone().into_data(OP)?);
    }
    Ok(ExprValue::from(registry::call("kd.bags.updated", bags, Vec::new())?))
}
