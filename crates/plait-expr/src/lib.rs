//! Deferred evaluation: expressions over the operator registry of
//! `plait-ops`, and their evaluation (seed 000 "Expressions and Operators",
//! "Expression Evaluation").
//!
//! * [`expr`] — the immutable expression DAG with structural fingerprints.
//! * [`eval`] — compiled plans, cached by fingerprint, and `kd.eval`.
//! * [`text`] — Koda's text form of expressions (`(I.a + I.b) * I.c`).

pub mod eval;
pub mod expr;
pub mod text;

pub use eval::eval;
pub use expr::{Expr, NodeKind};
