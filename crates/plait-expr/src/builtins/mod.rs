//! The operators `plait-expr` computes itself, on the values only
//! expressions have: tuples, iterables and functors. Each module lists its
//! operators as [`BuiltinDef`]s — names, signature, docstring and the
//! function that computes them, side by side — and `operator.rs` registers
//! them beside the eager operators of `plait-ops`. Eager `kd.X`,
//! `kd.lazy.X` and the node inside a functor are the same entry.
//!
//! * [`tuples`] — `kd.tuples.*` and `kd.annotation.with_name`;
//! * [`control_flow`] — `kd.call`, `kd.if_`, `kd.map`, `kd.while_`,
//!   `kd.for_`, `kd.functor.reduce`, `flat_map_chain`, `flat_map_interleaved`;
//! * [`functors`] — `kd.functor.bind`, `is_fn`, `has_fn`;
//! * [`iterables`] — `kd.iterables.*`;
//! * [`assertion`] — `kd.assertion.*` and `kd.with_print`;
//! * [`streams`] — `kd.streams.*`, the calls of `kd.parallel` and
//!   `kd.functor.call_fn_*_when_parallel`;
//! * [`extension_types`] — `kd.extension_types.*`, the operators on
//!   extension values (`crate::extension`);
//! * [`fused`] — `kd.core._fused`, elementwise operators in one pass
//!   (the plans of `kd.compile`).

pub mod assertion;
pub mod control_flow;
pub mod extension_types;
pub mod functors;
pub mod fused;
pub mod iterables;
pub mod streams;
pub mod tuples;

use plait_core::{DataSlice, Error, Result, ScalarRef};
use plait_ops::registry::Value;

use crate::operator::{BuiltinDef, CallArgs};
use crate::value::ExprValue;

/// Every builtin operator.
pub fn all() -> impl Iterator<Item = &'static BuiltinDef> {
    tuples::DEFS
        .iter()
        .chain(control_flow::DEFS)
        .chain(functors::DEFS)
        .chain(iterables::DEFS)
        .chain(assertion::DEFS)
        .chain(streams::DEFS)
        .chain(extension_types::DEFS)
        .chain(fused::DEFS)
}

/// The value of parameter `i` (`None` where unspecified).
pub(crate) fn take(args: &mut CallArgs, i: usize) -> Option<ExprValue> {
    args.values.get_mut(i).and_then(Option::take).filter(|v| !matches!(v, ExprValue::Unspecified))
}

/// The value of required parameter `i` (binding made sure it was given).
pub(crate) fn required(op: &str, args: &mut CallArgs, i: usize) -> Result<ExprValue> {
    take(args, i).ok_or_else(|| Error::internal(format!("{op}: required argument {i} is not bound")))
}

/// An integer item, or `None`.
pub(crate) fn int_of(v: &ExprValue) -> Option<i64> {
    match v {
        ExprValue::Data(Value::Slice(s)) if s.is_item() => match s.get(0) {
            Some(ScalarRef::Int32(v)) => Some(v as i64),
            Some(ScalarRef::Int64(v)) => Some(v),
            _ => None,
        },
        _ => None,
    }
}

/// How Koda names the type of a value in control-flow errors.
pub(crate) fn type_name(v: &ExprValue) -> std::borrow::Cow<'static, str> {
    let name = match v {
        ExprValue::Data(Value::Slice(_)) => "DATA_SLICE",
        ExprValue::Data(Value::Shape(_)) => "JAGGED_SHAPE",
        ExprValue::Data(Value::Bag(_)) => "DATA_BAG",
        ExprValue::Data(Value::Tuple(_)) => "TUPLE",
        ExprValue::Data(Value::Range { .. }) => "SLICE",
        ExprValue::Data(Value::Ellipsis) => "ELLIPSIS",
        ExprValue::Tuple(t) if t.names.is_some() => "NAMEDTUPLE",
        ExprValue::Tuple(_) => "TUPLE",
        ExprValue::Iterable(it) => return format!("ITERABLE[{}]", it.value_type).into(),
        ExprValue::Foreign(f) => return f.type_name().into(),
        ExprValue::Unspecified => "UNSPECIFIED",
    };
    name.into()
}

/// A DataSlice argument `what` of operator `op`.
pub(crate) fn slice_arg(op: &str, what: &str, v: ExprValue) -> Result<DataSlice> {
    match v {
        ExprValue::Data(Value::Slice(x)) => Ok(x),
        other => Err(Error::value(op, format!("expected DATA_SLICE, got {what}: {}", crate::stream::value_type_name(&other)))),
    }
}
