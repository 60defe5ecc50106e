//! Arithmetic on single numbers, for evaluation plans over DataItems: a
//! step whose arguments are present numeric items (no bag) computes on the
//! values alone, with the kernels' own element functions and Koda's type
//! promotion, and builds a DataItem only when something else needs one.
//! An expression of 100 operators on items then costs 100 arithmetic
//! operations instead of 100 column allocations.

use plait_core::{DataSlice, ScalarRef, Schema};

use super::arithmetic::{Add, Maximum, Minimum, Multiply, Subtract};
use super::unary::{Abs, Neg};
use crate::elementwise::{NumBinary, NumUnary};
use crate::num::Num;

/// The value of a present numeric DataItem.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Number {
    Int32(i32),
    Int64(i64),
    Float32(f32),
    Float64(f64),
}

/// The operators computed on numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ItemOp {
    Add,
    Subtract,
    Multiply,
    Maximum,
    Minimum,
    Neg,
    Pos,
    Abs,
}

impl ItemOp {
    /// The operator registered as `name` (its canonical name), if it is one.
    pub fn of(name: &str) -> Option<ItemOp> {
        Some(match name {
            "kd.math.add" => ItemOp::Add,
            "kd.math.subtract" => ItemOp::Subtract,
            "kd.math.multiply" => ItemOp::Multiply,
            "kd.math.maximum" => ItemOp::Maximum,
            "kd.math.minimum" => ItemOp::Minimum,
            "kd.math.neg" => ItemOp::Neg,
            "kd.math.pos" => ItemOp::Pos,
            "kd.math.abs" => ItemOp::Abs,
            _ => return None,
        })
    }

    /// How many arguments it takes.
    pub fn arity(self) -> usize {
        match self {
            ItemOp::Neg | ItemOp::Pos | ItemOp::Abs => 1,
            _ => 2,
        }
    }
}

impl Number {
    /// The number in `x` when it is a present numeric DataItem without a
    /// bag whose schema is its value's type (not OBJECT).
    pub fn of(x: &DataSlice) -> Option<Number> {
        if !x.is_item() || x.bag().is_some() {
            return None;
        }
        let number = match (x.schema(), x.get(0)?) {
            (Schema::Int32, ScalarRef::Int32(v)) => Number::Int32(v),
            (Schema::Int64, ScalarRef::Int64(v)) => Number::Int64(v),
            (Schema::Float32, ScalarRef::Float32(v)) => Number::Float32(v),
            (Schema::Float64, ScalarRef::Float64(v)) => Number::Float64(v),
            _ => return None,
        };
        Some(number)
    }

    pub fn schema(self) -> Schema {
        match self {
            Number::Int32(_) => Schema::Int32,
            Number::Int64(_) => Schema::Int64,
            Number::Float32(_) => Schema::Float32,
            Number::Float64(_) => Schema::Float64,
        }
    }

    fn scalar(self) -> ScalarRef<'static> {
        match self {
            Number::Int32(v) => ScalarRef::Int32(v),
            Number::Int64(v) => ScalarRef::Int64(v),
            Number::Float32(v) => ScalarRef::Float32(v),
            Number::Float64(v) => ScalarRef::Float64(v),
        }
    }

    fn as_type<T: Num>(self) -> T {
        T::from_scalar(self.scalar()).expect("numbers promote to a wider numeric type")
    }

    fn from_type<T: Num>(v: T) -> Number {
        match v.to_scalar() {
            ScalarRef::Int32(v) => Number::Int32(v),
            ScalarRef::Int64(v) => Number::Int64(v),
            ScalarRef::Float32(v) => Number::Float32(v),
            ScalarRef::Float64(v) => Number::Float64(v),
            other => unreachable!("a numeric type gives numbers, not {other:?}"),
        }
    }

    /// The DataItem holding the number.
    pub fn to_item(self) -> DataSlice {
        DataSlice::item(Some(self.scalar()), self.schema()).expect("a number makes an item")
    }
}

fn binary<K: NumBinary>(a: Number, b: Number) -> Number {
    // Both are numeric primitives, so Koda's promotion is their common type.
    let dtype = Schema::common(a.schema(), b.schema()).expect("numeric schemas have a common schema");
    crate::with_num_type!(dtype, T => Number::from_type(K::apply(a.as_type::<T>(), b.as_type::<T>())))
}

fn unary<K: NumUnary>(a: Number) -> Number {
    crate::with_num_type!(a.schema(), T => Number::from_type(K::apply(a.as_type::<T>())))
}

/// `op` on `args` (as many as its arity).
pub fn apply(op: ItemOp, args: &[Number]) -> Number {
    match op {
        ItemOp::Add => binary::<Add>(args[0], args[1]),
        ItemOp::Subtract => binary::<Subtract>(args[0], args[1]),
        ItemOp::Multiply => binary::<Multiply>(args[0], args[1]),
        ItemOp::Maximum => binary::<Maximum>(args[0], args[1]),
        ItemOp::Minimum => binary::<Minimum>(args[0], args[1]),
        ItemOp::Neg => unary::<Neg>(args[0]),
        ItemOp::Pos => args[0],
        ItemOp::Abs => unary::<Abs>(args[0]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The number path gives what the eager operators give.
    #[test]
    fn numbers_compute_as_the_operators_do() {
        let items = [
            DataSlice::item(Some(ScalarRef::Int32(7)), Schema::Int32).unwrap(),
            DataSlice::item(Some(ScalarRef::Int64(i64::MAX)), Schema::Int64).unwrap(),
            DataSlice::item(Some(ScalarRef::Float32(-0.5)), Schema::Float32).unwrap(),
            DataSlice::item(Some(ScalarRef::Float64(f64::NAN)), Schema::Float64).unwrap(),
            DataSlice::item(Some(ScalarRef::Int32(i32::MIN)), Schema::Int32).unwrap(),
        ];
        type Eager = fn(&DataSlice, &DataSlice) -> plait_core::Result<DataSlice>;
        let eager: [(ItemOp, Eager); 5] = [
            (ItemOp::Add, crate::math::add),
            (ItemOp::Subtract, crate::math::subtract),
            (ItemOp::Multiply, crate::math::multiply),
            (ItemOp::Maximum, crate::math::maximum),
            (ItemOp::Minimum, crate::math::minimum),
        ];
        for x in &items {
            for y in &items {
                for (op, f) in eager {
                    let expected = f(x, y).unwrap();
                    let got = apply(op, &[Number::of(x).unwrap(), Number::of(y).unwrap()]).to_item();
                    assert_eq!(got.schema(), expected.schema(), "{op:?}");
                    assert_eq!(format!("{:?}", got.get(0)), format!("{:?}", expected.get(0)), "{op:?}");
                }
            }
            for (op, f) in [(ItemOp::Neg, crate::math::neg as fn(&DataSlice) -> _), (ItemOp::Abs, crate::math::abs), (ItemOp::Pos, crate::math::pos)]
            {
                let expected = f(x).unwrap();
                let got = apply(op, &[Number::of(x).unwrap()]).to_item();
                assert_eq!(format!("{:?}", got.get(0)), format!("{:?}", expected.get(0)), "{op:?}");
            }
        }
    }
}
