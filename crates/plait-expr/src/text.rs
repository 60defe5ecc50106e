//! Koda's text form of expressions: infix operators with Python's
//! precedence and only the parentheses it needs (`(I.a + I.b) * I.c`),
//! attribute access and indexing (`I.x.y`, `I.x[1]`), other operators as
//! calls with every parameter (`kd.math.agg_sum(I.x, unspecified)`), and
//! literals by their repr. Written with an explicit stack, so deep
//! expressions print in linear time without recursion.

use std::collections::HashMap;

use plait_core::ScalarRef;
use plait_ops::registry::{ParamKind, Value};

use crate::expr::{Expr, NodeKind};
use crate::operator::{Operator, OperatorKind, is_variadic};
use crate::transform::node_name;
use crate::value::ExprValue;

/// Binding strength of a printed form (Python's order; higher binds tighter).
const ATOM: u8 = 20;
const POWER: u8 = 14;
const UNARY: u8 = 13;
const PRODUCT: u8 = 12;
const SUM: u8 = 11;
const AND: u8 = 8;
const OR: u8 = 6;
const COMPARISON: u8 = 5;

/// The infix form of operator `op`: its symbol, strength, and whether it is
/// unary.
fn infix(op: &str) -> Option<(&'static str, u8, bool)> {
    Some(match op {
        "kd.math.add" => (" + ", SUM, false),
        "kd.math.subtract" => (" - ", SUM, false),
        "kd.math.multiply" => (" * ", PRODUCT, false),
        "kd.math.divide" => (" / ", PRODUCT, false),
        "kd.math.floordiv" => (" // ", PRODUCT, false),
        "kd.math.mod" => (" % ", PRODUCT, false),
        "kd.math.pow" => (" ** ", POWER, false),
        "kd.math.neg" => ("-", UNARY, true),
        "kd.math.pos" => ("+", UNARY, true),
        "kd.masking.has_not" => ("~", UNARY, true),
        "kd.masking.apply_mask" => (" & ", AND, false),
        "kd.masking.coalesce" => (" | ", OR, false),
        "kd.comparison.equal" => (" == ", COMPARISON, false),
        "kd.comparison.not_equal" => (" != ", COMPARISON, false),
        "kd.comparison.less" => (" < ", COMPARISON, false),
        "kd.comparison.less_equal" => (" <= ", COMPARISON, false),
        "kd.comparison.greater" => (" > ", COMPARISON, false),
        "kd.comparison.greater_equal" => (" >= ", COMPARISON, false),
        _ => return None,
    })
}

/// The Python symbol `op` prints as (`+`, `~`, `>=`), for operators
/// written infix or prefix.
pub fn operator_symbol(op: &Operator) -> Option<&'static str> {
    infix(canonical(op)).map(|(symbol, _, _)| symbol.trim())
}

/// The canonical name of `op` (an alias of `kd.math.add` prints as `+` too).
fn canonical(op: &Operator) -> &str {
    match &op.kind {
        OperatorKind::Backend(b) if b.aliases.contains(&&*op.name) => b.name,
        _ => &op.name,
    }
}

/// The arguments of a `kd.call` node that prints as a call of its functor
/// (`return_type_as` left at its default): positional, then named.
fn call_form<'a>(op: &Operator, args: &'a [Option<Expr>], kwarg_names: &'a [std::sync::Arc<str>]) -> Option<Vec<(Option<String>, &'a Expr)>> {
    if !matches!(op.kind, OperatorKind::Builtin(b) if b.role == crate::operator::Builtin::Call) {
        return None;
    }
    // Parameters: fn, return_type_as, then *args and **kwargs.
    let return_type_as = args.get(1)?.as_ref()?;
    let default =
        matches!(return_type_as.literal_value(), Some(ExprValue::Data(Value::Slice(x))) if x.schema() == plait_core::Schema::None && x.is_item());
    if !default {
        return None;
    }
    let (_, var_args, kwargs) = op.split_args(args, kwarg_names.len());
    let mut parts: Vec<(Option<String>, &Expr)> = var_args.iter().flatten().map(|a| (None, a)).collect();
    parts.extend(kwarg_names.iter().zip(kwargs).filter_map(|(n, a)| Some((Some(n.to_string()), a.as_ref()?))));
    Some(parts)
}

