//! `kd.json.from_json`: JSON text to Koda data.
//!
//! Parsing and conversion are one iterative pass per text: a stack of open
//! arrays and objects (no recursion, so depth costs heap, never stack, and
//! is bounded by [`MAX_JSON_DEPTH`]); each value is converted to a [`Cell`]
//! under the schema its position asks for, as soon as it is complete. A
//! completed container becomes a pending id in its group (objects, lists of
//! one schema, entities of one schema, dicts of one schema); at the end
//! every group gets one allocation and its contents are written into the
//! new bag column by column:
//!
//! ```text
//!   '{"a": [1, 2]}'  ->  Cell::Container(lists, 0) = [1, 2]   (lists group)
//!                        Cell::Container(objects, 0): a -> (lists, 0)
//!   finish: allocate ids per group, set_lists / set_attr once per group
//! ```

use std::collections::HashMap;

use base64::Engine;
use plait_core::bag::SCHEMA_ATTR;
use plait_core::bag::text::{DICT_KEYS_ATTR, DICT_VALUES_ATTR, LIST_ITEMS_ATTR};
use plait_core::cast::cast_to;
use plait_core::column::SliceBuilder;
use plait_core::itemid::allocate;
use plait_core::{DataBag, DataSlice, Edge, Error, ItemId, ItemKind, Result, ScalarRef, Schema};

use crate::cells::{Cell, cells_data};
use crate::objects::containers::container_schema_id;
use crate::objects::model::{attr_schema, schemas_data};

pub const FROM_JSON: &str = "kd.json.from_json";

/// The deepest nesting of arrays and objects accepted.
pub const MAX_JSON_DEPTH: usize = 100_000;

/// What a group of containers is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum GroupKind {
    /// JSON objects read as objects (implicit schemas).
    Objects,
    /// Lists of this schema; `tagged`: they carry `__schema__` (in OBJECT
    /// positions).
    Lists {
        schema: Schema,
        tagged: bool,
    },
    Entities {
        schema: Schema,
    },
    Dicts {
        schema: Schema,
    },
}

#[derive(Debug)]
struct Group {
    kind: GroupKind,
    count: u32,
    /// Lists: items of every list, in order, and each list's size. Dicts:
    /// keys and values, and each dict's size.
    items: Vec<Cell>,
    keys: Vec<Cell>,
    sizes: Vec<i64>,
    /// Objects and entities: attribute name -> (container index, value).
    attrs: HashMap<String, Vec<(u32, Cell)>>,
    /// Objects and entities recording key order: the keys lists and
    /// values lists, as list sizes over `key_items` / `value_items`.
    key_items: Vec<Cell>,
    key_sizes: Vec<(u32, i64)>,
    value_items: Vec<Cell>,
    value_sizes: Vec<(u32, i64)>,
}

impl Group {
    fn new(kind: GroupKind) -> Group {
        Group {
            kind,
            count: 0,
            items: vec![],
            keys: vec![],
            sizes: vec![],
            attrs: HashMap::new(),
            key_items: vec![],
            key_sizes: vec![],
            value_items: vec![],
            value_sizes: vec![],
        }
    }
}

/// A group's count and the lengths of its vectors (items, keys, sizes,
/// key items, key sizes, value items, value sizes).
type GroupMark = (u32, usize, usize, usize, usize, usize, usize, usize);

/// The lengths of everything a text may add to, to undo an invalid text.
#[derive(Clone, Debug)]
struct Mark {
    pool: usize,
    bytes: usize,
    groups: Vec<GroupMark>,
    n_groups: usize,
}

/// Options of one call.
pub struct Options<'a> {
    pub schema: Schema,
    /// The bag holding `schema`'s definition.
    pub schema_bag: Option<&'a DataBag>,
    /// `None`: inferred (OBJECT).
    pub number_schema: Option<Schema>,
    pub keys_attr: Option<String>,
    pub values_attr: Option<String>,
    /// Whether an invalid text gives the `on_invalid` value (else an error).
    pub on_invalid: bool,
}

/// How a position's schema reads a value.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Target {
    /// Inferred (OBJECT).
    Object,
    Primitive(Schema),
    List {
        schema: Schema,
        item: Schema,
    },
    Dict {
        schema: Schema,
        key: Schema,
        value: Schema,
    },
    Entity(Schema),
    /// A key of an entity that its schema does not have: read and dropped.
    Skip,
}

/// An open array or object.
struct Frame {
    target: Target,
    is_object: bool,
    cells: Vec<Cell>,
    /// Object keys (string pool ranges), one per cell.
    keys: Vec<(u32, u32)>,
    /// The key whose value comes next.
    key: Option<(u32, u32)>,
}

