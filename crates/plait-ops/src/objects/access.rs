//! Reading attributes: `kd.get_attr` (`.x`), `kd.maybe`, `kd.has_attr`,
//! `kd.get_attr_names` / `kd.dir`.

use plait_core::bag::SCHEMA_ATTR;
use plait_core::bag::text::SCHEMA_METADATA_ATTR;
use plait_core::broadcast::expand_to_shape;
use plait_core::cast::cast_to;
use plait_core::schema::Schema;
use plait_core::slice::common_schema_of;
use plait_core::{Column, DataBag, DataSlice, Error, ItemId, Result, ScalarRef, SliceData, Values};

use super::model::{Ids, attr_error, attr_schema, bag_of, ids_of, is_implicit_schemas_of, picked, read_attr, struct_schema_of_item};
use crate::registry::Registry;

const GET_ATTR: &str = "kd.core.get_attr";

/// `kd.get_attr(x, name, default=unspecified)`: the attribute of every item.
/// Without `default`, an attribute missing from the schema is an error.
pub fn get_attr(x: &DataSlice, name: &str, default: Option<&DataSlice>) -> Result<DataSlice> {
    if default.is_none() {
        if let Some(item) = attr_of_one(x, name) {
            return Ok(item);
        }
    }
    let context = format!("failed to get attribute '{name}'");
    let got = lookup(x, name, default.is_some(), &context)?;
    match default {
        None => Ok(got),
        Some(default) => {
            // The default fills in for present items only (a missing item
            // stays missing), and keeps its own schema and bag where the
            // attribute is absent from the schema (e.g. a default entity).
            let default = expand_to_shape(GET_ATTR, default, x.shape(), 0)?;
            let bag = DataBag::combined(x.bag().into_iter().chain(default.bag()));
            let default = crate::masking::apply_mask(&default, &crate::masking::has(x)?)?;
            // A NONE result has no present item: the default is the answer.
            let result = if got.schema() == Schema::None {
                default
            } else {
                crate::masking::coalesce(&got, &default)
                    .map_err(|e| attr_error(&context, format!("conflict with the schema from the default value ({})", e.message)))?
            };
            Ok(result.with_bag(bag))
        }
    }
}

/// `e.a` for one entity or object whose schema declares `a`, read with two
/// lookups (loops over items read attributes one item at a time); `None`
/// for anything else, which [`lookup`] answers (and words the errors of).
fn attr_of_one(x: &DataSlice, name: &str) -> Option<DataSlice> {
    let (true, Some(bag), Some(ScalarRef::ItemId(id))) = (x.is_item(), x.bag(), x.get(0)) else { return None };
    let schema_id = struct_schema_of_item(x, bag, id)?;
    let schema = attr_schema(bag, schema_id, name)?;
    if schema.nofollowed().is_some() || id.is_nofollow() {
        return None;
    }
    let value = bag.get_one(name, id);
    let item = DataSlice::item(value.as_ref().map(|v| v.as_ref()), schema).ok()?;
    Some(item.with_bag(Some(bag.clone())))
}

/// `kd.maybe(x, name)`: like `get_attr`, missing where the attribute is.
pub fn maybe(x: &DataSlice, name: &str) -> Result<DataSlice> {
    lookup(x, name, true, &format!("failed to get attribute '{name}'"))
}

/// The `attr_name` argument of `op`: a STRING item (one name for all
/// items), or a slice of names (one per item, aligned with `x`), checked
/// with Koda's messages.
pub enum AttrNames {
    One(String),
    PerItem(DataSlice),
}

impl AttrNames {
    pub fn read(op: &str, names: &DataSlice) -> Result<AttrNames> {
        if names.is_item() {
            crate::checks::present_scalar_for(op, "attr_name", names, Schema::String)?;
            return match names.get(0) {
                Some(ScalarRef::String(name)) => Ok(AttrNames::One(name.to_string())),
                _ => Err(Error::value(op, "argument `attr_name` must be an item holding STRING")),
            };
        }
        crate::checks::primitive_for(op, "attr_name", names, Schema::String)?;
        Ok(AttrNames::PerItem(names.clone()))
    }
}

