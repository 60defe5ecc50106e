//! Grouping for aggregational operators (`agg_*`, `cum_*`, `ndim=`): the last
//! `ndim` dimensions of `x` are the groups' members, the dimensions before them
//! index the groups.
//!
//! ```text
//! x: JaggedShape(2, [2, 1], [1, 2, 3])   ndim=1 → 3 groups of sizes 1, 2, 3
//!                                         ndim=2 → 2 groups of sizes 3, 3
//! ```

use plait_core::{DataSlice, Edge, Error, JaggedShape, Result};

/// The groups of an aggregation over the last `ndim` dimensions.
#[derive(Clone, Debug)]
pub struct Groups {
    /// The shape of the aggregated result (one item per group).
    pub shape: JaggedShape,
    /// From groups (parents) to the items of `x` (children).
    pub edge: Edge,
}

impl Groups {
    /// Number of groups.
    pub fn len(&self) -> usize {
        self.edge.parent_size()
    }

    /// Whether there are no groups.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Reads the `ndim` argument: `None` (unspecified) means 1.
pub fn resolve_ndim(op: &str, x: &DataSlice, ndim: Option<i64>) -> Result<usize> {
    let rank = x.rank();
    match ndim {
        None if rank == 0 => Err(Error::value(op, "expected rank(x) > 0")),
        None => Ok(1),
        Some(n) if n < 0 || n as usize > rank => Err(Error::value(op, format!("expected 0 <= ndim <= rank, got ndim={n}, rank={rank}"))),
        Some(n) => Ok(n as usize),
    }
}

/// The groups of `x` over its last `ndim` dimensions (see [`resolve_ndim`]).
pub fn groups(op: &str, x: &DataSlice, ndim: Option<i64>) -> Result<Groups> {
    let ndim = resolve_ndim(op, x, ndim)?;
    Ok(groups_of_shape(x.shape(), ndim))
}

/// The groups of a shape over its last `ndim` dimensions (`ndim <= rank`).
pub fn groups_of_shape(shape: &JaggedShape, ndim: usize) -> Groups {
    let rank = shape.rank();
    let prefix = shape.prefix(rank - ndim);
    // Merging the last `ndim` dimensions leaves one edge from groups to items
    // (for `ndim == 0`, a unit edge: every item is its own group).
    let merged = shape.flatten(rank - ndim, rank);
    let edge = merged.edges().last().expect("flatten leaves at least one edge").clone();
    Groups { shape: prefix, edge }
}
