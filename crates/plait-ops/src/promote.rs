//! The one type-promotion step of every operator (seed 000, "Type Promotion").
//!
//! Each argument's *data type* is its schema, or for an OBJECT slice the single
//! type of its present items. Each data type is checked against what the
//! operator accepts, then the common type is taken on the promotion lattice.
//! The result is OBJECT when an argument was OBJECT, as in Koda.

use plait_core::{DataSlice, Error, Result, Schema};

/// The item types an operator accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeClass {
    /// INT32, INT64, FLOAT32, FLOAT64.
    Numeric,
    /// Numbers, or text of one kind (`kd.math.add` concatenates text).
    NumericOrText,
    /// Numbers, text, bytes, booleans and masks (ordering comparisons).
    Orderable,
    /// MASK only.
    Mask,
    /// STRING only.
    String,
    /// STRING or BYTES.
    Text,
    /// Any primitive type.
    Primitive,
}

impl TypeClass {
    /// Whether items of type `dtype` are accepted (NONE always is).
    pub fn admits(self, dtype: Schema) -> bool {
        dtype == Schema::None
            || match self {
                TypeClass::Numeric => dtype.is_numeric(),
                TypeClass::NumericOrText => dtype.is_numeric() || matches!(dtype, Schema::String | Schema::Bytes),
                TypeClass::Orderable => {
                    dtype.is_numeric() || matches!(dtype, Schema::String | Schema::Bytes | Schema::Boolean | Schema::Mask)
                }
                TypeClass::Mask => dtype == Schema::Mask,
                TypeClass::String => dtype == Schema::String,
                TypeClass::Text => matches!(dtype, Schema::String | Schema::Bytes),
                TypeClass::Primitive => dtype.is_primitive(),
            }
    }

    /// How error messages describe the accepted items.
    pub fn describe(self) -> &'static str {
        match self {
            TypeClass::Numeric => "numeric values",
            TypeClass::NumericOrText => "consistent numeric, bytes or string values",
            TypeClass::Orderable => "consistent numeric, bytes, string, boolean or mask values",
            TypeClass::Mask => "MASK",
            TypeClass::String => "STRING",
            TypeClass::Text => "STRING or BYTES",
            TypeClass::Primitive => "primitive values",
        }
    }
}

/// The outcome of promotion: the type the kernel computes in, and whether the
/// result is an OBJECT slice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Promotion {
    pub dtype: Schema,
    pub object: bool,
}

impl Promotion {
    /// The result schema for a kernel whose output type is `out`.
    pub fn schema(&self, out: Schema) -> Schema {
        if self.object { Schema::Object } else { out }
    }
}

/// The error for an argument whose items are not what `op` accepts.
pub fn argument_type_error(op: &str, arg: &str, class: TypeClass, got: &str) -> Error {
    Error::value(op, format!("argument `{arg}` must be a slice of {}, got a slice of {got}", class.describe()))
}

/// The data type of one argument, checked against `class`.
pub fn data_type(op: &str, arg: &str, x: &DataSlice, class: TypeClass) -> Result<Schema> {
    let dtype = if x.schema() == Schema::Object {
        let dtypes: Vec<Schema> = x.data().dtypes().collect();
        match dtypes.as_slice() {
            [] => Schema::None,
            [one] => *one,
            many => {
                // Numbers of several widths are "mixed types"; numbers with text
                // (or other kinds) are not what the operator accepts at all.
                let same_kind = many.iter().all(|t| t.is_numeric()) || many.iter().all(|t| *t == many[0]);
                if same_kind && many.iter().all(|&t| class.admits(t)) {
                    return Err(Error::value(op, "DataSlice with mixed types is not supported"));
                }
                let names: Vec<&str> = many.iter().map(|t| t.name()).collect();
                let got = format!("OBJECT containing {} values", join_and(&names));
                return Err(argument_type_error(op, arg, class, &got));
            }
        }
    } else {
        x.schema()
    };
    if !class.admits(dtype) {
        let got = if x.schema() == Schema::Object { format!("OBJECT containing {dtype} values") } else { dtype.to_string() };
        return Err(argument_type_error(op, arg, class, &got));
    }
    Ok(dtype)
}

/// Promotes the named arguments of `op` to one computation type.
pub fn promote(op: &str, args: &[(&str, &DataSlice)], class: TypeClass) -> Result<Promotion> {
    let mut dtypes = Vec::with_capacity(args.len());
    for (name, x) in args {
        dtypes.push(data_type(op, name, x, class)?);
    }
    let object = args.iter().any(|(_, x)| x.schema() == Schema::Object);
    if !object {
        let common = args.iter().try_fold(Schema::None, |acc, (_, x)| Schema::common(acc, x.schema()));
        if !matches!(common, Some(s) if s.is_primitive() || s == Schema::None) {
            return Err(no_common_primitive(op, args));
        }
    }
    let dtype = dtypes.iter().try_fold(Schema::None, |acc, &t| Schema::common(acc, t));
    match dtype {
        Some(dtype) if class.admits(dtype) && (dtype.is_primitive() || dtype == Schema::None) => {
            Ok(Promotion { dtype, object })
        }
        _ if object => Err(Error::value(op, "DataSlice with mixed types is not supported")),
        _ => Err(no_common_primitive(op, args)),
    }
}

/// Koda's message, followed by the schema of each argument.
fn no_common_primitive(op: &str, args: &[(&str, &DataSlice)]) -> Error {
    let schemas: Vec<String> = args.iter().map(|(name, x)| format!("`{name}`: {}", x.schema())).collect();
    Error::value(
        op,
        format!(
            "arguments do not contain values castable to a common primitive schema, but have the common non-primitive \
             schema OBJECT. ({})",
            schemas.join(", ")
        ),
    )
}

fn join_and(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}
