//! The Python `DataBag` class, and the DataSlice methods that involve bags
//! and attributes (`ds.x`, `ds.x = v`, `get_bag`, `with_attrs`, ...).

use plait_core::bag::text::schema_text;
use plait_core::{DataBag, DataSlice, Schema};
use plait_ops::objects::{access, containers, create, lists, update};
use pyo3::exceptions::PyAttributeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::boxing::box_item;
use crate::errors::guard;
use crate::py_slice::{PyDataSlice, wrap};

/// A store of attributes of entities and objects.
#[pyclass(name = "DataBag", module = "plait.types", frozen, weakref)]
pub struct PyDataBag {
    pub inner: DataBag,
}

/// A Python value as a DataSlice (DataSlices as they are, scalars boxed).
fn as_slice(op: &str, x: &Bound<'_, PyAny>) -> PyResult<DataSlice> {
    if let Ok(ds) = x.cast::<PyDataSlice>() {
        return Ok(ds.get().inner.clone());
    }
    box_item(op, x, None)
}

/// `**kwargs` as (name, DataSlice) pairs.
fn named(op: &str, kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<(String, DataSlice)>> {
    let mut out = Vec::new();
    if let Some(kwargs) = kwargs {
        for (k, v) in kwargs.iter() {
            out.push((k.extract::<String>()?, as_slice(op, &v)?));
        }
    }
    Ok(out)
}

/// A plait error raised as `AttributeError` (attribute access from Python).
fn attribute_error(e: plait_core::Error) -> PyErr {
    PyAttributeError::new_err(e.message)
}

#[pymethods]
impl PyDataBag {
    fn __repr__(&self) -> String {
        let bag = &self.inner;
        let st = bag.stats();
        if st.entities + st.schemas + st.lists + st.dicts == 0 {
            return format!("DataBag(empty, {})", bag.short_id());
        }
        let mut out = format!("DataBag {}:\n", bag.short_id());
        out.push_str(&format!("  {} Entities/Objects with {} values in {} attrs\n", st.entities, st.entity_values, st.attrs.len()));
        out.push_str(&format!("  {} non empty Lists with {} items\n", st.lists, st.list_items));
        out.push_str(&format!("  {} non empty Dicts with {} key/value entries\n", st.dicts, st.dict_entries));
        out.push_str(&format!("  {} schemas with {} values\n\nTop attrs:\n", st.schemas, st.schema_values));
        let top: Vec<String> = st.attrs.iter().take(5).map(|(name, count)| format!("  {name}: {count} values")).collect();
        out.push_str(&top.join("\n"));
        out
    }

    /// Every (item, attribute, value) of the bag's own contents.
    fn contents_repr(&self) -> String {
        let mut out = format!("DataBag {}:\n", self.inner.short_id());
        for (id, name, value) in self.inner.own_triples() {
            let mut text = String::new();
            let item = value.as_ref().map(|v| v.as_ref());
            match item {
                Some(plait_core::ScalarRef::Schema(s)) => text.push_str(&schema_text(s, Some(&self.inner))),
                _ => plait_core::repr::write_item(&mut text, item, Schema::Object, false),
            }
            out.push_str(&format!("{}.{name} => {text}\n", id.short()));
        }
        for (id, key, value) in self.inner.own_dict_entries() {
            let mut key_text = String::new();
            plait_core::repr::write_item(&mut key_text, Some(key.as_ref()), Schema::Object, true);
            let mut text = String::new();
            plait_core::repr::write_item(&mut text, value.as_ref().map(|v| v.as_ref()), Schema::Object, false);
            out.push_str(&format!("{}[{key_text}] => {text}\n", id.short()));
        }
        out
    }

    /// `kd.present` when the bag is mutable (a MASK item, as in Koda).
    fn is_mutable(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        crate::functions::mask_item(py, self.inner.is_mutable())
    }

    /// Bytes of the values held in the bag's own dense attribute columns
    /// (not its fallbacks); for the memory figures of `bench/`.
    fn _dense_bytes(&self) -> usize {
        self.inner.dense_bytes()
    }

    /// A mutable copy (O(1), copy-on-write).
    #[pyo3(signature = (mutable = true))]
    fn fork(&self, mutable: bool) -> PyDataBag {
        PyDataBag { inner: self.inner.fork(mutable) }
    }

    /// An immutable copy (O(1)).
    fn freeze(&self) -> PyDataBag {
        PyDataBag { inner: self.inner.fork(false) }
    }

    /// `a << b`: a bag reading `b` first, then `a` (`kd.updated_bag(a, b)`).
    fn __lshift__(&self, other: PyRef<'_, PyDataBag>) -> PyDataBag {
        PyDataBag { inner: DataBag::updated(&self.inner, std::slice::from_ref(&other.inner)) }
    }

    /// `a >> b`: a bag reading `a` first, then `b` (`kd.enriched_bag(a, b)`).
    fn __rshift__(&self, other: PyRef<'_, PyDataBag>) -> PyDataBag {
        PyDataBag { inner: DataBag::enriched(&[self.inner.clone(), other.inner.clone()]) }
    }

    /// An immutable copy with the fallbacks merged in (one layer).
    fn merged(&self) -> PyResult<PyDataBag> {
        Ok(PyDataBag { inner: self.inner.merged() })
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyDataBag>().is_ok_and(|o| o.get().inner == self.inner)
    }

    fn __hash__(&self) -> u64 {
        self.inner.id() >> 1
    }

    /// Entities created in this (mutable) bag: `bag.new(x=1)`.
    #[allow(clippy::new_ret_no_self, clippy::wrong_self_convention)]
    #[pyo3(signature = (**attrs))]
    fn new(&self, py: Python<'_>, attrs: Option<&Bound<'_, PyDict>>) -> PyResult<Py<PyAny>> {
        let attrs = self.left_off(named("kd.entities.new", attrs)?);
        let made = guard(|| create::new(&attrs, create::SchemaArg::Fresh, false, None, None))?;
        self.adopt(py, made)
    }

    /// Objects created in this (mutable) bag: `bag.obj(x=1)`.
    #[pyo3(signature = (**attrs))]
    fn obj(&self, py: Python<'_>, attrs: Option<&Bound<'_, PyDict>>) -> PyResult<Py<PyAny>> {
        let attrs = self.left_off(named("kd.objs.new", attrs)?);
        let made = guard(|| create::obj(&attrs, None, None))?;
        self.adopt(py, made)
    }
}

impl PyDataBag {
    /// The values with this bag left off where they hold it: their data is
    /// here already, so what is made from them need not bring it along
    /// (building a chain with `bag.obj(next=x)` stays linear).
    fn left_off(&self, attrs: Vec<(String, DataSlice)>) -> Vec<(String, DataSlice)> {
        attrs.into_iter().map(|(name, v)| if v.bag() == Some(&self.inner) { (name, v.with_bag(None)) } else { (name, v) }).collect()
    }

    /// `made` moved into this bag (its contents merged in).
    fn adopt(&self, py: Python<'_>, made: DataSlice) -> PyResult<Py<PyAny>> {
        guard(|| {
            if let Some(bag) = made.bag() {
                self.inner.merge_from("kd.bag.new", bag, plait_core::bag::OnConflict::Raise)?;
            }
            Ok(())
        })?;
        wrap(py, made.with_bag(Some(self.inner.clone())))
    }
}

#[pymethods]
impl PyDataSlice {
    /// `ds.x`: the attribute `x` (AttributeError when it cannot be read).
    fn __getattr__(&self, py: Python<'_>, name: &str) -> PyResult<Py<PyAny>> {
        if name.starts_with('_') {
            return Err(PyAttributeError::new_err(format!("'DataSlice' object has no attribute '{name}'")));
        }
        let result = access::get_attr(&self.inner, name, None).map_err(attribute_error)?;
        wrap(py, result)
    }

    /// `ds.x = v`: assigns in place (the bag must be mutable).
    fn __setattr__(&self, name: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let value = as_slice("kd.core.set_attr", value)?;
        guard(|| update::set_attrs(&self.inner, &[(name.to_string(), value)], false))
    }

    /// Assigns one attribute in place.
    #[pyo3(signature = (attr_name, value, overwrite_schema = false))]
    fn set_attr(&self, attr_name: &str, value: &Bound<'_, PyAny>, overwrite_schema: bool) -> PyResult<()> {
        let value = as_slice("kd.core.set_attr", value)?;
        guard(|| update::set_attrs(&self.inner, &[(attr_name.to_string(), value)], overwrite_schema))
    }

    /// Assigns attributes in place.
    #[pyo3(signature = (*, overwrite_schema = false, **attrs))]
    fn set_attrs(&self, overwrite_schema: bool, attrs: Option<&Bound<'_, PyDict>>) -> PyResult<()> {
        let attrs = named("kd.core.set_attrs", attrs)?;
        guard(|| update::set_attrs(&self.inner, &attrs, overwrite_schema))
    }

    /// `ds[i]` / `ds[key]`: items of lists (an int or a DataSlice of ints;
    /// a Python slice gives the items in that range), or values of dicts.
    fn __getitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        if let Ok(range) = key.cast::<pyo3::types::PySlice>() {
            let step: Option<i64> = range.getattr("step")?.extract()?;
            if step.is_some_and(|s| s != 1) {
                return Err(pyo3::exceptions::PyValueError::new_err("Slice with step != 1 is not supported"));
            }
            // Bounds: ints, integer items or DataSlices (a range per list).
            let bound = |name: &str| -> PyResult<Option<DataSlice>> {
                let v = range.getattr(name)?;
                if v.is_none() { Ok(None) } else { as_slice("kd.core.get_item", &v).map(Some) }
            };
            let (start, stop) = (bound("start")?, bound("stop")?);
            return wrap(py, guard(|| lists::items_in_range(&self.inner, start, stop))?);
        }
        let key = as_slice("kd.core.get_item", key)?;
        wrap(py, guard(|| containers::get_item(&self.inner, &key))?)
    }

    /// `ds[i] = v` / `ds[key] = v`: sets items of lists or values of dicts
    /// in place (the bag must be mutable).
    fn __setitem__(&self, key: &Bound<'_, PyAny>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let key = as_slice("kd.core.set_item", key)?;
        let value = as_slice("kd.core.set_item", value)?;
        guard(|| containers::set_item_in_place(&self.inner, &key, &value))
    }

    /// Appends items to the lists in place (the bag must be mutable).
    fn append(&self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let value = as_slice("kd.lists.append", value)?;
        guard(|| lists::append_in_place(&self.inner, &value))
    }

    /// The bag of this slice, or None.
    fn get_bag(&self) -> Option<PyDataBag> {
        self.inner.bag().map(|b| PyDataBag { inner: b.clone() })
    }

    /// This slice with `bag` (None removes it).
    fn with_bag(&self, py: Python<'_>, bag: Option<PyRef<'_, PyDataBag>>) -> PyResult<Py<PyAny>> {
        wrap(py, self.inner.clone().with_bag(bag.map(|b| b.inner.clone())))
    }

    /// This slice without a bag.
    fn no_bag(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        wrap(py, self.inner.clone().with_bag(None))
    }

    /// This slice with a mutable copy of its bag (O(1)).
    fn fork_bag(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let bag = self.inner.bag().map_or_else(DataBag::new_mutable, |b| b.fork(true));
        wrap(py, self.inner.clone().with_bag(Some(bag)))
    }

    /// This slice with an immutable copy of its bag.
    fn freeze_bag(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let bag = self.inner.bag().map(|b| b.fork(false));
        wrap(py, self.inner.clone().with_bag(bag))
    }

    /// `kd.present` when the slice has a mutable bag.
    fn is_mutable(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        crate::functions::mask_item(py, self.inner.bag().is_some_and(DataBag::is_mutable))
    }

    /// The attribute names (sorted).
    #[pyo3(signature = (*, intersection = true))]
    fn get_attr_names(&self, intersection: bool) -> PyResult<Vec<String>> {
        guard(|| access::attr_names(&self.inner, intersection))
    }
}

