//! The attributes of one layer of a bag, by name, and which of them an item
//! may have.
//!
//! Values are stored a column per attribute name, which makes reading one
//! attribute of many items fast; "which attributes does this item have"
//! (a schema's attribute names, read for every schema by `kd.clone`,
//! `to_py` and reprs) asks every attribute instead. A layer holding
//! thousands of names (records with differing keys, one schema each) made
//! that quadratic. Such a layer builds an index from each allocation (or
//! item: a uuid, or one of the few items of an allocation a name holds,
//! such as schemas made together with attributes of their own) to the
//! names whose values hold it, once it has spent as much
//! on scanning as building costs (so a mutable bag written between
//! questions never pays more than twice what scanning would); any change
//! of the layer drops the index.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use super::attr_store::AttrStore;
use crate::itemid::ItemId;

use crate::FastHash;

/// Layers with at most this many names are always scanned.
const SCAN_ALWAYS: usize = 32;

/// What the index keys names by: an item's allocation, or the item itself
/// (a uuid, which has none, or an item filed by itself: see
/// `AttrStore::for_each_index_holder`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Holder {
    Allocation(u64),
    Item(ItemId),
}

impl Holder {
    pub(super) fn of(id: ItemId) -> Holder {
        id.allocation().map_or(Holder::Item(id), Holder::Allocation)
    }
}

/// The names of a layer with their values, and for each holder the
/// positions among them of those whose values hold items of it (4 bytes a
/// name: a million objects made one by one, forty attributes each, index in
/// about 200 MB, not 700). The values are held here (shared with the map,
/// which drops the index before any change), so that listing an item's
/// attributes does not hash each name again: in a layer of thousands of
/// names each lookup by name is a few cache misses.
#[derive(Clone, Debug, Default)]
struct NameIndex {
    entries: Vec<(Arc<str>, Arc<AttrStore>)>,
    by_holder: HashMap<Holder, Vec<u32>, FastHash>,
}

/// One layer's attribute values by name (reads through `Deref`; every
/// change goes through a method here, which drops the index).
#[derive(Debug, Default)]
pub(super) struct AttrMap {
    by_name: HashMap<Arc<str>, Arc<AttrStore>, FastHash>,
    /// For each holder, the names whose values hold items of it.
    by_holder: OnceLock<NameIndex>,
    /// What building the index costs, at most (computed once per change).
    build_cost: OnceLock<usize>,
    /// Names scanned since the last change.
    scanned: AtomicUsize,
}

impl Clone for AttrMap {
    fn clone(&self) -> AttrMap {
        AttrMap {
            by_name: self.by_name.clone(),
            by_holder: self.by_holder.clone(),
            build_cost: self.build_cost.clone(),
            scanned: AtomicUsize::new(self.scanned.load(Ordering::Relaxed)),
        }
    }
}

impl std::ops::Deref for AttrMap {
    type Target = HashMap<Arc<str>, Arc<AttrStore>, FastHash>;

    fn deref(&self) -> &Self::Target {
        &self.by_name
    }
}

impl<'a> IntoIterator for &'a AttrMap {
    type Item = (&'a Arc<str>, &'a Arc<AttrStore>);
    type IntoIter = std::collections::hash_map::Iter<'a, Arc<str>, Arc<AttrStore>>;

    fn into_iter(self) -> Self::IntoIter {
        self.by_name.iter()
    }
}

impl AttrMap {
    /// The values of `name`, for changing them (created empty when new; the
    /// name is copied only then).
    pub(super) fn values_mut(&mut self, name: &str) -> &mut Arc<AttrStore> {
        self.changed();
        if !self.by_name.contains_key(name) {
            self.by_name.insert(Arc::from(name), Arc::default());
        }
        self.by_name.get_mut(name).expect("inserted above")
    }

    /// The values of `name` if there are any, for changing them.
    pub(super) fn get_mut(&mut self, name: &str) -> Option<&mut Arc<AttrStore>> {
        self.changed();
        self.by_name.get_mut(name)
    }

