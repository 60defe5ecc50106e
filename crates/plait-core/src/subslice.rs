//! `.S[...]` / `kd.subslice`: index dimensions left to right (seed 000,
//! "Indexing").
//!
//! With fewer arguments than dimensions (and no `...`), the arguments apply to
//! the last dimensions. An integer picks one child per parent and removes the
//! dimension (out of range gives a missing item); a range keeps the dimension;
//! a DataSlice gives per-parent indices. Range bounds may be DataSlices: a
//! range per parent, or several per parent when the bounds have more
//! dimensions (`ds.S[:kd.index(ds) + 1]`: every prefix of each row).

use std::ops::Range;

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
    /// A range whose bounds are DataSlices of integers, aligned with the
    /// result so far (one range per parent) or with more dimensions (several
    /// ranges per parent, those dimensions kept). A missing bound gives an
    /// empty range; `None` stands for the start / end.
    Ranges { start: Option<DataSlice>, stop: Option<DataSlice> },
    /// Stands for all dimensions not named by other arguments.
    Ellipsis,
    /// Per-parent indices: as many dimensions as the result so far (one index
    /// per parent, the dimension goes away) or more (a list of indices per
    /// parent, or lists of lists: the extra dimensions are kept).
    Slice(DataSlice),
}

impl SliceArg {
    /// The range `start:stop`: [`SliceArg::Range`] when each bound is an
    /// integer item or `None`, else [`SliceArg::Ranges`].
    pub fn range(start: Option<DataSlice>, stop: Option<DataSlice>) -> SliceArg {
        let int_item = DataSlice::int_item;
        match (start.as_ref().map(int_item), stop.as_ref().map(int_item)) {
            (None | Some(Some(_)), None | Some(Some(_))) => {
                SliceArg::Range { start: start.as_ref().and_then(int_item), stop: stop.as_ref().and_then(int_item) }
            }
            _ => SliceArg::Ranges { start, stop },
        }
    }
}

/// Rows `start..stop` of dimension 0 of `x` (rank > 0), whole: the items
/// under them share `x`'s fixed-width buffers (the shards of
/// `kd.shard_map`; only the shape's offsets are rebuilt).
pub fn rows(x: &DataSlice, start: usize, stop: usize) -> Result<DataSlice> {
    let edges = x.shape().edges();
    let Some(first) = edges.first() else {
        return Err(Error::value(OP, "a DataItem (rank 0) has no rows"));
    };
    let n_rows = first.child_size();
    if start > stop || stop > n_rows {
        return Err(Error::value(OP, format!("rows {start}..{stop} of a DataSlice with {n_rows} rows")));
    }
    let mut new_edges = vec![Edge::uniform(1, stop - start)];
    // The range of the current dimension's items, dimension by dimension.
    let (mut lo, mut hi) = (start, stop);
    for edge in &edges[1..] {
        let new = match edge.uniform_size() {
            Some(size) => Edge::uniform(hi - lo, size),
            None => {
                let points = edge.split_points();
                let base = points[lo];
                Edge::from_split_points(points[lo..=hi].iter().map(|p| p - base).collect())?
            }
        };
        new_edges.push(new);
        (lo, hi) = (edge.start_of(lo), edge.start_of(hi));
    }
    let shape = JaggedShape::from_edges(new_edges)?;
    DataSlice::new(shape, x.data().range(lo..hi), x.schema()).map(|s| match x.bag() {
        Some(bag) => s.with_bag(Some(bag.clone())),
        None => s,
    })
}

