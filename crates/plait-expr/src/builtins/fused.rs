//! `kd.core._fused(body, *inputs)`: a group of elementwise operators
//! computed in one pass (`kd.compile` puts these nodes in its plans, see
//! `crate::fusion`). `body` is the group as an expression over `I._0`,
//! `I._1`, ... (the inputs, in order); it runs as a fused program of
//! `plait_ops::fused` built for the inputs' types, and where the program
//! declines (types or values it does not compute as the operators would,
//! shapes that do not broadcast, inputs with bags) the body is evaluated
//! operator by operator, which gives the eager result or error.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use plait_core::broadcast::{common_shape, expand_to_shape};
use plait_core::{DataSlice, Result, Schema};
use plait_ops::fused::{Arg, FusedOp, Node, Program, machine};
use plait_ops::registry::{BagRule, Value};

use super::{required, slice_arg};
use crate::eval::{Bindings, evaluate};
use crate::expr::{Expr, NodeKind};
use crate::operator::{Builtin, BuiltinDef, CallArgs, OperatorKind};
use crate::packed;
use crate::value::ExprValue;

pub const FUSED: &str = "kd.core._fused";

pub const DEFS: &[BuiltinDef] = &[BuiltinDef {
    name: FUSED,
    aliases: &[],
    signature: "body, /, *inputs",
    doc: FUSED_DOC,
    call: fused,
    deterministic: true,
    role: Builtin::Other,
}];

const FUSED_DOC: &str = "Computes `body`, a chain of elementwise operators, in one pass over the items.

`kd.compile` puts these nodes in the plans it makes (`compiled.lower(...)`
shows them); the result is what `body` gives evaluated with `I._0`, `I._1`,
... bound to `inputs`, item for item, computed a chunk at a time with no
intermediate slice.

Args:
  body: the operators, as an EXPR item over the inputs `I._0`, `I._1`, ...
  *inputs: the values of the inputs.

Examples:
  >>> kd.core._fused(kd.expr.pack_expr((I._0 + 1) * I._1), kd.slice([1, 2]), 3)
  DataSlice([6, 9], schema: INT32, present: 2/2)";

/// The name of input `k` of a body.
pub fn input_name(k: usize) -> String {
    format!("_{k}")
}

fn fused(_: &str, mut args: CallArgs) -> Result<ExprValue> {
    let body = packed::unpack(&slice_arg(FUSED, "body", required(FUSED, &mut args, 0)?)?)?;
    let inputs = std::mem::take(&mut args.var_args);
    let slices: Option<Vec<&DataSlice>> = inputs
        .iter()
        .map(|v| match v {
            ExprValue::Data(Value::Slice(x)) => Some(x),
            _ => None,
        })
        .collect();
    if let Some(slices) = slices {
        if let Some(result) = run(&body, &slices)? {
            return Ok(ExprValue::slice(result));
        }
    }
    // Operator by operator: the eager result, or the eager error.
    let names: Vec<String> = (0..inputs.len()).map(input_name).collect();
    let named: Vec<(&str, ExprValue)> = names.iter().map(String::as_str).zip(inputs).collect();
    evaluate(&body, &Bindings { inputs: Some(&named), variables: None }).map_err(|failure| failure.error)
}

