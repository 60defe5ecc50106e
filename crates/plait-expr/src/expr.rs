//! Expressions: immutable DAG nodes — inputs (`I.x`), variables (`V.x`),
//! literals and operators applied to arguments — each with a 128-bit
//! structural fingerprint computed once, at construction.
//!
//! Children are shared (`Arc`), so a DAG with shared subexpressions costs its
//! number of distinct nodes; traversals ([`Expr::post_order`]) are iterative
//! and visit each distinct node once, so a 100,000-node chain neither
//! overflows the stack nor takes more than linear time.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use plait_core::itemid::UuidHasher;
use plait_core::{Error, Result};
use plait_ops::registry::{registry, ParamKind, Value};

/// What a node is.
#[derive(Debug)]
pub enum NodeKind {
    /// `I.name`: a value given at evaluation.
    Input(Arc<str>),
    /// `V.name`: a variable (bound by functors).
    Variable(Arc<str>),
    /// A value in the expression.
    Literal(Value),
    /// Operator `op` (a registry name) applied to one argument per parameter
    /// of its signature (`None`: unspecified).
    Op { op: &'static str, args: Vec<Option<Expr>> },
}

#[derive(Debug)]
struct Node {
    kind: NodeKind,
    fingerprint: u128,
}

/// A shared handle to an expression node.
#[derive(Clone, Debug)]
pub struct Expr(Arc<Node>);

impl PartialEq for Expr {
    fn eq(&self, other: &Expr) -> bool {
        self.0.fingerprint == other.0.fingerprint
    }
}

impl Eq for Expr {}

impl std::hash::Hash for Expr {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.fingerprint.hash(state)
    }
}

impl Expr {
    fn from_kind(kind: NodeKind, fingerprint: u128) -> Expr {
        Expr(Arc::new(Node { kind, fingerprint }))
    }

    /// `I.name`.
    pub fn input(name: &str) -> Expr {
        let mut h = UuidHasher::new("expr_input");
        h.write_str(name);
        Expr::from_kind(NodeKind::Input(Arc::from(name)), h.finish())
    }

    /// `V.name`.
    pub fn variable(name: &str) -> Expr {
        let mut h = UuidHasher::new("expr_variable");
        h.write_str(name);
        Expr::from_kind(NodeKind::Variable(Arc::from(name)), h.finish())
    }

    /// A literal. Each literal node is its own value (its fingerprint is
    /// unique), so no hashing of large data happens at construction.
    pub fn literal(value: Value) -> Expr {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let mut h = UuidHasher::new("expr_literal");
        h.write_bytes(&COUNTER.fetch_add(1, Ordering::Relaxed).to_le_bytes());
        h.write_bytes(&(std::process::id() as u64).to_le_bytes());
        Expr::from_kind(NodeKind::Literal(value), h.finish())
    }

    /// Operator `op` applied to `args`, one per parameter of its signature
    /// (missing trailing ones are unspecified). Checks that the operator
    /// exists, takes no `*args`/`**kwargs` and is given no more arguments
    /// than it has parameters, and that required ones are given.
    pub fn op(op: &str, mut args: Vec<Option<Expr>>) -> Result<Expr> {
        let operator = registry()
            .get(op)
            .ok_or_else(|| Error::value("kd.lazy", format!("unknown operator: {op}")))?;
        if operator.params.iter().any(|p| matches!(p.kind, ParamKind::VarPositional | ParamKind::VarKeyword)) {
            return Err(Error::value(
                operator.name,
                "operators with *args or **kwargs cannot be used in expressions yet",
            ));
        }
        if args.len() > operator.params.len() {
            return Err(Error::type_error(
                operator.name,
                format!("takes {} arguments but {} were given", operator.params.len(), args.len()),
            ));
        }
        args.resize(operator.params.len(), None);
        for (param, arg) in operator.params.iter().zip(args.iter_mut()) {
            match (arg.is_none(), &param.default) {
                (true, None) => {
                    return Err(Error::type_error(operator.name, format!("missing required argument: '{}'", param.name)));
                }
                // A default value becomes a literal, as Koda shows it.
                (true, Some(Some(default))) => *arg = Some(Expr::literal(Value::Slice(default.clone()))),
                _ => {}
            }
        }
        let mut h = UuidHasher::new("expr_op");
        h.write_str(operator.name);
        for arg in &args {
            match arg {
                Some(e) => h.write_bytes(&e.0.fingerprint.to_le_bytes()),
                None => h.write_str("unspecified"),
            }
        }
        Ok(Expr::from_kind(NodeKind::Op { op: operator.name, args }, h.finish()))
    }

