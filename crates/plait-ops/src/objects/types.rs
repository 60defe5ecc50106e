//! Type rules of the operators on entities, objects, lists and dicts:
//! what they create (an entity type from its attributes' types, a list
//! type from its items'), and what reading them gives.

use std::sync::Arc;

use plait_core::typing::{Dim, SchemaType, SliceType};
use plait_core::{Error, Result, Schema};

use crate::registry::Registry;
use crate::typing::rules::{self, Out, bag, broadcast, broadcast_with_var, item, like, shaped, with_new_dim};
use crate::typing::{TypeArgs, TypeRule, TypeValue};

pub(super) fn register(r: &mut Registry) {
    let by_fn: &[(&str, crate::typing::RuleFunction)] = &[
        ("kd.lists.explode", explode),
        ("kd.lists.implode", implode),
        ("kd.lists.get_item", list_get_item),
        ("kd.lists.select_items", select_items),
        ("kd.lists.concat", concat_lists),
        ("kd.lists.new", list_of_items),
        ("kd.lists.like", new_lists),
        ("kd.lists.shaped", new_lists),
        ("kd.lists.shaped_as", new_lists),
        ("kd.dicts.get_item", dict_get_item),
        ("kd.dicts.get_keys", get_keys),
        ("kd.dicts.get_values", get_values),
        ("kd.dicts._new", new_dicts),
        ("kd.dicts._shaped", new_dicts),
        ("kd.core.get_item", get_item),
        ("kd.core.get_attr_names", get_attr_names),
        ("kd.core.has_attr", has_attr),
        ("kd.core.maybe", maybe),
        ("kd.entities.new", new_entities),
        ("kd.entities.like", new_entities),
        ("kd.entities.shaped", new_entities),
        ("kd.entities.shaped_as", new_entities),
        ("kd.entities.strict_new", new_entities),
        ("kd.entities.uu", new_entities),
        ("kd.objs.new", new_entities),
        ("kd.objs.like", new_entities),
        ("kd.objs.shaped", new_entities),
        ("kd.objs.shaped_as", new_entities),
        ("kd.objs.uu", new_entities),
        ("kd.core.clone", clone),
        ("kd.core.shallow_clone", clone),
        ("kd.core.deep_clone", clone),
        ("kd.core.clone_as_full", clone),
        ("kd.core.with_attr", with_attrs),
        ("kd.core.with_attrs", with_attrs),
        ("kd.core.strict_with_attrs", with_attrs),
        ("kd.core.stub", stub),
        ("kd.core.extract", extract),
        ("kd.schema.with_schema", with_schema),
        ("kd.ids.uuids_with_allocation_size", uuids_with_allocation_size),
        ("kd.ids.uuid", uuid),
        ("kd.ids.uuid_for_list", uuid),
        ("kd.ids.uuid_for_dict", uuid),
        ("kd.schema.uu_schema", uuid),
        ("kd.schema.new_schema", uuid),
        ("kd.schema.named_schema", uuid),
    ];
    for &(name, rule) in by_fn {
        r.type_rule(name, TypeRule::new(rule));
    }
    // The arguments themselves, another schema.
    for name in ["kd.lists.appended_list", "kd.lists.with_list_append_update", "kd.dicts.with_dict_update"] {
        r.type_rule(name, like("x", Out::SameAs("x")));
    }
    r.type_rule("kd.core.ref", like("ds", Out::SameAs("ds")));
    r.type_rule("kd.core.with_metadata", like("x", Out::SameAs("x")));
    for (name, arg) in [("kd.core.follow", "x"), ("kd.core.nofollow", "x"), ("kd.core.reify", "ds"), ("kd.core.flatten_cyclic_references", "x")] {
        r.type_rule(name, like(arg, Out::Unknown));
    }
    r.type_rule("kd.core.get_metadata", like("x", Out::Fixed(Schema::Object)));
    // Updates are bags.
    for name in [
        "kd.lists.list_append_update",
        "kd.dicts.dict_update",
        "kd.core.attr",
        "kd.core.attrs",
        "kd.core.strict_attrs",
        "kd.core.metadata",
        "kd.core.extract_update",
    ] {
        r.type_rule(name, bag());
    }
    // Whether items are of a kind: per item, or of the whole slice.
    for (name, arg) in [
        ("kd.lists.has_list", "x"),
        ("kd.dicts.has_dict", "x"),
        ("kd.core.has_entity", "x"),
        ("kd.core.has_primitive", "x"),
        ("kd.ids.has_uuid", "x"),
    ] {
        r.type_rule(name, like(arg, Out::Fixed(Schema::Mask)));
    }
    for name in [
        "kd.lists.is_list",
        "kd.dicts.is_dict",
        "kd.core.is_entity",
        "kd.core.is_primitive",
        "kd.ids.is_uuid",
        "kd.schema.is_dict_schema",
        "kd.schema.is_entity_schema",
        "kd.schema.is_list_schema",
        "kd.schema.is_struct_schema",
    ] {
        r.type_rule(name, item(&[], Schema::Mask));
    }
    // Sizes, ids, schemas and text of each item.
    r.type_rule("kd.lists.size", like("list_slice", Out::Fixed(Schema::Int64)));
    r.type_rule("kd.dicts.size", like("dict_slice", Out::Fixed(Schema::Int64)));
    r.type_rule("kd.ids.hash_itemid", like("x", Out::Fixed(Schema::Int64)));
    r.type_rule("kd.ids.encode_itemid", like("ds", Out::Fixed(Schema::String)));
    r.type_rule("kd.ids.decode_itemid", like("ds", Out::Fixed(Schema::ItemId)));
    r.type_rule("kd.ids.deep_uuid", like("x", Out::Fixed(Schema::ItemId)));
    r.type_rule("kd.core.get_itemid", like("x", Out::Fixed(Schema::ItemId)));
    r.type_rule("kd.ids.agg_uuid", rules::aggregate_any(Out::Fixed(Schema::ItemId)));
    r.type_rule("kd.schema.get_repr", like("schema", Out::Fixed(Schema::String)));
    for (name, arg) in [
        ("kd.schema.get_item_schema", "list_schema"),
        ("kd.schema.list_schema", "item_schema"),
        ("kd.schema.get_key_schema", "dict_schema"),
        ("kd.schema.get_value_schema", "dict_schema"),
        ("kd.schema.get_obj_schema", "x"),
        ("kd.schema.get_nofollowed_schema", "schema"),
        ("kd.schema.nofollow_schema", "schema"),
        ("kd.schema.internal_maybe_named_schema", "name_or_schema"),
    ] {
        r.type_rule(name, like(arg, Out::Fixed(Schema::Schema)));
    }
    r.type_rule("kd.schema.dict_schema", rules::elementwise_any(&["key_schema", "value_schema"], Out::Fixed(Schema::Schema)));
    // New ids.
    for kind in ["itemid", "listid", "dictid"] {
        let name = |suffix: &str| format!("kd.allocation.new_{kind}{suffix}");
        r.type_rule(&name(""), item(&[], Schema::ItemId));
        r.type_rule(&name("_like"), like("shape_and_mask_from", Out::Fixed(Schema::ItemId)));
        r.type_rule(&name("_shaped"), shaped("shape", Schema::ItemId));
        r.type_rule(&name("_shaped_as"), like("shape_from", Out::Fixed(Schema::ItemId)));
    }
}

