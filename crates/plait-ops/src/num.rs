//! The numeric value types (i32, i64, f32, f64) behind one trait, so every
//! numeric kernel is written once and monomorphised per type.

use arrow_buffer::ScalarBuffer;
use plait_core::cast::Widen;
use plait_core::{ScalarRef, Schema, Values};

/// A numeric value type of a column.
///
/// Every numeric type is a [`Widen`] target: kernels convert arguments of
/// another numeric type to it a block at a time ([`crate::kernel::Lane`]).
pub trait Num: Widen + Copy + Send + Sync + PartialOrd + Default + std::fmt::Debug + 'static {
    const SCHEMA: Schema;
    const ZERO: Self;
    const ONE: Self;
    /// The smallest and the largest value (infinities for floats): what a
    /// maximum or a minimum of nothing starts from.
    const LOWEST: Self;
    const HIGHEST: Self;
    const IS_FLOAT: bool;

    /// The column's values when they have this type.
    fn slice_of(values: &Values) -> Option<&[Self]>;
    /// `values` as 32-bit lanes (FLOAT32, INT32), for SIMD kernels.
    fn lanes32(values: &[Self]) -> Option<Lanes32<'_>>;
    /// Values of this type as a column payload.
    fn into_values(values: Vec<Self>) -> Values;
    /// A numeric scalar converted to this type as casts convert it (`None`
    /// for other kinds of values).
    fn from_scalar(v: ScalarRef<'_>) -> Option<Self>;
    fn to_scalar(self) -> ScalarRef<'static>;
    fn to_f64(self) -> f64;
    fn from_f64(v: f64) -> Self;
    /// Addition as Koda does it: wrapping for integers.
    fn add(self, other: Self) -> Self;
    fn sub(self, other: Self) -> Self;
    fn mul(self, other: Self) -> Self;
    fn neg(self) -> Self;
    fn is_nan(self) -> bool;
    /// Division rounding toward negative infinity, as Koda does it (Python's
    /// `//` for integers; floats: [`float_div_mod`]); the divisor is not zero.
    fn floor_div(self, other: Self) -> Self;
    /// The remainder with the sign of the divisor, consistent with
    /// [`Num::floor_div`]; the divisor is not zero.
    fn floor_mod(self, other: Self) -> Self;
    /// The larger value; NaN wins, so NaN propagates through max.
    fn max_nan(self, other: Self) -> Self {
        if self.is_nan() {
            self
        } else if other.is_nan() || other > self {
            other
        } else {
            self
        }
    }
    /// The smaller value; NaN wins.
    fn min_nan(self, other: Self) -> Self {
        if self.is_nan() {
            self
        } else if other.is_nan() || other < self {
            other
        } else {
            self
        }
    }
}

macro_rules! int_num {
    ($t:ty, $schema:ident, $variant:ident, $lanes32:expr) => {
        impl Num for $t {
            const SCHEMA: Schema = Schema::$schema;
            const ZERO: Self = 0;
            const ONE: Self = 1;
            const LOWEST: Self = <$t>::MIN;
            const HIGHEST: Self = <$t>::MAX;
            const IS_FLOAT: bool = false;
            fn slice_of(values: &Values) -> Option<&[Self]> {
                match values {
                    Values::$variant(v) => Some(v),
                    _ => None,
                }
            }
            fn lanes32(values: &[Self]) -> Option<Lanes32<'_>> {
                $lanes32(values)
            }
            fn into_values(values: Vec<Self>) -> Values {
                Values::$variant(ScalarBuffer::from(values))
            }
            fn to_scalar(self) -> ScalarRef<'static> {
                ScalarRef::$variant(self)
            }
            fn from_scalar(v: ScalarRef<'_>) -> Option<Self> {
                match v {
                    ScalarRef::Int32(v) => Some(v as $t),
                    ScalarRef::Int64(v) => Some(v as $t),
                    ScalarRef::Float32(v) if Self::IS_FLOAT => Some(v as $t),
                    ScalarRef::Float64(v) if Self::IS_FLOAT => Some(v as $t),
                    _ => None,
                }
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            #[inline(always)]
            fn add(self, other: Self) -> Self {
                self.wrapping_add(other)
            }
            #[inline(always)]
            fn sub(self, other: Self) -> Self {
                self.wrapping_sub(other)
            }
            #[inline(always)]
            fn mul(self, other: Self) -> Self {
                self.wrapping_mul(other)
            }
            #[inline(always)]
            fn neg(self) -> Self {
                self.wrapping_neg()
            }
            #[inline(always)]
            fn is_nan(self) -> bool {
                false
            }
            #[inline(always)]
            fn floor_div(self, other: Self) -> Self {
                let q = self.wrapping_div(other);
                if self.wrapping_rem(other) != 0 && ((self < 0) != (other < 0)) { q - 1 } else { q }
            }
            #[inline(always)]
            fn floor_mod(self, other: Self) -> Self {
                let r = self.wrapping_rem(other);
                if r != 0 && ((r < 0) != (other < 0)) { r + other } else { r }
            }
            #[inline(always)]
            fn max_nan(self, other: Self) -> Self {
                self.max(other)
            }
            #[inline(always)]
            fn min_nan(self, other: Self) -> Self {
                self.min(other)
            }
        }
    };
}

