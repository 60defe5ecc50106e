//! `kd.subslice(x, *slices)`: the registry entry over
//! `plait_core::subslice`, its keys given as values (integer items,
//! DataSlices, ranges `start:stop` and `...`).

use plait_core::subslice::{SliceArg, subslice};
use plait_core::{Error, Result};

use crate::registry::{Args, Boxing, Registry, Value};

/// Key `position` of `op` as the core's slicing argument (a range with a
/// step refused, as Koda's).
pub fn key(op: &str, position: usize, v: &Value) -> Result<SliceArg> {
    match v {
        Value::Ellipsis => Ok(SliceArg::Ellipsis),
        Value::Range { step: Some(_), .. } => Err(Error::value(
            op,
            format!("slicing argument at position {position} is invalid: 'step' argument of a Slice is not supported, got: DATA_SLICE"),
        )),
        Value::Range { start, stop, step: None } => Ok(SliceArg::range(start.as_deref().cloned(), stop.as_deref().cloned())),
        Value::Slice(x) => Ok(x.int_item().map_or_else(|| SliceArg::Slice(x.clone()), SliceArg::Index)),
        other => Err(Error::type_error(
            op,
            format!("slicing argument at position {position} must be an int, a slice, ..., or a DataSlice, got {}", other.describe()),
        )),
    }
}

fn kernel(a: &Args<'_>) -> Result<Value> {
    let keys = a.var_args().iter().enumerate().map(|(i, v)| key(a.op_name(), i, v)).collect::<Result<Vec<_>>>()?;
    subslice(a.slice("x")?, &keys).map(Value::Slice)
}

pub(super) fn register(r: &mut Registry) {
    r.add_value(
        "kd.slices.subslice",
        &["kd.subslice"],
        "x, *slices",
        r#"Returns the items of x chosen by one slicing argument per dimension.

Each argument applies to one dimension of x: an integer takes one item (and
removes the dimension; negative counts from the end, out of range gives
missing), a DataSlice of integers takes several, and a Python slice takes a
range. An Ellipsis (`...`) stands for all the dimensions not given; without
one, the arguments apply to the last dimensions. `x.S[...]` is the same.

Args:
  x: the DataSlice to slice.
  *slices: the slicing arguments, at most one per dimension of x.

Examples:
  >>> x = kd.slice([[1, 2, 3], [4, 5]])
  >>> kd.subslice(x, -1)
  DataSlice([3, 5], schema: INT32, present: 2/2)
  >>> kd.subslice(x, 1, ...)
  DataSlice([4, 5], schema: INT32, present: 2/2)
  >>> kd.subslice(x, slice(1, None))
  DataSlice([[2, 3], [5]], schema: INT32, present: 3/3)
  >>> kd.subslice(x, kd.slice([[0, 2], [1]]))
  DataSlice([[1, 3], [5]], schema: INT32, present: 3/3)
  >>> kd.subslice(x, slice(kd.slice([1, 0]), None))
  DataSlice([[2, 3], [4, 5]], schema: INT32, present: 4/4)
  >>> x.S[:kd.index(x) + 1]
  DataSlice([[[1], [1, 2], [1, 2, 3]], [[4], [4, 5]]], schema: INT32, present: 9/9)"#,
        kernel,
    );
    r.boxing("kd.slices.subslice", Boxing::Keys);
    r.type_rule("kd.slices.subslice", crate::typing::TypeRule::new(subslice_type));
}

/// The type of `kd.subslice(x, *slices)`: `x`'s schema; where every
/// slicing argument is an integer item, each takes one item of one of the
/// last dimensions, which it removes (ranges, ellipses and slices of
/// indices leave the dims unknown).
fn subslice_type(a: &crate::typing::TypeArgs<'_>) -> Result<crate::typing::TypeValue> {
    use crate::typing::TypeValue;
    use plait_core::typing::SliceType;
    let x = a.slice("x")?;
    let integer_items = a.var_args().iter().all(|v| match v.untagged() {
        TypeValue::Slice(t, _) => {
            t.rank() == Some(0) && t.schema.named().is_some_and(|s| matches!(s, plait_core::Schema::Int32 | plait_core::Schema::Int64))
        }
        TypeValue::SizeItem(_) => true,
        _ => false,
    });
    let n = a.var_args().len();
    let dims = match &x.dims {
        Some(d) if integer_items && n > d.len() => {
            return Err(Error::value(a.op_name(), format!("cannot subslice {n} dimensions of `x`, inferred {x}")));
        }
        Some(d) if integer_items => Some(d[..d.len() - n].to_vec()),
        _ => None,
    };
    Ok(TypeValue::slice(SliceType { schema: x.schema.clone(), dims }))
}
