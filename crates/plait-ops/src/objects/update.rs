//! Updating attributes: `kd.with_attrs` / `kd.with_attr` (a new bag that
//! reads through to the old one), `kd.attrs` / `kd.attr` (a bag holding only
//! the update) and in-place assignment on a mutable bag (`ds.x = v`,
//! `ds.set_attrs(...)`).

use plait_core::bag::SCHEMA_ATTR;
use plait_core::bag::SchemaIds;
use plait_core::broadcast::expand_to_shape;
use plait_core::{DataBag, DataSlice, Error, ItemId, Result, Schema, SliceData};

use super::access::{first_primitive, object_schema_ids, object_schemas};
use super::model::{
    Ids, Target, adopt_value_bags, adopted_bags, attr_schema, bag_of, ids_of, is_implicit_schemas_of, schemas_data, struct_schema_of_item,
    whole_allocation, write_attrs,
};
use crate::registry::Registry;

const WITH_ATTRS: &str = "kd.core.with_attrs";

/// Where the schemas of `x`'s items (`ids`) live.
fn target_of(op: &str, x: &DataSlice, ids: &Ids, bag: &DataBag) -> Result<Target> {
    match x.schema() {
        // A reference its holders do not follow is not written through.
        Schema::Struct(id) if id.is_nofollow() => Err(Error::value(op, "cannot set an attribute on an entity with a no-follow schema")),
        Schema::Struct(id) => Ok(Target::Struct(id)),
        Schema::Object => {
            if let Some(i) = first_primitive(x) {
                return Err(Error::value(
                    op,
                    format!("cannot set attributes on primitives, got an OBJECT DataSlice with a primitive at ds.flatten().S[{i}]"),
                ));
            }
            object_schema_ids(bag, ids, op).map(Target::PerItem).map_err(|_| {
                // Koda's text for writing to objects without `__schema__`.
                let without: Vec<String> = ids
                    .to_list()
                    .iter()
                    .flatten()
                    .filter(|id| bag.get_one(SCHEMA_ATTR, **id).and_then(|s| s.schema()).is_none_or(|s| !s.is_struct()))
                    .map(|id| format!("Entity:{}", id.short()))
                    .collect();
                let objects = if without.len() == 1 { without[0].clone() } else { format!("[{}]", without.join(", ")) };
                Error::value(op, format!("object {objects} is missing __schema__ attribute"))
            })
        }
        // Nothing to write on; Koda returns such a slice unchanged.
        Schema::None => Ok(Target::PerItem(Ids::List(vec![None; x.size()]))),
        other => {
            Err(Error::value(op, format!("cannot set attributes on a DataSlice with schema {other}; only entities and objects have attributes")))
        }
    }
}

/// The attribute values expanded to `x`'s shape.
fn expanded(op: &str, x: &DataSlice, attrs: &[(String, DataSlice)]) -> Result<Vec<(String, DataSlice)>> {
    attrs
        .iter()
        .map(|(n, v)| {
            if v.rank() > x.rank() {
                return Err(too_many_dims(op, x.rank(), v.rank()));
            }
            Ok((n.clone(), expand_to_shape(op, v, x.shape(), 0)?.with_bag(v.bag().cloned())))
        })
        .collect()
}

/// Koda's error for attribute values with more dimensions than the items
/// they are assigned to.
pub(crate) fn too_many_dims(op: &str, items: usize, values: usize) -> Error {
    let extra = values - items;
    Error::value(
        op,
        format!(
            "attribute values being assigned in\n\n\
             foo.with_attrs(attr=value) or foo.attr = values or entity / object creation kd.new_shape_as(foo, ...), kd.obj_like(foo, ...), etc.\n\n\
             must have the same or less number of dimensions as foo, got foo.get_ndim(): {items} < values.get_ndim(): {values};\n\
             consider wrapping the last {extra} dimensions into lists using kd.implode(values, ndim={extra})"
        ),
    )
}

/// `kd.with_attrs(x, overwrite_schema=False, **attrs)`: `x` with a new bag
/// holding the updates and reading through to `x`'s bag.
pub fn with_attrs(x: &DataSlice, attrs: &[(String, DataSlice)], overwrite_schema: bool) -> Result<DataSlice> {
    with_attrs_as(WITH_ATTRS, x, attrs, overwrite_schema)
}