macro_rules! float_num {
    ($t:ty, $schema:ident, $variant:ident, $lanes32:expr) => {
        impl Num for $t {
            const SCHEMA: Schema = Schema::$schema;
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const LOWEST: Self = <$t>::NEG_INFINITY;
            const HIGHEST: Self = <$t>::INFINITY;
            const IS_FLOAT: bool = true;
            fn slice_of(values: &Values) -> Option<&[Self]> {
                match values {
                    Values::$variant(v) => Some(v),
                    _ => None,
                }
            }
            fn lanes32(values: &[Self]) -> Option<Lanes32<'_>> {
                $lanes32(values)
            }
            fn into_values(values: Vec<Self>) -> Values {
                Values::$variant(ScalarBuffer::from(values))
            }
            fn to_scalar(self) -> ScalarRef<'static> {
                ScalarRef::$variant(self)
            }
            fn from_scalar(v: ScalarRef<'_>) -> Option<Self> {
                match v {
                    ScalarRef::Int32(v) => Some(v as $t),
                    // Through f64, as casts of columns go.
                    ScalarRef::Int64(v) => Some((v as f64) as $t),
                    ScalarRef::Float32(v) if Self::IS_FLOAT => Some(v as $t),
                    ScalarRef::Float64(v) if Self::IS_FLOAT => Some(v as $t),
                    _ => None,
                }
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            #[inline(always)]
            fn add(self, other: Self) -> Self {
                self + other
            }
            #[inline(always)]
            fn sub(self, other: Self) -> Self {
                self - other
            }
            #[inline(always)]
            fn mul(self, other: Self) -> Self {
                self * other
            }
            #[inline(always)]
            fn neg(self) -> Self {
                -self
            }
            #[inline(always)]
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            #[inline(always)]
            fn floor_div(self, other: Self) -> Self {
                float_div_mod(self, other).0
            }
            #[inline(always)]
            fn floor_mod(self, other: Self) -> Self {
                float_div_mod(self, other).1
            }
        }
    };
}

/// Koda's float floor division and modulo (not Python's `divmod`): the
/// quotient is `floor(a / b)` of the rounded `a / b` (so `1.0 // 0.1` is
/// `10.0` and `1.0 % 0.1` is `0.0`, where Python gives `9.0` and `0.09999..`),
/// and the remainder is `a - floor(a / b) * b` given the sign of `b` (its
/// magnitude kept even where rounding made it the wrong sign). A quotient that
/// is not finite (an infinite `a`, a NaN, or an overflow) gives NaN for both.
/// A nonzero `a` whose quotient underflows to zero with `b` of the other sign
/// stands for a tiny negative quotient: floor `-1`, and a remainder of
/// infinity with `b`'s sign, as Koda gives.
fn float_div_mod<T: num_float::FloatCore>(a: T, b: T) -> (T, T) {
    let quotient = a / b;
    if !quotient.is_finite() {
        return (T::nan(), T::nan());
    }
    if quotient != T::zero() {
        let floor = quotient.floor();
        return (floor, (a - floor * b).copysign(b));
    }
    // The quotient is zero, or underflowed to zero.
    if a == T::zero() || (a > T::zero()) == (b > T::zero()) { (quotient, a.copysign(b)) } else { (-T::one(), T::infinity().copysign(b)) }
}

/// The few float operations [`float_div_mod`] needs, for f32 and f64.
mod num_float {
    pub trait FloatCore:
        Copy + PartialOrd + std::ops::Sub<Output = Self> + std::ops::Mul<Output = Self> + std::ops::Div<Output = Self> + std::ops::Neg<Output = Self>
    {
        fn zero() -> Self;
        fn one() -> Self;
        fn nan() -> Self;
        fn infinity() -> Self;
        fn is_finite(self) -> bool;
        fn floor(self) -> Self;
        fn copysign(self, sign: Self) -> Self;
    }

    macro_rules! core {
        ($t:ty) => {
            impl FloatCore for $t {
                fn zero() -> Self {
                    0.0
                }
                fn one() -> Self {
                    1.0
                }
                fn nan() -> Self {
                    <$t>::NAN
                }
                fn infinity() -> Self {
                    <$t>::INFINITY
                }
                fn is_finite(self) -> bool {
                    <$t>::is_finite(self)
                }
                fn floor(self) -> Self {
                    <$t>::floor(self)
                }
                fn copysign(self, sign: Self) -> Self {
                    <$t>::copysign(self, sign)
                }
            }
        };
    }

