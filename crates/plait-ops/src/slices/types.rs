//! Type rules of the selection operators: their results have as many items
//! as the data holds, a size inference names (`_pd_shp0`, or the name
//! `kd.typing.count_named` gives the filter).

use plait_core::typing::{Dim, SchemaType, Size, SliceType};
use plait_core::{Error, Result};

use crate::promote::TypeClass;
use crate::typing::rules::{broadcast, check_class, with_new_dim};
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

/// `dims` with each ragged dimension given a new total: the dimensions of
/// a slice whose rows are repeated or regrouped (`tile`, `stack`), whose
/// uniform rows keep their size.
fn ragged_renewed(a: &TypeArgs<'_>, dims: &[Dim]) -> Result<Vec<Dim>> {
    dims.iter()
        .map(|d| match d {
            Dim::Ragged { .. } => Ok(Dim::Ragged { total: a.new_size()? }),
            other => Ok(other.clone()),
        })
        .collect()
}

/// The `*args` as slice types, with the name errors give them.
fn var_slices<'t>(a: &'t TypeArgs<'_>) -> Result<Vec<(&'static str, &'t SliceType)>> {
    Ok(a.var_arg_slices()?.into_iter().map(|t| ("args", t)).collect())
}

/// The common schema of the `*args` (mixed primitives meet at OBJECT).
fn var_common_schema(op: &str, typed: &[(&str, &SliceType)]) -> Result<SchemaType> {
    typed.iter().try_fold(SchemaType::Named(plait_core::Schema::None), |acc, (_, t)| {
        SchemaType::common(&acc, &t.schema).ok_or_else(|| Error::value(op, format!("arguments have no common schema: inferred {acc} and {t}")))
    })
}

/// The one rank of all `typed` (`None` when one is unknown), or the error.
fn same_rank(op: &str, typed: &[(&str, &SliceType)]) -> Result<Option<usize>> {
    let mut rank = None;
    for (_, t) in typed {
        match (t.rank(), rank) {
            (None, _) => return Ok(None),
            (Some(r), Some(prev)) if r != prev => {
                return Err(Error::value(op, format!("all arguments must have the same rank, inferred ranks {prev} and {r} ({t})")));
            }
            (Some(r), _) => rank = Some(r),
        }
    }
    Ok(rank)
}

/// The `*args` of an operator joining slices (at least one), and their
/// common schema.
fn joined_slices<'t>(a: &'t TypeArgs<'_>) -> Result<(Vec<(&'static str, &'t SliceType)>, SchemaType)> {
    let typed = var_slices(a)?;
    if typed.is_empty() {
        return Err(Error::value(a.op_name(), "expected at least one argument"));
    }
    let schema = var_common_schema(a.op_name(), &typed)?;
    Ok((typed, schema))
}

/// `kd.concat(*args, ndim=1)`: slices of one rank joined along dimension
/// `rank - ndim`; the first `rank - ndim` dimensions shared.
pub fn concat(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let op = a.op_name();
    let (typed, schema) = joined_slices(a)?;
    let (Some(rank), Some(ndim)) = (same_rank(op, &typed)?, a.known_int("ndim")?) else {
        return Ok(TypeValue::slice(SliceType { schema, dims: None }));
    };
    if ndim < 1 || ndim as usize > rank {
        return Err(Error::value(op, format!("invalid ndim={ndim} for rank={rank} concat")));
    }
    let joined = rank - ndim as usize;
    let firsts: Vec<(&str, SliceType)> =
        typed.iter().map(|(n, t)| (*n, SliceType { schema: t.schema.clone(), dims: t.dims.as_ref().map(|d| d[..joined].to_vec()) })).collect();
    let shared = broadcast(op, &firsts.iter().map(|(n, t)| (*n, t)).collect::<Vec<_>>())?.unwrap_or_default();
    // Along the joined dimension the row sizes add up.
    let sizes: Option<Size> = typed.iter().try_fold(Size::constant(0), |acc, (_, t)| acc.checked_add(t.dims.as_ref()?[joined].size()?));
    let mut dims = with_new_dim(a, shared, sizes)?;
    for d in typed[0].1.dims.as_ref().map_or(&[][..], |d| &d[joined + 1..]) {
        dims.push(match d {
            Dim::Uniform(s) if typed.iter().all(|(_, t)| t.dims.as_ref().is_some_and(|td| td[dims.len()] == Dim::Uniform(s.clone()))) => d.clone(),
            _ => Dim::Ragged { total: a.new_size()? },
        });
    }
    Ok(TypeValue::slice(SliceType { schema, dims: Some(dims) }))
}