    pub(super) fn insert(&mut self, name: Arc<str>, values: Arc<AttrStore>) {
        self.changed();
        self.by_name.insert(name, values);
    }

    fn changed(&mut self) {
        if self.by_holder.get().is_some() || self.build_cost.get().is_some() {
            self.by_holder = OnceLock::new();
            self.build_cost = OnceLock::new();
        }
        *self.scanned.get_mut() = 0;
    }

    /// Calls `f` with each attribute whose values may hold `id` (all of them,
    /// or those the index lists for it): a superset of those that do.
    pub(super) fn for_each_candidate<'a>(&'a self, id: ItemId, mut f: impl FnMut(&'a Arc<str>, &'a AttrStore)) {
        if let Some(index) = self.index() {
            // Names filed under the item's allocation and under the item
            // itself (see `AttrStore::for_each_index_holder`; a name is filed
            // one way for an allocation, never both).
            let by_allocation = id.allocation().and_then(|a| index.by_holder.get(&Holder::Allocation(a)));
            let by_item = index.by_holder.get(&Holder::Item(id));
            for &k in by_allocation.into_iter().flatten().chain(by_item.into_iter().flatten()) {
                let (name, values) = &index.entries[k as usize];
                f(name, values);
            }
            return;
        }
        self.by_name.iter().for_each(|(name, values)| f(name, values));
    }

    /// For items grouped by holder (`groups`: each holder with the
    /// positions of its items in `ids`), each name whose values may hold
    /// some of them, with those positions (a superset, unsorted; names by
    /// their key in this map): read from the index, so the cost is what the
    /// items may have, not every name of the layer. `None` when there is no
    /// index (yet): scan.
    pub(super) fn held_by_groups(&self, groups: &[(Holder, Vec<usize>)], ids: &[Option<ItemId>]) -> Option<Vec<(&Arc<str>, Vec<usize>)>> {
        let index = self.index()?;
        let mut by_name: HashMap<u32, Vec<usize>, FastHash> = HashMap::default();
        for (holder, positions) in groups {
            for &k in index.by_holder.get(holder).into_iter().flatten() {
                by_name.entry(k).or_default().extend(positions);
            }
            // Names filed under items of the allocation one by one.
            if let Holder::Allocation(_) = holder {
                for &i in positions {
                    let Some(id) = ids[i] else { continue };
                    for &k in index.by_holder.get(&Holder::Item(id)).into_iter().flatten() {
                        by_name.entry(k).or_default().push(i);
                    }
                }
            }
        }
        Some(by_name.into_iter().map(|(k, positions)| (&index.entries[k as usize].0, positions)).collect())
    }

    /// The index, when there is one or it is time to build it (see the
    /// module docs); `None` means: scan.
    fn index(&self) -> Option<&NameIndex> {
        if self.by_name.len() <= SCAN_ALWAYS {
            return None;
        }
        if let Some(index) = self.by_holder.get() {
            return Some(index);
        }
        let spent = self.scanned.fetch_add(self.by_name.len(), Ordering::Relaxed) + self.by_name.len();
        let cost = *self.build_cost.get_or_init(|| self.by_name.values().map(|v| v.holders_bound()).sum());
        (spent >= cost).then(|| self.by_holder.get_or_init(|| self.build_index()))
    }

    fn build_index(&self) -> NameIndex {
        let mut index = NameIndex::default();
        for (k, (name, values)) in self.by_name.iter().enumerate() {
            index.entries.push((name.clone(), values.clone()));
            let k = u32::try_from(k).expect("fewer than 2^32 attribute names");
            values.for_each_index_holder(|holder| index.by_holder.entry(holder).or_default().push(k));
        }
        index
    }
}

#[cfg(test)]
mod tests {
    use crate::bag::DataBag;
    use crate::column::{ScalarRef, SliceBuilder, SliceData};
    use crate::itemid::{ItemId, ItemKind, allocate};

