//! Items as hashable, ordered keys: the one notion of "the same item" and
//! "item order" behind `unique`, `group_by`, `translate`, `sort` and the ranks.
//!
//! ```text
//! INT32 1, INT64 1      -> Num(INT, 1 ^ 1<<63)     the same key
//! FLOAT32 1.0           -> Num(FLOAT, ...)          another key (a float is not an int)
//! -0.0, 0.0             -> one key;  NaN -> the largest float key (or one key per NaN)
//! 'ab', b'ab'           -> Bin(STRING, b"ab"), Bin(BYTES, b"ab")
//! ```
//!
//! Number keys are order preserving as `u64`, so the derived `Ord` of [`Key`]
//! sorts the items of one type the way Koda does (NaN last).

use std::hash::{BuildHasherDefault, Hasher};

use arrow_buffer::BooleanBuffer;
use plait_core::{DataSlice, Error, Result, Schema, SliceData, Values};

use crate::describe;

const INT: u8 = 0;
const FLOAT: u8 = 1;
const BOOL: u8 = 2;
const MASK: u8 = 3;
const BYTES: u8 = 4;
const STRING: u8 = 5;
const SCHEMA: u8 = 6;
const ITEMID: u8 = 7;
const EXPR: u8 = 8;

/// One item as a key. Variants are ordered so that NaN keys sort last.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Key<'a> {
    /// A fixed-width value: the type class and an order-preserving encoding.
    Num(u8, u64),
    /// Text or bytes: the type class and the bytes.
    Bin(u8, &'a [u8]),
    /// An ItemId, or a struct schema: the type class and the id's bits.
    Id(u8, u128),
    /// A NaN that equals nothing, not even another NaN (`group_by`): its position.
    Nan(usize),
}

/// The key of the float NaN when NaNs are equal to each other.
const NAN_KEY: u64 = u64::MAX;

impl Key<'_> {
    /// Whether this is a NaN (either kind).
    pub fn is_nan(&self) -> bool {
        matches!(self, Key::Nan(_) | Key::Num(FLOAT, NAN_KEY))
    }
}

/// Order-preserving `u64` of an integer.
#[inline(always)]
fn int_key(v: i64) -> u64 {
    (v as u64) ^ (1 << 63)
}

/// Order-preserving `u64` of a float that is not NaN (-0.0 and 0.0 coincide).
#[inline(always)]
fn float_key(v: f64) -> u64 {
    let v = if v == 0.0 { 0.0 } else { v };
    let bits = v.to_bits();
    if bits >> 63 == 1 { !bits } else { bits | (1 << 63) }
}

/// How NaNs compare as keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NanKeys {
    /// Every NaN is the same key (`unique`, ranks).
    Equal,
    /// Every NaN is its own key (`group_by`).
    Distinct,
}

/// The key of every item of `data` (`None` for missing items).
pub fn keys_of<'a>(data: &'a SliceData, nans: NanKeys) -> Vec<Option<Key<'a>>> {
    let mut out: Vec<Option<Key<'a>>> = vec![None; data.len()];
    for column in data.columns() {
        let float = |i: usize, v: f64| {
            if v.is_nan() {
                match nans {
                    NanKeys::Equal => Key::Num(FLOAT, NAN_KEY),
                    NanKeys::Distinct => Key::Nan(i),
                }
            } else {
                Key::Num(FLOAT, float_key(v))
            }
        };
        let mut fill = |key: &dyn Fn(usize) -> Key<'a>| {
            for (i, slot) in out.iter_mut().enumerate() {
                if column.is_present(i) {
                    *slot = Some(key(i));
                }
            }
        };
        match &column.values {
            Values::Int32(v) => fill(&|i| Key::Num(INT, int_key(v[i] as i64))),
            Values::Int64(v) => fill(&|i| Key::Num(INT, int_key(v[i]))),
            Values::Float32(v) => fill(&|i| float(i, v[i] as f64)),
            Values::Float64(v) => fill(&|i| float(i, v[i])),
            Values::Boolean(v) => fill(&|i| Key::Num(BOOL, v.value(i) as u64)),
            Values::Mask(_) => fill(&|_| Key::Num(MASK, 0)),
            Values::Bytes(v) => fill(&|i| Key::Bin(BYTES, v.value(i))),
            Values::String(v) => fill(&|i| Key::Bin(STRING, v.value(i))),
            Values::Schema(v) => fill(&|i| schema_key(v.get(i))),
            Values::ItemId(v) => fill(&|i| Key::Id(ITEMID, v.get(i))),
            // Expressions compare by fingerprint (equal when structurally equal).
            Values::Expr(v) => fill(&|i| Key::Id(EXPR, v[i].fingerprint())),
        }
    }
    out
}

