//! JaggedShape: the partition tree of a DataSlice (seed 000, "JaggedShape").
//!
//! A shape is a list of edges, one per dimension. Edge `i` maps the items of
//! dimension `i - 1` (its *parents*) to the items of dimension `i` (its
//! *children*) with monotone split points:
//!
//! ```text
//! kd.slice([[['a','b'],['c']], [['d','e','f']]])   JaggedShape(2, [2, 1], [2, 1, 3])
//!
//! edge 0: parents 1  split points [0, 2]           uniform: 1 parent x 2
//! edge 1: parents 2  split points [0, 2, 3]
//! edge 2: parents 3  split points [0, 2, 3, 6]     data: a b c d e f
//! ```
//!
//! An edge whose parents all have the same number of children is stored as two
//! numbers ([`Edge::Uniform`]); any other edge keeps its split points in an Arrow
//! offsets buffer ([`Edge::Split`]), so a jagged slice converts to an Arrow list
//! array without copying. Edges are normalised on construction (a split edge is
//! never uniform), so equal shapes have equal edges.

use std::ops::Range;
use std::sync::Arc;

use arrow_buffer::{OffsetBuffer, ScalarBuffer};

use crate::error::{Error, Result};

/// One dimension of a [`JaggedShape`].
#[derive(Clone, Debug)]
pub enum Edge {
    /// Every one of `parent_size` parents has `size` children.
    Uniform { parent_size: usize, size: usize },
    /// Parent `i` has children `split_points[i]..split_points[i + 1]`; starts at
    /// 0 and is not uniform.
    Split(OffsetBuffer<i64>),
}

impl PartialEq for Edge {
    fn eq(&self, other: &Edge) -> bool {
        match (self, other) {
            (Edge::Uniform { parent_size: p1, size: s1 }, Edge::Uniform { parent_size: p2, size: s2 }) => p1 == p2 && s1 == s2,
            (Edge::Split(a), Edge::Split(b)) => a.inner().inner().ptr_eq(b.inner().inner()) && a.len() == b.len() || a.as_ref() == b.as_ref(),
            _ => false,
        }
    }
}
impl Eq for Edge {}

impl Edge {
    /// An edge where each of `parent_size` parents has `size` children.
    pub fn uniform(parent_size: usize, size: usize) -> Edge {
        // With no parents the size is meaningless; normalise it so that equal
        // shapes compare equal.
        let size = if parent_size == 0 { 0 } else { size };
        Edge::Uniform { parent_size, size }
    }

    /// An edge from the number of children of each parent.
    pub fn from_sizes(sizes: &[i64]) -> Result<Edge> {
        if let Some(bad) = sizes.iter().find(|&&s| s < 0) {
            return Err(Error::value("kd.shapes.new", format!("sizes must be non-negative, got {bad}")));
        }
        if let Some(&first) = sizes.first() {
            if sizes.iter().all(|&s| s == first) {
                return Ok(Edge::uniform(sizes.len(), first as usize));
            }
        } else {
            return Ok(Edge::uniform(0, 0));
        }
        let mut points = Vec::with_capacity(sizes.len() + 1);
        let mut total = 0i64;
        points.push(0);
        for &s in sizes {
            total = total.checked_add(s).ok_or_else(|| Error::value("kd.shapes.new", "the sizes add up to more than 2**63 items"))?;
            points.push(total);
        }
        Ok(Edge::Split(OffsetBuffer::new(ScalarBuffer::from(points))))
    }

    /// An edge over existing split points (e.g. an Arrow list array's
    /// offsets), without copying them: checked to start at 0 and not
    /// decrease.
    pub fn from_offsets(points: ScalarBuffer<i64>) -> Result<Edge> {
        let op = "kd.shapes.new";
        match points.first() {
            None => return Err(Error::value(op, "split points must not be empty")),
            Some(&first) if first != 0 => {
                return Err(Error::value(op, format!("split points must start with 0, got {first}")));
            }
            _ => {}
        }
        let parent_size = points.len() - 1;
        if parent_size == 0 {
            return Ok(Edge::uniform(0, 0));
        }
        if points.windows(2).any(|w| w[1] < w[0]) {
            return Err(Error::value(op, "split points must be non-decreasing"));
        }
        // Equal steps make a uniform edge (a jagged one differs early).
        let first_size = points[1] - points[0];
        if points.windows(2).all(|w| w[1] - w[0] == first_size) {
            return Ok(Edge::uniform(parent_size, first_size as usize));
        }
        // SAFETY: checked above to start at 0 and not decrease (what
        // `OffsetBuffer::new` would check again).
        Ok(Edge::Split(unsafe { OffsetBuffer::new_unchecked(points) }))
    }

