//! Text forms that need a bag: entities (`Entity(x=1)`), objects
//! (`Obj(x=1)`), lists (`List[1, 2]`), dicts (`Dict{'a'=1}`) and struct schemas (`ENTITY(x=INT32)`, `IMPLICIT_ENTITY(..)`,
//! `Point(x=INT32)`).

use super::{DataBag, SCHEMA_ATTR, Stored};
use crate::column::ScalarRef;
use crate::itemid::{ItemId, ItemKind};
use crate::repr::{Node, Printer, REPR, ReprOptions, write_bytes_literal, write_item, write_string_literal};
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
/// The attribute of a struct schema holding its metadata object
/// (`kd.with_metadata`; proto schemas record their message's full name and
/// field defaults there).
pub const SCHEMA_METADATA_ATTR: &str = "__schema_metadata__";

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
    if structs.is_empty() {
        // Koda folds the primitives first, then ITEMID, SCHEMA and OBJECT,
        // and names the schemas alone.
        let mut ordered = schemas.to_vec();
        ordered.sort_by_key(|s| match s {
            Schema::ItemId => 1,
            Schema::Schema => 2,
            Schema::Object => 3,
            _ => 0,
        });
        let mut common = Schema::None;
        for s in ordered {
            match Schema::common(common, s) {
                Some(c) => common = c,
                None => return format!("cannot find a common schema\n\n the common schema(s) {common}\n the first conflicting schema {s}"),
            }
        }
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
    schema_text_with(schema, bag, &REPR)
}

/// [`schema_text`] with `options` (struct schemas nested deeper than their
/// `depth` print as their ids; never HTML).
pub fn schema_text_with(schema: Schema, bag: Option<&DataBag>, options: &ReprOptions) -> String {
    let options = ReprOptions { html: false, ..options.clone() };
    schema_node(schema, bag, 0, &Printer::new(&options)).rendered()
}

/// A schema as a printable node: `ENTITY(a=INT32, ...)` (or its name, or
/// `IMPLICIT_ENTITY`) is a group of its attributes; `LIST[...]` and
/// `DICT{..., ...}` wrap the nodes of their item schemas.
fn schema_node(schema: Schema, bag: Option<&DataBag>, depth: usize, o: &Printer<'_>) -> Node {
    let html = o.html;
    let (Schema::Struct(id), Some(bag)) = (schema, bag) else {
        return Node::Leaf(schema.to_string());
    };
    // An entity's, list's or dict's id held as a schema
    // (`kd.with_schema(entity, kd.SCHEMA)`) prints as the id it is.
    if !id.is_schema() {
        return Node::Leaf(id.repr());
    }
    // Nested deeper than `o.depth`, a schema prints as its id (which also
    // stops cycles).
    if depth >= o.depth || !o.expand() {
        return Node::Leaf(id.short());
    }
    // A nofollow schema names what it wraps, without following it.
    match schema.nofollowed() {
        Some(Schema::Struct(inner)) => return Node::Leaf(format!("NOFOLLOW({})", inner.short())),
        Some(inner) => return Node::Leaf(format!("NOFOLLOW({inner})")),
        None => {}
    }
    // The schema's attributes, read once (a schema of thousands of
    // attributes, each an entity's schema, is listed, not looked up name by
    // name).
    let attrs = super::SchemaAttrs::of(bag, id);
    if let Some(items) = attrs.schema(LIST_ITEMS_ATTR) {
        return schema_node(items, Some(bag), depth + 1, o).wrapped("LIST[", "]");
    }
    if let Some(keys) = attrs.schema(DICT_KEYS_ATTR) {
        let keys = schema_node(keys, Some(bag), depth + 1, o);
        let prefix = format!("DICT{{{}, ", keys.one_line());
        let values = attrs.schema(DICT_VALUES_ATTR).unwrap_or(Schema::Object);
        return schema_node(values, Some(bag), depth + 1, o).wrapped(&prefix, "}");
    }
    let open = match attrs.get(SCHEMA_NAME_ATTR) {
        Some(Stored::String(name)) => format!("{name}("),
        _ if id.kind() == ItemKind::ImplicitSchema => "IMPLICIT_ENTITY(".to_string(),
        _ => "ENTITY(".to_string(),
    };
    // The metadata (`kd.with_metadata`) is shown after the attributes.
    let shown = attrs.all().filter(|(n, _)| !matches!(*n, SCHEMA_NAME_ATTR | SCHEMA_METADATA_ATTR));
    let children = shown
        .chain(attrs.all().filter(|(n, _)| *n == SCHEMA_METADATA_ATTR))
        .map(|(name, value)| match value {
            // The metadata object (`kd.with_metadata`).
            md @ Stored::ItemId(_) if name == SCHEMA_METADATA_ATTR => {
                value_node(Some(md.as_ref()), Schema::Object, Some(bag), true, depth + 1, o).wrapped(&attr_prefix(name, html), attr_suffix(html))
            }
            value => match value.schema() {
                Some(s) => schema_node(s, Some(bag), depth + 1, o).wrapped(&attr_prefix(name, html), attr_suffix(html)),
                None => Node::Leaf(format!("{}None{}", attr_prefix(name, html), attr_suffix(html))),
            },
        })
        .collect();
    Node::group_html(open, ")", children, html)
}

