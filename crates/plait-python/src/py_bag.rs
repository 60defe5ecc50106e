//! The Python `DataBag` class, and the DataSlice methods that involve bags
//! and attributes (`ds.x`, `ds.x = v`, `get_bag`, `with_attrs`, ...).

use plait_core::{DataBag, DataSlice, Schema};
use plait_ops::objects::{access, containers, list_edits, lists, update};
use pyo3::exceptions::{PyAttributeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList, PyString, PyTuple};

use crate::boxing::box_item;
use crate::errors::{guard, value_error};
use crate::py_operator::{DICT_ATTR_OF_SLICE, LIST_ATTR_OF_SLICE, container_item, is_container};
use crate::py_slice::{PyDataSlice, wrap};

/// A store of attributes of entities and objects.
#[pyclass(name = "DataBag", module = "plait.types", frozen, weakref)]
pub struct PyDataBag {
    pub inner: DataBag,
}

/// Koda's null bag: what `get_bag()` gives for a slice without a bag, and
/// what bag arguments take for "no bag" (`kd.is_null_bag` is present for
/// it). Like Koda's, it refuses `bool()` and `==` (a null bag is neither
/// true nor false, nor equal to a bag), and is not hashable.
#[pyclass(name = "NullDataBag", module = "plait.types", frozen)]
pub struct PyNullBag;

#[pymethods]
impl PyNullBag {
    fn __repr__(&self) -> &'static str {
        "DataBag(null)"
    }

    fn __bool__(&self) -> PyResult<bool> {
        Err(PyTypeError::new_err("__bool__ disabled for NullDataBag"))
    }

    fn __richcmp__(&self, _other: &Bound<'_, PyAny>, _op: pyo3::basic::CompareOp) -> PyResult<bool> {
        Err(PyTypeError::new_err("__eq__ and __ne__ disabled for NullDataBag"))
    }

    /// The same number for every null bag.
    #[getter]
    fn fingerprint(&self) -> crate::py_fingerprint::PyFingerprint {
        crate::py_fingerprint::PyFingerprint(plait_core::itemid::UuidHasher::new("DataBag.fingerprint.null").finish())
    }

    /// The null bag (a name changes nothing on it).
    fn with_name(slf: Py<Self>, _name: &Bound<'_, PyAny>) -> Py<Self> {
        slf
    }

    /// Pickles as a call of `plait._plait.null_bag()`.
    fn __reduce__(&self, py: Python<'_>) -> PyResult<(Py<PyAny>, ())> {
        Ok((py.import("plait._plait")?.getattr("null_bag")?.unbind(), ()))
    }
}

/// Koda's null bag (see [`PyNullBag`]).
#[pyfunction]
pub fn null_bag() -> PyNullBag {
    PyNullBag
}

/// A bag argument: a DataBag, or the null bag given as `NullDataBag` or
/// `None`.
pub fn bag_arg(x: Option<&Bound<'_, PyAny>>) -> PyResult<Option<DataBag>> {
    match x {
        None => Ok(None),
        Some(x) if x.is_none() || x.is_instance_of::<PyNullBag>() => Ok(None),
        Some(x) => match x.cast::<PyDataBag>() {
            Ok(b) => Ok(Some(b.get().inner.clone())),
            Err(_) => Err(PyTypeError::new_err(format!("expected a DataBag, got {}", x.get_type().name()?))),
        },
    }
}

/// A Python value as a DataSlice (DataSlices as they are, scalars boxed).
fn as_slice(op: &str, x: &Bound<'_, PyAny>) -> PyResult<DataSlice> {
    if let Ok(ds) = x.cast::<PyDataSlice>() {
        return Ok(ds.get().inner.clone());
    }
    box_item(op, x, None)
}

/// A value assigned in place (`x.a = v`, `x[key] = v`, `x.append(v)`): a
/// Python list, tuple or dict is one Koda list or dict, by Koda's rule for
/// assigned values (see `container_item`). Where `item_only`, as Koda, only
/// a DataItem `target` takes one (the same list for every item of a slice
/// is asked for with `kd.list`).
fn assigned(op: &str, target: &DataSlice, value: &Bound<'_, PyAny>, item_only: bool) -> PyResult<DataSlice> {
    if !is_container(value) {
        return as_slice(op, value);
    }
    if item_only && !target.is_item() {
        return Err(value_error(op, if value.is_exact_instance_of::<PyDict>() { DICT_ATTR_OF_SLICE } else { LIST_ATTR_OF_SLICE }));
    }
    // (Made in the target's bag when it is mutable: nothing to merge.)
    container_item(op, value, target.bag().filter(|bag| bag.is_mutable()))
}