/// `read(x, name, default)` for each distinct name of `names` (aligned with
/// `x` and `default`), on the items that name it, put back in place: the
/// result has the common schema of the parts, missing where the name is.
fn per_item_names(
    op: &str,
    x: &DataSlice,
    names: &DataSlice,
    default: Option<&DataSlice>,
    read: impl Fn(&DataSlice, &str, Option<&DataSlice>) -> Result<DataSlice>,
) -> Result<DataSlice> {
    // Primitives first, as Koda checks them (its text names no attribute).
    let primitive = match x.schema() {
        Schema::Schema => primitive_schemas(x),
        s if s.is_primitive() && s != Schema::None => Some(s.to_string()),
        _ => None,
    };
    if let Some(what) = primitive {
        return Err(Error::value(op, format!("failed to get attribute; primitives do not have attributes, got {what}")));
    }
    // Koda names the shapes in this order when they do not align.
    let mut inputs = vec![names, x];
    inputs.extend(default);
    let mut aligned = plait_core::broadcast::align(op, &inputs)?;
    aligned.swap(0, 1);
    let shape = aligned[0].shape().clone();
    let n = shape.size();
    // The positions of each distinct name, in first-seen order.
    let mut groups: Vec<(&str, Vec<usize>)> = Vec::new();
    let mut group_of: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for i in 0..n {
        if let Some(ScalarRef::String(name)) = aligned[1].get(i) {
            let g = *group_of.entry(name).or_insert_with(|| {
                groups.push((name, Vec::new()));
                groups.len() - 1
            });
            groups[g].1.push(i);
        }
    }
    let flat = |s: &DataSlice, positions: &[usize]| -> Result<DataSlice> {
        DataSlice::new(plait_core::JaggedShape::flat(positions.len()), s.data().take(positions), s.schema()).map(|p| p.with_bag(s.bag().cloned()))
    };
    let mut parts = Vec::with_capacity(groups.len());
    for (name, positions) in &groups {
        let default = aligned.get(2).map(|d| flat(d, positions)).transpose()?;
        let part = read(&flat(&aligned[0], positions)?, name, default.as_ref()).map_err(|e| {
            let e = at_positions(e, positions);
            if e.message.starts_with(op) { e } else { e.with_context(op) }
        })?;
        parts.push(part);
    }
    let mut schema = Schema::None;
    for part in &parts {
        schema = Schema::common(schema, part.schema()).ok_or_else(|| {
            let text = |s| plait_core::bag::text::schema_text(s, part.bag());
            Error::value(op, format!("no common schema for the attributes read: {} and {}", text(schema), text(part.schema())))
        })?;
    }
    let parts: Vec<DataSlice> = parts.iter().map(|p| cast_to(op, p, schema)).collect::<Result<_>>()?;
    let mut picks = vec![(0, plait_core::column::MISSING_INDEX); n];
    for (g, (_, positions)) in groups.iter().enumerate() {
        for (k, &i) in positions.iter().enumerate() {
            picks[i] = (g, k);
        }
    }
    let sources: Vec<&SliceData> = parts.iter().map(DataSlice::data).collect();
    let data = plait_core::bag::list_store::gather(&sources, &picks);
    let bag = DataBag::combined(aligned.iter().chain(&parts).filter_map(DataSlice::bag));
    Ok(DataSlice::new(shape, data, schema)?.with_bag(bag))
}