/// One item of a slice with `schema` whose bag is `bag`, as a printable
/// node: entities, objects, lists and dicts with their contents, everything
/// else as [`write_item`] writes it (text shortened and HTML-escaped as
/// `options` say).
pub fn item_node(item: Option<ScalarRef<'_>>, schema: Schema, bag: Option<&DataBag>, quote: bool, options: &Printer<'_>) -> Node {
    value_node(item, schema, bag, quote, 0, options)
}

fn value_node(item: Option<ScalarRef<'_>>, schema: Schema, bag: Option<&DataBag>, quote: bool, depth: usize, o: &Printer<'_>) -> Node {
    o.check_readable(item, schema);
    match (item, bag) {
        (Some(ScalarRef::ItemId(id)), Some(bag)) if schema != Schema::ItemId => entity_node(id, schema, bag, depth, o),
        (Some(ScalarRef::Schema(s)), Some(_)) => schema_node(s, bag, depth, o),
        (Some(ScalarRef::String(text)), _) if quote => Node::Leaf(shortened_text(text.chars().count(), text, o, write_string_literal)),
        (Some(ScalarRef::Bytes(bytes)), _) => Node::Leaf(shortened_text(bytes.len(), bytes, o, write_bytes_literal)),
        _ => {
            let mut out = String::new();
            write_item(&mut out, item, schema, quote);
            Node::Leaf(if o.html { html_escape(&out) } else { out })
        }
    }
}

/// A text or bytes literal of `len` characters (bytes), its middle left out
/// when it is longer than `max_str_len` allows: `'ab'...'ef'`.
fn shortened_text<T: Sliceable + ?Sized>(len: usize, value: &T, o: &Printer<'_>, write: fn(&mut String, &T)) -> String {
    let literal = |v: &T| {
        let mut out = String::new();
        write(&mut out, v);
        if o.html { html_escape(&out) } else { out }
    };
    let half = o.max_str_len.map(|m| m.div_ceil(2));
    match half {
        Some(half) if len > 2 * half => {
            let head = literal(value.head(half));
            // The tail's quote (and a bytes literal's `b`) is written once.
            let tail = literal(value.tail(len - half));
            let tail = tail.strip_prefix('b').unwrap_or(&tail);
            let dots = if o.html { "<span class=\"truncated\">...</span>" } else { "..." };
            format!("{head}{dots}{tail}")
        }
        _ => literal(value),
    }
}

/// Text and bytes, cut by characters and bytes.
trait Sliceable {
    fn head(&self, n: usize) -> &Self;
    fn tail(&self, from: usize) -> &Self;
}

impl Sliceable for str {
    fn head(&self, n: usize) -> &str {
        &self[..self.char_indices().nth(n).map_or(self.len(), |(i, _)| i)]
    }
    fn tail(&self, from: usize) -> &str {
        &self[self.char_indices().nth(from).map_or(self.len(), |(i, _)| i)..]
    }
}