    core!(f32);
    core!(f64);
}

/// A slice of 32-bit numbers, by type.
#[derive(Clone, Copy, Debug)]
pub enum Lanes32<'a> {
    F32(&'a [f32]),
    I32(&'a [i32]),
}

int_num!(i32, Int32, Int32, |v| Some(Lanes32::I32(v)));
int_num!(i64, Int64, Int64, |_| None);
float_num!(f32, Float32, Float32, |v| Some(Lanes32::F32(v)));
float_num!(f64, Float64, Float64, |_| None);

/// Runs `$body` with `$T` bound to the Rust type of numeric schema `$dtype`.
/// The caller has checked that `$dtype` is numeric.
#[macro_export]
macro_rules! with_num_type {
    ($dtype:expr, $T:ident => $body:expr) => {
        match $dtype {
            plait_core::Schema::Int32 => {
                type $T = i32;
                $body
            }
            plait_core::Schema::Int64 => {
                type $T = i64;
                $body
            }
            plait_core::Schema::Float32 => {
                type $T = f32;
                $body
            }
            plait_core::Schema::Float64 => {
                type $T = f64;
                $body
            }
            other => unreachable!("with_num_type on non-numeric {other}"),
        }
    };
}

/// Runs `$body` with `$T` bound to the Rust float type of float schema `$dtype`.
#[macro_export]
macro_rules! with_float_type {
    ($dtype:expr, $T:ident => $body:expr) => {
        match $dtype {
            plait_core::Schema::Float32 => {
                type $T = f32;
                $body
            }
            plait_core::Schema::Float64 => {
                type $T = f64;
                $body
            }
            other => unreachable!("with_float_type on non-float {other}"),
        }
    };
}

/// The float value types (f32, f64).
pub trait Float: Num {
    fn div(self, other: Self) -> Self;
    fn ln(self) -> Self;
    fn log10(self) -> Self;
    fn exp(self) -> Self;
    fn sqrt(self) -> Self;
    fn powf(self, other: Self) -> Self;
    /// Rounds half away from zero.
    fn round(self) -> Self;
    fn floor(self) -> Self;
    fn ceil(self) -> Self;
}

macro_rules! float_ops {
    ($t:ty) => {
        impl Float for $t {
            #[inline(always)]
            fn div(self, other: Self) -> Self {
                self / other
            }
            fn ln(self) -> Self {
                <$t>::ln(self)
            }
            fn log10(self) -> Self {
                <$t>::log10(self)
            }
            fn exp(self) -> Self {
                <$t>::exp(self)
            }
            #[inline(always)]
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            fn powf(self, other: Self) -> Self {
                <$t>::powf(self, other)
            }
            #[inline(always)]
            fn round(self) -> Self {
                <$t>::round(self)
            }
            #[inline(always)]
            fn floor(self) -> Self {
                <$t>::floor(self)
            }
            #[inline(always)]
            fn ceil(self) -> Self {
                <$t>::ceil(self)
            }
        }
    };
}

float_ops!(f32);
float_ops!(f64);

#[cfg(test)]
mod tests {
    use super::Num;

    fn same(a: f64, b: f64) -> bool {
        (a.is_nan() && b.is_nan()) || (a == b && a.is_sign_negative() == b.is_sign_negative())
    }

    #[test]
    fn float_floor_div_and_mod_follow_koda() {
        let inf = f64::INFINITY;
        // (x, y, x // y, x % y), as koladata 0.0.4 gives them.
        let cases = [
            (1.0, 0.1, 10.0, 0.0),
            (1.0, -0.1, -10.0, -0.0),
            (-1.0, 0.1, -10.0, 0.0),
            (1.0, 0.3, 3.0, 0.10000000000000009),
            (1.0, -3.0, -1.0, -2.0),
            (1.0, inf, 0.0, 1.0),
            (1.0, -inf, -1.0, -inf),
            (-0.0, inf, -0.0, 0.0),
            (-1e-300, 1e99, -1.0, inf),
            (-1.0, 1e-300, -9.999999999999999e299, 1.1102230246251565e-16),
            (3.0, 1e-300, 3e300, 4.440892098500626e-16),
            (1.0, 5e-324, f64::NAN, f64::NAN),
            (inf, 1.0, f64::NAN, f64::NAN),
            (f64::NAN, 1.0, f64::NAN, f64::NAN),
        ];
        for (x, y, div, rem) in cases {
            assert!(same(x.floor_div(y), div), "{x} // {y} = {}", x.floor_div(y));
            assert!(same(x.floor_mod(y), rem), "{x} % {y} = {}", x.floor_mod(y));
        }
        assert_eq!(1.0f32.floor_div(0.1), 10.0);
        assert_eq!(1.0f32.floor_mod(0.3), 0.099999964);
        assert!(1.0f32.floor_div(1e-45).is_nan());
    }
}