/// Error `e` of reading the items at `positions` (of the flattened
/// aligned input), with the item it points at (`ds.flatten().S[k]`) named by
/// its place in the input.
fn at_positions(mut e: Error, positions: &[usize]) -> Error {
    const AT: &str = "ds.flatten().S[";
    if let Some(start) = e.message.find(AT).map(|i| i + AT.len()) {
        let digits = e.message[start..].bytes().take_while(u8::is_ascii_digit).count();
        if let Some(&place) = e.message[start..start + digits].parse::<usize>().ok().and_then(|k| positions.get(k)) {
            e.message.replace_range(start..start + digits, &place.to_string());
        }
    }
    e
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
            // A nofollow attribute reads as what it wraps (`kd.follow` is
            // for nofollow slices made by `kd.nofollow`).
            let schema = schema.nofollowed().unwrap_or(schema);
            let data = match masked_allocation(x.data())
                .and_then(|(allocation, len, keep)| Some((bag.get_attr_of_allocation(name, allocation, len)?, keep)))
            {
                // Entities of one allocation with some missing (`(e & mask).a`):
                // the attribute's column, masked.
                Some((column, keep)) => column.masked(keep),
                None => read_attr(bag, name, &Ids::of(x)),
            };
            // Bags layered over one another can hold values that the schema
            // read does not admit: Koda's error, not an internal one.
            let read = DataSlice::new(x.shape().clone(), data, schema).map_err(|_| {
                attr_error(context, format!("{schema} schema can only be assigned to a DataSlice that contains only primitives of {schema}"))
            })?;
            Ok(read.with_bag(Some(bag.clone())))
        }
        Schema::Object => lookup_objects(x, name, lenient, context),
        Schema::Schema => lookup_schema_attrs(x, name, lenient, context),
        Schema::ItemId => Err(attr_error(context, "ITEMIDs do not allow attribute access")),
        Schema::None => Ok(DataSlice::missing(x.shape().clone(), Schema::None).with_bag(Some(bag_of(context, x)?.clone()))),
        other => Err(attr_error(context, format!("primitives do not have attributes, got {other}"))),
    }
}

/// The items of a fresh allocation, in order, some of them missing: its
/// number, its length and which slots are present; `None` for anything
/// else (all present is [`Ids::Whole`]).
fn masked_allocation(data: &SliceData) -> Option<(u64, usize, &arrow_buffer::BooleanBuffer)> {
    let Some(Column { values: Values::ItemId(ids), presence: Some(presence) }) = data.single_column() else { return None };
    let (base, len) = ids.as_run()?;
    let first = ItemId(base);
    let allocation = first.allocation().filter(|_| first.offset() == 0)?;
    Some((allocation, len, presence.inner()))
}

/// The struct schemas held by a SCHEMA slice (`None` for primitive schemas
/// and missing items).
pub(super) fn struct_schema_ids(x: &DataSlice) -> Vec<Option<ItemId>> {
    (0..x.size())
        .map(|i| match x.get(i) {
            Some(ScalarRef::Schema(Schema::Struct(id))) => Some(id),
            _ => None,
        })
        .collect()
}

/// SCHEMA items: the schema of attribute `name` of each struct schema
/// (`kd.named_schema('P', a=kd.INT32).a` is INT32).
fn lookup_schema_attrs(x: &DataSlice, name: &str, lenient: bool, context: &str) -> Result<DataSlice> {
    let ids = struct_schema_ids(x);
    if let Some(what) = primitive_schemas(x) {
        return Err(attr_error(context, format!("primitives do not have attributes, got {what}")));
    }
    let bag = bag_of(context, x)?;
    let data = bag.get_attr(name, &ids);
    if !lenient && data.present_count() == 0 && x.present_count() > 0 {
        return Err(missing_on_schema(context, name));
    }
    // A schema's metadata is an object; every other attribute of a schema
    // is a schema.
    if name == SCHEMA_METADATA_ATTR {
        if let Some(i) = (0..x.size()).find(|&i| !lenient && x.get(i).is_some() && data.get(i).is_none()) {
            return Err(attr_error(
                context,
                format!(
                    "the attribute '{name}' is missing for at least one object at ds.flatten().S[{i}]\n\n\
                     If it is not a typo, perhaps ignore the schema when getting the attribute. For example, ds.maybe('{name}')"
                ),
            ));
        }
        return Ok(DataSlice::new(x.shape().clone(), data, Schema::Object)?.with_bag(Some(bag.clone())));
    }
    Ok(DataSlice::new(x.shape().clone(), data, Schema::Schema)?.with_bag(Some(bag.clone())))
}

