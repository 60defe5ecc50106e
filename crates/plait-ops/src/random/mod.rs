//! `kd.random.*`: random integers (`randint_shaped`, `randint_shaped_as`,
//! `randint_like`), sampling (`mask`, `sample`, `sample_n`), `shuffle`, and
//! `cityhash`.
//!
//! Two kinds of randomness, as in Koda:
//!
//! * **Hash-based** (`cityhash`, `mask`, `sample`, `sample_n`): every item
//!   gets `CityHash64WithSeed(text, seed)` with the top bit cleared, where
//!   the text is the item's key (or its flat index in decimal when no key is
//!   given). An item is sampled when its hash is below `ratio * 2**63`
//!   (`mask`, `sample`), or when it is among the `n` smallest hashes of its
//!   group (`sample_n`). This is Koda's contract, and the results equal
//!   Koda's bit for bit (see [`cityhash`]).
//! * **Generated** (`randint_*`, `shuffle`): a counter-based generator
//!   (SplitMix64 over `seed`, the size and the item's index), so the same
//!   seed and input give the same numbers in every process; without a seed
//!   every call draws a fresh one. Koda's contract is the same, but its
//!   numbers come from its own generator and are not reproduced here (see
//!   docs/differences.md).

pub mod cityhash;

use std::hash::{BuildHasher, Hasher};

use arrow_buffer::{BooleanBuffer, BooleanBufferBuilder, NullBuffer};
use plait_core::broadcast::expand_to_shape;
use plait_core::cast::cast_to;
use plait_core::{Column, DataSlice, Edge, Error, JaggedShape, Result, ScalarRef, Schema, SliceData, Values};

use crate::checks::{float64_scalar, int64_scalar, primitive};
use crate::kernel::build_vec;
use crate::masking::mask_from_bits;
use crate::registry::{Args, BagRule, Registry};
use crate::slices::gather::{filter_data, filter_dim};
use cityhash::koda_hash;

/// The decimal text of `v` in `buf`, as Koda's STRING cast writes integers.
#[inline(always)]
fn decimal(v: i64, buf: &mut [u8; 20]) -> &[u8] {
    let mut n = v.unsigned_abs();
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if v < 0 {
        i -= 1;
        buf[i] = b'-';
    }
    &buf[i..]
}

/// Koda's hash of the text of integer `v`.
#[inline(always)]
fn hash_int(v: i64, seed: i64) -> i64 {
    let mut buf = [0u8; 20];
    koda_hash(decimal(v, &mut buf), seed)
}

/// Koda's hash of the STRING form of every item of `x` (`kd.str(x)`), and
/// which items are present. Strings and integers are hashed from their
/// columns; other items are cast to STRING first, with Koda's errors.
fn hash_items(x: &DataSlice, seed: i64) -> Result<(Vec<i64>, Option<NullBuffer>)> {
    let single = match x.data().columns() {
        [c] if matches!(c.values, Values::String(_) | Values::Int32(_) | Values::Int64(_)) => Some(c.clone()),
        [] => None,
        _ => {
            let text = cast_to("kd.schema.cast_to", x, Schema::String)?;
            text.data().columns().first().cloned()
        }
    };
    let Some(column) = single else {
        return Ok((vec![0; x.size()], Some(NullBuffer::new_null(x.size()))));
    };
    let n = column.len();
    let out = match &column.values {
        Values::String(v) => build_vec(n, |c| {
            let r = c.range();
            c.write_all(r.map(|i| koda_hash(v.value(i), seed)))
        }),
        Values::Int32(v) => build_vec(n, |c| {
            let r = c.range();
            c.write_all(v[r].iter().map(|&x| hash_int(x as i64, seed)))
        }),
        Values::Int64(v) => build_vec(n, |c| {
            let r = c.range();
            c.write_all(v[r].iter().map(|&x| hash_int(x, seed)))
        }),
        Values::Bytes(_) | Values::Float32(_) | Values::Float64(_) | Values::Boolean(_) | Values::Mask(_) => {
            let text = cast_to("kd.schema.cast_to", x, Schema::String)?;
            return hash_items(&text, seed);
        }
        other => return Err(Error::value("kd.schema.cast_to", format!("casting data of type {} to STRING is not supported", other.dtype()))),
    };
    Ok((out, column.presence.clone()))
}

