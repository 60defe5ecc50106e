//! The set of items a walk over data has reached (`kd.extract`, clones):
//! a bitmap of offsets per allocation, so that reaching the million items of
//! one `kd.new` costs a few words per 64 items rather than a hash-set entry
//! each, and a hash set for the rest (uuids, and offsets far beyond what an
//! allocation's bitmap holds).

use plait_core::{FastMap, FastSet, ItemId};

#[derive(Default)]
pub struct IdSet {
    by_allocation: FastMap<u64, Bits>,
    other: FastSet<ItemId>,
}

/// The offsets reached in one allocation.
#[derive(Default)]
struct Bits {
    words: Vec<u64>,
    count: usize,
}

/// A bitmap grows to cover an offset only while it stays within this many
/// words per offset it holds (plus a start), so crafted ids with huge
/// offsets cost a hash-set entry, never a huge bitmap.
const WORDS_PER_ITEM: usize = 4;
const WORDS_START: usize = 1024;

impl IdSet {
    /// Adds `id`; whether it was new.
    pub fn insert(&mut self, id: ItemId) -> bool {
        let Some(allocation) = id.allocation() else {
            return self.other.insert(id);
        };
        let bits = self.by_allocation.entry(allocation).or_default();
        let offset = id.offset() as usize;
        let word = offset / 64;
        if word >= bits.words.len() {
            if word >= WORDS_START + WORDS_PER_ITEM * bits.count {
                return self.other.insert(id);
            }
            bits.words.resize(word + 1, 0);
        }
        // An id kept in the hash set while the bitmap was too short for it.
        if !self.other.is_empty() && self.other.contains(&id) {
            return false;
        }
        let mask = 1u64 << (offset % 64);
        let fresh = bits.words[word] & mask == 0;
        bits.words[word] |= mask;
        bits.count += usize::from(fresh);
        fresh
    }

    /// Adds slots `0..len` of `allocation` when none of them was reached
    /// before (the items of one `kd.new`, reached whole); false, adding
    /// nothing, otherwise.
    pub fn insert_fresh_run(&mut self, allocation: u64, len: usize) -> bool {
        if self.by_allocation.contains_key(&allocation) || len == 0 {
            return false;
        }
        let mut words = vec![u64::MAX; len / 64];
        if len % 64 != 0 {
            words.push((1u64 << (len % 64)) - 1);
        }
        self.by_allocation.insert(allocation, Bits { words, count: len });
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_are_new_once() {
        let mut set = IdSet::default();
        let a = ItemId::in_allocation(7, 3);
        assert!(set.insert(a));
        assert!(!set.insert(a));
        assert!(set.insert(ItemId::in_allocation(7, 4)));
        assert!(set.insert(ItemId::in_allocation(8, 3)));
    }

    #[test]
    fn a_fresh_run_holds_its_slots_only() {
        let mut set = IdSet::default();
        assert!(set.insert_fresh_run(5, 70));
        assert!(!set.insert(ItemId::in_allocation(5, 0)));
        assert!(!set.insert(ItemId::in_allocation(5, 69)));
        assert!(set.insert(ItemId::in_allocation(5, 70)));
        assert!(!set.insert_fresh_run(5, 10));
    }

    #[test]
    fn huge_offsets_do_not_grow_bitmaps() {
        let mut set = IdSet::default();
        let far = ItemId::in_allocation(9, 1 << 40);
        assert!(set.insert(far));
        assert!(!set.insert(far));
        assert!(set.by_allocation.get(&9).is_none_or(|b| b.words.len() <= WORDS_START));
        // An id first kept aside is still known once the bitmap grows past it.
        let aside = ItemId::in_allocation(9, 100_000);
        assert!(set.insert(aside));
        for k in 0..(1 << 16) {
            set.insert(ItemId::in_allocation(9, k));
        }
        set.insert(ItemId::in_allocation(9, 100_001));
        assert!(set.by_allocation[&9].words.len() > 100_000 / 64);
        assert!(!set.insert(aside));
        assert!(!set.insert(far));
    }
}