/// [`with_attrs`] whose errors name operator `op`.
pub(super) fn with_attrs_as(op: &str, x: &DataSlice, attrs: &[(String, DataSlice)], overwrite_schema: bool) -> Result<DataSlice> {
    not_primitives(op, x)?;
    let old = bag_of(op, x)?.clone();
    let attrs = expanded(op, x, attrs)?;
    let (bag, _) = update_layer(op, x, &old, &attrs, overwrite_schema)?;
    Ok(x.clone().with_bag(Some(bag)))
}

/// What `kd.strict_attrs` / `kd.strict_with_attrs` require: entities whose
/// schema already has every attribute being set.
fn check_strict(op: &str, x: &DataSlice, attrs: &[(String, DataSlice)]) -> Result<()> {
    // In Koda's order: primitives, then the bag, then the kind of schema.
    not_primitives(op, x)?;
    let schema_id = match x.schema() {
        Schema::Struct(id) => id,
        other => {
            bag_of(op, x)?;
            return Err(Error::value(op, format!("x must have an Entity schema, actual schema: {other}")));
        }
    };
    let bag = bag_of(op, x)?;
    // List and dict schemas are struct schemas too, but not entity schemas.
    let container = [plait_core::bag::text::LIST_ITEMS_ATTR, plait_core::bag::text::DICT_KEYS_ATTR];
    if container.iter().any(|attr| attr_schema(bag, schema_id, attr).is_some()) {
        let text = plait_core::bag::text::schema_text(x.schema(), Some(bag));
        return Err(Error::value(op, format!("x must have an Entity schema, actual schema: {text}")));
    }
    for (name, _) in attrs {
        if attr_schema(bag, schema_id, name).is_none() {
            let text = plait_core::bag::text::schema_text(x.schema(), Some(bag));
            return Err(Error::value(op, format!("attribute '{name}' not found in schema: {text}")));
        }
    }
    Ok(())
}

/// `kd.strict_with_attrs(x, **attrs)`: [`with_attrs`] of attributes the
/// entities' schema has, with values that fit it.
pub fn strict_with_attrs(x: &DataSlice, attrs: &[(String, DataSlice)]) -> Result<DataSlice> {
    const OP: &str = "kd.core.strict_with_attrs";
    check_strict(OP, x, attrs)?;
    with_attrs_as(OP, x, attrs, false)
}

/// The bag of `with_attrs(x, **attrs)`: its own layer holds the update, then
/// it reads the merge of the values' bags (returned too), then `old` (`x`'s
/// bag). Schemas the update writes must agree with the values' bags.
/// Struct schemas `x` have their attributes set (see [`schema_update_layer`]).
fn update_layer(op: &str, x: &DataSlice, old: &DataBag, attrs: &[(String, DataSlice)], overwrite_schema: bool) -> Result<(DataBag, Vec<DataBag>)> {
    if x.schema() == Schema::Schema {
        return schema_update_layer(op, x, old, attrs);
    }
    let values: Vec<&DataSlice> = attrs.iter().map(|(_, v)| v).collect();
    let ids = Ids::of(x);
    let target = target_of(op, x, &ids, old)?;
    let schemas = match &target {
        Target::Struct(id) => SchemaIds::One(*id),
        Target::PerItem(Ids::Whole { allocation, len }) => SchemaIds::Allocation(*allocation, *len),
        Target::PerItem(Ids::List(ids)) => SchemaIds::List(ids),
    };
    let names: Vec<&str> = attrs.iter().map(|(n, _)| n.as_str()).collect();
    // In Koda's order: the schemas in x's bag against the values' bags, then
    // the values' bags against one another, then the values against the
    // attributes' schemas.
    let snapshots = adopted_bags(&values)?;
    DataBag::check_value_schemas(op, old, &snapshots, schemas, &names)?;
    let value_bags = DataBag::merged_inputs(op, &snapshots)?;
    let bag = DataBag::with_fallbacks(DataBag::distinct(value_bags.iter().chain(std::iter::once(old))));
    write_attrs(op, &bag, &ids, &target, attrs, overwrite_schema, true)?;
    Ok((bag, value_bags))
}