/// How strongly `expr`'s printed form binds (a label binds like an atom).
fn strength(expr: &Expr, labels: &HashMap<u128, String>) -> u8 {
    if labels.contains_key(&expr.fingerprint()) || node_name(expr).is_some() {
        return ATOM;
    }
    match expr.kind() {
        // Calls, attribute access and indexing bind like atoms.
        NodeKind::Op { op, .. } => infix(canonical(op)).map_or(ATOM, |(_, s, _)| s),
        _ => ATOM,
    }
}

/// The attribute name of `kd.core.get_attr(x, 'name')` without a default.
fn attribute_name(op: &str, args: &[Option<Expr>]) -> Option<String> {
    if op != "kd.core.get_attr" || args.get(2).is_some_and(Option::is_some) {
        return None;
    }
    match args.get(1)?.as_ref()?.kind() {
        NodeKind::Literal(ExprValue::Data(Value::Slice(name))) if name.is_item() => match name.get(0) {
            Some(ScalarRef::String(s)) if is_identifier(s) => Some(s.to_string()),
            _ => None,
        },
        _ => None,
    }
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_') && chars.all(|c| c.is_alphanumeric() || c == '_')
}

enum Piece {
    /// The expression being printed: expanded even when labelled.
    Top(Expr),
    Node(Expr),
    Text(String),
}

/// The text of `expr`, as Koda prints it. Every named subexpression is a
/// statement `name = ...` before the expression, which refers to it by its
/// name (a named expression itself prints as its statements, then its name).
///
/// A subexpression used more than once is printed once, as a statement
/// `_1 = ...`, and referred to by its label. A shared unnamed node is
/// labelled only when it brings something new: an input, or an operator
/// that is not itself labelled (`_1 * 2` is printed again where used).
pub fn expr_text(expr: &Expr) -> String {
    let nodes = expr.post_order();
    let mut uses: HashMap<u128, usize> = HashMap::new();
    for node in &nodes {
        for child in node.children() {
            *uses.entry(child.fingerprint()).or_default() += 1;
        }
    }
    let mut labels: HashMap<u128, String> = HashMap::new();
    let mut statements = Vec::new();
    for node in &nodes {
        let shared = uses.get(&node.fingerprint()).copied().unwrap_or(0) >= 2 && matches!(node.kind(), NodeKind::Op { .. });
        if !shared && node_name(node).is_none() {
            continue;
        }
        let label = match node_name(node) {
            Some(name) => name,
            None => {
                let brings_something_new = node.children().any(|d| match d.kind() {
                    NodeKind::Literal(_) => false,
                    NodeKind::Op { .. } => !labels.contains_key(&d.fingerprint()) && node_name(d).is_none(),
                    _ => true,
                });
                if !brings_something_new {
                    continue;
                }
                format!("_{}", statements.len() + 1)
            }
        };
        statements.push(format!("{label} = {}", definition_text(node, &labels)));
        labels.insert(node.fingerprint(), label);
    }
    let root = match labels.get(&expr.fingerprint()) {
        Some(label) => label.clone(),
        None => node_text(expr, &labels),
    };
    statements.push(root);
    statements.join("\n")
}

/// The text defining `node`: a named node's expression, else the node.
fn definition_text(node: &Expr, labels: &HashMap<u128, String>) -> String {
    match node_name(node) {
        Some(_) => node_text(node.args()[0].as_ref().expect("with_name has an expression"), labels),
        None => node_text(node, labels),
    }
}