impl Sliceable for [u8] {
    fn head(&self, n: usize) -> &[u8] {
        &self[..n.min(self.len())]
    }
    fn tail(&self, from: usize) -> &[u8] {
        &self[from.min(self.len())..]
    }
}

/// `text` with `<`, `>`, `&` and quotes escaped for HTML.
pub fn html_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

/// `text` in an HTML span with attribute `attr` (`slice-index="0"`), or as
/// is without HTML.
pub fn html_span(html: bool, attr: &str, text: &str) -> String {
    if html { format!("<span {attr}>{text}</span>") } else { text.to_string() }
}

/// What stands for items left out: `...`.
pub fn limited(html: bool) -> Node {
    Node::Leaf(if html { crate::repr::LIMITED_HTML.to_string() } else { "...".to_string() })
}

/// `name=` before an attribute's value.
fn attr_prefix(name: &str, html: bool) -> String {
    if html { format!("<span schema-attr=\"{name}\"><span class=\"attr\">{name}</span>=") } else { format!("{name}=") }
}

fn attr_suffix(html: bool) -> &'static str {
    if html { "</span>" } else { "" }
}

/// `node` in an HTML span with attribute `attr` (a group keeps wrapping
/// by its elements).
fn spanned(node: Node, html: bool, attr: &str) -> Node {
    if html { node.wrapped(&format!("<span {attr}>"), "</span>") } else { node }
}

/// The schema held in attribute `attr` of schema `schema_id` (OBJECT when unset).
fn held_schema(bag: &DataBag, schema_id: ItemId, attr: &str) -> Schema {
    bag.get_one(attr, schema_id).and_then(|v| v.schema()).unwrap_or(Schema::Object)
}

/// Whether schema `schema_id` has attribute `attr` in `bag`.
fn declares(bag: &DataBag, schema_id: ItemId, attr: &str) -> bool {
    bag.get_one(attr, schema_id).is_some()
}

/// The first `limit` of `n` elements (all without a limit), and whether
/// some are left out.
fn shown(n: usize, limit: Option<usize>) -> (usize, bool) {
    let shown = limit.map_or(n, |l| n.min(l));
    (shown, shown < n)
}

/// `List[1, 2, 3]`.
fn list_node(id: ItemId, schema_id: ItemId, bag: &DataBag, depth: usize, o: &Printer<'_>) -> Node {
    let item_schema = held_schema(bag, schema_id, LIST_ITEMS_ATTR);
    let Ok((_, items)) = bag.explode(&[Some(id)]) else {
        return Node::Leaf(id.repr());
    };
    let (n, more) = shown(items.len(), o.item_limit);
    let mut children: Vec<Node> = (0..n)
        .map(|i| spanned(value_node(items.get(i), item_schema, Some(bag), true, depth + 1, o), o.html, &format!("list-index=\"{i}\"")))
        .collect();
    if more {
        children.push(limited(o.html));
    }
    Node::group_html("List[", "]", children, o.html)
}

/// `Dict{'a'=1, 'b'=2}`.
fn dict_node(id: ItemId, schema_id: ItemId, bag: &DataBag, depth: usize, o: &Printer<'_>) -> Node {
    let key_schema = held_schema(bag, schema_id, DICT_KEYS_ATTR);
    let value_schema = held_schema(bag, schema_id, DICT_VALUES_ATTR);
    let Ok((_, keys, values)) = bag.dict_entries(&[Some(id)]) else {
        return Node::Leaf(id.repr());
    };
    let (n, more) = shown(keys.len(), o.item_limit);
    let mut children: Vec<Node> = (0..n)
        .map(|i| {
            // Entities, lists and dicts as keys print as their ids.
            let key = match keys.get(i) {
                Some(ScalarRef::ItemId(id)) => Node::Leaf(id.short()),
                key => value_node(key, key_schema, Some(bag), true, depth + 1, o),
            };
            let value = value_node(values.get(i), value_schema, Some(bag), true, depth + 1, o);
            let key = html_span(o.html, &format!("dict-key-index=\"{i}\""), key.one_line());
            let value = html_span(o.html, &format!("dict-value-index=\"{i}\""), value.one_line());
            Node::Leaf(format!("{key}={value}"))
        })
        .collect();
    if more {
        children.push(limited(o.html));
    }
    Node::group_html("Dict{", "}", children, o.html)
}

