//! How bags combine: the one place that decides which value wins when an
//! item's attribute, list or dict entry is set in more than one bag.
//!
//! A bag reads its own contents first, then its fallbacks, depth first:
//!
//! ```text
//!   bag ── own layer ── fallback 1 ── its own layer ── its fallbacks ...
//!                   └── fallback 2 ── ...
//! ```
//!
//! Koda copies (merges) bags where plait reads through them in O(1). Every
//! way of combining bags follows one of three rules, chosen so that what is
//! read is what Koda's copy would hold:
//!
//! | rule | operations | which value wins | later writes to a mutable input |
//! |---|---|---|---|
//! | update | `kd.updated_bag`, `a << b`, `x.updated(bag)`; `with_attrs`, `with_dict_update` and list appends over `x`'s bag | the later bag | seen (read through) |
//! | enrich | `kd.enriched_bag`, `a >> b`, `x.enriched(bag)`; operators that keep their inputs' bags | the earlier bag | seen (read through) |
//! | merge | `kd.new` / `kd.obj` / `kd.uu` / `kd.list` / `kd.dict` of values with bags, `kd.slice([...])` of items with bags, `kd.stack` / `kd.concat` / `kd.zip`, the values given to `kd.attrs` / `with_attrs` | none: the bags must agree, else Koda's "cannot merge DataBags" ValueError | not seen (a snapshot is read) |
//!
//! `with_attrs(x, **v)` combines all three: its bag is the update layer, then
//! the merge of the values' bags, then `x`'s bag (update rule over it).
//! `kd.attrs(x, **v)` is the first two. A fork (`fork_bag`) and a freeze
//! (`freeze_bag`) copy the bag's own contents (copy-on-write) and keep its
//! fallbacks; `with_merged_bag` flattens everything into one layer.
//!
//! The merge check compares only what can differ: the layers one side reads
//! and the other does not. Layers shared by both (the common case: an update
//! over a bag the other input also reads) are skipped whole, and blocks of
//! attributes of allocations the other side never wrote are skipped without
//! looking at their items, so merging bags of unrelated data costs nothing
//! per item.

use std::collections::HashSet;
use std::sync::Arc;

use super::dict_store::DictRef;
use super::text::schema_text;
use super::{DataBag, Store, merged_entries};
use arrow_buffer::BooleanBuffer;

use crate::column::{ScalarRef, SliceData};
use crate::error::{Error, Result};
use crate::itemid::ItemId;
use crate::repr::item_text;
use crate::schema::Schema;

impl DataBag {
    /// `kd.updated_bag(base, *updates)`: a bag reading the updates, the
    /// latest first, then `base`. Nothing is copied; writes to a mutable
    /// input are seen.
    pub fn updated(base: &DataBag, updates: &[DataBag]) -> DataBag {
        DataBag::with_fallbacks(DataBag::distinct(updates.iter().rev().chain(std::iter::once(base))))
    }

    /// `kd.enriched_bag(*bags)`: a bag reading `bags` in order (the first
    /// that says something about an item wins). Nothing is copied.
    pub fn enriched(bags: &[DataBag]) -> DataBag {
        DataBag::with_fallbacks(DataBag::distinct(bags))
    }

    /// What this bag reads now, unaffected by later writes to it or to a
    /// mutable bag it reads through: the bag itself when nothing it reads can
    /// change, else an immutable copy (O(1) per layer: layers are shared
    /// copy-on-write).
    pub fn snapshot(&self) -> DataBag {
        if self.0.frozen {
            return self.clone();
        }
        // Depth first, as reads go; frozen bags are kept whole.
        let mut parts = Vec::new();
        let mut stack = vec![self.clone()];
        let mut seen = HashSet::new();
        while let Some(bag) = stack.pop() {
            if !seen.insert(Arc::as_ptr(&bag.0)) {
                continue;
            }
            if bag.0.frozen {
                parts.push(bag);
                continue;
            }
            parts.push(bag.own_layer());
            stack.extend(bag.0.fallbacks.iter().rev().cloned());
        }
        DataBag::with_fallbacks(parts)
    }