/// Whether argument `name` was given a value (its default is a missing
/// item or unspecified).
fn given(a: &TypeArgs<'_>, name: &str) -> bool {
    match a.get(name) {
        None => false,
        Some(_) => a.known(name).is_none_or(|x| !(x.is_item() && x.get(0).is_none() && x.schema() == Schema::None)),
    }
}

/// The error for an argument of items that are not the containers `kind`.
fn not_containers(op: &str, arg: &str, kind: &str, t: &SliceType) -> Error {
    Error::value(op, format!("argument `{arg}`: expected a slice of {kind}, inferred {t}"))
}

/// The schema of the items of lists of schema `t` (unknown for OBJECT,
/// unknown and NONE schemas; other schemas are not lists).
fn list_items(op: &str, arg: &str, t: &SliceType, schema: &SchemaType) -> Result<SchemaType> {
    match schema {
        SchemaType::List(items) => Ok(SchemaType::clone(items)),
        SchemaType::Unknown | SchemaType::Named(Schema::Object | Schema::None) => Ok(SchemaType::Unknown),
        _ => Err(not_containers(op, arg, "lists", t)),
    }
}

/// [`list_items`] for a lookup, which gives missing items (not an error)
/// where a missing index meets items that are not lists.
fn looked_up_items(schema: &SchemaType) -> SchemaType {
    match schema {
        SchemaType::List(items) => SchemaType::clone(items),
        _ => SchemaType::Unknown,
    }
}

