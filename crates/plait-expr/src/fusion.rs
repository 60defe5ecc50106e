//! Elementwise fusion (`kd.compile`'s plan optimisation): each group of
//! connected elementwise operators (arithmetic, comparisons, masks) becomes
//! one `kd.core._fused` node that computes it in one pass with no
//! intermediate slice (see `builtins::fused`).
//!
//! A node joins the group of its readers when every reader is in one
//! group; otherwise (read by an operator that is not elementwise, by two
//! groups, or the result itself) it ends a group of its own. So each group
//! has one result, the values inside it are read by nobody else, and
//! collapsing a group never makes a cycle. Groups of one operator are left
//! as they are (nothing to fuse).

use std::collections::{HashMap, HashSet};

use plait_core::Result;
use plait_ops::fused::FusedOp;
use plait_ops::registry::Value;

use crate::builtins::fused::{FUSED, input_name};
use crate::expr::{Expr, NodeKind};
use crate::operator::{OperatorKind, lookup_or_error};
use crate::packed;
use crate::value::ExprValue;

/// Whether `node` is an operator a group may hold.
fn is_elementwise(node: &Expr) -> bool {
    let NodeKind::Op { op, args, kwarg_names } = node.kind() else { return false };
    let OperatorKind::Backend(backend) = op.kind else { return false };
    FusedOp::of(backend.name).is_some_and(|f| kwarg_names.is_empty() && args.len() == f.arity() && args.iter().all(Option::is_some))
}

/// Whether `node` is a DataItem literal with no bag (a constant of a
/// group's body; other literals are inputs).
fn is_item_literal(node: &Expr) -> bool {
    matches!(node.kind(), NodeKind::Literal(ExprValue::Data(Value::Slice(x))) if x.is_item() && x.bag().is_none())
}

/// `expr` (prepared) with its elementwise groups fused.
pub fn fuse(expr: &Expr) -> Result<Expr> {
    let nodes = expr.post_order();
    let position: HashMap<u128, usize> = nodes.iter().enumerate().map(|(i, n)| (n.fingerprint(), i)).collect();
    let mut readers: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (i, node) in nodes.iter().enumerate() {
        for child in node.children() {
            let c = position[&child.fingerprint()];
            if readers[c].last() != Some(&i) {
                readers[c].push(i);
            }
        }
    }
    // The group of each elementwise node, by the position of its result,
    // readers first.
    let mut group: Vec<Option<usize>> = vec![None; nodes.len()];
    for i in (0..nodes.len()).rev() {
        if !is_elementwise(&nodes[i]) {
            continue;
        }
        let shared = readers[i].first().and_then(|&r| group[r]).filter(|&g| readers[i].iter().all(|&r| group[r] == Some(g)));
        group[i] = Some(shared.unwrap_or(i));
    }
    let mut size = vec![0usize; nodes.len()];
    for g in group.iter().flatten() {
        size[*g] += 1;
    }
    let fused_op = lookup_or_error(FUSED)?;
    let mut done: Vec<Option<Expr>> = vec![None; nodes.len()];
    for (i, node) in nodes.iter().enumerate() {
        let rebuilt = match group[i] {
            Some(g) if g == i && size[g] > 1 => fused_node(&fused_op, i, &nodes, &position, &group, &done)?,
            // Inside a group: its root reads it from the body.
            Some(g) if g != i && size[g] > 1 => continue,
            _ => {
                let args: Vec<Option<Expr>> =
                    node.args().iter().map(|a| a.as_ref().map(|e| done[position[&e.fingerprint()]].clone().expect("children first"))).collect();
                if node.args().iter().flatten().zip(args.iter().flatten()).all(|(a, b)| a.same_node(b)) { node.clone() } else { node.with_args(args) }
            }
        };
        done[i] = Some(rebuilt);
    }
    Ok(done.pop().flatten().expect("the root is last"))
}

