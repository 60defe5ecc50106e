//! The one error type of plait.
//!
//! Every error names the operator (`kd.shapes.expand_to_shape`, `kd.slice`, ...),
//! and says what was expected and what was found. Constructors for the recurring
//! kinds live here so that messages read the same everywhere; the Python bindings
//! map [`ErrorKind`] to Python exception types in one place
//! (`plait-python/src/errors.rs::to_py_err`).
//!
//! An error is a value: besides its kind and message it carries
//!
//! * a **context chain** — where it passed on its way out of an evaluation
//!   (the expression node being evaluated, the functor and variable it
//!   belongs to), innermost first, bounded by [`MAX_CONTEXT`] so that an
//!   error out of thousands of nested calls stays small. The host shows the
//!   entries as notes ([`Error::notes`]);
//! * optionally a **host error** — the exception a host function raised
//!   (a Python function called as an operator), opaque to plait, so the host
//!   can re-raise that very object when the error comes back to it.
//!
//! Both live behind one `Option<Box<_>>`: an error without them (almost
//! every error) is as small as a kind and a message.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

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

/// The most context entries an error keeps: an error out of thousands of
/// nested functor calls keeps the innermost ones and counts the rest.
pub const MAX_CONTEXT: usize = 64;

/// One entry of an error's context chain: a place the error passed through.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Context {
    /// An expression node was being evaluated: its text form, and where
    /// tracing created it (`file.py:12`) when known.
    Node { expr: String, created_at: Option<String> },
    /// A functor was being called: its `__qualname__` (when it has one), and
    /// the variable of the functor holding the failing node (when one does).
    Functor { name: Option<String>, variable: Option<String> },
    /// Any other context, as the note it shows.
    Note(String),
}

impl fmt::Display for Context {
    /// The note the host shows for this entry.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Context::Node { expr, created_at: Some(location) } => write!(f, "while evaluating {expr} (created at {location})"),
            Context::Node { expr, created_at: None } => write!(f, "while evaluating {expr}"),
            Context::Functor { name, variable } => {
                write!(f, "in functor {}", name.as_deref().unwrap_or("<unnamed>"))?;
                match variable {
                    Some(variable) => write!(f, ", variable {variable}"),
                    None => Ok(()),
                }
            }
            Context::Note(note) => f.write_str(note),
        }
    }
}

/// An error raised by the host (a Python exception), carried opaquely
/// through plait and handed back to the host as it was. Two are equal when
/// they are the same object.
#[derive(Clone)]
pub struct HostError(Arc<dyn Any + Send + Sync>);

impl HostError {
    pub fn new(error: impl Any + Send + Sync) -> HostError {
        HostError(Arc::new(error))
    }

    /// The host's error, if it is a `T`.
    pub fn downcast_ref<T: Any>(&self) -> Option<&T> {
        self.0.downcast_ref::<T>()
    }
}

impl fmt::Debug for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("HostError(..)")
    }
}

impl PartialEq for HostError {
    fn eq(&self, other: &HostError) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for HostError {}

/// What only some errors have (boxed, to keep `Result`s small).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Details {
    /// Innermost first, at most [`MAX_CONTEXT`].
    context: Vec<Context>,
    /// Entries left out past [`MAX_CONTEXT`] (the outermost ones).
    omitted: usize,
    host: Option<HostError>,
}

