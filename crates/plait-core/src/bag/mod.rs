//! DataBag: the store of the attributes of entities, objects and struct
//! schemas, of the items of lists and of the entries of dicts, keyed by ItemId.
//!
//! A bag is a shared handle. Its own contents sit behind an `Arc`, so
//! `fork_bag` and `freeze_bag` are O(1): the copy shares everything until one
//! side writes, and a write copies only the map of attributes and the one
//! attribute it touches (copy-on-write). Reads through a bag with fallbacks
//! look in the bag first and in each fallback, in order, for the items the bag
//! says nothing about. Bags are immutable unless created mutable
//! (`kd.mutable_bag()`, `fork_bag`); an RwLock makes a mutable bag safe to
//! share between threads (a reader sees a write entirely or not at all).

mod attr_map;
mod attr_store;
mod dict_columns;
pub mod dict_store;
mod layering;
pub mod list_store;
pub mod text;

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use attr_map::AttrMap;
pub use attr_store::{AllocationColumn, AttrBlock, AttrStore, ItemTally, Lookup, Stored};
use dict_columns::DictColumns;
use dict_store::{DictRef, DictStore, KeyRef};
pub use layering::SchemaIds;
use list_store::{DenseLists, ListRef, ListStore, gather};

use crate::column::{MISSING_INDEX, ScalarRef, SliceBuilder, SliceData};
use crate::error::{Error, Result};
use crate::itemid::{ItemId, new_allocation};
use crate::shape::Edge;
use crate::splice::Splices;

/// The name of the attribute holding an object's schema.
pub const SCHEMA_ATTR: &str = "__schema__";

/// Whether attribute `name` is bookkeeping of the bag (an object's schema, a
/// named schema's name, a schema's metadata) rather than data: attribute listings and copies of
/// data skip it. Other names, dunder ones included (a functor's
/// `__signature__`), are data.
pub fn is_internal_attr(name: &str) -> bool {
    name == SCHEMA_ATTR || name == text::SCHEMA_NAME_ATTR || name == text::SCHEMA_METADATA_ATTR
}

/// The contents of one bag (without its fallbacks).
#[derive(Clone, Debug, Default)]
struct Store {
    attrs: AttrMap,
    lists: Arc<ListStore>,
    dicts: Arc<DictStore>,
}

#[derive(Debug)]
struct BagInner {
    id: u64,
    mutable: bool,
    store: RwLock<Arc<Store>>,
    fallbacks: Vec<DataBag>,
    /// Whether nothing this bag reads can change: it is immutable and so is
    /// every bag it reads through (see [`DataBag::snapshot`]).
    frozen: bool,
    /// For a frozen bag, the columns of attributes of whole allocations that
    /// several layers make up, merged at their first read (so reads through
    /// long chains of updates stay O(1) amortized); by (attribute,
    /// allocation).
    merged_columns: std::sync::Mutex<HashMap<(Arc<str>, u64), SliceData>>,
    /// For a bag made with the items of one operator (`kd.new`, `kd.obj`,
    /// `kd.implode`, ...): those items, as slots 0..len of an allocation, and
    /// their schema. Everything the bag reads is reachable from them, so a
    /// value holding exactly them brings the bag along whole (see
    /// [`DataBag::reachable_from`]).
    made_for: std::sync::OnceLock<(Roots, crate::schema::Schema)>,
    /// For a frozen bag with fallbacks, its layers ([`DataBag::layers`]),
    /// found at the first read: readers of many attributes ask for them once
    /// per attribute. Dropped by [`DataBag::fill`].
    layers: std::sync::Mutex<Option<Arc<[Arc<Store>]>>>,
}

/// Items a bag was made for (see [`DataBag::set_made_for`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Roots {
    /// Slots 0..len of an allocation, in order.
    Allocation { allocation: u64, len: usize },
    /// Ids of several allocations, in order, all present (objects made in
    /// groups, as `kd.from_py(dict_as_obj=True)` makes records of differing
    /// keys). Compared by their bits (the buffer is shared, not copied).
    Ids(arrow_buffer::ScalarBuffer<i128>),
    /// One struct schema (a schema item).
    Schema(ItemId),
}

impl Drop for BagInner {
    /// Drops the bags this one reads through one after another, not by
    /// recursion: a chain of 100,000 updates (each reading the previous
    /// bag) would otherwise overflow the stack when it goes.
    fn drop(&mut self) {
        let mut pending = std::mem::take(&mut self.fallbacks);
        while let Some(bag) = pending.pop() {
            if let Ok(mut inner) = Arc::try_unwrap(bag.0) {
                pending.append(&mut inner.fallbacks);
            }
        }
    }
}

/// The contents of a new bag: one empty store shared by all new bags (each
/// copies it on its first write, as any shared store), so that making a bag
/// (often one per call) allocates the bag alone.
fn empty_store() -> Arc<Store> {
    static EMPTY: std::sync::OnceLock<Arc<Store>> = std::sync::OnceLock::new();
    EMPTY.get_or_init(Arc::default).clone()
}

/// A handle to a bag; clones share it.
#[derive(Clone, Debug)]
pub struct DataBag(Arc<BagInner>);

impl PartialEq for DataBag {
    fn eq(&self, other: &DataBag) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// The stores a bag reads, its own first: most bags have no fallbacks,
/// and their one store is handed out without allocating a list of one.
enum Layers {
    One(Arc<Store>),
    Many(Arc<[Arc<Store>]>),
}

impl std::ops::Deref for Layers {
    type Target = [Arc<Store>];

    fn deref(&self) -> &[Arc<Store>] {
        match self {
            Layers::One(store) => std::slice::from_ref(store),
            Layers::Many(stores) => stores,
        }
    }
}

/// Which columns of dict entries a read takes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Entries {
    Keys,
    Values,
    Both,
}

impl DataBag {
    fn from_parts(store: Arc<Store>, mutable: bool, fallbacks: Vec<DataBag>) -> DataBag {
        let frozen = !mutable && fallbacks.iter().all(|f| f.0.frozen);
        DataBag(Arc::new(BagInner {
            id: new_allocation(),
            mutable,
            store: RwLock::new(store),
            fallbacks,
            frozen,
            merged_columns: Default::default(),
            made_for: Default::default(),
            layers: Default::default(),
        }))
    }

    /// An empty mutable bag (`kd.mutable_bag()`).
    pub fn new_mutable() -> DataBag {
        DataBag::from_parts(empty_store(), true, Vec::new())
    }

    /// An empty immutable bag (`kd.bag()`).
    pub fn new_immutable() -> DataBag {
        DataBag::from_parts(empty_store(), false, Vec::new())
    }

    /// An immutable bag with no contents of its own that reads through `bags`
    /// in order (`kd.enriched_bag` / `kd.updated_bag` give the order).
    pub fn with_fallbacks(bags: Vec<DataBag>) -> DataBag {
        DataBag::from_parts(empty_store(), false, bags)
    }

