//! `kd.masking`: presence as data. A MASK item is `present` or missing;
//! these operators turn presence into masks, masks into presence, and
//! combine slices by presence.

use arrow_buffer::{BooleanBuffer, NullBuffer};
use plait_core::broadcast::align;
use plait_core::cast::cast_to_implicit;
use plait_core::column::Column;
use plait_core::{DataSlice, Error, JaggedShape, Result, Schema, SliceData, Values};

use crate::groups::groups;
use crate::kernel::{BitCounter, collect_bits, map_groups};
use crate::num::Num;
use crate::promote::{TypeClass, data_type};

/// A MASK slice of `shape` present where `bits` is set.
pub fn mask_from_bits(shape: &JaggedShape, bits: BooleanBuffer) -> Result<DataSlice> {
    let column = Column::new(Values::Mask(bits.len()), Some(NullBuffer::new(bits)));
    let data = SliceData::from_column(column);
    DataSlice::new(shape.clone(), data, Schema::Mask)
}

/// A MASK slice of `shape` (with `n` items) present where `pred(i)` holds.
pub fn mask_where(shape: &JaggedShape, n: usize, pred: impl Fn(usize) -> bool + Sync) -> Result<DataSlice> {
    mask_from_bits(shape, collect_bits(n, pred))
}

/// Checks that `x` holds MASK items.
fn check_mask(op: &str, arg: &str, x: &DataSlice) -> Result<()> {
    data_type(op, arg, x, TypeClass::Mask).map(|_| ())
}

/// Present where `x` is present.
pub fn has(x: &DataSlice) -> Result<DataSlice> {
    mask_from_bits(x.shape(), x.data().present_bits())
}

/// Present where `x` is missing.
pub fn has_not(x: &DataSlice) -> Result<DataSlice> {
    mask_from_bits(x.shape(), !&x.data().present_bits())
}

/// `x` where `mask` is present, missing elsewhere (`x & mask`).
pub fn apply_mask(x: &DataSlice, mask: &DataSlice) -> Result<DataSlice> {
    let op = "kd.masking.apply_mask";
    check_mask(op, "mask", mask)?;
    let aligned = align(op, &[x, mask])?;
    let keep = aligned[1].data().present_bits();
    DataSlice::new(aligned[0].shape().clone(), aligned[0].data().masked(&keep), x.schema())
}

/// `x` where present, else `y` (`x | y`); the schema is the common one.
pub fn coalesce(x: &DataSlice, y: &DataSlice) -> Result<DataSlice> {
    merge("kd.masking.coalesce", x, y)
}

/// Like [`coalesce`], but `x` and `y` must not both be present anywhere.
pub fn disjoint_coalesce(x: &DataSlice, y: &DataSlice) -> Result<DataSlice> {
    let op = "kd.masking.disjoint_coalesce";
    // The schemas first, then the shapes and the overlap (Koda's order).
    common_schema_of(op, x, y)?;
    let aligned = align(op, &[x, y])?;
    let both = &aligned[0].data().present_bits() & &aligned[1].data().present_bits();
    if both.count_set_bits() > 0 {
        // Koda's text, then the overlapping positions and values (the first
        // few: a message is read by a person).
        const SHOWN: usize = 10;
        let indices: Vec<usize> = both.set_indices().take(SHOWN + 1).collect();
        let list = |texts: Vec<String>| {
            let more = if texts.len() > SHOWN { ", ..." } else { "" };
            format!("[{}{more}]", texts[..texts.len().min(SHOWN)].join(", "))
        };
        let values = |ds: &DataSlice| list(indices.iter().map(|&i| ds.get(i).map(plait_core::repr::item_text).unwrap_or_default()).collect());
        return Err(Error::value(
            op,
            format!(
                "`x` and `y` cannot overlap, but found the following intersecting values for the flattened and aligned inputs:\n\n\
                 intersecting indices: {}\nintersecting x-values: {}\nintersecting y-values: {}",
                list(indices.iter().map(|i| i.to_string()).collect()),
                values(&aligned[0]),
                values(&aligned[1]),
            ),
        ));
    }
    merge(op, &aligned[0], &aligned[1])
}

