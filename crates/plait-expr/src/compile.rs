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
