//! Boxing: Python values to DataSlices (seed 000, "Boxing").
//!
//! Two passes over the leaves of the (possibly nested) input:
//! 1. classify each leaf, remember numbers, and fold the common schema;
//! 2. build the columns directly in the result type: one typed column for a
//!    primitive schema (numbers converted once, from their Python value), one
//!    column per item type for OBJECT.
//!
//! Python ints become INT32, or INT64 when too large (wrapping modulo 2**64 past
//! that); Python floats become FLOAT32, or FLOAT64 when their magnitude does not
//! fit FLOAT32; numpy scalars keep their type and width.

use arrow_buffer::{BooleanBufferBuilder, NullBuffer, ScalarBuffer};
use plait_core::column::{Column, ColumnBuilder, SliceBuilder, Values};
use plait_core::{DataSlice, Edge, JaggedShape, ScalarRef, Schema, SliceData};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyFloat, PyInt, PyList, PyString, PyTuple};

use crate::errors::{guard, type_error, value_error};
use crate::fast_boxing::{box_bools, box_numbers, box_texts, invalid_unicode};
use crate::py_slice::PyDataSlice;

/// What one leaf is, decided in the first pass.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Leaf {
    Missing,
    /// A Python int or integer numpy scalar, its value in `numbers`.
    Int(Schema),
    /// A Python float or float numpy scalar, its value in `numbers` (as f64).
    Float(Schema),
    Bool,
    Bytes,
    String,
    /// A DataItem; contributes its schema, and its value is read again in pass 2.
    Item,
}

/// Leaves and the numbers read from them.
struct Leaves<'py> {
    objects: Vec<Bound<'py, PyAny>>,
    kinds: Vec<Leaf>,
    /// For Int leaves the i64 value, for Float leaves the f64 bits.
    numbers: Vec<i64>,
    schema: Schema,
}

/// `kd.slice(x, schema)`: boxes nested lists into a DataSlice.
pub fn box_slice(op: &str, x: &Bound<'_, PyAny>, schema: Option<Schema>) -> PyResult<DataSlice> {
    if let Ok(ds) = x.cast::<PyDataSlice>() {
        let ds = ds.get().inner.clone();
        return match schema {
            Some(s) => guard(|| plait_ops::schema::casts::cast_boxed(op, &ds, s, false)),
            None => Ok(ds),
        };
    }
    if schema.is_none() {
        if let Some(item) = box_scalar(x)? {
            return Ok(item);
        }
    }
    let flat_list = x.cast_exact::<PyList>().ok();
    if let Some(list) = &flat_list {
        // A flat list of numbers needs no leaf objects at all.
        let n = list.len();
        let list_ptr = list.as_ptr();
        if schema.is_none() {
            // SAFETY: the list is alive and not resized during the call (no Python
            // code runs in it), and every index is below its length.
            let fast = unsafe { box_numbers(x.py(), n, |i| ffi::PyList_GetItem(list_ptr, i as ffi::Py_ssize_t)) }?;
            if let Some((data, schema)) = fast {
                return guard(|| DataSlice::new(JaggedShape::flat(n), data, schema));
            }
            // SAFETY: as above.
            if let Some(data) = unsafe { box_texts(x.py(), n, |i| ffi::PyList_GetItem(list_ptr, i as ffi::Py_ssize_t)) }? {
                return guard(|| DataSlice::new(JaggedShape::flat(n), data, Schema::String));
            }
            // SAFETY: as above.
            if let Some(data) = unsafe { box_bools(n, |i| ffi::PyList_GetItem(list_ptr, i as ffi::Py_ssize_t)) } {
                return guard(|| DataSlice::new(JaggedShape::flat(n), data, Schema::Boolean));
            }
        } else if let Some(target @ (Schema::Int64 | Schema::Float32 | Schema::Float64)) = schema {
            // Numbers given a wider schema (`kd.slice(ints, kd.INT64)`): boxed
            // as above, then widened. (Narrower ones, and anything else, take
            // the general path, which words their errors.)
            // SAFETY: as above.
            let fast = unsafe { box_numbers(x.py(), n, |i| ffi::PyList_GetItem(list_ptr, i as ffi::Py_ssize_t)) }?;
            if let Some((data, found)) = fast {
                // (Python floats boxed as FLOAT32 are rounded already: only
                // FLOAT32 takes them.)
                let widens = matches!(
                    (found, target),
                    (Schema::Int32 | Schema::Int64, _) | (Schema::Float32, Schema::Float32) | (Schema::Float64, Schema::Float64)
                );
                if widens {
                    return guard(|| plait_ops::schema::casts::cast_boxed(op, &DataSlice::new(JaggedShape::flat(n), data, found)?, target, false));
                }
            }
        }
    }
    let (shape, leaves) = flatten_nested(op, x)?;
    // A flat list's leaves are its items, which the attempt above already read.
    let already_tried = flat_list.is_some() && shape.rank() == 1;
    if schema.is_none() && !already_tried {
        // SAFETY: `leaves` holds a reference to every leaf during the call.
        let fast = unsafe { box_numbers(x.py(), leaves.len(), |i| leaves[i].as_ptr()) }?;
        if let Some((data, schema)) = fast {
            return guard(|| DataSlice::new(shape, data, schema));
        }
        // SAFETY: as above.
        if let Some(data) = unsafe { box_texts(x.py(), leaves.len(), |i| leaves[i].as_ptr()) }? {
            return guard(|| DataSlice::new(shape, data, Schema::String));
        }
        // SAFETY: as above.
        if let Some(data) = unsafe { box_bools(leaves.len(), |i| leaves[i].as_ptr()) } {
            return guard(|| DataSlice::new(shape, data, Schema::Boolean));
        }
    }
    box_leaves(op, shape, leaves, schema)
}