/// The key and value schemas of dicts of schema `t`.
fn dict_parts(op: &str, arg: &str, t: &SliceType) -> Result<(SchemaType, SchemaType)> {
    match &t.schema {
        SchemaType::Dict(k, v) => Ok((SchemaType::clone(k), SchemaType::clone(v))),
        SchemaType::Unknown | SchemaType::Named(Schema::Object | Schema::None) => Ok((SchemaType::Unknown, SchemaType::Unknown)),
        _ => Err(not_containers(op, arg, "dicts", t)),
    }
}

/// `kd.explode(x, ndim=1)`: the items of the lists, `ndim` times (`-1`:
/// as long as the schema says the items are lists).
pub fn explode(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let op = a.op_name();
    let x = a.slice("x")?;
    let Some(ndim) = a.known_int("ndim")? else { return Ok(TypeValue::slice(SliceType::unknown())) };
    let levels = match ndim {
        // As many times as the schema has lists in lists.
        -1 => {
            let (mut levels, mut schema) = (0usize, &x.schema);
            loop {
                match schema {
                    SchemaType::List(items) => {
                        levels += 1;
                        schema = items;
                    }
                    // Items of these schemas may be lists again.
                    SchemaType::Unknown | SchemaType::Named(Schema::Object | Schema::None) => return Ok(TypeValue::slice(SliceType::unknown())),
                    _ => break levels,
                }
            }
        }
        k if k < 0 => return Err(Error::value(op, format!("argument `ndim`: expected -1 or a non-negative integer, got {k}"))),
        k => k as usize,
    };
    let mut schema = x.schema.clone();
    for _ in 0..levels {
        schema = list_items(op, "x", x, &schema)?;
    }
    let dims = match &x.dims {
        Some(d) => Some((0..levels).try_fold(d.clone(), |dims, _| with_new_dim(a, dims, None))?),
        None => None,
    };
    Ok(TypeValue::slice(SliceType { schema, dims }))
}

/// `kd.implode(x, ndim=1)`: the last `ndim` dimensions (`-1`: all) made
/// lists.
pub fn implode(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let op = a.op_name();
    let x = a.slice("x")?;
    let (Some(ndim), Some(rank)) = (a.known_int("ndim")?, x.rank()) else { return Ok(TypeValue::slice(SliceType::unknown())) };
    let levels = match ndim {
        -1 => rank,
        k if k >= 0 && k as usize <= rank => k as usize,
        k => return Err(Error::value(op, format!("argument `ndim`: cannot implode {k} dimensions of {x}"))),
    };
    let schema = (0..levels).fold(x.schema.clone(), |s, _| SchemaType::List(Box::new(s)));
    let dims = x.dims.as_ref().map(|d| d[..rank - levels].to_vec());
    Ok(TypeValue::slice(SliceType { schema, dims }))
}

