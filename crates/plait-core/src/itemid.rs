//! ItemIds: the 128-bit identities of entities, objects, lists, dicts and
//! struct schemas.
//!
//! ```text
//!  127..124  123   122 ........ 64   63 ........ 0
//!  kind      uuid  allocation         offset          (allocated ids)
//!  kind      uuid  hash bits ......................   (uuids: uuid bit set)
//! ```
//!
//! Items created together (`kd.new(x=slice)`) share one allocation and have
//! consecutive offsets, so a DataBag can store their attributes as one dense
//! column indexed by offset. Uuids are derived from content (a stable hash) and
//! are stored sparsely. The kind lives in the id itself, so `List:$…` vs
//! `Entity:$…` needs no lookup.

use std::hash::{BuildHasher, Hasher};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

/// What an ItemId identifies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ItemKind {
    /// An entity or object (attributes).
    Object = 0,
    List = 1,
    Dict = 2,
    /// An explicit struct schema (`kd.new`, `kd.schema.new_schema`, named, uu).
    Schema = 3,
    /// The implicit schema of one object (`kd.obj`); its attributes may be
    /// overwritten without `overwrite_schema=True`.
    ImplicitSchema = 4,
    /// The nofollow schema of an explicit struct schema (`kd.nofollow`):
    /// the same bits as the schema it wraps, with this kind, so that each
    /// gives the other back without a lookup.
    NofollowSchema = 5,
    /// The nofollow schema of an implicit schema.
    NofollowImplicitSchema = 6,
}

impl ItemKind {
    fn from_bits(bits: u8) -> ItemKind {
        match bits {
            1 => ItemKind::List,
            2 => ItemKind::Dict,
            3 => ItemKind::Schema,
            4 => ItemKind::ImplicitSchema,
            5 => ItemKind::NofollowSchema,
            6 => ItemKind::NofollowImplicitSchema,
            _ => ItemKind::Object,
        }
    }
}

const KIND_SHIFT: u32 = 124;
const UUID_BIT: u128 = 1 << 123;
const ALLOCATION_MASK: u64 = (1 << 59) - 1;

/// A 128-bit item identity.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ItemId(pub u128);

impl ItemId {
    /// The id at `offset` of an allocation.
    pub fn new(kind: ItemKind, allocation: u64, offset: u64) -> ItemId {
        let high = ((kind as u128) << KIND_SHIFT) | (((allocation & ALLOCATION_MASK) as u128) << 64);
        ItemId(high | offset as u128)
    }

    /// A uuid of `kind` from 128 bits of hash.
    pub fn uuid(kind: ItemKind, hash: u128) -> ItemId {
        let hash = hash & ((1u128 << 123) - 1);
        ItemId(((kind as u128) << KIND_SHIFT) | UUID_BIT | hash)
    }

    /// What the id identifies.
    pub fn kind(self) -> ItemKind {
        ItemKind::from_bits((self.0 >> KIND_SHIFT) as u8)
    }

    /// Whether the id was derived from content (`kd.uuid`, `kd.uu`, ...).
    pub fn is_uuid(self) -> bool {
        self.0 & UUID_BIT != 0
    }

    /// Whether this is a struct schema (explicit, implicit or nofollow).
    pub fn is_schema(self) -> bool {
        matches!(self.kind(), ItemKind::Schema | ItemKind::ImplicitSchema | ItemKind::NofollowSchema | ItemKind::NofollowImplicitSchema)
    }

    /// Whether this is a nofollow schema: walks over data (`kd.extract`,
    /// the clones, `kd.deep_uuid`) stop at values of such a schema.
    pub fn is_nofollow(self) -> bool {
        matches!(self.kind(), ItemKind::NofollowSchema | ItemKind::NofollowImplicitSchema)
    }

    /// The nofollow schema of struct schema `self` (`None` when `self` is no
    /// struct schema, or a nofollow schema already).
    pub fn nofollow(self) -> Option<ItemId> {
        match self.kind() {
            ItemKind::Schema => Some(self.with_kind(ItemKind::NofollowSchema)),
            ItemKind::ImplicitSchema => Some(self.with_kind(ItemKind::NofollowImplicitSchema)),
            _ => None,
        }
    }

    /// The struct schema nofollow schema `self` wraps (`None` when `self` is
    /// no nofollow schema).
    pub fn nofollowed(self) -> Option<ItemId> {
        match self.kind() {
            ItemKind::NofollowSchema => Some(self.with_kind(ItemKind::Schema)),
            ItemKind::NofollowImplicitSchema => Some(self.with_kind(ItemKind::ImplicitSchema)),
            _ => None,
        }
    }

    pub fn is_list(self) -> bool {
        self.kind() == ItemKind::List
    }

    pub fn is_dict(self) -> bool {
        self.kind() == ItemKind::Dict
    }

