//! Type rules of the text operators that do not act item by item: those
//! that take `*args` / `**kwargs`, and those that add a dimension.

use plait_core::typing::{Dim, SchemaType, SliceType};
use plait_core::{Error, Result, Schema};

use crate::promote::TypeClass;
use crate::typing::rules::{broadcast_with_var, check_class, with_new_dim};
use crate::typing::{TypeArgs, TypeValue};

/// `kd.strings.join(*args)`: the texts broadcast, their common schema.
pub fn join(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let op = a.op_name();
    let mut schema = SchemaType::Named(Schema::None);
    for v in a.var_args() {
        let TypeValue::Slice(t, _) = v.untagged() else {
            schema = SchemaType::Unknown;
            continue;
        };
        check_class(op, "args", t, TypeClass::Text)?;
        let object = SchemaType::Named(Schema::Object);
        schema = SchemaType::common(&schema, &t.schema)
            .filter(|common| *common != object || schema == object || t.schema == object)
            .ok_or_else(|| Error::value(op, format!("argument `args`: expected texts of one kind, inferred {t} after {schema}")))?;
    }
    if a.var_args().is_empty() {
        return Err(Error::value(op, "expected at least one argument"));
    }
    Ok(TypeValue::slice(SliceType { schema, dims: broadcast_with_var(a, &[])? }))
}

/// `kd.strings.format(fmt, **kwargs)`, `kd.strings.printf(fmt, *args)`:
/// `fmt`'s schema, broadcast with the values.
pub fn format(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let fmt = a.slice("fmt")?;
    check_class(a.op_name(), "fmt", fmt, TypeClass::Text)?;
    Ok(TypeValue::slice(SliceType { schema: fmt.schema.clone(), dims: broadcast_with_var(a, &["fmt"])? }))
}

/// `x`'s dims and one more, a new data-dependent size.
fn one_more_dim(a: &TypeArgs<'_>, x: &SliceType) -> Result<Option<Vec<Dim>>> {
    x.dims.clone().map(|d| with_new_dim(a, d, None)).transpose()
}

/// `kd.strings.split(x, sep)`: the parts of each text, one dimension more.
pub fn split(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let op = a.op_name();
    let (x, sep) = (a.slice("x")?, a.slice("sep")?);
    check_class(op, "x", x, TypeClass::Text)?;
    check_class(op, "sep", sep, TypeClass::Text)?;
    let schema = SchemaType::common(&x.schema, &sep.schema).unwrap_or(SchemaType::Unknown);
    Ok(TypeValue::slice(SliceType { schema, dims: one_more_dim(a, x)? }))
}

/// `kd.strings.regex_find_all(text, regex)`: the matches of each text, and
/// the groups of each match (as many as the regex has).
pub fn regex_find_all(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let op = a.op_name();
    let (text, regex) = (a.slice("text")?, a.slice("regex")?);
    check_class(op, "text", text, TypeClass::String)?;
    check_class(op, "regex", regex, TypeClass::String)?;
    let dims = one_more_dim(a, text)?.map(|mut d| {
        d.push(Dim::Unknown);
        d
    });
    Ok(TypeValue::slice(SliceType { schema: text.schema.clone(), dims }))
}

/// `kd.strings.fstr(fstr)`: STRING, of the shape of the values the text
/// embeds (unknown here).
pub fn fstr(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let x = a.slice("fstr")?;
    check_class(a.op_name(), "fstr", x, TypeClass::String)?;
    Ok(TypeValue::slice(SliceType { schema: SchemaType::Named(Schema::String), dims: None }))
}