/// [`update_layer`] for struct schemas `x` (`schema.with_attrs(y=kd.INT32)`):
/// the update's layer sets the schemas' attributes, which must be schemas,
/// and reads through to the values' bags (struct schemas assigned keep
/// their attributes), then `old`.
fn schema_update_layer(op: &str, x: &DataSlice, old: &DataBag, attrs: &[(String, DataSlice)]) -> Result<(DataBag, Vec<DataBag>)> {
    for (_, value) in attrs {
        only_schema_values(op, value)?;
    }
    let values: Vec<&DataSlice> = attrs.iter().map(|(_, v)| v).collect();
    let value_bags = DataBag::merged_inputs(op, &adopted_bags(&values)?)?;
    let bag = DataBag::with_fallbacks(DataBag::distinct(value_bags.iter().chain(std::iter::once(old))));
    let ids = super::access::struct_schema_ids(x);
    bag.fill(|w| {
        for (name, value) in attrs {
            w.set_attr(name, &ids, value.data());
        }
    });
    Ok((bag, value_bags))
}

/// Koda's error for a value that is not a schema assigned to an attribute
/// of a schema.
fn only_schema_values(op: &str, value: &DataSlice) -> Result<()> {
    if value.schema() == Schema::Schema || value.present_count() == 0 {
        return Ok(());
    }
    let first = (0..value.size()).find(|&i| value.get(i).is_some()).unwrap_or(0);
    let mut text = String::new();
    plait_core::repr::write_item(&mut text, value.get(first), value.schema(), true);
    Err(Error::value(op, format!("only schemas can be assigned as attributes of schemas, got: {text}")))
}

/// Koda's error for attributes of primitives (before the one for a missing
/// bag), primitive schemas (`kd.INT32`) included.
fn not_primitives(op: &str, x: &DataSlice) -> Result<()> {
    match super::access::primitives_text(x) {
        Some(what) => Err(Error::value(op, format!("primitives do not have attributes, got {what}"))),
        None => Ok(()),
    }
}

/// The one-attribute forms (`kd.attr`, `kd.with_attr`) say more, as Koda's
/// do: `kd.core.attr: failed to create attribute update; primitives ...`.
pub fn one_attr_of_primitives(x: &DataSlice) -> Result<()> {
    if x.schema().is_primitive() {
        let message = format!("failed to create attribute update; primitives do not have attributes, got {}", x.schema());
        return Err(Error::value("kd.core.attr", message));
    }
    Ok(())
}

/// `kd.attrs(x, **attrs)`: a new bag holding only the given attributes of
/// `x` (and the schema changes they need), to apply with `kd.updated`.
pub fn attrs(x: &DataSlice, attrs: &[(String, DataSlice)], overwrite_schema: bool) -> Result<DataBag> {
    attrs_as("kd.core.attrs", x, attrs, overwrite_schema)
}

/// `kd.strict_attrs(x, **attrs)`: [`attrs`] of attributes the entities'
/// schema has, with values that fit it.
pub fn strict_attrs(x: &DataSlice, attrs: &[(String, DataSlice)]) -> Result<DataBag> {
    const OP: &str = "kd.core.strict_attrs";
    check_strict(OP, x, attrs)?;
    attrs_as(OP, x, attrs, false)
}

/// [`attrs`] whose errors name operator `op`.
fn attrs_as(op: &str, x: &DataSlice, attrs: &[(String, DataSlice)], overwrite_schema: bool) -> Result<DataBag> {
    not_primitives(op, x)?;
    let old = bag_of(op, x)?.clone();
    let attrs = expanded(op, x, attrs)?;
    let (bag, value_bags) = update_layer(op, x, &old, &attrs, overwrite_schema)?;
    copy_schemas_of(op, x, &bag, &attrs)?;
    // The update alone, reading through to the values' own bags (entities
    // assigned keep their attributes).
    Ok(DataBag::combined(std::iter::once(&bag.own_layer()).chain(&value_bags)).expect("one layer at least"))
}

