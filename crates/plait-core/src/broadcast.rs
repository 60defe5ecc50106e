//! Prefix broadcasting (seed 000, "Broadcasting"): a slice expands to any shape
//! that its own shape is a prefix of, repeating each item for every descendant.
//! Every operator that combines slices aligns them here.

use crate::error::{Error, Result};
use crate::shape::{Edge, JaggedShape};
use crate::slice::DataSlice;

/// Expands `x` to `shape`. With `ndim > 0`, the last `ndim` dimensions of `x` are
/// kept as they are and travel with each item: `x` without them must be a prefix
/// of `shape`, and the result has `shape` followed by those dimensions.
pub fn expand_to_shape(op: &str, x: &DataSlice, shape: &JaggedShape, ndim: usize) -> Result<DataSlice> {
    if ndim > x.rank() {
        return Err(Error::value(op, format!("ndim must be between 0 and x.get_ndim()={}, got {ndim}", x.rank())));
    }
    let kept_from = x.rank() - ndim;
    let prefix = x.shape().prefix(kept_from);
    if !prefix.is_prefix_of(shape) {
        return Err(Error::value(
            op,
            if ndim == 0 {
                format!("DataSlice with shape={} cannot be expanded to shape={shape}", x.shape())
            } else {
                format!(
                    "DataSlice with shape={} (without its last ndim={ndim} dimensions: {prefix}) \
                     cannot be expanded to shape={shape}",
                    x.shape()
                )
            },
        ));
    }
    if ndim == 0 && prefix.rank() == shape.rank() {
        return Ok(x.clone());
    }
    // A shape from user input (say 10**12 items) gives an error here
    // instead of an allocation failure, which would abort the process.
    crate::limits::ensure_allocatable(op, shape.size(), 8)?;
    if ndim == 0 {
        // Map items down to the second-to-last dimension, then repeat them in
        // runs along the last edge (the large one) without an index per item.
        let last = shape.rank() - 1;
        let parents = prefix.broadcast_map(&shape.prefix(last));
        let data = x.data().repeat_by_edge(parents.as_deref(), &shape.edges()[last]);
        return Ok(DataSlice::new(shape.clone(), data, x.schema())?.with_bag(x.bag().cloned()));
    }
    let mut map = prefix.broadcast_map(shape).unwrap_or_else(|| (0..shape.size()).collect());
    let mut edges = shape.edges().to_vec();
    for edge in &x.shape().edges()[kept_from..] {
        let sizes: Vec<i64> = map.iter().map(|&m| edge.size_of(m) as i64).collect();
        let mut next = Vec::new();
        for &m in &map {
            next.extend(edge.child_range(m));
        }
        edges.push(Edge::from_sizes(&sizes)?);
        map = next;
    }
    let new_shape = JaggedShape::from_edges(edges)?;
    Ok(DataSlice::new(new_shape, x.data().take(&map), x.schema())?.with_bag(x.bag().cloned()))
}

/// Operators whose shape errors name the second argument's shape first, as
/// Koda's do (it evaluates them with their arguments swapped).
const SHAPES_NAMED_REVERSED: &[&str] = &[
    "kd.comparison.equal",
    "kd.comparison.not_equal",
    "kd.comparison.full_equal",
    "kd.masking.coalesce",
    "kd.masking.apply_mask",
    "kd.masking.mask_and",
    "kd.masking.mask_or",
    "kd.masking.mask_equal",
    "kd.masking.mask_not_equal",
    "kd.lists.concat",
];

/// The common shape of `shapes`: the one every other is a prefix of. An
/// error names the two shapes that disagree in the arguments' order (as
/// Koda's: `add(x, y)` says `x's shape vs y's shape`; a few operators name
/// them the other way round, as Koda's do).
pub fn common_shape(op: &str, shapes: &[&JaggedShape]) -> Result<JaggedShape> {
    let Some((w, widest)) = shapes.iter().enumerate().max_by_key(|(_, s)| s.rank()) else {
        return Ok(JaggedShape::scalar());
    };
    for (i, s) in shapes.iter().enumerate() {
        if !s.is_prefix_of(widest) {
            let in_order = (i < w) != SHAPES_NAMED_REVERSED.contains(&op);
            let (first, second) = if in_order { (s, widest) } else { (widest, s) };
            return Err(Error::value(op, format!("shapes are not compatible: {first} vs {second}")));
        }
    }
    Ok((*widest).clone())
}