/// `kd.random.cityhash`: the INT64 hash of every item's text.
pub fn cityhash(x: &DataSlice, seed: &DataSlice) -> Result<DataSlice> {
    let seed = int64_scalar("seed", seed)?;
    let (hashes, presence) = hash_items(x, seed)?;
    let column = Column::new(Values::Int64(hashes.into()), presence);
    DataSlice::new(x.shape().clone(), SliceData::from_column(column), Schema::Int64)
}

/// The hash of every item of `x` for sampling: of its key's text when
/// `key` is given (missing keys give missing), else of its flat index.
fn sampling_hashes(op: &str, x: &DataSlice, seed: i64, key: Option<&DataSlice>) -> Result<(Vec<i64>, Option<NullBuffer>)> {
    match key {
        Some(key) => {
            primitive("key", key, Schema::String)?;
            if key.shape() != x.shape() {
                return Err(Error::value(op, "'x' and 'key' must have the same shape."));
            }
            hash_items(key, seed)
        }
        None => Ok((build_vec(x.size(), |c| c.write_all(c.range().map(|i| hash_int(i as i64, seed)))), None)),
    }
}

fn check_rank(op: &str, x: &DataSlice) -> Result<()> {
    if x.is_item() {
        return Err(Error::value(op, "expected rank(x) > 0"));
    }
    Ok(())
}

/// Which items of `x` are sampled with `ratio`: their hash is below
/// `ratio * 2**63` (and their key is present).
fn sampled_bits(op: &str, x: &DataSlice, ratio: &DataSlice, seed: &DataSlice, key: Option<&DataSlice>) -> Result<BooleanBuffer> {
    let ratio = float64_scalar("ratio", ratio)?;
    let seed = int64_scalar("seed", seed)?;
    check_rank(op, x)?;
    let (hashes, presence) = sampling_hashes(op, x, seed, key)?;
    let threshold = ratio * 9_223_372_036_854_775_808.0;
    let bits = crate::kernel::bits_of(&hashes, |h| (h as f64) < threshold);
    Ok(match presence {
        Some(p) => &bits & p.inner(),
        None => bits,
    })
}

/// `kd.random.mask`.
pub fn mask(x: &DataSlice, ratio: &DataSlice, seed: &DataSlice, key: Option<&DataSlice>) -> Result<DataSlice> {
    let bits = sampled_bits("kd.random.mask", x, ratio, seed, key)?;
    mask_from_bits(x.shape(), bits)
}

/// The items of `x` where `keep` is set, dropped from the last dimension.
fn keep_last(x: &DataSlice, keep: &BooleanBuffer) -> Result<DataSlice> {
    let (shape, keep) = filter_dim(x.shape(), x.rank() - 1, keep)?;
    DataSlice::new(shape, filter_data(x.data(), &keep), x.schema())
}

/// `kd.random.sample`.
pub fn sample(x: &DataSlice, ratio: &DataSlice, seed: &DataSlice, key: Option<&DataSlice>) -> Result<DataSlice> {
    let bits = sampled_bits("kd.random.sample", x, ratio, seed, key)?;
    keep_last(x, &bits)
}

