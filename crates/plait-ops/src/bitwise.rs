//! `kd.bitwise.*`: bitwise operators on integers (`bitwise_and`, `bitwise_or`,
//! `bitwise_xor`, `invert`, `count`).
//!
//! The arguments go through the one broadcasting and promotion step
//! ([`crate::elementwise::prepare`]) with integers only accepted, then a
//! typed loop over the INT32 or INT64 column; presence is combined as
//! bitmaps, so the all-present path is a plain vectorised loop.

use plait_core::{Column, DataSlice, Result, Schema, SliceData, Values};

use crate::elementwise::{Prepared, prepare};
use crate::kernel::{Side, map1, map2};
use crate::promote::TypeClass;
use crate::registry::Registry;

/// Runs `f32`/`f64` (the same operation on INT32 and INT64) over the prepared
/// integer arguments.
/// (Generic over the closures, so each operator gets its own inlined,
/// vectorised loop.)
fn binary<F32, F64>(p: &Prepared, f32: F32, f64: F64) -> Result<DataSlice>
where
    F32: Fn(i32, i32) -> i32 + Sync,
    F64: Fn(i64, i64) -> i64 + Sync,
{
    if p.all_missing() {
        return Ok(p.missing(p.dtype()));
    }
    let (a, b) = (&p.operands[0], &p.operands[1]);
    let values = match p.dtype() {
        Schema::Int32 => Values::Int32(map2(p.len(), a.side::<i32>(), b.side::<i32>(), f32).into()),
        _ => Values::Int64(map2(p.len(), a.side::<i64>(), b.side::<i64>(), f64).into()),
    };
    p.finish(values, p.presence())
}

fn bitwise_binary<F32, F64>(op: &str, x: &DataSlice, y: &DataSlice, f32: F32, f64: F64) -> Result<DataSlice>
where
    F32: Fn(i32, i32) -> i32 + Sync,
    F64: Fn(i64, i64) -> i64 + Sync,
{
    binary(&prepare(op, &[("x", x), ("y", y)], TypeClass::Integer)?, f32, f64)
}

/// `x & y` item by item.
pub fn bitwise_and(x: &DataSlice, y: &DataSlice) -> Result<DataSlice> {
    bitwise_binary("kd.bitwise.bitwise_and", x, y, |a, b| a & b, |a, b| a & b)
}

/// `x | y` item by item.
pub fn bitwise_or(x: &DataSlice, y: &DataSlice) -> Result<DataSlice> {
    bitwise_binary("kd.bitwise.bitwise_or", x, y, |a, b| a | b, |a, b| a | b)
}

/// `x ^ y` item by item.
pub fn bitwise_xor(x: &DataSlice, y: &DataSlice) -> Result<DataSlice> {
    bitwise_binary("kd.bitwise.bitwise_xor", x, y, |a, b| a ^ b, |a, b| a ^ b)
}

/// Maps the one integer argument with `f32`/`f64`; the result has type
/// `out` (the argument's type when `None`).
fn unary<R32: Copy + Send, R64: Copy + Send>(
    p: &Prepared,
    f32: impl Fn(i32) -> R32 + Sync,
    f64: impl Fn(i64) -> R64 + Sync,
    wrap32: fn(Vec<R32>) -> Values,
    wrap64: fn(Vec<R64>) -> Values,
) -> Values {
    let a = &p.operands[0];
    match p.dtype() {
        Schema::Int32 => wrap32(match a.side::<i32>() {
            Side::Many(v) => map1(v, &f32),
            Side::One(v) => vec![f32(v)],
        }),
        _ => wrap64(match a.side::<i64>() {
            Side::Many(v) => map1(v, &f64),
            Side::One(v) => vec![f64(v)],
        }),
    }
}

/// `~x` item by item.
pub fn invert(x: &DataSlice) -> Result<DataSlice> {
    let p = prepare("kd.bitwise.invert", &[("x", x)], TypeClass::Integer)?;
    if p.all_missing() {
        return Ok(p.missing(p.dtype()));
    }
    let values = unary(&p, |a| !a, |a| !a, |v| Values::Int32(v.into()), |v| Values::Int64(v.into()));
    p.finish(values, p.presence())
}

/// The number of bits set in each item, as INT32 (whatever the input's
/// schema, OBJECT included, as in Koda).
pub fn count(x: &DataSlice) -> Result<DataSlice> {
    let p = prepare("kd.bitwise.count", &[("x", x)], TypeClass::Integer)?;
    if p.all_missing() {
        return Ok(DataSlice::missing(p.shape.clone(), Schema::Int32));
    }
    let values = unary(&p, |a| a.count_ones() as i32, |a| a.count_ones() as i32, |v| Values::Int32(v.into()), |v| Values::Int32(v.into()));
    let column = Column::new(values, p.presence());
    DataSlice::new(p.shape.clone(), SliceData::from_column(column), Schema::Int32)
}

