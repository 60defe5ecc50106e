//! The entries of every dict of a bag, keyed by the dict's ItemId.
//!
//! Dicts made together are rows of one `DictColumns` (see
//! `dict_columns.rs`). Any other dict, and one of those once changed, is an
//! open-addressing hash table of its own ([`DictMap`]) whose slots (one
//! cache line each) hold the key's hash, the key, the value and the entry's insertion
//! rank: a lookup touches one slot, and batch lookups prefetch the slots of
//! the next keys while probing the current ones. `get_keys` lists keys in the
//! order they were first set (Koda's order is its hash order). A key set to
//! missing stays in the dict (`Dict{'a'=None}`), as in Koda. A bag with
//! fallbacks holds, per layer, only the entries written there: a read takes
//! each key from the first layer that has it.
//!
//! Keys are compared as Koda compares them: INT32 and INT64 by value (the key
//! keeps the type it was first stored with), everything else by type and
//! value. Float keys are refused before they get here.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::Arc;

use super::Stored;
use super::dict_columns::DictColumns;
use crate::column::{ScalarRef, SliceBuilder, SliceData};
use crate::itemid::ItemId;

type FastHash = foldhash::fast::RandomState;

/// The hash of dict keys: fixed, so that a batch can hash before it knows
/// which layer's table answers.
const KEY_HASH: foldhash::fast::FixedState = foldhash::fast::FixedState::with_seed(0x243f_6a88_85a3_08d3);

/// The hash of a key as dict slots store it (never 0, which marks an empty slot).
#[inline]
pub fn key_hash(key: ScalarRef<'_>) -> u64 {
    let mut h = KEY_HASH.build_hasher();
    hash_scalar(key, &mut h);
    h.finish() | 1
}

/// A key to look up, borrowed from a column.
#[derive(Clone, Copy, Debug)]
pub struct KeyRef<'a>(pub ScalarRef<'a>);

/// One hash for a stored or borrowed key; INT32 and INT64 hash alike.
#[inline]
fn hash_scalar<H: Hasher>(key: ScalarRef<'_>, state: &mut H) {
    match key {
        ScalarRef::Int32(v) => (0u8, v as i64).hash(state),
        ScalarRef::Int64(v) => (0u8, v).hash(state),
        ScalarRef::Boolean(v) => (1u8, v).hash(state),
        ScalarRef::Mask => 2u8.hash(state),
        ScalarRef::Bytes(v) => (3u8, v).hash(state),
        ScalarRef::String(v) => (4u8, v).hash(state),
        ScalarRef::Schema(v) => (5u8, v).hash(state),
        ScalarRef::ItemId(v) => (6u8, v.0).hash(state),
        ScalarRef::Float32(v) => (7u8, v.to_bits()).hash(state),
        ScalarRef::Float64(v) => (8u8, v.to_bits()).hash(state),
        ScalarRef::Expr(v) => (9u8, v.fingerprint()).hash(state),
    }
}

pub(super) fn same_key(a: ScalarRef<'_>, b: ScalarRef<'_>) -> bool {
    use ScalarRef::*;
    match (a, b) {
        (Int32(x), Int32(y)) => x == y,
        (Int64(x), Int64(y)) => x == y,
        (Int32(x), Int64(y)) | (Int64(y), Int32(x)) => x as i64 == y,
        (Float32(x), Float32(y)) => x.to_bits() == y.to_bits(),
        (Float64(x), Float64(y)) => x.to_bits() == y.to_bits(),
        (x, y) => x == y,
    }
}

impl Hash for KeyRef<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        hash_scalar(self.0, state)
    }
}

impl PartialEq for KeyRef<'_> {
    fn eq(&self, other: &KeyRef<'_>) -> bool {
        same_key(self.0, other.0)
    }
}

impl Eq for KeyRef<'_> {}

/// One entry of a dict's table; `hash == 0` marks an empty slot.
#[derive(Clone, Debug)]
#[repr(C)]
struct Slot {
    hash: u64,
    key: Stored,
    value: Option<Stored>,
    rank: u32,
}

const EMPTY_SLOT: Slot = Slot { hash: 0, key: Stored::Mask, value: None, rank: 0 };