/// Returns the sorted names of the attributes that all items of x have.
///
/// For entities the names come from their schema; for objects, from each
/// object's own schema, keeping only the names common to all of them. Primitives
/// in OBJECT data are skipped. The result is a Python list of str; x must have a
/// DataBag. The same as kd.get_attr_names(x, intersection=True).
///
/// Args:
///   x: a DataSlice with a DataBag.
///
/// Examples:
///   >>> kd.dir(kd.new(b=1, a='x'))
///   ['a', 'b']
///   >>> kd.dir(kd.slice([kd.obj(a=1, b=2), kd.obj(a=3, c=4)]))
///   ['a']
#[pyfunction]
fn dir(x: PyRef<'_, PyDataSlice>) -> PyResult<Vec<String>> {
    guard(|| access::attr_names(&x.inner, true))
}

/// Returns the sorted attribute names of the items of x.
///
/// For entities the names come from their schema; for objects, from each
/// object's own schema, and `intersection` chooses between the names all
/// objects share and the names any object has. Primitives in OBJECT data are
/// skipped. The result is a Python list of str; x must have a DataBag.
///
/// Args:
///   x: a DataSlice with a DataBag.
///   intersection: True for the names common to all items, False for the names
///     of any item (keyword only, required).
///
/// Examples:
///   >>> x = kd.slice([kd.obj(a=1, b=2), kd.obj(a=3, c=4)])
///   >>> kd.get_attr_names(x, intersection=True)
///   ['a']
///   >>> kd.get_attr_names(x, intersection=False)
///   ['a', 'b', 'c']
#[pyfunction]
#[pyo3(signature = (x, *, intersection))]
fn get_attr_names(x: PyRef<'_, PyDataSlice>, intersection: bool) -> PyResult<Vec<String>> {
    guard(|| access::attr_names(&x.inner, intersection))
}