    /// The allocation key (kind, uuid bit and allocation number): the items
    /// of one allocation share it. `None` for uuids, which have no allocation.
    pub fn allocation(self) -> Option<u64> {
        (!self.is_uuid()).then_some((self.0 >> 64) as u64)
    }

    /// The id at `offset` of the allocation whose key (see
    /// [`Self::allocation`]) is `key`.
    pub fn in_allocation(key: u64, offset: u64) -> ItemId {
        ItemId(((key as u128) << 64) | offset as u128)
    }

    /// The position inside the allocation.
    pub fn offset(self) -> u64 {
        self.0 as u64
    }

    /// The same allocation and offset with another kind: how an object's
    /// implicit schema is named (one per object, dense like the objects).
    pub fn with_kind(self, kind: ItemKind) -> ItemId {
        ItemId((self.0 & !(0xF << KIND_SHIFT)) | ((kind as u128) << KIND_SHIFT))
    }

    /// The 22-character base-62 text of the id (`kd.encode_itemid`).
    pub fn encode(self) -> String {
        let mut digits = [b'0'; 22];
        let mut v = self.0;
        for d in digits.iter_mut().rev() {
            *d = BASE62[(v % 62) as usize];
            v /= 62;
        }
        String::from_utf8(digits.to_vec()).expect("base-62 digits are ASCII")
    }

    /// Parses [`Self::encode`]'s text.
    pub fn decode(text: &str) -> Option<ItemId> {
        // A shorter text is a number with its leading zeros left out, as
        // Koda reads it.
        if text.is_empty() || text.len() > 22 {
            return None;
        }
        let mut v: u128 = 0;
        for b in text.bytes() {
            let d = BASE62.iter().position(|&c| c == b)? as u128;
            v = v.checked_mul(62)?.checked_add(d)?;
        }
        Some(ItemId(v))
    }

    /// Koda's text: `Entity:$…` for allocated ids, `Entity:#…` for uuids.
    pub fn repr(self) -> String {
        format!("{}:{}", self.kind_name(), self.short())
    }

    /// What [`Self::repr`] names the id's kind: `Entity`, `List`, `Dict` or
    /// `Schema`.
    pub fn kind_name(self) -> &'static str {
        match self.kind() {
            ItemKind::Object => "Entity",
            ItemKind::List => "List",
            ItemKind::Dict => "Dict",
            ItemKind::Schema | ItemKind::ImplicitSchema | ItemKind::NofollowSchema | ItemKind::NofollowImplicitSchema => "Schema",
        }
    }

    /// `$…` / `#…`: the id without its kind. Objects' implicit schemas
    /// print `#` as uuids do (Koda derives them from the object's id as
    /// uuids; plait from its slot, see `implicit_schemas_of`).
    pub fn short(self) -> String {
        let derived = matches!(self.kind(), ItemKind::ImplicitSchema | ItemKind::NofollowImplicitSchema);
        format!("{}{}", if self.is_uuid() || derived { '#' } else { '$' }, self.encode())
    }

    /// A 64-bit hash (`kd.ids.hash_itemid`).
    pub fn hash64(self) -> i64 {
        let mut h = stable_hasher(0x9e37_79b9_7f4a_7c15);
        h.write(&self.0.to_le_bytes());
        h.finish() as i64
    }
}

impl std::fmt::Debug for ItemId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.repr())
    }
}

const BASE62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// A fresh allocation number: unique within the process (a counter) and, with
/// overwhelming probability, across processes (the counter starts at a random
/// point of the 2^59 numbers, so two processes' ranges overlap only if their
/// starts fall within as many allocations of each other), so ids from saved
/// bags never collide with new ones.
///
/// Allocations made one after another get consecutive numbers, as in Koda:
/// objects made one by one (`kd.obj(next=prev)` in a loop) have ids that
/// differ only in their last bits, which the binary format stores in a byte
/// or two per id (docs/format.md, packed blocks).
pub fn new_allocation() -> u64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    static START: OnceLock<u64> = OnceLock::new();
    let start = *START.get_or_init(|| splitmix(std::collections::hash_map::RandomState::new().hash_one(0x5eed_u64)));
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    start.wrapping_add(n) & ALLOCATION_MASK
}

/// `count` consecutive ids of a new allocation.
pub fn allocate(kind: ItemKind, count: usize) -> (u64, Vec<ItemId>) {
    let allocation = new_allocation();
    (allocation, (0..count as u64).map(|i| ItemId::new(kind, allocation, i)).collect())
}

fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Derived hashers are cloned per item (the prefix is hashed once).
impl Clone for UuidHasher {
    fn clone(&self) -> UuidHasher {
        UuidHasher { high: self.high.clone(), low: self.low.clone() }
    }
}

