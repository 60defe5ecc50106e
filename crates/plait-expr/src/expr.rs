//! Expressions: immutable DAG nodes — inputs (`I.x`), variables (`V.x`),
//! literals and operators applied to arguments — each with a 128-bit
//! structural fingerprint computed once, at construction.
//!
//! Children are shared (`Arc`), so a DAG with shared subexpressions costs its
//! number of distinct nodes; traversals ([`Expr::post_order`]) are iterative
//! and visit each distinct node once, so a 100,000-node chain neither
//! overflows the stack nor takes more than linear time.

use std::collections::HashSet;
use std::sync::Arc;

use plait_core::Result;
use plait_core::itemid::UuidHasher;
use plait_ops::registry::{Value, bind_params};

use crate::operator::{OpRef, is_variadic, lookup_or_error};
use crate::value::ExprValue;

/// What a node is.
#[derive(Clone, Debug)]
pub enum NodeKind {
    /// `I.name`: a value given at evaluation.
    Input(Arc<str>),
    /// `V.name`: a variable (bound by functors).
    Variable(Arc<str>),
    /// `P.name`: a parameter in the body of a lambda operator.
    Placeholder(Arc<str>),
    /// A value in the expression.
    Literal(ExprValue),
    /// Operator `op` applied to one argument per parameter that is not
    /// `*args`/`**kwargs` (`None`: unspecified), then the `*args`, then the
    /// `**kwargs` (named by `kwarg_names`, in order).
    Op { op: OpRef, args: Vec<Option<Expr>>, kwarg_names: Vec<Arc<str>> },
}

#[derive(Debug)]
struct Node {
    kind: NodeKind,
    fingerprint: u128,
    /// Descriptive metadata (seed 002): never part of the fingerprint, never
    /// read by evaluation.
    tags: Vec<ExprValue>,
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

fn leaf_fingerprint(tag: &str, name: &str) -> u128 {
    let mut h = UuidHasher::new(tag);
    h.write_str(name);
    h.finish()
}

impl Expr {
    fn from_kind(kind: NodeKind, fingerprint: u128) -> Expr {
        Expr(Arc::new(Node { kind, fingerprint, tags: Vec::new() }))
    }

    /// `I.name`.
    pub fn input(name: &str) -> Expr {
        Expr::from_kind(NodeKind::Input(Arc::from(name)), leaf_fingerprint("expr_input", name))
    }

    /// `V.name`.
    pub fn variable(name: &str) -> Expr {
        Expr::from_kind(NodeKind::Variable(Arc::from(name)), leaf_fingerprint("expr_variable", name))
    }

    /// `P.name`.
    pub fn placeholder(name: &str) -> Expr {
        Expr::from_kind(NodeKind::Placeholder(Arc::from(name)), leaf_fingerprint("expr_placeholder", name))
    }

    /// A literal. Small slices are fingerprinted by content, large ones by
    /// identity (see [`ExprValue::fingerprint`]).
    pub fn literal(value: ExprValue) -> Expr {
        let fingerprint = value.fingerprint();
        Expr::from_kind(NodeKind::Literal(value), fingerprint)
    }

    /// A literal DataSlice or shape.
    pub fn data(value: Value) -> Expr {
        Expr::literal(ExprValue::Data(value))
    }

    /// Operator `op` on `args` laid out as [`NodeKind::Op`] says, unchecked
    /// (for rebuilding nodes of checked ones).
    pub fn node(op: OpRef, args: Vec<Option<Expr>>, kwarg_names: Vec<Arc<str>>) -> Expr {
        let mut h = UuidHasher::new("expr_op");
        h.write_bytes(&op.fingerprint.to_le_bytes());
        for arg in &args {
            match arg {
                Some(e) => h.write_bytes(&e.0.fingerprint.to_le_bytes()),
                None => h.write_str("unspecified"),
            }
        }
        for name in &kwarg_names {
            h.write_str(name);
        }
        Expr::from_kind(NodeKind::Op { op, args, kwarg_names }, h.finish())
    }

    /// Operator `op` called with `positional` and `keywords`, bound to its
    /// signature as Python binds; parameters not given take their defaults
    /// (as literals, the way Koda shows them).
    pub fn call(op: &OpRef, positional: Vec<Expr>, keywords: Vec<(String, Expr)>) -> Result<Expr> {
        let bound = bind_params(&op.name, &op.params, positional, keywords)?;
        let mut args: Vec<Option<Expr>> = op
            .params
            .iter()
            .zip(bound.values)
            .filter(|(p, _)| !is_variadic(p))
            .map(|(p, v)| match v {
                Some(e) if matches!(e.literal_value(), Some(ExprValue::Unspecified)) => None,
                Some(e) => Some(e),
                None => p.default.clone().flatten().map(|d| Expr::data(Value::Slice(d))),
            })
            .collect();
        args.extend(bound.var_args.into_iter().map(Some));
        let mut kwarg_names = Vec::with_capacity(bound.var_kwargs.len());
        for (name, value) in bound.var_kwargs {
            kwarg_names.push(Arc::from(name.as_str()));
            args.push(Some(value));
        }
        Ok(Expr::node(op.clone(), args, kwarg_names))
    }