/// `kd.slice(values)` of the Python values of a Rust vector (the flat list
/// a walk collected), without making a Python list of them.
pub fn box_values(op: &str, values: &[Bound<'_, PyAny>]) -> PyResult<DataSlice> {
    match box_values_fast(values)? {
        Some(boxed) => Ok(boxed),
        None => box_leaves(op, JaggedShape::flat(values.len()), values.to_vec(), None),
    }
}

/// [`box_values`] of exact ints and floats, exact strs, or bools (each with
/// None; at least one present), or of exact primitives of several of these
/// kinds and bytes (OBJECT): None for anything else.
pub fn box_values_fast(values: &[Bound<'_, PyAny>]) -> PyResult<Option<DataSlice>> {
    let Some(py) = values.first().map(|v| v.py()) else { return Ok(None) };
    let n = values.len();
    // SAFETY: `values` holds a reference to every value during the call.
    if let Some((data, schema)) = unsafe { box_numbers(py, n, |i| values[i].as_ptr()) }? {
        return guard(|| DataSlice::new(JaggedShape::flat(n), data, schema)).map(Some);
    }
    // SAFETY: as above.
    if let Some(data) = unsafe { box_texts(py, n, |i| values[i].as_ptr()) }? {
        return guard(|| DataSlice::new(JaggedShape::flat(n), data, Schema::String)).map(Some);
    }
    // SAFETY: as above.
    if let Some(data) = unsafe { box_bools(n, |i| values[i].as_ptr()) } {
        return guard(|| DataSlice::new(JaggedShape::flat(n), data, Schema::Boolean)).map(Some);
    }
    box_mixed_primitives(values)
}

/// Exact primitives of more than one kind (numbers, strs, bools, bytes;
/// and None) as OBJECT, each item of its own schema as `kd.item` gives it;
/// None for anything else (one kind only, ints past INT64, other values).
fn box_mixed_primitives(values: &[Bound<'_, PyAny>]) -> PyResult<Option<DataSlice>> {
    let mut out = SliceBuilder::with_capacity(values.len());
    let mut kinds = 0u8;
    for v in values {
        if v.is_none() {
            out.push(None);
            continue;
        }
        let kind = with_exact_scalar(v, |value| {
            out.push(Some(value));
            match value {
                ScalarRef::String(_) => 1,
                ScalarRef::Boolean(_) => 2,
                ScalarRef::Bytes(_) => 4,
                _ => 8,
            }
        })?;
        match kind {
            Some(kind) => kinds |= kind,
            None => return Ok(None),
        }
    }
    if kinds.count_ones() < 2 {
        return Ok(None);
    }
    guard(|| DataSlice::new(JaggedShape::flat(values.len()), out.finish(), Schema::Object)).map(Some)
}

/// `kd.item(x, schema)`: like `kd.slice` but refuses lists.
pub fn box_item(op: &str, x: &Bound<'_, PyAny>, schema: Option<Schema>) -> PyResult<DataSlice> {
    if x.is_instance_of::<PyList>() || x.is_instance_of::<PyTuple>() {
        // Koda's text (a DataItem has rank 0; `kd.slice` takes lists).
        return Err(type_error(op, "DataItem and other 0-rank class method `from_vals` cannot create multi-dim DataSlice"));
    }
    let ds = match (x.cast::<PyDataSlice>(), schema) {
        // A DataItem given a schema is cast as a Python value is (a slice
        // given to `kd.slice` as a whole).
        (Ok(ds), Some(s)) if ds.get().inner.is_item() => guard(|| plait_ops::schema::casts::cast_boxed(op, &ds.get().inner, s, true))?,
        _ => box_slice(op, x, schema)?,
    };
    if !ds.is_item() {
        // Only a DataSlice of rank > 0 gets here (lists were refused above).
        return Err(value_error(op, format!("python object can only contain DataItems, got DataSlice with shape {}", ds.shape())));
    }
    Ok(ds)
}

/// Koda's error for a Python value of a type it does not box, naming the
/// type as [`type_name`] does.
pub fn unsupported_type(op: &str, x: &Bound<'_, PyAny>) -> PyErr {
    match type_name(x) {
        Ok(name) => value_error(op, format!("object with unsupported type: {name}")),
        Err(err) => err,
    }
}

/// The name of `x`'s type as Koda's errors give it (the type's C name):
/// builtins by their bare name (`dict`), other built-in types with their
/// module (`collections.OrderedDict`), classes defined in Python by their
/// name (`Point`).
#[pyfunction]
pub fn type_name(x: &Bound<'_, PyAny>) -> PyResult<String> {
    let ty = x.get_type();
    // SAFETY: `ty` is a live type object; reading its flags has no other
    // effect.
    let defined_in_python = unsafe { ffi::PyType_GetFlags(ty.as_ptr().cast()) } & ffi::Py_TPFLAGS_HEAPTYPE != 0;
    let module = ty.module()?;
    Ok(if defined_in_python {
        ty.name()?.to_string()
    } else if module.to_str()? == "builtins" {
        ty.qualname()?.to_string()
    } else {
        format!("{module}.{}", ty.qualname()?)
    })
}

/// Whether `x` is a list or tuple of a subclass, which Koda refuses to box
/// as a whole (its items, nested, are boxed).
pub fn is_sequence_subclass(x: &Bound<'_, PyAny>) -> bool {
    is_list_like(x) && !x.is_exact_instance_of::<PyList>() && !x.is_exact_instance_of::<PyTuple>()
}

fn is_list_like(x: &Bound<'_, PyAny>) -> bool {
    x.is_instance_of::<PyList>() || x.is_instance_of::<PyTuple>()
}

/// The deepest nesting of lists that boxing accepts (one dimension per
/// level); deeper input is almost certainly a list that contains itself.
const MAX_NESTING: usize = plait_core::limits::MAX_RANK;

/// Walks nested lists level by level, producing the shape and the leaves.
fn flatten_nested<'py>(op: &str, x: &Bound<'py, PyAny>) -> PyResult<(JaggedShape, Vec<Bound<'py, PyAny>>)> {
    if let Some(array) = numpy_array_as_list(x)? {
        return flatten_nested(op, &array);
    }
    let mut level = vec![x.clone()];
    let mut lists = usize::from(is_list_like(x));
    let mut edges = Vec::new();
    let mut cycles = crate::cycles::CycleCheck::default();
    loop {
        if lists == 0 {
            break;
        }
        if cycles.found(edges.len()) {
            return Err(value_error(op, "input contains itself: a list inside itself cannot be boxed"));
        }
        if edges.len() == MAX_NESTING {
            return Err(value_error(op, format!("input is nested more than {MAX_NESTING} levels deep (does a list contain itself?)")));
        }
        if lists != level.len() {
            return Err(value_error(op, "input has to be a valid nested list. non-lists and lists cannot be mixed in a level"));
        }
        let mut sizes = Vec::with_capacity(level.len());
        let mut next = Vec::new();
        // Count the lists of the next level while collecting it.
        lists = 0;
        for v in &level {
            cycles.meet(edges.len(), v);
            let before = next.len();
            let mut push = |item: Bound<'py, PyAny>| {
                lists += usize::from(is_list_like(&item));
                next.push(item);
            };
            if let Ok(list) = v.cast::<PyList>() {
                list.iter().for_each(&mut push);
            } else {
                v.cast::<PyTuple>()?.iter().for_each(&mut push);
            }
            sizes.push((next.len() - before) as i64);
        }
        edges.push(guard(|| Edge::from_sizes(&sizes))?);
        level = next;
    }
    let shape = guard(|| JaggedShape::from_edges(edges))?;
    Ok((shape, level))
}

/// A numpy ndarray as nested Python lists (keeping its dtype in each leaf would
/// need the buffer; zero-copy conversion is `kd_ext.npkd`'s job).
fn numpy_array_as_list<'py>(x: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyAny>>> {
    let ty = x.get_type();
    if ty.name()?.to_str()? != "ndarray" || ty.module()?.to_str()? != "numpy" {
        return Ok(None);
    }
    if x.getattr("ndim")?.extract::<usize>()? == 0 {
        return Ok(Some(x.call_method0("item")?));
    }
    // Convert the elements to numpy scalars so their width is kept.
    let items = x.call_method0("ravel")?;
    let scalars: Vec<Bound<'py, PyAny>> = items.try_iter()?.collect::<PyResult<_>>()?;
    let dims: Vec<usize> = x.getattr("shape")?.extract()?;
    let mut nested: Vec<Bound<'py, PyAny>> = scalars;
    for &d in dims[1..].iter().rev() {
        let chunks: PyResult<Vec<Bound<'py, PyAny>>> = nested.chunks(d.max(1)).map(|c| Ok(PyList::new(x.py(), c)?.into_any())).collect();
        nested = if d == 0 { Vec::new() } else { chunks? };
    }
    Ok(Some(PyList::new(x.py(), nested)?.into_any()))
}

