//! Making and testing functors as operators: `kd.functor.bind`,
//! `kd.functor.is_fn` and `kd.functor.has_fn`. As builtins they trace into
//! a functor's body (`kd.fn(lambda g: kd.bind(g, y=1))`), as in Koda.

use plait_core::{DataSlice, Error, Result, ScalarRef, Schema};
use plait_ops::registry::{ParamKind, Value};

use super::{required, take};
use crate::expr::Expr;
use crate::functor::{self, DefaultValue, Parameter};
use crate::operator::{Builtin, BuiltinDef, CallArgs};
use crate::packed;
use crate::value::ExprValue;

const BIND: &str = "kd.functor.bind";

pub const DEFS: &[BuiltinDef] = &[
    BuiltinDef {
        name: BIND,
        aliases: &["kd.bind"],
        signature: "fn_def, /, *args, return_type_as=None, **kwargs",
        doc: BIND_DOC,
        call: bind,
        deterministic: true,
        role: Builtin::Other,
    },
    BuiltinDef {
        name: "kd.functor.is_fn",
        aliases: &["kd.is_fn"],
        signature: "x",
        doc: IS_FN_DOC,
        call: is_fn,
        deterministic: true,
        role: Builtin::Other,
    },
    BuiltinDef {
        name: "kd.functor.has_fn",
        aliases: &["kd.has_fn"],
        signature: "x",
        doc: HAS_FN_DOC,
        call: has_fn,
        deterministic: true,
        role: Builtin::Other,
    },
];

const BIND_DOC: &str = "Returns a functor that calls `fn_def` with some arguments already given.

As with `functools.partial`, `args` are passed first, ahead of the caller's
positional arguments; `kwargs` act as defaults that the caller may override.
The bound values are stored in the new functor as its variables; a bound
expression (`x=I.z * 2`) is computed at each call from that call's
arguments.

Args:
  fn_def: the functor to bind.
  *args: positional arguments passed before the caller's.
  return_type_as: accepted for compatibility with Koda; not used by plait.
  **kwargs: keyword arguments, overridable by the caller.

Examples:
  >>> f = kd.bind(kd.fn(I.x + I.y), y=10)
  >>> f(x=1)
  DataItem(11, schema: INT32)
  >>> f(x=1, y=2)
  DataItem(3, schema: INT32)
  >>> kd.bind(kd.fn(lambda x, y: x - y), 10)(3)
  DataItem(7, schema: INT32)
  >>> kd.bind(kd.fn(I.x + I.y), x=I.z * 2)(y=1, z=3)
  DataItem(7, schema: INT32)
  >>> kd.fn(lambda g: kd.bind(g, y=1))(kd.fn(I.x + I.y))(x=2)
  DataItem(3, schema: INT32)";

/// `kd.functor.bind`: a functor `(*args, **kwargs)` whose body is
/// `kd.functor._call_bound(V._aux_fn, (V._arg_0, ...), (k=V.k, ...), I.args, I.kwargs)`.
fn bind(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    let f = match required(op, &mut args, 0)? {
        ExprValue::Data(Value::Slice(f)) if f.is_item() && functor::is_functor(&f) => f,
        other => return Err(Error::type_error(BIND, format!("expected a functor, got {}", describe(&other)))),
    };
    let bound = |name: &str, v: ExprValue| match v {
        ExprValue::Data(Value::Slice(x)) => Ok((name.to_string(), x)),
        other => Err(Error::type_error(BIND, format!("bound argument `{name}` must be a DataSlice, got {}", other.kind_name()))),
    };
    let mut variables = Vec::with_capacity(args.var_args.len() + args.var_kwargs.len() + 1);
    let mut positional = Vec::with_capacity(args.var_args.len());
    for (k, v) in std::mem::take(&mut args.var_args).into_iter().enumerate() {
        let name = format!("_arg_{k}");
        positional.push(Expr::variable(&name));
        variables.push(bound(&name, v)?);
    }
    let mut keywords = Vec::with_capacity(args.var_kwargs.len());
    for (name, v) in std::mem::take(&mut args.var_kwargs) {
        keywords.push((name.clone(), Expr::variable(&name)));
        variables.push(bound(&name, v)?);
    }
    variables.push(("_aux_fn".to_string(), f));
    let tuple = Expr::call(&crate::operator::lookup_or_error("kd.tuples.tuple")?, positional, vec![])?;
    let named = Expr::call(&crate::operator::lookup_or_error("kd.tuples.namedtuple")?, vec![], keywords)?;
    let body = Expr::op(
        "kd.functor._call_bound",
        vec![Some(Expr::variable("_aux_fn")), Some(tuple), Some(named), Some(Expr::input("args")), Some(Expr::input("kwargs"))],
    )?;
    let signature = functor::make_signature(&[
        Parameter { name: "args".to_string(), kind: ParamKind::VarPositional, default: DefaultValue::Required },
        Parameter { name: "kwargs".to_string(), kind: ParamKind::VarKeyword, default: DefaultValue::Required },
    ])?;
    Ok(ExprValue::slice(functor::make_functor(BIND, &packed::pack(&body), &signature, &variables, None, None)?))
}

/// A value as errors show it.
fn describe(v: &ExprValue) -> String {
    match v {
        ExprValue::Data(Value::Slice(x)) => plait_core::repr::repr_slice(x),
        other => other.kind_name(),
    }
}

const IS_FN_DOC: &str = "Returns `present` if `x` is a functor DataItem, else `missing`.

A DataSlice (even of one functor) is not a functor; use
`kd.functor.has_fn` to test each item. Any other value is not one either.

Args:
  x: the value to test.

Examples:
  >>> kd.is_fn(kd.fn(I.x))
  DataItem(present, schema: MASK)
  >>> kd.is_fn(kd.item(1))
  DataItem(missing, schema: MASK)
  >>> kd.is_fn(kd.slice([kd.fn(I.x)]))
  DataItem(missing, schema: MASK)";

/// Any value (a Python object, a tuple) that is not a functor item gives missing.
fn is_fn(_op: &str, mut args: CallArgs) -> Result<ExprValue> {
    let yes = match take(&mut args, 0) {
        Some(ExprValue::Data(Value::Slice(x))) => x.is_item() && functor::is_functor(&x),
        _ => false,
    };
    Ok(ExprValue::slice(DataSlice::item(yes.then_some(ScalarRef::Mask), Schema::Mask)?))
}

const HAS_FN_DOC: &str = "Returns a MASK that is present where the item of `x` is a functor.

The result has the shape of `x`; missing items and items that are not
functors give missing.

Args:
  x: a DataSlice.

Examples:
  >>> kd.functor.has_fn(kd.slice([kd.fn(I.x), None, 1]))
  DataSlice([present, missing, missing], schema: MASK, present: 1/3)
  >>> kd.functor.has_fn(kd.fn(I.x))
  DataItem(present, schema: MASK)";

fn has_fn(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    let x = match required(op, &mut args, 0)? {
        ExprValue::Data(Value::Slice(x)) => x,
        other => return Err(Error::type_error("kd.functor.has_fn", format!("expected a DataSlice, got {}", other.kind_name()))),
    };
    let mut flags = plait_core::column::SliceBuilder::with_capacity(x.size());
    for i in 0..x.size() {
        let present = matches!(x.get(i), Some(ScalarRef::ItemId(_))) && functor::is_functor(&functor::item_at(&x, i)?);
        flags.push(present.then_some(ScalarRef::Mask));
    }
    Ok(ExprValue::slice(DataSlice::new(x.shape().clone(), flags.finish(), Schema::Mask)?))
}
