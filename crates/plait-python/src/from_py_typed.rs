//! `kd.from_py` of plain Python values under a given schema
//! (`kd.from_py(d, schema=Rec)`, `schema=kd.list_schema(...)`), in one call:
//! exact lists, tuples and dicts of exact ints, floats, strs, bytes, bools
//! and None, where the schema says lists, dicts, entities or primitives
//! (OBJECT parts are converted as `from_py_plain` converts them).
//!
//! The values are walked group by group from the top, as the inferred walk
//! of `from_py_plain` does, each group being the values one schema is given
//! for (a level's list items, dict keys, dict values, one attribute of its
//! entities); then each group is made, children before parents, in one bag
//! over the schema's ([`NestedBuilder::over`]). Anything the general walk
//! (`plait/kd/from_py.py`) has to refuse, word an error for, or convert
//! some other way (values that do not fit the schema, dataclasses,
//! DataItems, subclasses, nofollow or implicit schemas) makes the call
//! return None, and the general walk converts the values.

use plait_core::cast::cast_to_implicit;
use plait_core::itemid::ItemKind;
use plait_core::{DataSlice, ItemId, JaggedShape, ScalarRef, Schema};
use plait_ops::objects::nested::NestedBuilder;
use plait_ops::schema::layout::{Layout, Layouts};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use crate::cycles::CycleCheck;
use crate::errors::guard;
use crate::from_py_plain::{Kind, MAX_DEPTH, is_primitive, kind, plain_objects, push_entries, push_sequence, recursive_value};
use crate::py_slice::{PyDataSlice, wrap};

const OP: &str = "kd.from_py";

/// The values one schema is given for, and what is made of them.
struct Group<'py> {
    values: Vec<Bound<'py, PyAny>>,
    schema: Schema,
    depth: usize,
    /// Whether the values are an entity attribute's: Koda boxes those as
    /// they are (a float as FLOAT32) and then casts them; other
    /// primitives it boxes as the schema says (a float for FLOAT64 exact).
    attribute: bool,
    kind: GroupKind,
}

enum GroupKind {
    /// Only None: missing items of the group's schema, nothing below them.
    Missing,
    /// Primitives and None, cast to the group's (primitive) schema.
    Primitives,
    /// OBJECT: lists, dicts and primitives as `from_py_plain` makes them.
    Objects,
    /// Lists (and None): the size of each row, and the group of their items.
    Lists { rows: Vec<Option<i64>>, items: usize },
    /// Dicts (and None): the size of each row, and the groups of their keys
    /// and of their values.
    Dicts { rows: Vec<Option<i64>>, keys: usize, values: usize },
    /// Dicts as entities of the group's schema (and None): which rows are
    /// present, and the group of each of the schema's attributes.
    Entities { schema: ItemId, rows: Vec<bool>, attrs: Vec<(String, usize)> },
}

/// `kd.from_py(values, schema=schema)` of plain values: a 1-D slice of
/// `schema` (the DataItem of its one value when `item`), or None for the
/// general walk to convert (see the module docs).
#[pyfunction]
fn from_py_typed(
    py: Python<'_>,
    values: &Bound<'_, PyList>,
    schema: &Bound<'_, PyDataSlice>,
    dict_as_obj: bool,
    item: bool,
) -> PyResult<Option<Py<PyAny>>> {
    let schema_item = schema.get().inner.clone();
    let top_schema = match schema_item.get(0) {
        Some(ScalarRef::Schema(s)) if schema_item.is_item() && schema_item.schema() == Schema::Schema => s,
        _ => return Ok(None),
    };
    let layouts = Layouts::new(schema_item.bag());
    let Some(mut groups) = typed_groups(values, top_schema, &layouts, dict_as_obj)? else {
        return Ok(None);
    };
    let mut builder = guard(|| NestedBuilder::over(&schema_item))?;
    let mut made: Vec<Option<DataSlice>> = (0..groups.len()).map(|_| None).collect();
    // Children come after their parents: made from the last group back.
    for (g, group) in groups.iter_mut().enumerate().rev() {
        let slice = match &group.kind {
            GroupKind::Missing => DataSlice::missing(JaggedShape::flat(group.values.len()), group.schema),
            GroupKind::Primitives => match primitives(&group.values, group.schema, group.attribute)? {
                Some(slice) => slice,
                None => return Ok(None),
            },
            GroupKind::Objects => {
                let max_depth = MAX_DEPTH - group.depth;
                let Some(items) = plain_objects(py, &mut builder, std::mem::take(&mut group.values), dict_as_obj, max_depth)? else {
                    return Ok(None);
                };
                guard(|| DataSlice::new(JaggedShape::flat(items.len()), items, Schema::Object))?
            }
            GroupKind::Lists { rows, items } => {
                let items = take(&mut made, *items);
                match builder.typed_lists(rows, &items) {
                    Ok(lists) if lists.schema() == group.schema => lists,
                    _ => return Ok(None),
                }
            }
            GroupKind::Dicts { rows, keys, values } => {
                let (keys, values) = (take(&mut made, *keys), take(&mut made, *values));
                match builder.typed_dicts(rows, &keys, &values) {
                    Ok(dicts) if dicts.schema() == group.schema => dicts,
                    _ => return Ok(None),
                }
            }
            GroupKind::Entities { schema, rows, attrs } => {
                let attrs: Vec<(String, DataSlice)> = attrs.iter().map(|(name, group)| (name.clone(), take(&mut made, *group))).collect();
                let Ok(entities) = builder.entities_of(*schema, rows, &attrs) else { return Ok(None) };
                entities
            }
        };
        made[g] = Some(slice);
    }
    let top = take(&mut made, 0);
    Ok(Some(wrap(py, guard(|| builder.finish_typed(top, item))?)?))
}