/// None, or one exact Python int (within INT64), float, str, bool or bytes,
/// as a DataItem, without the walk over nested lists that the general path
/// makes: `x.a = 5` and `l.append('t')` box one value per call, and that
/// walk (a numpy check, leaf vectors, a shape) cost more than the write
/// itself. `None` for any other value (the general path decides).
fn box_scalar(x: &Bound<'_, PyAny>) -> PyResult<Option<DataSlice>> {
    if x.is_none() {
        // (Optional arguments left None, `itemid=None`, come this way.)
        return guard(|| DataSlice::item(None, Schema::None)).map(Some);
    }
    with_exact_scalar(x, |value| guard(|| DataSlice::item(Some(value), value.dtype())))?.transpose()
}

/// `f` of an exact Python int (within INT64: INT32 when it fits), float
/// (FLOAT32 when it keeps its magnitude), str, bool or bytes as a scalar
/// (text borrowed for the call); `None` for any other value, ints past
/// INT64 included (they wrap: the general path knows how).
pub fn with_exact_scalar<R>(x: &Bound<'_, PyAny>, f: impl FnOnce(ScalarRef<'_>) -> R) -> PyResult<Option<R>> {
    if x.is_exact_instance_of::<PyInt>() {
        return Ok(x.extract::<i64>().ok().map(|v| match i32::try_from(v) {
            Ok(narrow) => f(ScalarRef::Int32(narrow)),
            Err(_) => f(ScalarRef::Int64(v)),
        }));
    }
    if let Ok(float) = x.cast_exact::<PyFloat>() {
        let v = float.value();
        return Ok(Some(if fits_f32(v) { f(ScalarRef::Float32(v as f32)) } else { f(ScalarRef::Float64(v)) }));
    }
    if let Ok(text) = x.cast_exact::<PyString>() {
        return Ok(Some(f(ScalarRef::String(&text.to_cow().map_err(|_| invalid_unicode())?))));
    }
    if x.is_exact_instance_of::<PyBool>() {
        return Ok(Some(f(ScalarRef::Boolean(x.is_truthy()?))));
    }
    if let Ok(bytes) = x.cast_exact::<PyBytes>() {
        return Ok(Some(f(ScalarRef::Bytes(bytes.as_bytes()))));
    }
    Ok(None)
}

