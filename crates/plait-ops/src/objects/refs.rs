//! References that do not bring their data along: `kd.nofollow` /
//! `kd.follow` (a nofollow schema, at which walks over data stop),
//! `kd.ref` (the items without a bag) and `kd.reify` (a bag and schema
//! given back).
//!
//! A nofollow schema is derived from the schema it wraps, with no lookup
//! (`Schema::nofollow` in plait-core): a struct schema's id with a nofollow
//! kind, or a fixed id for OBJECT. It is a struct schema without attributes
//! of its own, so its values print as `Nofollow(Entity:$…)`, and
//! `kd.extract`, the clones, `kd.stub` and `kd.deep_uuid` go no further. An
//! attribute whose schema is a nofollow schema reads as what it wraps.

use plait_core::{DataSlice, Error, Result, ScalarRef, Schema};

use super::access::first_primitive;
use crate::registry::{Registry, Value};

/// The nofollow schema of `schema`, or Koda's error naming what has none.
fn nofollow_of(op: &str, schema: Schema) -> Result<Schema> {
    if schema.is_nofollow() {
        return Err(Error::value(op, "calling nofollow on a nofollow slice is not allowed"));
    }
    schema.nofollow().ok_or_else(|| Error::value(op, format!("calling nofollow on {schema} slice is not allowed")))
}

/// The schema nofollow schema `schema` wraps, or Koda's error.
fn nofollowed_of(op: &str, schema: Schema) -> Result<Schema> {
    schema.nofollowed().ok_or_else(|| Error::value(op, "a nofollow schema is required in get_nofollowed_schema"))
}

/// `kd.nofollow(x)`: `x` (entities or objects) with the nofollow schema of
/// its schema, keeping its bag.
pub fn nofollow(x: &DataSlice) -> Result<DataSlice> {
    let op = "kd.core.nofollow";
    let schema = nofollow_of(op, x.schema())?;
    if x.schema() == Schema::Object && first_primitive(x).is_some() {
        return Err(Error::value(op, "DataSlice with an Entity schema must hold Entities or Objects."));
    }
    x.with_schema(schema)
}

/// `kd.follow(x)`: `x` with the schema its nofollow schema wraps.
pub fn follow(x: &DataSlice) -> Result<DataSlice> {
    let schema = nofollowed_of("kd.core.follow", x.schema())?;
    x.with_schema(schema)
}

/// `kd.ref(x)`: the items of `x` without a bag (entities, objects, lists,
/// dicts and schemas keep their schema; primitives cannot be referred to).
pub fn reference(x: &DataSlice) -> Result<DataSlice> {
    let op = "kd.core.ref";
    match x.schema() {
        Schema::Struct(_) | Schema::ItemId | Schema::None => {}
        // Schemas of entities are ids; primitive schemas (DTYPEs) are not.
        Schema::Schema => {
            if super::access::primitive_schemas(x).is_some() {
                return Err(Error::value(op, "casting data of type DTYPE to ITEMID is not supported"));
            }
        }
        Schema::Object => {
            if let Some(i) = first_primitive(x) {
                let dtype = x.get(i).map_or(Schema::None, |v| v.dtype());
                return Err(Error::value(op, format!("casting data of type {dtype} to ITEMID is not supported")));
            }
        }
        other => return Err(Error::value(op, format!("casting a DataSlice with schema {other} to ITEMID is not supported"))),
    }
    Ok(x.clone().with_bag(None))
}

/// `kd.reify(ds, source)`: `ds` with the schema and the bag of `source`.
pub fn reify(ds: &DataSlice, source: &DataSlice) -> Result<DataSlice> {
    let schema = source.schema();
    let with = super::schemas::reinterpreted("kd.schema.with_schema", ds, schema).map_err(|e| match schema {
        Schema::Struct(_) => Error::value("kd.schema.with_schema", "DataSlice with an Entity schema must hold Entities or Objects."),
        _ => e,
    })?;
    Ok(with.with_bag(source.bag().cloned()))
}

