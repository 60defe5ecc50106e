//! The items of every list of a bag, keyed by the list's ItemId.
//!
//! Lists created together (`kd.implode`, `kd.list_shaped`) are stored
//! *densely*: the allocation's lists are the rows of one jagged column, so
//! imploding a slice keeps its column as is and exploding the lists back is a
//! zero-copy view. Lists written one by one, or changed after creation, are
//! stored *sparsely*, each with its own items; a sparse list shadows the
//! dense row of the same id. Items appended to a list in place (`l.append`)
//! are kept as a *tail* of chunks after its items, so an append never copies
//! the list: chunks merge as they come, each at most half the size of the
//! one before it (a binary counter), so there are O(log n) of them and an
//! item is copied O(log n) times in all.

use std::ops::Range;
use std::sync::Arc;

use crate::column::{MISSING_INDEX, SliceBuilder, SliceData};
use crate::itemid::ItemId;
use crate::shape::Edge;

/// Lists of one allocation: list `offset` holds items `edge.child_range(offset)`.
#[derive(Clone, Debug)]
pub struct DenseLists {
    pub edge: Edge,
    pub items: SliceData,
}

/// All lists of one bag (without its fallbacks).
#[derive(Clone, Debug, Default)]
pub struct ListStore {
    dense: FastMap<u64, Arc<DenseLists>>,
    sparse: FastMap<ItemId, SliceData>,
    /// Items appended in place to lists held here, as chunks (see the
    /// module docs).
    tails: FastMap<ItemId, Vec<SliceData>>,
    /// How many ids of each allocation are keys of `sparse` or `tails`:
    /// whether an allocation is touched one list at a time is one lookup
    /// (merge checks ask it per allocation of the other bag).
    one_by_one: FastMap<u64, usize>,
}

use crate::FastMap;

/// Where the items of one list are: a range of a column, then the chunks
/// appended since.
#[derive(Clone, Debug)]
pub struct ListRef<'a> {
    pub items: &'a SliceData,
    pub range: Range<usize>,
    pub tail: &'a [SliceData],
}

