//! Elementwise math of one argument: `kd.math.neg`, `pos`, `abs`, `sign`,
//! `round`, `floor`, `ceil`, `log`, `log10`, `exp`, `sqrt`, `sigmoid`, `is_nan`.

use plait_core::{DataSlice, Result, Schema};

use crate::elementwise::{FloatUnary, NumUnary, Prepared, float_type, float_unary, numeric_unary, prepare, prepare_as, prepare_lazy};
use crate::kernel::build_vec;
use crate::num::{Float, Num};
use crate::promote::{Promotion, TypeClass, promote};

fn numeric(op: &str, x: &DataSlice) -> Result<Prepared> {
    prepare(op, &[("x", x)], TypeClass::Numeric)
}

/// Prepares `x` in floats (FLOAT32 unless it is FLOAT64).
fn float(op: &str, x: &DataSlice) -> Result<Prepared> {
    let promotion = promote(op, &[("x", x)], TypeClass::Numeric)?;
    prepare_lazy(op, &[("x", x)], Promotion { dtype: float_type(promotion.dtype), ..promotion })
}

pub(crate) struct Neg;
impl NumUnary for Neg {
    #[inline(always)]
    fn apply<T: Num>(a: T) -> T {
        a.neg()
    }
}

pub(crate) struct Abs;
impl NumUnary for Abs {
    #[inline(always)]
    fn apply<T: Num>(a: T) -> T {
        // Integer minimum stays itself, as in two's complement (and Koda);
        // -0.0 becomes 0.0 (it compares equal to zero).
        if a < T::ZERO {
            a.neg()
        } else if a == T::ZERO {
            T::ZERO
        } else {
            a
        }
    }
}

pub(crate) struct Sign;
impl NumUnary for Sign {
    #[inline(always)]
    fn apply<T: Num>(a: T) -> T {
        if a > T::ZERO {
            T::ONE
        } else if a < T::ZERO {
            T::ONE.neg()
        } else if a == T::ZERO {
            T::ZERO // -0.0 too
        } else {
            a // NaN stays NaN
        }
    }
}

macro_rules! float_kernel {
    ($name:ident, $a:ident => $body:expr) => {
        pub(crate) struct $name;
        impl FloatUnary for $name {
            #[inline(always)]
            fn apply<T: Float>($a: T) -> T {
                $body
            }
        }
    };
}

float_kernel!(Round, a => a.round());
float_kernel!(Floor, a => a.floor());
float_kernel!(Ceil, a => a.ceil());
float_kernel!(Ln, a => a.ln());
float_kernel!(Log10, a => a.log10());
float_kernel!(Exp, a => a.exp());
float_kernel!(Sqrt, a => a.sqrt());

/// `-x`.
pub fn neg(x: &DataSlice) -> Result<DataSlice> {
    numeric_unary::<Neg>(&numeric("kd.math.neg", x)?)
}

/// `+x`: `x`'s values, checked to be numeric (without a bag: a computed
/// primitive result carries none, as in Koda).
pub fn pos(x: &DataSlice) -> Result<DataSlice> {
    numeric("kd.math.pos", x)?;
    Ok(x.clone().with_bag(None))
}

/// `|x|`.
pub fn abs(x: &DataSlice) -> Result<DataSlice> {
    numeric_unary::<Abs>(&numeric("kd.math.abs", x)?)
}

/// -1, 0 or 1 by the sign of `x`, in the type of `x`.
pub fn sign(x: &DataSlice) -> Result<DataSlice> {
    numeric_unary::<Sign>(&numeric("kd.math.sign", x)?)
}

/// An integer through FLOAT64 and back, as Koda rounds INT64: values
/// above 2^53 become the nearest f64, and those that round to 2^63 (past
/// INT64's range) the integer minimum, as x86's conversion gives them.
pub(crate) struct ThroughF64;
impl NumUnary for ThroughF64 {
    #[inline(always)]
    fn apply<T: Num>(a: T) -> T {
        let f = a.to_f64();
        if f >= 9_223_372_036_854_775_808.0 { T::LOWEST } else { T::from_f64(f) }
    }
}