/// `kd.stack(*args, ndim=0)`: slices of one shape, a new dimension of
/// `len(args)` inserted `ndim` dimensions from the end.
pub fn stack(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let op = a.op_name();
    let (typed, schema) = joined_slices(a)?;
    let (Some(rank), Some(ndim)) = (same_rank(op, &typed)?, a.known_int("ndim")?) else {
        return Ok(TypeValue::slice(SliceType { schema, dims: None }));
    };
    if ndim < 0 || ndim as usize > rank {
        return Err(Error::value(op, format!("invalid ndim={ndim} for rank={rank} stack")));
    }
    let dims = broadcast(op, &typed)?.unwrap_or_default();
    let at = rank - ndim as usize;
    let mut out = dims[..at].to_vec();
    out.push(Dim::Uniform(Size::constant(typed.len() as i64)));
    out.extend(ragged_renewed(a, &dims[at..])?);
    Ok(TypeValue::slice(SliceType { schema, dims: Some(out) }))
}

/// `kd.zip(*args)`: the slices broadcast, a last dimension of
/// `len(args)`.
pub fn zip(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let op = a.op_name();
    let (typed, schema) = joined_slices(a)?;
    let dims = broadcast(op, &typed)?.map(|mut d| {
        d.push(Dim::Uniform(Size::constant(typed.len() as i64)));
        d
    });
    Ok(TypeValue::slice(SliceType { schema, dims }))
}

/// `kd.align(*args)`: each slice expanded to the dims of all of them.
pub fn align(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let typed = var_slices(a)?;
    let dims = broadcast(a.op_name(), &typed)?;
    Ok(TypeValue::Tuple(typed.iter().map(|(_, t)| TypeValue::slice(SliceType { schema: t.schema.clone(), dims: dims.clone() })).collect()))
}

/// `kd.repeat(x, sizes)`, `kd.repeat_present(x, sizes)`: one more
/// dimension, of `sizes` rows (each the size a known integer gives).
pub fn repeat(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let op = a.op_name();
    let (x, sizes) = (a.slice("x")?, a.slice("sizes")?);
    check_class(op, "sizes", sizes, TypeClass::Integer)?;
    let dims = broadcast(op, &[("x", x), ("sizes", sizes)])?;
    // Only present items are repeated by `repeat_present`: rows vary.
    let size = if sizes.rank() == Some(0) && op == "kd.slices.repeat" { a.size_value("sizes") } else { None };
    let dims = dims.map(|d| with_new_dim(a, d, size)).transpose()?;
    Ok(TypeValue::slice(SliceType { schema: x.schema.clone(), dims }))
}

/// `kd.take(x, indices)`: from each last-dimension row of `x`, the items
/// at `indices` (broadcast to the rows, or of higher rank).
pub fn take(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let op = a.op_name();
    let (x, indices) = (a.slice("x")?, a.slice("indices")?);
    check_class(op, "indices", indices, TypeClass::Integer)?;
    if x.rank() == Some(0) {
        return Err(Error::value(op, format!("argument `x`: expected rank > 0, inferred {x}")));
    }
    let rows = SliceType { schema: x.schema.clone(), dims: x.dims.as_ref().map(|d| d[..d.len() - 1].to_vec()) };
    let dims = broadcast(op, &[("x", &rows), ("indices", indices)])?;
    Ok(TypeValue::slice(SliceType { schema: x.schema.clone(), dims }))
}

/// `kd.tile(x, shape)`: all of `x` under every item of `shape`.
pub fn tile(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let x = a.slice("x")?;
    let dims = match (a.shape("shape")?, &x.dims) {
        (Some(mut outer), Some(inner)) => {
            outer.extend(ragged_renewed(a, inner)?);
            Some(outer)
        }
        _ => None,
    };
    Ok(TypeValue::slice(SliceType { schema: x.schema.clone(), dims }))
}

/// `kd.unique(x, sort)`: the distinct items of each last-dimension row, a
/// new data-dependent size.
pub fn unique(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let x = a.slice("x")?;
    let dims = match &x.dims {
        Some(d) if d.is_empty() => Some(Vec::new()),
        Some(d) => Some(with_new_dim(a, d[..d.len() - 1].to_vec(), None)?),
        None => None,
    };
    Ok(TypeValue::slice(SliceType { schema: x.schema.clone(), dims }))
}

