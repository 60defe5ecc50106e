//! Rust-level tests of plait-ops: the registry, binding, and kernels on both
//! the sequential and the parallel path.

use plait_core::{DataSlice, Edge, JaggedShape, ScalarRef, Schema, SliceData, Values};
use plait_ops::registry::{ParamKind, Value, parse_signature, registry};
use plait_ops::{comparison, math};

fn ints(values: &[i32]) -> DataSlice {
    let column = plait_core::Column::full(Values::Int32(values.to_vec().into()));
    DataSlice::new(JaggedShape::flat(values.len()), SliceData::from_column(column), Schema::Int32).unwrap()
}

fn int_item(v: i32) -> DataSlice {
    DataSlice::item(Some(ScalarRef::Int32(v)), Schema::Int32).unwrap()
}

fn to_i64s(x: &DataSlice) -> Vec<Option<i64>> {
    (0..x.size())
        .map(|i| match x.get(i) {
            Some(ScalarRef::Int32(v)) => Some(v as i64),
            Some(ScalarRef::Int64(v)) => Some(v),
            None => None,
            other => panic!("unexpected {other:?}"),
        })
        .collect()
}

#[test]
fn every_operator_is_registered_once_with_a_valid_signature() {
    let r = registry();
    assert!(r.operators().len() > 80);
    for op in r.operators() {
        assert!(op.name.starts_with("kd."), "{}", op.name);
        assert!(!op.doc.is_empty(), "{} has no description", op.name);
        assert!(std::ptr::eq(r.get(op.name).unwrap(), op));
        for alias in &op.aliases {
            assert!(std::ptr::eq(r.get(alias).unwrap(), op));
        }
    }
    assert!(std::ptr::eq(r.get("kd.agg_sum").unwrap(), r.get("kd.math.agg_sum").unwrap()));
}

#[test]
fn signatures_parse_like_python() {
    let params = parse_signature("fmt, /, *args, sep='x', ndim=unspecified, **kwargs").unwrap();
    let kinds: Vec<ParamKind> = params.iter().map(|p| p.kind).collect();
    assert_eq!(kinds, [ParamKind::PositionalOnly, ParamKind::VarPositional, ParamKind::KeywordOnly, ParamKind::KeywordOnly, ParamKind::VarKeyword]);
    assert!(params[0].default.is_none());
    assert!(matches!(params[3].default, Some(None)));
    assert_eq!(params[2].default.as_ref().unwrap().as_ref().unwrap().get(0), Some(ScalarRef::String("x")));
    assert!(parse_signature("x=nonsense").is_err());
}

#[test]
fn binding_applies_defaults_and_reports_errors() {
    let op = registry().get("kd.math.agg_sum").unwrap();
    let x = DataSlice::new(
        JaggedShape::from_edges(vec![Edge::uniform(1, 2), Edge::from_sizes(&[2, 1]).unwrap()]).unwrap(),
        ints(&[1, 2, 3]).data().clone(),
        Schema::Int32,
    )
    .unwrap();
    let sums = op.call(vec![Value::Slice(x.clone())], vec![]).unwrap().into_slice("test").unwrap();
    assert_eq!(to_i64s(&sums), [Some(3), Some(3)]);
    let total = op.call(vec![Value::Slice(x.clone())], vec![("ndim".into(), Value::Slice(int_item(2)))]).unwrap().into_slice("test").unwrap();
    assert_eq!(to_i64s(&total), [Some(6)]);
    let err = op.call(vec![], vec![]).unwrap_err();
    assert_eq!(err.to_string(), "kd.math.agg_sum: missing 1 required positional argument: 'x'");
    let err = op.call(vec![Value::Slice(x)], vec![("nope".into(), Value::Slice(int_item(1)))]).unwrap_err();
    assert_eq!(err.to_string(), "kd.math.agg_sum: an unexpected keyword argument: 'nope'");
}

#[test]
fn parallel_and_sequential_paths_agree() {
    // Above PARALLEL_MIN the kernels split work across threads.
    let n = plait_ops::kernel::PARALLEL_MIN * 3 + 17;
    let values: Vec<i32> = (0..n as i32).map(|i| i % 1000 - 500).collect();
    let x = ints(&values);
    let doubled = math::multiply(&x, &int_item(2)).unwrap();
    let expected: Vec<Option<i64>> = values.iter().map(|&v| Some(2 * v as i64)).collect();
    assert_eq!(to_i64s(&doubled), expected);
    let positive = comparison::greater(&x, &int_item(0)).unwrap();
    assert_eq!(positive.present_count(), values.iter().filter(|&&v| v > 0).count());
    let sum = math::sum(&x).unwrap();
    assert_eq!(to_i64s(&sum), [Some(values.iter().map(|&v| v as i64).sum::<i64>())]);
}

#[test]
fn jagged_aggregation_over_uneven_groups_in_parallel() {
    let sizes: Vec<i64> = (0..100_000).map(|i| (i % 7) as i64).collect();
    let total: i64 = sizes.iter().sum();
    let values: Vec<i32> = (0..total as i32).collect();
    let shape = JaggedShape::from_edges(vec![Edge::uniform(1, sizes.len()), Edge::from_sizes(&sizes).unwrap()]).unwrap();
    let x = DataSlice::new(shape, ints(&values).data().clone(), Schema::Int32).unwrap();
    let maxima = math::agg_max(&x, None).unwrap();
    let mut start = 0i64;
    for (g, &size) in sizes.iter().enumerate() {
        let expected = (size > 0).then(|| (start + size - 1) as i32);
        assert_eq!(maxima.get(g), expected.map(ScalarRef::Int32), "group {g}");
        start += size;
    }
}