/// The text of `expr` itself (even when it has a label), with labels for
/// the labelled nodes inside it.
fn node_text(expr: &Expr, labels: &HashMap<u128, String>) -> String {
    let strength = |e: &Expr| strength(e, labels);
    let mut out = String::new();
    let mut stack = vec![Piece::Top(expr.clone())];
    // Pieces are pushed in reverse, so they pop in reading order.
    let push_operand = |stack: &mut Vec<Piece>, child: &Expr, parenthesize: bool| {
        if parenthesize {
            stack.push(Piece::Text(")".into()));
            stack.push(Piece::Node(child.clone()));
            stack.push(Piece::Text("(".into()));
        } else {
            stack.push(Piece::Node(child.clone()));
        }
    };
    while let Some(piece) = stack.pop() {
        let node = match piece {
            Piece::Text(text) => {
                out.push_str(&text);
                continue;
            }
            Piece::Top(node) => node,
            Piece::Node(node) => {
                if let Some(label) = labels.get(&node.fingerprint()) {
                    out.push_str(label);
                    continue;
                }
                if let Some(name) = node_name(&node) {
                    out.push_str(&name);
                    continue;
                }
                node
            }
        };
        match node.kind() {
            // `I.self` is Koda's `S`: the item a functor or `kd.eval(expr, x)` is about.
            NodeKind::Input(name) if name.as_ref() == "self" => out.push('S'),
            NodeKind::Input(name) => push_leaf(&mut out, 'I', name),
            NodeKind::Variable(name) => push_leaf(&mut out, 'V', name),
            NodeKind::Placeholder(name) => {
                out.push_str("P.");
                out.push_str(name);
            }
            NodeKind::Literal(value) => out.push_str(&value.repr()),
            NodeKind::Op { op, args, kwarg_names } => {
                let given: Vec<&Expr> = args.iter().flatten().collect();
                let form = infix(canonical(op)).filter(|&(_, _, unary)| given.len() == if unary { 1 } else { 2 } && given.len() == args.len());
                if let Some((symbol, s, unary)) = form {
                    if unary {
                        // Koda parenthesizes a unary operand of a unary operator: `-(-I.a)`.
                        push_operand(&mut stack, given[0], strength(given[0]) <= s);
                        stack.push(Piece::Text(symbol.into()));
                    } else {
                        // Left-associative, except `**`: the weaker side gets
                        // parentheses, and the right side on a tie.
                        let (left, right) = (given[0], given[1]);
                        let (left_paren, right_paren) =
                            if s == POWER { (strength(left) <= s, strength(right) < s) } else { (strength(left) < s, strength(right) <= s) };
                        push_operand(&mut stack, right, right_paren);
                        stack.push(Piece::Text(symbol.into()));
                        push_operand(&mut stack, left, left_paren);
                    }
                } else if let Some(name) = attribute_name(canonical(op), args) {
                    stack.push(Piece::Text(format!(".{name}")));
                    push_operand(&mut stack, args[0].as_ref().expect("get_attr has x"), strength(args[0].as_ref().unwrap()) < ATOM);
                } else if let Some(parts) = call_form(op, args, kwarg_names) {
                    // `V.f(x, y=z)`: a functor call as Koda prints it.
                    stack.push(Piece::Text(")".into()));
                    for (k, (name, arg)) in parts.iter().enumerate().rev() {
                        stack.push(Piece::Node((*arg).clone()));
                        if let Some(name) = name {
                            stack.push(Piece::Text(format!("{name}=")));
                        }
                        if k > 0 {
                            stack.push(Piece::Text(", ".into()));
                        }
                    }
                    stack.push(Piece::Text("(".into()));
                    let f = args[0].as_ref().expect("kd.call has a functor");
                    push_operand(&mut stack, f, strength(f) < ATOM);
                } else if matches!(canonical(op), "kd.subslice" | "kd.slices.subslice") && given.len() > 1 {
                    // `x.S[a, b:c]`: the subslice keys, as Python writes them.
                    stack.push(Piece::Text("]".into()));
                    for (k, key) in given[1..].iter().enumerate().rev() {
                        push_key(&mut stack, key);
                        if k > 0 {
                            stack.push(Piece::Text(", ".into()));
                        }
                    }
                    stack.push(Piece::Text(".S[".into()));
                    push_operand(&mut stack, given[0], strength(given[0]) < ATOM);
                } else if canonical(op) == "kd.core.get_item" && given.len() == 2 {
                    stack.push(Piece::Text("]".into()));
                    push_key(&mut stack, given[1]);
                    stack.push(Piece::Text("[".into()));
                    push_operand(&mut stack, given[0], strength(given[0]) < ATOM);
                } else {
                    // Positional parameters by position, then `*args`, then
                    // keyword-only parameters and `**kwargs` by name.
                    let (fixed_args, var_args, kwargs) = op.split_args(args, kwarg_names.len());
                    let fixed_params = op.params.iter().filter(|p| !is_variadic(p));
                    let mut positional: Vec<(Option<String>, Option<&Expr>)> = Vec::new();
                    let mut named: Vec<(Option<String>, Option<&Expr>)> = Vec::new();
                    for (p, arg) in fixed_params.zip(fixed_args) {
                        if p.kind == ParamKind::KeywordOnly {
                            named.push((Some(p.name.clone()), arg.as_ref()));
                        } else {
                            positional.push((None, arg.as_ref()));
                        }
                    }
                    positional.extend(var_args.iter().map(|a| (None, a.as_ref())));
                    named.extend(kwarg_names.iter().zip(kwargs).map(|(n, a)| (Some(n.to_string()), a.as_ref())));
                    let parts: Vec<_> = positional.into_iter().chain(named).collect();
                    stack.push(Piece::Text(")".into()));
                    for (k, (name, arg)) in parts.iter().enumerate().rev() {
                        match arg {
                            Some(e) => stack.push(Piece::Node((*e).clone())),
                            None => stack.push(Piece::Text("unspecified".into())),
                        }
                        if let Some(name) = name {
                            stack.push(Piece::Text(format!("{name}=")));
                        }
                        if k > 0 {
                            stack.push(Piece::Text(", ".into()));
                        }
                    }
                    out.push_str(&op.name);
                    out.push('(');
                }
            }
        }
    }
    out
}

