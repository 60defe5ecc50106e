//! Struct schemas as data: `kd.schema.new_schema`, `kd.named_schema`,
//! `kd.get_obj_schema`, and `kd.get_itemid`.

use plait_core::bag::text::SCHEMA_NAME_ATTR;
use plait_core::itemid::allocate;
use plait_core::{DataBag, DataSlice, Error, ItemId, ItemKind, Result, ScalarRef, Schema};

use super::access::object_schemas;
use super::create::named_schema_id;
use super::model::{ids_of, result_bag, schemas_data};
use crate::registry::Registry;

/// A schema item `schema_id` whose attributes are `fields` (schema items).
pub(super) fn schema_with_fields(op: &str, schema_id: ItemId, name: Option<&str>, fields: &[(String, DataSlice)]) -> Result<DataSlice> {
    let inputs: Vec<&DataSlice> = fields.iter().map(|(_, v)| v).collect();
    let bag = DataBag::with_fallbacks(result_bag(&inputs));
    for (field, value) in fields {
        let schema = match value.get(0) {
            Some(ScalarRef::Schema(s)) if value.is_item() => s,
            _ => {
                return Err(Error::type_error(
                    op,
                    format!("argument `{field}` must be a schema item (e.g. kd.INT32), got {}", crate::describe(value)),
                ))
            }
        };
        bag.fill(|w| w.set_attr(field, &[Some(schema_id)], &schemas_data(vec![Some(schema)])));
    }
    if let Some(name) = name {
        let mut b = plait_core::column::SliceBuilder::new();
        b.push(Some(ScalarRef::String(name)));
        bag.fill(|w| w.set_attr(SCHEMA_NAME_ATTR, &[Some(schema_id)], &b.finish()));
    }
    Ok(DataSlice::item(Some(ScalarRef::Schema(Schema::Struct(schema_id))), Schema::Schema)?.with_bag(Some(bag)))
}

/// `kd.get_obj_schema(x)`: each item's own schema (`__schema__` for objects,
/// the type for primitives, the slice's schema for entities).
pub fn get_obj_schema(x: &DataSlice) -> Result<DataSlice> {
    let schemas: Vec<Option<Schema>> = match x.schema() {
        Schema::Object => {
            let ids = ids_of(x);
            let from_bag = match x.bag() {
                Some(bag) if ids.iter().any(Option::is_some) => object_schemas(bag, &ids, "kd.schema.get_obj_schema")?,
                None if ids.iter().any(Option::is_some) => {
                    return Err(Error::value("kd.schema.get_obj_schema", "the DataSlice is a reference without a bag"))
                }
                _ => vec![None; ids.len()],
            };
            (0..x.size())
                .map(|i| match x.get(i) {
                    None => None,
                    Some(ScalarRef::ItemId(_)) => from_bag[i].map(Schema::Struct),
                    Some(v) => Some(v.dtype()),
                })
                .collect()
        }
        s => (0..x.size()).map(|i| x.get(i).map(|_| s)).collect(),
    };
    Ok(DataSlice::new(x.shape().clone(), schemas_data(schemas), Schema::Schema)?.with_bag(x.bag().cloned()))
}

/// `kd.get_itemid(x)`: the ids of entities and objects as ITEMID.
pub fn get_itemid(x: &DataSlice) -> Result<DataSlice> {
    match x.schema() {
        Schema::Struct(_) | Schema::Object | Schema::ItemId | Schema::None => {
            let ids = ids_of(x);
            if ids.iter().flatten().count() != x.present_count() {
                return Err(Error::value("kd.core.get_itemid", "primitives have no ItemIds"));
            }
            Ok(DataSlice::new(x.shape().clone(), super::model::ids_data(&ids), Schema::ItemId)?.with_bag(x.bag().cloned()))
        }
        other => Err(Error::value("kd.core.get_itemid", format!("expected entities or objects, got a DataSlice of {other}"))),
    }
}

pub(crate) fn register(r: &mut Registry) {
    r.add("kd.schema.new_schema", &[], "**kwargs", "Creates a new explicit entity schema with the given attribute schemas.", |a| {
        schema_with_fields("kd.schema.new_schema", allocate(ItemKind::Schema, 1).1[0], None, &a.named_slices()?)
    });
    r.add("kd.schema.named_schema", &["kd.named_schema"], "name, /, **kwargs", "Returns the schema named name (the same for the same name).", |a| {
        let name = a.text("name")?;
        schema_with_fields("kd.schema.named_schema", named_schema_id(&name), Some(&name), &a.named_slices()?)
    });
    r.add("kd.schema.get_obj_schema", &["kd.get_obj_schema"], "x", "Returns the schema of every item.", |a| get_obj_schema(a.slice("x")?));
    r.add("kd.core.get_itemid", &["kd.get_itemid"], "x", "Returns the ItemIds of entities and objects.", |a| get_itemid(a.slice("x")?));
}
