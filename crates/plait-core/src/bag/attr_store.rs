//! The values of one attribute for every item of a bag.
//!
//! Items of one allocation that were written together are stored *densely*: a
//! column indexed by the item's offset (so `kd.new(x=slice)` stores `slice`'s
//! column as is, and reading `.x` back is a zero-copy view). Other items
//! (uuids, and a few items of an allocation) are stored *sparsely* in a map.
//! An allocation lives in one of the two, except for *patches*: a few items
//! written later into a dense allocation (`x.S[5].a = 3` on a mutable bag)
//! go to a map of their own, where they shadow the column, so that such a
//! write is O(1); they are folded into the column once there are many of them
//! (amortized O(1) per item). Reads lay the patches over the column in the
//! same typed pass that gathers it (a few items are looked up one by one). Each item is *set* (to a value, or explicitly to missing) or *unset*
//! (the bag says nothing; a fallback bag may).

use std::collections::HashMap;
use std::sync::Arc;

use arrow_buffer::{BooleanBuffer, BooleanBufferBuilder};

use super::attr_map::Holder;
use super::{BagWriter, DataBag, Store};
use crate::column::{MISSING_INDEX, ScalarRef, SliceBuilder, SliceData, Values};
use crate::error::Result;
use crate::itemid::ItemId;
use crate::quoted::Quoted;
use crate::schema::Schema;

/// Writes of at least this many items of one allocation go to a dense column.
const DENSE_MIN_WRITE: usize = 16;

use crate::FastMap;

/// A dense allocation takes up to this many patches (or a sixteenth of its
/// column, if more) before they are folded into the column.
const PATCH_FOLD_MIN: usize = 1024;

/// The longest dense column for `items` set items: a column may have gaps,
/// but not so many that a few ids with far offsets allocate gigabytes.
fn dense_span_limit(items: usize) -> usize {
    items.saturating_mul(64).saturating_add(1 << 20)
}

/// One item's value, owned (sparse storage).
///
/// 24 bytes with 8-byte alignment (ids as two words, schemas boxed), so that
/// sparse maps stay small and a dict slot (hash, key, value, rank) fits one
/// 64-byte cache line.
#[derive(Clone, Debug, PartialEq)]
pub enum Stored {
    Int32(i32),
    Int64(i64),
    Float32(f32),
    Float64(f64),
    Boolean(bool),
    Mask,
    Bytes(Arc<[u8]>),
    String(Arc<str>),
    Schema(Box<Schema>),
    ItemId([u64; 2]),
    Expr(Box<Quoted>),
}

impl Stored {
    pub fn from_ref(value: ScalarRef<'_>) -> Stored {
        match value {
            ScalarRef::Int32(v) => Stored::Int32(v),
            ScalarRef::Int64(v) => Stored::Int64(v),
            ScalarRef::Float32(v) => Stored::Float32(v),
            ScalarRef::Float64(v) => Stored::Float64(v),
            ScalarRef::Boolean(v) => Stored::Boolean(v),
            ScalarRef::Mask => Stored::Mask,
            ScalarRef::Bytes(v) => Stored::Bytes(Arc::from(v)),
            ScalarRef::String(v) => Stored::String(Arc::from(v)),
            ScalarRef::Schema(v) => Stored::Schema(Box::new(v)),
            ScalarRef::ItemId(v) => Stored::ItemId([(v.0 >> 64) as u64, v.0 as u64]),
            ScalarRef::Expr(v) => Stored::Expr(Box::new(v.clone())),
        }
    }

    pub fn as_ref(&self) -> ScalarRef<'_> {
        match self {
            Stored::Int32(v) => ScalarRef::Int32(*v),
            Stored::Int64(v) => ScalarRef::Int64(*v),
            Stored::Float32(v) => ScalarRef::Float32(*v),
            Stored::Float64(v) => ScalarRef::Float64(*v),
            Stored::Boolean(v) => ScalarRef::Boolean(*v),
            Stored::Mask => ScalarRef::Mask,
            Stored::Bytes(v) => ScalarRef::Bytes(v),
            Stored::String(v) => ScalarRef::String(v),
            Stored::Schema(v) => ScalarRef::Schema(**v),
            Stored::ItemId([high, low]) => ScalarRef::ItemId(ItemId(((*high as u128) << 64) | *low as u128)),
            Stored::Expr(v) => ScalarRef::Expr(v),
        }
    }

    /// The schema held, if it is one.
    pub fn schema(&self) -> Option<Schema> {
        match self {
            Stored::Schema(s) => Some(**s),
            _ => None,
        }
    }
}

/// A dense column of one allocation: slot `offset` holds the item's value.
#[derive(Clone, Debug)]
struct Dense {
    data: SliceData,
    /// Which slots are set; `None` when all are.
    set: Option<BooleanBuffer>,
}

impl Dense {
    fn is_set(&self, offset: usize) -> bool {
        offset < self.data.len() && self.set.as_ref().is_none_or(|s| s.value(offset))
    }
}

/// The items of one dense allocation written one by one since its column was
/// made, by offset: each shadows its slot of the column.
#[derive(Clone, Debug, Default)]
struct Patches {
    values: FastMap<u64, Option<Stored>>,
    /// One past the largest offset patched (a patch may lie past the column).
    end: usize,
}

impl Patches {
    fn len(&self) -> usize {
        self.values.len()
    }

    fn get(&self, offset: usize) -> Option<&Option<Stored>> {
        self.values.get(&(offset as u64))
    }
}

/// The patches of one allocation with a bitmap of the offsets they hold in
/// `0..len`, so that a long read tests one bit per item and probes the map
/// only where a bit is set.
struct PatchIndex<'a> {
    patches: &'a Patches,
    bits: Vec<u64>,
}

impl<'a> PatchIndex<'a> {
    fn new(patches: &'a Patches, len: usize) -> PatchIndex<'a> {
        let mut bits = vec![0u64; len.div_ceil(64)];
        for &offset in patches.values.keys() {
            if let Some(word) = bits.get_mut((offset / 64) as usize) {
                *word |= 1 << (offset % 64);
            }
        }
        PatchIndex { patches, bits }
    }

    fn get(&self, offset: usize) -> Option<&'a Option<Stored>> {
        match self.bits.get(offset / 64) {
            Some(word) if word & (1 << (offset % 64)) == 0 => None,
            _ => self.patches.get(offset),
        }
    }
}

/// The values at `offsets` ([`MISSING_INDEX`]: a missing item) of a dense
/// column (no patches), and the positions it leaves unset.
fn read_dense(dense: &Dense, offsets: &[usize]) -> Lookup {
    let mut identity = offsets.len() == dense.data.len();
    let mut indices = Vec::with_capacity(offsets.len());
    let mut unset = Vec::new();
    for (i, &offset) in offsets.iter().enumerate() {
        identity &= offset == i;
        if offset == MISSING_INDEX || dense.is_set(offset) {
            indices.push(offset)
        } else {
            unset.push(i);
            indices.push(MISSING_INDEX)
        }
    }
    let data = if identity { dense.data.clone() } else { dense.data.take(&indices) };
    Lookup { data, unset }
}

/// [`read_dense`] of a column with `patches` over it. Fewer offsets than
/// patches are read one by one (O(offsets), whatever the column's length);
/// more in one typed pass that gathers the column and the patched values
/// together (O(offsets), as a read without patches).
fn read_patched(dense: &Dense, patches: &Patches, offsets: &[usize]) -> Lookup {
    let mut unset = Vec::new();
    if offsets.len() < patches.len() {
        let mut builder = SliceBuilder::with_capacity(offsets.len());
        for (i, &offset) in offsets.iter().enumerate() {
            match (offset, patches.get(offset)) {
                (MISSING_INDEX, _) => builder.push(None),
                (_, Some(patch)) => builder.push(patch.as_ref().map(Stored::as_ref)),
                _ if dense.is_set(offset) => builder.push(dense.data.get(offset)),
                _ => {
                    unset.push(i);
                    builder.push(None)
                }
            }
        }
        return Lookup { data: builder.finish(), unset };
    }
    let index = PatchIndex::new(patches, dense.data.len());
    // Patched values go after the column's slots in the gather's indices.
    let mut patched = SliceBuilder::new();
    let mut next = dense.data.len();
    let mut indices = Vec::with_capacity(offsets.len());
    for (i, &offset) in offsets.iter().enumerate() {
        if offset == MISSING_INDEX {
            indices.push(MISSING_INDEX);
        } else if let Some(patch) = index.get(offset) {
            match patch {
                Some(value) => {
                    patched.push(Some(value.as_ref()));
                    indices.push(next);
                    next += 1;
                }
                None => indices.push(MISSING_INDEX),
            }
        } else if dense.is_set(offset) {
            indices.push(offset);
        } else {
            unset.push(i);
            indices.push(MISSING_INDEX);
        }
    }
    let data = if next == dense.data.len() { dense.data.take(&indices) } else { dense.data.take_pair(&patched.finish(), &indices) };
    Lookup { data, unset }
}

