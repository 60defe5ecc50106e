//! Evaluation: an expression is prepared (names dropped, lambdas inlined,
//! literals folded) and compiled once into a plan — its distinct nodes in an
//! order where each comes after its arguments, over numbered slots — kept in
//! a cache by fingerprint, then run bottom up with the inputs given. Each
//! shared subexpression is computed once per evaluation.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use plait_core::error::Context;
use plait_core::{Error, ErrorKind, Result};

use crate::expr::{Expr, NodeKind};
use plait_ops::math::items::{self, ItemOp, Number};
use plait_ops::registry::Value;

use crate::operator::{OpRef, OperatorKind};
use crate::prepare::prepare;
use crate::value::ExprValue;

/// One step of a plan.
enum Step {
    Input(Arc<str>),
    Variable(Arc<str>),
    Literal(ExprValue),
    /// Operator `op` on the slots of its arguments (`None`: unspecified);
    /// a slot read for the last time is moved out rather than cloned.
    Op {
        op: OpRef,
        args: Vec<Option<Read>>,
        kwarg_names: Vec<Arc<str>>,
        on_numbers: Option<ItemOp>,
    },
}

/// The operator of a node that can compute on numbers when its arguments
/// are numeric items (see `plait_ops::math::items`).
fn numbers_op(op: &OpRef, args: &[Option<Expr>]) -> Option<ItemOp> {
    let OperatorKind::Backend(backend) = op.kind else { return None };
    let item_op = ItemOp::of(backend.name)?;
    (args.len() == item_op.arity() && args.iter().all(Option::is_some)).then_some(item_op)
}

/// A slot's value during a run: a number stays a number until an operator
/// that is not arithmetic (or the result) needs it as a DataItem.
enum Slot {
    Value(ExprValue),
    Number(Number),
}

impl Slot {
    fn number(&self) -> Option<Number> {
        match self {
            Slot::Number(n) => Some(*n),
            Slot::Value(ExprValue::Data(Value::Slice(x))) => Number::of(x),
            Slot::Value(_) => None,
        }
    }

    fn into_value(self) -> ExprValue {
        match self {
            Slot::Value(v) => v,
            Slot::Number(n) => ExprValue::slice(n.to_item()),
        }
    }

    fn to_value(&self) -> ExprValue {
        match self {
            Slot::Value(v) => v.clone(),
            Slot::Number(n) => ExprValue::slice(n.to_item()),
        }
    }
}

/// A read of a slot by an operator step.
#[derive(Clone, Copy)]
struct Read {
    slot: usize,
    /// The last read of the slot: its value is moved, not cloned.
    last: bool,
}

/// A compiled expression: step `i` writes slot `i`; the last is the result.
pub struct Plan {
    steps: Vec<Step>,
    /// The node of each step, to name it in errors.
    nodes: Vec<Expr>,

    input_names: Vec<String>,
    variable_names: Vec<String>,
}

impl std::fmt::Debug for Plan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Plan({} steps)", self.steps.len())
    }
}

/// An evaluation error and the node whose operator raised it.
#[derive(Debug)]
pub struct EvalError {
    pub error: Error,
    pub node: Option<Expr>,
}

impl EvalError {
    /// The context entry naming the failing node (and where tracing created it).
    pub fn node_context(node: &Expr) -> Context {
        Context::Node { expr: crate::text::expr_text(node), created_at: crate::expr::source_location(node) }
    }
}

impl From<Error> for EvalError {
    fn from(error: Error) -> EvalError {
        EvalError { error, node: None }
    }
}

/// Values by name: what inputs (`I.x`) and variables (`V.x`) read.
pub trait Values {
    fn value(&self, name: &str) -> Option<&ExprValue>;
}

impl Values for HashMap<String, ExprValue> {
    fn value(&self, name: &str) -> Option<&ExprValue> {
        self.get(name)
    }
}

/// A few values by name, looked up in order: a functor's arguments (a
/// handful, where hashing each name at every call would cost more).
impl Values for Vec<(&str, ExprValue)> {
    fn value(&self, name: &str) -> Option<&ExprValue> {
        self.iter().find(|(n, _)| *n == name).map(|(_, v)| v)
    }
}

/// What leaves get their values from at evaluation.
#[derive(Default)]
pub struct Bindings<'a> {
    pub inputs: Option<&'a dyn Values>,
    pub variables: Option<&'a HashMap<String, ExprValue>>,
}

