//! Property tests of plait-core's algebraic laws (one integration binary).

use plait_core::broadcast::expand_to_shape;
use plait_core::column::SliceBuilder;
use plait_core::{DataSlice, Edge, JaggedShape, ScalarRef, Schema};
use proptest::prelude::*;

fn any_schema() -> impl Strategy<Value = Schema> {
    proptest::sample::select(Schema::ALL.to_vec())
}

/// A random jagged shape: rank 0..4, each dimension's sizes 0..4 per parent.
fn any_shape() -> impl Strategy<Value = JaggedShape> {
    (0usize..4, proptest::collection::vec(0i64..4, 64)).prop_map(|(rank, pool)| {
        let mut edges = Vec::new();
        let mut parents = 1usize;
        let mut next = pool.iter().cycle();
        for _ in 0..rank {
            let sizes: Vec<i64> = (0..parents).map(|_| *next.next().unwrap()).collect();
            let edge = Edge::from_sizes(&sizes).unwrap();
            parents = edge.child_size();
            edges.push(edge);
        }
        JaggedShape::from_edges(edges).unwrap()
    })
}

fn int_slice(shape: JaggedShape) -> DataSlice {
    let mut builder = SliceBuilder::new();
    for i in 0..shape.size() {
        builder.push(if i % 5 == 3 { None } else { Some(ScalarRef::Int64(i as i64)) });
    }
    DataSlice::from_data("test", shape, builder.finish()).unwrap()
}

proptest! {
    #[test]
    fn common_schema_is_commutative(a in any_schema(), b in any_schema()) {
        prop_assert_eq!(Schema::common(a, b), Schema::common(b, a));
    }

    #[test]
    fn common_schema_is_associative(a in any_schema(), b in any_schema(), c in any_schema()) {
        let left = Schema::common(a, b).and_then(|ab| Schema::common(ab, c));
        let right = Schema::common(b, c).and_then(|bc| Schema::common(a, bc));
        prop_assert_eq!(left, right);
    }

    #[test]
    fn sizes_and_split_points_round_trip(sizes in proptest::collection::vec(0i64..10, 0..50)) {
        let edge = Edge::from_sizes(&sizes).unwrap();
        prop_assert_eq!(edge.sizes(), sizes.clone());
        let points = edge.split_points().iter().copied().collect::<Vec<i64>>();
        let again = Edge::from_split_points(points).unwrap();
        prop_assert_eq!(&again, &edge);
        prop_assert_eq!(again.sizes(), sizes);
    }

    #[test]
    fn expand_to_keeps_values_and_reaches_target(target in any_shape(), cut in 0usize..4) {
        let prefix = target.prefix(cut.min(target.rank()));
        let x = int_slice(prefix.clone());
        let out = expand_to_shape("test", &x, &target, 0).unwrap();
        prop_assert_eq!(out.shape(), &target);
        // Each item of the result equals its ancestor's item in x.
        let map = prefix.broadcast_map(&target).unwrap_or_else(|| (0..target.size()).collect());
        for (i, &m) in map.iter().enumerate() {
            prop_assert_eq!(out.get(i), x.get(m));
        }
    }

    #[test]
    fn flatten_keeps_items_and_size(shape in any_shape(), a in 0usize..5, b in 0usize..5) {
        let (from, to) = (a.min(shape.rank()), b.min(shape.rank()));
        let (from, to) = (from.min(to), from.max(to));
        let flat = shape.flatten(from, to);
        prop_assert_eq!(flat.size(), shape.size());
        let expected_rank = if from == to { shape.rank() + 1 } else { shape.rank() - (to - from) + 1 };
        prop_assert_eq!(flat.rank(), expected_rank);
    }
}

/// Flatten and reshape only build a new shape: the item buffers are shared.
#[test]
fn flatten_and_reshape_do_not_copy_items() {
    use plait_core::Values;
    let shape = JaggedShape::from_edges(vec![Edge::uniform(1, 3), Edge::from_sizes(&[2, 1, 3]).unwrap()]).unwrap();
    let x = int_slice(shape);
    let flat = x.with_shape("kd.flatten", x.shape().flatten(0, 2)).unwrap();
    let reshaped = flat.with_shape("kd.reshape", JaggedShape::from_edges(vec![Edge::uniform(1, 2), Edge::uniform(2, 3)]).unwrap()).unwrap();
    let address = |s: &DataSlice| match &s.data().columns()[0].values {
        Values::Int64(v) => v.as_ptr(),
        other => panic!("unexpected column {other:?}"),
    };
    assert_eq!(address(&x), address(&flat));
    assert_eq!(address(&x), address(&reshaped));
    assert_eq!(reshaped.shape().to_string(), "JaggedShape(2, 3)");
}