/// Applies `args` to the dimensions of `x`.
pub fn subslice(x: &DataSlice, args: &[SliceArg]) -> Result<DataSlice> {
    let rank = x.rank();
    let at: Vec<usize> = args.iter().enumerate().filter(|(_, a)| matches!(a, SliceArg::Ellipsis)).map(|(i, _)| i).collect();
    if let [first, second, ..] = at[..] {
        return Err(Error::value(
            OP,
            format!(
                "slicing argument at position {second} is invalid: ellipsis ... can appear at most once in the slicing arguments, \
                 found at least two at positions: {first} and {second}"
            ),
        ));
    }
    let ellipses = at.len();
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
    // Rows sliced by ranges in the last dimension are copied a run at a time.
    let mut last_ranges: Option<Vec<Range<usize>>> = None;
    let dims = x.shape().edges().len();
    for (d, (edge, arg)) in x.shape().edges().iter().zip(per_dim).enumerate() {
        let ranges = match arg {
            SliceArg::Index(i) => {
                positions = positions.iter().map(|&p| pick(edge, p, *i)).collect();
                continue;
            }
            SliceArg::Range { start, stop } => {
                let mut ranges = Vec::with_capacity(positions.len());
                for &p in &positions {
                    ranges.push(if p == MISSING_INDEX {
                        0..0
                    } else {
                        let range = edge.child_range(p);
                        let (a, b) = resolve_range(range.len(), *start, *stop);
                        range.start + a..range.start + b
                    });
                }
                ranges
            }
            SliceArg::Slice(indices) => {
                let current = JaggedShape::from_edges(edges.clone())?;
                positions = pick_by_slice(edge, &positions, &current, indices, &mut edges)?;
                continue;
            }
            SliceArg::Ranges { start, stop } => {
                let current = JaggedShape::from_edges(edges.clone())?;
                pick_ranges(edge, &positions, &current, start.as_ref(), stop.as_ref(), &mut edges)?
            }
            SliceArg::Ellipsis => unreachable!("ellipsis was expanded above"),
        };
        let sizes: Vec<i64> = ranges.iter().map(|r| r.len() as i64).collect();
        edges.push(Edge::from_sizes(&sizes)?);
        if d + 1 == dims {
            last_ranges = Some(ranges);
        } else {
            positions = ranges.into_iter().flatten().collect();
        }
    }
    let shape = JaggedShape::from_edges(edges)?;
    let data = match &last_ranges {
        Some(ranges) => x.data().take_ranges(ranges),
        None => x.data().take(&positions),
    };
    Ok(DataSlice::new(shape, data, x.schema())?.with_bag(x.bag().cloned()))
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

/// Ranges whose bounds are DataSlices (see [`SliceArg::Ranges`]): the
/// range of children each item of the result takes (pushing the edges of
/// the bounds' own extra dimensions; the caller pushes the ranges' edge).
fn pick_ranges(
    edge: &Edge,
    positions: &[usize],
    current: &JaggedShape,
    start: Option<&DataSlice>,
    stop: Option<&DataSlice>,
    edges: &mut Vec<Edge>,
) -> Result<Vec<Range<usize>>> {
    let mut shapes: Vec<&JaggedShape> = [start, stop].into_iter().flatten().map(DataSlice::shape).collect();
    shapes.push(current);
    let target = crate::broadcast::common_shape(OP, &shapes)?;
    if !current.is_prefix_of(&target) {
        return Err(Error::value(OP, format!("range bounds of shape {target} do not fit the result shape {current}")));
    }
    let bound = |name: &str, b: Option<&DataSlice>| -> Result<Option<DataSlice>> {
        b.map(|b| {
            let b = cast_to_narrow(OP, b, Schema::Int64)
                .map_err(|_| Error::value(OP, format!("'{name}' argument of a Slice must contain only integers, got {}", b.schema())))?;
            crate::broadcast::expand_to_shape(OP, &b, &target, 0)
        })
        .transpose()
    };
    let (start, stop) = (bound("start", start)?, bound("stop", stop)?);
    // The position (in `positions`) each target item descends from; the
    // bounds' own extra dimensions are kept.
    let mut parent: Vec<usize> = (0..current.size()).collect();
    for extra in &target.edges()[current.rank()..] {
        parent = extra.parent_ids().into_iter().map(|p| parent[p]).collect();
        edges.push(extra.clone());
    }
    // `Some(None)`: unspecified (the start / end); `None`: a missing item.
    // Read straight from the INT64 column.
    let column = |b: &Option<DataSlice>| b.as_ref().map(|b| b.data().single_column().cloned());
    let (start_column, stop_column) = (column(&start), column(&stop));
    let value_at = |c: &Option<Option<crate::column::Column>>, k: usize| match c {
        None => Some(None),
        Some(None) => None,
        Some(Some(c)) => match &c.values {
            crate::column::Values::Int64(v) if c.is_present(k) => Some(Some(v[k])),
            _ => None,
        },
    };
    let ranges = parent
        .iter()
        .enumerate()
        .map(|(k, &from)| {
            let p = positions[from];
            match (value_at(&start_column, k), value_at(&stop_column, k)) {
                (Some(a), Some(b)) if p != MISSING_INDEX => {
                    let range = edge.child_range(p);
                    let (a, b) = resolve_range(range.len(), a, b);
                    range.start + a..range.start + b
                }
                _ => 0..0,
            }
        })
        .collect();
    Ok(ranges)
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
    if !current.is_prefix_of(index_shape) {
        return Err(Error::value(
            OP,
            format!(
                "a DataSlice of indices with shape {index_shape} does not fit the result shape {current} (its leading dimensions must be the result's)"
            ),
        ));
    }
    // The indices' extra dimensions are kept (one more: a list of indices
    // per parent; two more: lists of lists, ...): the item of `positions`
    // each index descends from.
    let mut parent: Vec<usize> = (0..current.size()).collect();
    for extra in &index_shape.edges()[current.rank()..] {
        parent = extra.parent_ids().into_iter().map(|p| parent[p]).collect();
        edges.push(extra.clone());
    }
    Ok(parent.iter().enumerate().map(|(k, &from)| index_at(k).map_or(MISSING_INDEX, |i| pick(edge, positions[from], i))).collect())
}
