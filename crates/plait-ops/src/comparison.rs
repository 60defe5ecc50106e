//! `kd.comparison`: elementwise comparisons giving MASK slices, present where
//! both items are present and the relation holds.

use std::cmp::Ordering;

use arrow_buffer::BooleanBuffer;
use plait_core::broadcast::align;
use plait_core::{DataSlice, Result, ScalarRef, Schema, Values};

use crate::elementwise::{Prepared, prepare_lazy};
use crate::kernel::{Lane, Side, bits_of, bits_of_lanes, bits_of_pairs, collect_bits};
use crate::masking::{mask_from_bits, mask_where};
use crate::promote::{TypeClass, promote};

/// The relation an operator tests, on the ordering of two present items
/// (`None` when they are unordered, like NaN or items of unrelated types).
/// Generic rather than a function pointer so that kernels inline it.
pub trait Relation: Fn(Option<Ordering>) -> bool + Sync + Copy {}
impl<F: Fn(Option<Ordering>) -> bool + Sync + Copy> Relation for F {}

/// Tests `relation` on pairs of typed values.
fn compare_sides<T: PartialOrd + Copy + Sync>(n: usize, x: Side<'_, T>, y: Side<'_, T>, relation: impl Relation) -> BooleanBuffer {
    match (x, y) {
        (Side::Many(a), Side::Many(b)) => bits_of_pairs(a, b, |x, y| relation(x.partial_cmp(&y))),
        (Side::Many(a), Side::One(v)) => bits_of(a, |x| relation(x.partial_cmp(&v))),
        (Side::One(v), Side::Many(b)) => bits_of(b, |y| relation(v.partial_cmp(&y))),
        (Side::One(u), Side::One(v)) => {
            let holds = relation(u.partial_cmp(&v));
            collect_bits(n, |_| holds)
        }
    }
}

/// Compares the prepared arguments item by item.
fn compare_prepared(p: &Prepared, relation: impl Relation) -> Result<DataSlice> {
    let n = p.len();
    if p.all_missing() {
        return mask_where(&p.shape, n, |_| false);
    }
    let [a, b] = [&p.operands[0], &p.operands[1]];
    let bits = match (a.values(), b.values()) {
        _ if p.dtype().is_numeric() => crate::with_num_type!(p.dtype(), T => {
            let (x, y) = (a.lane::<T>(), b.lane::<T>());
            match (x.as_side(), y.as_side()) {
                (Some(x), Some(y)) => compare_sides(n, x, y, relation),
                // An argument of another numeric type, converted as it is read.
                _ => bits_of_lanes(n, x, y, |x, y| relation(x.partial_cmp(&y))),
            }
        }),
        (Values::String(x) | Values::Bytes(x), Values::String(y) | Values::Bytes(y)) => {
            collect_bits(n, |i| relation(Some(x.value(a.index(i)).cmp(y.value(b.index(i))))))
        }
        (Values::Boolean(x), Values::Boolean(y)) => collect_bits(n, |i| relation(Some(x.value(a.index(i)).cmp(&y.value(b.index(i)))))),
        (Values::Mask(_), Values::Mask(_)) => collect_bits(n, |_| relation(Some(Ordering::Equal))),
        _ => {
            let (x, y) = (a.values(), b.values());
            collect_bits(n, |i| relation(order(x.get(a.index(i)), y.get(b.index(i)))))
        }
    };
    let bits = match p.presence() {
        None => bits,
        Some(presence) => &bits & presence.inner(),
    };
    mask_from_bits(&p.shape, bits)
}

/// The type two numbers of types `a` and `b` are compared in: INT64 for two
/// integers, else FLOAT32 unless one is FLOAT64 (Koda's common type: an
/// INT32 or INT64 next to a FLOAT32 is compared as a FLOAT32).
fn common_number_type(a: Schema, b: Schema) -> Schema {
    match (a, b) {
        (Schema::Int32 | Schema::Int64, Schema::Int32 | Schema::Int64) => Schema::Int64,
        (Schema::Float64, _) | (_, Schema::Float64) => Schema::Float64,
        _ => Schema::Float32,
    }
}

