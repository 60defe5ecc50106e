//! plait-core: the data model of plait.
//!
//! * [`shape`] — [`JaggedShape`]: edges of uniform sizes or split points.
//! * [`schema`] — [`Schema`] and the type-promotion lattice.
//! * [`column`] — typed columns with presence bitmaps ([`SliceData`]).
//! * [`slice`] — [`DataSlice`]: shape + items + schema.
//! * [`cast`], [`broadcast`], [`subslice`] — the mechanisms operators share.
//! * [`quoted`] — expressions as values (EXPR items).
//! * [`repr`] — Koda's text forms.
//! * [`alloc`], [`buffer_cache`] — large output buffers and their reuse.
//! * [`parallel`] — the worker threads of parallel kernels (one pool per
//!   process, rebuilt in a forked child).
//! * [`limits`] — the sizes and depths accepted (docs/limits.md).

pub mod alloc;
pub mod bag;
pub mod broadcast;
pub mod buffer_cache;
pub mod cast;
pub mod column;
pub mod error;
pub mod itemid;
pub mod limits;
pub mod parallel;
pub mod quoted;
pub mod repr;
pub mod schema;
pub mod schema_ops;
pub mod shape;
pub mod signature;
pub mod slice;
pub mod splice;
pub mod subslice;
pub mod text_map;
pub mod typing;

/// The hasher of the hash maps keyed by ids and attribute names: fast, and
/// seeded per process, so that crafted ids cannot be made to collide.
pub type FastHash = foldhash::fast::RandomState;
/// A `HashMap` with [`FastHash`].
pub type FastMap<K, V> = std::collections::HashMap<K, V, FastHash>;
/// A `HashSet` with [`FastHash`].
pub type FastSet<K> = std::collections::HashSet<K, FastHash>;

pub use bag::DataBag;
pub use column::{Column, IdBits, ScalarRef, SchemaValues, SliceData, Values};
pub use error::{Error, ErrorKind, Result};
pub use itemid::{ItemId, ItemKind};
pub use quoted::{Quoted, QuotedExpr};
pub use schema::Schema;
pub use shape::{Edge, JaggedShape};
pub use slice::DataSlice;
