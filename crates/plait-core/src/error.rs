//! The one error type of plait-core.
//!
//! Every error names the operator (`kd.shapes.expand_to_shape`, `kd.slice`, ...),
//! and says what was expected and what was found. Constructors for the recurring
//! kinds live here so that messages read the same everywhere; the Python bindings
//! map [`ErrorKind`] to Python exception types in one place.

use std::fmt;

/// Which family of failure this is; decides the Python exception type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// A value or shape is not acceptable (Python `ValueError`).
    Value,
    /// An argument has the wrong kind of object (Python `TypeError`).
    Type,
    /// An index is out of range where Koda raises rather than returning missing
    /// (Python `IndexError`).
    Index,
    /// A key or field that is not there, where Koda raises (Python `KeyError`).
    Key,
    /// A bug in plait (Python `RuntimeError`); never expected.
    Internal,
}

/// An error with its kind and a complete, user-facing message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct Error {
    pub kind: ErrorKind,
    pub message: String,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Result with plait's error.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A `ValueError` raised by operator `op`.
    pub fn value(op: &str, message: impl fmt::Display) -> Error {
        Error { kind: ErrorKind::Value, message: format!("{op}: {message}") }
    }

    /// A `TypeError` raised by operator `op`.
    pub fn type_error(op: &str, message: impl fmt::Display) -> Error {
        Error { kind: ErrorKind::Type, message: format!("{op}: {message}") }
    }

    /// An `IndexError` raised by operator `op`.
    pub fn index(op: &str, message: impl fmt::Display) -> Error {
        Error { kind: ErrorKind::Index, message: format!("{op}: {message}") }
    }

    /// A `KeyError` raised by operator `op`.
    pub fn key(op: &str, message: impl fmt::Display) -> Error {
        Error { kind: ErrorKind::Key, message: format!("{op}: {message}") }
    }

    /// An internal invariant did not hold: a bug in plait.
    pub fn internal(message: impl fmt::Display) -> Error {
        Error { kind: ErrorKind::Internal, message: format!("internal error in plait: {message}") }
    }

    /// The same error with `context` prepended (e.g. the argument it came from).
    pub fn with_context(self, context: impl fmt::Display) -> Error {
        Error { kind: self.kind, message: format!("{context}: {}", self.message) }
    }
}
