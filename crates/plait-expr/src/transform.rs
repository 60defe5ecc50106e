//! Passes over expressions (seed 002's "mappers"): a bottom-up
//! transformation visits each distinct node once, after its arguments, and
//! may replace it. Unchanged subgraphs stay the very same nodes (same
//! fingerprint, no copy), so a pass that changes nothing returns its input.
//!
//! Substitutions (`kd.expr.sub`, `sub_by_name`, `sub_inputs`) are passes too.

use std::collections::{HashMap, HashSet};

use plait_core::Result;

use crate::expr::{Expr, NodeKind};
use crate::operator::Builtin;
use crate::operator::OperatorKind;

/// A bottom-up pass. `visit` gets the node as it was in the input
/// (`original`) and the node rebuilt on the already transformed arguments
/// (`node`; the original itself when no argument changed), and returns the
/// node to use in its place.
pub trait Pass {
    fn visit(&mut self, original: &Expr, node: Expr) -> Result<Expr>;
}

impl<F: FnMut(&Expr, Expr) -> Result<Expr>> Pass for F {
    fn visit(&mut self, original: &Expr, node: Expr) -> Result<Expr> {
        self(original, node)
    }
}

/// Runs `pass` over `expr` bottom up (iteratively; each distinct node once).
pub fn transform(expr: &Expr, pass: &mut impl Pass) -> Result<Expr> {
    let mut done: HashMap<u128, Expr> = HashMap::new();
    // Fingerprints of nodes the pass replaced by another node.
    let mut changed: HashSet<u128> = HashSet::new();
    for original in expr.post_order() {
        let rebuilt = if original.children().any(|c| changed.contains(&c.fingerprint())) {
            let args = original.args().iter().map(|a| a.as_ref().map(|e| done[&e.fingerprint()].clone())).collect();
            original.with_args(args)
        } else {
            original.clone()
        };
        let out = pass.visit(&original, rebuilt)?;
        if !out.same_node(&original) {
            changed.insert(original.fingerprint());
        }
        done.insert(original.fingerprint(), out);
    }
    Ok(done.remove(&expr.fingerprint()).expect("the root is visited"))
}

/// `expr` with each node whose fingerprint is a key of `subs` replaced by
/// its value (what was inside a replaced node goes with it).
pub fn substitute(expr: &Expr, subs: &HashMap<u128, Expr>) -> Expr {
    let result: Result<Expr> = transform(expr, &mut |original: &Expr, node: Expr| Ok(subs.get(&original.fingerprint()).cloned().unwrap_or(node)));
    result.expect("substitution does not fail")
}

/// The name of a `with_name` node.
pub fn node_name(expr: &Expr) -> Option<String> {
    let NodeKind::Op { op, args, .. } = expr.kind() else { return None };
    if !matches!(op.kind, OperatorKind::Builtin(b) if b.role == Builtin::WithName) {
        return None;
    }
    let name = args.get(1)?.as_ref()?.literal_value()?;
    crate::operator::text_item(&op.name, "name", name).ok()
}

/// `expr` with each named node whose name is a key of `subs` replaced.
pub fn substitute_by_name(expr: &Expr, subs: &HashMap<String, Expr>) -> Expr {
    let result: Result<Expr> =
        transform(expr, &mut |original: &Expr, node: Expr| Ok(node_name(original).and_then(|n| subs.get(&n).cloned()).unwrap_or(node)));
    result.expect("substitution does not fail")
}

/// `expr` with inputs (`I.x`) whose name is a key of `subs` replaced.
pub fn substitute_inputs(expr: &Expr, subs: &HashMap<String, Expr>) -> Expr {
    substitute_leaves(expr, subs, |k| if let NodeKind::Input(n) = k { Some(n) } else { None })
}

/// `expr` with placeholders (`P.x`) whose name is a key of `subs` replaced.
pub fn substitute_placeholders(expr: &Expr, subs: &HashMap<String, Expr>) -> Expr {
    substitute_leaves(expr, subs, |k| if let NodeKind::Placeholder(n) = k { Some(n) } else { None })
}

fn substitute_leaves(expr: &Expr, subs: &HashMap<String, Expr>, name: fn(&NodeKind) -> Option<&std::sync::Arc<str>>) -> Expr {
    let result: Result<Expr> =
        transform(expr, &mut |original: &Expr, node: Expr| Ok(name(original.kind()).and_then(|n| subs.get(n.as_ref()).cloned()).unwrap_or(node)));
    result.expect("substitution does not fail")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn add(a: Expr, b: Expr) -> Expr {
        Expr::op("kd.math.add", vec![Some(a), Some(b)]).unwrap()
    }

    #[test]
    fn a_pass_renames_inputs_and_keeps_the_rest_identical() {
        let left = add(Expr::input("a"), Expr::input("b"));
        let right = Expr::op("kd.math.neg", vec![Some(Expr::input("c"))]).unwrap();
        let e = add(left.clone(), right.clone());
        let renamed = transform(&e, &mut |_: &Expr, node: Expr| {
            Ok(match node.kind() {
                NodeKind::Input(n) if n.as_ref() == "a" => Expr::input("x"),
                _ => node,
            })
        })
        .unwrap();
        assert_eq!(renamed.input_names(), vec!["b", "c", "x"]);
        // The untouched argument is the same node, not a copy.
        assert!(renamed.args()[1].as_ref().unwrap().same_node(&right));
        // A pass that changes nothing returns its input.
        let same = transform(&e, &mut |_: &Expr, node: Expr| Ok(node)).unwrap();
        assert!(same.same_node(&e));
    }

    #[test]
    fn substitutions() {
        let e = add(Expr::input("a"), Expr::input("b"));
        let subs: HashMap<String, Expr> = [("a".to_string(), Expr::input("z"))].into_iter().collect();
        assert_eq!(substitute_inputs(&e, &subs), add(Expr::input("z"), Expr::input("b")));
        let by_fp: HashMap<u128, Expr> = [(e.fingerprint(), Expr::input("q"))].into_iter().collect();
        assert_eq!(substitute(&e, &by_fp), Expr::input("q"));
    }
}