/// Writes into `bag`'s own layer the schemas that the update of `attrs` on
/// `x` relies on (the attributes' schemas, and the objects' `__schema__`), so
/// that the update bag works on its own.
fn copy_schemas_of(op: &str, x: &DataSlice, bag: &DataBag, attrs: &[(String, DataSlice)]) -> Result<()> {
    if copy_implicit_schemas_of(x, bag, attrs) {
        return Ok(());
    }
    let schema_ids: Vec<ItemId> = match x.schema() {
        Schema::Struct(id) => vec![id],
        Schema::Object => {
            let ids = ids_of(x);
            let schemas = object_schemas(bag, &ids, op)?;
            let data = schemas_data(schemas.iter().map(|s| s.map(Schema::Struct)).collect());
            bag.fill(|w| w.set_attr(SCHEMA_ATTR, &ids, &data));
            let mut distinct: Vec<ItemId> = schemas.into_iter().flatten().collect();
            distinct.sort();
            distinct.dedup();
            distinct
        }
        _ => Vec::new(),
    };
    // Each attribute's schema read and written for all the schemas at once
    // (a million objects have a million schemas), where it is set.
    let schema_ids: Vec<Option<ItemId>> = schema_ids.into_iter().map(Some).collect();
    for (name, _) in attrs {
        let data = bag.get_attr(name, &schema_ids);
        if data.present_count() == 0 {
            continue;
        }
        let present = data.present_bits();
        let to: Vec<Option<ItemId>> = schema_ids.iter().enumerate().map(|(i, id)| id.filter(|_| present.value(i))).collect();
        bag.fill(|w| w.set_attr(name, &to, &data));
    }
    Ok(())
}

/// [`copy_schemas_of`] for objects made together by `kd.obj` (one whole
/// allocation, each object with its implicit schema): the `__schema__`
/// column and each attribute's column of schemas copied whole, where they
/// can be stored as columns; false (nothing needed written yet) otherwise.
fn copy_implicit_schemas_of(x: &DataSlice, bag: &DataBag, attrs: &[(String, DataSlice)]) -> bool {
    let Some((allocation, len)) = whole_allocation(x.data()).filter(|_| x.schema() == Schema::Object) else { return false };
    let Some(schemas) = bag.get_attr_of_allocation(SCHEMA_ATTR, allocation, len) else { return false };
    let Some(schema_allocation) = is_implicit_schemas_of(&schemas, allocation) else { return false };
    let columns: Vec<(&str, SliceData)> =
        attrs.iter().filter_map(|(name, _)| Some((name.as_str(), bag.get_attr_of_allocation(name, schema_allocation, len)?))).collect();
    if columns.len() != attrs.len() {
        return false;
    }
    bag.fill(|w| {
        w.set_attr_of_allocation(SCHEMA_ATTR, allocation, &schemas);
        for (name, data) in &columns {
            // Where the schemas have the attribute (an update may set it on
            // some objects only).
            let set = data.present_bits();
            if set.count_set_bits() > 0 && !w.set_attr_column(name, schema_allocation, data, Some(&set)) {
                let ids: Vec<Option<ItemId>> = (0..len).map(|i| set.value(i).then(|| ItemId(Ids::base(schema_allocation) + i as u128))).collect();
                w.set_attr(name, &ids, data);
            }
        }
    });
    true
}

/// Assigns attributes in place; `x`'s bag must be mutable. Values bringing
/// their own bag (entities) have it merged in.
pub fn set_attrs(x: &DataSlice, attrs: &[(String, DataSlice)], overwrite_schema: bool) -> Result<()> {
    const OP: &str = "kd.core.set_attrs";
    // Nothing to set: nothing to check either, as in Koda.
    if attrs.is_empty() {
        return Ok(());
    }
    // In Koda's order: primitives and ids, then the bag.
    let failed = || format!("failed to set attribute '{}'", attrs[0].0);
    if let Some(what) = super::access::primitives_text(x) {
        return Err(Error::value(OP, format!("{}: primitives do not have attributes, got {what}", failed())));
    }
    if x.schema() == Schema::ItemId {
        return Err(Error::value(OP, format!("{}: ITEMIDs do not allow attribute access", failed())));
    }
    let bag = x.bag().ok_or_else(|| Error::value(OP, format!("{}: the DataSlice is a reference without a bag", failed())))?;
    if !bag.is_mutable() {
        return Err(plait_core::bag::immutable_error(OP));
    }
    if let [(name, value)] = attrs {
        if let Some(written) = set_one_primitive(OP, x, bag, name, value) {
            return written;
        }
    }
    let attrs = expanded(OP, x, attrs)?;
    if x.schema() == Schema::Schema {
        return set_schema_attrs(OP, x, bag, &attrs);
    }
    let ids = Ids::of(x);
    let target = target_of(OP, x, &ids, bag)?;
    write_attrs(OP, bag, &ids, &target, &attrs, overwrite_schema, false)?;
    // What the values bring along is read after the write (a value reading
    // through this bag sees it) and merged in, as in Koda: data that
    // disagrees with what was just written is a conflict.
    let values: Vec<&DataSlice> = attrs.iter().map(|(_, v)| v).collect();
    adopt_value_bags(OP, bag, &values)
}

