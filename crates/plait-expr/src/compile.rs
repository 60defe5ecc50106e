//! The plan optimisations of `kd.compile`, in order: preparation (names
//! dropped, lambda operators inlined, constants folded), calls of literal
//! functors inlined ([`crate::inline`]) and prepared again (their constants
//! meet the caller's), then elementwise groups fused ([`crate::fusion`]).
//! Shared subexpressions are one node already (expressions are DAGs keyed
//! by fingerprint), computed once by the plan; dead code never enters it
//! (a plan holds what its result reads); a value's last reader takes its
//! buffer (see `eval.rs`).

use plait_core::Result;

use crate::expr::Expr;

/// `expr` optimised for evaluation.
pub fn optimise(expr: &Expr) -> Result<Expr> {
    let prepared = crate::prepare::prepare(expr)?;
    let inlined = crate::inline::inline_calls(&prepared)?;
    let prepared = if inlined.same_node(&prepared) { prepared } else { crate::prepare::prepare(&inlined)? };
    crate::fusion::fuse(&prepared)
}

/// Builtins that compute on the values they are given alone (no functor
/// calls, no printing): a plan of these and backend kernels never calls
/// back into the host.
const HOST_FREE_BUILTINS: &[&str] =
    &["kd.tuples.tuple", "kd.tuples.namedtuple", "kd.tuples.get_nth", "kd.tuples.get_namedtuple_field", "kd.tuples.slice", "kd.core._fused"];

/// Whether evaluating `expr` never calls back into the host (Python): its
/// operators are backend kernels, names and value-only builtins. Such a
/// plan may run as a task of the kernels' worker pool (`kd.shard_map`'s
/// shards); one that may call Python must not (a worker waiting for the
/// GIL would stall the kernels that share it).
pub fn host_free(expr: &Expr) -> bool {
    use crate::operator::{Builtin, OperatorKind};
    expr.post_order().iter().all(|node| match node.op_ref().map(|op| &op.kind) {
        None | Some(OperatorKind::Backend(_)) => true,
        Some(OperatorKind::Builtin(def)) => def.role == Builtin::WithName || HOST_FREE_BUILTINS.contains(&def.name),
        Some(_) => false,
    })
}