/// How Koda names the primitive schemas (`kd.INT32`, which have no
/// attributes) among SCHEMA items `x`: the item, or the first of them in a
/// slice; `None` when all present ones are struct schemas.
/// What Koda says `x` is when it holds primitives where attributes are
/// asked for (`INT32`, `OBJECT DataItem with primitive 1`, `OBJECT
/// DataSlice with at least one primitive 2 at ds.flatten().S[1]`, and
/// primitive schemas as [`primitive_schemas`] says); None when it holds
/// none.
pub(crate) fn primitives_text(x: &DataSlice) -> Option<String> {
    match x.schema() {
        s if s.is_primitive() => Some(s.to_string()),
        Schema::Object => {
            let i = first_primitive(x)?;
            let item = x.get(i).map(plait_core::repr::item_text).unwrap_or_default();
            Some(if x.is_item() {
                format!("OBJECT DataItem with primitive {item}")
            } else {
                format!("OBJECT DataSlice with at least one primitive {item} at ds.flatten().S[{i}]")
            })
        }
        _ => primitive_schemas(x),
    }
}

pub(crate) fn primitive_schemas(x: &DataSlice) -> Option<String> {
    if x.schema() != Schema::Schema {
        return None;
    }
    let (i, primitive) = (0..x.size()).find_map(|i| match x.get(i) {
        Some(ScalarRef::Schema(s)) if !s.is_struct() => Some((i, s)),
        _ => None,
    })?;
    Some(if x.is_item() {
        format!("SCHEMA DataItem with primitive {primitive}")
    } else {
        format!("SCHEMA DataSlice with at least one primitive {primitive} at ds.flatten().S[{i}]")
    })
}

/// OBJECT items: each object's schema is its `__schema__` attribute; the
/// result's schema is the common schema of the attribute's schemas.
fn lookup_objects(x: &DataSlice, name: &str, lenient: bool, context: &str) -> Result<DataSlice> {
    if x.present_count() == 0 {
        return Ok(DataSlice::missing(x.shape().clone(), Schema::None).with_bag(Some(bag_of(context, x)?.clone())));
    }
    if let Some(i) = first_primitive(x) {
        let mut item = String::new();
        plait_core::repr::write_item(&mut item, x.get(i), Schema::Object, true);
        return Err(attr_error(
            context,
            format!("primitives do not have attributes, got OBJECT DataSlice with at least one primitive {item} at ds.flatten().S[{i}]"),
        ));
    }
    let bag = bag_of(context, x)?;
    let ids = Ids::of(x);
    let schema_ids = object_schema_ids(bag, &ids, context)?;
    let attr_schemas = read_attr(bag, name, &schema_ids);
    // The distinct attribute schemas, in one pass: objects made together
    // share one, so comparing with the previous item skips the set lookup.
    let mut schemas: Vec<Schema> = Vec::new();
    let mut last = None;
    let mut missing_at = None;
    if let (Ids::Whole { .. }, Some(Column { values: Values::Schema(column), presence: None })) = (&ids, attr_schemas.single_column()) {
        // Every object has the attribute: one comparison pass when they all
        // share the first one's schema (none for a repeated schema).
        let shared = match column.as_same() {
            Some((schema, len)) => (len > 0).then_some(schema),
            None => {
                let v = column.values();
                v.first().copied().filter(|&first| v.iter().fold(true, |ok, s| ok & (*s == first)))
            }
        };
        if let Some(first) = shared {
            last = Some(first);
            schemas.push(first);
        }
    }
    if last.is_none() {
        let mut seen = std::collections::HashSet::new();
        for_each_schema(&attr_schemas, |i, schema| match (ids.is_present(i), schema) {
            (false, _) => {}
            (true, Some(s)) => {
                if last != Some(s) && seen.insert(s) {
                    schemas.push(s);
                }
                last = Some(s);
            }
            // Koda names the last object lacking the attribute.
            (true, None) => missing_at = Some(i),
        });
    }
    if let Some(i) = missing_at.filter(|_| !lenient) {
        if x.is_item() {
            // One object: its schema lacks the attribute, as Koda says.
            return Err(missing_on_schema(context, name));
        }
        return Err(attr_error(
            context,
            format!(
                "the attribute '{name}' is missing for at least one object at ds.flatten().S[{i}]\n\n\
                 If it is not a typo, perhaps ignore the schema when getting the attribute. For example, ds.maybe('{name}')"
            ),
        ));
    }
    for s in schemas.iter_mut() {
        *s = s.nofollowed().unwrap_or(*s);
    }
    schemas.sort();
    schemas.dedup();
    let common = common_attr_schema(bag, &schemas, context)?;
    if common == Schema::None {
        // No object has a value's schema for the attribute (absent, or NONE
        // everywhere): missing items of schema NONE, as Koda.
        return Ok(DataSlice::missing(x.shape().clone(), Schema::None).with_bag(Some(bag.clone())));
    }
    let data = read_attr(bag, name, &ids);
    // Values are stored with their own types; one pass casts them to the
    // common schema where it is not OBJECT (e.g. INT32 and INT64 -> INT64).
    let raw = DataSlice::new(x.shape().clone(), data, Schema::Object)?;
    // Entities (one struct schema) are ids already: only the schema changes.
    let result = if common == Schema::Object || common.is_struct() { raw.with_schema(common)? } else { cast_to(GET_ATTR, &raw, common)? };
    Ok(result.with_bag(Some(bag.clone())))
}

