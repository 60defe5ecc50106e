//! Typed columns: the flat storage behind a DataSlice.
//!
//! ```text
//! kd.slice([1, None, 3])      Column { values: Int32 [1, 0, 3], presence: 1 0 1 }
//! kd.slice([1, 'a', None])    SliceData { columns: [ Int32  [1, 0, 0]  presence 1 0 0,
//!                                                    String ["", a, ""] presence 0 1 0 ] }
//! ```
//!
//! A column holds one value type in an Arrow-compatible buffer and a presence
//! bitmap (`None` = every item present). A slice of mixed types (OBJECT) holds one
//! column per type with disjoint presence; a slice with no present items holds no
//! column at all. Buffers are reference counted, so sharing a column is O(1).

use arrow_buffer::{BooleanBuffer, BooleanBufferBuilder, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use std::borrow::Cow;
use std::sync::Arc;

use crate::itemid::ItemId;
use crate::quoted::Quoted;
use crate::schema::Schema;
use crate::shape::Edge;

/// The bytes of `bits` packed least significant bit first from bit 0: the
/// stored bytes when the bitmap starts at bit 0 (bits past the end are left
/// as stored; readers ignore them), else a copy with the bits moved down.
pub fn packed_bits(bits: &BooleanBuffer) -> Cow<'_, [u8]> {
    let n = bits.len().div_ceil(8);
    if bits.offset() == 0 {
        return Cow::Borrowed(&bits.inner().as_slice()[..n]);
    }
    let mut bytes = vec![0u8; n];
    for i in bits.set_indices() {
        bytes[i / 8] |= 1 << (i % 8);
    }
    Cow::Owned(bytes)
}