    /// A copy that reads what this bag reads now and is detached from it:
    /// later writes to this bag or to a mutable bag it reads through do not
    /// show in the copy, and writes to the copy (mutable when this bag is)
    /// do not show here. O(1) per layer (copy-on-write); a bag nothing can
    /// change is its own copy. This is what `copy.copy` / `copy.deepcopy`
    /// give in Python.
    pub fn detached_copy(&self) -> DataBag {
        if !self.0.mutable {
            return self.snapshot();
        }
        let fallbacks = self.0.fallbacks.iter().map(DataBag::snapshot).collect();
        DataBag::from_parts(self.read(), true, fallbacks)
    }

    /// The bags a result built from inputs with `bags` reads, after Koda's
    /// merge of them (the merge rule): snapshots of the distinct bags, in
    /// order. Raises Koda's "cannot merge DataBags" ValueError, named after
    /// `op`, where two of them give one item different values.
    pub fn merged_inputs<'a>(op: &str, bags: impl IntoIterator<Item = &'a DataBag>) -> Result<Vec<DataBag>> {
        let bags: Vec<DataBag> = DataBag::distinct(bags).iter().map(DataBag::snapshot).collect();
        if bags.len() > MERGED_LAYERS_MAX {
            return Ok(vec![DataBag::merge_many(op, &bags)?]);
        }
        for k in 1..bags.len() {
            let before = match k {
                1 => bags[0].clone(),
                _ => DataBag::with_fallbacks(bags[..k].to_vec()),
            };
            if let Some(conflict) = first_disagreement(&before, &bags[k]) {
                return Err(Error::value(op, conflict));
            }
        }
        Ok(bags)
    }

    /// [`DataBag::merged_inputs`] of many bags (`kd.slice` of items made one
    /// by one): one new layer holding all they read, as Koda's merge does,
    /// each bag checked against what the ones before it brought, so the
    /// cost is linear in what the bags hold (and reads see one layer).
    fn merge_many(op: &str, bags: &[DataBag]) -> Result<DataBag> {
        let mut merged: Arc<Store> = Arc::default();
        reserve_attrs(Arc::make_mut(&mut merged), bags);
        for bag in bags {
            // A bag none of whose items the merge holds yet cannot disagree
            // with it (objects made one by one): no item-by-item check.
            let disjoint = bag.layers().iter().all(|layer| {
                layer.lists.is_empty()
                    && layer.dicts.is_empty()
                    && layer.attrs.iter().all(|(name, values)| merged.attrs.get(name).is_none_or(|mine| !mine.may_share_items(values)))
            });
            if disjoint {
                super::merge_disjoint(Arc::make_mut(&mut merged), &bag.flattened());
                continue;
            }
            let so_far = DataBag::from_parts(merged.clone(), false, Vec::new());
            if let Some(conflict) = first_disagreement(&so_far, bag) {
                return Err(Error::value(op, conflict));
            }
            drop(so_far);
            super::merge_into(Arc::make_mut(&mut merged), &bag.flattened(), super::Wins::Ours);
        }
        Ok(DataBag::from_parts(merged, false, Vec::new()))
    }

    /// Koda's check before `with_attrs` / `kd.attrs` write attributes
    /// `names` of items whose schemas are `schemas`, over the merge of the
    /// values' bags (`values`): where the items' bag (`old`) and `values`
    /// both give one of these schemas one of these attributes, they must
    /// agree ("cannot merge DataBags ... merging schemas"). The data of the
    /// values' bags, and what the update then writes, simply win.
    pub fn check_value_schemas(op: &str, old: &DataBag, values: &[DataBag], schemas: SchemaIds<'_>, names: &[&str]) -> Result<()> {
        if values.is_empty() {
            return Ok(());
        }
        let below = DataBag::with_fallbacks(values.to_vec());
        let (a, b) = (old.layers(), below.layers());
        let (_, only_b) = differing_layers(&a, &b);
        if only_b.is_empty() {
            return Ok(());
        }
        for name in names {
            let ids: Vec<ItemId> = match schemas {
                SchemaIds::One(id) => vec![id],
                SchemaIds::List(ids) => {
                    let mut ids: Vec<ItemId> = ids.iter().flatten().copied().collect();
                    ids.sort();
                    ids.dedup();
                    ids
                }
                SchemaIds::Allocation(allocation, len) => {
                    let touched = only_b.iter().any(|l| l.attrs.get(*name).is_some_and(|v| v.touches_allocation(allocation)));
                    if !touched {
                        continue;
                    }
                    (0..len as u64).map(|offset| ItemId::in_allocation(allocation, offset)).collect()
                }
            };
            for id in ids {
                let (Some(x), Some(y)) = (read_attr(&a, name, id), read_attr(&b, name, id)) else { continue };
                if x != y {
                    return Err(Error::value(op, schema_conflict_text(id, name, (old, x), (&below, y))));
                }
            }
        }
        Ok(())
    }

    /// One bag reading the merge of `bags` (see [`DataBag::merged_inputs`]):
    /// none, the one bag as it is (nothing to merge: still read through, as
    /// in Koda), or a bag reading snapshots of all of them.
    pub fn merge_of<'a>(op: &str, bags: impl IntoIterator<Item = &'a DataBag>) -> Result<Option<DataBag>> {
        let mut bags = DataBag::distinct(bags);
        if bags.len() <= 1 {
            return Ok(bags.pop());
        }
        let mut bags = DataBag::merged_inputs(op, &bags)?;
        Ok(match bags.len() {
            0 | 1 => bags.pop(),
            _ => Some(DataBag::with_fallbacks(bags)),
        })
    }
}