/// The result of a lookup: values, and which positions the store says nothing
/// about (to be looked up in fallbacks).
pub struct Lookup {
    pub data: SliceData,
    pub unset: Vec<usize>,
}

/// The items that hold attributes, gathered over attributes (for the bag's
/// statistics): per allocation the longest dense column, and sparse items.
#[derive(Default)]
pub struct ItemTally {
    dense: HashMap<u64, usize>,
    sparse: std::collections::HashSet<ItemId>,
}

impl ItemTally {
    /// (entities and objects, schemas).
    pub fn counts(&self) -> (usize, usize) {
        let mut counts = (0, 0);
        for (&key, &len) in &self.dense {
            if ItemId::in_allocation(key, 0).is_schema() { counts.1 += len } else { counts.0 += len }
        }
        for id in &self.sparse {
            if id.is_schema() { counts.1 += 1 } else { counts.0 += 1 }
        }
        counts
    }
}

/// What a bag reads of one attribute over a prefix of an allocation (see
/// [`DataBag::attr_column_of_allocation`]).
pub enum AllocationColumn {
    /// No layer sets it for any of the slots.
    Unset,
    /// One layer's column holds all of it: the values, and which slots are
    /// set (`None`: all).
    Column { data: SliceData, set: Option<BooleanBuffer> },
    /// Several layers, or items stored one by one: read item by item.
    Mixed,
}

/// Items stored one by one, and how many of them each allocation has: so
/// whether an allocation has any is a lookup, not a scan of the items (a
/// store holding a schema's attribute one by one still takes an entity
/// column of the same attribute whole). The counts are made on the first
/// such question and kept up to date after it (merging many one-item
/// bags, which never asks, does not pay for them).
#[derive(Clone, Debug, Default)]
struct SparseItems {
    items: FastMap<ItemId, Option<Stored>>,
    per_allocation: std::sync::OnceLock<FastMap<u64, usize>>,
}

impl SparseItems {
    fn insert(&mut self, id: ItemId, value: Option<Stored>) {
        if self.items.insert(id, value).is_none() {
            if let (Some(counts), Some(allocation)) = (self.per_allocation.get_mut(), id.allocation()) {
                *counts.entry(allocation).or_default() += 1;
            }
        }
    }

    /// Stores `value()` for `id` unless it has a value here.
    fn insert_new(&mut self, id: ItemId, value: impl FnOnce() -> Option<Stored>) {
        if !self.items.contains_key(&id) {
            self.insert(id, value());
        }
    }

    fn remove(&mut self, id: &ItemId) -> Option<Option<Stored>> {
        let removed = self.items.remove(id);
        if let (Some(_), Some(counts), Some(allocation)) = (&removed, self.per_allocation.get_mut(), id.allocation()) {
            if let Some(n) = counts.get_mut(&allocation) {
                *n -= 1;
                if *n == 0 {
                    counts.remove(&allocation);
                }
            }
        }
        removed
    }

    fn get(&self, id: &ItemId) -> Option<&Option<Stored>> {
        self.items.get(id)
    }

    /// Whether an item of `allocation` is here.
    fn touches(&self, allocation: u64) -> bool {
        !self.items.is_empty() && self.counts().contains_key(&allocation)
    }

    /// How many items each allocation has here (made on the first call).
    fn counts(&self) -> &FastMap<u64, usize> {
        self.per_allocation.get_or_init(|| {
            let mut counts = FastMap::default();
            for id in self.items.keys() {
                if let Some(allocation) = id.allocation() {
                    *counts.entry(allocation).or_default() += 1;
                }
            }
            counts
        })
    }

    /// The items of `allocation` here.
    fn of_allocation(&self, allocation: u64) -> Vec<ItemId> {
        if !self.touches(allocation) {
            return Vec::new();
        }
        self.items.keys().filter(|id| id.allocation() == Some(allocation)).copied().collect()
    }

    fn keys(&self) -> impl Iterator<Item = &ItemId> {
        self.items.keys()
    }

    fn values(&self) -> impl Iterator<Item = &Option<Stored>> {
        self.items.values()
    }

    fn iter(&self) -> impl Iterator<Item = (&ItemId, &Option<Stored>)> {
        self.items.iter()
    }

    fn len(&self) -> usize {
        self.items.len()
    }

    fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

/// Items of an allocation stored one by one for an attribute, at most, that
/// a name index files item by item (see [`AttrStore::for_each_index_holder`]).
pub(super) const FEW_OF_AN_ALLOCATION: usize = 4;

/// All values of one attribute.
#[derive(Clone, Debug, Default)]
pub struct AttrStore {
    dense: FastMap<u64, Dense>,
    /// Items of allocations that have no dense column here.
    sparse: SparseItems,
    /// The patches of dense allocations (see the module docs).
    patches: FastMap<u64, Patches>,
}

/// The values of one attribute, a block at a time, for copying a bag out
/// (persistence) without a value per item.
#[derive(Clone, Debug)]
pub enum AttrBlock {
    /// Slots `0..data.len()` of `allocation`; `set` says which are set
    /// (`None`: all).
    Dense { allocation: u64, data: SliceData, set: Option<BooleanBuffer> },
    /// Items stored one by one (sorted by id).
    Sparse { ids: Vec<ItemId>, values: SliceData },
}

impl AttrStore {
    /// How many dense allocations and items stored one by one this holds
    /// (what a merge of it takes room for).
    pub fn block_counts(&self) -> (usize, usize) {
        (self.dense.len(), self.sparse.items.len())
    }

    /// Makes room for `dense` more dense allocations and `sparse` more
    /// items stored one by one (a merge of many small bags grows its
    /// tables once).
    pub fn reserve(&mut self, dense: usize, sparse: usize) {
        self.dense.reserve(dense);
        self.sparse.items.reserve(sparse);
    }

    /// The stored values, block by block (dense allocations by allocation).
    pub fn blocks(&self) -> Vec<AttrBlock> {
        let mut dense: Vec<(&u64, &Dense)> = self.dense.iter().collect();
        dense.sort_by_key(|(a, _)| **a);
        let mut out: Vec<AttrBlock> =
            dense.into_iter().map(|(&allocation, d)| AttrBlock::Dense { allocation, data: d.data.clone(), set: d.set.clone() }).collect();
        // Patches go with the sparse items, after the columns they shadow.
        if !self.sparse.is_empty() || !self.patches.is_empty() {
            let mut ids: Vec<ItemId> = self.sparse.keys().copied().chain(self.patch_ids()).collect();
            ids.sort();
            let mut builder = SliceBuilder::with_capacity(ids.len());
            for id in &ids {
                builder.push(self.get_one(*id).flatten());
            }
            out.push(AttrBlock::Sparse { ids, values: builder.finish() });
        }
        out
    }

    /// The ids of every patch.
    fn patch_ids(&self) -> impl Iterator<Item = ItemId> + '_ {
        self.patches.iter().flat_map(|(&allocation, p)| p.values.keys().map(move |&offset| ItemId::in_allocation(allocation, offset)))
    }

    /// Number of present values (for bag statistics).
    pub fn value_count(&self) -> usize {
        let unpatched = self.dense.values().map(|d| d.data.present_count()).sum::<usize>() + self.sparse.values().filter(|v| v.is_some()).count();
        let patched: isize = self.patches.iter().flat_map(|(&a, p)| p.values.iter().map(move |(&o, v)| self.patch_delta(a, o, v))).sum();
        (unpatched as isize + patched) as usize
    }

    /// How a patch changes the count of present values: +1 for its value,
    /// -1 for the present value of the slot it shadows.
    fn patch_delta(&self, allocation: u64, offset: u64, value: &Option<Stored>) -> isize {
        let slot = self.dense.get(&allocation).and_then(|d| d.is_set(offset as usize).then(|| d.data.get(offset as usize))).flatten();
        isize::from(value.is_some()) - isize::from(slot.is_some())
    }

