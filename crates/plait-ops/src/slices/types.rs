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
    let dims = if expand { broadcast(op, &[("ds", ds), ("fltr", fltr)])? } else { fltr.dims.clone() };
    let count = a.fresh_size("fltr")?;
    Ok(TypeValue::slice(SliceType { schema: ds.schema.clone(), dims: dims.map(|d| filtered(d, count)) }))
}

/// `kd.select_present(ds)`.
pub fn select_present(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let ds = a.slice("ds")?;
    refuse_items(a.op_name(), ds)?;
    let count = a.fresh_size("ds")?;
    Ok(TypeValue::slice(SliceType { schema: ds.schema.clone(), dims: ds.dims.clone().map(|d| filtered(d, count)) }))
}