/// Makes room in `store` (empty) for the attributes of all `bags`: merging
/// thousands of small bags (objects made one by one) then grows no table
/// bag by bag.
fn reserve_attrs(store: &mut Store, bags: &[DataBag]) {
    let mut counts: crate::FastMap<Arc<str>, (usize, usize)> = crate::FastMap::default();
    for bag in bags {
        for layer in bag.layers().iter() {
            for (name, values) in &layer.attrs {
                let (dense, sparse) = values.block_counts();
                let count = match counts.get_mut(name) {
                    Some(count) => count,
                    None => counts.entry(name.clone()).or_default(),
                };
                *count = (count.0 + dense, count.1 + sparse);
            }
        }
    }
    for (name, (dense, sparse)) in counts {
        Arc::make_mut(store.attrs.values_mut(&name)).reserve(dense, sparse);
    }
}

/// Merges of more bags than this copy them into one layer (see
/// [`DataBag::merge_many`]); fewer are read through, with no copy.
const MERGED_LAYERS_MAX: usize = 8;

/// The schemas of the items an update writes to (see
/// [`DataBag::check_value_schemas`]).
#[derive(Clone, Copy, Debug)]
pub enum SchemaIds<'a> {
    /// One schema for all (entities).
    One(ItemId),
    /// One per item (objects).
    List(&'a [Option<ItemId>]),
    /// Slots 0..len of an allocation of implicit schemas (objects made
    /// together).
    Allocation(u64, usize),
}

