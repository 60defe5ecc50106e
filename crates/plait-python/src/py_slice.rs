//! The Python classes `DataSlice` and `DataItem` (a DataSlice of rank 0), and
//! the `.S` (subslicing) and `.L` (first-dimension iteration) helpers.
//!
//! Python's container protocols follow Koda: a DataItem holding a list
//! iterates over (and counts, and searches) its items, one holding a dict
//! over its keys; any other DataItem, and every DataSlice of rank > 0, is
//! neither iterable nor sized (TypeError). `ds[i]` never makes a slice
//! iterable: the classes are mappings to Python, so it does not fall back
//! to calling `ds[0]`, `ds[1]`, ... (which would never stop: a list item
//! past the end is missing, not an IndexError).

use plait_core::subslice::{SliceArg, subslice};
use plait_core::{DataSlice, ScalarRef, Schema};
use plait_ops::objects::{dicts, lists};
use pyo3::prelude::*;
use pyo3::types::{PySlice, PyTuple};

use crate::errors::{guard, type_error, value_error};
use crate::py_shape::PyJaggedShape;
use crate::unboxing::to_py;

/// A multidimensional jagged array of items with a schema.
#[pyclass(name = "DataSlice", module = "plait.types", subclass, frozen, mapping, weakref)]
pub struct PyDataSlice {
    pub inner: DataSlice,
}

/// A DataSlice of rank 0: a single item.
#[pyclass(name = "DataItem", module = "plait.types", extends = PyDataSlice, subclass, frozen)]
pub struct PyDataItem;

/// A DataItem holding a list (`kd.list([1, 2])`), as Koda's `ListItem`.
#[pyclass(name = "ListItem", module = "plait.types", extends = PyDataItem, frozen)]
pub struct PyListItem;

/// A DataItem holding a dict (`kd.dict({'a': 1})`), as Koda's `DictItem`.
#[pyclass(name = "DictItem", module = "plait.types", extends = PyDataItem, frozen)]
pub struct PyDictItem;

/// A DataItem of schema SCHEMA (`kd.INT32`, `kd.named_schema('x')`), as
/// Koda's `SchemaItem`.
#[pyclass(name = "SchemaItem", module = "plait.types", extends = PyDataItem, frozen)]
pub struct PySchemaItem;

/// Wraps a slice as the Python class Koda gives it: `DataSlice` for rank > 0;
/// for an item, `SchemaItem` when its schema is SCHEMA, `ListItem` / `DictItem`
/// when it holds a list / dict id (whatever its schema: OBJECT, ITEMID, ...),
/// else `DataItem`.
pub fn wrap(py: Python<'_>, ds: DataSlice) -> PyResult<Py<PyAny>> {
    if !ds.is_item() {
        return Ok(Py::new(py, PyDataSlice { inner: ds })?.into_any());
    }
    let kind = match (ds.schema(), ds.get(0)) {
        (Schema::Schema, _) => ItemClass::Schema,
        (_, Some(ScalarRef::ItemId(id))) if id.is_list() => ItemClass::List,
        (_, Some(ScalarRef::ItemId(id))) if id.is_dict() => ItemClass::Dict,
        _ => ItemClass::Plain,
    };
    let item = PyClassInitializer::from(PyDataSlice { inner: ds }).add_subclass(PyDataItem);
    Ok(match kind {
        ItemClass::Plain => Py::new(py, item)?.into_any(),
        ItemClass::List => Py::new(py, item.add_subclass(PyListItem))?.into_any(),
        ItemClass::Dict => Py::new(py, item.add_subclass(PyDictItem))?.into_any(),
        ItemClass::Schema => Py::new(py, item.add_subclass(PySchemaItem))?.into_any(),
    })
}

/// Which Python class `wrap` gives an item.
enum ItemClass {
    Plain,
    List,
    Dict,
    Schema,
}

/// A repr capped in length, for error messages.
pub fn short_repr(ds: &DataSlice) -> String {
    let mut text = plait_core::repr::repr_slice(ds);
    if text.len() > 200 {
        let cut = (0..=200).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
        text.truncate(cut);
        text.push_str("...");
    }
    text
}