/// The groups of the walk, the top one first; None when some value does
/// not fit its schema plainly (see the module docs).
fn typed_groups<'py>(values: &Bound<'py, PyList>, schema: Schema, layouts: &Layouts<'_>, dict_as_obj: bool) -> PyResult<Option<Vec<Group<'py>>>> {
    let py = values.py();
    let mut groups = vec![Group { values: values.iter().collect(), schema, depth: 0, attribute: false, kind: GroupKind::Primitives }];
    let mut cycles = CycleCheck::default();
    let mut g = 0;
    while g < groups.len() {
        let (depth, schema) = (groups[g].depth, groups[g].schema);
        if depth > MAX_DEPTH {
            return Ok(None);
        }
        // (Groups come in order of depth: every container above was met.)
        if cycles.found(depth) {
            return Err(recursive_value());
        }
        let kind = match schema {
            // Nothing present: missing items of the schema, with nothing
            // below them to walk (a recursive schema would go on forever).
            // (Not under NONE, SCHEMA or ITEMID: Koda refuses a first None
            // there, as the general walk does.)
            _ if !matches!(schema, Schema::None | Schema::Schema | Schema::ItemId) && groups[g].values.iter().all(|v| v.is_none()) => {
                GroupKind::Missing
            }
            Schema::Object => GroupKind::Objects,
            Schema::Int32 | Schema::Int64 | Schema::Float32 | Schema::Float64 | Schema::Boolean | Schema::Mask | Schema::Bytes | Schema::String => {
                GroupKind::Primitives
            }
            Schema::Struct(id) if id.kind() == ItemKind::Schema && layouts.has_bag() => match &*layouts.of(id) {
                Layout::List(item_schema) => {
                    let mut rows = Vec::with_capacity(groups[g].values.len());
                    let mut items = Vec::new();
                    for v in &groups[g].values {
                        rows.push(match kind(v) {
                            Kind::Item if v.is_none() => None,
                            sequence @ (Kind::List(_) | Kind::Tuple(_)) => {
                                cycles.meet(depth, v);
                                push_sequence(&sequence, &mut items)
                            }
                            _ => return Ok(None),
                        });
                    }
                    groups.push(Group { values: items, schema: *item_schema, depth: depth + 1, attribute: false, kind: GroupKind::Primitives });
                    GroupKind::Lists { rows, items: groups.len() - 1 }
                }
                // The general walk refuses dicts under a dict schema with
                // `dict_as_obj=True`.
                Layout::Dict(..) if dict_as_obj => return Ok(None),
                Layout::Dict(key_schema, value_schema) => {
                    let mut rows = Vec::with_capacity(groups[g].values.len());
                    let (mut keys, mut entry_values) = (Vec::new(), Vec::new());
                    for v in &groups[g].values {
                        rows.push(match kind(v) {
                            Kind::Item if v.is_none() => None,
                            Kind::Dict(dict) => {
                                cycles.meet(depth, v);
                                if !push_entries(dict, &mut keys, &mut entry_values) {
                                    return Ok(None);
                                }
                                Some(dict.len() as i64)
                            }
                            _ => return Ok(None),
                        });
                    }
                    groups.push(Group { values: keys, schema: *key_schema, depth: depth + 1, attribute: false, kind: GroupKind::Primitives });
                    groups.push(Group {
                        values: entry_values,
                        schema: *value_schema,
                        depth: depth + 1,
                        attribute: false,
                        kind: GroupKind::Primitives,
                    });
                    GroupKind::Dicts { rows, keys: groups.len() - 2, values: groups.len() - 1 }
                }
                Layout::Entity(_, attr_schemas) => {
                    let Some((rows, columns)) = entity_columns(py, &groups[g].values, attr_schemas, depth, &mut cycles)? else {
                        return Ok(None);
                    };
                    let mut attrs = Vec::with_capacity(columns.len());
                    for ((name, attr_schema), values) in attr_schemas.iter().zip(columns) {
                        groups.push(Group { values, schema: *attr_schema, depth: depth + 1, attribute: true, kind: GroupKind::Primitives });
                        attrs.push((name.clone(), groups.len() - 1));
                    }
                    GroupKind::Entities { schema: id, rows, attrs }
                }
            },
            _ => return Ok(None),
        };
        groups[g].kind = kind;
        g += 1;
    }
    Ok(Some(groups))
}