/// The ordering of two items of any types: numbers compare by value in
/// their common type, other items only with items of their own type.
pub fn order(a: ScalarRef<'_>, b: ScalarRef<'_>) -> Option<Ordering> {
    use ScalarRef as S;
    let as_f32 = |v: ScalarRef<'_>| match v {
        S::Int32(v) => Some(v as f32),
        S::Int64(v) => Some(v as f32),
        S::Float32(v) => Some(v),
        _ => None,
    };
    let number = |v: ScalarRef<'_>| match v {
        S::Int32(v) => Some(v as f64),
        S::Int64(v) => Some(v as f64),
        S::Float32(v) => Some(v as f64),
        S::Float64(v) => Some(v),
        _ => None,
    };
    if let (Some(x), Some(y)) = (as_f32(a), as_f32(b))
        && common_number_type(a.dtype(), b.dtype()) == Schema::Float32
    {
        return x.partial_cmp(&y);
    }
    match (a, b) {
        (S::Int32(x), S::Int32(y)) => Some(x.cmp(&y)),
        (S::Int64(x), S::Int64(y)) => Some(x.cmp(&y)),
        (S::Int32(x), S::Int64(y)) => Some((x as i64).cmp(&y)),
        (S::Int64(x), S::Int32(y)) => Some(x.cmp(&(y as i64))),
        (S::String(x), S::String(y)) => Some(x.cmp(y)),
        (S::Bytes(x), S::Bytes(y)) => Some(x.cmp(y)),
        (S::Boolean(x), S::Boolean(y)) => Some(x.cmp(&y)),
        (S::Mask, S::Mask) => Some(Ordering::Equal),
        (S::Schema(x), S::Schema(y)) => (x == y).then_some(Ordering::Equal),
        // Ids (entities, lists, ...) are equal or not; they have no order.
        (S::ItemId(x), S::ItemId(y)) => (x == y).then_some(Ordering::Equal),
        // Expressions are equal when structurally equal.
        (S::Expr(x), S::Expr(y)) => (x == y).then_some(Ordering::Equal),
        _ => match (number(a), number(b)) {
            (Some(x), Some(y)) => x.partial_cmp(&y),
            _ => None,
        },
    }
}

/// The arguments of an ordering comparison, promoted to one orderable type
/// (numbers of another type are converted as the kernel reads them).
fn prepare_orderable(op: &str, args: &[(&str, &DataSlice)]) -> Result<Prepared> {
    prepare_lazy(op, args, promote(op, args, TypeClass::Orderable)?)
}

/// Ordering comparisons: both arguments must be of one orderable type.
fn ordered(op: &str, x: &DataSlice, y: &DataSlice, relation: impl Relation) -> Result<DataSlice> {
    compare_prepared(&prepare_orderable(op, &[("x", x), ("y", y)])?, relation)
}

/// Koda's error when `x` and `y` have no common schema (an entity and a
/// SCHEMA, two entity schemas, OBJECT and an entity schema): they cannot be
/// compared for equality.
fn check_comparable(op: &str, x: &DataSlice, y: &DataSlice) -> Result<()> {
    match Schema::common(x.schema(), y.schema()) {
        Some(_) => Ok(()),
        None => Err(crate::promote::no_common_schema_error(op, (x.schema(), x.bag()), (y.schema(), y.bag()))),
    }
}