/// `kd.lists.get_item(x, key_or_index)`: the items at the indices.
pub fn list_get_item(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let op = a.op_name();
    let (x, index) = (a.slice("x")?, a.slice("key_or_index")?);
    let schema = looked_up_items(&x.schema);
    Ok(TypeValue::slice(SliceType { schema, dims: broadcast(op, &[("x", x), ("key_or_index", index)])? }))
}

/// `kd.lists.select_items(ds, fltr)`: the items kept of each list, one
/// more dimension.
pub fn select_items(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let op = a.op_name();
    let ds = a.slice("ds")?;
    let schema = list_items(op, "ds", ds, &ds.schema)?;
    let dims = ds.dims.clone().map(|d| with_new_dim(a, d, None)).transpose()?;
    Ok(TypeValue::slice(SliceType { schema, dims }))
}

/// `kd.concat_lists(*lists)`: lists of the items of the lists, broadcast.
pub fn concat_lists(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let op = a.op_name();
    let mut schema = None;
    for t in a.var_arg_slices()? {
        list_items(op, "lists", t, &t.schema)?;
        // Lists of items of different schemas make lists of their common
        // one (LIST[INT32] and LIST[STRING]: LIST[OBJECT]).
        schema = Some(match schema {
            None => t.schema.clone(),
            Some(s) if s == t.schema => s,
            Some(_) => SchemaType::Unknown,
        });
    }
    // Of no lists, an empty list.
    let Some(schema) = schema else { return Ok(TypeValue::slice(SliceType::new(SchemaType::List(Box::new(SchemaType::Unknown)), Vec::new()))) };
    Ok(TypeValue::slice(SliceType { schema, dims: broadcast_with_var(a, &[])? }))
}

/// The dims of the containers a creating operator makes: those of its
/// shape argument (`shape`, `shape_from`, `shape_and_mask_from`), or
/// `default` (`kd.new(**attrs)`: the attributes').
fn created_dims(a: &TypeArgs<'_>, default: Option<Vec<Dim>>) -> Result<Option<Vec<Dim>>> {
    if a.get("shape").is_some() {
        return a.shape("shape");
    }
    for name in ["shape_from", "shape_and_mask_from"] {
        if a.get(name).is_some() {
            return Ok(a.slice(name)?.dims.clone());
        }
    }
    Ok(default)
}

/// `kd.list_like` / `list_shaped` / `list_shaped_as(src, items,
/// item_schema, schema, itemid)`: lists on the shape, of the items'
/// schema (`item_schema`, `schema` when given; OBJECT without items).
pub fn new_lists(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let items = a.slice("items")?;
    let schema = if given(a, "schema") {
        a.known_schema("schema")
    } else if given(a, "item_schema") {
        SchemaType::List(Box::new(a.known_schema("item_schema")))
    } else if a.get("items").is_some() {
        SchemaType::List(Box::new(items.schema.clone()))
    } else {
        SchemaType::List(Box::new(SchemaType::Named(Schema::Object)))
    };
    Ok(TypeValue::slice(SliceType { schema, dims: created_dims(a, None)? }))
}

/// `kd.lists.new(items, item_schema, schema, itemid)`: one list, each
/// dimension of `items` made lists, of `item_schema` (or `schema`'s item
/// schema, or the items'); without items, an empty list (of OBJECT unless a
/// schema is given).
pub fn list_of_items(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let op = a.op_name();
    let given_item_schema = if given(a, "item_schema") {
        Some(a.known_schema("item_schema"))
    } else if given(a, "schema") {
        Some(match a.known_schema("schema") {
            SchemaType::List(item) => *item,
            _ => SchemaType::Unknown,
        })
    } else {
        None
    };
    if a.get("items").is_none() {
        let item = given_item_schema.unwrap_or(SchemaType::Named(Schema::Object));
        return Ok(TypeValue::slice(SliceType::new(SchemaType::List(Box::new(item)), Vec::new())));
    }
    let items = a.slice("items")?;
    let schema = match items.rank() {
        Some(0) => return Err(Error::value(op, "creating a list from values requires at least one dimension")),
        Some(rank) => (0..rank).fold(given_item_schema.unwrap_or_else(|| items.schema.clone()), |s, _| SchemaType::List(Box::new(s))),
        None => SchemaType::Unknown,
    };
    Ok(TypeValue::slice(SliceType::new(schema, Vec::new())))
}