    /// Records the items holding this attribute in `items`; returns the
    /// present values on entities/objects and on schemas (for the bag's
    /// statistics).
    pub fn tally(&self, items: &mut ItemTally) -> (usize, usize) {
        let mut values = (0, 0);
        for (&key, dense) in &self.dense {
            let len = items.dense.entry(key).or_default();
            *len = (*len).max(dense.data.len());
            let present = dense.data.present_count();
            if ItemId::in_allocation(key, 0).is_schema() { values.1 += present } else { values.0 += present }
        }
        let mut add = |id: ItemId, count: isize| {
            if id.is_schema() { values.1 = (values.1 as isize + count) as usize } else { values.0 = (values.0 as isize + count) as usize }
        };
        for (id, value) in self.sparse.iter() {
            items.sparse.insert(*id);
            add(*id, isize::from(value.is_some()));
        }
        for (&allocation, patches) in &self.patches {
            let len = self.dense.get(&allocation).map_or(0, |d| d.data.len());
            for (&offset, value) in &patches.values {
                let id = ItemId::in_allocation(allocation, offset);
                // A patch within its column's length is counted with the column.
                if offset as usize >= len {
                    items.sparse.insert(id);
                }
                add(id, self.patch_delta(allocation, offset, value));
            }
        }
        values
    }

    /// The items that have this attribute set (present or explicitly missing).
    pub fn set_items(&self) -> Vec<ItemId> {
        let mut out: Vec<ItemId> = self.sparse.keys().copied().chain(self.patch_ids()).collect();
        for (&high, dense) in &self.dense {
            let patches = self.patches.get(&high);
            for offset in 0..dense.data.len() {
                if dense.is_set(offset) && patches.is_none_or(|p| p.get(offset).is_none()) {
                    out.push(ItemId::in_allocation(high, offset as u64));
                }
            }
        }
        out
    }

    /// Adds the values `theirs` sets that this store does not (a merge in
    /// which this store wins). The column of an allocation this store does
    /// not touch is shared whole, without work per item: merging many bags
    /// of one object each (`kd.slice` of objects made one by one) is then
    /// linear in the number of bags, not in a copy per item.
    pub fn merge_missing_from(&mut self, theirs: &AttrStore) {
        let mut one_by_one: Vec<ItemId> = theirs.patch_ids().collect();
        self.take_sparse_from(theirs, &mut one_by_one);
        for (&allocation, dense) in &theirs.dense {
            let untouched = !self.sparse.touches(allocation) && !self.dense.contains_key(&allocation) && !self.patches.contains_key(&allocation);
            if untouched && !theirs.patches.contains_key(&allocation) {
                self.dense.insert(allocation, dense.clone());
                continue;
            }
            let patches = theirs.patches.get(&allocation);
            for offset in 0..dense.data.len() {
                if dense.is_set(offset) && patches.is_none_or(|p| p.get(offset).is_none()) {
                    one_by_one.push(ItemId::in_allocation(allocation, offset as u64));
                }
            }
        }
        for id in one_by_one {
            if self.get_one(id).is_none() {
                let mut b = crate::column::SliceBuilder::new();
                b.push(theirs.get_one(id).flatten());
                self.set(&[Some(id)], &b.finish());
            }
        }
    }

    /// [`Self::merge_missing_from`] of a store that shares no item with
    /// this one ([`Self::may_share_items`] is false): its columns and
    /// patches are taken whole, without asking item by item.
    pub fn merge_disjoint_from(&mut self, theirs: &AttrStore) {
        for (&allocation, dense) in &theirs.dense {
            self.dense.insert(allocation, dense.clone());
        }
        for (&allocation, patches) in &theirs.patches {
            self.patches.insert(allocation, patches.clone());
        }
        let mut one_by_one = Vec::new();
        self.take_sparse_from(theirs, &mut one_by_one);
        for id in one_by_one {
            let mut b = crate::column::SliceBuilder::new();
            b.push(theirs.get_one(id).flatten());
            self.set(&[Some(id)], &b.finish());
        }
    }

    /// The items `theirs` stores one by one that this store lacks: stored
    /// one by one here too, unless this store holds their allocation as a
    /// column (then they are added to `one_by_one`, for the caller to set).
    fn take_sparse_from(&mut self, theirs: &AttrStore, one_by_one: &mut Vec<ItemId>) {
        for (id, value) in theirs.sparse.iter() {
            let kept_whole = id.allocation().is_some_and(|a| self.dense.contains_key(&a) || self.patches.contains_key(&a));
            if kept_whole {
                one_by_one.push(*id);
            } else {
                self.sparse.insert_new(*id, || value.clone());
            }
        }
    }

    /// Sets here every item `theirs` sets, to its value there (theirs win
    /// where both set an item; `DataBag.merge_inplace` with `overwrite`):
    /// columns of allocations this store does not hold are shared whole,
    /// the rest written in one batch.
    pub fn overwrite_from(&mut self, theirs: &AttrStore) {
        let mut ids: Vec<Option<ItemId>> = Vec::new();
        for (&id, value) in theirs.sparse.iter() {
            // Stored one by one there and not held as a column here: one
            // by one here too, without the general write (merging many
            // small bags, each a few schema attributes, costs little per bag).
            let column_here = id.allocation().is_some_and(|a| self.dense.contains_key(&a));
            if column_here {
                ids.push(Some(id));
            } else {
                self.sparse.insert(id, value.clone());
            }
        }
        for (&allocation, dense) in &theirs.dense {
            let patches = theirs.patches.get(&allocation);
            let untouched = !self.sparse.touches(allocation) && !self.dense.contains_key(&allocation) && !self.patches.contains_key(&allocation);
            if untouched {
                self.dense.insert(allocation, dense.clone());
                if let Some(patches) = patches {
                    self.patches.insert(allocation, patches.clone());
                }
                continue;
            }
            let set = (0..dense.data.len()).filter(|&offset| dense.is_set(offset) || patches.is_some_and(|p| p.get(offset).is_some()));
            ids.extend(set.map(|offset| Some(ItemId::in_allocation(allocation, offset as u64))));
            // Patches past the end of the column.
            if let Some(patches) = patches {
                ids.extend(
                    patches
                        .values
                        .keys()
                        .filter(|&&offset| offset as usize >= dense.data.len())
                        .map(|&offset| Some(ItemId::in_allocation(allocation, offset))),
                );
            }
        }
        if ids.is_empty() {
            return;
        }
        let mut values = crate::column::SliceBuilder::with_capacity(ids.len());
        for id in ids.iter().flatten() {
            values.push(theirs.get_one(*id).flatten());
        }
        self.set(&ids, &values.finish());
    }

    /// Whether this store may set an item that `other` sets too (false:
    /// surely not, so merging them cannot conflict). Exact for the items
    /// `other` stores one by one; a column of `other` counts as shared
    /// when this store has items stored one by one (finding them would
    /// take a scan).
    pub fn may_share_items(&self, other: &AttrStore) -> bool {
        other.sparse.keys().copied().chain(other.patch_ids()).any(|id| self.get_one(id).is_some())
            || other.dense.keys().any(|a| self.sparse.touches(*a) || self.dense.contains_key(a) || self.patches.contains_key(a))
    }

    /// [`AttrStore::len_hint`], counted only until it reaches `cap` (so a
    /// large store is not walked to learn that it is larger than a small one).
    pub fn len_hint_capped(&self, cap: usize) -> usize {
        let mut n = self.sparse.len();
        for len in self.dense.values().map(|d| d.data.len()).chain(self.patches.values().map(Patches::len)) {
            if n >= cap {
                break;
            }
            n += len;
        }
        n
    }

    /// About how many items have this attribute set here (the slots of the
    /// dense columns and the sparse items; O(blocks)).
    pub fn len_hint(&self) -> usize {
        self.sparse.len() + self.dense.values().map(|d| d.data.len()).sum::<usize>() + self.patches.values().map(Patches::len).sum::<usize>()
    }

    /// The column of `allocation` and which of its slots are set (`None`:
    /// all), when the allocation is stored densely here.
    pub(super) fn dense_column(&self, allocation: u64) -> Option<(&SliceData, Option<&BooleanBuffer>)> {
        self.dense.get(&allocation).map(|d| (&d.data, d.set.as_ref()))
    }

    /// Whether an item of `allocation` is stored one by one here (sparsely,
    /// or as a patch over its column).
    pub(super) fn touches_sparsely(&self, allocation: u64) -> bool {
        self.patches.contains_key(&allocation) || self.sparse.touches(allocation)
    }