/// Equality tests accept items of any types whose schemas have a common
/// schema (see [`check_comparable`]); items of unrelated types differ.
fn equality(op: &str, x: &DataSlice, y: &DataSlice, relation: impl Relation) -> Result<DataSlice> {
    check_comparable(op, x, y)?;
    let args = [("x", x), ("y", y)];
    match promote(op, &args, TypeClass::Primitive) {
        Ok(promotion) => compare_prepared(&prepare_lazy(op, &args, promotion)?, relation),
        Err(_) => {
            let aligned = align(op, &[x, y])?;
            let (a, b) = (&aligned[0], &aligned[1]);
            let (both, same) = match equal_columns(a.data(), b.data()) {
                Some(same) => (&a.data().present_bits() & &b.data().present_bits(), same),
                None => equal_items(a.data(), b.data()),
            };
            // Both present, and equal or not as `relation` wants.
            let (when_equal, when_not) = (relation(Some(Ordering::Equal)), relation(Some(Ordering::Less)));
            let bits = match (when_equal, when_not) {
                (true, true) => both,
                (true, false) => &both & &same,
                (false, true) => &both & &!&same,
                (false, false) => BooleanBuffer::new_unset(a.size()),
            };
            mask_from_bits(a.shape(), bits)
        }
    }
}

/// For items of any types (as OBJECT data holds them) in `a` and `b` of one
/// length: where both are present, and where they are also equal by
/// [`order`]'s rules (numbers of any two types by value in their common
/// type, NaN equal to nothing, other items only to items of their own
/// type). Each column of
/// `a` is tested against each column of `b`; the columns of one side have
/// disjoint presence, so the pairs cover every pair of present items once.
fn equal_items(a: &plait_core::SliceData, b: &plait_core::SliceData) -> (BooleanBuffer, BooleanBuffer) {
    let n = a.len();
    let (mut all_both, mut all_same) = (BooleanBuffer::new_unset(n), BooleanBuffer::new_unset(n));
    for ca in a.columns() {
        for cb in b.columns() {
            let both = match (&ca.presence, &cb.presence) {
                (None, None) => BooleanBuffer::new_set(n),
                (Some(p), None) | (None, Some(p)) => p.inner().clone(),
                (Some(p), Some(q)) => p.inner() & q.inner(),
            };
            if both.count_set_bits() == 0 {
                continue;
            }
            let (x, y) = (ca.values.dtype(), cb.values.dtype());
            // Items of unrelated types are never equal.
            if x == y || (x.is_numeric() && y.is_numeric()) {
                all_same = &all_same | &equal_values(&both, &ca.values, &cb.values);
            }
            all_both = &all_both | &both;
        }
    }
    (all_both, all_same)
}

/// Where the values of `x` and `y` (columns of one type, or both numeric)
/// are equal, among the positions set in `at`. Numbers are compared a
/// block at a time over every position; other values only at `at`'s.
fn equal_values(at: &BooleanBuffer, x: &Values, y: &Values) -> BooleanBuffer {
    use plait_core::cast::NumSlice;
    let n = at.len();
    if let (Some(u), Some(v)) = (NumSlice::of(x), NumSlice::of(y)) {
        // In the common type of the two, as Koda compares them.
        let same = match common_number_type(x.dtype(), y.dtype()) {
            Schema::Int64 => bits_of_lanes::<i64>(n, Lane::Widen(u), Lane::Widen(v), |x, y| x == y),
            Schema::Float32 => bits_of_lanes::<f32>(n, Lane::Widen(u), Lane::Widen(v), |x, y| x == y),
            _ => bits_of_lanes::<f64>(n, Lane::Widen(u), Lane::Widen(v), |x, y| x == y),
        };
        return &same & at;
    }
    let at_positions = |equal: &dyn Fn(usize) -> bool| {
        let mut bits = arrow_buffer::MutableBuffer::from_len_zeroed(n.div_ceil(8));
        for i in at.set_indices().filter(|&i| equal(i)) {
            arrow_buffer::bit_util::set_bit(bits.as_slice_mut(), i);
        }
        BooleanBuffer::new(bits.into(), 0, n)
    };
    match (x, y) {
        (Values::String(u), Values::String(v)) | (Values::Bytes(u), Values::Bytes(v)) => at_positions(&|i| u.value(i) == v.value(i)),
        (Values::ItemId(u), Values::ItemId(v)) => {
            let (u, v) = (u.bits(), v.bits());
            &collect_bits(n, |i| u[i] == v[i]) & at
        }
        _ => at_positions(&|i| order(x.get(i), y.get(i)) == Some(Ordering::Equal)),
    }
}

