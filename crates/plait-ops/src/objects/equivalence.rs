//! Whether two DataSlices hold the same data (`kd.testing.assert_equivalent`),
//! and, where they do not, Koda's report of how they differ.
//!
//! The two slices are walked side by side: items of one shape, entities and
//! objects by their attributes, lists by their items, dicts by their
//! entries (matched by key), each pair of items once (cycles and shared
//! items end the walk). Options, as Koda's:
//! * `schemas`: the schemas values are held under must be the same —
//!   primitive types, list and dict schemas (by what they hold), explicit
//!   entity schemas by id; an object's own schema is not compared, but the
//!   schemas it gives its attributes are. Without it the values alone count
//!   (INT32 `1` and INT64 `1` agree; an attribute set to None and a missing
//!   one too).
//! * `ids`: entities, objects, lists and dicts must have the same ids.
//! * `partial`: only the attributes `expected` has are compared.
//!
//! Schemas held as values are compared by what they hold.
//!
//! The report is Koda's: both slices, then up to [`MAX_DIFFERENCES`]
//! differences, each `modified` / `modified schema` / `added` / `deleted`
//! with its place (`expected.S[2].a`, `item at position 1 in list
//! expected.x`, `key 'k' in expected`) and the items there.
//!
//! The walk keeps its own stack, so no depth of data reaches the native one.

use std::collections::{HashMap, HashSet};

use plait_core::bag::SCHEMA_ATTR;
use plait_core::bag::Stored;
use plait_core::bag::text::{DICT_VALUES_ATTR, LIST_ITEMS_ATTR};
use plait_core::repr::{Header, REPR, ReprOptions, STR, repr_with};

use plait_core::{DataBag, DataSlice, ItemId, ItemKind, Result, ScalarRef, Schema};

use super::model::attr_schema;

/// What `assert_equivalent` compares (see the module comment).
#[derive(Clone, Copy, Debug)]
pub struct Options {
    pub partial: bool,
    pub schemas: bool,
    pub ids: bool,
}

/// The most differences a report lists (Koda's number).
pub const MAX_DIFFERENCES: usize = 5;

/// One value of a side: the schema it is held under and the value, if
/// present.
type Value = (Schema, Option<Stored>);

/// A place in the walk (an index into `Walk::steps`; 0 is the top).
type Path = usize;

/// One step from a value to one it holds.
enum Step {
    Top,
    /// Item `i` of a slice (flat index).
    SliceItem(usize),
    Attr(String),
    ListItem(usize),
    /// A dict's entry, by the key's text.
    Key(String),
}

/// Two values to compare at `path`.
struct Task {
    path: Path,
    actual: Value,
    expected: Value,
}

struct Walk<'a> {
    actual_bag: Option<&'a DataBag>,
    expected_bag: Option<&'a DataBag>,
    options: Options,
    seen_items: HashSet<(ItemId, ItemId)>,
    seen_schemas: HashSet<(ItemId, ItemId)>,
    tasks: Vec<Task>,
    /// Where each value is: its parent's place and its own step, written
    /// out only for a difference (a path carried as text would grow with
    /// the depth at every step).
    steps: Vec<(Path, Step)>,
    /// The differences found, as text.
    found: Vec<String>,
}

/// Koda's report of how `actual` and `expected` differ (`None`: they are
/// equivalent).
pub fn difference_report(actual: &DataSlice, expected: &DataSlice, options: Options) -> Result<Option<String>> {
    let differences = if actual.shape() != expected.shape() {
        format!("expected both DataSlices to be of the same shape but got {} and {}", actual.shape(), expected.shape())
    } else {
        let found = differences(actual, expected, options)?;
        if found.is_empty() {
            return Ok(None);
        }
        found.join("\n")
    };
    // The slices themselves print one level deep, their items as ids,
    // text shortened to 100 characters.
    let options = ReprOptions { depth: 1, attributes: false, max_str_len: Some(100), ..REPR };
    let header = Header { schema: true, shape: true, ..Header::default() };
    let (actual, expected) = (repr_with(actual, &options, &header), repr_with(expected, &options, &header));
    Ok(Some(format!("Expected: is equal to {expected}\nActual: {actual}, with difference:\n{differences}")))
}