/// `yes` where `condition` is present, else `no`.
pub fn cond(condition: &DataSlice, yes: &DataSlice, no: &DataSlice) -> Result<DataSlice> {
    let op = "kd.masking.cond";
    check_mask(op, "condition", condition)?;
    let aligned = align(op, &[condition, yes, no])?;
    let keep = aligned[0].data().present_bits();
    let yes = DataSlice::new(aligned[1].shape().clone(), aligned[1].data().masked(&keep), yes.schema())?;
    let no = DataSlice::new(aligned[2].shape().clone(), aligned[2].data().masked(&!&keep), no.schema())?;
    merge(op, &yes, &no)
}

/// The schema `x` and `y` are merged under, or Koda's error.
fn common_schema_of(op: &str, x: &DataSlice, y: &DataSlice) -> Result<Schema> {
    Schema::common(x.schema(), y.schema()).ok_or_else(|| crate::promote::no_common_schema_error(op, (x.schema(), x.bag()), (y.schema(), y.bag())))
}

/// Items of `x` where present, else of `y`, under the common schema.
fn merge(op: &str, x: &DataSlice, y: &DataSlice) -> Result<DataSlice> {
    let schema = common_schema_of(op, x, y)?;
    let x = cast_to_implicit(op, x, schema)?;
    let y = cast_to_implicit(op, y, schema)?;
    let aligned = align(op, &[&x, &y])?;
    let (x, y) = (&aligned[0], &aligned[1]);
    if y.present_count() == 0 {
        return DataSlice::new(x.shape().clone(), x.data().clone(), schema);
    }
    if x.present_count() == 0 {
        return DataSlice::new(y.shape().clone(), y.data().clone(), schema);
    }
    if x.present_count() == x.size() {
        return DataSlice::new(x.shape().clone(), x.data().clone(), schema);
    }
    if let Some(data) = merge_numbers(x, y) {
        return DataSlice::new(x.shape().clone(), data, schema);
    }
    DataSlice::new(x.shape().clone(), x.data().coalesce(y.data()), schema)
}

/// [`merge`] of two aligned columns of one numeric type, item by item in
/// a typed loop, or of two MASK columns, a union of bitmaps (`None` for
/// other data: mixed types, text, ids).
fn merge_numbers(x: &DataSlice, y: &DataSlice) -> Option<SliceData> {
    let ([cx], [cy]) = (x.data().columns(), y.data().columns()) else { return None };
    let dtype = cx.values.dtype();
    let px = cx.presence.as_ref()?;
    if dtype == Schema::Mask && cy.values.dtype() == Schema::Mask {
        // A MASK item has no value: `x | y` is present where either is.
        let presence = cy.presence.as_ref().map(|py| NullBuffer::new(px.inner() | py.inner()));
        return Some(SliceData::from_column(Column::new(Values::Mask(cx.len()), presence)));
    }
    if dtype != cy.values.dtype() || !matches!(dtype, Schema::Int32 | Schema::Int64 | Schema::Float32 | Schema::Float64) {
        return None;
    }
    crate::with_num_type!(dtype, T => {
        let (a, b) = (T::slice_of(&cx.values)?, T::slice_of(&cy.values)?);
        let values = crate::kernel::build_vec(a.len(), |out| {
            let range = out.range();
            out.write_all(range.map(|i| if px.is_valid(i) { a[i] } else { b[i] }));
        });
        let presence = cy.presence.as_ref().map(|py| NullBuffer::new(px.inner() | py.inner()));
        Some(SliceData::from_column(Column::new(T::into_values(values), presence)))
    })
}

/// The bits of two MASK arguments, aligned.
fn mask_pair(op: &str, x: &DataSlice, y: &DataSlice) -> Result<(JaggedShape, BooleanBuffer, BooleanBuffer)> {
    check_mask(op, "x", x)?;
    check_mask(op, "y", y)?;
    let aligned = align(op, &[x, y])?;
    Ok((aligned[0].shape().clone(), aligned[0].data().present_bits(), aligned[1].data().present_bits()))
}