/// The `kd.core._fused` node computing the group whose result is node `root`.
fn fused_node(
    fused_op: &crate::operator::OpRef,
    root: usize,
    nodes: &[Expr],
    position: &HashMap<u128, usize>,
    group: &[Option<usize>],
    done: &[Option<Expr>],
) -> Result<Expr> {
    // The group's members, children first (their order in `nodes`).
    let mut members = vec![root];
    let mut seen: HashSet<usize> = HashSet::from([root]);
    let mut k = 0;
    while k < members.len() {
        for child in nodes[members[k]].children() {
            let c = position[&child.fingerprint()];
            if group[c] == Some(root) && seen.insert(c) {
                members.push(c);
            }
        }
        k += 1;
    }
    members.sort_unstable();
    let mut inputs: Vec<Expr> = Vec::new();
    let mut input_of: HashMap<usize, Expr> = HashMap::new();
    let mut body: HashMap<usize, Expr> = HashMap::new();
    for &m in &members {
        let mut args = Vec::new();
        for arg in nodes[m].args() {
            let child = arg.as_ref().expect("elementwise arguments are all given");
            let c = position[&child.fingerprint()];
            args.push(Some(if group[c] == Some(root) {
                body[&c].clone()
            } else if is_item_literal(child) {
                child.clone()
            } else {
                input_of
                    .entry(c)
                    .or_insert_with(|| {
                        inputs.push(done[c].clone().expect("children first"));
                        Expr::input(&input_name(inputs.len() - 1))
                    })
                    .clone()
            }));
        }
        body.insert(m, nodes[m].with_args(args));
    }
    let body = packed::pack(&body[&root]);
    let mut args = vec![Expr::literal(ExprValue::slice(body))];
    args.extend(inputs);
    Expr::call(fused_op, args, vec![])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::expr_text;
    use crate::tracing::int32;

    fn op(name: &str, args: Vec<Expr>) -> Expr {
        Expr::op(name, args.into_iter().map(Some).collect()).unwrap()
    }

    fn fused_nodes(e: &Expr) -> usize {
        e.post_order().iter().filter(|n| matches!(n.op_ref().map(|o| o.kind.clone()), Some(OperatorKind::Builtin(d)) if d.name == FUSED)).count()
    }

    #[test]
    fn a_chain_becomes_one_node() {
        let x = Expr::input("x");
        let e = op("kd.comparison.greater", vec![op("kd.math.add", vec![op("kd.math.multiply", vec![x.clone(), int32(2)]), x.clone()]), int32(3)]);
        let fused = fuse(&e).unwrap();
        assert_eq!(fused_nodes(&fused), 1);
        assert_eq!(
            expr_text(&fused),
            "kd.core._fused(DataItem(I._0 * DataItem(2, schema: INT32) + I._0 > DataItem(3, schema: INT32), schema: EXPR), I.x)"
        );
    }

    #[test]
    fn a_value_read_outside_its_group_ends_the_group() {
        let x = Expr::input("x");
        let doubled = op("kd.math.multiply", vec![op("kd.math.add", vec![x.clone(), int32(1)]), int32(2)]);
        // `doubled` is read by agg_sum (not elementwise) and by the negation:
        // its group ends there, and `-doubled - sum` is a group of its own
        // reading it.
        let e = op("kd.math.subtract", vec![op("kd.math.neg", vec![doubled.clone()]), op("kd.math.agg_sum", vec![doubled])]);
        let fused = fuse(&e).unwrap();
        assert_eq!(fused_nodes(&fused), 2);
        let inner = "kd.core._fused(DataItem((I._0 + DataItem(1, schema: INT32)) * DataItem(2, schema: INT32), schema: EXPR), I.x)";
        let text = expr_text(&fused);
        assert_eq!(text, format!("_1 = {inner}\nkd.core._fused(DataItem(-I._0 - I._1, schema: EXPR), _1, kd.math.agg_sum(_1, unspecified))"));
    }

    #[test]
    fn single_operators_are_left_alone_and_deep_chains_are_fine() {
        let e = op("kd.math.add", vec![Expr::input("x"), int32(1)]);
        assert!(fuse(&e).unwrap().same_node(&e));
        let mut deep = Expr::input("x");
        for _ in 0..20_000 {
            deep = op("kd.math.neg", vec![deep]);
        }
        assert_eq!(fused_nodes(&fuse(&deep).unwrap()), 1);
    }
}