#[pymethods]
impl PyDataSlice {
    fn __repr__(&self) -> PyResult<String> {
        guard(|| Ok(plait_core::repr::repr_slice(&self.inner)))
    }

    fn __str__(&self) -> PyResult<String> {
        guard(|| Ok(plait_core::repr::format_items(&self.inner)))
    }

    /// `f"{x}"` is `str(x)`; `f"{x:spec}"` writes a field that `kd.fstr`
    /// formats with `spec` (`s` for the default form).
    fn __format__(&self, spec: &str) -> PyResult<String> {
        guard(|| {
            if spec.is_empty() { Ok(plait_core::repr::format_items(&self.inner)) } else { Ok(plait_ops::strings::format::stash(&self.inner, spec)) }
        })
    }

    /// The shape of this slice.
    fn get_shape(&self) -> PyJaggedShape {
        PyJaggedShape { inner: self.inner.shape().clone() }
    }

    /// The schema of this slice, as a schema DataItem.
    fn get_schema(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        wrap(py, guard(|| plait_ops::schema::get_schema(&self.inner))?)
    }

    /// The number of dimensions.
    fn get_ndim(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        int64_item(py, self.inner.rank() as i64)
    }

    /// The number of items, present or missing.
    fn get_size(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        int64_item(py, self.inner.size() as i64)
    }

    /// The number of present items.
    fn get_present_count(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        int64_item(py, self.inner.present_count() as i64)
    }

    /// DataItems hash by schema and value; multi-dimensional slices are
    /// unhashable (as in Koda).
    fn __hash__(&self) -> PyResult<u64> {
        use std::hash::{Hash, Hasher};
        if !self.inner.is_item() {
            return Err(pyo3::exceptions::PyTypeError::new_err("unhashable type: 'DataSlice'"));
        }
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.inner.schema().hash(&mut h);
        match self.inner.get(0) {
            None => 0u8.hash(&mut h),
            Some(ScalarRef::Int32(v)) => v.hash(&mut h),
            Some(ScalarRef::Int64(v)) => v.hash(&mut h),
            Some(ScalarRef::Float32(v)) => v.to_bits().hash(&mut h),
            Some(ScalarRef::Float64(v)) => v.to_bits().hash(&mut h),
            Some(ScalarRef::Boolean(v)) => v.hash(&mut h),
            Some(ScalarRef::Mask) => 1u8.hash(&mut h),
            Some(ScalarRef::Bytes(v)) => v.hash(&mut h),
            Some(ScalarRef::String(v)) => v.hash(&mut h),
            Some(ScalarRef::Schema(v)) => v.hash(&mut h),
            Some(ScalarRef::ItemId(v)) => v.hash(&mut h),
            Some(ScalarRef::Expr(v)) => v.fingerprint().hash(&mut h),
        }
        // Python reserves -1 (u64::MAX) as an error marker.
        Ok(h.finish() >> 1)
    }

    /// A fingerprint of this very slice, as `_identical` compares slices:
    /// schema, shape, items (ids as they are) and the bag's identity (what
    /// `kd.testing.assert_equal` reports; `fingerprint` is by content).
    fn _identity_fingerprint(&self) -> crate::py_fingerprint::PyFingerprint {
        let x = &self.inner;
        let mut h = plait_core::itemid::UuidHasher::new("DataSlice.identity");
        h.write_str(&format!("{:?}|{}", x.schema(), x.shape()));
        for i in 0..x.size() {
            h.write_str(&format!("|{:?}", x.get(i)));
        }
        if let Some(bag) = x.bag() {
            h.write_bytes(&bag.id().to_le_bytes());
        }
        crate::py_fingerprint::PyFingerprint(h.finish())
    }

