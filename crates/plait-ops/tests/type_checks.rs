//! `PLAIT_CHECK_TYPES`: an operator whose type rule disagrees with its
//! kernel fails loudly when the checks are on (the test suite runs with
//! them on, so every eager call there checks its operator's rule).

use plait_core::typing::{Dim, SchemaType, Size, SliceType};
use plait_core::{DataSlice, JaggedShape, Schema, SliceData, Values};
use plait_ops::registry::{Registry, Value};
use plait_ops::typing::rules::{Out, like};
use plait_ops::typing::{TypeRule, TypeValue, check};

fn ints(values: &[i32]) -> Value {
    let column = plait_core::Column::full(Values::Int32(values.to_vec().into()));
    Value::Slice(DataSlice::new(JaggedShape::flat(values.len()), SliceData::from_column(column), Schema::Int32).unwrap())
}

/// A registry of one operator, `kd.test.identity(x)`, with `rule`.
fn identity_with(rule: TypeRule) -> Registry {
    let mut r = Registry::default();
    r.add("kd.test.identity", &[], "x", "Returns `x`.", |a| Ok(a.slice("x")?.clone()));
    r.type_rule("kd.test.identity", rule);
    r
}

fn call(r: &Registry) -> plait_core::Result<Value> {
    r.get("kd.test.identity").unwrap().call(vec![ints(&[1, 2, 3])], Vec::new())
}

#[test]
fn wrong_rules_are_caught_and_right_ones_pass() {
    check::set_enabled(true);
    assert!(call(&identity_with(like("x", Out::SameAs("x")))).is_ok());
    // A size parameter binds to what the result has.
    let named = TypeRule::new(|_| Ok(TypeValue::slice(SliceType::new(SchemaType::Named(Schema::Int32), vec![Dim::Uniform(Size::param("n"))]))));
    assert!(call(&identity_with(named)).is_ok());

    let cases: Vec<(TypeRule, &str)> = vec![
        (like("x", Out::Fixed(Schema::Float64)), "it infers FLOAT64[3], the result is INT32[3]: schema INT32 is not FLOAT64"),
        (
            TypeRule::new(|_| Ok(TypeValue::slice(SliceType::new(SchemaType::Named(Schema::Int32), vec![Dim::Uniform(Size::constant(4))])))),
            "dimension 0 is 3, not 4",
        ),
        (TypeRule::new(|_| Ok(TypeValue::slice(SliceType::new(SchemaType::Unknown, Vec::new())))), "rank 1 is not 0"),
        (TypeRule::new(|_| Ok(TypeValue::Bag)), "a value of another kind"),
        (TypeRule::new(|a| Err(plait_core::Error::value(a.op_name(), "no"))), "it refuses arguments the operator accepts (kd.test.identity: no)"),
    ];
    for (rule, expected) in cases {
        let err = call(&identity_with(rule)).unwrap_err();
        assert_eq!(err.kind, plait_core::ErrorKind::Internal);
        assert!(err.message.contains("the type rule of kd.test.identity is wrong"), "{}", err.message);
        assert!(err.message.contains(expected), "{}", err.message);
    }
    check::set_enabled(false);
    assert!(call(&identity_with(like("x", Out::Fixed(Schema::Float64)))).is_ok());
}
