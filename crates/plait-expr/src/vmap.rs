//! `kd.vmap`'s rewrite (seed 003, "Vmap: Automatic Vectorization"): an
//! expression written for one example, made to run once over a batch whose
//! dimensions lead its inputs (prefix batch semantics).
//!
//! The inputs named as batched carry `k` leading batch dimensions; a node
//! is batched when an argument is. An operator on batched arguments runs
//! on the whole batch as it is when its work is item by item or over the
//! last dimensions (its type rule's family, [`Batching`]); an argument that
//! is not batched and not a single item gets the batch dimensions put in
//! front (every example sees it, rather than it broadcasting as a prefix).
//! Operators that look at all the dimensions or count them from the front
//! are rewritten to act on the dimensions after the batch ones: `kd.sum(x)`
//! becomes `kd.agg_sum(x, ndim=kd.get_ndim(x) - k)`, `kd.index(x, dim=0)`
//! indexes dimension `k`, `kd.get_ndim(x)` subtracts `k`. An operator over
//! the last dimension(s) checks as it runs that each example has them
//! (on a batch of items, the last dimension is the batch's). Rewrites use
//! operators that have batching rules of their own, so a nested `kd.vmap`
//! (whose rewrite is rewritten again by the outer one) counts both levels.
//! An operator with no rule on batched arguments is an error naming it.

use std::collections::{HashMap, HashSet};

use plait_core::{Error, Result, ScalarRef, Schema};
use plait_ops::registry::Value;
use plait_ops::typing::Batching;

use crate::expr::{Expr, NodeKind};
use crate::operator::{Builtin, OperatorKind};
use crate::value::ExprValue;

const OP: &str = "kd.vmap";

/// `expr` (over inputs of which `batched` carry `k` leading batch
/// dimensions) rewritten to compute every example at once; also whether
/// its result is batched.
pub fn vectorize(expr: &Expr, batched: &HashSet<String>, k: i64) -> Result<(Expr, bool)> {
    let prepared = crate::prepare::prepare(expr)?;
    let inlined = crate::inline::inline_calls(&prepared)?;
    // `kd.if_`s rewritten into calls of their branches: inlined in turn.
    let selected = branches_selected(&inlined, batched)?;
    let inlined = if selected.same_node(&inlined) { inlined } else { crate::inline::inline_calls(&selected)? };
    let nodes = inlined.post_order();
    let mut done: HashMap<u128, (Expr, bool)> = HashMap::with_capacity(nodes.len());
    for node in &nodes {
        let rewritten = match node.kind() {
            NodeKind::Input(name) => (node.clone(), batched.contains(name.as_ref())),
            NodeKind::Op { .. } => {
                let args: Vec<Option<(Expr, bool)>> = node.args().iter().map(|a| a.as_ref().map(|e| done[&e.fingerprint()].clone())).collect();
                let exprs: Vec<Option<Expr>> = args.iter().map(|a| a.as_ref().map(|(e, _)| e.clone())).collect();
                if !args.iter().flatten().any(|(_, b)| *b) { (node.with_args(exprs), false) } else { batch_node(node, &args, k)? }
            }
            _ => (node.clone(), false),
        };
        done.insert(node.fingerprint(), rewritten);
    }
    Ok(done.remove(&inlined.fingerprint()).expect("the root is rewritten"))
}

/// `expr` with each `kd.if_` whose arguments depend on the batch (the
/// branch may differ per example, and the branch runs on the batch)
/// written as both branches called, each result kept where its condition
/// holds: `(yes(*args) & cond) | (no(*args) & ~cond)`. Both branches then
/// compute on every example (docs/vmap.md).
fn branches_selected(expr: &Expr, batched: &HashSet<String>) -> Result<Expr> {
    let mut depends: HashMap<u128, bool> = HashMap::new();
    crate::transform::transform(expr, &mut |original: &Expr, node: Expr| -> Result<Expr> {
        let on_batch = match original.kind() {
            NodeKind::Input(name) => batched.contains(name.as_ref()),
            _ => original.children().any(|c| depends.get(&c.fingerprint()).copied().unwrap_or(false)),
        };
        depends.insert(original.fingerprint(), on_batch);
        let NodeKind::Op { op: operator, args, kwarg_names } = node.kind() else { return Ok(node) };
        if !on_batch || !matches!(&operator.kind, OperatorKind::Builtin(def) if def.name == "kd.functor.if_") {
            return Ok(node);
        }
        let (fixed, var_args, kwargs) = operator.split_args(args, kwarg_names.len());
        let [Some(cond), Some(yes), Some(no)] = [0, 1, 2].map(|i| fixed.get(i).cloned().flatten()) else { return Ok(node) };
        let call = crate::operator::lookup_or_error("kd.functor.call")?;
        let named: Vec<(String, Expr)> = kwarg_names.iter().zip(kwargs).filter_map(|(n, a)| Some((n.to_string(), a.clone()?))).collect();
        let branch = |f: Expr| -> Result<Expr> {
            let mut positional = vec![f];
            positional.extend(var_args.iter().flatten().cloned());
            Expr::call(&call, positional, named.clone())
        };
        let kept = op("kd.masking.apply_mask", vec![branch(yes)?, cond.clone()])?;
        let other = op("kd.masking.apply_mask", vec![branch(no)?, op("kd.masking.has_not", vec![cond])?])?;
        op("kd.masking.coalesce", vec![kept, other])
    })
}