/// The entries of one dict (in one layer): a linear-probing table kept at
/// most half full.
#[derive(Clone, Debug, Default)]
pub struct DictMap {
    slots: Vec<Slot>,
    len: usize,
}

impl DictMap {
    /// `Some(value)` when the key is in the dict (the value may be missing).
    pub fn get(&self, key: ScalarRef<'_>) -> Option<Option<ScalarRef<'_>>> {
        self.get_hashed(key, key_hash(key))
    }

    /// [`Self::get`] with the key's [`key_hash`] already computed.
    pub fn get_hashed(&self, key: ScalarRef<'_>, hash: u64) -> Option<Option<ScalarRef<'_>>> {
        self.position(key, hash).ok().map(|i| self.slots[i].value.as_ref().map(Stored::as_ref))
    }

    /// Asks the CPU to start loading the slot where `hash` starts probing.
    pub fn prefetch(&self, hash: u64) {
        if self.slots.is_empty() {
            return;
        }
        let slot = &self.slots[hash as usize & (self.slots.len() - 1)];
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a prefetch is a hint; it reads nothing and cannot fault
        // (even past the end of the table). The next slot is asked for too:
        // about half the probes of a half-full linear-probing table go on to it.
        unsafe {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let first = (slot as *const Slot).cast::<i8>();
            _mm_prefetch::<{ _MM_HINT_T0 }>(first);
            _mm_prefetch::<{ _MM_HINT_T0 }>(first.wrapping_add(std::mem::size_of::<Slot>()));
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = slot;
    }

    /// `Ok(slot)` of `key`, or `Err(slot)` where it would go.
    fn position(&self, key: ScalarRef<'_>, hash: u64) -> Result<usize, usize> {
        if self.slots.is_empty() {
            return Err(0);
        }
        let mask = self.slots.len() - 1;
        let mut i = hash as usize & mask;
        loop {
            let slot = &self.slots[i];
            if slot.hash == 0 {
                return Err(i);
            }
            if slot.hash == hash && same_key(slot.key.as_ref(), key) {
                return Ok(i);
            }
            i = (i + 1) & mask;
        }
    }

    /// Sets `key` to `value`; a key already present keeps its place and type.
    pub fn set(&mut self, key: ScalarRef<'_>, value: Option<ScalarRef<'_>>) {
        let value = value.map(Stored::from_ref);
        let hash = key_hash(key);
        match self.position(key, hash) {
            Ok(i) => self.slots[i].value = value,
            Err(_) => {
                if (self.len + 1) * 2 > self.slots.len() {
                    self.grow();
                }
                let i = self.position(key, hash).expect_err("the key is new");
                self.slots[i] = Slot { hash, key: Stored::from_ref(key), value, rank: self.len as u32 };
                self.len += 1;
            }
        }
    }

    /// Makes room for `additional` more entries without growing on the way.
    pub fn reserve(&mut self, additional: usize) {
        let wanted = ((self.len + additional) * 2).next_power_of_two();
        if wanted > self.slots.len() {
            self.resize(wanted);
        }
    }

    /// Doubles the table (at least 8 slots).
    fn grow(&mut self) {
        self.resize((self.slots.len() * 2).max(8));
    }

    /// A table of `capacity` slots with every entry re-placed.
    fn resize(&mut self, capacity: usize) {
        // Huge pages for large tables: random probes then miss the TLB far
        // less often, and prefetches are not dropped on a page walk.
        let mut slots = crate::alloc::output_vec(capacity);
        slots.resize(capacity, EMPTY_SLOT);
        let old = std::mem::replace(&mut self.slots, slots);
        let mask = capacity - 1;
        for slot in old.into_iter().filter(|s| s.hash != 0) {
            let mut i = slot.hash as usize & mask;
            while self.slots[i].hash != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = slot;
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The entries in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = (ScalarRef<'_>, Option<ScalarRef<'_>>)> {
        let mut entries: Vec<&Slot> = self.slots.iter().filter(|s| s.hash != 0).collect();
        entries.sort_unstable_by_key(|s| s.rank);
        entries.into_iter().map(|s| (s.key.as_ref(), s.value.as_ref().map(Stored::as_ref)))
    }

    /// Whether `key` is in the dict.
    pub fn contains(&self, key: ScalarRef<'_>) -> bool {
        self.position(key, key_hash(key)).is_ok()
    }
}

/// One dict, wherever it is stored: a table of its own or a row of dicts
/// stored as columns.
#[derive(Clone, Copy, Debug)]
pub enum DictRef<'a> {
    Map(&'a DictMap),
    Row(&'a DictColumns, usize),
}

impl<'a> DictRef<'a> {
    /// `Some(value)` when the key is in the dict (the value may be missing).
    pub fn get(self, key: ScalarRef<'_>) -> Option<Option<ScalarRef<'a>>> {
        self.get_hashed(key, key_hash(key))
    }

    /// [`Self::get`] with the key's [`key_hash`] already computed.
    pub fn get_hashed(self, key: ScalarRef<'_>, hash: u64) -> Option<Option<ScalarRef<'a>>> {
        match self {
            DictRef::Map(map) => map.get_hashed(key, hash),
            DictRef::Row(columns, row) => columns.get_hashed(row, key, hash),
        }
    }

    /// Asks the CPU to start loading where `hash` is looked up.
    pub fn prefetch(self, hash: u64) {
        match self {
            DictRef::Map(map) => map.prefetch(hash),
            DictRef::Row(columns, row) => columns.prefetch(row, hash),
        }
    }

    /// After [`Self::prefetch`]: asks the CPU to start loading the key the
    /// lookup of `hash` compares first (a table's slots hold their keys).
    pub fn prefetch_candidate(self, hash: u64) {
        if let DictRef::Row(columns, row) = self {
            columns.prefetch_candidate(row, hash)
        }
    }

    pub fn len(self) -> usize {
        match self {
            DictRef::Map(map) => map.len(),
            DictRef::Row(columns, row) => columns.row(row).len(),
        }
    }

    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// Whether `key` is in the dict.
    pub fn contains(self, key: ScalarRef<'_>) -> bool {
        self.get(key).is_some()
    }

    /// The entries in the order their keys were first set.
    pub fn entries(self) -> Entries<'a> {
        match self {
            DictRef::Map(map) => Entries::Map(Box::new(map.iter())),
            DictRef::Row(columns, row) => Entries::Row(columns, columns.row(row)),
        }
    }
}

/// The entries of a [`DictRef`].
pub enum Entries<'a> {
    Map(Box<dyn Iterator<Item = (ScalarRef<'a>, Option<ScalarRef<'a>>)> + 'a>),
    Row(&'a DictColumns, std::ops::Range<usize>),
}

impl<'a> Iterator for Entries<'a> {
    type Item = (ScalarRef<'a>, Option<ScalarRef<'a>>);

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Entries::Map(entries) => entries.next(),
            Entries::Row(columns, range) => range.next().map(|entry| columns.entry(entry)),
        }
    }
}

/// The dicts of one allocation made together: their columns, shared by
/// forks, and the dicts changed since (each copied to a table of its own).
#[derive(Clone, Debug)]
struct DenseBlock {
    columns: Arc<DictColumns>,
    changed: HashMap<u64, Arc<DictMap>, FastHash>,
}

/// All dicts of one bag (without its fallbacks). Dicts created together
/// (`kd.dict_shaped`, `kd.dict` of a slice) are stored as columns, one
/// block per allocation, so finding a dict is an index, not a hash lookup;
/// other dicts are stored by id.
#[derive(Clone, Debug, Default)]
pub struct DictStore {
    dense: HashMap<u64, DenseBlock, FastHash>,
    sparse: HashMap<ItemId, Arc<DictMap>, FastHash>,
}

impl DictStore {
    pub fn get(&self, id: ItemId) -> Option<DictRef<'_>> {
        if let Some(block) = id.allocation().and_then(|a| self.dense.get(&a)) {
            let offset = id.offset();
            if (offset as usize) < block.columns.len() {
                if let Some(changed) = block.changed.get(&offset) {
                    return Some(DictRef::Map(changed));
                }
                return Some(DictRef::Row(&block.columns, offset as usize));
            }
        }
        self.sparse.get(&id).map(|d| DictRef::Map(d))
    }

    /// The dict `id`, created empty when new, ready to change (copied first
    /// when a fork still shares it, or to a table of its own when it is a
    /// row of columns).
    pub fn get_mut(&mut self, id: ItemId) -> &mut DictMap {
        if let Some(block) = id.allocation().and_then(|a| self.dense.get_mut(&a)) {
            let offset = id.offset();
            if (offset as usize) < block.columns.len() {
                let columns = &block.columns;
                let changed = block.changed.entry(offset).or_insert_with(|| Arc::new(columns.to_map(offset as usize)));
                return Arc::make_mut(changed);
            }
        }
        Arc::make_mut(self.sparse.entry(id).or_default())
    }

    /// Sets `keys[j]` of dict `ids[j]` to `values[j]` by building the
    /// columns of their block again (or a block of the writes alone, where
    /// this layer holds none of the allocation's dicts), when they are dicts
    /// of one allocation and touch at least an eighth of its rows (every
    /// dict of a forked bag updated at once, `with_dict_update` of dicts made
    /// together): one pass instead of a table of its own for each dict
    /// changed. False, with nothing changed, otherwise.
    pub fn set_entries_of_block(&mut self, ids: &[Option<ItemId>], keys: &SliceData, values: &SliceData) -> bool {
        let Some(allocation) = ids.iter().flatten().next().and_then(|id| id.allocation()) else { return false };
        let block = self.dense.get(&allocation);
        let rows = match block {
            Some(block) => block.columns.len(),
            None => {
                // A layer holding none of the allocation's dicts yet (an
                // update over dicts made together): a block of the written
                // entries alone, its other rows empty (reads look below).
                let (mut end, mut n) = (0usize, 0usize);
                for id in ids.iter().flatten() {
                    if id.allocation() != Some(allocation) {
                        return false;
                    }
                    end = end.max(id.offset() as usize + 1);
                    n += 1;
                }
                if end > n.saturating_mul(8) {
                    return false;
                }
                end
            }
        };
        let mut written = vec![0i64; rows];
        for id in ids.iter().flatten() {
            match (id.allocation() == Some(allocation)).then_some(id.offset() as usize) {
                Some(row) if row < rows => written[row] += 1,
                _ => return false,
            }
        }
        let writes: usize = written.iter().map(|&n| n as usize).sum();
        let shadowed = self.holds_sparsely(allocation);
        if writes.saturating_mul(8) < rows || shadowed {
            return false;
        }
        // The writes of each row, in order (a counting sort by row).
        let mut start = vec![0usize; rows + 1];
        for row in 0..rows {
            start[row + 1] = start[row] + written[row] as usize;
        }
        let mut order = vec![0usize; writes];
        let mut next = start.clone();
        for (j, id) in ids.iter().enumerate() {
            if let Some(id) = id {
                let row = id.offset() as usize;
                order[next[row]] = j;
                next[row] += 1;
            }
        }
        // Each row: its entries, then its writes (a key set again keeps
        // its place and takes the new value, as the columns are built).
        let (sizes, new_keys, new_values) = match block {
            // No block: `order` lists the writes row by row already.
            None => (written, keys.take(&order), values.take(&order)),
            // Every row as stored: both columns gathered by position, old
            // entries and written ones.
            Some(block) if block.changed.is_empty() => {
                let (old_keys, old_values) = block.columns.columns();
                let mut from = Vec::with_capacity(old_keys.len() + writes);
                let mut sizes = Vec::with_capacity(rows);
                for row in 0..rows {
                    let range = block.columns.row(row);
                    sizes.push((range.len() + written[row] as usize) as i64);
                    from.extend(range);
                    from.extend(order[start[row]..start[row + 1]].iter().map(|&j| old_keys.len() + j));
                }
                (sizes, old_keys.take_pair(keys, &from), old_values.take_pair(values, &from))
            }
            // Some rows changed since (tables of their own): entry by entry.
            Some(block) => {
                let mut sizes = Vec::with_capacity(rows);
                let mut new_keys = SliceBuilder::new();
                let mut new_values = SliceBuilder::new();
                for row in 0..rows {
                    let dict = match block.changed.get(&(row as u64)) {
                        Some(changed) => DictRef::Map(changed),
                        None => DictRef::Row(&block.columns, row),
                    };
                    for (k, v) in dict.entries() {
                        new_keys.push(Some(k));
                        new_values.push(v);
                    }
                    for &j in &order[start[row]..start[row + 1]] {
                        new_keys.push(keys.get(j));
                        new_values.push(values.get(j));
                    }
                    sizes.push((dict.len() + written[row] as usize) as i64);
                }
                (sizes, new_keys.finish(), new_values.finish())
            }
        };
        let Ok(edge) = crate::shape::Edge::from_sizes(&sizes) else { return false };
        let Some(columns) = DictColumns::build(&edge, &new_keys, &new_values) else { return false };
        self.dense.insert(allocation, DenseBlock { columns: Arc::new(columns), changed: HashMap::default() });
        true
    }

    /// The dicts of `allocation` when they are stored as columns, none
    /// changed since and none stored by id.
    pub fn dense_of(&self, allocation: u64) -> Option<&DictColumns> {
        let block = self.dense.get(&allocation).filter(|b| b.changed.is_empty())?;
        let shadowed = self.holds_sparsely(allocation);
        (!shadowed).then_some(block.columns.as_ref())
    }

    /// Whether any dict of `allocation` is stored here.
    pub fn holds_allocation(&self, allocation: u64) -> bool {
        self.dense.contains_key(&allocation) || self.holds_sparsely(allocation)
    }

    /// Whether a dict of `allocation` is stored by id (a table of its own).
    fn holds_sparsely(&self, allocation: u64) -> bool {
        !self.sparse.is_empty() && self.sparse.keys().any(|id| id.allocation() == Some(allocation))
    }

    /// Stores the dicts of a whole allocation at once (replacing any).
    pub fn set_dense(&mut self, allocation: u64, dicts: DictColumns) {
        self.sparse.retain(|id, _| id.allocation() != Some(allocation));
        self.dense.insert(allocation, DenseBlock { columns: Arc::new(dicts), changed: HashMap::default() });
    }

    pub fn is_empty(&self) -> bool {
        self.dense.is_empty() && self.sparse.is_empty()
    }

    /// About how many dicts are stored here (O(blocks)).
    pub fn len_hint(&self) -> usize {
        self.sparse.len() + self.dense.values().map(|b| b.columns.len()).sum::<usize>()
    }

    /// Every dict of the store.
    pub fn iter(&self) -> impl Iterator<Item = (ItemId, DictRef<'_>)> {
        let dense = self.dense.iter().flat_map(|(&allocation, block)| {
            (0..block.columns.len()).map(move |offset| {
                let id = ItemId::in_allocation(allocation, offset as u64);
                let dict = match block.changed.get(&(offset as u64)) {
                    Some(changed) => DictRef::Map(changed),
                    None => DictRef::Row(&block.columns, offset),
                };
                (id, dict)
            })
        });
        dense.chain(self.sparse.iter().map(|(id, d)| (*id, DictRef::Map(d))))
    }

    /// Sets the entries of `other` that this store lacks (adoption: this
    /// store's entries win).
    /// Sets here every entry of `other`'s dicts (theirs win where both
    /// have a key); blocks of columns this store does not hold are shared.
    pub fn overwrite_from(&mut self, other: &DictStore) {
        let mut shared = std::collections::HashSet::new();
        for (&allocation, theirs) in &other.dense {
            if !self.holds_allocation(allocation) {
                self.dense.insert(allocation, theirs.clone());
                shared.insert(allocation);
            }
        }
        for (id, theirs) in other.iter() {
            if id.allocation().is_some_and(|a| shared.contains(&a)) {
                continue;
            }
            let ours = self.get_mut(id);
            for (k, v) in theirs.entries() {
                ours.set(k, v);
            }
        }
    }

    pub fn merge_missing_from(&mut self, other: &DictStore) {
        for (&allocation, theirs) in &other.dense {
            if !self.holds_allocation(allocation) {
                self.dense.insert(allocation, theirs.clone());
            }
        }
        for (id, theirs) in other.iter() {
            let ours = self.get(id);
            if ours.is_some_and(|ours| theirs.entries().all(|(k, _)| ours.contains(k))) {
                continue;
            }
            let ours = self.get_mut(id);
            for (k, v) in theirs.entries() {
                if !ours.contains(k) {
                    ours.set(k, v);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int_widths_share_keys_and_first_type_stays() {
        let mut d = DictMap::default();
        d.set(ScalarRef::Int32(1), Some(ScalarRef::Int32(10)));
        d.set(ScalarRef::Int64(1), Some(ScalarRef::Int32(20)));
        d.set(ScalarRef::Boolean(true), Some(ScalarRef::Int32(30)));
        assert_eq!(d.len(), 2);
        assert_eq!(d.get(ScalarRef::Int64(1)), Some(Some(ScalarRef::Int32(20))));
        let keys: Vec<ScalarRef<'_>> = d.iter().map(|(k, _)| k).collect();
        assert_eq!(keys, vec![ScalarRef::Int32(1), ScalarRef::Boolean(true)]);
        assert_eq!(d.get(ScalarRef::String("1")), None);
    }

    #[test]
    fn missing_values_keep_their_key() {
        let mut d = DictMap::default();
        d.set(ScalarRef::String("a"), None);
        assert_eq!(d.get(ScalarRef::String("a")), Some(None));
        assert_eq!(d.len(), 1);
    }

    #[test]
    fn dense_dicts_are_found_by_offset_and_copied_on_write() {
        let ids = crate::itemid::allocate(crate::itemid::ItemKind::Dict, 3).1;
        let allocation = ids[0].allocation().unwrap();
        let edge = crate::shape::Edge::from_sizes(&[0, 1, 0]).unwrap();
        let one = |v: ScalarRef<'_>| {
            let mut b = crate::column::SliceBuilder::new();
            b.push(Some(v));
            b.finish()
        };
        let (keys, values) = (one(ScalarRef::String("a")), one(ScalarRef::Int32(1)));
        let mut store = DictStore::default();
        store.set_dense(allocation, DictColumns::build(&edge, &keys, &values).unwrap());
        assert_eq!(store.get(ids[1]).unwrap().get(ScalarRef::String("a")), Some(Some(ScalarRef::Int32(1))));
        let shared = store.clone();
        store.get_mut(ids[1]).set(ScalarRef::String("b"), None);
        assert_eq!((store.get(ids[1]).unwrap().len(), shared.get(ids[1]).unwrap().len()), (2, 1));
        let listed: Vec<ItemId> = store.iter().map(|(id, _)| id).collect();
        assert_eq!(listed, ids);
        // An id past the allocation's dicts is stored by id.
        let other = ItemId::in_allocation(allocation, 7);
        store.get_mut(other).set(ScalarRef::Int32(5), None);
        assert_eq!(store.get(other).unwrap().len(), 1);
    }

    #[test]
    fn large_tables_grow_and_reserve() {
        let mut d = DictMap::default();
        d.reserve(1000);
        let capacity = d.slots.len();
        for k in 0..1000i64 {
            d.set(ScalarRef::Int64(k), Some(ScalarRef::Int64(-k)));
        }
        assert_eq!(d.slots.len(), capacity);
        for k in 1000..5000i64 {
            d.set(ScalarRef::Int64(k), Some(ScalarRef::Int64(-k)));
        }
        assert_eq!(d.len(), 5000);
        assert!((0..5000i64).all(|k| d.get(ScalarRef::Int32(k as i32)) == Some(Some(ScalarRef::Int64(-k)))));
        assert_eq!(d.iter().map(|(k, _)| k).take(2).collect::<Vec<_>>(), vec![ScalarRef::Int64(0), ScalarRef::Int64(1)]);
    }

    #[test]
    fn merging_keeps_our_entries() {
        let id = crate::itemid::allocate(crate::itemid::ItemKind::Dict, 1).1[0];
        let (mut ours, mut theirs) = (DictStore::default(), DictStore::default());
        ours.get_mut(id).set(ScalarRef::Int32(1), Some(ScalarRef::Int32(1)));
        theirs.get_mut(id).set(ScalarRef::Int32(1), Some(ScalarRef::Int32(2)));
        theirs.get_mut(id).set(ScalarRef::Int32(2), Some(ScalarRef::Int32(3)));
        ours.merge_missing_from(&theirs);
        let d = ours.get(id).unwrap();
        assert_eq!((d.get(ScalarRef::Int32(1)), d.len()), (Some(Some(ScalarRef::Int32(1))), 2));
    }
}

#[cfg(test)]
mod layout {
    #[test]
    fn a_slot_fits_one_cache_line() {
        assert!(std::mem::size_of::<super::Slot>() <= 64);
    }
}