    pub fn kind(&self) -> &NodeKind {
        &self.0.kind
    }

    /// The structural fingerprint (equal expressions have equal ones).
    pub fn fingerprint(&self) -> u128 {
        self.0.fingerprint
    }

    /// The node's arguments (none for leaves).
    pub fn children(&self) -> impl Iterator<Item = &Expr> {
        let args: &[Option<Expr>] = match &self.0.kind {
            NodeKind::Op { args, .. } => args,
            _ => &[],
        };
        args.iter().flatten()
    }

    /// Every distinct node, each after its children (iterative).
    pub fn post_order(&self) -> Vec<Expr> {
        let mut out = Vec::new();
        let mut seen: HashSet<u128> = HashSet::new();
        // (node, whether its children were pushed)
        let mut stack: Vec<(Expr, bool)> = vec![(self.clone(), false)];
        while let Some((node, expanded)) = stack.pop() {
            if expanded {
                out.push(node);
                continue;
            }
            if seen.contains(&node.fingerprint()) {
                continue;
            }
            seen.insert(node.fingerprint());
            stack.push((node.clone(), true));
            for child in node.children() {
                if !seen.contains(&child.fingerprint()) {
                    stack.push((child.clone(), false));
                }
            }
        }
        out
    }

    /// The names of the inputs (`I.x`), sorted.
    pub fn input_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .post_order()
            .iter()
            .filter_map(|n| match n.kind() {
                NodeKind::Input(name) => Some(name.to_string()),
                _ => None,
            })
            .collect();
        names.sort();
        names.dedup();
        names
    }
}

/// Expressions that are long chains (`x + 1 + 1 + ...`) must drop without
/// recursing through every node: children are taken out iteratively.
impl Drop for Node {
    fn drop(&mut self) {
        let NodeKind::Op { args, .. } = &mut self.kind else { return };
        let mut pending: Vec<Expr> = args.drain(..).flatten().collect();
        while let Some(expr) = pending.pop() {
            if let Ok(mut node) = Arc::try_unwrap(expr.0) {
                if let NodeKind::Op { args, .. } = &mut node.kind {
                    pending.extend(args.drain(..).flatten());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn structure_decides_equality() {
        let a = Expr::op("kd.math.add", vec![Some(Expr::input("a")), Some(Expr::input("b"))]).unwrap();
        let b = Expr::op("kd.math.add", vec![Some(Expr::input("a")), Some(Expr::input("b"))]).unwrap();
        let c = Expr::op("kd.math.add", vec![Some(Expr::input("b")), Some(Expr::input("a"))]).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(a.input_names(), vec!["a".to_string(), "b".to_string()]);
    }

    #[test]
    fn long_chains_and_shared_nodes_are_linear() {
        let mut e = Expr::input("x");
        for _ in 0..100_000 {
            e = Expr::op("kd.math.neg", vec![Some(e)]).unwrap();
        }
        assert_eq!(e.post_order().len(), 100_001);
        // A diamond ladder: 2^60 paths, 121 distinct nodes.
        let mut d = Expr::input("x");
        for _ in 0..60 {
            let left = Expr::op("kd.math.neg", vec![Some(d.clone())]).unwrap();
            d = Expr::op("kd.math.add", vec![Some(left), Some(d)]).unwrap();
        }
        assert_eq!(d.post_order().len(), 121);
        drop(e);
    }

    #[test]
    fn bad_operators_are_refused() {
        assert!(Expr::op("kd.no_such_op", vec![]).is_err());
        assert!(Expr::op("kd.math.add", vec![Some(Expr::input("a"))]).is_err());
        assert!(Expr::op("kd.math.neg", vec![Some(Expr::input("a")), Some(Expr::input("b"))]).is_err());
    }
}
