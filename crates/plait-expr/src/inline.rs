//! Inlining calls of functors (`kd.compile`'s plans): a `kd.call` whose
//! functor is a literal becomes the functor's body, its inputs replaced by
//! the call's arguments, so the operators of nested functors are
//! optimised with their caller's (fused, shared, folded).
//!
//! A call is left as it is where binding its arguments would not be
//! decided here: arguments that do not bind (the call raises as it would),
//! a parameter with neither argument nor default, a body reading inputs
//! that are not parameters, an argument the body does not read that is
//! computed (the call computes it, and may fail on it). Inlined bodies are inlined into in turn, to
//! [`MAX_DEPTH`] levels (a functor may call itself through its bag).

use std::collections::HashMap;

use plait_core::Result;
use plait_ops::registry::{BindOrder, ParamKind, Value, try_bind};

use crate::expr::{Expr, NodeKind};
use crate::functor;
use crate::operator::{Builtin, OperatorKind, lookup_or_error};
use crate::transform::{substitute_inputs, transform};
use crate::value::ExprValue;

/// How many levels of calls are inlined.
pub const MAX_DEPTH: usize = 8;

/// `expr` with calls of literal functors inlined.
pub fn inline_calls(expr: &Expr) -> Result<Expr> {
    inline_to_depth(expr, MAX_DEPTH)
}

fn inline_to_depth(expr: &Expr, depth: usize) -> Result<Expr> {
    if depth == 0 {
        return Ok(expr.clone());
    }
    transform(expr, &mut |_: &Expr, node: Expr| -> Result<Expr> {
        match inlined(&node)? {
            Some(body) => inline_to_depth(&body, depth - 1),
            None => Ok(node),
        }
    })
}

/// The body of the functor `node` calls, with its arguments in place, if
/// the call can be inlined.
fn inlined(node: &Expr) -> Result<Option<Expr>> {
    let NodeKind::Op { op, args, kwarg_names } = node.kind() else { return Ok(None) };
    if !matches!(&op.kind, OperatorKind::Builtin(def) if def.role == Builtin::Call) {
        return Ok(None);
    }
    let (fixed, var_args, kwargs) = op.split_args(args, kwarg_names.len());
    let Some(Some(ExprValue::Data(Value::Slice(f)))) = fixed.first().map(|a| a.as_ref().and_then(|e| e.literal_value())) else {
        return Ok(None);
    };
    if !functor::is_functor(f) {
        return Ok(None);
    }
    let Ok(compiled) = functor::compile(f) else { return Ok(None) };
    let positional: Vec<Expr> = var_args.iter().flatten().cloned().collect();
    let keywords: Vec<(String, Expr)> = kwarg_names.iter().zip(kwargs).filter_map(|(n, a)| Some((n.to_string(), a.clone()?))).collect();
    let Ok(mut bound) = try_bind(&compiled.params, positional, keywords, BindOrder::Functor) else { return Ok(None) };
    let mut subs: HashMap<String, Expr> = HashMap::new();
    for (param, value) in compiled.params.iter().zip(std::mem::take(&mut bound.values)) {
        let value = match param.kind {
            ParamKind::VarPositional => Expr::call(&lookup_or_error("kd.tuples.tuple")?, std::mem::take(&mut bound.var_args), vec![])?,
            ParamKind::VarKeyword => Expr::call(&lookup_or_error("kd.tuples.namedtuple")?, vec![], std::mem::take(&mut bound.var_kwargs))?,
            _ => match value.or_else(|| param.default.clone().flatten().map(|d| Expr::literal(ExprValue::slice(d)))) {
                Some(v) => v,
                None => return Ok(None),
            },
        };
        subs.insert(param.name.clone(), value);
    }
    let read = compiled.body.input_names();
    if read.iter().any(|name| !subs.contains_key(name)) {
        return Ok(None);
    }
    // A call computes its arguments before the body runs: an argument the
    // body does not read, and that may fail, keeps the call (its error
    // is the call's).
    let may_fail = |e: &Expr| !matches!(e.kind(), NodeKind::Input(_) | NodeKind::Literal(_));
    if subs.iter().any(|(name, value)| !read.contains(name) && may_fail(value)) {
        return Ok(None);
    }
    Ok(Some(substitute_inputs(&compiled.body, &subs)))
}
