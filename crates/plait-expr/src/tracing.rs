//! Tracing from Rust: a closure gets one `Expr` handle per parameter
//! (`I.<name>`) and returns the body; the result is a functor item — the
//! same layout `kd.fn` makes, so Python can call, print and store it — and
//! [`call`] evaluates it.
//!
//! ```
//! use plait_expr::tracing::{call, int32, int32_value, trace};
//! let f = trace("add_then_double", &["a", "b"], |p| Ok((&p[0] + &p[1]) * int32(2))).unwrap();
//! let result = call(&f, vec![int32_value(1), int32_value(2)]).unwrap();
//! assert_eq!(result.repr(), "DataItem(6, schema: INT32)");
//! ```
//!
//! Arithmetic operators on `&Expr` / `Expr` build the same nodes as Python's
//! (`kd.math.add`, ...); [`op`] builds any registered operator.

use std::ops::{Add, Div, Mul, Neg, Sub};

use plait_core::{DataSlice, Result, ScalarRef, Schema};
use plait_ops::registry::Value;

use crate::expr::Expr;
use crate::functor::{self, Parameter, make_functor, make_signature};
use crate::packed;
use crate::value::ExprValue;

/// A functor named `name` with positional parameters `params`, whose body
/// `body` builds from the parameters' inputs.
pub fn trace(name: &str, params: &[&str], body: impl FnOnce(&[Expr]) -> Result<Expr>) -> Result<DataSlice> {
    let inputs: Vec<Expr> = params.iter().map(|p| Expr::input(p)).collect();
    let returns = body(&inputs)?;
    let signature = make_signature(&params.iter().map(|p| Parameter::positional(p)).collect::<Vec<_>>())?;
    make_functor("kd.fn", &packed::pack(&returns), &signature, &[], Some(name), None)
}

/// Calls functor `f` with positional arguments.
pub fn call(f: &DataSlice, args: Vec<ExprValue>) -> Result<ExprValue> {
    functor::call(f, args, Vec::new()).map_err(|e| e.error)
}

/// A call of the functor `f` evaluates to, on `args` (`kd.call(f, *args)`).
pub fn call_expr(f: &Expr, args: &[&Expr]) -> Result<Expr> {
    let call_op = crate::operator::lookup_or_error("kd.functor.call")?;
    Expr::call(&call_op, std::iter::once(f.clone()).chain(args.iter().map(|a| (*a).clone())).collect(), Vec::new())
}

/// Operator `name` (a registered name, e.g. `kd.math.agg_sum`) on `args`.
pub fn op(name: &str, args: &[&Expr]) -> Result<Expr> {
    Expr::op(name, args.iter().map(|a| Some((*a).clone())).collect())
}

/// An INT32 literal.
pub fn int32(v: i32) -> Expr {
    Expr::literal(int32_value(v))
}

/// An INT32 DataItem, as an argument value.
pub fn int32_value(v: i32) -> ExprValue {
    ExprValue::Data(Value::Slice(DataSlice::item(Some(ScalarRef::Int32(v)), Schema::Int32).expect("an INT32 item")))
}

/// The INT32 in an item value, for tests that read results.
#[cfg(test)]
pub(crate) fn as_i32(v: &ExprValue) -> Option<i32> {
    match v {
        ExprValue::Data(Value::Slice(x)) => match x.get(0) {
            Some(ScalarRef::Int32(v)) => Some(v),
            _ => None,
        },
        _ => None,
    }
}

/// A FLOAT32 literal.
pub fn float32(v: f32) -> Expr {
    Expr::literal(ExprValue::Data(Value::Slice(DataSlice::item(Some(ScalarRef::Float32(v)), Schema::Float32).expect("a FLOAT32 item"))))
}