struct Converter<'a> {
    opts: &'a Options<'a>,
    pool: String,
    bytes: Vec<u8>,
    groups: Vec<Group>,
    by_kind: HashMap<GroupKind, u32>,
    frames: Vec<Frame>,
}

/// A parse or conversion failure of one text (before the operator's name
/// is added).
struct Invalid(String);

type Step<T> = std::result::Result<T, Invalid>;

fn schema_text(s: Schema, bag: Option<&DataBag>) -> String {
    match DataSlice::item(Some(ScalarRef::Schema(s)), Schema::Schema) {
        Ok(item) => crate::describe(&item.with_bag(bag.cloned())),
        Err(_) => s.to_string(),
    }
}

impl<'a> Converter<'a> {
    fn new(opts: &'a Options<'a>) -> Converter<'a> {
        Converter { opts, pool: String::new(), bytes: vec![], groups: vec![], by_kind: HashMap::new(), frames: vec![] }
    }

    fn mark(&self) -> Mark {
        Mark {
            pool: self.pool.len(),
            bytes: self.bytes.len(),
            groups: self
                .groups
                .iter()
                .map(|g| {
                    (
                        g.count,
                        g.items.len(),
                        g.keys.len(),
                        g.sizes.len(),
                        g.key_items.len(),
                        g.key_sizes.len(),
                        g.value_items.len(),
                        g.value_sizes.len(),
                    )
                })
                .collect(),
            n_groups: self.groups.len(),
        }
    }

    fn undo(&mut self, mark: &Mark) {
        self.pool.truncate(mark.pool);
        self.bytes.truncate(mark.bytes);
        for g in self.groups.drain(mark.n_groups..) {
            self.by_kind.remove(&g.kind);
        }
        for (g, &(count, items, keys, sizes, ki, ks, vi, vs)) in self.groups.iter_mut().zip(&mark.groups) {
            g.count = count;
            g.items.truncate(items);
            g.keys.truncate(keys);
            g.sizes.truncate(sizes);
            g.key_items.truncate(ki);
            g.key_sizes.truncate(ks);
            g.value_items.truncate(vi);
            g.value_sizes.truncate(vs);
            for v in g.attrs.values_mut() {
                v.retain(|(i, _)| *i < count);
            }
        }
        self.frames.clear();
    }

    fn group(&mut self, kind: GroupKind) -> u32 {
        if let Some(&g) = self.by_kind.get(&kind) {
            return g;
        }
        self.groups.push(Group::new(kind));
        let g = (self.groups.len() - 1) as u32;
        self.by_kind.insert(kind, g);
        g
    }

    /// How a value under `schema` is read.
    fn target(&self, schema: Schema) -> Target {
        match schema {
            Schema::Object => Target::Object,
            Schema::Struct(id) => {
                let bag = self.opts.schema_bag;
                let get = |attr: &str| bag.and_then(|b| attr_schema(b, id, attr));
                if let Some(item) = get(LIST_ITEMS_ATTR) {
                    Target::List { schema, item }
                } else if let (Some(key), Some(value)) = (get(DICT_KEYS_ATTR), get(DICT_VALUES_ATTR)) {
                    Target::Dict { schema, key, value }
                } else {
                    Target::Entity(schema)
                }
            }
            other => Target::Primitive(other),
        }
    }

    fn str_cell(&mut self, s: &str) -> Cell {
        let start = self.pool.len() as u32;
        self.pool.push_str(s);
        Cell::Str(start, self.pool.len() as u32)
    }

    fn text(&self, range: (u32, u32)) -> &str {
        &self.pool[range.0 as usize..range.1 as usize]
    }

    /// A JSON string under `target`.
    fn string(&mut self, target: Target, range: (u32, u32)) -> Step<Cell> {
        let cell = Cell::Str(range.0, range.1);
        match target {
            Target::Object | Target::Primitive(Schema::String) => Ok(cell),
            Target::Skip => Ok(Cell::Missing),
            Target::Primitive(Schema::Bytes) => {
                let decoded = base64::engine::general_purpose::STANDARD
                    .decode(self.text(range))
                    .map_err(|_| Invalid("json string invalid for BYTES schema, must be valid base64".into()))?;
                let start = self.bytes.len() as u32;
                self.bytes.extend_from_slice(&decoded);
                Ok(Cell::Bytes(start, self.bytes.len() as u32))
            }
            Target::Primitive(s) => {
                let text = self.text(range).to_string();
                let item = DataSlice::item(Some(ScalarRef::String(&text)), Schema::String).map_err(|e| Invalid(e.message))?;
                let cast = cast_to("", &item, s).map_err(|e| {
                    let message = e.message.trim_start_matches(": ").replace("casting a DataSlice with schema STRING", "casting data of type STRING");
                    Invalid(format!("{message}; json string invalid for {s} schema"))
                })?;
                Ok(scalar_cell(cast.get(0)))
            }
            _ => Err(Invalid(format!("json string invalid for schema {}", schema_text(target_schema(target), self.opts.schema_bag)))),
        }
    }

    /// A JSON number (its text) under `target`.
    fn number(&mut self, target: Target, text: &str) -> Step<Cell> {
        let is_int = !text.contains(['.', 'e', 'E']);
        let as_int = if is_int { text.parse::<i64>().ok().or_else(|| text.parse::<u64>().ok().map(|v| v as i64)) } else { None };
        let float = || text.parse::<f64>().unwrap_or(f64::NAN);
        let inferred = match as_int {
            Some(v) if i32::try_from(v).is_ok() => Cell::Int32(v as i32),
            Some(v) => Cell::Int64(v),
            None => Cell::Float32(float() as f32),
        };
        let exact = match as_int {
            Some(v) => Cell::Int64(v),
            None => Cell::Float64(float()),
        };
        match target {
            Target::Skip => Ok(Cell::Missing),
            Target::Object => match self.opts.number_schema {
                None => Ok(inferred),
                Some(s) => convert_cell(exact, s).ok_or_else(|| Invalid(format!("json number {text} invalid for {s} schema"))),
            },
            Target::Primitive(Schema::String) => Ok(self.str_cell(text)),
            Target::Primitive(s @ (Schema::Int32 | Schema::Int64 | Schema::Float32 | Schema::Float64 | Schema::Boolean)) => {
                Ok(convert_cell(exact, s).expect("numeric cast"))
            }
            Target::Primitive(Schema::None) => {
                Err(Invalid(format!("only missing values can be converted to NONE; json number {text} invalid for NONE schema")))
            }
            Target::Primitive(s) => {
                let from = if as_int.is_some() { Schema::Int64 } else { Schema::Float64 };
                Err(Invalid(format!("casting data of type {from} to {s} is not supported; json number {text} invalid for {s} schema")))
            }
            _ => Err(Invalid(format!("json number invalid for schema {}", schema_text(target_schema(target), self.opts.schema_bag)))),
        }
    }

    fn boolean(&mut self, target: Target, b: bool) -> Step<Cell> {
        match target {
            Target::Skip => Ok(Cell::Missing),
            Target::Object | Target::Primitive(Schema::Boolean) => Ok(Cell::Boolean(b)),
            Target::Primitive(Schema::Mask) => Ok(if b { Cell::Present } else { Cell::Missing }),
            Target::Primitive(Schema::String) => Ok(self.str_cell(if b { "true" } else { "false" })),
            Target::Primitive(s @ (Schema::Int32 | Schema::Int64 | Schema::Float32 | Schema::Float64)) => {
                Ok(convert_cell(Cell::Int64(b as i64), s).expect("numeric cast"))
            }
            Target::Primitive(Schema::None) => {
                Err(Invalid("only missing values can be converted to NONE; json boolean invalid for NONE schema".into()))
            }
            Target::Primitive(s) => {
                Err(Invalid(format!("casting data of type BOOLEAN to {s} is not supported; json boolean invalid for {s} schema")))
            }
            _ => Err(Invalid(format!("json boolean invalid for schema {}", schema_text(target_schema(target), self.opts.schema_bag)))),
        }
    }

    /// The schema the children of the innermost open container read.
    fn child_target(&self) -> Target {
        let Some(frame) = self.frames.last() else { unreachable!("inside a container") };
        match frame.target {
            Target::Object => Target::Object,
            Target::Skip => Target::Skip,
            Target::List { item, .. } => self.target(item),
            Target::Dict { value, .. } => self.target(value),
            Target::Entity(Schema::Struct(id)) => {
                let key = frame.key.map(|k| self.text(k)).unwrap_or("");
                match self.opts.schema_bag.and_then(|b| attr_schema(b, id, key)) {
                    Some(s) if Some(key) != self.opts.keys_attr.as_deref() && Some(key) != self.opts.values_attr.as_deref() => self.target(s),
                    // A key the schema lacks: its value is read (as OBJECT)
                    // when the entities keep their values in a list.
                    _ if self.held(id, &self.opts.values_attr).is_some() => Target::Object,
                    _ => Target::Skip,
                }
            }
            _ => Target::Skip,
        }
    }

    /// The schema entities of schema `id` hold in attribute `attr`.
    fn held(&self, id: ItemId, attr: &Option<String>) -> Option<Schema> {
        attr.as_deref().and_then(|a| self.opts.schema_bag.and_then(|b| attr_schema(b, id, a)))
    }

    /// Whether entities of schema `id` keep their keys and their values in
    /// lists (`keys_attr` / `values_attr`), or Koda's error for the schemas
    /// of those attributes: keys LIST[STRING], values LIST[OBJECT] and only
    /// with keys.
    fn recorded(&self, id: ItemId) -> Step<(bool, bool)> {
        let bag = self.opts.schema_bag;
        let incompatible = |name: &str, held: Schema, assigned: &str| {
            Invalid(format!(
                "the schema for attribute '{name}' is incompatible.\n\nExpected schema for '{name}': {}\nAssigned schema for \
                 '{name}': {assigned}\n\nTo fix this, explicitly override schema of '{name}' in the original schema by passing \
                 overwrite_schema=True.",
                plait_core::bag::text::schema_text(held, bag)
            ))
        };
        let list_of = |item: Schema| Schema::Struct(container_schema_id("list_schema", &[item]));
        let keys = self.held(id, &self.opts.keys_attr);
        let values = self.held(id, &self.opts.values_attr);
        if let (Some(held), Some(name)) = (keys, &self.opts.keys_attr) {
            if held != list_of(Schema::String) {
                return Err(incompatible(name, held, "LIST[STRING]"));
            }
        }
        if let (Some(held), Some(name)) = (values, &self.opts.values_attr) {
            if keys.is_none() {
                return Err(Invalid("cannot add json values list attr without adding json keys list attr".into()));
            }
            if held != list_of(Schema::Object) {
                return Err(incompatible(name, held, "LIST[OBJECT]"));
            }
        }
        Ok((keys.is_some(), values.is_some()))
    }

    fn open(&mut self, target: Target, is_object: bool) -> Step<()> {
        let ok = match target {
            Target::Object | Target::Skip => true,
            Target::List { .. } => !is_object,
            Target::Dict { .. } | Target::Entity(_) => is_object,
            Target::Primitive(_) => false,
        };
        if !ok {
            let s = schema_text(target_schema(target), self.opts.schema_bag);
            return Err(Invalid(if is_object {
                format!("json object invalid for schema {s}")
            } else {
                format!("json array invalid for non-LIST schema {s}")
            }));
        }
        if self.frames.len() >= MAX_JSON_DEPTH {
            return Err(Invalid(format!("json nesting is deeper than {MAX_JSON_DEPTH} arrays and objects")));
        }
        self.frames.push(Frame { target, is_object, cells: vec![], keys: vec![], key: None });
        Ok(())
    }

    /// Closes the innermost container; returns it as a cell.
    fn close(&mut self) -> Step<Cell> {
        let frame = self.frames.pop().expect("an open container");
        let n = frame.cells.len() as i64;
        Ok(match frame.target {
            Target::Skip => Cell::Missing,
            Target::Object if !frame.is_object => {
                let g = self.group(GroupKind::Lists { schema: Schema::Object, tagged: true });
                let group = &mut self.groups[g as usize];
                group.items.extend(frame.cells);
                group.sizes.push(n);
                group.count += 1;
                Cell::Container(g, group.count - 1)
            }
            Target::List { schema, .. } => {
                let g = self.group(GroupKind::Lists { schema, tagged: false });
                let group = &mut self.groups[g as usize];
                group.items.extend(frame.cells);
                group.sizes.push(n);
                group.count += 1;
                Cell::Container(g, group.count - 1)
            }
            Target::Dict { schema, key, .. } => {
                let mut keys = Vec::with_capacity(frame.keys.len());
                for k in &frame.keys {
                    let target = self.target(key);
                    keys.push(self.string(target, *k)?);
                }
                let g = self.group(GroupKind::Dicts { schema });
                let group = &mut self.groups[g as usize];
                group.keys.extend(keys);
                group.items.extend(frame.cells);
                group.sizes.push(n);
                group.count += 1;
                Cell::Container(g, group.count - 1)
            }
            Target::Object | Target::Entity(_) => {
                let (kind, record_keys, record_values) = match frame.target {
                    Target::Entity(schema @ Schema::Struct(id)) => {
                        let (keys, values) = self.recorded(id)?;
                        (GroupKind::Entities { schema }, keys, values)
                    }
                    _ => (GroupKind::Objects, self.opts.keys_attr.is_some(), self.opts.values_attr.is_some()),
                };
                let g = self.group(kind);
                let pool = &self.pool;
                let reserved = |k: &str| Some(k) == self.opts.keys_attr.as_deref() || Some(k) == self.opts.values_attr.as_deref();
                let group = &mut self.groups[g as usize];
                let index = group.count;
                group.count += 1;
                let entity_schema = match kind {
                    GroupKind::Entities { schema: Schema::Struct(id) } => Some(id),
                    _ => None,
                };
                let schema_bag = self.opts.schema_bag;
                for (i, (k, cell)) in frame.keys.iter().zip(&frame.cells).enumerate() {
                    let name = &pool[k.0 as usize..k.1 as usize];
                    // The last of duplicate keys is the attribute's value.
                    let last = !frame.keys[i + 1..].iter().any(|o| &pool[o.0 as usize..o.1 as usize] == name);
                    // Entities take only the attributes their schema has.
                    let known = entity_schema.is_none_or(|id| schema_bag.and_then(|b| attr_schema(b, id, name)).is_some());
                    if last && known && !reserved(name) {
                        group.attrs.entry(name.to_string()).or_default().push((index, *cell));
                    }
                }
                if record_keys {
                    group.key_items.extend(frame.keys.iter().map(|k| Cell::Str(k.0, k.1)));
                    group.key_sizes.push((index, n));
                }
                if record_values {
                    group.value_items.extend(frame.cells);
                    group.value_sizes.push((index, n));
                }
                Cell::Container(g, index)
            }
            Target::Primitive(_) => unreachable!("refused at open"),
        })
    }

    /// Adds a complete value to the innermost container, or returns it when
    /// it is the whole text's value.
    fn push(&mut self, cell: Cell) -> Option<Cell> {
        match self.frames.last_mut() {
            None => Some(cell),
            Some(frame) => {
                if frame.is_object {
                    frame.keys.push(frame.key.take().expect("a key before a value"));
                }
                frame.cells.push(cell);
                None
            }
        }
    }

    /// Parses and converts one text.
    fn convert(&mut self, text: &str) -> Step<Cell> {
        let top = self.target(self.opts.schema);
        // A byte-order mark is skipped, as Koda's parser does.
        let mut lx = Lexer { s: text.strip_prefix('\u{feff}').unwrap_or(text).as_bytes(), pos: 0 };
        lx.skip_ws();
        if lx.pos >= lx.s.len() {
            return Err(lx.syntax());
        }
        let mut result = None;
        loop {
            // A value.
            lx.skip_ws();
            let target = if self.frames.is_empty() { top } else { self.child_target() };
            let c = lx.peek();
            let complete = match c {
                Some(b'{') | Some(b'[') => {
                    let is_object = c == Some(b'{');
                    lx.pos += 1;
                    self.open(target, is_object)?;
                    lx.skip_ws();
                    let end = if is_object { b'}' } else { b']' };
                    if lx.peek() == Some(end) {
                        lx.pos += 1;
                        Some(self.close()?)
                    } else {
                        if is_object {
                            let k = self.key(&mut lx)?;
                            self.frames.last_mut().expect("open").key = Some(k);
                        }
                        None
                    }
                }
                Some(b'"') => {
                    let range = self.read_string(&mut lx)?;
                    Some(self.string(target, range)?)
                }
                Some(b't') => {
                    lx.literal("true")?;
                    Some(self.boolean(target, true)?)
                }
                Some(b'f') => {
                    lx.literal("false")?;
                    Some(self.boolean(target, false)?)
                }
                Some(b'n') => {
                    lx.literal("null")?;
                    Some(Cell::Missing)
                }
                Some(b'-' | b'0'..=b'9') => {
                    let t = lx.number()?;
                    let t = std::str::from_utf8(t).expect("ascii").to_string();
                    Some(self.number(target, &t)?)
                }
                _ => return Err(lx.syntax()),
            };
            let mut done = complete;
            // Close containers as far as the text does.
            while let Some(cell) = done.take() {
                if let Some(value) = self.push(cell) {
                    result = Some(value);
                    break;
                }
                lx.skip_ws();
                let is_object = self.frames.last().expect("open").is_object;
                match lx.peek() {
                    Some(b',') => {
                        lx.pos += 1;
                        if is_object {
                            lx.skip_ws();
                            let k = self.key(&mut lx)?;
                            self.frames.last_mut().expect("open").key = Some(k);
                        }
                    }
                    Some(b']') if !is_object => {
                        lx.pos += 1;
                        done = Some(self.close()?);
                    }
                    Some(b'}') if is_object => {
                        lx.pos += 1;
                        done = Some(self.close()?);
                    }
                    _ => return Err(lx.syntax()),
                }
            }
            if result.is_some() {
                break;
            }
        }
        lx.skip_ws();
        // (Koda's parser stops at a NUL character, as at the end.)
        if lx.peek().is_some_and(|c| c != 0) {
            return Err(lx.syntax());
        }
        Ok(result.expect("a value"))
    }

    /// An object key and its colon.
    fn key(&mut self, lx: &mut Lexer<'_>) -> Step<(u32, u32)> {
        lx.skip_ws();
        if lx.peek() != Some(b'"') {
            return Err(lx.syntax());
        }
        let k = self.read_string(lx)?;
        lx.skip_ws();
        if lx.peek() != Some(b':') {
            return Err(lx.syntax());
        }
        lx.pos += 1;
        Ok(k)
    }

    /// A JSON string, unescaped into the pool.
    fn read_string(&mut self, lx: &mut Lexer<'_>) -> Step<(u32, u32)> {
        let start = self.pool.len();
        lx.pos += 1; // the quote
        let s = lx.s;
        loop {
            let run = s[lx.pos..].iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20);
            let Some(run) = run else {
                return Err(lx.syntax());
            };
            // The input is a Rust string, so any run between ASCII stops is UTF-8.
            self.pool.push_str(std::str::from_utf8(&s[lx.pos..lx.pos + run]).expect("utf-8 run"));
            lx.pos += run;
            match s[lx.pos] {
                b'"' => {
                    lx.pos += 1;
                    return Ok((start as u32, self.pool.len() as u32));
                }
                b'\\' => {
                    let Some(&e) = s.get(lx.pos + 1) else {
                        return Err(lx.syntax());
                    };
                    lx.pos += 2;
                    match e {
                        b'"' => self.pool.push('"'),
                        b'\\' => self.pool.push('\\'),
                        b'/' => self.pool.push('/'),
                        b'b' => self.pool.push('\u{8}'),
                        b'f' => self.pool.push('\u{c}'),
                        b'n' => self.pool.push('\n'),
                        b'r' => self.pool.push('\r'),
                        b't' => self.pool.push('\t'),
                        b'u' => {
                            let hi = lx.hex4()?;
                            let c = if (0xD800..0xDC00).contains(&hi) {
                                if s.get(lx.pos) != Some(&b'\\') || s.get(lx.pos + 1) != Some(&b'u') {
                                    return Err(lx.syntax());
                                }
                                lx.pos += 2;
                                let lo = lx.hex4()?;
                                if !(0xDC00..0xE000).contains(&lo) {
                                    return Err(lx.syntax());
                                }
                                0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                            } else if (0xDC00..0xE000).contains(&hi) {
                                return Err(lx.syntax());
                            } else {
                                hi
                            };
                            self.pool.push(char::from_u32(c).expect("valid scalar value"));
                        }
                        _ => {
                            return Err(lx.syntax());
                        }
                    }
                }
                _ => {
                    return Err(lx.syntax());
                }
            }
        }
    }
}

