//! `kd.from_py` of plain Python values under the OBJECT schema, or with
//! the schema inferred (`schema=None`), in one call: exact lists, tuples and
//! dicts (Koda dicts, or objects with `dict_as_obj=True` under OBJECT) of
//! exact ints, floats, strs, bytes, bools and None.
//! This is most of what programs convert, often one small value at a time,
//! where the general level walk (`plait/kd/from_py.py`) costs several
//! operator calls per level.
//!
//! The values are walked level by level from the top (no recursion: each
//! level is a vector of the values of the level above's containers; with
//! inferred schemas, each group of values that gets one schema — the items
//! of a level's lists, its keys, its values — is its own), then the
//! containers are made from the bottom up in one bag
//! ([`plait_ops::objects::nested`]). Anything else (DataItems, dataclasses,
//! subclasses, ints beyond INT64, keys the general path has to refuse or
//! convert, nesting deeper than `MAX_DEPTH`) makes the call return None
//! before anything is built, and the general walk converts the values.

use plait_core::column::SliceBuilder;
use plait_core::{DataBag, DataSlice, ScalarRef, Schema, SliceData};
use plait_ops::objects::nested::{LevelContainers, MadeLevel, NestedBuilder};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use crate::boxing::with_exact_scalar;
use crate::cycles::CycleCheck;
use crate::errors::guard;
use crate::fast_boxing::box_texts;
use crate::py_slice::wrap;

/// The deepest nesting walked here (`MAX_DEPTH` of `from_py.py`, Koda's
/// limit): deeper values are left to the general walk, which raises.
pub(crate) const MAX_DEPTH: usize = 10_000;

/// Koda's error for values that contain themselves.
pub(crate) fn recursive_value() -> PyErr {
    PyValueError::new_err(format!("kd.from_py: objects with depth > {MAX_DEPTH} are not supported, recursive Python object cannot be converted"))
}

/// Koda's error for an attribute value or assigned value that contains
/// itself (after the operator's name).
pub(crate) const RECURSIVE_CONTAINER: &str = "recursive Python structures cannot be converted to Koda object";

/// One level of the walk: its values, and the containers among them.
struct Level<'py> {
    values: Vec<Bound<'py, PyAny>>,
    containers: LevelContainers,
}

/// What one value is, for the walk.
pub(crate) enum Kind<'a, 'py> {
    /// None or a primitive (an item of the level as it is).
    Item,
    List(&'a Bound<'py, PyList>),
    Tuple(&'a Bound<'py, PyTuple>),
    Dict(&'a Bound<'py, PyDict>),
    /// Anything the general walk converts.
    Other,
}

pub(crate) fn kind<'a, 'py>(v: &'a Bound<'py, PyAny>) -> Kind<'a, 'py> {
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

/// Appends the items of a list or tuple to `items`: how many; None for a
/// value of any other kind.
pub(crate) fn push_sequence<'py>(kind: &Kind<'_, 'py>, items: &mut Vec<Bound<'py, PyAny>>) -> Option<i64> {
    match kind {
        Kind::List(list) => {
            items.extend(list.iter());
            Some(list.len() as i64)
        }
        Kind::Tuple(tuple) => {
            items.extend(tuple.iter());
            Some(tuple.len() as i64)
        }
        _ => None,
    }
}

/// None or an exact int within INT64, float, str, bytes or bool.
pub(crate) fn is_primitive(v: &Bound<'_, PyAny>) -> bool {
    is_primitive_type(v) && !(v.is_exact_instance_of::<PyInt>() && v.extract::<i64>().is_err())
}

/// Whether `v` is None or of an exact primitive type (int of any size,
/// float, str, bytes, bool): its type pointer is enough.
pub(crate) fn is_primitive_type(v: &Bound<'_, PyAny>) -> bool {
    v.is_none()
        || v.is_exact_instance_of::<PyInt>()
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

/// Appends the keys and the values of `dict` to `keys` and `values`; false
/// (with some appended) when a key is not plain ([`is_plain_key`]).
pub(crate) fn push_entries<'py>(dict: &Bound<'py, PyDict>, keys: &mut Vec<Bound<'py, PyAny>>, values: &mut Vec<Bound<'py, PyAny>>) -> bool {
    for (k, x) in dict.iter() {
        if !is_plain_key(&k) {
            return false;
        }
        keys.push(k);
        values.push(x);
    }
    true
}