    /// Whether `other` is this very slice: the same schema, shape and items
    /// (ids as they are) reading the same bag (`kd.testing.assert_equal`).
    fn _identical(&self, other: PyRef<'_, PyDataSlice>) -> bool {
        let (a, b) = (&self.inner, &other.inner);
        let same_item = |i: usize| match (a.get(i), b.get(i)) {
            // NaN is itself here: the same bits are the same item.
            (Some(ScalarRef::Float32(x)), Some(ScalarRef::Float32(y))) => x.to_bits() == y.to_bits(),
            (Some(ScalarRef::Float64(x)), Some(ScalarRef::Float64(y))) => x.to_bits() == y.to_bits(),
            (x, y) => x == y,
        };
        a.schema() == b.schema()
            && a.shape() == b.shape()
            && a.bag().map(|bag| bag.id()) == b.bag().map(|bag| bag.id())
            && (0..a.size()).all(same_item)
    }

    /// Koda's report of how this slice and `expected` differ in what they
    /// hold (None when equivalent), for `kd.testing.assert_equivalent`.
    fn _difference_report(
        &self,
        expected: PyRef<'_, PyDataSlice>,
        partial: bool,
        schemas_equality: bool,
        ids_equality: bool,
    ) -> PyResult<Option<String>> {
        let options = plait_ops::objects::equivalence::Options { partial, schemas: schemas_equality, ids: ids_equality };
        guard(|| plait_ops::objects::equivalence::difference_report(&self.inner, &expected.inner, options))
    }

    /// A number equal for slices of equal content: schema, shape and
    /// values, with entities, objects, lists and dicts counted by what is
    /// reachable from them (so a functor keeps it when saved and loaded,
    /// and has the same one when traced in another process).
    #[getter]
    fn fingerprint(&self) -> PyResult<crate::py_fingerprint::PyFingerprint> {
        guard(|| plait_ops::objects::fingerprint::fingerprint(&self.inner)).map(crate::py_fingerprint::PyFingerprint)
    }

    /// Whether this is a DataItem.
    fn is_item(&self) -> bool {
        self.inner.is_item()
    }

    /// Whether `to_py` of this slice is [`Self::to_py`] (no lists, dicts,
    /// entities or objects to walk): the Python `to_py` asks first.
    fn _converts_natively(&self) -> bool {
        !matches!(self.inner.schema(), Schema::Object | Schema::Struct(_)) || self.inner.bag().is_none()
    }

    /// Nested Python lists of Python values.
    fn to_py(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &self.inner)
    }

    /// Same as `to_py` (Koda's internal name).
    fn internal_as_py(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &self.inner)
    }

    /// Reinterprets the items as `schema` without converting them.
    fn with_schema(&self, py: Python<'_>, schema: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let schema = crate::boxing::box_slice("kd.schema.with_schema", schema, None)?;
        wrap(py, guard(|| plait_ops::objects::schemas::with_schema(&self.inner, &schema))?)
    }

    /// Subslicing helper: `x.S[1, 2:]`.
    #[getter(S)]
    fn s(&self) -> SlicingHelper {
        SlicingHelper { inner: self.inner.clone() }
    }

    /// The items of the first dimension, as a sequence: `for row in x.L`.
    #[getter(L)]
    fn l(&self, py: Python<'_>) -> PyResult<ListView> {
        if self.inner.is_item() {
            return Err(value_error("DataSlice.L", "DataSlice must have at least one dimension to iterate."));
        }
        let _ = py;
        Ok(ListView { inner: self.inner.clone() })
    }

    /// `bool(x)`: only for a MASK item (or a NONE / OBJECT item holding a mask
    /// or nothing), as Koda; `kd.present` is true, missing is false. A
    /// DataSlice of any rank above 0 is a TypeError, as Koda (use kd.all or
    /// kd.any).
    fn __bool__(&self) -> PyResult<bool> {
        let ds = &self.inner;
        if !ds.is_item() {
            return Err(pyo3::exceptions::PyTypeError::new_err("__bool__ disabled for plait.types.DataSlice"));
        }
        match (ds.schema(), ds.get(0)) {
            (Schema::Mask | Schema::None | Schema::Object, None) => Ok(false),
            (Schema::Mask | Schema::Object, Some(ScalarRef::Mask)) => Ok(true),
            _ => Err(value_error(
                "DataItem.__bool__",
                format!(
                    "cannot cast a non-MASK DataItem to bool. For BOOLEAN, explicit conversion to MASK (e.g. ds == True) is needed; got {}",
                    short_repr(ds)
                ),
            )),
        }
    }
}