/// A literal integer item.
pub(crate) fn literal_int(e: &Expr) -> Option<i64> {
    match e.literal_value() {
        Some(ExprValue::Data(Value::Slice(x))) if x.is_item() => match x.get(0) {
            Some(ScalarRef::Int32(v)) => Some(v as i64),
            Some(ScalarRef::Int64(v)) => Some(v),
            _ => None,
        },
        _ => None,
    }
}

pub(crate) fn int(v: i64) -> Expr {
    Expr::literal(ExprValue::slice(plait_core::DataSlice::item(Some(ScalarRef::Int64(v)), Schema::Int64).expect("an INT64 item")))
}

pub(crate) fn op(name: &str, args: Vec<Expr>) -> Result<Expr> {
    Expr::op(name, args.into_iter().map(Some).collect())
}

/// The number of dimensions of `x` after its `k` batch ones.
fn example_ndim(x: &Expr, k: i64) -> Result<Expr> {
    op("kd.math.subtract", vec![op("kd.slices.get_ndim", vec![x.clone()])?, int(k)])
}

/// `u` (not batched) under the batch dimensions of `like` (batched): each
/// example gets all of `u` (a DataItem stays one: it fits every example,
/// and parameters such as `ndim` must stay items).
fn under_batch(u: &Expr, like: &Expr, k: i64) -> Result<Expr> {
    op("kd.slices._under_batch", vec![u.clone(), like.clone(), int(k), int(0)])
}

/// Whether an argument that is not batched may stay as it is: a literal
/// item (it broadcasts to every example alike), or a literal that is no
/// DataSlice nor shape (a tuple, unspecified). A literal shape is one
/// example's: an error, as no batch shape can be made of it here.
fn needs_no_batch(e: &Expr) -> Result<bool> {
    match e.literal_value() {
        Some(ExprValue::Data(Value::Slice(x))) => Ok(x.is_item()),
        Some(ExprValue::Data(Value::Shape(_))) => Err(Error::value(
            OP,
            "a JaggedShape given as a constant is one example's shape: build it from the example (kd.get_shape, kd.shapes.new of its sizes)",
        )),
        Some(_) => Ok(true),
        None => Ok(false),
    }
}

/// The arguments with those that are not batched put under the batch.
fn with_batched_args(args: &[Option<(Expr, bool)>], k: i64) -> Result<Vec<Option<Expr>>> {
    let like = args.iter().flatten().find(|(_, b)| *b).map(|(e, _)| e.clone()).expect("a batched argument");
    args.iter()
        .map(|a| match a {
            None => Ok(None),
            Some((e, true)) => Ok(Some(e.clone())),
            Some((e, false)) if needs_no_batch(e)? => Ok(Some(e.clone())),
            Some((e, false)) => under_batch(e, &like, k).map(Some),
        })
        .collect()
}

/// Operators over all dimensions, and the operators over the last `ndim`
/// that compute the same per example.
const ALL_DIMS: &[(&str, &str)] = &[
    ("kd.math.sum", "kd.math.agg_sum"),
    ("kd.math.max", "kd.math.agg_max"),
    ("kd.math.min", "kd.math.agg_min"),
    ("kd.math.median", "kd.math.agg_median"),
    ("kd.math.mean", "kd.math.agg_mean"),
    ("kd.math.inverse_cdf", "kd.math.agg_inverse_cdf"),
    ("kd.slices.count", "kd.slices.agg_count"),
    ("kd.slices.size", "kd.slices.agg_size"),
    ("kd.masking.all", "kd.masking.agg_all"),
    ("kd.masking.any", "kd.masking.agg_any"),
];