/// `kd.dicts.get_item(x, key)`: the values at the keys.
pub fn dict_get_item(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let op = a.op_name();
    let (x, key) = (a.slice("x")?, a.slice("key_or_index")?);
    let (_, values) = dict_parts(op, "x", x)?;
    Ok(TypeValue::slice(SliceType { schema: values, dims: broadcast(op, &[("x", x), ("key_or_index", key)])? }))
}

/// `kd.dicts.get_keys(dict_ds)`: the keys of each dict, one more dimension.
pub fn get_keys(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let d = a.slice("dict_ds")?;
    let (keys, _) = dict_parts(a.op_name(), "dict_ds", d)?;
    Ok(TypeValue::slice(SliceType { schema: keys, dims: d.dims.clone().map(|dims| with_new_dim(a, dims, None)).transpose()? }))
}

/// `kd.dicts.get_values(dict_ds, key_ds)`: all values of each dict (one
/// more dimension), or those at `key_ds`.
pub fn get_values(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let op = a.op_name();
    let d = a.slice("dict_ds")?;
    let (_, values) = dict_parts(op, "dict_ds", d)?;
    let dims = if a.get("key_ds").is_some() {
        broadcast(op, &[("dict_ds", d), ("key_ds", a.slice("key_ds")?)])?
    } else {
        d.dims.clone().map(|dims| with_new_dim(a, dims, None)).transpose()?
    };
    Ok(TypeValue::slice(SliceType { schema: values, dims }))
}

/// The key or value schema of dicts being made: `*_schema` when given,
/// else the keys' / values' when given, else OBJECT.
fn dict_part_schema(a: &TypeArgs<'_>, data: &str, schema: &str) -> Result<SchemaType> {
    if given(a, schema) {
        return Ok(a.known_schema(schema));
    }
    if a.get(data).is_some() {
        let t = a.slice(data)?;
        return Ok(if t.schema == SchemaType::Named(Schema::None) { SchemaType::Unknown } else { t.schema.clone() });
    }
    Ok(SchemaType::Named(Schema::Object))
}

/// `kd.dict(keys, values, ...)` / `kd.dict_shaped(shape, ...)`: dicts on
/// the shape (or one per last-dimension row of the keys).
pub fn new_dicts(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let schema = if given(a, "schema") {
        a.known_schema("schema")
    } else {
        let keys = dict_part_schema(a, "keys", "key_schema")?;
        if let SchemaType::Named(s @ (Schema::Float32 | Schema::Float64)) = keys {
            return Err(Error::value(a.op_name(), format!("dict keys cannot be {s}")));
        }
        SchemaType::Dict(Box::new(keys), Box::new(dict_part_schema(a, "values", "value_schema")?))
    };
    // (A shaped dict's keys and values are expanded to its shape.)
    if a.op_name() == "kd.dicts._new"
        && let (Some(_), Some(_)) = (a.get("keys"), a.get("values"))
        && let (Some(k), Some(v)) = (a.slice("keys")?.rank(), a.slice("values")?.rank())
        && v > k
    {
        return Err(Error::value(
            a.op_name(),
            format!("the values must have the same or fewer dimensions than the keys: inferred {} and {}", a.slice("values")?, a.slice("keys")?),
        ));
    }
    let rows = if given(a, "itemid") {
        None
    } else if a.get("keys").is_some() {
        a.slice("keys")?.dims.as_ref().and_then(|d| d.split_last().map(|(_, rows)| rows.to_vec()))
    } else {
        Some(Vec::new())
    };
    Ok(TypeValue::slice(SliceType { schema, dims: created_dims(a, rows)? }))
}