    /// The distinct bags among `bags`, in order.
    pub fn distinct<'a>(bags: impl IntoIterator<Item = &'a DataBag>) -> Vec<DataBag> {
        let mut out: Vec<DataBag> = Vec::new();
        let mut seen: std::collections::HashSet<*const BagInner> = std::collections::HashSet::new();
        for b in bags {
            if seen.insert(Arc::as_ptr(&b.0)) {
                out.push(b.clone());
            }
        }
        out
    }

    /// The bag a result built from items of `bags` reads from: none, the
    /// one bag as is, or a new bag reading through all of them in order.
    pub fn combined<'a>(bags: impl IntoIterator<Item = &'a DataBag>) -> Option<DataBag> {
        let mut bags = DataBag::distinct(bags);
        match bags.len() {
            0 | 1 => bags.pop(),
            _ => Some(DataBag::with_fallbacks(bags)),
        }
    }

    /// A mutable (`fork_bag`) or immutable (`freeze_bag`) copy, in O(1).
    pub fn fork(&self, mutable: bool) -> DataBag {
        DataBag::from_parts(self.read().clone(), mutable, self.0.fallbacks.clone())
    }

    /// An immutable bag holding this bag's own contents, without its
    /// fallbacks (O(1)).
    pub fn own_layer(&self) -> DataBag {
        DataBag::from_parts(self.read(), false, Vec::new())
    }

    /// An immutable bag holding everything this bag reads (its contents and
    /// its fallbacks'), merged into one layer (`kd.with_merged_bag`).
    pub fn merged(&self) -> DataBag {
        DataBag::from_parts(self.flattened(), false, Vec::new())
    }

    /// The bag a walk over many items (`kd.deep_uuid`, `kd.extract`, the
    /// clones) reads from: this bag, or, when it reads through more than
    /// [`WALK_LAYERS_MAX`] layers (a long chain of updates), the same
    /// contents merged into one layer. Each read looks through every layer,
    /// so a walk over a chain of n bags would cost O(n) per item; merging
    /// costs O(n log n) once.
    pub fn for_walk(&self) -> DataBag {
        if self.0.fallbacks.is_empty() || self.layers().len() <= WALK_LAYERS_MAX { self.clone() } else { self.merged() }
    }

    /// What this bag reads, as one layer: its own contents, then each
    /// fallback's where the layers before say nothing.
    ///
    /// The layers are merged into one store owned here, in place, in read
    /// order: each layer's items are looked at once (what a store shared
    /// with a layer holds is copied at most once, when first written), so a
    /// chain of n small layers (objects made one by one) costs O(n) rather
    /// than O(n²) for copying a growing result at each step.
    fn flattened(&self) -> Arc<Store> {
        let mut layers = self.find_layers().into_iter();
        let first = layers.next().expect("a bag has its own layer");
        let Some(second) = layers.next() else { return first };
        let mut store = Store::clone(&first);
        drop(first);
        for layer in std::iter::once(second).chain(layers) {
            merge_into(&mut store, &layer, Wins::Ours);
        }
        Arc::new(store)
    }

    /// A random id; Koda prints its last four hex digits (`$f74e`).
    pub fn id(&self) -> u64 {
        self.0.id
    }

    /// `$` and the last four hex digits of the id, as in `bag_id: $f74e`.
    pub fn short_id(&self) -> String {
        format!("${:04x}", self.0.id & 0xffff)
    }

    pub fn is_mutable(&self) -> bool {
        self.0.mutable
    }

    /// Records that everything this frozen bag reads is reachable from the
    /// items `roots` read as `schema` (the items an operator made in it,
    /// over what their values brought along). Ignored for a bag that can
    /// change, and once set.
    pub fn set_made_for(&self, roots: Roots, schema: crate::schema::Schema) {
        if self.0.frozen {
            let _ = self.0.made_for.set((roots, schema));
        }
    }

    /// Whether everything this bag reads is reachable from the items
    /// `roots` read as `schema` (see [`DataBag::set_made_for`]).
    pub fn reachable_from(&self, roots: &Roots, schema: crate::schema::Schema) -> bool {
        self.0.made_for.get().is_some_and(|(r, s)| r == roots && *s == schema)
    }

    /// Whether neither this bag nor any bag it reads through can change:
    /// what it reads now it reads forever (so results computed from it may
    /// be cached by its id).
    pub fn is_frozen(&self) -> bool {
        self.0.frozen
    }

    pub fn fallbacks(&self) -> &[DataBag] {
        &self.0.fallbacks
    }

    fn read(&self) -> Arc<Store> {
        self.0.store.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Runs `write` on this bag's own contents; fails on an immutable bag.
    fn write<T>(&self, op: &str, write: impl FnOnce(&mut Store) -> T) -> Result<T> {
        if !self.0.mutable {
            return Err(immutable_error(op));
        }
        let mut guard = self.0.store.write().unwrap_or_else(|e| e.into_inner());
        Ok(write(Arc::make_mut(&mut guard)))
    }

    /// Writes into a bag that is still being built by its creator (and is
    /// not yet visible to anyone else), mutable or not.
    pub fn fill<T>(&self, write: impl FnOnce(&mut BagWriter<'_>) -> T) -> T {
        // The layers found so far hold the store: dropped first, so that
        // writing does not copy it.
        *self.0.layers.lock().unwrap_or_else(|e| e.into_inner()) = None;
        let mut guard = self.0.store.write().unwrap_or_else(|e| e.into_inner());
        let result = write(&mut BagWriter { store: Arc::make_mut(&mut guard) });
        // Columns merged by reads while the bag was being built are stale.
        self.0.merged_columns.lock().unwrap_or_else(|e| e.into_inner()).clear();
        result
    }

    /// Copies everything `other` reads (its fallbacks included) into this
    /// mutable bag (adoption). With [`OnConflict::Raise`], an item both bags
    /// give different values (an attribute, a dict entry, a list) is Koda's
    /// "cannot merge DataBags" error; with [`OnConflict::KeepOurs`] this bag's
    /// values win.
    pub fn merge_from(&self, op: &str, other: &DataBag, on_conflict: OnConflict) -> Result<()> {
        if self == other {
            return Ok(());
        }
        if on_conflict == OnConflict::Raise {
            if let Some(conflict) = layering::first_disagreement(self, other) {
                return Err(Error::value(op, conflict));
            }
        }
        // In place: a copy of this bag's store first would copy every
        // attribute it holds, for each merge (a chain built with `bag.obj`
        // one object at a time would be quadratic).
        let theirs = other.flattened();
        self.write(op, |store| merge_into(store, &theirs, Wins::Ours))
    }

    /// Copies everything `other` reads into this mutable bag
    /// (`DataBag.merge_inplace`): where both give a value, `other`'s wins
    /// with `overwrite`, else this bag's. Unless `allow_data_conflicts`, any
    /// such disagreement is Koda's "cannot merge DataBags" error; unless
    /// `allow_schema_conflicts`, a disagreement about a schema attribute is.
    pub fn merge_inplace(&self, op: &str, other: &DataBag, overwrite: bool, allow_data_conflicts: bool, allow_schema_conflicts: bool) -> Result<()> {
        if !self.0.mutable {
            return Err(immutable_error(op));
        }
        if self == other {
            return Ok(());
        }
        // Flattened once, for the schema check and the merge.
        let theirs = other.flattened();
        if !allow_schema_conflicts {
            self.check_schema_agreement(op, other, &theirs)?;
        }
        if !allow_data_conflicts {
            if let Some(conflict) = layering::first_disagreement(self, other) {
                return Err(Error::value(op, conflict));
            }
        }
        let theirs_size = theirs.size_hint();
        self.write(op, |store| {
            if !overwrite {
                merge_into(store, &theirs, Wins::Ours);
            } else if store.size_hint_capped(theirs_size + 1) <= theirs_size {
                let mut merged = Store::clone(&theirs);
                merge_into(&mut merged, store, Wins::Ours);
                *store = merged;
            } else {
                // Theirs written over ours in place: merging many small
                // bags into one costs what they hold, not what it holds.
                merge_into(store, &theirs, Wins::Theirs);
            }
        })
    }

    /// Koda's error when this bag and `other` (whose contents are `theirs`)
    /// give a schema attribute different values: the first such (schema,
    /// attribute) in order. Only schemas' attributes are looked at (columns
    /// of entities are skipped whole), and nothing is copied unless they
    /// differ, so that merging many small bags costs little per bag.
    fn check_schema_agreement(&self, op: &str, other: &DataBag, theirs: &Store) -> Result<()> {
        let mut first: Option<(ItemId, &str)> = None;
        for (name, values) in &theirs.attrs {
            values.for_each_set_item(
                |allocation, _| ItemId::in_allocation(allocation, 0).is_schema(),
                |id| {
                    if !id.is_schema() || first.is_some_and(|seen| seen <= (id, &**name)) {
                        return;
                    }
                    let Some(ours) = self.get_one(name, id) else { return };
                    if values.get_one(id).flatten() != Some(ours.as_ref()) {
                        first = Some((id, &**name));
                    }
                },
            );
        }
        if let Some((id, name)) = first {
            let ours = self.get_one(name, id);
            let theirs = theirs.attrs.get(name).and_then(|v| v.get_one(id)).flatten().map(Stored::from_ref);
            let text = |s: Option<&Stored>| match s.and_then(Stored::schema) {
                Some(schema) => text::schema_text(schema, None),
                None => "None".to_string(),
            };
            let schema = crate::schema::Schema::Struct(id);
            return Err(Error::value(
                op,
                format!(
                    "cannot merge DataBags due to an exception encountered when merging schemas.\n\n\
                     The conflicting schema in the first DataBag: {}\n\
                     The conflicting schema in the second DataBag: {}\n\n\
                     The cause is the schema for attribute '{name}' is incompatible: {} vs {}",
                    text::schema_text(schema, Some(self)),
                    text::schema_text(schema, Some(other)),
                    text(ours.as_ref()),
                    text(theirs.as_ref()),
                ),
            ));
        }
        Ok(())
    }

    /// The number of values the bag and each of its fallbacks hold:
    /// attribute values (schemas' too), list items and dict entries
    /// (`DataBag.get_approx_size`). As Koda's, it adds up the layers, so a
    /// value an update overrides counts in both (each distinct bag once).
    pub fn approx_size(&self) -> usize {
        self.find_layers()
            .iter()
            .map(|store| {
                let attrs: usize = store.attrs.values().map(|a| a.set_items().len()).sum();
                let (_, list_items) = store.lists.counts();
                let dict_entries: usize = store.dicts.iter().map(|(_, d)| d.len()).sum();
                attrs + list_items + dict_entries
            })
            .sum()
    }

    /// Sets `attr` of `ids[i]` to `values[i]` (present ids only).
    pub fn set_attr(&self, op: &str, attr: &str, ids: &[Option<ItemId>], values: &SliceData) -> Result<()> {
        self.write(op, |store| store.set_attr(attr, ids, values))
    }

    /// The values of `attr` for `ids`, looking through fallbacks; unset and
    /// missing ids give missing values.
    pub fn get_attr(&self, attr: &str, ids: &[Option<ItemId>]) -> SliceData {
        let layers = self.layers();
        // Items of one allocation stored densely in every layer (a selection
        // of what `kd.new` made): each item's slot is found once, and the
        // layers' columns are read by offset.
        if layers.len() > 1 {
            if let Some(allocation) = ids.iter().flatten().next().and_then(|id| id.allocation()) {
                let offsets: Option<Vec<usize>> = ids
                    .iter()
                    .map(|id| match id {
                        None => Some(MISSING_INDEX),
                        Some(id) => (id.allocation() == Some(allocation)).then_some(id.offset() as usize),
                    })
                    .collect();
                if let Some(offsets) = offsets {
                    // Slots 0..n in order (all of what `kd.obj` made, read
                    // through its values' bags): the allocation's column,
                    // merged once for a frozen bag, not gathered item by item.
                    if offsets.iter().enumerate().all(|(i, &o)| i == o) {
                        if let Some(data) = self.get_attr_of_allocation(attr, allocation, offsets.len()) {
                            return data;
                        }
                    }
                    if let Some(data) = self.get_attr_at_offsets(&layers, attr, allocation, &offsets) {
                        return data;
                    }
                }
            }
        }
        self.get_attr_and_unset_in(&layers, attr, ids).data
    }

    /// The values of `attr` for `ids` (as [`DataBag::get_attr`]) and the
    /// positions that no layer sets (neither present nor set to missing):
    /// copies of data (`kd.extract`) leave those unset, so that a copy read
    /// over other bags does not hide their values.
    pub fn get_attr_and_unset(&self, attr: &str, ids: &[Option<ItemId>]) -> Lookup {
        self.get_attr_and_unset_in(&self.layers(), attr, ids)
    }

    fn get_attr_and_unset_in(&self, layers: &[Arc<Store>], attr: &str, ids: &[Option<ItemId>]) -> Lookup {
        // The first layer holding `attr` answers for all ids (a dense column
        // comes back without a copy); each layer below is asked, in one
        // batch, about the ids still unset.
        let mut base: Option<SliceData> = None;
        let mut pending: Vec<usize> = Vec::new();
        let mut overlays: Vec<(Vec<usize>, SliceData)> = Vec::new();
        for layer in layers {
            let Some(values) = layer.attrs.get(attr) else { continue };
            if base.is_none() {
                let lookup = values.get(ids);
                base = Some(lookup.data);
                pending = lookup.unset;
            } else {
                let asked: Vec<Option<ItemId>> = pending.iter().map(|&i| ids[i]).collect();
                let lookup = values.get(&asked);
                let still_unset: Vec<usize> = lookup.unset.iter().map(|&k| pending[k]).collect();
                overlays.push((std::mem::replace(&mut pending, still_unset), lookup.data));
            }
            if pending.is_empty() {
                break;
            }
        }
        let Some(base) = base else {
            let unset = ids.iter().enumerate().filter_map(|(i, id)| id.map(|_| i)).collect();
            return Lookup { data: SliceData::missing(ids.len()), unset };
        };
        if overlays.is_empty() {
            return Lookup { data: base, unset: pending };
        }
        // Where each position's value is: the base, or an overlay (later
        // overlays only cover what earlier ones left unset).
        let mut from: Vec<(usize, usize)> = (0..ids.len()).map(|i| (0, i)).collect();
        for (n, (positions, _)) in overlays.iter().enumerate() {
            for (k, &i) in positions.iter().enumerate() {
                from[i] = (n + 1, k);
            }
        }
        let sources: Vec<&SliceData> = std::iter::once(&base).chain(overlays.iter().map(|(_, data)| data)).collect();
        Lookup { data: gather(&sources, &from), unset: pending }
    }

    /// The value of `attr` of one item, looking through fallbacks.
    pub fn get_one(&self, attr: &str, id: ItemId) -> Option<Stored> {
        self.get_one_set(attr, id).flatten()
    }

    /// Like [`Self::get_one`] but tells "set to missing" (`Some(None)`) from
    /// "unset" (`None`).
    fn get_one_set(&self, attr: &str, id: ItemId) -> Option<Option<Stored>> {
        if self.0.fallbacks.is_empty() {
            // One layer: read under the lock, without collecting layers
            // (single reads and writes of items take this path).
            let store = self.0.store.read().unwrap_or_else(|e| e.into_inner());
            return store.attrs.get(attr)?.get_one(id).map(|v| v.map(Stored::from_ref));
        }
        let layers = self.layers();
        layers.iter().find_map(|layer| layer.attrs.get(attr)?.get_one(id)).map(|v| v.map(Stored::from_ref))
    }

    /// The attributes present on item `id` (here or in fallbacks), sorted.
    pub fn attr_names(&self, id: ItemId) -> Vec<String> {
        self.attrs_of(id).into_iter().map(|(name, _)| name.to_string()).collect()
    }

    /// The attributes present on item `id` (here or in fallbacks) and their
    /// values, sorted by name (not `__schema__`). One pass over each layer's
    /// attributes: the layer that sets an attribute first (to a value or to
    /// missing) decides it.
    pub fn attrs_of(&self, id: ItemId) -> Vec<(Arc<str>, Stored)> {
        let mut decided: crate::FastSet<&str> = crate::FastSet::default();
        let mut found = Vec::new();
        let layers = self.layers();
        // One layer names each attribute once: nothing to remember.
        let several = layers.len() > 1;
        for layer in layers.iter() {
            layer.attrs.for_each_candidate(id, |name, values| {
                if &**name == SCHEMA_ATTR || (several && decided.contains(&**name)) {
                    return;
                }
                if let Some(value) = values.get_one(id) {
                    if several {
                        decided.insert(name);
                    }
                    if let Some(value) = value {
                        found.push((name.clone(), Stored::from_ref(value)));
                    }
                }
            });
        }
        found.sort_by(|a, b| a.0.cmp(&b.0));
        found
    }

    /// For each attribute that some of `ids` may have (here or in
    /// fallbacks; `__schema__` and other internal ones too), the positions
    /// of those ids, ascending; sorted by name. A superset: a position is
    /// listed when its id's allocation has the attribute; read the values
    /// to know. Walks over objects of many schemas (`kd.clone` of records
    /// with differing keys) read each attribute only for the items that
    /// may have it: the cost is what the ids and the bag hold, not their
    /// product.
    pub fn attrs_held_by(&self, ids: &[Option<ItemId>]) -> Vec<(Arc<str>, Vec<usize>)> {
        // Positions by holder (runs of one allocation grouped without a
        // lookup each).
        let mut groups: Vec<(attr_map::Holder, Vec<usize>)> = Vec::new();
        let mut group_of: crate::FastMap<attr_map::Holder, usize> = crate::FastMap::default();
        for (i, id) in ids.iter().enumerate() {
            let Some(id) = id else { continue };
            let holder = attr_map::Holder::of(*id);
            let k = match groups.last() {
                Some((last, _)) if *last == holder => groups.len() - 1,
                _ => *group_of.entry(holder).or_insert_with(|| {
                    groups.push((holder, Vec::new()));
                    groups.len() - 1
                }),
            };
            groups[k].1.push(i);
        }
        let layers = self.layers();
        // One layer answering from its index names each attribute once:
        // nothing to merge by name.
        if let [layer] = &layers[..] {
            if let Some(held) = layer.attrs.held_by_groups(&groups, ids) {
                return sorted_held(held.into_iter().map(|(name, positions)| (name.clone(), positions)).collect());
            }
        }
        let mut by_name: crate::FastMap<Arc<str>, Vec<usize>> = crate::FastMap::default();
        for layer in layers.iter() {
            // A layer of many names answers from its index.
            if let Some(held) = layer.attrs.held_by_groups(&groups, ids) {
                for (name, positions) in held {
                    by_name.entry(name.clone()).or_default().extend(positions);
                }
                continue;
            }
            for (name, values) in &layer.attrs {
                let mut positions: Vec<usize> = Vec::new();
                if values.holders_bound() <= groups.len() {
                    values.for_each_holder(|holder| {
                        if let Some(&k) = group_of.get(&holder) {
                            positions.extend(&groups[k].1);
                        }
                    });
                } else {
                    for (holder, group) in &groups {
                        if values.holds(*holder) {
                            positions.extend(group);
                        }
                    }
                }
                if !positions.is_empty() {
                    by_name.entry(name.clone()).or_default().extend(positions);
                }
            }
        }
        sorted_held(by_name.into_iter().collect())
    }

    /// The names of the attributes any layer holds, of any item, sorted.
    pub fn all_attr_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.layers().iter().flat_map(|l| l.attrs.keys().map(|k| k.to_string())).collect();
        names.sort();
        names.dedup();
        names
    }

    /// Statistics for the bag's repr, over the bag and its fallbacks (an item
    /// known to several of them counts in each).
    pub fn stats(&self) -> BagStats {
        let mut stats = BagStats::default();
        let mut per_attr: HashMap<String, usize> = HashMap::new();
        for layer in self.layers().iter() {
            let mut items = ItemTally::default();
            for (name, values) in &layer.attrs {
                let (on_entities, on_schemas) = values.tally(&mut items);
                stats.schema_values += on_schemas;
                if name.as_ref() != SCHEMA_ATTR {
                    stats.entity_values += on_entities;
                    if on_entities > 0 {
                        *per_attr.entry(name.to_string()).or_default() += on_entities;
                    }
                }
            }
            let (entities, schemas) = items.counts();
            stats.entities += entities;
            stats.schemas += schemas;
            let (lists, list_items) = layer.lists.counts();
            stats.lists += lists;
            stats.list_items += list_items;
            for (_, d) in layer.dicts.iter() {
                stats.dicts += usize::from(!d.is_empty());
                stats.dict_entries += d.len();
            }
        }
        stats.attrs = per_attr.into_iter().collect();
        stats.attrs.sort_by(|a, b| b.1.cmp(&a.1).then(b.0.cmp(&a.0)));
        stats
    }

    /// Every (item, attribute, value) set in the bag's own contents, for
    /// `contents_repr`, sorted by attribute then item.
    pub fn own_triples(&self) -> Vec<(ItemId, String, Option<Stored>)> {
        let store = self.read();
        let mut out = Vec::new();
        for (name, values) in &store.attrs {
            for id in values.set_items() {
                let value = values.get_one(id).flatten().map(Stored::from_ref);
                out.push((id, name.to_string(), value));
            }
        }
        out.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
        out
    }

    /// The bag's own attributes (not its fallbacks'), by name, block by
    /// block (see [`AttrBlock`]).
    pub fn own_attr_blocks(&self) -> Vec<(String, Vec<AttrBlock>)> {
        let store = self.read();
        let mut out: Vec<(String, Vec<AttrBlock>)> = store.attrs.iter().map(|(name, a)| (name.to_string(), a.blocks())).collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    /// The ids of the lists in the bag's own contents.
    pub fn own_list_ids(&self) -> Vec<ItemId> {
        let mut ids = self.read().lists.ids();
        ids.sort();
        ids
    }

    /// This bag's own contents, then each fallback's (depth first): the order
    /// in which reads consult them. A bag reached twice is read the first
    /// time only (the second could only repeat answers); the walk is
    /// iterative, so no depth of layering reaches the native stack.
    fn layers(&self) -> Layers {
        if self.0.fallbacks.is_empty() {
            return Layers::One(self.read());
        }
        if !self.0.frozen {
            return Layers::Many(self.find_layers().into());
        }
        let mut cached = self.0.layers.lock().unwrap_or_else(|e| e.into_inner());
        Layers::Many(cached.get_or_insert_with(|| self.find_layers().into()).clone())
    }

    /// [`DataBag::layers`], found by walking the fallbacks.
    fn find_layers(&self) -> Vec<Arc<Store>> {
        let mut out = Vec::new();
        // Bags already read: a short list scanned, a set once there are many.
        let mut seen: Vec<*const BagInner> = Vec::new();
        let mut seen_many: std::collections::HashSet<*const BagInner> = std::collections::HashSet::new();
        let mut stack = vec![self];
        while let Some(bag) = stack.pop() {
            let ptr = Arc::as_ptr(&bag.0);
            let first_time = if seen.len() < 32 {
                !seen.contains(&ptr) && {
                    seen.push(ptr);
                    true
                }
            } else {
                if seen_many.is_empty() {
                    seen_many.extend(seen.iter().copied());
                }
                seen_many.insert(ptr)
            };
            if first_time {
                out.push(bag.read());
                stack.extend(bag.0.fallbacks.iter().rev());
            }
        }
        out
    }

    /// The items of lists `ids`, as rows: the edge from lists to items and the
    /// items. A missing id, or a list no layer knows, is an empty row. Lists of
    /// one allocation read whole and in order come back without copying.
    pub fn explode(&self, ids: &[Option<ItemId>]) -> Result<(Edge, SliceData)> {
        let layers = self.layers();
        if let Some(whole) = whole_allocation(&layers, ids) {
            return Ok((whole.edge.clone(), whole.items.clone()));
        }
        let mut found = find_lists(&layers, ids);
        let mut sizes = Vec::with_capacity(ids.len());
        let mut picks = Vec::new();
        for list in &found.lists {
            match list {
                Some(list) => {
                    sizes.push(list.len() as i64);
                    for (items, range) in list.pieces() {
                        let source = source_index(&mut found.sources, items);
                        picks.extend(range.map(|i| (source, i)));
                    }
                }
                None => sizes.push(0),
            }
        }
        Ok((Edge::from_sizes(&sizes)?, gather(&found.sources, &picks)))
    }

    /// Item `indices[i]` of list `ids[i]` (negative indices count from the
    /// end); missing where the id or the index is missing or out of range.
    pub fn list_items_at(&self, ids: &[Option<ItemId>], indices: &[Option<i64>]) -> SliceData {
        let layers = self.layers();
        if let Some(whole) = whole_allocation(&layers, ids) {
            let picks: Vec<usize> = indices.iter().enumerate().map(|(i, index)| position_in(whole.edge.child_range(i), *index)).collect();
            return whole.items.take(&picks);
        }
        let mut found = find_lists(&layers, ids);
        let mut picks: Vec<(usize, usize)> = Vec::with_capacity(ids.len());
        for (list, index) in found.lists.iter().zip(indices) {
            let at = list.as_ref().and_then(|list| match position_in(0..list.len(), *index) {
                MISSING_INDEX => None,
                k => list.locate(k),
            });
            picks.push(match at {
                Some((items, i)) => (source_index(&mut found.sources, items), i),
                None => (0, MISSING_INDEX),
            });
        }
        if found.sources.is_empty() {
            return SliceData::missing(ids.len());
        }
        gather(&found.sources, &picks)
    }

    /// The lists of `len` slots of `allocation`, stored together and
    /// unchanged since (no layer shadows one of them).
    pub fn whole_lists(&self, allocation: u64, len: usize) -> Option<Arc<DenseLists>> {
        for layer in self.layers().iter() {
            if layer.lists.has_sparse_in(allocation) {
                return None;
            }
            if let Some(dense) = layer.lists.dense(allocation) {
                return (dense.edge.parent_size() == len).then(|| dense.clone());
            }
        }
        None
    }

    /// The number of items of each list (`None` for a missing id; 0 for a
    /// list no layer knows).
    pub fn list_sizes(&self, ids: &[Option<ItemId>]) -> Vec<Option<usize>> {
        let layers = self.layers();
        if let Some(whole) = whole_allocation(&layers, ids) {
            return (0..ids.len()).map(|i| Some(whole.edge.child_range(i).len())).collect();
        }
        let found = find_lists(&layers, ids);
        ids.iter().zip(&found.lists).map(|(id, list)| id.map(|_| list.as_ref().map_or(0, ListRef::len))).collect()
    }

    /// Appends the rows of `items` under `edge` to lists `ids`, in place,
    /// without copying the lists (see `list_store`'s tails). A list this
    /// bag's own layer does not hold is first copied in as read through the
    /// fallbacks (a list no layer knows starts empty).
    pub fn append_to_lists(&self, op: &str, ids: &[Option<ItemId>], edge: &Edge, items: &SliceData) -> Result<()> {
        if !self.0.mutable {
            return Err(immutable_error(op));
        }
        let own = self.read();
        let all_own = ids.iter().flatten().all(|id| own.lists.get(*id).is_some());
        drop(own); // before the write, which would copy a store still shared
        if !all_own {
            let own = self.read();
            let absent: Vec<Option<ItemId>> = ids.iter().map(|id| id.filter(|id| own.lists.get(*id).is_none())).collect();
            drop(own);
            let (rows, base) = self.explode(&absent)?;
            self.write(op, |store| {
                let lists = Arc::make_mut(&mut store.lists);
                for (i, id) in absent.iter().enumerate() {
                    if let Some(id) = id {
                        lists.set(*id, base.take(&rows.child_range(i).collect::<Vec<_>>()));
                    }
                }
            })?;
        }
        self.write(op, |store| {
            let lists = Arc::make_mut(&mut store.lists);
            for (i, id) in ids.iter().enumerate() {
                let range = edge.child_range(i);
                if let (Some(id), false) = (id, range.is_empty()) {
                    // One list appended to (`l.append(v)`): its items as they are.
                    let row = if range.len() == items.len() { items.clone() } else { items.take(&range.collect::<Vec<_>>()) };
                    let appended = lists.append(*id, row);
                    debug_assert!(appended, "the list was copied in above");
                }
            }
        })
    }

    /// Replaces the items of lists `ids` with the rows of `items` under `edge`.
    pub fn set_lists(&self, op: &str, ids: &[Option<ItemId>], edge: &Edge, items: &SliceData) -> Result<()> {
        self.write(op, |store| store.set_lists(ids, edge, items))
    }

    /// Splices the `splices.rows().len()` lists of a whole allocation,
    /// stored together and unchanged since ([`Self::whole_lists`]), with
    /// items of `new` ([`SliceData::splice_rows`]). Where this bag's own
    /// layer holds their column and nothing else does (lists made or last
    /// changed in this bag), the items move within it and no new column is
    /// made.
    pub fn splice_whole_lists(&self, op: &str, allocation: u64, new: &SliceData, splices: Splices) -> Result<()> {
        let Some(splices) = self.splice_whole_lists_in_place(op, allocation, new, splices)? else {
            return Ok(());
        };
        let dense = self
            .whole_lists(allocation, splices.rows().len())
            .ok_or_else(|| Error::internal(format!("{op}: the lists of allocation {allocation} are not stored together")))?;
        let (edge, items) = dense.items.splice_rows(&dense.edge, new, splices)?;
        self.set_whole_lists(op, allocation, &edge, &items)
    }

    /// [`Self::splice_whole_lists`] in place, when this bag's own layer
    /// holds the lists' column and nothing else holds it; otherwise the
    /// splices back, with nothing written.
    fn splice_whole_lists_in_place(&self, op: &str, allocation: u64, new: &SliceData, splices: Splices) -> Result<Option<Splices>> {
        self.write(op, |store| {
            let lists = Arc::make_mut(&mut store.lists);
            let Some(dense) = lists.dense_mut(allocation).filter(|d| d.edge.parent_size() == splices.rows().len()) else {
                return Some(splices);
            };
            // (Shared with another layer or bag: copied here, its items
            // still shared, so they are not taken over below.)
            let dense = Arc::make_mut(dense);
            let items = std::mem::replace(&mut dense.items, SliceData::missing(0));
            match items.splice_rows_in_place(&dense.edge, new, splices) {
                Ok((edge, items)) => {
                    *dense = DenseLists { edge, items };
                    None
                }
                Err(refused) => {
                    let (items, splices) = *refused;
                    dense.items = items;
                    Some(splices)
                }
            }
        })
    }

    /// Replaces the items of the lists of a whole allocation (offset `i`
    /// takes row `i` of `items` under `edge`): [`Self::set_lists`] without
    /// a list of their ids.
    fn set_whole_lists(&self, op: &str, allocation: u64, edge: &Edge, items: &SliceData) -> Result<()> {
        self.write(op, |store| store.set_whole_lists(allocation, edge, items))
    }

    /// The value of `keys[i]` in dict `ids[i]`, looking through fallbacks;
    /// missing where the id, the key or the entry is missing.
    pub fn dict_get(&self, ids: &[Option<ItemId>], keys: &SliceData) -> SliceData {
        use rayon::prelude::*;
        let layers = self.layers();
        // Each lookup is a cache miss or two in a large dict: chunks of
        // lookups run in parallel, then the values found are copied out in order.
        let found: Vec<Option<ScalarRef<'_>>> = if ids.len() >= PARALLEL_LOOKUPS {
            let chunks: Vec<Vec<Option<ScalarRef<'_>>>> = crate::parallel::install(|| {
                (0..ids.len())
                    .into_par_iter()
                    .step_by(LOOKUP_CHUNK)
                    .map(|start| lookup_values(&layers, ids, keys, start..(start + LOOKUP_CHUNK).min(ids.len())))
                    .collect()
            });
            chunks.concat()
        } else {
            lookup_values(&layers, ids, keys, 0..ids.len())
        };
        let mut builder = SliceBuilder::with_capacity(ids.len());
        for value in found {
            builder.push(value);
        }
        builder.finish()
    }

    /// The value of each of `keys` in the one dict `id`, when one layer
    /// holds all of it as a row of dicts stored together (`None`
    /// otherwise: ask [`Self::dict_get`]). The lookups are pipelined
    /// ([`DictColumns::find_many`]), in parallel chunks when there are
    /// many, and the values found are gathered in one typed pass.
    pub fn dict_get_one(&self, id: ItemId, keys: &SliceData) -> Option<SliceData> {
        use rayon::prelude::*;
        let layers = self.layers();
        let mut holders = layers.iter().filter_map(|layer| layer.dicts.get(id));
        let (Some(DictRef::Row(columns, row)), None) = (holders.next(), holders.next()) else {
            return None;
        };
        let mut entries = vec![MISSING_INDEX; keys.len()];
        if keys.len() >= PARALLEL_LOOKUPS {
            crate::parallel::install(|| {
                entries.par_chunks_mut(LOOKUP_CHUNK).enumerate().for_each(|(c, out)| columns.find_many(row, keys, c * LOOKUP_CHUNK, out));
            });
        } else {
            columns.find_many(row, keys, 0, &mut entries);
        }
        Some(columns.values_of(&entries))
    }

    /// The value of `key` in each of the `len` dicts of `allocation`, when
    /// one layer holds them all, stored together (`None` otherwise: ask
    /// [`Self::dict_get`]).
    pub fn dict_get_whole(&self, allocation: u64, len: usize, key: ScalarRef<'_>) -> Option<SliceData> {
        let layers = self.layers();
        let dense = dense_columns(&layers, allocation).filter(|d| d.len() == len)?;
        let hash = dict_store::key_hash(key);
        let mut entries = Vec::with_capacity(len);
        // Each dict's slot is elsewhere in the index: a batch's slots are
        // prefetched before any is probed. The values are then gathered a
        // column at a time.
        for start in (0..len).step_by(LOOKUP_BATCH) {
            let rows = start..(start + LOOKUP_BATCH).min(len);
            rows.clone().for_each(|row| dense.prefetch(row, hash));
            entries.extend(rows.map(|row| dense.find(row, key, hash).unwrap_or(MISSING_INDEX)));
        }
        Some(dense.values_of(&entries))
    }

    /// The keys and the values of dicts `ids`, as rows (the edge from dicts
    /// to entries). Keys come in the order they were first set; a missing id
    /// is an empty row.
    pub fn dict_entries(&self, ids: &[Option<ItemId>]) -> Result<(Edge, SliceData, SliceData)> {
        self.entry_columns(ids, Entries::Both)
    }

    /// The keys of dicts `ids` (as [`Self::dict_entries`] gives them),
    /// without reading the values.
    pub fn dict_keys(&self, ids: &[Option<ItemId>]) -> Result<(Edge, SliceData)> {
        let (edge, keys, _) = self.entry_columns(ids, Entries::Keys)?;
        Ok((edge, keys))
    }

    /// The values of dicts `ids` (as [`Self::dict_entries`] gives them),
    /// without reading the keys.
    pub fn dict_values(&self, ids: &[Option<ItemId>]) -> Result<(Edge, SliceData)> {
        let (edge, _, values) = self.entry_columns(ids, Entries::Values)?;
        Ok((edge, values))
    }

    /// The keys and the values of dicts `ids`; a column `which` leaves out
    /// is read as no items.
    fn entry_columns(&self, ids: &[Option<ItemId>], which: Entries) -> Result<(Edge, SliceData, SliceData)> {
        let (want_keys, want_values) = (which != Entries::Values, which != Entries::Keys);
        let layers = self.layers();
        if let Some((columns, rows)) = dense_rows(&layers, ids) {
            let ranges: Vec<std::ops::Range<usize>> = rows.iter().map(|&row| columns.row(row)).collect();
            let sizes: Vec<i64> = ranges.iter().map(|r| r.len() as i64).collect();
            let (keys, values) = columns.columns();
            let keys = if want_keys { keys.take_ranges(&ranges) } else { SliceData::missing(0) };
            let values = if want_values { values.take_ranges(&ranges) } else { SliceData::missing(0) };
            return Ok((Edge::from_sizes(&sizes)?, keys, values));
        }
        let mut sizes = Vec::with_capacity(ids.len());
        let (mut keys, mut values) = (SliceBuilder::new(), SliceBuilder::new());
        for id in ids {
            let dicts = id.map(|id| dict_layers(&layers, id)).unwrap_or_default();
            let mut n = 0i64;
            merged_entries(&dicts, |k, v| {
                if want_keys {
                    keys.push(Some(k));
                }
                if want_values {
                    values.push(v);
                }
                n += 1;
            });
            sizes.push(n);
        }
        Ok((Edge::from_sizes(&sizes)?, keys.finish(), values.finish()))
    }

    /// The number of entries of each of the dicts `0..len` of `allocation`,
    /// when one layer holds them all as columns (each dict's row size, no
    /// lookup per dict); `None` otherwise.
    pub fn dict_sizes_whole(&self, allocation: u64, len: usize) -> Option<Vec<i64>> {
        let layers = self.layers();
        let dense = dense_columns(&layers, allocation).filter(|d| d.len() == len)?;
        Some((0..len).map(|row| dense.row(row).len() as i64).collect())
    }

    /// The number of entries of each dict (`None` for a missing id).
    pub fn dict_sizes(&self, ids: &[Option<ItemId>]) -> Vec<Option<usize>> {
        let layers = self.layers();
        if let [layer] = &layers[..] {
            // One layer: each dict's size as it is stored (no list of layers per dict).
            return ids.iter().map(|id| Some(layer.dicts.get((*id)?).map_or(0, |d| d.len()))).collect();
        }
        ids.iter()
            .map(|id| {
                let dicts = dict_layers(&layers, (*id)?);
                if let [only] = dicts[..] {
                    return Some(only.len());
                }
                if dicts.len() <= FEW_DICT_LAYERS {
                    // Each key counted in the lowest layer holding it: a
                    // lookup in the layers below, no set of keys per dict
                    // (dicts read through an update).
                    let below = |i: usize, k| dicts[i + 1..].iter().any(|lower| lower.contains(k));
                    return Some(dicts.iter().enumerate().map(|(i, d)| d.entries().filter(|&(k, _)| !below(i, k)).count()).sum());
                }
                let mut n = 0;
                merged_entries(&dicts, |_, _| n += 1);
                Some(n)
            })
            .collect()
    }

    /// Sets `keys[i]` of dict `ids[i]` to `values[i]` (where id and key are present).
    pub fn set_dict_entries(&self, op: &str, ids: &[Option<ItemId>], keys: &SliceData, values: &SliceData) -> Result<()> {
        self.write(op, |store| store.set_dict_entries(ids, keys, values))
    }

    /// Every (dict, key, value) set in the bag's own contents, for
    /// `contents_repr`.
    pub fn own_dict_entries(&self) -> Vec<(ItemId, Stored, Option<Stored>)> {
        let store = self.read();
        let mut out = Vec::new();
        for (id, d) in store.dicts.iter() {
            out.extend(d.entries().map(|(k, v)| (id, Stored::from_ref(k), v.map(Stored::from_ref))));
        }
        out.sort_by_key(|entry| entry.0);
        out
    }

    /// Bytes held in dense attribute columns (for the memory report).
    pub fn dense_bytes(&self) -> usize {
        self.read().attrs.values().map(|a| a.dense_bytes()).sum()
    }
}