/// The Python `values` as a 1-D OBJECT DataSlice (the DataItem of its one
/// value when `item`), with a bag holding its lists, dicts and objects; or
/// None when some value is not plain (see the module docs).
#[pyfunction]
fn from_py_plain(py: Python<'_>, values: &Bound<'_, PyList>, dict_as_obj: bool, item: bool) -> PyResult<Option<Py<PyAny>>> {
    let mut builder = NestedBuilder::new();
    let Some(top) = plain_objects(py, &mut builder, values.iter().collect(), dict_as_obj, MAX_DEPTH)? else {
        return Ok(None);
    };
    Ok(Some(wrap(py, guard(|| builder.finish(top, item))?)?))
}

/// The plain `values` as OBJECT items, their lists, dicts and objects made
/// in `builder`'s bag; None when a value is not plain or the values nest
/// deeper than `max_depth` levels.
pub(crate) fn plain_objects(
    py: Python<'_>,
    builder: &mut NestedBuilder,
    values: Vec<Bound<'_, PyAny>>,
    dict_as_obj: bool,
    max_depth: usize,
) -> PyResult<Option<SliceData>> {
    let Some(levels) = walk(values, dict_as_obj, max_depth)? else {
        return Ok(None);
    };
    let mut below = SliceData::missing(0);
    for level in levels.iter().rev() {
        let made = guard(|| builder.make_level(&level.containers, &below))?;
        below = level_items(py, &level.values, &made, dict_as_obj)?;
    }
    Ok(Some(below))
}