/// An error: its kind, a complete, user-facing message, and (see the module
/// documentation) a context chain and the host error behind it.
///
/// Build one with the constructors ([`Error::value`], [`Error::type_error`],
/// [`Error::index`], [`Error::internal`], [`Error::new`], [`Error::from_host`]);
/// two errors are equal when kind, message, context and host error (by
/// identity) are.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct Error {
    pub kind: ErrorKind,
    pub message: String,
    details: Option<Box<Details>>,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Result with plait's error.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An error of `kind` with `message` as it is.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error { kind, message: message.into(), details: None }
    }

    /// A `ValueError` raised by operator `op`.
    pub fn value(op: &str, message: impl fmt::Display) -> Error {
        Error::new(ErrorKind::Value, format!("{op}: {message}"))
    }

    /// A `TypeError` raised by operator `op`.
    pub fn type_error(op: &str, message: impl fmt::Display) -> Error {
        Error::new(ErrorKind::Type, format!("{op}: {message}"))
    }

    /// An `IndexError` raised by operator `op`.
    pub fn index(op: &str, message: impl fmt::Display) -> Error {
        Error::new(ErrorKind::Index, format!("{op}: {message}"))
    }

    /// A `KeyError` raised by operator `op`.
    pub fn key(op: &str, message: impl fmt::Display) -> Error {
        Error::new(ErrorKind::Key, format!("{op}: {message}"))
    }

    /// An internal invariant did not hold: a bug in plait.
    pub fn internal(message: impl fmt::Display) -> Error {
        Error::new(ErrorKind::Internal, format!("internal error in plait: {message}"))
    }

    /// An error the host raised inside operator `op` (a Python function's
    /// exception): `message` describes it on the Rust side, and the host
    /// gets `host` back when the error returns to it.
    pub fn from_host(kind: ErrorKind, message: impl Into<String>, host: HostError) -> Error {
        Error { kind, message: message.into(), details: Some(Box::new(Details { host: Some(host), ..Details::default() })) }
    }

    /// The same error as raised by operator `op` where operator `inner`
    /// (which `op` calls) raised it: its leading `inner: ` becomes `op: `;
    /// kind, context chain and host error are kept.
    pub fn raised_by(self, inner: &str, op: &str) -> Error {
        match self.message.strip_prefix(inner).and_then(|rest| rest.strip_prefix(": ")) {
            Some(rest) => Error { message: format!("{op}: {rest}"), ..self },
            None => self,
        }
    }

    /// The same error with `clause` after its message, as Koda adds
    /// `; when ...` clauses; its context chain and host error are kept.
    pub fn with_clause(self, clause: impl fmt::Display) -> Error {
        Error { message: format!("{}; {clause}", self.message), ..self }
    }

    /// The same error with `context` prepended to its message (e.g. the
    /// argument it came from); its context chain and host error are kept.
    pub fn with_context(self, context: impl fmt::Display) -> Error {
        Error { message: format!("{context}: {}", self.message), ..self }
    }

    /// The same error with `entry` added to its context chain, outside the
    /// entries it has. Past [`MAX_CONTEXT`] entries it is only counted.
    pub fn in_context(self, entry: Context) -> Error {
        self.in_context_with(|| entry)
    }

    /// [`Error::in_context`] with the entry made only when it is kept (an
    /// entry past [`MAX_CONTEXT`] is counted, not made).
    pub fn in_context_with(mut self, entry: impl FnOnce() -> Context) -> Error {
        let details = self.details.get_or_insert_with(Box::default);
        if details.context.len() < MAX_CONTEXT {
            details.context.push(entry());
        } else {
            details.omitted += 1;
        }
        self
    }

    /// The context chain, innermost first (at most [`MAX_CONTEXT`] entries).
    pub fn context(&self) -> &[Context] {
        self.details.as_ref().map_or(&[], |d| &d.context)
    }

    /// How many outer entries were left out of the context chain.
    pub fn omitted_context(&self) -> usize {
        self.details.as_ref().map_or(0, |d| d.omitted)
    }

    /// The context chain as the notes the host shows, innermost first, and
    /// a last one counting the entries left out, if any.
    pub fn notes(&self) -> Vec<String> {
        let mut notes: Vec<String> = self.context().iter().map(Context::to_string).collect();
        let omitted = self.omitted_context();
        if omitted > 0 {
            notes.push(format!("... and {omitted} more notes from enclosing calls"));
        }
        notes
    }

    /// The host error behind this one, if the host raised it.
    pub fn host(&self) -> Option<&HostError> {
        self.details.as_ref().and_then(|d| d.host.as_ref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructors_name_the_operator() {
        let e = Error::value("kd.x", "bad");
        assert_eq!((e.kind, e.message.as_str()), (ErrorKind::Value, "kd.x: bad"));
        assert_eq!(e.clone().with_context("arg").message, "arg: kd.x: bad");
        assert_eq!(Error::internal("oops").message, "internal error in plait: oops");
        assert!(e.context().is_empty() && e.notes().is_empty() && e.host().is_none());
    }

    #[test]
    fn the_context_chain_reads_innermost_first_and_is_bounded() {
        let node = |i: usize| Context::Node { expr: format!("I.x + {i}"), created_at: (i == 0).then(|| "f.py:3".to_string()) };
        let mut e = Error::value("kd.x", "bad");
        for i in 0..MAX_CONTEXT + 10 {
            e = e.in_context(node(i));
        }
        e = e.in_context(Context::Functor { name: Some("f".into()), variable: Some("v".into()) });
        assert_eq!(e.context().len(), MAX_CONTEXT);
        assert_eq!(e.omitted_context(), 11);
        let notes = e.notes();
        assert_eq!(notes[0], "while evaluating I.x + 0 (created at f.py:3)");
        assert_eq!(notes[1], "while evaluating I.x + 1");
        assert_eq!(notes[MAX_CONTEXT], "... and 11 more notes from enclosing calls");
        let functor = Context::Functor { name: None, variable: Some("v".into()) };
        assert_eq!(functor.to_string(), "in functor <unnamed>, variable v");
        assert_eq!(Context::Functor { name: Some("f".into()), variable: None }.to_string(), "in functor f");
    }

    #[test]
    fn equality_compares_host_errors_by_identity() {
        let host = HostError::new(String::from("exception"));
        let a = Error::from_host(ErrorKind::Value, "kd.f: boom", host.clone());
        assert_eq!(a, a.clone());
        assert_ne!(a, Error::from_host(ErrorKind::Value, "kd.f: boom", HostError::new(String::from("exception"))));
        assert_ne!(a, Error::new(ErrorKind::Value, "kd.f: boom"));
        assert_eq!(a.host().and_then(|h| h.downcast_ref::<String>()).map(String::as_str), Some("exception"));
        // Context and host survive a message prefix.
        let b = a.in_context(Context::Note("n".into())).with_context("arg");
        assert_eq!((b.notes(), b.host(), b.message.as_str()), (vec!["n".to_string()], Some(&host), "arg: kd.f: boom"));
        assert_eq!(Error::new(ErrorKind::Value, "m"), Error::new(ErrorKind::Value, "m"));
    }
}
