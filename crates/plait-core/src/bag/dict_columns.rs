//! Dicts created together (`kd.dict_shaped`, `kd.dict` of a slice,
//! `kd.from_py` of many Python dicts), stored as columns: the entries of all
//! of them in one key column and one value column, the dicts as rows of an
//! edge, and an open-addressing index of every dict's keys. A new dict costs
//! no allocation of its own, a text key none either (it stays in the
//! column's buffer), and a lookup is one hash and, mostly, one probe.
//!
//! Rows hold each key once (the first time it came, with the value it came
//! with last) and no missing key, so a row lists its keys in the order they
//! were first set, as dict tables do.

use std::ops::Range;

use super::dict_store::{DictMap, key_hash, same_key};
use crate::column::{MISSING_INDEX, ScalarRef, SliceData, Values};
use crate::shape::Edge;

/// The dicts of one allocation, in offset order.
#[derive(Clone, Debug)]
pub struct DictColumns {
    edge: Edge,
    keys: SliceData,
    values: SliceData,
    /// The rows as they came (before repeated and missing keys were
    /// dropped): dict `row` probes, linearly and wrapping around, the slots
    /// `2 * start .. 2 * end` of its range here, so a dict's slots are
    /// together and building the index writes memory nearly in order.
    regions: Edge,
    /// Slot: `(tag << 32) | (entry + 1)`, 0 when empty; the tag is the low
    /// half of the entry's hash (the high half picks the slot), so most
    /// mismatches are seen without reading the key.
    index: Box<[u64]>,
}

/// Entries past which the index's 32-bit entry numbers would not do (the
/// dicts are then stored one table each).
const MAX_ENTRIES: usize = u32::MAX as usize - 1;

/// Entries hashed, and their slots prefetched, before any is inserted.
const BATCH: usize = 16;