fn target_schema(t: Target) -> Schema {
    match t {
        Target::Object | Target::Skip => Schema::Object,
        Target::Primitive(s) | Target::Entity(s) => s,
        Target::List { schema, .. } | Target::Dict { schema, .. } => schema,
    }
}

/// A numeric (or boolean) cell converted to `schema` as explicit casts do;
/// `None` when `schema` is not numeric or BOOLEAN.
fn convert_cell(cell: Cell, schema: Schema) -> Option<Cell> {
    let (i, f) = match cell {
        Cell::Int64(v) => (Some(v), v as f64),
        Cell::Float64(v) => (None, v),
        _ => return None,
    };
    Some(match schema {
        Schema::Int32 => Cell::Int32(i.map(|v| v as i32).unwrap_or(f as i32)),
        Schema::Int64 => Cell::Int64(i.unwrap_or(f as i64)),
        Schema::Float32 => Cell::Float32(i.map(|v| v as f32).unwrap_or(f as f32)),
        Schema::Float64 => Cell::Float64(f),
        Schema::Boolean => Cell::Boolean(f != 0.0),
        _ => return None,
    })
}

fn scalar_cell(v: Option<ScalarRef<'_>>) -> Cell {
    match v {
        None => Cell::Missing,
        Some(ScalarRef::Int32(v)) => Cell::Int32(v),
        Some(ScalarRef::Int64(v)) => Cell::Int64(v),
        Some(ScalarRef::Float32(v)) => Cell::Float32(v),
        Some(ScalarRef::Float64(v)) => Cell::Float64(v),
        Some(ScalarRef::Boolean(v)) => Cell::Boolean(v),
        Some(ScalarRef::Mask) => Cell::Present,
        Some(_) => Cell::Missing,
    }
}

