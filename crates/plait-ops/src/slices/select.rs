//! Filtering by presence: `kd.slices.select`, `select_present` and
//! `inverse_select` (`reverse_select`), which puts selected items back.
//!
//! ```text
//! select([[1, 2], [3]], [[present, missing], [present]])  ->  [[1], [3]]
//! inverse_select([[1], [3]], [[present, missing], [present]])  ->  [[1, None], [3]]
//! ```

use arrow_buffer::BooleanBuffer;
use plait_core::broadcast::expand_to_shape;
use plait_core::column::MISSING_INDEX;
use plait_core::{DataSlice, Error, Result, Schema};

use super::gather::{filter_data, filter_dim};

const SELECT: &str = "kd.slices.select";
const INVERSE_SELECT: &str = "kd.slices.inverse_select";

fn item_error(op: &str) -> Error {
    Error::value(
        op,
        "cannot select from DataItem because its size is always 1. Consider calling .flatten() beforehand to convert it to a 1-dimensional DataSlice",
    )
}

/// Checks that `fltr` holds MASK items (a MASK slice, or OBJECT of masks),
/// and that `ds` is not a DataItem, in Koda's order: the filter's schema,
/// then `ds`, then the filter's items.
fn check_select_args(ds: &DataSlice, fltr: &DataSlice) -> Result<()> {
    if !matches!(fltr.schema(), Schema::Mask | Schema::Object) {
        return Err(Error::value(
            SELECT,
            "the schema of the `fltr` DataSlice should only be OBJECT or MASK or can be evaluated to such DataSlice (i.e. Python function or Koda Functor)",
        ));
    }
    if ds.is_item() {
        return Err(item_error(SELECT));
    }
    if fltr.schema() == Schema::Object && !fltr.data().dtypes().all(|t| t == Schema::Mask) {
        return Err(Error::value(
            SELECT,
            "kd.select: `fltr` DataSlice must have all items of MASK dtype or can be evaluated to such items (i.e. Python function or Koda Functor)",
        ));
    }
    Ok(())
}

/// The items of `ds` where `fltr` is present. With `expand_filter`, `fltr` is
/// expanded to the shape of `ds` and the last dimension is filtered; without
/// it, the dimension `fltr` ends at is filtered, taking subtrees along.
pub fn select(ds: &DataSlice, fltr: &DataSlice, expand_filter: bool) -> Result<DataSlice> {
    check_select_args(ds, fltr)?;
    if expand_filter {
        let expanded = expand_to_shape(SELECT, fltr, ds.shape(), 0).map_err(|_| Error::value(SELECT, "failed to broadcast `fltr` to `ds`"))?;
        return select_last(ds, &expanded.data().present_bits());
    }
    if fltr.is_item() {
        return Err(Error::value(SELECT, "cannot filter using a DataItem when expand_filter=False because its size is always 1."));
    }
    if fltr.rank() > ds.rank() {
        return Err(Error::value(SELECT, "kd.select: `fltr` cannot have a higher rank than `ds`."));
    }
    if !fltr.shape().is_prefix_of(ds.shape()) {
        return Err(Error::value(SELECT, "kd.select: `fltr` should be broadcastable to `ds`"));
    }
    let keep_dim = fltr.rank() - 1;
    let (shape, keep) = filter_dim(ds.shape(), keep_dim, &fltr.data().present_bits())?;
    DataSlice::new(shape, filter_data(ds.data(), &keep), ds.schema())
}

/// Filters the last dimension of `ds` by `keep` (one bit per item).
fn select_last(ds: &DataSlice, keep: &BooleanBuffer) -> Result<DataSlice> {
    let (shape, keep) = filter_dim(ds.shape(), ds.rank() - 1, keep)?;
    DataSlice::new(shape, filter_data(ds.data(), &keep), ds.schema())
}

/// The present items of `ds`.
pub fn select_present(ds: &DataSlice) -> Result<DataSlice> {
    if ds.is_item() {
        return Err(item_error(SELECT));
    }
    select_last(ds, &ds.data().present_bits())
}

/// Puts the items of `ds` at the present positions of `fltr`, in order; the
/// shape of the present items of `fltr` must be the shape of `ds`.
pub fn inverse_select(ds: &DataSlice, fltr: &DataSlice) -> Result<DataSlice> {
    let op = INVERSE_SELECT;
    // Checked in Koda's order: a DataItem, the filter's schema, the ranks,
    // then the filter's items.
    if ds.is_item() {
        return Err(item_error(op));
    }
    if !matches!(fltr.schema(), Schema::Mask | Schema::Object) {
        return Err(Error::value(op, "the schema of the fltr DataSlice should only be Object or Mask"));
    }
    if ds.rank() != fltr.rank() {
        return Err(Error::value(
            op,
            format!("the rank of the ds and fltr DataSlice must be the same. Got rank(ds): {}, rank(fltr): {}", ds.rank(), fltr.rank()),
        ));
    }
    if !fltr.data().dtypes().all(|t| t == Schema::Mask) {
        return Err(Error::value(op, "fltr argument must have all items of MASK dtype"));
    }
    let keep = fltr.data().present_bits();
    let (selected, _) = filter_dim(fltr.shape(), fltr.rank() - 1, &keep)?;
    if &selected != ds.shape() {
        return Err(Error::value(
            op,
            format!("the shape of `ds` and the shape of the present elements in `fltr` do not match: {} vs {selected}", ds.shape()),
        ));
    }
    // The k-th present position of `fltr` takes item k of `ds`.
    let mut next = 0;
    let indices: Vec<usize> = keep
        .iter()
        .map(|present| {
            if present {
                next += 1;
                next - 1
            } else {
                MISSING_INDEX
            }
        })
        .collect();
    DataSlice::new(fltr.shape().clone(), ds.data().take(&indices), ds.schema())
}
