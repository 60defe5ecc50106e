//! Struct schemas as data: `kd.schema.new_schema`, `kd.named_schema`,
//! `kd.get_obj_schema`, and `kd.get_itemid`.

use plait_core::bag::SCHEMA_ATTR;
use plait_core::bag::text::SCHEMA_NAME_ATTR;
use plait_core::itemid::allocate;
use plait_core::{DataBag, DataSlice, Error, ItemId, ItemKind, Result, ScalarRef, Schema, SliceData, Values};

use super::access::object_schemas;
use super::create::named_schema_id;
use super::model::{ids_of, made_for, new_bag_over, schemas_data};
use crate::registry::{Args, Registry};

/// A schema item `schema_id` whose attributes are `fields` (schema items).
pub(super) fn schema_with_fields(op: &str, schema_id: ItemId, name: Option<&str>, fields: &[(String, DataSlice)]) -> Result<DataSlice> {
    let inputs: Vec<&DataSlice> = fields.iter().map(|(_, v)| v).collect();
    let bag = new_bag_over(op, &inputs)?;
    for (field, value) in fields {
        let schema = match value.get(0) {
            Some(ScalarRef::Schema(s)) if value.is_item() => s,
            _ => {
                return Err(Error::value(op, format!("argument `{field}` must be a schema item (e.g. kd.INT32), got {}", crate::describe(value))));
            }
        };
        bag.fill(|w| w.set_attr(field, &[Some(schema_id)], &schemas_data(vec![Some(schema)])));
    }
    if let Some(name) = name {
        let mut b = plait_core::column::SliceBuilder::new();
        b.push(Some(ScalarRef::String(name)));
        bag.fill(|w| w.set_attr(SCHEMA_NAME_ATTR, &[Some(schema_id)], &b.finish()));
    }
    Ok(made_for(DataSlice::item(Some(ScalarRef::Schema(Schema::Struct(schema_id))), Schema::Schema)?.with_bag(Some(bag))))
}