/// Operators whose type rules are their own but that work item by item
/// (whatever the rank of an example), so batch dimensions lead through
/// them.
const ITEMWISE: &[&str] = &[
    "kd.slices.range",
    "kd.slices.expand_to",
    "kd.slices.zip",
    "kd.slices.val_shaped",
    "kd.strings.split",
    "kd.core.get_attr",
    "kd.core.with_attrs",
    "kd.lists.explode",
    "kd.lists.size",
    "kd.dicts.size",
    // One entity, object or id per item of the attributes aligned (a new
    // entity schema is made once for the batch, not once per example).
    "kd.entities.new",
    "kd.objs.new",
    "kd.entities.uu",
    "kd.objs.uu",
    "kd.ids.uuid",
    "kd.ids.uuid_for_list",
    "kd.ids.uuid_for_dict",
    // Shapes of batched slices are whole (the batch dimensions lead them):
    // they reshape and expand batched slices as they are.
    "kd.shapes.get_shape",
    "kd.shapes.reshape",
    "kd.shapes.reshape_as",
    "kd.shapes.expand_to_shape",
];

/// Operators over the last dimension of their first argument, whose type
/// rules are their own: batch dimensions lead through them when each
/// example has a dimension (checked as they run: on a batch of items, the
/// last dimension would be the batch's).
const LAST_DIM: &[&str] =
    &["kd.slices.select", "kd.slices.take", "kd.slices.reverse", "kd.slices.sort", "kd.slices.unique", "kd.slices.group_by", "kd.slices.translate"];

/// `x` (batched, `k` batch dimensions), checked at run time to have at
/// least `least` dimensions per example, for `name`.
fn with_example_rank(x: Expr, k: i64, least: i64, name: &str) -> Result<Expr> {
    let name = Expr::literal(ExprValue::slice(plait_core::DataSlice::item(Some(ScalarRef::String(name)), Schema::String).expect("a STRING item")));
    op("kd.slices._example_rank", vec![x, int(k), int(least), name])
}

