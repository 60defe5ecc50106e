//! `kd.from_py` of plain Python values under the OBJECT schema, in one call:
//! exact lists, tuples and dicts (Koda dicts, or objects with
//! `dict_as_obj=True`) of exact ints, floats, strs, bytes, bools and None.
//! This is most of what programs convert, often one small value at a time,
//! where the general level walk (`plait/kd/from_py.py`) costs several
//! operator calls per level.
//!
//! The values are walked level by level from the top (no recursion: each
//! level is a vector of the values of the level above's containers), then
//! the containers are made from the bottom up in one bag
//! ([`plait_ops::objects::nested`]). Anything else (DataItems, dataclasses,
//! subclasses, ints beyond INT64, keys the general path has to refuse or
//! convert, nesting deeper than `MAX_DEPTH`) makes the call return None
//! before anything is built, and the general walk converts the values.

use plait_core::column::SliceBuilder;
use plait_core::{ScalarRef, SliceData};
use plait_ops::objects::nested::{LevelContainers, MadeLevel, NestedBuilder};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use crate::errors::guard;
use crate::fast_boxing::{box_texts, invalid_unicode};
use crate::py_slice::wrap;

/// The deepest nesting walked here (`MAX_DEPTH` of `from_py.py`, Koda's
/// limit): deeper values are left to the general walk, which raises.
const MAX_DEPTH: usize = 10_000;

/// One level of the walk: its values, and the containers among them.
struct Level<'py> {
    values: Vec<Bound<'py, PyAny>>,
    containers: LevelContainers,
}

/// What one value is, for the walk.
enum Kind<'a, 'py> {
    /// None or a primitive (an item of the level as it is).
    Item,
    List(&'a Bound<'py, PyList>),
    Tuple(&'a Bound<'py, PyTuple>),
    Dict(&'a Bound<'py, PyDict>),
    /// Anything the general walk converts.
    Other,
}

fn kind<'a, 'py>(v: &'a Bound<'py, PyAny>) -> Kind<'a, 'py> {
    if let Ok(list) = v.cast_exact::<PyList>() {
        Kind::List(list)
    } else if let Ok(dict) = v.cast_exact::<PyDict>() {
        Kind::Dict(dict)
    } else if let Ok(tuple) = v.cast_exact::<PyTuple>() {
        Kind::Tuple(tuple)
    } else if is_primitive(v) {
        Kind::Item
    } else {
        Kind::Other
    }
}

/// None or an exact int within INT64, float, str, bytes or bool.
fn is_primitive(v: &Bound<'_, PyAny>) -> bool {
    v.is_none()
        || (v.is_exact_instance_of::<PyInt>() && v.extract::<i64>().is_ok())
        || v.is_exact_instance_of::<PyString>()
        || v.is_exact_instance_of::<PyFloat>()
        || v.is_exact_instance_of::<PyBool>()
        || v.is_exact_instance_of::<PyBytes>()
}

/// A dict key the dicts made here take as it is: an exact int within
/// INT64, str, bytes or bool (floats are refused and None keys dropped by
/// the general walk, with Koda's messages).
fn is_plain_key(k: &Bound<'_, PyAny>) -> bool {
    (k.is_exact_instance_of::<PyInt>() && k.extract::<i64>().is_ok())
        || k.is_exact_instance_of::<PyString>()
        || k.is_exact_instance_of::<PyBytes>()
        || k.is_exact_instance_of::<PyBool>()
}

/// The Python `values` as a 1-D OBJECT DataSlice (the DataItem of its one
/// value when `item`), with a bag holding its lists, dicts and objects; or
/// None when some value is not plain (see the module docs).
#[pyfunction]
fn from_py_plain(py: Python<'_>, values: &Bound<'_, PyList>, dict_as_obj: bool, item: bool) -> PyResult<Option<Py<PyAny>>> {
    let Some(levels) = walk(values, dict_as_obj)? else {
        return Ok(None);
    };
    let mut builder = NestedBuilder::new();
    let mut below = SliceData::missing(0);
    for level in levels.iter().rev() {
        let made = guard(|| builder.make_level(&level.containers, &below))?;
        below = level_items(py, &level.values, &made, dict_as_obj)?;
    }
    Ok(Some(wrap(py, guard(|| builder.finish(below, item))?)?))
}