    /// An edge from split points (must start at 0 and not decrease).
    pub fn from_split_points(points: Vec<i64>) -> Result<Edge> {
        Edge::from_offsets(ScalarBuffer::from(points))
    }

    /// Number of parents (items of the previous dimension).
    pub fn parent_size(&self) -> usize {
        match self {
            Edge::Uniform { parent_size, .. } => *parent_size,
            Edge::Split(points) => points.len() - 1,
        }
    }

    /// Number of children (items of this dimension).
    pub fn child_size(&self) -> usize {
        match self {
            Edge::Uniform { parent_size, size } => parent_size * size,
            Edge::Split(points) => *points.last().unwrap_or(&0) as usize,
        }
    }

    /// `Some(n)` when every parent has `n` children.
    pub fn uniform_size(&self) -> Option<usize> {
        match self {
            Edge::Uniform { size, .. } => Some(*size),
            Edge::Split(_) => None,
        }
    }

    /// Where the children of parent `i` start; `i` may be the number of
    /// parents (then: the end). The children of parents `lo..hi` are
    /// `start_of(lo)..start_of(hi)`.
    pub fn start_of(&self, i: usize) -> usize {
        if i < self.parent_size() { self.child_range(i).start } else { self.child_size() }
    }

    /// The children of parent `i`.
    pub fn child_range(&self, i: usize) -> Range<usize> {
        match self {
            Edge::Uniform { size, .. } => i * size..(i + 1) * size,
            Edge::Split(points) => points[i] as usize..points[i + 1] as usize,
        }
    }

    /// Number of children of parent `i`.
    pub fn size_of(&self, i: usize) -> usize {
        let r = self.child_range(i);
        r.end - r.start
    }

    /// The number of children of each parent.
    pub fn sizes(&self) -> Vec<i64> {
        match self {
            Edge::Uniform { parent_size, size } => vec![*size as i64; *parent_size],
            Edge::Split(points) => points.windows(2).map(|w| w[1] - w[0]).collect(),
        }
    }

    /// The split points (cumulative sizes, starting at 0).
    pub fn split_points(&self) -> OffsetBuffer<i64> {
        match self {
            Edge::Uniform { parent_size, size } => {
                let points: Vec<i64> = (0..=*parent_size).map(|i| (i * size) as i64).collect();
                OffsetBuffer::new(ScalarBuffer::from(points))
            }
            Edge::Split(points) => points.clone(),
        }
    }

    /// The edge from this edge's parents to `next`'s children (`next` must start
    /// where this edge ends).
    pub fn compose(&self, next: &Edge) -> Edge {
        debug_assert_eq!(self.child_size(), next.parent_size());
        match (self, next) {
            (Edge::Uniform { parent_size, size: a }, Edge::Uniform { size: b, .. }) => Edge::uniform(*parent_size, a * b),
            _ => {
                let outer = self.split_points();
                let inner = next.split_points();
                let points: Vec<i64> = outer.iter().map(|&p| inner[p as usize]).collect();
                Edge::from_split_points(points).expect("composition of valid edges is valid")
            }
        }
    }

    /// Calls `f(parent, child_count)` for every parent, in order: the one
    /// loop behind broadcasting and parent mappings.
    pub fn for_each_parent(&self, mut f: impl FnMut(usize, usize)) {
        match self {
            Edge::Uniform { parent_size, size } => (0..*parent_size).for_each(|p| f(p, *size)),
            Edge::Split(points) => {
                for (p, w) in points.windows(2).enumerate() {
                    f(p, (w[1] - w[0]) as usize);
                }
            }
        }
    }

    /// For every child, the index of its parent (the "mapping" of the edge).
    pub fn parent_ids(&self) -> Vec<usize> {
        let mut out = Vec::with_capacity(self.child_size());
        self.for_each_parent(|p, n| out.extend(std::iter::repeat_n(p, n)));
        out
    }
}

/// The shape of a DataSlice: a list of edges, one per dimension. Cheap to clone.
#[derive(Clone, Debug)]
pub struct JaggedShape {
    edges: Arc<[Edge]>,
}

impl PartialEq for JaggedShape {
    fn eq(&self, other: &JaggedShape) -> bool {
        Arc::ptr_eq(&self.edges, &other.edges) || self.edges == other.edges
    }
}
impl Eq for JaggedShape {}