/// The levels of `values`, from the top; None when a value is not plain.
fn walk<'py>(values: Vec<Bound<'py, PyAny>>, dict_as_obj: bool, max_depth: usize) -> PyResult<Option<Vec<Level<'py>>>> {
    let mut levels: Vec<Level<'py>> = Vec::new();
    let mut current = values;
    let mut cycles = CycleCheck::default();
    loop {
        if levels.len() > max_depth {
            return Ok(None);
        }
        if cycles.found(levels.len()) {
            return Err(recursive_value());
        }
        let mut containers = LevelContainers::default();
        // The children, in the order LevelContainers says: list items, dict
        // keys, dict values, object attribute values.
        let (mut items, mut keys, mut entry_values, mut attr_values) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for v in &current {
            let kind = kind(v);
            if !matches!(kind, Kind::Item | Kind::Other) {
                cycles.meet(levels.len(), v);
            }
            match kind {
                Kind::Item => {}
                sequence @ (Kind::List(_) | Kind::Tuple(_)) => containers.list_sizes.extend(push_sequence(&sequence, &mut items)),
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
                    if !push_entries(dict, &mut keys, &mut entry_values) {
                        return Ok(None);
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
        if v.is_none() {
            out.push(None);
            continue;
        }
        if with_exact_scalar(v, |value| out.push(Some(value)))?.is_some() {
            continue;
        }
        let id = if v.is_exact_instance_of::<PyList>() || v.is_exact_instance_of::<PyTuple>() {
            lists += 1;
            made.list_id(lists - 1)
        } else if v.is_exact_instance_of::<PyDict>() && dict_as_obj {
            objects += 1;
            made.object_id(objects - 1)
        } else if v.is_exact_instance_of::<PyDict>() {
            dicts += 1;
            made.dict_id(dicts - 1)
        } else {
            // The walk let through only the kinds above (no Python code ran since).
            return Err(PyRuntimeError::new_err("kd.from_py: a value changed type while it was converted"));
        };
        out.push(Some(ScalarRef::ItemId(id)));
    }
    Ok(out.finish())
}

/// One group of values of the inferred walk (`schema=None`): the values one
/// schema is inferred for, and what they are.
struct Group<'py> {
    values: Vec<Bound<'py, PyAny>>,
    depth: usize,
    kind: GroupKind,
}

enum GroupKind {
    /// Primitives and None: boxed together (their common schema).
    Primitives,
    /// Lists (and None): the size of each row, and the group of their items.
    Lists { rows: Vec<Option<i64>>, items: usize },
    /// Dicts (and None): the size of each row, and the groups of their keys
    /// and of their values.
    Dicts { rows: Vec<Option<i64>>, keys: usize, values: usize },
    /// Dicts as entities (`dict_as_obj=True`, and None): which rows are
    /// present, and the group of each attribute (the union of the keys, in
    /// the order they first come; None where a dict lacks the key).
    Entities { rows: Vec<bool>, attrs: Vec<(String, usize)> },
}

/// `kd.from_py(values, schema=None)` of plain values (lists, tuples, dicts
/// and primitives; each group of values one kind, as the level walk asks):
/// a 1-D slice of the inferred schema (the DataItem of its one value when
/// `item`), or None for the general walk to convert (other values, values
/// of several kinds in one group, keys or primitives without a common
/// schema, ...: it raises what Koda raises).
#[pyfunction]
pub(crate) fn from_py_inferred(py: Python<'_>, values: &Bound<'_, PyList>, dict_as_obj: bool, item: bool) -> PyResult<Option<Py<PyAny>>> {
    let Some(groups) = inferred_groups(values, dict_as_obj, recursive_value)? else {
        return Ok(None);
    };
    made_inferred(&groups, item, NestedBuilder::new())?.map(|made| wrap(py, made)).transpose()
}

/// A Python dict given as an attribute value (`kd.new(a={...})`) or
/// assigned, as one dict item by Koda's rule for such values, where that
/// rule and `kd.from_py`'s inference give the same: None otherwise, for the
/// general walk (`plait/kd/_container_values.py`) to convert it or raise.
/// Made `into` the mutable bag it is assigned in, where one is given.
///
/// Koda's rule converts each container on its own, and the containers side
/// by side (the values of one dict, the items of one list) must then agree
/// on their schemas exactly; the inference gives each group of values (all
/// the items at one place of the nesting) one schema. The two agree when
/// every group that more than one container contributes to
/// ([`contributed_alike`]) gets one schema from each container on its own,
/// and no container contributes nothing or only Nones.
pub(crate) fn container_value_inferred(py: Python<'_>, op: &str, x: &Bound<'_, PyAny>, into: Option<&DataBag>) -> PyResult<Option<DataSlice>> {
    let recursive = || PyValueError::new_err(format!("{op}: {RECURSIVE_CONTAINER}"));
    let Some(groups) = inferred_groups(&PyList::new(py, [x])?, false, recursive)? else {
        return Ok(None);
    };
    if !contributed_alike(&groups) {
        return Ok(None);
    }
    let builder = match into {
        Some(bag) => guard(|| NestedBuilder::into_bag(bag))?,
        None => NestedBuilder::new(),
    };
    made_inferred(&groups, true, builder)
}

/// Whether the containers of each group (see [`container_value_inferred`])
/// would each get the group's schema when converted on their own.
fn contributed_alike(groups: &[Group<'_>]) -> bool {
    // The part each container of the level above contributes to a group:
    // (start, end) of its values. The top group has one part.
    let mut parts: Vec<Vec<(usize, usize)>> = vec![Vec::new(); groups.len()];
    for group in groups {
        let (rows, children) = match &group.kind {
            GroupKind::Lists { rows, items } => (rows, vec![*items]),
            GroupKind::Dicts { rows, keys, values } => (rows, vec![*keys, *values]),
            // (Entities are not made here: dict_as_obj is false.)
            GroupKind::Primitives | GroupKind::Entities { .. } => continue,
        };
        let mut start = 0usize;
        for n in rows.iter().flatten() {
            let end = start + *n as usize;
            for &child in &children {
                parts[child].push((start, end));
            }
            start = end;
        }
    }
    groups.iter().zip(&parts).all(|(group, parts)| parts.len() < 2 || group_alike(group, parts))
}

/// Whether each part of `group` has a present value and, for primitives,
/// gets the same schema on its own as every other part (`kd.slice`'s
/// inference: 1 and 2.5 make FLOAT32, 1 and 'a' OBJECT), which is then the
/// whole group's.
fn group_alike(group: &Group<'_>, parts: &[(usize, usize)]) -> bool {
    let rows = match &group.kind {
        GroupKind::Lists { rows, .. } | GroupKind::Dicts { rows, .. } => rows,
        GroupKind::Entities { .. } => return false,
        GroupKind::Primitives => {
            let mut schemas = parts.iter().map(|&(start, end)| own_schema(&group.values[start..end]));
            let Some(first @ Some(schema)) = schemas.next() else { return false };
            return schema != Schema::None && schemas.all(|s| s == first);
        }
    };
    parts.iter().all(|&(start, end)| rows[start..end].iter().any(Option::is_some))
}

/// The schema `kd.slice` infers for plain primitives `values` (NONE when
/// all are None); None for values it does not tell by their type (ints
/// past INT64).
fn own_schema(values: &[Bound<'_, PyAny>]) -> Option<Schema> {
    let mut schema = Schema::None;
    for v in values {
        let one = if v.is_none() {
            Schema::None
        } else if v.is_exact_instance_of::<PyBool>() {
            Schema::Boolean
        } else if v.is_exact_instance_of::<PyInt>() {
            match v.extract::<i64>() {
                Ok(i) if i32::try_from(i).is_ok() => Schema::Int32,
                Ok(_) => Schema::Int64,
                Err(_) => return None,
            }
        } else if v.is_exact_instance_of::<PyFloat>() {
            Schema::Float32
        } else if v.is_exact_instance_of::<PyString>() {
            Schema::String
        } else if v.is_exact_instance_of::<PyBytes>() {
            Schema::Bytes
        } else {
            return None;
        };
        schema = Schema::common(schema, one)?;
    }
    Some(schema)
}

/// The values of `groups` made, from the last group back (children come
/// after their parents): a 1-D slice of the inferred schema (the DataItem
/// of its one value when `item`); None where a group cannot be made so.
fn made_inferred(groups: &[Group<'_>], item: bool, mut builder: NestedBuilder) -> PyResult<Option<DataSlice>> {
    let mut made: Vec<Option<DataSlice>> = (0..groups.len()).map(|_| None).collect();
    for (g, group) in groups.iter().enumerate().rev() {
        let slice = match &group.kind {
            GroupKind::Primitives => {
                let Ok(boxed) = crate::boxing::box_values("kd.from_py", &group.values) else {
                    return Ok(None);
                };
                boxed
            }
            GroupKind::Lists { rows, items } => {
                let items = made[*items].take().expect("made before its parent");
                let Ok(lists) = builder.typed_lists(rows, &items) else { return Ok(None) };
                lists
            }
            GroupKind::Dicts { rows, keys, values } => {
                let (keys, values) = (made[*keys].take().expect("made before its parent"), made[*values].take().expect("made before its parent"));
                let Ok(dicts) = builder.typed_dicts(rows, &keys, &values) else { return Ok(None) };
                dicts
            }
            GroupKind::Entities { rows, attrs } => {
                let attrs: Vec<(String, DataSlice)> =
                    attrs.iter().map(|(name, group)| (name.clone(), made[*group].take().expect("made before its parent"))).collect();
                let Ok(entities) = builder.typed_entities(rows, &attrs) else { return Ok(None) };
                entities
            }
        };
        made[g] = Some(slice);
    }
    let top = made[0].take().expect("the top group is made last");
    Ok(Some(guard(|| builder.finish_typed(top, item))?))
}

/// The groups of the inferred walk, the top one first; None when some value
/// is not plain or a group holds values of several kinds.
fn inferred_groups<'py>(values: &Bound<'py, PyList>, dict_as_obj: bool, recursive: impl Fn() -> PyErr) -> PyResult<Option<Vec<Group<'py>>>> {
    let mut groups = vec![Group { values: values.iter().collect(), depth: 0, kind: GroupKind::Primitives }];
    let mut cycles = CycleCheck::default();
    let mut g = 0;
    while g < groups.len() {
        let depth = groups[g].depth;
        if depth > MAX_DEPTH {
            return Ok(None);
        }
        // (Groups come in order of depth: every container above was met.)
        if cycles.found(depth) {
            return Err(recursive());
        }
        // Most groups are of primitives (keys, attribute values, leaves):
        // told by their types alone (ints past INT64 too, which boxing
        // wraps as the general walk's does).
        if groups[g].values.iter().all(is_primitive_type) {
            g += 1;
            continue;
        }
        // One pass reads the rows and the children of lists and dicts; the
        // counts then say whether the group is of one kind.
        let (mut lists, mut dicts, mut primitives) = (0usize, 0usize, 0usize);
        let mut rows = Vec::with_capacity(groups[g].values.len());
        let (mut items, mut keys, mut entry_values) = (Vec::new(), Vec::new(), Vec::new());
        for v in &groups[g].values {
            rows.push(match kind(v) {
                Kind::Item if v.is_none() => None,
                Kind::Item => {
                    primitives += 1;
                    None
                }
                sequence @ (Kind::List(_) | Kind::Tuple(_)) => {
                    lists += 1;
                    cycles.meet(depth, v);
                    push_sequence(&sequence, &mut items)
                }
                Kind::Dict(dict) => {
                    dicts += 1;
                    cycles.meet(depth, v);
                    // (Dicts made entities are read by attribute_groups.)
                    if !dict_as_obj && !push_entries(dict, &mut keys, &mut entry_values) {
                        return Ok(None);
                    }
                    Some(dict.len() as i64)
                }
                Kind::Other => return Ok(None),
            });
        }
        let kind = match (lists, dicts, primitives) {
            (0, 0, _) => GroupKind::Primitives,
            (_, 0, 0) => {
                groups.push(Group { values: items, depth: depth + 1, kind: GroupKind::Primitives });
                GroupKind::Lists { rows, items: groups.len() - 1 }
            }
            (0, _, 0) if dict_as_obj => {
                let Some((rows, attrs)) = attribute_groups(&groups[g].values)? else {
                    return Ok(None);
                };
                let mut groups_of = Vec::with_capacity(attrs.len());
                for (name, values) in attrs {
                    groups.push(Group { values, depth: depth + 1, kind: GroupKind::Primitives });
                    groups_of.push((name, groups.len() - 1));
                }
                GroupKind::Entities { rows, attrs: groups_of }
            }
            (0, _, 0) => {
                groups.push(Group { values: keys, depth: depth + 1, kind: GroupKind::Primitives });
                groups.push(Group { values: entry_values, depth: depth + 1, kind: GroupKind::Primitives });
                GroupKind::Dicts { rows, keys: groups.len() - 2, values: groups.len() - 1 }
            }
            // Values of several kinds: the general walk words Koda's error.
            _ => return Ok(None),
        };
        groups[g].kind = kind;
        g += 1;
    }
    Ok(Some(groups))
}

/// The attributes of dicts made entities: whether each value is present (a
/// dict, or None), and for each key (exact strs; the union, in the order
/// they first come) the values of the present dicts (None where a dict
/// lacks it). None when a key is not an exact str.
#[allow(clippy::type_complexity)]
fn attribute_groups<'py>(values: &[Bound<'py, PyAny>]) -> PyResult<Option<(Vec<bool>, Vec<(String, Vec<Bound<'py, PyAny>>)>)>> {
    let py = match values.first() {
        Some(v) => v.py(),
        None => return Ok(Some((Vec::new(), Vec::new()))),
    };
    let mut rows = Vec::with_capacity(values.len());
    let mut attrs: Vec<(String, Vec<Bound<'py, PyAny>>)> = Vec::new();
    let mut column_of: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut present = 0usize;
    for v in values {
        let Ok(dict) = v.cast_exact::<PyDict>() else {
            rows.push(false);
            continue;
        };
        rows.push(true);
        for (k, x) in dict.iter() {
            let Ok(name) = k.cast_exact::<PyString>() else { return Ok(None) };
            let Ok(name) = name.to_str() else { return Ok(None) };
            let column = match column_of.get(name) {
                Some(&c) => c,
                None => {
                    // A new name: None for the dicts before this one.
                    attrs.push((name.to_owned(), vec![py.None().into_bound(py); present]));
                    column_of.insert(name.to_owned(), attrs.len() - 1);
                    attrs.len() - 1
                }
            };
            attrs[column].1.push(x);
        }
        present += 1;
        // None where this dict lacks a name.
        for (_, column) in attrs.iter_mut() {
            if column.len() < present {
                column.push(py.None().into_bound(py));
            }
        }
    }
    Ok(Some((rows, attrs)))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(from_py_plain, m)?)?;
    m.add_function(wrap_pyfunction!(from_py_inferred, m)?)
}
