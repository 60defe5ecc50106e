//! The values of one attribute for every item of a bag.
//!
//! Items of one allocation that were written together are stored *densely*: a
//! column indexed by the item's offset (so `kd.new(x=slice)` stores `slice`'s
//! column as is, and reading `.x` back is a zero-copy view). Other items
//! (uuids, and a few items of an allocation) are stored *sparsely* in a map.
//! An allocation lives in one of the two, never both, so a read looks in one
//! place. Each item is *set* (to a value, or explicitly to missing) or *unset*
//! (the bag says nothing; a fallback bag may).

use std::collections::HashMap;
use std::sync::Arc;

use arrow_buffer::{BooleanBuffer, BooleanBufferBuilder};

use crate::column::{ScalarRef, SliceBuilder, SliceData, Values, MISSING_INDEX};
use crate::itemid::ItemId;
use crate::schema::Schema;

/// Writes of at least this many items of one allocation go to a dense column.
const DENSE_MIN_WRITE: usize = 16;

/// One item's value, owned (sparse storage).
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
    Schema(Schema),
    ItemId(ItemId),
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
            ScalarRef::Schema(v) => Stored::Schema(v),
            ScalarRef::ItemId(v) => Stored::ItemId(v),
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
            Stored::Schema(v) => ScalarRef::Schema(*v),
            Stored::ItemId(v) => ScalarRef::ItemId(*v),
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

/// The result of a lookup: values, and which positions the store says nothing
/// about (to be looked up in fallbacks).
pub struct Lookup {
    pub data: SliceData,
    pub unset: Vec<usize>,
}

/// All values of one attribute.
#[derive(Clone, Debug, Default)]
pub struct AttrStore {
    dense: HashMap<u64, Dense>,
    sparse: HashMap<ItemId, Option<Stored>>,
}

impl AttrStore {
    /// Number of present values (for bag statistics).
    pub fn value_count(&self) -> usize {
        self.dense.values().map(|d| d.data.present_count()).sum::<usize>()
            + self.sparse.values().filter(|v| v.is_some()).count()
    }

    /// The items that have this attribute set (present or explicitly missing).
    pub fn set_items(&self) -> Vec<ItemId> {
        let mut out: Vec<ItemId> = self.sparse.keys().copied().collect();
        for (&high, dense) in &self.dense {
            for offset in 0..dense.data.len() {
                if dense.is_set(offset) {
                    out.push(ItemId(((high as u128) << 64) | offset as u128));
                }
            }
        }
        out
    }

    /// The value of one item: `None` when unset, `Some(None)` when set missing.
    pub fn get_one(&self, id: ItemId) -> Option<Option<ScalarRef<'_>>> {
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
        let mut builder = SliceBuilder::new();
        let mut unset = Vec::new();
        for (i, id) in ids.iter().enumerate() {
            match id.map(|id| self.get_one(id)) {
                None => builder.push(None),
                Some(None) => {
                    unset.push(i);
                    builder.push(None)
                }
                Some(Some(v)) => builder.push(v),
            }
        }
        Lookup { data: builder.finish(), unset }
    }

    /// All present ids from one allocation stored densely: one gather (or none,
    /// when the ids are exactly the allocation in order).
    fn get_dense_fast(&self, ids: &[Option<ItemId>]) -> Option<Lookup> {
        let first = ids.iter().flatten().next()?;
        let allocation = first.allocation()?;
        let dense = self.dense.get(&allocation)?;
        let mut identity = ids.len() == dense.data.len();
        let mut indices = Vec::with_capacity(ids.len());
        let mut unset = Vec::new();
        for (i, id) in ids.iter().enumerate() {
            match id {
                None => {
                    identity = false;
                    indices.push(MISSING_INDEX)
                }
                Some(id) if id.allocation() == Some(allocation) => {
                    let offset = id.offset() as usize;
                    identity &= offset == i;
                    if dense.is_set(offset) {
                        indices.push(offset)
                    } else {
                        unset.push(i);
                        indices.push(MISSING_INDEX)
                    }
                }
                Some(_) => return None,
            }
        }
        let data = if identity { dense.data.clone() } else { dense.data.take(&indices) };
        Some(Lookup { data, unset })
    }

    /// Sets the attribute of `ids[i]` to `values[i]` for every present id.
    pub fn set(&mut self, ids: &[Option<ItemId>], values: &SliceData) {
        let present: Vec<(usize, ItemId)> = ids.iter().enumerate().filter_map(|(i, id)| id.map(|id| (i, id))).collect();
        let Some(&(_, first)) = present.first() else { return };
        let one_allocation = first.allocation().filter(|&a| present.iter().all(|(_, id)| id.allocation() == Some(a)));
        if let Some(allocation) = one_allocation {
            if self.dense.contains_key(&allocation) || present.len() >= DENSE_MIN_WRITE {
                self.set_dense(allocation, &present, values);
                return;
            }
        }
        for (i, id) in present {
            self.set_sparse(id, values.get(i));
        }
    }

    fn set_sparse(&mut self, id: ItemId, value: Option<ScalarRef<'_>>) {
        if let Some(allocation) = id.allocation().filter(|a| self.dense.contains_key(a)) {
            // The allocation is dense: write there.
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
            && !self.sparse.keys().any(|id| id.allocation() == Some(allocation))
        {
            self.dense.insert(allocation, Dense { data: values.clone(), set: None });
            return;
        }
        let old = self.dense.remove(&allocation);
        let old_len = old.as_ref().map_or(0, |d| d.data.len());
        let len = old_len.max(max_offset + 1);
        // Which new value (position in `values`) goes to each slot.
        let mut source = vec![MISSING_INDEX; len];
        for &(i, id) in present {
            source[id.offset() as usize] = i;
        }
        let moved: Vec<(usize, Option<Stored>)> = {
            let keys: Vec<ItemId> = self.sparse.keys().filter(|id| id.allocation() == Some(allocation)).copied().collect();
            keys.into_iter().map(|id| (id.offset() as usize, self.sparse.remove(&id).flatten())).collect()
        };
        let moved_at: HashMap<usize, Option<Stored>> = moved.into_iter().filter(|(o, _)| *o < len).collect();
        let mut builder = SliceBuilder::new();
        let mut set = BooleanBufferBuilder::new(len);
        for (offset, &src) in source.iter().enumerate() {
            if src != MISSING_INDEX {
                builder.push(values.get(src));
                set.append(true);
            } else if let Some(v) = moved_at.get(&offset) {
                builder.push(v.as_ref().map(Stored::as_ref));
                set.append(true);
            } else if let Some(d) = old.as_ref().filter(|d| d.is_set(offset)) {
                builder.push(d.data.get(offset));
                set.append(true);
            } else {
                builder.push(None);
                set.append(false);
            }
        }
        let set = set.finish();
        let set = (set.count_set_bits() < len).then_some(set);
        self.dense.insert(allocation, Dense { data: builder.finish(), set });
    }

    /// Bytes held by dense columns (for the memory report).
    pub fn dense_bytes(&self) -> usize {
        self.dense
            .values()
            .map(|d| d.data.columns().iter().map(|c| values_bytes(&c.values)).sum::<usize>())
            .sum()
    }
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
    }
}