/// The counts a bag's repr shows.
#[derive(Debug, Default)]
pub struct BagStats {
    pub entities: usize,
    pub entity_values: usize,
    /// (attribute, values on entities/objects), most values first.
    pub attrs: Vec<(String, usize)>,
    pub schemas: usize,
    pub schema_values: usize,
    pub lists: usize,
    pub list_items: usize,
    pub dicts: usize,
    pub dict_entries: usize,
}

/// Write access to a bag being built (see [`DataBag::fill`]).
pub struct BagWriter<'a> {
    store: &'a mut Store,
}

impl BagWriter<'_> {
    pub fn set_attr(&mut self, attr: &str, ids: &[Option<ItemId>], values: &SliceData) {
        self.store.set_attr(attr, ids, values)
    }

    pub fn set_lists(&mut self, ids: &[Option<ItemId>], edge: &Edge, items: &SliceData) {
        self.store.set_lists(ids, edge, items)
    }

    /// The lists of a whole allocation (offset `i` is row `i` of `edge`),
    /// stored as one dense column: [`Self::set_lists`] without a list of
    /// their ids.
    pub fn set_whole_lists(&mut self, allocation: u64, edge: &Edge, items: &SliceData) {
        self.store.set_whole_lists(allocation, edge, items)
    }

    pub fn set_dict_entries(&mut self, ids: &[Option<ItemId>], keys: &SliceData, values: &SliceData) {
        self.store.set_dict_entries(ids, keys, values)
    }

    /// New dicts `dict_ids` holding the rows of `keys` → `values` under `edge`.
    pub fn set_dicts(&mut self, dict_ids: &[Option<ItemId>], edge: &Edge, keys: &SliceData, values: &SliceData) {
        self.store.set_dicts(dict_ids, edge, keys, values)
    }
}

