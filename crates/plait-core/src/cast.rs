//! Casting between schemas (seed 000, "Implicit Casting", "Explicit Casting",
//! "Narrowing").
//!
//! * [`cast_to`] — explicit: relaxed rules that may fail per value (`kd.int32`,
//!   `kd.cast_to`, boxing with `schema=`).
//! * [`cast_to_implicit`] — only along the promotion lattice; never fails on values.
//! * [`cast_to_narrow`] — like implicit, but judged on the narrowed schema, so an
//!   OBJECT slice of ints may become INT64.

use arrow_buffer::{BooleanBuffer, ScalarBuffer};

use crate::column::{Column, ScalarRef, SliceData, Values};
use crate::error::{Error, Result};
use crate::repr::{format_f32, format_f64, write_bytes_literal, write_f32, write_f64};
use crate::schema::Schema;
use crate::slice::DataSlice;
use crate::text_map::BytesWriter;
use std::fmt::Write as _;

/// Explicitly casts `x` to `target`; `op` names the operator in errors.
pub fn cast_to(op: &str, x: &DataSlice, target: Schema) -> Result<DataSlice> {
    if x.schema() == target {
        return Ok(x.clone());
    }
    check_schema_castable(op, x, target)?;
    match target {
        Schema::Object => x.with_schema(Schema::Object).map_err(|e| e.with_context(op)),
        Schema::None => {
            if x.present_count() > 0 {
                // Koda's words, for an item and for a slice.
                let what = if x.is_item() { "only missing values" } else { "only empty slices" };
                return Err(Error::value(op, format!("{what} can be converted to NONE")));
            }
            Ok(DataSlice::missing(x.shape().clone(), Schema::None))
        }
        _ => {
            let columns = x.data().columns().iter().map(|c| cast_column(op, c, target)).collect::<Result<Vec<_>>>()?;
            let data = merge_same_type(x.size(), columns, target);
            x.with_data(data, target)
        }
    }
}

/// Casts `x` to `target` if its schema is implicitly castable (lattice below).
pub fn cast_to_implicit(op: &str, x: &DataSlice, target: Schema) -> Result<DataSlice> {
    if !x.schema().is_implicitly_castable_to(target) {
        return Err(Error::value(op, format!("unsupported implicit cast from {} to {target}", x.schema())));
    }
    cast_to(op, x, target)
}

/// Casts `x` to `target` if its narrowed schema is implicitly castable.
pub fn cast_to_narrow(op: &str, x: &DataSlice, target: Schema) -> Result<DataSlice> {
    let narrowed = x.narrowed_schema();
    if !narrowed.is_implicitly_castable_to(target) {
        return Err(Error::value(op, format!("unsupported narrowing cast to {target} for the given {} DataSlice", x.schema())));
    }
    cast_to(op, x, target)
}

/// The slice's schema-level check: which source schemas can be cast to `target`
/// at all. OBJECT and NONE sources are judged item by item instead.
fn check_schema_castable(op: &str, x: &DataSlice, target: Schema) -> Result<()> {
    let source = x.schema();
    if schema_castable(source, target) {
        return Ok(());
    }
    // Koda spells the struct schema out in the `kd.schema` casts
    // (`kd.schema.to_str`, `cast_to`) and shows its id in the others
    // (`kd.str`, `kd.slice(..., schema)`).
    let source = if op.starts_with("kd.schema.") { crate::bag::text::schema_text(source, x.bag()) } else { source.to_string() };
    Err(Error::value(op, format!("casting a DataSlice with schema {source} to {target} is not supported")))
}

/// Whether a DataSlice of schema `source` may be cast to `target` (OBJECT
/// and NONE sources are then judged item by item).
pub fn schema_castable(source: Schema, target: Schema) -> bool {
    use Schema as S;
    match (source, target) {
        (S::Object | S::None, _) => true,
        (_, S::Object) => source.is_primitive() || source == S::Schema,
        (_, S::None) => true,
        (S::Int32 | S::Int64 | S::Float32 | S::Float64 | S::Boolean | S::Bytes | S::String, S::Int32 | S::Int64 | S::Float32 | S::Float64) => true,
        (S::Int32 | S::Int64 | S::Float32 | S::Float64 | S::Boolean, S::Boolean) => true,
        (S::Int32 | S::Int64 | S::Float32 | S::Float64 | S::Boolean | S::Mask | S::Bytes | S::String, S::String) => true,
        // Entities, lists and dicts are ids.
        (S::Struct(_), S::ItemId) => true,
        (s, t) => s == t,
    }
}