/// `body` on `inputs` as one fused program, or `None` where it declines.
fn run(body: &Expr, inputs: &[&DataSlice]) -> Result<Option<DataSlice>> {
    let schemas: Vec<Schema> = inputs.iter().map(|x| x.schema()).collect();
    let Some(program) = program(body, &schemas) else { return Ok(None) };
    // Computed numbers carry no bag; where an operator passes its input's
    // items (and bag) through, inputs with bags are left to it.
    if program.passes_bags && inputs.iter().any(|x| x.bag().is_some()) {
        return Ok(None);
    }
    let shapes: Vec<_> = inputs.iter().map(|x| x.shape()).collect();
    let Ok(shape) = common_shape(FUSED, &shapes) else { return Ok(None) };
    if let Some(k) = program.output_input() {
        // `+x`, rounding integers: the input's values, without a bag (as
        // the operators give them, and Koda).
        return Ok(Some((*inputs[k]).clone().with_bag(None)));
    }
    let mut expanded = Vec::new();
    for x in inputs {
        if x.is_item() || x.shape() == &shape {
            expanded.push((*x).clone());
        } else {
            match expand_to_shape(FUSED, x, &shape, 0) {
                Ok(e) => expanded.push(e),
                Err(_) => return Ok(None),
            }
        }
    }
    let refs: Vec<&DataSlice> = expanded.iter().collect();
    machine::run(&program.program, &refs, &shape)
}

/// A body's program for some input schemas.
struct Built {
    program: Program,
    /// Whether an operator of the body gives its result its inputs' bags
    /// (`&`, `|`).
    passes_bags: bool,
}

impl std::ops::Deref for Built {
    type Target = Program;
    fn deref(&self) -> &Program {
        &self.program
    }
}

/// Programs by body fingerprint and input schemas (`None`: the body has
/// no program for these schemas).
type Programs = Mutex<HashMap<(u128, Vec<Schema>), Option<Arc<Built>>>>;

fn programs() -> &'static Programs {
    static PROGRAMS: OnceLock<Programs> = OnceLock::new();
    PROGRAMS.get_or_init(Default::default)
}

const MAX_PROGRAMS: usize = 1024;

/// The program of `body` for inputs of `schemas`, built once.
fn program(body: &Expr, schemas: &[Schema]) -> Option<Arc<Built>> {
    let key = (body.fingerprint(), schemas.to_vec());
    if let Some(p) = programs().lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return p.clone();
    }
    let built = nodes(body).and_then(|(nodes, passes_bags)| Some(Arc::new(Built { program: Program::build(&nodes, schemas)?, passes_bags })));
    let mut cache = programs().lock().unwrap_or_else(|e| e.into_inner());
    if cache.len() >= MAX_PROGRAMS {
        cache.clear();
    }
    cache.insert(key, built.clone());
    built
}

/// The operators of `body` as the nodes of a fused group, and whether one
/// of them passes its inputs' bags to its result; `None` when some node is
/// not an operator a group may hold.
pub fn nodes(body: &Expr) -> Option<(Vec<Node>, bool)> {
    let mut index: HashMap<u128, usize> = HashMap::new();
    let mut nodes = Vec::new();
    let mut passes_bags = false;
    for node in body.post_order() {
        let arg_of = |e: &Expr| -> Option<Arg> {
            match e.kind() {
                NodeKind::Input(name) => name.strip_prefix('_')?.parse().ok().map(Arg::Input),
                NodeKind::Literal(ExprValue::Data(Value::Slice(x))) if x.is_item() && x.bag().is_none() => Some(Arg::Const(x.clone())),
                NodeKind::Op { .. } => index.get(&e.fingerprint()).map(|&i| Arg::Node(i)),
                _ => None,
            }
        };
        match node.kind() {
            NodeKind::Op { op, args, kwarg_names } => {
                let OperatorKind::Backend(backend) = op.kind else { return None };
                let fused_op = FusedOp::of(backend.name)?;
                if !kwarg_names.is_empty() || args.len() != fused_op.arity() {
                    return None;
                }
                let args = args.iter().map(|a| a.as_ref().and_then(arg_of)).collect::<Option<Vec<Arg>>>()?;
                passes_bags |= !matches!(backend.bags, BagRule::Drop | BagRule::Structured);
                index.insert(node.fingerprint(), nodes.len());
                nodes.push(Node { op: fused_op, args });
            }
            NodeKind::Input(_) | NodeKind::Literal(_) => {}
            _ => return None,
        }
    }
    // The root is the last operator.
    matches!(body.kind(), NodeKind::Op { .. }).then_some((nodes, passes_bags))
}