/// Python int to i64, wrapping modulo 2**64 past INT64 (seed 000); also
/// whether it wrapped.
fn int_value(x: &Bound<'_, PyAny>) -> PyResult<(i64, bool)> {
    match x.extract::<i64>() {
        Ok(v) => Ok((v, false)),
        Err(_) => {
            let low = x.call_method1("__and__", (u64::MAX,))?;
            Ok((low.extract::<u64>()? as i64, true))
        }
    }
}

/// A Python int leaf: INT32 when it fits, else INT64 (wrapped ints stay INT64).
fn int_leaf(x: &Bound<'_, PyAny>) -> PyResult<(Leaf, i64, Schema)> {
    let (v, wrapped) = int_value(x)?;
    let s = if !wrapped && i32::try_from(v).is_ok() { Schema::Int32 } else { Schema::Int64 };
    Ok((Leaf::Int(s), v, s))
}

/// The schema a numpy scalar keeps, if `x` is one.
fn numpy_scalar_schema(x: &Bound<'_, PyAny>) -> PyResult<Option<Leaf>> {
    let ty = x.get_type();
    if ty.module()?.to_str()? != "numpy" {
        return Ok(None);
    }
    Ok(match ty.name()?.to_str()? {
        "int8" | "int16" | "int32" | "uint8" | "uint16" => Some(Leaf::Int(Schema::Int32)),
        "int64" | "uint32" | "uint64" | "longlong" | "ulonglong" => Some(Leaf::Int(Schema::Int64)),
        "float16" | "float32" => Some(Leaf::Float(Schema::Float32)),
        "float64" | "longdouble" => Some(Leaf::Float(Schema::Float64)),
        "bool" | "bool_" => Some(Leaf::Bool),
        "str_" => Some(Leaf::String),
        "bytes_" => Some(Leaf::Bytes),
        _ => None,
    })
}