/// The differences between `actual` and `expected`, of one shape, as text
/// (at most [`MAX_DIFFERENCES`]).
fn differences(actual: &DataSlice, expected: &DataSlice, options: Options) -> Result<Vec<String>> {
    let (actual_bag, expected_bag) = (actual.bag().map(DataBag::for_walk), expected.bag().map(DataBag::for_walk));
    let mut walk = Walk {
        actual_bag: actual_bag.as_ref(),
        expected_bag: expected_bag.as_ref(),
        options,
        seen_items: HashSet::new(),
        seen_schemas: HashSet::new(),
        tasks: Vec::new(),
        steps: vec![(0, Step::Top)],
        found: Vec::new(),
    };
    // Pushed first, popped last: the last items are reported first, as
    // Koda's.
    for i in 0..actual.size() {
        let path = if actual.is_item() { 0 } else { walk.child(0, Step::SliceItem(i)) };
        let actual = (actual.schema(), actual.get(i).map(Stored::from_ref));
        let expected = (expected.schema(), expected.get(i).map(Stored::from_ref));
        walk.tasks.push(Task { path, actual, expected });
    }
    while let Some(task) = walk.tasks.pop() {
        if walk.found.len() >= MAX_DIFFERENCES {
            break;
        }
        walk.values(task)?;
    }
    walk.found.truncate(MAX_DIFFERENCES);
    Ok(walk.found)
}