    /// Calls `f` once with each allocation that has items here and each
    /// item without an allocation (a uuid) that is here: what
    /// [`super::attr_map::AttrMap`] indexes names by.
    pub(super) fn for_each_holder(&self, mut f: impl FnMut(Holder)) {
        // Patches are over dense allocations: listed with them.
        self.dense.keys().for_each(|&allocation| f(Holder::Allocation(allocation)));
        if !self.sparse.is_empty() {
            self.sparse.counts().keys().for_each(|&allocation| f(Holder::Allocation(allocation)));
            self.sparse.keys().filter(|id| id.allocation().is_none()).for_each(|&id| f(Holder::Item(id)));
        }
    }

    /// The holders a name index files this attribute under: as
    /// [`Self::for_each_holder`], but items stored one by one whose
    /// allocation has at most [`FEW_OF_AN_ALLOCATION`] of them here are
    /// given one by one (`Holder::Item`). Schemas made together, each with
    /// attributes of its own (the implicit schemas of records with differing
    /// keys), then find their own names, not every name of the allocation.
    pub(super) fn for_each_index_holder(&self, mut f: impl FnMut(Holder)) {
        self.dense.keys().for_each(|&allocation| f(Holder::Allocation(allocation)));
        if self.sparse.is_empty() {
            return;
        }
        let counts = self.sparse.counts();
        counts.iter().filter(|&(_, &n)| n > FEW_OF_AN_ALLOCATION).for_each(|(&allocation, _)| f(Holder::Allocation(allocation)));
        self.sparse
            .keys()
            .filter(|id| id.allocation().is_none_or(|a| counts.get(&a).is_some_and(|&n| n <= FEW_OF_AN_ALLOCATION)))
            .for_each(|&id| f(Holder::Item(id)));
    }

    /// Whether items of `holder` are here (see [`Self::for_each_holder`]).
    pub(super) fn holds(&self, holder: Holder) -> bool {
        match holder {
            Holder::Allocation(allocation) => self.touches_allocation(allocation),
            Holder::Item(id) => self.sparse.get(&id).is_some(),
        }
    }

    /// At least the number of calls [`Self::for_each_holder`] makes, in O(1).
    pub(super) fn holders_bound(&self) -> usize {
        self.dense.len() + self.sparse.len()
    }

    /// Whether an item of `allocation` has this attribute set here.
    pub fn touches_allocation(&self, allocation: u64) -> bool {
        self.dense.contains_key(&allocation) || self.sparse.touches(allocation)
    }

    /// Calls `f` with each item that has this attribute set, skipping the
    /// dense blocks for which `wanted(allocation, length)` is false.
    pub fn for_each_set_item(&self, wanted: impl Fn(u64, usize) -> bool, mut f: impl FnMut(ItemId)) {
        self.sparse.keys().copied().chain(self.patch_ids()).for_each(&mut f);
        for (&allocation, dense) in &self.dense {
            if wanted(allocation, dense.data.len()) {
                (0..dense.data.len()).filter(|&offset| dense.is_set(offset)).for_each(|offset| f(ItemId::in_allocation(allocation, offset as u64)));
            }
        }
    }