impl JaggedShape {
    /// The shape of a DataItem: rank 0, one item.
    pub fn scalar() -> JaggedShape {
        // One shared empty edge list: DataItems are made per item in loops
        // (`kd.map`), and each would allocate its own.
        static NO_EDGES: std::sync::OnceLock<Arc<[Edge]>> = std::sync::OnceLock::new();
        JaggedShape { edges: NO_EDGES.get_or_init(|| Arc::from(Vec::new())).clone() }
    }

    /// A one-dimensional shape of `n` items.
    pub fn flat(n: usize) -> JaggedShape {
        JaggedShape { edges: Arc::from(vec![Edge::uniform(1, n)]) }
    }

    /// A shape from edges, checking that each edge starts where the previous ends.
    pub fn from_edges(edges: Vec<Edge>) -> Result<JaggedShape> {
        if edges.len() > crate::limits::MAX_RANK {
            return Err(Error::value(
                "kd.shapes.new",
                format!("a shape of {} dimensions, more than the maximum of {} (see docs/limits.md)", edges.len(), crate::limits::MAX_RANK),
            ));
        }
        let mut parent = 1;
        for (i, edge) in edges.iter().enumerate() {
            if let Edge::Uniform { parent_size, size } = edge {
                if parent_size.checked_mul(*size).is_none_or(|n| n > i64::MAX as usize) {
                    return Err(Error::value("kd.shapes.new", format!("dimension {i} would hold more than 2**63 items")));
                }
            }
            if edge.parent_size() != parent {
                return Err(Error::value(
                    "kd.shapes.new",
                    format!("dimension {i} has {} parent(s) but the previous dimension has {parent} item(s)", edge.parent_size()),
                ));
            }
            parent = edge.child_size();
        }
        Ok(JaggedShape { edges: Arc::from(edges) })
    }

    /// The edges, outermost first.
    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }

    /// Number of dimensions.
    pub fn rank(&self) -> usize {
        self.edges.len()
    }

    /// Total number of items.
    pub fn size(&self) -> usize {
        self.edges.last().map_or(1, Edge::child_size)
    }

    /// The number of items in the first `ndim` dimensions (1 for `ndim == 0`).
    pub fn size_at(&self, ndim: usize) -> usize {
        if ndim == 0 { 1 } else { self.edges[ndim - 1].child_size() }
    }

    /// The shape made of the first `ndim` dimensions.
    pub fn prefix(&self, ndim: usize) -> JaggedShape {
        if ndim == self.rank() {
            return self.clone();
        }
        JaggedShape { edges: Arc::from(&self.edges[..ndim]) }
    }

    /// Whether `self` is a prefix of `other` (and so broadcasts to it).
    pub fn is_prefix_of(&self, other: &JaggedShape) -> bool {
        self.rank() <= other.rank() && self.edges[..] == other.edges[..self.rank()]
    }

    /// The shape with dimensions `from..to` merged into one (seed 000,
    /// `kd.shapes.flatten`). With `from == to` a unit dimension is inserted.
    /// Both bounds must already be resolved to `0..=rank`.
    pub fn flatten(&self, from: usize, to: usize) -> JaggedShape {
        debug_assert!(from <= to && to <= self.rank());
        let mut edges: Vec<Edge> = self.edges[..from].to_vec();
        if from == to {
            edges.push(Edge::uniform(self.size_at(from), 1));
        } else {
            let merged = self.edges[from + 1..to].iter().fold(self.edges[from].clone(), |acc, e| acc.compose(e));
            edges.push(merged);
        }
        edges.extend_from_slice(&self.edges[to..]);
        JaggedShape { edges: Arc::from(edges) }
    }

    /// The shape with one more dimension at the end.
    pub fn with_edge(&self, edge: Edge) -> Result<JaggedShape> {
        let mut edges = self.edges.to_vec();
        edges.push(edge);
        JaggedShape::from_edges(edges)
    }

    /// For every item of `target`, the index of its ancestor among the first
    /// `self.rank()` dimensions (`self` must be a prefix of `target`). This is the
    /// gather map of prefix broadcasting; `None` when it is the identity.
    pub fn broadcast_map(&self, target: &JaggedShape) -> Option<Vec<usize>> {
        debug_assert!(self.is_prefix_of(target));
        if self.rank() == target.rank() {
            return None;
        }
        let mut map: Vec<usize> = (0..self.size()).collect();
        for edge in &target.edges[self.rank()..] {
            let mut next = Vec::with_capacity(edge.child_size());
            edge.for_each_parent(|p, n| next.extend(std::iter::repeat_n(map[p], n)));
            map = next;
        }
        Some(map)
    }
}