/// Present where both masks are.
pub fn mask_and(x: &DataSlice, y: &DataSlice) -> Result<DataSlice> {
    let (shape, a, b) = mask_pair("kd.masking.mask_and", x, y)?;
    mask_from_bits(&shape, &a & &b)
}

/// Present where either mask is.
pub fn mask_or(x: &DataSlice, y: &DataSlice) -> Result<DataSlice> {
    let (shape, a, b) = mask_pair("kd.masking.mask_or", x, y)?;
    mask_from_bits(&shape, &a | &b)
}

/// Present where the masks agree.
pub fn mask_equal(x: &DataSlice, y: &DataSlice) -> Result<DataSlice> {
    let (shape, a, b) = mask_pair("kd.masking.mask_equal", x, y)?;
    mask_from_bits(&shape, !&(&a ^ &b))
}

/// Present where the masks differ.
pub fn mask_not_equal(x: &DataSlice, y: &DataSlice) -> Result<DataSlice> {
    let (shape, a, b) = mask_pair("kd.masking.mask_not_equal", x, y)?;
    mask_from_bits(&shape, &a ^ &b)
}

/// Present where exactly one mask is (the same as `mask_not_equal`).
pub fn xor(x: &DataSlice, y: &DataSlice) -> Result<DataSlice> {
    let (shape, a, b) = mask_pair("kd.masking.xor", x, y)?;
    mask_from_bits(&shape, &a ^ &b)
}

/// Per group of the last `ndim` dimensions: whether `pred(present, size)` holds,
/// where `present` counts the group's present items.
fn agg_presence(x: &DataSlice, op: &str, ndim: Option<i64>, pred: impl Fn(usize, usize) -> bool + Sync) -> Result<DataSlice> {
    let g = groups(op, x, ndim)?;
    let counter = BitCounter::new(&x.data().present_bits());
    let flags = map_groups(&g.edge, |r| {
        let size = r.len();
        pred(counter.count(r), size)
    });
    mask_from_bits(&g.shape, BooleanBuffer::from(flags))
}

/// Present for groups with a present item.
pub fn agg_has(x: &DataSlice, ndim: Option<i64>) -> Result<DataSlice> {
    agg_presence(x, "kd.masking.agg_has", ndim, |present, _| present > 0)
}

/// Present for groups of a MASK slice with a present item.
pub fn agg_any(x: &DataSlice, ndim: Option<i64>) -> Result<DataSlice> {
    let op = "kd.masking.agg_any";
    check_mask(op, "x", x)?;
    agg_presence(x, op, ndim, |present, _| present > 0)
}

/// Present for groups of a MASK slice whose items are all present (also empty ones).
pub fn agg_all(x: &DataSlice, ndim: Option<i64>) -> Result<DataSlice> {
    let op = "kd.masking.agg_all";
    check_mask(op, "x", x)?;
    agg_presence(x, op, ndim, |present, size| present == size)
}

/// Whether any item of a MASK slice is present (over all dimensions).
pub fn any(x: &DataSlice) -> Result<DataSlice> {
    agg_any(x, Some(x.rank() as i64))
}

/// Whether every item of a MASK slice is present (over all dimensions).
pub fn all(x: &DataSlice) -> Result<DataSlice> {
    agg_all(x, Some(x.rank() as i64))
}

/// Present where `x` is present (the same as `has`).
pub fn present_like(x: &DataSlice) -> Result<DataSlice> {
    has(x)
}

/// All-present MASK of `shape`.
pub fn present_shaped(shape: &JaggedShape) -> Result<DataSlice> {
    mask_from_bits(shape, BooleanBuffer::new_set(shape.size()))
}

/// All-present MASK with the shape of `x`.
pub fn present_shaped_as(x: &DataSlice) -> Result<DataSlice> {
    present_shaped(x.shape())
}