struct Lexer<'s> {
    s: &'s [u8],
    pos: usize,
}

impl Lexer<'_> {
    #[inline]
    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    #[inline]
    fn skip_ws(&mut self) {
        while matches!(self.s.get(self.pos), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    /// The text does not parse: [`syntax::syntax_error`] says how, as
    /// Koda does (this reader finds that it does not, quickly).
    fn syntax(&self) -> Invalid {
        Invalid(String::new())
    }

    fn literal(&mut self, word: &str) -> Step<()> {
        let w = word.as_bytes();
        let n = self.s[self.pos..].iter().zip(w).take_while(|(a, b)| a == b).count();
        if n == w.len() {
            self.pos += n;
            return Ok(());
        }
        Err(self.syntax())
    }

    fn hex4(&mut self) -> Step<u32> {
        let digits = self.s.get(self.pos..self.pos + 4);
        let value = digits.and_then(|d| std::str::from_utf8(d).ok()).and_then(|d| u32::from_str_radix(d, 16).ok());
        match value {
            Some(v) if digits.is_some_and(|d| d.iter().all(u8::is_ascii_hexdigit)) => {
                self.pos += 4;
                Ok(v)
            }
            _ => Err(self.syntax()),
        }
    }

    /// A JSON number's text (checked against JSON's grammar).
    fn number(&mut self) -> Step<&[u8]> {
        let start = self.pos;
        let s = self.s;
        let digits = |p: &mut usize| {
            let from = *p;
            while s.get(*p).is_some_and(u8::is_ascii_digit) {
                *p += 1;
            }
            *p - from
        };
        let mut p = self.pos;
        if s[p] == b'-' {
            p += 1;
        }
        if s.get(p) == Some(&b'0') {
            p += 1;
        } else if digits(&mut p) == 0 {
            self.pos = p;
            return Err(self.syntax());
        }
        if s.get(p) == Some(&b'.') {
            p += 1;
            if digits(&mut p) == 0 {
                return Err(self.syntax());
            }
        }
        if matches!(s.get(p), Some(b'e' | b'E')) {
            p += 1;
            if matches!(s.get(p), Some(b'+' | b'-')) {
                p += 1;
            }
            if digits(&mut p) == 0 {
                return Err(self.syntax());
            }
        }
        self.pos = p;
        let text = &s[start..p];
        if !text.contains(&b'.') && !text.contains(&b'e') && !text.contains(&b'E') {
            return Ok(text);
        }
        // (A number too large for FLOAT64 is an error too, Koda's.)
        let t = std::str::from_utf8(text).expect("ascii");
        if t.parse::<f64>().is_ok_and(f64::is_infinite) {
            return Err(self.syntax());
        }
        Ok(text)
    }
}

/// `kd.json.from_json` of the items of `x` (STRING), giving a DataSlice of
/// `x`'s shape in a new immutable bag.
pub fn from_json(x: &DataSlice, opts: &Options<'_>, on_invalid: Option<&DataSlice>) -> Result<DataSlice> {
    let mut conv = Converter::new(opts);
    let n = x.size();
    let mut cells = Vec::with_capacity(n);
    let column = x.data().columns().first().cloned();
    for i in 0..n {
        let Some(ScalarRef::String(text)) = column.as_ref().and_then(|c| c.get(i)) else {
            cells.push(Cell::Missing);
            continue;
        };
        let mark = conv.mark();
        match conv.convert(text) {
            Ok(cell) => cells.push(cell),
            Err(Invalid(message)) => {
                if !opts.on_invalid {
                    // Koda parses the whole text before converting it: an
                    // error in its syntax is the one reported.
                    let message = super::syntax::syntax_error(text)
                        .or((!message.is_empty()).then_some(message))
                        .unwrap_or_else(|| "json parse error: invalid JSON".to_string());
                    return Err(Error::value(FROM_JSON, message));
                }
                conv.undo(&mark);
                cells.push(Cell::Invalid);
            }
        }
    }
    conv.finish(x, cells, on_invalid)
}

impl Converter<'_> {
    /// Gives every group its ids, writes the bag, and builds the result.
    fn finish(self, x: &DataSlice, cells: Vec<Cell>, on_invalid: Option<&DataSlice>) -> Result<DataSlice> {
        let bag = DataBag::new_mutable();
        let ids: Vec<Vec<ItemId>> = self
            .groups
            .iter()
            .map(|g| {
                let kind = match g.kind {
                    GroupKind::Objects | GroupKind::Entities { .. } => ItemKind::Object,
                    GroupKind::Lists { .. } => ItemKind::List,
                    GroupKind::Dicts { .. } => ItemKind::Dict,
                };
                allocate(kind, g.count as usize).1
            })
            .collect();
        let invalid = on_invalid.and_then(|v| v.get(0));
        let data = |cells: &[Cell]| cells_data(cells, &self.pool, &self.bytes, &ids, invalid);
        let object_list = container_schema_id("list_schema", &[Schema::Object]);
        let string_list = container_schema_id("list_schema", &[Schema::String]);
        let mut result_error = None;
        bag.fill(|w| {
            let mut wrote_list_schemas = false;
            for (g, group) in self.groups.iter().enumerate() {
                let gids: Vec<Option<ItemId>> = ids[g].iter().map(|&i| Some(i)).collect();
                match group.kind {
                    GroupKind::Lists { tagged, .. } => {
                        match Edge::from_sizes(&group.sizes) {
                            Ok(edge) => w.set_lists(&gids, &edge, &data(&group.items)),
                            Err(e) => result_error = Some(e),
                        }
                        if tagged {
                            w.set_attr(SCHEMA_ATTR, &gids, &schemas_data(vec![Some(Schema::Struct(object_list)); gids.len()]));
                        }
                    }
                    GroupKind::Dicts { .. } => match Edge::from_sizes(&group.sizes) {
                        Ok(edge) => w.set_dicts(&gids, &edge, &data(&group.keys), &data(&group.items)),
                        Err(e) => result_error = Some(e),
                    },
                    GroupKind::Objects | GroupKind::Entities { .. } => {
                        let objects = group.kind == GroupKind::Objects;
                        let implicit: Vec<Option<ItemId>> = gids.iter().map(|i| i.map(|i| i.with_kind(ItemKind::ImplicitSchema))).collect();
                        if objects {
                            w.set_attr(SCHEMA_ATTR, &gids, &schemas_data(implicit.iter().map(|s| s.map(Schema::Struct)).collect()));
                        }
                        let mut names: Vec<&String> = group.attrs.keys().collect();
                        names.sort();
                        for name in names {
                            let values = &group.attrs[name];
                            let who: Vec<Option<ItemId>> = values.iter().map(|(k, _)| gids[*k as usize]).collect();
                            let cells: Vec<Cell> = values.iter().map(|(_, c)| *c).collect();
                            w.set_attr(name, &who, &data(&cells));
                            if objects {
                                let schemas: Vec<Option<ItemId>> = values.iter().map(|(k, _)| implicit[*k as usize]).collect();
                                w.set_attr(name, &schemas, &schemas_data(vec![Some(Schema::Object); schemas.len()]));
                            }
                        }
                        let mut lists = |attr: &Option<String>, sizes: &[(u32, i64)], items: &[Cell], list_schema: ItemId| {
                            let Some(attr) = attr else { return };
                            if sizes.is_empty() {
                                return;
                            }
                            let (_, list_ids) = allocate(ItemKind::List, sizes.len());
                            let list_ids: Vec<Option<ItemId>> = list_ids.into_iter().map(Some).collect();
                            match Edge::from_sizes(&sizes.iter().map(|s| s.1).collect::<Vec<_>>()) {
                                Ok(edge) => w.set_lists(&list_ids, &edge, &data(items)),
                                Err(e) => result_error = Some(e),
                            }
                            let owners: Vec<Option<ItemId>> = sizes.iter().map(|(k, _)| gids[*k as usize]).collect();
                            let mut b = SliceBuilder::with_capacity(list_ids.len());
                            list_ids.iter().for_each(|id| b.push(id.map(ScalarRef::ItemId)));
                            w.set_attr(attr, &owners, &b.finish());
                            if objects {
                                let schemas: Vec<Option<ItemId>> = sizes.iter().map(|(k, _)| implicit[*k as usize]).collect();
                                w.set_attr(attr, &schemas, &schemas_data(vec![Some(Schema::Struct(list_schema)); schemas.len()]));
                            }
                        };
                        lists(&self.opts.keys_attr, &group.key_sizes, &group.key_items, string_list);
                        lists(&self.opts.values_attr, &group.value_sizes, &group.value_items, object_list);
                    }
                }
                if !wrote_list_schemas {
                    wrote_list_schemas = true;
                    w.set_attr(LIST_ITEMS_ATTR, &[Some(object_list)], &schemas_data(vec![Some(Schema::Object)]));
                    w.set_attr(LIST_ITEMS_ATTR, &[Some(string_list)], &schemas_data(vec![Some(Schema::String)]));
                }
            }
        });
        if let Some(e) = result_error {
            return Err(e);
        }
        let mut bags = vec![bag];
        if let Some(b) = self.opts.schema_bag {
            bags.push(b.clone());
        }
        if let Some(b) = on_invalid.and_then(|v| v.bag()) {
            bags.push(b.clone());
        }
        let bag = DataBag::combined(&bags).expect("one bag").fork(false);
        let result = DataSlice::new(x.shape().clone(), data(&cells), self.opts.schema)?;
        Ok(result.with_bag(Some(bag)))
    }
}