/// The order-preserving `u64` key of every slot of a fixed-width column (NaN
/// is the largest), or `None` for text and bytes. One pass over the values,
/// so sorting and hashing then work on plain integers.
pub fn fixed_keys(values: &Values) -> Option<Vec<u64>> {
    use crate::kernel::map1;
    let float = |v: f64| if v.is_nan() { NAN_KEY } else { float_key(v) };
    Some(match values {
        Values::Int32(v) => map1(v, |x| int_key(x as i64)),
        Values::Int64(v) => map1(v, int_key),
        Values::Float32(v) => map1(v, |x| float(x as f64)),
        Values::Float64(v) => map1(v, float),
        Values::Boolean(v) => v.iter().map(u64::from).collect(),
        Values::Mask(n) => vec![0; *n],
        Values::Bytes(_) | Values::String(_) | Values::Schema(_) | Values::ItemId(_) | Values::Expr(_) => return None,
    })
}

/// What is done with the key of every item (see [`with_item_keys`]): a
/// generic method, so each kind of key gets its own compiled loop.
pub trait KeyUser {
    type Output;
    /// Called once with `key(i)`: the key of item `i` (`None` if missing).
    fn use_keys<K: std::hash::Hash + Ord + Copy + Send + Sync>(self, key: impl Fn(usize) -> Option<K> + Sync) -> Self::Output;
}

/// Hands `user` the keys of `data`'s items in the cheapest form: one
/// fixed-width column as plain integers ([`fixed_keys`], NaNs one key), one
/// column of text or bytes as the bytes, anything else (items of several
/// types) as [`Key`]s, each NaN its own key (as Koda's `unique` and
/// `collapse` see them).
pub fn with_item_keys<U: KeyUser>(data: &SliceData, user: U) -> U::Output {
    let single = data.single_column();
    match (single, single.and_then(|c| fixed_keys(&c.values))) {
        (Some(column), Some(keys)) => user.use_keys(|i| column.is_present(i).then(|| keys[i])),
        (Some(column @ plait_core::Column { values: Values::String(v) | Values::Bytes(v), .. }), None) => {
            user.use_keys(|i| column.is_present(i).then(|| v.value(i)))
        }
        _ => {
            // Items of several types: Koda's NaNs are each their own item
            // here (one float column's NaNs are one item, as above).
            let keys = keys_of(data, NanKeys::Distinct);
            user.use_keys(|i| keys[i])
        }
    }
}

/// A schema's key: primitive schemas by their position in [`Schema::ALL`],
/// struct schemas by their id.
fn schema_key<'a>(schema: Schema) -> Key<'a> {
    match schema {
        Schema::Struct(id) => Key::Id(SCHEMA, id.0),
        other => Key::Num(SCHEMA, Schema::ALL.iter().position(|&s| s == other).unwrap_or(0) as u64),
    }
}

/// Whether a [`fixed_keys`] key of a float column is NaN.
pub fn is_nan_key(key: u64) -> bool {
    key == NAN_KEY
}

/// A small, fast hasher for keys (FxHash's mixing with a murmur finaliser, so
/// that keys differing only in their high bits, like floats, spread well).
#[derive(Default, Clone, Copy)]
pub struct FastHasher {
    hash: u64,
}

