//! The argument checks of Koda's `kd.assertion.assert_primitive` and
//! `assert_present_scalar`, which Koda's operators run on their arguments
//! (the seed of `kd.random.*`, ...), with their messages: the builtins of
//! `plait-expr` and the operators here share them.

use plait_core::{DataSlice, Error, Result, ScalarRef, Schema};

/// The operator named by errors of [`primitive`].
pub const ASSERT_PRIMITIVE: &str = "kd.assertion.assert_primitive";
/// The operator named by errors of [`present_scalar`].
pub const ASSERT_PRESENT_SCALAR: &str = "kd.assertion.assert_present_scalar";

/// The schema of `x` as `str(x.get_schema())` shows it (struct schemas
/// with their attributes, read from `x`'s bag).
fn schema_text(x: &DataSlice) -> String {
    match DataSlice::item(Some(ScalarRef::Schema(x.schema())), Schema::Schema) {
        Ok(item) => plait_core::repr::format_items(&item.with_bag(x.bag().cloned())),
        Err(_) => x.schema().to_string(),
    }
}

/// Whether `schema` can be implicitly cast to `target`.
fn implicitly(schema: Schema, target: Schema) -> bool {
    Schema::common(schema, target) == Some(target)
}

/// `None` when the items of `x` can be implicitly cast to `target`, else
/// what they are (`STRING`, `OBJECT containing INT32 and STRING values`).
pub fn not_castable(x: &DataSlice, target: Schema) -> Option<String> {
    let schema = x.schema();
    if schema != Schema::Object {
        return (schema != Schema::None && !implicitly(schema, target)).then(|| schema_text(x));
    }
    let mut names = std::collections::BTreeSet::new();
    let mut castable = true;
    for column in x.data().columns() {
        if column.present_count() == 0 {
            continue;
        }
        match column.values.dtype() {
            Schema::ItemId => {
                names.insert("non-primitive".to_string());
                castable = false;
            }
            Schema::Schema => {
                names.insert("DTYPE".to_string());
                castable = false;
            }
            dtype => {
                names.insert(dtype.to_string());
                castable &= implicitly(dtype, target);
            }
        }
    }
    if castable {
        return None;
    }
    let names: Vec<String> = names.into_iter().collect();
    let listed = match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.concat(),
    };
    Some(format!("OBJECT containing {listed} values"))
}

/// `kd.assertion.assert_primitive(name, x, target)`: the items of `x` can
/// be implicitly cast to `target`.
pub fn primitive(name: &str, x: &DataSlice, target: Schema) -> Result<()> {
    primitive_for(ASSERT_PRIMITIVE, name, x, target)
}

/// [`primitive`], with errors naming operator `op`.
pub fn primitive_for(op: &str, name: &str, x: &DataSlice, target: Schema) -> Result<()> {
    match not_castable(x, target) {
        None => Ok(()),
        Some(got) => Err(Error::value(op, format!("argument `{name}` must be a slice of {target}, got a slice of {got}"))),
    }
}

/// `kd.assertion.assert_present_scalar(name, x, target)`: `x` is a present
/// DataItem that can be implicitly cast to `target`.
pub fn present_scalar(name: &str, x: &DataSlice, target: Schema) -> Result<()> {
    present_scalar_for(ASSERT_PRESENT_SCALAR, name, x, target)
}

/// The text of STRING item argument `name` of `op`, or Koda's error for
/// anything else (`argument `name` must be an item holding STRING, got a
/// slice of rank 1 > 0` / `missing` / `an item of INT32`).
pub fn string_item<'a>(op: &str, name: &str, x: &'a DataSlice) -> Result<&'a str> {
    if let (true, Some(ScalarRef::String(s))) = (x.is_item(), x.get(0)) {
        return Ok(s);
    }
    present_scalar_for(op, name, x, Schema::String)?;
    Err(Error::value(op, format!("argument `{name}` must be an item holding STRING, got {}", crate::describe(x))))
}

/// [`present_scalar`], with errors naming operator `op`.
pub fn present_scalar_for(op: &str, name: &str, x: &DataSlice, target: Schema) -> Result<()> {
    let expected = format!("argument `{name}` must be an item holding {target}, got");
    if !x.is_item() {
        return Err(Error::value(op, format!("{expected} a slice of rank {} > 0", x.rank())));
    }
    if x.present_count() != 1 {
        return Err(Error::value(op, format!("{expected} missing")));
    }
    if let Some(got) = not_castable(x, target) {
        return Err(Error::value(op, format!("{expected} an item of {got}")));
    }
    Ok(())
}

/// The value of a present integer DataItem checked as INT64 by
/// [`present_scalar`].
pub fn int64_scalar(name: &str, x: &DataSlice) -> Result<i64> {
    present_scalar(name, x, Schema::Int64)?;
    match x.get(0) {
        Some(ScalarRef::Int32(v)) => Ok(v as i64),
        Some(ScalarRef::Int64(v)) => Ok(v),
        _ => Err(Error::value(ASSERT_PRESENT_SCALAR, format!("argument `{name}` must be an item holding INT64"))),
    }
}

/// The value of a present numeric DataItem checked as FLOAT64 by
/// [`present_scalar`].
pub fn float64_scalar(name: &str, x: &DataSlice) -> Result<f64> {
    present_scalar(name, x, Schema::Float64)?;
    match x.get(0) {
        Some(ScalarRef::Int32(v)) => Ok(v as f64),
        Some(ScalarRef::Int64(v)) => Ok(v as f64),
        Some(ScalarRef::Float32(v)) => Ok(v as f64),
        Some(ScalarRef::Float64(v)) => Ok(v),
        _ => Err(Error::value(ASSERT_PRESENT_SCALAR, format!("argument `{name}` must be an item holding FLOAT64"))),
    }
}
