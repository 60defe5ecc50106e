//! Type rules of the shape operators.

use plait_core::typing::{Dim, Size, SliceType};
use plait_core::{DataSlice, Error, Result, ScalarRef};

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