/// The levels of `values`, from the top; None when a value is not plain.
fn walk<'py>(values: &Bound<'py, PyList>, dict_as_obj: bool) -> PyResult<Option<Vec<Level<'py>>>> {
    let mut levels: Vec<Level<'py>> = Vec::new();
    let mut current: Vec<Bound<'py, PyAny>> = values.iter().collect();
    loop {
        if levels.len() > MAX_DEPTH {
            return Ok(None);
        }
        let mut containers = LevelContainers::default();
        // The children, in the order LevelContainers says: list items, dict
        // keys, dict values, object attribute values.
        let (mut items, mut keys, mut entry_values, mut attr_values) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for v in &current {
            match kind(v) {
                Kind::Item => {}
                Kind::List(list) => {
                    containers.list_sizes.push(list.len() as i64);
                    items.extend(list.iter());
                }
                Kind::Tuple(tuple) => {
                    containers.list_sizes.push(tuple.len() as i64);
                    items.extend(tuple.iter());
                }
                Kind::Dict(dict) if dict_as_obj => {
                    for (k, x) in dict.iter() {
                        let Ok(name) = k.cast_exact::<PyString>() else {
                            return Ok(None);
                        };
                        let Ok(name) = name.to_str() else {
                            return Ok(None);
                        };
                        containers.attr_rows.push(containers.objects);
                        containers.attr_names.push(name.to_owned());
                        attr_values.push(x);
                    }
                    containers.objects += 1;
                }
                Kind::Dict(dict) => {
                    for (k, x) in dict.iter() {
                        if !is_plain_key(&k) {
                            return Ok(None);
                        }
                        keys.push(k);
                        entry_values.push(x);
                    }
                    containers.dict_sizes.push(dict.len() as i64);
                }
                Kind::Other => return Ok(None),
            }
        }
        let last = containers.is_empty();
        levels.push(Level { values: current, containers });
        if last {
            return Ok(Some(levels));
        }
        items.extend(keys);
        items.extend(entry_values);
        items.extend(attr_values);
        current = items;
    }
}

/// The items of a level: its primitives as they are, its containers as the
/// ids `made` gives them (in the order they come, as the walk counted them).
fn level_items(py: Python<'_>, values: &[Bound<'_, PyAny>], made: &MadeLevel, dict_as_obj: bool) -> PyResult<SliceData> {
    // A level of text (keys, names): one column, read without Python calls.
    // SAFETY: `values` holds a reference to each value for the whole call.
    if let Some(text) = unsafe { box_texts(py, values.len(), |i| values[i].as_ptr()) }? {
        return Ok(text);
    }
    let mut out = SliceBuilder::with_capacity(values.len());
    let (mut lists, mut dicts, mut objects) = (0, 0, 0);
    for v in values {
        let item = if v.is_none() {
            None
        } else if let Ok(int) = v.cast_exact::<PyInt>() {
            let n: i64 = int.extract()?;
            Some(match i32::try_from(n) {
                Ok(narrow) => ScalarRef::Int32(narrow),
                Err(_) => ScalarRef::Int64(n),
            })
        } else if let Ok(float) = v.cast_exact::<PyFloat>() {
            let f = float.value();
            Some(if crate::boxing::fits_f32(f) { ScalarRef::Float32(f as f32) } else { ScalarRef::Float64(f) })
        } else if let Ok(text) = v.cast_exact::<PyString>() {
            out.push(Some(ScalarRef::String(&text.to_cow().map_err(|_| invalid_unicode())?)));
            continue;
        } else if let Ok(flag) = v.cast_exact::<PyBool>() {
            Some(ScalarRef::Boolean(flag.is_true()))
        } else if let Ok(bytes) = v.cast_exact::<PyBytes>() {
            Some(ScalarRef::Bytes(bytes.as_bytes()))
        } else if v.is_exact_instance_of::<PyList>() || v.is_exact_instance_of::<PyTuple>() {
            lists += 1;
            Some(ScalarRef::ItemId(made.list_id(lists - 1)))
        } else if v.is_exact_instance_of::<PyDict>() && dict_as_obj {
            objects += 1;
            Some(ScalarRef::ItemId(made.object_id(objects - 1)))
        } else if v.is_exact_instance_of::<PyDict>() {
            dicts += 1;
            Some(ScalarRef::ItemId(made.dict_id(dicts - 1)))
        } else {
            // The walk let through only the kinds above (no Python code ran since).
            return Err(PyRuntimeError::new_err("kd.from_py: a value changed type while it was converted"));
        };
        out.push(item);
    }
    Ok(out.finish())
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(from_py_plain, m)?)
}