/// A key of `x.S[...]` or `x[...]`: a literal slice as Python writes it
/// (`DataItem(1, schema: INT32):`), anything else as it prints.
fn push_key(stack: &mut Vec<Piece>, key: &Expr) {
    match key.literal_value() {
        Some(ExprValue::Data(v @ Value::Range { .. })) => stack.push(Piece::Text(v.key_text())),
        _ => stack.push(Piece::Node(key.clone())),
    }
}

/// `I.x`, or `I['x y']` for a name that is no ASCII identifier (as Koda
/// prints inputs and variables).
fn push_leaf(out: &mut String, container: char, name: &str) {
    out.push(container);
    let mut chars = name.chars();
    let identifier = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_') && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if identifier {
        out.push('.');
        out.push_str(name);
    } else {
        out.push_str("['");
        for c in name.chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                '\'' => out.push_str("\\'"),
                c => out.push(c),
            }
        }
        out.push_str("']");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tracing::int32;

    fn op(name: &str, args: Vec<Expr>) -> Expr {
        Expr::op(name, args.into_iter().map(Some).collect()).unwrap()
    }

    #[test]
    fn infix_with_the_parentheses_needed() {
        let (a, b, c) = (Expr::input("a"), Expr::input("b"), Expr::input("c"));
        assert_eq!(expr_text(&op("kd.math.multiply", vec![op("kd.math.add", vec![a.clone(), b.clone()]), c.clone()])), "(I.a + I.b) * I.c");
        assert_eq!(expr_text(&op("kd.math.subtract", vec![a.clone(), op("kd.math.subtract", vec![b.clone(), c.clone()])])), "I.a - (I.b - I.c)");
        assert_eq!(expr_text(&op("kd.math.neg", vec![a.clone()])), "-I.a");
        assert_eq!(expr_text(&op("kd.math.neg", vec![op("kd.math.neg", vec![a.clone()])])), "-(-I.a)");
        let shared = op("kd.math.add", vec![a.clone(), b.clone()]);
        assert_eq!(expr_text(&op("kd.math.multiply", vec![shared.clone(), shared])), "_1 = I.a + I.b\n_1 * _1");
        assert_eq!(expr_text(&op("kd.math.add", vec![a.clone(), int32(1)])), "I.a + DataItem(1, schema: INT32)");
        let agg = Expr::op("kd.math.agg_sum", vec![Some(a.clone())]).unwrap();
        assert_eq!(expr_text(&agg), "kd.math.agg_sum(I.a, unspecified)");
    }

    #[test]
    fn deep_expressions_print_without_recursion() {
        let mut e = Expr::input("x");
        for _ in 0..50_000 {
            e = op("kd.math.neg", vec![e]);
        }
        // `-(-(...-I.x))`: three characters per operator but the innermost.
        assert_eq!(expr_text(&e).len(), 49_999 * 3 + 1 + 3);
    }
}