/// The first present item of `x` that is not an ItemId (a primitive), by
/// column rather than item by item.
pub(crate) fn first_primitive(x: &DataSlice) -> Option<usize> {
    x.data().columns().iter().filter(|c| !matches!(c.values, Values::ItemId(_))).filter_map(|c| (0..c.len()).find(|&i| c.is_present(i))).min()
}

/// Calls `f(i, schema)` for every item of schema data (`None` where missing
/// or not a schema); a plain loop over the column when it is one SCHEMA
/// column.
fn for_each_schema(data: &SliceData, mut f: impl FnMut(usize, Option<Schema>)) {
    if let Some(Column { values: Values::Schema(v), presence }) = data.single_column() {
        for (i, &s) in v.values().iter().enumerate() {
            f(i, presence.as_ref().is_none_or(|p| p.is_valid(i)).then_some(s));
        }
        return;
    }
    for i in 0..data.len() {
        f(
            i,
            match data.get(i) {
                Some(ScalarRef::Schema(s)) => Some(s),
                _ => None,
            },
        );
    }
}

/// The `__schema__` ids of the objects `ids`: a whole allocation of
/// implicit schemas when the objects were made together (checked in one
/// pass over their `__schema__` column), else one id per object.
pub fn object_schema_ids(bag: &DataBag, ids: &Ids, context: &str) -> Result<Ids> {
    if let Ids::Whole { allocation, len } = ids {
        if let Some(schemas) = bag.get_attr_of_allocation(SCHEMA_ATTR, *allocation, *len) {
            if let Some(schema_allocation) = is_implicit_schemas_of(&schemas, *allocation) {
                return Ok(Ids::Whole { allocation: schema_allocation, len: *len });
            }
        }
    }
    Ok(Ids::List(object_schemas(bag, &ids.to_list(), context)?))
}

