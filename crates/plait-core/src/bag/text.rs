//! Text forms that need a bag: entities (`Entity(x=1)`), objects
//! (`Obj(x=1)`), lists (`List[1, 2]`), dicts (`Dict{'a'=1}`) and struct schemas (`ENTITY(x=INT32)`, `IMPLICIT_ENTITY(..)`,
//! `Point(x=INT32)`).

use super::{DataBag, SCHEMA_ATTR, Stored};
use crate::column::ScalarRef;
use crate::itemid::{ItemId, ItemKind};
use crate::repr::{Node, write_item};
use crate::schema::Schema;
use crate::signature::{ParamKind, parameter_list};

/// The attribute of a list schema holding the item schema (`LIST[INT32]`).
pub const LIST_ITEMS_ATTR: &str = "__items__";

/// The attributes of a dict schema holding the key and the value schemas
/// (`DICT{STRING, INT32}`).
pub const DICT_KEYS_ATTR: &str = "__keys__";
pub const DICT_VALUES_ATTR: &str = "__values__";

/// The attribute naming a named schema (`kd.named_schema('Point')`).
pub const SCHEMA_NAME_ATTR: &str = "__schema_name__";
/// The attribute of a schema holding its metadata object (proto schemas
/// record their message's full name and field defaults there).
pub const SCHEMA_METADATA_ATTR: &str = "__schema_metadata__";

/// Nesting deeper than this prints ids instead of contents (also stops cycles).
const MAX_DEPTH: usize = 5;

/// Koda's text where `schemas` have no common schema: two different struct
/// schemas (the first and the last, as Koda names them), or else the common
/// schema of the others and the struct schema.
pub fn no_common_schema_among(schemas: &[Schema], bag: Option<&DataBag>) -> String {
    let mut structs: Vec<Schema> = Vec::new();
    for s in schemas.iter().filter(|s| s.is_struct()) {
        if !structs.contains(s) {
            structs.push(*s);
        }
    }
    if let [first, .., last] = structs[..] {
        return no_common_schema(first, last, bag);
    }
    let others = schemas.iter().filter(|s| !s.is_struct()).try_fold(Schema::None, |acc, s| Schema::common(acc, *s));
    no_common_schema(others.unwrap_or(Schema::Object), structs.first().copied().unwrap_or(Schema::Object), bag)
}

/// Koda's text where no common schema exists: `common` is the common schema
/// of the other items and `conflicting` the first one that has none with it.
pub fn no_common_schema(common: Schema, conflicting: Schema, bag: Option<&DataBag>) -> String {
    format!(
        "cannot find a common schema\n\n the common schema(s) {common}: {}\n the first conflicting schema {conflicting}: {}",
        schema_text(common, bag),
        schema_text(conflicting, bag)
    )
}

/// A schema as Koda prints it, looking struct schemas up in `bag` (a
/// struct schema whose attributes do not fit on one line gets one per line).
pub fn schema_text(schema: Schema, bag: Option<&DataBag>) -> String {
    schema_node(schema, bag, 0).rendered()
}

/// A schema as a printable node: `ENTITY(a=INT32, ...)` (or its name, or
/// `IMPLICIT_ENTITY`) is a group of its attributes; `LIST[...]` and
/// `DICT{..., ...}` wrap the nodes of their item schemas.
fn schema_node(schema: Schema, bag: Option<&DataBag>, depth: usize) -> Node {
    let (Schema::Struct(id), Some(bag)) = (schema, bag) else {
        return Node::Leaf(schema.to_string());
    };
    if depth >= MAX_DEPTH {
        return Node::Leaf(id.short());
    }
    // A nofollow schema names what it wraps, without following it.
    match schema.nofollowed() {
        Some(Schema::Struct(inner)) => return Node::Leaf(format!("NOFOLLOW({})", inner.short())),
        Some(inner) => return Node::Leaf(format!("NOFOLLOW({inner})")),
        None => {}
    }
    if let Some(items) = bag.get_one(LIST_ITEMS_ATTR, id).and_then(|v| v.schema()) {
        return schema_node(items, Some(bag), depth + 1).wrapped("LIST[", "]");
    }
    if let Some(keys) = bag.get_one(DICT_KEYS_ATTR, id).and_then(|v| v.schema()) {
        let keys = schema_node(keys, Some(bag), depth + 1);
        let prefix = format!("DICT{{{}, ", keys.one_line());
        return schema_node(held_schema(bag, id, DICT_VALUES_ATTR), Some(bag), depth + 1).wrapped(&prefix, "}");
    }
    let open = match bag.get_one(SCHEMA_NAME_ATTR, id) {
        Some(Stored::String(name)) => format!("{name}("),
        _ if id.kind() == ItemKind::ImplicitSchema => "IMPLICIT_ENTITY(".to_string(),
        _ => "ENTITY(".to_string(),
    };
    let mut children: Vec<Node> = bag
        .attr_names(id)
        .iter()
        .filter(|n| n.as_str() != SCHEMA_NAME_ATTR && n.as_str() != SCHEMA_METADATA_ATTR)
        .map(|name| match bag.get_one(name, id).and_then(|v| v.schema()) {
            Some(s) => schema_node(s, Some(bag), depth + 1).wrapped(&format!("{name}="), ""),
            None => Node::Leaf(format!("{name}=None")),
        })
        .collect();
    // The metadata object comes last, shown as the object it is.
    if let Some(meta @ Stored::ItemId(_)) = bag.get_one(SCHEMA_METADATA_ATTR, id) {
        let node = value_node(Some(meta.as_ref()), Schema::Object, Some(bag), true, depth + 1);
        children.push(node.wrapped(&format!("{SCHEMA_METADATA_ATTR}="), ""));
    }
    Node::group(open, ")", children)
}