/// `kd.get_item(x, key_or_index)`: a list's item or a dict's value.
pub fn get_item(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let x = a.slice("x")?;
    match &x.schema {
        SchemaType::List(_) => list_get_item(a),
        SchemaType::Dict(..) => dict_get_item(a),
        _ => {
            let dims = broadcast(a.op_name(), &[("x", x), ("key_or_index", a.slice("key_or_index")?)])?;
            Ok(TypeValue::slice(SliceType { schema: SchemaType::Unknown, dims }))
        }
    }
}

/// `kd.get_attr_names(x, intersection)`: a flat slice of names.
pub fn get_attr_names(a: &TypeArgs<'_>) -> Result<TypeValue> {
    Ok(TypeValue::slice(SliceType::new(SchemaType::Named(Schema::String), vec![Dim::Uniform(a.new_size()?)])))
}

/// `kd.has_attr(x, attr_name)`: per item, whether it has the attribute.
pub fn has_attr(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let dims = broadcast(a.op_name(), &[("x", a.slice("x")?), ("attr_name", a.slice("attr_name")?)])?;
    Ok(TypeValue::slice(SliceType { schema: SchemaType::Named(Schema::Mask), dims }))
}

/// `kd.maybe(x, attr_name)`: the attribute where there is one, missing
/// elsewhere.
pub fn maybe(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let x = a.slice("x")?;
    let dims = broadcast(a.op_name(), &[("x", x), ("attr_name", a.slice("attr_name")?)])?;
    let schema = a.known_item_text("attr_name").and_then(|name| x.schema.attr(&name)).unwrap_or(SchemaType::Unknown);
    Ok(TypeValue::slice(SliceType { schema, dims }))
}

/// The `**attrs` as (name, type of their items).
fn kwarg_schemas(a: &TypeArgs<'_>) -> Vec<(Arc<str>, SchemaType)> {
    a.var_kwargs()
        .iter()
        .map(|(name, v)| {
            let schema = match v.untagged() {
                TypeValue::Slice(t, _) => t.schema.clone(),
                TypeValue::SizeItem(_) => SchemaType::Named(Schema::Int64),
                _ => SchemaType::Unknown,
            };
            (Arc::from(name.as_str()), schema)
        })
        .collect()
}

/// `kd.new(**attrs)` and the other entity and object constructors: an
/// entity type of the attributes (the given schema's, with `schema=`),
/// OBJECT for objects; the dims of the shape argument, else the
/// attributes' broadcast.
pub fn new_entities(a: &TypeArgs<'_>) -> Result<TypeValue> {
    if a.get("arg").is_some() {
        // A Python value converted: its type is the converter's.
        return Ok(TypeValue::slice(SliceType::unknown()));
    }
    let op = a.op_name();
    let schema = if op.starts_with("kd.objs.") {
        SchemaType::Named(Schema::Object)
    } else if given(a, "schema") {
        with_attr_schemas(op, &a.known_schema("schema"), kwarg_schemas(a), if overwrite(a) { AttrUpdate::Overwrite } else { AttrUpdate::Keep })?
    } else {
        SchemaType::entity(kwarg_schemas(a))
    };
    let attrs = broadcast_with_var(a, if given(a, "itemid") { &["itemid"] } else { &[] })?;
    let dims = created_dims(a, attrs.clone())?;
    if let (Some(d), Some(_)) = (&dims, &attrs) {
        // The attributes are expanded to the shape.
        let target = SliceType { schema: SchemaType::Unknown, dims: Some(d.clone()) };
        let attrs = SliceType { schema: SchemaType::Unknown, dims: attrs };
        rules::expandable(op, ("attrs", &attrs), ("shape", &target))?;
    }
    Ok(TypeValue::slice(SliceType { schema, dims }))
}