    /// The value of one item: `None` when unset, `Some(None)` when set missing.
    pub fn get_one(&self, id: ItemId) -> Option<Option<ScalarRef<'_>>> {
        if !self.patches.is_empty() {
            if let Some(patch) = id.allocation().and_then(|a| self.patches.get(&a)).and_then(|p| p.get(id.offset() as usize)) {
                return Some(patch.as_ref().map(Stored::as_ref));
            }
        }
        if let Some(dense) = id.allocation().and_then(|a| self.dense.get(&a)) {
            let offset = id.offset() as usize;
            return dense.is_set(offset).then(|| dense.data.get(offset));
        }
        self.sparse.get(&id).map(|v| v.as_ref().map(Stored::as_ref))
    }

    /// Looks up `ids` (missing ids give missing values and are not "unset").
    pub fn get(&self, ids: &[Option<ItemId>]) -> Lookup {
        if let Some(lookup) = self.get_dense_fast(ids) {
            return lookup;
        }
        // The lookups first, in a tight loop, so that the CPU overlaps the
        // cache misses of neighbouring ones (uuids are spread over a hash
        // map); then the values.
        let found: Vec<Option<Option<ScalarRef<'_>>>> = ids.iter().map(|id| id.and_then(|id| self.get_one(id))).collect();
        let mut builder = SliceBuilder::with_capacity(ids.len());
        let mut unset = Vec::new();
        for (i, (id, value)) in ids.iter().zip(found).enumerate() {
            match value {
                Some(v) => builder.push(v),
                None => {
                    if id.is_some() {
                        unset.push(i);
                    }
                    builder.push(None)
                }
            }
        }
        Lookup { data: builder.finish(), unset }
    }

    /// All present ids from one allocation stored densely: one gather (or none,
    /// when the ids are exactly the allocation in order), with the
    /// allocation's patches laid over it.
    fn get_dense_fast(&self, ids: &[Option<ItemId>]) -> Option<Lookup> {
        let allocation = ids.iter().flatten().next()?.allocation()?;
        let patches = if self.patches.is_empty() { None } else { self.patches.get(&allocation) };
        if patches.is_none() {
            // The common case (`ds.x` on what `kd.new` made): the ids are
            // slots 0..len of the column, in order. One comparison pass and
            // no index vector; the column is shared, not copied.
            if let Some(dense) = in_order_allocation(ids).and_then(|a| self.dense.get(&a)) {
                if dense.data.len() == ids.len() {
                    let unset = match &dense.set {
                        None => Vec::new(),
                        Some(set) => (0..ids.len()).filter(|&i| !set.value(i)).collect(),
                    };
                    return Some(Lookup { data: dense.data.clone(), unset });
                }
            }
        }
        let dense = self.dense.get(&allocation)?;
        let offsets: Vec<usize> = ids
            .iter()
            .map(|id| match id {
                None => Some(MISSING_INDEX),
                Some(id) => (id.allocation() == Some(allocation)).then_some(id.offset() as usize),
            })
            .collect::<Option<_>>()?;
        Some(match patches {
            Some(patches) => read_patched(dense, patches, &offsets),
            None => read_dense(dense, &offsets),
        })
    }

    /// Makes `values` the column of slots 0..values.len() of `allocation`
    /// when that loses nothing (no other slot of the allocation is set):
    /// O(1). False when the general write is needed.
    fn set_whole(&mut self, allocation: u64, values: &SliceData) -> bool {
        let len = values.len();
        let replaces_all = match self.dense.get(&allocation) {
            Some(dense) => len >= dense.data.len(),
            None => len >= DENSE_MIN_WRITE && !self.sparse.touches(allocation),
        };
        if replaces_all {
            self.dense.insert(allocation, Dense { data: values.clone(), set: None });
            self.patches.remove(&allocation);
        }
        replaces_all
    }

    /// [`AttrStore::set`] when `ids[i]`, where present, is slot `i` of one
    /// allocation this store holds nothing of, and `values` is missing where
    /// `ids` is: the values become its column as they are (O(1) but for one
    /// pass over the ids), the slots of missing ids unset. Whether it did.
    fn set_positional(&mut self, ids: &[Option<ItemId>], values: &SliceData) -> bool {
        if ids.len() < DENSE_MIN_WRITE || values.len() != ids.len() {
            return false;
        }
        let Some(allocation) = ids.iter().flatten().next().and_then(|id| id.allocation()) else {
            return false;
        };
        let positional = ids.iter().enumerate().all(|(i, id)| match id {
            Some(id) => id.allocation() == Some(allocation) && id.offset() == i as u64,
            None => values.get(i).is_none(),
        });
        if !positional || self.dense.contains_key(&allocation) || self.patches.contains_key(&allocation) || self.sparse.touches(allocation) {
            return false;
        }
        let mut set = BooleanBufferBuilder::new(ids.len());
        for id in ids {
            set.append(id.is_some());
        }
        self.dense.insert(allocation, Dense { data: values.clone(), set: Some(set.finish()) });
        true
    }

    /// Sets the attribute of `ids[i]` to `values[i]` for every present id.
    pub fn set(&mut self, ids: &[Option<ItemId>], values: &SliceData) {
        // One item of a dense allocation (`x.a = v` on an item): a patch,
        // without the list of present ids the general write builds.
        if let [Some(id)] = ids {
            if let Some(allocation) = id.allocation().filter(|a| self.patch_room(*a, 1)) {
                self.patch(allocation, *id, values.get(0));
                return;
            }
        }
        // Writing slots 0..len of one allocation in order (`kd.new(x=...)`,
        // `with_attrs` or `ds.x = ...` on a whole allocation) with nothing of
        // the allocation left to keep: the values become the column as is,
        // O(1) after one comparison pass over the ids.
        if let Some(allocation) = in_order_allocation(ids) {
            if self.set_whole(allocation, values) {
                return;
            }
        }
        // Slots 0..len of a new allocation where present, with gaps (the
        // clones of a slice with missing items): the values become the
        // column, the gaps unset.
        if self.set_positional(ids, values) {
            return;
        }
        let present: Vec<(usize, ItemId)> = ids.iter().enumerate().filter_map(|(i, id)| id.map(|id| (i, id))).collect();
        let Some(&(_, first)) = present.first() else {
            return;
        };
        let one_allocation = first.allocation().filter(|&a| present.iter().all(|(_, id)| id.allocation() == Some(a)));
        if let Some(allocation) = one_allocation {
            if present.len() < DENSE_MIN_WRITE && self.patch_room(allocation, present.len()) {
                for (i, id) in present {
                    self.patch(allocation, id, values.get(i));
                }
                return;
            }
            if self.dense.contains_key(&allocation) || present.len() >= DENSE_MIN_WRITE {
                self.set_dense(allocation, &present, values);
                return;
            }
        }
        for (i, id) in present {
            self.set_sparse(id, values.get(i));
        }
    }

    /// Whether dense `allocation` takes `more` patches before its patches
    /// are folded into the column (false when it has no column).
    fn patch_room(&self, allocation: u64, more: usize) -> bool {
        let Some(dense) = self.dense.get(&allocation) else { return false };
        let patched = self.patches.get(&allocation).map_or(0, Patches::len);
        patched + more <= PATCH_FOLD_MIN.max(dense.data.len() / 16)
    }

    /// Writes `id` of dense `allocation` as a patch (see the module docs).
    fn patch(&mut self, allocation: u64, id: ItemId, value: Option<ScalarRef<'_>>) {
        let patches = self.patches.entry(allocation).or_default();
        patches.end = patches.end.max(id.offset() as usize + 1);
        patches.values.insert(id.offset(), value.map(Stored::from_ref));
    }

    fn set_sparse(&mut self, id: ItemId, value: Option<ScalarRef<'_>>) {
        if let Some(allocation) = id.allocation().filter(|a| self.dense.contains_key(a)) {
            // The allocation is dense: a patch, or the column once there
            // are many.
            if self.patch_room(allocation, 1) {
                self.patch(allocation, id, value);
                return;
            }
            let mut one = SliceBuilder::new();
            one.push(value);
            self.set_dense(allocation, &[(0, id)], &one.finish());
            return;
        }
        self.sparse.insert(id, value.map(Stored::from_ref));
    }

    /// Writes into the allocation's dense column (creating it, and moving the
    /// allocation's sparse items into it, when needed).
    fn set_dense(&mut self, allocation: u64, present: &[(usize, ItemId)], values: &SliceData) {
        let max_offset = present.iter().map(|(_, id)| id.offset() as usize).max().unwrap_or(0);
        // Writing a whole new allocation in order: keep the column as is.
        if !self.dense.contains_key(&allocation)
            && present.len() == values.len()
            && present.iter().enumerate().all(|(k, (i, id))| *i == k && id.offset() as usize == k)
            && !self.sparse.touches(allocation)
        {
            self.dense.insert(allocation, Dense { data: values.clone(), set: None });
            return;
        }
        let sparse_keys: Vec<ItemId> = self.sparse.of_allocation(allocation);
        let old_len = self.dense.get(&allocation).map_or(0, |d| d.data.len());
        let (patch_end, patched) = self.patches.get(&allocation).map_or((0, 0), |p| (p.end, p.len()));
        // The column must reach every slot written and every sparse item or
        // patch it takes over.
        let len = sparse_keys.iter().map(|id| id.offset() as usize + 1).fold(old_len.max(max_offset + 1).max(patch_end), usize::max);
        if len > dense_span_limit(old_len + present.len() + sparse_keys.len() + patched) {
            // Offsets this spread out (ids decoded from untrusted input can
            // have any offset) would make a huge column: keep the
            // allocation sparse instead.
            self.make_sparse(allocation);
            for &(i, id) in present {
                self.sparse.insert(id, values.get(i).map(Stored::from_ref));
            }
            return;
        }
        let old = self.dense.remove(&allocation);
        let patches = self.patches.remove(&allocation);
        // One gather from the old column followed by the items it takes
        // (moved sparse items, folded patches, then the values written: a
        // later one wins), so that the cost is a typed pass over the column.
        let base = old.as_ref().map_or_else(|| SliceData::missing(0), |d| d.data.clone());
        let mut indices: Vec<usize> = (0..len).map(|i| if old.as_ref().is_some_and(|d| d.is_set(i)) { i } else { MISSING_INDEX }).collect();
        let mut set = BooleanBufferBuilder::new(len);
        match old.as_ref().map(|d| &d.set) {
            Some(None) => set.append_n(old_len, true),
            Some(Some(bits)) => set.append_buffer(bits),
            None => {}
        }
        set.append_n(len - set.len(), false);
        if sparse_keys.is_empty() && patches.is_none() {
            // Only the values written join the old column: one typed gather
            // from the two, with no item copied one by one.
            for &(i, id) in present {
                let offset = id.offset() as usize;
                set.set_bit(offset, true);
                indices[offset] = old_len + i;
            }
            let set = set.finish();
            let set = (set.count_set_bits() < len).then_some(set);
            let data = base.take_pair(values, &indices);
            self.dense.insert(allocation, Dense { data, set });
            return;
        }
        let mut taken = SliceBuilder::new();
        let mut next = old_len;
        let mut put = |offset: usize, value: Option<ScalarRef<'_>>| {
            set.set_bit(offset, true);
            indices[offset] = match value {
                Some(v) => {
                    taken.push(Some(v));
                    next += 1;
                    next - 1
                }
                None => MISSING_INDEX,
            };
        };
        for id in sparse_keys {
            let value = self.sparse.remove(&id).flatten();
            put(id.offset() as usize, value.as_ref().map(Stored::as_ref));
        }
        for (offset, value) in patches.iter().flat_map(|p| p.values.iter()) {
            put(*offset as usize, value.as_ref().map(Stored::as_ref));
        }
        for &(i, id) in present {
            put(id.offset() as usize, values.get(i));
        }
        let set = set.finish();
        let set = (set.count_set_bits() < len).then_some(set);
        let data = base.take_pair(&taken.finish(), &indices);
        self.dense.insert(allocation, Dense { data, set });
    }

    /// Moves the allocation's dense column, if any, into the sparse map.
    fn make_sparse(&mut self, allocation: u64) {
        let Some(dense) = self.dense.remove(&allocation) else {
            return;
        };
        // Patches hold the newer values of their items.
        for (offset, value) in self.patches.remove(&allocation).into_iter().flat_map(|p| p.values) {
            self.sparse.insert(ItemId::in_allocation(allocation, offset), value);
        }
        for offset in 0..dense.data.len() {
            if dense.is_set(offset) {
                let id = ItemId::in_allocation(allocation, offset as u64);
                self.sparse.insert_new(id, || dense.data.get(offset).map(Stored::from_ref));
            }
        }
    }

    /// Bytes held by dense columns (for the memory report).
    pub fn dense_bytes(&self) -> usize {
        self.dense.values().map(|d| d.data.columns().iter().map(|c| values_bytes(&c.values)).sum::<usize>()).sum()
    }
}

/// How a bag answers a read of a whole allocation (see
/// [`DataBag::get_attr_of_allocation`]).
// Reads and writes of whole allocations: slots 0..len of one allocation, in
// order, which is what `kd.new`/`kd.obj` create and what `ds.x` reads most
// often. They take the allocation instead of a list of ids, so neither side
// builds or scans 32 bytes per item. (DataBag methods, kept here next to the
// store they use; the bag module's private parts are visible to this child
// module.)
impl DataBag {
    /// The values of `attr` for slots 0..len of `allocation` when the layers
    /// holding `attr` store that allocation densely (one column answers, or
    /// the columns of several layers are merged by their set bits); `None`
    /// when the general [`DataBag::get_attr`] is needed.
    pub fn get_attr_of_allocation(&self, attr: &str, allocation: u64, len: usize) -> Option<SliceData> {
        let layers = self.layers();
        let blocks = dense_blocks(&layers, attr, allocation, len)?;
        if let [only] = blocks[..] {
            match only.patches {
                None if only.dense.set.is_none() && only.dense.data.len() == len => return Some(only.dense.data.clone()),
                // One layer: its unset slots are missing (no layer below
                // holds the attribute), so the patched read answers.
                Some(patches) => return Some(read_patched(only.dense, patches, &(0..len).collect::<Vec<_>>()).data),
                None => {}
            }
        }
        if let Some(merged) = self.merged_column(attr, allocation, &blocks) {
            return Some(if merged.len() == len { merged } else { merged.take(&prefix_offsets(len, merged.len())) });
        }
        let owned: Vec<std::borrow::Cow<'_, Dense>> = blocks.iter().map(Block::materialized).collect();
        let plain: Vec<&Dense> = owned.iter().map(|b| b.as_ref()).collect();
        if let Some(data) = overlay(&plain, len) {
            return Some(data);
        }
        let offsets: Vec<usize> = (0..len).collect();
        Some(pick_from_blocks(&blocks, &offsets))
    }