/// Pass 1: the kind of every leaf, the numbers, and the common schema.
fn classify<'py>(op: &str, objects: Vec<Bound<'py, PyAny>>) -> PyResult<Leaves<'py>> {
    let mut kinds = Vec::with_capacity(objects.len());
    let mut numbers = Vec::with_capacity(objects.len());
    let mut schema = Schema::None;
    for x in &objects {
        let (kind, number, leaf_schema) = if x.is_exact_instance_of::<PyInt>() {
            int_leaf(x)?
        } else if x.is_exact_instance_of::<PyFloat>() {
            let v = x.cast::<PyFloat>()?.value();
            let s = if fits_f32(v) { Schema::Float32 } else { Schema::Float64 };
            (Leaf::Float(s), v.to_bits() as i64, s)
        } else if x.is_none() {
            (Leaf::Missing, 0, Schema::None)
        } else if x.is_instance_of::<PyString>() {
            (Leaf::String, 0, Schema::String)
        } else if x.is_instance_of::<PyBool>() {
            (Leaf::Bool, 0, Schema::Boolean)
        } else if x.is_instance_of::<PyBytes>() {
            (Leaf::Bytes, 0, Schema::Bytes)
        } else if let Ok(item) = x.cast::<PyDataSlice>() {
            let item = &item.get().inner;
            if !item.is_item() {
                return Err(value_error(op, format!("python object can only contain DataItems, got DataSlice with shape {}", item.shape())));
            }
            (Leaf::Item, 0, item.schema())
        } else if let Some(kind) = numpy_scalar_schema(x)? {
            match kind {
                Leaf::Int(s) => (kind, int_value(&x.call_method0("__int__")?)?.0, s),
                Leaf::Float(s) => (kind, x.extract::<f64>()?.to_bits() as i64, s),
                Leaf::Bool => (kind, 0, Schema::Boolean),
                Leaf::String => (kind, 0, Schema::String),
                _ => (kind, 0, Schema::Bytes),
            }
        } else if x.is_instance_of::<PyInt>() {
            int_leaf(x)?
        } else if x.is_instance_of::<PyFloat>() {
            let v: f64 = x.extract()?;
            let s = if fits_f32(v) { Schema::Float32 } else { Schema::Float64 };
            (Leaf::Float(s), v.to_bits() as i64, s)
        } else {
            return Err(unsupported_type(op, x));
        };
        schema = Schema::common(schema, leaf_schema).ok_or_else(|| no_common_schema(op, &objects))?;
        kinds.push(kind);
        numbers.push(number);
    }
    Ok(Leaves { objects, kinds, numbers, schema })
}

