//! Abstract types (seeds 000, 002, 004): what is known about a value before
//! it is computed. A [`SliceType`] is a schema ([`SchemaType`]) and one
//! [`Dim`] per dimension; a dimension's size is an affine expression in
//! named size parameters ([`Size`]), so that shapes can be compared without
//! data. Anything may be unknown: types are opt-in, and where nothing is
//! declared nothing is checked before evaluation.
//!
//! The operators' type rules (in `plait-ops`, beside their kernels) compute
//! result types from argument types; `docs/typing.md` describes the model.

mod dim;
mod parse;
mod schema_type;
mod size;
mod slice_type;

pub use dim::{Agreement, Dim, RAGGED_PREFIX, broadcast_dims};
pub use parse::{FunctorSignature, OutputType, ParseError, parse_functor_type, parse_slice_type};
pub use schema_type::SchemaType;
pub use size::{RESERVED_PREFIX, Size, check_size_name};
pub use slice_type::SliceType;