    fn int(v: i32) -> SliceData {
        let mut b = SliceBuilder::new();
        b.push(Some(ScalarRef::Int32(v)));
        b.finish()
    }

    #[test]
    fn the_names_of_an_item_are_the_same_before_and_after_the_index_and_after_changes() {
        // Many items, each with its own names (records with differing
        // keys), some allocated one by one, some uuids, some allocated
        // together (schemas made at once: filed item by item for their own
        // names, by allocation for names many of them have).
        let bag = DataBag::new_mutable();
        let together = allocate(ItemKind::Object, 200).1;
        let mut items: Vec<(ItemId, Vec<String>)> = Vec::new();
        for k in 0..200 {
            let id = match k % 3 {
                0 => ItemId::uuid(ItemKind::Object, 1000 + k as u128),
                1 => allocate(ItemKind::Object, 1).1[0],
                _ => together[k as usize],
            };
            let mut names = vec![format!("own{k}"), "shared".to_string()];
            if k % 10 == 2 {
                names.push("tenth".to_string());
            }
            for name in &names {
                bag.set_attr("op", name, &[Some(id)], &int(k)).unwrap();
            }
            items.push((id, names));
        }
        let expect = |names: &[String]| {
            let mut names = names.to_vec();
            names.sort();
            names
        };
        // Which names each item may hold, by scanning the names (no index
        // yet), then from the index: both list at least the items that hold
        // each name, the index no more than the scan.
        let ids: Vec<Option<ItemId>> = items.iter().map(|(id, _)| Some(*id)).collect();
        let held = |bag: &DataBag| -> std::collections::BTreeMap<String, Vec<usize>> {
            bag.attrs_held_by(&ids).into_iter().map(|(name, positions)| (name.to_string(), positions)).collect()
        };
        assert!(bag.read().attrs.by_holder.get().is_none());
        let scanned = held(&bag);
        assert!(bag.read().attrs.by_holder.get().is_none(), "read by scanning");
        let holders = |name: &str| -> Vec<usize> { (0..items.len()).filter(|&i| items[i].1.iter().any(|n| n == name)).collect() };
        for (name, positions) in &scanned {
            assert!(holders(name).iter().all(|i| positions.contains(i)), "{name}");
        }
        // Enough questions to build the index, then more through it.
        for _ in 0..3 {
            for (id, names) in &items {
                assert_eq!(bag.attr_names(*id), expect(names));
            }
        }
        assert!(bag.read().attrs.by_holder.get().is_some(), "the index was built");
        // An item made together with others is asked about its own names,
        // not every name of its allocation.
        let mut candidates = 0;
        bag.read().attrs.for_each_candidate(together[5], |_, _| candidates += 1);
        assert_eq!(candidates, 3, "own5, shared, tenth");
        let indexed = held(&bag);
        assert_eq!(indexed.keys().collect::<Vec<_>>(), scanned.keys().collect::<Vec<_>>());
        for (name, positions) in &indexed {
            assert!(holders(name).iter().all(|i| positions.contains(i)), "{name}");
            assert!(positions.iter().all(|i| scanned[name].contains(i)), "{name}");
        }
        assert_eq!(indexed["own5"], vec![5], "an item made together with others holds its own name alone");
        // A change drops it; the new name is found by the scan and by the
        // rebuilt index alike.
        let (id, names) = &mut items[7];
        bag.set_attr("op", "late", &[Some(*id)], &int(1)).unwrap();
        names.push("late".to_string());
        assert!(bag.read().attrs.by_holder.get().is_none());
        for _ in 0..3 {
            for (id, names) in &items {
                assert_eq!(bag.attr_names(*id), expect(names));
            }
        }
        // Set to missing: still held by the store, not listed.
        let (id, names) = &mut items[8];
        bag.set_attr("op", "shared", &[Some(*id)], &SliceData::missing(1)).unwrap();
        names.retain(|n| n != "shared");
        for (id, names) in &items {
            assert_eq!(bag.attr_names(*id), expect(names));
        }
    }
}