impl std::fmt::Display for JaggedShape {
    /// Koda's repr: uniform dimensions as one number, others as their sizes,
    /// e.g. `JaggedShape(2, [2, 1], [2, 1, 3])`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("JaggedShape(")?;
        for (i, edge) in self.edges.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            match edge.uniform_size() {
                Some(n) if edge.parent_size() > 0 => write!(f, "{n}")?,
                _ => {
                    // Long size lists show their first and last three sizes.
                    let sizes = edge.sizes();
                    let shown: Vec<String> = if sizes.len() > 6 {
                        let head = sizes[..3].iter().map(i64::to_string);
                        let tail = sizes[sizes.len() - 3..].iter().map(i64::to_string);
                        head.chain(std::iter::once("...".to_string())).chain(tail).collect()
                    } else {
                        sizes.iter().map(i64::to_string).collect()
                    };
                    write!(f, "[{}]", shown.join(", "))?;
                }
            }
        }
        f.write_str(")")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seed_shape() -> JaggedShape {
        JaggedShape::from_edges(vec![Edge::uniform(1, 2), Edge::from_sizes(&[2, 1]).unwrap(), Edge::from_sizes(&[2, 1, 3]).unwrap()]).unwrap()
    }

    #[test]
    fn repr_and_sizes() {
        let s = seed_shape();
        assert_eq!(s.to_string(), "JaggedShape(2, [2, 1], [2, 1, 3])");
        assert_eq!(s.rank(), 3);
        assert_eq!(s.size(), 6);
        assert_eq!(s.edges()[2].split_points().as_ref(), &[0, 2, 3, 6]);
        assert_eq!(JaggedShape::scalar().to_string(), "JaggedShape()");
        let empty = JaggedShape::from_edges(vec![Edge::uniform(1, 0), Edge::uniform(0, 0)]).unwrap();
        assert_eq!(empty.to_string(), "JaggedShape(0, [])");
        let long = JaggedShape::from_edges(vec![Edge::uniform(1, 7), Edge::from_sizes(&[1, 2, 3, 4, 5, 6, 7]).unwrap()]).unwrap();
        assert_eq!(long.to_string(), "JaggedShape(7, [1, 2, 3, ..., 5, 6, 7])");
    }

    #[test]
    fn seed_split_points() {
        let s = JaggedShape::from_edges(vec![Edge::uniform(1, 3), Edge::from_sizes(&[2, 1, 3]).unwrap()]).unwrap();
        assert_eq!(s.edges()[0].split_points().as_ref(), &[0, 3]);
        assert_eq!(s.edges()[1].split_points().as_ref(), &[0, 2, 3, 6]);
        assert_eq!(s.edges()[1].child_range(2), 3..6);
    }

    #[test]
    fn flatten_composes_edges() {
        let s = seed_shape();
        assert_eq!(s.flatten(0, 3).to_string(), "JaggedShape(6)");
        assert_eq!(s.flatten(1, 3).to_string(), "JaggedShape(2, 3)");
        assert_eq!(s.flatten(0, 2).to_string(), "JaggedShape(3, [2, 1, 3])");
        assert_eq!(s.flatten(1, 1).to_string(), "JaggedShape(2, 1, [2, 1], [2, 1, 3])");
    }

    #[test]
    fn invalid_edges_are_rejected() {
        let err = JaggedShape::from_edges(vec![Edge::uniform(2, 2)]).unwrap_err();
        assert!(err.message.contains("dimension 0 has 2 parent(s)"), "{}", err.message);
        assert!(Edge::from_split_points(vec![1, 2]).is_err());
        assert!(Edge::from_split_points(vec![0, 2, 1]).is_err());
        assert!(Edge::from_sizes(&[1, -1]).is_err());
    }

    #[test]
    fn broadcast_map_repeats_parents() {
        let s = seed_shape();
        assert_eq!(s.prefix(1).broadcast_map(&s).unwrap(), vec![0, 0, 0, 1, 1, 1]);
        assert_eq!(s.prefix(2).broadcast_map(&s).unwrap(), vec![0, 0, 1, 2, 2, 2]);
        assert!(s.broadcast_map(&s).is_none());
    }
}