impl FastHasher {
    #[inline(always)]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            self.add(u64::from_le_bytes(chunk.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder();
        let mut last = [0u8; 8];
        last[..rest.len()].copy_from_slice(rest);
        self.add(u64::from_le_bytes(last) ^ ((rest.len() as u64) << 59));
    }
    fn write_u8(&mut self, i: u8) {
        self.add(i as u64);
    }
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    fn finish(&self) -> u64 {
        let mut h = self.hash;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h
    }
}

/// A `HashMap` with [`FastHasher`].
pub type FastMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<FastHasher>>;

/// A `HashMap` with room for `n` entries.
pub fn fast_map<K, V>(n: usize) -> FastMap<K, V> {
    FastMap::with_capacity_and_hasher(n, Default::default())
}

/// Whether items of type `dtype` can be sorted.
fn sortable(dtype: Schema) -> bool {
    dtype.is_numeric() || matches!(dtype, Schema::String | Schema::Bytes | Schema::Boolean | Schema::Mask | Schema::None)
}

/// The one item type of argument `arg`, which must be orderable (numbers,
/// text, bytes, booleans or masks); an OBJECT slice must hold one type.
pub fn sortable_dtype(op: &str, arg: &str, x: &DataSlice) -> Result<Schema> {
    let not_orderable = |got: String| Error::value(op, format!("argument `{arg}` must be a slice of orderable values, got a slice of {got}"));
    if x.schema() != Schema::Object {
        let schema_text = || plait_core::bag::text::schema_text(x.schema(), x.bag());
        return if sortable(x.schema()) { Ok(x.schema()) } else { Err(not_orderable(schema_text())) };
    }
    let dtypes: Vec<Schema> = x.data().dtypes().collect();
    match dtypes.as_slice() {
        [] => Ok(Schema::None),
        [one] if sortable(*one) => Ok(*one),
        [one] => Err(not_orderable(crate::promote::object_contents(&[*one]))),
        many if many.iter().all(|t| t.is_numeric()) => Err(Error::value(op, format!("DataSlice with mixed types is not supported: {}", describe(x)))),
        many => Err(not_orderable(crate::promote::object_contents(many))),
    }
}

/// The items of an integer slice (INT32, INT64, or OBJECT holding them) as
/// INT64 values with presence; `None` when `x` holds other types.
pub fn int64_values(x: &DataSlice) -> Option<(Vec<i64>, BooleanBuffer)> {
    let integral = matches!(x.schema(), Schema::Int32 | Schema::Int64 | Schema::Object | Schema::None);
    if !integral || x.data().dtypes().any(|t| !t.is_integer()) {
        return None;
    }
    let mut values = vec![0i64; x.size()];
    for column in x.data().columns() {
        match &column.values {
            Values::Int32(v) => (0..v.len()).filter(|&i| column.is_present(i)).for_each(|i| values[i] = v[i] as i64),
            Values::Int64(v) => (0..v.len()).filter(|&i| column.is_present(i)).for_each(|i| values[i] = v[i]),
            _ => unreachable!("checked integer types"),
        }
    }
    Some((values, x.data().present_bits()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_keys_preserve_order() {
        let ints = [i64::MIN, -5, -1, 0, 1, 7, i64::MAX];
        assert!(ints.windows(2).all(|w| int_key(w[0]) < int_key(w[1])));
        let floats = [f64::NEG_INFINITY, -2.5, -0.0, 1e-300, 1.0, f64::INFINITY];
        assert!(floats.windows(2).all(|w| float_key(w[0]) < float_key(w[1])));
        assert_eq!(float_key(-0.0), float_key(0.0));
        assert!(float_key(f64::INFINITY) < NAN_KEY);
    }

    #[test]
    fn hasher_spreads_high_bits() {
        use std::hash::BuildHasher;
        let build = BuildHasherDefault::<FastHasher>::default();
        let a = build.hash_one(Key::Num(FLOAT, float_key(1.0)));
        let b = build.hash_one(Key::Num(FLOAT, float_key(2.0)));
        assert_ne!(a & 0xffff, b & 0xffff);
    }
}