/// One item's value, borrowed from a column (or built by the caller).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ScalarRef<'a> {
    Int32(i32),
    Int64(i64),
    Float32(f32),
    Float64(f64),
    Boolean(bool),
    Mask,
    Bytes(&'a [u8]),
    String(&'a str),
    Schema(Schema),
    ItemId(ItemId),
    /// A quoted expression (EXPR).
    Expr(&'a Quoted),
}

impl ScalarRef<'_> {
    /// The schema of this value's type.
    pub fn dtype(&self) -> Schema {
        match self {
            ScalarRef::Int32(_) => Schema::Int32,
            ScalarRef::Int64(_) => Schema::Int64,
            ScalarRef::Float32(_) => Schema::Float32,
            ScalarRef::Float64(_) => Schema::Float64,
            ScalarRef::Boolean(_) => Schema::Boolean,
            ScalarRef::Mask => Schema::Mask,
            ScalarRef::Bytes(_) => Schema::Bytes,
            ScalarRef::String(_) => Schema::String,
            ScalarRef::Schema(_) => Schema::Schema,
            ScalarRef::ItemId(_) => Schema::ItemId,
            ScalarRef::Expr(_) => Schema::Expr,
        }
    }
}

/// Variable-length binary values (BYTES, or STRING when valid UTF-8), laid out as
/// an Arrow large binary array: `offsets[i]..offsets[i + 1]` in `data`.
#[derive(Clone, Debug)]
pub struct VarBinary {
    pub offsets: OffsetBuffer<i64>,
    pub data: Buffer,
}

impl VarBinary {
    /// Values over foreign `offsets` and `data` (a loaded file, an Arrow
    /// array), checked: the offsets never decrease and stay inside `data`,
    /// and with `utf8` every value is valid UTF-8 (STRING's promise).
    pub fn checked(offsets: ScalarBuffer<i64>, data: Buffer, utf8: bool) -> Result<VarBinary, &'static str> {
        let (Some(&first), Some(&last)) = (offsets.first(), offsets.last()) else {
            return Err("text offsets are empty");
        };
        if first < 0 || last as u64 > data.len() as u64 {
            return Err("text offsets out of order or past the data");
        }
        // A fold rather than `any`, so that it vectorizes.
        if !offsets.windows(2).fold(true, |ok, w| ok & (w[0] <= w[1])) {
            return Err("text offsets out of order or past the data");
        }
        let bytes = &data.as_slice()[first as usize..last as usize];
        // ASCII text is UTF-8 at every offset; otherwise the whole range is
        // UTF-8 and every offset falls on a character boundary, so every
        // value is UTF-8.
        if utf8 && !bytes.is_ascii() {
            let starts_char = |o: i64| bytes.get((o - first) as usize).is_none_or(|&b| (b as i8) >= -0x40);
            if simdutf8::basic::from_utf8(bytes).is_err() || !offsets.iter().all(|&o| starts_char(o)) {
                return Err("a STRING value is not valid UTF-8");
            }
        }
        // SAFETY: checked above: non-negative (first >= 0) and never decreasing.
        let offsets = unsafe { OffsetBuffer::new_unchecked(offsets) };
        Ok(VarBinary { offsets, data })
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Whether there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes of value `i`.
    pub fn value(&self, i: usize) -> &[u8] {
        let start = self.offsets[i] as usize;
        let end = self.offsets[i + 1] as usize;
        &self.data.as_slice()[start..end]
    }

    /// Value `i` as text; only called on STRING columns, which hold valid UTF-8.
    pub fn str_value(&self, i: usize) -> &str {
        // Safety net rather than unsafe: STRING columns are validated on entry.
        std::str::from_utf8(self.value(i)).unwrap_or("\u{FFFD}")
    }
}

/// The values of one column, all of one type (missing slots hold a filler).
#[derive(Clone, Debug)]
pub enum Values {
    Int32(ScalarBuffer<i32>),
    Int64(ScalarBuffer<i64>),
    Float32(ScalarBuffer<f32>),
    Float64(ScalarBuffer<f64>),
    Boolean(BooleanBuffer),
    /// MASK has no payload: an item is `present` exactly when it is present.
    Mask(usize),
    Bytes(VarBinary),
    String(VarBinary),
    Schema(SchemaValues),
    /// ItemIds (entities, objects, lists, dicts, struct schemas as ids), as the
    /// bits of [`ItemId`] (an Arrow-compatible 16-byte buffer), written lazily
    /// for a fresh allocation (see [`IdBits`]).
    ItemId(IdBits),
    /// Quoted expressions (EXPR); missing slots hold [`crate::quoted::filler`].
    Expr(Arc<[Quoted]>),
}

/// The schemas of a SCHEMA column: given, or one schema repeated (`kd.obj`
/// stores each attribute's schema once per object), or the implicit schemas
/// of a fresh allocation of objects (`Struct(base + k)`). The repeated forms
/// are written out only when something reads them as a whole.
#[derive(Clone, Debug)]
pub struct SchemaValues {
    run: Option<SchemaRun>,
    values: Arc<std::sync::OnceLock<Arc<[Schema]>>>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum SchemaRun {
    Same(Schema, usize),
    Structs(u128, usize),
}

impl SchemaValues {
    /// `schema`, `len` times.
    pub fn same(schema: Schema, len: usize) -> SchemaValues {
        SchemaValues { run: Some(SchemaRun::Same(schema, len)), values: Arc::default() }
    }

    /// The struct schemas with ids `base + k` for `k` in `0..len`.
    pub fn structs(base: u128, len: usize) -> SchemaValues {
        SchemaValues { run: Some(SchemaRun::Structs(base, len)), values: Arc::default() }
    }

    /// `(schema, len)` when every slot holds `schema`.
    pub fn as_same(&self) -> Option<(Schema, usize)> {
        match self.run {
            Some(SchemaRun::Same(schema, len)) => Some((schema, len)),
            _ => None,
        }
    }

    /// `(base, len)` when slot `k` holds the struct schema `base + k`.
    pub fn as_structs(&self) -> Option<(u128, usize)> {
        match self.run {
            Some(SchemaRun::Structs(base, len)) => Some((base, len)),
            _ => None,
        }
    }

    pub fn len(&self) -> usize {
        match self.run {
            Some(SchemaRun::Same(_, len) | SchemaRun::Structs(_, len)) => len,
            None => self.values().len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The schema in slot `i`.
    pub fn get(&self, i: usize) -> Schema {
        match self.run {
            Some(SchemaRun::Same(schema, len)) => {
                assert!(i < len, "schema index {i} out of range for {len} schemas");
                schema
            }
            Some(SchemaRun::Structs(base, len)) => {
                assert!(i < len, "schema index {i} out of range for {len} schemas");
                Schema::Struct(ItemId(base + i as u128))
            }
            None => self.values()[i],
        }
    }

    /// Every schema (written now for a repeated form, once).
    pub fn values(&self) -> &Arc<[Schema]> {
        self.values.get_or_init(|| {
            let n = self.len();
            (0..n).map(|i| self.get(i)).collect()
        })
    }
}

impl From<Arc<[Schema]>> for SchemaValues {
    fn from(values: Arc<[Schema]>) -> SchemaValues {
        SchemaValues { run: None, values: Arc::new(std::sync::OnceLock::from(values)) }
    }
}

impl From<Vec<Schema>> for SchemaValues {
    fn from(values: Vec<Schema>) -> SchemaValues {
        SchemaValues::from(Arc::<[Schema]>::from(values))
    }
}

/// The ids of a column: their bits, or, for the items of a fresh allocation,
/// the run `base, base + 1, ...` whose bits are written only when first
/// needed. `kd.new` on a million items thus does not write 16 MB that reads
/// by allocation (attributes, lists, dicts) never look at.
#[derive(Clone, Debug)]
pub struct IdBits {
    run: Option<(u128, usize)>,
    bits: Arc<std::sync::OnceLock<ScalarBuffer<i128>>>,
}

impl IdBits {
    /// Ids `base + k` for `k` in `0..len`, not yet written.
    pub fn run(base: u128, len: usize) -> IdBits {
        IdBits { run: Some((base, len)), bits: Arc::default() }
    }

    /// `(base, len)` for a run not given as bits.
    pub fn as_run(&self) -> Option<(u128, usize)> {
        self.run
    }

    pub fn len(&self) -> usize {
        match self.run {
            Some((_, len)) => len,
            None => self.bits().len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bits of id `i`.
    pub fn get(&self, i: usize) -> u128 {
        match self.run {
            Some((base, len)) => {
                assert!(i < len, "id index {i} out of range for {len} ids");
                base + i as u128
            }
            None => self.bits()[i] as u128,
        }
    }

    /// The bits of every id (written now for a run, once).
    pub fn bits(&self) -> &ScalarBuffer<i128> {
        self.bits.get_or_init(|| {
            let (base, len) = self.run.expect("ids given as bits have them");
            let mut out: Vec<i128> = crate::alloc::output_vec(len);
            out.extend((0..len as u128).map(|k| (base + k) as i128));
            ScalarBuffer::from(out)
        })
    }
}

impl AsRef<[i128]> for IdBits {
    fn as_ref(&self) -> &[i128] {
        self.bits()
    }
}

impl From<ScalarBuffer<i128>> for IdBits {
    fn from(bits: ScalarBuffer<i128>) -> IdBits {
        IdBits { run: None, bits: Arc::new(std::sync::OnceLock::from(bits)) }
    }
}

impl From<Vec<i128>> for IdBits {
    fn from(bits: Vec<i128>) -> IdBits {
        IdBits::from(ScalarBuffer::from(bits))
    }
}

impl Values {
    /// Number of slots.
    pub fn len(&self) -> usize {
        match self {
            Values::Int32(v) => v.len(),
            Values::Int64(v) => v.len(),
            Values::Float32(v) => v.len(),
            Values::Float64(v) => v.len(),
            Values::Boolean(v) => v.len(),
            Values::Mask(n) => *n,
            Values::Bytes(v) | Values::String(v) => v.len(),
            Values::Schema(v) => v.len(),
            Values::ItemId(v) => v.len(),
            Values::Expr(v) => v.len(),
        }
    }

    /// Whether there are no slots.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The schema of the values' type.
    pub fn dtype(&self) -> Schema {
        match self {
            Values::Int32(_) => Schema::Int32,
            Values::Int64(_) => Schema::Int64,
            Values::Float32(_) => Schema::Float32,
            Values::Float64(_) => Schema::Float64,
            Values::Boolean(_) => Schema::Boolean,
            Values::Mask(_) => Schema::Mask,
            Values::Bytes(_) => Schema::Bytes,
            Values::String(_) => Schema::String,
            Values::Schema(_) => Schema::Schema,
            Values::ItemId(_) => Schema::ItemId,
            Values::Expr(_) => Schema::Expr,
        }
    }

    /// The value in slot `i`.
    pub fn get(&self, i: usize) -> ScalarRef<'_> {
        match self {
            Values::Int32(v) => ScalarRef::Int32(v[i]),
            Values::Int64(v) => ScalarRef::Int64(v[i]),
            Values::Float32(v) => ScalarRef::Float32(v[i]),
            Values::Float64(v) => ScalarRef::Float64(v[i]),
            Values::Boolean(v) => ScalarRef::Boolean(v.value(i)),
            Values::Mask(_) => ScalarRef::Mask,
            Values::Bytes(v) => ScalarRef::Bytes(v.value(i)),
            Values::String(v) => ScalarRef::String(v.str_value(i)),
            Values::Schema(v) => ScalarRef::Schema(v.get(i)),
            Values::ItemId(v) => ScalarRef::ItemId(ItemId(v.get(i))),
            Values::Expr(v) => ScalarRef::Expr(&v[i]),
        }
    }
}

/// Index value meaning "no source item" in [`Column::take`].
pub const MISSING_INDEX: usize = usize::MAX;

/// One typed column with its presence bitmap.
#[derive(Clone, Debug)]
pub struct Column {
    pub values: Values,
    /// `None` when every item is present.
    pub presence: Option<NullBuffer>,
}

impl Column {
    /// A column whose items are all present.
    pub fn full(values: Values) -> Column {
        Column { values, presence: None }
    }

    /// A column with the given presence; drops the bitmap when it is all set.
    pub fn new(values: Values, presence: Option<NullBuffer>) -> Column {
        let presence = presence.filter(|p| p.null_count() > 0);
        Column { values, presence }
    }

    /// Number of slots.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether there are no slots.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of present items.
    pub fn present_count(&self) -> usize {
        self.len() - self.presence.as_ref().map_or(0, NullBuffer::null_count)
    }

    /// Whether slot `i` holds a present item.
    pub fn is_present(&self, i: usize) -> bool {
        self.presence.as_ref().is_none_or(|p| p.is_valid(i))
    }

    /// The item in slot `i`, if present.
    pub fn get(&self, i: usize) -> Option<ScalarRef<'_>> {
        self.is_present(i).then(|| self.values.get(i))
    }

    /// Gathers `indices` (each `< len`, or [`MISSING_INDEX`] for a missing item).
    pub fn take(&self, indices: &[usize]) -> Column {
        if indices.contains(&MISSING_INDEX) { self.take_impl::<true>(indices) } else { self.take_impl::<false>(indices) }
    }

    /// The items `range`, sharing the buffers of fixed-width values and of
    /// presence (no copy; a run of fresh ids stays a run); other values
    /// are copied.
    fn range(&self, range: std::ops::Range<usize>) -> Column {
        let (start, len) = (range.start, range.len());
        let values = match &self.values {
            Values::Int32(v) => Values::Int32(v.slice(start, len)),
            Values::Int64(v) => Values::Int64(v.slice(start, len)),
            Values::Float32(v) => Values::Float32(v.slice(start, len)),
            Values::Float64(v) => Values::Float64(v.slice(start, len)),
            Values::Boolean(v) => Values::Boolean(v.slice(start, len)),
            Values::Mask(_) => Values::Mask(len),
            Values::ItemId(v) => Values::ItemId(match v.as_run() {
                Some((base, _)) => IdBits::run(base + start as u128, len),
                None => v.bits().slice(start, len).into(),
            }),
            _ => return self.take_ranges(&[range], len),
        };
        Column::new(values, self.presence.as_ref().map(|p| p.slice(start, len)))
    }

    /// The items of `ranges` (`len` in all), one after another.
    fn take_ranges(&self, ranges: &[std::ops::Range<usize>], len: usize) -> Column {
        fn runs<T: arrow_buffer::ArrowNativeType>(v: &ScalarBuffer<T>, ranges: &[std::ops::Range<usize>], len: usize) -> ScalarBuffer<T> {
            let mut out: Vec<T> = Vec::with_capacity(len);
            for r in ranges {
                let run = &v[r.clone()];
                // (A short run costs less item by item than a memcpy call.)
                if run.len() <= 4 {
                    for &x in run {
                        out.push(x);
                    }
                } else {
                    out.extend_from_slice(run);
                }
            }
            ScalarBuffer::from(out)
        }
        let values = match &self.values {
            Values::Int32(v) => Values::Int32(runs(v, ranges, len)),
            Values::Int64(v) => Values::Int64(runs(v, ranges, len)),
            Values::Float32(v) => Values::Float32(runs(v, ranges, len)),
            Values::Float64(v) => Values::Float64(runs(v, ranges, len)),
            Values::ItemId(v) => Values::ItemId(runs(v.bits(), ranges, len).into()),
            _ => {
                let indices: Vec<usize> = ranges.iter().flat_map(|r| r.clone()).collect();
                return self.take(&indices);
            }
        };
        let presence = self.presence.as_ref().map(|p| {
            let mut b = arrow_buffer::BooleanBufferBuilder::new(len);
            for r in ranges {
                b.append_buffer(&p.inner().slice(r.start, r.len()));
            }
            NullBuffer::new(b.finish())
        });
        Column::new(values, presence)
    }

    /// The gather kernel; with `MAY_MISS == false` (broadcasting, where every
    /// index is valid) the per-item missing check compiles away.
    fn take_impl<const MAY_MISS: bool>(&self, indices: &[usize]) -> Column {
        let n = indices.len();
        let missing = |i: usize| MAY_MISS && i == MISSING_INDEX;
        fn gather<T: arrow_buffer::ArrowNativeType, const MAY_MISS: bool>(v: &ScalarBuffer<T>, idx: &[usize]) -> ScalarBuffer<T> {
            use rayon::prelude::*;
            // Large gathers (often a cache miss per item) run in parallel
            // chunks.
            const PARALLEL_TAKE: usize = 1 << 18;
            const CHUNK: usize = 1 << 16;
            let pick = |i: usize| if MAY_MISS && i == MISSING_INDEX { T::default() } else { v[i] };
            if idx.len() < PARALLEL_TAKE || crate::parallel::num_threads() < 2 {
                return ScalarBuffer::from(idx.iter().map(|&i| pick(i)).collect::<Vec<T>>());
            }
            let mut out = vec![T::default(); idx.len()];
            crate::parallel::install(|| {
                out.par_chunks_mut(CHUNK).zip(idx.par_chunks(CHUNK)).for_each(|(out, idx)| {
                    for (o, &i) in out.iter_mut().zip(idx) {
                        *o = pick(i);
                    }
                })
            });
            ScalarBuffer::from(out)
        }
        let values = match &self.values {
            Values::Int32(v) => Values::Int32(gather::<_, MAY_MISS>(v, indices)),
            Values::Int64(v) => Values::Int64(gather::<_, MAY_MISS>(v, indices)),
            Values::Float32(v) => Values::Float32(gather::<_, MAY_MISS>(v, indices)),
            Values::Float64(v) => Values::Float64(gather::<_, MAY_MISS>(v, indices)),
            Values::Boolean(v) => Values::Boolean(BooleanBuffer::collect_bool(n, |j| !missing(indices[j]) && v.value(indices[j]))),
            Values::Mask(_) => Values::Mask(n),
            Values::Bytes(v) => Values::Bytes(take_var_binary(v, indices)),
            Values::String(v) => Values::String(take_var_binary(v, indices)),
            Values::Schema(v) => match v.as_same() {
                Some((schema, _)) => Values::Schema(SchemaValues::same(schema, n)),
                None => Values::Schema(indices.iter().map(|&i| if missing(i) { Schema::None } else { v.get(i) }).collect::<Vec<_>>().into()),
            },
            Values::ItemId(v) => Values::ItemId(gather::<_, MAY_MISS>(v.bits(), indices).into()),
            Values::Expr(v) => Values::Expr(indices.iter().map(|&i| if missing(i) { crate::quoted::filler() } else { v[i].clone() }).collect()),
        };
        let presence = match &self.presence {
            None if !MAY_MISS => None,
            None => Some(NullBuffer::new(BooleanBuffer::collect_bool(n, |j| !missing(indices[j])))),
            Some(p) => Some(NullBuffer::new(BooleanBuffer::collect_bool(n, |j| !missing(indices[j]) && p.is_valid(indices[j])))),
        };
        Column::new(values, presence)
    }
}

impl Column {
    /// Gathers from `self` followed by `other` (of the same type) as if they
    /// were one column: index `i < self.len()` reads `self`, a larger one
    /// reads `other` at `i - self.len()`, [`MISSING_INDEX`] is missing.
    /// `None` when the types differ. One typed pass, as [`Column::take`]:
    /// this is how a few written items are laid over a long column without
    /// rebuilding it item by item.
    pub fn take_pair(&self, other: &Column, indices: &[usize]) -> Option<Column> {
        let na = self.len();
        let n = indices.len();
        fn pick<T: arrow_buffer::ArrowNativeType>(a: &[T], b: &[T], idx: &[usize]) -> ScalarBuffer<T> {
            let na = a.len();
            let out: Vec<T> = idx
                .iter()
                .map(|&i| {
                    if i < na {
                        a[i]
                    } else if i == MISSING_INDEX {
                        T::default()
                    } else {
                        b[i - na]
                    }
                })
                .collect();
            ScalarBuffer::from(out)
        }
        // Which source an index reads (`None`: missing).
        let locate = |i: usize| {
            if i < na {
                Some((false, i))
            } else if i == MISSING_INDEX {
                None
            } else {
                Some((true, i - na))
            }
        };
        let values = match (&self.values, &other.values) {
            (Values::Int32(a), Values::Int32(b)) => Values::Int32(pick(a, b, indices)),
            (Values::Int64(a), Values::Int64(b)) => Values::Int64(pick(a, b, indices)),
            (Values::Float32(a), Values::Float32(b)) => Values::Float32(pick(a, b, indices)),
            (Values::Float64(a), Values::Float64(b)) => Values::Float64(pick(a, b, indices)),
            (Values::ItemId(a), Values::ItemId(b)) => Values::ItemId(pick(a.bits(), b.bits(), indices).into()),
            (Values::Boolean(a), Values::Boolean(b)) => Values::Boolean(BooleanBuffer::collect_bool(n, |j| match locate(indices[j]) {
                Some((false, i)) => a.value(i),
                Some((true, i)) => b.value(i),
                None => false,
            })),
            (Values::Mask(_), Values::Mask(_)) => Values::Mask(n),
            (Values::Bytes(a), Values::Bytes(b)) => Values::Bytes(take_var_binary_pair(a, b, indices)),
            (Values::String(a), Values::String(b)) => Values::String(take_var_binary_pair(a, b, indices)),
            (Values::Schema(a), Values::Schema(b)) => Values::Schema(
                indices
                    .iter()
                    .map(|&i| match locate(i) {
                        Some((false, i)) => a.get(i),
                        Some((true, i)) => b.get(i),
                        None => Schema::None,
                    })
                    .collect::<Vec<_>>()
                    .into(),
            ),
            (Values::Expr(a), Values::Expr(b)) => Values::Expr(
                indices
                    .iter()
                    .map(|&i| match locate(i) {
                        Some((false, i)) => a[i].clone(),
                        Some((true, i)) => b[i].clone(),
                        None => crate::quoted::filler(),
                    })
                    .collect(),
            ),
            _ => return None,
        };
        // Both sides whole and no index missing: so is the result (one
        // vectorized scan instead of a bit per item).
        if self.presence.is_none() && other.presence.is_none() && !indices.contains(&MISSING_INDEX) {
            return Some(Column::new(values, None));
        }
        let presence = BooleanBuffer::collect_bool(n, |j| match locate(indices[j]) {
            Some((false, i)) => self.is_present(i),
            Some((true, i)) => other.is_present(i),
            None => false,
        });
        Some(Column::new(values, Some(NullBuffer::new(presence))))
    }
}

/// [`Column::take_pair`] of text: `a` followed by `b`.
fn take_var_binary_pair(a: &VarBinary, b: &VarBinary, indices: &[usize]) -> VarBinary {
    let na = a.len();
    let mut builder = VarBinaryBuilder::with_capacity(indices.len());
    for &i in indices {
        builder.push(if i < na {
            a.value(i)
        } else if i == MISSING_INDEX {
            b""
        } else {
            b.value(i - na)
        });
    }
    builder.finish()
}

/// Calls `f(source, count)` for every parent `q` of `edge`: the item to
/// repeat (`parents[q]`, or `q` itself) and how many children `q` has.
fn for_each_run(parents: Option<&[usize]>, edge: &Edge, mut f: impl FnMut(usize, usize)) {
    edge.for_each_parent(|q, count| f(parents.map_or(q, |p| p[q]), count));
}

impl Column {
    /// Repeats, for every parent `q` of `edge`, item `parents[q]` (or `q`) once
    /// per child of `q`: the last step of prefix broadcasting. Writes runs of
    /// equal values, which vectorizes, instead of gathering through an index.
    pub fn repeat_by_edge(&self, parents: Option<&[usize]>, edge: &Edge) -> Column {
        let total = edge.child_size();
        fn repeat<T: arrow_buffer::ArrowNativeType>(v: &ScalarBuffer<T>, parents: Option<&[usize]>, edge: &Edge) -> ScalarBuffer<T> {
            ScalarBuffer::from(crate::alloc::fill_runs(edge.child_size(), |out| for_each_run(parents, edge, |s, count| out.write(v[s], count))))
        }
        let repeat_bits = |bit: &dyn Fn(usize) -> bool| {
            let mut out = BooleanBufferBuilder::new(total);
            for_each_run(parents, edge, |s, count| out.append_n(count, bit(s)));
            out.finish()
        };
        let values = match &self.values {
            Values::Int32(v) => Values::Int32(repeat(v, parents, edge)),
            Values::Int64(v) => Values::Int64(repeat(v, parents, edge)),
            Values::Float32(v) => Values::Float32(repeat(v, parents, edge)),
            Values::Float64(v) => Values::Float64(repeat(v, parents, edge)),
            Values::Boolean(v) => Values::Boolean(repeat_bits(&|s| v.value(s))),
            Values::Mask(_) => Values::Mask(total),
            Values::Bytes(v) | Values::String(v) => {
                let mut out = VarBinaryBuilder::with_capacity(total);
                for_each_run(parents, edge, |s, count| (0..count).for_each(|_| out.push(v.value(s))));
                let out = out.finish();
                if matches!(self.values, Values::String(_)) { Values::String(out) } else { Values::Bytes(out) }
            }
            Values::Schema(v) => match v.as_same() {
                Some((schema, _)) => Values::Schema(SchemaValues::same(schema, total)),
                None => {
                    let mut out = Vec::with_capacity(total);
                    for_each_run(parents, edge, |s, count| out.extend(std::iter::repeat_n(v.get(s), count)));
                    Values::Schema(out.into())
                }
            },
            Values::ItemId(v) => Values::ItemId(repeat(v.bits(), parents, edge).into()),
            Values::Expr(v) => {
                let mut out = Vec::with_capacity(total);
                for_each_run(parents, edge, |s, count| out.extend(std::iter::repeat_n(v[s].clone(), count)));
                Values::Expr(out.into())
            }
        };
        let presence = self.presence.as_ref().map(|p| NullBuffer::new(repeat_bits(&|s| p.is_valid(s))));
        Column::new(values, presence)
    }
}

fn take_var_binary(v: &VarBinary, indices: &[usize]) -> VarBinary {
    let mut builder = VarBinaryBuilder::with_capacity(indices.len());
    for &i in indices {
        builder.push(if i == MISSING_INDEX { b"" } else { v.value(i) });
    }
    builder.finish()
}

/// Appends variable-length values into a [`VarBinary`].
#[derive(Debug)]
pub struct VarBinaryBuilder {
    offsets: Vec<i64>,
    data: Vec<u8>,
}

impl VarBinaryBuilder {
    /// An empty builder with room for `n` values.
    pub fn with_capacity(n: usize) -> VarBinaryBuilder {
        let mut offsets = Vec::with_capacity(n + 1);
        offsets.push(0);
        VarBinaryBuilder { offsets, data: Vec::new() }
    }

    /// An empty builder with room for `n` values of `bytes` bytes in total.
    pub fn with_capacities(n: usize, bytes: usize) -> VarBinaryBuilder {
        let mut builder = VarBinaryBuilder::with_capacity(n);
        builder.data.reserve(bytes);
        builder
    }

    /// Appends one value.
    pub fn push(&mut self, value: &[u8]) {
        self.append(value);
        self.end_value();
    }

    /// Appends bytes to the value being built (ended by [`Self::end_value`]).
    pub fn append(&mut self, bytes: &[u8]) {
        self.data.extend_from_slice(bytes);
    }

    /// Appends values `range` of `source`.
    pub fn push_range(&mut self, source: &VarBinary, range: std::ops::Range<usize>) {
        let (lo, hi) = (source.offsets[range.start], source.offsets[range.end]);
        let shift = self.data.len() as i64 - lo;
        self.data.extend_from_slice(&source.data.as_slice()[lo as usize..hi as usize]);
        self.offsets.extend(source.offsets[range.start + 1..=range.end].iter().map(|&o| o + shift));
    }

    /// Ends the value being built.
    pub fn end_value(&mut self) {
        self.offsets.push(self.data.len() as i64);
    }

    /// The finished values.
    pub fn finish(self) -> VarBinary {
        VarBinary { offsets: OffsetBuffer::new(ScalarBuffer::from(self.offsets)), data: Buffer::from_vec(self.data) }
    }
}

/// Builds one column of a fixed type, item by item.
#[derive(Debug)]
pub struct ColumnBuilder {
    values: ValuesBuilder,
    presence: BooleanBufferBuilder,
    missing: usize,
}

#[derive(Debug)]
enum ValuesBuilder {
    Int32(Vec<i32>),
    Int64(Vec<i64>),
    Float32(Vec<f32>),
    Float64(Vec<f64>),
    Boolean(BooleanBufferBuilder),
    Mask(usize),
    Bytes(VarBinaryBuilder),
    String(VarBinaryBuilder),
    Schema(Vec<Schema>),
    ItemId(Vec<i128>),
    Expr(Vec<Quoted>),
}

impl ColumnBuilder {
    /// A builder for values of type `dtype` (a schema that has a column type).
    pub fn new(dtype: Schema, capacity: usize) -> ColumnBuilder {
        let values = match dtype {
            Schema::Int32 => ValuesBuilder::Int32(Vec::with_capacity(capacity)),
            Schema::Int64 => ValuesBuilder::Int64(Vec::with_capacity(capacity)),
            Schema::Float32 => ValuesBuilder::Float32(Vec::with_capacity(capacity)),
            Schema::Float64 => ValuesBuilder::Float64(Vec::with_capacity(capacity)),
            Schema::Boolean => ValuesBuilder::Boolean(BooleanBufferBuilder::new(capacity)),
            Schema::Mask => ValuesBuilder::Mask(0),
            Schema::Bytes => ValuesBuilder::Bytes(VarBinaryBuilder::with_capacity(capacity)),
            Schema::String => ValuesBuilder::String(VarBinaryBuilder::with_capacity(capacity)),
            Schema::Schema => ValuesBuilder::Schema(Vec::with_capacity(capacity)),
            Schema::ItemId => ValuesBuilder::ItemId(Vec::with_capacity(capacity)),
            Schema::Expr => ValuesBuilder::Expr(Vec::with_capacity(capacity)),
            other => panic!("no column type for schema {other}"),
        };
        ColumnBuilder { values, presence: BooleanBufferBuilder::new(capacity), missing: 0 }
    }

    /// Appends a present value; its type must be this builder's.
    pub fn push(&mut self, value: ScalarRef<'_>) {
        match (&mut self.values, value) {
            (ValuesBuilder::Int32(v), ScalarRef::Int32(x)) => v.push(x),
            (ValuesBuilder::Int64(v), ScalarRef::Int64(x)) => v.push(x),
            (ValuesBuilder::Float32(v), ScalarRef::Float32(x)) => v.push(x),
            (ValuesBuilder::Float64(v), ScalarRef::Float64(x)) => v.push(x),
            (ValuesBuilder::Boolean(v), ScalarRef::Boolean(x)) => v.append(x),
            (ValuesBuilder::Mask(n), ScalarRef::Mask) => *n += 1,
            (ValuesBuilder::Bytes(v), ScalarRef::Bytes(x)) => v.push(x),
            (ValuesBuilder::String(v), ScalarRef::String(x)) => v.push(x.as_bytes()),
            (ValuesBuilder::Schema(v), ScalarRef::Schema(x)) => v.push(x),
            (ValuesBuilder::ItemId(v), ScalarRef::ItemId(x)) => v.push(x.0 as i128),
            (ValuesBuilder::Expr(v), ScalarRef::Expr(x)) => v.push(x.clone()),
            (_, value) => panic!("ColumnBuilder: value of type {} pushed to another type", value.dtype()),
        }
        self.presence.append(true);
    }

    /// Appends a missing item.
    pub fn push_missing(&mut self) {
        match &mut self.values {
            ValuesBuilder::Int32(v) => v.push(0),
            ValuesBuilder::Int64(v) => v.push(0),
            ValuesBuilder::Float32(v) => v.push(0.0),
            ValuesBuilder::Float64(v) => v.push(0.0),
            ValuesBuilder::Boolean(v) => v.append(false),
            ValuesBuilder::Mask(n) => *n += 1,
            ValuesBuilder::Bytes(v) | ValuesBuilder::String(v) => v.push(b""),
            ValuesBuilder::Schema(v) => v.push(Schema::None),
            ValuesBuilder::ItemId(v) => v.push(0),
            ValuesBuilder::Expr(v) => v.push(crate::quoted::filler()),
        }
        self.presence.append(false);
        self.missing += 1;
    }

    /// The finished column.
    pub fn finish(mut self) -> Column {
        let values = match self.values {
            ValuesBuilder::Int32(v) => Values::Int32(ScalarBuffer::from(v)),
            ValuesBuilder::Int64(v) => Values::Int64(ScalarBuffer::from(v)),
            ValuesBuilder::Float32(v) => Values::Float32(ScalarBuffer::from(v)),
            ValuesBuilder::Float64(v) => Values::Float64(ScalarBuffer::from(v)),
            ValuesBuilder::Boolean(mut v) => Values::Boolean(v.finish()),
            ValuesBuilder::Mask(n) => Values::Mask(n),
            ValuesBuilder::Bytes(v) => Values::Bytes(v.finish()),
            ValuesBuilder::String(v) => Values::String(v.finish()),
            ValuesBuilder::Schema(v) => Values::Schema(v.into()),
            ValuesBuilder::ItemId(v) => Values::ItemId(v.into()),
            ValuesBuilder::Expr(v) => Values::Expr(v.into()),
        };
        let presence = (self.missing > 0).then(|| NullBuffer::new(self.presence.finish()));
        Column::new(values, presence)
    }
}

/// The items of a DataSlice: `len` slots spread over at most one column per type,
/// with disjoint presence. No column means every item is missing.
#[derive(Clone, Debug)]
pub struct SliceData {
    len: usize,
    /// Shared: cloning a slice (every argument an expression reads twice)
    /// costs a reference count, not an allocation.
    columns: Arc<[Column]>,
}

impl SliceData {
    /// Whether `self` and `other` are one slice's data, shared (so equal
    /// without looking at the values).
    pub fn shares_storage(&self, other: &SliceData) -> bool {
        self.len == other.len && Arc::ptr_eq(&self.columns, &other.columns)
    }

    /// `len` missing items.
    pub fn missing(len: usize) -> SliceData {
        SliceData { len, columns: Arc::from([]) }
    }

    /// The items of one column (all missing when none is present).
    pub fn from_column(column: Column) -> SliceData {
        let len = column.len();
        SliceData::from_columns(len, vec![column])
    }

    /// The items of several columns of distinct types with disjoint presence;
    /// columns without a present item are dropped.
    pub fn from_columns(len: usize, columns: Vec<Column>) -> SliceData {
        debug_assert!(columns.iter().all(|c| c.len() == len));
        let columns: Vec<Column> = columns.into_iter().filter(|c| c.present_count() > 0).collect();
        SliceData { len, columns: columns.into() }
    }

    /// Number of items (present or missing).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no items.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The columns, one per type present.
    pub fn columns(&self) -> &[Column] {
        &self.columns
    }

    /// The only column, when all present items share one type.
    pub fn single_column(&self) -> Option<&Column> {
        match &self.columns[..] {
            [c] => Some(c),
            _ => None,
        }
    }

    /// Number of present items.
    pub fn present_count(&self) -> usize {
        self.columns.iter().map(Column::present_count).sum()
    }

    /// The item at `i`, if present.
    pub fn get(&self, i: usize) -> Option<ScalarRef<'_>> {
        self.columns.iter().find_map(|c| c.get(i))
    }

    /// The types of the present items.
    pub fn dtypes(&self) -> impl Iterator<Item = Schema> + '_ {
        self.columns.iter().map(|c| c.values.dtype())
    }

    /// Which items are present, as a bitmap.
    pub fn present_bits(&self) -> BooleanBuffer {
        match &self.columns[..] {
            [] => BooleanBuffer::new_unset(self.len),
            [c] => c.presence.as_ref().map_or_else(|| BooleanBuffer::new_set(self.len), |p| p.inner().clone()),
            many => many
                .iter()
                .map(|c| c.presence.as_ref().expect("columns of mixed data have disjoint presence").inner().clone())
                .reduce(|a, b| &a | &b)
                .expect("at least one column"),
        }
    }

    /// The items where `keep` is set; the others become missing.
    pub fn masked(&self, keep: &BooleanBuffer) -> SliceData {
        let columns = self
            .columns
            .iter()
            .map(|c| {
                let presence = match &c.presence {
                    None => keep.clone(),
                    Some(p) => p.inner() & keep,
                };
                Column::new(c.values.clone(), Some(NullBuffer::new(presence)))
            })
            .collect();
        SliceData::from_columns(self.len, columns)
    }

    /// The items of `self` where present, else those of `other` (of the same
    /// length), a column at a time: `other`'s columns are masked to where
    /// `self` is missing, and a type both sides hold is one gather from the
    /// two columns.
    pub fn coalesce(&self, other: &SliceData) -> SliceData {
        debug_assert_eq!(self.len, other.len);
        let n = self.len;
        let fill = other.masked(&!&self.present_bits());
        let mut columns = Vec::with_capacity(self.columns.len() + fill.columns.len());
        for ours in self.columns.iter() {
            let theirs = fill.columns.iter().find(|c| c.values.dtype() == ours.values.dtype());
            let both = theirs.and_then(|theirs| {
                let indices: Vec<usize> = (0..n).map(|i| if ours.is_present(i) { i } else { n + i }).collect();
                ours.take_pair(theirs, &indices)
            });
            columns.push(both.unwrap_or_else(|| ours.clone()));
        }
        for theirs in fill.columns.iter() {
            if !self.columns.iter().any(|c| c.values.dtype() == theirs.values.dtype()) {
                columns.push(theirs.clone());
            }
        }
        SliceData::from_columns(n, columns)
    }

    /// Repeats items along `edge` (see [`Column::repeat_by_edge`]).
    pub fn repeat_by_edge(&self, parents: Option<&[usize]>, edge: &Edge) -> SliceData {
        let columns = self.columns.iter().map(|c| c.repeat_by_edge(parents, edge)).collect();
        SliceData::from_columns(edge.child_size(), columns)
    }

    /// Gathers items by index ([`MISSING_INDEX`] gives a missing item).
    pub fn take(&self, indices: &[usize]) -> SliceData {
        let columns = self.columns.iter().map(|c| c.take(indices)).collect();
        SliceData::from_columns(indices.len(), columns)
    }

    /// The items of `range`, sharing fixed-width buffers (see
    /// [`Column::range`]).
    pub fn range(&self, range: std::ops::Range<usize>) -> SliceData {
        let columns = self.columns.iter().map(|c| c.range(range.clone())).collect();
        SliceData::from_columns(range.len(), columns)
    }

    /// The items of `ranges`, one after another (what slicing rows gives):
    /// fixed-width values are copied a run at a time.
    pub fn take_ranges(&self, ranges: &[std::ops::Range<usize>]) -> SliceData {
        let len = ranges.iter().map(|r| r.len()).sum();
        // Runs of a few items on average (stacking, zipping: one item) are
        // cheaper gathered by index than copied a run at a time.
        const SHORT_RUNS: usize = 4;
        if len < ranges.len() * SHORT_RUNS {
            let indices: Vec<usize> = ranges.iter().flat_map(|r| r.clone()).collect();
            return self.take(&indices);
        }
        let columns = self.columns.iter().map(|c| c.take_ranges(ranges, len)).collect();
        SliceData::from_columns(len, columns)
    }

    /// `self` followed by `other`: one column of one fixed-width type on
    /// both sides is copied whole (no index per item), anything else is
    /// [`SliceData::take_pair`] in order.
    pub fn concat(&self, other: &SliceData) -> SliceData {
        fn join<T: arrow_buffer::ArrowNativeType>(a: &[T], b: &[T]) -> ScalarBuffer<T> {
            let mut out = Vec::with_capacity(a.len() + b.len());
            out.extend_from_slice(a);
            out.extend_from_slice(b);
            ScalarBuffer::from(out)
        }
        if let ([a], [b]) = (&self.columns[..], &other.columns[..]) {
            let values = match (&a.values, &b.values) {
                (Values::Int32(x), Values::Int32(y)) => Some(Values::Int32(join(x, y))),
                (Values::Int64(x), Values::Int64(y)) => Some(Values::Int64(join(x, y))),
                (Values::Float32(x), Values::Float32(y)) => Some(Values::Float32(join(x, y))),
                (Values::Float64(x), Values::Float64(y)) => Some(Values::Float64(join(x, y))),
                (Values::ItemId(x), Values::ItemId(y)) => Some(Values::ItemId(join(x.bits(), y.bits()).into())),
                _ => None,
            };
            // Both sides are whole columns of their items (one column each).
            if let (Some(values), true, true) = (values, a.len() == self.len, b.len() == other.len) {
                let presence = (a.presence.is_some() || b.presence.is_some()).then(|| {
                    let mut bits = BooleanBufferBuilder::new(self.len + other.len);
                    for c in [a, b] {
                        match &c.presence {
                            Some(p) => bits.append_buffer(p.inner()),
                            None => bits.append_n(c.len(), true),
                        }
                    }
                    NullBuffer::new(bits.finish())
                });
                return SliceData::from_column(Column::new(values, presence));
            }
        }
        self.take_pair(other, &(0..self.len + other.len).collect::<Vec<_>>())
    }

    /// Gathers from `self` followed by `other` as if they were one slice
    /// (see [`Column::take_pair`]): a column of a type only one side has is
    /// taken alone, with the other side's indices missing.
    pub fn take_pair(&self, other: &SliceData, indices: &[usize]) -> SliceData {
        let na = self.len;
        let mut columns = Vec::with_capacity(self.columns.len() + other.columns.len());
        for ours in self.columns.iter() {
            match other.columns.iter().find(|c| c.values.dtype() == ours.values.dtype()).and_then(|theirs| ours.take_pair(theirs, indices)) {
                Some(both) => columns.push(both),
                None => {
                    let only: Vec<usize> = indices.iter().map(|&i| if i < na { i } else { MISSING_INDEX }).collect();
                    columns.push(ours.take(&only));
                }
            }
        }
        for theirs in other.columns.iter() {
            if !self.columns.iter().any(|c| c.values.dtype() == theirs.values.dtype()) {
                let only: Vec<usize> = indices.iter().map(|&i| if i != MISSING_INDEX && i >= na { i - na } else { MISSING_INDEX }).collect();
                columns.push(theirs.take(&only));
            }
        }
        SliceData::from_columns(indices.len(), columns)
    }
}

/// The values of a slice of one column of fixed-width values, all present,
/// as a vector to change in place ([`SliceData::into_fixed`]).
#[derive(Debug)]
pub enum FixedVec {
    Int32(Vec<i32>),
    Int64(Vec<i64>),
    Float32(Vec<f32>),
    Float64(Vec<f64>),
    /// The bits of ItemIds.
    ItemId(Vec<i128>),
}

impl SliceData {
    /// The values as a vector, taken over without a copy, when the slice is
    /// one column of fixed-width values, all present, whose buffer nothing
    /// else holds (no other slice, view or NumPy array sees a change made
    /// to it); the slice as it was otherwise.
    pub fn into_fixed(self) -> Result<FixedVec, SliceData> {
        let SliceData { len, mut columns } = self;
        let Some([column]) = Arc::get_mut(&mut columns) else {
            return Err(SliceData { len, columns });
        };
        if column.presence.is_some() || column.len() != len {
            return Err(SliceData { len, columns });
        }
        macro_rules! take {
            ($variant:ident, $t:ty) => {{
                let Values::$variant(buffer) = std::mem::replace(&mut column.values, Values::Mask(0)) else { unreachable!() };
                match buffer.into_inner().into_vec::<$t>() {
                    Ok(v) => Ok(FixedVec::$variant(v)),
                    Err(buffer) => {
                        column.values = Values::$variant(ScalarBuffer::from(buffer));
                        Err(SliceData { len, columns })
                    }
                }
            }};
        }
        match &mut column.values {
            Values::Int32(_) => take!(Int32, i32),
            Values::Int64(_) => take!(Int64, i64),
            Values::Float32(_) => take!(Float32, f32),
            Values::Float64(_) => take!(Float64, f64),
            Values::ItemId(ids) if ids.run.is_none() => {
                let Some(bits) = Arc::get_mut(&mut ids.bits).and_then(|cell| cell.take()) else {
                    return Err(SliceData { len, columns });
                };
                match bits.into_inner().into_vec::<i128>() {
                    Ok(v) => Ok(FixedVec::ItemId(v)),
                    Err(buffer) => {
                        *ids = IdBits::from(ScalarBuffer::from(buffer));
                        Err(SliceData { len, columns })
                    }
                }
            }
            _ => Err(SliceData { len, columns }),
        }
    }
}

impl From<FixedVec> for SliceData {
    fn from(values: FixedVec) -> SliceData {
        SliceData::from_column(Column::full(match values {
            FixedVec::Int32(v) => Values::Int32(v.into()),
            FixedVec::Int64(v) => Values::Int64(v.into()),
            FixedVec::Float32(v) => Values::Float32(v.into()),
            FixedVec::Float64(v) => Values::Float64(v.into()),
            FixedVec::ItemId(v) => Values::ItemId(v.into()),
        }))
    }
}

/// Builds [`SliceData`] item by item, starting a column for each new type.
#[derive(Debug, Default)]
pub struct SliceBuilder {
    len: usize,
    columns: Vec<ColumnBuilder>,
    dtypes: Vec<Schema>,
    /// Items expected in all (so a first column is allocated once).
    capacity: usize,
}

impl SliceBuilder {
    /// An empty builder.
    pub fn new() -> SliceBuilder {
        SliceBuilder::default()
    }

    /// An empty builder expecting about `n` items.
    pub fn with_capacity(n: usize) -> SliceBuilder {
        SliceBuilder { capacity: n, ..SliceBuilder::default() }
    }

    /// Appends an item (`None` for missing).
    pub fn push(&mut self, item: Option<ScalarRef<'_>>) {
        let target = item.map(|v| {
            let dtype = v.dtype();
            match self.dtypes.iter().position(|&d| d == dtype) {
                Some(k) => k,
                None => {
                    let mut builder = ColumnBuilder::new(dtype, self.capacity.max(self.len + 1));
                    for _ in 0..self.len {
                        builder.push_missing();
                    }
                    self.columns.push(builder);
                    self.dtypes.push(dtype);
                    self.columns.len() - 1
                }
            }
        });
        for (k, column) in self.columns.iter_mut().enumerate() {
            match (target, item) {
                (Some(t), Some(v)) if t == k => column.push(v),
                _ => column.push_missing(),
            }
        }
        self.len += 1;
    }

    /// The finished items.
    pub fn finish(self) -> SliceData {
        let columns = self.columns.into_iter().map(ColumnBuilder::finish).collect();
        SliceData::from_columns(self.len, columns)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A slice of `items` (for tests).
    pub(crate) fn built(items: &[Option<ScalarRef<'_>>]) -> SliceData {
        let mut b = SliceBuilder::new();
        items.iter().for_each(|v| b.push(*v));
        b.finish()
    }

    #[test]
    fn concat_is_the_items_of_both_in_order() {
        let items = |d: &SliceData| (0..d.len()).map(|i| d.get(i).map(|v| format!("{v:?}"))).collect::<Vec<_>>();
        let cases = [
            (built(&[Some(ScalarRef::Int32(1)), None]), built(&[Some(ScalarRef::Int32(3))])),
            (built(&[Some(ScalarRef::Int64(1))]), built(&[Some(ScalarRef::Int64(2)), Some(ScalarRef::Int64(3))])),
            (built(&[Some(ScalarRef::Int32(1))]), built(&[Some(ScalarRef::String("a")), None])),
            (built(&[Some(ScalarRef::String("a"))]), built(&[Some(ScalarRef::String("b"))])),
            (built(&[]), built(&[None])),
        ];
        for (a, b) in cases {
            let joined = a.concat(&b);
            let expected: Vec<_> = items(&a).into_iter().chain(items(&b)).collect();
            assert_eq!(items(&joined), expected);
        }
    }

    #[test]
    fn take_pair_reads_both_sides_and_keeps_what_is_missing() {
        let items = |d: &SliceData| (0..d.len()).map(|i| d.get(i).map(|v| format!("{v:?}"))).collect::<Vec<_>>();
        let whole = built(&[Some(ScalarRef::Int32(1)), Some(ScalarRef::Int32(2))]);
        let other = built(&[Some(ScalarRef::Int32(3))]);
        let taken = whole.take_pair(&other, &[2, 0, 1, 2]);
        assert_eq!(items(&taken), items(&built(&[3, 1, 2, 3].map(|v| Some(ScalarRef::Int32(v))))));
        // Whole sides, no index missing: no presence bitmap is made.
        assert!(taken.columns().iter().all(|c| c.presence.is_none()));
        let taken = whole.take_pair(&other, &[MISSING_INDEX, 2]);
        assert_eq!(items(&taken), vec![None, Some(format!("{:?}", ScalarRef::Int32(3)))]);
        let holed = built(&[None, Some(ScalarRef::Int32(2))]);
        assert_eq!(items(&holed.take_pair(&other, &[0, 2, 1])), items(&built(&[None, Some(ScalarRef::Int32(3)), Some(ScalarRef::Int32(2))])));
    }

    #[test]
    fn checked_text_refuses_bad_offsets_and_bad_utf8() {
        let text = |offsets: Vec<i64>, data: &[u8], utf8| VarBinary::checked(ScalarBuffer::from(offsets), Buffer::from(data.to_vec()), utf8);
        let ok = text(vec![1, 3, 3], b"xabc", true).unwrap();
        assert_eq!((ok.len(), ok.str_value(0), ok.str_value(1)), (2, "ab", ""));
        assert_eq!(text(vec![0, 9], b"ab", false).unwrap_err(), "text offsets out of order or past the data");
        assert_eq!(text(vec![0, 2, 1], b"ab", false).unwrap_err(), "text offsets out of order or past the data");
        assert_eq!(text(vec![-1, 1], b"ab", false).unwrap_err(), "text offsets out of order or past the data");
        assert_eq!(text(vec![], b"", false).unwrap_err(), "text offsets are empty");
        assert_eq!(text(vec![0, 2], &[0xff, 0xfe], true).unwrap_err(), "a STRING value is not valid UTF-8");
        assert!(text(vec![0, 2], &[0xff, 0xfe], false).is_ok());
        // Valid as a whole, but an offset splits a character.
        assert_eq!(text(vec![0, 1, 2], "é".as_bytes(), true).unwrap_err(), "a STRING value is not valid UTF-8");
    }

    #[test]
    fn packed_bits_moves_an_offset_bitmap_down_to_bit_zero() {
        let bits = BooleanBuffer::from(vec![true, false, true, true, false, false, false, false, false, true, true]);
        assert_eq!(&packed_bits(&bits)[..], &[0b0000_1101, 0b0000_0110]);
        assert!(matches!(packed_bits(&bits), Cow::Borrowed(_)));
        let sliced = bits.slice(2, 9);
        assert_eq!(&packed_bits(&sliced)[..], &[0b1000_0011, 0b0000_0001]);
        assert!(matches!(packed_bits(&sliced), Cow::Owned(_)));
    }

    #[test]
    fn take_pair_reads_two_slices_as_one() {
        let build = |items: &[Option<ScalarRef<'_>>]| {
            let mut b = SliceBuilder::new();
            items.iter().for_each(|v| b.push(*v));
            b.finish()
        };
        let ours = build(&[Some(ScalarRef::Int32(1)), Some(ScalarRef::String("a")), None]);
        let theirs = build(&[Some(ScalarRef::String("b")), Some(ScalarRef::Int32(9)), Some(ScalarRef::Float32(0.5))]);
        // Indices past `ours` read `theirs`; types only one side has are kept.
        let got = ours.take_pair(&theirs, &[3, 0, MISSING_INDEX, 4, 1, 5, 2]);
        assert_eq!(
            (0..7).map(|i| got.get(i)).collect::<Vec<_>>(),
            vec![
                Some(ScalarRef::String("b")),
                Some(ScalarRef::Int32(1)),
                None,
                Some(ScalarRef::Int32(9)),
                Some(ScalarRef::String("a")),
                Some(ScalarRef::Float32(0.5)),
                None
            ]
        );
        assert_eq!(got.columns().len(), 3);
    }

    #[test]
    fn builder_splits_types_into_disjoint_columns() {
        let mut b = SliceBuilder::new();
        b.push(Some(ScalarRef::Int32(1)));
        b.push(Some(ScalarRef::String("a")));
        b.push(None);
        b.push(Some(ScalarRef::Int32(4)));
        let data = b.finish();
        assert_eq!(data.len(), 4);
        assert_eq!(data.columns().len(), 2);
        assert_eq!(data.get(0), Some(ScalarRef::Int32(1)));
        assert_eq!(data.get(1), Some(ScalarRef::String("a")));
        assert_eq!(data.get(2), None);
        assert_eq!(data.present_count(), 3);
    }

    #[test]
    fn id_runs_are_written_only_when_read_as_bits() {
        let base = 7u128 << 64;
        let ids = IdBits::run(base, 4);
        assert_eq!((ids.len(), ids.get(3), ids.as_run()), (4, base + 3, Some((base, 4))));
        assert_eq!(ids.bits().iter().map(|&b| b as u128).collect::<Vec<_>>(), (0..4).map(|k| base + k).collect::<Vec<_>>());
        let column = Column::full(Values::ItemId(ids));
        let taken = column.take(&[2, MISSING_INDEX, 0]);
        assert_eq!(taken.get(0), Some(ScalarRef::ItemId(ItemId(base + 2))));
        assert_eq!(taken.get(1), None);
        let given = IdBits::from(vec![5i128, 6]);
        assert_eq!((given.as_run(), given.get(1)), (None, 6));
    }

    #[test]
    fn repeated_schemas_are_written_only_when_read_whole() {
        let same = SchemaValues::same(Schema::Int32, 3);
        assert_eq!((same.len(), same.get(2), same.as_same()), (3, Schema::Int32, Some((Schema::Int32, 3))));
        assert_eq!(same.values().len(), 3);
        let base = 9u128 << 64;
        let structs = SchemaValues::structs(base, 2);
        assert_eq!(structs.get(1), Schema::Struct(ItemId(base + 1)));
        assert_eq!(structs.values()[0], Schema::Struct(ItemId(base)));
        let taken = Column::full(Values::Schema(structs)).take(&[1, MISSING_INDEX]);
        assert_eq!((taken.get(0), taken.get(1)), (Some(ScalarRef::Schema(Schema::Struct(ItemId(base + 1)))), None));
        let given = SchemaValues::from(vec![Schema::String]);
        assert_eq!((given.as_same(), given.get(0)), (None, Schema::String));
    }

    #[test]
    fn take_with_missing_indices() {
        let mut b = SliceBuilder::new();
        for s in ["x", "yy", "zzz"] {
            b.push(Some(ScalarRef::String(s)));
        }
        let data = b.finish().take(&[2, MISSING_INDEX, 0, 0]);
        assert_eq!(data.get(0), Some(ScalarRef::String("zzz")));
        assert_eq!(data.get(1), None);
        assert_eq!(data.get(3), Some(ScalarRef::String("x")));
        assert_eq!(data.present_count(), 3);
    }
}