/// The attribute values of dicts made entities of a schema with
/// `attr_schemas`: whether each value is present (a dict, or None), and for
/// each attribute the values of the present dicts (None where a dict lacks
/// it). None when a value is not an exact dict or None, or a dict has a key
/// that is not an exact str (the general walk raises Koda's error).
#[allow(clippy::type_complexity)]
fn entity_columns<'py>(
    py: Python<'py>,
    values: &[Bound<'py, PyAny>],
    attr_schemas: &[(String, Schema)],
    depth: usize,
    cycles: &mut CycleCheck,
) -> PyResult<Option<(Vec<bool>, Vec<Vec<Bound<'py, PyAny>>>)>> {
    // (Interned, as the keys of dicts written in code are: a lookup then
    // finds its key by identity.)
    let names: Vec<Bound<'py, PyString>> = attr_schemas.iter().map(|(name, _)| PyString::intern(py, name)).collect();
    let mut rows = Vec::with_capacity(values.len());
    let mut columns: Vec<Vec<Bound<'py, PyAny>>> = names.iter().map(|_| Vec::with_capacity(values.len())).collect();
    for v in values {
        if v.is_none() {
            rows.push(false);
            continue;
        }
        let Ok(dict) = v.cast_exact::<PyDict>() else { return Ok(None) };
        cycles.meet(depth, v);
        rows.push(true);
        let mut found = 0;
        for (name, column) in names.iter().zip(columns.iter_mut()) {
            // (An error can only come from a key's own `__eq__`: not plain.)
            column.push(match dict.get_item(name) {
                Ok(Some(x)) => {
                    found += 1;
                    x
                }
                Ok(None) => py.None().into_bound(py),
                Err(_) => return Ok(None),
            });
        }
        // Keys besides the attributes' are left out, but must be strs.
        if dict.len() > found && !keys_are_exact_strs(dict) {
            return Ok(None);
        }
    }
    Ok(Some((rows, columns)))
}

/// Whether every key of `dict` is an exact str (read without making the
/// list of keys `dict.keys()` would).
fn keys_are_exact_strs(dict: &Bound<'_, PyDict>) -> bool {
    let mut position: pyo3::ffi::Py_ssize_t = 0;
    let mut key: *mut pyo3::ffi::PyObject = std::ptr::null_mut();
    let mut value: *mut pyo3::ffi::PyObject = std::ptr::null_mut();
    // SAFETY: `dict` is a live dict, and no Python code runs while its
    // entries are read: PyDict_Next hands out borrowed pointers into it,
    // read here only for their type.
    unsafe {
        while pyo3::ffi::PyDict_Next(dict.as_ptr(), &mut position, &mut key, &mut value) != 0 {
            if pyo3::ffi::PyUnicode_CheckExact(key) == 0 {
                return false;
            }
        }
    }
    true
}

/// Primitives and None as a 1-D slice of primitive `schema`, cast by the
/// implicit rules (INT32 to INT64 yes, INT32 to STRING no) as the general
/// walk casts them; None when a value is not a plain primitive or does not
/// cast (the general walk words the error). Floats for FLOAT64 keep all
/// their digits unless they are an `attribute`'s (see [`Group`]).
fn primitives(values: &[Bound<'_, PyAny>], schema: Schema, attribute: bool) -> PyResult<Option<DataSlice>> {
    // (The fast paths take only plain values: most levels are checked by
    // boxing them.)
    let boxed = match crate::boxing::box_values_fast(values) {
        Ok(Some(boxed)) => boxed,
        Ok(None) if values.iter().all(is_primitive) => match crate::boxing::box_values(OP, values) {
            Ok(boxed) => boxed,
            Err(_) => return Ok(None),
        },
        _ => return Ok(None),
    };
    if boxed.present_count() == 0 {
        return Ok(Some(guard(|| boxed.with_schema(schema))?));
    }
    if schema == Schema::Float64 && boxed.schema() == Schema::Float32 && !attribute {
        let py = values[0].py();
        return Ok(crate::boxing::box_slice(OP, PyList::new(py, values)?.as_any(), Some(Schema::Float64)).ok());
    }
    Ok(cast_to_implicit(OP, &boxed, schema).ok())
}

/// The slice made of group `g`, taken by its parent.
fn take(made: &mut [Option<DataSlice>], g: usize) -> DataSlice {
    made[g].take().expect("made before its parent")
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(from_py_typed, m)?)
}
