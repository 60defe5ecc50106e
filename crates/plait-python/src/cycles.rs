//! Finding Python values that contain themselves before a level-by-level
//! walk of them grows without bound: a list holding itself twice doubles
//! each level, and would fill memory long before any depth limit.
//!
//! A path through containers longer than the number of distinct containers
//! on it repeats one (a cycle). So once the containers met at depth
//! [`CycleCheck::FROM`] or deeper are fewer than the levels walked below it,
//! the values hold a cycle. Only deep values pay for the set.

use pyo3::prelude::*;

#[derive(Default)]
pub struct CycleCheck {
    below: std::collections::HashSet<usize>,
}

impl CycleCheck {
    /// The depth from which containers are counted: a cycle makes at most
    /// 2^FROM values (per doubling) before it is found.
    pub const FROM: usize = 12;

    /// Counts `container` (a list, tuple, dict or object with attributes),
    /// met at `depth`.
    pub fn meet(&mut self, depth: usize, container: &Bound<'_, PyAny>) {
        if depth >= Self::FROM {
            self.below.insert(container.as_ptr() as usize);
        }
    }

    /// Whether values are reached at `depth` through more levels (at or
    /// below FROM) than there are containers met there: a cycle. Every
    /// container above `depth` must have been met.
    pub fn found(&self, depth: usize) -> bool {
        depth > Self::FROM && depth - Self::FROM > self.below.len()
    }
}