/// Expands every slice to the common shape of all of them (operators
/// aligning their arguments; errors name the shapes that disagree).
pub fn align(op: &str, slices: &[&DataSlice]) -> Result<Vec<DataSlice>> {
    let shapes: Vec<&JaggedShape> = slices.iter().map(|s| s.shape()).collect();
    let shape = common_shape(op, &shapes)?;
    slices.iter().map(|s| expand_to_shape(op, s, &shape, 0)).collect()
}

/// [`align`] as `kd.align` (and `kd.zip`, `kd.repeat`, ..., which Koda
/// builds on it) does it: to the first slice of the highest rank, a slice
/// that cannot expand to it named in the error.
pub fn align_to_first_widest(op: &str, slices: &[&DataSlice]) -> Result<Vec<DataSlice>> {
    let Some(rank) = slices.iter().map(|s| s.rank()).max() else {
        return Ok(Vec::new());
    };
    let target = slices.iter().find(|s| s.rank() == rank).expect("a slice of the highest rank").shape().clone();
    if let Some(x) = slices.iter().find(|s| !s.shape().is_prefix_of(&target)) {
        return Err(Error::value(op, format!("DataSlice with shape={} cannot be expanded to shape={target}", x.shape())));
    }
    slices.iter().map(|s| expand_to_shape(op, s, &target, 0)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::column::{ScalarRef, SliceBuilder};
    use crate::schema::Schema;

    fn strings(shape: JaggedShape, items: &[&str]) -> DataSlice {
        let mut b = SliceBuilder::new();
        for s in items {
            b.push(Some(ScalarRef::String(s)));
        }
        DataSlice::new(shape, b.finish(), Schema::String).unwrap()
    }

    fn shape(edges: &[&[i64]]) -> JaggedShape {
        JaggedShape::from_edges(edges.iter().map(|s| Edge::from_sizes(s).unwrap()).collect()).unwrap()
    }

    #[test]
    fn seed_queries_and_docs() {
        let queries = strings(JaggedShape::flat(2), &["query_1", "query_2"]);
        let docs = shape(&[&[2], &[2, 1]]);
        let out = expand_to_shape("kd.expand_to", &queries, &docs, 0).unwrap();
        let got: Vec<_> = (0..3).map(|i| out.get(i)).collect();
        assert_eq!(got, vec![Some(ScalarRef::String("query_1")), Some(ScalarRef::String("query_1")), Some(ScalarRef::String("query_2"))]);
        assert_eq!(out.shape(), &docs);
    }

    #[test]
    fn non_prefix_fails_with_both_shapes() {
        let ds3 = strings(JaggedShape::flat(3), &["a", "b", "c"]);
        let err = expand_to_shape("kd.shapes.expand_to_shape", &ds3, &shape(&[&[2], &[3, 3]]), 0).unwrap_err();
        assert_eq!(err.message, "kd.shapes.expand_to_shape: DataSlice with shape=JaggedShape(3) cannot be expanded to shape=JaggedShape(2, 3)");
    }

    #[test]
    fn ndim_keeps_last_dimensions() {
        // x = [['a', 'b'], ['c']] expanded with ndim=1 onto [[_, _], [_]].
        let x = strings(shape(&[&[2], &[2, 1]]), &["a", "b", "c"]);
        let target = shape(&[&[2], &[2, 1]]);
        let out = expand_to_shape("kd.expand_to", &x, &target, 1).unwrap();
        assert_eq!(out.shape().to_string(), "JaggedShape(2, [2, 1], [2, 2, 1])");
        let got: Vec<_> = (0..5).map(|i| out.get(i).unwrap()).collect();
        let want = ["a", "b", "a", "b", "c"].map(ScalarRef::String);
        assert_eq!(got, want);
    }
}