/// The `__schema__` of each object, or the error for an object without one.
pub fn object_schemas(bag: &DataBag, ids: &[Option<ItemId>], context: &str) -> Result<Vec<Option<ItemId>>> {
    let data = bag.get_attr(SCHEMA_ATTR, ids);
    let mut out = Vec::with_capacity(ids.len());
    let mut without = None;
    for_each_schema(&data, |i, schema| match (ids[i], schema) {
        (None, _) => out.push(None),
        (Some(_), Some(Schema::Struct(s))) => out.push(Some(s)),
        (Some(id), _) => {
            without.get_or_insert(id);
            out.push(None)
        }
    });
    if let Some(id) = without {
        return Err(attr_error(
            context,
            format!(
                "object schema is missing for the DataItem whose item is: {}\n\n  \
                 DataItem with the kd.OBJECT schema usually store its schema as an attribute or implicitly hold \
                 the type information when it's a primitive type. Perhaps, the OBJECT schema is set by mistake with\n  \
                 foo.with_schema(kd.OBJECT) when 'foo' does not have stored schema attribute.\n",
                id.short()
            ),
        ));
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
        return Err(attr_error(context, plait_core::bag::text::no_common_schema(first, other, Some(bag))));
    }
    if let Some(&s) = structs.first() {
        return Ok(s);
    }
    common_schema_of(GET_ATTR, schemas.iter().copied())
}

pub(crate) fn missing_on_schema(context: &str, name: &str) -> Error {
    attr_error(
        context,
        format!(
            "the attribute '{name}' is missing on the schema.\n\n\
             If it is not a typo, perhaps ignore the schema when getting the attribute. For example, ds.maybe('{name}')"
        ),
    )
}

/// Koda's error for reading schema attribute `name` of `x` where its
/// schema (or an object's) lacks it, named after operator `op`; for the
/// operators that read one (`lists[a:b]` of dicts reads `__items__`).
pub(crate) fn missing_attr_error(x: &DataSlice, name: &str, op: &str) -> Option<Error> {
    lookup(x, name, false, op).err()
}

/// `kd.has_attr(x, name)`: present where the item has the attribute.
/// Primitives (and slices without a bag) are errors, as for `maybe`.
pub fn has_attr(x: &DataSlice, name: &str) -> Result<DataSlice> {
    let values = lookup(x, name, true, &format!("kd.core.has_attr: failed to check attribute '{name}'"))?;
    crate::masking::has(&values)
}

/// The attribute names of the items (`kd.get_attr_names`): of the schema for
/// entities; for objects, those of all objects (`intersection=False`) or
/// those every object has.
pub fn attr_names(x: &DataSlice, intersection: bool) -> Result<Vec<String>> {
    let context = "kd.core.get_attr_names";
    let Some(bag) = x.bag() else { return Err(Error::value(context, "cannot get available attributes without a DataBag")) };
    let schema_ids: Vec<ItemId> = match x.schema() {
        Schema::Struct(s) => vec![s],
        Schema::Object => object_schemas(bag, &ids_of(x), context)?.into_iter().flatten().collect(),
        // The attributes a struct schema declares.
        Schema::Schema => struct_schema_ids(x).into_iter().flatten().collect(),
        _ => return Ok(Vec::new()),
    };
    let mut distinct = schema_ids.clone();
    distinct.sort();
    distinct.dedup();
    // Sets, so that thousands of schemas of differing names cost what they
    // hold (sorted: the result is).
    let mut result: Option<std::collections::BTreeSet<String>> = None;
    for s in distinct {
        let names = bag.attr_names(s).into_iter().filter(|n| !plait_core::bag::is_internal_attr(n));
        result = Some(match result {
            None => names.collect(),
            Some(acc) if intersection => {
                let names: std::collections::BTreeSet<String> = names.collect();
                acc.intersection(&names).cloned().collect()
            }
            Some(mut acc) => {
                acc.extend(names);
                acc
            }
        });
    }
    Ok(result.unwrap_or_default().into_iter().collect())
}