/// `x.name = value` for one entity or object `x` and a primitive item
/// `value` (no bag) of the schema the attribute has already: the value is
/// written and nothing else changes, as the general path would conclude
/// after its checks. `None` for every other case (the general path).
fn set_one_primitive(op: &str, x: &DataSlice, bag: &DataBag, name: &str, value: &DataSlice) -> Option<Result<()>> {
    let schema = value.schema();
    if !x.is_item() || !value.is_item() || value.bag().is_some() || !schema.is_primitive() || schema == Schema::None || name.starts_with("__") {
        return None;
    }
    let Some(plait_core::ScalarRef::ItemId(id)) = x.get(0) else { return None };
    let schema_id = struct_schema_of_item(x, bag, id)?;
    (attr_schema(bag, schema_id, name) == Some(schema)).then(|| bag.set_attr(op, name, &[Some(id)], value.data()))
}

pub(crate) fn register(r: &mut Registry) {
    r.add(
        "kd.core.with_attrs",
        &["kd.with_attrs"],
        "x, /, *, overwrite_schema=False, **attrs",
        r#"Returns x with a new DataBag in which its items have the given attributes.

The new bag reads through to x's bag, which is left unchanged. Each value is
broadcast to x. For entities, a value whose schema does not fit the
attribute's existing schema raises ValueError unless overwrite_schema is
True; objects take the new schema anyway. `x.with_attrs(...)` is the same.

Args:
  x: a DataSlice of entities or objects.
  overwrite_schema: if True, the attributes' schemas become the values'.
  **attrs: the attributes to set, by name.

Examples:
  >>> e = kd.new(a=kd.slice([1, 2]))
  >>> kd.with_attrs(e, b=kd.slice(['x', 'y']), a=0)
  DataSlice([Entity(a=0, b='x'), Entity(a=0, b='y')], schema: ENTITY(a=INT32, b=STRING), present: 2/2, bag_id: $...)
  >>> kd.with_attrs(kd.new(a=1), a='z', overwrite_schema=True)
  DataItem(Entity(a='z'), schema: ENTITY(a=STRING), bag_id: $...)
  >>> kd.with_attrs(kd.obj(a=1), a='z')
  DataItem(Obj(a='z'), schema: OBJECT, bag_id: $...)"#,
        |a| with_attrs(a.slice("x")?, &a.named_slices()?, a.bool("overwrite_schema")?),
    );
    r.add(
        "kd.core.strict_with_attrs",
        &["kd.strict_with_attrs"],
        "x, /, **attrs",
        r#"Returns entities x with a new DataBag in which they have the given attributes, which their schema must have.

Like `kd.with_attrs` without `overwrite_schema`: every attribute must
already be in x's entity schema, and each value must fit the attribute's
schema. The new bag reads through to x's bag, which is left unchanged.

Args:
  x: a DataSlice of entities (an entity schema).
  **attrs: the attributes to set, by name.

Examples:
  >>> e = kd.new(a=1, b='x')
  >>> kd.strict_with_attrs(e, a=2)
  DataItem(Entity(a=2, b='x'), schema: ENTITY(a=INT32, b=STRING), bag_id: $...)
  >>> kd.strict_with_attrs(e, c=2)
  Traceback (most recent call last):
  ...
  ValueError: kd.core.strict_with_attrs: attribute 'c' not found in schema: ENTITY(a=INT32, b=STRING)
  >>> kd.strict_with_attrs(kd.obj(a=1), a=2)
  Traceback (most recent call last):
  ...
  ValueError: kd.core.strict_with_attrs: x must have an Entity schema, actual schema: OBJECT"#,
        |a| strict_with_attrs(a.slice("x")?, &a.named_slices()?),
    );
    r.add(
        "kd.core.with_attr",
        &["kd.with_attr"],
        "x, attr_name, value, overwrite_schema=False",
        r#"Returns x with a new DataBag in which its items have attribute attr_name set to value.

Useful when the name is not a Python identifier. The new bag reads through
to x's bag, which is left unchanged. value is broadcast to x. A value whose
schema does not fit the attribute's schema raises ValueError unless
overwrite_schema is True (objects take the new schema anyway).

Args:
  x: a DataSlice of entities or objects.
  attr_name: the name of the attribute (a str).
  value: the new value of the attribute.
  overwrite_schema: if True, the attribute's schema becomes the value's.

Examples:
  >>> e = kd.new(a=1)
  >>> kd.with_attr(e, 'my attr', 'x')
  DataItem(Entity(a=1, my attr='x'), schema: ENTITY(a=INT32, my attr=STRING), bag_id: $...)
  >>> kd.with_attr(e, 'a', 'q', overwrite_schema=True)
  DataItem(Entity(a='q'), schema: ENTITY(a=STRING), bag_id: $...)"#,
        |a| {
            let x = a.slice("x")?;
            one_attr_of_primitives(x)?;
            with_attrs(x, &[(a.text("attr_name")?, a.slice("value")?.clone())], a.bool("overwrite_schema")?)
        },
    );
}

