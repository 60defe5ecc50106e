//! A functor saved by Python (`kd.dump`, see `test_control_flow_functor_file`
//! in `python/tests/persist/test_persist.py`, which writes it) is loaded and
//! called here with no Python at all: its `kd.if_` and `kd.map` are
//! registry operators, and its lambdas are functors stored in it.

use plait_core::column::SliceBuilder;
use plait_core::{DataSlice, JaggedShape, ScalarRef, Schema};
use plait_expr::ExprValue;
use plait_expr::functor::call;
use plait_ops::registry::Value;
use plait_persist::{Saved, loads};

const FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../python/tests/persist/golden/v2_control_flow_functor.plait");

fn ints(values: &[Option<i32>]) -> DataSlice {
    let mut b = SliceBuilder::new();
    for v in values {
        b.push(v.map(ScalarRef::Int32));
    }
    DataSlice::new(JaggedShape::flat(values.len()), b.finish(), Schema::Int32).unwrap()
}

fn int_item(v: i32) -> ExprValue {
    ExprValue::slice(DataSlice::item(Some(ScalarRef::Int32(v)), Schema::Int32).unwrap())
}

fn values(v: &ExprValue) -> Vec<Option<i32>> {
    let ExprValue::Data(Value::Slice(x)) = v else { panic!("expected a DataSlice, got {}", v.kind_name()) };
    (0..x.size())
        .map(|i| match x.get(i) {
            Some(ScalarRef::Int32(v)) => Some(v),
            None => None,
            other => panic!("expected INT32, got {other:?}"),
        })
        .collect()
}

#[test]
fn a_saved_functor_with_if_and_map_runs_without_python() {
    let bytes = std::fs::read(FILE).expect("the golden functor file");
    let Saved::Slice(f) = loads(&bytes).unwrap() else { panic!("the file holds a functor") };
    assert!(plait_expr::functor::is_functor(&f));
    let x = ExprValue::slice(ints(&[Some(1), None, Some(3)]));
    // score(x, threshold): each item doubled by kd.map; then +1 when
    // sum(x) > threshold, else -1, chosen by kd.if_.
    let high = call(&f, vec![x.clone(), int_item(2)], Vec::new()).map_err(|e| e.error).unwrap();
    assert_eq!(values(&high), [Some(3), None, Some(7)]);
    let low = call(&f, vec![x, int_item(10)], Vec::new()).map_err(|e| e.error).unwrap();
    assert_eq!(values(&low), [Some(1), None, Some(5)]);
    // The functor's own errors, as in Python: the threshold must be an item.
    let err = call(&f, vec![ExprValue::slice(ints(&[Some(1)])), ExprValue::slice(ints(&[Some(1)]))], Vec::new()).unwrap_err();
    assert!(err.error.message.contains("the condition in kd.if_ must be a MASK scalar"), "{}", err.error.message);
}