impl Plan {
    fn compile(expr: &Expr) -> Result<Plan> {
        let prepared = prepare(expr)?;
        let nodes = prepared.post_order();
        if let Some(p) = nodes.iter().find_map(|n| if let NodeKind::Placeholder(p) = n.kind() { Some(p) } else { None }) {
            return Err(Error::value("kd.eval", format!("P.{p} is a placeholder of a lambda operator body and has no value here")));
        }
        let slot_of: HashMap<u128, usize> = nodes.iter().enumerate().map(|(i, n)| (n.fingerprint(), i)).collect();
        let mut steps = nodes
            .iter()
            .map(|node| match node.kind() {
                NodeKind::Input(name) => Step::Input(name.clone()),
                NodeKind::Variable(name) => Step::Variable(name.clone()),
                NodeKind::Literal(value) => Step::Literal(value.clone()),
                NodeKind::Placeholder(_) => unreachable!("refused above"),
                NodeKind::Op { op, args, kwarg_names } => Step::Op {
                    on_numbers: numbers_op(op, args),
                    op: op.clone(),
                    args: args.iter().map(|a| a.as_ref().map(|e| Read { slot: slot_of[&e.fingerprint()], last: false })).collect(),
                    kwarg_names: kwarg_names.clone(),
                },
            })
            .collect::<Vec<Step>>();
        // Each slot's last read moves its value out, so a long chain over
        // large slices keeps two or three buffers alive (and reuses freed
        // ones) instead of one per step, and items are not cloned.
        // Walking backwards, the first read of a slot is its last; the
        // root's value is the result and is never moved out.
        let mut read_later = vec![false; steps.len()];
        read_later[steps.len() - 1] = true;
        for step in steps.iter_mut().rev() {
            if let Step::Op { args, .. } = step {
                for read in args.iter_mut().rev().flatten() {
                    read.last = !std::mem::replace(&mut read_later[read.slot], true);
                }
            }
        }
        Ok(Plan { steps, input_names: prepared.input_names(), variable_names: prepared.variable_names(), nodes })
    }

    /// Runs the plan with `inputs` (by name).
    pub fn run(&self, bindings: &Bindings<'_>) -> std::result::Result<ExprValue, EvalError> {
        let empty: HashMap<String, ExprValue> = HashMap::new();
        let inputs = bindings.inputs.unwrap_or(&empty);
        let variables = bindings.variables.unwrap_or(&empty);
        let missing: Vec<String> = self
            .input_names
            .iter()
            .filter(|n| inputs.value(n).is_none())
            .map(|n| format!("I.{n}"))
            .chain(self.variable_names.iter().filter(|n| !variables.contains_key(*n)).map(|n| format!("V.{n}")))
            .collect();
        if !missing.is_empty() {
            return Err(Error::new(ErrorKind::Value, format!("kd.eval() has missing inputs for: [{}]", missing.join(", "))).into());
        }
        let mut slots: Vec<Slot> = Vec::with_capacity(self.steps.len());
        for (i, step) in self.steps.iter().enumerate() {
            let value = match step {
                Step::Input(name) => Slot::Value(inputs.value(name).expect("inputs checked above").clone()),
                Step::Variable(name) => Slot::Value(variables[name.as_ref()].clone()),
                Step::Literal(value) => Slot::Value(value.clone()),
                Step::Op { op, args, kwarg_names, on_numbers } => {
                    if let Some(number) = on_numbers.and_then(|item_op| numbers(item_op, args, &slots)) {
                        for read in args.iter().flatten().filter(|r| r.last) {
                            slots[read.slot] = Slot::Value(ExprValue::Unspecified);
                        }
                        slots.push(Slot::Number(number));
                        continue;
                    }
                    let values = args
                        .iter()
                        .map(|a| {
                            a.map(|read| {
                                if read.last {
                                    std::mem::replace(&mut slots[read.slot], Slot::Value(ExprValue::Unspecified)).into_value()
                                } else {
                                    slots[read.slot].to_value()
                                }
                            })
                        })
                        .collect();
                    Slot::Value(op.call_slots(values, kwarg_names).map_err(|error| EvalError { error, node: Some(self.nodes[i].clone()) })?)
                }
            };
            slots.push(value);
        }
        Ok(slots.pop().expect("a plan has at least one step").into_value())
    }
}

