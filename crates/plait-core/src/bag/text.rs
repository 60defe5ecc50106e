//! Text forms that need a bag: entities (`Entity(x=1)`), objects
//! (`Obj(x=1)`), lists (`List[1, 2]`) and struct schemas (`ENTITY(x=INT32)`, `IMPLICIT_ENTITY(..)`,
//! `Point(x=INT32)`).

use std::fmt::Write;

use super::{DataBag, Stored, SCHEMA_ATTR};
use crate::column::ScalarRef;
use crate::itemid::{ItemId, ItemKind};
use crate::repr::write_item;
use crate::schema::Schema;

/// The attribute of a list schema holding the item schema (`LIST[INT32]`).
pub const LIST_ITEMS_ATTR: &str = "__items__";

/// The attribute naming a named schema (`kd.named_schema('Point')`).
pub const SCHEMA_NAME_ATTR: &str = "__schema_name__";

/// Nesting deeper than this prints ids instead of contents (also stops cycles).
const MAX_DEPTH: usize = 5;

/// A schema as Koda prints it, looking struct schemas up in `bag`.
pub fn schema_text(schema: Schema, bag: Option<&DataBag>) -> String {
    let mut out = String::new();
    write_schema(&mut out, schema, bag, 0);
    out
}

fn write_schema(out: &mut String, schema: Schema, bag: Option<&DataBag>, depth: usize) {
    let (Schema::Struct(id), Some(bag)) = (schema, bag) else {
        write!(out, "{schema}").unwrap();
        return;
    };
    if depth >= MAX_DEPTH {
        out.push_str(&id.short());
        return;
    }
    if let Some(Stored::Schema(items)) = bag.get_one(LIST_ITEMS_ATTR, id) {
        out.push_str("LIST[");
        write_schema(out, items, Some(bag), depth + 1);
        out.push(']');
        return;
    }
    match bag.get_one(SCHEMA_NAME_ATTR, id) {
        Some(Stored::String(name)) => out.push_str(&name),
        _ if id.kind() == ItemKind::ImplicitSchema => out.push_str("IMPLICIT_ENTITY"),
        _ => out.push_str("ENTITY"),
    }
    out.push('(');
    for (k, name) in bag.attr_names(id).iter().filter(|n| n.as_str() != SCHEMA_NAME_ATTR).enumerate() {
        if k > 0 {
            out.push_str(", ");
        }
        write!(out, "{name}=").unwrap();
        match bag.get_one(name, id) {
            Some(Stored::Schema(s)) => write_schema(out, s, Some(bag), depth + 1),
            _ => out.push_str("None"),
        }
    }
    out.push(')');
}

/// Writes one item of a slice with `schema` whose bag is `bag`: entities and
/// objects with their attributes, everything else as [`write_item`] does.
pub fn write_item_with_bag(out: &mut String, item: Option<ScalarRef<'_>>, schema: Schema, bag: Option<&DataBag>, quote: bool) {
    write_value(out, item, schema, bag, quote, 0)
}

fn write_value(out: &mut String, item: Option<ScalarRef<'_>>, schema: Schema, bag: Option<&DataBag>, quote: bool, depth: usize) {
    match (item, bag) {
        (Some(ScalarRef::ItemId(id)), Some(bag)) if schema != Schema::ItemId => write_entity(out, id, schema, bag, depth),
        (Some(ScalarRef::Schema(s)), Some(_)) => write_schema(out, s, bag, depth),
        _ => write_item(out, item, schema, quote),
    }
}

/// Items of a list shown before `...`.
const MAX_LIST_ITEMS: usize = 20;

/// `List[1, 2, 3]`.
fn write_list(out: &mut String, id: ItemId, schema_id: ItemId, bag: &DataBag, depth: usize) {
    let item_schema = match bag.get_one(LIST_ITEMS_ATTR, schema_id) {
        Some(Stored::Schema(s)) => s,
        _ => Schema::Object,
    };
    let Ok((_, items)) = bag.explode(&[Some(id)]) else {
        out.push_str(&id.repr());
        return;
    };
    out.push_str("List[");
    for i in 0..items.len().min(MAX_LIST_ITEMS) {
        if i > 0 {
            out.push_str(", ");
        }
        write_value(out, items.get(i), item_schema, Some(bag), true, depth + 1);
    }
    if items.len() > MAX_LIST_ITEMS {
        out.push_str(", ...");
    }
    out.push(']');
}

/// `Entity(x=1)` / `Obj(x=1)`; `Entity():$id` when it has no attributes.
fn write_entity(out: &mut String, id: ItemId, schema: Schema, bag: &DataBag, depth: usize) {
    let is_object = schema == Schema::Object;
    let item_schema = if is_object {
        match bag.get_one(SCHEMA_ATTR, id) {
            Some(Stored::Schema(s)) => s,
            _ => {
                out.push_str(&id.repr());
                return;
            }
        }
    } else {
        schema
    };
    let Schema::Struct(schema_id) = item_schema else {
        out.push_str(&id.repr());
        return;
    };
    if depth >= MAX_DEPTH {
        out.push_str(&id.short());
        return;
    }
    if id.is_list() {
        return write_list(out, id, schema_id, bag, depth);
    }
    out.push_str(if is_object { "Obj(" } else { "Entity(" });
    let names: Vec<String> = bag.attr_names(schema_id).into_iter().filter(|n| n != SCHEMA_NAME_ATTR).collect();
    for (k, name) in names.iter().enumerate() {
        if k > 0 {
            out.push_str(", ");
        }
        write!(out, "{name}=").unwrap();
        let attr_schema = match bag.get_one(name, schema_id) {
            Some(Stored::Schema(s)) => s,
            _ => Schema::Object,
        };
        let value = bag.get_one(name, id);
        write_value(out, value.as_ref().map(Stored::as_ref), attr_schema, Some(bag), true, depth + 1);
    }
    out.push(')');
    if names.is_empty() {
        out.push(':');
        out.push_str(&id.short());
    }
}
