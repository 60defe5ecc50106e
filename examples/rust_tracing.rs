//! Tracing a functor from Rust: a closure over `Expr` handles becomes a
//! functor item (the layout `kd.fn` makes in Python), which is then called.
//!
//! Run with `cargo run -p plait-expr --example rust_tracing`.

use plait_core::column::SliceBuilder;
use plait_core::repr::repr_slice;
use plait_core::{DataSlice, JaggedShape, ScalarRef, Schema};
use plait_expr::tracing::{call, call_expr, int32, int32_value, op, trace};
use plait_expr::{Expr, ExprValue};

/// A one-dimensional INT32 slice, as an argument.
fn ints(values: &[i32]) -> plait_core::Result<ExprValue> {
    let mut builder = SliceBuilder::new();
    for v in values {
        builder.push(Some(ScalarRef::Int32(*v)));
    }
    Ok(ExprValue::slice(DataSlice::new(JaggedShape::flat(values.len()), builder.finish(), Schema::Int32)?))
}

fn main() -> plait_core::Result<()> {
    // total(prices, qty) = kd.math.agg_sum(prices * qty) + 1
    let total = trace("total", &["prices", "qty"], |p| {
        let line = &p[0] * &p[1];
        Ok(op("kd.math.agg_sum", &[&line])? + int32(1))
    })?;
    println!("{}", repr_slice(&total));
    let result = call(&total, vec![ints(&[1, 2, 3])?, ints(&[4, 5, 6])?])?;
    println!("total([1, 2, 3], [4, 5, 6]) = {}", result.repr());

    // A functor calling another one.
    let inc = Expr::literal(ExprValue::slice(trace("inc", &["x"], |p| Ok(&p[0] + int32(1)))?));
    let twice = trace("twice", &["x"], |p| {
        let once = call_expr(&inc, &[&p[0]])?;
        call_expr(&inc, &[&once])
    })?;
    println!("twice(5) = {}", call(&twice, vec![int32_value(5)])?.repr());
    Ok(())
}