/// The rewrite of operator node `node` whose arguments (rewritten, with
/// whether each is batched) include a batched one, and whether its result
/// is batched (a rank, the same for every example, is not).
fn batch_node(node: &Expr, args: &[Option<(Expr, bool)>], k: i64) -> Result<(Expr, bool)> {
    let batched = |e: Result<Expr>| e.map(|e| (e, true));
    let NodeKind::Op { op: operator, .. } = node.kind() else { unreachable!("an operator node") };
    let name: &str = match &operator.kind {
        OperatorKind::Backend(backend) => backend.name,
        OperatorKind::Builtin(def) => def.name,
        _ => &operator.name,
    };
    let arg = |i: usize| args.get(i).and_then(|a| a.as_ref()).map(|(e, _)| e.clone());
    match &operator.kind {
        OperatorKind::Builtin(def) => {
            return match def.name {
                // Values pass through tuples; each example gets its own.
                "kd.tuples.tuple" | "kd.tuples.namedtuple" | "kd.tuples.get_nth" | "kd.tuples.get_namedtuple_field" => {
                    Ok((node.with_args(args.iter().map(|a| a.as_ref().map(|(e, _)| e.clone())).collect()), true))
                }
                "kd.functor.map" | "kd.core._fused" => Ok((node.with_args(with_batched_args(args, k)?), true)),
                _ if def.role == Builtin::Call => {
                    Err(Error::value(OP, format!("cannot vectorize a call of a functor that is not a literal: {}", crate::text::expr_text(node))))
                }
                other => Err(no_rule(other)),
            };
        }
        OperatorKind::Backend(_) => {}
        _ => return Err(no_rule(name)),
    }
    if let Some((_, agg)) = ALL_DIMS.iter().find(|(all, _)| *all == name) {
        let x = arg(0).expect("an aggregation has x");
        let ndim = example_ndim(&x, k)?;
        let mut rest: Vec<Option<Expr>> = with_batched_args(args, k)?;
        rest.push(Some(ndim));
        return batched(Expr::op(agg, rest));
    }
    match name {
        "kd.slices.is_empty" => {
            let x = arg(0).expect("is_empty has x");
            let has = op("kd.masking.agg_has", vec![x.clone(), example_ndim(&x, k)?])?;
            return batched(op("kd.masking.has_not", vec![has]));
        }
        // The same for every example: not batched.
        "kd.slices.get_ndim" => return Ok((example_ndim(&arg(0).expect("get_ndim has x"), k)?, false)),
        "kd.shapes.rank" | "kd.shapes.ndim" => {
            let rank = op(name, vec![arg(0).expect("a shape")])?;
            return Ok((op("kd.math.subtract", vec![rank, int(k)])?, false));
        }
        // Items of each example: a slice of the shape, counted over the
        // example's dimensions.
        "kd.shapes.size" => {
            let shape = arg(0).expect("a shape");
            let items = op("kd.slices.val_shaped", vec![shape.clone(), int(1)])?;
            let ndim = op("kd.math.subtract", vec![op("kd.shapes.rank", vec![shape])?, int(k)])?;
            return batched(op("kd.slices.agg_size", vec![items, ndim]));
        }
        // Stacking items into a new last dimension: item by item.
        "kd.slices.stack" if operator.split_args(args, 0).0.first().map_or(Some(0), |a| a.as_ref().and_then(|(e, _)| literal_int(e))) == Some(0) => {
            return batched(Ok(node.with_args(with_batched_args(args, k)?)));
        }
        // An inner vmap's check, of its examples within these.
        "kd.slices._example_rank" => {
            let ndim = arg(1).as_ref().and_then(literal_int).ok_or_else(|| Error::internal("kd.slices._example_rank: ndim is a literal"))?;
            return batched(op(name, vec![arg(0).expect("x"), int(ndim + k), arg(2).expect("least"), arg(3).expect("op")]));
        }
        // An inner vmap's argument under its batch, under this batch too.
        "kd.slices._under_batch" => {
            let x_batched = args.first().and_then(|a| a.as_ref()).is_some_and(|(_, b)| *b);
            let ndim = arg(2).as_ref().and_then(literal_int).ok_or_else(|| Error::internal("kd.slices._under_batch: ndim is a literal"))?;
            let x_ndim = arg(3).as_ref().and_then(literal_int).unwrap_or(0);
            let x_ndim = if x_batched { x_ndim + k } else { x_ndim };
            let (x, like) = (arg(0).expect("x"), arg(1).expect("like"));
            return batched(op(name, vec![x, like, int(ndim + k), int(x_ndim)]));
        }
        "kd.slices.index" => {
            let dim = match arg(1) {
                None => -1,
                Some(d) => literal_int(&d).ok_or_else(|| Error::value(OP, "kd.index: `dim` must be a literal int under kd.vmap"))?,
            };
            let dim = if dim >= 0 { dim + k } else { dim };
            return batched(op(name, vec![arg(0).expect("index has x"), int(dim)]));
        }
        "kd.shapes.flatten" => {
            let shift = |e: Option<Expr>, default: Option<i64>| -> Result<Option<Expr>> {
                let value = match &e {
                    None => default,
                    Some(d) if matches!(d.literal_value(), Some(ExprValue::Data(Value::Slice(x))) if x.get(0).is_none()) => None,
                    Some(d) => Some(literal_int(d).ok_or_else(|| Error::value(OP, "kd.flatten: dimensions must be literal ints under kd.vmap"))?),
                };
                Ok(value.map(|v| int(if v >= 0 { v + k } else { v })))
            };
            return batched(Expr::op(name, vec![arg(0), shift(arg(1), Some(0))?, shift(arg(2), None)?]));
        }
        "kd.lists.implode" => {
            // ndim -1: every dimension of the example.
            let x = arg(0).expect("implode has x");
            let (x, ndim) = match arg(1) {
                None => (with_example_rank(x, k, 1, name)?, int(1)),
                Some(e) => match literal_int(&e) {
                    Some(n) if n < 0 => (x.clone(), example_ndim(&x, k)?),
                    Some(n) => (with_example_rank(x, k, n, name)?, int(n)),
                    // Computed: an inner vmap's count of its example's dimensions.
                    None => (x, e),
                },
            };
            let mut rewritten = with_batched_args(args, k)?;
            rewritten[0] = Some(x);
            rewritten[1] = Some(ndim);
            return batched(Expr::op(name, rewritten));
        }
        _ => {}
    }
    let OperatorKind::Backend(backend) = &operator.kind else { unreachable!("builtins returned above") };
    let family = backend.type_rule.as_ref().map(|r| r.batching());
    if matches!(family, Some(Batching::Trailing)) || LAST_DIM.contains(&name) {
        // Over the last `ndim` dimensions (1 unless given): each example
        // must have them.
        let ndim_at = backend.params.iter().position(|p| p.name == "ndim");
        let least = match ndim_at.and_then(arg) {
            None => 1,
            Some(e) => literal_int(&e).map_or(1, |n| n.max(1)),
        };
        let mut rewritten = with_batched_args(args, k)?;
        if let Some(Some(x)) = rewritten.first_mut() {
            if args[0].as_ref().is_some_and(|(_, b)| *b) {
                *x = with_example_rank(x.clone(), k, least, name)?;
            }
        }
        return Ok((node.with_args(rewritten), true));
    }
    if matches!(family, Some(Batching::Items)) || ITEMWISE.contains(&name) {
        return Ok((node.with_args(with_batched_args(args, k)?), true));
    }
    Err(no_rule(name))
}

fn no_rule(name: &str) -> Error {
    Error::value(OP, format!("{name} has no batching rule: it cannot run on every example of a batch at once (yet)"))
}