/// Rounding functions leave INT32 values as they are and pass INT64 ones
/// through FLOAT64 (without a bag, as other computed primitives).
fn rounding<K: FloatUnary>(op: &str, x: &DataSlice) -> Result<DataSlice> {
    let p = numeric(op, x)?;
    match p.dtype() {
        dtype if dtype.is_float() => float_unary::<K>(&p),
        Schema::Int64 => numeric_unary::<ThroughF64>(&p),
        _ => Ok(x.clone().with_bag(None)),
    }
}

/// Rounds half away from zero.
pub fn round(x: &DataSlice) -> Result<DataSlice> {
    rounding::<Round>("kd.math.round", x)
}

/// The largest integer value not above `x`.
pub fn floor(x: &DataSlice) -> Result<DataSlice> {
    rounding::<Floor>("kd.math.floor", x)
}

/// The smallest integer value not below `x`.
pub fn ceil(x: &DataSlice) -> Result<DataSlice> {
    rounding::<Ceil>("kd.math.ceil", x)
}

/// Natural logarithm (in floats).
pub fn log(x: &DataSlice) -> Result<DataSlice> {
    float_unary::<Ln>(&float("kd.math.log", x)?)
}

/// Base-10 logarithm (in floats).
pub fn log10(x: &DataSlice) -> Result<DataSlice> {
    float_unary::<Log10>(&float("kd.math.log10", x)?)
}

/// `e ** x` (in floats).
pub fn exp(x: &DataSlice) -> Result<DataSlice> {
    float_unary::<Exp>(&float("kd.math.exp", x)?)
}

/// Square root (in floats; NaN for negative numbers).
pub fn sqrt(x: &DataSlice) -> Result<DataSlice> {
    float_unary::<Sqrt>(&float("kd.math.sqrt", x)?)
}

/// `1 / (1 + exp(-slope * (x - half)))`.
pub fn sigmoid(x: &DataSlice, half: &DataSlice, slope: &DataSlice) -> Result<DataSlice> {
    let op = "kd.math.sigmoid";
    let args = [("x", x), ("half", half), ("slope", slope)];
    let promotion = promote(op, &args, TypeClass::Numeric)?;
    let p = prepare_as(op, &args, Promotion { dtype: float_type(promotion.dtype), ..promotion })?;
    if p.all_missing() {
        return Ok(p.missing(p.dtype()));
    }
    crate::with_float_type!(p.dtype(), T => {
        let [x, half, slope] = [p.operands[0].side::<T>(), p.operands[1].side::<T>(), p.operands[2].side::<T>()];
        let out = build_vec(p.len(), |out| {
            out.write_all(out.range().map(|i| {
                let z = x.get(i).sub(half.get(i)).mul(slope.get(i));
                T::ONE.div(T::ONE.add(z.neg().exp()))
            }));
        });
        p.finish(T::into_values(out), p.presence())
    })
}

/// Present where `x` is NaN.
pub fn is_nan(x: &DataSlice) -> Result<DataSlice> {
    let p = numeric("kd.math.is_nan", x)?;
    if p.all_missing() || !p.dtype().is_float() {
        return Ok(DataSlice::missing(x.shape().clone(), Schema::Mask));
    }
    crate::with_float_type!(p.dtype(), T => {
        let values = T::slice_of(p.operands[0].values()).expect("float operand");
        crate::masking::mask_where(x.shape(), values.len(), |i| values[i].is_nan() && p.operands[0].is_present(i))
    })
}

#[cfg(test)]
mod tests {
    use plait_core::{Column, DataSlice, JaggedShape, ScalarRef, Schema, SliceData, Values};

    #[test]
    fn int64_rounding_goes_through_float64() {
        let values = vec![(1i64 << 53) + 1, (1 << 62) + 3, -(1 << 53) - 1, i64::MAX, i64::MIN, 123];
        let column = Column::full(Values::Int64(values.into()));
        let x = DataSlice::new(JaggedShape::flat(6), SliceData::from_column(column), Schema::Int64).unwrap();
        let expected = [1i64 << 53, 1 << 62, -(1 << 53), i64::MIN, i64::MIN, 123];
        for f in [super::round, super::floor, super::ceil] {
            let y = f(&x).unwrap();
            assert_eq!(y.schema(), Schema::Int64);
            let got: Vec<_> = (0..6).map(|i| y.get(i)).collect();
            assert_eq!(got, expected.iter().map(|&v| Some(ScalarRef::Int64(v))).collect::<Vec<_>>());
        }
    }
}
