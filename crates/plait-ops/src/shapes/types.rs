//! Type rules of the shape operators.

use plait_core::typing::{Dim, SchemaType, Size, SliceType};
use plait_core::{DataSlice, Error, Result, ScalarRef, Schema};

use crate::typing::{TypeArgs, TypeValue};

/// The number of items of a slice with dimensions `dims`, when it is an
/// affine size (a uniform dimension multiplies the items before it, a
/// ragged one has its own total).
pub fn total_items(dims: &[Dim]) -> Option<Size> {
    let mut total = Size::constant(1);
    for d in dims {
        total = match d {
            Dim::Uniform(s) => total.checked_mul(s)?,
            Dim::Ragged { total } => total.clone(),
            Dim::Unknown => return None,
        };
    }
    Some(total)
}

/// The dimension a known argument of `kd.reshape`'s tuple gives: an int
/// (`-1` is the placeholder, `None` here) or a slice of row sizes.
fn tuple_dim(op: &str, x: &DataSlice) -> Result<Option<Dim>> {
    if x.is_item() {
        return match x.get(0) {
            Some(ScalarRef::Int32(-1)) | Some(ScalarRef::Int64(-1)) => Ok(None),
            Some(ScalarRef::Int32(k)) if k >= 0 => Ok(Some(Dim::Uniform(Size::constant(k as i64)))),
            Some(ScalarRef::Int64(k)) if k >= 0 => Ok(Some(Dim::Uniform(Size::constant(k)))),
            _ => Ok(Some(Dim::Unknown)),
        };
    }
    let sizes: Vec<i64> = (0..x.size())
        .map(|i| match x.get(i) {
            Some(ScalarRef::Int32(k)) => Some(k as i64),
            Some(ScalarRef::Int64(k)) => Some(k),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| Error::value(op, "argument `shape`: dimension sizes must be present integers"))?;
    Ok(Some(match sizes.first() {
        Some(&first) if sizes.iter().all(|&s| s == first) => Dim::Uniform(Size::constant(first)),
        _ => Dim::Ragged { total: Size::constant(sizes.iter().sum()) },
    }))
}

/// `kd.reshape(x, shape)`: `x`'s schema under the dimensions of `shape`
/// (a JaggedShape or a tuple of sizes with at most one `-1`), checked
/// against `x`'s number of items where both are known.
pub fn reshape(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let op = a.op_name();
    let x = a.slice("x")?;
    let mut dims = match a.get("shape") {
        Some(TypeValue::Shape(Some(dims))) => dims.iter().cloned().map(Some).collect::<Vec<_>>(),
        Some(TypeValue::Tuple(items)) => items
            .iter()
            .map(|item| match item {
                TypeValue::Slice(_, Some(v)) => tuple_dim(op, v),
                _ => Ok(Some(Dim::Unknown)),
            })
            .collect::<Result<Vec<_>>>()?,
        _ => return Ok(TypeValue::slice(x.with_unknown_dims())),
    };
    let placeholders = dims.iter().filter(|d| d.is_none()).count();
    if placeholders > 1 {
        return Err(Error::value(op, "only one dimension can be a placeholder"));
    }
    let items = x.dims.as_deref().and_then(total_items).and_then(|s| s.as_constant());
    let known: Vec<Dim> = dims.iter().flatten().cloned().collect();
    let others = total_items(&known).and_then(|s| s.as_constant());
    if let Some(slot) = dims.iter().position(Option::is_none) {
        dims[slot] = Some(match (items, others) {
            (Some(items), Some(others)) if others > 0 && items % others == 0 => Dim::Uniform(Size::constant(items / others)),
            (Some(items), Some(others)) => {
                return Err(Error::value(
                    op,
                    format!(
                        "{items} items cannot be split into dimensions of size {others}, so the placeholder dimension at index {slot} cannot be resolved"
                    ),
                ));
            }
            _ => Dim::Unknown,
        });
    } else if let (Some(items), Some(shape_size)) = (items, others)
        && items != shape_size
    {
        return Err(Error::value(op, format!("shape size must be compatible with number of items: shape_size={shape_size} != items_size={items}")));
    }
    Ok(TypeValue::slice(SliceType::new(x.schema.clone(), dims.into_iter().flatten().collect())))
}

/// A flat INT64 slice with one item per item of the first `prefix`
/// dimensions of JaggedShape argument `shape` (`kd.shapes.dim_sizes`:
/// `prefix = dim`, `kd.shapes.dim_mapping`: `dim + 1`).
fn per_item_of(a: &TypeArgs<'_>, extra: usize) -> Result<TypeValue> {
    let dims = a.shape("shape")?;
    let dim = a.known_int("dim")?;
    let dim = match (&dims, dim) {
        (Some(d), Some(k)) if k < 0 => Some(k + d.len() as i64),
        _ => dim,
    };
    let count = match (&dims, dim) {
        (Some(d), Some(k)) if k >= 0 && (k as usize) < d.len() => total_items(&d[..k as usize + extra]),
        (Some(d), Some(k)) => {
            return Err(Error::value(a.op_name(), format!("argument `dim`: {k} is not a dimension of a shape of rank {}", d.len())));
        }
        _ => None,
    };
    let dim = count.map_or(Dim::Unknown, Dim::Uniform);
    Ok(TypeValue::slice(SliceType::new(SchemaType::Named(Schema::Int64), vec![dim])))
}

/// `kd.shapes.dim_sizes(shape, dim)`: the size of each row of dimension
/// `dim`.
pub fn dim_sizes(a: &TypeArgs<'_>) -> Result<TypeValue> {
    per_item_of(a, 0)
}

/// `kd.shapes.dim_mapping(shape, dim)`: the parent of each item of
/// dimension `dim`.
pub fn dim_mapping(a: &TypeArgs<'_>) -> Result<TypeValue> {
    per_item_of(a, 1)
}

/// `dims[from..to]` made one dimension: its size the product of uniform
/// sizes, else (ragged below) the total of the items when it is the first
/// dimension, or a new ragged dimension.
fn merged(a: &TypeArgs<'_>, dims: &[Dim], from: usize, to: usize) -> Result<Vec<Dim>> {
    let mut out = dims[..from].to_vec();
    let part = &dims[from..to];
    out.push(match part {
        [] => Dim::Uniform(Size::constant(1)),
        [one] => one.clone(),
        _ if part.iter().all(|d| matches!(d, Dim::Uniform(_))) => {
            part.iter().try_fold(Size::constant(1), |acc, d| acc.checked_mul(d.size()?)).map_or(Dim::Unknown, Dim::Uniform)
        }
        _ if from == 0 => total_items(part).map_or(Dim::Unknown, Dim::Uniform),
        _ => Dim::Ragged { total: total_items(&dims[..to]).map_or_else(|| a.new_size(), Ok)? },
    });
    out.extend_from_slice(&dims[to..]);
    Ok(out)
}

/// A dimension index of a slice of rank `rank` (negative from the end),
/// clamped to `0..=rank` as Koda's flatten clamps it.
fn clamp_dim(k: i64, rank: usize) -> usize {
    let k = if k < 0 { k + rank as i64 } else { k };
    k.clamp(0, rank as i64) as usize
}

/// Argument `x` of an operator that takes a DataSlice or a JaggedShape
/// and gives the same kind: its dims, and its schema (`None` for a shape).
fn slice_or_shape(a: &TypeArgs<'_>) -> Result<(Option<Vec<Dim>>, Option<SchemaType>)> {
    if matches!(a.get("x").map(TypeValue::untagged), Some(TypeValue::Shape(_))) {
        return Ok((a.shape("x")?, None));
    }
    let x = a.slice("x")?;
    Ok((x.dims.clone(), Some(x.schema.clone())))
}

/// A result of the kind of [`slice_or_shape`]'s argument, with `dims`.
fn same_kind(schema: Option<SchemaType>, dims: Option<Vec<Dim>>) -> TypeValue {
    match schema {
        None => TypeValue::Shape(dims),
        Some(schema) => TypeValue::slice(SliceType { schema, dims }),
    }
}

/// `kd.flatten(x, from_dim=0, to_dim=rank)` of a DataSlice or a
/// JaggedShape: dimensions `from_dim..to_dim` made one; a new dimension of
/// size 1 at `from_dim` when `to_dim <= from_dim`.
pub fn flatten(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let (dims, schema) = slice_or_shape(a)?;
    let Some(dims) = dims else { return Ok(same_kind(schema, None)) };
    let rank = dims.len();
    let from = a.known_int("from_dim")?;
    let to = match a.get("to_dim") {
        None => Some(rank as i64),
        Some(_) => a.known_int("to_dim")?,
    };
    let (Some(from), Some(to)) = (from, to) else { return Ok(same_kind(schema, None)) };
    let from = clamp_dim(from, rank);
    let to = clamp_dim(to, rank).max(from);
    Ok(same_kind(schema, Some(merged(a, &dims, from, to)?)))
}

/// `kd.flatten_end(x, n_times=1)`: the last `n_times + 1` dimensions made
/// one.
pub fn flatten_end(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let (dims, schema) = slice_or_shape(a)?;
    let (Some(dims), Some(n)) = (dims, a.known_int("n_times")?) else { return Ok(same_kind(schema, None)) };
    if dims.is_empty() {
        return Err(Error::value(a.op_name(), "expected multidim DataSlice, got DataItem"));
    }
    if n < 0 || n > dims.len() as i64 {
        return Err(Error::value(a.op_name(), format!("expected 0 <= n_times <= rank, got n_times={n}, rank={}", dims.len())));
    }
    // Past the first dimension, flattening stops there.
    let from = (dims.len() as i64 - 1 - n).max(0) as usize;
    Ok(same_kind(schema, Some(merged(a, &dims, from, dims.len())?)))
}

/// `kd.shapes.get_sizes(x)` of a DataSlice or a JaggedShape: one row per
/// dimension, the sizes of its rows.
pub fn get_sizes(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let (dims, _) = slice_or_shape(a)?;
    let dims = dims.map(|d| vec![Dim::Uniform(Size::constant(d.len() as i64)), Dim::Unknown]);
    Ok(TypeValue::slice(SliceType { schema: SchemaType::Named(Schema::Int64), dims }))
}

/// `kd.shapes.new(*dimensions)`: an int is a uniform dimension of that
/// size, a slice of sizes a ragged one.
pub fn new_shape(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let dims = a
        .var_args()
        .iter()
        .map(|v| match v.untagged() {
            TypeValue::SizeItem(s) => Ok(Dim::Uniform(s.clone())),
            TypeValue::Slice(t, known) => match (t.rank(), known) {
                (Some(0), Some(x)) => Ok(x.int_item().map_or(Dim::Unknown, |k| Dim::Uniform(Size::constant(k)))),
                (Some(r), _) if r > 0 => Ok(Dim::Ragged { total: a.new_size()? }),
                _ => Ok(Dim::Unknown),
            },
            _ => Ok(Dim::Unknown),
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(TypeValue::Shape(Some(dims)))
}

/// `kd.shapes.reshape_as(x, shape_from)`: `x`'s items on `shape_from`'s
/// dims (as many items).
pub fn reshape_as(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let (x, from) = (a.slice("x")?, a.slice("shape_from")?);
    if let (Some(xd), Some(fd)) = (&x.dims, &from.dims)
        && let (Some(n), Some(m)) = (total_items(xd).and_then(|s| s.as_constant()), total_items(fd).and_then(|s| s.as_constant()))
        && n != m
    {
        return Err(Error::value(a.op_name(), format!("cannot reshape {x} ({n} items) to the shape of {from} ({m} items)")));
    }
    Ok(TypeValue::slice(SliceType { schema: x.schema.clone(), dims: from.dims.clone() }))
}

/// `kd.shapes.expand_to_shape(x, shape, ndim)`: as `kd.expand_to` with a
/// JaggedShape target.
pub fn expand_to_shape(a: &TypeArgs<'_>) -> Result<TypeValue> {
    let x = a.slice("x")?;
    if a.get("ndim").is_some() {
        return Ok(TypeValue::slice(x.with_unknown_dims()));
    }
    let target = SliceType { schema: SchemaType::Unknown, dims: a.shape("shape")? };
    crate::typing::rules::expandable(a.op_name(), ("x", x), ("shape", &target))?;
    Ok(TypeValue::slice(SliceType { schema: x.schema.clone(), dims: x.dims.as_ref().and(target.dims) }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals() {
        let n = Size::param("n");
        assert_eq!(total_items(&[Dim::Uniform(n.clone()), Dim::Uniform(Size::constant(3))]), n.checked_scale(3));
        assert_eq!(total_items(&[Dim::Uniform(n.clone()), Dim::Uniform(n.clone())]), None);
        assert_eq!(total_items(&[Dim::Uniform(n), Dim::Ragged { total: Size::param("t") }]), Some(Size::param("t")));
        assert_eq!(total_items(&[]), Some(Size::constant(1)));
    }
}