/// Koda's text for two bags giving schema `id` different schemas for
/// attribute `name`.
fn schema_conflict_text(
    id: ItemId,
    name: &str,
    (bag_a, x): (&DataBag, Option<ScalarRef<'_>>),
    (bag_b, y): (&DataBag, Option<ScalarRef<'_>>),
) -> String {
    let schema = |bag: &DataBag, value: Option<ScalarRef<'_>>| match value {
        Some(ScalarRef::Schema(s)) => schema_text(s, Some(bag)),
        other => value_text(other),
    };
    format!(
        "cannot merge DataBags due to an exception encountered when merging schemas.\n\nThe conflicting schema in the \
         first DataBag: {}\nThe conflicting schema in the second DataBag: {}\n\nThe cause is the schema for attribute \
         '{name}' is incompatible: {} vs {}",
        schema_text(Schema::Struct(id), Some(bag_a)),
        schema_text(Schema::Struct(id), Some(bag_b)),
        schema(bag_a, x),
        schema(bag_b, y)
    )
}

/// Koda's text for the first thing `ours` and `theirs` read differently
/// (both set, to different values; "set to missing" counts as a value):
/// entities and objects first, then schemas, then dicts, then lists.
pub(super) fn first_disagreement(ours: &DataBag, theirs: &DataBag) -> Option<String> {
    let (a, b) = (ours.layers(), theirs.layers());
    let (only_a, only_b) = differing_layers(&a, &b);
    if only_a.is_empty() && only_b.is_empty() {
        return None;
    }
    attr_disagreement((ours, &a), (theirs, &b), &only_a, &only_b)
        .or_else(|| dict_disagreement(&a, &b, &only_a, &only_b))
        .or_else(|| list_disagreement(&a, &b, &only_a, &only_b))
}

/// The layers of each side that can make its reads differ from the other's:
/// those the other side does not read. When the shared layers come in another
/// order on each side, they can too, and every layer is compared.
fn differing_layers<'a>(a: &'a [Arc<Store>], b: &'a [Arc<Store>]) -> (Vec<&'a Store>, Vec<&'a Store>) {
    // One layer each (merging bags made one by one): no sets to build.
    if let ([x], [y]) = (a, b) {
        return if Arc::ptr_eq(x, y) { (Vec::new(), Vec::new()) } else { (vec![x.as_ref()], vec![y.as_ref()]) };
    }
    let in_a: HashSet<*const Store> = a.iter().map(Arc::as_ptr).collect();
    let in_b: HashSet<*const Store> = b.iter().map(Arc::as_ptr).collect();
    let shared_a: Vec<*const Store> = a.iter().map(Arc::as_ptr).filter(|p| in_b.contains(p)).collect();
    let shared_b: Vec<*const Store> = b.iter().map(Arc::as_ptr).filter(|p| in_a.contains(p)).collect();
    let all = shared_a != shared_b;
    let pick = |layers: &'a [Arc<Store>], other: &HashSet<*const Store>| -> Vec<&'a Store> {
        layers.iter().filter(|l| all || !other.contains(&Arc::as_ptr(l))).map(Arc::as_ref).collect()
    };
    (pick(a, &in_b), pick(b, &in_a))
}

/// Blocks of at most this many items are compared item by item in a merge
/// check, without first asking whether the other side touches them.
const SMALL_BLOCK: usize = 16;

/// About how many values `layers` hold, each layer's counted by `count`
/// only until `cap`.
fn count_capped(layers: &[&Store], cap: usize, count: impl Fn(&Store, usize) -> usize) -> usize {
    let mut n = 0;
    for layer in layers {
        if n >= cap {
            break;
        }
        n += count(layer, cap - n);
    }
    n
}

/// The (attribute, item) values of a layer, counted only until `cap`.
fn attr_values_capped(layer: &Store, cap: usize) -> usize {
    let mut n = 0;
    for values in layer.attrs.values() {
        if n >= cap {
            break;
        }
        n += values.len_hint_capped(cap - n);
    }
    n
}

/// Whether `mine` holds no more values than `other`, counting each side
/// (by `count`) only up to a bound that grows until one is below it: the
/// cost is that of the smaller side (merging many small bags into a large
/// one stays linear).
fn not_larger_by(mine: &[&Store], other: &[&Store], count: impl Fn(&Store, usize) -> usize + Copy) -> bool {
    let mut cap = 64usize;
    loop {
        let (m, o) = (count_capped(mine, cap, count), count_capped(other, cap, count));
        if m < cap || o < cap {
            return m <= o;
        }
        cap = cap.saturating_mul(8);
    }
}

/// [`not_larger_by`] counting attribute values.
fn not_larger(mine: &[&Store], other: &[&Store]) -> bool {
    not_larger_by(mine, other, attr_values_capped)
}

/// Whether `a` and `b` read attribute `attr` of every item of `allocation`
/// from one column they share: on each side the first layer that holds
/// any of it holds it as that column (set in the same slots).
fn same_column(a: &[Arc<Store>], b: &[Arc<Store>], attr: &str, allocation: u64) -> bool {
    match (first_column(a, attr, allocation), first_column(b, attr, allocation)) {
        (Some((x, x_set)), Some((y, y_set))) => x.shares_storage(y) && x_set == y_set,
        _ => false,
    }
}

/// The column of `allocation` in the first of `layers` that holds `attr` of
/// any of its items, when that layer holds them as a column.
fn first_column<'a>(layers: &'a [Arc<Store>], attr: &str, allocation: u64) -> Option<(&'a SliceData, Option<&'a BooleanBuffer>)> {
    let values = layers.iter().filter_map(|l| l.attrs.get(attr)).find(|v| v.dense_column(allocation).is_some() || v.touches_sparsely(allocation))?;
    if values.touches_sparsely(allocation) {
        return None;
    }
    values.dense_column(allocation)
}

