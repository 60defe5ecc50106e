//! The entries of every dict of a bag, keyed by the dict's ItemId.
//!
//! Each dict is a hash map holding key and value together (a lookup touches
//! one slot), with each entry's insertion rank, so that `get_keys` lists keys
//! in the order they were first set (Koda's order is its hash order). A key set to
//! missing stays in the dict (`Dict{'a'=None}`), as in Koda. A bag with
//! fallbacks holds, per layer, only the entries written there: a read takes
//! each key from the first layer that has it.
//!
//! Keys are compared as Koda compares them: INT32 and INT64 by value (the key
//! keeps the type it was first stored with), everything else by type and
//! value. Float keys are refused before they get here.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use hashbrown::{Equivalent, HashMap as FlatMap};

use super::Stored;
use crate::column::ScalarRef;
use crate::itemid::ItemId;

type FastHash = foldhash::fast::RandomState;

/// A stored key.
#[derive(Clone, Debug)]
pub struct DictKey(pub Stored);

/// A key to look up, borrowed from a column.
#[derive(Clone, Copy, Debug)]
pub struct KeyRef<'a>(pub ScalarRef<'a>);

/// One hash for a stored or borrowed key; INT32 and INT64 hash alike.
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
    }
}

fn same_key(a: ScalarRef<'_>, b: ScalarRef<'_>) -> bool {
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

impl Hash for DictKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        hash_scalar(self.0.as_ref(), state)
    }
}

impl PartialEq for DictKey {
    fn eq(&self, other: &DictKey) -> bool {
        same_key(self.0.as_ref(), other.0.as_ref())
    }
}

impl Eq for DictKey {}

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

impl Equivalent<DictKey> for KeyRef<'_> {
    fn equivalent(&self, key: &DictKey) -> bool {
        same_key(self.0, key.0.as_ref())
    }
}

/// One value of a dict and when its key was first set.
#[derive(Clone, Debug)]
struct Entry {
    value: Option<Stored>,
    rank: u32,
}

/// The entries of one dict (in one layer).
#[derive(Clone, Debug, Default)]
pub struct DictMap {
    entries: FlatMap<DictKey, Entry, FastHash>,
    next_rank: u32,
}

impl DictMap {
    /// `Some(value)` when the key is in the dict (the value may be missing).
    pub fn get(&self, key: ScalarRef<'_>) -> Option<Option<&Stored>> {
        self.entries.get(&KeyRef(key)).map(|e| e.value.as_ref())
    }

    /// Sets `key` to `value`; a key already present keeps its place and type.
    pub fn set(&mut self, key: ScalarRef<'_>, value: Option<ScalarRef<'_>>) {
        let value = value.map(Stored::from_ref);
        match self.entries.get_mut(&KeyRef(key)) {
            Some(entry) => entry.value = value,
            None => {
                self.entries.insert(DictKey(Stored::from_ref(key)), Entry { value, rank: self.next_rank });
                self.next_rank += 1;
            }
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = (&Stored, Option<&Stored>)> {
        let mut entries: Vec<(&DictKey, &Entry)> = self.entries.iter().collect();
        entries.sort_unstable_by_key(|(_, e)| e.rank);
        entries.into_iter().map(|(k, e)| (&k.0, e.value.as_ref()))
    }

    /// Whether `key` is in the dict.
    pub fn contains(&self, key: ScalarRef<'_>) -> bool {
        self.entries.contains_key(&KeyRef(key))
    }
}

/// All dicts of one bag (without its fallbacks).
#[derive(Clone, Debug, Default)]
pub struct DictStore {
    dicts: HashMap<ItemId, Arc<DictMap>, FastHash>,
}

impl DictStore {
    pub fn get(&self, id: ItemId) -> Option<&DictMap> {
        self.dicts.get(&id).map(Arc::as_ref)
    }

    /// The dict `id`, created empty when new, ready to change (copied first
    /// when a fork still shares it).
    pub fn get_mut(&mut self, id: ItemId) -> &mut DictMap {
        Arc::make_mut(self.dicts.entry(id).or_default())
    }

    pub fn is_empty(&self) -> bool {
        self.dicts.is_empty()
    }

    /// Every dict of the store.
    pub fn iter(&self) -> impl Iterator<Item = (ItemId, &DictMap)> {
        self.dicts.iter().map(|(id, d)| (*id, d.as_ref()))
    }

    /// Sets the entries of `other` that this store lacks (adoption: this
    /// store's entries win).
    pub fn merge_missing_from(&mut self, other: &DictStore) {
        for (id, theirs) in &other.dicts {
            match self.dicts.get(id) {
                None => {
                    self.dicts.insert(*id, theirs.clone());
                }
                Some(ours) => {
                    if theirs.iter().all(|(k, _)| ours.contains(k.as_ref())) {
                        continue;
                    }
                    let ours = self.get_mut(*id);
                    for (k, v) in theirs.iter() {
                        if !ours.contains(k.as_ref()) {
                            ours.set(k.as_ref(), v.map(Stored::as_ref));
                        }
                    }
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
        assert_eq!(d.get(ScalarRef::Int64(1)), Some(Some(&Stored::Int32(20))));
        let keys: Vec<&Stored> = d.iter().map(|(k, _)| k).collect();
        assert_eq!(keys, vec![&Stored::Int32(1), &Stored::Boolean(true)]);
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
    fn merging_keeps_our_entries() {
        let id = crate::itemid::allocate(crate::itemid::ItemKind::Dict, 1).1[0];
        let (mut ours, mut theirs) = (DictStore::default(), DictStore::default());
        ours.get_mut(id).set(ScalarRef::Int32(1), Some(ScalarRef::Int32(1)));
        theirs.get_mut(id).set(ScalarRef::Int32(1), Some(ScalarRef::Int32(2)));
        theirs.get_mut(id).set(ScalarRef::Int32(2), Some(ScalarRef::Int32(3)));
        ours.merge_missing_from(&theirs);
        let d = ours.get(id).unwrap();
        assert_eq!((d.get(ScalarRef::Int32(1)), d.len()), (Some(Some(&Stored::Int32(1))), 2));
    }
}