/// The hash of `key` in dict `row` (its [`key_hash`] already computed):
/// the row folded in, then mixed (a murmur3 finalizer) so that equal keys of
/// neighbouring rows land far apart.
fn entry_hash(key_hash: u64, row: usize) -> u64 {
    let mut h = key_hash ^ (row as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// `hash` mapped onto `0..size` (by its high bits).
fn reduce(hash: u64, size: usize) -> usize {
    ((hash as u128 * size as u128) >> 64) as usize
}

/// How [`DictColumns::find_many`] reads and compares keys of type `K`:
/// the stored key of an entry, equality, the key's [`key_hash`], a
/// prefetch of an entry's key, and the stored text (whose bytes are
/// prefetched too), if the keys are text.
struct Probe<'a, S, E, H, L> {
    stored: S,
    same: E,
    hash: H,
    load: L,
    text: Option<&'a crate::column::VarBinary>,
}

/// Asks the CPU to start loading the cache line of `value`.
fn prefetch_line<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint; it reads nothing and cannot fault.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<{ _MM_HINT_T0 }>((value as *const T).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

impl DictColumns {
    /// The dicts whose entries are the rows of `keys` → `values` under
    /// `edge` (a key set twice in a row keeps its first place and its last
    /// value; missing keys are skipped); `None` when there are too many
    /// entries to index.
    pub fn build(edge: &Edge, keys: &SliceData, values: &SliceData) -> Option<DictColumns> {
        if edge.child_size() > MAX_ENTRIES {
            return None;
        }
        let mut dicts = DictColumns { edge: edge.clone(), keys: keys.clone(), values: values.clone(), regions: edge.clone(), index: Box::default() };
        let duplicates = dicts.index_entries();
        if !duplicates.is_empty() || keys.present_count() < keys.len() {
            let kept = dicts.drop_repeats(&duplicates);
            dicts.renumber(&kept);
        }
        Some(dicts)
    }

    /// The slots dict `row` probes.
    fn region(&self, row: usize) -> (usize, usize) {
        let range = self.regions.child_range(row);
        (2 * range.start, 2 * range.len())
    }

    /// Indexes every entry; returns the (earlier, later) entry pairs that
    /// set one key of one row twice (the later ones are not indexed).
    fn index_entries(&mut self) -> Vec<(usize, usize)> {
        let n = self.keys.len();
        let mut index: Vec<u64> = crate::alloc::output_vec(2 * n);
        index.resize(2 * n, 0);
        let mut duplicates = Vec::new();
        let mut batch = [(0usize, 0u64); BATCH];
        for row in 0..self.regions.parent_size() {
            let (base, size) = self.region(row);
            let range = self.regions.child_range(row);
            let mut start = range.start;
            while start < range.end {
                // Hash a batch and prefetch its slots (a large dict's slots
                // are far apart), then insert it.
                let mut count = 0;
                for entry in start..(start + BATCH).min(range.end) {
                    if let Some(key) = self.keys.get(entry) {
                        let hash = entry_hash(key_hash(key), row);
                        prefetch_line(&index[base + reduce(hash, size)]);
                        batch[count] = (entry, hash);
                        count += 1;
                    }
                }
                start = (start + BATCH).min(range.end);
                for &(entry, hash) in &batch[..count] {
                    let key = self.keys.get(entry).expect("batched keys are present");
                    let tag = hash as u32 as u64;
                    let mut i = base + reduce(hash, size);
                    loop {
                        let slot = index[i];
                        if slot == 0 {
                            index[i] = (tag << 32) | (entry as u64 + 1);
                            break;
                        }
                        let other = (slot as u32 - 1) as usize;
                        if slot >> 32 == tag && self.keys.get(other).is_some_and(|k| same_key(k, key)) {
                            duplicates.push((other, entry));
                            break;
                        }
                        i = if i + 1 == base + size { base } else { i + 1 };
                    }
                }
            }
        }
        self.index = index.into_boxed_slice();
        duplicates
    }

    /// Keeps, of each row, the first entry of each present key, with the
    /// value of its last entry; returns the entries kept (their numbers
    /// before).
    fn drop_repeats(&mut self, duplicates: &[(usize, usize)]) -> Vec<usize> {
        let n = self.keys.len();
        // The entry whose value each entry takes (itself, or a later one).
        let mut value_of: Vec<usize> = (0..n).collect();
        let mut repeated = vec![false; n];
        for &(first, later) in duplicates {
            value_of[first] = later;
            repeated[later] = true;
        }
        let mut kept = Vec::with_capacity(n);
        let mut kept_values = Vec::with_capacity(n);
        let mut sizes = Vec::with_capacity(self.edge.parent_size());
        for row in 0..self.edge.parent_size() {
            let before = kept.len();
            for entry in self.edge.child_range(row) {
                if !repeated[entry] && self.keys.get(entry).is_some() {
                    kept.push(entry);
                    kept_values.push(value_of[entry]);
                }
            }
            sizes.push((kept.len() - before) as i64);
        }
        self.keys = self.keys.take(&kept);
        self.values = self.values.take(&kept_values);
        self.edge = Edge::from_sizes(&sizes).expect("sizes of kept entries are valid");
        kept
    }

    /// Points the index at the entries' new numbers after
    /// [`Self::drop_repeats`] (only kept entries are indexed; each keeps
    /// its slot, as regions do not move).
    fn renumber(&mut self, kept: &[usize]) {
        let mut new_number = vec![0u32; kept.iter().max().map_or(0, |&e| e + 1)];
        for (k, &entry) in kept.iter().enumerate() {
            new_number[entry] = k as u32;
        }
        for slot in self.index.iter_mut().filter(|s| **s != 0) {
            let entry = (*slot as u32 - 1) as usize;
            *slot = (*slot & !0xffff_ffff) | (new_number[entry] as u64 + 1);
        }
    }

    /// Number of dicts.
    pub fn len(&self) -> usize {
        self.edge.parent_size()
    }

    /// Number of entries of all dicts.
    pub fn entries(&self) -> usize {
        self.keys.len()
    }

    /// `Some(value)` when `key` is in dict `row` (the value may be missing).
    pub fn get(&self, row: usize, key: ScalarRef<'_>) -> Option<Option<ScalarRef<'_>>> {
        self.get_hashed(row, key, key_hash(key))
    }

    /// The entries of dict `row`.
    pub fn row(&self, row: usize) -> Range<usize> {
        self.edge.child_range(row)
    }

    /// The entry of `key` in dict `row`, given the key's [`key_hash`].
    pub fn find(&self, row: usize, key: ScalarRef<'_>, key_hash: u64) -> Option<usize> {
        let (base, size) = self.region(row);
        if size == 0 {
            return None;
        }
        let hash = entry_hash(key_hash, row);
        self.probe(base, size, base + reduce(hash, size), hash, |entry| self.keys.get(entry).is_some_and(|k| same_key(k, key)))
    }

    /// The entry whose entry hash is `hash` and for which `is_key` holds,
    /// probing linearly from `slot` in the region `base .. base + size`.
    #[inline]
    fn probe(&self, base: usize, size: usize, mut slot: usize, hash: u64, is_key: impl Fn(usize) -> bool) -> Option<usize> {
        let tag = hash as u32 as u64;
        loop {
            let value = self.index[slot];
            if value == 0 {
                return None;
            }
            let entry = (value as u32 - 1) as usize;
            if value >> 32 == tag && is_key(entry) {
                return Some(entry);
            }
            slot = if slot + 1 == base + size { base } else { slot + 1 };
        }
    }

    /// The entry of each of the keys `first .. first + out.len()` of `keys`
    /// in dict `row` ([`MISSING_INDEX`] where the key is missing or absent),
    /// written to `out`. Keys of one column of INT32, INT64 or STRING looked
    /// up in keys of the same one type are compared as such (no `ScalarRef`
    /// per key); others as items.
    pub fn find_many(&self, row: usize, keys: &SliceData, first: usize, out: &mut [usize]) {
        let stored = self.keys.single_column().filter(|c| c.presence.is_none()).map(|c| &c.values);
        let query = keys.single_column();
        let present = |i: usize| query.is_some_and(|c| c.presence.as_ref().is_none_or(|p| p.is_valid(first + i)));
        match (stored, query.map(|c| &c.values)) {
            (Some(Values::Int32(s)), Some(Values::Int32(q))) => {
                self.find_numbers(row, out, s, |i| present(i).then(|| q[first + i]), ScalarRef::Int32)
            }
            (Some(Values::Int64(s)), Some(Values::Int64(q))) => {
                self.find_numbers(row, out, s, |i| present(i).then(|| q[first + i]), ScalarRef::Int64)
            }
            (Some(Values::String(s)), Some(Values::String(q))) => {
                let probe = Probe {
                    stored: |e| Some(s.value(e)),
                    same: |a: &[u8], b: &[u8]| a == b,
                    // STRING columns hold valid UTF-8 (checked on entry).
                    hash: |k| key_hash(ScalarRef::String(std::str::from_utf8(k).unwrap_or("\u{FFFD}"))),
                    load: |e| prefetch_line(&s.offsets[e]),
                    text: Some(s),
                };
                self.find_many_with(row, out, |i| present(i).then(|| q.value(first + i)), probe)
            }
            _ => {
                let text = match stored {
                    Some(Values::String(v) | Values::Bytes(v)) => Some(v),
                    _ => None,
                };
                let probe = Probe { stored: |e| self.keys.get(e), same: same_key, hash: key_hash, load: |e| self.prefetch_entry(e), text };
                self.find_many_with(row, out, |i| keys.get(first + i), probe)
            }
        }
    }

    /// [`Self::find_many`] of integer keys stored as `stored`.
    fn find_numbers<T: Copy + PartialEq>(
        &self,
        row: usize,
        out: &mut [usize],
        stored: &[T],
        query: impl Fn(usize) -> Option<T>,
        item: fn(T) -> ScalarRef<'static>,
    ) {
        let probe =
            Probe { stored: |e| Some(stored[e]), same: |a, b| a == b, hash: |k| key_hash(item(k)), load: |e| prefetch_line(&stored[e]), text: None };
        self.find_many_with(row, out, query, probe)
    }

    /// [`Self::find_many`] with the keys read by `query` and compared by
    /// `probe`.
    ///
    /// Each lookup misses the cache two or three times in a large dict (its
    /// index slot, then the key the slot points at, then a text key's
    /// bytes), so the lookups are pipelined: while key `j` is compared, the
    /// key of lookup `j + D` is being loaded, the index slot of `j + 2D`
    /// and (for text) the bytes of `j + D / 2`, so the misses of many
    /// lookups overlap.
    fn find_many_with<K: Copy>(
        &self,
        row: usize,
        out: &mut [usize],
        query: impl Fn(usize) -> Option<K>,
        probe: Probe<impl Fn(usize) -> Option<K>, impl Fn(K, K) -> bool, impl Fn(K) -> u64, impl Fn(usize)>,
    ) {
        const D: usize = 16;
        let (base, size) = self.region(row);
        let n = out.len();
        if size == 0 {
            out.fill(MISSING_INDEX);
            return;
        }
        // Each present key's entry hash and the slot its probe starts at.
        let start: Vec<(u64, usize)> = (0..n)
            .map(|i| match query(i) {
                Some(key) => {
                    let hash = entry_hash((probe.hash)(key), row);
                    (hash, base + reduce(hash, size))
                }
                None => (0, usize::MAX),
            })
            .collect();
        let entry_at = |k: usize| start.get(k).and_then(|&(_, slot)| self.first_entry(slot));
        // Step `j` loads the index slot of lookup `j`, the key of lookup
        // `j - D`, the text of lookup `j - 3D/2`, and finishes lookup `j - 2D`.
        for j in 0..n + 2 * D {
            if let Some(&(_, slot)) = start.get(j) {
                if let Some(line) = self.index.get(slot) {
                    prefetch_line(line);
                }
            }
            if let Some(entry) = j.checked_sub(D).and_then(entry_at) {
                (probe.load)(entry);
            }
            if let (Some(text), Some(entry)) = (probe.text, j.checked_sub(D + D / 2).and_then(entry_at)) {
                if let Some(byte) = text.data.as_slice().get(text.offsets[entry] as usize) {
                    prefetch_line(byte);
                }
            }
            let Some(i) = j.checked_sub(2 * D) else { continue };
            let (hash, slot) = start[i];
            out[i] = match query(i).filter(|_| slot != usize::MAX) {
                Some(key) => {
                    self.probe(base, size, slot, hash, |entry| (probe.stored)(entry).is_some_and(|k| (probe.same)(k, key))).unwrap_or(MISSING_INDEX)
                }
                None => MISSING_INDEX,
            };
        }
    }

    /// The entry the index slot `slot` points at, if any.
    fn first_entry(&self, slot: usize) -> Option<usize> {
        let value = *self.index.get(slot)?;
        (value != 0).then(|| (value as u32 - 1) as usize)
    }

    /// The values of `entries` (as [`Self::find_many`] gives them).
    pub fn values_of(&self, entries: &[usize]) -> SliceData {
        self.values.take(entries)
    }

    /// `Some(value)` when `key` is in dict `row` (the value may be missing).
    pub fn get_hashed(&self, row: usize, key: ScalarRef<'_>, key_hash: u64) -> Option<Option<ScalarRef<'_>>> {
        self.find(row, key, key_hash).map(|entry| self.values.get(entry))
    }

    /// Asks the CPU to start loading the index slot of `key` in dict `row`.
    pub fn prefetch(&self, row: usize, key_hash: u64) {
        let (base, size) = self.region(row);
        if size > 0 {
            prefetch_line(&self.index[base + reduce(entry_hash(key_hash, row), size)]);
        }
    }

    /// Asks the CPU to start loading the key and the value that the first
    /// slot of `key` in dict `row` points at (call after [`Self::prefetch`]
    /// has had time to bring the slot in): the lookup then finds all three
    /// in cache.
    pub fn prefetch_candidate(&self, row: usize, key_hash: u64) {
        let (base, size) = self.region(row);
        if size == 0 {
            return;
        }
        let slot = self.index[base + reduce(entry_hash(key_hash, row), size)];
        if slot == 0 {
            return;
        }
        self.prefetch_entry((slot as u32 - 1) as usize);
    }

    /// Asks the CPU to start loading the key and the value of `entry`.
    fn prefetch_entry(&self, entry: usize) {
        for column in self.keys.columns().iter().chain(self.values.columns()) {
            match &column.values {
                Values::Int32(v) => prefetch_line(&v[entry]),
                Values::Int64(v) => prefetch_line(&v[entry]),
                Values::Float32(v) => prefetch_line(&v[entry]),
                Values::Float64(v) => prefetch_line(&v[entry]),
                Values::String(v) | Values::Bytes(v) => prefetch_line(&v.offsets[entry]),
                // Other keys are rare (ids, booleans, schemas); other values
                // are left to the lookup.
                _ => {}
            }
        }
    }

    /// The key and the value of `entry`.
    pub fn entry(&self, entry: usize) -> (ScalarRef<'_>, Option<ScalarRef<'_>>) {
        (self.keys.get(entry).expect("stored keys are present"), self.values.get(entry))
    }

    /// The key and value columns (every row's entries, in row order).
    pub fn columns(&self) -> (&SliceData, &SliceData) {
        (&self.keys, &self.values)
    }

    /// Dict `row` as a table of its own (to change it).
    pub fn to_map(&self, row: usize) -> DictMap {
        let mut map = DictMap::default();
        let range = self.row(row);
        map.reserve(range.len());
        for entry in range {
            let (key, value) = self.entry(entry);
            map.set(key, value);
        }
        map
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::column::SliceBuilder;

    fn column(items: &[Option<ScalarRef<'_>>]) -> SliceData {
        let mut b = SliceBuilder::new();
        items.iter().for_each(|&v| b.push(v));
        b.finish()
    }

    fn get<'a>(d: &'a DictColumns, row: usize, key: ScalarRef<'_>) -> Option<Option<ScalarRef<'a>>> {
        d.get_hashed(row, key, key_hash(key))
    }

    #[test]
    fn rows_are_separate_dicts() {
        use ScalarRef::{Int32, Int64, String as S};
        let edge = Edge::from_sizes(&[2, 0, 1]).unwrap();
        let keys = column(&[Some(S("a")), Some(S("b")), Some(S("a"))]);
        let values = column(&[Some(Int32(1)), None, Some(Int32(3))]);
        let d = DictColumns::build(&edge, &keys, &values).unwrap();
        assert_eq!(get(&d, 0, S("a")), Some(Some(Int32(1))));
        assert_eq!(get(&d, 0, S("b")), Some(None));
        assert_eq!(get(&d, 1, S("a")), None);
        assert_eq!(get(&d, 2, S("a")), Some(Some(Int32(3))));
        assert_eq!(get(&d, 2, Int64(1)), None);
    }

    #[test]
    fn repeated_keys_keep_their_first_place_and_last_value() {
        use ScalarRef::{Int32, Int64};
        let edge = Edge::from_sizes(&[4, 1]).unwrap();
        let keys = column(&[Some(Int32(1)), None, Some(Int32(2)), Some(Int64(1)), Some(Int32(1))]);
        let values = column(&[Some(Int32(10)), Some(Int32(0)), Some(Int32(20)), Some(Int32(11)), Some(Int32(5))]);
        let d = DictColumns::build(&edge, &keys, &values).unwrap();
        assert_eq!(d.row(0), 0..2);
        assert_eq!(d.entry(0), (Int32(1), Some(Int32(11))));
        assert_eq!(d.entry(1), (Int32(2), Some(Int32(20))));
        assert_eq!(get(&d, 1, Int32(1)), Some(Some(Int32(5))));
        assert_eq!(d.to_map(0).len(), 2);
    }

    #[test]
    fn one_large_dict() {
        let n = 10_000;
        let edge = Edge::from_sizes(&[n]).unwrap();
        let keys = column(&(0..n).map(|k| Some(ScalarRef::Int64(k))).collect::<Vec<_>>());
        let values = column(&(0..n).map(|k| Some(ScalarRef::Int64(-k))).collect::<Vec<_>>());
        let d = DictColumns::build(&edge, &keys, &values).unwrap();
        assert!((0..n).all(|k| get(&d, 0, ScalarRef::Int32(k as i32)) == Some(Some(ScalarRef::Int64(-k)))));
        assert_eq!(get(&d, 0, ScalarRef::Int64(n)), None);
    }

    #[test]
    fn large_dicts_with_repeats_keep_the_last_values() {
        // Two dicts of 10,000 entries over 7,000 keys (and every 100th key
        // missing): the index is built once and renumbered.
        let n = 10_000i64;
        let edge = Edge::from_sizes(&[n, n]).unwrap();
        let key = |j: i64| (j % 100 != 0).then_some(ScalarRef::Int64(j % 7_000));
        let keys = column(&(0..2 * n).map(|j| key(j % n)).collect::<Vec<_>>());
        let values = column(&(0..2 * n).map(|j| Some(ScalarRef::Int64(j))).collect::<Vec<_>>());
        let d = DictColumns::build(&edge, &keys, &values).unwrap();
        for row in 0..2 {
            let offset = row as i64 * n;
            for k in 0..7_000i64 {
                // The last entry of key k that is present.
                let last = [k + 7_000, k].into_iter().find(|&j| j < n && j % 100 != 0);
                let want = last.map(|j| Some(ScalarRef::Int64(offset + j)));
                assert_eq!(get(&d, row, ScalarRef::Int64(k)), want, "row {row} key {k}");
            }
        }
        // Keys in the order first set: 1, 2, ... (0 is missing).
        let first: Vec<ScalarRef<'_>> = d.row(1).take(2).map(|e| d.entry(e).0).collect();
        assert_eq!(first, vec![ScalarRef::Int64(1), ScalarRef::Int64(2)]);
    }
}