impl Store {
    /// About how many values the store holds (O(attributes and blocks)).
    fn size_hint(&self) -> usize {
        self.attrs.values().map(|a| a.len_hint()).sum::<usize>() + self.lists.len_hint() + self.dicts.len_hint()
    }

    /// [`Self::size_hint`], counted only until `cap` (a store of many
    /// blocks costs about `cap`: merging many small bags into a large one
    /// asks per merge).
    fn size_hint_capped(&self, cap: usize) -> usize {
        let mut n = 0;
        for values in self.attrs.values() {
            if n >= cap {
                return n;
            }
            n += values.len_hint_capped(cap - n);
        }
        if n < cap {
            n += self.lists.len_hint_capped(cap - n);
        }
        if n < cap {
            n += self.dicts.len_hint_capped(cap - n);
        }
        n
    }

    /// Lists `ids` take the rows of `items`; a whole fresh allocation in
    /// order is stored as one dense column.
    fn set_lists(&mut self, ids: &[Option<ItemId>], edge: &Edge, items: &SliceData) {
        if let Some(allocation) = attr_store::in_order_allocation(ids) {
            if Arc::make_mut(&mut self.lists).set_dense(allocation, DenseLists { edge: edge.clone(), items: items.clone() }) {
                return;
            }
        }
        self.set_lists_one_by_one(ids, edge, items);
    }