/// What a DataItem holds, for Python's container protocols.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Container {
    List,
    Dict,
}

/// The list or dict a DataItem holds (as Koda tells a ListItem / DictItem
/// by the item itself, whatever its schema: LIST, DICT or OBJECT; an
/// ITEMID is an id, not a container).
pub(crate) fn container(ds: &DataSlice) -> Option<Container> {
    if !ds.is_item() || ds.schema() == Schema::ItemId {
        return None;
    }
    match ds.get(0) {
        Some(ScalarRef::ItemId(id)) if id.is_list() => Some(Container::List),
        Some(ScalarRef::ItemId(id)) if id.is_dict() => Some(Container::Dict),
        _ => None,
    }
}

/// The TypeError of a protocol the DataItem `x` does not support: Python's
/// own text (`text`, with the class name for `{}`), then why.
fn protocol_error(x: &Bound<'_, PyDataItem>, text: &str) -> PyErr {
    let class = x.get_type().fully_qualified_name().map(|n| n.to_string()).unwrap_or_else(|_| "DataItem".to_string());
    let item = short_repr(&x.as_super().get().inner);
    pyo3::exceptions::PyTypeError::new_err(format!("{}; only a DataItem holding a list or a dict is, got {item}", text.replace("{}", &class)))
}

/// `iter(x)` of a list or dict DataItem: one DataItem per item (or key),
/// made as they are asked for.
#[pyclass(name = "DataItemIterator", module = "plait.types")]
pub struct ItemIterator {
    /// The items (or keys), a DataSlice of rank 1.
    items: DataSlice,
    next: usize,
    /// Whether `items` are a dict's keys: as in Koda, a primitive key comes
    /// as a plain value (its own schema, no bag).
    keys: bool,
}

#[pymethods]
impl ItemIterator {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        if self.next >= self.items.size() {
            return Ok(None);
        }
        let i = self.next as i64;
        self.next += 1;
        let keys = self.keys;
        let item = guard(|| {
            let item = subslice(&self.items, &[SliceArg::Index(i)])?;
            match item.get(0) {
                Some(ScalarRef::ItemId(_)) | None => Ok(item),
                Some(_) if keys => Ok(item.with_schema(item.narrowed_schema())?.with_bag(None)),
                Some(_) => Ok(item),
            }
        })?;
        wrap(py, item).map(Some)
    }

    fn __length_hint__(&self) -> usize {
        self.items.size().saturating_sub(self.next)
    }
}

/// Python's number protocols, on DataItems: `[1, 2, 3][kd.item(1)]`,
/// `int(x)`, `float(x)` as Koda gives them.
#[pymethods]
impl PyDataItem {
    /// `seq[x]`, `range(x)`: a present INT32 or INT64 item is a Python index.
    fn __index__(slf: &Bound<'_, Self>) -> PyResult<i64> {
        let ds = &slf.as_super().get().inner;
        match (ds.schema(), ds.get(0)) {
            (Schema::Int32 | Schema::Int64, Some(ScalarRef::Int32(v))) => Ok(v as i64),
            (Schema::Int32 | Schema::Int64, Some(ScalarRef::Int64(v))) => Ok(v),
            _ => Err(value_error(
                "DataItem.__index__",
                format!("only INT32/INT64 DataItem can be used for indexing Python objects, got {}", plait_core::repr::repr_slice(ds)),
            )),
        }
    }

    /// `int(x)`: Python's `int` of the item's value (`int(kd.item('3'))` is 3).
    fn __int__(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        let value = Self::python_value(slf)?;
        Ok(slf.py().get_type::<pyo3::types::PyInt>().call1((value,))?.unbind())
    }

    /// `float(x)`: Python's `float` of the item's value.
    fn __float__(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        let value = Self::python_value(slf)?;
        Ok(slf.py().get_type::<pyo3::types::PyFloat>().call1((value,))?.unbind())
    }
}