macro_rules! binary_operator {
    ($trait:ident, $method:ident, $op:literal) => {
        impl $trait<&Expr> for &Expr {
            type Output = Expr;
            fn $method(self, other: &Expr) -> Expr {
                Expr::op($op, vec![Some(self.clone()), Some(other.clone())]).expect(concat!($op, " takes two arguments"))
            }
        }
        impl $trait<Expr> for Expr {
            type Output = Expr;
            fn $method(self, other: Expr) -> Expr {
                (&self).$method(&other)
            }
        }
        impl $trait<&Expr> for Expr {
            type Output = Expr;
            fn $method(self, other: &Expr) -> Expr {
                (&self).$method(other)
            }
        }
        impl $trait<Expr> for &Expr {
            type Output = Expr;
            fn $method(self, other: Expr) -> Expr {
                self.$method(&other)
            }
        }
    };
}

binary_operator!(Add, add, "kd.math.add");
binary_operator!(Sub, sub, "kd.math.subtract");
binary_operator!(Mul, mul, "kd.math.multiply");
binary_operator!(Div, div, "kd.math.divide");

impl Neg for &Expr {
    type Output = Expr;
    fn neg(self) -> Expr {
        Expr::op("kd.math.neg", vec![Some(self.clone())]).expect("kd.math.neg takes one argument")
    }
}

impl Neg for Expr {
    type Output = Expr;
    fn neg(self) -> Expr {
        -&self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_traced_closure_is_a_functor() {
        let f = trace("add_then_double", &["a", "b"], |p| Ok((&p[0] + &p[1]) * int32(2))).unwrap();
        assert!(functor::is_functor(&f));
        assert_eq!(as_i32(&call(&f, vec![int32_value(1), int32_value(2)]).unwrap()), Some(6));
        let text = plait_core::repr::repr_slice(&f);
        assert!(text.starts_with("DataItem(Functor add_then_double[a, b](returns=(I.a + I.b) * DataItem(2, schema: INT32))"), "{text}");
        // Wrong arity is the call's error, as in Python.
        assert!(call(&f, vec![int32_value(1)]).unwrap_err().message.contains("no value provided for positional or keyword parameter [b]"));
    }

    #[test]
    fn functors_call_functors() {
        let inc = trace("inc", &["x"], |p| Ok(&p[0] + int32(1))).unwrap();
        let inc = Expr::literal(ExprValue::slice(inc));
        let twice = trace("twice", &["x"], |p| {
            let once = call_expr(&inc, &[&p[0]])?;
            call_expr(&inc, &[&once])
        })
        .unwrap();
        assert_eq!(as_i32(&call(&twice, vec![int32_value(5)]).unwrap()), Some(7));
    }

    #[test]
    fn an_error_out_of_nested_calls_carries_its_context_innermost_first() {
        use plait_core::error::Context;
        let text = Expr::literal(ExprValue::slice(DataSlice::item(Some(ScalarRef::String("a")), Schema::String).unwrap()));
        let fails = trace("fails", &["x"], |p| Ok(&p[0] + &text)).unwrap();
        let fails = Expr::literal(ExprValue::slice(fails));
        let outer = trace("outer", &["x"], |p| call_expr(&fails, &[&p[0]])).unwrap();
        let err = call(&outer, vec![int32_value(1)]).unwrap_err();
        assert!(err.message.starts_with("kd.math.add: "), "{}", err.message);
        let context = err.context();
        assert_eq!(context.len(), 4);
        assert!(matches!(&context[0], Context::Node { expr, .. } if expr == "I.x + DataItem('a', schema: STRING)"), "{context:?}");
        assert_eq!(context[1], Context::Functor { name: Some("fails".into()), variable: None });
        assert!(matches!(&context[2], Context::Node { expr, .. } if expr.ends_with("(I.x)")), "{context:?}");
        assert_eq!(context[3], Context::Functor { name: Some("outer".into()), variable: None });
        assert_eq!(err.notes()[1], "in functor fails");
        assert!(err.host().is_none());
    }
}
