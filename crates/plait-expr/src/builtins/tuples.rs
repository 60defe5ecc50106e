//! `kd.tuples.*` — several values as one (seed 002's DictOfNamedArrays) —
//! and `kd.annotation.with_name`, which names a subexpression and computes
//! nothing.

use plait_core::{DataSlice, Error, Result};
use plait_ops::registry::Value;

use super::{int_of, required};
use crate::operator::{Builtin, BuiltinDef, CallArgs, text_item};
use crate::value::ExprValue;

pub const DEFS: &[BuiltinDef] = &[
    BuiltinDef {
        name: "kd.annotation.with_name",
        aliases: &[],
        signature: "expr, /, name",
        doc: "Returns `expr` named `name`: the value is unchanged; inside a traced functor the\n\
              named subexpression becomes a variable of the functor.",
        call: with_name,
        deterministic: true,
        role: Builtin::WithName,
    },
    BuiltinDef {
        name: "kd.tuples.tuple",
        aliases: &["kd.tuple"],
        signature: "*args",
        doc: TUPLE_DOC,
        call: tuple,
        deterministic: true,
        role: Builtin::Other,
    },
    BuiltinDef {
        name: "kd.tuples.namedtuple",
        aliases: &["kd.namedtuple"],
        signature: "**kwargs",
        doc: NAMEDTUPLE_DOC,
        call: namedtuple,
        deterministic: true,
        role: Builtin::Other,
    },
    BuiltinDef {
        name: "kd.tuples.get_nth",
        aliases: &[],
        signature: "x, n",
        doc: GET_NTH_DOC,
        call: get_nth,
        deterministic: true,
        role: Builtin::Other,
    },
    BuiltinDef {
        name: "kd.tuples.get_namedtuple_field",
        aliases: &[],
        signature: "namedtuple, field_name",
        doc: GET_NAMEDTUPLE_FIELD_DOC,
        call: get_namedtuple_field,
        deterministic: true,
        role: Builtin::Other,
    },
    BuiltinDef {
        name: "kd.tuples.slice",
        aliases: &[],
        signature: "start=unspecified, stop=unspecified, step=unspecified",
        doc: SLICE_DOC,
        call: slice,
        deterministic: true,
        role: Builtin::Other,
    },
];

const SLICE_DOC: &str = "Returns the slice `start:stop:step`, as Python's indexing syntax writes it.

What `kd.subslice` takes for a range of a dimension (`kd.subslice(x,
kd.tuples.slice(1, 3))` is `x.S[1:3]`). `kd.subslice` takes bounds that are
integer items, DataSlices of integers (a range per item; a missing bound
gives an empty range) or unspecified, and no step.

Args:
  start: the first index (unspecified: from the start).
  stop: the index after the last (unspecified: to the end).
  step: the step (kept; `kd.subslice` refuses one).

Examples:
  >>> kd.tuples.slice(1, 3)
  slice(DataItem(1, schema: INT32), DataItem(3, schema: INT32), unspecified)
  >>> kd.subslice(kd.slice([1, 2, 3, 4]), kd.tuples.slice(1, 3))
  DataSlice([2, 3], schema: INT32, present: 2/2)";

fn slice(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    // A bound is a DataSlice or unspecified, kept as given (`kd.subslice`
    // checks them: integer items, or integers per item for a range per
    // item; a missing one, as Python `None` boxed, gives an empty range).
    let bound = |v: Option<ExprValue>, what: &str| -> Result<Option<Box<DataSlice>>> {
        match v {
            None => Ok(None),
            Some(ExprValue::Data(Value::Slice(x))) => Ok(Some(Box::new(x))),
            Some(other) => {
                Err(Error::type_error(op, format!("`{what}` must be a DataSlice of integers or unspecified, got {}", super::type_name(&other))))
            }
        }
    };
    let start = bound(super::take(&mut args, 0), "start")?;
    let stop = bound(super::take(&mut args, 1), "stop")?;
    let step = bound(super::take(&mut args, 2), "step")?;
    Ok(ExprValue::Data(Value::Range { start, stop, step }))
}

fn with_name(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    required(op, &mut args, 0)
}

const TUPLE_DOC: &str = "Returns the arguments as a tuple.