impl<'a> ListRef<'a> {
    pub fn len(&self) -> usize {
        self.range.len() + self.tail.iter().map(SliceData::len).sum::<usize>()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The list's items, piece by piece: (column, range of it).
    pub fn pieces(&self) -> impl Iterator<Item = (&'a SliceData, Range<usize>)> + '_ {
        std::iter::once((self.items, self.range.clone())).chain(self.tail.iter().map(|c| (c, 0..c.len())))
    }

    /// Item `k` of the list: (column, index in it).
    pub fn locate(&self, mut k: usize) -> Option<(&'a SliceData, usize)> {
        for (items, range) in self.pieces() {
            if k < range.len() {
                return Some((items, range.start + k));
            }
            k -= range.len();
        }
        None
    }

    /// The list's items as one column.
    pub fn to_data(&self) -> SliceData {
        let sources: Vec<&SliceData> = self.pieces().map(|(items, _)| items).collect();
        let picks: Vec<(usize, usize)> = self.pieces().enumerate().flat_map(|(s, (_, range))| range.map(move |i| (s, i))).collect();
        gather(&sources, &picks)
    }
}

impl ListStore {
    /// The items of list `id`, or `None` when this store has no such list.
    pub fn get(&self, id: ItemId) -> Option<ListRef<'_>> {
        let tail = if self.tails.is_empty() { &[][..] } else { self.tails.get(&id).map_or(&[][..], Vec::as_slice) };
        if let Some(items) = self.sparse.get(&id) {
            return Some(ListRef { items, range: 0..items.len(), tail });
        }
        let dense = self.dense.get(&id.allocation()?)?;
        let offset = id.offset() as usize;
        (offset < dense.edge.parent_size()).then(|| ListRef { items: &dense.items, range: dense.edge.child_range(offset), tail })
    }

    /// The dense lists of `allocation`, when no list of it was changed since.
    pub fn dense(&self, allocation: u64) -> Option<&Arc<DenseLists>> {
        self.dense.get(&allocation)
    }

    /// The dense lists of `allocation` to change, when no list of it was
    /// changed one by one since.
    pub fn dense_mut(&mut self, allocation: u64) -> Option<&mut Arc<DenseLists>> {
        if self.has_sparse_in(allocation) {
            return None;
        }
        self.dense.get_mut(&allocation)
    }

    /// Whether any list of `allocation` is stored sparsely.
    pub fn has_sparse_in(&self, allocation: u64) -> bool {
        self.one_by_one.contains_key(&allocation)
    }

    /// Counts a new key of `sparse` or `tails` in [`Self::one_by_one`].
    fn count_key(&mut self, id: ItemId) {
        if let Some(allocation) = id.allocation() {
            *self.one_by_one.entry(allocation).or_default() += 1;
        }
    }

    /// Uncounts a key removed from `sparse` or `tails`.
    fn uncount_key(&mut self, id: ItemId) {
        if let Some(allocation) = id.allocation() {
            if let std::collections::hash_map::Entry::Occupied(mut n) = self.one_by_one.entry(allocation) {
                *n.get_mut() -= 1;
                if *n.get() == 0 {
                    n.remove();
                }
            }
        }
    }

    /// About how many lists are stored here (O(blocks)).
    pub fn len_hint(&self) -> usize {
        self.sparse.len() + self.dense.values().map(|d| d.edge.parent_size()).sum::<usize>()
    }

    /// [`Self::len_hint`], counted only until `cap` (see the dict store's).
    pub fn len_hint_capped(&self, cap: usize) -> usize {
        let mut n = self.sparse.len();
        for rows in self.dense.values().map(|d| d.edge.parent_size()) {
            if n >= cap {
                break;
            }
            n += rows;
        }
        n
    }

    /// Whether a list of `allocation` is stored here.
    pub fn touches_allocation(&self, allocation: u64) -> bool {
        self.dense.contains_key(&allocation) || self.has_sparse_in(allocation)
    }

    /// Calls `f` with the id of each list stored here, skipping the dense
    /// lists of allocations for which `wanted` is false.
    pub fn for_each_id(&self, wanted: impl Fn(u64) -> bool, mut f: impl FnMut(ItemId)) {
        self.sparse.keys().copied().for_each(&mut f);
        for (&allocation, dense) in &self.dense {
            if wanted(allocation) {
                (0..dense.edge.parent_size()).for_each(|offset| f(ItemId::in_allocation(allocation, offset as u64)));
            }
        }
    }

    /// Stores the lists of a whole allocation at once.
    ///
    /// The block holds lists `0..n` of `allocation`; it replaces what is
    /// stored of them, but never lists past `n`: when some of those are
    /// stored here (a larger block, lists written one by one), nothing is
    /// written and the result is false (the caller writes the lists one by
    /// one; `kd.extract` writes the lists reached, in any order).
    #[must_use]
    pub fn set_dense(&mut self, allocation: u64, lists: DenseLists) -> bool {
        let n = lists.edge.parent_size();
        let past = |id: &ItemId| id.allocation() == Some(allocation) && id.offset() as usize >= n;
        let one_by_one = self.has_sparse_in(allocation);
        if self.dense.get(&allocation).is_some_and(|d| d.edge.parent_size() > n)
            || (one_by_one && (self.sparse.keys().any(past) || self.tails.keys().any(past)))
        {
            return false;
        }
        if one_by_one {
            self.sparse.retain(|id, _| id.allocation() != Some(allocation));
            self.tails.retain(|id, _| id.allocation() != Some(allocation));
            self.one_by_one.remove(&allocation);
        }
        self.dense.insert(allocation, Arc::new(lists));
        true
    }

    /// Replaces the items of list `id`.
    pub fn set(&mut self, id: ItemId, items: SliceData) {
        if self.sparse.insert(id, items).is_none() {
            self.count_key(id);
        }
        if self.tails.remove(&id).is_some() {
            self.uncount_key(id);
        }
    }

    /// Appends `items` to list `id`, which this store holds (false when it
    /// does not): a chunk of its tail, merged with the chunks before it
    /// while they are no larger.
    pub fn append(&mut self, id: ItemId, items: SliceData) -> bool {
        if self.get(id).is_none() {
            return false;
        }
        if items.is_empty() {
            return true;
        }
        if !self.tails.contains_key(&id) {
            self.count_key(id);
        }
        let chunks = self.tails.entry(id).or_default();
        chunks.push(items);
        while let [.., before, last] = &chunks[..] {
            if before.len() > last.len() {
                break;
            }
            let merged = before.concat(last);
            chunks.truncate(chunks.len() - 2);
            chunks.push(merged);
        }
        true
    }

    /// Number of lists with at least one item, and their items (for the bag's
    /// statistics).
    pub fn counts(&self) -> (usize, usize) {
        let mut lists = 0;
        let mut items = 0;
        for (&allocation, dense) in &self.dense {
            for i in 0..dense.edge.parent_size() {
                if !self.sparse.is_empty() && self.sparse.contains_key(&ItemId::in_allocation(allocation, i as u64)) {
                    continue; // shadowed by the sparse copy counted below
                }
                let n = dense.edge.child_range(i).len();
                lists += usize::from(n > 0);
                items += n;
            }
        }
        for list in self.sparse.values() {
            lists += usize::from(!list.is_empty());
            items += list.len();
        }
        for (id, tail) in &self.tails {
            let appended: usize = tail.iter().map(SliceData::len).sum();
            let base = self.get(*id).map_or(0, |l| l.range.len());
            lists += usize::from(base == 0 && appended > 0);
            items += appended;
        }
        (lists, items)
    }

    /// Whether no list is stored here.
    pub fn is_empty(&self) -> bool {
        self.dense.is_empty() && self.sparse.is_empty()
    }

    /// The ids of every list stored here.
    pub fn ids(&self) -> Vec<ItemId> {
        let mut out: Vec<ItemId> = self.sparse.keys().copied().collect();
        for (&allocation, dense) in &self.dense {
            for offset in 0..dense.edge.parent_size() {
                let id = ItemId::in_allocation(allocation, offset as u64);
                if !self.sparse.contains_key(&id) {
                    out.push(id);
                }
            }
        }
        out
    }
}

/// Items picked from several columns: `picks[i] = (source, index)`, with
/// `index == MISSING_INDEX` for a missing item. One source (the usual case)
/// is a single `take`; several are merged item by item.
pub fn gather(sources: &[&SliceData], picks: &[(usize, usize)]) -> SliceData {
    if let [only] = sources {
        let indices: Vec<usize> = picks.iter().map(|&(_, i)| i).collect();
        return only.take(&indices);
    }
    if let Some(data) = gather_numbers(sources, picks) {
        return data;
    }
    let mut builder = SliceBuilder::with_capacity(picks.len());
    for &(source, index) in picks {
        builder.push(if index == MISSING_INDEX { None } else { sources[source].get(index) });
    }
    builder.finish()
}

/// [`gather`] when every source is one column of the same fixed-width type
/// (or all missing): one typed pass, no per-item dispatch.
fn gather_numbers(sources: &[&SliceData], picks: &[(usize, usize)]) -> Option<SliceData> {
    use arrow_buffer::{ArrowNativeType, BooleanBuffer, NullBuffer, ScalarBuffer};

    use crate::column::{Column, Values};

    let columns: Vec<Option<&Column>> = sources.iter().map(|s| if s.present_count() == 0 { None } else { s.single_column() }).collect();
    let first = columns.iter().flatten().next()?;
    if sources.iter().zip(&columns).any(|(s, c)| c.is_none() && s.present_count() > 0) {
        return None;
    }
    fn pick<T: ArrowNativeType>(bufs: &[Option<&ScalarBuffer<T>>], picks: &[(usize, usize)]) -> ScalarBuffer<T> {
        let out: Vec<T> = picks
            .iter()
            .map(|&(s, i)| match bufs[s] {
                Some(v) if i != MISSING_INDEX => v[i],
                _ => T::default(),
            })
            .collect();
        ScalarBuffer::from(out)
    }
    fn bits(v: &crate::column::IdBits) -> &ScalarBuffer<i128> {
        v.bits()
    }
    macro_rules! typed {
        ($variant:ident, $get:expr) => {{
            let bufs: Vec<Option<&ScalarBuffer<_>>> = columns
                .iter()
                .map(|c| match c {
                    None => Ok(None),
                    Some(Column { values: Values::$variant(v), .. }) => Ok(Some($get(v))),
                    Some(_) => Err(()),
                })
                .collect::<Result<_, ()>>()
                .ok()?;
            pick(&bufs, picks)
        }};
    }
    let values = match &first.values {
        Values::Int32(_) => Values::Int32(typed!(Int32, std::convert::identity)),
        Values::Int64(_) => Values::Int64(typed!(Int64, std::convert::identity)),
        Values::Float32(_) => Values::Float32(typed!(Float32, std::convert::identity)),
        Values::Float64(_) => Values::Float64(typed!(Float64, std::convert::identity)),
        Values::ItemId(_) => Values::ItemId(typed!(ItemId, bits).into()),
        _ => return None,
    };
    let present = BooleanBuffer::collect_bool(picks.len(), |j| {
        let (s, i) = picks[j];
        i != MISSING_INDEX && columns[s].is_some_and(|c| c.is_present(i))
    });
    let presence = (present.count_set_bits() < picks.len()).then(|| NullBuffer::new(present));
    Some(SliceData::from_column(Column::new(values, presence)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::column::ScalarRef;
    use crate::itemid::{ItemKind, allocate};

    fn ints(values: &[i32]) -> SliceData {
        let mut b = SliceBuilder::new();
        for &v in values {
            b.push(Some(ScalarRef::Int32(v)));
        }
        b.finish()
    }

    #[test]
    fn sparse_lists_shadow_dense_rows() {
        let (_, ids) = allocate(ItemKind::List, 2);
        let allocation = ids[0].allocation().unwrap();
        let mut store = ListStore::default();
        assert!(store.set_dense(allocation, DenseLists { edge: Edge::from_sizes(&[2, 1]).unwrap(), items: ints(&[1, 2, 3]) }));
        assert_eq!(store.get(ids[1]).unwrap().range, 2..3);
        store.set(ids[0], ints(&[9]));
        let first = store.get(ids[0]).unwrap();
        assert_eq!((first.len(), first.items.get(0)), (1, Some(ScalarRef::Int32(9))));
        assert!(store.has_sparse_in(allocation));
        assert_eq!(store.counts(), (2, 2));
        assert_eq!(store.ids().len(), 2);
        let (_, others) = allocate(ItemKind::List, 1);
        assert!(store.get(others[0]).is_none());
    }

    #[test]
    fn lists_set_one_by_one_are_counted_per_allocation() {
        let (_, ids) = allocate(ItemKind::List, 2);
        let allocation = ids[0].allocation().unwrap();
        let mut store = ListStore::default();
        assert!(!store.has_sparse_in(allocation));
        store.set(ids[0], ints(&[1]));
        store.set(ids[0], ints(&[2]));
        assert!(store.append(ids[0], ints(&[3])));
        assert!(store.has_sparse_in(allocation) && store.touches_allocation(allocation));
        // A block of the whole allocation replaces the lists set one by one.
        assert!(store.set_dense(allocation, DenseLists { edge: Edge::from_sizes(&[1, 1]).unwrap(), items: ints(&[4, 5]) }));
        assert!(!store.has_sparse_in(allocation) && store.touches_allocation(allocation));
        assert_eq!(store.get(ids[0]).unwrap().len(), 1);
        let (_, others) = allocate(ItemKind::List, 1);
        assert!(!store.touches_allocation(others[0].allocation().unwrap()));
    }

    #[test]
    fn a_dense_block_never_drops_lists_past_it() {
        let (_, ids) = allocate(ItemKind::List, 3);
        let allocation = ids[0].allocation().unwrap();
        let mut store = ListStore::default();
        // List 2 first (as a copy meets it), then lists 0..1 as a block.
        store.set(ids[2], ints(&[7]));
        assert!(!store.set_dense(allocation, DenseLists { edge: Edge::from_sizes(&[1]).unwrap(), items: ints(&[5]) }));
        assert_eq!(store.get(ids[2]).unwrap().items.get(0), Some(ScalarRef::Int32(7)));
        // A larger block is not replaced by a smaller one either.
        let mut store = ListStore::default();
        assert!(store.set_dense(allocation, DenseLists { edge: Edge::from_sizes(&[1, 1, 1]).unwrap(), items: ints(&[1, 2, 3]) }));
        assert!(!store.set_dense(allocation, DenseLists { edge: Edge::from_sizes(&[1]).unwrap(), items: ints(&[9]) }));
        assert_eq!(store.get(ids[2]).unwrap().len(), 1);
        // Lists 0..n replace what is stored of them.
        store.set(ids[0], ints(&[4, 4]));
        assert!(store.set_dense(allocation, DenseLists { edge: Edge::from_sizes(&[1, 1, 2]).unwrap(), items: ints(&[1, 2, 3, 3]) }));
        assert_eq!((store.get(ids[0]).unwrap().len(), store.get(ids[2]).unwrap().len()), (1, 2));
    }

    #[test]
    fn gather_from_one_or_several_sources() {
        let (a, b) = (ints(&[1, 2]), ints(&[3]));
        let one = gather(&[&a], &[(0, 1), (0, MISSING_INDEX), (0, 0)]);
        assert_eq!((one.get(0), one.get(1), one.get(2)), (Some(ScalarRef::Int32(2)), None, Some(ScalarRef::Int32(1))));
        let two = gather(&[&a, &b], &[(1, 0), (0, 0)]);
        assert_eq!((two.get(0), two.get(1)), (Some(ScalarRef::Int32(3)), Some(ScalarRef::Int32(1))));
    }
}
