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
use std::sync::{Arc, OnceLock};

use super::Stored;
use super::dict_columns::DictColumns;
use crate::column::{ScalarRef, SliceBuilder, SliceData};
use crate::itemid::ItemId;

use crate::FastHash;

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
    /// Row `2` of the entries written into a block since its columns were
    /// made (`0`), over the same row of those columns (`1`): a key above
    /// wins (see [`DenseBlock`]).
    Stacked(&'a DictColumns, &'a DictColumns, usize),
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
            DictRef::Stacked(above, below, row) => above.get_hashed(row, key, hash).or_else(|| below.get_hashed(row, key, hash)),
        }
    }

    /// Asks the CPU to start loading where `hash` is looked up.
    pub fn prefetch(self, hash: u64) {
        match self {
            DictRef::Map(map) => map.prefetch(hash),
            DictRef::Row(columns, row) => columns.prefetch(row, hash),
            DictRef::Stacked(above, below, row) => {
                above.prefetch(row, hash);
                below.prefetch(row, hash);
            }
        }
    }

    /// After [`Self::prefetch`]: asks the CPU to start loading the key the
    /// lookup of `hash` compares first (a table's slots hold their keys).
    pub fn prefetch_candidate(self, hash: u64) {
        match self {
            DictRef::Map(_) => {}
            DictRef::Row(columns, row) => columns.prefetch_candidate(row, hash),
            DictRef::Stacked(above, below, row) => {
                above.prefetch_candidate(row, hash);
                below.prefetch_candidate(row, hash);
            }
        }
    }

    pub fn len(self) -> usize {
        match self {
            DictRef::Map(map) => map.len(),
            DictRef::Row(columns, row) => columns.row(row).len(),
            // The keys below, and those above that are not.
            DictRef::Stacked(above, below, row) => {
                below.row(row).len() + above.row(row).filter(|&e| below.get(row, above.entry(e).0).is_none()).count()
            }
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
            // The keys below in their order, each with its value above if
            // set there; then the keys only above, in theirs: the order the
            // two rows merged into one have.
            DictRef::Stacked(above, below, row) => {
                let old = below.row(row).map(move |e| {
                    let (key, value) = below.entry(e);
                    (key, above.get(row, key).unwrap_or(value))
                });
                let new = above.row(row).map(move |e| above.entry(e)).filter(move |&(key, _)| below.get(row, key).is_none());
                Entries::Map(Box::new(old.chain(new)))
            }
        }
    }

    /// The dict as a table of its own (to change it).
    pub fn to_map(self) -> DictMap {
        match self {
            DictRef::Map(map) => map.clone(),
            DictRef::Row(columns, row) => columns.to_map(row),
            DictRef::Stacked(..) => {
                let mut map = DictMap::default();
                map.reserve(self.len());
                self.entries().for_each(|(key, value)| map.set(key, value));
                map
            }
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

/// The dicts of one allocation made together.
///
/// `columns` are the dicts as made, shared by forks. Entries later written
/// into many of them at once go to `above`, columns of the same rows
/// holding only those entries (a key there wins over the key below), so
/// that such a write costs what it writes, not a copy of every dict: a
/// fork writing one key into each of its dicts leaves the columns it
/// shares with its parent as they are. `above` is folded into new columns
/// once it holds as many entries as they do (amortized O(1) per
/// entry written), or at the first read that wants the dicts as one set of
/// columns (`merged`, kept for the reads after it). Dicts changed one by one
/// are copied to tables of their own (`changed`), which shadow both.
#[derive(Clone, Debug)]
struct DenseBlock {
    columns: Arc<DictColumns>,
    above: Option<Arc<DictColumns>>,
    /// `columns` with `above` folded in, made at the first whole read;
    /// `None` inside when there are too many entries to index as one.
    merged: OnceLock<Option<Arc<DictColumns>>>,
    changed: HashMap<u64, Arc<DictMap>, FastHash>,
}

impl DenseBlock {
    fn new(columns: DictColumns) -> DenseBlock {
        DenseBlock { columns: Arc::new(columns), above: None, merged: OnceLock::new(), changed: HashMap::default() }
    }

    /// Number of dicts.
    fn rows(&self) -> usize {
        self.columns.len()
    }

    /// Dict `row` (below [`Self::rows`]) as this block holds it.
    fn dict(&self, row: usize) -> DictRef<'_> {
        if !self.changed.is_empty() {
            if let Some(changed) = self.changed.get(&(row as u64)) {
                return DictRef::Map(changed);
            }
        }
        match (&self.above, self.merged.get()) {
            (None, _) => DictRef::Row(&self.columns, row),
            (Some(_), Some(Some(merged))) => DictRef::Row(merged, row),
            // A row nothing was written into since reads as made.
            (Some(above), _) if above.row(row).is_empty() => DictRef::Row(&self.columns, row),
            (Some(above), _) => DictRef::Stacked(above, &self.columns, row),
        }
    }

    /// The dicts as one set of columns (ignoring `changed`): `columns`, or
    /// `above` folded into them, done once.
    fn whole(&self) -> Option<&DictColumns> {
        let Some(above) = &self.above else { return Some(&self.columns) };
        self.merged.get_or_init(|| Rows::of(&self.columns).then(&Rows::of(above)).build().map(Arc::new)).as_deref()
    }

    /// The block after `writes` (rows of written entries, one per dict),
    /// when no dict of it is changed one by one: the writes go above the
    /// columns, or, once what is above is large, everything is folded into
    /// new columns. `None` when there are too many entries to index.
    fn written(&self, writes: Rows) -> Option<DenseBlock> {
        // Columns a read folded already are the ones to write over.
        let (below, above) = match self.merged.get() {
            Some(Some(merged)) => (merged, None),
            _ => (&self.columns, self.above.as_ref()),
        };
        let upper = match above {
            Some(above) => Rows::of(above).then(&writes),
            None => writes,
        };
        if upper.entries() <= below.entries() {
            let above = Arc::new(upper.build()?);
            return Some(DenseBlock { columns: below.clone(), above: Some(above), merged: OnceLock::new(), changed: HashMap::default() });
        }
        Some(DenseBlock::new(Rows::of(below).then(&upper).build()?))
    }
}

/// Rows of dict entries not yet indexed: row `r` holds the next `sizes[r]`
/// entries of `keys` / `values`, in the order they were set.
struct Rows {
    sizes: Vec<i64>,
    keys: SliceData,
    values: SliceData,
}

impl Rows {
    /// The rows of `columns` (shared, not copied).
    fn of(columns: &DictColumns) -> Rows {
        let (keys, values) = columns.columns();
        let sizes = (0..columns.len()).map(|row| columns.row(row).len() as i64).collect();
        Rows { sizes, keys: keys.clone(), values: values.clone() }
    }

    fn entries(&self) -> usize {
        self.keys.len()
    }

    /// Each row's entries, then the entries of the same row of `upper`
    /// (which has as many rows).
    fn then(&self, upper: &Rows) -> Rows {
        debug_assert_eq!(self.sizes.len(), upper.sizes.len());
        let mut from = Vec::with_capacity(self.entries() + upper.entries());
        let (mut lower_at, mut upper_at) = (0usize, self.entries());
        let sizes = self
            .sizes
            .iter()
            .zip(&upper.sizes)
            .map(|(&a, &b)| {
                from.extend(lower_at..lower_at + a as usize);
                from.extend(upper_at..upper_at + b as usize);
                (lower_at, upper_at) = (lower_at + a as usize, upper_at + b as usize);
                a + b
            })
            .collect();
        Rows { sizes, keys: self.keys.take_pair(&upper.keys, &from), values: self.values.take_pair(&upper.values, &from) }
    }

    /// The rows indexed as dicts (a key set twice in a row keeps its first
    /// place and its last value; missing keys are dropped).
    fn build(&self) -> Option<DictColumns> {
        let edge = crate::shape::Edge::from_sizes(&self.sizes).ok()?;
        DictColumns::build(&edge, &self.keys, &self.values)
    }
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
            let offset = id.offset() as usize;
            if offset < block.rows() {
                return Some(block.dict(offset));
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
            if (offset as usize) < block.rows() {
                if !block.changed.contains_key(&offset) {
                    let map = block.dict(offset as usize).to_map();
                    block.changed.insert(offset, Arc::new(map));
                }
                return Arc::make_mut(block.changed.get_mut(&offset).expect("inserted above"));
            }
        }
        Arc::make_mut(self.sparse.entry(id).or_default())
    }

    /// Sets `keys[j]` of dict `ids[j]` to `values[j]` a block at a time, when
    /// they are dicts of one allocation and touch at least an eighth of its
    /// rows (every dict of a forked bag updated at once, `with_dict_update`
    /// of dicts made together): the writes become rows of their own above
    /// the block's columns (see [`DenseBlock`]), or a block of the writes
    /// alone where this layer holds none of the allocation's dicts (its
    /// other rows empty: reads look below), instead of a table of its own
    /// for each dict changed. False, with nothing changed, otherwise.
    pub fn set_entries_of_block(&mut self, ids: &[Option<ItemId>], keys: &SliceData, values: &SliceData) -> bool {
        let Some(allocation) = ids.iter().flatten().next().and_then(|id| id.allocation()) else { return false };
        let block = self.dense.get(&allocation);
        let rows = match block {
            Some(block) => block.rows(),
            None => {
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
        let mut next = Vec::with_capacity(rows);
        let mut at = 0usize;
        for &n in &written {
            next.push(at);
            at += n as usize;
        }
        let mut order = vec![0usize; writes];
        for (j, id) in ids.iter().enumerate() {
            if let Some(id) = id {
                let row = id.offset() as usize;
                order[next[row]] = j;
                next[row] += 1;
            }
        }
        let writes = Rows { sizes: written, keys: keys.take(&order), values: values.take(&order) };
        let block = match block {
            None => writes.build().map(DenseBlock::new),
            Some(block) if block.changed.is_empty() => block.written(writes),
            // Some dicts changed one by one since (tables of their own):
            // every dict copied out entry by entry, then the writes.
            Some(block) => {
                let mut keys = SliceBuilder::new();
                let mut values = SliceBuilder::new();
                let mut sizes = Vec::with_capacity(rows);
                for row in 0..rows {
                    let dict = block.dict(row);
                    for (k, v) in dict.entries() {
                        keys.push(Some(k));
                        values.push(v);
                    }
                    sizes.push(dict.len() as i64);
                }
                Rows { sizes, keys: keys.finish(), values: values.finish() }.then(&writes).build().map(DenseBlock::new)
            }
        };
        let Some(block) = block else { return false };
        self.dense.insert(allocation, block);
        true
    }

    /// The dicts of `allocation` when they are stored as columns, none
    /// changed one by one since and none stored by id (entries written
    /// since into many of them at once are folded in here, once).
    pub fn dense_of(&self, allocation: u64) -> Option<&DictColumns> {
        let block = self.dense.get(&allocation).filter(|b| b.changed.is_empty())?;
        let shadowed = self.holds_sparsely(allocation);
        if shadowed {
            return None;
        }
        block.whole()
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
    ///
    /// The block holds dicts `0..n` of `allocation`; it replaces what is
    /// stored of them, but never dicts past `n`: when some of those are
    /// stored here, nothing is written and the result is false (the caller
    /// writes the dicts one by one).
    #[must_use]
    pub fn set_dense(&mut self, allocation: u64, dicts: DictColumns) -> bool {
        let n = dicts.len();
        let past = |id: &ItemId| id.allocation() == Some(allocation) && id.offset() as usize >= n;
        if self.dense.get(&allocation).is_some_and(|d| d.rows() > n) || self.sparse.keys().any(past) {
            return false;
        }
        self.sparse.retain(|id, _| id.allocation() != Some(allocation));
        self.dense.insert(allocation, DenseBlock::new(dicts));
        true
    }

    pub fn is_empty(&self) -> bool {
        self.dense.is_empty() && self.sparse.is_empty()
    }

    /// About how many dicts are stored here (O(blocks)).
    pub fn len_hint(&self) -> usize {
        self.sparse.len() + self.dense.values().map(DenseBlock::rows).sum::<usize>()
    }

    /// [`Self::len_hint`], counted only until `cap` (a store of many blocks
    /// costs `cap`, not its size: merge checks ask per merge).
    pub fn len_hint_capped(&self, cap: usize) -> usize {
        let mut n = self.sparse.len();
        for rows in self.dense.values().map(DenseBlock::rows) {
            if n >= cap {
                break;
            }
            n += rows;
        }
        n
    }

    /// Every dict of the store.
    pub fn iter(&self) -> impl Iterator<Item = (ItemId, DictRef<'_>)> {
        let dense = self.dense.iter().flat_map(|(&allocation, block)| {
            (0..block.rows()).map(move |offset| (ItemId::in_allocation(allocation, offset as u64), block.dict(offset)))
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
        assert!(store.set_dense(allocation, DictColumns::build(&edge, &keys, &values).unwrap()));
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
mod block_writes {
    //! Writes into many dicts of a block at once (rows above the columns,
    //! folded later) read exactly as the same writes made one dict at a
    //! time into tables, and never show in a copy taken before them.

    use super::*;
    use crate::itemid::{ItemKind, allocate};

    fn column(items: &[Option<ScalarRef<'_>>]) -> SliceData {
        let mut b = SliceBuilder::new();
        items.iter().for_each(|&v| b.push(v));
        b.finish()
    }

    /// Each dict's entries, in order, as a table of its own would give them.
    type Model = Vec<Vec<(Stored, Option<Stored>)>>;

    fn read(store: &DictStore, ids: &[ItemId]) -> Model {
        ids.iter()
            .map(|&id| {
                let dict = store.get(id).expect("every dict is held");
                let entries: Vec<(Stored, Option<Stored>)> = dict.entries().map(|(k, v)| (Stored::from_ref(k), v.map(Stored::from_ref))).collect();
                assert_eq!(dict.len(), entries.len());
                for (k, v) in &entries {
                    assert_eq!(dict.get(k.as_ref()), Some(v.as_ref().map(Stored::as_ref)));
                }
                assert_eq!(dict.get(ScalarRef::Int32(1000)), None);
                entries
            })
            .collect()
    }

    /// `model` after writing `keys[j]` = `values[j]` into dict `rows[j]`.
    fn apply(model: &mut Model, rows: &[usize], keys: &[Option<i32>], values: &[Option<i32>]) {
        for ((&row, key), value) in rows.iter().zip(keys).zip(values) {
            let Some(key) = *key else { continue };
            let value = value.map(Stored::Int32);
            match model[row].iter_mut().find(|(k, _)| *k == Stored::Int32(key)) {
                Some(entry) => entry.1 = value,
                None => model[row].push((Stored::Int32(key), value)),
            }
        }
    }

    /// Writes into `rows` through the block path (which must take it).
    fn write(store: &mut DictStore, ids: &[ItemId], rows: &[usize], keys: &[Option<i32>], values: &[Option<i32>]) {
        let owners: Vec<Option<ItemId>> = rows.iter().map(|&r| Some(ids[r])).collect();
        let as_items = |v: &[Option<i32>]| column(&v.iter().map(|x| x.map(ScalarRef::Int32)).collect::<Vec<_>>());
        assert!(store.set_entries_of_block(&owners, &as_items(keys), &as_items(values)));
    }

    fn block<'a>(store: &'a DictStore, ids: &[ItemId]) -> &'a DenseBlock {
        &store.dense[&ids[0].allocation().unwrap()]
    }

    #[test]
    fn rows_above_read_as_the_writes_made_one_by_one() {
        let n = 40usize;
        let ids = allocate(ItemKind::Dict, n).1;
        let sizes: Vec<i64> = (0..n as i64).map(|i| i % 6 + 2).collect();
        let edge = crate::shape::Edge::from_sizes(&sizes).unwrap();
        let entries = edge.child_size();
        let keys: Vec<Option<ScalarRef<'_>>> = (0..entries).map(|j| Some(ScalarRef::Int32(j as i32 % 7))).collect();
        let values: Vec<Option<ScalarRef<'_>>> = (0..entries).map(|j| Some(ScalarRef::Int32(j as i32))).collect();
        let mut store = DictStore::default();
        assert!(store.set_dense(ids[0].allocation().unwrap(), DictColumns::build(&edge, &column(&keys), &column(&values)).unwrap()));
        let mut model = read(&store, &ids);
        let made = model.clone();
        let parent = store.clone();

        // Round after round into every dict (a key each may have, new keys,
        // a missing key, a missing value, a dict written twice): rows above,
        // then, once they hold as many entries as the columns, folded.
        let mut folded = false;
        for round in 0..8i32 {
            let mut rows: Vec<usize> = (0..n).collect();
            rows.push(3);
            let keys: Vec<Option<i32>> = rows.iter().enumerate().map(|(j, &r)| (j % 11 != 5).then_some((r as i32 + round) % 9)).collect();
            let values: Vec<Option<i32>> = rows.iter().map(|&r| (r % 5 != 1).then_some(100 * round + r as i32)).collect();
            write(&mut store, &ids, &rows, &keys, &values);
            apply(&mut model, &rows, &keys, &values);
            assert_eq!(read(&store, &ids), model, "round {round}");
            if round == 0 {
                assert!(block(&store, &ids).above.is_some(), "the first round goes above the columns");
            }
            folded |= block(&store, &ids).above.is_none();
        }
        assert!(folded, "the rows above were folded into the columns at some point");
        assert_eq!(read(&parent, &ids), made, "the copy taken before is unchanged");

        // A read of every dict as columns folds them once; a write after it
        // goes above the folded columns.
        let allocation = ids[0].allocation().unwrap();
        let mut rows: Vec<usize> = (0..n).step_by(3).collect();
        rows.extend([0, 1]);
        let keys: Vec<Option<i32>> = rows.iter().map(|&r| Some(r as i32 % 4 + 20)).collect();
        let values: Vec<Option<i32>> = rows.iter().map(|&r| Some(-(r as i32))).collect();
        write(&mut store, &ids, &rows, &keys, &values);
        apply(&mut model, &rows, &keys, &values);
        let whole = store.dense_of(allocation).expect("no dict changed one by one");
        let folded: Model =
            (0..n).map(|row| whole.row(row).map(|e| whole.entry(e)).map(|(k, v)| (Stored::from_ref(k), v.map(Stored::from_ref))).collect()).collect();
        assert_eq!(folded, model);
        assert_eq!(read(&store, &ids), model);
        let before_write = store.clone();
        write(&mut store, &ids, &rows, &keys.iter().map(|k| k.map(|k| k + 1)).collect::<Vec<_>>(), &values);
        apply(&mut model, &rows, &keys.iter().map(|k| k.map(|k| k + 1)).collect::<Vec<_>>(), &values);
        assert_eq!(read(&store, &ids), model);
        assert_ne!(read(&before_write, &ids), model);

        // A dict changed one by one (a table of its own, copied from the
        // rows above and below), then every dict written at once again.
        store.get_mut(ids[7]).set(ScalarRef::Int32(50), Some(ScalarRef::Int32(5)));
        apply(&mut model, &[7], &[Some(50)], &[Some(5)]);
        assert_eq!(read(&store, &ids), model);
        assert!(store.dense_of(allocation).is_none());
        let rows: Vec<usize> = (0..n).collect();
        let keys: Vec<Option<i32>> = rows.iter().map(|&r| Some(r as i32 % 3)).collect();
        let values: Vec<Option<i32>> = rows.iter().map(|_| Some(1)).collect();
        write(&mut store, &ids, &rows, &keys, &values);
        apply(&mut model, &rows, &keys, &values);
        assert_eq!(read(&store, &ids), model);
        assert_eq!(read(&parent, &ids), made);
    }
}

#[cfg(test)]
mod layout {
    #[test]
    fn a_slot_fits_one_cache_line() {
        assert!(std::mem::size_of::<super::Slot>() <= 64);
    }
}
