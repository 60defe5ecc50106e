//! `kd.json.to_json`: Koda data to JSON text.
//!
//! Serialisation goes level by level, not item by item: the texts of all
//! items of one level (one schema) are written into one buffer
//! ([`Texts`]); a level of lists, dicts or entities first writes the level
//! below (all list items, all dict values, each attribute of all entities
//! at once) and then assembles each container's text from its children's.
//! OBJECT items are grouped by their schema (schemas with the same
//! attributes of the same schemas together) and each group is written as a
//! typed level. Every item of a level sits at the same depth, which is what
//! pretty-printing needs to indent. Depth is bounded ([`MAX_DEPTH`]); past
//! it, an id met again on the way down is Koda's cycle error.

use std::fmt::Write;

use base64::Engine;
use plait_core::bag::SCHEMA_ATTR;
use plait_core::bag::text::{DICT_KEYS_ATTR, DICT_VALUES_ATTR, LIST_ITEMS_ATTR};
use plait_core::column::SliceBuilder;
use plait_core::{DataBag, DataSlice, Edge, Error, FastMap, ItemId, JaggedShape, Result, ScalarRef, Schema, SliceData};

use crate::objects::model::attr_schema;

pub const TO_JSON: &str = "kd.json.to_json";

/// The deepest nesting serialised.
pub const MAX_DEPTH: usize = 10_000;

/// Formatting options.
pub struct Format {
    /// `None`: one space after ',' and ':'; negative: no whitespace;
    /// otherwise pretty-printed with this many spaces per level.
    pub indent: Option<i64>,
    pub ensure_ascii: bool,
    pub keys_attr: Option<String>,
    pub values_attr: Option<String>,
    pub include_missing: bool,
}

/// The texts of one level's items, in one buffer (`None`: missing).
#[derive(Default)]
struct Texts {
    buf: String,
    spans: Vec<Option<(usize, usize)>>,
}

impl Texts {
    fn with_len(n: usize) -> Texts {
        Texts { buf: String::new(), spans: Vec::with_capacity(n) }
    }
    fn get(&self, i: usize) -> Option<&str> {
        self.spans[i].map(|(a, b)| &self.buf[a..b])
    }
    /// Appends an item written by `f`.
    fn push_with(&mut self, f: impl FnOnce(&mut String)) {
        let start = self.buf.len();
        f(&mut self.buf);
        self.spans.push(Some((start, self.buf.len())));
    }
    fn push_missing(&mut self) {
        self.spans.push(None);
    }
}

/// Python's `repr` of a float (shortest round trip, scientific below 1e-4
/// and from 1e16), which is Koda's JSON form of finite floats.
const JSON_FLOATS: plait_core::repr::FloatLayout = plait_core::repr::FloatLayout { positional: -4..16, python_exponent: true };

/// A float's JSON form: the shortest text that reads back as the same
/// double (FLOAT32 widened first), laid out as Python's `repr`. (Koda's
/// Grisu2 writes a 17th digit for a few values; see docs/differences.md.)
fn write_number(out: &mut String, x: f64) {
    if x.is_nan() {
        out.push_str("\"nan\"");
    } else if x.is_infinite() {
        out.push_str(if x > 0.0 { "\"inf\"" } else { "\"-inf\"" });
    } else {
        plait_core::repr::write_float(out, x, &format!("{x:e}"), &JSON_FLOATS);
    }
}

