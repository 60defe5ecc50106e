//! Evaluation: an expression is prepared (names dropped, lambdas inlined,
//! literals folded) and compiled once into a plan — its distinct nodes in an
//! order where each comes after its arguments, over numbered slots — kept in
//! a cache by fingerprint, then run bottom up with the inputs given. Each
//! shared subexpression is computed once per evaluation.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use plait_core::{Error, ErrorKind, Result};

use crate::expr::{Expr, NodeKind};
use crate::operator::OpRef;
use crate::prepare::{call_args, prepare};
use crate::value::ExprValue;

/// One step of a plan.
enum Step {
    Input(Arc<str>),
    Variable(Arc<str>),
    Literal(ExprValue),
    /// Operator `op` on the slots of its arguments (`None`: unspecified).
    Op { op: OpRef, args: Vec<Option<usize>>, kwarg_names: Vec<Arc<str>> },
}

/// A compiled expression: step `i` writes slot `i`; the last is the result.
pub struct Plan {
    steps: Vec<Step>,
    /// The node of each step, to name it in errors.
    nodes: Vec<Expr>,
    input_names: Vec<String>,
    variable_names: Vec<String>,
}

/// An evaluation error and the node whose operator raised it.
#[derive(Debug)]
pub struct EvalError {
    pub error: Error,
    pub node: Option<Expr>,
}

impl From<Error> for EvalError {
    fn from(error: Error) -> EvalError {
        EvalError { error, node: None }
    }
}

/// What leaves get their values from at evaluation.
#[derive(Default)]
pub struct Bindings<'a> {
    pub inputs: Option<&'a HashMap<String, ExprValue>>,
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
        let steps = nodes
            .iter()
            .map(|node| match node.kind() {
                NodeKind::Input(name) => Step::Input(name.clone()),
                NodeKind::Variable(name) => Step::Variable(name.clone()),
                NodeKind::Literal(value) => Step::Literal(value.clone()),
                NodeKind::Placeholder(_) => unreachable!("refused above"),
                NodeKind::Op { op, args, kwarg_names } => Step::Op {
                    op: op.clone(),
                    args: args.iter().map(|a| a.as_ref().map(|e| slot_of[&e.fingerprint()])).collect(),
                    kwarg_names: kwarg_names.clone(),
                },
            })
            .collect();
        Ok(Plan { steps, input_names: prepared.input_names(), variable_names: prepared.variable_names(), nodes })
    }

    /// Runs the plan with `inputs` (by name).
    pub fn run(&self, bindings: &Bindings<'_>) -> std::result::Result<ExprValue, EvalError> {
        let empty = HashMap::new();
        let inputs = bindings.inputs.unwrap_or(&empty);
        let variables = bindings.variables.unwrap_or(&empty);
        let missing: Vec<String> = self
            .input_names
            .iter()
            .filter(|n| !inputs.contains_key(*n))
            .map(|n| format!("I.{n}"))
            .chain(self.variable_names.iter().filter(|n| !variables.contains_key(*n)).map(|n| format!("V.{n}")))
            .collect();
        if !missing.is_empty() {
            return Err(Error { kind: ErrorKind::Value, message: format!("kd.eval() has missing inputs for: [{}]", missing.join(", ")) }.into());
        }
        let mut slots: Vec<ExprValue> = Vec::with_capacity(self.steps.len());
        for (i, step) in self.steps.iter().enumerate() {
            let value = match step {
                Step::Input(name) => inputs[name.as_ref()].clone(),
                Step::Variable(name) => variables[name.as_ref()].clone(),
                Step::Literal(value) => value.clone(),
                Step::Op { op, args, kwarg_names } => {
                    let values = args.iter().map(|a| a.map(|slot| slots[slot].clone())).collect();
                    op.call(call_args(op, values, kwarg_names)).map_err(|error| EvalError { error, node: Some(self.nodes[i].clone()) })?
                }
            };
            slots.push(value);
        }
        Ok(slots.pop().expect("a plan has at least one step"))
    }

    /// The number of steps (distinct nodes after preparation).
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }
}

/// Plans by expression fingerprint (bounded: cleared when full).
fn plans() -> &'static Mutex<HashMap<u128, Arc<Plan>>> {
    static PLANS: OnceLock<Mutex<HashMap<u128, Arc<Plan>>>> = OnceLock::new();
    PLANS.get_or_init(Default::default)
}

const MAX_CACHED_PLANS: usize = 4096;

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
    plan(expr)?.run(bindings)
}

/// `kd.eval(expr, **inputs)`.
pub fn eval(expr: &Expr, inputs: &HashMap<String, ExprValue>) -> Result<ExprValue> {
    evaluate(expr, &Bindings { inputs: Some(inputs), variables: None }).map_err(|e| e.error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use plait_core::{DataSlice, ScalarRef, Schema};
    use plait_ops::registry::Value;

    fn int(v: i32) -> ExprValue {
        ExprValue::slice(DataSlice::item(Some(ScalarRef::Int32(v)), Schema::Int32).unwrap())
    }

    fn as_int(v: &ExprValue) -> Option<i32> {
        match v {
            ExprValue::Data(Value::Slice(s)) => match s.get(0) {
                Some(ScalarRef::Int32(v)) => Some(v),
                _ => None,
            },
            _ => None,
        }
    }

    #[test]
    fn the_seed_example_evaluates_to_20() {
        let sum = Expr::op("kd.math.add", vec![Some(Expr::input("a")), Some(Expr::input("b"))]).unwrap();
        let product = Expr::op("kd.math.multiply", vec![Some(sum), Some(Expr::input("c"))]).unwrap();
        let inputs: HashMap<String, ExprValue> = [("a", 2), ("b", 3), ("c", 4)].into_iter().map(|(k, v)| (k.to_string(), int(v))).collect();
        assert_eq!(as_int(&eval(&product, &inputs).unwrap()), Some(20));
        // A second evaluation reuses the plan.
        assert!(Arc::ptr_eq(&plan(&product).unwrap(), &plan(&product).unwrap()));
    }

    #[test]
    fn missing_inputs_are_named() {
        let sum = Expr::op("kd.math.add", vec![Some(Expr::input("a")), Some(Expr::input("b"))]).unwrap();
        let inputs: HashMap<String, ExprValue> = [("a".to_string(), int(1))].into_iter().collect();
        let err = eval(&sum, &inputs).unwrap_err();
        assert!(err.message.contains("kd.eval() has missing inputs for: [I.b]"), "{}", err.message);
    }

    #[test]
    fn long_chains_evaluate() {
        let mut e = Expr::input("x");
        for _ in 0..10_000 {
            e = Expr::op("kd.math.neg", vec![Some(e)]).unwrap();
        }
        let inputs: HashMap<String, ExprValue> = [("x".to_string(), int(7))].into_iter().collect();
        assert_eq!(as_int(&eval(&e, &inputs).unwrap()), Some(7));
    }
}