/// `kd.get_obj_schema(x)`: each item's own schema (`__schema__` for objects,
/// the type for primitives, the slice's schema for entities).
pub fn get_obj_schema(x: &DataSlice) -> Result<DataSlice> {
    if let Some(schemas) = object_schemas_as_stored(x) {
        return Ok(DataSlice::new(x.shape().clone(), schemas, Schema::Schema)?.with_bag(x.bag().cloned()));
    }
    let schemas: Vec<Option<Schema>> = match x.schema() {
        Schema::Object => {
            let ids = ids_of(x);
            let from_bag = match x.bag() {
                Some(bag) if ids.iter().any(Option::is_some) => object_schemas(bag, &ids, "kd.schema.get_obj_schema")?,
                None if ids.iter().any(Option::is_some) => {
                    return Err(Error::value("kd.schema.get_obj_schema", "the DataSlice is a reference without a bag"));
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
        _ => {
            return Err(Error::value("kd.schema.get_obj_schema", "DataSlice must have OBJECT schema for get_obj_schema"));
        }
    };
    Ok(DataSlice::new(x.shape().clone(), schemas_data(schemas), Schema::Schema)?.with_bag(x.bag().cloned()))
}

/// The `__schema__` of objects `x` (all ids, no primitives) as the bag
/// stores them, when every present object has a struct schema there: the
/// column read is the result (a million objects of `kd.obj` read one run
/// of schemas, not a schema per item). `None` for anything else.
fn object_schemas_as_stored(x: &DataSlice) -> Option<SliceData> {
    let (Schema::Object, Some(bag), [column]) = (x.schema(), x.bag(), x.data().columns()) else { return None };
    if !matches!(column.values, Values::ItemId(_)) {
        return None;
    }
    let data = bag.get_attr(SCHEMA_ATTR, &ids_of(x));
    let [stored] = data.columns() else { return None };
    let Values::Schema(schemas) = &stored.values else { return None };
    let all_structs = match (schemas.as_structs(), schemas.as_same()) {
        (Some(_), _) => true,
        (_, Some((schema, _))) => schema.is_struct(),
        _ => schemas.values().iter().zip(0..).all(|(s, i)| s.is_struct() || !stored.is_present(i)),
    };
    (all_structs && data.present_count() == x.present_count()).then_some(data)
}

/// `kd.get_itemid(x)`: the ids of entities and objects as ITEMID.
pub fn get_itemid(x: &DataSlice) -> Result<DataSlice> {
    match x.schema() {
        Schema::Struct(_) | Schema::Object | Schema::ItemId | Schema::None => {
            let ids = ids_of(x);
            if ids.iter().flatten().count() != x.present_count() {
                let primitive = (0..x.size()).filter_map(|i| x.get(i)).find(|v| !matches!(v, ScalarRef::ItemId(_)));
                let kind = primitive.map_or_else(|| "a primitive".to_string(), |v| v.dtype().to_string());
                return Err(Error::value("kd.core.get_itemid", format!("casting data of type {kind} to ITEMID is not supported")));
            }
            Ok(DataSlice::new(x.shape().clone(), super::model::ids_data(&ids), Schema::ItemId)?.with_bag(x.bag().cloned()))
        }
        // Struct schemas are ids too (`Schema:$...`); primitive ones are not.
        Schema::Schema => {
            if super::access::primitive_schemas(x).is_some() {
                return Err(Error::value("kd.core.get_itemid", "casting data of type DTYPE to ITEMID is not supported"));
            }
            let ids = super::access::struct_schema_ids(x);
            Ok(DataSlice::new(x.shape().clone(), super::model::ids_data(&ids), Schema::ItemId)?.with_bag(x.bag().cloned()))
        }
        other => Err(Error::value("kd.core.get_itemid", format!("casting a DataSlice with schema {other} to ITEMID is not supported"))),
    }
}

/// `kd.with_schema(x, schema)`: the items of `x` read as `schema`, unchanged
/// (they must fit it). The result reads x's bag and the schema's bag, x's
/// first, so that entities keep their attributes and take the schema's.
pub fn with_schema(x: &DataSlice, schema: &DataSlice) -> Result<DataSlice> {
    let op = "kd.schema.with_schema";
    let target = crate::registry::schema_item_arg(op, "schema", schema)?;
    let bag = DataBag::combined([x, schema].into_iter().filter_map(|x| x.bag()));
    Ok(reinterpreted(op, x, target)?.with_bag(bag))
}

/// `x`'s items, unchanged, with schema `target` (`kd.with_schema`,
/// `kd.reify`): ids become schema ids for SCHEMA, as Koda takes them.
pub(crate) fn reinterpreted(op: &str, x: &DataSlice, target: Schema) -> Result<DataSlice> {
    if target == Schema::Schema && x.schema() != Schema::Schema {
        ids_as_schemas(op, x)
    } else {
        x.with_schema(crate::schema::slice_schema(op, target)?)
    }
}

/// `x` with SCHEMA as its schema, its ids taken as schema ids (as Koda
/// reinterprets them); a present primitive is refused.
fn ids_as_schemas(op: &str, x: &DataSlice) -> Result<DataSlice> {
    let mut schemas = vec![None; x.size()];
    for column in x.data().columns() {
        match &column.values {
            Values::ItemId(ids) => ids
                .bits()
                .iter()
                .enumerate()
                .filter(|(i, _)| column.is_present(*i))
                .for_each(|(i, id)| schemas[i] = Some(Schema::Struct(ItemId(*id as u128)))),
            Values::Schema(values) => (0..column.len()).filter(|i| column.is_present(*i)).for_each(|i| schemas[i] = Some(values.get(i))),
            _ if column.present_count() == 0 => {}
            _ => return Err(Error::value(op, "a non-schema item cannot be present in a schema DataSlice.")),
        }
    }
    DataSlice::new(x.shape().clone(), schemas_data(schemas), Schema::Schema)
}

/// `kd.schema.get_repr(schema)`: the schema as text, as it prints.
fn get_repr(args: &Args<'_>) -> Result<DataSlice> {
    let op = "kd.schema.get_repr";
    let schema = args.slice("schema")?;
    crate::registry::schema_item_arg(op, "schema", schema)?;
    // Koda's form: a named schema is its name; any other struct schema
    // prints with its id after it.
    let text = match schema.get(0) {
        Some(ScalarRef::Schema(Schema::Struct(id))) => {
            let name = schema.bag().and_then(|bag| bag.get_one(SCHEMA_NAME_ATTR, id));
            match name {
                Some(plait_core::bag::Stored::String(name)) => name.to_string(),
                _ => format!("{} with id {}", plait_core::repr::format_items(schema), plait_core::repr::format_items(&schema.clone().with_bag(None))),
            }
        }
        _ => plait_core::repr::format_items(schema),
    };
    DataSlice::item(Some(ScalarRef::String(&text)), Schema::String)
}

pub(crate) fn register(r: &mut Registry) {
    r.add(
        "kd.schema.get_repr",
        &[],
        "schema",
        r#"Returns a string representation of the schema.

A primitive schema is its name; a named schema is its name alone; any other
struct schema (entity, list, dict) is its structure followed by `with id`
and its id.

Args:
  schema: a schema DataItem.

Examples:
  >>> kd.schema.get_repr(kd.INT32)
  DataItem('INT32', schema: STRING)
  >>> kd.schema.get_repr(kd.list_schema(kd.STRING))
  DataItem('LIST[STRING] with id #...', schema: STRING)
  >>> kd.schema.get_repr(kd.named_schema('Point', x=kd.FLOAT32))
  DataItem('Point', schema: STRING)"#,
        get_repr,
    );
    r.bag_rule("kd.schema.get_repr", crate::registry::BagRule::Drop);
    r.add(
        "kd.schema.new_schema",
        &[],
        "**kwargs",
        r#"Creates a new explicit entity schema with the given attribute schemas.

Every call makes a schema with a new id, even for the same attributes (see
`kd.uu_schema` and `kd.named_schema` for schemas with stable ids). Each value
must be a schema item.

Args:
  **kwargs: the attribute names and their schemas.

Examples:
  >>> s = kd.schema.new_schema(x=kd.INT32, y=kd.STRING)
  >>> s
  DataItem(ENTITY(x=INT32, y=STRING), schema: SCHEMA, bag_id: $...)
  >>> kd.new(x=1, y='a', schema=s)
  DataItem(Entity(x=1, y='a'), schema: ENTITY(x=INT32, y=STRING), bag_id: $...)
  >>> kd.schema.new_schema(x=kd.INT32) == kd.schema.new_schema(x=kd.INT32)
  DataItem(missing, schema: MASK)"#,
        |a| schema_with_fields("kd.schema.new_schema", allocate(ItemKind::Schema, 1).1[0], None, &a.named_slices()?),
    );
    r.add(
        "kd.schema.named_schema",
        &["kd.named_schema"],
        "name, /, **kwargs",
        r#"Returns the schema named name (the same for the same name).

The schema's id depends only on `name`, so schemas of the same name are equal
whatever attributes they are given, in any bag or process. `kd.new(...,
schema='Name')` uses this schema. Each attribute value must be a schema item.

Args:
  name: the schema's name.
  **kwargs: the attribute names and their schemas.

Examples:
  >>> kd.named_schema('Point', x=kd.FLOAT32, y=kd.FLOAT32)
  DataItem(Point(x=FLOAT32, y=FLOAT32), schema: SCHEMA, bag_id: $...)
  >>> kd.named_schema('Point') == kd.named_schema('Point', x=kd.INT32)
  DataItem(present, schema: MASK)
  >>> kd.new(x=1, schema='Point').get_schema() == kd.named_schema('Point')
  DataItem(present, schema: MASK)"#,
        |a| {
            let name = a.text("name")?;
            schema_with_fields("kd.schema.named_schema", named_schema_id(&name), Some(&name), &a.named_slices()?)
        },
    );
    r.add(
        "kd.schema.internal_maybe_named_schema",
        &[],
        "name_or_schema",
        r#"Returns the named schema of a name, and a schema as it is.

What operators taking `schema=` accept: `'Point'` means
`kd.named_schema('Point')`.

Args:
  name_or_schema: a STRING item (a schema name) or a schema item.

Examples:
  >>> kd.schema.internal_maybe_named_schema('Point') == kd.named_schema('Point')
  DataItem(present, schema: MASK)
  >>> kd.schema.internal_maybe_named_schema(kd.INT32)
  DataItem(INT32, schema: SCHEMA)"#,
        |a| {
            let x = a.slice("name_or_schema")?;
            match (x.schema(), x.is_item(), x.get(0)) {
                (Schema::String, true, Some(ScalarRef::String(name))) => {
                    let name = name.to_string();
                    schema_with_fields("kd.schema.named_schema", named_schema_id(&name), Some(&name), &[])
                }
                (Schema::Schema, _, _) => Ok(x.clone()),
                _ => Err(crate::registry::not_a_schema("kd.schema.internal_maybe_named_schema", "schema", x)),
            }
        },
    );
    r.add(
        "kd.schema.with_schema",
        &["kd.with_schema"],
        "x, schema",
        r#"Returns x with its schema replaced by schema, items unchanged.

Nothing is converted (use `kd.cast_to` for that), so the items must already
fit: a primitive schema needs items of exactly that type (OBJECT items
included), and an entity, list or dict schema needs ItemIds. The result reads
x's bag and, after it, the schema's bag: entities keep their attributes and
are read through the attributes the schema names.

Args:
  x: a DataSlice.
  schema: a SCHEMA DataItem.

Examples:
  >>> kd.with_schema(kd.slice([1, 2], kd.OBJECT), kd.INT32)
  DataSlice([1, 2], schema: INT32, present: 2/2)
  >>> kd.with_schema(kd.obj(x=1, y=2), kd.named_schema('Point', x=kd.INT32, y=kd.INT32))
  DataItem(Entity(x=1, y=2), schema: Point(x=INT32, y=INT32), bag_id: $...)
  >>> kd.with_schema(kd.slice([1, 2]), kd.INT64)
  Traceback (most recent call last):
  ...
  ValueError: kd.schema.with_schema: INT64 schema can only be assigned to a DataSlice that contains only primitives of INT64, got items of type INT32 (use kd.cast_to to convert them)"#,
        |a| with_schema(a.slice("x")?, a.slice("schema")?),
    );
    r.add(
        "kd.schema.get_obj_schema",
        &["kd.get_obj_schema"],
        "x",
        r#"Returns the schema of every item.

For an OBJECT slice, an object's schema is read from its bag (its implicit or
explicit schema) and a primitive's schema is its type. For a slice of another
schema, each present item gets that schema. Missing items stay missing.

Args:
  x: a DataSlice (objects need a bag).

Examples:
  >>> kd.get_obj_schema(kd.obj(x=1))
  DataItem(IMPLICIT_ENTITY(x=INT32), schema: SCHEMA, bag_id: $...)
  >>> kd.get_obj_schema(kd.slice([1, 'a', None, 2.0]))
  DataSlice([INT32, STRING, None, FLOAT32], schema: SCHEMA, present: 3/4)
  >>> kd.get_obj_schema(kd.slice([kd.obj(1), kd.obj(kd.new(y=2))]))
  DataSlice([INT32, ENTITY(y=INT32)], schema: SCHEMA, present: 2/2, bag_id: $...)"#,
        |a| get_obj_schema(a.slice("x")?),
    );
    r.add(
        "kd.core.get_itemid",
        &["kd.get_itemid", "kd.schema.get_itemid", "kd.schema.to_itemid", "kd.to_itemid"],
        "x",
        r#"Returns the ItemIds of entities and objects.

The result has the shape of `x`, schema ITEMID and x's bag. Missing items stay
missing. Lists and dicts have ids too; primitives (including primitives in an
OBJECT slice) and schemas raise.

Args:
  x: a DataSlice of entities, objects, lists or dicts.

Examples:
  >>> kd.get_itemid(kd.new(x=kd.slice([1, 2])))
  DataSlice([Entity:$..., Entity:$...], schema: ITEMID, present: 2/2, bag_id: $...)
  >>> kd.get_itemid(kd.new(x=1, itemid=kd.uuid(seed='a'))) == kd.uuid(seed='a')
  DataItem(present, schema: MASK)
  >>> kd.get_itemid(kd.slice([1, 2]))
  Traceback (most recent call last):
  ...
  ValueError: kd.core.get_itemid: casting a DataSlice with schema INT32 to ITEMID is not supported"#,
        |a| get_itemid(a.slice("x")?),
    );
}