/// `kd.random.sample_n`: in every group of the last dimension, the `n`
/// items with the smallest hashes (ties by position), in their order.
pub fn sample_n(x: &DataSlice, n: &DataSlice, seed: &DataSlice, key: Option<&DataSlice>) -> Result<DataSlice> {
    const OP: &str = "kd.random.sample_n";
    primitive("n", n, Schema::Int64)?;
    let seed = int64_scalar("seed", seed)?;
    check_rank(OP, x)?;
    if n.rank() >= x.rank() {
        return Err(Error::value(OP, "the rank of 'n' must be smaller than rank of 'x'."));
    }
    let groups_shape = x.shape().prefix(x.rank() - 1);
    let n = expand_to_shape("kd.shapes.expand_to_shape", n, &groups_shape, 0)?;
    let n = cast_to(OP, &n, Schema::Int64)?;
    let counts: Vec<i64> = match n.data().columns().first() {
        Some(Column { values: Values::Int64(v), presence }) => {
            (0..n.size()).map(|i| if presence.as_ref().is_none_or(|p| p.is_valid(i)) { v[if n.is_item() { 0 } else { i }] } else { 0 }).collect()
        }
        _ => vec![0; groups_shape.size()],
    };
    let (hashes, presence) = sampling_hashes(OP, x, seed, key)?;
    let edge = &x.shape().edges()[x.rank() - 1];
    let mut keep = BooleanBufferBuilder::new(x.size());
    keep.append_n(x.size(), false);
    let mut order: Vec<usize> = Vec::new();
    edge.for_each_parent(|g, _| {
        let want = counts[g].max(0) as usize;
        if want == 0 {
            return;
        }
        order.clear();
        order.extend(edge.child_range(g).filter(|&i| presence.as_ref().is_none_or(|p| p.is_valid(i))));
        if want < order.len() {
            order.select_nth_unstable_by_key(want - 1, |&i| (hashes[i], i));
            order.truncate(want);
        }
        for &i in &order {
            keep.set_bit(i, true);
        }
    });
    keep_last(x, &keep.finish())
}

/// SplitMix64's output function: a bijective mix of 64 bits.
#[inline(always)]
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

const GOLDEN: u64 = 0x9e37_79b9_7f4a_7c15;

/// The random stream of one call: item `i` draws `mix64(key + (i + 1) * GOLDEN)`
/// (SplitMix64 at position `i`), so any item is computed on its own and a
/// large output fills in parallel.
#[derive(Clone, Copy, Debug)]
struct Stream {
    key: u64,
}

impl Stream {
    /// The stream of `seed` (a fresh one when `None`) for an output of `n` items.
    fn new(seed: Option<i64>, n: usize) -> Stream {
        let seed = match seed {
            Some(s) => s as u64,
            None => {
                // A new hasher state per call: std seeds each from the
                // system's entropy and a per-thread counter.
                let mut h = std::collections::hash_map::RandomState::new().build_hasher();
                h.write_usize(n);
                h.finish()
            }
        };
        Stream { key: mix64(mix64(seed) ^ (n as u64).wrapping_mul(GOLDEN)) }
    }

    #[inline(always)]
    fn at(self, i: usize) -> u64 {
        mix64(self.key.wrapping_add((i as u64).wrapping_add(1).wrapping_mul(GOLDEN)))
    }
}

/// The optional seed argument: `None` when unspecified.
fn opt_seed(a: &Args<'_>) -> Result<Option<i64>> {
    a.opt_slice("seed")?.map(|s| int64_scalar("seed", s)).transpose()
}

/// The `[low, high)` range of `randint_*` from its optional arguments.
fn randint_range(a: &Args<'_>) -> Result<(i64, i64)> {
    // With `low` alone, `low` is the upper bound, and Koda checks it as `high`.
    let (low, high) = match (a.opt_slice("low")?, a.opt_slice("high")?) {
        (None, None) => (0, i64::MAX),
        (Some(high), None) => (0, int64_scalar("high", high)?),
        (low, Some(high)) => (low.map(|s| int64_scalar("low", s)).transpose()?.unwrap_or(0), int64_scalar("high", high)?),
    };
    if low >= high {
        return Err(Error::value(a.op_name(), format!("low={low} must be less than high={high}")));
    }
    Ok((low, high))
}

/// `n` random INT64 numbers in `[low, high)` (Lemire's multiply-shift on
/// 64 random bits).
fn randint_values(n: usize, low: i64, high: i64, seed: Option<i64>) -> Vec<i64> {
    let stream = Stream::new(seed, n);
    let range = high.wrapping_sub(low) as u64 as u128;
    build_vec(n, |c| c.write_all(c.range().map(|i| low.wrapping_add(((stream.at(i) as u128 * range) >> 64) as i64))))
}