/// For each attribute the schemas of `x`'s items declare (a 1-D slice of
/// entities or objects), the positions of the items whose schema declares
/// it, and which of those declare it with a nofollow schema; sorted by
/// name. Converting objects of many differing schemas (`to_py` of records
/// with differing keys) reads each attribute only where it is declared,
/// not everywhere.
pub fn declared_attrs(x: &DataSlice) -> Result<Vec<DeclaredAttr>> {
    let context = "kd.core.get_attr_names";
    let Some(bag) = x.bag() else { return Err(Error::value(context, "cannot get available attributes without a DataBag")) };
    let ids = ids_of(x);
    let schemas: Vec<Option<ItemId>> = match x.schema() {
        Schema::Struct(s) => ids.iter().map(|id| id.map(|_| s)).collect(),
        Schema::Object => object_schemas(bag, &ids, context)?,
        _ => return Ok(Vec::new()),
    };
    let mut out = Vec::new();
    for (name, positions) in bag.attrs_held_by(&schemas) {
        if plait_core::bag::is_internal_attr(&name) {
            continue;
        }
        let declared = bag.get_attr(&name, &picked(&schemas, &positions));
        let (mut held, mut nofollow) = (Vec::new(), Vec::new());
        for (k, &i) in positions.iter().enumerate() {
            if let Some(schema) = declared.get(k) {
                held.push(i);
                nofollow.push(matches!(schema, ScalarRef::Schema(s) if s.nofollowed().is_some()));
            }
        }
        if !held.is_empty() {
            out.push((name.to_string(), held, nofollow));
        }
    }
    Ok(out)
}

/// An attribute [`declared_attrs`] finds: its name, the positions of the
/// items declaring it, and for each whether its schema there is nofollow.
pub type DeclaredAttr = (String, Vec<usize>, Vec<bool>);

/// `kd.core.get_attr_names(x, intersection)`: [`attr_names`] as a 1-D
/// STRING slice.
pub fn attr_names_slice(x: &DataSlice, intersection: bool) -> Result<DataSlice> {
    let names = attr_names(x, intersection)?;
    let mut b = plait_core::column::ColumnBuilder::new(Schema::String, names.len());
    for name in &names {
        b.push(ScalarRef::String(name));
    }
    DataSlice::new(plait_core::JaggedShape::flat(names.len()), SliceData::from_column(b.finish()), Schema::String)
}

