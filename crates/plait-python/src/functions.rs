//! Module-level functions of `plait._plait`. Each takes the Koda operator name
//! it is exposed under where several `kd` names share it, so errors name the
//! function the user called.

use plait_core::broadcast::{align as align_slices, expand_to_shape as expand};
use plait_core::cast::{cast_to as cast, cast_to_implicit as cast_implicit, cast_to_narrow as cast_narrow};
use plait_core::schema_ops::agg_common_schema as agg_common;
use plait_core::subslice::subslice as subslice_core;
use plait_core::{DataSlice, Edge, JaggedShape, ScalarRef, Schema};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

use crate::boxing::{box_item, box_slice};
use crate::errors::{guard, type_error, value_error};
use crate::py_shape::{PyJaggedShape, sizes_slice};
use crate::py_slice::{int_arg, resolve_dim, schema_arg, schema_item, shape_of, slice_args, wrap};

fn optional_schema(op: &str, schema: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Schema>> {
    match schema {
        Some(s) if !s.is_none() => Ok(Some(schema_arg(op, "schema", s)?)),
        _ => Ok(None),
    }
}

/// `kd.slice(x, schema=None)`.
#[pyfunction]
#[pyo3(signature = (x, /, schema=None))]
fn slice(py: Python<'_>, x: &Bound<'_, PyAny>, schema: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
    let schema = optional_schema("kd.slice", schema)?;
    wrap(py, box_slice("kd.slice", x, schema)?)
}

/// `kd.item(x, schema=None)`.
#[pyfunction]
#[pyo3(signature = (x, /, schema=None))]
fn item(py: Python<'_>, x: &Bound<'_, PyAny>, schema: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
    let schema = optional_schema("kd.item", schema)?;
    wrap(py, box_item("kd.item", x, schema)?)
}

/// A schema constant by name (`INT32`, ...).
#[pyfunction]
fn schema_constant(py: Python<'_>, name: &str) -> PyResult<Py<PyAny>> {
    let schema = Schema::from_name(name).ok_or_else(|| value_error("kd.schema", format!("unknown schema {name}")))?;
    schema_item(py, schema)
}

/// `kd.present` / `kd.missing`.
#[pyfunction]
pub fn mask_item(py: Python<'_>, present: bool) -> PyResult<Py<PyAny>> {
    wrap(py, guard(|| DataSlice::item(present.then_some(ScalarRef::Mask), Schema::Mask))?)
}

/// Explicit cast (`kd.cast_to`, `kd.int32`, ...); `op` is the caller's name.
#[pyfunction]
fn cast_to(py: Python<'_>, op: &str, x: &Bound<'_, PyAny>, schema: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    let target = schema_arg(op, "schema", schema)?;
    let boxed = box_slice(op, x, None)?;
    // Python floats are doubles: boxed as FLOAT32 first, they would lose the
    // precision `kd.float64(0.1)` asks for.
    let boxed = if target == Schema::Float64 && boxed.schema() == Schema::Float32 && !x.is_instance_of::<crate::py_slice::PyDataSlice>() {
        box_slice(op, x, Some(Schema::Float64))?
    } else {
        boxed
    };
    if target == Schema::Object {
        // Entities, lists and dicts need their schemas written into a bag.
        return wrap(py, guard(|| plait_ops::objects::create::to_object(op, &boxed))?);
    }
    wrap(py, guard(|| cast(op, &boxed, target))?)
}

/// Returns x cast to schema, allowing only implicit (widening) casts.
///
/// An implicit cast never loses information: INT32 to INT64 or FLOAT32, any
/// primitive to OBJECT, and so on; other casts raise ValueError (see kd.cast_to
/// for explicit ones). A Python value is boxed first.
///
/// Args:
///   x: the DataSlice (or Python value) to cast.
///   schema: the schema to cast to (a schema DataItem).
///
/// Examples:
///   >>> kd.schema.cast_to_implicit(kd.slice([1, 2]), kd.INT64)
///   DataSlice([1, 2], schema: INT64, present: 2/2)
///   >>> kd.schema.cast_to_implicit(kd.slice([1, None]), kd.FLOAT32)
///   DataSlice([1.0, None], schema: FLOAT32, present: 1/2)
///   >>> kd.schema.cast_to_implicit(kd.int64(1), kd.INT32)
///   Traceback (most recent call last):
///   ...
///   ValueError: kd.schema.cast_to_implicit: unsupported implicit cast from INT64 to INT32
#[pyfunction]
fn cast_to_implicit(py: Python<'_>, x: &Bound<'_, PyAny>, schema: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    let op = "kd.schema.cast_to_implicit";
    let target = schema_arg(op, "schema", schema)?;
    let x = box_slice(op, x, None)?;
    wrap(py, guard(|| cast_implicit(op, &x, target))?)
}

/// Returns x cast to schema, where OBJECT data may be narrowed to a primitive schema.
///
/// OBJECT items can be cast to a primitive schema when each of them can be
/// implicitly cast to it; otherwise the rules of kd.schema.cast_to_implicit
/// apply, and a cast they do not allow raises ValueError. A Python value is
/// boxed first.
///
/// Args:
///   x: the DataSlice (or Python value) to cast.
///   schema: the schema to cast to (a schema DataItem).
///
/// Examples:
///   >>> kd.schema.cast_to_narrow(kd.slice([1, None, 2], kd.OBJECT), kd.INT64)
///   DataSlice([1, None, 2], schema: INT64, present: 2/3)
///   >>> kd.schema.cast_to_narrow(kd.slice([1, 2.5], kd.OBJECT), kd.FLOAT32)
///   DataSlice([1.0, 2.5], schema: FLOAT32, present: 2/2)
///   >>> kd.schema.cast_to_narrow(kd.slice([1, 'a'], kd.OBJECT), kd.INT32)
///   Traceback (most recent call last):
///   ...
///   ValueError: kd.schema.cast_to_narrow: unsupported narrowing cast to INT32 for the given OBJECT DataSlice
#[pyfunction]
fn cast_to_narrow(py: Python<'_>, x: &Bound<'_, PyAny>, schema: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    let op = "kd.schema.cast_to_narrow";
    let target = schema_arg(op, "schema", schema)?;
    let x = box_slice(op, x, None)?;
    wrap(py, guard(|| cast_narrow(op, &x, target))?)
}

/// `kd.expand_to_shape(x, shape, ndim=0)`; `op` is the caller's name.
#[pyfunction]
#[pyo3(signature = (op, x, shape, ndim=0))]
fn expand_to_shape(py: Python<'_>, op: &str, x: &Bound<'_, PyAny>, shape: &Bound<'_, PyAny>, ndim: i64) -> PyResult<Py<PyAny>> {
    let x = box_slice(op, x, None)?;
    let shape = match shape.cast::<PyJaggedShape>() {
        Ok(s) => s.get().inner.clone(),
        Err(_) => return Err(type_error(op, format!("expected `shape` to be a JaggedShape, got {}", shape.get_type().name()?))),
    };
    if ndim < 0 {
        return Err(value_error(op, format!("ndim must be non-negative, got {ndim}")));
    }
    wrap(py, guard(|| expand(op, &x, &shape, ndim as usize))?)
}

/// Expands the given DataSlices to one common shape.
///
/// Every argument is expanded to the shape of the argument with the most
/// dimensions, so each shape must be a prefix of that one (a DataItem fits any
/// shape); otherwise ValueError is raised. Python values are boxed first. The
/// result is a tuple with one DataSlice per argument, in order.
///
/// Args:
///   *args: DataSlices (or Python values) to align.
///
/// Examples:
///   >>> x, y = kd.align(kd.slice([[1, 2], [3]]), kd.slice([10, 20]))
///   >>> y
///   DataSlice([[10, 10], [20]], schema: INT32, present: 3/3)
///   >>> kd.align(kd.item('a'), kd.slice([1, 2]))
///   (DataSlice(['a', 'a'], schema: STRING, present: 2/2), DataSlice([1, 2], schema: INT32, present: 2/2))
#[pyfunction]
#[pyo3(signature = (*args))]
fn align(py: Python<'_>, args: &Bound<'_, PyTuple>) -> PyResult<Py<PyAny>> {
    let op = "kd.align";
    let slices: Vec<DataSlice> = args.iter().map(|a| box_slice(op, &a, None)).collect::<PyResult<_>>()?;
    let refs: Vec<&DataSlice> = slices.iter().collect();
    let aligned = guard(|| align_slices(op, &refs))?;
    let items: Vec<Py<PyAny>> = aligned.into_iter().map(|s| wrap(py, s)).collect::<PyResult<_>>()?;
    Ok(PyTuple::new(py, items)?.into_any().unbind())
}

/// `kd.flatten(x, from_dim=0, to_dim=None)`: on a DataSlice (no copy of the
/// items) or, as seed 000 shows, on a JaggedShape.
#[pyfunction]
#[pyo3(signature = (x, from_dim=None, to_dim=None))]
fn flatten(py: Python<'_>, x: &Bound<'_, PyAny>, from_dim: Option<&Bound<'_, PyAny>>, to_dim: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
    let op = "kd.flatten";
    // A JaggedShape flattens to a JaggedShape; anything else is boxed once.
    let slice = match x.cast::<PyJaggedShape>() {
        Ok(_) => None,
        Err(_) => Some(box_slice(op, x, None)?),
    };
    let shape = match &slice {
        Some(slice) => slice.shape().clone(),
        None => x.cast::<PyJaggedShape>()?.get().inner.clone(),
    };
    let rank = shape.rank();
    let from = match from_dim {
        Some(d) if !d.is_none() => resolve_dim(int_arg(op, "from_dim", d)?, rank),
        _ => 0,
    };
    let to = match to_dim {
        Some(d) if !d.is_none() => resolve_dim(int_arg(op, "to_dim", d)?, rank),
        _ => rank,
    };
    if to <= from && rank >= plait_core::limits::MAX_RANK {
        return Err(value_error(
            op,
            format!("a new dimension would make {} dimensions, more than the maximum of {}", rank + 1, plait_core::limits::MAX_RANK),
        ));
    }
    let flat = shape.flatten(from, to.max(from));
    match slice {
        Some(slice) => wrap(py, guard(|| slice.with_shape(op, flat))?),
        None => Ok(Py::new(py, PyJaggedShape { inner: flat })?.into_any()),
    }
}

/// `kd.reshape(x, shape)`: same items, another shape of the same size.
#[pyfunction]
fn reshape(py: Python<'_>, op: &str, x: &Bound<'_, PyAny>, shape: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    let x = box_slice(op, x, None)?;
    let shape = match shape.cast::<PyJaggedShape>() {
        Ok(s) => s.get().inner.clone(),
        Err(_) => shape_from_dims(op, &PyTuple::new(shape.py(), shape.try_iter()?.collect::<PyResult<Vec<_>>>()?)?)?,
    };
    wrap(py, guard(|| x.with_shape(op, shape))?)
}

/// Returns the items of x chosen by one slicing argument per dimension.
///
/// Each argument applies to one dimension of x: an integer takes one item (and
/// removes the dimension; negative counts from the end, out of range gives
/// missing), a DataSlice of integers takes several, and a Python slice takes a
/// range. An Ellipsis (`...`) stands for all the dimensions not given; without
/// one, the arguments apply to the last dimensions. `x.S[...]` is the same.
///
/// Args:
///   x: the DataSlice to slice.
///   *slices: the slicing arguments, at most one per dimension of x.
///
/// Examples:
///   >>> x = kd.slice([[1, 2, 3], [4, 5]])
///   >>> kd.subslice(x, -1)
///   DataSlice([3, 5], schema: INT32, present: 2/2)
///   >>> kd.subslice(x, 1, ...)
///   DataSlice([4, 5], schema: INT32, present: 2/2)
///   >>> kd.subslice(x, slice(1, None))
///   DataSlice([[2, 3], [5]], schema: INT32, present: 3/3)
///   >>> kd.subslice(x, kd.slice([[0, 2], [1]]))
///   DataSlice([[1, 3], [5]], schema: INT32, present: 3/3)
#[pyfunction]
#[pyo3(signature = (x, *slices))]
fn subslice(py: Python<'_>, x: &Bound<'_, PyAny>, slices: &Bound<'_, PyTuple>) -> PyResult<Py<PyAny>> {
    let op = "kd.slices.subslice";
    let x = box_slice(op, x, None)?;
    let keys: Vec<Bound<'_, PyAny>> = slices.iter().collect();
    let args = slice_args(op, &keys)?;
    wrap(py, guard(|| subslice_core(&x, &args))?)
}

/// Builds a shape from Koda's dimension forms: an int (uniform size), a list
/// of sizes, or a DataSlice of sizes.
fn shape_from_dims(op: &str, dims: &Bound<'_, PyTuple>) -> PyResult<JaggedShape> {
    let mut edges = Vec::with_capacity(dims.len());
    let mut parent = 1usize;
    for (i, dim) in dims.iter().enumerate() {
        let is_sizes = dim.is_instance_of::<crate::py_slice::PyDataSlice>() || dim.is_instance_of::<PyList>() || dim.is_instance_of::<PyTuple>();
        let edge = if is_sizes {
            let sizes = dim_sizes_arg(op, i, &dim)?;
            if sizes.len() != parent {
                return Err(value_error(op, format!("dimension {i} has {} size(s) but the previous dimension has {parent} item(s)", sizes.len())));
            }
            guard(|| Edge::from_sizes(&sizes))?
        } else {
            // A uniform dimension: two numbers, however large.
            let size = int_arg(op, "dimensions", &dim)?;
            if size < 0 {
                return Err(value_error(op, format!("dimension {i} has a negative size {size}")));
            }
            let total = (parent as u64).checked_mul(size as u64).filter(|&t| t <= i64::MAX as u64);
            if total.is_none() {
                return Err(value_error(op, format!("dimension {i} would hold more than 2**63 items")));
            }
            Edge::uniform(parent, size as usize)
        };
        parent = edge.child_size();
        edges.push(edge);
    }
    guard(|| JaggedShape::from_edges(edges))
}

/// The sizes of dimension `i` given as a list of ints or a DataSlice of sizes.
fn dim_sizes_arg(op: &str, i: usize, dim: &Bound<'_, PyAny>) -> PyResult<Vec<i64>> {
    if let Ok(ds) = dim.cast::<crate::py_slice::PyDataSlice>() {
        let sizes = guard(|| cast(op, &ds.get().inner, Schema::Int64))?;
        return (0..sizes.size())
            .map(|k| match sizes.get(k) {
                Some(ScalarRef::Int64(v)) => Ok(v),
                _ => Err(value_error(op, format!("dimension {i} has a missing size"))),
            })
            .collect();
    }
    dim.extract().map_err(|_| type_error(op, format!("dimension {i} must be an int, a list of ints or a DataSlice of sizes")))
}

/// `kd.shapes.new(*dimensions)`.
#[pyfunction]
#[pyo3(signature = (*dimensions))]
fn shapes_new(dimensions: &Bound<'_, PyTuple>) -> PyResult<PyJaggedShape> {
    Ok(PyJaggedShape { inner: shape_from_dims("kd.shapes.new", dimensions)? })
}

/// `kd.shapes.get_shape(x)`.
#[pyfunction]
fn get_shape(x: &Bound<'_, PyAny>) -> PyResult<PyJaggedShape> {
    Ok(PyJaggedShape { inner: shape_of("kd.get_shape", x)? })
}

/// Returns the row sizes of every dimension of a shape, as a 2-dimensional DataSlice.
///
/// Row i holds the sizes of dimension i. The result is INT64; for a DataItem
/// (rank 0) it is empty.
///
/// Args:
///   x: a JaggedShape, or a DataSlice whose shape is used.
///
/// Examples:
///   >>> kd.shapes.get_sizes(kd.slice([['a', 'b'], ['c']]))
///   DataSlice([[2], [2, 1]], schema: INT64, present: 3/3)
///   >>> kd.shapes.get_sizes(kd.shapes.new(2, [3, 1]))
///   DataSlice([[2], [3, 1]], schema: INT64, present: 3/3)
///   >>> kd.shapes.get_sizes(kd.item(1))
///   DataSlice([], schema: INT64, present: 0/0)
#[pyfunction]
fn get_sizes(py: Python<'_>, x: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    let shape = shape_of("kd.shapes.get_sizes", x)?;
    wrap(py, guard(|| sizes_slice(&shape))?)
}

fn dim_arg(op: &str, shape: &JaggedShape, dim: &Bound<'_, PyAny>) -> PyResult<usize> {
    let d = int_arg(op, "dim", dim)?;
    let rank = shape.rank() as i64;
    let resolved = if d < 0 { d + rank } else { d };
    if !(0..rank).contains(&resolved) {
        return Err(value_error(op, format!("dim {d} is out of range for a shape of rank {rank}")));
    }
    Ok(resolved as usize)
}

/// Returns the row sizes of dimension dim of shape.
///
/// Each item of dimension dim - 1 has one size: the number of its items in
/// dimension dim. The result is INT64 and has the shape of the first dim
/// dimensions (a DataItem for dim 0). A negative dim counts from the end.
/// shape may also be a DataSlice (its shape is used).
///
/// Args:
///   shape: a JaggedShape or a DataSlice.
///   dim: the dimension.
///
/// Examples:
///   >>> shape = kd.shapes.new(2, [3, 1], [1, 2, 0, 2])
///   >>> kd.shapes.dim_sizes(shape, 1)
///   DataSlice([3, 1], schema: INT64, present: 2/2)
///   >>> kd.shapes.dim_sizes(shape, 2)
///   DataSlice([[1, 2, 0], [2]], schema: INT64, present: 4/4)
///   >>> kd.shapes.dim_sizes(shape, 0)
///   DataItem(2, schema: INT64)
#[pyfunction]
fn dim_sizes(py: Python<'_>, shape: &Bound<'_, PyAny>, dim: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    let op = "kd.shapes.dim_sizes";
    let shape = shape_of(op, shape)?;
    let d = dim_arg(op, &shape, dim)?;
    let sizes = shape.edges()[d].sizes();
    let column = plait_core::Column::full(plait_core::Values::Int64(sizes.into()));
    wrap(py, guard(|| DataSlice::new(shape.prefix(d), plait_core::SliceData::from_column(column), Schema::Int64))?)
}

/// Returns, for each item of dimension dim of shape, the index of its parent.
///
/// The parent is the item of dimension dim - 1 the item belongs to (for
/// dimension 0, always 0), counted across that whole dimension. The result is
/// INT64 and has the shape of the first dim + 1 dimensions. A negative dim
/// counts from the end. shape may also be a DataSlice (its shape is used).
///
/// Args:
///   shape: a JaggedShape or a DataSlice.
///   dim: the dimension.
///
/// Examples:
///   >>> shape = kd.shapes.new(2, [3, 1], [1, 2, 0, 2])
///   >>> kd.shapes.dim_mapping(shape, 1)
///   DataSlice([[0, 0, 0], [1]], schema: INT64, present: 4/4)
///   >>> kd.shapes.dim_mapping(shape, -1)
///   DataSlice([[[0], [1, 1], []], [[3, 3]]], schema: INT64, present: 5/5)
#[pyfunction]
fn dim_mapping(py: Python<'_>, shape: &Bound<'_, PyAny>, dim: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    let op = "kd.shapes.dim_mapping";
    let shape = shape_of(op, shape)?;
    let d = dim_arg(op, &shape, dim)?;
    let ids: Vec<i64> = shape.edges()[d].parent_ids().into_iter().map(|p| p as i64).collect();
    let column = plait_core::Column::full(plait_core::Values::Int64(ids.into()));
    wrap(py, guard(|| DataSlice::new(shape.prefix(d + 1), plait_core::SliceData::from_column(column), Schema::Int64))?)
}

/// Returns the common schema of the schemas in x along its last ndim dimensions.
///
/// Missing schemas are skipped; a group with no present schema gives a missing
/// schema. Primitive schemas with no common primitive schema give OBJECT; an
/// entity schema with any other schema raises ValueError. The result has ndim
/// fewer dimensions than x.
///
/// Args:
///   x: a DataSlice of schemas.
///   ndim: how many trailing dimensions to aggregate over (1 when unspecified).
///
/// Examples:
///   >>> x = kd.slice([[kd.INT32, None], [kd.FLOAT32, kd.INT64], [None]])
///   >>> kd.schema.agg_common_schema(x)
///   DataSlice([INT32, FLOAT32, None], schema: SCHEMA, present: 2/3)
///   >>> kd.schema.agg_common_schema(x, ndim=2)
///   DataItem(FLOAT32, schema: SCHEMA)
///   >>> kd.schema.agg_common_schema(kd.slice([[kd.INT32, kd.STRING]]))
///   DataSlice([OBJECT], schema: SCHEMA, present: 1/1)
#[pyfunction]
#[pyo3(signature = (x, ndim=1))]
fn agg_common_schema(py: Python<'_>, x: &Bound<'_, PyAny>, ndim: i64) -> PyResult<Py<PyAny>> {
    let op = "kd.schema.agg_common_schema";
    let x = box_slice(op, x, None)?;
    if ndim < 0 {
        return Err(value_error(op, format!("ndim must be non-negative, got {ndim}")));
    }
    wrap(py, guard(|| agg_common(op, &x, ndim as usize))?)
}

/// Returns the common schema of all the schemas in x, as a DataItem.
///
/// Missing schemas are skipped (with none present, the result is missing).
/// Primitive schemas with no common primitive schema give OBJECT; an entity
/// schema with any other schema raises ValueError. x must have schema SCHEMA.
///
/// Args:
///   x: a DataSlice of schemas.
///
/// Examples:
///   >>> kd.schema.common_schema(kd.slice([kd.INT32, kd.FLOAT32, None]))
///   DataItem(FLOAT32, schema: SCHEMA)
///   >>> kd.schema.common_schema(kd.slice([[kd.INT32], [kd.INT64, kd.STRING]]))
///   DataItem(OBJECT, schema: SCHEMA)
#[pyfunction]
fn common_schema(py: Python<'_>, x: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    let op = "kd.schema.common_schema";
    let x = box_slice(op, x, None)?;
    let rank = x.rank();
    wrap(py, guard(|| agg_common(op, &x, rank))?)
}

/// Raises a Rust panic, to test that a bug surfaces as a Python exception.
#[pyfunction]
fn _debug_panic() -> PyResult<()> {
    guard(|| -> plait_core::Result<()> { panic!("deliberate panic for testing") })
}

/// Adds the functions to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(slice, m)?)?;
    m.add_function(wrap_pyfunction!(item, m)?)?;
    m.add_function(wrap_pyfunction!(schema_constant, m)?)?;
    m.add_function(wrap_pyfunction!(mask_item, m)?)?;
    m.add_function(wrap_pyfunction!(cast_to, m)?)?;
    m.add_function(wrap_pyfunction!(cast_to_implicit, m)?)?;
    m.add_function(wrap_pyfunction!(cast_to_narrow, m)?)?;
    m.add_function(wrap_pyfunction!(expand_to_shape, m)?)?;
    m.add_function(wrap_pyfunction!(align, m)?)?;
    m.add_function(wrap_pyfunction!(flatten, m)?)?;
    m.add_function(wrap_pyfunction!(reshape, m)?)?;
    m.add_function(wrap_pyfunction!(subslice, m)?)?;
    m.add_function(wrap_pyfunction!(shapes_new, m)?)?;
    m.add_function(wrap_pyfunction!(get_shape, m)?)?;
    m.add_function(wrap_pyfunction!(get_sizes, m)?)?;
    m.add_function(wrap_pyfunction!(dim_sizes, m)?)?;
    m.add_function(wrap_pyfunction!(dim_mapping, m)?)?;
    m.add_function(wrap_pyfunction!(agg_common_schema, m)?)?;
    m.add_function(wrap_pyfunction!(common_schema, m)?)?;
    m.add_function(wrap_pyfunction!(_debug_panic, m)?)?;
    Ok(())
}
