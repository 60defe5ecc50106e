//! `kd.schema` operators that compute on schemas as values: casting
//! ([`casts`]), a slice's schema, primitive schemas, common schemas. (Struct
//! schemas, which live in bags, are in `objects::schemas`.)

pub mod casts;
mod deep_cast;
pub mod layout;
mod register;

use plait_core::cast::cast_to;
use plait_core::schema_ops::agg_common_schema;
use plait_core::{DataSlice, Error, ItemKind, Result, ScalarRef, Schema};

use crate::objects::schemas::get_obj_schema;
use crate::registry::{Registry, Value};

pub(crate) fn register(r: &mut Registry) {
    casts::register(r);
    register::register(r);
}

/// A SCHEMA item.
fn schema_item(schema: Option<Schema>) -> Result<DataSlice> {
    DataSlice::item(schema.map(ScalarRef::Schema), Schema::Schema)
}

/// The schema of `x` as a SCHEMA item, with the bag of `x` (where a struct
/// schema's attributes are stored; Koda keeps it for every schema).
pub fn get_schema(x: &DataSlice) -> Result<DataSlice> {
    Ok(schema_item(Some(x.schema()))?.with_bag(x.bag().cloned()))
}

/// Present when `x` is a DataItem holding a primitive schema.
fn is_primitive_schema(x: &Value) -> Result<DataSlice> {
    let yes = match x {
        Value::Slice(x) if x.is_item() && x.schema() == Schema::Schema => matches!(x.get(0), Some(ScalarRef::Schema(s)) if s.is_primitive()),
        _ => false,
    };
    DataSlice::item(yes.then_some(ScalarRef::Mask), Schema::Mask)
}

/// The primitive schema shared by the present items of `x` (for a slice
/// with a primitive schema, that schema), else a missing SCHEMA item.
fn get_primitive_schema(x: &DataSlice) -> Result<DataSlice> {
    let schema = match x.schema() {
        Schema::Object => {
            let schemas = get_obj_schema(x)?;
            let mut found: Option<Schema> = None;
            for i in 0..schemas.size() {
                match (schemas.get(i), found) {
                    (Some(ScalarRef::Schema(s)), None) => found = Some(s),
                    (Some(ScalarRef::Schema(s)), Some(f)) if s != f => return schema_item(None),
                    _ => {}
                }
            }
            found
        }
        s => Some(s),
    };
    schema_item(schema.filter(|s| s.is_primitive()))
}

/// OBJECT slice `x` with the common schema of its items as its schema.
fn with_schema_from_obj(op: &str, x: &DataSlice) -> Result<DataSlice> {
    if x.schema() != Schema::Object {
        return Err(Error::value(op, format!("DataSlice must have OBJECT schema, got {}", x.schema())));
    }
    let schemas = get_obj_schema(x)?;
    let flat = schemas.with_shape(op, schemas.shape().flatten(0, schemas.rank()))?;
    let common = agg_common_schema(op, &flat, 1).map_err(|_| Error::value(op, "the items have no common schema"))?;
    match common.get(0) {
        None => cast_to(op, x, Schema::None),
        Some(ScalarRef::Schema(Schema::Object)) => Ok(x.clone()),
        Some(ScalarRef::Schema(s)) if s.is_primitive() => cast_to(op, x, s),
        Some(ScalarRef::Schema(s)) => x.with_schema(slice_schema(op, s)?),
        Some(other) => Err(Error::internal(format!("{op}: a common schema of type {}", other.dtype()))),
    }
}

/// `schema`, refused where it is an object's own (implicit) schema: no
/// DataSlice has one as its schema, as in Koda.
pub(crate) fn slice_schema(op: &str, schema: Schema) -> Result<Schema> {
    match schema {
        Schema::Struct(id) if matches!(id.kind(), ItemKind::ImplicitSchema | ItemKind::NofollowImplicitSchema) => {
            Err(Error::value(op, "DataSlice cannot have an implicit schema as its schema"))
        }
        s => Ok(s),
    }
}

/// The `ndim` argument of `agg_common_schema` (1 when unspecified).
fn agg_ndim(op: &str, ndim: Option<i64>) -> Result<usize> {
    match ndim.unwrap_or(1) {
        n if n < 0 => Err(Error::value(op, format!("ndim must be non-negative, got {n}"))),
        n => Ok(n as usize),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use plait_core::JaggedShape;
    use plait_core::column::SliceBuilder;

    fn object_ints(values: &[Option<i32>]) -> DataSlice {
        let mut b = SliceBuilder::new();
        values.iter().for_each(|v| b.push(v.map(ScalarRef::Int32)));
        DataSlice::new(JaggedShape::flat(values.len()), b.finish(), Schema::Object).unwrap()
    }

    #[test]
    fn primitive_schema_of_objects() {
        let x = object_ints(&[Some(1), None]);
        assert_eq!(get_primitive_schema(&x).unwrap().get(0), Some(ScalarRef::Schema(Schema::Int32)));
        let typed = with_schema_from_obj("test", &x).unwrap();
        assert_eq!(typed.schema(), Schema::Int32);
        let none = with_schema_from_obj("test", &object_ints(&[None])).unwrap();
        assert_eq!(none.schema(), Schema::None);
    }
}
