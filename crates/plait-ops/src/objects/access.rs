//! Reading attributes: `kd.get_attr` (`.x`), `kd.maybe`, `kd.has_attr`,
//! `kd.get_attr_names` / `kd.dir`.

use plait_core::bag::SCHEMA_ATTR;
use plait_core::broadcast::expand_to_shape;
use plait_core::cast::cast_to;
use plait_core::schema::Schema;
use plait_core::slice::common_schema_of;
use plait_core::{DataBag, DataSlice, Error, ItemId, Result, ScalarRef};

use plait_core::bag::text::schema_text;

use super::model::{attr_error, attr_schema, bag_of, ids_of};
use crate::registry::Registry;

const GET_ATTR: &str = "kd.core.get_attr";

/// `kd.get_attr(x, name, default=unspecified)`: the attribute of every item.
/// Without `default`, an attribute missing from the schema is an error.
pub fn get_attr(x: &DataSlice, name: &str, default: Option<&DataSlice>) -> Result<DataSlice> {
    let context = format!("failed to get attribute '{name}'");
    let got = lookup(x, name, default.is_some(), &context)?;
    match default {
        None => Ok(got),
        Some(default) => {
            let default = expand_to_shape(GET_ATTR, default, x.shape(), 0)?;
            crate::masking::coalesce(&got, &default).map(|r| r.with_bag(x.bag().cloned()))
        }
    }
}

/// `kd.maybe(x, name)`: like `get_attr`, missing where the attribute is.
pub fn maybe(x: &DataSlice, name: &str) -> Result<DataSlice> {
    lookup(x, name, true, &format!("failed to get attribute '{name}'"))
}

/// The attribute values; with `lenient`, a schema without the attribute
/// gives missing values instead of an error.
fn lookup(x: &DataSlice, name: &str, lenient: bool, context: &str) -> Result<DataSlice> {
    match x.schema() {
        Schema::Struct(schema_id) => {
            let bag = bag_of(context, x)?;
            let Some(schema) = attr_schema(bag, schema_id, name) else {
                if lenient {
                    return Ok(DataSlice::missing(x.shape().clone(), Schema::None).with_bag(Some(bag.clone())));
                }
                return Err(missing_on_schema(context, name));
            };
            let data = bag.get_attr(name, &ids_of(x));
            Ok(DataSlice::new(x.shape().clone(), data, schema)?.with_bag(Some(bag.clone())))
        }
        Schema::Object => lookup_objects(x, name, lenient, context),
        Schema::ItemId => Err(attr_error(context, "ITEMIDs do not allow attribute access")),
        Schema::None => Ok(DataSlice::missing(x.shape().clone(), Schema::None).with_bag(x.bag().cloned())),
        other => Err(attr_error(context, format!("primitives do not have attributes, got {other}"))),
    }
}

/// OBJECT items: each object's schema is its `__schema__` attribute; the
/// result's schema is the common schema of the attribute's schemas.
fn lookup_objects(x: &DataSlice, name: &str, lenient: bool, context: &str) -> Result<DataSlice> {
    if x.present_count() == 0 {
        return Ok(DataSlice::missing(x.shape().clone(), Schema::None).with_bag(x.bag().cloned()));
    }
    if let Some(i) = (0..x.size()).find(|&i| matches!(x.get(i), Some(v) if !matches!(v, ScalarRef::ItemId(_)))) {
        let mut item = String::new();
        plait_core::repr::write_item(&mut item, x.get(i), Schema::Object, true);
        return Err(attr_error(
            context,
            format!("primitives do not have attributes, got OBJECT DataSlice with at least one primitive {item} at ds.flatten().S[{i}]"),
        ));
    }
    let bag = bag_of(context, x)?;
    let ids = ids_of(x);
    let schema_ids = object_schemas(bag, &ids, context)?;
    let attr_schemas = bag.get_attr(name, &schema_ids);
    let mut schemas = Vec::new();
    for (i, id) in ids.iter().enumerate() {
        if id.is_none() {
            continue;
        }
        match attr_schemas.get(i) {
            Some(ScalarRef::Schema(s)) => schemas.push(s),
            _ if lenient => {}
            _ => {
                return Err(attr_error(
                    context,
                    format!(
                        "the attribute '{name}' is missing for at least one object at ds.flatten().S[{i}]\n\n\
                         If it is not a typo, perhaps ignore the schema when getting the attribute. For example, ds.maybe('{name}')"
                    ),
                ))
            }
        }
    }
    schemas.sort();
    schemas.dedup();
    let common = common_attr_schema(bag, &schemas, context)?;
    let data = bag.get_attr(name, &ids);
    // Values are stored with their own types; one pass casts them to the
    // common schema where it is not OBJECT (e.g. INT32 and INT64 -> INT64).
    let raw = DataSlice::new(x.shape().clone(), data, Schema::Object)?;
    let result = match common {
        Schema::Object | Schema::None => raw,
        Schema::Struct(_) => raw.with_schema(common)?,
        _ => cast_to(GET_ATTR, &raw, common)?,
    };
    Ok(result.with_bag(Some(bag.clone())))
}