/// What `layers` read for attribute `attr` of `id`: `None` when unset,
/// `Some(None)` when set to missing.
fn read_attr<'a>(layers: &'a [Arc<Store>], attr: &str, id: ItemId) -> Option<Option<ScalarRef<'a>>> {
    layers.iter().find_map(|layer| layer.attrs.get(attr)?.get_one(id))
}

/// Whether any of `layers` sets attribute `attr` on an item of `allocation`
/// (or, for `None`, on an item stored sparsely).
fn touches(layers: &[Arc<Store>], attr: &str, allocation: u64) -> bool {
    layers.iter().any(|layer| layer.attrs.get(attr).is_some_and(|values| values.touches_allocation(allocation)))
}

fn attr_disagreement(
    (bag_a, a): (&DataBag, &[Arc<Store>]),
    (bag_b, b): (&DataBag, &[Arc<Store>]),
    only_a: &[&Store],
    only_b: &[&Store],
) -> Option<String> {
    // The (attribute, item) pairs either side sets in a layer of its own
    // and the other side sets too. They are found from the smaller of the
    // two (merging many small bags one by one stays linear), skipping blocks
    // of allocations the other side never touches.
    // Allocations both sides read from one shared column (what `kd.extract`
    // copied from one bag into two) agree item for item, unread.
    let mut keys: Vec<(Arc<str>, ItemId)> = Vec::new();
    for (mine, other) in [(only_a, b), (only_b, a)] {
        let other_layers: Vec<&Store> = other.iter().map(Arc::as_ref).collect();
        if not_larger(mine, &other_layers) {
            for layer in mine {
                for (name, values) in &layer.attrs {
                    values.for_each_set_item(
                        // Small blocks (an object made on its own) are read
                        // item by item rather than searched for in `other`.
                        |allocation, len| len <= SMALL_BLOCK || (touches(other, name, allocation) && !same_column(a, b, name, allocation)),
                        |id| keys.push((name.clone(), id)),
                    );
                }
            }
        } else {
            let in_mine = |name: &str, id: ItemId| mine.iter().any(|l| l.attrs.get(name).is_some_and(|v| v.get_one(id).is_some()));
            for layer in other {
                for (name, values) in &layer.attrs {
                    values.for_each_set_item(
                        |allocation, _| !same_column(a, b, name, allocation),
                        |id| {
                            if in_mine(name, id) {
                                keys.push((name.clone(), id))
                            }
                        },
                    );
                }
            }
        }
    }
    keys.sort();
    keys.dedup();
    let mut schema_conflict = None;
    for (name, id) in keys {
        let (Some(x), Some(y)) = (read_attr(a, &name, id), read_attr(b, &name, id)) else {
            continue;
        };
        if x == y {
            continue;
        }
        if !id.is_schema() {
            return Some(format!(
                "cannot merge DataBags due to an exception encountered when merging entities.\n\nThe conflicting \
                 entities in the both DataBags: Entity():{}\n\nThe cause is the values of attribute '{name}' are \
                 different: {} vs {}",
                id.short(),
                value_text(x),
                value_text(y)
            ));
        }
        schema_conflict.get_or_insert_with(|| schema_conflict_text(id, &name, (bag_a, x), (bag_b, y)));
    }
    schema_conflict
}

fn value_text(value: Option<ScalarRef<'_>>) -> String {
    value.map_or_else(|| "None".to_string(), item_text)
}

/// The parts of dict `id` that `layers` hold, first layer first.
fn dict_parts(layers: &[Arc<Store>], id: ItemId) -> Vec<DictRef<'_>> {
    layers.iter().filter_map(|layer| layer.dicts.get(id)).collect()
}

