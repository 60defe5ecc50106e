//! The object model over a DataBag: ids of a slice, the schema of an
//! attribute, and writing attributes with Koda's schema rules.

use plait_core::bag::text::schema_text;
use plait_core::bag::{Stored, SCHEMA_ATTR};
use plait_core::cast::cast_to;
use plait_core::{DataBag, DataSlice, Error, ItemId, ItemKind, Result, ScalarRef, Schema, SliceData, Values};

/// The ItemIds of `x`'s items (`None` where missing or not an id).
pub fn ids_of(x: &DataSlice) -> Vec<Option<ItemId>> {
    let mut out = vec![None; x.size()];
    for column in x.data().columns() {
        if let Values::ItemId(v) = &column.values {
            for (i, slot) in out.iter_mut().enumerate() {
                if column.is_present(i) {
                    *slot = Some(ItemId(v[i] as u128));
                }
            }
        }
    }
    out
}

/// A column of ids as slice data.
pub fn ids_data(ids: &[Option<ItemId>]) -> SliceData {
    let mut values = Vec::with_capacity(ids.len());
    let mut all = true;
    for id in ids {
        values.push(id.map_or(0, |i| i.0 as i128));
        all &= id.is_some();
    }
    let presence = (!all).then(|| arrow_buffer::NullBuffer::from(ids.iter().map(Option::is_some).collect::<Vec<_>>()));
    SliceData::from_column(plait_core::Column::new(Values::ItemId(values.into()), presence))
}

/// Schemas as slice data.
pub fn schemas_data(schemas: Vec<Option<Schema>>) -> SliceData {
    let mut b = plait_core::column::SliceBuilder::new();
    for s in schemas {
        b.push(s.map(ScalarRef::Schema));
    }
    b.finish()
}

/// The schema of attribute `name` of struct schema `schema_id`.
pub fn attr_schema(bag: &DataBag, schema_id: ItemId, name: &str) -> Option<Schema> {
    match bag.get_one(name, schema_id) {
        Some(Stored::Schema(s)) => Some(s),
        _ => None,
    }
}

/// The bag of `x`, or Koda's error for a slice without one.
pub fn bag_of<'a>(op_context: &str, x: &'a DataSlice) -> Result<&'a DataBag> {
    x.bag().ok_or_else(|| attr_error(op_context, "the DataSlice is a reference without a bag"))
}

/// `failed to get attribute 'x': ...` errors (Python AttributeError in Koda;
/// plait raises ValueError with the same text).
pub fn attr_error(context: &str, message: impl std::fmt::Display) -> Error {
    Error { kind: plait_core::ErrorKind::Value, message: format!("{context}: {message}") }
}

/// Writes one attribute of some items (into a bag being built, or in place).
type SetAttr<'a> = dyn Fn(&str, &[Option<ItemId>], &SliceData) -> Result<()> + 'a;

/// Where the schemas of the items being written to live.
pub enum Target {
    /// One struct schema for every item (entities).
    Struct(ItemId),
    /// One schema per item (objects): their `__schema__` ids.
    PerItem(Vec<Option<ItemId>>),
}