/// Whether a Python float keeps its magnitude in FLOAT32.
pub fn fits_f32(v: f64) -> bool {
    !v.is_finite() || v.abs() <= f32::MAX as f64
}

/// Pass 2: the columns in the result type, then the requested schema.
fn box_leaves(op: &str, shape: JaggedShape, leaves: Vec<Bound<'_, PyAny>>, schema: Option<Schema>) -> PyResult<DataSlice> {
    // Entities, lists and dicts as objects (for ITEMID too: their ids then
    // bring along what they reach, whatever their schemas).
    let leaves = if matches!(schema, Some(Schema::Object | Schema::ItemId)) { entities_as_objects(leaves)? } else { leaves };
    let leaves = classify(op, leaves)?;
    // After the common schema is found, as in Koda: a schema error comes first.
    let bag = leaf_bags(op, &leaves.objects)?;
    let inferred = leaves.schema;
    // A numeric target is built straight from the Python numbers, so each value
    // is rounded once (0.1 with schema=FLOAT64 stays 0.1).
    let build_as = match schema {
        Some(s) if s.is_numeric() && inferred.is_numeric() => s,
        Some(Schema::Object) => Schema::Object,
        _ => inferred,
    };
    let data = if build_as.is_numeric() { numeric_column(op, &leaves, build_as)? } else { generic_data(&leaves)? };
    let built = guard(|| DataSlice::new(shape, data, build_as))?.with_bag(bag);
    match schema {
        Some(s) if s != build_as => guard(|| plait_ops::schema::casts::cast_boxed(op, &built, s, true)),
        _ => Ok(built),
    }
}

/// `kd.slice(x, schema)` / `kd.item(x, schema)` (`item` refusing lists)
/// with any schema item: a struct schema (entity, list, dict) takes the
/// boxed items as ids, reinterpreted as its items, reading the schema's
/// bag too (where its attributes are), but a DataSlice given to `kd.slice`
/// is cast as a whole, as Koda does; other schemas cast.
pub fn box_with_schema(op: &str, x: &Bound<'_, PyAny>, schema: &DataSlice, item: bool) -> PyResult<DataSlice> {
    let target = guard(|| plait_ops::registry::schema_item_arg(op, "schema", schema))?;
    if let (false, true, Ok(ds)) = (item, target.is_struct(), x.cast::<PyDataSlice>()) {
        // A DataSlice given to `kd.slice` is cast as a whole (a DataItem
        // given to `kd.item` is taken as ids, below).
        return guard(|| plait_ops::schema::casts::slice_to_struct(op, &ds.get().inner, schema, target));
    }
    let boxing = if target.is_struct() { Schema::ItemId } else { target };
    let boxed = if item { box_item(op, x, Some(boxing))? } else { box_slice(op, x, Some(boxing))? };
    if !target.is_struct() {
        return Ok(boxed);
    }
    // Ids given as ITEMID reach nothing in their bag (as Koda's extraction).
    let given_ids = x.cast::<PyDataSlice>().is_ok_and(|ds| ds.get().inner.schema() == Schema::ItemId);
    let boxed = if given_ids { boxed.with_bag(None) } else { boxed };
    let bag = plait_core::DataBag::combined(boxed.bag().into_iter().chain(schema.bag()));
    Ok(guard(|| boxed.with_schema(target))?.with_bag(bag))
}