/// One item of a slice with `schema` whose bag is `bag`, as a printable
/// node: entities, objects, lists and dicts with their contents, everything
/// else as [`write_item`] writes it.
pub fn item_node(item: Option<ScalarRef<'_>>, schema: Schema, bag: Option<&DataBag>, quote: bool) -> Node {
    value_node(item, schema, bag, quote, 0)
}

fn value_node(item: Option<ScalarRef<'_>>, schema: Schema, bag: Option<&DataBag>, quote: bool, depth: usize) -> Node {
    match (item, bag) {
        (Some(ScalarRef::ItemId(id)), Some(bag)) if schema != Schema::ItemId => entity_node(id, schema, bag, depth),
        (Some(ScalarRef::Schema(s)), Some(_)) => schema_node(s, bag, depth),
        _ => {
            let mut out = String::new();
            write_item(&mut out, item, schema, quote);
            Node::Leaf(out)
        }
    }
}

/// Items of a list, or entries of a dict, shown before `...`.
const MAX_SHOWN: usize = 20;

/// The schema held in attribute `attr` of schema `schema_id` (OBJECT when unset).
fn held_schema(bag: &DataBag, schema_id: ItemId, attr: &str) -> Schema {
    bag.get_one(attr, schema_id).and_then(|v| v.schema()).unwrap_or(Schema::Object)
}

/// `List[1, 2, 3]`.
fn list_node(id: ItemId, schema_id: ItemId, bag: &DataBag, depth: usize) -> Node {
    let item_schema = held_schema(bag, schema_id, LIST_ITEMS_ATTR);
    let Ok((_, items)) = bag.explode(&[Some(id)]) else {
        return Node::Leaf(id.repr());
    };
    let mut children: Vec<Node> =
        (0..items.len().min(MAX_SHOWN)).map(|i| value_node(items.get(i), item_schema, Some(bag), true, depth + 1)).collect();
    if items.len() > MAX_SHOWN {
        children.push(Node::Leaf("...".to_string()));
    }
    Node::group("List[", "]", children)
}

/// `Dict{'a'=1, 'b'=2}`.
fn dict_node(id: ItemId, schema_id: ItemId, bag: &DataBag, depth: usize) -> Node {
    let key_schema = held_schema(bag, schema_id, DICT_KEYS_ATTR);
    let value_schema = held_schema(bag, schema_id, DICT_VALUES_ATTR);
    let Ok((_, keys, values)) = bag.dict_entries(&[Some(id)]) else {
        return Node::Leaf(id.repr());
    };
    let mut children: Vec<Node> = (0..keys.len().min(MAX_SHOWN))
        .map(|i| {
            // Entities, lists and dicts as keys print as their ids.
            let key = match keys.get(i) {
                Some(ScalarRef::ItemId(id)) => Node::Leaf(id.short()),
                key => value_node(key, key_schema, Some(bag), true, depth + 1),
            };
            let value = value_node(values.get(i), value_schema, Some(bag), true, depth + 1);
            Node::Leaf(format!("{}={}", key.one_line(), value.one_line()))
        })
        .collect();
    if keys.len() > MAX_SHOWN {
        children.push(Node::Leaf("...".to_string()));
    }
    Node::group("Dict{", "}", children)
}

