//! Elementwise arithmetic of two arguments: `kd.math.add`, `subtract`,
//! `multiply`, `divide`, `floordiv`, `mod`, `pow`, `maximum`, `minimum`.

use plait_core::column::VarBinaryBuilder;
use plait_core::{DataSlice, Error, Result, Schema, Values};

use crate::elementwise::{FloatBinary, NumBinary, Prepared, float_binary, float_type, numeric_binary, numeric_items, prepare, prepare_lazy};
use crate::kernel::{Side, is_present, map_lanes2};
use crate::num::{Float, Num};
use crate::promote::{Promotion, TypeClass, promote};

pub(crate) struct Add;
impl NumBinary for Add {
    #[inline(always)]
    fn apply<T: Num>(a: T, b: T) -> T {
        a.add(b)
    }
}

pub(crate) struct Subtract;
impl NumBinary for Subtract {
    #[inline(always)]
    fn apply<T: Num>(a: T, b: T) -> T {
        a.sub(b)
    }
}

pub(crate) struct Multiply;
impl NumBinary for Multiply {
    #[inline(always)]
    fn apply<T: Num>(a: T, b: T) -> T {
        a.mul(b)
    }
}

pub(crate) struct Divide;
impl FloatBinary for Divide {
    #[inline(always)]
    fn apply<T: Float>(a: T, b: T) -> T {
        a.div(b)
    }
}

pub(crate) struct FloorDiv;
impl NumBinary for FloorDiv {
    #[inline(always)]
    fn apply<T: Num>(a: T, b: T) -> T {
        if b == T::ZERO { T::ZERO } else { a.floor_div(b) }
    }
}

pub(crate) struct FloorMod;
impl NumBinary for FloorMod {
    #[inline(always)]
    fn apply<T: Num>(a: T, b: T) -> T {
        if b == T::ZERO { T::ZERO } else { a.floor_mod(b) }
    }
}

pub(crate) struct Pow;
impl FloatBinary for Pow {
    #[inline(always)]
    fn apply<T: Float>(a: T, b: T) -> T {
        a.powf(b)
    }
}

pub(crate) struct Maximum;
impl NumBinary for Maximum {
    #[inline(always)]
    fn apply<T: Num>(a: T, b: T) -> T {
        a.max_nan(b)
    }
}

pub(crate) struct Minimum;
impl NumBinary for Minimum {
    #[inline(always)]
    fn apply<T: Num>(a: T, b: T) -> T {
        a.min_nan(b)
    }
}

fn numeric<K: NumBinary>(op: &str, x: &DataSlice, y: &DataSlice) -> Result<DataSlice> {
    let args = [("x", x), ("y", y)];
    let promotion = promote(op, &args, TypeClass::Numeric)?;
    if let Some(item) = numeric_items::<K>(x, y, &promotion) {
        return Ok(item);
    }
    numeric_binary::<K>(&prepare_lazy(op, &args, promotion)?)
}

/// Prepares `x` and `y` computing in floats (FLOAT32 unless FLOAT64 is involved).
fn prepare_float(op: &str, x: &DataSlice, y: &DataSlice) -> Result<Prepared> {
    let args = [("x", x), ("y", y)];
    let promotion = promote(op, &args, TypeClass::Numeric)?;
    prepare_lazy(op, &args, Promotion { dtype: float_type(promotion.dtype), ..promotion })
}

/// `x + y`: sums of numbers, or concatenations of STRING or BYTES.
pub fn add(x: &DataSlice, y: &DataSlice) -> Result<DataSlice> {
    let op = "kd.math.add";
    let args = [("x", x), ("y", y)];
    let promotion = promote(op, &args, TypeClass::NumericOrText)?;
    if let Some(item) = numeric_items::<Add>(x, y, &promotion) {
        return Ok(item);
    }
    let p = prepare_lazy(op, &args, promotion)?;
    match p.dtype() {
        Schema::String | Schema::Bytes => concat_text(&p),
        _ => numeric_binary::<Add>(&p),
    }
}

/// `x - y`.
pub fn subtract(x: &DataSlice, y: &DataSlice) -> Result<DataSlice> {
    numeric::<Subtract>("kd.math.subtract", x, y)
}

/// `x * y`.
pub fn multiply(x: &DataSlice, y: &DataSlice) -> Result<DataSlice> {
    numeric::<Multiply>("kd.math.multiply", x, y)
}

/// `x / y`, always in floats; division by zero gives inf or nan.
pub fn divide(x: &DataSlice, y: &DataSlice) -> Result<DataSlice> {
    float_binary::<Divide>(&prepare_float("kd.math.divide", x, y)?)
}