/// A JSON string literal.
fn write_string(out: &mut String, s: &str, ensure_ascii: bool) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c if ensure_ascii && (c as u32) > 0x7e => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{u:04x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A primitive item's JSON text; `Ok(false)` for a non-primitive.
fn write_scalar(out: &mut String, v: ScalarRef<'_>, f: &Format) -> Result<bool> {
    match v {
        ScalarRef::Int32(v) => {
            let _ = write!(out, "{v}");
        }
        ScalarRef::Int64(v) => {
            let _ = write!(out, "{v}");
        }
        ScalarRef::Float32(v) => write_number(out, v as f64),
        ScalarRef::Float64(v) => write_number(out, v),
        ScalarRef::Boolean(b) => out.push_str(if b { "true" } else { "false" }),
        ScalarRef::Mask => out.push_str("true"),
        ScalarRef::String(s) => write_string(out, s, f.ensure_ascii),
        ScalarRef::Bytes(b) => {
            out.push('"');
            out.push_str(&base64::engine::general_purpose::STANDARD.encode(b));
            out.push('"');
        }
        ScalarRef::ItemId(_) => return Ok(false),
        ScalarRef::Schema(_) => return Err(unsupported(Schema::Schema)),
        other => return Err(unsupported(other.dtype())),
    }
    Ok(true)
}

fn unsupported(s: Schema) -> Error {
    Error::value(TO_JSON, format!("unsupported schema {s} for json serialization"))
}

/// What an item of a level of ids is, by its schema.
enum Kind {
    List(Schema),
    Dict(Schema, Schema),
    Entity(ItemId),
}

fn kind_of(bag: &DataBag, schema: Schema) -> Result<Kind> {
    let Schema::Struct(id) = schema else { return Err(unsupported(schema)) };
    if let Some(item) = attr_schema(bag, id, LIST_ITEMS_ATTR) {
        return Ok(Kind::List(item));
    }
    if let (Some(k), Some(v)) = (attr_schema(bag, id, DICT_KEYS_ATTR), attr_schema(bag, id, DICT_VALUES_ATTR)) {
        return Ok(Kind::Dict(k, v));
    }
    Ok(Kind::Entity(id))
}

/// The attributes a schema has (by index in the bag's attribute names) and
/// their schemas.
type Layout = Vec<(usize, Schema)>;

/// The attributes of an entity schema and their schemas, when already read
/// (objects of many schemas grouped by layout): no lookup of them per
/// schema, which costs what the schemas' allocation holds.
type KnownAttrs = Vec<(String, Schema)>;

/// Attributes held by fewer objects than this (each record's own keys) are
/// read value by value in [`Writer::entities_of_layouts`]; others as one
/// column.
const READ_ONE_BY_ONE: usize = 4;

/// The values of one schema that [`Writer::entities_of_layouts`] writes
/// together (of any attributes), the object each belongs to, and their
/// texts once written.
struct Column {
    schema: Schema,
    values: SliceBuilder,
    parent: Vec<usize>,
    present: Vec<bool>,
    texts: Texts,
}

/// The ids on the way down to a level: ids of the level, and for each, the
/// index of its parent in the level above.
struct Path<'a> {
    ids: &'a [Option<ItemId>],
    parent: Vec<usize>,
    up: Option<&'a Path<'a>>,
}

struct Writer<'a> {
    bag: &'a DataBag,
    f: &'a Format,
}

