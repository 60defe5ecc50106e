//! Schema metadata: `kd.core.metadata`, `kd.core.with_metadata` and
//! `kd.core.get_metadata`.
//!
//! The metadata of a struct schema (entity, named, uu, list or dict schema)
//! is an object held in the schema's `__schema_metadata__` attribute. Its id
//! is derived from the schema's, so that setting metadata twice updates the
//! same object (a later `with_metadata(foo=2)` keeps the attributes an
//! earlier one set). Schemas print it; `get_attr_names` hides it.

use plait_core::bag::SCHEMA_ATTR;
use plait_core::bag::text::SCHEMA_METADATA_ATTR;
use plait_core::itemid::UuidHasher;
use plait_core::{DataBag, DataSlice, Error, ItemId, ItemKind, Result, ScalarRef, Schema};

use super::model::{ids_data, schemas_data};
use crate::registry::{Registry, Value};

/// The id of the metadata object of struct schema `schema`.
fn metadata_id(schema: ItemId) -> ItemId {
    let mut h = UuidHasher::new("schema_metadata");
    h.write_item(Some(ScalarRef::Schema(Schema::Struct(schema))));
    ItemId::uuid(ItemKind::Object, h.finish())
}

/// The struct schema ids of `x` (a SCHEMA slice), `None` where missing;
/// primitive schemas (INT32, OBJECT, ...) have no metadata.
fn schema_ids(op: &str, x: &DataSlice) -> Result<Vec<Option<ItemId>>> {
    if x.schema() != Schema::Schema {
        let schema = plait_core::bag::text::schema_text(x.schema(), x.bag());
        return Err(Error::value(op, format!("failed to create metadata; cannot create for a DataSlice with {schema} schema")));
    }
    (0..x.size())
        .map(|i| match x.get(i) {
            None => Ok(None),
            Some(ScalarRef::Schema(Schema::Struct(id))) => Ok(Some(id)),
            Some(other) => Err(Error::value(
                op,
                format!(
                    "failed to create metadata; only struct schemas (entity, list and dict schemas) have metadata, got {} at ds.flatten().S[{i}]",
                    plait_core::repr::format_items(&DataSlice::item(Some(other), Schema::Schema)?)
                ),
            )),
        })
        .collect()
}

/// `x` with a new bag over its own in which each struct schema of `x` holds
/// its metadata object with `attrs` set; and the bag layer holding that link
/// and the objects' `__schema__` (what `kd.metadata` must return besides the
/// attributes).
fn with_metadata_as(op: &str, x: &DataSlice, attrs: &[(String, DataSlice)]) -> Result<(DataSlice, DataBag)> {
    let schemas = schema_ids(op, x)?;
    let old = x.bag().cloned().unwrap_or_else(DataBag::new_immutable);
    // A schema's metadata object made before (by `with_metadata` or with a
    // proto schema) is updated; otherwise its id derives from the schema's.
    let linked = old.get_attr(SCHEMA_METADATA_ATTR, &schemas);
    let metadata: Vec<Option<ItemId>> = schemas
        .iter()
        .enumerate()
        .map(|(i, s)| match linked.get(i) {
            Some(ScalarRef::ItemId(md)) => Some(md),
            _ => s.map(metadata_id),
        })
        .collect();
    // A metadata object made before keeps its schema (and so its
    // attributes); a new one gets an implicit schema of its own.
    let existing = old.get_attr(SCHEMA_ATTR, &metadata);
    let new_objects: Vec<Option<ItemId>> = metadata.iter().enumerate().map(|(i, id)| id.filter(|_| existing.get(i).is_none())).collect();
    let implicit = schemas_data(new_objects.iter().map(|id| id.map(|id| Schema::Struct(id.with_kind(ItemKind::ImplicitSchema)))).collect());
    let link = DataBag::with_fallbacks(vec![old]);
    let objects = ids_data(&metadata);
    link.fill(|w| {
        w.set_attr(SCHEMA_ATTR, &new_objects, &implicit);
        w.set_attr(SCHEMA_METADATA_ATTR, &schemas, &objects);
    });
    let md = DataSlice::new(x.shape().clone(), objects, Schema::Object)?.with_bag(Some(link.clone()));
    let updated = super::update::with_attrs_as(op, &md, attrs, false)?;
    let bag = updated.bag().cloned().expect("with_attrs gives a bag");
    Ok((x.clone().with_bag(Some(bag)), link))
}

