//! Whether two DataSlices hold the same data (`kd.testing.assert_equivalent`),
//! and where they first differ.
//!
//! The two slices are walked side by side: items of one shape, entities and
//! objects by their attributes, lists by their items, dicts by their
//! entries (matched by key), each pair of items once (cycles and shared
//! items end the walk). Options, as Koda's:
//! * `schemas`: schemas must be the same — primitive types, a list or dict
//!   schema (by what it holds), an explicit entity schema by its id; the
//!   implicit schemas of objects by their attributes. Without it the values
//!   alone count (INT32 `1` and INT64 `1` agree; a missing attribute and one
//!   set to None too).
//! * `ids`: entities, objects, lists and dicts must have the same ids.
//! * `partial`: only the attributes `expected` has are compared.
//!
//! The walk keeps its own stack, so no depth of data reaches the native one.

use std::collections::{HashMap, HashSet};

use plait_core::bag::SCHEMA_ATTR;
use plait_core::bag::Stored;
use plait_core::bag::text::{DICT_VALUES_ATTR, LIST_ITEMS_ATTR};

use plait_core::{DataBag, DataSlice, ItemId, ItemKind, Result, ScalarRef, Schema};

use super::model::attr_schema;

/// What `assert_equivalent` compares (see the module comment).
#[derive(Clone, Copy, Debug)]
pub struct Options {
    pub partial: bool,
    pub schemas: bool,
    pub ids: bool,
}

/// One value of a side: its schema (as declared where it is held) and the
/// value, if present.
type Value = (Schema, Option<Stored>);

enum Task {
    /// Two values at `path`.
    Values { path: Path, actual: Value, expected: Value },
    /// Two schemas at `path`; `by_content` compares explicit schemas by what
    /// they hold rather than by id (schemas held as values).
    Schemas { path: Path, actual: Schema, expected: Schema, by_content: bool },
}

struct Walk<'a> {
    actual_bag: Option<&'a DataBag>,
    expected_bag: Option<&'a DataBag>,
    options: Options,
    seen_items: HashSet<(ItemId, ItemId)>,
    seen_schemas: HashSet<(ItemId, ItemId, bool)>,
    tasks: Vec<Task>,
    /// Where each value is: its parent's place and its own step (`.a`,
    /// `[0]`), written out only for a difference (a path carried as text
    /// would grow with the depth at every step).
    steps: Vec<(Path, String)>,
}

/// A place in the walk (an index into `Walk::steps`; 0 is the root).
type Path = usize;

/// Where `actual` and `expected` first differ (`None`: they are
/// equivalent), as `path: what`.
pub fn first_difference(actual: &DataSlice, expected: &DataSlice, options: Options) -> Result<Option<String>> {
    if actual.shape() != expected.shape() {
        return Ok(Some(format!("shapes differ: {} vs {}", actual.shape(), expected.shape())));
    }
    let (actual_bag, expected_bag) = (actual.bag().map(DataBag::for_walk), expected.bag().map(DataBag::for_walk));
    let mut walk = Walk {
        actual_bag: actual_bag.as_ref(),
        expected_bag: expected_bag.as_ref(),
        options,
        seen_items: HashSet::new(),
        seen_schemas: HashSet::new(),
        tasks: Vec::new(),
        steps: vec![(0, String::new())],
    };
    for i in (0..actual.size()).rev() {
        let path = walk.child(0, if actual.is_item() { "item".to_string() } else { format!("item {i}") });
        let actual = (actual.schema(), actual.get(i).map(Stored::from_ref));
        let expected = (expected.schema(), expected.get(i).map(Stored::from_ref));
        walk.tasks.push(Task::Values { path, actual, expected });
    }
    if options.schemas {
        let path = walk.child(0, "schema".to_string());
        walk.tasks.push(Task::Schemas { path, actual: actual.schema(), expected: expected.schema(), by_content: false });
    }
    while let Some(task) = walk.tasks.pop() {
        let difference = match task {
            Task::Values { path, actual, expected } => walk.values(path, actual, expected)?,
            Task::Schemas { path, actual, expected, by_content } => walk.schemas(path, actual, expected, by_content),
        };
        if difference.is_some() {
            return Ok(difference);
        }
    }
    Ok(None)
}