    /// The lists of a whole allocation (offset `i` is row `i` of `edge`)
    /// take the rows of `items`: one dense column when nothing stops it.
    fn set_whole_lists(&mut self, allocation: u64, edge: &Edge, items: &SliceData) {
        if !Arc::make_mut(&mut self.lists).set_dense(allocation, DenseLists { edge: edge.clone(), items: items.clone() }) {
            let ids: Vec<Option<ItemId>> = (0..edge.parent_size()).map(|i| Some(ItemId::in_allocation(allocation, i as u64))).collect();
            self.set_lists_one_by_one(&ids, edge, items);
        }
    }

    /// Lists `ids` take the rows of `items`, each stored on its own.
    fn set_lists_one_by_one(&mut self, ids: &[Option<ItemId>], edge: &Edge, items: &SliceData) {
        let lists = Arc::make_mut(&mut self.lists);
        for (i, id) in ids.iter().enumerate() {
            if let Some(id) = id {
                let range = edge.child_range(i);
                lists.set(*id, items.take(&range.collect::<Vec<_>>()));
            }
        }
    }

    fn set_dict_entries(&mut self, ids: &[Option<ItemId>], keys: &SliceData, values: &SliceData) {
        let dicts = Arc::make_mut(&mut self.dicts);
        if dicts.set_entries_of_block(ids, keys, values) {
            return;
        }
        let mut i = 0;
        while i < ids.len() {
            // A run of entries for one dict: room is made once.
            let run = ids[i..].iter().take_while(|id| **id == ids[i]).count();
            if let Some(id) = ids[i] {
                let dict = dicts.get_mut(id);
                dict.reserve(run);
                for j in i..i + run {
                    if let Some(key) = keys.get(j) {
                        dict.set(key, values.get(j));
                    }
                }
            }
            i += run;
        }
    }