pub(crate) fn register(r: &mut Registry) {
    r.add_value(
        "kd.core.nofollow",
        &["kd.nofollow"],
        "x",
        r#"Returns `x` with a nofollow schema: a reference its holders do not follow.

The items and the bag stay the same; the schema becomes the nofollow schema
of x's schema (`kd.nofollow_schema`). Stored as an attribute, a nofollow value
is not extracted, cloned or hashed by `kd.extract`, `kd.clone`, `kd.deep_clone`,
`kd.stub` or `kd.deep_uuid`, which stop there; reading the attribute gives the
items with their original schema. `kd.follow` gives `x` back.

Args:
  x: entities or objects (a DataSlice of entity or OBJECT schema).

Examples:
  >>> e = kd.new(z=2)
  >>> n = kd.nofollow(e)
  >>> n.get_schema() == kd.nofollow_schema(e.get_schema())
  DataItem(present, schema: MASK)
  >>> kd.follow(n).z
  DataItem(2, schema: INT32, bag_id: $...)
  >>> kd.extract(kd.new(x=1, y=n)).y.get_attr_names(intersection=True)
  []
  >>> kd.nofollow(kd.item(1))
  Traceback (most recent call last):
  ...
  ValueError: kd.core.nofollow: calling nofollow on INT32 slice is not allowed"#,
        |a| Ok(Value::Slice(nofollow(a.slice("x")?)?)),
    );
    r.add_value(
        "kd.core.follow",
        &["kd.follow"],
        "x",
        r#"Returns `x` with the schema its nofollow schema wraps (undoes `kd.nofollow`).

Args:
  x: a DataSlice whose schema is a nofollow schema.

Examples:
  >>> e = kd.new(z=2)
  >>> kd.follow(kd.nofollow(e)).z
  DataItem(2, schema: INT32, bag_id: $...)
  >>> kd.follow(kd.nofollow(kd.obj(a=1))).get_schema()
  DataItem(OBJECT, schema: SCHEMA, bag_id: $...)
  >>> kd.follow(e)
  Traceback (most recent call last):
  ...
  ValueError: kd.core.follow: a nofollow schema is required in get_nofollowed_schema"#,
        |a| Ok(Value::Slice(follow(a.slice("x")?)?)),
    );
    r.add_value(
        "kd.core.ref",
        &["kd.ref"],
        "ds",
        r#"Returns the items of `ds` without a bag: references to them.

Entities, objects, lists, dicts and schemas keep their schema; the data they
refer to is left behind (`kd.reify` attaches a bag again). Primitives cannot
be referred to.

Args:
  ds: a DataSlice of entities, objects, lists, dicts, ids or schemas.

Examples:
  >>> e = kd.new(x=1)
  >>> r = kd.ref(e)
  >>> r.has_bag(), r.get_itemid() == e.get_itemid()
  (DataItem(missing, schema: MASK), DataItem(present, schema: MASK))
  >>> kd.reify(r, e).x
  DataItem(1, schema: INT32, bag_id: $...)
  >>> kd.ref(kd.item(1))
  Traceback (most recent call last):
  ...
  ValueError: kd.core.ref: casting a DataSlice with schema INT32 to ITEMID is not supported"#,
        |a| Ok(Value::Slice(reference(a.slice("ds")?)?)),
    );
    r.add_value(
        "kd.core.reify",
        &["kd.reify"],
        "ds, source",
        r#"Returns `ds` with the schema and the bag of `source`.

The items of `ds` stay as they are (ids, as `kd.ref` or `get_itemid` give
them); `source` supplies how to read them. Items that do not fit the schema
of `source` raise.

Args:
  ds: the items (often references without a bag).
  source: a DataSlice whose schema and bag the result gets.

Examples:
  >>> e = kd.new(x=1)
  >>> kd.reify(kd.ref(e), e)
  DataItem(Entity(x=1), schema: ENTITY(x=INT32), bag_id: $...)
  >>> kd.reify(e.get_itemid(), e).x
  DataItem(1, schema: INT32, bag_id: $...)
  >>> kd.reify(kd.item(1), e)
  Traceback (most recent call last):
  ...
  ValueError: kd.schema.with_schema: DataSlice with an Entity schema must hold Entities or Objects."#,
        |a| Ok(Value::Slice(reify(a.slice("ds")?, a.slice("source")?)?)),
    );
    r.add_value(
        "kd.schema.nofollow_schema",
        &["kd.nofollow_schema"],
        "schema",
        r#"Returns the nofollow schema of `schema` (an entity schema or OBJECT).

The nofollow schema is derived from `schema` alone, so the same schema always
gives the same nofollow schema; `kd.get_nofollowed_schema` gives it back.
Values of a nofollow schema are not followed by walks over data
(`kd.extract`, the clones, `kd.deep_uuid`).

Args:
  schema: a SCHEMA item: an entity, list or dict schema, or OBJECT.

Examples:
  >>> s = kd.named_schema('Node', x=kd.INT32)
  >>> n = kd.nofollow_schema(s)
  >>> kd.get_nofollowed_schema(n) == s
  DataItem(present, schema: MASK)
  >>> kd.nofollow_schema(kd.OBJECT) == kd.nofollow_schema(kd.OBJECT)
  DataItem(present, schema: MASK)
  >>> kd.nofollow_schema(kd.INT32)
  Traceback (most recent call last):
  ...
  ValueError: kd.schema.nofollow_schema: calling nofollow on INT32 slice is not allowed"#,
        |a| {
            let op = "kd.schema.nofollow_schema";
            let schema = a.slice("schema")?;
            let nofollow = nofollow_of(op, crate::registry::schema_item_arg(op, "schema", schema)?)?;
            let item = DataSlice::item(Some(ScalarRef::Schema(nofollow)), Schema::Schema)?;
            Ok(Value::Slice(item.with_bag(schema.bag().cloned())))
        },
    );
    r.add_value(
        "kd.schema.get_nofollowed_schema",
        &["kd.get_nofollowed_schema"],
        "schema",
        r#"Returns the schema a nofollow schema wraps (undoes `kd.nofollow_schema`).

Args:
  schema: a SCHEMA item holding a nofollow schema.

Examples:
  >>> s = kd.new(x=1).get_schema()
  >>> kd.get_nofollowed_schema(kd.nofollow_schema(s)) == s
  DataItem(present, schema: MASK)
  >>> kd.get_nofollowed_schema(kd.nofollow_schema(kd.OBJECT))
  DataItem(OBJECT, schema: SCHEMA)
  >>> kd.get_nofollowed_schema(s)
  Traceback (most recent call last):
  ...
  ValueError: kd.schema.get_nofollowed_schema: a nofollow schema is required in get_nofollowed_schema"#,
        |a| {
            let op = "kd.schema.get_nofollowed_schema";
            let schema = a.slice("schema")?;
            let inner = nofollowed_of(op, crate::registry::schema_item_arg(op, "schema", schema)?)?;
            let item = DataSlice::item(Some(ScalarRef::Schema(inner)), Schema::Schema)?;
            Ok(Value::Slice(item.with_bag(schema.bag().cloned())))
        },
    );
}