/// How a value's schema meets the schema an entity has for the attribute.
#[derive(Clone, Copy, PartialEq)]
enum AttrUpdate {
    /// The entity's schema stays, and a value it does not admit (a
    /// primitive of another kind or a wider number) is an error.
    Keep,
    /// The value's schema replaces it (`overwrite_schema=True`).
    Overwrite,
    /// The entity's schema stays where it admits the value, else the
    /// value's replaces it (the overrides of `kd.clone`).
    Cast,
}

/// `schema` with attributes `attrs` set (see [`AttrUpdate`]); schemas that
/// are not entity types stay.
fn with_attr_schemas(op: &str, schema: &SchemaType, attrs: Vec<(Arc<str>, SchemaType)>, mode: AttrUpdate) -> Result<SchemaType> {
    let SchemaType::Entity(existing) = schema else { return Ok(schema.clone()) };
    let mut out = existing.clone();
    for (name, value) in attrs {
        let Some(i) = out.iter().position(|(n, _)| *n == name) else {
            out.push((name, value));
            continue;
        };
        let admits = match (&out[i].1, &value) {
            (_, SchemaType::Named(Schema::None)) => Some(true),
            (SchemaType::Named(have), SchemaType::Named(given)) => Some(Schema::common(*have, *given) == Some(*have)),
            (have, given) if have == given => Some(true),
            _ => None,
        };
        match (mode, admits) {
            (AttrUpdate::Overwrite, _) => out[i].1 = value,
            (_, Some(true)) => {}
            (AttrUpdate::Keep, Some(false))
                if matches!(&out[i].1, SchemaType::Named(s) if s.is_primitive()) && matches!(&value, SchemaType::Named(s) if s.is_primitive()) =>
            {
                return Err(Error::value(
                    op,
                    format!(
                        "the schema for attribute '{name}' is incompatible: the entity's is {}, the value's {value} (pass overwrite_schema=True to replace it)",
                        out[i].1
                    ),
                ));
            }
            (AttrUpdate::Cast, Some(false)) => out[i].1 = value,
            _ => out[i].1 = SchemaType::Unknown,
        }
    }
    Ok(SchemaType::entity(out))
}

/// Whether any of `attrs` may bring schemas in a bag of its own (a value
/// whose schema is not a primitive's): merged with the entity's bag, it may
/// give the entity's attributes other schemas (when it describes the
/// entity's schema too, as a value that refers back to the entity does).
fn may_bring_schemas(attrs: &[(Arc<str>, SchemaType)]) -> bool {
    attrs.iter().any(|(_, s)| !matches!(s, SchemaType::Named(s) if s.is_primitive() || *s == Schema::None))
}

/// An entity type without the attributes a merged bag may have changed:
/// none is certain.
fn unsure_attrs(schema: SchemaType) -> SchemaType {
    match schema {
        SchemaType::Entity(_) => SchemaType::Entity(Vec::new()),
        other => other,
    }
}

/// Whether `overwrite_schema` is known to be true.
fn overwrite(a: &TypeArgs<'_>) -> bool {
    a.known("overwrite_schema").and_then(|x| x.get(0)) == Some(plait_core::ScalarRef::Boolean(true))
}

/// `kd.with_attrs(x, **attrs)`, `kd.with_attr(x, attr_name, value)`,
/// `kd.strict_with_attrs`: `x` with the attributes set.
pub fn with_attrs(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let op = a.op_name();
    let x = a.slice("x")?;
    let attrs = if a.get("attr_name").is_some() {
        let value = a.slice("value")?;
        broadcast(op, &[("x", x), ("value", value)])?;
        match a.known_item_text("attr_name") {
            Some(name) => vec![(Arc::from(name.as_str()), value.schema.clone())],
            None => return Ok(TypeValue::slice(x.with_schema(SchemaType::Unknown))),
        }
    } else {
        broadcast_with_var(a, &["x"])?;
        kwarg_schemas(a)
    };
    let mode = if overwrite(a) { AttrUpdate::Overwrite } else { AttrUpdate::Keep };
    let schema = with_attr_schemas(op, &x.schema, attrs.clone(), mode)?;
    let schema = if may_bring_schemas(&attrs) { unsure_attrs(schema) } else { schema };
    Ok(TypeValue::slice(x.with_schema(schema)))
}