/// Returns a new empty immutable DataBag.
///
/// Nothing can be created in it; `bag.fork()` gives a mutable copy, and
/// kd.mutable_bag() an empty mutable bag.
///
/// Examples:
///   >>> kd.bag()
///   DataBag(empty, $...)
///   >>> kd.bag().is_mutable()
///   DataItem(missing, schema: MASK)
///   >>> kd.slice([1, 2]).with_bag(kd.bag())
///   DataSlice([1, 2], schema: INT32, present: 2/2, bag_id: $...)
#[pyfunction]
fn bag() -> PyDataBag {
    PyDataBag { inner: DataBag::new_immutable() }
}

/// Returns a new empty mutable DataBag.
///
/// Entities and objects created in it (`bag.new`, `bag.obj`) can be changed in
/// place afterwards.
///
/// Examples:
///   >>> bag = kd.mutable_bag()
///   >>> bag.is_mutable()
///   DataItem(present, schema: MASK)
///   >>> e = bag.new(x=1)
///   >>> e.x = 2
///   >>> e
///   DataItem(Entity(x=2), schema: ENTITY(x=INT32), bag_id: $...)
#[pyfunction]
fn mutable_bag() -> PyDataBag {
    PyDataBag { inner: DataBag::new_mutable() }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyDataBag>()?;
    m.add_function(wrap_pyfunction!(dir, m)?)?;
    m.add_function(wrap_pyfunction!(get_attr_names, m)?)?;
    m.add_function(wrap_pyfunction!(bag, m)?)?;
    m.add_function(wrap_pyfunction!(mutable_bag, m)?)?;
    Ok(())
}