/// `item_op` on the numbers in the slots of `args`, if they all hold numbers.
fn numbers(item_op: ItemOp, args: &[Option<Read>], slots: &[Slot]) -> Option<Number> {
    let mut numbers = [Number::Int32(0); 2];
    for (k, read) in args.iter().enumerate() {
        numbers[k] = slots[read.as_ref()?.slot].number()?;
    }
    Some(items::apply(item_op, &numbers[..args.len()]))
}

/// Plans by expression fingerprint (bounded: cleared when full).
fn plans() -> &'static Mutex<HashMap<u128, Arc<Plan>>> {
    static PLANS: OnceLock<Mutex<HashMap<u128, Arc<Plan>>>> = OnceLock::new();
    PLANS.get_or_init(Default::default)
}

const MAX_CACHED_PLANS: usize = 4096;

/// Forgets every cached plan (`kd.clear_eval_cache`).
pub fn clear_plans() {
    plans().lock().unwrap_or_else(|e| e.into_inner()).clear();
}

/// The plan of `expr`, compiled on first use.
pub fn plan(expr: &Expr) -> Result<Arc<Plan>> {
    if let Some(plan) = plans().lock().unwrap_or_else(|e| e.into_inner()).get(&expr.fingerprint()) {
        return Ok(plan.clone());
    }
    // Compiled outside the lock: preparation may call host functions.
    let plan = Arc::new(Plan::compile(expr)?);
    let mut cache = plans().lock().unwrap_or_else(|e| e.into_inner());
    if cache.len() >= MAX_CACHED_PLANS {
        cache.clear();
    }
    cache.insert(expr.fingerprint(), plan.clone());
    Ok(plan)
}

/// Evaluates `expr` with `bindings`; errors say which node failed.
pub fn evaluate(expr: &Expr, bindings: &Bindings<'_>) -> std::result::Result<ExprValue, EvalError> {
    plan(expr)?.run(bindings).map_err(|failure| own_node(expr, failure))
}

/// The failure with its node taken from `expr` itself: a cached plan may
/// come from an equal expression built elsewhere, whose nodes carry other
/// tags (another source location).
pub(crate) fn own_node(expr: &Expr, failure: EvalError) -> EvalError {
    let Some(node) = &failure.node else { return failure };
    let own = prepare(expr).ok().and_then(|p| p.post_order().into_iter().find(|n| n.fingerprint() == node.fingerprint()));
    EvalError { node: own.or(failure.node), error: failure.error }
}

/// `kd.eval(expr, **inputs)`.
pub fn eval(expr: &Expr, inputs: &HashMap<String, ExprValue>) -> Result<ExprValue> {
    evaluate(expr, &Bindings { inputs: Some(inputs), variables: None }).map_err(|e| e.error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tracing::{as_i32, int32_value};

    #[test]
    fn the_seed_example_evaluates_to_20() {
        let sum = Expr::op("kd.math.add", vec![Some(Expr::input("a")), Some(Expr::input("b"))]).unwrap();
        let product = Expr::op("kd.math.multiply", vec![Some(sum), Some(Expr::input("c"))]).unwrap();
        let inputs: HashMap<String, ExprValue> = [("a", 2), ("b", 3), ("c", 4)].into_iter().map(|(k, v)| (k.to_string(), int32_value(v))).collect();
        assert_eq!(as_i32(&eval(&product, &inputs).unwrap()), Some(20));
        // A second evaluation reuses the plan.
        assert!(Arc::ptr_eq(&plan(&product).unwrap(), &plan(&product).unwrap()));
    }

    #[test]
    fn missing_inputs_are_named() {
        let sum = Expr::op("kd.math.add", vec![Some(Expr::input("a")), Some(Expr::input("b"))]).unwrap();
        let inputs: HashMap<String, ExprValue> = [("a".to_string(), int32_value(1))].into_iter().collect();
        let err = eval(&sum, &inputs).unwrap_err();
        assert!(err.message.contains("kd.eval() has missing inputs for: [I.b]"), "{}", err.message);
    }

    #[test]
    fn long_chains_evaluate() {
        let mut e = Expr::input("x");
        for _ in 0..10_000 {
            e = Expr::op("kd.math.neg", vec![Some(e)]).unwrap();
        }
        let inputs: HashMap<String, ExprValue> = [("x".to_string(), int32_value(7))].into_iter().collect();
        assert_eq!(as_i32(&eval(&e, &inputs).unwrap()), Some(7));
    }
}