    /// Dicts `dict_ids` get the entries of the rows of `keys` / `values`
    /// under `edge`; the dicts of a whole allocation in order (new dicts) are
    /// stored as columns.
    fn set_dicts(&mut self, dict_ids: &[Option<ItemId>], edge: &Edge, keys: &SliceData, values: &SliceData) {
        if let Some(allocation) = attr_store::in_order_allocation(dict_ids) {
            if let Some(columns) = DictColumns::build(edge, keys, values) {
                if Arc::make_mut(&mut self.dicts).set_dense(allocation, columns) {
                    return;
                }
            }
        }
        let owners: Vec<Option<ItemId>> = (0..dict_ids.len()).flat_map(|i| std::iter::repeat_n(dict_ids[i], edge.child_range(i).len())).collect();
        self.set_dict_entries(&owners, keys, values);
    }

    fn set_attr(&mut self, attr: &str, ids: &[Option<ItemId>], values: &SliceData) {
        Arc::make_mut(self.attr_mut(attr)).set(ids, values);
    }

    /// The values of `attr`, created empty when new (the name is copied
    /// only then: single writes into a known attribute allocate nothing).
    fn attr_mut(&mut self, attr: &str) -> &mut Arc<AttrStore> {
        self.attrs.values_mut(attr)
    }
}

/// Layers of one dict up to which its size is counted by lookups in the
/// layers below rather than by a set of its keys.
const FEW_DICT_LAYERS: usize = 4;

/// Layers past which [`DataBag::for_walk`] merges a bag before a walk.
const WALK_LAYERS_MAX: usize = 16;

/// Lookups from this many on run in parallel chunks of `LOOKUP_CHUNK`.
const PARALLEL_LOOKUPS: usize = 1 << 15;
const LOOKUP_CHUNK: usize = 1 << 14;

/// Lookups hashed and prefetched together before any is probed.
const LOOKUP_BATCH: usize = 32;

/// One lookup of a batch: where to probe.
enum Probe<'a, 'k> {
    /// Nothing to find (missing id or key, or no layer holds the dict).
    Nothing,
    /// The one layer that holds the dict, the key and its hash.
    One(DictRef<'a>, ScalarRef<'k>, u64),
    /// Several layers hold parts of the dict: asked in order.
    Layers(ItemId, ScalarRef<'k>),
}

/// The values of `keys[i]` in dicts `ids[i]` for `i` in `range`, read while
/// their slots are in cache (as `ScalarRef`s: numbers copied, text borrowed).
fn lookup_values<'a>(
    layers: &'a [Arc<Store>],
    ids: &[Option<ItemId>],
    keys: &SliceData,
    range: std::ops::Range<usize>,
) -> Vec<Option<ScalarRef<'a>>> {
    let mut out = Vec::with_capacity(range.len());
    // Runs of one dict (a dict item broadcast to many keys) find its layers
    // once.
    let mut current: Option<(ItemId, Option<DictRef<'a>>, usize)> = None;
    let mut batch: Vec<Probe<'a, '_>> = Vec::with_capacity(LOOKUP_BATCH);
    let mut start = range.start;
    while start < range.end {
        let end = (start + LOOKUP_BATCH).min(range.end);
        batch.clear();
        // Pass 1: hash each key and prefetch its slot.
        for (i, id) in ids.iter().enumerate().take(end).skip(start) {
            let (Some(id), Some(key)) = (*id, keys.get(i)) else {
                batch.push(Probe::Nothing);
                continue;
            };
            if current.is_none_or(|(c, _, _)| c != id) {
                let mut holders = layers.iter().filter_map(|layer| layer.dicts.get(id));
                let first = holders.next();
                let count = usize::from(first.is_some()) + holders.count();
                current = Some((id, first.filter(|_| count == 1), count));
            }
            batch.push(match current.expect("just set") {
                (_, _, 0) => Probe::Nothing,
                (_, Some(dict), _) => {
                    let hash = dict_store::key_hash(key);
                    dict.prefetch(hash);
                    Probe::One(dict, key, hash)
                }
                (_, None, _) => Probe::Layers(id, key),
            });
        }
        // Pass 2: with the slots in, prefetch the keys they point at.
        for probe in &batch {
            if let Probe::One(dict, _, hash) = *probe {
                dict.prefetch_candidate(hash);
            }
        }
        // Pass 3: probe, by now mostly from cache.
        for probe in &batch {
            out.push(match *probe {
                Probe::Nothing => None,
                Probe::One(dict, key, hash) => dict.get_hashed(key, hash).flatten(),
                Probe::Layers(id, key) => dict_layers(layers, id).iter().find_map(|d| d.get(key)).flatten(),
            });
        }
        start = end;
    }
    out
}

/// The dicts of `allocation` as columns, when the only layer holding any of
/// them stores them so (none changed since).
fn dense_columns(layers: &[Arc<Store>], allocation: u64) -> Option<&DictColumns> {
    let mut holders = layers.iter().filter(|layer| layer.dicts.holds_allocation(allocation));
    let (Some(layer), None) = (holders.next(), holders.next()) else {
        return None;
    };
    layer.dicts.dense_of(allocation)
}

/// The columns holding every dict of `ids`, and each one's row, when all are
/// dicts of one allocation stored as columns by the only layer holding any
/// of its dicts.
fn dense_rows<'a>(layers: &'a [Arc<Store>], ids: &[Option<ItemId>]) -> Option<(&'a DictColumns, Vec<usize>)> {
    let allocation = ids.first().copied().flatten()?.allocation()?;
    let columns = dense_columns(layers, allocation)?;
    ids.iter()
        .map(|id| {
            let id = (*id)?;
            let row = id.offset() as usize;
            (id.allocation() == Some(allocation) && row < columns.len()).then_some(row)
        })
        .collect::<Option<Vec<usize>>>()
        .map(|rows| (columns, rows))
}

/// The parts of dict `id` held by each layer, first layer first.
fn dict_layers(layers: &[Arc<Store>], id: ItemId) -> Vec<DictRef<'_>> {
    layers.iter().filter_map(|layer| layer.dicts.get(id)).collect()
}

/// Calls `f` with each entry of a dict whose parts are `dicts` (first layer
/// first): keys in the order the lowest layer has them, then keys added
/// above; each value from the first layer that has the key.
fn merged_entries<'a>(dicts: &[DictRef<'a>], mut f: impl FnMut(ScalarRef<'a>, Option<ScalarRef<'a>>)) {
    match dicts {
        [] => {}
        [only] => only.entries().for_each(|(k, v)| f(k, v)),
        _ => {
            let mut seen = std::collections::HashSet::new();
            for d in dicts.iter().rev() {
                for (k, _) in d.entries() {
                    if seen.insert(KeyRef(k)) {
                        let value = dicts.iter().find_map(|d| d.get(k)).expect("the key is in this layer");
                        f(k, value);
                    }
                }
            }
        }
    }
}

/// What a merge does where both bags hold a value for the same thing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnConflict {
    KeepOurs,
    Raise,
}

/// Which side's value a merge of two stores keeps where both hold one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Wins {
    /// `store`'s: only what it says nothing about is added.
    Ours,
    /// `theirs`': written over (a list whole, a dict key by key, an
    /// attribute item by item; `merge_inplace` with `overwrite`).
    Theirs,
}

/// Adds everything of `theirs` to `store`, in place (a store owned alone is
/// changed without copying what it holds); `wins` decides where both hold a
/// value.
fn merge_into(store: &mut Store, theirs: &Store, wins: Wins) {
    if store.lists.is_empty() {
        store.lists = theirs.lists.clone();
    } else {
        for id in theirs.lists.ids() {
            if wins == Wins::Theirs || store.lists.get(id).is_none() {
                let items = theirs.lists.get(id).expect("listed ids exist").to_data();
                Arc::make_mut(&mut store.lists).set(id, items);
            }
        }
    }
    if store.dicts.is_empty() {
        store.dicts = theirs.dicts.clone();
    } else if !theirs.dicts.is_empty() {
        let dicts = Arc::make_mut(&mut store.dicts);
        match wins {
            Wins::Ours => dicts.merge_missing_from(&theirs.dicts),
            Wins::Theirs => dicts.overwrite_from(&theirs.dicts),
        }
    }
    for (name, values) in &theirs.attrs {
        match store.attrs.get_mut(name) {
            None => {
                store.attrs.insert(name.clone(), values.clone());
            }
            Some(mine) if Arc::ptr_eq(mine, values) => {}
            Some(mine) => match wins {
                Wins::Ours => Arc::make_mut(mine).merge_missing_from(values),
                Wins::Theirs => Arc::make_mut(mine).overwrite_from(values),
            },
        }
    }
}

/// [`merge_into`] (ours winning) of `theirs`, which holds no lists or
/// dicts and no item `store` holds (see `DataBag::merge_many`): each
/// attribute's blocks taken whole.
fn merge_disjoint(store: &mut Store, theirs: &Store) {
    for (name, values) in &theirs.attrs {
        match store.attrs.get_mut(name) {
            None => store.attrs.insert(name.clone(), values.clone()),
            Some(mine) if Arc::ptr_eq(mine, values) => {}
            Some(mine) => Arc::make_mut(mine).merge_disjoint_from(values),
        }
    }
}