/// `Entity(x=1)` / `Obj(x=1)`; `Entity():$id` when it has no attributes.
fn entity_node(id: ItemId, schema: Schema, bag: &DataBag, depth: usize) -> Node {
    let is_object = schema == Schema::Object;
    let item_schema = if is_object {
        match bag.get_one(SCHEMA_ATTR, id).and_then(|v| v.schema()) {
            Some(s) => s,
            None => return Node::Leaf(id.repr()),
        }
    } else {
        schema
    };
    let Schema::Struct(schema_id) = item_schema else {
        return Node::Leaf(id.repr());
    };
    if schema_id.is_nofollow() {
        return Node::Leaf(format!("Nofollow({})", id.repr()));
    }
    if depth >= MAX_DEPTH {
        return Node::Leaf(id.short());
    }
    if id.is_list() {
        return list_node(id, schema_id, bag, depth);
    }
    if id.is_dict() {
        return dict_node(id, schema_id, bag, depth);
    }
    let names: Vec<String> = bag.attr_names(schema_id).into_iter().filter(|n| n != SCHEMA_NAME_ATTR && n != SCHEMA_METADATA_ATTR).collect();
    if let Some(open) = functor_open(id, &names, bag, depth) {
        let children =
            names.iter().filter(|n| !FUNCTOR_METADATA.contains(&n.as_str())).map(|name| attribute_node(name, id, schema_id, bag, depth)).collect();
        return Node::group(open, ")", children);
    }
    if names.is_empty() {
        return Node::Leaf(format!("{}():{}", if is_object { "Obj" } else { "Entity" }, id.short()));
    }
    let children = names.iter().map(|name| attribute_node(name, id, schema_id, bag, depth)).collect();
    Node::group(if is_object { "Obj(" } else { "Entity(" }, ")", children)
}

/// `name=value` for attribute `name` of entity `id`.
fn attribute_node(name: &str, id: ItemId, schema_id: ItemId, bag: &DataBag, depth: usize) -> Node {
    // A nofollow attribute reads (and prints) as what it wraps.
    let attr_schema = held_schema(bag, schema_id, name);
    let attr_schema = attr_schema.nofollowed().unwrap_or(attr_schema);
    let value = bag.get_one(name, id);
    value_node(value.as_ref().map(Stored::as_ref), attr_schema, Some(bag), true, depth + 1).wrapped(&format!("{name}="), "")
}

/// Attributes of a functor that its header shows instead.
const FUNCTOR_METADATA: [&str; 3] = ["__signature__", "__qualname__", "__module__"];

/// `Functor name[a, b=2, *, c](` for a functor (an item with an EXPR
/// `returns` and a `__signature__`), as Koda prints it.
fn functor_open(id: ItemId, names: &[String], bag: &DataBag, depth: usize) -> Option<String> {
    if !names.iter().any(|n| n == "returns") || !names.iter().any(|n| n == "__signature__") {
        return None;
    }
    if !matches!(bag.get_one("returns", id)?.as_ref(), ScalarRef::Expr(_)) {
        return None;
    }
    let text = |owner: ItemId, attr: &str| match bag.get_one(attr, owner).as_ref().map(Stored::as_ref) {
        Some(ScalarRef::String(s)) => Some(s.to_string()),
        _ => None,
    };
    let id_of = |owner: ItemId, attr: &str| match bag.get_one(attr, owner).as_ref().map(Stored::as_ref) {
        Some(ScalarRef::ItemId(v)) => Some(v),
        _ => None,
    };
    let signature = id_of(id, "__signature__")?;
    let (_, params) = bag.explode(&[Some(id_of(signature, "parameters")?)]).ok()?;
    let mut parts: Vec<(String, ParamKind, Option<String>)> = Vec::new();
    for i in 0..params.len() {
        let Some(ScalarRef::ItemId(param)) = params.get(i) else { return None };
        let name = text(param, "name")?;
        // A kind name this version does not know prints as a plain parameter.
        let kind = ParamKind::from_name(&text(id_of(param, "kind")?, "kind")?).unwrap_or(ParamKind::PositionalOrKeyword);
        let default = match bag.get_one("default_value", param) {
            Some(v) => match v.as_ref() {
                ScalarRef::ItemId(d) if bag.get_one("no_default_value", d).is_some() => None,
                other => {
                    // The schema the parameter object declares for its default.
                    let schema = match bag.get_one(SCHEMA_ATTR, param).and_then(|v| v.schema()) {
                        Some(Schema::Struct(param_schema)) => held_schema(bag, param_schema, "default_value"),
                        _ => Schema::Object,
                    };
                    Some(value_node(Some(other), schema, Some(bag), true, depth + 1).one_line().to_string())
                }
            },
            None => None,
        };
        parts.push((name, kind, default));
    }
    let parts = parameter_list(parts);
    let name = text(id, "__qualname__").map(|n| format!(" {n}")).unwrap_or_default();
    Some(format!("Functor{name}[{parts}]("))
}