/// Entity DataItems among `leaves` as objects (their schema stored with
/// them, as `kd.obj` does), for a slice of schema OBJECT or ITEMID.
fn entities_as_objects(leaves: Vec<Bound<'_, PyAny>>) -> PyResult<Vec<Bound<'_, PyAny>>> {
    leaves
        .into_iter()
        .map(|leaf| {
            let converted = match leaf.cast::<PyDataSlice>() {
                Ok(item) if item.get().inner.schema().is_struct() => Some(guard(|| plait_ops::objects::create::obj_of(&item.get().inner))?),
                _ => None,
            };
            match converted {
                Some(object) => Ok(crate::py_slice::wrap(leaf.py(), object)?.into_bound(leaf.py())),
                None => Ok(leaf),
            }
        })
        .collect()
}

/// Koda's error for leaves without a common schema (the schemas of all of
/// them are looked at, as Koda does).
fn no_common_schema(op: &str, leaves: &[Bound<'_, PyAny>]) -> PyErr {
    let items: Vec<DataSlice> = leaves.iter().filter_map(|o| o.cast::<PyDataSlice>().ok().map(|ds| ds.get().inner.clone())).collect();
    let schemas: Vec<Schema> = leaves
        .iter()
        .map(|x| match x.cast::<PyDataSlice>() {
            Ok(item) => item.get().inner.schema(),
            Err(_) if x.is_instance_of::<PyBool>() => Schema::Boolean,
            Err(_) if x.is_instance_of::<PyInt>() => int_leaf(x).map_or(Schema::Int64, |leaf| leaf.2),
            Err(_) if x.is_instance_of::<PyFloat>() => Schema::Float32,
            Err(_) if x.is_instance_of::<PyString>() => Schema::String,
            Err(_) if x.is_instance_of::<PyBytes>() => Schema::Bytes,
            Err(_) => Schema::None,
        })
        .collect();
    let bag = plait_core::DataBag::combined(items.iter().filter_map(DataSlice::bag));
    value_error(op, plait_core::bag::text::no_common_schema_among(&schemas, bag.as_ref()))
}

/// The bag of the DataItem leaves (entities, objects): the merge of their
/// bags, which must agree.
fn leaf_bags(op: &str, leaves: &[Bound<'_, PyAny>]) -> PyResult<Option<plait_core::DataBag>> {
    let slices: Vec<Bound<'_, PyDataSlice>> = leaves.iter().filter_map(|l| l.cast::<PyDataSlice>().ok().cloned()).collect();
    let inputs: Vec<&plait_core::DataSlice> = slices.iter().map(|ds| &ds.get().inner).collect();
    guard(|| plait_ops::objects::model::merged_bag_of(op, &inputs))
}

/// The value of a DataItem leaf.
fn item_value<'a>(x: &'a Bound<'_, PyAny>) -> Option<ScalarRef<'a>> {
    // The borrow lives as long as the Python object, which `Leaves` holds.
    x.cast::<PyDataSlice>().ok().and_then(|ds| ds.get().inner.get(0))
}

/// All leaves numeric (or missing): one column of `target`.
fn numeric_column(op: &str, leaves: &Leaves<'_>, target: Schema) -> PyResult<SliceData> {
    let n = leaves.kinds.len();
    let mut presence = BooleanBufferBuilder::new(n);
    let mut missing = 0usize;
    let mut ints: Vec<i64> = Vec::new();
    let mut floats: Vec<f64> = Vec::new();
    let all_ints = leaves.kinds.iter().all(|k| matches!(k, Leaf::Int(_) | Leaf::Missing | Leaf::Item)) && target.is_integer();
    for (k, (kind, &number)) in leaves.kinds.iter().zip(&leaves.numbers).enumerate() {
        let (int, float, present) = match kind {
            Leaf::Int(_) => (number, number as f64, true),
            Leaf::Float(_) => (0, f64::from_bits(number as u64), true),
            Leaf::Missing => (0, 0.0, false),
            Leaf::Item => match item_value(&leaves.objects[k]) {
                Some(ScalarRef::Int32(v)) => (v as i64, v as f64, true),
                Some(ScalarRef::Int64(v)) => (v, v as f64, true),
                Some(ScalarRef::Float32(v)) => (0, v as f64, true),
                Some(ScalarRef::Float64(v)) => (0, v, true),
                _ => (0, 0.0, false),
            },
            _ => unreachable!("non-numeric leaf under a numeric schema"),
        };
        presence.append(present);
        missing += usize::from(!present);
        if all_ints { ints.push(int) } else { floats.push(float) }
    }
    let presence = (missing > 0).then(|| NullBuffer::new(presence.finish()));
    let values = if all_ints {
        match target {
            Schema::Int64 => Values::Int64(ScalarBuffer::from(ints)),
            _ => {
                let mut narrow = Vec::with_capacity(n);
                for (k, &v) in ints.iter().enumerate() {
                    match i32::try_from(v) {
                        Ok(v) => narrow.push(v),
                        Err(_) if presence.as_ref().is_some_and(|p| p.is_null(k)) => narrow.push(0),
                        Err(_) => {
                            return Err(value_error(op, format!("cannot cast int64{{{v}}} to int32")));
                        }
                    }
                }
                Values::Int32(ScalarBuffer::from(narrow))
            }
        }
    } else {
        let column = Column::new(Values::Float64(ScalarBuffer::from(floats)), presence.clone());
        if target == Schema::Float64 {
            return Ok(SliceData::from_column(column));
        }
        if target == Schema::Float32 {
            let values = match &column.values {
                Values::Float64(v) => v.iter().map(|&x| x as f32).collect::<Vec<_>>(),
                _ => unreachable!(),
            };
            Values::Float32(ScalarBuffer::from(values))
        } else {
            // Floats asked to become integers: the explicit cast checks each one.
            let ds = guard(|| DataSlice::new(JaggedShape::flat(n), SliceData::from_column(column), Schema::Float64))?;
            let cast = guard(|| plait_core::cast::cast_to(op, &ds, target))?;
            return Ok(cast.data().clone());
        }
    };
    Ok(SliceData::from_column(Column::new(values, presence)))
}

/// Any leaves: one column per item type (the OBJECT layout, or a single column
/// when all share one type).
fn generic_data(leaves: &Leaves<'_>) -> PyResult<SliceData> {
    if let Some(data) = text_data(leaves)? {
        return Ok(data);
    }
    let mut builder = SliceBuilder::new();
    for (k, (kind, &number)) in leaves.kinds.iter().zip(&leaves.numbers).enumerate() {
        let x = &leaves.objects[k];
        match kind {
            Leaf::Missing => builder.push(None),
            Leaf::Int(Schema::Int32) => builder.push(Some(ScalarRef::Int32(number as i32))),
            Leaf::Int(_) => builder.push(Some(ScalarRef::Int64(number))),
            Leaf::Float(Schema::Float32) => builder.push(Some(ScalarRef::Float32(f64::from_bits(number as u64) as f32))),
            Leaf::Float(_) => builder.push(Some(ScalarRef::Float64(f64::from_bits(number as u64)))),
            Leaf::Bool => builder.push(Some(ScalarRef::Boolean(x.is_truthy()?))),
            Leaf::Bytes => {
                let bytes = bytes_of(x)?;
                builder.push(Some(ScalarRef::Bytes(&bytes)));
            }
            Leaf::String => {
                let text = text_of(x)?;
                builder.push(Some(ScalarRef::String(&text)));
            }
            Leaf::Item => builder.push(item_value(x)),
        }
    }
    Ok(builder.finish())
}

/// Leaves that are all text (or missing) as one column, written straight
/// into its buffer (`None` for any other leaves).
fn text_data(leaves: &Leaves<'_>) -> PyResult<Option<SliceData>> {
    let dtype = match leaves.schema {
        Schema::String => Schema::String,
        Schema::Bytes => Schema::Bytes,
        _ => return Ok(None),
    };
    let leaf = if dtype == Schema::String { Leaf::String } else { Leaf::Bytes };
    if !leaves.kinds.iter().all(|k| *k == leaf || *k == Leaf::Missing) {
        return Ok(None);
    }
    let mut column = ColumnBuilder::new(dtype, leaves.kinds.len());
    for (kind, x) in leaves.kinds.iter().zip(&leaves.objects) {
        match kind {
            Leaf::Missing => column.push_missing(),
            Leaf::String => column.push(ScalarRef::String(&text_of(x)?)),
            _ => column.push(ScalarRef::Bytes(&bytes_of(x)?)),
        }
    }
    Ok(Some(SliceData::from_column(column.finish())))
}

/// The text of a str (or numpy str_) leaf, borrowed when it is a real str.
fn text_of<'a>(x: &'a Bound<'_, PyAny>) -> PyResult<std::borrow::Cow<'a, str>> {
    match x.cast::<PyString>() {
        Ok(s) => s.to_cow().map_err(|_| invalid_unicode()),
        Err(_) => Ok(std::borrow::Cow::Owned(x.str()?.to_cow().map_err(|_| invalid_unicode())?.into_owned())),
    }
}

/// The bytes of a bytes (or numpy bytes_) leaf, borrowed when it is real bytes.
fn bytes_of<'a>(x: &'a Bound<'_, PyAny>) -> PyResult<std::borrow::Cow<'a, [u8]>> {
    match x.cast::<PyBytes>() {
        Ok(b) => Ok(std::borrow::Cow::Borrowed(b.as_bytes())),
        Err(_) => Ok(std::borrow::Cow::Owned(x.extract::<Vec<u8>>()?)),
    }
}