/// `Dict{k=v, ...}` for the dict whose parts are `parts`.
fn dict_text(parts: &[DictRef<'_>]) -> String {
    let mut entries = Vec::new();
    merged_entries(parts, |k, v| {
        if let Some(v) = v {
            entries.push(format!("{}={}", item_text(k), item_text(v)));
        }
    });
    format!("Dict{{{}}}", entries.join(", "))
}

fn dict_disagreement(a: &[Arc<Store>], b: &[Arc<Store>], only_a: &[&Store], only_b: &[&Store]) -> Option<String> {
    let mut ids: Vec<ItemId> = Vec::new();
    for (mine, other) in [(only_a, b), (only_b, a)] {
        // From the side with fewer dicts, as for attributes.
        let other_layers: Vec<&Store> = other.iter().map(Arc::as_ref).collect();
        let (from, to): (Vec<&Store>, Vec<&Store>) = if not_larger_by(mine, &other_layers, |l, cap| l.dicts.len_hint_capped(cap)) {
            (mine.to_vec(), other.iter().map(Arc::as_ref).collect())
        } else {
            (other.iter().map(Arc::as_ref).collect(), mine.to_vec())
        };
        for layer in from {
            ids.extend(layer.dicts.iter().map(|(id, _)| id).filter(|&id| to.iter().any(|l| l.dicts.get(id).is_some())));
        }
    }
    ids.sort();
    ids.dedup();
    for id in ids {
        let (pa, pb) = (dict_parts(a, id), dict_parts(b, id));
        let mut conflict = None;
        merged_entries(&pa, |key, x| {
            if conflict.is_some() {
                return;
            }
            let y = pb.iter().find_map(|d| d.get(key));
            if let Some(y) = y.filter(|y| *y != x) {
                conflict = Some(format!(
                    "cannot merge DataBags due to an exception encountered when merging dicts.\n\nThe conflicting dict \
                     in the first DataBag: {}\nThe conflicting dict in the second DataBag: {}\n\nThe cause is the \
                     value of the key {} is incompatible: {} vs {}",
                    dict_text(&pa),
                    dict_text(&pb),
                    item_text(key),
                    value_text(x),
                    value_text(y)
                ));
            }
        });
        if conflict.is_some() {
            return conflict;
        }
    }
    None
}

fn list_disagreement(a: &[Arc<Store>], b: &[Arc<Store>], only_a: &[&Store], only_b: &[&Store]) -> Option<String> {
    let mut ids: Vec<ItemId> = Vec::new();
    for (mine, other) in [(only_a, b), (only_b, a)] {
        // From the side with fewer lists, as for attributes.
        let other_layers: Vec<&Store> = other.iter().map(Arc::as_ref).collect();
        let (from, to): (Vec<&Store>, Vec<&Store>) = if not_larger_by(mine, &other_layers, |l, cap| l.lists.len_hint_capped(cap)) {
            (mine.to_vec(), other.iter().map(Arc::as_ref).collect())
        } else {
            (other.iter().map(Arc::as_ref).collect(), mine.to_vec())
        };
        for layer in from {
            layer.lists.for_each_id(|allocation| to.iter().any(|l| l.lists.touches_allocation(allocation)), |id| ids.push(id));
        }
    }
    ids.sort();
    ids.dedup();
    for id in ids {
        let find = |layers: &[Arc<Store>]| {
            layers.iter().find_map(|l| {
                l.lists.get(id).map(|r| {
                    let data = r.to_data();
                    let n = data.len();
                    (data, 0..n)
                })
            })
        };
        let (Some((xa, ra)), Some((xb, rb))) = (find(a), find(b)) else { continue };
        let cause = if ra.len() != rb.len() {
            format!("the list sizes are incompatible: {} vs {}", ra.len(), rb.len())
        } else {
            match ra.clone().zip(rb.clone()).position(|(i, j)| xa.get(i) != xb.get(j)) {
                Some(k) => {
                    format!("the value at index {k} is incompatible: {} vs {}", value_text(xa.get(ra.start + k)), value_text(xb.get(rb.start + k)))
                }
                None => continue,
            }
        };
        let text = |items: &crate::column::SliceData, range: std::ops::Range<usize>| {
            format!("List[{}]", range.map(|i| value_text(items.get(i))).collect::<Vec<_>>().join(", "))
        };
        return Some(format!(
            "cannot merge DataBags due to an exception encountered when merging lists.\n\nThe conflicting list in the \
             first DataBag: {}\nThe conflicting list in the second DataBag: {}\n\nThe cause is {cause}",
            text(&xa, ra),
            text(&xb, rb)
        ));
    }
    None
}