fn randint(a: &Args<'_>, shape: &JaggedShape, presence: Option<NullBuffer>) -> Result<DataSlice> {
    let (low, high) = randint_range(a)?;
    let seed = opt_seed(a)?;
    let values = randint_values(shape.size(), low, high, seed);
    let column = Column::new(Values::Int64(values.into()), presence);
    DataSlice::new(shape.clone(), SliceData::from_column(column), Schema::Int64)
}

/// The optional `ndim` of `shuffle`, read as Koda reads it.
fn shuffle_ndim(a: &Args<'_>) -> Result<i64> {
    const TO_INT: &str = "koda_internal.to_arolla_int64";
    let Some(x) = a.opt_slice("ndim")? else { return Ok(0) };
    if x.present_count() == 0 {
        return Err(Error::value(TO_INT, "expected a present value"));
    }
    let narrowed = x.narrowed_schema();
    if !x.is_item() || !narrowed.is_integer() {
        return Err(Error::value(TO_INT, format!("unsupported narrowing cast to INT64 for the given {} DataSlice", x.schema())));
    }
    match x.get(0) {
        Some(ScalarRef::Int32(v)) => Ok(v as i64),
        Some(ScalarRef::Int64(v)) => Ok(v),
        _ => Err(Error::value(TO_INT, "expected a present value")),
    }
}

/// `kd.random.shuffle`: the items (or, with `ndim`, the subtrees) of one
/// dimension permuted within their groups (Fisher-Yates per group).
pub fn shuffle(x: &DataSlice, ndim: i64, seed: Option<i64>) -> Result<DataSlice> {
    let rank = x.rank() as i64;
    if ndim > rank {
        return Err(Error::value(
            "kd.lists.implode",
            format!("kd.implode: cannot implode 'x' to fold the last {ndim} dimension(s) because 'x' only has {rank} dimensions"),
        ));
    }
    if rank == 0 || ndim < 0 || ndim == rank {
        return Err(Error::value("kd.slices.ordinal_rank", "expected rank(x) > 0"));
    }
    let dim = (rank - 1 - ndim) as usize;
    let edges = x.shape().edges();
    let edge = &edges[dim];
    let stream = Stream::new(seed, x.size());
    // The items of dimension `dim` in their new order.
    let mut order: Vec<usize> = (0..edge.child_size()).collect();
    let mut draw = 0usize;
    edge.for_each_parent(|g, size| {
        let start = edge.child_range(g).start;
        for i in (1..size).rev() {
            let j = ((stream.at(draw) as u128 * (i as u128 + 1)) >> 64) as usize;
            draw += 1;
            order.swap(start + i, start + j);
        }
    });
    let mut new_edges: Vec<Edge> = edges[..=dim].to_vec();
    for below in &edges[dim + 1..] {
        let mut sizes = Vec::with_capacity(order.len());
        let mut next = Vec::with_capacity(below.child_size());
        for &o in &order {
            let range = below.child_range(o);
            sizes.push(range.len() as i64);
            next.extend(range);
        }
        new_edges.push(Edge::from_sizes(&sizes)?);
        order = next;
    }
    let shape = JaggedShape::from_edges(new_edges)?;
    DataSlice::new(shape, x.data().take(&order), x.schema())
}

