//! `kd.shapes`: making, inspecting and changing JaggedShapes, and the
//! operators that give a slice another shape (`reshape`, `flatten`,
//! `expand_to_shape`). Their kernels return [`Value`]s: a shape, or a slice
//! keeping the bag of `x` (no copy of the items).

mod dims;
mod register;
pub mod types;

use plait_core::broadcast::expand_to_shape as expand;
use plait_core::column::SliceBuilder;
use plait_core::{Column, DataSlice, Edge, Error, JaggedShape, Result, ScalarRef, Schema, SliceData, Values};

use crate::registry::{Args, Value};

pub use dims::shape_from_dims;
pub(crate) use register::register;

/// The shape an argument stands for: a JaggedShape, or the shape of a
/// DataSlice (plait takes either where Koda takes one of them).
fn shape_arg(a: &Args<'_>, name: &str) -> Result<JaggedShape> {
    match a.value(name) {
        Some(Value::Shape(s)) => Ok(s.clone()),
        Some(Value::Slice(x)) => Ok(x.shape().clone()),
        Some(v) => Err(Error::type_error(a.op_name(), format!("argument `{name}` must be a JaggedShape or a DataSlice, got {}", v.describe()))),
        None => Err(Error::type_error(a.op_name(), format!("argument `{name}` must be given"))),
    }
}

/// An INT64 DataItem.
fn int64_item(v: i64) -> Result<DataSlice> {
    DataSlice::item(Some(ScalarRef::Int64(v)), Schema::Int64)
}

/// `x` with the same items under `shape`.
fn reshaped(op: &str, x: &DataSlice, shape: JaggedShape) -> Result<Value> {
    x.with_shape(op, shape).map(Value::Slice)
}

/// A dimension index counted from the end when negative, clamped to `0..=rank`.
fn resolve_dim(dim: i64, rank: usize) -> usize {
    let rank = rank as i64;
    (if dim < 0 { dim + rank } else { dim }).clamp(0, rank) as usize
}

/// `kd.flatten(x, from_dim, to_dim)` of a slice or, as seed 000 shows
/// (`kd.shapes.flatten(shape, from_dim=..., to_dim=...)`), of a shape.
fn flatten(a: &Args<'_>) -> Result<Value> {
    let op = a.op_name();
    let shape = shape_arg(a, "x")?;
    let rank = shape.rank();
    // Given as None, a dimension is an error (as in Koda); left out, `to_dim`
    // is the rank.
    let from = resolve_dim(a.int("from_dim")?, rank);
    let to = match a.opt_slice("to_dim")? {
        None => rank,
        Some(_) => resolve_dim(a.int("to_dim")?, rank),
    };
    if to <= from && rank >= plait_core::limits::MAX_RANK {
        return Err(Error::value(
            op,
            format!("a new dimension would make {} dimensions, more than the maximum of {}", rank + 1, plait_core::limits::MAX_RANK),
        ));
    }
    let flat = shape.flatten(from, to.max(from));
    match a.value("x") {
        Some(Value::Slice(x)) => reshaped(op, x, flat),
        _ => Ok(Value::Shape(flat)),
    }
}

/// `kd.shapes.flatten_end(x, n_times)`: the last `n_times + 1` dimensions as one.
fn flatten_end(a: &Args<'_>) -> Result<Value> {
    let x = a.slice("x")?;
    let n_times = a.int("n_times")?;
    if x.is_item() {
        return Err(Error::value(a.op_name(), "expected multidim DataSlice, got DataItem"));
    }
    let rank = x.rank();
    if n_times < 0 || n_times > rank as i64 {
        return Err(Error::value(a.op_name(), format!("expected 0 <= n_times <= rank, got n_times={n_times}, rank={rank}")));
    }
    let from = (rank as i64 - n_times - 1).max(0) as usize;
    reshaped(a.op_name(), x, x.shape().flatten(from, rank))
}

/// The `ndim` argument of the expanding operators (0 when unspecified).
fn ndim_arg(a: &Args<'_>) -> Result<usize> {
    match a.opt_int("ndim")?.unwrap_or(0) {
        n if n < 0 => Err(Error::value(a.op_name(), format!("ndim must be non-negative, got {n}"))),
        n => Ok(n as usize),
    }
}

