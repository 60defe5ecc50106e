//! Type rules of the selection operators: their results have as many items
//! as the data holds, a size inference names (`_pd_shp0`, or the name
//! `kd.typing.count_named` gives the filter).

use plait_core::typing::{Dim, SliceType};
use plait_core::{Error, Result};

use crate::promote::TypeClass;
use crate::typing::rules::{broadcast, check_class};
use crate::typing::{TypeArgs, TypeValue};

/// `ds` of known rank 0 cannot be selected from (Koda's error).
fn refuse_items(op: &str, ds: &SliceType) -> Result<()> {
    if ds.rank() == Some(0) {
        return Err(Error::value(
            op,
            "cannot select from DataItem because its size is always 1. Consider calling .flatten() beforehand to convert it to a 1-dimensional DataSlice",
        ));
    }
    Ok(())
}

/// `dims` with the last dimension filtered to `count` items: the first
/// dimension of a rank-1 slice has `count` items, a later one is ragged
/// with `count` in total.
fn filtered(mut dims: Vec<Dim>, count: plait_core::typing::Size) -> Vec<Dim> {
    let last = if dims.len() <= 1 { Dim::Uniform(count) } else { Dim::Ragged { total: count } };
    dims.pop();
    dims.push(last);
    dims
}

/// `kd.select(ds, fltr, expand_filter=True)`.
pub fn select(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let op = a.op_name();
    let (ds, fltr) = (a.slice("ds")?, a.slice("fltr")?);
    refuse_items(op, ds)?;
    check_class(op, "fltr", fltr, TypeClass::Mask)?;
    let expand = a.known("expand_filter").and_then(|x| x.get(0)).is_none_or(|v| v == plait_core::ScalarRef::Boolean(true));
    let count = a.fresh_size("fltr")?;
    if !expand {
        return Ok(TypeValue::slice(SliceType { schema: ds.schema.clone(), dims: subtrees_kept(a, ds, fltr, count)? }));
    }
    let dims = broadcast(op, &[("ds", ds), ("fltr", fltr)])?;
    Ok(TypeValue::slice(SliceType { schema: ds.schema.clone(), dims: dims.map(|d| filtered(d, count)) }))
}

/// The dims of `kd.select(ds, fltr, expand_filter=False)`: `fltr` (of
/// lower rank) filters its last dimension of `ds`, whose kept items keep
/// their subtrees: uniform rows below stay, ragged ones have a new total.
fn subtrees_kept(a: &TypeArgs<'_>, ds: &SliceType, fltr: &SliceType, count: plait_core::typing::Size) -> Result<Option<Vec<Dim>>> {
    let op = a.op_name();
    let (Some(dd), Some(fd)) = (&ds.dims, &fltr.dims) else { return Ok(None) };
    if fd.len() > dd.len() {
        return Err(Error::value(
            op,
            format!("argument `fltr` of rank {} cannot filter `ds` of rank {}: inferred {fltr} and {ds}", fd.len(), dd.len()),
        ));
    }
    broadcast(op, &[("ds", ds), ("fltr", fltr)])?;
    let mut dims = filtered(fd.clone(), count);
    for d in &dd[fd.len()..] {
        dims.push(match d {
            Dim::Ragged { .. } => Dim::Ragged { total: a.new_size()? },
            other => other.clone(),
        });
    }
    Ok(Some(dims))
}

/// `kd.select_present(ds)`.
pub fn select_present(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let ds = a.slice("ds")?;
    refuse_items(a.op_name(), ds)?;
    let count = a.fresh_size("ds")?;
    Ok(TypeValue::slice(SliceType { schema: ds.schema.clone(), dims: ds.dims.clone().map(|d| filtered(d, count)) }))
}