    /// The column of `attr` over the whole of `allocation` merged from
    /// `blocks`, kept for later reads, when this bag is frozen (nothing it
    /// reads changes) and the blocks' type allows the typed merge.
    fn merged_column(&self, attr: &str, allocation: u64, blocks: &[Block<'_>]) -> Option<SliceData> {
        if !self.0.frozen || blocks.len() < 2 {
            return None;
        }
        let mut cache = self.0.merged_columns.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(data) = cache.get(&(Arc::from(attr), allocation)) {
            return Some(data.clone());
        }
        let owned: Vec<std::borrow::Cow<'_, Dense>> = blocks.iter().map(Block::materialized).collect();
        let plain: Vec<&Dense> = owned.iter().map(|b| b.as_ref()).collect();
        let len = plain.iter().map(|b| b.data.len()).max().unwrap_or(0);
        let data = overlay(&plain, len)?;
        cache.insert((Arc::from(attr), allocation), data.clone());
        Some(data)
    }

    /// The values of `attr` for items of one allocation at `offsets`
    /// (`MISSING_INDEX` for a missing item), when the layers holding `attr`
    /// store that allocation densely; `None` when the general read is needed.
    pub(super) fn get_attr_at_offsets(&self, layers: &[Arc<Store>], attr: &str, allocation: u64, offsets: &[usize]) -> Option<SliceData> {
        let blocks = dense_blocks(layers, attr, allocation, usize::MAX)?;
        if let Some(merged) = self.merged_column(attr, allocation, &blocks) {
            let n = merged.len();
            let offsets: Vec<usize> = offsets.iter().map(|&o| if o < n { o } else { MISSING_INDEX }).collect();
            return Some(merged.take(&offsets));
        }
        Some(pick_from_blocks(&blocks, offsets))
    }

    /// What this bag reads of `attr` over slots 0..len of `allocation`, for
    /// copying it out whole (`kd.extract` of what `kd.new` made): one layer's
    /// column, shared, when it alone holds all of it.
    pub fn attr_column_of_allocation(&self, attr: &str, allocation: u64, len: usize) -> AllocationColumn {
        let mut found: Option<&Dense> = None;
        let layers = self.layers();
        for layer in layers.iter() {
            let Some(values) = layer.attrs.get(attr) else { continue };
            if values.touches_sparsely(allocation) {
                return AllocationColumn::Mixed;
            }
            let Some(dense) = values.dense.get(&allocation) else { continue };
            if found.is_some() {
                return AllocationColumn::Mixed;
            }
            found = Some(dense);
            if dense.set.is_none() && dense.data.len() >= len {
                break; // nothing below is read
            }
        }
        match found {
            None => AllocationColumn::Unset,
            Some(dense) if dense.data.len() == len => AllocationColumn::Column { data: dense.data.clone(), set: dense.set.clone() },
            Some(_) => AllocationColumn::Mixed,
        }
    }

    /// Sets `attr` of slots 0..values.len() of `allocation` to `values`, in
    /// place (the bag must be mutable).
    pub fn set_attr_of_allocation(&self, op: &str, attr: &str, allocation: u64, values: &SliceData) -> Result<()> {
        self.write(op, |store| set_of_allocation(store, attr, allocation, values))
    }
}

impl BagWriter<'_> {
    /// Stores `data` as the column of `attr` over slots 0..data.len() of
    /// `allocation`, set where `set` says (`None`: all), as it is (shared),
    /// when nothing of the allocation is stored for `attr` yet; false, with
    /// nothing written, otherwise.
    pub fn set_attr_column(&mut self, attr: &str, allocation: u64, data: &SliceData, set: Option<&BooleanBuffer>) -> bool {
        let values = Arc::make_mut(self.store.attrs.values_mut(attr));
        if values.dense.contains_key(&allocation) || values.touches_sparsely(allocation) {
            return false;
        }
        values.dense.insert(allocation, Dense { data: data.clone(), set: set.cloned() });
        true
    }

    /// Sets `attr` of slots 0..values.len() of `allocation` to `values`.
    pub fn set_attr_of_allocation(&mut self, attr: &str, allocation: u64, values: &SliceData) {
        set_of_allocation(self.store, attr, allocation, values)
    }
}

fn set_of_allocation(store: &mut Store, attr: &str, allocation: u64, values: &SliceData) {
    let values_of_attr = Arc::make_mut(store.attr_mut(attr));
    if !values_of_attr.set_whole(allocation, values) {
        let ids = allocation_ids(allocation, values.len());
        values_of_attr.set(&ids, values);
    }
}

/// Slots 0..len of `allocation` as ids (`allocation` is an id's high half).
fn allocation_ids(allocation: u64, len: usize) -> Vec<Option<ItemId>> {
    let base = (allocation as u128) << 64;
    (0..len as u128).map(|k| Some(ItemId(base | k))).collect()
}

/// The allocation of `ids` when they are exactly slots 0..len of one
/// allocation, in order (all present). Compares raw bits: slot `i` must hold
/// the first id plus `i`; blocks of 64 without early exit let the loop
/// vectorize.
pub(super) fn in_order_allocation(ids: &[Option<ItemId>]) -> Option<u64> {
    let first = (*ids.first()?)?;
    let allocation = first.allocation().filter(|_| first.offset() == 0)?;
    let base = first.0;
    let mut start = 0u128;
    for block in ids.chunks(64) {
        let ok = block.iter().zip(start..).fold(true, |ok, (id, k)| ok & matches!(id, Some(id) if id.0 == base.wrapping_add(k)));
        if !ok {
            return None;
        }
        start += block.len() as u128;
    }
    Some(allocation)
}