/// The start and stop of Python slice `range` (of step 1) boxed for `op`.
fn range_bounds(op: &str, range: &Bound<'_, pyo3::types::PySlice>) -> PyResult<(Option<DataSlice>, Option<DataSlice>)> {
    crate::py_slice::check_unit_step(range)?;
    let bound = |name: &str| -> PyResult<Option<DataSlice>> {
        let v = range.getattr(name)?;
        if v.is_none() { Ok(None) } else { as_slice(op, &v).map(Some) }
    };
    Ok((bound("start")?, bound("stop")?))
}

/// Koda's error for a Python list or tuple given as a key.
const AMBIGUOUS_KEY: &str = "passing a Python list/tuple to a Koda operation is ambiguous; please use kd.slice(...) to create a slice or a \
                             multi-dimensional slice, and kd.list(...) to create a single Koda list.";

/// `**kwargs` as (name, DataSlice) pairs, each value boxed by `boxed`.
fn named_by(kwargs: Option<&Bound<'_, PyDict>>, boxed: impl Fn(&Bound<'_, PyAny>) -> PyResult<DataSlice>) -> PyResult<Vec<(String, DataSlice)>> {
    let mut out = Vec::new();
    if let Some(kwargs) = kwargs {
        for (k, v) in kwargs.iter() {
            out.push((k.extract::<String>()?, boxed(&v)?));
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

    /// Koda's text of the bag's contents (its fallbacks' included): the data
    /// triples under `DataBag $id:`, then the schema triples under
    /// `SchemaBag:`, at most `triple_limit` of them. `which` is `"all"`,
    /// `"data"` or `"schema"` (`contents_repr`, `data_triples_repr`,
    /// `schema_triples_repr`, which Python wraps).
    #[pyo3(signature = (which, triple_limit))]
    fn _triples_repr(&self, which: &str, triple_limit: i64) -> PyResult<String> {
        if triple_limit <= 0 {
            return Err(pyo3::exceptions::PyValueError::new_err(format!("triple_limit must be a positive integer, got {triple_limit}")));
        }
        let bag = self.inner.merged();
        let (data, schema) = guard(|| Ok(triples(&bag)))?;
        let id = self.inner.short_id();
        let mut out = String::new();
        let mut shown = 0usize;
        let limit = triple_limit as usize;
        let sections: Vec<(String, &Vec<String>)> = match which {
            "data" => vec![(format!("DataBag {id}:\n"), &data)],
            "schema" => vec![(format!("SchemaBag {id}:\n"), &schema)],
            _ => vec![(format!("DataBag {id}:\n"), &data), ("\nSchemaBag:\n".to_string(), &schema)],
        };
        for (header, lines) in sections {
            out.push_str(&header);
            for line in lines {
                if shown == limit {
                    out.push_str(&format!(
                        "...\n\nShowing only the first {limit} triples. Use 'triple_limit' parameter of 'db.contents_repr()' to adjust this\n"
                    ));
                    return Ok(out);
                }
                out.push_str(line);
                out.push('\n');
                shown += 1;
            }
        }
        Ok(out)
    }

    /// The number of values the bag holds (attribute values, list items,
    /// dict entries), its fallbacks' included.
    fn get_approx_size(&self) -> usize {
        self.inner.approx_size()
    }

    /// A number identifying the bag (two bags are never equal by content).
    #[getter]
    fn fingerprint(&self) -> crate::py_fingerprint::PyFingerprint {
        let mut h = plait_core::itemid::UuidHasher::new("DataBag.fingerprint");
        h.write_bytes(&self.inner.id().to_le_bytes());
        crate::py_fingerprint::PyFingerprint(h.finish())
    }

    /// A new mutable bag holding what this one reads, as one layer.
    fn merge_fallbacks(&self) -> PyDataBag {
        PyDataBag { inner: self.inner.merged().fork(true) }
    }

    /// Copies everything `other_bags` read into this mutable bag, in order;
    /// returns this bag.
    #[pyo3(signature = (other_bags, /, *, overwrite = true, allow_data_conflicts = true, allow_schema_conflicts = false))]
    fn merge_inplace(
        slf: PyRef<'_, Self>,
        other_bags: &Bound<'_, PyAny>,
        overwrite: bool,
        allow_data_conflicts: bool,
        allow_schema_conflicts: bool,
    ) -> PyResult<Py<PyDataBag>> {
        let op = "DataBag.merge_inplace";
        let others: Vec<DataBag> = if let Ok(b) = other_bags.cast::<PyDataBag>() {
            vec![b.get().inner.clone()]
        } else {
            let iter = other_bags.try_iter().map_err(|_| {
                pyo3::exceptions::PyTypeError::new_err(format!(
                    "Value after * must be an iterable, not {}",
                    other_bags.get_type().name().map(|n| n.to_string()).unwrap_or_default()
                ))
            })?;
            let mut out = Vec::new();
            for b in iter {
                let b = b?;
                let bag = b.cast::<PyDataBag>().map_err(|_| {
                    pyo3::exceptions::PyTypeError::new_err(format!(
                        "{op}: expected DataBags, got {}",
                        b.get_type().name().map(|n| n.to_string()).unwrap_or_default()
                    ))
                })?;
                out.push(bag.get().inner.clone());
            }
            out
        };
        if !slf.inner.is_mutable() {
            return Err(crate::errors::to_py_err(plait_core::bag::immutable_error(op)));
        }
        for other in &others {
            guard(|| slf.inner.merge_inplace(op, other, overwrite, allow_data_conflicts, allow_schema_conflicts))?;
        }
        Ok(slf.into())
    }

    /// `ds` with everything it reaches copied into this mutable bag
    /// (`adopt`), or with its stub (`adopt_stub`), returned with this bag.
    #[pyo3(signature = (slice, /))]
    fn adopt(&self, py: Python<'_>, slice: PyRef<'_, PyDataSlice>) -> PyResult<Py<PyAny>> {
        self.check_mutable("DataBag.adopt")?;
        let x = &slice.inner;
        let extracted = match x.bag() {
            Some(_) => guard(|| plait_ops::objects::graph::extract(x, None))?,
            None => x.clone(),
        };
        self.merge_made(py, "DataBag.adopt", extracted)
    }

    #[pyo3(signature = (slice, /))]
    fn adopt_stub(&self, py: Python<'_>, slice: PyRef<'_, PyDataSlice>) -> PyResult<Py<PyAny>> {
        self.check_mutable("DataBag.adopt_stub")?;
        let stub = guard(|| plait_ops::objects::graph::stub(&slice.inner, &[]))?;
        self.merge_made(py, "DataBag.adopt_stub", stub)
    }

    /// What a creating method (`bag.list(...)`, `bag.uu(...)`, ...) made with
    /// the operator, moved into this mutable bag: its bag merged in (values
    /// disagreeing with this bag's are Koda's merge error), and returned
    /// with this bag. With `overwrite_schemas` (`bag.new(...,
    /// overwrite_schema=True)`), the schemas it changed replace this bag's.
    #[pyo3(signature = (op, made, /, overwrite_schemas = false))]
    fn _adopt_made(&self, py: Python<'_>, op: &str, made: PyRef<'_, PyDataSlice>, overwrite_schemas: bool) -> PyResult<Py<PyAny>> {
        self.check_mutable(op)?;
        if overwrite_schemas {
            if let Some(bag) = made.inner.bag() {
                guard(|| self.inner.merge_inplace(op, bag, true, true, true))?;
            }
            return wrap(py, made.inner.clone().with_bag(Some(self.inner.clone())));
        }
        self.merge_made(py, op, made.inner.clone())
    }

    /// Raises Koda's error unless this bag is mutable.
    #[pyo3(signature = (op, /))]
    fn _check_mutable(&self, op: &str) -> PyResult<()> {
        self.check_mutable(op)
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

    /// As in Koda, bags are not compared with `==` (nor hashed): whether
    /// two are one bag is `_same_as`; whether they hold the same data,
    /// `kd.testing.assert_equivalent`.
    fn __richcmp__(&self, _other: &Bound<'_, PyAny>, _op: pyo3::basic::CompareOp) -> PyResult<bool> {
        Err(PyTypeError::new_err("__eq__ and __ne__ disabled for plait.types.DataBag"))
    }

    /// Whether `other` is this very bag (the same layers).
    fn _same_as(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyDataBag>().is_ok_and(|o| o.get().inner == self.inner)
    }

    /// `value` with the DataSlices of this bag in it passed without the bag
    /// (see `left_off`): for the creating methods, whose operators need not
    /// bring along data that is here already.
    fn _left_off(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        crate::left_off::without_bag(py, value, &self.inner)
    }
}

impl PyDataBag {
    /// `made` moved into this bag (its contents merged in), errors naming `op`.
    fn merge_made(&self, py: Python<'_>, op: &str, made: DataSlice) -> PyResult<Py<PyAny>> {
        guard(|| {
            if let Some(bag) = made.bag() {
                self.inner.merge_from(op, bag, plait_core::bag::OnConflict::Raise)?;
            }
            Ok(())
        })?;
        wrap(py, made.with_bag(Some(self.inner.clone())))
    }

    /// Koda's error for writing to an immutable bag.
    fn check_mutable(&self, op: &str) -> PyResult<()> {
        if self.inner.is_mutable() { Ok(()) } else { Err(crate::errors::to_py_err(plait_core::bag::immutable_error(op))) }
    }
}

/// The `__dict__` of each class (but `object`) in the MRO of each of plait's
/// DataSlice classes, for [`PyDataSlice::__getattribute__`]: live views, so
/// methods attached later are seen.
type ClassDicts = Vec<(Py<pyo3::types::PyType>, Vec<Py<PyAny>>)>;

static CLASS_DICTS: pyo3::sync::PyOnceLock<ClassDicts> = pyo3::sync::PyOnceLock::new();

fn class_dicts(py: Python<'_>) -> PyResult<&ClassDicts> {
    CLASS_DICTS.get_or_try_init(py, || {
        use crate::py_slice::{PyDataItem, PyDictItem, PyListItem, PySchemaItem};
        let classes = [
            py.get_type::<PyDataSlice>(),
            py.get_type::<PyDataItem>(),
            py.get_type::<PyListItem>(),
            py.get_type::<PyDictItem>(),
            py.get_type::<PySchemaItem>(),
        ];
        let object = py.get_type::<PyAny>();
        classes
            .into_iter()
            .map(|class| {
                let mut dicts = Vec::new();
                for base in class.getattr("__mro__")?.cast_into::<PyTuple>()?.iter() {
                    if !base.is(&object) {
                        dicts.push(base.getattr("__dict__")?.unbind());
                    }
                }
                Ok((class.unbind(), dicts))
            })
            .collect()
    })
}

/// Whether `name` is an attribute of `ds`'s class (a method, a property):
/// None when the class is not one of plait's own (a Python subclass).
fn class_has(ds: &Bound<'_, PyDataSlice>, name: &Bound<'_, PyString>) -> PyResult<Option<bool>> {
    let class = ds.get_type();
    let Some((_, dicts)) = class_dicts(ds.py())?.iter().find(|(c, _)| c.is(&class)) else { return Ok(None) };
    for dict in dicts {
        if dict.bind(ds.py()).contains(name)? {
            return Ok(Some(true));
        }
    }
    Ok(Some(false))
}

#[pymethods]
impl PyDataSlice {
    /// `ds.x`: a method or property of the class, else the attribute `x`
    /// of the items. (The data is read here, without the failed class
    /// lookup and the AttributeError Python's own lookup would raise
    /// first; anything unusual goes to it, then to `__getattr__`.)
    fn __getattribute__(slf: &Bound<'_, Self>, name: &Bound<'_, PyString>) -> PyResult<Py<PyAny>> {
        let text = name.to_cow()?;
        if !text.starts_with('_') && class_has(slf, name)? == Some(false) {
            let result = access::get_attr(&slf.get().inner, &text, None).map_err(attribute_error)?;
            return wrap(slf.py(), result);
        }
        // SAFETY: `slf` and `name` are live objects; the call returns a new
        // reference or NULL with an exception set, which `from_owned_ptr_or_err`
        // takes over.
        unsafe { Bound::from_owned_ptr_or_err(slf.py(), pyo3::ffi::PyObject_GenericGetAttr(slf.as_ptr(), name.as_ptr())).map(Bound::unbind) }
    }

    /// `ds.x`: the attribute `x` (AttributeError when it cannot be read).
    fn __getattr__(&self, py: Python<'_>, name: &str) -> PyResult<Py<PyAny>> {
        if name.starts_with('_') {
            return Err(PyAttributeError::new_err(format!("'DataSlice' object has no attribute '{name}'")));
        }
        let result = access::get_attr(&self.inner, name, None).map_err(attribute_error)?;
        wrap(py, result)
    }

    /// Returns attribute `attr_name` of every item: `kd.get_attr(self,
    /// attr_name, default=...)` (see there).
    ///
    /// Examples:
    ///   >>> kd.new(a=1).get_attr('a')
    ///   DataItem(1, schema: INT32, bag_id: $...)
    ///   >>> kd.new(a=1).get_attr('b', default=0)
    ///   DataItem(0, schema: INT32, bag_id: $...)
    //
    // A name given as a str without a default (most calls, often one item at
    // a time) is read here, without the operator call's argument binding;
    // anything else goes to the operator.
    #[pyo3(signature = (attr_name, *args, **kwargs))]
    fn get_attr(
        slf: &Bound<'_, Self>,
        attr_name: &Bound<'_, PyAny>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        if let (Ok(name), true, None) = (attr_name.cast_exact::<PyString>(), args.is_empty(), kwargs) {
            let name = name.to_cow()?;
            let result = guard(|| access::get_attr(&slf.get().inner, &name, None).map_err(|e| e.with_context("kd.core.get_attr")))?;
            return wrap(py, result);
        }
        let operator = py.import("plait.kd._operators")?.getattr("OPERATORS")?.get_item("kd.core.get_attr")?;
        let mut call_args = vec![slf.as_any().clone(), attr_name.clone()];
        call_args.extend(args.iter());
        Ok(operator.call(PyTuple::new(py, call_args)?, kwargs)?.unbind())
    }

    /// `ds.x = v`: assigns in place (the bag must be mutable).
    fn __setattr__(&self, name: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let value = assigned("kd.core.set_attr", &self.inner, value, true)?;
        guard(|| update::set_attrs(&self.inner, &[(name.to_string(), value)], false))
    }

    /// `del ds.x`: [`Self::_del_attr`] (entities keep `x` in their schema
    /// with missing values; objects lose it).
    fn __delattr__(&self, name: &str) -> PyResult<()> {
        if name.starts_with('_') {
            return Err(PyAttributeError::new_err(format!("'DataSlice' object has no attribute '{name}'")));
        }
        guard(|| update::del_attr_in_place(&self.inner, name))
    }

    /// Assigns one attribute in place.
    #[pyo3(signature = (attr_name, value, overwrite_schema = false))]
    fn set_attr(&self, attr_name: &str, value: &Bound<'_, PyAny>, overwrite_schema: bool) -> PyResult<()> {
        let value = assigned("kd.core.set_attr", &self.inner, value, true)?;
        guard(|| update::set_attrs(&self.inner, &[(attr_name.to_string(), value)], overwrite_schema))
    }

    /// Assigns attributes in place.
    #[pyo3(signature = (*, overwrite_schema = false, **attrs))]
    fn set_attrs(&self, overwrite_schema: bool, attrs: Option<&Bound<'_, PyDict>>) -> PyResult<()> {
        // As Koda's `set_attrs`, a Python list or dict here is one list or
        // dict for all the items.
        let attrs = named_by(attrs, |v| assigned("kd.core.set_attrs", &self.inner, v, false))?;
        guard(|| update::set_attrs(&self.inner, &attrs, overwrite_schema))
    }

    /// `ds[i]` / `ds[key]`: items of lists (an int or a DataSlice of ints;
    /// a Python slice gives the items in that range), or values of dicts
    /// (`ds[:]` gives all of them).
    fn __getitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        if let Ok(range) = key.cast::<pyo3::types::PySlice>() {
            // Bounds: ints, integer items or DataSlices (a range per list).
            let (start, stop) = range_bounds("kd.core.get_item", range)?;
            return wrap(py, guard(|| containers::items_in_range(&self.inner, start, stop))?);
        }
        let key = as_slice("kd.core.get_item", key)?;
        wrap(py, guard(|| containers::get_item(&self.inner, &key))?)
    }

    /// `ds[i] = v` / `ds[key] = v`: sets items of lists or values of dicts
    /// in place (the bag must be mutable). `ds[start:stop] = v` replaces
    /// the items of lists in that range (with `v`'s items, or `v` repeated).
    fn __setitem__(&self, key: &Bound<'_, PyAny>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        if let Ok(range) = key.cast::<pyo3::types::PySlice>() {
            if !crate::py_slice::unit_step(range)? {
                return Err(value_error("DataSlice.__setitem__", "slices with step != 1 are not supported"));
            }
            let (start, stop) = range_bounds("DataSlice.__setitem__", range)?;
            let value = assigned("DataSlice.__setitem__", &self.inner, value, false)?;
            return guard(|| list_edits::replace_range_in_place(&self.inner, start.as_ref(), stop.as_ref(), &value));
        }
        if key.is_exact_instance_of::<PyList>() || key.is_exact_instance_of::<PyTuple>() {
            return Err(value_error("kd.core.set_item", AMBIGUOUS_KEY));
        }
        let key = as_slice("kd.core.set_item", key)?;
        let value = assigned("kd.core.set_item", &self.inner, value, false)?;
        guard(|| containers::set_item_in_place(&self.inner, &key, &value))
    }

    /// Appends items to the lists in place (the bag must be mutable).
    fn append(&self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let value = assigned("kd.lists.append", &self.inner, value, true)?;
        guard(|| list_edits::append_in_place(&self.inner, &value))
    }

    /// `del x[i]` / `del x[start:stop]`: removes items of lists in place;
    /// `del d[key]` makes the key's value missing (the bag must be mutable).
    fn __delitem__(&self, key: &Bound<'_, PyAny>) -> PyResult<()> {
        if let Ok(range) = key.cast::<pyo3::types::PySlice>() {
            let (start, stop) = range_bounds("DataSlice.__delitem__", range)?;
            return guard(|| list_edits::remove_in_place(&self.inner, list_edits::Removed::Range(start.as_ref(), stop.as_ref())));
        }
        if key.is_exact_instance_of::<PyList>() || key.is_exact_instance_of::<PyTuple>() {
            return Err(value_error("DataSlice.__delitem__", AMBIGUOUS_KEY));
        }
        let key = as_slice("DataSlice.__delitem__", key)?;
        guard(|| containers::del_item_in_place(&self.inner, &key))
    }

    /// Removes item `index` (the last by default) of each list in place
    /// (the bag must be mutable) and returns the items removed: for one
    /// list, an index out of range is an IndexError (taken as Python's
    /// `int()` takes it); for several, a missing item. Of a dict item,
    /// `pop(key)` returns the key's value and makes it missing (Koda's
    /// KeyError where it is missing already).
    #[pyo3(signature = (index = None))]
    fn pop(&self, py: Python<'_>, index: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
        if crate::py_slice::container(&self.inner) == Some(crate::py_slice::Container::Dict) {
            let Some(key_py) = index else {
                return Err(PyTypeError::new_err("DictItem.pop() missing 1 required positional argument: 'key'"));
            };
            let key = as_slice("DictItem.pop", key_py)?;
            let value = guard(|| containers::get_item(&self.inner, &key))?;
            if value.present_count() == 0 {
                return Err(pyo3::exceptions::PyKeyError::new_err(key_py.str()?.unbind()));
            }
            guard(|| containers::del_item_in_place(&self.inner, &key))?;
            return wrap(py, value);
        }
        let strict = self.inner.is_item();
        let index = match index {
            Some(i) if !strict => as_slice("DataSlice.pop", i)?,
            given => {
                let k: i64 = match given {
                    Some(i) => {
                        let k = py.get_type::<pyo3::types::PyInt>().call1((i,))?;
                        match k.extract() {
                            Ok(k) => k,
                            // Past INT64: out of any list's range (Koda's IndexError).
                            Err(_) => {
                                let n = guard(|| lists::size(&self.inner))?
                                    .get(0)
                                    .map_or(0, |v| if let plait_core::ScalarRef::Int64(n) = v { n } else { 0 });
                                return Err(pyo3::exceptions::PyIndexError::new_err(format!(
                                    "DataSlice.pop: List index out of range: list size {n} vs index {k}"
                                )));
                            }
                        }
                    }
                    None => -1,
                };
                DataSlice::item(Some(plait_core::ScalarRef::Int64(k)), Schema::Int64).map_err(crate::errors::to_py_err)?
            }
        };
        wrap(py, guard(|| list_edits::pop_in_place(&self.inner, &index, strict))?)
    }

    /// Removes all items of the lists, or the values of the dicts, in place
    /// (the bag must be mutable).
    fn clear(&self) -> PyResult<()> {
        guard(|| lists::clear_in_place(&self.inner))
    }

    /// `kd.del_attr(self, attr_name)`: deletes the attribute in place.
    fn _del_attr(&self, attr_name: &str) -> PyResult<()> {
        guard(|| update::del_attr_in_place(&self.inner, attr_name))
    }

    /// The bag of this slice, or the null bag (`DataBag(null)`) as in Koda.
    fn get_bag(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match self.inner.bag() {
            Some(b) => Ok(Py::new(py, PyDataBag { inner: b.clone() })?.into_any()),
            None => Ok(Py::new(py, PyNullBag)?.into_any()),
        }
    }

    /// The bag of this slice, or None: what plait's own Python code tests.
    fn _bag(&self) -> Option<PyDataBag> {
        self.inner.bag().map(|b| PyDataBag { inner: b.clone() })
    }

    /// This slice with `bag` (None or the null bag removes it).
    fn with_bag(&self, py: Python<'_>, bag: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
        wrap(py, self.inner.clone().with_bag(bag_arg(bag)?))
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

    /// The attribute names (sorted): with `intersection`, those all items
    /// have, otherwise those any item has. `intersection` is keyword-only
    /// and required, as in Koda.
    #[pyo3(signature = (*args, intersection = None))]
    fn get_attr_names(&self, args: &Bound<'_, PyTuple>, intersection: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<String>> {
        if !args.is_empty() {
            let given = args.len();
            return Err(PyTypeError::new_err(format!(
                "accepts 0 positional arguments but {given} {} given",
                if given == 1 { "was" } else { "were" }
            )));
        }
        let Some(intersection) = intersection else {
            return Err(PyTypeError::new_err("get_attr_names() missing 1 required keyword-only argument: 'intersection'"));
        };
        let Ok(intersection) = intersection.cast::<PyBool>() else {
            let kind = intersection.get_type().name()?;
            return Err(PyTypeError::new_err(format!("get_attr_names() expected bool for `intersection`, got: {kind}")));
        };
        let intersection = intersection.is_true();
        guard(|| access::attr_names(&self.inner, intersection))
    }
}

/// Returns a new empty immutable DataBag (`kd.bag`; while tracing, the
/// expression `kd.bag()`).
///
/// Nothing can be created in it; `bag.fork()` gives a mutable copy, and
/// `kd.mutable_bag()` an empty mutable bag.
///
/// Examples:
///   >>> kd.bag()
///   DataBag(empty, $...)
///   >>> kd.bag().is_mutable()
///   DataItem(missing, schema: MASK)
///   >>> kd.slice([1, 2]).with_bag(kd.bag())
///   DataSlice([1, 2], schema: INT32, present: 2/2, bag_id: $...)
///   >>> kd.fn(lambda x: x.with_bag(kd.bag()))(kd.item(1))
///   DataItem(1, schema: INT32, bag_id: $...)
//
// In Rust, as a bag is often made per call; the lazy form is built in
// `_lazy.py` (the operator `kd.bag`).
#[pyfunction]
fn bag(py: Python<'_>) -> PyResult<Py<PyAny>> {
    if crate::py_expr::is_tracing() {
        return Ok(py.import("plait.kd")?.getattr("lazy")?.getattr("bag")?.call0()?.unbind());
    }
    Ok(Py::new(py, new_bag(false))?.into_any())
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
fn mutable_bag() -> PyResult<PyDataBag> {
    refuse_tracing("mutable_bag")?;
    Ok(new_bag(true))
}

/// A new empty bag, mutable or not, also while tracing (`DataBag.empty()`,
/// `kd.bags.new()`).
#[pyfunction]
fn new_bag(mutable: bool) -> PyDataBag {
    PyDataBag { inner: if mutable { DataBag::new_mutable() } else { DataBag::new_immutable() } }
}

/// `kd.<name>` only works eagerly: refused while a function is traced
/// (`kd.mutable_bag` here, `kd.to_py` from Python).
#[pyfunction]
fn refuse_tracing(name: &str) -> PyResult<()> {
    if crate::py_expr::is_tracing() {
        return Err(PyAttributeError::new_err(format!(
            "attribute '{name}' is not available in tracing mode on 'plait.kd': kd.{name} only works eagerly"
        )));
    }
    Ok(())
}

/// For each attribute the schemas of 1-D slice `x`'s entities or objects
/// declare, the positions of the items that declare it and whether each
/// declares it nofollow (for `to_py`).
#[pyfunction]
fn declared_attrs(x: PyRef<'_, PyDataSlice>) -> PyResult<Vec<access::DeclaredAttr>> {
    guard(|| access::declared_attrs(&x.inner))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyDataBag>()?;
    m.add_function(wrap_pyfunction!(declared_attrs, m)?)?;
    m.add_class::<PyNullBag>()?;
    m.add_function(wrap_pyfunction!(null_bag, m)?)?;
    m.add_function(wrap_pyfunction!(bag, m)?)?;
    m.add_function(wrap_pyfunction!(mutable_bag, m)?)?;
    m.add_function(wrap_pyfunction!(new_bag, m)?)?;
    m.add_function(wrap_pyfunction!(refuse_tracing, m)?)?;
    Ok(())
}

/// The triples of `bag`'s own layer as Koda's `contents_repr` prints them:
/// those of data (attributes, `get_obj_schema()`, list items, dict entries)
/// and those of schemas, each sorted by item.
fn triples(bag: &DataBag) -> (Vec<String>, Vec<String>) {
    use plait_core::ScalarRef;
    use plait_core::bag::text::{DICT_KEYS_ATTR, DICT_VALUES_ATTR, LIST_ITEMS_ATTR};
    let text = |v: Option<ScalarRef<'_>>, quote: bool| -> String {
        match v {
            Some(ScalarRef::ItemId(id)) => id.short(),
            Some(ScalarRef::Schema(s)) => s.to_string(),
            other => {
                let mut t = String::new();
                plait_core::repr::write_item(&mut t, other, Schema::Object, quote);
                t
            }
        }
    };
    let mut data: Vec<(plait_core::ItemId, u8, String, String)> = Vec::new();
    let mut schema: Vec<(plait_core::ItemId, u8, String, String)> = Vec::new();
    for (id, name, value) in bag.own_triples() {
        let value = value.as_ref().map(|v| v.as_ref());
        let (rank, accessor) = match name.as_str() {
            plait_core::bag::SCHEMA_ATTR => (0, "get_obj_schema()".to_string()),
            LIST_ITEMS_ATTR => (0, "get_item_schema()".to_string()),
            DICT_KEYS_ATTR => (0, "get_key_schema()".to_string()),
            DICT_VALUES_ATTR => (1, "get_value_schema()".to_string()),
            other => (2, other.to_string()),
        };
        if id.is_schema() {
            schema.push((id, rank, accessor.clone(), format!("{}.{accessor} => {}", id.short(), text(value, true))));
        } else {
            data.push((id, rank, accessor.clone(), format!("{}.{accessor} => {}", id.short(), text(value, false))));
        }
    }
    for id in bag.own_list_ids() {
        if let Ok((_, items)) = bag.explode(&[Some(id)]) {
            let shown: Vec<String> = (0..items.len()).map(|i| text(items.get(i), true)).collect();
            data.push((id, 0, String::new(), format!("{}[:] => [{}]", id.short(), shown.join(", "))));
        }
    }
    for (id, key, value) in bag.own_dict_entries() {
        let key_text = text(Some(key.as_ref()), true);
        data.push((id, 3, key_text.clone(), format!("{}[{key_text}] => {}", id.short(), text(value.as_ref().map(|v| v.as_ref()), false))));
    }
    let order = |v: &mut Vec<(plait_core::ItemId, u8, String, String)>| {
        v.sort_by(|a, b| (a.0, a.1, &a.2).cmp(&(b.0, b.1, &b.2)));
        v.drain(..).map(|t| t.3).collect::<Vec<String>>()
    };
    (order(&mut data), order(&mut schema))
}
