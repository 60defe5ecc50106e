//! `kd.masking`: presence as data. A MASK item is `present` or missing;
//! these operators turn presence into masks, masks into presence, and
//! combine slices by presence.

use arrow_buffer::{BooleanBuffer, NullBuffer};
use plait_core::broadcast::align;
use plait_core::cast::cast_to_implicit;
use plait_core::column::{Column, SliceBuilder};
use plait_core::{DataSlice, Error, JaggedShape, Result, Schema, SliceData, Values};

use crate::groups::groups;
use crate::kernel::{BitCounter, collect_bits, map_groups};
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
    let aligned = align(op, &[x, y])?;
    let both = &aligned[0].data().present_bits() & &aligned[1].data().present_bits();
    if both.count_set_bits() > 0 {
        let first = both.set_indices().next().expect("a set bit");
        return Err(Error::value(
            op,
            format!(
                "`x` and `y` cannot overlap, but both are present at flattened position {first} of the aligned inputs \
                 ({} positions in all)",
                both.count_set_bits()
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

/// Items of `x` where present, else of `y`, under the common schema.
fn merge(op: &str, x: &DataSlice, y: &DataSlice) -> Result<DataSlice> {
    let schema = Schema::common(x.schema(), y.schema()).ok_or_else(|| {
        Error::value(op, format!("no common schema for {} and {}", x.schema(), y.schema()))
    })?;
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
    let mut out = SliceBuilder::new();
    for i in 0..x.size() {
        out.push(x.get(i).or_else(|| y.get(i)));
    }
    DataSlice::new(x.shape().clone(), out.finish(), schema)
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
    r.add("kd.masking.has", &["kd.has"], "x", "Returns present where x is present.", |a| has(a.slice("x")?));
    r.add("kd.masking.has_not", &["kd.has_not"], "x", "Returns present where x is missing.", |a| has_not(a.slice("x")?));
    r.add("kd.masking.apply_mask", &["kd.apply_mask"], "x, y", "Keeps x where the mask y is present.", |a| apply_mask(a.slice("x")?, a.slice("y")?));
    r.add("kd.masking.coalesce", &["kd.coalesce"], "x, y", "Returns x where present, else y.", |a| coalesce(a.slice("x")?, a.slice("y")?));
    r.add("kd.masking.disjoint_coalesce", &["kd.disjoint_coalesce"], "x, y", "Like coalesce, but x and y must not overlap.", |a| {
        disjoint_coalesce(a.slice("x")?, a.slice("y")?)
    });
    r.add("kd.masking.cond", &["kd.cond"], "condition, yes, no=None", "Returns yes where condition is present, else no.", |a| {
        cond(a.slice("condition")?, a.slice("yes")?, a.slice("no")?)
    });
    r.add("kd.masking.mask_and", &["kd.mask_and"], "x, y", "Returns present where both masks are present.", |a| mask_and(a.slice("x")?, a.slice("y")?));
    r.add("kd.masking.mask_or", &["kd.mask_or"], "x, y", "Returns present where either mask is present.", |a| mask_or(a.slice("x")?, a.slice("y")?));
    r.add("kd.masking.mask_equal", &["kd.mask_equal"], "x, y", "Returns present where the masks agree.", |a| mask_equal(a.slice("x")?, a.slice("y")?));
    r.add("kd.masking.mask_not_equal", &["kd.mask_not_equal"], "x, y", "Returns present where the masks differ.", |a| mask_not_equal(a.slice("x")?, a.slice("y")?));
    r.add("kd.masking.xor", &["kd.xor"], "x, y", "Returns present where exactly one mask is present.", |a| xor(a.slice("x")?, a.slice("y")?));
    r.add("kd.masking.agg_has", &["kd.agg_has"], "x, ndim=unspecified", "Returns present for groups with a present item.", |a| agg_has(a.slice("x")?, a.ndim()?));
    r.add("kd.masking.agg_any", &["kd.agg_any"], "x, ndim=unspecified", "Returns present for groups of a mask with a present item.", |a| {
        agg_any(a.slice("x")?, a.ndim()?)
    });
    r.add("kd.masking.agg_all", &["kd.agg_all"], "x, ndim=unspecified", "Returns present for groups of a mask whose items are all present.", |a| {
        agg_all(a.slice("x")?, a.ndim()?)
    });
    r.add("kd.masking.any", &["kd.any"], "x", "Returns present if any item of the mask is present.", |a| any(a.slice("x")?));
    r.add("kd.masking.all", &["kd.all"], "x", "Returns present if every item of the mask is present.", |a| all(a.slice("x")?));
    r.add("kd.masking.present_like", &["kd.present_like"], "x", "Returns present where x is present.", |a| present_like(a.slice("x")?));
    r.add("kd.masking.present_shaped", &["kd.present_shaped"], "shape", "Returns an all-present mask of the given shape.", |a| present_shaped(a.shape("shape")?));
    r.add("kd.masking.present_shaped_as", &["kd.present_shaped_as"], "x", "Returns an all-present mask of the shape of x.", |a| present_shaped_as(a.slice("x")?));
}