fn values_bytes(values: &Values) -> usize {
    match values {
        Values::Int32(v) => v.len() * 4,
        Values::Int64(v) => v.len() * 8,
        Values::Float32(v) => v.len() * 4,
        Values::Float64(v) => v.len() * 8,
        Values::Boolean(v) => v.len() / 8,
        Values::Mask(_) => 0,
        Values::Bytes(v) | Values::String(v) => v.data.len() + v.offsets.len() * 8,
        Values::Schema(v) => v.len() * std::mem::size_of::<Schema>(),
        Values::ItemId(v) => v.len() * 16,
        Values::Expr(v) => v.len() * std::mem::size_of::<Quoted>(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::itemid::{ItemKind, allocate};

    fn ints(values: impl IntoIterator<Item = Option<i32>>) -> SliceData {
        let mut b = SliceBuilder::new();
        for v in values {
            b.push(v.map(ScalarRef::Int32));
        }
        b.finish()
    }

    fn as_ids(ids: &[ItemId]) -> Vec<Option<ItemId>> {
        ids.iter().copied().map(Some).collect()
    }

    #[test]
    fn whole_allocations_are_stored_and_read_as_one_column() {
        let (_, ids) = allocate(ItemKind::Object, 40);
        let allocation = ids[0].allocation().unwrap();
        let bag = DataBag::new_mutable();
        bag.set_attr_of_allocation("op", "x", allocation, &ints((0..40).map(Some))).unwrap();
        let got = bag.get_attr_of_allocation("x", allocation, 40).expect("one dense column");
        assert_eq!(got.get(39), Some(ScalarRef::Int32(39)));
        // A shorter read takes the first slots; an unknown attribute is left
        // to the general read.
        let first = bag.get_attr_of_allocation("x", allocation, 20).expect("slots 0..20");
        assert_eq!((first.len(), first.get(19)), (20, Some(ScalarRef::Int32(19))));
        assert!(bag.get_attr_of_allocation("y", allocation, 40).is_none());
        // Written through a list of ids in order: the same fast layout.
        bag.set_attr("op", "y", &as_ids(&ids), &ints((0..40).map(|v| Some(-v)))).unwrap();
        assert_eq!(bag.get_attr_of_allocation("y", allocation, 40).unwrap().get(3), Some(ScalarRef::Int32(-3)));
        // A partial write keeps the other slots; the read is no longer whole.
        bag.set_attr("op", "x", &as_ids(&ids[5..7]), &ints([None, Some(100)])).unwrap();
        let got = bag.get_attr("x", &as_ids(&ids));
        assert_eq!(
            (got.get(4), got.get(5), got.get(6), got.get(7)),
            (Some(ScalarRef::Int32(4)), None, Some(ScalarRef::Int32(100)), Some(ScalarRef::Int32(7)))
        );
        // A shorter whole write onto a longer column merges into it.
        bag.set_attr_of_allocation("op", "x", allocation, &ints((0..20).map(|_| Some(1)))).unwrap();
        let got = bag.get_attr("x", &as_ids(&ids));
        assert_eq!((got.get(19), got.get(20)), (Some(ScalarRef::Int32(1)), Some(ScalarRef::Int32(20))));
        assert!(bag.fork(false).set_attr_of_allocation("op", "x", allocation, &ints([Some(1)])).is_err());
    }

    #[test]
    fn a_column_merged_beside_items_of_other_allocations_stays_whole() {
        // A schema's attribute is stored item by item; entities with an
        // attribute of the same name merged in keep their column (reads of
        // it are one column, not a lookup per item).
        let (_, schema) = allocate(ItemKind::Schema, 1);
        let (_, ids) = allocate(ItemKind::Object, 100);
        let allocation = ids[0].allocation().unwrap();
        let mut mine = AttrStore::default();
        mine.set(&[Some(schema[0])], &ints([Some(1)]));
        let mut theirs = AttrStore::default();
        theirs.set(&as_ids(&ids), &ints((0..100).map(Some)));
        mine.merge_missing_from(&theirs);
        assert!(mine.dense.contains_key(&allocation) && !mine.sparse.touches(allocation));
        assert_eq!((mine.get_one(ids[99]), mine.get_one(schema[0])), (Some(Some(ScalarRef::Int32(99))), Some(Some(ScalarRef::Int32(1)))));
        // Items of the allocation stored one by one here: merged item by
        // item, this store's values kept.
        let mut one = AttrStore::default();
        let few: Vec<Option<ItemId>> = vec![Some(ids[3])];
        one.set(&few, &ints([Some(-3)]));
        one.merge_missing_from(&theirs);
        assert_eq!((one.get_one(ids[3]), one.get_one(ids[4])), (Some(Some(ScalarRef::Int32(-3))), Some(Some(ScalarRef::Int32(4)))));
    }

    #[test]
    fn single_writes_into_a_dense_column_are_patches_until_folded() {
        let n = 5000;
        let (_, ids) = allocate(ItemKind::Object, n);
        let allocation = ids[0].allocation().unwrap();
        let bag = DataBag::new_mutable();
        bag.set_attr_of_allocation("op", "a", allocation, &ints((0..n as i32).map(Some))).unwrap();
        let frozen = bag.fork(false);
        // One write: a patch, seen by every kind of read.
        bag.set_attr("op", "a", &[Some(ids[7])], &ints([Some(-7)])).unwrap();
        bag.set_attr("op", "a", &[Some(ids[8])], &ints([None])).unwrap();
        let whole = bag.get_attr_of_allocation("a", allocation, n).expect("dense with patches");
        assert_eq!(
            (whole.get(6), whole.get(7), whole.get(8), whole.get(9)),
            (Some(ScalarRef::Int32(6)), Some(ScalarRef::Int32(-7)), None, Some(ScalarRef::Int32(9)))
        );
        let some = bag.get_attr("a", &[Some(ids[8]), Some(ids[7]), Some(ids[1])]);
        assert_eq!((some.get(0), some.get(1), some.get(2)), (None, Some(ScalarRef::Int32(-7)), Some(ScalarRef::Int32(1))));
        assert_eq!(bag.get_one("a", ids[7]), Some(Stored::Int32(-7)));
        let store = bag.read();
        let a = &store.attrs["a"];
        assert_eq!((a.set_items().len(), a.value_count()), (n, n - 1));
        // The frozen copy from before is unchanged.
        assert_eq!(frozen.get_one("a", ids[7]), Some(Stored::Int32(7)));
        // Many writes fold into the column; values stay right.
        for (i, id) in ids.iter().enumerate().take(2000) {
            bag.set_attr("op", "a", &[Some(*id)], &ints([Some(10_000 + i as i32)])).unwrap();
        }
        assert!(bag.read().attrs["a"].patches.get(&allocation).map_or(0, Patches::len) <= PATCH_FOLD_MIN);
        let whole = bag.get_attr_of_allocation("a", allocation, n).unwrap();
        assert_eq!(
            (whole.get(0), whole.get(1999), whole.get(2000)),
            (Some(ScalarRef::Int32(10_000)), Some(ScalarRef::Int32(11_999)), Some(ScalarRef::Int32(2000)))
        );
        // A whole write replaces the patches too.
        bag.set_attr_of_allocation("op", "a", allocation, &ints((0..n as i32).map(|_| Some(1)))).unwrap();
        assert_eq!(bag.get_one("a", ids[7]), Some(Stored::Int32(1)));
    }

    #[test]
    fn layers_of_partial_updates_merge_by_their_set_slots() {
        let (_, ids) = allocate(ItemKind::Object, 400);
        let allocation = ids[0].allocation().unwrap();
        let base = DataBag::new_mutable();
        base.set_attr_of_allocation("op", "a", allocation, &ints((0..400).map(Some))).unwrap();
        // Ten layers, layer k setting every tenth slot from k (dense writes of
        // 40 slots; one slot set to missing).
        let mut bag = base.fork(false);
        for k in 0..10usize {
            let update = DataBag::new_mutable();
            let part: Vec<Option<ItemId>> = (k..400).step_by(10).map(|i| Some(ids[i])).collect();
            let values: Vec<Option<i32>> = (k..400).step_by(10).map(|i| if i == 33 { None } else { Some(1000 + i as i32) }).collect();
            update.set_attr("op", "a", &part, &ints(values)).unwrap();
            bag = DataBag::updated(&bag, &[update.fork(false)]);
        }
        let whole = bag.get_attr_of_allocation("a", allocation, 400).expect("dense layers");
        let some = bag.get_attr("a", &[Some(ids[3]), None, Some(ids[33]), Some(ids[99])]);
        for i in 0..400 {
            let expected = if i == 33 { None } else { Some(ScalarRef::Int32(1000 + i as i32)) };
            assert_eq!(whole.get(i), expected, "slot {i}");
        }
        assert_eq!((some.get(0), some.get(1), some.get(2), some.get(3)), (Some(ScalarRef::Int32(1003)), None, None, Some(ScalarRef::Int32(1099))));
    }

    #[test]
    fn whole_reads_look_through_fallbacks_only_where_the_bag_says_nothing() {
        let (_, ids) = allocate(ItemKind::Object, 30);
        let allocation = ids[0].allocation().unwrap();
        let base = DataBag::new_mutable();
        base.set_attr_of_allocation("op", "x", allocation, &ints((0..30).map(Some))).unwrap();
        let top = DataBag::new_mutable();
        top.set_attr_of_allocation("op", "y", allocation, &ints((0..30).map(Some))).unwrap();
        let layered = DataBag::with_fallbacks(vec![top.clone(), base.clone()]);
        assert_eq!(layered.get_attr_of_allocation("x", allocation, 30).unwrap().get(2), Some(ScalarRef::Int32(2)));
        // `top` has a value of `x` for one item: the general read must merge.
        top.set_attr("op", "x", &as_ids(&ids[..1]), &ints([Some(-1)])).unwrap();
        assert!(layered.get_attr_of_allocation("x", allocation, 30).is_none());
        let got = layered.get_attr("x", &as_ids(&ids));
        assert_eq!((got.get(0), got.get(1)), (Some(ScalarRef::Int32(-1)), Some(ScalarRef::Int32(1))));
    }

    #[test]
    fn small_allocations_stay_sparse_and_readable() {
        let (_, ids) = allocate(ItemKind::Object, 3);
        let allocation = ids[0].allocation().unwrap();
        let bag = DataBag::new_mutable();
        bag.set_attr_of_allocation("op", "x", allocation, &ints([Some(1), None, Some(3)])).unwrap();
        assert!(bag.get_attr_of_allocation("x", allocation, 3).is_none());
        let got = bag.get_attr("x", &as_ids(&ids));
        assert_eq!((got.get(0), got.get(1), got.get(2)), (Some(ScalarRef::Int32(1)), None, Some(ScalarRef::Int32(3))));
    }
}

#[cfg(test)]
mod far_offset_tests {
    use super::*;

    fn ints(n: usize) -> SliceData {
        let mut b = SliceBuilder::new();
        for i in 0..n {
            b.push(Some(ScalarRef::Int32(i as i32)));
        }
        b.finish()
    }

    #[test]
    fn far_offsets_stay_sparse_and_keep_the_column_values() {
        let allocation = 7u64;
        let mut store = AttrStore::default();
        let ids: Vec<Option<ItemId>> = (0..32).map(|k| Some(ItemId::in_allocation(allocation, k))).collect();
        store.set(&ids, &ints(32));
        // 16 ids, one at offset 2^50: no 2^50-slot column.
        let mut far: Vec<Option<ItemId>> = (40..55).map(|k| Some(ItemId::in_allocation(allocation, k))).collect();
        far.push(Some(ItemId::in_allocation(allocation, 1 << 50)));
        store.set(&far, &ints(16));
        assert!(store.dense.is_empty());
        assert_eq!(store.get_one(ItemId::in_allocation(allocation, 3)), Some(Some(ScalarRef::Int32(3))));
        assert_eq!(store.get_one(ItemId::in_allocation(allocation, 1 << 50)), Some(Some(ScalarRef::Int32(15))));
    }
}

/// Slots 0..len of a column of `have` slots (missing past its end).
fn prefix_offsets(len: usize, have: usize) -> Vec<usize> {
    (0..len).map(|i| if i < have { i } else { MISSING_INDEX }).collect()
}

/// One layer's dense column of an allocation, with the patches over it.
#[derive(Clone, Copy)]
struct Block<'a> {
    dense: &'a Dense,
    patches: Option<&'a Patches>,
}

impl Block<'_> {
    /// The column with its patches folded in (for merges of whole columns).
    fn materialized(&self) -> std::borrow::Cow<'_, Dense> {
        let Some(patches) = self.patches else { return std::borrow::Cow::Borrowed(self.dense) };
        let len = self.dense.data.len().max(patches.end);
        let lookup = read_patched(self.dense, patches, &(0..len).collect::<Vec<_>>());
        let set = (!lookup.unset.is_empty()).then(|| {
            let mut bits = BooleanBufferBuilder::new(len);
            bits.append_n(len, true);
            lookup.unset.iter().for_each(|&i| bits.set_bit(i, false));
            bits.finish()
        });
        std::borrow::Cow::Owned(Dense { data: lookup.data, set })
    }
}