pub(crate) fn register(r: &mut Registry) {
    r.add(
        "kd.random.cityhash",
        &["kd.cityhash"],
        "x, seed",
        r#"Returns a hash value of 'x' for given seed.

The hash is CityHash64 (with `seed`) of the text of each item, as
`kd.str(x)` writes it, with the top bit cleared: a non-negative INT64 equal
to Koda's for every input. The result has the shape and sparsity of `x`.

Args:
  x: a DataSlice of primitives to hash.
  seed: an integer DataItem, the seed of the hash.

Examples:
  >>> kd.random.cityhash(kd.slice(['a', None, 'abc']), 0)
  DataSlice([4586666403957387900, None, 6234256295332240817], schema: INT64, present: 2/3)
  >>> kd.cityhash(kd.slice([1, 1.0]), 123)
  DataSlice([6383113448643959200, 6383113448643959200], schema: INT64, present: 2/2)"#,
        |a| cityhash(a.slice("x")?, a.slice("seed")?),
    );
    r.add(
        "kd.random.mask",
        &[],
        "x, ratio, seed, key=unspecified",
        r#"Returns a mask with near size(x) * ratio present values at random indices.

Every item of `x` (missing ones too) is present in the result when
`hash(key, seed) < ratio * 2**63`, where the hash is `kd.random.cityhash` of
the item's `key`, or of its index in the flattened `x` when `key` is not
given. So the count is near, not exactly, `size(x) * ratio`, and each item's
outcome depends only on its own key and the seed. Items with a missing key
are never present.

Args:
  x: a DataSlice (rank > 0) whose shape the mask has.
  ratio: a number between 0 and 1.
  seed: an integer DataItem.
  key: an optional STRING DataSlice of the shape of `x`.

Examples:
  >>> kd.random.mask(kd.slice([[1, 2, None, 4], [5, None, None, 8]]), 0.5, 123)
  DataSlice([[missing, missing, present, missing], [present, missing, missing, missing]], schema: MASK, present: 2/8)
  >>> kd.random.mask(kd.slice([1, 2, 3]), 0.5, 123, kd.slice(['a', None, 'a']))
  DataSlice([present, missing, present], schema: MASK, present: 2/3)"#,
        |a| mask(a.slice("x")?, a.slice("ratio")?, a.slice("seed")?, a.opt_slice("key")?),
    );
    r.add(
        "kd.random.sample",
        &["kd.sample"],
        "x, ratio, seed, key=unspecified",
        r#"Randomly sample items in `x` based on ratio.

The items kept are those of `kd.random.mask(x, ratio, seed, key)`: the
sampling is stable (an item's fate depends only on its key, or its index in
the flattened `x`, and the seed), and the count is near `size(x) * ratio`.
Sampled items are dropped from the last dimension; missing items can be
sampled too.

Args:
  x: the DataSlice (rank > 0) to sample.
  ratio: a number between 0 and 1.
  seed: an integer DataItem.
  key: an optional STRING DataSlice of the shape of `x`; items with a
    missing key are never sampled.

Examples:
  >>> kd.random.sample(kd.slice([[1, 2, None, 4], [5, None, None, 8]]), 0.5, 123)
  DataSlice([[None], [5]], schema: INT32, present: 1/2)
  >>> kd.sample(kd.slice([[4, 3, 2, 1], [5, 6, 7, 8]]), 0.5, 123, kd.slice([['c', 'a', 'b', 'd'], ['a', 'b', 'c', 'd']]))
  DataSlice([[4, 3, 2, 1], [5, 6, 7, 8]], schema: INT32, present: 8/8)"#,
        |a| sample(a.slice("x")?, a.slice("ratio")?, a.slice("seed")?, a.opt_slice("key")?),
    );
    r.add(
        "kd.random.sample_n",
        &["kd.sample_n"],
        "x, n, seed, key=unspecified",
        r#"Randomly sample n items in `x` from the last dimension.

In every group of the last dimension, the `n` items with the smallest
`hash(key, seed)` are kept (all of them when the group is smaller), in their
order; the hash is `kd.random.cityhash` of the item's key, or of its index in
the flattened `x` when `key` is not given, so the choice is stable. Missing
items can be sampled; items with a missing key cannot.

Args:
  x: the DataSlice (rank > 0) to sample.
  n: the number of items to keep: an integer, or a DataSlice of integers
    broadcastable to `x` without its last dimension.
  seed: an integer DataItem.
  key: an optional STRING DataSlice of the shape of `x`.

Examples:
  >>> kd.random.sample_n(kd.slice([[1, 2, None, 4], [5, None, None, 8]]), 2, 123)
  DataSlice([[1, None], [5, None]], schema: INT32, present: 2/4)
  >>> kd.sample_n(kd.slice([[1, 2, None, 4], [5, None, None, 8]]), kd.slice([1, 3]), 123)
  DataSlice([[None], [5, None, None]], schema: INT32, present: 1/4)"#,
        |a| sample_n(a.slice("x")?, a.slice("n")?, a.slice("seed")?, a.opt_slice("key")?),
    );
    r.add(
        "kd.random.randint_shaped",
        &["kd.randint_shaped"],
        "shape, low=unspecified, high=unspecified, seed=unspecified",
        concat!(
            "Returns a DataSlice of random INT64 numbers with the given shape.

Args:
  shape: the shape of the result.
",
            "  low: the lowest integer drawn (inclusive), unless `high` is not given:
    then the numbers are drawn from [0, low).
  high: the highest integer drawn (exclusive); [0, 2**63 - 1) when neither
    `low` nor `high` is given.
  seed: the seed of the generator: the same input with the same seed gives
    the same numbers. Without it every call gives new numbers.",
            r#"

Examples:
  >>> x = kd.random.randint_shaped(kd.shapes.new(2, 3), 10, 20, seed=1)
  >>> x.get_shape(), x.get_schema()
  (JaggedShape(2, 3), DataItem(INT64, schema: SCHEMA))
  >>> kd.all((x >= 10) & (x < 20))
  DataItem(present, schema: MASK)
  >>> kd.randint_shaped(kd.shapes.new(2), 5, 5)
  Traceback (most recent call last):
  ...
  ValueError: kd.random.randint_shaped: low=5 must be less than high=5"#
        ),
        |a| randint(a, a.shape("shape")?, None),
    );
    r.add(
        "kd.random.randint_shaped_as",
        &["kd.randint_shaped_as"],
        "x, low=unspecified, high=unspecified, seed=unspecified",
        concat!(
            "Returns a DataSlice of random INT64 numbers with the same shape as `x`.

Every item is present, whatever `x` holds.

Args:
  x: the DataSlice whose shape the result has.
",
            "  low: the lowest integer drawn (inclusive), unless `high` is not given:
    then the numbers are drawn from [0, low).
  high: the highest integer drawn (exclusive); [0, 2**63 - 1) when neither
    `low` nor `high` is given.
  seed: the seed of the generator: the same input with the same seed gives
    the same numbers. Without it every call gives new numbers.",
            r#"

Examples:
  >>> x = kd.random.randint_shaped_as(kd.slice([[1, None], [3]]), 5, seed=7)
  >>> x.get_shape(), kd.all((x >= 0) & (x < 5))
  (JaggedShape(2, [2, 1]), DataItem(present, schema: MASK))
  >>> kd.randint_shaped_as(kd.slice([1, 2]), seed=3) == kd.randint_shaped_as(kd.slice([3, 4]), seed=3)
  DataSlice([present, present], schema: MASK, present: 2/2)"#
        ),
        |a| {
            let x = a.slice("x")?;
            randint(a, x.shape(), None)
        },
    );
    r.add(
        "kd.random.randint_like",
        &["kd.randint_like"],
        "x, low=unspecified, high=unspecified, seed=unspecified",
        concat!(
            "Returns a DataSlice of random INT64 numbers with the same sparsity as `x`.

Items where `x` is missing are missing in the result.

Args:
  x: the DataSlice whose shape and sparsity the result has.
",
            "  low: the lowest integer drawn (inclusive), unless `high` is not given:
    then the numbers are drawn from [0, low).
  high: the highest integer drawn (exclusive); [0, 2**63 - 1) when neither
    `low` nor `high` is given.
  seed: the seed of the generator: the same input with the same seed gives
    the same numbers. Without it every call gives new numbers.",
            r#"

Examples:
  >>> kd.random.randint_like(kd.slice([1, None, 3]), 0, 1)
  DataSlice([0, None, 0], schema: INT64, present: 2/3)
  >>> kd.has(kd.randint_like(kd.slice([[None, 'a'], ['b']]), seed=1))
  DataSlice([[missing, present], [present]], schema: MASK, present: 2/3)"#
        ),
        |a| {
            let x = a.slice("x")?;
            let bits = x.data().present_bits();
            let presence = (bits.count_set_bits() < bits.len()).then(|| NullBuffer::new(bits));
            randint(a, x.shape(), presence)
        },
    );
    r.add(
        "kd.random.shuffle",
        &["kd.shuffle"],
        "x, /, ndim=unspecified, seed=unspecified",
        r#"Randomly shuffles a DataSlice along a single dimension (last by default).

With `ndim`, the dimension `ndim` from the last is shuffled, carrying the
items below it along: `kd.explode(kd.shuffle(kd.implode(x, ndim)), ndim)`.
Every permutation is equally likely; the same input and seed give the same
order, and without a seed every call gives a new one.

Args:
  x: the DataSlice (rank > 0) to shuffle.
  ndim: which dimension to shuffle, counted from the last (0).
  seed: the seed of the generator.

Examples:
  >>> x = kd.shuffle(kd.slice([[1, 2, 3], [4, 5], [6]]), seed=1)
  >>> x.get_shape(), kd.sort(x)
  (JaggedShape(3, [3, 2, 1]), DataSlice([[1, 2, 3], [4, 5], [6]], schema: INT32, present: 6/6))
  >>> kd.sort(kd.agg_sum(kd.random.shuffle(kd.slice([[1, 2, 3], [4, 5], [6]]), ndim=1)))
  DataSlice([6, 6, 9], schema: INT32, present: 3/3)"#,
        |a| {
            let ndim = shuffle_ndim(a)?;
            let seed = opt_seed(a)?;
            shuffle(a.slice("x")?, ndim, seed)
        },
    );
    for name in ["kd.random.sample", "kd.random.sample_n", "kd.random.shuffle"] {
        r.bag_rule(name, BagRule::PassThrough);
    }
    for name in ["kd.random.randint_shaped", "kd.random.randint_shaped_as", "kd.random.randint_like", "kd.random.shuffle"] {
        r.bag_rule(name, if name.ends_with("shuffle") { BagRule::PassThrough } else { BagRule::Drop });
        r.non_deterministic(name);
    }
    r.bag_rule("kd.random.mask", BagRule::Drop);
    r.bag_rule("kd.random.cityhash", BagRule::Drop);
    // Type rules (see `crate::typing`).
    use crate::typing::rules::{Out, like, shaped};
    use plait_core::Schema;
    r.type_rule("kd.random.cityhash", like("x", Out::Fixed(Schema::Int64)));
    // Unkeyed draws depend on each item's position in the whole slice: on
    // a batch they are not each example's draws (no batching rule).
    use crate::typing::Batching::ByName;
    r.type_rule("kd.random.mask", like("x", Out::Fixed(Schema::Mask)).batched(ByName));
    for name in ["kd.random.randint_like", "kd.random.randint_shaped_as"] {
        r.type_rule(name, like("x", Out::Fixed(Schema::Int64)).batched(ByName));
    }
    r.type_rule("kd.random.randint_shaped", shaped("shape", Schema::Int64));
    r.type_rule("kd.random.shuffle", like("x", Out::SameAs("x")).batched(ByName));
    for name in ["kd.random.sample", "kd.random.sample_n"] {
        r.type_rule(name, crate::typing::TypeRule::new(crate::slices::types::sampled));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_text() {
        let mut buf = [0u8; 20];
        assert_eq!(decimal(0, &mut buf), b"0");
        assert_eq!(decimal(-12, &mut buf), b"-12");
        assert_eq!(decimal(i64::MIN, &mut buf), b"-9223372036854775808");
        assert_eq!(decimal(i64::MAX, &mut buf), b"9223372036854775807");
    }

    #[test]
    fn streams_are_reproducible_and_in_range() {
        let a = randint_values(1000, -5, 5, Some(7));
        assert_eq!(a, randint_values(1000, -5, 5, Some(7)));
        assert!(a.iter().all(|&v| (-5..5).contains(&v)));
        assert_ne!(a, randint_values(1000, -5, 5, Some(8)));
        let full = randint_values(100, i64::MIN, i64::MAX, Some(1));
        assert!(full.iter().any(|&v| v < 0) && full.iter().any(|&v| v > 0));
        assert_ne!(randint_values(10, 0, 1 << 40, None), randint_values(10, 0, 1 << 40, None));
    }
}