/// The text of a value in a difference.
fn text(value: &Option<Stored>) -> String {
    match value.as_ref().map(Stored::as_ref) {
        None => "None".to_string(),
        Some(ScalarRef::ItemId(id)) => id.repr(),
        Some(v) => {
            let mut out = String::new();
            plait_core::repr::write_item(&mut out, Some(v), v.dtype(), true);
            out
        }
    }
}

/// Primitive values the same: of one type (NaN differs from itself), or,
/// without `schemas`, both integers or both floats of the same value.
fn same_primitive(a: ScalarRef<'_>, b: ScalarRef<'_>, schemas: bool) -> bool {
    use ScalarRef::*;
    match (a, b) {
        (Int32(x), Int64(y)) | (Int64(y), Int32(x)) if !schemas => x as i64 == y,
        (Float32(x), Float64(y)) | (Float64(y), Float32(x)) if !schemas => x as f64 == y,
        (Float32(x), Float32(y)) => x == y,
        (Float64(x), Float64(y)) => x == y,
        (Expr(x), Expr(y)) => x.fingerprint() == y.fingerprint(),
        (x, y) => x == y,
    }
}

impl Walk<'_> {
    /// The place `step` below `parent`.
    fn child(&mut self, parent: Path, step: String) -> Path {
        self.steps.push((parent, step));
        self.steps.len() - 1
    }

    /// `path` written out (`item 0.a[1]`).
    fn path_text(&self, mut path: Path) -> String {
        let mut steps = Vec::new();
        while path != 0 {
            let (parent, step) = &self.steps[path];
            steps.push(step.as_str());
            path = *parent;
        }
        steps.into_iter().rev().collect()
    }

    /// The schema an item of declared schema `schema` has: an object's own
    /// (`__schema__`), a primitive's type.
    fn item_schema(bag: Option<&DataBag>, schema: Schema, value: &Stored) -> Option<Schema> {
        match (schema, value.as_ref()) {
            (Schema::Object, ScalarRef::ItemId(id)) => bag?.get_one(SCHEMA_ATTR, id).and_then(|s| s.schema()),
            (Schema::Object, v) => Some(v.dtype()),
            (s, _) => Some(s),
        }
    }

    fn values(&mut self, path: Path, actual: Value, expected: Value) -> Result<Option<String>> {
        let (schemas, ids) = (self.options.schemas, self.options.ids);
        let (a_schema, a) = actual;
        let (b_schema, b) = expected;
        if schemas && a_schema != b_schema {
            // (Two struct schemas: the schema walk judges them.)
            if !(a_schema.is_struct() && b_schema.is_struct()) {
                return Ok(Some(format!("{}: schema {a_schema} vs {b_schema}", self.path_text(path))));
            }
            let child = self.child(path, " schema".to_string());
            self.tasks.push(Task::Schemas { path: child, actual: a_schema, expected: b_schema, by_content: false });
        }
        let (a, b) = match (a, b) {
            (None, None) => return Ok(None),
            (Some(a), Some(b)) => (a, b),
            (a, b) => return Ok(Some(format!("{}: {} vs {}", self.path_text(path), text(&a), text(&b)))),
        };
        let (a_item, b_item) = (Self::item_schema(self.actual_bag, a_schema, &a), Self::item_schema(self.expected_bag, b_schema, &b));
        if schemas && a_schema == Schema::Object && b_schema == Schema::Object {
            match (a_item, b_item) {
                (Some(x), Some(y)) if x.is_struct() && y.is_struct() => {
                    let child = self.child(path, " schema".to_string());
                    self.tasks.push(Task::Schemas { path: child, actual: x, expected: y, by_content: false });
                }
                (x, y) if x != y => {
                    let name = |s: Option<Schema>| s.map_or_else(|| "none".to_string(), |s| s.to_string());
                    return Ok(Some(format!("{}: schema {} vs {}", self.path_text(path), name(x), name(y))));
                }
                _ => {}
            }
        }
        let (a_ref, b_ref) = (a.as_ref(), b.as_ref());
        match (a_ref, b_ref) {
            (ScalarRef::ItemId(x), ScalarRef::ItemId(y)) => {
                if ids && x != y {
                    return Ok(Some(format!("{}: id {} vs {}", self.path_text(path), x.repr(), y.repr())));
                }
                if x.is_list() != y.is_list() || x.is_dict() != y.is_dict() {
                    return Ok(Some(format!("{}: {} vs {}", self.path_text(path), x.repr(), y.repr())));
                }
                if !self.seen_items.insert((x, y)) {
                    return Ok(None);
                }
                self.contents(path, x, a_item, y, b_item)
            }
            (ScalarRef::Schema(x), ScalarRef::Schema(y)) => {
                if ids && x.is_struct() && x != y {
                    return Ok(Some(format!("{}: id of {x} vs {y}", self.path_text(path))));
                }
                self.tasks.push(Task::Schemas { path, actual: x, expected: y, by_content: true });
                Ok(None)
            }
            (x, y) if same_primitive(x, y, schemas) => Ok(None),
            _ => Ok(Some(format!("{}: {} vs {}", self.path_text(path), text(&Some(a)), text(&Some(b))))),
        }
    }

    /// The contents of list, dict or entity `a` (of schema `a_schema`) and
    /// `b`, queued for comparison.
    fn contents(&mut self, path: Path, a: ItemId, a_schema: Option<Schema>, b: ItemId, b_schema: Option<Schema>) -> Result<Option<String>> {
        let (a_bag, b_bag) = (self.actual_bag, self.expected_bag);
        let struct_id = |s: Option<Schema>| match s {
            Some(Schema::Struct(id)) => Some(id),
            _ => None,
        };
        let (a_sid, b_sid) = (struct_id(a_schema), struct_id(b_schema));
        let held = |bag: Option<&DataBag>, sid: Option<ItemId>, attr: &str| {
            bag.zip(sid).and_then(|(bag, sid)| attr_schema(bag, sid, attr)).unwrap_or(Schema::Object)
        };
        if a.is_list() {
            let items = |bag: Option<&DataBag>, id: ItemId| -> Result<Vec<Option<Stored>>> {
                let Some(bag) = bag else { return Ok(Vec::new()) };
                let (_, data) = bag.explode(&[Some(id)])?;
                Ok((0..data.len()).map(|i| data.get(i).map(Stored::from_ref)).collect())
            };
            let (xs, ys) = (items(a_bag, a)?, items(b_bag, b)?);
            if xs.len() != ys.len() {
                return Ok(Some(format!("{}: a list of {} items vs {}", self.path_text(path), xs.len(), ys.len())));
            }
            let (xs_schema, ys_schema) = (held(a_bag, a_sid, LIST_ITEMS_ATTR), held(b_bag, b_sid, LIST_ITEMS_ATTR));
            for (i, (x, y)) in xs.into_iter().zip(ys).enumerate().rev() {
                let child = self.child(path, format!("[{i}]"));
                self.tasks.push(Task::Values { path: child, actual: (xs_schema, x), expected: (ys_schema, y) });
            }
            return Ok(None);
        }
        if a.is_dict() {
            let entries = |bag: Option<&DataBag>, id: ItemId| -> Result<Vec<(Stored, Option<Stored>)>> {
                let Some(bag) = bag else { return Ok(Vec::new()) };
                let (_, keys, values) = bag.dict_entries(&[Some(id)])?;
                Ok((0..keys.len()).filter_map(|i| Some((Stored::from_ref(keys.get(i)?), values.get(i).map(Stored::from_ref)))).collect())
            };
            let (xs, ys) = (entries(a_bag, a)?, entries(b_bag, b)?);
            if xs.len() != ys.len() {
                return Ok(Some(format!("{}: a dict of {} entries vs {}", self.path_text(path), xs.len(), ys.len())));
            }
            let value_schema = |bag, sid| held(bag, sid, DICT_VALUES_ATTR);
            let (xs_schema, ys_schema) = (value_schema(a_bag, a_sid), value_schema(b_bag, b_sid));
            // Keys match by their typed value (INT32 1 and INT64 1 are two keys).
            let by_key: HashMap<String, Option<Stored>> = ys.into_iter().map(|(k, v)| (format!("{k:?}"), v)).collect();
            for (k, x) in xs {
                let Some(y) = by_key.get(&format!("{k:?}")) else {
                    return Ok(Some(format!("{}: key {} only in actual", self.path_text(path), text(&Some(k)))));
                };
                let key = text(&Some(k));
                let child = self.child(path, format!("[{key}]"));
                self.tasks.push(Task::Values { path: child, actual: (xs_schema, x), expected: (ys_schema, y.clone()) });
            }
            // (Key schemas are compared with the dicts' schemas.)
            return Ok(None);
        }
        let names = |bag, sid: Option<ItemId>| sid.map_or_else(Vec::new, |sid| attr_names(bag, sid));
        let mut all = names(b_bag, b_sid);
        if !self.options.partial {
            for name in names(a_bag, a_sid) {
                if !all.contains(&name) {
                    all.push(name);
                }
            }
        }
        all.sort();
        for name in all.into_iter().rev() {
            let value = |bag: Option<&DataBag>, sid: Option<ItemId>, id: ItemId| -> Value {
                let schema = sid.map_or(Schema::None, |sid| declared(bag, sid, &name));
                (schema, bag.and_then(|bag| bag.get_one(&name, id)))
            };
            let (x, y) = (value(a_bag, a_sid, a), value(b_bag, b_sid, b));
            let child = self.child(path, format!(".{name}"));
            self.tasks.push(Task::Values { path: child, actual: x, expected: y });
        }
        Ok(None)
    }

    /// Two schemas the same (see the module comment); the attributes of
    /// struct schemas compared by content are queued.
    fn schemas(&mut self, path: Path, a: Schema, b: Schema, by_content: bool) -> Option<String> {
        let (x, y) = match (a, b) {
            (Schema::Struct(x), Schema::Struct(y)) => (x, y),
            _ if a == b => return None,
            _ => return Some(format!("{}: {a} vs {b}", self.path_text(path))),
        };
        let implicit = |id: ItemId| matches!(id.kind(), ItemKind::ImplicitSchema | ItemKind::NofollowImplicitSchema);
        if !by_content && !implicit(x) && !implicit(y) {
            let text = |id: ItemId, bag: Option<&DataBag>| plait_core::bag::text::schema_text(Schema::Struct(id), bag);
            return (x != y).then(|| format!("{}: {} vs {}", self.path_text(path), text(x, self.actual_bag), text(y, self.expected_bag)));
        }
        if !self.seen_schemas.insert((x, y, by_content)) {
            return None;
        }
        let (mut xs, mut ys) = (attr_names(self.actual_bag, x), attr_names(self.expected_bag, y));
        if self.options.partial {
            xs.retain(|n| ys.contains(n));
        }
        xs.sort();
        ys.sort();
        if xs != ys {
            return Some(format!("{}: attributes {xs:?} vs {ys:?}", self.path_text(path)));
        }
        for name in xs.into_iter().rev() {
            let (sa, sb) = (declared(self.actual_bag, x, &name), declared(self.expected_bag, y, &name));
            let child = self.child(path, format!(".{name}"));
            self.tasks.push(Task::Schemas { path: child, actual: sa, expected: sb, by_content });
        }
        None
    }
}

/// The attributes struct schema `id` declares in `bag` (none without one),
/// `__schema__` and the like left out.
fn attr_names(bag: Option<&DataBag>, id: ItemId) -> Vec<String> {
    bag.map_or_else(Vec::new, |bag| bag.attr_names(id).into_iter().filter(|n| !plait_core::bag::is_internal_attr(n)).collect())
}

/// The schema struct schema `id` declares for attribute `name` in `bag`
/// (NONE where it declares none).
fn declared(bag: Option<&DataBag>, id: ItemId, name: &str) -> Schema {
    bag.and_then(|bag| attr_schema(bag, id, name)).unwrap_or(Schema::None)
}
