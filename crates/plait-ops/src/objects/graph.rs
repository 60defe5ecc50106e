//! Walking the data reachable from a slice, following its schemas:
//! `kd.extract`, `kd.clone`, `kd.shallow_clone`, `kd.deep_clone`, `kd.stub`
//! and `kd.deep_uuid`.
//!
//! A walk visits items level by level: entities by their schema's
//! attributes, objects by their `__schema__`, lists by their items and
//! dicts by their keys and values, each id once (so shared items stay shared
//! and cycles end). What it copies goes into one new bag; clones give items
//! new ids (the top level, or every item reached for a deep clone) and
//! rewrite the references to them.

use std::collections::{HashMap, HashSet, VecDeque};
use std::rc::Rc;

use plait_core::bag::OnConflict;
use plait_core::bag::SCHEMA_ATTR;
use plait_core::bag::text::{DICT_KEYS_ATTR, DICT_VALUES_ATTR, LIST_ITEMS_ATTR, SCHEMA_METADATA_ATTR};
use plait_core::bag::{AllocationColumn, Lookup, SchemaAttrs};
use plait_core::column::SliceBuilder;
use plait_core::itemid::{UuidHasher, allocate};
use plait_core::{DataBag, DataSlice, Edge, Error, FastMap, ItemId, ItemKind, Result, ScalarRef, Schema, SliceData, Values};

use super::access::struct_schema_ids;
use super::containers::schema_item;
use super::id_set::IdSet;
use super::model::{attr_schema, ids_data, ids_of, picked, schemas_data, whole_allocation};
use crate::registry::{Args, Registry, Value};

/// How far a walk goes and which ids it renews.
#[derive(Clone, Copy, PartialEq)]
enum Depth {
    /// Everything reachable.
    All,
    /// The given items' own attributes, items or entries only (their schemas
    /// are copied; the schemas of what they refer to stay empty).
    TopLevel,
}

struct Walk<'a> {
    src: &'a DataBag,
    out: DataBag,
    depth: Depth,
    /// Every item reached gets a new id (deep clone).
    renew_all: bool,
    remap: FastMap<ItemId, ItemId>,
    /// The items reached, by the schema they were reached as: an item
    /// reached as an entity and again as an object (its `__schema__`) is
    /// visited as both.
    seen: FastMap<Schema, IdSet>,
    seen_schemas: IdSet,
    /// Schemas named by copied schema attributes, still to copy (`(from,
    /// to)`): a stack, not recursion, so a schema nested 100k deep is fine.
    schemas_to_copy: Vec<(ItemId, ItemId)>,
    /// The attributes of the struct schemas read so far: each is read
    /// once, to copy it, and again for the items of that schema.
    schema_attrs: FastMap<ItemId, Rc<SchemaAttrs>>,
    queue: VecDeque<(Schema, Reached)>,
}

/// Items a walk reached at one step and has yet to visit.
enum Reached {
    /// Slots 0..len of one allocation, reached whole (the items of one
    /// `kd.new`): visited column by column where the walk keeps ids.
    Run {
        allocation: u64,
        len: usize,
    },
    Ids(Vec<ItemId>),
}

impl Reached {
    fn into_ids(self) -> Vec<ItemId> {
        match self {
            Reached::Run { allocation, len } => (0..len as u64).map(|offset| ItemId::in_allocation(allocation, offset)).collect(),
            Reached::Ids(ids) => ids,
        }
    }

    fn is_empty(&self) -> bool {
        match self {
            Reached::Run { len, .. } => *len == 0,
            Reached::Ids(ids) => ids.is_empty(),
        }
    }
}

