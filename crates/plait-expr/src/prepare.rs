//! Preparation before evaluation (seed 000, "Expression Evaluation"):
//! names are dropped, lambda operators are lowered (their body inlined with
//! the arguments in place of the placeholders), and literal folding replaces
//! every deterministic operator whose arguments are all literals by a literal
//! of its result. One bottom-up pass does all three, so preparation ends
//! when it returns: an inlined body is itself prepared before it is used.

use std::collections::HashMap;
use std::sync::Arc;

use plait_core::Result;
use plait_ops::registry::ParamKind;

use crate::expr::{Expr, NodeKind};
use crate::operator::{Builtin, Operator, OperatorKind, lookup_or_error};
use crate::transform::{substitute_placeholders, transform};
use crate::value::ExprValue;

/// `expr` ready for evaluation: no names, no lambdas, literals folded.
pub fn prepare(expr: &Expr) -> Result<Expr> {
    transform(expr, &mut |_: &Expr, node: Expr| prepare_node(node))
}

fn prepare_node(node: Expr) -> Result<Expr> {
    let NodeKind::Op { op, args, kwarg_names } = node.kind() else { return Ok(node) };
    match &op.kind {
        OperatorKind::Builtin(b) if b.role == Builtin::WithName => return Ok(args[0].clone().expect("with_name has an expression")),
        OperatorKind::Lambda(body) => return prepare(&lower(op, body, args, kwarg_names)?),
        _ => {}
    }
    if op.deterministic() && node.children().all(|c| matches!(c.kind(), NodeKind::Literal(_))) {
        let values: Vec<Option<ExprValue>> = args.iter().map(|a| a.as_ref().and_then(|e| e.literal_value().cloned())).collect();
        // A folding error is left for evaluation to raise, where it names the node.
        if let Ok(value) = op.call_slots(values, kwarg_names) {
            return Ok(Expr::literal(value));
        }
    }
    Ok(node)
}

/// The body of lambda `op` with its placeholders bound to `args`.
fn lower(op: &Operator, body: &Expr, args: &[Option<Expr>], kwarg_names: &[Arc<str>]) -> Result<Expr> {
    let (fixed_args, var_args, kwargs) = op.split_args(args, kwarg_names.len());
    let mut subs: HashMap<String, Expr> = HashMap::new();
    let mut fixed_args = fixed_args.iter();
    for p in &op.params {
        let value = match p.kind {
            // `*args` and `**kwargs` arrive as a tuple and a named tuple.
            ParamKind::VarPositional => {
                let items = var_args.iter().flatten().cloned().collect();
                Expr::call(&lookup_or_error("kd.tuples.tuple")?, items, vec![])?
            }
            ParamKind::VarKeyword => {
                let named = kwarg_names.iter().zip(kwargs).filter_map(|(n, a)| Some((n.to_string(), a.clone()?))).collect();
                Expr::call(&lookup_or_error("kd.tuples.namedtuple")?, vec![], named)?
            }
            _ => match fixed_args.next().expect("one argument per fixed parameter") {
                Some(arg) => arg.clone(),
                None => Expr::literal(ExprValue::Unspecified),
            },
        };
        subs.insert(p.name.clone(), value);
    }
    let inlined = substitute_placeholders(body, &subs);
    // An unspecified parameter passed on to an operator leaves that
    // operator's argument unspecified.
    transform(&inlined, &mut |_: &Expr, node: Expr| {
        if node.args().iter().flatten().any(|a| matches!(a.literal_value(), Some(ExprValue::Unspecified))) {
            let args = node.args().iter().map(|a| a.clone().filter(|e| !matches!(e.literal_value(), Some(ExprValue::Unspecified)))).collect();
            return Ok(node.with_args(args));
        }
        Ok(node)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tracing::int32;
    use plait_ops::registry::parse_signature;

    fn add(a: Expr, b: Expr) -> Expr {
        Expr::op("kd.math.add", vec![Some(a), Some(b)]).unwrap()
    }

    #[test]
    fn literal_subtrees_fold_to_one_literal() {
        // I.x + ((1 + 2) * 3): five operator and literal nodes fold into one.
        let folded_part = Expr::op("kd.math.multiply", vec![Some(add(int32(1), int32(2))), Some(int32(3))]).unwrap();
        let e = add(Expr::input("x"), folded_part);
        assert_eq!(e.post_order().len(), 7);
        let prepared = prepare(&e).unwrap();
        assert_eq!(prepared.post_order().len(), 3);
        assert_eq!(crate::text::expr_text(&prepared), "I.x + DataItem(9, schema: INT32)");
    }

    #[test]
    fn lambdas_are_inlined() {
        // my_op(x, y) = x + y * 2
        let body = add(Expr::placeholder("x"), Expr::op("kd.math.multiply", vec![Some(Expr::placeholder("y")), Some(int32(2))]).unwrap());
        let op = Operator::lambda("my_op", parse_signature("x, y").unwrap(), "", body).unwrap();
        let e = Expr::call(&op, vec![Expr::input("a"), Expr::input("b")], vec![]).unwrap();
        assert_eq!(crate::text::expr_text(&e), "my_op(I.a, I.b)");
        let prepared = prepare(&e).unwrap();
        assert_eq!(crate::text::expr_text(&prepared), "I.a + I.b * DataItem(2, schema: INT32)");
    }
}