/// SipHash-2-4 with fixed keys: stable across runs and versions, so uuids
/// computed today equal those computed by later plait versions.
#[allow(deprecated)]
fn stable_hasher(key: u64) -> std::hash::SipHasher {
    std::hash::SipHasher::new_with_keys(key, !key)
}

/// Accumulates the content a uuid is derived from; two independent SipHash
/// streams give its 128 bits.
#[allow(deprecated)]
pub struct UuidHasher {
    high: std::hash::SipHasher,
    low: std::hash::SipHasher,
}

impl UuidHasher {
    /// A hasher for uuids of one purpose (`tag` keeps e.g. list uuids apart from
    /// entity uuids of the same content).
    pub fn new(tag: &str) -> UuidHasher {
        let mut h = UuidHasher { high: stable_hasher(0x243f_6a88_85a3_08d3), low: stable_hasher(0x1319_8a2e_0370_7344) };
        h.write_str(tag);
        h
    }

    /// Adds bytes (length-prefixed, so concatenations cannot collide).
    pub fn write_bytes(&mut self, bytes: &[u8]) {
        for h in [&mut self.high, &mut self.low] {
            h.write(&(bytes.len() as u64).to_le_bytes());
            h.write(bytes);
        }
    }

    pub fn write_str(&mut self, s: &str) {
        self.write_bytes(s.as_bytes());
    }

    /// Adds one item, tagged with its type (INT32 1 and INT64 1 differ, as in
    /// Koda); a missing item has a tag of its own.
    pub fn write_item(&mut self, item: Option<crate::column::ScalarRef<'_>>) {
        use crate::column::ScalarRef;
        match item {
            None => self.write_bytes(&[0]),
            Some(ScalarRef::Int32(v)) => self.write_tagged(1, &v.to_le_bytes()),
            Some(ScalarRef::Int64(v)) => self.write_tagged(2, &v.to_le_bytes()),
            Some(ScalarRef::Float32(v)) => self.write_tagged(3, &v.to_bits().to_le_bytes()),
            Some(ScalarRef::Float64(v)) => self.write_tagged(4, &v.to_bits().to_le_bytes()),
            Some(ScalarRef::Boolean(v)) => self.write_tagged(5, &[v as u8]),
            Some(ScalarRef::Mask) => self.write_tagged(6, &[]),
            Some(ScalarRef::Bytes(v)) => self.write_tagged(7, v),
            Some(ScalarRef::String(v)) => self.write_tagged(8, v.as_bytes()),
            Some(ScalarRef::Schema(v)) => match v {
                crate::schema::Schema::Struct(id) => self.write_tagged(9, &id.0.to_le_bytes()),
                other => self.write_tagged(10, other.name().as_bytes()),
            },
            Some(ScalarRef::ItemId(v)) => self.write_tagged(11, &v.0.to_le_bytes()),
            Some(ScalarRef::Expr(v)) => self.write_tagged(12, &v.fingerprint().to_le_bytes()),
        }
    }

    fn write_tagged(&mut self, tag: u8, bytes: &[u8]) {
        self.write_bytes(&[tag]);
        self.write_bytes(bytes);
    }

    /// The 128 bits.
    pub fn finish(&self) -> u128 {
        ((self.high.finish() as u128) << 64) | self.low.finish() as u128
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_round_trips() {
        for id in [ItemId(0), ItemId(u128::MAX), ItemId::new(ItemKind::List, new_allocation(), 7)] {
            assert_eq!(ItemId::decode(&id.encode()), Some(id));
        }
    }

    #[test]
    fn kinds_and_allocations() {
        let (alloc, ids) = allocate(ItemKind::Dict, 3);
        assert!(ids.iter().all(|i| i.kind() == ItemKind::Dict && !i.is_uuid()));
        assert_eq!(ids[2].offset(), 2);
        assert_eq!(ids[0].allocation(), ids[1].allocation());
        assert_eq!(ids[0].allocation().unwrap() & ALLOCATION_MASK, alloc);
        let schema = ids[1].with_kind(ItemKind::ImplicitSchema);
        assert!(schema.is_schema() && schema.offset() == 1);
        let u = ItemId::uuid(ItemKind::Object, u128::MAX);
        assert!(u.is_uuid() && u.kind() == ItemKind::Object && u.allocation().is_none());
        assert!(u.repr().starts_with("Entity:#"));
    }

    #[test]
    fn uuid_hash_is_stable() {
        let mut a = UuidHasher::new("x");
        a.write_str("ab");
        let mut b = UuidHasher::new("x");
        b.write_str("a");
        b.write_str("b");
        assert_ne!(a.finish(), b.finish());
        let mut c = UuidHasher::new("x");
        c.write_str("ab");
        assert_eq!(a.finish(), c.finish());
    }
}