impl Writer<'_> {
    fn newline(&self, out: &mut String, depth: usize) {
        if let Some(n) = self.f.indent.filter(|n| *n >= 0) {
            out.push('\n');
            out.extend(std::iter::repeat_n(' ', n as usize * depth));
        }
    }

    fn comma(&self, out: &mut String, depth: usize) {
        out.push(',');
        match self.f.indent {
            None => out.push(' '),
            Some(n) if n >= 0 => self.newline(out, depth),
            _ => {}
        }
    }

    fn colon(&self, out: &mut String) {
        out.push(':');
        if self.f.indent.is_none_or(|n| n >= 0) {
            out.push(' ');
        }
    }

    /// Writes `parts` as a JSON array or object at `depth` (`keys` for objects).
    fn container<'s>(&self, out: &mut String, depth: usize, object: bool, parts: impl Iterator<Item = (Option<&'s str>, &'s str)>) {
        out.push(if object { '{' } else { '[' });
        let mut any = false;
        for (key, value) in parts {
            if any {
                self.comma(out, depth + 1);
            } else {
                self.newline(out, depth + 1);
            }
            any = true;
            if let Some(k) = key {
                write_string(out, k, self.f.ensure_ascii);
                self.colon(out);
            }
            out.push_str(value);
        }
        if any {
            self.newline(out, depth);
        }
        out.push(if object { '}' } else { ']' });
    }

    /// The texts of `data`'s items (of `schema`) at `depth`; `missing_text`
    /// stands for missing items inside containers (`null`, `false` for MASK).
    fn level(&self, data: &SliceData, schema: Schema, depth: usize, path: Option<&Path<'_>>) -> Result<Texts> {
        let n = data.len();
        match schema {
            Schema::None => Ok(Texts { buf: String::new(), spans: vec![None; n] }),
            Schema::Object => self.objects(data, depth, path),
            Schema::Struct(_) => {
                let ids: Vec<Option<ItemId>> = (0..n).map(|i| if let Some(ScalarRef::ItemId(id)) = data.get(i) { Some(id) } else { None }).collect();
                self.structs(&ids, schema, depth, path, None)
            }
            s if s.is_primitive() && !matches!(s, Schema::Schema | Schema::ItemId | Schema::Expr) => {
                let mut t = Texts::with_len(n);
                for i in 0..n {
                    match data.get(i) {
                        None => t.push_missing(),
                        Some(v) => {
                            let mut r = Ok(true);
                            t.push_with(|out| r = write_scalar(out, v, self.f));
                            r?;
                        }
                    }
                }
                Ok(t)
            }
            other => Err(unsupported(other)),
        }
    }

    /// OBJECT items: primitives written directly, ids grouped by their
    /// `__schema__` and written as typed levels.
    fn objects(&self, data: &SliceData, depth: usize, path: Option<&Path<'_>>) -> Result<Texts> {
        let n = data.len();
        let mut by_schema: FastMap<Schema, Vec<usize>> = FastMap::default();
        let mut t = Texts::with_len(n);
        let mut ids = vec![None; n];
        for (i, slot) in ids.iter_mut().enumerate() {
            match data.get(i) {
                None => t.push_missing(),
                Some(ScalarRef::ItemId(id)) => {
                    *slot = Some(id);
                    t.push_missing();
                }
                Some(v) => {
                    let mut r = Ok(true);
                    t.push_with(|out| r = write_scalar(out, v, self.f));
                    r?;
                }
            }
        }
        if ids.iter().all(Option::is_none) {
            return Ok(t);
        }
        // Too deep: judged on the whole level, before it splits by schema
        // (the cycle named is the one met first in the level's order).
        if depth > MAX_DEPTH {
            return Err(self.too_deep(&ids, path));
        }
        let schemas = self.bag.get_attr(SCHEMA_ATTR, &ids);
        for (i, id) in ids.iter().enumerate() {
            if id.is_some() {
                match schemas.get(i) {
                    Some(ScalarRef::Schema(s)) => by_schema.entry(s).or_default().push(i),
                    _ => {
                        return Err(Error::value(TO_JSON, "missing __schema__ attribute on an object"));
                    }
                }
            }
        }
        let mut entities: Vec<(Vec<usize>, KnownAttrs)> = Vec::new();
        // Groups in the order of their first items, so that what is written
        // first (and found too deep first) is what a walk item by item
        // would meet first.
        let mut groups = self.by_layout(by_schema);
        groups.sort_unstable_by_key(|(_, members, _)| members.first().copied());
        for (schema, members, known) in groups {
            match known {
                Some(attrs) if self.plain_entity(&attrs) => entities.push((members, attrs)),
                known => {
                    let sub: Vec<Option<ItemId>> = members.iter().map(|&i| ids[i]).collect();
                    // The group's own path up (its items' parents).
                    let sub_path =
                        path.map(|p| Path { ids: p.ids, parent: members.iter().map(|&i| p.parent.get(i).copied().unwrap_or(0)).collect(), up: p.up });
                    let texts = self.structs(&sub, schema, depth, sub_path.as_ref().or(path), known)?;
                    for (k, &i) in members.iter().enumerate() {
                        if let Some(s) = texts.get(k) {
                            let start = t.buf.len();
                            t.buf.push_str(s);
                            t.spans[i] = Some((start, t.buf.len()));
                        }
                    }
                }
            }
        }
        if !entities.is_empty() {
            self.entities_of_layouts(&ids, &entities, depth, path, &mut t)?;
        }
        Ok(t)
    }

    /// Whether a schema with attributes `attrs` is an entity's written
    /// attribute by attribute: not a list's or a dict's, and without the
    /// keys / values lists that order an entity's keys.
    fn plain_entity(&self, attrs: &KnownAttrs) -> bool {
        let special = |name: &str| {
            [LIST_ITEMS_ATTR, DICT_KEYS_ATTR, DICT_VALUES_ATTR].contains(&name)
                || Some(name) == self.f.keys_attr.as_deref()
                || Some(name) == self.f.values_attr.as_deref()
        };
        !attrs.iter().any(|(name, _)| special(name))
    }

    /// Objects of many entity schemas (`groups`: positions in `ids` with
    /// their schema's attributes), written together: each attribute is read
    /// and written for every object whose schema has it at once, whatever
    /// its schema, and each object's text is then assembled from its
    /// attributes' texts. Records with differing keys each have a schema of
    /// their own: a level per schema would cost a level's overhead per
    /// object. The texts go to `t` at the objects' positions.
    fn entities_of_layouts(
        &self,
        ids: &[Option<ItemId>],
        groups: &[(Vec<usize>, KnownAttrs)],
        depth: usize,
        path: Option<&Path<'_>>,
        t: &mut Texts,
    ) -> Result<()> {
        // The objects that have each attribute (by name and schema). (The
        // caller has checked the depth.)
        let mut by_attr: FastMap<(&str, Schema), Vec<usize>> = FastMap::default();
        for (members, attrs) in groups {
            for (name, schema) in attrs.iter().filter(|(name, _)| !name.starts_with("__")) {
                by_attr.entry((name.as_str(), *schema)).or_default().extend(members);
            }
        }
        // The values, a column per schema (an attribute of a few objects,
        // such as a record's own key, read value by value; others as a
        // column), and per object and attribute an entry (object, name,
        // column, row in the column).
        let mut columns: Vec<Column> = Vec::new();
        let mut column_of: FastMap<Schema, usize> = FastMap::default();
        let mut entries: Vec<(usize, &str, usize, usize)> = Vec::new();
        // Attributes in the order of the first object holding each (then by
        // name), as a walk object by object meets them.
        let mut holders: Vec<((&str, Schema), Vec<usize>)> = by_attr.into_iter().collect();
        holders.iter_mut().for_each(|(_, positions)| positions.sort_unstable());
        holders.sort_unstable_by_key(|((name, _), positions)| (positions[0], *name));
        for ((name, schema), positions) in holders {
            let c = *column_of.entry(schema).or_insert_with(|| {
                columns.push(Column { schema, values: SliceBuilder::new(), parent: Vec::new(), present: Vec::new(), texts: Texts::default() });
                columns.len() - 1
            });
            let column = &mut columns[c];
            let mut push = |i: usize, value: Option<ScalarRef<'_>>| {
                entries.push((i, name, c, column.parent.len()));
                column.present.push(value.is_some());
                column.values.push(value);
                column.parent.push(i);
            };
            if positions.len() < READ_ONE_BY_ONE {
                for &i in &positions {
                    let value = ids[i].and_then(|id| self.bag.get_one(name, id));
                    push(i, value.as_ref().map(|v| v.as_ref()));
                }
            } else {
                let data = self.bag.get_attr(name, &crate::objects::model::picked(ids, &positions));
                for (k, &i) in positions.iter().enumerate() {
                    push(i, data.get(k));
                }
            }
        }
        for column in &mut columns {
            let data = std::mem::take(&mut column.values).finish();
            let below = Path { ids, parent: std::mem::take(&mut column.parent), up: path };
            column.texts = stacker::maybe_grow(64 * 1024, 1024 * 1024, || self.level(&data, column.schema, depth + 1, Some(&below)))?;
        }
        entries.sort_unstable_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
        let mut entries = entries.as_slice();
        let mut objects: Vec<usize> = groups.iter().flat_map(|(members, _)| members.iter().copied()).collect();
        objects.sort_unstable();
        for i in objects {
            let own = entries.iter().take_while(|e| e.0 == i).count();
            let (mine, rest) = entries.split_at(own);
            entries = rest;
            let parts = mine.iter().filter(|&&(_, _, c, row)| self.f.include_missing || columns[c].present[row]).map(|&(_, name, c, row)| {
                let null = if columns[c].schema == Schema::Mask { "false" } else { "null" };
                (Some(name), columns[c].texts.get(row).unwrap_or(null))
            });
            let start = t.buf.len();
            self.container(&mut t.buf, depth, true, parts);
            t.spans[i] = Some((start, t.buf.len()));
        }
        Ok(())
    }

    /// The groups of objects (positions by schema) merged where their
    /// schemas have the same attributes with the same schemas: each group is
    /// written as one level, under any one of its schemas. Objects made one
    /// by one (`kd.from_json` of many documents) each have an implicit schema
    /// of their own; written one schema at a time, their cost is per object.
    /// Each group comes with its attributes as read here.
    fn by_layout(&self, by_schema: FastMap<Schema, Vec<usize>>) -> Vec<(Schema, Vec<usize>, Option<KnownAttrs>)> {
        // A few schemas: reading their layouts would cost more than it saves.
        const FEW: usize = 16;
        if by_schema.len() <= FEW {
            return by_schema.into_iter().map(|(schema, members)| (schema, members, None)).collect();
        }
        let schemas: Vec<Schema> = by_schema.keys().copied().collect();
        let ids: Vec<Option<ItemId>> = schemas.iter().map(|s| if let Schema::Struct(id) = s { Some(*id) } else { None }).collect();
        // Each schema's layout: the (attribute, schema) pairs it has, read
        // one attribute at a time for the schemas that may have it.
        // (A schema that is not a struct, which kind_of refuses, keeps a
        // group of its own.)
        let mut layouts: Vec<Layout> = schemas.iter().map(|s| if s.is_struct() { Vec::new() } else { vec![(usize::MAX, *s)] }).collect();
        let held = self.bag.attrs_held_by(&ids);
        for (k, (name, positions)) in held.iter().enumerate() {
            // A name of one schema alone (records with differing keys) is
            // read as one value, without a column.
            if let ([j], Some(id)) = (positions.as_slice(), ids[positions[0]]) {
                if let Some(s) = self.bag.get_one(name, id).and_then(|v| v.schema()) {
                    layouts[*j].push((k, s));
                }
                continue;
            }
            let column = self.bag.get_attr(name, &crate::objects::model::picked(&ids, positions));
            for (p, &j) in positions.iter().enumerate() {
                if let Some(ScalarRef::Schema(s)) = column.get(p) {
                    layouts[j].push((k, s));
                }
            }
        }
        let mut groups: FastMap<Layout, (Schema, Vec<usize>)> = FastMap::default();
        let mut by_schema = by_schema;
        for (schema, layout) in schemas.into_iter().zip(layouts) {
            let members = by_schema.remove(&schema).unwrap_or_default();
            groups.entry(layout).or_insert_with(|| (schema, Vec::new())).1.extend(members);
        }
        groups
            .into_iter()
            .map(|(layout, (schema, mut members))| {
                members.sort_unstable();
                let known = schema.is_struct().then(|| layout.iter().map(|&(k, s)| (held[k].0.to_string(), s)).collect());
                (schema, members, known)
            })
            .collect()
    }

    /// Items of a struct schema: lists, dicts or entities (`known`: the
    /// schema's attributes, when read already).
    fn structs(&self, ids: &[Option<ItemId>], schema: Schema, depth: usize, path: Option<&Path<'_>>, known: Option<KnownAttrs>) -> Result<Texts> {
        if depth > MAX_DEPTH {
            return Err(self.too_deep(ids, path));
        }
        let here = Path { ids, parent: vec![], up: path };
        let n = ids.len();
        let mut t = Texts::with_len(n);
        match kind_of(self.bag, schema)? {
            Kind::List(item) => {
                let (edge, items) = self.bag.explode(ids)?;
                let here = Path { parent: parents(&edge), ..here };
                let texts = stacker::maybe_grow(64 * 1024, 1024 * 1024, || self.level(&items, item, depth + 1, Some(&here)))?;
                let null = if item == Schema::Mask { "false" } else { "null" };
                for (i, id) in ids.iter().enumerate() {
                    if id.is_none() {
                        t.push_missing();
                        continue;
                    }
                    t.push_with(|out| self.container(out, depth, false, edge.child_range(i).map(|j| (None, texts.get(j).unwrap_or(null)))));
                }
            }
            Kind::Dict(key_schema, value_schema) => {
                let (edge, keys, values) = self.bag.dict_entries(ids)?;
                let here = Path { parent: parents(&edge), ..here };
                let texts = stacker::maybe_grow(64 * 1024, 1024 * 1024, || self.level(&values, value_schema, depth + 1, Some(&here)))?;
                let mut key_texts: Vec<(KeyOrder, String)> = Vec::with_capacity(keys.len());
                for j in 0..keys.len() {
                    let (order, text) = match keys.get(j) {
                        Some(ScalarRef::String(s)) => (KeyOrder::Text(s.to_string()), s.to_string()),
                        Some(ScalarRef::Int32(v)) => (KeyOrder::Text(v.to_string()), v.to_string()),
                        Some(ScalarRef::Int64(v)) => (KeyOrder::Text(v.to_string()), v.to_string()),
                        Some(ScalarRef::Bytes(b)) => {
                            let e = base64::engine::general_purpose::STANDARD.encode(b);
                            (KeyOrder::Text(e.clone()), e)
                        }
                        other => {
                            let s = match (key_schema, other) {
                                (Schema::Object, Some(v)) => v.dtype(),
                                _ => key_schema,
                            };
                            return Err(Error::value(
                                TO_JSON,
                                format!("unsupported dict key schema {} for json serialization", crate::json::schema_name(s, Some(self.bag))),
                            ));
                        }
                    };
                    key_texts.push((order, text));
                }
                let null = if value_schema == Schema::Mask { "false" } else { "null" };
                for (i, id) in ids.iter().enumerate() {
                    if id.is_none() {
                        t.push_missing();
                        continue;
                    }
                    let mut entries: Vec<usize> = edge.child_range(i).collect();
                    entries.sort_by(|&a, &b| key_texts[a].0.cmp(&key_texts[b].0));
                    t.push_with(|out| {
                        self.container(out, depth, true, entries.iter().map(|&j| (Some(key_texts[j].1.as_str()), texts.get(j).unwrap_or(null))))
                    });
                }
            }
            Kind::Entity(schema_id) => self.entities(ids, schema_id, known, depth, &here, &mut t)?,
        }
        Ok(t)
    }

    fn entities(
        &self,
        ids: &[Option<ItemId>],
        schema_id: ItemId,
        known: Option<KnownAttrs>,
        depth: usize,
        here: &Path<'_>,
        t: &mut Texts,
    ) -> Result<()> {
        let n = ids.len();
        let keys_attr = self.f.keys_attr.as_deref().filter(|a| attr_schema(self.bag, schema_id, a).is_some());
        // The values list counts only with a keys list.
        let values_attr = self.f.values_attr.as_deref().filter(|a| keys_attr.is_some() && attr_schema(self.bag, schema_id, a).is_some());
        let mut attrs: KnownAttrs = match known {
            Some(known) => known,
            // (The names with their values: no second lookup of each.)
            None => {
                self.bag.attrs_of(schema_id).into_iter().map(|(name, value)| (name.to_string(), value.schema().unwrap_or(Schema::Object))).collect()
            }
        };
        attrs.retain(|(a, _)| !a.starts_with("__") && Some(a.as_str()) != keys_attr && Some(a.as_str()) != values_attr);
        attrs.sort_by(|a, b| a.0.cmp(&b.0));
        let identity = Path { ids, parent: (0..n).collect(), up: here.up };
        let mut columns: Vec<(String, Texts, Vec<bool>, &'static str)> = Vec::with_capacity(attrs.len());
        for (name, schema) in &attrs {
            let schema = *schema;
            let data = self.bag.get_attr(name, ids);
            let present: Vec<bool> = (0..n).map(|i| data.get(i).is_some()).collect();
            let texts = stacker::maybe_grow(64 * 1024, 1024 * 1024, || self.level(&data, schema, depth + 1, Some(&identity)))?;
            columns.push((name.clone(), texts, present, if schema == Schema::Mask { "false" } else { "null" }));
        }
        // Key order and values from the keys / values lists, where present.
        let list_texts = |attr: Option<&str>| -> Result<Option<(Edge, SliceData, Option<Texts>)>> {
            let Some(attr) = attr else { return Ok(None) };
            let lists = self.bag.get_attr(attr, ids);
            let list_ids: Vec<Option<ItemId>> =
                (0..n).map(|i| if let Some(ScalarRef::ItemId(id)) = lists.get(i) { Some(id) } else { None }).collect();
            let (edge, items) = self.bag.explode(&list_ids)?;
            Ok(Some((edge, items, None)))
        };
        let keys = list_texts(keys_attr)?;
        let values = match (list_texts(values_attr)?, values_attr) {
            (Some((edge, items, _)), Some(attr)) => {
                let item_schema = match attr_schema(self.bag, schema_id, attr) {
                    Some(Schema::Struct(id)) => attr_schema(self.bag, id, LIST_ITEMS_ATTR).unwrap_or(Schema::Object),
                    _ => Schema::Object,
                };
                let here = Path { ids, parent: parents(&edge), up: here.up };
                let texts = self.level(&items, item_schema, depth + 1, Some(&here))?;
                Some((edge, items, Some(texts)))
            }
            _ => None,
        };
        for (i, id) in ids.iter().enumerate() {
            if id.is_none() {
                t.push_missing();
                continue;
            }
            let key_list = keys.as_ref().filter(|(edge, ..)| edge.size_of(i) > 0 || values.is_some());
            match key_list {
                Some((edge, items, _)) if !items.is_empty() || values.is_some() => {
                    let mut parts: Vec<(String, String)> = Vec::new();
                    for (pos, j) in edge.child_range(i).enumerate() {
                        let key = match items.get(j) {
                            Some(ScalarRef::String(s)) => s.to_string(),
                            Some(v) => return Err(Error::value(TO_JSON, format!("expected json key list to contain STRING, got {}", v.dtype()))),
                            None => continue,
                        };
                        let text = match &values {
                            Some((vedge, _, Some(vt))) => {
                                let r = vedge.child_range(i);
                                if pos < r.len() { vt.get(r.start + pos).unwrap_or("null").to_string() } else { "null".to_string() }
                            }
                            _ => match columns.iter().find(|c| c.0 == key) {
                                Some((_, texts, _, null)) => texts.get(i).unwrap_or(null).to_string(),
                                None => {
                                    return Err(Error::value(
                                        TO_JSON,
                                        format!("failed to get attribute '{key}': the attribute '{key}' is missing on the schema."),
                                    ));
                                }
                            },
                        };
                        parts.push((key, text));
                    }
                    t.push_with(|out| self.container(out, depth, true, parts.iter().map(|(k, v)| (Some(k.as_str()), v.as_str()))));
                }
                _ => {
                    let parts = columns
                        .iter()
                        .filter(|c| self.f.include_missing || c.2[i])
                        .map(|(name, texts, _, null)| (Some(name.as_str()), texts.get(i).unwrap_or(null)));
                    t.push_with(|out| self.container(out, depth, true, parts));
                }
            }
        }
        Ok(())
    }

    /// The error past [`MAX_DEPTH`]: Koda's cycle error, naming the item a
    /// depth-first walk would meet again first, else a nesting error. Of the
    /// items at this depth, the one under the first top-level item is
    /// followed up to the top; the first item on that chain (from the top)
    /// that repeats further down is where the walk closes the cycle.
    fn too_deep(&self, ids: &[Option<ItemId>], path: Option<&Path<'_>>) -> Error {
        let nested = || Error::value(TO_JSON, format!("data is nested deeper than {MAX_DEPTH} levels for json serialization"));
        let present: Vec<usize> = (0..ids.len()).filter(|&i| ids[i].is_some()).collect();
        let Some(path) = path.filter(|_| !present.is_empty()) else { return nested() };
        // Each item's ancestor, level by level up to the top (a level maps
        // its items to their parents' positions in the level above).
        let up_from = |level: &Path<'_>, i: usize| level.parent.get(i).copied().unwrap_or(0);
        let mut at: Vec<usize> = present.iter().map(|&i| up_from(path, i)).collect();
        let mut level = path;
        while let Some(up) = level.up {
            at.iter_mut().for_each(|j| *j = up_from(up, *j));
            level = up;
        }
        let k = (0..present.len()).min_by_key(|&k| at[k]).expect("some item is present");
        // Its chain, from it up to the top.
        let mut chain: Vec<Option<ItemId>> = vec![ids[present[k]]];
        let (mut index, mut level) = (up_from(path, present[k]), Some(path));
        while let Some(l) = level {
            chain.push(l.ids.get(index).copied().flatten());
            if let Some(up) = l.up {
                index = up_from(up, index);
            }
            level = l.up;
        }
        chain.reverse();
        let mut last: FastMap<ItemId, usize> = FastMap::default();
        for (j, id) in chain.iter().enumerate() {
            if let Some(id) = id {
                last.insert(*id, j);
            }
        }
        let repeated = chain.iter().enumerate().find_map(|(j, id)| id.filter(|id| last[id] > j));
        let Some(id) = repeated else { return nested() };
        let item = DataSlice::new(JaggedShape::scalar(), crate::objects::model::ids_data(&[Some(id)]), Schema::Object)
            .map(|x| crate::describe(&x.with_bag(Some(self.bag.clone()))))
            .unwrap_or_default();
        Error::value(TO_JSON, format!("cycle detected in json serialization at {item}"))
    }
}

/// For each child of `edge`, its parent's index.
fn parents(edge: &Edge) -> Vec<usize> {
    let mut out = Vec::with_capacity(edge.child_size());
    edge.for_each_parent(|p, n| out.extend(std::iter::repeat_n(p, n)));
    out
}

/// Dict keys sort as Koda sorts them: by their JSON key text (so `"10"`
/// comes before `"2"`).
#[derive(PartialEq, Eq, PartialOrd, Ord)]
enum KeyOrder {
    Text(String),
}

/// `kd.json.to_json(x)`: a STRING slice of `x`'s shape.
pub fn to_json(x: &DataSlice, f: &Format) -> Result<DataSlice> {
    let empty = DataBag::new_immutable();
    let bag = x.bag().unwrap_or(&empty);
    let w = Writer { bag, f };
    let texts = w.level(x.data(), x.schema(), 0, None)?;
    let mut b = plait_core::column::SliceBuilder::with_capacity(x.size());
    for i in 0..x.size() {
        b.push(texts.get(i).map(ScalarRef::String));
    }
    DataSlice::new(x.shape().clone(), b.finish(), Schema::String)
}
