//! Deferred evaluation: expressions over the operator registry of
//! `plait-ops`, and their evaluation (seed 000 "Expressions and Operators",
//! "Expression Evaluation"; seed 002 for tags and passes).
//!
//! * [`expr`] — the immutable expression DAG with structural fingerprints.
//! * [`value`] — what expressions compute: DataSlices, tuples, host values.
//! * [`operator`] — backend, lambda, function and builtin operators, and
//!   the registry by name.
//! * [`builtins`] — the operators on expressions' own values: tuples,
//!   iterables, functor calls and control flow (`kd.if_`, `kd.map`, ...).
//! * [`extension`] — extension types: objects labelled with a user class's
//!   QType (`kd.extension_type`).
//! * [`transform`] — bottom-up passes and substitutions.
//! * [`packed`] — expressions as EXPR items (`pack_expr` / `unpack_expr`).
//! * [`prepare`] — lambda lowering and literal folding.
//! * [`eval`] — compiled plans, cached by fingerprint, and `kd.eval`.
//! * [`functor`] — functors: compiled (variables inlined) and called.
//! * [`host`] — printed output and progress bars, shown by the host.
//! * [`text`] — Koda's text form of expressions (`(I.a + I.b) * I.c`).
//! * [`tracing`] — functors traced from Rust closures, and called.

pub mod builtins;
pub mod compile;
pub mod eval;
pub mod expr;
pub mod extension;
pub mod functor;
pub mod fusion;
pub mod host;
pub mod inline;
pub mod operator;
pub mod packed;
pub mod partition;
pub mod prepare;
pub mod shard;
pub mod stream;
pub mod text;
pub mod tracing;
pub mod transform;
pub mod typing;
pub mod value;
pub mod vmap;

pub use eval::eval;
pub use expr::{Expr, NodeKind};
pub use value::ExprValue;