pub(crate) fn register(r: &mut Registry) {
    r.add(
        "kd.core.get_attr_names",
        &[],
        "x, intersection",
        r#"Returns the sorted attribute names of the items of x, as a 1-D STRING DataSlice.

For entities the names come from their schema; for objects, from each
object's own schema, and `intersection` chooses between the names all
objects share and the names any object has. Primitives in OBJECT data are
skipped. x must have a DataBag. (`kd.get_attr_names` gives the same names
as a Python list.)

Args:
  x: a DataSlice with a DataBag.
  intersection: True for the names common to all items, False for the names
    of any item.

Examples:
  >>> x = kd.slice([kd.obj(a=1, b=2), kd.obj(a=3, c=4)])
  >>> kd.core.get_attr_names(x, intersection=True)
  DataSlice(['a'], schema: STRING, present: 1/1)
  >>> kd.core.get_attr_names(x, False)
  DataSlice(['a', 'b', 'c'], schema: STRING, present: 3/3)"#,
        |a| attr_names_slice(a.slice("x")?, a.bool("intersection")?),
    );
    r.add(
        "kd.core.get_attr",
        &["kd.get_attr"],
        "x, attr_name, default=unspecified",
        r#"Returns attribute attr_name of every item of x.

Missing items give missing values. Without `default`, an attribute absent
from the entity schema (or from any present object) raises ValueError. With
`default`, present items lacking the attribute take the default (broadcast to
x), and the result has the common schema of both. `x.attr` and
`x.get_attr('attr')` are the same.

Args:
  x: a DataSlice of entities or objects.
  attr_name: the name of the attribute (a str), or a STRING DataSlice
    naming one attribute per item (aligned with x).
  default: the value for items without the attribute (optional).

Examples:
  >>> kd.get_attr(kd.new(a=kd.slice([1, 2])), 'a')
  DataSlice([1, 2], schema: INT32, present: 2/2, bag_id: $...)
  >>> x = kd.slice([kd.obj(a=1), kd.obj(b=2), None])
  >>> kd.get_attr(x, 'a', default=0)
  DataSlice([1, 0, None], schema: INT32, present: 2/3, bag_id: $...)
  >>> kd.get_attr(kd.new(a=1), 'b', None)
  DataItem(None, schema: NONE, bag_id: $...)
  >>> kd.get_attr(kd.new(a=1, b=2), kd.slice(['a', 'b']))
  DataSlice([1, 2], schema: INT32, present: 2/2, bag_id: $...)"#,
        |a| {
            // As operators, the errors name them (a method, `x.get_attr`, does not).
            let x = a.slice("x")?;
            let default = a.opt_slice("default")?;
            match AttrNames::read(GET_ATTR, a.slice("attr_name")?)? {
                AttrNames::One(name) => get_attr(x, &name, default).map_err(|e| e.with_context(GET_ATTR)),
                AttrNames::PerItem(names) => per_item_names(GET_ATTR, x, &names, default, get_attr),
            }
        },
    );
    r.add(
        "kd.core.maybe",
        &["kd.maybe"],
        "x, attr_name",
        r#"Returns attribute attr_name of every item of x, missing where an item lacks it.

The same as kd.get_attr(x, attr_name, default=None): an attribute absent
from the schema is not an error. When no item has the attribute, the result
is all missing with schema NONE.

Args:
  x: a DataSlice of entities or objects.
  attr_name: the name of the attribute (a str), or a STRING DataSlice
    naming one attribute per item (aligned with x).

Examples:
  >>> kd.maybe(kd.slice([kd.obj(a=1), kd.obj(b=2), None]), 'a')
  DataSlice([1, None, None], schema: INT32, present: 1/3, bag_id: $...)
  >>> kd.maybe(kd.new(a=1), 'b')
  DataItem(None, schema: NONE, bag_id: $...)"#,
        |a| {
            let op = "kd.core.maybe";
            let x = a.slice("x")?;
            match AttrNames::read(op, a.slice("attr_name")?)? {
                AttrNames::One(name) => maybe(x, &name).map_err(|e| e.with_context(op)),
                AttrNames::PerItem(names) => per_item_names(op, x, &names, None, |x, name, _| maybe(x, name)),
            }
        },
    );
    r.add(
        "kd.core.has_attr",
        &["kd.has_attr"],
        "x, attr_name",
        r#"Returns present for each item of x that has attribute attr_name.

An item has the attribute when its value is present, so an attribute set
to None, a missing item, or an attribute absent from the schema all give
missing. The result is a MASK DataSlice of the shape of x. Primitives raise
ValueError.

Args:
  x: a DataSlice of entities or objects.
  attr_name: the name of the attribute (a str), or a STRING DataSlice
    naming one attribute per item (aligned with x).

Examples:
  >>> kd.has_attr(kd.slice([kd.obj(a=1), kd.obj(b=2), None]), 'a')
  DataSlice([present, missing, missing], schema: MASK, present: 1/3)
  >>> kd.has_attr(kd.new(a=kd.slice([1, None])), 'a')
  DataSlice([present, missing], schema: MASK, present: 1/2)
  >>> kd.has_attr(kd.new(a=1), 'b')
  DataItem(missing, schema: MASK)"#,
        |a| {
            let op = "kd.core.has_attr";
            let x = a.slice("x")?;
            match AttrNames::read(op, a.slice("attr_name")?)? {
                AttrNames::One(name) => has_attr(x, &name),
                // MASK even where no item names an attribute.
                AttrNames::PerItem(names) => crate::masking::has(&per_item_names(op, x, &names, None, |x, name, _| has_attr(x, name))?),
            }
        },
    );
    r.type_rule("kd.core.get_attr", crate::typing::rules::get_attr());
}