/// Where `a` and `b` (of one length) hold ids, text or bytes, each in one
/// column of one type: whether each pair of values is equal, column against
/// column (entities compared with entities, `ids == ids`); `None` for
/// anything else (numbers are promoted before this; mixed OBJECT data is
/// compared item by item). Missing slots compare whatever they hold.
fn equal_columns(a: &plait_core::SliceData, b: &plait_core::SliceData) -> Option<BooleanBuffer> {
    let ([ca], [cb]) = (a.columns(), b.columns()) else { return None };
    let n = a.len();
    Some(match (&ca.values, &cb.values) {
        (Values::ItemId(x), Values::ItemId(y)) => {
            if let (Some(u), Some(v)) = (x.as_run(), y.as_run()) {
                // Two runs of fresh ids: equal everywhere or nowhere.
                return Some(if u == v { BooleanBuffer::new_set(n) } else { BooleanBuffer::new_unset(n) });
            }
            let (x, y) = (x.bits(), y.bits());
            BooleanBuffer::collect_bool(n, |i| x[i] == y[i])
        }
        (Values::String(x), Values::String(y)) | (Values::Bytes(x), Values::Bytes(y)) => BooleanBuffer::collect_bool(n, |i| x.value(i) == y.value(i)),
        _ => return None,
    })
}

/// Present where `x == y`.
pub fn equal(x: &DataSlice, y: &DataSlice) -> Result<DataSlice> {
    equality("kd.comparison.equal", x, y, |o| o == Some(Ordering::Equal))
}

/// Present where both are present and `x != y`.
pub fn not_equal(x: &DataSlice, y: &DataSlice) -> Result<DataSlice> {
    equality("kd.comparison.not_equal", x, y, |o| o != Some(Ordering::Equal))
}

/// Present where `x < y`.
pub fn less(x: &DataSlice, y: &DataSlice) -> Result<DataSlice> {
    ordered("kd.comparison.less", x, y, |o| o == Some(Ordering::Less))
}

/// Present where `x <= y`.
pub fn less_equal(x: &DataSlice, y: &DataSlice) -> Result<DataSlice> {
    ordered("kd.comparison.less_equal", x, y, |o| matches!(o, Some(Ordering::Less | Ordering::Equal)))
}

/// Present where `x > y`.
pub fn greater(x: &DataSlice, y: &DataSlice) -> Result<DataSlice> {
    reversed("kd.comparison.greater", x, y, |o| o == Some(Ordering::Less))
}

/// `x > y` as `y < x` (`x >= y` as `y <= x`): Koda's `greater` is `less`
/// with the arguments swapped, so its errors speak of `y` first and print
/// shapes in that order; `relation` holds between `y` and `x`.
fn reversed(op: &str, x: &DataSlice, y: &DataSlice, relation: impl Relation) -> Result<DataSlice> {
    compare_prepared(&prepare_orderable(op, &[("y", y), ("x", x)])?, relation)
}

/// Present where `x >= y`.
pub fn greater_equal(x: &DataSlice, y: &DataSlice) -> Result<DataSlice> {
    reversed("kd.comparison.greater_equal", x, y, |o| matches!(o, Some(Ordering::Less | Ordering::Equal)))
}

/// A MASK item: present when `x` and `y` have the same items, missing ones
/// included, after broadcasting.
pub fn full_equal(x: &DataSlice, y: &DataSlice) -> Result<DataSlice> {
    let op = "kd.comparison.full_equal";
    check_comparable(op, x, y)?;
    let aligned = align(op, &[x, y])?;
    let (a, b) = (&aligned[0], &aligned[1]);
    let same = (0..a.size()).all(|i| match (a.get(i), b.get(i)) {
        (None, None) => true,
        (Some(u), Some(v)) => order(u, v) == Some(Ordering::Equal),
        _ => false,
    });
    DataSlice::item(same.then_some(ScalarRef::Mask), Schema::Mask)
}

