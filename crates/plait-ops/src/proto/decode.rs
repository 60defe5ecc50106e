//! Binary proto messages to Koda data (`kd.proto.from_proto_bytes`, and
//! `kd.from_proto` through serialized messages).
//!
//! One pass over each message; every value goes into a column of its group
//! (the messages of one type and target schema, the lists of one schema,
//! the dicts of one schema) as a [`Cell`]. At the end every group gets its
//! ids at once and its columns are written into a new bag, attribute by
//! attribute.

use std::collections::HashMap;

use plait_core::bag::SCHEMA_ATTR;
use plait_core::bag::text::{DICT_KEYS_ATTR, DICT_VALUES_ATTR, LIST_ITEMS_ATTR};
use plait_core::cast::cast_to;
use plait_core::column::SliceBuilder;
use plait_core::itemid::{UuidHasher, allocate};
use plait_core::{DataBag, DataSlice, Edge, Error, ItemId, ItemKind, JaggedShape, Result, ScalarRef, Schema, SliceData};

use super::desc::{Field, Pool, Ty};
use super::schema::{dict_schema, list_schema, map_fields, message_schema_id, scalar_schema, write_container_schema, write_metadata};
use super::wire::{self, Reader};
use crate::cells::{Cell, cells_data};
use crate::objects::model::{attr_schema, schemas_data};

/// The deepest message nesting read.
const MAX_DEPTH: usize = 100;

/// What schema a message becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// The uu schema derived from its type.
    Uu,
    /// Objects (each its own implicit schema).
    Object,
    /// Entities of this schema (only its attributes are read).
    Entity(ItemId),
}

/// The extensions read at one position of the message tree.
#[derive(Default, Debug)]
pub struct ExtTree {
    pub exts: Vec<Field>,
    pub children: HashMap<String, ExtTree>,
}

impl ExtTree {
    fn child(&self, name: &str) -> Option<&ExtTree> {
        self.children.get(name)
    }
}

/// Reads extension paths (`a.b.(pkg.ext)`) of message `root` into a tree,
/// or Koda's error for an unknown or misplaced extension.
/// With `strict` false, an extension of another message type than its
/// position's is left out (reading only looks for it where it fits).
pub fn ext_tree(pool: &Pool, root: usize, paths: &[String], strict: bool) -> std::result::Result<ExtTree, String> {
    let mut tree = ExtTree::default();
    for path in paths {
        let segments = split_path(path);
        let mut node = &mut tree;
        let mut m = Some(root);
        let mut after_map: Option<&Field> = None;
        for (i, seg) in segments.iter().enumerate() {
            let last = i + 1 == segments.len();
            if let Some(inner) = seg.strip_prefix('(').and_then(|s| s.strip_suffix(')')) {
                let Some((extendee, field)) = pool.extensions.get(inner) else {
                    return Err(format!("extension not found: \"{inner}\""));
                };
                let here = m.unwrap_or(usize::MAX);
                if *extendee != here && !strict {
                    break;
                }
                if *extendee != here {
                    let target = pool.messages.get(here).map_or("", |x| x.full_name.as_str());
                    return Err(format!(
                        "extension \"{inner}\" exists, but isn't an extension on target message type \"{target}\", expected \"{}\"",
                        pool.messages[*extendee].full_name
                    ));
                }
                if last {
                    if !node.exts.iter().any(|f| f.name == field.name) {
                        node.exts.push(field.clone());
                    }
                } else {
                    node = node.children.entry(field.name.clone()).or_default();
                }
                m = field.message;
                after_map = None;
            } else if let (Some(map), "values") = (after_map, seg.as_str()) {
                let _ = map;
                node = node.children.entry("values".to_string()).or_default();
                after_map = None;
            } else {
                let msg = m.map(|m| &pool.messages[m]);
                let Some(field) = msg.and_then(|msg| msg.fields.iter().find(|f| &f.name == seg)) else {
                    return Err(format!(
                        "field \"{seg}\" not found on message type \"{}\" in extension path \"{path}\"",
                        msg.map_or("", |m| m.full_name.as_str())
                    ));
                };
                if last {
                    return Err(format!("extension path must end in an extension, got \"{path}\""));
                }
                node = node.children.entry(field.name.clone()).or_default();
                if pool.is_map(field) {
                    after_map = Some(field);
                    m = map_fields(pool, field).1.message;
                } else {
                    m = field.message;
                }
            }
        }
    }
    Ok(tree)
}

