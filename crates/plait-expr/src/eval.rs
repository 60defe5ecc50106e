//! Evaluation: an expression is compiled once into a plan — its distinct
//! nodes in an order where each comes after its arguments, over numbered
//! slots — kept in a cache by fingerprint, then run bottom up with the
//! inputs given. Each shared subexpression is computed once per evaluation.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use plait_core::{Error, ErrorKind, Result};
use plait_ops::registry::{registry, Value};

use crate::expr::{Expr, NodeKind};

/// One step of a plan.
enum Step {
    Input(Arc<str>),
    Variable(Arc<str>),
    Literal(Value),
    /// Operator `op` on the slots of its arguments (`None`: unspecified).
    Op { op: &'static str, args: Vec<Option<usize>> },
}

/// A compiled expression: step `i` writes slot `i`; the last is the result.
pub struct Plan {
    steps: Vec<Step>,
    input_names: Vec<String>,
}

impl Plan {
    fn compile(expr: &Expr) -> Plan {
        let nodes = expr.post_order();
        let slot_of: HashMap<u128, usize> = nodes.iter().enumerate().map(|(i, n)| (n.fingerprint(), i)).collect();
        let steps = nodes
            .iter()
            .map(|node| match node.kind() {
                NodeKind::Input(name) => Step::Input(name.clone()),
                NodeKind::Variable(name) => Step::Variable(name.clone()),
                NodeKind::Literal(value) => Step::Literal(value.clone()),
                NodeKind::Op { op, args } => {
                    Step::Op { op, args: args.iter().map(|a| a.as_ref().map(|e| slot_of[&e.fingerprint()])).collect() }
                }
            })
            .collect();
        Plan { steps, input_names: expr.input_names() }
    }

    /// Runs the plan with `inputs` (by name).
    pub fn run(&self, inputs: &HashMap<String, Value>) -> Result<Value> {
        let missing: Vec<String> = self.input_names.iter().filter(|n| !inputs.contains_key(*n)).map(|n| format!("I.{n}")).collect();
        if !missing.is_empty() {
            return Err(Error { kind: ErrorKind::Value, message: format!("kd.eval() has missing inputs for: [{}]", missing.join(", ")) });
        }
        let mut slots: Vec<Option<Value>> = Vec::with_capacity(self.steps.len());
        for step in &self.steps {
            let value = match step {
                Step::Input(name) => inputs[name.as_ref()].clone(),
                Step::Variable(name) => {
                    return Err(Error::value("kd.eval", format!("variable V.{name} has no value: variables are bound by functors")));
                }
                Step::Literal(value) => value.clone(),
                Step::Op { op, args } => call(op, args, &slots)?,
            };
            slots.push(Some(value));
        }
        Ok(slots.pop().flatten().expect("a plan has at least one step"))
    }
}

/// Calls registry operator `op` with the values in `slots` of its arguments.
fn call(op: &str, args: &[Option<usize>], slots: &[Option<Value>]) -> Result<Value> {
    let operator = registry().get(op).expect("plans name registered operators");
    // Positional while arguments are given in order; by keyword after a gap.
    let mut positional = Vec::new();
    let mut keywords = Vec::new();
    let mut gap = false;
    for (param, arg) in operator.params.iter().zip(args) {
        match arg {
            None => gap = true,
            Some(slot) => {
                let value = slots[*slot].clone().expect("arguments come before their users");
                if gap {
                    keywords.push((param.name.clone(), value));
                } else {
                    positional.push(value);
                }
            }
        }
    }
    operator.call(positional, keywords).map(Value::Slice)
}

/// Plans by expression fingerprint (bounded: cleared when full).
fn plans() -> &'static Mutex<HashMap<u128, Arc<Plan>>> {
    static PLANS: OnceLock<Mutex<HashMap<u128, Arc<Plan>>>> = OnceLock::new();
    PLANS.get_or_init(Default::default)
}

const MAX_CACHED_PLANS: usize = 4096;

/// The plan of `expr`, compiled on first use.
pub fn plan(expr: &Expr) -> Arc<Plan> {
    let mut cache = plans().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(plan) = cache.get(&expr.fingerprint()) {
        return plan.clone();
    }
    if cache.len() >= MAX_CACHED_PLANS {
        cache.clear();
    }
    let plan = Arc::new(Plan::compile(expr));
    cache.insert(expr.fingerprint(), plan.clone());
    plan
}

/// `kd.eval(expr, **inputs)`.
pub fn eval(expr: &Expr, inputs: &HashMap<String, Value>) -> Result<Value> {
    plan(expr).run(inputs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use plait_core::{DataSlice, ScalarRef, Schema};

    fn int(v: i32) -> Value {
        Value::Slice(DataSlice::item(Some(ScalarRef::Int32(v)), Schema::Int32).unwrap())
    }

    fn as_int(v: &Value) -> Option<i32> {
        match v {
            Value::Slice(s) => match s.get(0) {
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
        let inputs: HashMap<String, Value> = [("a", 2), ("b", 3), ("c", 4)].into_iter().map(|(k, v)| (k.to_string(), int(v))).collect();
        assert_eq!(as_int(&eval(&product, &inputs).unwrap()), Some(20));
        // A second evaluation reuses the plan.
        assert!(Arc::ptr_eq(&plan(&product), &plan(&product)));
    }

    #[test]
    fn missing_inputs_are_named() {
        let sum = Expr::op("kd.math.add", vec![Some(Expr::input("a")), Some(Expr::input("b"))]).unwrap();
        let inputs: HashMap<String, Value> = [("a".to_string(), int(1))].into_iter().collect();
        let err = eval(&sum, &inputs).unwrap_err();
        assert!(err.message.contains("kd.eval() has missing inputs for: [I.b]"), "{}", err.message);
    }

    #[test]
    fn long_chains_evaluate() {
        let mut e = Expr::input("x");
        for _ in 0..10_000 {
            e = Expr::op("kd.math.neg", vec![Some(e)]).unwrap();
        }
        let inputs: HashMap<String, Value> = [("x".to_string(), int(7))].into_iter().collect();
        assert_eq!(as_int(&eval(&e, &inputs).unwrap()), Some(7));
    }
}