/// The position of item `index` of the list stored at `range` (negative
/// counts from the end), or `MISSING_INDEX` when missing or out of range.
pub fn position_in(range: std::ops::Range<usize>, index: Option<i64>) -> usize {
    let n = range.len() as i64;
    match index.map(|k| if k < 0 { k + n } else { k }) {
        Some(k) if (0..n).contains(&k) => range.start + k as usize,
        _ => MISSING_INDEX,
    }
}

/// Lists found in a bag's layers, and the columns their items are read
/// from (`sources`, filled by [`source_index`] as picks are made).
struct FoundLists<'a> {
    sources: Vec<&'a SliceData>,
    lists: Vec<Option<ListRef<'a>>>,
}

fn find_lists<'a>(layers: &'a [Arc<Store>], ids: &[Option<ItemId>]) -> FoundLists<'a> {
    let lists = ids.iter().map(|id| layers.iter().find_map(|layer| layer.lists.get((*id)?))).collect();
    FoundLists { sources: Vec::new(), lists }
}

/// The index of column `items` in `sources`, added when new. Lists of one
/// allocation share a column, so the search is short.
fn source_index<'a>(sources: &mut Vec<&'a SliceData>, items: &'a SliceData) -> usize {
    match sources.iter().rposition(|s| std::ptr::eq(*s, items)) {
        Some(k) => k,
        None => {
            sources.push(items);
            sources.len() - 1
        }
    }
}

/// The dense lists of one allocation when `ids` are exactly its lists in
/// order and no layer shadows any of them.
fn whole_allocation<'a>(layers: &'a [Arc<Store>], ids: &[Option<ItemId>]) -> Option<&'a DenseLists> {
    let allocation = attr_store::in_order_allocation(ids)?;
    for layer in layers {
        if layer.lists.has_sparse_in(allocation) {
            return None;
        }
        if let Some(dense) = layer.lists.dense(allocation) {
            return (dense.edge.parent_size() == ids.len()).then_some(dense.as_ref());
        }
    }
    None
}

/// The error of writing to an immutable bag, pointing to `fork_bag`.
pub fn immutable_error(op: &str) -> Error {
    Error::value(
        op,
        "cannot modify/create item(s) on an immutable DataBag, perhaps use immutable update APIs \
         (e.g. with_attr, with_dict_update) on immutable entities/dicts or use db.fork() or \
         ds.fork_bag() create a mutable DataBag first",
    )
}

/// The attributes of a struct schema with what they hold, read once (a
/// walk asks a schema whether it is a list's or a dict's, then for each
/// attribute its schema: one listing, not a lookup by name each).
pub struct SchemaAttrs(Vec<(Arc<str>, Stored)>);

impl SchemaAttrs {
    pub fn of(bag: &DataBag, schema_id: ItemId) -> SchemaAttrs {
        SchemaAttrs(bag.attrs_of(schema_id))
    }

    /// What attribute `name` holds, if anything.
    pub fn get(&self, name: &str) -> Option<&Stored> {
        let k = self.0.binary_search_by(|(n, _)| (**n).cmp(name)).ok()?;
        Some(&self.0[k].1)
    }

    /// The schema attribute `name` holds, if any.
    pub fn schema(&self, name: &str) -> Option<crate::Schema> {
        self.get(name)?.schema()
    }

    /// The attributes that hold data (not the bookkeeping ones), with their
    /// schemas.
    pub fn data(&self) -> impl Iterator<Item = (&str, Option<crate::Schema>)> {
        self.0.iter().filter(|(name, _)| !is_internal_attr(name)).map(|(name, value)| (&**name, value.schema()))
    }

    /// Every attribute (bookkeeping ones too) with its value.
    pub fn all(&self) -> impl Iterator<Item = (&str, &Stored)> {
        self.0.iter().map(|(name, value)| (&**name, value))
    }
}