/// `kd.shapes.expand_to_shape(x, shape, ndim)`.
fn expand_to_shape(a: &Args<'_>) -> Result<DataSlice> {
    // No allocation check: the expansion checks the size it makes.
    expand(a.op_name(), a.slice("x")?, a.shape_read("shape")?, ndim_arg(a)?)
}

/// Present when `expand_to_shape(x, target_shape, ndim)` would succeed:
/// the shape of `x` without its last `ndim` dimensions is a prefix of the
/// target (checked without expanding anything).
fn is_expandable_to_shape(a: &Args<'_>) -> Result<DataSlice> {
    let (x, target, ndim) = (a.slice("x")?, a.shape_read("target_shape")?, ndim_arg(a)?);
    let fits = ndim <= x.rank() && x.shape().prefix(x.rank() - ndim).is_prefix_of(target);
    DataSlice::item(fits.then_some(ScalarRef::Mask), Schema::Mask)
}

/// `kd.reshape(x, shape)`: a JaggedShape, or a tuple of dimensions as
/// `kd.shapes.new` takes them, one of which may be -1 (inferred).
fn reshape(a: &Args<'_>) -> Result<Value> {
    let op = a.op_name();
    let x = a.slice("x")?;
    let shape = match a.value("shape") {
        Some(Value::Shape(s)) => s.clone(),
        Some(Value::Tuple(dims)) => shape_from_dims(op, &dims::resolve_placeholder(op, x.size(), dims)?)?,
        Some(v) => return Err(Error::value(op, format!("expected a JaggedShape or a tuple of dimensions, got shape: {}", v.qtype_name()))),
        None => return Err(Error::type_error(op, "argument `shape` must be given")),
    };
    reshaped(op, x, shape)
}

/// The row sizes of every dimension as a 2-dimensional INT64 slice.
pub fn sizes_slice(shape: &JaggedShape) -> Result<DataSlice> {
    let mut builder = SliceBuilder::new();
    let mut row_sizes = Vec::with_capacity(shape.rank());
    for edge in shape.edges() {
        let sizes = edge.sizes();
        row_sizes.push(sizes.len() as i64);
        for s in sizes {
            builder.push(Some(ScalarRef::Int64(s)));
        }
    }
    let out_shape = JaggedShape::from_edges(vec![Edge::uniform(1, shape.rank()), Edge::from_sizes(&row_sizes)?])?;
    DataSlice::new(out_shape, builder.finish(), Schema::Int64)
}

/// The `dim` argument of `dim_sizes` / `dim_mapping`: negative counts from
/// the end; it must name a dimension of `shape`.
fn dim_arg(a: &Args<'_>, shape: &JaggedShape) -> Result<usize> {
    let d = a.int("dim")?;
    let rank = shape.rank() as i64;
    let resolved = if d < 0 { d + rank } else { d };
    if !(0..rank).contains(&resolved) {
        return Err(Error::value(
            a.op_name(),
            format!("expected rank > {}, but got rank = {rank}, when trying to get the edge at dim = {d}", d.max(-d - 1)),
        ));
    }
    Ok(resolved as usize)
}

/// An INT64 slice of `values` under `shape`.
fn int64_slice(shape: JaggedShape, values: Vec<i64>) -> Result<DataSlice> {
    DataSlice::new(shape, SliceData::from_column(Column::full(Values::Int64(values.into()))), Schema::Int64)
}

/// `kd.shapes.dim_sizes`: a flat slice of the row sizes of dimension `dim`.
fn dim_sizes(a: &Args<'_>) -> Result<DataSlice> {
    let shape = a.shape_read("shape")?.clone();
    let d = dim_arg(a, &shape)?;
    // A uniform dimension is two numbers whatever its size; its sizes are
    // one INT64 per parent, so refuse what could not be allocated.
    plait_core::limits::ensure_allocatable(a.op_name(), shape.edges()[d].parent_size(), 8)?;
    let sizes = shape.edges()[d].sizes();
    int64_slice(JaggedShape::flat(sizes.len()), sizes)
}

