//! `.S[...]` / `kd.subslice`: index dimensions left to right (seed 000,
//! "Indexing").
//!
//! With fewer arguments than dimensions (and no `...`), the arguments apply to
//! the last dimensions. An integer picks one child per parent and removes the
//! dimension (out of range gives a missing item); a range keeps the dimension;
//! a DataSlice gives per-parent indices.

use crate::cast::cast_to_narrow;
use crate::column::{MISSING_INDEX, ScalarRef};
use crate::error::{Error, Result};
use crate::schema::Schema;
use crate::shape::{Edge, JaggedShape};
use crate::slice::DataSlice;

const OP: &str = "kd.slices.subslice";

/// One argument of [`subslice`].
#[derive(Clone, Debug)]
pub enum SliceArg {
    /// One child per parent; negative counts from the end.
    Index(i64),
    /// Children `start..stop` of each parent, Python slice rules (no step).
    Range { start: Option<i64>, stop: Option<i64> },
    /// Stands for all dimensions not named by other arguments.
    Ellipsis,
    /// Per-parent indices: as many dimensions as the result so far (one index
    /// per parent, the dimension goes away) or one more (a list of indices per
    /// parent, the dimension stays).
    Slice(DataSlice),
}

/// Applies `args` to the dimensions of `x`.
pub fn subslice(x: &DataSlice, args: &[SliceArg]) -> Result<DataSlice> {
    let rank = x.rank();
    let ellipses = args.iter().filter(|a| matches!(a, SliceArg::Ellipsis)).count();
    if ellipses > 1 {
        return Err(Error::value(OP, "slicing arguments can contain at most one ellipsis"));
    }
    let named = args.len() - ellipses;
    if named > rank {
        return Err(Error::value(
            OP,
            format!("cannot subslice DataSlice 'x' as the number of provided non-ellipsis slicing arguments is larger than x.ndim: {named} > {rank}"),
        ));
    }
    // One argument per dimension: the ellipsis (explicit, or implicit in front)
    // expands to full ranges.
    let full = SliceArg::Range { start: None, stop: None };
    let split = args.iter().position(|a| matches!(a, SliceArg::Ellipsis)).unwrap_or(0);
    let after_ellipsis = if ellipses == 1 { &args[split + 1..] } else { args };
    let before_ellipsis = if ellipses == 1 { &args[..split] } else { &[][..] };
    let per_dim: Vec<&SliceArg> = before_ellipsis.iter().chain(std::iter::repeat_n(&full, rank - named)).chain(after_ellipsis.iter()).collect();

    let mut positions: Vec<usize> = vec![0];
    let mut edges: Vec<Edge> = Vec::new();
    for (edge, arg) in x.shape().edges().iter().zip(per_dim) {
        match arg {
            SliceArg::Index(i) => {
                positions = positions.iter().map(|&p| pick(edge, p, *i)).collect();
            }
            SliceArg::Range { start, stop } => {
                let mut next = Vec::new();
                let mut sizes = Vec::with_capacity(positions.len());
                for &p in &positions {
                    if p == MISSING_INDEX {
                        sizes.push(0);
                        continue;
                    }
                    let range = edge.child_range(p);
                    let (a, b) = resolve_range(range.len(), *start, *stop);
                    next.extend(range.start + a..range.start + b);
                    sizes.push((b - a) as i64);
                }
                edges.push(Edge::from_sizes(&sizes)?);
                positions = next;
            }
            SliceArg::Slice(indices) => {
                let current = JaggedShape::from_edges(edges.clone())?;
                positions = pick_by_slice(edge, &positions, &current, indices, &mut edges)?;
            }
            SliceArg::Ellipsis => unreachable!("ellipsis was expanded above"),
        }
    }
    let shape = JaggedShape::from_edges(edges)?;
    Ok(DataSlice::new(shape, x.data().take(&positions), x.schema())?.with_bag(x.bag().cloned()))
}

/// The child `i` of parent `p` (negative from the end), or missing.
fn pick(edge: &Edge, p: usize, i: i64) -> usize {
    if p == MISSING_INDEX {
        return MISSING_INDEX;
    }
    let range = edge.child_range(p);
    let len = range.len() as i64;
    let i = if i < 0 { i + len } else { i };
    if (0..len).contains(&i) { range.start + i as usize } else { MISSING_INDEX }
}

/// Python's clipping of `start:stop` to `0..len`.
fn resolve_range(len: usize, start: Option<i64>, stop: Option<i64>) -> (usize, usize) {
    let len = len as i64;
    let clip = |v: i64| if v < 0 { (v + len).max(0) } else { v.min(len) };
    let a = start.map_or(0, clip);
    let b = stop.map_or(len, clip);
    (a as usize, b.max(a) as usize)
}

/// Index by a DataSlice of integers aligned with the result built so far.
fn pick_by_slice(edge: &Edge, positions: &[usize], current: &JaggedShape, indices: &DataSlice, edges: &mut Vec<Edge>) -> Result<Vec<usize>> {
    // The indices and the result so far must be broadcast-compatible.
    crate::broadcast::common_shape(OP, &[indices.shape(), current])?;
    let indices = cast_to_narrow(OP, indices, Schema::Int64)
        .map_err(|_| Error::value(OP, format!("the provided indices must contain only integers, got {}", indices.schema())))?;
    let index_at = |k: usize| match indices.get(k) {
        Some(ScalarRef::Int64(v)) => Some(v),
        _ => None,
    };
    if indices.rank() <= current.rank() {
        let aligned = crate::broadcast::expand_to_shape(OP, &indices, current, 0)?;
        return Ok(positions
            .iter()
            .enumerate()
            .map(|(k, &p)| match aligned.get(k) {
                Some(ScalarRef::Int64(i)) => pick(edge, p, i),
                _ => MISSING_INDEX,
            })
            .collect());
    }
    let index_shape = indices.shape();
    if index_shape.rank() != current.rank() + 1 || !current.is_prefix_of(index_shape) {
        return Err(Error::value(
            OP,
            format!(
                "a DataSlice of indices with shape {index_shape} does not fit the result shape {current} (it must have the same dimensions, or one more)"
            ),
        ));
    }
    let last = &index_shape.edges()[current.rank()];
    let mut next = Vec::with_capacity(indices.size());
    for (k, &p) in positions.iter().enumerate() {
        for j in last.child_range(k) {
            next.push(index_at(j).map_or(MISSING_INDEX, |i| pick(edge, p, i)));
        }
    }
    edges.push(last.clone());
    Ok(next)
}
