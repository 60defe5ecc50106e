//! Expressions as values (the EXPR schema): an EXPR item holds a quoted
//! expression, which plait-core stores and compares without knowing what it
//! is (`plait-expr` gives it meaning). Functors keep their bodies this way.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

/// What plait-core needs of a quoted expression.
pub trait QuotedExpr: Send + Sync + fmt::Debug {
    /// Equal for structurally equal expressions.
    fn fingerprint(&self) -> u128;
    /// The text of the expression, as reprs show it.
    fn text(&self) -> String;
    fn as_any(&self) -> &dyn Any;
}

/// A quoted expression (shared).
#[derive(Clone, Debug)]
pub struct Quoted(pub Arc<dyn QuotedExpr>);

impl PartialEq for Quoted {
    fn eq(&self, other: &Quoted) -> bool {
        self.0.fingerprint() == other.0.fingerprint()
    }
}

impl Quoted {
    pub fn fingerprint(&self) -> u128 {
        self.0.fingerprint()
    }

    pub fn text(&self) -> String {
        self.0.text()
    }
}

/// What a missing slot of an EXPR column holds.
#[derive(Debug)]
struct Filler;

impl QuotedExpr for Filler {
    fn fingerprint(&self) -> u128 {
        0
    }
    fn text(&self) -> String {
        "None".to_string()
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The filler of missing EXPR slots.
pub fn filler() -> Quoted {
    static FILLER: std::sync::OnceLock<Quoted> = std::sync::OnceLock::new();
    FILLER.get_or_init(|| Quoted(Arc::new(Filler))).clone()
}