/// `kd.with_metadata(x, **attrs)`: schemas `x` with a new bag in which their
/// metadata has `attrs`.
pub fn with_metadata(x: &DataSlice, attrs: &[(String, DataSlice)]) -> Result<DataSlice> {
    Ok(with_metadata_as("kd.core.with_metadata", x, attrs)?.0)
}

/// `kd.metadata(x, **attrs)`: a bag holding only the metadata update of
/// schemas `x`, to apply with `kd.updated`.
pub fn metadata(x: &DataSlice, attrs: &[(String, DataSlice)]) -> Result<DataBag> {
    const OP: &str = "kd.core.metadata";
    let (updated, link) = with_metadata_as(OP, x, attrs)?;
    let bag = updated.bag().expect("with_metadata gives a bag");
    // The attribute layer and the link layer; the values' own bags come
    // after, as in `kd.attrs`.
    let mut layers = vec![bag.own_layer(), link.own_layer()];
    layers.extend(bag.fallbacks().iter().filter(|b| **b != link).cloned());
    Ok(DataBag::with_fallbacks(layers))
}

/// `kd.get_metadata(x)`: the metadata objects of schemas `x`.
pub fn get_metadata(x: &DataSlice) -> Result<DataSlice> {
    const OP: &str = "kd.core.get_metadata";
    if x.schema() != Schema::Schema {
        let schema = plait_core::bag::text::schema_text(x.schema(), x.bag());
        return Err(Error::value(OP, format!("failed to get metadata; cannot get for a DataSlice with {schema} schema")));
    }
    super::access::get_attr(x, SCHEMA_METADATA_ATTR, None).map_err(|e| e.with_context(OP))
}

pub(crate) fn register(r: &mut Registry) {
    r.add(
        "kd.core.with_metadata",
        &["kd.with_metadata"],
        "x, /, **attrs",
        r#"Returns schemas x with a new DataBag in which their metadata has the given attributes.

The metadata of a struct schema (an entity, named, list or dict schema) is
an object stored with the schema; setting metadata again updates the same
object. The new bag reads through to x's bag, which is left unchanged.
Primitive schemas (INT32, OBJECT, ...) have no metadata.

Args:
  x: a DataSlice of schemas.
  **attrs: the metadata attributes to set, by name (broadcast to x).

Examples:
  >>> s = kd.with_metadata(kd.schema.new_schema(a=kd.INT32), unit='cm')
  >>> kd.get_metadata(s).unit
  DataItem('cm', schema: STRING, bag_id: $...)
  >>> kd.get_metadata(kd.with_metadata(s, version=2))
  DataItem(Obj(unit='cm', version=2), schema: OBJECT, bag_id: $...)"#,
        |a| with_metadata(a.slice("x")?, &a.named_slices()?),
    );
    r.add_value(
        "kd.core.metadata",
        &["kd.metadata"],
        "x, /, **attrs",
        r#"Returns a new DataBag holding the metadata update of schemas x.

Like `kd.with_metadata`, but the bag holds only the update: apply it with
`kd.updated(x, bag)`.

Args:
  x: a DataSlice of schemas.
  **attrs: the metadata attributes to set, by name (broadcast to x).

Examples:
  >>> s = kd.schema.new_schema(a=kd.INT32)
  >>> kd.get_metadata(kd.updated(s, kd.metadata(s, unit='cm')))
  DataItem(Obj(unit='cm'), schema: OBJECT, bag_id: $...)"#,
        |a| Ok(Value::Bag(Some(metadata(a.slice("x")?, &a.named_slices()?)?))),
    );
    r.add(
        "kd.core.get_metadata",
        &["kd.get_metadata"],
        "x",
        r#"Returns the metadata objects of schemas x.

Raises when a present schema of x has no metadata (set it with
`kd.with_metadata`).

Args:
  x: a DataSlice of schemas.

Examples:
  >>> s = kd.with_metadata(kd.list_schema(kd.INT32), source='db')
  >>> kd.get_metadata(s)
  DataItem(Obj(source='db'), schema: OBJECT, bag_id: $...)
  >>> kd.get_metadata(kd.item(1))
  Traceback (most recent call last):
  ...
  ValueError: kd.core.get_metadata: failed to get metadata; cannot get for a DataSlice with INT32 schema"#,
        |a| get_metadata(a.slice("x")?),
    );
}