impl PyDataItem {
    /// The item's `to_py()`: a number, text or bytes directly; anything
    /// else (entities, lists, ...) through the full conversion.
    fn python_value(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        match slf.as_super().get().inner.get(0) {
            value @ (None
            | Some(
                ScalarRef::Int32(_)
                | ScalarRef::Int64(_)
                | ScalarRef::Float32(_)
                | ScalarRef::Float64(_)
                | ScalarRef::Boolean(_)
                | ScalarRef::String(_)
                | ScalarRef::Bytes(_),
            )) => crate::unboxing::item_to_py(slf.py(), value),
            _ => Ok(slf.call_method0("to_py")?.unbind()),
        }
    }
}

/// Python's container protocols, on DataItems holding lists or dicts.
#[pymethods]
impl PyDataItem {
    /// `iter(x)`: the items of a list, the keys of a dict (in the order
    /// `kd.get_keys` gives), as DataItems; TypeError for any other item.
    fn __iter__(slf: &Bound<'_, Self>) -> PyResult<ItemIterator> {
        let ds = &slf.as_super().get().inner;
        let (items, keys) = match container(ds) {
            Some(Container::List) => (guard(|| lists::explode(ds, 1))?, false),
            Some(Container::Dict) => (guard(|| dicts::get_keys(ds))?, true),
            None => return Err(protocol_error(slf, "'{}' object is not iterable")),
        };
        Ok(ItemIterator { items, next: 0, keys })
    }

    /// `len(x)`: the size of a list or a dict; TypeError for any other item.
    fn __len__(slf: &Bound<'_, Self>) -> PyResult<usize> {
        let ds = &slf.as_super().get().inner;
        let sizes = match container(ds) {
            Some(Container::List) => guard(|| lists::size(ds))?,
            Some(Container::Dict) => guard(|| dicts::size(ds))?,
            None => return Err(protocol_error(slf, "object of type '{}' has no len()")),
        };
        Ok(match sizes.get(0) {
            Some(ScalarRef::Int64(n)) => n as usize,
            _ => 0,
        })
    }

    /// `key in x`: for a list, whether an item equals `key` (`kd.isin`,
    /// so `key` must be a DataItem); for a dict, whether a value is present
    /// for `key` (for any of the keys, when `key` is a DataSlice). TypeError
    /// for any other item.
    fn __contains__(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        let ds = &slf.as_super().get().inner;
        let kind = container(ds).ok_or_else(|| protocol_error(slf, "argument of type '{}' is not iterable"))?;
        let op = if kind == Container::List { "kd.slices.isin" } else { "kd.dicts.get_item" };
        let key = match crate::py_operator::value_arg(op, key)? {
            plait_ops::registry::Value::Slice(key) => key,
            other => return Err(type_error(op, format!("expected a DataSlice, got {}", other.describe()))),
        };
        guard(|| {
            let found = match kind {
                Container::List => plait_ops::slices::isin(&key, &lists::explode(ds, 1)?)?,
                Container::Dict => dicts::get_item(ds, &key)?,
            };
            Ok(found.present_count() > 0)
        })
    }

    /// `reversed(x)`: refused, as in Koda (a list's items are `x[:]`).
    fn __reversed__(slf: &Bound<'_, Self>) -> PyResult<()> {
        let class = slf.get_type().fully_qualified_name()?;
        Err(pyo3::exceptions::PyTypeError::new_err(format!("'{class}' object is not reversible")))
    }
}

/// A schema constant (`kd.INT32`, ...) as a DataItem.
pub fn schema_item(py: Python<'_>, schema: Schema) -> PyResult<Py<PyAny>> {
    wrap(py, guard(|| DataSlice::item(Some(ScalarRef::Schema(schema)), Schema::Schema))?)
}

/// An INT64 DataItem (Koda returns sizes and ranks as INT64 items).
pub fn int64_item(py: Python<'_>, v: i64) -> PyResult<Py<PyAny>> {
    wrap(py, guard(|| DataSlice::item(Some(ScalarRef::Int64(v)), Schema::Int64))?)
}

/// `x.S`: indexes dimensions left to right (see `kd.subslice`). Not
/// iterable (a mapping to Python: indexes past the end are missing items,
/// so `ds.S[0]`, `ds.S[1]`, ... would never stop).
#[pyclass(module = "plait.types", frozen, mapping)]
pub struct SlicingHelper {
    inner: DataSlice,
}