pub(crate) fn register(r: &mut crate::registry::Registry) {
    r.add(
        "kd.masking.has",
        &["kd.has"],
        "x",
        r#"Returns present where x is present, as a MASK slice of the shape of x.

Works on a slice of any schema; it is the usual way to turn presence into a
mask for `kd.agg_all`, `kd.any`, `kd.cond` and the like.

Args:
  x: a DataSlice.

Examples:
  >>> kd.has(kd.slice([1, None, 'a']))
  DataSlice([present, missing, present], schema: MASK, present: 2/3)
  >>> kd.has(kd.item(None))
  DataItem(missing, schema: MASK)"#,
        |a| has(a.slice("x")?),
    );
    r.add(
        "kd.masking.has_not",
        &["kd.has_not"],
        "x",
        r#"Returns present where x is missing, as a MASK slice of the shape of x (`~kd.has(x)`).

Args:
  x: a DataSlice.

Examples:
  >>> kd.has_not(kd.slice([1, None, 'a']))
  DataSlice([missing, present, missing], schema: MASK, present: 1/3)
  >>> kd.has_not(kd.slice([[1, None], [None]]))
  DataSlice([[missing, present], [present]], schema: MASK, present: 2/3)"#,
        |a| has_not(a.slice("x")?),
    );
    r.add(
        "kd.masking.apply_mask",
        &["kd.apply_mask"],
        "x, y",
        r#"Keeps the items of x where the mask y is present and makes the others missing (`x & y`).

y must be a MASK slice; it is broadcast to the shape of x (or the other way
round). The result keeps the schema of x.

Args:
  x: a DataSlice.
  y: a DataSlice of MASK.

Examples:
  >>> x = kd.slice([1, 2, 3])
  >>> kd.apply_mask(x, x > 1)
  DataSlice([None, 2, 3], schema: INT32, present: 2/3)
  >>> kd.apply_mask(kd.slice([[1, 2], [3]]), kd.slice([kd.present, kd.missing]))
  DataSlice([[1, 2], [None]], schema: INT32, present: 2/3)"#,
        |a| apply_mask(a.slice("x")?, a.slice("y")?),
    );
    r.add(
        "kd.masking.coalesce",
        &["kd.coalesce"],
        "x, y",
        r#"Returns x where it is present, and y elsewhere (`x | y`).

The arguments are broadcast to a common shape, and the result has their common
schema (OBJECT when they hold different kinds of primitives). A position
missing in both stays missing.

Args:
  x: a DataSlice.
  y: a DataSlice or Python value filling the gaps of x.

Examples:
  >>> kd.coalesce(kd.slice([1, None, None]), kd.slice([10, 20, None]))
  DataSlice([1, 20, None], schema: INT32, present: 2/3)
  >>> kd.coalesce(kd.slice([[1, None], [None]]), 0)
  DataSlice([[1, 0], [0]], schema: INT32, present: 3/3)
  >>> kd.coalesce(kd.slice([1, None]), 'x')
  DataSlice([1, 'x'], schema: OBJECT, present: 2/2)"#,
        |a| coalesce(a.slice("x")?, a.slice("y")?),
    );
    r.add(
        "kd.masking.disjoint_coalesce",
        &["kd.disjoint_coalesce"],
        "x, y",
        r#"Returns x where it is present and y elsewhere, requiring that x and y never both be present.

Like `kd.coalesce`, but raises a ValueError when x and y are both present at a
position (after broadcasting), so that no value is silently dropped.

Args:
  x: a DataSlice.
  y: a DataSlice or Python value, missing wherever x is present.

Examples:
  >>> kd.disjoint_coalesce(kd.slice([1, None, None]), kd.slice([None, 2, None]))
  DataSlice([1, 2, None], schema: INT32, present: 2/3)
  >>> kd.disjoint_coalesce(kd.slice([1, None]), kd.slice([5, 2]))
  Traceback (most recent call last):
  ...
  ValueError: kd.masking.disjoint_coalesce: `x` and `y` cannot overlap, ..."#,
        |a| disjoint_coalesce(a.slice("x")?, a.slice("y")?),
    );
    r.add(
        "kd.masking.cond",
        &["kd.cond"],
        "condition, yes, no=None",
        r#"Returns yes where condition is present, and no elsewhere.

condition must be a MASK slice. The three arguments are broadcast to a common
shape, and the result has the common schema of yes and no. When no is not
given, the result is missing where condition is.

Args:
  condition: a DataSlice of MASK choosing between yes and no.
  yes: the items to take where condition is present.
  no: the items to take where condition is missing (missing by default).

Examples:
  >>> kd.cond(kd.slice([1, 2, 3]) > 1, 'big', 'small')
  DataSlice(['small', 'big', 'big'], schema: STRING, present: 3/3)
  >>> kd.cond(kd.slice([kd.present, kd.missing]), kd.slice([1, 2]))
  DataSlice([1, None], schema: INT32, present: 1/2)"#,
        |a| cond(a.slice("condition")?, a.slice("yes")?, a.slice("no")?),
    );
    r.add(
        "kd.masking.mask_and",
        &["kd.mask_and"],
        "x, y",
        r#"Returns present where both masks x and y are present.

Both arguments must be MASK slices; they are broadcast to a common shape.

Args:
  x: a DataSlice of MASK.
  y: a DataSlice of MASK.

Examples:
  >>> kd.mask_and(kd.slice([kd.present, kd.present, kd.missing]),
  ...             kd.slice([kd.present, kd.missing, kd.missing]))
  DataSlice([present, missing, missing], schema: MASK, present: 1/3)
  >>> kd.mask_and(kd.slice([1, 2]), kd.present)
  Traceback (most recent call last):
  ...
  ValueError: kd.masking.mask_and: argument `x` must be a slice of MASK, got a slice of INT32"#,
        |a| mask_and(a.slice("x")?, a.slice("y")?),
    );
    r.add(
        "kd.masking.mask_or",
        &["kd.mask_or"],
        "x, y",
        r#"Returns present where at least one of the masks x and y is present.

Both arguments must be MASK slices; they are broadcast to a common shape.

Args:
  x: a DataSlice of MASK.
  y: a DataSlice of MASK.

Examples:
  >>> kd.mask_or(kd.slice([kd.present, kd.missing, kd.missing]),
  ...            kd.slice([kd.missing, kd.present, kd.missing]))
  DataSlice([present, present, missing], schema: MASK, present: 2/3)
  >>> x = kd.slice([1, 5, 9])
  >>> kd.mask_or(x < 2, x > 8)
  DataSlice([present, missing, present], schema: MASK, present: 2/3)"#,
        |a| mask_or(a.slice("x")?, a.slice("y")?),
    );
    r.add(
        "kd.masking.mask_equal",
        &["kd.mask_equal"],
        "x, y",
        r#"Returns present where the masks x and y agree: both present or both missing.

Both arguments must be MASK slices; they are broadcast to a common shape.
Unlike `kd.equal`, two missing items give present.

Args:
  x: a DataSlice of MASK.
  y: a DataSlice of MASK.

Examples:
  >>> kd.mask_equal(kd.slice([kd.present, kd.present, kd.missing, kd.missing]),
  ...               kd.slice([kd.present, kd.missing, kd.present, kd.missing]))
  DataSlice([present, missing, missing, present], schema: MASK, present: 2/4)"#,
        |a| mask_equal(a.slice("x")?, a.slice("y")?),
    );
    r.add(
        "kd.masking.mask_not_equal",
        &["kd.mask_not_equal"],
        "x, y",
        r#"Returns present where the masks x and y differ: one present and the other missing.

Both arguments must be MASK slices; they are broadcast to a common shape. The
result is the same as `kd.xor(x, y)`.

Args:
  x: a DataSlice of MASK.
  y: a DataSlice of MASK.

Examples:
  >>> kd.mask_not_equal(kd.slice([kd.present, kd.present, kd.missing, kd.missing]),
  ...                   kd.slice([kd.present, kd.missing, kd.present, kd.missing]))
  DataSlice([missing, present, present, missing], schema: MASK, present: 2/4)"#,
        |a| mask_not_equal(a.slice("x")?, a.slice("y")?),
    );
    r.add(
        "kd.masking.xor",
        &["kd.xor"],
        "x, y",
        r#"Returns present where exactly one of the masks x and y is present.

Both arguments must be MASK slices; they are broadcast to a common shape. The
result is the same as `kd.mask_not_equal(x, y)`.

Args:
  x: a DataSlice of MASK.
  y: a DataSlice of MASK.

Examples:
  >>> kd.xor(kd.slice([kd.present, kd.present, kd.missing, kd.missing]),
  ...        kd.slice([kd.present, kd.missing, kd.present, kd.missing]))
  DataSlice([missing, present, present, missing], schema: MASK, present: 2/4)
  >>> kd.xor(kd.slice([kd.present, kd.missing]), kd.present)
  DataSlice([missing, present], schema: MASK, present: 1/2)"#,
        |a| xor(a.slice("x")?, a.slice("y")?),
    );
    r.add(
        "kd.masking.agg_has",
        &["kd.agg_has"],
        "x, ndim=unspecified",
        r#"Returns present for each group of the last ndim dimensions with at least one present item.

Works on a slice of any schema (it looks at presence only). An empty group is
missing in the result, which has ndim fewer dimensions than x.

Args:
  x: a DataSlice.
  ndim: how many trailing dimensions to aggregate over (1 when unspecified).

Examples:
  >>> kd.agg_has(kd.slice([[1, None], [None, None], []]))
  DataSlice([present, missing, missing], schema: MASK, present: 1/3)
  >>> kd.agg_has(kd.slice([['a', None], [None]]), ndim=2)
  DataItem(present, schema: MASK)"#,
        |a| agg_has(a.slice("x")?, a.agg_ndim()?),
    );
    r.add(
        "kd.masking.agg_any",
        &["kd.agg_any"],
        "x, ndim=unspecified",
        r#"Returns present for each group of the last ndim dimensions with at least one present item.

x must be a MASK slice; `kd.agg_has` does the same for a slice of any schema.
An empty group is missing in the result, which has ndim fewer dimensions than
x.

Args:
  x: a DataSlice of MASK.
  ndim: how many trailing dimensions to aggregate over (1 when unspecified).

Examples:
  >>> kd.agg_any(kd.slice([[kd.present, kd.missing], [kd.missing], []]))
  DataSlice([present, missing, missing], schema: MASK, present: 1/3)
  >>> kd.agg_any(kd.slice([[1, 5], [2]]) > 4, ndim=2)
  DataItem(present, schema: MASK)"#,
        |a| agg_any(a.slice("x")?, a.agg_ndim()?),
    );
    r.add(
        "kd.masking.agg_all",
        &["kd.agg_all"],
        "x, ndim=unspecified",
        r#"Returns present for each group of the last ndim dimensions whose items are all present.

x must be a MASK slice (use `kd.has` to turn presence into one). An empty group
counts as all present. The result has ndim fewer dimensions than x.

Args:
  x: a DataSlice of MASK.
  ndim: how many trailing dimensions to aggregate over (1 when unspecified).

Examples:
  >>> kd.agg_all(kd.slice([[kd.present, kd.missing], [kd.present], []]))
  DataSlice([missing, present, present], schema: MASK, present: 2/3)
  >>> kd.agg_all(kd.has(kd.slice([[1, 2], [3, None]])), ndim=2)
  DataItem(missing, schema: MASK)"#,
        |a| agg_all(a.slice("x")?, a.agg_ndim()?),
    );
    r.add(
        "kd.masking.any",
        &["kd.any"],
        "x",
        r#"Returns present if any item of the MASK slice x is present.

Aggregates over all dimensions; an empty slice gives missing. x must be a MASK
slice (use `kd.has` to turn presence into one).

Args:
  x: a DataSlice of MASK.

Examples:
  >>> kd.any(kd.slice([[kd.missing], [kd.present, kd.missing]]))
  DataItem(present, schema: MASK)
  >>> kd.any(kd.slice([[1, 2], [3]]) > 5)
  DataItem(missing, schema: MASK)"#,
        |a| any(a.slice("x")?),
    );
    r.add(
        "kd.masking.all",
        &["kd.all"],
        "x",
        r#"Returns present if every item of the MASK slice x is present.

Aggregates over all dimensions; an empty slice counts as all present. x must
be a MASK slice (use `kd.has` to turn presence into one).

Args:
  x: a DataSlice of MASK.

Examples:
  >>> kd.all(kd.slice([[kd.present], [kd.present, kd.missing]]))
  DataItem(missing, schema: MASK)
  >>> kd.all(kd.slice([[1, 2], [3]]) > 0)
  DataItem(present, schema: MASK)"#,
        |a| all(a.slice("x")?),
    );
    r.add(
        "kd.masking.present_like",
        &["kd.present_like"],
        "x",
        r#"Returns present where x is present, as a MASK slice of the shape of x.

The same as `kd.has(x)`.

Args:
  x: a DataSlice.

Examples:
  >>> kd.present_like(kd.slice([[1, None], [None, 'a']]))
  DataSlice([[present, missing], [missing, present]], schema: MASK, present: 2/4)"#,
        |a| present_like(a.slice("x")?),
    );
    r.add(
        "kd.masking.present_shaped",
        &["kd.present_shaped"],
        "shape",
        r#"Returns a MASK slice of the given shape with every item present.

Args:
  shape: a JaggedShape.

Examples:
  >>> kd.present_shaped(kd.shapes.new(2, [2, 1]))
  DataSlice([[present, present], [present]], schema: MASK, present: 3/3)
  >>> kd.present_shaped(kd.shapes.new())
  DataItem(present, schema: MASK)"#,
        |a| present_shaped(a.shape("shape")?),
    );
    r.add(
        "kd.masking.present_shaped_as",
        &["kd.present_shaped_as"],
        "x",
        r#"Returns a MASK slice of the shape of x with every item present.

Only the shape of x matters: its missing items give present too (compare
`kd.present_like`).

Args:
  x: a DataSlice whose shape the result takes.

Examples:
  >>> kd.present_shaped_as(kd.slice([[1, None], [None]]))
  DataSlice([[present, present], [present]], schema: MASK, present: 3/3)"#,
        |a| present_shaped_as(a.slice("x")?),
    );
    // Operators that pass items through keep the bags of the arguments
    // whose items they hold, as in Koda (`kd.apply_mask(x, mask)` keeps
    // x's, not the mask's).
    for name in ["kd.masking.coalesce", "kd.masking.disjoint_coalesce", "kd.masking.mask_or"] {
        r.bag_rule(name, crate::registry::BagRule::PassThrough);
    }
    for name in ["kd.masking.apply_mask", "kd.masking.mask_and", "kd.masking.mask_equal", "kd.masking.xor"] {
        r.bag_rule(name, crate::registry::BagRule::From(&["x"]));
    }
    r.bag_rule("kd.masking.cond", crate::registry::BagRule::From(&["yes", "no"]));
    // Type rules (see `crate::typing`).
    use crate::typing::rules::{self, Out, aggregate, aggregate_all, aggregate_any, elementwise, elementwise_any};
    const XY: &[&str] = &["x", "y"];
    for name in ["kd.masking.has", "kd.masking.has_not"] {
        r.type_rule(name, elementwise_any(&["x"], Out::Fixed(Schema::Mask)));
    }
    r.type_rule("kd.masking.apply_mask", rules::apply_mask());
    r.type_rule("kd.masking.coalesce", elementwise_any(XY, Out::Common));
    for name in ["kd.masking.mask_and", "kd.masking.mask_or", "kd.masking.mask_equal", "kd.masking.mask_not_equal", "kd.masking.xor"] {
        r.type_rule(name, elementwise(XY, TypeClass::Mask, Out::Fixed(Schema::Mask)));
    }
    r.type_rule("kd.masking.agg_has", aggregate_any(Out::Fixed(Schema::Mask)));
    for name in ["kd.masking.agg_any", "kd.masking.agg_all"] {
        r.type_rule(name, aggregate(TypeClass::Mask, Out::Fixed(Schema::Mask)));
    }
    for name in ["kd.masking.any", "kd.masking.all"] {
        r.type_rule(name, aggregate_all(Some(TypeClass::Mask), Out::Fixed(Schema::Mask)));
    }
    r.type_rule("kd.masking.disjoint_coalesce", elementwise_any(XY, Out::Common));
    r.type_rule("kd.masking.present_like", rules::like("x", Out::Fixed(Schema::Mask)));
    r.type_rule("kd.masking.cond", rules::cond());
    r.type_rule("kd.masking.present_shaped", rules::shaped("shape", Schema::Mask));
    r.type_rule("kd.masking.present_shaped_as", rules::like("x", Out::Fixed(Schema::Mask)));
}