/// `kd.group_by(x, *keys, sort)` and `kd.group_by_indices(*keys, sort)`:
/// the groups of each last-dimension row (a new size), and the items of
/// each group (another).
fn grouped(a: &TypeArgs<'_>, x: &SliceType, schema: SchemaType) -> Result<TypeValue> {
    let op = a.op_name();
    let mut typed = vec![("x", x)];
    typed.extend(var_slices(a)?.into_iter().map(|(_, t)| ("keys", t)));
    for (name, t) in &typed[1..] {
        if let (Some(r), Some(rx)) = (t.rank(), x.rank())
            && r != rx
        {
            return Err(Error::value(op, format!("argument `{name}` must have the shape of `x`: inferred {t} and {x}")));
        }
    }
    if x.rank() == Some(0) {
        return Err(Error::value(op, format!("argument `x`: expected rank > 0, inferred {x}")));
    }
    let dims = broadcast(op, &typed)?;
    let dims = match dims {
        Some(d) => {
            let groups = with_new_dim(a, d[..d.len() - 1].to_vec(), None)?;
            Some(with_new_dim(a, groups, None)?)
        }
        None => None,
    };
    Ok(TypeValue::slice(SliceType { schema, dims }))
}

pub fn group_by(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let x = a.slice("x")?;
    grouped(a, x, x.schema.clone())
}

pub fn group_by_indices(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let op = a.op_name();
    let keys = var_slices(a)?;
    let Some((_, first)) = keys.first() else {
        return Err(Error::value(op, "expected at least one argument"));
    };
    grouped(a, first, SchemaType::Named(plait_core::Schema::Int64))
}

/// `kd.translate(keys_to, keys_from, values_from)`: `values_from`'s items
/// on `keys_to`'s dims; `kd.translate_group` gathers all of a key's, one
/// dimension more.
pub fn translate(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let op = a.op_name();
    let (to, from, values) = (a.slice("keys_to")?, a.slice("keys_from")?, a.slice("values_from")?);
    broadcast(op, &[("keys_from", from), ("values_from", values)])?;
    let dims = match (&to.dims, op) {
        (Some(d), "kd.slices.translate_group") => Some(with_new_dim(a, d.clone(), None)?),
        (d, _) => d.clone(),
    };
    Ok(TypeValue::slice(SliceType { schema: values.schema.clone(), dims }))
}

/// `kd.inverse_select(ds, fltr)`: `ds`'s items put back where `fltr` is
/// present, on `fltr`'s dims.
pub fn inverse_select(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let (ds, fltr) = (a.slice("ds")?, a.slice("fltr")?);
    check_class(a.op_name(), "fltr", fltr, TypeClass::Mask)?;
    Ok(TypeValue::slice(SliceType { schema: ds.schema.clone(), dims: fltr.dims.clone() }))
}

/// `kd.val_shaped(shape, val)`: `val` expanded to `shape`.
pub fn val_shaped(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let val = a.slice("val")?;
    let target = SliceType { schema: SchemaType::Unknown, dims: a.shape("shape")? };
    broadcast(a.op_name(), &[("val", val), ("shape", &target)])?;
    Ok(TypeValue::slice(SliceType { schema: val.schema.clone(), dims: target.dims }))
}

/// `kd.empty_shaped(shape, schema)`: missing items of `schema` on `shape`.
pub fn empty_shaped(a: &TypeArgs<'_>) -> Result<TypeValue> {
    Ok(TypeValue::slice(SliceType { schema: a.known_schema("schema"), dims: a.shape("shape")? }))
}

/// `kd.empty_shaped_as(shape_from, schema)`.
pub fn empty_shaped_as(a: &TypeArgs<'_>) -> Result<TypeValue> {
    Ok(TypeValue::slice(a.slice("shape_from")?.with_schema(a.known_schema("schema"))))
}

/// `kd.isin(x, y)`: whether item `x` is among `y`'s items.
pub fn isin(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let x = a.slice("x")?;
    if x.rank().is_some_and(|r| r > 0) {
        return Err(Error::value(a.op_name(), format!("argument `x` must be a DataItem, inferred {x}")));
    }
    Ok(TypeValue::slice(SliceType::new(SchemaType::Named(plait_core::Schema::Mask), Vec::new())))
}

/// `kd.random.sample(x, ratio, seed, key)` / `sample_n(x, n, ...)`: some
/// of the items of each last-dimension row.
pub fn sampled(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let x = a.slice("x")?;
    let dims = match &x.dims {
        Some(d) if d.is_empty() => return Err(Error::value(a.op_name(), format!("argument `x`: expected rank > 0, inferred {x}"))),
        Some(d) => Some(with_new_dim(a, d[..d.len() - 1].to_vec(), None)?),
        None => None,
    };
    Ok(TypeValue::slice(SliceType { schema: x.schema.clone(), dims }))
}