pub(crate) fn register(r: &mut crate::registry::Registry) {
    r.add(
        "kd.comparison.equal",
        &["kd.equal"],
        "x, y",
        r#"Returns present where x and y are equal, item by item (`x == y`).

The arguments are broadcast to a common shape, and a position where either
item is missing is missing in the result. Numbers compare by value whatever
their types; items of unrelated types (a number and a string in OBJECT data,
say) are not equal, and neither is NaN to itself.

Args:
  x: a DataSlice.
  y: a DataSlice or Python value to compare x with.

Examples:
  >>> kd.equal(kd.slice([1, 2, None]), 2)
  DataSlice([missing, present, missing], schema: MASK, present: 1/3)
  >>> kd.equal(kd.slice([[1, 2], [3]]), kd.slice([1.0, 3.0]))
  DataSlice([[present, missing], [present]], schema: MASK, present: 2/3)
  >>> kd.equal(kd.slice([1, 'a']), 'a')
  DataSlice([missing, present], schema: MASK, present: 1/2)"#,
        |a| equal(a.slice("x")?, a.slice("y")?),
    );
    r.add(
        "kd.comparison.not_equal",
        &["kd.not_equal"],
        "x, y",
        r#"Returns present where x and y are both present and differ, item by item (`x != y`).

The arguments are broadcast to a common shape, and a position where either
item is missing is missing in the result (so this is not the same as
`~kd.equal(x, y)`). Items of unrelated types differ, and NaN differs from
itself.

Args:
  x: a DataSlice.
  y: a DataSlice or Python value to compare x with.

Examples:
  >>> kd.not_equal(kd.slice([1, 2, None]), 2)
  DataSlice([present, missing, missing], schema: MASK, present: 1/3)
  >>> kd.not_equal(kd.slice([1, 'a', None]), 'a')
  DataSlice([present, missing, missing], schema: MASK, present: 1/3)"#,
        |a| not_equal(a.slice("x")?, a.slice("y")?),
    );
    r.add("kd.comparison.less", &["kd.less"], "x, y", r#"Returns present where x is less than y, item by item (`x < y`).

The arguments are broadcast to a common shape, and a position where either
item is missing is missing in the result. Both must be of one orderable kind:
numbers (of any numeric types), strings, bytes, booleans or masks. Comparing
with NaN is never true. Arguments with no common primitive schema raise a
ValueError.

Args:
  x: a DataSlice.
  y: a DataSlice or Python value to compare x with.

Examples:
  >>> kd.less(kd.slice([1, 2, 3, None]), 2)
  DataSlice([present, missing, missing, missing], schema: MASK, present: 1/4)
  >>> kd.less(kd.slice(['apple', 'pear']), 'banana')
  DataSlice([present, missing], schema: MASK, present: 1/2)
  >>> kd.less(kd.item(1), 'a')
  Traceback (most recent call last):
  ...
  ValueError: kd.comparison.less: arguments do not contain values castable to a common primitive schema, but have the common non-primitive schema OBJECT.
  <BLANKLINE>
  Schema for `x`: INT32
  Schema for `y`: STRING"#, |a| less(a.slice("x")?, a.slice("y")?));
    r.add(
        "kd.comparison.less_equal",
        &["kd.less_equal"],
        "x, y",
        r#"Returns present where x is less than or equal to y, item by item (`x <= y`).

The arguments are broadcast to a common shape, and a position where either
item is missing is missing in the result. Both must be of one orderable kind:
numbers (of any numeric types), strings, bytes, booleans or masks. Comparing
with NaN is never true.

Args:
  x: a DataSlice.
  y: a DataSlice or Python value to compare x with.

Examples:
  >>> kd.less_equal(kd.slice([1, 2, 3, None]), 2)
  DataSlice([present, present, missing, missing], schema: MASK, present: 2/4)
  >>> kd.less_equal(kd.slice([1, 2.5]), kd.int64(2))
  DataSlice([present, missing], schema: MASK, present: 1/2)"#,
        |a| less_equal(a.slice("x")?, a.slice("y")?),
    );
    r.add(
        "kd.comparison.greater",
        &["kd.greater"],
        "x, y",
        r#"Returns present where x is greater than y, item by item (`x > y`).

The arguments are broadcast to a common shape, and a position where either
item is missing is missing in the result. Both must be of one orderable kind:
numbers (of any numeric types), strings, bytes, booleans or masks. Comparing
with NaN is never true. Arguments with no common primitive schema raise a
ValueError.

Args:
  x: a DataSlice.
  y: a DataSlice or Python value to compare x with.

Examples:
  >>> kd.greater(kd.slice([1, 2, 3, None]), 2)
  DataSlice([missing, missing, present, missing], schema: MASK, present: 1/4)
  >>> kd.greater(kd.slice(['b', 'a']), 'a')
  DataSlice([present, missing], schema: MASK, present: 1/2)"#,
        |a| greater(a.slice("x")?, a.slice("y")?),
    );
    r.add(
        "kd.comparison.greater_equal",
        &["kd.greater_equal"],
        "x, y",
        r#"Returns present where x is greater than or equal to y, item by item (`x >= y`).

The arguments are broadcast to a common shape, and a position where either
item is missing is missing in the result. Both must be of one orderable kind:
numbers (of any numeric types), strings, bytes, booleans or masks. Comparing
with NaN is never true.

Args:
  x: a DataSlice.
  y: a DataSlice or Python value to compare x with.

Examples:
  >>> kd.greater_equal(kd.slice([1, 2, 3, None]), 2)
  DataSlice([missing, present, present, missing], schema: MASK, present: 2/4)
  >>> kd.greater_equal(kd.slice([[1, 5], [3]]), kd.slice([2, 3]))
  DataSlice([[missing, present], [present]], schema: MASK, present: 2/3)"#,
        |a| greater_equal(a.slice("x")?, a.slice("y")?),
    );
    r.add(
        "kd.comparison.full_equal",
        &["kd.full_equal"],
        "x, y",
        r#"Returns present if x and y hold the same items in the same places, missing ones included.

Unlike `kd.equal`, the result is a single MASK item for the whole slices: two
missing items count as equal, a missing item and a present one do not. The
arguments are broadcast to a common shape first, and numbers compare by value
whatever their types.

Args:
  x: a DataSlice.
  y: a DataSlice or Python value to compare x with.

Examples:
  >>> kd.full_equal(kd.slice([1, None, 3]), kd.slice([1, None, 3]))
  DataItem(present, schema: MASK)
  >>> kd.full_equal(kd.slice([1, None, 3]), kd.slice([1, 2, 3]))
  DataItem(missing, schema: MASK)
  >>> kd.full_equal(kd.slice([[2, 2], [2]]), 2)
  DataItem(present, schema: MASK)"#,
        |a| full_equal(a.slice("x")?, a.slice("y")?),
    );
    // Type rules (see `crate::typing`).
    use crate::typing::rules::{Out, elementwise, elementwise_any};
    const XY: &[&str] = &["x", "y"];
    for name in ["kd.comparison.equal", "kd.comparison.not_equal"] {
        r.type_rule(name, elementwise_any(XY, Out::Fixed(Schema::Mask)));
    }
    for name in ["kd.comparison.less", "kd.comparison.less_equal", "kd.comparison.greater", "kd.comparison.greater_equal"] {
        r.type_rule(name, elementwise(XY, TypeClass::Orderable, Out::Fixed(Schema::Mask)));
    }
    r.type_rule("kd.comparison.full_equal", crate::typing::rules::item(XY, Schema::Mask));
}