    /// The operator registered as `op` on positional `args` (`None`: not
    /// given, so the default).
    pub fn op(op: &str, args: Vec<Option<Expr>>) -> Result<Expr> {
        let op = lookup_or_error(op)?;
        let mut keywords = Vec::new();
        let mut positional = Vec::new();
        let fixed = op.params.iter().filter(|p| !is_variadic(p));
        if args.len() > op.fixed_params() {
            return Err(plait_core::Error::type_error(&op.name, format!("takes {} arguments but {} were given", op.fixed_params(), args.len())));
        }
        let mut gap = false;
        for (param, arg) in fixed.zip(args) {
            match arg {
                None => gap = true,
                Some(e) if gap || param.kind == plait_ops::registry::ParamKind::KeywordOnly => keywords.push((param.name.clone(), e)),
                Some(e) => positional.push(e),
            }
        }
        Expr::call(&op, positional, keywords)
    }

    /// This node with other arguments (same operator, tags kept).
    pub fn with_args(&self, args: Vec<Option<Expr>>) -> Expr {
        match &self.0.kind {
            NodeKind::Op { op, kwarg_names, .. } => {
                let rebuilt = Expr::node(op.clone(), args, kwarg_names.clone());
                if self.0.tags.is_empty() { rebuilt } else { rebuilt.with_tags(self.0.tags.clone()) }
            }
            _ => self.clone(),
        }
    }

    /// This node with `tags` instead of its own (same fingerprint).
    pub fn with_tags(&self, tags: Vec<ExprValue>) -> Expr {
        Expr(Arc::new(Node { kind: self.0.kind.clone(), fingerprint: self.0.fingerprint, tags }))
    }

    pub fn tags(&self) -> &[ExprValue] {
        &self.0.tags
    }

    pub fn kind(&self) -> &NodeKind {
        &self.0.kind
    }

    /// The structural fingerprint (equal expressions have equal ones).
    pub fn fingerprint(&self) -> u128 {
        self.0.fingerprint
    }

    /// Whether both handles are the same node (not only equal).
    pub fn same_node(&self, other: &Expr) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// The operator of an operator node.
    pub fn op_ref(&self) -> Option<&OpRef> {
        match &self.0.kind {
            NodeKind::Op { op, .. } => Some(op),
            _ => None,
        }
    }

    /// The literal value of a literal node.
    pub fn literal_value(&self) -> Option<&ExprValue> {
        match &self.0.kind {
            NodeKind::Literal(v) => Some(v),
            _ => None,
        }
    }

    /// The argument slots of an operator node (none for leaves).
    pub fn args(&self) -> &[Option<Expr>] {
        match &self.0.kind {
            NodeKind::Op { args, .. } => args,
            _ => &[],
        }
    }

    /// The node's arguments (none for leaves).
    pub fn children(&self) -> impl Iterator<Item = &Expr> {
        self.args().iter().flatten()
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
            if !seen.insert(node.fingerprint()) {
                continue;
            }
            stack.push((node.clone(), true));
            for child in node.children().collect::<Vec<_>>().into_iter().rev() {
                if !seen.contains(&child.fingerprint()) {
                    stack.push((child.clone(), false));
                }
            }
        }
        out
    }

    fn leaf_names(&self, pick: fn(&NodeKind) -> Option<&Arc<str>>) -> Vec<String> {
        let mut names: Vec<String> = self.post_order().iter().filter_map(|n| pick(n.kind()).map(|s| s.to_string())).collect();
        names.sort();
        names.dedup();
        names
    }

    /// The names of the inputs (`I.x`), sorted.
    pub fn input_names(&self) -> Vec<String> {
        self.leaf_names(|k| if let NodeKind::Input(n) = k { Some(n) } else { None })
    }

    /// The names of the variables (`V.x`), sorted.
    pub fn variable_names(&self) -> Vec<String> {
        self.leaf_names(|k| if let NodeKind::Variable(n) = k { Some(n) } else { None })
    }

    /// The names of the placeholders (`P.x`), sorted.
    pub fn placeholder_names(&self) -> Vec<String> {
        self.leaf_names(|k| if let NodeKind::Placeholder(n) = k { Some(n) } else { None })
    }
}

/// The prefix of the tag recording where tracing created a node.
pub const SOURCE_TAG_PREFIX: &str = "📍 ";

/// Where tracing created `node` (`path:line`), from its source tag.
pub fn source_location(node: &Expr) -> Option<String> {
    node.tags().iter().find_map(|tag| match tag {
        ExprValue::Data(Value::Slice(x)) if x.is_item() => match x.get(0) {
            Some(plait_core::ScalarRef::String(s)) => s.strip_prefix(SOURCE_TAG_PREFIX).map(str::to_string),
            _ => None,
        },
        _ => None,
    })
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