/// [`DataBag::attrs_held_by`]'s answer: each name's positions ascending and
/// once, the names sorted.
fn sorted_held(mut held: Vec<(Arc<str>, Vec<usize>)>) -> Vec<(Arc<str>, Vec<usize>)> {
    for (_, positions) in &mut held {
        positions.sort_unstable();
        positions.dedup();
    }
    held.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    held
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::column::ScalarRef;
    use crate::itemid::{ItemKind, allocate};

    fn ints(values: &[Option<i32>]) -> SliceData {
        let mut b = SliceBuilder::new();
        for v in values {
            b.push(v.map(ScalarRef::Int32));
        }
        b.finish()
    }

    #[test]
    fn readers_on_other_threads_never_see_a_torn_write() {
        let n = 2000;
        let ids: Vec<Option<ItemId>> = allocate(ItemKind::Object, n).1.into_iter().map(Some).collect();
        let dict_ids: Vec<Option<ItemId>> = vec![Some(allocate(ItemKind::Dict, 1).1[0]); n];
        let keys = ints(&(0..n as i32).map(Some).collect::<Vec<_>>());
        let bag = DataBag::new_mutable();
        bag.set_attr("op", "x", &ids, &ints(&vec![Some(0); n])).unwrap();
        bag.set_dict_entries("op", &dict_ids, &keys, &ints(&vec![Some(0); n])).unwrap();
        std::thread::scope(|scope| {
            scope.spawn(|| {
                for k in 1..100 {
                    bag.set_attr("op", "x", &ids, &ints(&vec![Some(k); n])).unwrap();
                    bag.set_dict_entries("op", &dict_ids, &keys, &ints(&vec![Some(k); n])).unwrap();
                }
            });
            for _ in 0..2 {
                scope.spawn(|| {
                    for _ in 0..100 {
                        // Every write replaced all values at once: a read sees
                        // one write's values throughout.
                        let attrs = bag.get_attr("x", &ids);
                        assert!((0..n).all(|i| attrs.get(i) == attrs.get(0)));
                        let values = bag.dict_get(&dict_ids, &keys);
                        assert!((0..n).all(|i| values.get(i) == values.get(0)));
                    }
                });
            }
        });
        assert_eq!(bag.get_attr("x", &ids[..1]).get(0), Some(ScalarRef::Int32(99)));
    }

    #[test]
    fn size_hint_capped_stops_at_the_cap() {
        let bag = DataBag::new_mutable();
        // Forty allocations of a hundred items, each a dense block.
        for _ in 0..40 {
            let ids: Vec<Option<ItemId>> = allocate(ItemKind::Object, 100).1.into_iter().map(Some).collect();
            bag.set_attr("op", "x", &ids, &ints(&[Some(1); 100])).unwrap();
        }
        let store = bag.0.store.read().unwrap();
        assert_eq!(store.size_hint(), 4000);
        assert_eq!(store.size_hint_capped(10_000), 4000);
        let capped = store.size_hint_capped(12);
        assert!((12..4000).contains(&capped), "{capped}");
    }

    #[test]
    fn lists_are_spliced_in_place_only_when_nothing_else_holds_their_column() {
        use crate::splice::Splice;
        let (_, ids) = allocate(ItemKind::List, 2);
        let allocation = ids[0].allocation().unwrap();
        let bag = DataBag::new_mutable();
        let column = SliceData::from(crate::column::FixedVec::Int32(vec![1, 2, 3]));
        let lists_edge = Edge::from_sizes(&[2, 1]).unwrap();
        bag.set_whole_lists("op", allocation, &lists_edge, &column).unwrap();
        let append = || Splices::of_rows(&lists_edge, vec![Splice { cut: 2..2, new: 0..1 }, Splice { cut: 1..1, new: 1..2 }]).unwrap();
        let new = ints(&[Some(7), Some(8)]);
        // `column` still holds the buffer: nothing is written.
        assert!(bag.splice_whole_lists_in_place("op", allocation, &new, append()).unwrap().is_some());
        drop(column);
        let fork = bag.fork(true);
        // The fork shares the lists: still nothing.
        assert!(bag.splice_whole_lists_in_place("op", allocation, &new, append()).unwrap().is_some());
        drop(fork);
        assert!(bag.splice_whole_lists_in_place("op", allocation, &new, append()).unwrap().is_none());
        let (edge, items) = bag.explode(&ids.iter().copied().map(Some).collect::<Vec<_>>()).unwrap();
        assert_eq!(edge.sizes(), vec![3, 2]);
        assert_eq!((0..5).map(|i| items.get(i)).collect::<Vec<_>>(), [1, 2, 7, 3, 8].map(|v| Some(ScalarRef::Int32(v))));
        // An immutable bag refuses.
        assert!(bag.fork(false).splice_whole_lists_in_place("op", allocation, &new, append()).is_err());
    }

    #[test]
    fn bags_are_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<DataBag>();
    }

    #[test]
    fn dense_write_read_and_fallbacks() {
        let (_, ids) = allocate(ItemKind::Object, 20);
        let ids: Vec<Option<ItemId>> = ids.into_iter().map(Some).collect();
        let bag = DataBag::new_mutable();
        let values = ints(&(0..20).map(Some).collect::<Vec<_>>());
        bag.set_attr("op", "x", &ids, &values).unwrap();
        assert_eq!(bag.get_attr("x", &ids).get(7), Some(ScalarRef::Int32(7)));
        // A single-item overwrite lands in the dense column.
        bag.set_attr("op", "x", &ids[3..4], &ints(&[None])).unwrap();
        let got = bag.get_attr("x", &[ids[3], ids[4], None]);
        assert_eq!((got.get(0), got.get(1), got.get(2)), (None, Some(ScalarRef::Int32(4)), None));
        // A fork is independent; a frozen bag refuses writes.
        let fork = bag.fork(true);
        fork.set_attr("op", "x", &ids[4..5], &ints(&[Some(40)])).unwrap();
        assert_eq!(bag.get_attr("x", &ids[4..5]).get(0), Some(ScalarRef::Int32(4)));
        assert!(bag.fork(false).set_attr("op", "x", &ids[4..5], &ints(&[Some(1)])).is_err());
        // Fallbacks answer for unset items only; "set to missing" hides them.
        let top = DataBag::new_mutable();
        top.set_attr("op", "x", &ids[0..1], &ints(&[Some(100)])).unwrap();
        let layered = DataBag::with_fallbacks(vec![top, fork]);
        let got = layered.get_attr("x", &ids[0..5]);
        let got: Vec<_> = (0..5).map(|i| got.get(i)).collect();
        assert_eq!(got, vec![Some(ScalarRef::Int32(100)), Some(ScalarRef::Int32(1)), Some(ScalarRef::Int32(2)), None, Some(ScalarRef::Int32(40))]);
    }

    #[test]
    fn detached_copies_share_no_later_writes() {
        let (_, ids) = allocate(ItemKind::Object, 2);
        let ids: Vec<Option<ItemId>> = ids.into_iter().map(Some).collect();
        let below = DataBag::new_mutable();
        below.set_attr("op", "x", &ids, &ints(&[Some(1), Some(2)])).unwrap();
        let top = DataBag::new_mutable();
        let layered = DataBag::with_fallbacks(vec![top.clone(), below.clone()]);
        // A mutable bag's copy is mutable; an immutable one's is not.
        let copy = below.detached_copy();
        assert!(copy.is_mutable() && !layered.detached_copy().is_mutable());
        let layered_copy = layered.detached_copy();
        copy.set_attr("op", "x", &ids[..1], &ints(&[Some(10)])).unwrap();
        below.set_attr("op", "x", &ids[1..], &ints(&[Some(20)])).unwrap();
        top.set_attr("op", "x", &ids[..1], &ints(&[Some(30)])).unwrap();
        let read = |bag: &DataBag| {
            let got = bag.get_attr("x", &ids);
            let int = |i| match got.get(i) {
                Some(ScalarRef::Int32(v)) => Some(v),
                _ => None,
            };
            (int(0), int(1))
        };
        assert_eq!(read(&copy), (Some(10), Some(2)));
        assert_eq!(read(&below), (Some(1), Some(20)));
        assert_eq!(read(&layered_copy), (Some(1), Some(2)));
        // A bag nothing can change is its own copy.
        let frozen = below.fork(false);
        assert!(frozen.detached_copy() == frozen);
    }

    #[test]
    fn updating_many_dicts_of_a_block_at_once_keeps_what_one_at_a_time_gives() {
        // 40 dicts made together (a block of columns), some of them changed
        // one by one first; then every dict written at once.
        let (_, ids) = allocate(ItemKind::Dict, 40);
        let ids: Vec<Option<ItemId>> = ids.into_iter().map(Some).collect();
        let sizes: Vec<i64> = (0..40).map(|i| i % 4).collect();
        let edge = Edge::from_sizes(&sizes).unwrap();
        let keys = ints(&(0..edge.child_size()).map(|k| Some(k as i32 % 3)).collect::<Vec<_>>());
        let values = ints(&(0..edge.child_size()).map(|k| Some(k as i32)).collect::<Vec<_>>());
        let untouched = DataBag::new_mutable();
        untouched.fill(|w| w.set_dicts(&ids, &edge, &keys, &values));
        let base = untouched.fork(true);
        base.set_dict_entries("op", &ids[3..4], &ints(&[Some(7)]), &ints(&[Some(70)])).unwrap();
        // Writes: a key each dict may have, a new one, a missing key, a
        // missing value, and one dict written twice.
        let mut owners = Vec::new();
        let (mut k, mut v) = (Vec::new(), Vec::new());
        for (i, id) in ids.iter().enumerate() {
            owners.push(*id);
            k.push(Some(i as i32 % 5));
            v.push(if i % 7 == 0 { None } else { Some(100 + i as i32) });
        }
        owners.extend([ids[5], ids[6]]);
        k.extend([Some(1), None]);
        v.extend([Some(-1), Some(-2)]);
        let (k, v) = (ints(&k), ints(&v));
        // From a block with one dict changed (a table of its own), and from
        // one as made.
        let write = |from: &DataBag| {
            let at_once = from.fork(true);
            at_once.set_dict_entries("op", &owners, &k, &v).unwrap();
            let one_by_one = from.fork(true);
            for j in 0..owners.len() {
                one_by_one.set_dict_entries("op", &owners[j..j + 1], &k.take(&[j]), &v.take(&[j])).unwrap();
            }
            (at_once, one_by_one)
        };
        let entries = |bag: &DataBag| {
            let (edge, keys, values) = bag.dict_entries(&ids).unwrap();
            let rows: Vec<Vec<(Option<Stored>, Option<Stored>)>> = (0..ids.len())
                .map(|i| edge.child_range(i).map(|e| (keys.get(e).map(Stored::from_ref), values.get(e).map(Stored::from_ref))).collect())
                .collect();
            rows
        };
        for from in [&base, &untouched] {
            let (at_once, one_by_one) = write(from);
            assert_eq!(entries(&at_once), entries(&one_by_one));
            // The same writes as a layer of their own over the dicts
            // (`with_dict_update`): a block of the writes alone.
            let update = DataBag::new_mutable();
            update.set_dict_entries("op", &owners, &k, &v).unwrap();
            assert!(update.read().dicts.dense_of(ids[0].unwrap().allocation().unwrap()).is_some());
            let layered = DataBag::with_fallbacks(vec![update.fork(false), from.fork(false)]);
            assert_eq!(entries(&layered), entries(&one_by_one));
            assert_eq!(layered.dict_sizes(&ids), one_by_one.dict_sizes(&ids));
        }
        // The bag forked from is unchanged.
        assert_eq!(base.dict_sizes(&ids[..2]), vec![Some(0), Some(1)]);
    }

    #[test]
    fn writing_theirs_over_ours_in_place_is_the_merge_where_theirs_win() {
        // Ours: a column, items one by one, lists and dicts; theirs: some of
        // the same items with other values (one set to missing), new items,
        // a list and dict entries of the same ids.
        let (_, ids) = allocate(ItemKind::Object, 40);
        let ids: Vec<Option<ItemId>> = ids.into_iter().map(Some).collect();
        let (_, lists) = allocate(ItemKind::List, 3);
        let lists: Vec<Option<ItemId>> = lists.into_iter().map(Some).collect();
        let (_, dicts) = allocate(ItemKind::Dict, 3);
        let dicts: Vec<Option<ItemId>> = dicts.into_iter().map(Some).collect();
        let ours = DataBag::new_mutable();
        ours.set_attr("op", "a", &ids, &ints(&(0..40).map(Some).collect::<Vec<_>>())).unwrap();
        ours.set_attr("op", "b", &ids[..3], &ints(&[Some(1), Some(2), Some(3)])).unwrap();
        ours.set_lists("op", &lists, &Edge::from_sizes(&[2, 1, 0]).unwrap(), &ints(&[Some(1), Some(2), Some(3)])).unwrap();
        ours.fill(|w| w.set_dicts(&dicts, &Edge::from_sizes(&[1, 1, 0]).unwrap(), &ints(&[Some(1), Some(2)]), &ints(&[Some(10), Some(20)])));
        let theirs = DataBag::new_mutable();
        theirs.set_attr("op", "a", &ids[5..8], &ints(&[Some(-5), None, Some(-7)])).unwrap();
        theirs.set_attr("op", "b", &ids[2..5], &ints(&[Some(-2), Some(-3), Some(-4)])).unwrap();
        theirs.set_attr("op", "c", &ids[..1], &ints(&[Some(9)])).unwrap();
        theirs.set_lists("op", &lists[1..2], &Edge::from_sizes(&[2]).unwrap(), &ints(&[Some(7), Some(8)])).unwrap();
        theirs
            .set_dict_entries("op", &[dicts[0], dicts[0], dicts[2]], &ints(&[Some(1), Some(5), Some(6)]), &ints(&[Some(-10), Some(50), Some(60)]))
            .unwrap();
        let (mine, other) = (ours.read(), theirs.read());
        let mut in_place = Store::clone(&mine);
        merge_into(&mut in_place, &other, Wins::Theirs);
        let mut expected = Store::clone(&other);
        merge_into(&mut expected, &mine, Wins::Ours);
        let [in_place, expected] = [in_place, expected].map(|s| DataBag::from_parts(Arc::new(s), false, Vec::new()));
        for name in ["a", "b", "c"] {
            let read = |bag: &DataBag| {
                let got = bag.get_attr_and_unset(name, &ids);
                ((0..ids.len()).map(|i| got.data.get(i).map(Stored::from_ref)).collect::<Vec<_>>(), got.unset)
            };
            assert_eq!(read(&in_place), read(&expected), "{name}");
        }
        let rows = |bag: &DataBag| {
            let (edge, items) = bag.explode(&lists).unwrap();
            let (dedge, keys, values) = bag.dict_entries(&dicts).unwrap();
            let mut entries: Vec<Vec<(Option<Stored>, Option<Stored>)>> = (0..dicts.len())
                .map(|i| dedge.child_range(i).map(|e| (keys.get(e).map(Stored::from_ref), values.get(e).map(Stored::from_ref))).collect())
                .collect();
            entries.iter_mut().for_each(|row| row.sort_by_key(|(k, _)| format!("{k:?}")));
            (
                (0..lists.len()).map(|i| edge.child_range(i).map(|k| items.get(k).map(Stored::from_ref)).collect::<Vec<_>>()).collect::<Vec<_>>(),
                entries,
            )
        };
        assert_eq!(rows(&in_place), rows(&expected));
    }

    #[test]
    fn sparse_items_and_names() {
        let (_, ids) = allocate(ItemKind::Object, 3);
        let bag = DataBag::new_mutable();
        bag.set_attr("op", "b", &[Some(ids[1])], &ints(&[Some(5)])).unwrap();
        bag.set_attr("op", "a", &[Some(ids[1])], &ints(&[Some(6)])).unwrap();
        assert_eq!(bag.attr_names(ids[1]), vec!["a".to_string(), "b".to_string()]);
        assert!(bag.attr_names(ids[0]).is_empty());
        assert_eq!(bag.get_one("b", ids[1]), Some(Stored::Int32(5)));
    }
}