/// The `__schema__` of each object, or the error for an object without one.
pub fn object_schemas(bag: &DataBag, ids: &[Option<ItemId>], context: &str) -> Result<Vec<Option<ItemId>>> {
    let data = bag.get_attr(SCHEMA_ATTR, ids);
    let mut out = Vec::with_capacity(ids.len());
    for (i, id) in ids.iter().enumerate() {
        match (id, data.get(i)) {
            (None, _) => out.push(None),
            (Some(_), Some(ScalarRef::Schema(Schema::Struct(s)))) => out.push(Some(s)),
            (Some(id), _) => {
                return Err(attr_error(
                    context,
                    format!(
                        "object schema is missing for the DataItem whose item is: {}\n\n  \
                         DataItem with the kd.OBJECT schema usually store its schema as an attribute or implicitly hold \
                         the type information when it's a primitive type. Perhaps, the OBJECT schema is set by mistake with\n  \
                         foo.with_schema(kd.OBJECT) when 'foo' does not have stored schema attribute.\n",
                        id.short()
                    ),
                ))
            }
        }
    }
    Ok(out)
}

/// The common schema of attribute schemas; two different struct schemas
/// have none.
pub(crate) fn common_attr_schema(bag: &DataBag, schemas: &[Schema], context: &str) -> Result<Schema> {
    let structs: Vec<Schema> = schemas.iter().copied().filter(|s| s.is_struct()).collect();
    if structs.len() > 1 || (!structs.is_empty() && structs.len() < schemas.len() && schemas.iter().any(|s| *s != Schema::None && !s.is_struct())) {
        let first = structs[0];
        let other = schemas.iter().copied().find(|s| *s != first).unwrap_or(first);
        return Err(attr_error(
            context,
            format!(
                "cannot find a common schema\n\n the common schema(s) {first}: {}\n the first conflicting schema {other}: {}",
                schema_text(first, Some(bag)),
                schema_text(other, Some(bag))
            ),
        ));
    }
    if let Some(&s) = structs.first() {
        return Ok(s);
    }
    common_schema_of(GET_ATTR, schemas.iter().copied())
}

fn missing_on_schema(context: &str, name: &str) -> Error {
    attr_error(
        context,
        format!(
            "the attribute '{name}' is missing on the schema.\n\n\
             If it is not a typo, perhaps ignore the schema when getting the attribute. For example, ds.maybe('{name}')"
        ),
    )
}

/// `kd.has_attr(x, name)`: present where the item has the attribute.
pub fn has_attr(x: &DataSlice, name: &str) -> Result<DataSlice> {
    let values = match x.schema() {
        Schema::Struct(_) | Schema::Object => maybe(x, name)?,
        _ => DataSlice::missing(x.shape().clone(), Schema::None),
    };
    crate::masking::has(&values)
}

/// The attribute names of the items (`kd.get_attr_names`): of the schema for
/// entities; for objects, those of all objects (`intersection=False`) or
/// those every object has.
pub fn attr_names(x: &DataSlice, intersection: bool) -> Result<Vec<String>> {
    let Some(bag) = x.bag() else { return Ok(Vec::new()) };
    let context = "kd.core.get_attr_names";
    let schema_ids: Vec<ItemId> = match x.schema() {
        Schema::Struct(s) => vec![s],
        Schema::Object => object_schemas(bag, &ids_of(x), context)?.into_iter().flatten().collect(),
        _ => return Ok(Vec::new()),
    };
    let mut distinct = schema_ids.clone();
    distinct.sort();
    distinct.dedup();
    let mut result: Option<Vec<String>> = None;
    for s in distinct {
        let names: Vec<String> = bag.attr_names(s).into_iter().filter(|n| !n.starts_with("__")).collect();
        result = Some(match result {
            None => names,
            Some(acc) if intersection => acc.into_iter().filter(|n| names.contains(n)).collect(),
            Some(mut acc) => {
                acc.extend(names);
                acc.sort();
                acc.dedup();
                acc
            }
        });
    }
    Ok(result.unwrap_or_default())
}

pub(crate) fn register(r: &mut Registry) {
    r.add("kd.core.get_attr", &["kd.get_attr"], "x, attr_name, default=unspecified", "Returns attribute attr_name of every item.", |a| {
        get_attr(a.slice("x")?, &a.text("attr_name")?, a.opt_slice("default")?)
    });
    r.add("kd.core.maybe", &["kd.maybe"], "x, attr_name", "Returns attribute attr_name of every item, missing where it is absent.", |a| {
        maybe(a.slice("x")?, &a.text("attr_name")?)
    });
    r.add("kd.core.has_attr", &["kd.has_attr"], "x, attr_name", "Returns present where an item has attribute attr_name.", |a| {
        has_attr(a.slice("x")?, &a.text("attr_name")?)
    });
}