/// `kd.shapes.dim_mapping`: a flat slice of the parent index of each item of
/// dimension `dim`.
fn dim_mapping(a: &Args<'_>) -> Result<DataSlice> {
    let shape = a.shape_read("shape")?.clone();
    let d = dim_arg(a, &shape)?;
    plait_core::limits::ensure_allocatable(a.op_name(), shape.edges()[d].child_size(), 16)?;
    let ids: Vec<i64> = shape.edges()[d].parent_ids().into_iter().map(|p| p as i64).collect();
    int64_slice(JaggedShape::flat(ids.len()), ids)
}

/// `kd.align(*args)`: every slice expanded to the shape of the one with
/// the most dimensions.
fn align(a: &Args<'_>) -> Result<Value> {
    let slices = a.var_slices()?;
    let aligned = plait_core::broadcast::align_to_first_widest(a.op_name(), &slices)?;
    Ok(Value::Tuple(aligned.into_iter().map(Value::Slice).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::registry;

    fn int(v: i32) -> Value {
        Value::Slice(DataSlice::item(Some(ScalarRef::Int32(v)), Schema::Int32).unwrap())
    }

    fn call(name: &str, args: Vec<Value>) -> Result<Value> {
        registry().get(name).unwrap().call(args, vec![])
    }

    fn shape(v: Value) -> JaggedShape {
        match v {
            Value::Shape(s) => s,
            other => panic!("expected a shape, got {other:?}"),
        }
    }

    #[test]
    fn new_builds_uniform_and_jagged_dimensions() {
        let sizes = Value::Slice(int64_slice(JaggedShape::flat(2), vec![2, 1]).unwrap());
        let s = shape(call("kd.shapes.new", vec![int(2), sizes]).unwrap());
        assert_eq!(s.to_string(), "JaggedShape(2, [2, 1])");
        let err = call("kd.shapes.new", vec![int(-1)]).unwrap_err();
        assert_eq!(err.to_string(), "kd.shapes.new: dimension 0 has a negative size -1");
    }

    #[test]
    fn reshape_resolves_one_placeholder() {
        let x = Value::Slice(int64_slice(JaggedShape::flat(6), (0..6).collect()).unwrap());
        let out = call("kd.reshape", vec![x.clone(), Value::Tuple(vec![int(-1), int(3)])]).unwrap().into_slice("test").unwrap();
        assert_eq!(out.shape().to_string(), "JaggedShape(2, 3)");
        let err = call("kd.reshape", vec![x, Value::Tuple(vec![int(-1), int(-1)])]).unwrap_err();
        assert_eq!(err.to_string(), "kd.shapes.reshape: only one dimension can be a placeholder");
    }

    #[test]
    fn is_expandable_to_shape_checks_prefixes_without_expanding() {
        let x = Value::Slice(int64_slice(JaggedShape::flat(2), vec![1, 2]).unwrap());
        // 2 x 10**12 items: a prefix check, no allocation.
        let huge = shape(call("kd.shapes.new", vec![int(2), Value::Slice(int64_item(1_000_000_000_000).unwrap())]).unwrap());
        let answer = |target: &JaggedShape| call("kd.shapes.is_expandable_to_shape", vec![x.clone(), Value::Shape(target.clone())]).unwrap();
        assert_eq!(answer(&huge).into_slice("test").unwrap().get(0), Some(ScalarRef::Mask));
        assert_eq!(answer(&JaggedShape::flat(3)).into_slice("test").unwrap().get(0), None);
    }

    #[test]
    fn get_shape_flatten_and_size_of_shapes() {
        let x = Value::Slice(int64_slice(JaggedShape::flat(3), vec![1, 2, 3]).unwrap());
        let s = shape(call("kd.get_shape", vec![x]).unwrap());
        assert_eq!(s.rank(), 1);
        let two_d = shape(call("kd.shapes.new", vec![int(2), int(3)]).unwrap());
        assert_eq!(shape(call("kd.flatten", vec![Value::Shape(two_d.clone())]).unwrap()).to_string(), "JaggedShape(6)");
        let size = call("kd.shapes.size", vec![Value::Shape(two_d)]).unwrap().into_slice("test").unwrap();
        assert_eq!(size.get(0), Some(ScalarRef::Int64(6)));
    }
}
