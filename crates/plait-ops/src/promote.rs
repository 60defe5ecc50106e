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
    /// STRING or BYTES (never both in one call, see [`mixed_text_error`]).
    Text,
    /// BYTES only.
    Bytes,
    /// INT32 or INT64 (string offsets, counts).
    Integer,
    /// Any primitive type.
    Primitive,
    /// Schemas.
    Schema,
}

impl TypeClass {
    /// Whether items of type `dtype` are accepted (NONE always is).
    pub fn admits(self, dtype: Schema) -> bool {
        dtype == Schema::None
            || match self {
                TypeClass::Numeric => dtype.is_numeric(),
                TypeClass::NumericOrText => dtype.is_numeric() || matches!(dtype, Schema::String | Schema::Bytes),
                TypeClass::Orderable => dtype.is_numeric() || matches!(dtype, Schema::String | Schema::Bytes | Schema::Boolean | Schema::Mask),
                TypeClass::Mask => dtype == Schema::Mask,
                TypeClass::String => dtype == Schema::String,
                TypeClass::Text => matches!(dtype, Schema::String | Schema::Bytes),
                TypeClass::Bytes => dtype == Schema::Bytes,
                TypeClass::Integer => dtype.is_integer(),
                TypeClass::Primitive => dtype.is_primitive(),
                TypeClass::Schema => dtype == Schema::Schema,
            }
    }

    /// How error messages describe the accepted items.
    pub fn describe(self) -> &'static str {
        match self {
            TypeClass::Numeric => "numeric values",
            TypeClass::NumericOrText => "consistent numeric, bytes or string values",
            TypeClass::Orderable => "orderable values",
            TypeClass::Mask => "MASK",
            TypeClass::String => "STRING",
            TypeClass::Text => "either STRING or BYTES",
            TypeClass::Bytes => "BYTES",
            TypeClass::Integer => "integer values",
            TypeClass::Primitive => "primitive values",
            TypeClass::Schema => "SCHEMA",
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

/// Koda's error for two arguments whose schemas have no common schema
/// (`kd.equal(entity, kd.INT32)`); each schema shown with its attributes
/// when its bag is given, and with its id where both print alike (two
/// `ENTITY()` schemas).
pub fn no_common_schema_error(op: &str, x: (Schema, Option<&plait_core::DataBag>), y: (Schema, Option<&plait_core::DataBag>)) -> Error {
    use plait_core::bag::text::schema_text;
    let (mut x_text, mut y_text) = (schema_text(x.0, x.1), schema_text(y.0, y.1));
    if let (true, Schema::Struct(x_id), Schema::Struct(y_id)) = (x_text == y_text, x.0, y.0) {
        x_text = format!("{x_text} with id Schema:{}", x_id.short());
        y_text = format!("{y_text} with id Schema:{}", y_id.short());
    }
    Error::value(op, format!("arguments do not have a common schema.\n\n{}", schemas_text(&[("x", x_text), ("y", y_text)])))
}

/// `Schema for `x`: INT32` lines, as Koda's errors list the schemas of
/// arguments.
fn schemas_text(schemas: &[(&str, String)]) -> String {
    schemas.iter().map(|(name, text)| format!("Schema for `{name}`: {text}")).collect::<Vec<_>>().join("\n")
}

/// The error for an argument whose items are not what `op` accepts.
pub fn argument_type_error(op: &str, arg: &str, class: TypeClass, got: &str) -> Error {
    Error::value(op, format!("argument `{arg}` must be a slice of {}, got a slice of {got}", class.describe()))
}

/// The error for text arguments of both kinds in one call: `first` holds
/// `first_type` and `second` holds the other one.
pub fn mixed_text_error(op: &str, first: &str, first_type: Schema, second: &str, second_type: Schema) -> Error {
    // Koda names the STRING argument first, whatever the arguments' order.
    let ((first, first_type), (second, second_type)) =
        if first_type == Schema::Bytes { ((second, second_type), (first, first_type)) } else { ((first, first_type), (second, second_type)) };
    Error::value(
        op,
        format!(
            "mixing STRING and BYTES arguments is not allowed, but `{first}` contains {first_type} and `{second}` contains \
             {second_type}"
        ),
    )
}

/// The common text type (STRING, BYTES, or NONE when nothing is present) of
/// text arguments, each checked against `class`; STRING and BYTES do not mix.
/// The result is OBJECT when an argument is.
pub fn promote_text(op: &str, args: &[(&str, &DataSlice)], class: TypeClass) -> Result<Promotion> {
    let mut found: Option<(&str, Schema)> = None;
    let mut dtypes = Vec::with_capacity(args.len());
    for (name, x) in args {
        dtypes.push(data_type(op, name, x, class)?);
    }
    for ((name, _), dtype) in args.iter().zip(dtypes) {
        if dtype == Schema::None {
            continue;
        }
        match found {
            None => found = Some((name, dtype)),
            Some((first, t)) if t != dtype => return Err(mixed_text_error(op, first, t, name, dtype)),
            Some(_) => {}
        }
    }
    let object = args.iter().any(|(_, x)| x.schema() == Schema::Object);
    Ok(Promotion { dtype: found.map_or(Schema::None, |(_, t)| t), object })
}

/// How Koda names items of type `dtype` inside an OBJECT slice in errors:
/// entities, objects, lists and dicts are "non-primitive".
fn object_item_name(dtype: Schema) -> &'static str {
    match dtype {
        Schema::ItemId => "non-primitive",
        other => other.name(),
    }
}

/// What an OBJECT slice holding items of `dtypes` is, in Koda's words for
/// errors: `OBJECT containing INT32 and STRING values` (ids are
/// `non-primitive`).
pub fn object_contents(dtypes: &[Schema]) -> String {
    let names: Vec<&str> = dtypes.iter().map(|&t| object_item_name(t)).collect();
    format!("OBJECT containing {} values", join_and(&names))
}

/// The data type of one argument, checked against `class`.
pub fn data_type(op: &str, arg: &str, x: &DataSlice, class: TypeClass) -> Result<Schema> {
    let dtype = if x.schema() == Schema::Object {
        let mut dtypes: Vec<Schema> = x.data().dtypes().collect();
        dtypes.sort();
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
                return Err(argument_type_error(op, arg, class, &object_contents(many)));
            }
        }
    } else {
        x.schema()
    };
    if !class.admits(dtype) {
        let got = if x.schema() == Schema::Object { object_contents(&[dtype]) } else { plait_core::bag::text::schema_text(dtype, x.bag()) };
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
        Some(dtype) if class.admits(dtype) && (dtype.is_primitive() || dtype == Schema::None) => Ok(Promotion { dtype, object }),
        _ if object => Err(Error::value(op, "DataSlice with mixed types is not supported")),
        _ => Err(no_common_primitive(op, args)),
    }
}

/// Koda's message, followed by the schema of each argument.
fn no_common_primitive(op: &str, args: &[(&str, &DataSlice)]) -> Error {
    let schemas: Vec<(&str, String)> = args.iter().map(|(name, x)| (*name, x.schema().to_string())).collect();
    Error::value(
        op,
        format!(
            "arguments do not contain values castable to a common primitive schema, but have the common non-primitive \
             schema OBJECT.\n\n{}",
            schemas_text(&schemas)
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