/// The text of a dict key in a place (`'k'`, `1`).
fn key_text(key: &Stored) -> String {
    match key.as_ref() {
        ScalarRef::ItemId(id) => id.repr(),
        v => {
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

/// A schema as a value (of schema SCHEMA).
fn schema_value(schema: Schema) -> Value {
    (Schema::Schema, Some(Stored::from_ref(ScalarRef::Schema(schema))))
}

impl Walk<'_> {
    /// The place `step` below `parent`.
    fn child(&mut self, parent: Path, step: Step) -> Path {
        self.steps.push((parent, step));
        self.steps.len() - 1
    }

    /// `path` on side `side` (`actual` / `expected`) as Koda writes it:
    /// `expected.S[0].a[1]`, or for a list item or dict entry itself `item
    /// at position 1 in list expected.a` / `key 'k' in expected`.
    fn place(&self, path: Path, side: &str) -> String {
        let (lead, mut at) = match &self.steps[path].1 {
            Step::ListItem(i) => (format!("item at position {i} in list "), self.steps[path].0),
            Step::Key(k) => (format!("key {k} in "), self.steps[path].0),
            _ => (String::new(), path),
        };
        let mut steps = Vec::new();
        while at != 0 {
            let (parent, step) = &self.steps[at];
            steps.push(match step {
                Step::Top => String::new(),
                Step::SliceItem(i) => format!(".S[{i}]"),
                Step::Attr(name) => format!(".{name}"),
                Step::ListItem(i) => format!("[{i}]"),
                Step::Key(k) => format!("[{k}]"),
            });
            at = *parent;
        }
        steps.reverse();
        format!("{lead}{side}{}", steps.concat())
    }

    /// A value as a difference shows it: an item of its schema, in full;
    /// with its id where ids are compared or `with_id` says.
    fn item_text(&self, bag: Option<&DataBag>, value: &Value, with_id: bool) -> Result<String> {
        let item = DataSlice::item(value.1.as_ref().map(Stored::as_ref), value.0)?.with_bag(bag.cloned());
        let item_id = self.options.ids || with_id;
        Ok(repr_with(&item, &STR, &Header { schema: true, item_id, ..Header::default() }))
    }

    /// Records that the values at `path` differ (`schema`: the schemas
    /// they are held under, which show with their ids).
    fn modified(&mut self, path: Path, actual: &Value, expected: &Value, schema: bool) -> Result<()> {
        let what = if schema { "modified schema" } else { "modified" };
        let expected = format!("{}:\n{}", self.place(path, "expected"), self.item_text(self.expected_bag, expected, schema)?);
        let actual = format!("{}:\n{}", self.place(path, "actual"), self.item_text(self.actual_bag, actual, schema)?);
        self.found.push(format!("{what}:\n{expected}\n-> {actual}"));
        Ok(())
    }

    /// Records a value only `actual` has at `path` (`added`), or only
    /// `expected` (`deleted`).
    fn one_sided(&mut self, path: Path, value: &Value, in_actual: bool) -> Result<()> {
        let (what, side, bag) = if in_actual { ("added", "actual", self.actual_bag) } else { ("deleted", "expected", self.expected_bag) };
        let text = format!("{what}:\n{}:\n{}", self.place(path, side), self.item_text(bag, value, false)?);
        self.found.push(text);
        Ok(())
    }

    fn values(&mut self, task: Task) -> Result<()> {
        let Task { path, actual, expected } = task;
        let (options, (a_schema, a), (b_schema, b)) = (self.options, &actual, &expected);
        let implicit =
            |s: &Schema| matches!(s, Schema::Struct(id) if matches!(id.kind(), ItemKind::ImplicitSchema | ItemKind::NofollowImplicitSchema));
        if options.schemas && a_schema != b_schema && !(implicit(a_schema) && implicit(b_schema)) {
            return self.modified(path, &schema_value(*a_schema), &schema_value(*b_schema), true);
        }
        let (x, y) = match (a, b) {
            (None, None) => return Ok(()),
            (Some(x), Some(y)) => (x.as_ref(), y.as_ref()),
            _ => return self.modified(path, &actual, &expected, false),
        };
        match (x, y) {
            (ScalarRef::ItemId(x), ScalarRef::ItemId(y)) => {
                if (options.ids && x != y) || x.is_list() != y.is_list() || x.is_dict() != y.is_dict() {
                    return self.modified(path, &actual, &expected, false);
                }
                if self.seen_items.insert((x, y)) {
                    self.contents(path, x, &actual, y, &expected)?;
                }
                Ok(())
            }
            (ScalarRef::Schema(Schema::Struct(x)), ScalarRef::Schema(Schema::Struct(y))) => {
                if options.ids && x != y {
                    return self.modified(path, &actual, &expected, false);
                }
                if self.seen_schemas.insert((x, y)) {
                    self.schema_contents(path, x, y)?;
                }
                Ok(())
            }
            (x, y) if same_primitive(x, y, options.schemas) => Ok(()),
            _ => self.modified(path, &actual, &expected, false),
        }
    }

    /// The struct schema list, dict or entity `id` (held under `schema` in
    /// `bag`) has: an object's own (`__schema__`), else the one it is held
    /// under.
    fn own_schema(bag: Option<&DataBag>, schema: Schema, id: ItemId) -> Option<ItemId> {
        let own = match schema {
            Schema::Object => bag?.get_one(SCHEMA_ATTR, id).and_then(|s| s.schema())?,
            s => s,
        };
        match own {
            Schema::Struct(sid) => Some(sid),
            _ => None,
        }
    }

    /// The contents of list, dict or entity `a` (held as `actual`) and `b`:
    /// what one side alone has is recorded, the rest queued.
    fn contents(&mut self, path: Path, a: ItemId, actual: &Value, b: ItemId, expected: &Value) -> Result<()> {
        let (a_bag, b_bag) = (self.actual_bag, self.expected_bag);
        let (a_sid, b_sid) = (Self::own_schema(a_bag, actual.0, a), Self::own_schema(b_bag, expected.0, b));
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
            let (xs_schema, ys_schema) = (held(a_bag, a_sid, LIST_ITEMS_ATTR), held(b_bag, b_sid, LIST_ITEMS_ATTR));
            let common = xs.len().min(ys.len());
            for (side, items, schema) in [(true, &xs, xs_schema), (false, &ys, ys_schema)] {
                for i in (common..items.len()).rev() {
                    let child = self.child(path, Step::ListItem(i));
                    self.one_sided(child, &(schema, items[i].clone()), side)?;
                }
            }
            for (i, (x, y)) in xs.into_iter().zip(ys).enumerate() {
                let child = self.child(path, Step::ListItem(i));
                self.tasks.push(Task { path: child, actual: (xs_schema, x), expected: (ys_schema, y) });
            }
            return Ok(());
        }
        if a.is_dict() {
            let entries = |bag: Option<&DataBag>, id: ItemId| -> Result<Vec<(Stored, Option<Stored>)>> {
                let Some(bag) = bag else { return Ok(Vec::new()) };
                let (_, keys, values) = bag.dict_entries(&[Some(id)])?;
                Ok((0..keys.len()).filter_map(|i| Some((Stored::from_ref(keys.get(i)?), values.get(i).map(Stored::from_ref)))).collect())
            };
            let (xs, ys) = (entries(a_bag, a)?, entries(b_bag, b)?);
            let (xs_schema, ys_schema) = (held(a_bag, a_sid, DICT_VALUES_ATTR), held(b_bag, b_sid, DICT_VALUES_ATTR));
            // Keys match by their typed value (INT32 1 and INT64 1 are two keys).
            let index = |entries: &[(Stored, Option<Stored>)]| -> HashMap<String, usize> {
                entries.iter().enumerate().map(|(i, (k, _))| (format!("{k:?}"), i)).collect()
            };
            let (x_index, y_index) = (index(&xs), index(&ys));
            let mut common = Vec::new();
            for (k, x) in &xs {
                let child = self.child(path, Step::Key(key_text(k)));
                match y_index.get(&format!("{k:?}")) {
                    Some(&j) => common.push(Task { path: child, actual: (xs_schema, x.clone()), expected: (ys_schema, ys[j].1.clone()) }),
                    None => self.one_sided(child, &(xs_schema, x.clone()), true)?,
                }
            }
            for (k, y) in &ys {
                if !x_index.contains_key(&format!("{k:?}")) {
                    let child = self.child(path, Step::Key(key_text(k)));
                    self.one_sided(child, &(ys_schema, y.clone()), false)?;
                }
            }
            // (Key schemas are compared with the dicts' schemas.)
            self.tasks.extend(common.into_iter().rev());
            return Ok(());
        }
        let side = |bag: Option<&DataBag>, sid: Option<ItemId>, id: ItemId, name: &str| -> Option<Value> {
            let (bag, sid) = (bag?, sid?);
            Some((attr_schema(bag, sid, name)?, bag.get_one(name, id)))
        };
        let names = |bag, sid: Option<ItemId>| sid.map_or_else(Vec::new, |sid| attr_names(bag, sid));
        let mut all = names(b_bag, b_sid);
        all.extend(names(a_bag, a_sid));
        self.attributes(path, all, |name| (side(a_bag, a_sid, a, name), side(b_bag, b_sid, b, name)))
    }

    /// The attributes of struct schemas `a` and `b` held as values
    /// (`__items__` and the like included), compared as an entity's.
    fn schema_contents(&mut self, path: Path, a: ItemId, b: ItemId) -> Result<()> {
        let (a_bag, b_bag) = (self.actual_bag, self.expected_bag);
        let mut all = attr_names(b_bag, b);
        all.extend(attr_names(a_bag, a));
        let side = |bag: Option<&DataBag>, id: ItemId, name: &str| bag.and_then(|bag| attr_schema(bag, id, name)).map(schema_value);
        self.attributes(path, all, |name| (side(a_bag, a, name), side(b_bag, b, name)))
    }

    /// Attributes `names` of two values, each side's value of each given
    /// by `sides` (None: the side's schema does not declare it): what one
    /// side alone has is recorded, the rest queued, in the order of the
    /// names. Unless schemas are compared, an attribute only one side
    /// declares counts only where it has a value.
    fn attributes(&mut self, path: Path, mut names: Vec<String>, sides: impl Fn(&str) -> (Option<Value>, Option<Value>)) -> Result<()> {
        names.sort();
        names.dedup();
        let mut common = Vec::new();
        for name in names {
            let (x, y) = sides(&name);
            let child = self.child(path, Step::Attr(name));
            match (x, y) {
                // (`partial` without schemas: only the values `expected` has.)
                (Some(_), Some((_, None))) if self.options.partial && !self.options.schemas => {}
                (Some(x), Some(y)) => common.push(Task { path: child, actual: x, expected: y }),
                (Some(x), None) if !self.options.partial && (self.options.schemas || x.1.is_some()) => self.one_sided(child, &x, true)?,
                (None, Some(y)) if self.options.schemas || y.1.is_some() => self.one_sided(child, &y, false)?,
                _ => {}
            }
        }
        self.tasks.extend(common.into_iter().rev());
        Ok(())
    }
}

/// The attributes struct schema `id` declares in `bag` (none without one),
/// `__schema__` and the like left out.
fn attr_names(bag: Option<&DataBag>, id: ItemId) -> Vec<String> {
    bag.map_or_else(Vec::new, |bag| bag.attr_names(id).into_iter().filter(|n| !plait_core::bag::is_internal_attr(n)).collect())
}