/// `x ** y`, always in floats. Integers raised to integer powers are
/// computed in FLOAT64 and the result rounded once to FLOAT32, as Koda does
/// (`123456789 ** 2` is the FLOAT32 nearest 15241578750190521, not
/// `123456792.0 ** 2` of the operands rounded to FLOAT32 first).
pub fn pow(x: &DataSlice, y: &DataSlice) -> Result<DataSlice> {
    let op = "kd.math.pow";
    let args = [("x", x), ("y", y)];
    let promotion = promote(op, &args, TypeClass::Numeric)?;
    if !matches!(promotion.dtype, Schema::Int32 | Schema::Int64) {
        return float_binary::<Pow>(&prepare_lazy(op, &args, Promotion { dtype: float_type(promotion.dtype), ..promotion })?);
    }
    let p = prepare_lazy(op, &args, Promotion { dtype: Schema::Float64, ..promotion })?;
    if p.all_missing() {
        return Ok(p.missing(Schema::Float32));
    }
    let [a, b] = [&p.operands[0], &p.operands[1]];
    let out = map_lanes2(p.len(), a.lane::<f64>(), b.lane::<f64>(), |a, b| <Pow as FloatBinary>::apply(a, b) as f32);
    p.finish(f32::into_values(out), p.presence())
}

/// `x // y`, rounding toward negative infinity; a zero divisor is an error.
pub fn floordiv(x: &DataSlice, y: &DataSlice) -> Result<DataSlice> {
    let op = "kd.math.floordiv";
    let p = prepare(op, &[("x", x), ("y", y)], TypeClass::Numeric)?;
    check_no_zero_divisor(op, &p)?;
    numeric_binary::<FloorDiv>(&p)
}

/// `x % y`, with the sign of `y`; a zero divisor is an error.
pub fn modulo(x: &DataSlice, y: &DataSlice) -> Result<DataSlice> {
    let op = "kd.math.mod";
    let p = prepare(op, &[("x", x), ("y", y)], TypeClass::Numeric)?;
    check_no_zero_divisor(op, &p)?;
    numeric_binary::<FloorMod>(&p)
}

/// The larger of `x` and `y` per item (NaN if either is NaN).
pub fn maximum(x: &DataSlice, y: &DataSlice) -> Result<DataSlice> {
    numeric::<Maximum>("kd.math.maximum", x, y)
}

/// The smaller of `x` and `y` per item (NaN if either is NaN).
pub fn minimum(x: &DataSlice, y: &DataSlice) -> Result<DataSlice> {
    numeric::<Minimum>("kd.math.minimum", x, y)
}

fn check_no_zero_divisor(op: &str, p: &Prepared) -> Result<()> {
    if p.all_missing() {
        return Ok(());
    }
    let presence = p.presence();
    let zero_at_present = crate::with_num_type!(p.dtype(), T => match p.operands[1].side::<T>() {
        Side::One(v) => v == T::ZERO && presence.as_ref().is_none_or(|p| p.null_count() < p.len()),
        Side::Many(values) => values
            .iter()
            .enumerate()
            .any(|(i, &v)| v == T::ZERO && is_present(presence.as_ref(), i)),
    });
    if zero_at_present { Err(Error::value(op, "division by zero")) } else { Ok(()) }
}

/// Concatenates text items pairwise.
fn concat_text(p: &Prepared) -> Result<DataSlice> {
    if p.all_missing() {
        return Ok(p.missing(p.dtype()));
    }
    let [a, b] = [&p.operands[0], &p.operands[1]];
    let (Values::String(av) | Values::Bytes(av), Values::String(bv) | Values::Bytes(bv)) = (a.values(), b.values()) else {
        unreachable!("promotion gave text")
    };
    let presence = p.presence();
    let n = p.len();
    let mut out = VarBinaryBuilder::with_capacities(n, av.data.len() + bv.data.len());
    for i in 0..n {
        if is_present(presence.as_ref(), i) {
            out.append(av.value(a.index(i)));
            out.append(bv.value(b.index(i)));
        }
        out.end_value();
    }
    let values = if p.dtype() == Schema::String { Values::String(out.finish()) } else { Values::Bytes(out.finish()) };
    p.finish(values, presence)
}

#[cfg(test)]
mod tests {
    use plait_core::{DataSlice, ScalarRef, Schema};

    #[test]
    fn integer_powers_round_once_to_float32() {
        let x = DataSlice::item(Some(ScalarRef::Int32(123_456_789)), Schema::Int32).unwrap();
        let two = DataSlice::item(Some(ScalarRef::Int64(2)), Schema::Int64).unwrap();
        let y = super::pow(&x, &two).unwrap();
        assert_eq!(y.schema(), Schema::Float32);
        assert_eq!(y.get(0), Some(ScalarRef::Float32(15_241_578_750_190_521.0)));
        // A FLOAT32 operand makes the integer a FLOAT32 first.
        let two = DataSlice::item(Some(ScalarRef::Float32(2.0)), Schema::Float32).unwrap();
        assert_eq!(super::pow(&x, &two).unwrap().get(0), Some(ScalarRef::Float32(123_456_792.0 * 123_456_792.0)));
    }
}