/// Whether a Python slice's step is absent or 1 (an int or an integer
/// item; not True, which Koda refuses).
pub fn unit_step(range: &Bound<'_, PySlice>) -> PyResult<bool> {
    let step = range.getattr("step")?;
    Ok(step.is_none() || (!step.is_instance_of::<pyo3::types::PyBool>() && step.extract::<i64>().is_ok_and(|s| s == 1)))
}

/// Refuses a Python slice whose step is neither absent nor 1 (`x.L[a:b]`,
/// a list item's `l[a:b]`), with Koda's text.
pub fn check_unit_step(range: &Bound<'_, PySlice>) -> PyResult<()> {
    if unit_step(range)? {
        return Ok(());
    }
    Err(pyo3::exceptions::PyValueError::new_err("Slice with step != 1 is not supported"))
}

/// Turns Python subscript keys into subslice arguments, boxed as the
/// keys of `kd.subslice` are.
pub fn slice_args(op: &str, keys: &[Bound<'_, PyAny>]) -> PyResult<Vec<SliceArg>> {
    keys.iter()
        .enumerate()
        .map(|(position, key)| {
            // A plain int indexes without boxing (not a bool: Koda refuses
            // BOOLEAN indices).
            if key.is_exact_instance_of::<pyo3::types::PyInt>() {
                if let Ok(i) = key.extract() {
                    return Ok(SliceArg::Index(i));
                }
            }
            let value = crate::py_operator::key_arg(op, key, Some(position))?;
            guard(|| plait_ops::slices::subslice::key(op, position, &value))
        })
        .collect()
}

#[pymethods]
impl SlicingHelper {
    fn __getitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let keys: Vec<Bound<'_, PyAny>> = match key.cast::<PyTuple>() {
            Ok(t) => t.iter().collect(),
            Err(_) => vec![key.clone()],
        };
        let args = slice_args("kd.slices.subslice", &keys)?;
        wrap(py, guard(|| subslice(&self.inner, &args))?)
    }
}

/// `x.L`: the rows of the first dimension (DataItems for a 1-D slice).
#[pyclass(module = "plait.types", frozen, sequence)]
pub struct ListView {
    inner: DataSlice,
}

impl ListView {
    /// Row `i` (negative counts from the end); out of range, a missing
    /// row (as Koda, the rest of the shape with no items).
    fn row(&self, i: i64) -> plait_core::Result<DataSlice> {
        let mut args = vec![SliceArg::Index(i)];
        if self.inner.rank() > 1 {
            args.push(SliceArg::Ellipsis);
        }
        subslice(&self.inner, &args)
    }
}

#[pymethods]
impl ListView {
    fn __len__(&self) -> usize {
        self.inner.shape().size_at(1)
    }

    /// `x.L[i]` (a row) or `x.L[start:stop]` (the rows as a DataSlice of
    /// x's rank, as Python slices lists).
    fn __getitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let n = self.__len__() as isize;
        if let Ok(range) = key.cast::<PySlice>() {
            check_unit_step(range)?;
            let bounds = range.indices(n)?;
            let (start, stop) = (bounds.start as i64, (bounds.stop as i64).max(bounds.start as i64));
            let item = |i: i64| guard(|| DataSlice::item(Some(ScalarRef::Int64(i)), Schema::Int64));
            let mut args = vec![SliceArg::range(Some(item(start)?), Some(item(stop)?))];
            if self.inner.rank() > 1 {
                args.push(SliceArg::Ellipsis);
            }
            return wrap(py, guard(|| subslice(&self.inner, &args))?);
        }
        let Ok(i) = key.extract::<i64>() else {
            return Err(value_error("DataSlice.L", "cannot get items from list(s): expected indices to be integers"));
        };
        wrap(py, guard(|| self.row(i))?)
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let rows: Vec<Py<PyAny>> = (0..slf.__len__() as i64).map(|i| wrap(py, guard(|| slf.row(i))?)).collect::<PyResult<_>>()?;
        Ok(pyo3::types::PyList::new(py, rows)?.call_method0("__iter__")?.unbind())
    }
}