/// `kd.del_attr(x, attr_name)` in place (`x`'s bag must be mutable):
/// entities keep the attribute in their schema with missing values; objects
/// lose it from their schemas too; schemas lose it.
pub fn del_attr_in_place(x: &DataSlice, name: &str) -> Result<()> {
    const OP: &str = "kd.del_attr";
    let context = format!("failed to delete '{name}' attribute");
    if x.schema().is_primitive() {
        return Err(Error::value(OP, format!("{context}; primitives do not have attributes, got {}", x.schema())));
    }
    let bag = bag_of(OP, x)?;
    if !bag.is_mutable() {
        return Err(plait_core::bag::immutable_error(OP));
    }
    let ids = ids_of(x);
    let missing = |n: usize| DataSlice::missing(plait_core::JaggedShape::flat(n), Schema::None).data().clone();
    match x.schema() {
        Schema::Struct(id) => {
            if attr_schema(bag, id, name).is_none() {
                return Err(super::access::missing_on_schema(OP, name));
            }
            bag.set_attr(OP, name, &ids, &missing(ids.len()))
        }
        Schema::Object => {
            if let Some(i) = first_primitive(x) {
                return Err(Error::value(
                    OP,
                    format!("{context}; primitives do not have attributes, got OBJECT DataSlice with a primitive at ds.flatten().S[{i}]"),
                ));
            }
            let schemas = object_schemas(bag, &ids, OP)?;
            let has: Vec<Option<ItemId>> = schemas.iter().map(|s| s.filter(|s| attr_schema(bag, *s, name).is_some())).collect();
            if x.present_count() > 0 && has.iter().all(Option::is_none) {
                return Err(super::access::missing_on_schema(OP, name));
            }
            bag.set_attr(OP, name, &ids, &missing(ids.len()))?;
            bag.set_attr(OP, name, &has, &missing(has.len()))
        }
        Schema::Schema => {
            let schemas = super::access::struct_schema_ids(x);
            bag.set_attr(OP, name, &schemas, &missing(schemas.len()))
        }
        Schema::None => Ok(()),
        other => Err(Error::value(OP, format!("{context}; {other} items do not have attributes"))),
    }
}

/// Assigns attributes of struct schemas `x` in place (`schema.x = kd.INT32`,
/// `kd.update_schema`): the values must be schemas; the struct schemas they
/// name bring their attributes along.
fn set_schema_attrs(op: &str, x: &DataSlice, bag: &DataBag, attrs: &[(String, DataSlice)]) -> Result<()> {
    let ids = super::access::struct_schema_ids(x);
    for (name, value) in attrs {
        only_schema_values(op, value)?;
        bag.set_attr(op, name, &ids, value.data())?;
    }
    let values: Vec<&DataSlice> = attrs.iter().map(|(_, v)| v).collect();
    adopt_value_bags(op, bag, &values)
}