pub(crate) fn register(r: &mut Registry) {
    r.add(
        "kd.bitwise.bitwise_and",
        &["kd.bitwise_and"],
        "x, y",
        r#"Computes pointwise bitwise x & y.

The arguments are broadcast to a common shape and promoted to their common
integer type (INT32 or INT64); a position where either item is missing is
missing in the result. Other types raise a ValueError.

Args:
  x: a DataSlice of integers.
  y: a DataSlice or Python integer.

Examples:
  >>> kd.bitwise.bitwise_and(kd.slice([1, 6, None, 7]), 3)
  DataSlice([1, 2, None, 3], schema: INT32, present: 3/4)
  >>> kd.bitwise_and(kd.slice([[12, 10], [9]]), kd.int64(8))
  DataSlice([[8, 8], [8]], schema: INT64, present: 3/3)"#,
        |a| bitwise_and(a.slice("x")?, a.slice("y")?),
    );
    r.add(
        "kd.bitwise.bitwise_or",
        &["kd.bitwise_or"],
        "x, y",
        r#"Computes pointwise bitwise x | y.

The arguments are broadcast to a common shape and promoted to their common
integer type (INT32 or INT64); a position where either item is missing is
missing in the result. Other types raise a ValueError.

Args:
  x: a DataSlice of integers.
  y: a DataSlice or Python integer.

Examples:
  >>> kd.bitwise.bitwise_or(kd.slice([1, 2, None, 4]), 1)
  DataSlice([1, 3, None, 5], schema: INT32, present: 3/4)
  >>> kd.bitwise_or(kd.slice([[8, 0], [1]]), kd.slice([1, 2]))
  DataSlice([[9, 1], [3]], schema: INT32, present: 3/3)"#,
        |a| bitwise_or(a.slice("x")?, a.slice("y")?),
    );
    r.add(
        "kd.bitwise.bitwise_xor",
        &["kd.bitwise_xor"],
        "x, y",
        r#"Computes pointwise bitwise x ^ y.

The arguments are broadcast to a common shape and promoted to their common
integer type (INT32 or INT64); a position where either item is missing is
missing in the result. Other types raise a ValueError.

Args:
  x: a DataSlice of integers.
  y: a DataSlice or Python integer.

Examples:
  >>> kd.bitwise.bitwise_xor(kd.slice([1, 2, None, 3]), 3)
  DataSlice([2, 1, None, 0], schema: INT32, present: 3/4)
  >>> kd.bitwise_xor(1.5, 1)
  Traceback (most recent call last):
  ...
  ValueError: kd.bitwise.bitwise_xor: argument `x` must be a slice of integer values, got a slice of FLOAT32"#,
        |a| bitwise_xor(a.slice("x")?, a.slice("y")?),
    );
    r.add(
        "kd.bitwise.invert",
        &["kd.bitwise_invert"],
        "x",
        r#"Computes pointwise bitwise ~x.

Each integer becomes its bitwise complement (`-x - 1`), in its own type;
missing items stay missing.

Args:
  x: a DataSlice of integers.

Examples:
  >>> kd.bitwise.invert(kd.slice([0, 1, None, -8]))
  DataSlice([-1, -2, None, 7], schema: INT32, present: 3/4)
  >>> kd.bitwise_invert(kd.int64(5))
  DataItem(-6, schema: INT64)"#,
        |a| invert(a.slice("x")?),
    );
    r.add(
        "kd.bitwise.count",
        &["kd.bitwise_count"],
        "x",
        r#"Computes the number of bits set to 1 in the given input.

Negative numbers count the bits of their two's complement form in their own
width (32 for INT32, 64 for INT64). The result is always INT32.

Args:
  x: a DataSlice of integers.

Examples:
  >>> kd.bitwise.count(kd.slice([0, 1, 7, None, -1]))
  DataSlice([0, 1, 3, None, 32], schema: INT32, present: 4/5)
  >>> kd.bitwise_count(kd.int64(-1))
  DataItem(64, schema: INT32)"#,
        |a| count(a.slice("x")?),
    );

    // Type rules (see `crate::typing`).
    use crate::promote::TypeClass::Integer;
    use crate::typing::rules::{Out, elementwise};
    for name in ["kd.bitwise.bitwise_and", "kd.bitwise.bitwise_or", "kd.bitwise.bitwise_xor"] {
        r.type_rule(name, elementwise(&["x", "y"], Integer, Out::Common));
    }
    r.type_rule("kd.bitwise.invert", elementwise(&["x"], Integer, Out::Common));
    r.type_rule("kd.bitwise.count", elementwise(&["x"], Integer, Out::Fixed(plait_core::Schema::Int32)));
}