/// `Entity(x=1)` / `Obj(x=1)`; `Entity():$id` when it has no attributes.
fn entity_node(id: ItemId, schema: Schema, bag: &DataBag, depth: usize, o: &Printer<'_>) -> Node {
    let is_object = schema == Schema::Object;
    let item_schema = if is_object {
        match bag.get_one(SCHEMA_ATTR, id).and_then(|v| v.schema()) {
            Some(s) => s,
            // Past the depth shown, an id as any object's; else Koda prints
            // the top item holding it as its id ([`Printer::note_schemaless`]).
            None if depth >= o.depth => return Node::Leaf(html_span(o.html, "class=\"object-id\"", &id.short())),
            None => {
                o.note_schemaless();
                return Node::Leaf(id.repr());
            }
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
    if depth >= o.depth || !o.expand() {
        return Node::Leaf(html_span(o.html, "class=\"object-id\"", &id.short()));
    }
    // A list or dict shows its contents under a list or dict schema only;
    // under an entity schema it is its id (as in Koda).
    if id.is_list() {
        return if declares(bag, schema_id, LIST_ITEMS_ATTR) { list_node(id, schema_id, bag, depth, o) } else { Node::Leaf(id.repr()) };
    }
    if id.is_dict() {
        return if declares(bag, schema_id, DICT_KEYS_ATTR) { dict_node(id, schema_id, bag, depth, o) } else { Node::Leaf(id.repr()) };
    }
    let names: Vec<String> = bag.attr_names(schema_id).into_iter().filter(|n| n != SCHEMA_NAME_ATTR && n != SCHEMA_METADATA_ATTR).collect();
    if let Some(open) = functor_open(id, &names, bag, depth, o) {
        let children =
            names.iter().filter(|n| !FUNCTOR_METADATA.contains(&n.as_str())).map(|name| attribute_node(name, id, schema_id, bag, depth, o)).collect();
        return Node::group(open, ")", children);
    }
    if names.is_empty() {
        return Node::Leaf(format!("{}():{}", if is_object { "Obj" } else { "Entity" }, id.short()));
    }
    let (n, more) = shown(names.len(), o.item_limit);
    let mut children: Vec<Node> = names[..n].iter().map(|name| attribute_node(name, id, schema_id, bag, depth, o)).collect();
    if more {
        children.push(limited(o.html));
    }
    Node::group_html(if is_object { "Obj(" } else { "Entity(" }, ")", children, o.html)
}

/// `name=value` for attribute `name` of entity `id`.
fn attribute_node(name: &str, id: ItemId, schema_id: ItemId, bag: &DataBag, depth: usize, o: &Printer<'_>) -> Node {
    // A nofollow attribute reads (and prints) as what it wraps.
    let attr_schema = held_schema(bag, schema_id, name);
    let attr_schema = attr_schema.nofollowed().unwrap_or(attr_schema);
    let value = bag.get_one(name, id);
    value_node(value.as_ref().map(Stored::as_ref), attr_schema, Some(bag), true, depth + 1, o)
        .wrapped(&attr_prefix(name, o.html), attr_suffix(o.html))
}

/// Attributes of a functor that its header shows instead.
const FUNCTOR_METADATA: [&str; 3] = ["__signature__", "__qualname__", "__module__"];

/// `Functor name[a, b=2, *, c](` for a functor (an item with an EXPR
/// `returns` and a `__signature__`), as Koda prints it.
fn functor_open(id: ItemId, names: &[String], bag: &DataBag, depth: usize, o: &Printer<'_>) -> Option<String> {
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
                    Some(value_node(Some(other), schema, Some(bag), true, depth + 1, o).one_line().to_string())
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