/// `kd.clone(x, itemid, schema, **overrides)` and its kin: `x` with new
/// ids, the overrides set (or the given schema).
pub fn clone(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let op = a.op_name();
    let x = a.slice("x")?;
    broadcast_with_var(a, &["x"])?;
    let overrides = kwarg_schemas(a);
    let schema = if given(a, "schema") { a.known_schema("schema") } else { with_attr_schemas(op, &x.schema, overrides.clone(), AttrUpdate::Cast)? };
    let schema = if may_bring_schemas(&overrides) { unsure_attrs(schema) } else { schema };
    // A shallow clone's attributes are the same items, whose own
    // attributes it does not copy.
    let schema = if op == "kd.core.shallow_clone" { shallow(&schema) } else { schema };
    Ok(TypeValue::slice(x.with_schema(schema)))
}

/// `schema` with the structure of its attributes' schemas dropped.
fn shallow(schema: &SchemaType) -> SchemaType {
    let stub = |s: &SchemaType| match s {
        SchemaType::Entity(_) => SchemaType::Entity(Vec::new()),
        SchemaType::List(_) | SchemaType::Dict(..) => SchemaType::Unknown,
        other => other.clone(),
    };
    match schema {
        SchemaType::Entity(attrs) => SchemaType::Entity(attrs.iter().map(|(n, s)| (n.clone(), stub(s))).collect()),
        SchemaType::List(items) => SchemaType::List(Box::new(stub(items))),
        SchemaType::Dict(k, v) => SchemaType::Dict(Box::new(stub(k)), Box::new(stub(v))),
        other => other.clone(),
    }
}

/// `kd.stub(x, attrs)`: the same ids and schema, without attributes.
pub fn stub(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let x = a.slice("x")?;
    let schema = match &x.schema {
        SchemaType::Entity(_) => SchemaType::Entity(Vec::new()),
        SchemaType::List(_) | SchemaType::Dict(..) => SchemaType::Unknown,
        other => other.clone(),
    };
    Ok(TypeValue::slice(x.with_schema(schema)))
}

/// `kd.extract(ds, schema)`: `ds` with only the data it reaches.
pub fn extract(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let ds = a.slice("ds")?;
    let schema = if given(a, "schema") { a.known_schema("schema") } else { ds.schema.clone() };
    Ok(TypeValue::slice(ds.with_schema(schema)))
}

/// `kd.with_schema(x, schema)`: the items of `x`, of the given schema.
pub fn with_schema(a: &TypeArgs<'_>) -> Result<TypeValue> {
    Ok(TypeValue::slice(a.slice("x")?.with_schema(a.known_schema("schema"))))
}

/// `kd.uuids_with_allocation_size(seed, size)`: `size` new ids.
pub fn uuids_with_allocation_size(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let dim = a.size_value("size").map_or(Dim::Unknown, Dim::Uniform);
    Ok(TypeValue::slice(SliceType::new(SchemaType::Named(Schema::ItemId), vec![dim])))
}

/// `kd.uuid(seed, **kwargs)` and the schemas made of named parts
/// (`kd.new_schema(**kwargs)`, `kd.named_schema(name, **kwargs)`,
/// `kd.uu_schema(seed, **kwargs)`): one id or schema per item of the
/// arguments broadcast.
pub fn uuid(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let named: &[&str] = match a.op_name() {
        "kd.schema.new_schema" => &[],
        "kd.schema.named_schema" => &["name"],
        _ => &["seed"],
    };
    let schema = if a.op_name().starts_with("kd.schema.") { Schema::Schema } else { Schema::ItemId };
    Ok(TypeValue::slice(SliceType { schema: SchemaType::Named(schema), dims: broadcast_with_var(a, named)? }))
}