fn unsupported_data(op: &str, source: Schema, target: Schema) -> Error {
    Error::value(op, format!("casting data of type {source} to {target} is not supported"))
}

/// Casts one column (all of one type) to the column type of `target` with the
/// explicit rules; operators use it for the lattice conversions of promotion.
pub fn cast_column(op: &str, column: &Column, target: Schema) -> Result<Column> {
    let source = column.values.dtype();
    if source == target {
        return Ok(column.clone());
    }
    if let Some(values) = cast_numbers(column, target) {
        return Ok(Column::new(values, column.presence.clone()));
    }
    let present = |i: usize| column.is_present(i);
    let values = match target {
        Schema::Int32 => Values::Int32(ScalarBuffer::from(to_ints::<i32>(op, column, target)?)),
        Schema::Int64 => Values::Int64(ScalarBuffer::from(to_ints::<i64>(op, column, target)?)),
        Schema::Float32 => {
            let v = to_f64s(op, column, target)?;
            Values::Float32(ScalarBuffer::from(v.into_iter().map(|x| x as f32).collect::<Vec<_>>()))
        }
        Schema::Float64 => Values::Float64(ScalarBuffer::from(to_f64s(op, column, target)?)),
        Schema::Boolean => {
            let n = column.len();
            let truth = |i: usize| match column.values.get(i) {
                ScalarRef::Int32(v) => v != 0,
                ScalarRef::Int64(v) => v != 0,
                ScalarRef::Float32(v) => v != 0.0,
                ScalarRef::Float64(v) => v != 0.0,
                ScalarRef::Boolean(v) => v,
                _ => false,
            };
            if !matches!(source, Schema::Int32 | Schema::Int64 | Schema::Float32 | Schema::Float64) {
                return Err(unsupported_data(op, source, target));
            }
            Values::Boolean(BooleanBuffer::collect_bool(n, |i| present(i) && truth(i)))
        }
        Schema::String => {
            if matches!(source, Schema::Schema | Schema::ItemId | Schema::Expr) && column.present_count() > 0 {
                return Err(unsupported_data(op, source, target));
            }
            // Each value's text, in parallel chunks for long columns.
            let (text, _) = crate::text_map::text_map(column.len(), column.presence.as_ref(), 0, |i, out| {
                match column.values.get(i) {
                    ScalarRef::Int32(v) => {
                        let _ = write!(BytesWriter(out), "{v}");
                    }
                    ScalarRef::Int64(v) => {
                        let _ = write!(BytesWriter(out), "{v}");
                    }
                    ScalarRef::Float32(v) => push_float_text(out, |w| write_f32(w, v)),
                    ScalarRef::Float64(v) => push_float_text(out, |w| write_f64(w, v)),
                    ScalarRef::Boolean(v) => out.extend_from_slice(if v { b"true" } else { b"false" }),
                    ScalarRef::Mask => out.extend_from_slice(b"present"),
                    ScalarRef::Bytes(v) => {
                        let mut literal = String::new();
                        write_bytes_literal(&mut literal, v);
                        out.extend_from_slice(literal.as_bytes());
                    }
                    ScalarRef::String(v) => out.extend_from_slice(v.as_bytes()),
                    ScalarRef::Schema(_) | ScalarRef::ItemId(_) | ScalarRef::Expr(_) => unreachable!("refused above"),
                }
                true
            });
            Values::String(text)
        }
        _ => return Err(unsupported_data(op, source, target)),
    };
    Ok(Column::new(values, column.presence.clone()))
}