/// Writes attributes of `ids` into `write_bag` (which reads through to the
/// items' current bag), updating the schemas as Koda does: an attribute new to
/// the schema is added; an existing one must accept the value's narrowed
/// schema (the value is cast to it) unless `overwrite_schema` or the schema is
/// implicit, in which case the schema takes the value's schema.
/// `values` are already expanded to the items' shape.
pub fn write_attrs(
    op: &str,
    write_bag: &DataBag,
    ids: &[Option<ItemId>],
    target: &Target,
    attrs: &[(String, DataSlice)],
    overwrite_schema: bool,
    filling: bool,
) -> Result<()> {
    let set = |name: &str, ids: &[Option<ItemId>], data: &SliceData| -> Result<()> {
        if filling {
            write_bag.fill(|w| w.set_attr(name, ids, data));
            Ok(())
        } else {
            write_bag.set_attr(op, name, ids, data)
        }
    };
    for (name, value) in attrs {
        if name == SCHEMA_ATTR {
            return Err(Error::value(op, "the attribute '__schema__' cannot be set directly; use with_schema or kd.obj"));
        }
        match target {
            Target::Struct(schema_id) => {
                let value = fit_value(op, write_bag, *schema_id, name, value, overwrite_schema, &set)?;
                set(name, ids, value.data())?;
            }
            Target::PerItem(schema_ids) => {
                // Objects: each object's schema takes the value's schema (implicit
                // schemas allow it); explicit schemas of objects are checked.
                let mut explicit: Vec<ItemId> = schema_ids.iter().flatten().copied().filter(|s| s.kind() != ItemKind::ImplicitSchema).collect();
                explicit.sort();
                explicit.dedup();
                let mut value = value.clone();
                for schema_id in explicit {
                    value = fit_value(op, write_bag, schema_id, name, &value, overwrite_schema, &set)?;
                }
                let implicit: Vec<Option<ItemId>> = schema_ids
                    .iter()
                    .zip(ids)
                    .map(|(s, id)| s.filter(|s| s.kind() == ItemKind::ImplicitSchema && id.is_some()))
                    .collect();
                if implicit.iter().any(Option::is_some) {
                    set(name, &implicit, &schemas_data(vec![Some(value.schema()); implicit.len()]))?;
                }
                set(name, ids, value.data())?;
            }
        }
    }
    Ok(())
}

/// Checks `value` against attribute `name` of explicit schema `schema_id`
/// (adding the attribute when new), returning the value cast to it.
fn fit_value(
    op: &str,
    bag: &DataBag,
    schema_id: ItemId,
    name: &str,
    value: &DataSlice,
    overwrite_schema: bool,
    set: &SetAttr<'_>,
) -> Result<DataSlice> {
    let existing = attr_schema(bag, schema_id, name);
    let implicit = schema_id.kind() == ItemKind::ImplicitSchema;
    if let Some(expected) = existing {
        let narrowed = value.narrowed_schema();
        if expected == value.schema() {
            return Ok(value.clone());
        }
        if !expected.is_struct() && narrowed.is_implicitly_castable_to(expected) && !(overwrite_schema || implicit && narrowed != expected) {
            return cast_to(op, value, expected);
        }
        if !(overwrite_schema || implicit) {
            return Err(Error::value(
                op,
                format!(
                    "the schema for attribute '{name}' is incompatible.\n\n\
                     Expected schema for '{name}': {}\nAssigned schema for '{name}': {}\n\n\
                     To fix this, explicitly override schema of '{name}' in the original schema by passing overwrite_schema=True.",
                    schema_text(expected, Some(bag)),
                    schema_text(value.schema(), value.bag().or(Some(bag)))
                ),
            ));
        }
    }
    set(name, &[Some(schema_id)], &schemas_data(vec![Some(value.schema())]))?;
    Ok(value.clone())
}

/// The distinct bags of `inputs`, in order: what a new bag built from them
/// reads through.
pub fn result_bag(inputs: &[&DataSlice]) -> Vec<DataBag> {
    DataBag::distinct(inputs.iter().filter_map(|x| x.bag()))
}

/// A result holding entities or objects keeps the bags of the inputs (one bag
/// as is; several read through in argument order), as in Koda; primitive
/// results carry no bag.
pub fn keep_bags(result: DataSlice, inputs: &[&DataSlice]) -> DataSlice {
    if result.bag().is_some() || !matches!(result.schema(), Schema::Struct(_) | Schema::Object | Schema::ItemId | Schema::Schema) {
        return result;
    }
    let bag = DataBag::combined(inputs.iter().filter_map(|x| x.bag()));
    result.with_bag(bag)
}
