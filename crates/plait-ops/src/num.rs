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
    /// Division rounding toward negative infinity (Python's `//`); the divisor
    /// is not zero.
    fn floor_div(self, other: Self) -> Self;
    /// The remainder with the sign of the divisor (Python's `%`); the divisor
    /// is not zero.
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

/// Python's float `divmod` (so `-3.0 // inf` is `-1.0`, as in Python and Koda).
fn float_div_mod<T: num_float::FloatCore>(a: T, b: T) -> (T, T) {
    let mut modulo = a % b;
    let mut div = (a - modulo) / b;
    if modulo != T::zero() {
        if (b < T::zero()) != (modulo < T::zero()) {
            modulo = modulo + b;
            div = div - T::one();
        }
    } else {
        modulo = T::zero().copysign(b);
    }
    let floordiv = if div != T::zero() {
        let f = div.floor();
        if div - f > T::half() { f + T::one() } else { f }
    } else {
        T::zero().copysign(a / b)
    };
    (floordiv, modulo)
}

/// The few float operations [`float_div_mod`] needs, for f32 and f64.
mod num_float {
    pub trait FloatCore:
        Copy + PartialOrd + std::ops::Rem<Output = Self> + std::ops::Sub<Output = Self> + std::ops::Add<Output = Self> + std::ops::Div<Output = Self>
    {
        fn zero() -> Self;
        fn one() -> Self;
        fn half() -> Self;
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
                fn half() -> Self {
                    0.5
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