/// Appends a float's text as `kd.str` gives it (written by `write`): as
/// printed, but whole numbers lose their ".0" ('1', '-0').
fn push_float_text(out: &mut Vec<u8>, write: impl FnOnce(&mut BytesWriter<'_>)) {
    let start = out.len();
    write(&mut BytesWriter(out));
    if out.len() - start >= 2 && out.ends_with(b".0") {
        out.truncate(out.len() - 2);
    }
}

/// The values of a numeric column, by type: what a kernel reads when it
/// converts an argument to the computation type as it goes (see
/// [`Widen::widen_block`]).
#[derive(Clone, Copy, Debug)]
pub enum NumSlice<'a> {
    Int32(&'a [i32]),
    Int64(&'a [i64]),
    Float32(&'a [f32]),
    Float64(&'a [f64]),
}

impl<'a> NumSlice<'a> {
    /// The values of a numeric column (`None` for other types).
    pub fn of(values: &'a Values) -> Option<NumSlice<'a>> {
        Some(match values {
            Values::Int32(v) => NumSlice::Int32(v),
            Values::Int64(v) => NumSlice::Int64(v),
            Values::Float32(v) => NumSlice::Float32(v),
            Values::Float64(v) => NumSlice::Float64(v),
            _ => return None,
        })
    }

    /// The number of values.
    pub fn len(&self) -> usize {
        match self {
            NumSlice::Int32(v) => v.len(),
            NumSlice::Int64(v) => v.len(),
            NumSlice::Float32(v) => v.len(),
            NumSlice::Float64(v) => v.len(),
        }
    }

    /// Whether there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The numeric types that numbers are cast up to along the promotion
/// lattice (INT32 < INT64 < FLOAT32 < FLOAT64), with the conversion of each
/// type below: the one definition of a widening cast's values, shared by
/// [`cast_column`] and by kernels that convert an argument a block at a time
/// instead of casting it as a whole first. Widening never fails; INT64 to
/// FLOAT32 rounds through FLOAT64, as Koda does.
pub trait Widen: Copy + Default + Send + Sync + 'static {
    fn of_i32(v: i32) -> Self;
    fn of_i64(v: i64) -> Self;
    fn of_f32(v: f32) -> Self;
    fn of_f64(v: f64) -> Self;

    /// `out[k]` = item `start + k` of `src` cast to this type. The source
    /// type is matched once per block, then each loop is a plain conversion
    /// that vectorises. Casting to a type below the source's (never asked by
    /// promotion) follows `as`.
    #[inline]
    fn widen_block(src: NumSlice<'_>, start: usize, out: &mut [Self]) {
        let end = start + out.len();
        match src {
            NumSlice::Int32(v) => out.iter_mut().zip(&v[start..end]).for_each(|(o, &x)| *o = Self::of_i32(x)),
            NumSlice::Int64(v) => out.iter_mut().zip(&v[start..end]).for_each(|(o, &x)| *o = Self::of_i64(x)),
            NumSlice::Float32(v) => out.iter_mut().zip(&v[start..end]).for_each(|(o, &x)| *o = Self::of_f32(x)),
            NumSlice::Float64(v) => out.iter_mut().zip(&v[start..end]).for_each(|(o, &x)| *o = Self::of_f64(x)),
        }
    }
}

macro_rules! widen {
    ($t:ty, $of_i64:expr) => {
        impl Widen for $t {
            #[inline(always)]
            fn of_i32(v: i32) -> Self {
                v as $t
            }
            #[inline(always)]
            fn of_i64(v: i64) -> Self {
                $of_i64(v)
            }
            #[inline(always)]
            fn of_f32(v: f32) -> Self {
                v as $t
            }
            #[inline(always)]
            fn of_f64(v: f64) -> Self {
                v as $t
            }
        }
    };
}

widen!(i32, |v: i64| v as i32);
widen!(i64, |v: i64| v);
// Rounded once, to the nearest f32, as Koda casts (through f64 would round
// twice: an INT64 above 2^53 just past the midpoint of two f32s would land
// on the wrong one).
widen!(f32, |v: i64| v as f32);
widen!(f64, |v: i64| v as f64);

/// `src` cast to `T` in one typed loop, into a fresh buffer.
fn widen_all<T: Widen>(src: NumSlice<'_>) -> Vec<T> {
    let mut out: Vec<T> = crate::alloc::output_vec(src.len());
    match src {
        NumSlice::Int32(v) => out.extend(v.iter().map(|&x| T::of_i32(x))),
        NumSlice::Int64(v) => out.extend(v.iter().map(|&x| T::of_i64(x))),
        NumSlice::Float32(v) => out.extend(v.iter().map(|&x| T::of_f32(x))),
        NumSlice::Float64(v) => out.extend(v.iter().map(|&x| T::of_f64(x))),
    }
    out
}

/// `values` as integers of type `T` when every value (present or not) is
/// a number that converts to `T` without error, in typed loops; `None`
/// otherwise, and the general path then finds the error Koda reports (or,
/// when only filler in missing slots did not fit, converts the rest).
fn narrow_all<T: CastInt + Widen>(src: NumSlice<'_>) -> Option<Vec<T>> {
    // Floats fit when their truncation is in T's range: strictly between
    // the float below T::MIN and 2^bits, which also rejects NaN. (A range
    // test on the value itself, not on `trunc()`, which is a libm call on
    // baseline x86-64.)
    let fits_f64 = |v: f64| v > T::BELOW_MIN_F && v < T::MAX_F;
    let fits = match src {
        NumSlice::Int32(_) => true,
        NumSlice::Int64(v) => v.iter().fold(true, |ok, &x| ok & (T::of_i64(x).into() == x)),
        NumSlice::Float32(v) => v.iter().fold(true, |ok, &x| ok & fits_f64(x as f64)),
        NumSlice::Float64(v) => v.iter().fold(true, |ok, &x| ok & fits_f64(x)),
    };
    // In range, `as` truncates toward zero, as `float_to_int` does.
    fits.then(|| widen_all(src))
}

/// A numeric column cast to numeric `target` a column at a time (`None`
/// when the source is not numeric, or a value does not convert).
fn cast_numbers(column: &Column, target: Schema) -> Option<Values> {
    let src = NumSlice::of(&column.values)?;
    Some(match target {
        Schema::Int32 => Values::Int32(ScalarBuffer::from(narrow_all::<i32>(src)?)),
        Schema::Int64 => Values::Int64(ScalarBuffer::from(narrow_all::<i64>(src)?)),
        Schema::Float32 => Values::Float32(ScalarBuffer::from(widen_all::<f32>(src))),
        Schema::Float64 => Values::Float64(ScalarBuffer::from(widen_all::<f64>(src))),
        _ => return None,
    })
}

/// Integer types that casts can produce.
trait CastInt: Copy + Default + TryFrom<i64> + Into<i64> {
    const NAME: &'static str;
    const MIN_F: f64;
    const MAX_F: f64;
    /// The largest f64 whose truncation is below `MIN_F`.
    const BELOW_MIN_F: f64;
}
impl CastInt for i32 {
    const NAME: &'static str = "int32";
    const MIN_F: f64 = i32::MIN as f64;
    const MAX_F: f64 = i32::MAX as f64 + 1.0;
    const BELOW_MIN_F: f64 = i32::MIN as f64 - 1.0;
}
impl CastInt for i64 {
    const NAME: &'static str = "int64";
    const MIN_F: f64 = i64::MIN as f64;
    const MAX_F: f64 = 9_223_372_036_854_775_808.0;
    // The f64 just below -2^63 (f64s there are 2048 apart): everything
    // above it truncates to -2^63 or more.
    const BELOW_MIN_F: f64 = -9_223_372_036_854_777_856.0;
}

/// The values of `column` converted by `convert` (missing items as
/// `T::default()`). Every item is converted and the error of the last one
/// that fails is returned, as Koda reports (`kd.int32(['a', 'b'])` names
/// 'b').
fn convert_each<T: Copy + Default>(column: &Column, convert: impl Fn(ScalarRef<'_>) -> Result<T>) -> Result<Vec<T>> {
    let mut out = Vec::with_capacity(column.len());
    let mut last_error = None;
    for i in 0..column.len() {
        if !column.is_present(i) {
            out.push(T::default());
            continue;
        }
        match convert(column.values.get(i)) {
            Ok(v) => out.push(v),
            Err(e) => {
                last_error = Some(e);
                out.push(T::default());
            }
        }
    }
    last_error.map_or(Ok(out), Err)
}

fn to_ints<T: CastInt>(op: &str, column: &Column, target: Schema) -> Result<Vec<T>> {
    let source = column.values.dtype();
    convert_each(column, |value| {
        let value = match value {
            ScalarRef::Int32(v) => T::try_from(v as i64).ok(),
            ScalarRef::Int64(v) => Some(T::try_from(v).map_err(|_| Error::value(op, format!("cannot cast int64{{{v}}} to {}", T::NAME)))?),
            ScalarRef::Float32(v) => Some(float_to_int::<T>(op, v as f64, true)?),
            ScalarRef::Float64(v) => Some(float_to_int::<T>(op, v, false)?),
            ScalarRef::Boolean(v) => T::try_from(v as i64).ok(),
            ScalarRef::String(v) => Some(parse_int::<T>(op, v, target)?),
            ScalarRef::Bytes(v) => {
                let text = std::str::from_utf8(v).map_err(|_| parse_error(op, target, v))?;
                Some(parse_int::<T>(op, text, target)?)
            }
            ScalarRef::Mask | ScalarRef::Schema(_) | ScalarRef::ItemId(_) | ScalarRef::Expr(_) => None,
        };
        value.ok_or_else(|| unsupported_data(op, source, target))
    })
}

/// `v` (an f32's value when `narrow`) truncated to `T`, or Koda's error
/// naming the value as Koda prints a scalar of its type.
fn float_to_int<T: CastInt>(op: &str, v: f64, narrow: bool) -> Result<T> {
    if v.is_nan() || !(T::MIN_F..T::MAX_F).contains(&v.trunc()) {
        let shown = if narrow { float32_scalar_text(v as f32) } else { float64_scalar_text(v) };
        return Err(Error::value(op, format!("cannot cast {shown} to {}", T::NAME)));
    }
    // In range (checked above), so the conversion cannot fail.
    Ok(T::try_from(v.trunc() as i64).unwrap_or_default())
}

/// An f32 as Koda prints a FLOAT32 scalar in errors: the shortest digits,
/// whole numbers with a bare trailing point (`3000000000.`, `1e30`, `inf`).
fn float32_scalar_text(v: f32) -> String {
    let text = format_f32(v);
    match text.strip_suffix(".0") {
        Some(whole) => format!("{whole}."),
        None => text,
    }
}

/// An f64 as Koda prints a FLOAT64 scalar in errors: tagged with its type,
/// whole numbers without a point (`float64{3000000000}`, `float64{1e30}`).
fn float64_scalar_text(v: f64) -> String {
    let text = format_f64(v);
    format!("float64{{{}}}", text.strip_suffix(".0").unwrap_or(&text))
}

/// Koda's error for text that is not a number: the text as a string
/// literal, bytes too (`b'x'` shows as `'x'`); bytes that are not UTF-8
/// show as a bytes literal (Koda fails to print them).
fn parse_error(op: &str, target: Schema, text: &[u8]) -> Error {
    let mut shown = String::new();
    match std::str::from_utf8(text) {
        Ok(text) => crate::repr::write_string_literal(&mut shown, text),
        Err(_) => write_bytes_literal(&mut shown, text),
    }
    Error::value(op, format!("unable to parse {target}: {shown}"))
}

fn parse_int<T: CastInt>(op: &str, text: &str, target: Schema) -> Result<T> {
    text.parse::<i64>().ok().and_then(|v| T::try_from(v).ok()).ok_or_else(|| parse_error(op, target, text.as_bytes()))
}

fn to_f64s(op: &str, column: &Column, target: Schema) -> Result<Vec<f64>> {
    let source = column.values.dtype();
    convert_each(column, |value| {
        Ok(match value {
            ScalarRef::Int32(v) => v as f64,
            ScalarRef::Int64(v) => v as f64,
            ScalarRef::Float32(v) => v as f64,
            ScalarRef::Float64(v) => v,
            ScalarRef::Boolean(v) => v as u8 as f64,
            ScalarRef::String(v) => v.parse::<f64>().map_err(|_| parse_error(op, target, v.as_bytes()))?,
            ScalarRef::Bytes(v) => std::str::from_utf8(v).ok().and_then(|t| t.parse::<f64>().ok()).ok_or_else(|| parse_error(op, target, v))?,
            ScalarRef::Mask | ScalarRef::Schema(_) | ScalarRef::ItemId(_) | ScalarRef::Expr(_) => return Err(unsupported_data(op, source, target)),
        })
    })
}

/// Merges columns that all hold `target`'s type and have disjoint presence into
/// one column (the result of casting a mixed OBJECT slice to one type).
fn merge_same_type(len: usize, columns: Vec<Column>, target: Schema) -> SliceData {
    if columns.len() <= 1 {
        return SliceData::from_columns(len, columns);
    }
    let mut builder = crate::column::ColumnBuilder::new(target, len);
    for i in 0..len {
        match columns.iter().find_map(|c| c.get(i)) {
            Some(v) => builder.push(v),
            None => builder.push_missing(),
        }
    }
    SliceData::from_column(builder.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::column::SliceBuilder;
    use crate::shape::JaggedShape;

    fn object_slice(items: &[Option<ScalarRef<'_>>]) -> DataSlice {
        let mut b = SliceBuilder::new();
        for &item in items {
            b.push(item);
        }
        let data = b.finish();
        DataSlice::new(JaggedShape::flat(items.len()), data, Schema::Object).unwrap()
    }

    #[test]
    fn explicit_casts() {
        let x = object_slice(&[Some(ScalarRef::Int32(1)), Some(ScalarRef::String("12")), None, Some(ScalarRef::Float32(-1.5))]);
        let y = cast_to("kd.int32", &x, Schema::Int32).unwrap();
        assert_eq!(y.schema(), Schema::Int32);
        assert_eq!(y.data().columns().len(), 1);
        assert_eq!(y.get(1), Some(ScalarRef::Int32(12)));
        assert_eq!(y.get(2), None);
        assert_eq!(y.get(3), Some(ScalarRef::Int32(-1)));
    }

    #[test]
    fn cast_errors_name_value_and_schema() {
        let x = object_slice(&[Some(ScalarRef::String("abc"))]);
        let err = cast_to("kd.int32", &x, Schema::Int32).unwrap_err();
        assert_eq!(err.message, "kd.int32: unable to parse INT32: 'abc'");
        let x = object_slice(&[Some(ScalarRef::Float64(f64::NAN))]);
        let err = cast_to("kd.int32", &x, Schema::Int32).unwrap_err();
        assert_eq!(err.message, "kd.int32: cannot cast float64{nan} to int32");
        let x = object_slice(&[Some(ScalarRef::Int64(1 << 40))]);
        let err = cast_to("kd.int32", &x, Schema::Int32).unwrap_err();
        assert_eq!(err.message, "kd.int32: cannot cast int64{1099511627776} to int32");
    }

    /// A column of numeric `dtype` from `values` (None = missing; the slot
    /// then holds `filler`, which a cast must ignore).
    fn numeric_column(dtype: Schema, values: &[Option<f64>], filler: f64) -> Column {
        let raw: Vec<f64> = values.iter().map(|v| v.unwrap_or(filler)).collect();
        let values_of = match dtype {
            Schema::Int32 => Values::Int32(raw.iter().map(|&v| v as i32).collect::<Vec<_>>().into()),
            Schema::Int64 => Values::Int64(raw.iter().map(|&v| v as i64).collect::<Vec<_>>().into()),
            Schema::Float32 => Values::Float32(raw.iter().map(|&v| v as f32).collect::<Vec<_>>().into()),
            _ => Values::Float64(raw.into()),
        };
        let presence = arrow_buffer::NullBuffer::from(values.iter().map(Option::is_some).collect::<Vec<_>>());
        Column::new(values_of, Some(presence))
    }

    const NUMERIC: [Schema; 4] = [Schema::Int32, Schema::Int64, Schema::Float32, Schema::Float64];

    #[test]
    fn column_casts_between_numbers_match_the_item_by_item_conversion() {
        let edge = [
            Some(0.0),
            Some(-0.0),
            Some(1.5),
            Some(-2.5),
            Some(2147483647.0),
            Some(-2147483648.0),
            Some(-2147483648.75),
            Some(16777217.0),
            Some(9007199254740993.0),
            Some(1e300),
            Some(f64::INFINITY),
            Some(f64::NAN),
            Some(-9_223_372_036_854_775_808.0),
            Some(9_223_372_036_854_774_784.0),
        ];
        for source in NUMERIC {
            for target in NUMERIC {
                // Each value alone, so that one that does not convert leaves
                // the others to compare; with NaN and huge filler in missing slots.
                for v in edge {
                    for filler in [0.0, f64::NAN, 1e300] {
                        let column = numeric_column(source, &[v, None, v], filler);
                        let slow = match target {
                            Schema::Int32 => to_ints::<i32>("op", &column, target).map(|v| format!("{:?}", [v[0], v[2]])),
                            Schema::Int64 => to_ints::<i64>("op", &column, target).map(|v| format!("{:?}", [v[0], v[2]])),
                            Schema::Float32 => to_f64s("op", &column, target).map(|v| format!("{:?}", [v[0] as f32, v[2] as f32])),
                            _ => to_f64s("op", &column, target).map(|v| format!("{:?}", [v[0], v[2]])),
                        };
                        let cast = cast_column("op", &column, target);
                        let shown = cast.as_ref().map(|c| format!("{:?}", [c.get(0), c.get(2)]));
                        match (&slow, &cast) {
                            (Ok(slow), Ok(c)) => {
                                let fast = match &c.values {
                                    Values::Int32(x) => format!("{:?}", [x[0], x[2]]),
                                    Values::Int64(x) => format!("{:?}", [x[0], x[2]]),
                                    Values::Float32(x) => format!("{:?}", [x[0], x[2]]),
                                    Values::Float64(x) => format!("{:?}", [x[0], x[2]]),
                                    other => panic!("{other:?}"),
                                };
                                assert_eq!(&fast, slow, "{source} -> {target} of {v:?} (filler {filler})");
                                assert_eq!(c.presence, column.presence);
                            }
                            (Err(a), Err(b)) => assert_eq!(a.message, b.message),
                            _ => panic!("{source} -> {target} of {v:?} (filler {filler}): {slow:?} vs {shown:?}"),
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn column_casts_report_the_value_that_does_not_convert() {
        let column = numeric_column(Schema::Float32, &[Some(1.0), Some(f64::NAN), None], f64::NAN);
        assert_eq!(cast_column("kd.int32", &column, Schema::Int32).unwrap_err().message, "kd.int32: cannot cast nan to int32");
        let column = numeric_column(Schema::Int64, &[Some((1i64 << 40) as f64), None], 0.0);
        assert_eq!(cast_column("kd.int32", &column, Schema::Int32).unwrap_err().message, "kd.int32: cannot cast int64{1099511627776} to int32");
        // Values as Koda prints scalars of their type: FLOAT32 bare, whole
        // numbers with a trailing point; FLOAT64 tagged, without one.
        let cases = [
            (Schema::Float32, 3e9, "3000000000."),
            (Schema::Float32, 1e20, "100000000000000000000."),
            (Schema::Float32, -f64::INFINITY, "-inf"),
            (Schema::Float64, 3e9, "float64{3000000000}"),
            (Schema::Float64, 3000000000.5, "float64{3000000000.5}"),
            (Schema::Float64, 1e30, "float64{1e30}"),
            (Schema::Float64, f64::INFINITY, "float64{inf}"),
        ];
        for (dtype, value, shown) in cases {
            let column = numeric_column(dtype, &[Some(value)], 0.0);
            let message = cast_column("kd.int32", &column, Schema::Int32).unwrap_err().message;
            assert_eq!(message, format!("kd.int32: cannot cast {shown} to int32"));
        }
        // NaN only in a missing slot: no error.
        let column = numeric_column(Schema::Float64, &[Some(2.75), None, Some(-3.5)], f64::NAN);
        let cast = cast_column("kd.int64", &column, Schema::Int64).unwrap();
        assert_eq!((cast.get(0), cast.get(1), cast.get(2)), (Some(ScalarRef::Int64(2)), None, Some(ScalarRef::Int64(-3))));
        let empty = numeric_column(Schema::Int32, &[], 0.0);
        for target in NUMERIC {
            assert_eq!(cast_column("op", &empty, target).unwrap().len(), 0);
        }
    }

    #[test]
    fn int64_to_float32_rounds_once() {
        // 2^60 + 2^36 + 1: just past the midpoint of two f32s; through f64
        // it would land on the midpoint first, then on the even f32 below.
        let v: i64 = (1 << 60) + (1 << 36) + 1;
        let column = Column::new(Values::Int64(vec![v].into()), None);
        let cast = cast_column("kd.float32", &column, Schema::Float32).unwrap();
        assert_eq!(cast.get(0), Some(ScalarRef::Float32(((1i64 << 60) + (1i64 << 37)) as f32)));
        assert_eq!(<f32 as Widen>::of_i64(v), v as f32);
    }

    #[test]
    fn narrowing_accepts_object_of_ints() {
        let x = object_slice(&[Some(ScalarRef::Int32(1)), None]);
        assert_eq!(x.narrowed_schema(), Schema::Int32);
        assert!(cast_to_implicit("op", &x, Schema::Int64).is_err());
        let y = cast_to_narrow("op", &x, Schema::Int64).unwrap();
        assert_eq!(y.get(0), Some(ScalarRef::Int64(1)));
    }
}