/// `a.(b.c).d` -> ["a", "(b.c)", "d"].
fn split_path(path: &str) -> Vec<String> {
    let mut out = vec![];
    let mut cur = String::new();
    let mut depth = 0;
    for c in path.chars() {
        match c {
            '(' => {
                depth += 1;
                cur.push(c);
            }
            ')' => {
                depth -= 1;
                cur.push(c);
            }
            '.' if depth == 0 => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// How a message type's field is read under a target.
#[derive(Clone, Copy, Debug)]
struct Plan {
    read: bool,
    /// The schema of the attribute as written (Uu, Object).
    schema: Schema,
    /// Primitive values (items, dict values) are cast to this.
    cast: Option<Schema>,
    key_cast: Option<Schema>,
    /// Messages (items, dict values) become this.
    child: Target,
    /// Lists and dicts of the field: their schema, and its item (value)
    /// and key schemas.
    container: Schema,
    parts: (Schema, Schema),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Kind {
    Msg { m: usize, target: Target },
    List { schema: Schema, object: bool },
    Dict { schema: Schema, object: bool },
}

struct Col {
    name: String,
    cells: Vec<(u32, Cell)>,
    cast: Option<Schema>,
    schema: Schema,
    field: Option<Field>,
}

struct Group {
    kind: Kind,
    count: u32,
    ids: Vec<ItemId>,
    cols: Vec<Col>,
    ext_cols: HashMap<String, usize>,
    items: Vec<Cell>,
    keys: Vec<Cell>,
    sizes: Vec<i64>,
    item_cast: Option<Schema>,
    key_cast: Option<Schema>,
    /// Object lists and dicts: their item (value) and key schemas.
    parts: (Schema, Schema),
    plans: Vec<Plan>,
}

/// Options of one conversion.
pub struct Options<'a> {
    pub pool: &'a Pool,
    pub root: usize,
    pub target: Target,
    pub schema_bag: Option<&'a DataBag>,
    pub extensions: &'a ExtTree,
    /// The ids of the top-level messages (the others derive from them).
    pub itemids: Option<&'a DataSlice>,
    pub op: &'a str,
}

struct Decoder<'a> {
    opts: &'a Options<'a>,
    pool: &'a Pool,
    text: String,
    bytes: Vec<u8>,
    groups: Vec<Group>,
    by_kind: HashMap<Kind, u32>,
}

/// Why a message could not be read.
pub struct Invalid;

type Step<T> = std::result::Result<T, Invalid>;

fn derived(parent: ItemId, name: &str, kind: ItemKind, extra: &[u8]) -> ItemId {
    let mut h = UuidHasher::new("from_proto_child");
    h.write_item(Some(ScalarRef::ItemId(parent)));
    h.write_str(name);
    h.write_bytes(extra);
    ItemId::uuid(kind, h.finish())
}

impl<'a> Decoder<'a> {
    fn schema_attr(&self, schema: Schema, name: &str) -> Option<Schema> {
        match schema {
            Schema::Struct(id) => self.opts.schema_bag.and_then(|b| attr_schema(b, id, name)),
            _ => None,
        }
    }

    /// The target of messages under `schema` (OBJECT or an entity schema).
    fn target_of(schema: Schema) -> Option<Target> {
        match schema {
            Schema::Object => Some(Target::Object),
            Schema::Struct(id) => Some(Target::Entity(id)),
            _ => None,
        }
    }

    fn plan(&self, field: &Field, target: Target) -> Plan {
        let pool = self.pool;
        let natural = |f: &Field| match f.message {
            Some(m) => match target {
                Target::Uu => Schema::Struct(message_schema_id(&pool.messages[m].full_name)),
                _ => Schema::Object,
            },
            None => scalar_schema(f.ty),
        };
        let is_map = pool.is_map(field);
        match target {
            Target::Uu | Target::Object => {
                let child = target;
                let (schema, container, parts) = if is_map {
                    let (k, v) = map_fields(pool, field);
                    let d = dict_schema(natural(k), natural(v));
                    (if target == Target::Object { Schema::Object } else { d }, d, (natural(v), natural(k)))
                } else if field.repeated {
                    let l = list_schema(natural(field));
                    (if target == Target::Object { Schema::Object } else { l }, l, (natural(field), Schema::Object))
                } else {
                    (natural(field), Schema::Object, (Schema::Object, Schema::Object))
                };
                Plan { read: true, schema, cast: None, key_cast: None, child, container, parts }
            }
            Target::Entity(id) => {
                let Some(attr) = self.schema_attr(Schema::Struct(id), &field.name) else {
                    return Plan {
                        read: false,
                        schema: Schema::Object,
                        cast: None,
                        key_cast: None,
                        child: Target::Object,
                        container: Schema::Object,
                        parts: (Schema::Object, Schema::Object),
                    };
                };
                let prim = |s: Schema| if s.is_struct() || s == Schema::Object { None } else { Some(s) };
                if is_map || field.repeated {
                    let (key, value) = if is_map {
                        (self.schema_attr(attr, DICT_KEYS_ATTR), self.schema_attr(attr, DICT_VALUES_ATTR))
                    } else {
                        (None, self.schema_attr(attr, LIST_ITEMS_ATTR))
                    };
                    let value = value.unwrap_or(Schema::Object);
                    Plan {
                        read: true,
                        schema: attr,
                        cast: prim(value),
                        key_cast: key.and_then(prim),
                        child: Decoder::target_of(value).unwrap_or(Target::Object),
                        container: attr,
                        parts: (Schema::Object, Schema::Object),
                    }
                } else {
                    Plan {
                        read: true,
                        schema: attr,
                        cast: prim(attr),
                        key_cast: None,
                        child: Decoder::target_of(attr).unwrap_or(Target::Object),
                        container: Schema::Object,
                        parts: (Schema::Object, Schema::Object),
                    }
                }
            }
        }
    }

    fn group(&mut self, kind: Kind) -> u32 {
        if let Some(&g) = self.by_kind.get(&kind) {
            return g;
        }
        let mut plans = vec![];
        let mut cols = vec![];
        if let Kind::Msg { m, target } = kind {
            for f in &self.pool.messages[m].fields {
                let plan = self.plan(f, target);
                cols.push(Col { name: f.name.clone(), cells: vec![], cast: plan.cast, schema: plan.schema, field: Some(f.clone()) });
                plans.push(plan);
            }
        }
        self.groups.push(Group {
            kind,
            count: 0,
            ids: vec![],
            cols,
            ext_cols: HashMap::new(),
            items: vec![],
            keys: vec![],
            sizes: vec![],
            item_cast: None,
            key_cast: None,
            parts: (Schema::Object, Schema::Object),
            plans,
        });
        let g = (self.groups.len() - 1) as u32;
        self.by_kind.insert(kind, g);
        g
    }

    /// The column of extension `field` in group `g` (made on first use).
    fn ext_col(&mut self, g: u32, field: &Field) -> (usize, Plan) {
        let target = match self.groups[g as usize].kind {
            Kind::Msg { target, .. } => target,
            _ => Target::Uu,
        };
        let plan = self.plan(field, target);
        let group = &mut self.groups[g as usize];
        if let Some(&c) = group.ext_cols.get(&field.name) {
            return (c, plan);
        }
        group.cols.push(Col { name: field.name.clone(), cells: vec![], cast: plan.cast, schema: plan.schema, field: Some(field.clone()) });
        let c = group.cols.len() - 1;
        group.ext_cols.insert(field.name.clone(), c);
        (c, plan)
    }

    fn push_text(&mut self, b: &[u8]) -> Step<Cell> {
        let s = std::str::from_utf8(b).map_err(|_| Invalid)?;
        let start = self.text.len() as u32;
        self.text.push_str(s);
        Ok(Cell::Str(start, self.text.len() as u32))
    }

    fn push_bytes(&mut self, b: &[u8]) -> Cell {
        let start = self.bytes.len() as u32;
        self.bytes.extend_from_slice(b);
        Cell::Bytes(start, self.bytes.len() as u32)
    }

    /// One scalar of `ty` read from wire type `w` (None: wire type mismatch).
    fn scalar(&mut self, r: &mut Reader<'_>, ty: Ty, w: u32) -> Step<Option<Cell>> {
        let cell = match (ty, w) {
            (Ty::Int32 | Ty::Enum, wire::VARINT) => Cell::Int32(r.varint().ok_or(Invalid)? as i32),
            (Ty::Int64 | Ty::Uint64, wire::VARINT) => Cell::Int64(r.varint().ok_or(Invalid)? as i64),
            (Ty::Uint32, wire::VARINT) => Cell::Int64(r.varint().ok_or(Invalid)? as u32 as i64),
            (Ty::Sint32, wire::VARINT) => Cell::Int32(wire::unzigzag(r.varint().ok_or(Invalid)?) as i32),
            (Ty::Sint64, wire::VARINT) => Cell::Int64(wire::unzigzag(r.varint().ok_or(Invalid)?)),
            (Ty::Bool, wire::VARINT) => Cell::Boolean(r.varint().ok_or(Invalid)? != 0),
            (Ty::Fixed32, wire::FIXED32) => Cell::Int64(r.fixed32().ok_or(Invalid)? as i64),
            (Ty::Sfixed32, wire::FIXED32) => Cell::Int32(r.fixed32().ok_or(Invalid)? as i32),
            (Ty::Float, wire::FIXED32) => Cell::Float32(f32::from_bits(r.fixed32().ok_or(Invalid)?)),
            (Ty::Fixed64 | Ty::Sfixed64, wire::FIXED64) => Cell::Int64(r.fixed64().ok_or(Invalid)? as i64),
            (Ty::Double, wire::FIXED64) => Cell::Float64(f64::from_bits(r.fixed64().ok_or(Invalid)?)),
            (Ty::String, wire::LEN) => {
                let b = r.bytes().ok_or(Invalid)?;
                self.push_text(b)?
            }
            (Ty::Bytes, wire::LEN) => {
                let b = r.bytes().ok_or(Invalid)?;
                self.push_bytes(b)
            }
            _ => return Ok(None),
        };
        Ok(Some(cell))
    }

    fn zero(&mut self, ty: Ty) -> Cell {
        match ty {
            Ty::Int32 | Ty::Sint32 | Ty::Sfixed32 | Ty::Enum => Cell::Int32(0),
            Ty::Float => Cell::Float32(0.0),
            Ty::Double => Cell::Float64(0.0),
            Ty::Bool => Cell::Boolean(false),
            Ty::String => Cell::Str(0, 0),
            Ty::Bytes => Cell::Bytes(0, 0),
            Ty::Message | Ty::Group => Cell::Missing,
            _ => Cell::Int64(0),
        }
    }

    /// Reads one message of type `m` into its group; returns its cell.
    fn message(&mut self, data: &[u8], m: usize, target: Target, id: Option<ItemId>, ext: Option<&ExtTree>, depth: usize) -> Step<Cell> {
        if depth > MAX_DEPTH {
            return Err(Invalid);
        }
        let pool = self.pool;
        let msg = &pool.messages[m];
        let g = self.group(Kind::Msg { m, target });
        let index = {
            let group = &mut self.groups[g as usize];
            group.count += 1;
            if let Some(id) = id {
                group.ids.push(id);
            }
            group.count - 1
        };
        let n = msg.fields.len();
        let mut slots: Vec<Option<Cell>> = vec![None; n];
        let mut reps: Vec<Option<(Vec<Cell>, Vec<Cell>)>> = vec![None; n];
        let mut ext_slots: Vec<ExtSlot> = vec![];
        let mut r = Reader::new(data);
        while !r.done() {
            let (number, w) = r.tag().ok_or(Invalid)?;
            if w == wire::END_GROUP {
                return Err(Invalid);
            }
            let (field, plan, slot_kind) = match msg.by_number.get(&number) {
                Some(&i) => (&msg.fields[i], self.groups[g as usize].plans[i], Slot::Field(i)),
                None => match ext.and_then(|e| e.exts.iter().find(|f| f.number == number)) {
                    Some(f) => {
                        let (c, plan) = self.ext_col(g, f);
                        let k = match ext_slots.iter().position(|e| e.0 == c) {
                            Some(k) => k,
                            None => {
                                ext_slots.push((c, f.clone(), plan, None, None));
                                ext_slots.len() - 1
                            }
                        };
                        (f, plan, Slot::Ext(k))
                    }
                    None => {
                        r.skip(number, w, 0).ok_or(Invalid)?;
                        continue;
                    }
                },
            };
            if !plan.read || field.ty == Ty::Group {
                r.skip(number, w, 0).ok_or(Invalid)?;
                continue;
            }
            let child_ext = ext.and_then(|e| e.child(&field.name));
            let child_id = |kind: ItemKind| id.map(|p| derived(p, &field.name, kind, &[]));
            if pool.is_map(field) {
                if w != wire::LEN {
                    r.skip(number, w, 0).ok_or(Invalid)?;
                    continue;
                }
                let entry = r.bytes().ok_or(Invalid)?;
                let (kf, vf) = map_fields(pool, field);
                let mut er = Reader::new(entry);
                let (mut key, mut value, mut value_bytes) = (None, None, None);
                while !er.done() {
                    let (en, ew) = er.tag().ok_or(Invalid)?;
                    match en {
                        1 => match self.scalar(&mut er, kf.ty, ew)? {
                            Some(c) => key = Some(c),
                            None => er.skip(en, ew, 0).ok_or(Invalid)?,
                        },
                        2 if vf.message.is_some() && ew == wire::LEN => value_bytes = Some(er.bytes().ok_or(Invalid)?),
                        2 => match self.scalar(&mut er, vf.ty, ew)? {
                            Some(c) => value = Some(c),
                            None => er.skip(en, ew, 0).ok_or(Invalid)?,
                        },
                        _ => er.skip(en, ew, 0).ok_or(Invalid)?,
                    }
                }
                let key = match key {
                    Some(k) => k,
                    None => self.zero(kf.ty),
                };
                let value = match vf.message {
                    Some(vm) => {
                        let vid = id.map(|p| {
                            let dict = derived(p, &field.name, ItemKind::Dict, &[]);
                            derived(dict, "values", ItemKind::Object, &self.key_bytes(key))
                        });
                        let vext = child_ext.and_then(|e| e.child("values"));
                        self.message(value_bytes.unwrap_or(&[]), vm, plan.child, vid, vext, depth + 1)?
                    }
                    None => match value {
                        Some(v) => v,
                        None => self.zero(vf.ty),
                    },
                };
                let entry = match slot_kind {
                    Slot::Field(i) => reps[i].get_or_insert_with(Default::default),
                    Slot::Ext(k) => ext_slots[k].4.get_or_insert_with(Default::default),
                };
                entry.0.push(key);
                entry.1.push(value);
                continue;
            }
            if field.repeated {
                let list_id = child_id(ItemKind::List);
                let mut cells = vec![];
                if w == wire::LEN && field.ty.packable() {
                    let run = r.bytes().ok_or(Invalid)?;
                    let mut pr = Reader::new(run);
                    let item_wire = match field.ty {
                        Ty::Fixed32 | Ty::Sfixed32 | Ty::Float => wire::FIXED32,
                        Ty::Fixed64 | Ty::Sfixed64 | Ty::Double => wire::FIXED64,
                        _ => wire::VARINT,
                    };
                    while !pr.done() {
                        cells.push(self.scalar(&mut pr, field.ty, item_wire)?.ok_or(Invalid)?);
                    }
                } else if let (Some(cm), wire::LEN) = (field.message, w) {
                    let b = r.bytes().ok_or(Invalid)?;
                    let so_far = match slot_kind {
                        Slot::Field(i) => reps[i].as_ref().map_or(0, |x| x.1.len()),
                        Slot::Ext(k) => ext_slots[k].4.as_ref().map_or(0, |x| x.1.len()),
                    };
                    let item_id = list_id.map(|l| derived(l, "", ItemKind::Object, &(so_far as u64).to_le_bytes()));
                    cells.push(self.message(b, cm, plan.child, item_id, child_ext, depth + 1)?);
                } else {
                    match self.scalar(&mut r, field.ty, w)? {
                        Some(c) => cells.push(c),
                        None => {
                            r.skip(number, w, 0).ok_or(Invalid)?;
                            continue;
                        }
                    }
                }
                let entry = match slot_kind {
                    Slot::Field(i) => reps[i].get_or_insert_with(Default::default),
                    Slot::Ext(k) => ext_slots[k].4.get_or_insert_with(Default::default),
                };
                entry.1.extend(cells);
                continue;
            }
            let cell = if let (Some(cm), wire::LEN) = (field.message, w) {
                let b = r.bytes().ok_or(Invalid)?;
                Some(self.message(b, cm, plan.child, child_id(ItemKind::Object), child_ext, depth + 1)?)
            } else if field.message.is_some() {
                None
            } else {
                self.scalar(&mut r, field.ty, w)?
            };
            let Some(cell) = cell else {
                r.skip(number, w, 0).ok_or(Invalid)?;
                continue;
            };
            match slot_kind {
                Slot::Field(i) => slots[i] = Some(cell),
                Slot::Ext(k) => ext_slots[k].3 = Some(cell),
            }
        }
        // Values into the columns (unset fields without presence read as zero).
        for (i, f) in msg.fields.iter().enumerate() {
            let plan = &self.groups[g as usize].plans[i];
            if !plan.read {
                continue;
            }
            let cell = if let Some(items) = reps[i].take() {
                let plan = *plan;
                Some(self.container(f, &plan, items, id))
            } else if let Some(c) = slots[i] {
                Some(c)
            } else if !f.presence && !f.repeated && f.message.is_none() && !f.in_oneof {
                Some(self.zero(f.ty))
            } else {
                None
            };
            if let Some(cell) = cell {
                self.groups[g as usize].cols[i].cells.push((index, cell));
            }
        }
        for (c, f, plan, cell, items) in ext_slots {
            let cell = match items {
                Some(items) => Some(self.container(&f, &plan, items, id)),
                None => cell,
            };
            if let Some(cell) = cell {
                self.groups[g as usize].cols[c].cells.push((index, cell));
            }
        }
        Ok(Cell::Container(g, index))
    }

    fn key_bytes(&self, key: Cell) -> Vec<u8> {
        match key {
            Cell::Int32(v) => (v as i64).to_le_bytes().to_vec(),
            Cell::Int64(v) => v.to_le_bytes().to_vec(),
            Cell::Boolean(v) => vec![v as u8],
            Cell::Str(a, b) => self.text.as_bytes()[a as usize..b as usize].to_vec(),
            _ => vec![],
        }
    }

    /// A list (repeated field) or dict (map) of `items` (keys, values).
    fn container(&mut self, field: &Field, plan: &Plan, items: (Vec<Cell>, Vec<Cell>), parent: Option<ItemId>) -> Cell {
        let object = matches!(plan.child, Target::Object) && plan.schema == Schema::Object;
        let is_map = self.pool.is_map(field);
        let kind = if is_map { Kind::Dict { schema: plan.container, object } } else { Kind::List { schema: plan.container, object } };
        let g = self.group(kind);
        let group = &mut self.groups[g as usize];
        group.item_cast = plan.cast;
        group.key_cast = plan.key_cast;
        group.parts = plan.parts;
        if let Some(p) = parent {
            group.ids.push(derived(p, &field.name, if is_map { ItemKind::Dict } else { ItemKind::List }, &[]));
        }
        group.sizes.push(items.1.len() as i64);
        group.keys.extend(items.0);
        group.items.extend(items.1);
        group.count += 1;
        Cell::Container(g, group.count - 1)
    }
}

enum Slot {
    Field(usize),
    Ext(usize),
}

/// An extension read in one message: its column, field, plan, value, and
/// items (keys, values) when repeated.
type ExtSlot = (usize, Field, Plan, Option<Cell>, Option<(Vec<Cell>, Vec<Cell>)>);

/// Whether `data` is a well-formed message of type `m` (as reading it
/// would need: fields of known types, valid UTF-8 text, nesting bounded).
pub fn is_valid(pool: &Pool, data: &[u8], m: usize, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    let msg = &pool.messages[m];
    let mut r = Reader::new(data);
    while !r.done() {
        let Some((number, w)) = r.tag() else { return false };
        if w == wire::END_GROUP {
            return false;
        }
        let field = msg.by_number.get(&number).map(|&i| &msg.fields[i]).or_else(|| msg.extensions.iter().find(|f| f.number == number));
        let ok = match (field, w) {
            (Some(f), wire::LEN) if f.ty == Ty::String => r.bytes().is_some_and(|b| std::str::from_utf8(b).is_ok()),
            (Some(f), wire::LEN) if f.message.is_some() && f.ty != Ty::Group => {
                r.bytes().is_some_and(|b| is_valid(pool, b, f.message.unwrap_or(0), depth + 1))
            }
            (Some(f), wire::LEN) if f.repeated && f.ty.packable() => r.bytes().is_some_and(|b| {
                let mut pr = Reader::new(b);
                while !pr.done() {
                    let ok = match f.ty {
                        Ty::Fixed32 | Ty::Sfixed32 | Ty::Float => pr.fixed32().is_some(),
                        Ty::Fixed64 | Ty::Sfixed64 | Ty::Double => pr.fixed64().is_some(),
                        _ => pr.varint().is_some(),
                    };
                    if !ok {
                        return false;
                    }
                }
                true
            }),
            _ => r.skip(number, w, 0).is_some(),
        };
        if !ok {
            return false;
        }
    }
    true
}

/// Reads the messages `inputs` (None: missing) under `opts`; returns a flat
/// slice of them (`on_invalid` where a message is invalid and
/// `on_invalid` is given, else an error) in a new bag.
pub fn decode(
    inputs: &[Option<&[u8]>],
    opts: &Options<'_>,
    on_invalid: Option<&DataSlice>,
    parse_error: &str,
) -> Result<(SliceData, Schema, DataBag)> {
    let mut dec = Decoder { opts, pool: opts.pool, text: String::new(), bytes: vec![], groups: vec![], by_kind: HashMap::new() };
    let roots: Option<Vec<Option<ItemId>>> = opts.itemids.map(|ids| {
        (0..ids.size())
            .map(|i| match ids.get(i) {
                Some(ScalarRef::ItemId(id)) => Some(id),
                _ => None,
            })
            .collect()
    });
    let mut cells = Vec::with_capacity(inputs.len());
    for (i, input) in inputs.iter().enumerate() {
        let Some(data) = input else {
            cells.push(Cell::Missing);
            continue;
        };
        if on_invalid.is_some() && !is_valid(opts.pool, data, opts.root, 0) {
            cells.push(Cell::Invalid);
            continue;
        }
        let id = roots.as_ref().map(|r| r.get(i).copied().flatten().unwrap_or_else(|| allocate(ItemKind::Object, 1).1[0]));
        match dec.message(data, opts.root, opts.target, id, Some(opts.extensions), 0) {
            Ok(c) => cells.push(c),
            Err(Invalid) => return Err(Error::value(opts.op, parse_error.to_string())),
        }
    }
    dec.finish(cells, on_invalid)
}

impl Decoder<'_> {
    fn data(&self, cells: &[Cell], ids: &[Vec<ItemId>], invalid: Option<ScalarRef<'_>>) -> SliceData {
        cells_data(cells, &self.text, &self.bytes, ids, invalid)
    }

    fn cast(&self, data: SliceData, to: Option<Schema>) -> Result<SliceData> {
        let Some(to) = to else { return Ok(data) };
        let n = data.len();
        let x = DataSlice::new(JaggedShape::flat(n), data, Schema::Object)?;
        Ok(cast_to(self.opts.op, &x, to)?.data().clone())
    }

    fn finish(self, cells: Vec<Cell>, on_invalid: Option<&DataSlice>) -> Result<(SliceData, Schema, DataBag)> {
        let bag = DataBag::new_mutable();
        let ids: Vec<Vec<ItemId>> = self
            .groups
            .iter()
            .map(|g| {
                if g.ids.len() == g.count as usize {
                    return g.ids.clone();
                }
                let kind = match g.kind {
                    Kind::Msg { .. } => ItemKind::Object,
                    Kind::List { .. } => ItemKind::List,
                    Kind::Dict { .. } => ItemKind::Dict,
                };
                allocate(kind, g.count as usize).1
            })
            .collect();
        let pool = self.pool;
        let mut error = None;
        let mut uu_written = vec![false; pool.messages.len()];
        bag.fill(|w| {
            for (gi, group) in self.groups.iter().enumerate() {
                let gids: Vec<Option<ItemId>> = ids[gi].iter().map(|&i| Some(i)).collect();
                match group.kind {
                    Kind::Msg { m, target } => {
                        let implicit: Vec<Option<ItemId>> = gids.iter().map(|i| i.map(|i| i.with_kind(ItemKind::ImplicitSchema))).collect();
                        if target == Target::Object {
                            w.set_attr(SCHEMA_ATTR, &gids, &schemas_data(implicit.iter().map(|s| s.map(Schema::Struct)).collect()));
                        }
                        let schema_id = message_schema_id(&pool.messages[m].full_name);
                        if target == Target::Uu && !uu_written[m] {
                            uu_written[m] = true;
                            write_metadata(w, pool, m);
                        }
                        for col in &group.cols {
                            let field = col.field.as_ref().expect("a field column");
                            let implicit_field = !field.presence && !field.repeated && field.message.is_none() && !field.in_oneof;
                            if target == Target::Uu && (implicit_field || !col.cells.is_empty()) {
                                w.set_attr(&col.name, &[Some(schema_id)], &schemas_data(vec![Some(col.schema)]));
                                write_container_schema(w, pool, field);
                            }
                            if col.cells.is_empty() {
                                continue;
                            }
                            let who: Vec<Option<ItemId>> = col.cells.iter().map(|(k, _)| gids[*k as usize]).collect();
                            let values: Vec<Cell> = col.cells.iter().map(|(_, c)| *c).collect();
                            match self.cast(self.data(&values, &ids, None), col.cast) {
                                Ok(d) => w.set_attr(&col.name, &who, &d),
                                Err(e) => error = Some(e),
                            }
                            if target == Target::Object {
                                let schemas: Vec<Option<ItemId>> = col.cells.iter().map(|(k, _)| implicit[*k as usize]).collect();
                                w.set_attr(&col.name, &schemas, &schemas_data(vec![Some(col.schema); schemas.len()]));
                            }
                        }
                    }
                    Kind::List { schema, object } => {
                        match (Edge::from_sizes(&group.sizes), self.cast(self.data(&group.items, &ids, None), group.item_cast)) {
                            (Ok(edge), Ok(items)) => w.set_lists(&gids, &edge, &items),
                            (Err(e), _) | (_, Err(e)) => error = Some(e),
                        }
                        if object {
                            w.set_attr(SCHEMA_ATTR, &gids, &schemas_data(vec![Some(schema); gids.len()]));
                            if let Schema::Struct(id) = schema {
                                w.set_attr(LIST_ITEMS_ATTR, &[Some(id)], &schemas_data(vec![Some(group.parts.0)]));
                            }
                        }
                    }
                    Kind::Dict { schema, object } => {
                        let keys = self.cast(self.data(&group.keys, &ids, None), group.key_cast);
                        let values = self.cast(self.data(&group.items, &ids, None), group.item_cast);
                        match (Edge::from_sizes(&group.sizes), keys, values) {
                            (Ok(edge), Ok(k), Ok(v)) => w.set_dicts(&gids, &edge, &k, &v),
                            (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => error = Some(e),
                        }
                        if object {
                            w.set_attr(SCHEMA_ATTR, &gids, &schemas_data(vec![Some(schema); gids.len()]));
                            if let Schema::Struct(id) = schema {
                                w.set_attr(DICT_KEYS_ATTR, &[Some(id)], &schemas_data(vec![Some(group.parts.1)]));
                                w.set_attr(DICT_VALUES_ATTR, &[Some(id)], &schemas_data(vec![Some(group.parts.0)]));
                            }
                        }
                    }
                }
            }
            if self.opts.target == Target::Uu && !uu_written[self.opts.root] {
                // No message was read: the schema still has the fields every
                // message has.
                let m = self.opts.root;
                write_metadata(w, pool, m);
                let schema_id = message_schema_id(&pool.messages[m].full_name);
                for f in &pool.messages[m].fields {
                    if !f.presence && !f.repeated && f.message.is_none() && !f.in_oneof {
                        w.set_attr(&f.name, &[Some(schema_id)], &schemas_data(vec![Some(scalar_schema(f.ty))]));
                    }
                }
            }
        });
        if let Some(e) = error {
            return Err(e);
        }
        let data = match on_invalid {
            Some(v) if cells.iter().any(|c| matches!(c, Cell::Invalid)) => {
                // Each invalid message takes `on_invalid` at its position.
                let mut b = SliceBuilder::with_capacity(cells.len());
                for (i, c) in cells.iter().enumerate() {
                    match c {
                        Cell::Invalid => b.push(v.get(if v.size() == 1 { 0 } else { i })),
                        other => {
                            let d = self.data(std::slice::from_ref(other), &ids, None);
                            b.push(d.get(0));
                        }
                    }
                }
                b.finish()
            }
            _ => self.data(&cells, &ids, None),
        };
        let schema = match self.opts.target {
            Target::Uu => Schema::Struct(message_schema_id(&pool.messages[self.opts.root].full_name)),
            Target::Object => Schema::Object,
            Target::Entity(id) => Schema::Struct(id),
        };
        Ok((data, schema, bag))
    }
}