impl<'a> Walk<'a> {
    fn new(src: &'a DataBag, depth: Depth, renew_all: bool) -> Walk<'a> {
        Walk {
            src,
            out: DataBag::new_immutable(),
            depth,
            renew_all,
            remap: FastMap::default(),
            seen: FastMap::default(),
            seen_schemas: IdSet::default(),
            schemas_to_copy: Vec::new(),
            schema_attrs: FastMap::default(),
            queue: VecDeque::new(),
        }
    }

    /// The new id of `id` (itself when it keeps its id).
    fn map(&self, id: ItemId) -> ItemId {
        *self.remap.get(&id).unwrap_or(&id)
    }

    /// `data` with its ids renewed where they were.
    fn map_data(&self, data: &SliceData) -> SliceData {
        if self.remap.is_empty() || !data.dtypes().any(|t| t == Schema::ItemId) {
            return data.clone();
        }
        let mut b = SliceBuilder::with_capacity(data.len());
        for i in 0..data.len() {
            b.push(match data.get(i) {
                Some(ScalarRef::ItemId(id)) => Some(ScalarRef::ItemId(self.map(id))),
                other => other,
            });
        }
        b.finish()
    }

    /// Gives `ids` new ids of their own kinds (one allocation per kind).
    fn renew(&mut self, ids: &[ItemId]) {
        let mut by_kind: HashMap<ItemKind, Vec<ItemId>> = HashMap::new();
        for &id in ids {
            if !self.remap.contains_key(&id) {
                by_kind.entry(id.kind()).or_default().push(id);
            }
        }
        for (kind, old) in by_kind {
            for (old, new) in old.iter().zip(allocate(kind, old.len()).1) {
                self.remap.insert(*old, new);
            }
        }
    }

    /// Schedules the items of `data` (values of `schema`) not yet reached.
    fn discover(&mut self, schema: Schema, data: &SliceData) {
        if self.depth == Depth::TopLevel || !matches!(schema, Schema::Struct(_) | Schema::Object) {
            return;
        }
        if schema.is_nofollow() {
            // A walk stops at nofollow values: their data is not copied. A
            // deep clone still gives them new ids, as Koda's does.
            if self.renew_all {
                let ids: Vec<ItemId> = (0..data.len())
                    .filter_map(|i| match data.get(i) {
                        Some(ScalarRef::ItemId(id)) => Some(id),
                        _ => None,
                    })
                    .collect();
                self.renew(&ids);
            }
            return;
        }
        let mut fresh = self.fresh_ids(schema, data);
        if fresh.is_empty() {
            return;
        }
        if self.renew_all {
            let ids = fresh.into_ids();
            self.renew(&ids);
            fresh = Reached::Ids(ids);
        }
        self.queue.push_back((schema, fresh));
    }

    /// The ids in `data` not reached before as `schema`, now marked
    /// reached. The items of one allocation, whole and in order (`x.a` of
    /// what `kd.new` made), are marked as a block.
    fn fresh_ids(&mut self, schema: Schema, data: &SliceData) -> Reached {
        let seen = self.seen.entry(schema).or_default();
        if let Some((allocation, len)) = whole_allocation(data) {
            if seen.insert_fresh_run(allocation, len) {
                return Reached::Run { allocation, len };
            }
        }
        let mut fresh = Vec::new();
        for column in data.columns() {
            let Values::ItemId(ids) = &column.values else { continue };
            for i in 0..ids.len() {
                if column.is_present(i) {
                    let id = ItemId(ids.get(i));
                    if seen.insert(id) {
                        fresh.push(id);
                    }
                }
            }
        }
        Reached::Ids(fresh)
    }

    /// Copies schema `id`'s attributes (and, walking everything, the schemas
    /// they name).
    fn copy_schema(&mut self, id: ItemId) {
        if self.seen_schemas.insert(id) {
            self.copy_schema_as(id, id);
        }
    }

    /// Copies schema `from`'s attributes as those of schema `to` (and the
    /// schemas they name, see [`Walk::copy_schema_attr`]).
    fn copy_schema_as(&mut self, from: ItemId, to: ItemId) {
        self.schemas_to_copy.push((from, to));
        self.copy_pending_schemas();
    }

    /// The attributes of struct schema `id` (read from the source once).
    fn attrs_of_schema(&mut self, id: ItemId) -> Rc<SchemaAttrs> {
        self.schema_attrs.entry(id).or_insert_with(|| Rc::new(SchemaAttrs::of(self.src, id))).clone()
    }

    /// Copies the schemas waiting in `schemas_to_copy`, and those they name.
    fn copy_pending_schemas(&mut self) {
        while let Some((from, to)) = self.schemas_to_copy.pop() {
            for (name, value) in self.attrs_of_schema(from).all() {
                let mut one = SliceBuilder::with_capacity(1);
                one.push(Some(value.as_ref()));
                self.copy_schema_attr(name, &[Some(to)], &one.finish());
            }
        }
    }

    /// Writes attribute `name` of schemas `to` (`values`, read from their
    /// originals); walking everything, the schemas they name are copied too,
    /// and the schemas' metadata objects (which a top-level copy leaves out).
    fn copy_schema_attr(&mut self, name: &str, to: &[Option<ItemId>], values: &SliceData) {
        if name == SCHEMA_METADATA_ATTR {
            if self.depth == Depth::All {
                self.discover(Schema::Object, values);
                let values = self.map_data(values);
                self.out.fill(|w| w.set_attr(name, to, &values));
            }
            return;
        }
        self.out.fill(|w| w.set_attr(name, to, values));
        if self.depth == Depth::All {
            for i in 0..values.len() {
                if let Some(ScalarRef::Schema(Schema::Struct(nested))) = values.get(i) {
                    if self.seen_schemas.insert(nested) {
                        self.schemas_to_copy.push((nested, nested));
                    }
                }
            }
        }
    }

    /// Copies what the items of `schema` hold: each `(from, to)` pair reads
    /// item `from` and writes its copy as item `to`.
    fn visit(&mut self, schema: Schema, items: Vec<(ItemId, ItemId)>) -> Result<()> {
        match schema {
            Schema::Object => self.visit_objects(items)?,
            Schema::Struct(schema_id) => {
                self.copy_schema(schema_id);
                self.visit_struct(schema_id, items)?;
            }
            // Schemas as values: their attributes (and, walking everything,
            // the schemas those name).
            Schema::Schema => {
                for (from, to) in items {
                    if from.is_schema() && self.seen_schemas.insert(to) {
                        self.copy_schema_as(from, to);
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// [`Walk::visit`] of objects: their `__schema__`, their schemas'
    /// attributes and their own, each read and written for all the objects
    /// at once (each object `kd.obj` makes has a schema of its own: a schema
    /// at a time would be an item at a time). Lists and dicts among them are
    /// visited a schema at a time.
    fn visit_objects(&mut self, items: Vec<(ItemId, ItemId)>) -> Result<()> {
        let from: Vec<Option<ItemId>> = items.iter().map(|&(f, _)| Some(f)).collect();
        let Lookup { data: schemas, unset } = self.src.get_attr_and_unset(SCHEMA_ATTR, &from);
        // Per object: the struct schema read, and the one its copy gets (a
        // copy under a new id gets its own implicit schema, as each object
        // has one).
        let mut schema_from: Vec<Option<ItemId>> = vec![None; items.len()];
        let mut schema_to: Vec<Option<ItemId>> = vec![None; items.len()];
        let mut written = Vec::with_capacity(items.len());
        for (i, &(f, t)) in items.iter().enumerate() {
            match schemas.get(i) {
                Some(ScalarRef::Schema(Schema::Struct(s))) => {
                    let own = if f != t && s.kind() == ItemKind::ImplicitSchema { t.with_kind(ItemKind::ImplicitSchema) } else { s };
                    schema_from[i] = Some(s);
                    schema_to[i] = Some(own);
                    written.push(Some(Schema::Struct(own)));
                }
                Some(ScalarRef::Schema(other)) => written.push(Some(other)),
                _ => written.push(None),
            }
        }
        let to: Vec<Option<ItemId>> = items.iter().map(|&(_, t)| Some(t)).collect();
        if let Some(to) = only_set(&to, &unset) {
            self.out.fill(|w| w.set_attr(SCHEMA_ATTR, &to, &schemas_data(written)));
        }
        // The schemas' attributes, each with the objects whose schemas may
        // have it (objects of differing schemas read only their own).
        let held = self.src.attrs_held_by(&schema_from);
        self.copy_schemas(&schema_from, &schema_to);
        // Lists and dicts: a schema at a time.
        let mut containers: HashMap<ItemId, Vec<(ItemId, ItemId)>> = HashMap::new();
        for (attr, positions) in held.iter().filter(|(name, _)| [LIST_ITEMS_ATTR, DICT_KEYS_ATTR].contains(&&**name)) {
            let found = self.src.get_attr(attr, &picked(&schema_from, positions));
            for (k, &i) in positions.iter().enumerate() {
                if let (Some(_), Some(s)) = (found.get(k), schema_from[i]) {
                    containers.entry(s).or_default().push(items[i]);
                    schema_from[i] = None;
                }
            }
        }
        for (s, group) in containers {
            self.visit_struct(s, group)?;
        }
        for (name, positions) in held.iter().filter(|(n, _)| !plait_core::bag::is_internal_attr(n)) {
            // The attribute's schema per object (missing where its schema
            // has no such attribute).
            let attr_schemas = self.src.get_attr(name, &picked(&schema_from, positions));
            if attr_schemas.present_count() == 0 {
                continue;
            }
            let has = |k: usize| attr_schemas.get(k).is_some();
            let keys: Vec<Option<ItemId>> = positions.iter().enumerate().map(|(k, &i)| has(k).then_some(items[i].0)).collect();
            let to: Vec<Option<ItemId>> = positions.iter().enumerate().map(|(k, &i)| has(k).then_some(items[i].1)).collect();
            let Lookup { data: values, unset } = self.src.get_attr_and_unset(name, &keys);
            self.discover_by_schema(&attr_schemas, &values);
            if let Some(to) = only_set(&to, &unset) {
                let values = self.map_data(&values);
                self.out.fill(|w| w.set_attr(name, &to, &values));
            }
        }
        Ok(())
    }

    /// Copies the attributes of struct schemas `from[i]` as those of `to[i]`
    /// (each copy once), reading each attribute for all the schemas that
    /// may have it at once.
    fn copy_schemas(&mut self, from: &[Option<ItemId>], to: &[Option<ItemId>]) {
        let mut pending: (Vec<Option<ItemId>>, Vec<Option<ItemId>>) = (Vec::new(), Vec::new());
        for (f, t) in from.iter().zip(to) {
            if let (Some(f), Some(t)) = (f, t) {
                if self.seen_schemas.insert(*t) {
                    pending.0.push(Some(*f));
                    pending.1.push(Some(*t));
                }
            }
        }
        let (from, to) = pending;
        if from.is_empty() {
            return;
        }
        for (name, positions) in self.src.attrs_held_by(&from).iter().filter(|(n, _)| &**n != SCHEMA_ATTR) {
            let (from, to) = (picked(&from, positions), picked(&to, positions));
            let Lookup { data: values, unset } = self.src.get_attr_and_unset(name, &from);
            let Some(to) = only_set(&to, &unset) else { continue };
            self.copy_schema_attr(name, &to, &values);
        }
        self.copy_pending_schemas();
    }

    /// [`Walk::discover`] of `values` whose schemas are `schemas` (one per
    /// position), a schema at a time.
    fn discover_by_schema(&mut self, schemas: &SliceData, values: &SliceData) {
        let mut positions: HashMap<Schema, Vec<usize>> = HashMap::new();
        for i in 0..schemas.len() {
            if let Some(ScalarRef::Schema(schema @ (Schema::Struct(_) | Schema::Object))) = schemas.get(i) {
                positions.entry(schema).or_default().push(i);
            }
        }
        for (schema, positions) in positions {
            if positions.len() == values.len() {
                self.discover(schema, values);
            } else {
                self.discover(schema, &values.take(&positions));
            }
        }
    }

    /// [`Walk::visit`] of items of struct schema `schema_id` (whose own
    /// attributes are copied by the caller).
    fn visit_struct(&mut self, schema_id: ItemId, items: Vec<(ItemId, ItemId)>) -> Result<()> {
        let (keys, to): (Vec<Option<ItemId>>, Vec<Option<ItemId>>) = items.iter().map(|&(f, t)| (Some(f), Some(t))).unzip();
        let attrs = self.attrs_of_schema(schema_id);
        if let Some(item_schema) = attrs.schema(LIST_ITEMS_ATTR) {
            let (edge, list_items) = self.src.explode(&keys)?;
            self.discover(item_schema, &list_items);
            let list_items = self.map_data(&list_items);
            self.out.fill(|w| w.set_lists(&to, &edge, &list_items));
        } else if let Some(key_schema) = attrs.schema(DICT_KEYS_ATTR) {
            let value_schema = attrs.schema(DICT_VALUES_ATTR).unwrap_or(Schema::Object);
            let (edge, dict_keys, values) = self.src.dict_entries(&keys)?;
            self.discover(key_schema, &dict_keys);
            self.discover(value_schema, &values);
            let owners = owners_of(&to, &edge);
            let (dict_keys, values) = (self.map_data(&dict_keys), self.map_data(&values));
            self.out.fill(|w| w.set_dict_entries(&owners, &dict_keys, &values));
        } else {
            for (name, attr_schema) in attrs.data() {
                self.copy_attr(name, attr_schema, &keys, &to);
            }
        }
        Ok(())
    }

    /// Copies attribute `name` (of schema `attr_schema` in the items'
    /// schema) of items `keys` as that of `to`; what no layer of the source
    /// sets stays unset.
    fn copy_attr(&mut self, name: &str, attr_schema: Option<Schema>, keys: &[Option<ItemId>], to: &[Option<ItemId>]) {
        let Lookup { data: values, unset } = self.src.get_attr_and_unset(name, keys);
        if let Some(attr) = attr_schema {
            self.discover(attr, &values);
        }
        if let Some(to) = only_set(to, &unset) {
            let values = self.map_data(&values);
            self.out.fill(|w| w.set_attr(name, &to, &values));
        }
    }

    /// [`Walk::visit_struct`] of slots 0..len of `allocation`, keeping their
    /// ids: an attribute one layer's column holds is copied as that column
    /// (shared, O(1)), others item by item.
    fn visit_run(&mut self, schema_id: ItemId, allocation: u64, len: usize) -> Result<()> {
        let attrs = self.attrs_of_schema(schema_id);
        let ids = || (0..len as u64).map(|offset| Some(ItemId::in_allocation(allocation, offset))).collect::<Vec<_>>();
        if attrs.schema(LIST_ITEMS_ATTR).is_some() || attrs.schema(DICT_KEYS_ATTR).is_some() {
            let items = ids().into_iter().flatten().map(|id| (id, id)).collect();
            return self.visit_struct(schema_id, items);
        }
        let mut keys: Option<Vec<Option<ItemId>>> = None;
        for (name, attr_schema) in attrs.data() {
            match self.src.attr_column_of_allocation(name, allocation, len) {
                AllocationColumn::Unset => continue,
                AllocationColumn::Column { data, set } => {
                    if self.out.fill(|w| w.set_attr_column(name, allocation, &data, set.as_ref())) {
                        if let Some(attr) = attr_schema {
                            self.discover(attr, &data);
                        }
                        continue;
                    }
                }
                AllocationColumn::Mixed => {}
            }
            let keys = keys.get_or_insert_with(ids).clone();
            self.copy_attr(name, attr_schema, &keys, &keys);
        }
        Ok(())
    }

    /// `ids` paired with their new ids.
    fn pairs(&self, ids: Vec<ItemId>) -> Vec<(ItemId, ItemId)> {
        ids.into_iter().map(|id| (id, self.map(id))).collect()
    }

    /// Walks from the items of `x` (read as `schema`), each distinct item
    /// once, copied as its new id.
    fn run(&mut self, x: &DataSlice, schema: Schema) -> Result<()> {
        let top = match schema {
            Schema::Schema => {
                let seen = self.seen.entry(schema).or_default();
                Reached::Ids(struct_schema_ids(x).into_iter().flatten().filter(|id| seen.insert(*id)).collect())
            }
            _ => self.fresh_ids(schema, x.data()),
        };
        if let Schema::Struct(id) = schema {
            self.copy_schema(id);
        }
        self.visit_reached(schema, top)?;
        self.run_queue()
    }

    /// Visits `reached` as `schema`: a whole allocation that keeps its ids
    /// column by column, anything else as pairs.
    fn visit_reached(&mut self, schema: Schema, reached: Reached) -> Result<()> {
        match (schema, reached) {
            (Schema::Struct(schema_id), Reached::Run { allocation, len }) if !self.renew_all => {
                self.copy_schema(schema_id);
                self.visit_run(schema_id, allocation, len)
            }
            (schema, reached) => {
                let items = self.pairs(reached.into_ids());
                self.visit(schema, items)
            }
        }
    }

    fn run_queue(&mut self) -> Result<()> {
        while let Some((schema, reached)) = self.queue.pop_front() {
            self.visit_reached(schema, reached)?;
        }
        Ok(())
    }

    /// Walks from the items of `x` (read as `schema`), copying the item at
    /// each position as `to` at that position (one copy per position even
    /// where `x` repeats an item). The items keep their ids where the walk
    /// reaches them again.
    fn run_per_position(&mut self, x: &DataSlice, schema: Schema, to: &[Option<ItemId>]) -> Result<()> {
        let from = if schema == Schema::Schema { struct_schema_ids(x) } else { ids_of(x) };
        let top = from.into_iter().zip(to).filter_map(|(f, t)| Some((f?, (*t)?))).collect();
        self.run_from(schema, top)
    }

    fn run_from(&mut self, schema: Schema, top: Vec<(ItemId, ItemId)>) -> Result<()> {
        if let Schema::Struct(id) = schema {
            self.copy_schema(id);
        }
        self.visit(schema, top)?;
        self.run_queue()
    }
}

/// `to` without the positions in `unset` (what no layer of the source
/// sets stays unset in the copy); `None` when nothing is left to write.
fn only_set<'t>(to: &'t [Option<ItemId>], unset: &[usize]) -> Option<std::borrow::Cow<'t, [Option<ItemId>]>> {
    if unset.is_empty() {
        return (!to.is_empty()).then_some(std::borrow::Cow::Borrowed(to));
    }
    let present = to.iter().filter(|id| id.is_some()).count();
    if unset.len() >= present {
        return None;
    }
    let mut kept = to.to_vec();
    for &i in unset {
        kept[i] = None;
    }
    Some(std::borrow::Cow::Owned(kept))
}

/// The dict of each entry: `dicts[i]` repeated for the entries of row `i`.
fn owners_of(dicts: &[Option<ItemId>], edge: &Edge) -> Vec<Option<ItemId>> {
    dicts.iter().enumerate().flat_map(|(i, id)| std::iter::repeat_n(*id, edge.child_range(i).len())).collect()
}

/// The bag to read `x` from (with the bag of an explicit `schema=`), or
/// Koda's error naming what was attempted.
fn source_bag(op: &str, x: &DataSlice, schema: Option<&DataSlice>, what: &str) -> Result<DataBag> {
    if x.bag().is_none() {
        return Err(Error::value(op, format!("cannot {what} without a DataBag")));
    }
    let inputs: Vec<&DataSlice> = std::iter::once(x).chain(schema).collect();
    Ok(DataBag::combined(inputs.iter().filter_map(|x| x.bag())).expect("x has a bag").for_walk())
}

/// The schema to walk `x` as: `schema=` when given, else `x`'s own. A
/// primitive schema given for items that are not its primitives is Koda's
/// error (extract words it its own way).
fn walk_schema(op: &str, x: &DataSlice, schema: Option<&DataSlice>) -> Result<Schema> {
    let Some(schema) = schema else { return Ok(x.schema()) };
    let as_schema = schema_item(op, schema)?;
    let primitive = !matches!(as_schema, Schema::Object | Schema::Struct(_) | Schema::ItemId | Schema::Schema | Schema::None);
    if primitive && x.data().dtypes().any(|t| t != as_schema) {
        let message = if op == "kd.core.extract" {
            format!(
                "during extract/clone, while processing the provided slice, got a slice with primitive type {as_schema} \
                 while the actual content is mixed or not a primitive"
            )
        } else {
            format!("during traversal, got a slice with primitive type {as_schema} while the actual content is not a primitive")
        };
        return Err(Error::value(op, message));
    }
    Ok(as_schema)
}

/// `kd.extract(ds, schema=unspecified)`: `ds` with a new bag holding only
/// the data reachable from it (through `schema` when given).
pub fn extract(x: &DataSlice, schema: Option<&DataSlice>) -> Result<DataSlice> {
    let op = "kd.core.extract";
    // A bag made for exactly x's items holds only what they reach: the copy
    // is that bag as one new layer, with no walk (`kd.dumps` of a chain of
    // objects made one by one).
    if let (None, Some(bag)) = (schema, x.bag()) {
        if super::model::bag_made_for(x) {
            return Ok(x.clone().with_bag(Some(bag.merged())));
        }
    }
    let src = source_bag(op, x, schema, "extract")?;
    let as_schema = walk_schema(op, x, schema)?;
    let mut walk = Walk::new(&src, Depth::All, false);
    walk.run(x, as_schema)?;
    Ok(x.with_schema(as_schema).unwrap_or_else(|_| x.clone()).with_bag(Some(walk.out)))
}

/// What `kd.extract(x)` copies, as a new bag: the data reachable from `x`
/// through its schema (what a value brings along when written, see
/// `model::adopted_bags`).
pub fn reachable_bag(x: &DataSlice) -> Result<DataBag> {
    let src = x.bag().expect("a value that refers to data has a bag");
    let mut walk = Walk::new(src, Depth::All, false);
    walk.run(x, x.schema())?;
    Ok(walk.out)
}

/// The ids of the clones of `x`, one per present position: `itemid=` when
/// given, else new ids of the same kinds.
fn clone_ids(op: &str, x: &DataSlice, itemid: Option<&DataSlice>) -> Result<Vec<Option<ItemId>>> {
    let old = ids_of(x);
    let Some(given) = itemid else {
        return Ok(fresh_like(&old));
    };
    if given.shape().rank() != x.shape().rank() {
        return Err(Error::value(
            op,
            format!("obj and itemid must have the same rank. Got rank(obj): {}, rank(itemid): {}", x.shape().rank(), given.shape().rank()),
        ));
    }
    let given = plait_core::broadcast::expand_to_shape(op, given, x.shape(), 0)?;
    let given = ids_of(&given);
    if old.iter().zip(&given).any(|(o, g)| o.is_some() && g.is_none()) {
        return Err(Error::value(op, "itemid must have an objectId for each item present in ds"));
    }
    Ok(old.iter().zip(given).map(|(o, g)| o.and(g)).collect())
}

/// A new id for each present id, of the same kind (one allocation per kind).
fn fresh_like(old: &[Option<ItemId>]) -> Vec<Option<ItemId>> {
    let mut by_kind: HashMap<ItemKind, Vec<usize>> = HashMap::new();
    for (i, id) in old.iter().enumerate() {
        if let Some(id) = id {
            by_kind.entry(id.kind()).or_default().push(i);
        }
    }
    let mut out = vec![None; old.len()];
    for (kind, positions) in by_kind {
        for (i, new) in positions.iter().zip(allocate(kind, positions.len()).1) {
            out[*i] = Some(new);
        }
    }
    out
}

/// `kd.clone` (`Depth::All`) and `kd.shallow_clone` (`Depth::TopLevel`):
/// each position of `x` gets its own clone, even where `x` repeats an item;
/// what the clones refer to keeps its ids.
fn clone_with(op: &str, x: &DataSlice, itemid: Option<&DataSlice>, schema: Option<&DataSlice>, depth: Depth) -> Result<DataSlice> {
    let src = source_bag(op, x, schema, "clone")?;
    let as_schema = walk_schema(op, x, schema)?;
    let mut walk = Walk::new(&src, depth, false);
    if as_schema == Schema::Schema {
        // Schemas clone as new schemas with the same attributes.
        let ids = fresh_like(&struct_schema_ids(x));
        walk.run_per_position(x, as_schema, &ids)?;
        let data = schemas_data(ids.iter().map(|id| id.map(Schema::Struct)).collect());
        return Ok(DataSlice::new(x.shape().clone(), data, as_schema)?.with_bag(Some(walk.out)));
    }
    let ids = clone_ids(op, x, itemid)?;
    walk.run_per_position(x, as_schema, &ids)?;
    Ok(DataSlice::new(x.shape().clone(), ids_data(&ids), as_schema)?.with_bag(Some(walk.out)))
}

/// `kd.clone_as_full(x, itemid=, **overrides)`: `kd.clone` of entities
/// where every position, missing ones included, gets a clone: missing items
/// become new entities of x's schema without attributes.
fn clone_as_full(x: &DataSlice, itemid: Option<&DataSlice>, overrides: &[(String, DataSlice)]) -> Result<DataSlice> {
    let op = "kd.core.clone_as_full";
    let schema = x.schema();
    let is_entity_schema = match (schema, x.bag()) {
        (Schema::Struct(id), Some(bag)) => attr_schema(bag, id, LIST_ITEMS_ATTR).is_none() && attr_schema(bag, id, DICT_KEYS_ATTR).is_none(),
        (Schema::Struct(_), None) => true,
        _ => false,
    };
    if !is_entity_schema {
        // Koda fills the missing items with `kd.entities.shaped` and names it.
        let text = plait_core::bag::text::schema_text(schema, x.bag());
        return Err(Error::value("kd.entities.shaped", format!("expected Entity schema, got {text}")));
    }
    let ids: Vec<Option<ItemId>> = match itemid {
        Some(given) => {
            let full = DataSlice::new(x.shape().clone(), ids_data(&vec![Some(ItemId(0)); x.size()]), schema)?;
            clone_ids(op, &full, Some(given))?
        }
        None => allocate(ItemKind::Object, x.size()).1.into_iter().map(Some).collect(),
    };
    let out = match x.bag() {
        Some(_) => {
            let src = source_bag(op, x, None, "clone")?;
            let mut walk = Walk::new(&src, Depth::All, false);
            let present = ids_of(x);
            let to: Vec<Option<ItemId>> = present.iter().zip(&ids).map(|(p, t)| p.and(*t)).collect();
            walk.run_per_position(x, schema, &to)?;
            walk.out
        }
        None => DataBag::new_immutable(),
    };
    let clone = DataSlice::new(x.shape().clone(), ids_data(&ids), schema)?.with_bag(Some(out));
    with_overrides(clone, overrides)
}

/// `kd.deep_clone`: every item reached, `x`'s own included, gets one new
/// id, so an item reached (or repeated in `x`) several times has one clone.
fn deep_clone(op: &str, x: &DataSlice, schema: Option<&DataSlice>) -> Result<DataSlice> {
    let src = source_bag(op, x, schema, "clone")?;
    let as_schema = walk_schema(op, x, schema)?;
    let mut walk = Walk::new(&src, Depth::All, true);
    let old = ids_of(x);
    walk.renew(&old.iter().flatten().copied().collect::<Vec<_>>());
    walk.run(x, as_schema)?;
    let ids: Vec<Option<ItemId>> = old.iter().map(|id| id.map(|id| walk.map(id))).collect();
    Ok(DataSlice::new(x.shape().clone(), ids_data(&ids), as_schema)?.with_bag(Some(walk.out)))
}

/// `kd.stub(x, attrs=[])`: the same items with a new bag holding only what
/// updates to them need: objects' schemas (without attributes), lists' items
/// (stubbed in turn) and dicts' schemas (with no entries); attributes named
/// in `attrs` are kept too, as stubs of their own.
pub fn stub(x: &DataSlice, attrs: &[String]) -> Result<DataSlice> {
    let op = "kd.core.stub";
    let base = stub_items(x)?;
    if attrs.is_empty() {
        return Ok(base);
    }
    let bag = DataBag::new_mutable();
    bag.merge_from(op, base.bag().expect("a stub has a bag"), OnConflict::KeepOurs)?;
    let target = x.clone().with_bag(Some(bag.clone()));
    for name in attrs {
        let values = super::access::get_attr(x, name, None)?;
        let sub = stub(&values, &[])?;
        bag.merge_from(op, sub.bag().expect("a stub has a bag"), OnConflict::KeepOurs)?;
        super::update::set_attrs(&target, &[(name.clone(), values.with_bag(Some(bag.clone())))], false)?;
    }
    Ok(x.clone().with_bag(Some(bag.fork(false))))
}

/// [`stub`] without attributes. A slice without a bag (primitives,
/// references) gets an empty one.
fn stub_items(x: &DataSlice) -> Result<DataSlice> {
    let out = DataBag::new_immutable();
    let Some(src) = x.bag() else {
        return Ok(x.clone().with_bag(Some(out)));
    };
    // Entities keep nothing: their stub is the bare ids.
    if let Schema::Struct(s) = x.schema() {
        if attr_schema(src, s, LIST_ITEMS_ATTR).is_none() && attr_schema(src, s, DICT_KEYS_ATTR).is_none() {
            return Ok(x.clone().with_bag(Some(out)));
        }
    }
    // Objects made together by `kd.obj(**attrs)` (one allocation, each with
    // its implicit schema): none is a list or a dict, so the stub is their
    // column of schemas, shared.
    if let (Schema::Object, Some((allocation, len))) = (x.schema(), whole_allocation(x.data()))
        && let Some(schemas) = src.get_attr_of_allocation(SCHEMA_ATTR, allocation, len)
        && super::model::is_implicit_schemas_of(&schemas, allocation).is_some()
        && out.fill(|w| w.set_attr_column(SCHEMA_ATTR, allocation, &schemas, None))
    {
        return Ok(x.clone().with_bag(Some(out)));
    }
    // List items met once are not stubbed again (lists may hold
    // themselves). The top items need no such set: writing an item twice
    // writes the same.
    let mut seen = HashSet::new();
    let top: Vec<ItemId> = ids_of(x).into_iter().flatten().collect();
    let mut queue = VecDeque::from([(x.schema(), top)]);
    while let Some((schema, ids)) = queue.pop_front() {
        let keys: Vec<Option<ItemId>> = ids.iter().map(|&id| Some(id)).collect();
        let mut groups: Vec<(ItemId, Vec<Option<ItemId>>)> = Vec::new();
        match schema {
            Schema::Object => {
                let schemas = src.get_attr(SCHEMA_ATTR, &keys);
                out.fill(|w| w.set_attr(SCHEMA_ATTR, &keys, &schemas));
                // Only lists and dicts need more: which objects are those is
                // read for all their schemas at once (each object made by
                // `kd.obj` has a schema of its own).
                let schema_ids: Vec<Option<ItemId>> = (0..keys.len())
                    .map(|i| match schemas.get(i) {
                        Some(ScalarRef::Schema(Schema::Struct(s))) => Some(s),
                        _ => None,
                    })
                    .collect();
                let lists = src.get_attr(LIST_ITEMS_ATTR, &schema_ids);
                let dicts = src.get_attr(DICT_KEYS_ATTR, &schema_ids);
                let mut by_schema: HashMap<ItemId, Vec<Option<ItemId>>> = HashMap::new();
                for (i, id) in keys.iter().enumerate() {
                    if let (Some(s), true) = (schema_ids[i], lists.get(i).is_some() || dicts.get(i).is_some()) {
                        by_schema.entry(s).or_default().push(*id);
                    }
                }
                groups.extend(by_schema);
            }
            Schema::Struct(s) => groups.push((s, keys)),
            _ => {}
        }
        for (s, keys) in groups {
            if let Some(item_schema) = attr_schema(src, s, LIST_ITEMS_ATTR) {
                copy_attrs(src, &out, s, &[LIST_ITEMS_ATTR]);
                let (edge, items) = src.explode(&keys)?;
                out.fill(|w| w.set_lists(&keys, &edge, &items));
                let fresh: Vec<ItemId> = (0..items.len())
                    .filter_map(|i| match items.get(i) {
                        Some(ScalarRef::ItemId(id)) if seen.insert(id) => Some(id),
                        _ => None,
                    })
                    .collect();
                if !fresh.is_empty() {
                    queue.push_back((item_schema, fresh));
                }
            } else if attr_schema(src, s, DICT_KEYS_ATTR).is_some() {
                copy_attrs(src, &out, s, &[DICT_KEYS_ATTR, DICT_VALUES_ATTR]);
            }
        }
    }
    Ok(x.clone().with_bag(Some(out)))
}

/// Copies the attributes `names` of item `id` from `src` to `out`.
fn copy_attrs(src: &DataBag, out: &DataBag, id: ItemId, names: &[&str]) {
    for name in names {
        let value = src.get_attr(name, &[Some(id)]);
        out.fill(|w| w.set_attr(name, &[Some(id)], &value));
    }
}

/// `kd.deep_uuid(x, schema=unspecified, seed='')`: a uuid per item from its
/// content, followed through entities, objects, lists and dicts (dict
/// entries in key order, so insertion order does not matter). Primitives and
/// struct schemas get uuids from their values, and a missing item the uuid of
/// None; ITEMID slices give their ids back.
pub fn deep_uuid(x: &DataSlice, schema: Option<&DataSlice>, seed: &str) -> Result<DataSlice> {
    let op = "kd.ids.deep_uuid";
    let as_schema = walk_schema(op, x, schema)?;
    if as_schema == Schema::ItemId {
        return DataSlice::new(x.shape().clone(), x.data().clone(), Schema::ItemId);
    }
    let inputs: Vec<&DataSlice> = std::iter::once(x).chain(schema).collect();
    let src = match DataBag::combined(inputs.iter().filter_map(|x| x.bag())) {
        Some(bag) => bag.for_walk(),
        None if as_schema.is_struct() => {
            return Err(Error::value(op, "cannot compute deep_uuid of entity slice without a DataBag"));
        }
        None => DataBag::new_immutable(),
    };
    let mut walk = Hashing { src: &src, memo: HashMap::new(), open: HashSet::new() };
    let mut ids = Vec::with_capacity(x.size());
    for i in 0..x.size() {
        let item = x.get(i);
        let mut h = UuidHasher::new("deep_uuid");
        h.write_str(seed);
        walk.content(as_schema, item, &mut h)?;
        let kind = match item {
            Some(ScalarRef::ItemId(id)) if id.is_list() => ItemKind::List,
            Some(ScalarRef::ItemId(id)) if id.is_dict() => ItemKind::Dict,
            Some(ScalarRef::Schema(Schema::Struct(_))) => ItemKind::Schema,
            _ => ItemKind::Object,
        };
        ids.push(Some(ItemId::uuid(kind, h.finish())));
    }
    DataSlice::new(x.shape().clone(), ids_data(&ids), Schema::ItemId)
}

/// The content hashes of [`deep_uuid`]: each item and struct schema is
/// hashed once (`memo`); `open` holds the items being hashed, to end cycles.
///
/// The walk keeps its own stack of items being hashed ([`HashFrame`]), so
/// a chain of 100,000 entities or schemas costs heap, not native stack.
struct Hashing<'a> {
    src: &'a DataBag,
    memo: HashMap<ItemId, u128>,
    open: HashSet<ItemId>,
}

/// An item or struct schema whose hash is needed.
#[derive(Clone, Copy)]
enum HashNode {
    /// Item `id` of struct schema `schema`.
    Item { id: ItemId, schema: ItemId },
    /// Struct schema `id`.
    Schema(ItemId),
}

impl HashNode {
    fn id(self) -> ItemId {
        match self {
            HashNode::Item { id, .. } | HashNode::Schema(id) => id,
        }
    }
}

/// One part of an item's content, written in order.
enum HashStep {
    Text(String),
    /// The content of each item of `data`, of `schema`.
    Items(Schema, SliceData),
    /// Dict entries: each key and value hashed on its own, then all written
    /// in sorted order (so insertion order does not matter).
    Entries {
        key_schema: Schema,
        value_schema: Schema,
        keys: SliceData,
        values: SliceData,
    },
}

/// An item whose hash is being computed: its steps, how far they went, and
/// the entries of a dict gathered so far.
struct HashFrame {
    id: ItemId,
    hasher: UuidHasher,
    steps: Vec<HashStep>,
    step: usize,
    item: usize,
    entries: Vec<(u128, u128)>,
}

impl Hashing<'_> {
    /// Adds the content of one item of `schema` to `h`.
    fn content(&mut self, schema: Schema, item: Option<ScalarRef<'_>>, h: &mut UuidHasher) -> Result<()> {
        if let Some(node) = self.write_known(schema, item, h)? {
            self.compute(node)?;
            let done = self.write_known(schema, item, h)?;
            debug_assert!(done.is_none(), "computed hashes are known");
        }
        Ok(())
    }

    /// Writes the content of `item` to `h` when it is known (a primitive, an
    /// item hashed before, or one being hashed: a cycle, written as a
    /// marker); otherwise the node whose hash must be computed first.
    fn write_known(&self, schema: Schema, item: Option<ScalarRef<'_>>, h: &mut UuidHasher) -> Result<Option<HashNode>> {
        let node = match (item, schema) {
            (Some(ScalarRef::Schema(Schema::Struct(id))), _) => HashNode::Schema(id),
            (Some(ScalarRef::ItemId(id)), Schema::Object) => match self.src.get_one(SCHEMA_ATTR, id).and_then(|v| v.schema()) {
                Some(Schema::Struct(s)) => HashNode::Item { id, schema: s },
                _ => {
                    return Err(Error::value("kd.ids.deep_uuid", format!("object {} is missing __schema__ attribute", id.repr())));
                }
            },
            (Some(ScalarRef::ItemId(id)), Schema::Struct(s)) => HashNode::Item { id, schema: s },
            _ => {
                h.write_item(item);
                return Ok(None);
            }
        };
        let id = node.id();
        let done = match self.memo.get(&id) {
            Some(done) => *done,
            None if self.open.contains(&id) => {
                let mut cycle = UuidHasher::new("deep_uuid_cycle");
                cycle.write_str("<cycle>");
                cycle.finish()
            }
            None => return Ok(Some(node)),
        };
        h.write_bytes(&done.to_le_bytes());
        Ok(None)
    }

    /// Computes the hash of `root` and of everything it reaches that is not
    /// hashed yet, depth first (as a recursive walk would), into `memo`.
    fn compute(&mut self, root: HashNode) -> Result<()> {
        let mut stack = vec![self.frame(root)?];
        while let Some(frame) = stack.last_mut() {
            let Some(step) = frame.steps.get(frame.step) else {
                let done = stack.pop().expect("a frame");
                self.open.remove(&done.id);
                self.memo.insert(done.id, done.hasher.finish());
                continue;
            };
            let needed = match step {
                HashStep::Text(text) => {
                    frame.hasher.write_str(text);
                    frame.step += 1;
                    None
                }
                HashStep::Items(schema, data) => {
                    if frame.item == data.len() {
                        (frame.step, frame.item) = (frame.step + 1, 0);
                        None
                    } else {
                        let needed = self.write_known(*schema, data.get(frame.item), &mut frame.hasher)?;
                        frame.item += needed.is_none() as usize;
                        needed
                    }
                }
                HashStep::Entries { key_schema, value_schema, keys, values } => {
                    if frame.item == keys.len() {
                        frame.entries.sort_unstable();
                        for (k, v) in std::mem::take(&mut frame.entries) {
                            frame.hasher.write_bytes(&k.to_le_bytes());
                            frame.hasher.write_bytes(&v.to_le_bytes());
                        }
                        (frame.step, frame.item) = (frame.step + 1, 0);
                        None
                    } else {
                        let (mut k, mut v) = (UuidHasher::new("k"), UuidHasher::new("v"));
                        let needed = match self.write_known(*key_schema, keys.get(frame.item), &mut k)? {
                            Some(node) => Some(node),
                            None => self.write_known(*value_schema, values.get(frame.item), &mut v)?,
                        };
                        if needed.is_none() {
                            frame.entries.push((k.finish(), v.finish()));
                            frame.item += 1;
                        }
                        needed
                    }
                }
            };
            // A part not hashed yet: hash it first, then take the step again.
            if let Some(node) = needed {
                stack.push(self.frame(node)?);
            }
        }
        Ok(())
    }

    /// The frame hashing `node` (marked open until it is done): its list
    /// items, dict entries or attributes; for a schema, its attributes (its
    /// name included) and their schemas.
    fn frame(&mut self, node: HashNode) -> Result<HashFrame> {
        let src = self.src;
        let mut steps = Vec::new();
        let id = node.id();
        let keys = [Some(id)];
        match node {
            HashNode::Schema(_) => {
                steps.push(HashStep::Text("schema".to_string()));
                for name in src.attr_names(id) {
                    let value = src.get_attr(&name, &keys);
                    steps.push(HashStep::Text(name));
                    steps.push(HashStep::Items(Schema::Schema, value));
                }
            }
            HashNode::Item { schema: schema_id, .. } => {
                if let Some(item_schema) = attr_schema(src, schema_id, LIST_ITEMS_ATTR) {
                    let (_, items) = src.explode(&keys)?;
                    steps.push(HashStep::Text("list".to_string()));
                    steps.push(HashStep::Items(item_schema, items));
                } else if let Some(key_schema) = attr_schema(src, schema_id, DICT_KEYS_ATTR) {
                    let value_schema = attr_schema(src, schema_id, DICT_VALUES_ATTR).unwrap_or(Schema::Object);
                    let (_, dict_keys, values) = src.dict_entries(&keys)?;
                    steps.push(HashStep::Text("dict".to_string()));
                    steps.push(HashStep::Entries { key_schema, value_schema, keys: dict_keys, values });
                } else {
                    for name in src.attr_names(schema_id).into_iter().filter(|n| !plait_core::bag::is_internal_attr(n)) {
                        let value = src.get_attr(&name, &keys);
                        let attr = attr_schema(src, schema_id, &name).unwrap_or(Schema::Object);
                        steps.push(HashStep::Text(name));
                        steps.push(HashStep::Items(attr, value));
                    }
                }
            }
        }
        self.open.insert(id);
        Ok(HashFrame { id, hasher: UuidHasher::new("deep_uuid_item"), steps, step: 0, item: 0, entries: Vec::new() })
    }
}

/// The clones with `overrides` applied as attributes, in the clones' bag.
fn with_overrides(clone: DataSlice, overrides: &[(String, DataSlice)]) -> Result<DataSlice> {
    if overrides.is_empty() {
        return Ok(clone);
    }
    let updated = super::update::with_attrs(&clone, overrides, false)?;
    let merged = updated.bag().expect("with_attrs gives a bag").merged();
    Ok(updated.with_bag(Some(merged)))
}

/// The clone operators from their arguments: `x`, `itemid=` (where the
/// operator has it), `schema=` and the attribute overrides.
fn clone_op(a: &Args<'_>, op: &str, depth: Option<Depth>) -> Result<DataSlice> {
    let (x, schema) = (a.slice("x")?, opt(a, "schema")?);
    let clone = match depth {
        Some(depth) => clone_with(op, x, opt(a, "itemid")?.as_ref(), schema.as_ref(), depth)?,
        None => deep_clone(op, x, schema.as_ref())?,
    };
    with_overrides(clone, &a.named_slices()?)
}

/// `seed=` of `kd.deep_uuid`: a STRING item (missing is the empty text).
fn seed_text(seed: &DataSlice) -> Result<String> {
    let op = "kd.ids.deep_uuid";
    if !seed.is_item() {
        return Err(Error::value(op, format!("seed can only be 0-rank schema slice, got: rank({})", seed.shape().rank())));
    }
    match seed.get(0) {
        Some(ScalarRef::String(s)) => Ok(s.to_string()),
        None if matches!(seed.schema(), Schema::String | Schema::Object | Schema::None) => Ok(String::new()),
        _ => Err(Error::value(op, format!("seed must be a string, got {}", crate::describe(seed)))),
    }
}

/// The optional `itemid=` / `schema=` arguments.
fn opt(a: &Args<'_>, name: &str) -> Result<Option<DataSlice>> {
    Ok(a.opt_slice(name)?.cloned())
}

pub(crate) fn register(r: &mut Registry) {
    r.add(
        "kd.core.extract",
        &["kd.extract"],
        "ds, schema=unspecified",
        r#"Returns ds with a new bag holding only the data reachable from it.

The items keep their ids; the new bag holds their attributes, list items and
dict entries, followed recursively, and the schemas that describe them. Data
in the original bag that `ds` cannot reach is left behind. Raises when `ds`
has no bag.

Args:
  ds: a DataSlice with a bag.
  schema: the schema to follow (and give the result); ds's own schema when
    unspecified. Attributes it does not name are not extracted.

Examples:
  >>> a = kd.new(x=1, y=kd.new(z=2))
  >>> e = kd.extract(a.y)
  >>> e
  DataItem(Entity(z=2), schema: ENTITY(z=INT32), bag_id: $...)
  >>> e.get_itemid() == a.y.get_itemid()
  DataItem(present, schema: MASK)
  >>> kd.extract(a, schema=kd.named_schema('Only', x=kd.INT32))
  DataItem(Entity(x=1), schema: Only(x=INT32), bag_id: $...)"#,
        |a| extract(a.slice("ds")?, opt(a, "schema")?.as_ref()),
    );
    r.add(
        "kd.core.clone",
        &["kd.clone"],
        "x, /, *, itemid=unspecified, schema=unspecified, **overrides",
        r#"Returns clones of x with new ItemIds; what they refer to is extracted as is.

The items of `x` (entities, objects, lists or dicts) get new ids and a new bag
holding their data; each position gets its own clone, even where `x` repeats
an item (an object's clone gets its own implicit schema). Everything reachable
from them is copied into that bag with its own ids kept, so attributes of the
clones still refer to the original entities. Keyword arguments set attributes
on the clones.

Args:
  x: a DataSlice of entities, objects, lists or dicts, with a bag.
  itemid: the ids to give the clones (ITEMID, of x's rank, with an id for
    each present item); new ids when unspecified.
  schema: the schema to read x with and to give the result; x's own schema
    when unspecified. Attributes the schema does not name are left out.
  **overrides: attribute values to set on the clones.

Examples:
  >>> a = kd.new(x=1, y=kd.new(z=2))
  >>> c = kd.clone(a)
  >>> c
  DataItem(Entity(x=1, y=Entity(z=2)), schema: ENTITY(x=INT32, y=ENTITY(z=INT32)), bag_id: $...)
  >>> c.get_itemid() == a.get_itemid(), c.y.get_itemid() == a.y.get_itemid()
  (DataItem(missing, schema: MASK), DataItem(present, schema: MASK))
  >>> kd.clone(a, x=5).x
  DataItem(5, schema: INT32, bag_id: $...)
  >>> c = kd.clone(a.expand_to(kd.slice([1, 2])))
  >>> c.S[0].get_itemid() == c.S[1].get_itemid()
  DataItem(missing, schema: MASK)"#,
        |a| clone_op(a, "kd.core.clone", Some(Depth::All)),
    );
    r.add(
        "kd.core.clone_as_full",
        &["kd.clone_as_full"],
        "x, /, *, itemid=unspecified, **overrides",
        r#"Returns clones of entities x, with a new empty entity where x is missing.

Like `kd.clone`: each position gets a clone with a new id, and what the clones
refer to is copied with its ids kept. Missing positions get new entities of
x's schema without attributes, so the result is full. Keyword arguments set
attributes on every clone.

Args:
  x: a DataSlice of entities (an entity schema).
  itemid: the ids to give the clones (ITEMID, of x's rank, with an id for
    every position); new ids when unspecified.
  **overrides: attribute values to set on the clones.

Examples:
  >>> e = kd.new(x=1, y=kd.new(z=2))
  >>> c = kd.clone_as_full(kd.slice([e, None]))
  >>> c
  DataSlice([Entity(x=1, y=Entity(z=2)), Entity(x=None, y=None)], schema: ENTITY(x=INT32, y=ENTITY(z=INT32)), present: 2/2, bag_id: $...)
  >>> c.S[0].get_itemid() == e.get_itemid(), c.S[0].y.get_itemid() == e.y.get_itemid()
  (DataItem(missing, schema: MASK), DataItem(present, schema: MASK))
  >>> kd.clone_as_full(kd.slice([e, None]), x=5).x
  DataSlice([5, 5], schema: INT32, present: 2/2, bag_id: $...)
  >>> kd.clone_as_full(kd.obj(a=1))
  Traceback (most recent call last):
  ...
  ValueError: kd.entities.shaped: expected Entity schema, got OBJECT"#,
        |a| clone_as_full(a.slice("x")?, opt(a, "itemid")?.as_ref(), &a.named_slices()?),
    );
    r.add_value(
        "kd.core.extract_update",
        &["kd.extract_update"],
        "ds, schema=unspecified",
        r#"Returns a new bag holding only the data reachable from `ds`.

The bag of `kd.extract(ds, schema)`: the attributes, list items and dict
entries reachable from `ds` (through `schema` when given) and the schemas
that describe them, to apply elsewhere with `kd.updated`. Raises when `ds`
has no bag.

Args:
  ds: a DataSlice with a bag.
  schema: the schema to follow; ds's own schema when unspecified.

Examples:
  >>> a = kd.new(x=1, y=kd.new(z=2))
  >>> bag = kd.extract_update(a.y)
  >>> a.y.no_bag().with_bag(bag)
  DataItem(Entity(z=2), schema: ENTITY(z=INT32), bag_id: $...)
  >>> kd.extract_update(kd.item(1))
  Traceback (most recent call last):
  ...
  ValueError: kd.core.extract: cannot extract without a DataBag"#,
        |a| {
            let x = extract(a.slice("ds")?, opt(a, "schema")?.as_ref())?;
            Ok(Value::Bag(x.bag().cloned()))
        },
    );
    r.add(
        "kd.core.shallow_clone",
        &["kd.shallow_clone"],
        "x, /, *, itemid=unspecified, schema=unspecified, **overrides",
        r#"Returns clones of x with new ItemIds holding the same top-level attributes.

The items of `x` get new ids (one per position, even where `x` repeats an
item) and a new bag with their own attribute values (list items, dict
entries). Only those values are copied: the entities they refer to keep their
ids but none of their attributes, and their schemas are copied without
attributes. Keyword arguments set attributes on the clones.

Args:
  x: a DataSlice of entities, objects, lists or dicts, with a bag.
  itemid: the ids to give the clones (ITEMID, of x's rank, with an id for
    each present item); new ids when unspecified.
  schema: the schema to read x with and to give the result; x's own schema
    when unspecified.
  **overrides: attribute values to set on the clones.

Examples:
  >>> a = kd.new(x=1, y=kd.new(z=2))
  >>> s = kd.shallow_clone(a)
  >>> s.x, s.get_itemid() == a.get_itemid()
  (DataItem(1, schema: INT32, bag_id: $...), DataItem(missing, schema: MASK))
  >>> s.y.get_itemid() == a.y.get_itemid()
  DataItem(present, schema: MASK)
  >>> s.y.get_attr_names(intersection=True)
  []"#,
        |a| clone_op(a, "kd.core.shallow_clone", Some(Depth::TopLevel)),
    );
    r.add(
        "kd.core.deep_clone",
        &["kd.deep_clone"],
        "x, /, schema=unspecified, **overrides",
        r#"Returns clones of x and of everything reachable from it, all with new ItemIds.

Every entity, object, list and dict reached from `x` is copied into a new bag
with a new id. An item reached twice (or repeated in `x`) is cloned once, so
shared references stay shared among the clones. Schemas keep their ids, but
objects get implicit schemas of their own. Keyword arguments set attributes on
the top-level clones.

Args:
  x: a DataSlice of entities, objects, lists or dicts, with a bag.
  schema: the schema to read x with and to give the result; x's own schema
    when unspecified.
  **overrides: attribute values to set on the top-level clones.

Examples:
  >>> a = kd.new(x=1)
  >>> b = kd.new(p=a, q=a)
  >>> d = kd.deep_clone(b)
  >>> d
  DataItem(Entity(p=Entity(x=1), q=Entity(x=1)), schema: ENTITY(p=ENTITY(x=INT32), q=ENTITY(x=INT32)), bag_id: $...)
  >>> d.p.get_itemid() == a.get_itemid(), d.p.get_itemid() == d.q.get_itemid()
  (DataItem(missing, schema: MASK), DataItem(present, schema: MASK))
  >>> kd.deep_clone(b, r='new').r
  DataItem('new', schema: STRING, bag_id: $...)"#,
        |a| clone_op(a, "kd.core.deep_clone", None),
    );
    r.add(
        "kd.core.stub",
        &["kd.stub"],
        "x, attrs=[]",
        r#"Returns x with a new bag holding only what updates to its items need.

The stub keeps the ids of `x` and, in a new bag, just enough to add data to
them and merge it back: the schema of each object (without its attributes),
the items of lists (stubbed in turn) and the key and value schemas of dicts,
which are empty. Attributes are not copied unless named in `attrs`, whose
values are stubbed in turn. A slice without a bag (primitives, ids) gets an
empty one.

Args:
  x: a DataSlice.
  attrs: a DataSlice of attribute names (STRING) to keep as well; none when
    unspecified.

Examples:
  >>> a = kd.new(x=1, y=kd.new(z=2))
  >>> s = kd.stub(a)
  >>> s.get_itemid() == a.get_itemid(), s.get_attr_names(intersection=True)
  (DataItem(present, schema: MASK), [])
  >>> kd.stub(a, kd.slice(['y'])).y.get_itemid() == a.y.get_itemid()
  DataItem(present, schema: MASK)
  >>> kd.stub(kd.obj(x=1)).get_obj_schema()
  DataItem(IMPLICIT_ENTITY(), schema: SCHEMA, bag_id: $...)
  >>> kd.stub(kd.dict({1: 2}))
  DataItem(Dict{}, schema: DICT{INT32, INT32}, bag_id: $...)"#,
        |a| {
            let names = match a.opt_slice("attrs")? {
                Some(names) => (0..names.size())
                    .filter_map(|i| names.get(i))
                    .map(|v| match v {
                        ScalarRef::String(s) => Ok(s.to_string()),
                        _ => Err(Error::value("kd.core.stub", format!("`attrs` must hold attribute names (STRING), got {}", crate::describe(names)))),
                    })
                    .collect::<Result<Vec<_>>>()?,
                None => Vec::new(),
            };
            stub(a.slice("x")?, &names)
        },
    );
    r.add(
        "kd.ids.deep_uuid",
        &["kd.deep_uuid"],
        "x, /, schema=unspecified, *, seed=''",
        r#"Returns a uuid per item computed from its content.

The content is followed through attributes, list items and dict entries, so two
structures with equal data get equal ids whatever their own ids are. Dict
entries count regardless of the order they were set in; list items count in
order. Primitives and schemas get ids from their values, and a missing item
the id of None; an ITEMID slice is returned as is. Raises for entities
without a bag and for objects without a schema.

Args:
  x: a DataSlice.
  schema: the schema to read x with; attributes it does not name are ignored.
    x's own schema when unspecified.
  seed: a text that separates ids made from the same content.

Examples:
  >>> a = kd.new(x=1, y=kd.new(z=2))
  >>> kd.deep_uuid(a) == kd.deep_uuid(kd.deep_clone(a))
  DataItem(present, schema: MASK)
  >>> kd.deep_uuid(a) == kd.deep_uuid(kd.new(x=1, y=kd.new(z=3)))
  DataItem(missing, schema: MASK)
  >>> kd.deep_uuid(kd.dict({'a': 1, 'b': 2})) == kd.deep_uuid(kd.dict({'b': 2, 'a': 1}))
  DataItem(present, schema: MASK)
  >>> kd.deep_uuid(kd.item(None)) == kd.deep_uuid(kd.new(x=1) & kd.missing)
  DataItem(present, schema: MASK)"#,
        |a| deep_uuid(a.slice("x")?, opt(a, "schema")?.as_ref(), &seed_text(a.slice("seed")?)?),
    );
    r.bag_rule("kd.ids.deep_uuid", crate::registry::BagRule::Drop);
}