Python values are boxed into DataItems. Read an item with
`kd.tuples.get_nth`; eagerly the result is a Python tuple.

Args:
  *args: the values.

Examples:
  >>> kd.tuples.tuple(kd.item(1), kd.slice([2, 3]))
  (DataItem(1, schema: INT32), DataSlice([2, 3], schema: INT32, present: 2/2))
  >>> kd.eval(kd.lazy.tuples.tuple(I.x, I.y), x=1, y=2)
  (DataItem(1, schema: INT32), DataItem(2, schema: INT32))";

fn tuple(_: &str, args: CallArgs) -> Result<ExprValue> {
    Ok(ExprValue::tuple(args.var_args))
}

const NAMEDTUPLE_DOC: &str = "Returns the keyword arguments as a named tuple, in the order given.

Read a field with `nt['a']`, `nt.a` or `kd.tuples.get_namedtuple_field`.

Args:
  **kwargs: the values, by field name.

Examples:
  >>> nt = kd.tuples.namedtuple(a=kd.item(1), b=kd.slice([2, 3]))
  >>> nt
  namedtuple<a=DATA_SLICE,b=DATA_SLICE>{(DataItem(1, schema: INT32), DataSlice([2, 3], schema: INT32, present: 2/2))}
  >>> nt['b']
  DataSlice([2, 3], schema: INT32, present: 2/2)";

fn namedtuple(_: &str, args: CallArgs) -> Result<ExprValue> {
    Ok(ExprValue::named_tuple(args.var_kwargs))
}

const GET_NTH_DOC: &str = "Returns the item at position `n` (from 0) of the tuple `x`.

Raises ValueError when `n` is not between 0 and `len(x) - 1`.

Args:
  x: a tuple (or a named tuple).
  n: the position, an integer.

Examples:
  >>> kd.tuples.get_nth((kd.item(1), kd.item(2)), 1)
  DataItem(2, schema: INT32)
  >>> kd.eval(kd.lazy.tuples.get_nth(kd.lazy.tuples.tuple(I.x, I.y), 0), x=1, y=2)
  DataItem(1, schema: INT32)";

fn get_nth(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    let (x, n) = (required(op, &mut args, 0)?, required(op, &mut args, 1)?);
    let ExprValue::Tuple(t) = &x else {
        return Err(Error::value(op, format!("expected a tuple, got {}", x.kind_name())));
    };
    let n = int_of(&n).ok_or_else(|| Error::type_error(op, format!("`n` must be an integer item, got {}", n.kind_name())))?;
    usize::try_from(n)
        .ok()
        .and_then(|i| t.items.get(i))
        .cloned()
        .ok_or_else(|| Error::value(op, format!("index out of range: n={n}, value.field_count={}", t.items.len())))
}

const GET_NAMEDTUPLE_FIELD_DOC: &str = "Returns the field `field_name` of a named tuple.

Raises a KeyError when the named tuple has no such field.

Args:
  namedtuple: a named tuple (see `kd.tuples.namedtuple`).
  field_name: the name of the field, a STRING.

Examples:
  >>> nt = kd.tuples.namedtuple(a=kd.item(1), b=kd.item(2))
  >>> kd.tuples.get_namedtuple_field(nt, 'b')
  DataItem(2, schema: INT32)
  >>> e = kd.lazy.tuples.namedtuple(a=I.x, b=I.y)
  >>> kd.eval(kd.lazy.tuples.get_namedtuple_field(e, 'a'), x=1, y=2)
  DataItem(1, schema: INT32)";

fn get_namedtuple_field(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    let (x, field) = (required(op, &mut args, 0)?, required(op, &mut args, 1)?);
    let field = text_item(op, "field_name", &field)?;
    let ExprValue::Tuple(t) = &x else {
        return Err(Error::value(op, format!("expected a named tuple, got {}", x.kind_name())));
    };
    let names = t.names.as_ref().ok_or_else(|| Error::value(op, "expected a named tuple, got a tuple"))?;
    let i = names.iter().position(|n| **n == *field).ok_or_else(|| {
        let known: Vec<&str> = names.iter().map(|n| n.as_ref()).collect();
        Error::key(op, format!("the named tuple has no field `{field}`; its fields are {known:?}"))
    })?;
    Ok(t.items[i].clone())
}