/// The dense blocks of `allocation` in the layers holding `attr`, first
/// layer first, down to one that sets slots 0..len all; `None` when a layer
/// stores an item of the allocation sparsely (or patched past its column),
/// or none holds the attribute.
fn dense_blocks<'a>(layers: &'a [Arc<Store>], attr: &str, allocation: u64, len: usize) -> Option<Vec<Block<'a>>> {
    let mut blocks: Vec<Block<'a>> = Vec::new();
    for layer in layers {
        let Some(values) = layer.attrs.get(attr) else { continue };
        if values.sparse.touches(allocation) {
            return None;
        }
        let Some(dense) = values.dense.get(&allocation) else { continue };
        let patches = if values.patches.is_empty() { None } else { values.patches.get(&allocation) };
        if patches.is_some_and(|p| p.end > dense.data.len()) {
            return None;
        }
        blocks.push(Block { dense, patches });
        if patches.is_none() && dense.set.is_none() && dense.data.len() >= len {
            break; // nothing below is read
        }
    }
    (!blocks.is_empty()).then_some(blocks)
}

/// The value at each of `offsets` from the first block that has it set.
/// With patches, fewer offsets than patches are read one by one; more in
/// one gather whose sources are the columns, then each block's patched
/// values read.
fn pick_from_blocks(blocks: &[Block<'_>], offsets: &[usize]) -> SliceData {
    let patched: usize = blocks.iter().filter_map(|b| b.patches).map(Patches::len).sum();
    if patched > 0 && offsets.len() < patched {
        let mut builder = SliceBuilder::with_capacity(offsets.len());
        for &offset in offsets {
            let value = (offset != MISSING_INDEX)
                .then(|| {
                    blocks.iter().find_map(|b| match b.patches.and_then(|p| p.get(offset)) {
                        Some(patch) => Some(patch.as_ref().map(Stored::as_ref)),
                        None => b.dense.is_set(offset).then(|| b.dense.data.get(offset)),
                    })
                })
                .flatten()
                .flatten();
            builder.push(value);
        }
        return builder.finish();
    }
    let indexes: Vec<Option<PatchIndex<'_>>> = blocks.iter().map(|b| b.patches.map(|p| PatchIndex::new(p, b.dense.data.len()))).collect();
    let mut taken: Vec<SliceBuilder> = blocks.iter().map(|_| SliceBuilder::new()).collect();
    let mut counts = vec![0usize; blocks.len()];
    let picks: Vec<(usize, usize)> = offsets
        .iter()
        .map(|&offset| {
            if offset == MISSING_INDEX {
                return (0, MISSING_INDEX);
            }
            for (k, block) in blocks.iter().enumerate() {
                if let Some(patch) = indexes[k].as_ref().and_then(|ix| ix.get(offset)) {
                    let Some(value) = patch else { return (0, MISSING_INDEX) };
                    taken[k].push(Some(value.as_ref()));
                    counts[k] += 1;
                    return (blocks.len() + k, counts[k] - 1);
                }
                if block.dense.is_set(offset) {
                    return (k, offset);
                }
            }
            (0, MISSING_INDEX)
        })
        .collect();
    let taken: Vec<SliceData> = taken.into_iter().map(SliceBuilder::finish).collect();
    let sources: Vec<&SliceData> = blocks.iter().map(|b| &b.dense.data).chain(taken.iter()).collect();
    super::list_store::gather(&sources, &picks)
}

/// Slots 0..len from `blocks` (first block wins where it is set), when every
/// block is one column of the same fixed-width type or all missing: each
/// block, lowest first, is copied over the result where it is set, so the
/// cost is the items the blocks hold, with no per-slot search.
fn overlay(blocks: &[&Dense], len: usize) -> Option<SliceData> {
    use arrow_buffer::{ArrowNativeType, NullBuffer, ScalarBuffer};

    use crate::column::Column;

    let columns: Vec<Option<&Column>> = blocks.iter().map(|b| if b.data.present_count() == 0 { None } else { b.data.single_column() }).collect();
    if blocks.iter().zip(&columns).any(|(b, c)| c.is_none() && b.data.present_count() > 0) {
        return None;
    }
    let first = (*columns.iter().flatten().next()?).clone();
    fn fill<T: ArrowNativeType>(
        blocks: &[&Dense],
        columns: &[Option<&Column>],
        bufs: &[Option<&ScalarBuffer<T>>],
        len: usize,
    ) -> (ScalarBuffer<T>, BooleanBuffer) {
        let mut out = vec![T::default(); len];
        let mut present = BooleanBufferBuilder::new(len);
        present.append_n(len, false);
        for k in (0..blocks.len()).rev() {
            let n = blocks[k].data.len().min(len);
            let mut put = |i: usize| {
                if let (Some(v), Some(c)) = (bufs[k], columns[k]) {
                    out[i] = v[i];
                    present.set_bit(i, c.is_present(i));
                } else {
                    present.set_bit(i, false);
                }
            };
            match &blocks[k].set {
                None => (0..n).for_each(&mut put),
                Some(set) => set.set_indices().take_while(|&i| i < n).for_each(&mut put),
            }
        }
        (ScalarBuffer::from(out), present.finish())
    }
    macro_rules! typed {
        ($variant:ident, $wrap:expr) => {{
            let bufs: Vec<Option<&ScalarBuffer<_>>> = columns
                .iter()
                .map(|c| match c {
                    None => Ok(None),
                    Some(Column { values: Values::$variant(v), .. }) => Ok(Some(v)),
                    Some(_) => Err(()),
                })
                .collect::<std::result::Result<_, ()>>()
                .ok()?;
            let (values, present) = fill(blocks, &columns, &bufs, len);
            ($wrap(values), present)
        }};
    }
    let (values, present) = match &first.values {
        Values::Int32(_) => typed!(Int32, Values::Int32),
        Values::Int64(_) => typed!(Int64, Values::Int64),
        Values::Float32(_) => typed!(Float32, Values::Float32),
        Values::Float64(_) => typed!(Float64, Values::Float64),
        _ => return None,
    };
    let presence = (present.count_set_bits() < len).then(|| NullBuffer::new(present));
    Some(SliceData::from_column(Column::new(values, presence)))
}
