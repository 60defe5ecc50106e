//! The native `to_py` walk of lists, dicts, entities and objects: the walk
//! of `plait/kd/conversion.py` (`_Converter`) without its per-call Python
//! machinery, giving the same Python values.
//!
//! Items are converted a 1-D slice at a time, one kind (lists, dicts,
//! entities) at a time, with one vectorised read of the items below them
//! ([`crate::to_py_reads`]); each list, dict, entity and object becomes one
//! Python value, made (empty) when first met and filled when the level
//! below is converted, so an item met again (shared, or inside itself) is
//! that same value. The data is walked a level at a time (a loop, no
//! recursion). Anything unusual — nofollow schemas, attributes without a
//! common schema across objects, data deeper than `max_levels`, any error
//! of a read — stops the walk with [`Stop::Python`]: the Python walk then
//! converts the slice (or raises) as it always did.

use std::collections::{HashMap, HashSet};

use foldhash::fast::RandomState;
use plait_core::{DataSlice, Edge, ItemId, ScalarRef, Schema};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use crate::py_slice::wrap;
use crate::to_py_reads::{self as reads, Kind};
use crate::unboxing::item_to_py;

/// The arguments of `to_py`.
pub struct Options {
    /// Levels converted (negative: no limit); deeper items stay DataItems.
    pub max_depth: i64,
    pub obj_as_dict: bool,
    pub include_missing_attrs: bool,
    /// The most levels walked before handing over to Python (whose walk
    /// raises past them).
    pub max_levels: usize,
}

/// Why the walk stopped before its end.
pub enum Stop {
    /// The slice is for the Python walk to convert.
    Python,
    /// A Python call failed (making a value, setting an attribute).
    Raised(PyErr),
}

impl From<PyErr> for Stop {
    fn from(err: PyErr) -> Stop {
        Stop::Raised(err)
    }
}

impl From<plait_core::Error> for Stop {
    fn from(_: plait_core::Error) -> Stop {
        Stop::Python
    }
}

type Step<T> = Result<T, Stop>;

/// The items of 1-D slice `flat` as Python values; entities and objects
/// with attributes are instances of `obj_class` (unless `obj_as_dict`).
///
/// The data is walked breadth first, a level at a time: every item is
/// converted at the least depth it is reached at (as Koda), so whether it
/// is within `max_depth` does not depend on the path that reaches it first.
pub fn walk<'py>(py: Python<'py>, flat: DataSlice, options: &Options, obj_class: &Bound<'py, PyAny>) -> Step<Vec<Bound<'py, PyAny>>> {
    let mut walk = Walk { py, options, obj_class, made: HashMap::default() };
    let mut top = None;
    let mut level: Vec<(DataSlice, Option<Fill<'py>>)> = vec![(flat, None)];
    let mut depth = 0;
    while !level.is_empty() {
        if depth > options.max_levels {
            return Err(Stop::Python);
        }
        let mut below = Vec::new();
        for (items, fill) in level {
            let values = walk.convert(&items, depth, &mut below)?;
            match fill {
                Some(fill) => fill.fill(&values)?,
                None => top = Some(values),
            }
        }
        level = below;
        depth += 1;
    }
    top.ok_or(Stop::Python)
}

struct Walk<'a, 'py> {
    py: Python<'py>,
    options: &'a Options,
    obj_class: &'a Bound<'py, PyAny>,
    /// The Python value of each list, dict, entity and object converted.
    made: HashMap<ItemId, Bound<'py, PyAny>, RandomState>,
}

/// The items of a level below and what their values fill.
type Below<'py> = Vec<(DataSlice, Option<Fill<'py>>)>;

/// Python values made before the items inside them, and how the values of
/// those items fill them.
enum Fill<'py> {
    /// Lists, each taking its row (by `edge`) of the values.
    Lists { targets: Vec<Bound<'py, PyList>>, edge: Edge },
    /// Dicts, each taking its row of `keys` with the values.
    Dicts { targets: Vec<Bound<'py, PyDict>>, keys: Vec<Bound<'py, PyAny>>, edge: Edge },
    /// Entities (`Obj`s, or dicts when `as_dict`), one value each for
    /// attribute `name` (left out where `present` says the value is
    /// missing).
    Attr { name: Bound<'py, PyString>, targets: Vec<Bound<'py, PyAny>>, present: Option<Vec<bool>>, as_dict: bool },
}

impl<'py> Walk<'_, 'py> {
    /// The items of 1-D slice `flat`, `depth` levels down, as Python
    /// values: lists, dicts and entities not met before are made (empty),
    /// and what fills them goes to `below`.
    fn convert(&mut self, flat: &DataSlice, depth: usize, below: &mut Below<'py>) -> Step<Vec<Bound<'py, PyAny>>> {
        let py = self.py;
        if reads::converts_natively(flat) {
            return (0..flat.size()).map(|i| primitive_to_py(py, flat.get(i))).collect();
        }
        if flat.schema().is_nofollow() {
            return Err(Stop::Python);
        }
        // Too deep: structured items stay DataItems (as in Koda), unless
        // they were converted already.
        let too_deep = 0 <= self.options.max_depth && self.options.max_depth <= depth as i64;
        let mut out = if too_deep { leaves(py, flat)? } else { vec![py.None().into_bound(py); flat.size()] };
        for part in reads::parts_by_kind(flat)? {
            if part.kind == Kind::Primitive {
                if !too_deep {
                    for &p in &part.positions {
                        out[p] = primitive_to_py(py, flat.get(p))?;
                    }
                }
                continue;
            }
            let ids = reads::ids(&part.items)?;
            if !too_deep {
                self.make(part.kind, &part.items, &ids, below)?;
            }
            for (&p, id) in part.positions.iter().zip(&ids) {
                if let Some(value) = self.made.get(id) {
                    out[p] = value.clone();
                }
            }
        }
        Ok(out)
    }

    /// Makes the values of `items` (of `kind` and ids `ids`) not made yet,
    /// each once.
    fn make(&mut self, kind: Kind, items: &DataSlice, ids: &[ItemId], below: &mut Below<'py>) -> Step<()> {
        let mut seen = HashSet::with_hasher(RandomState::default());
        let fresh: Vec<usize> = (0..ids.len()).filter(|&k| !self.made.contains_key(&ids[k]) && seen.insert(ids[k])).collect();
        if fresh.is_empty() {
            return Ok(());
        }
        let items = if fresh.len() == ids.len() { items.clone() } else { reads::take(items, &fresh)? };
        let fresh_ids: Vec<ItemId> = fresh.iter().map(|&k| ids[k]).collect();
        match kind {
            Kind::List => self.lists(&items, &fresh_ids, below),
            Kind::Dict => self.dicts(&items, &fresh_ids, below),
            Kind::Entity => self.entities(&items, &fresh_ids, below),
            Kind::Primitive => Ok(()),
        }
    }

    fn record(&mut self, id: ItemId, value: &Bound<'py, PyAny>) {
        self.made.insert(id, value.clone());
    }

    fn lists(&mut self, lists: &DataSlice, ids: &[ItemId], below: &mut Below<'py>) -> Step<()> {
        expect_kind(ids, ItemId::is_list, "lists")?;
        let (items, edge) = reads::list_items(lists)?;
        let targets: Vec<Bound<'py, PyList>> = ids.iter().map(|_| PyList::empty(self.py)).collect();
        for (id, target) in ids.iter().zip(&targets) {
            self.record(*id, target.as_any());
        }
        below.push((items, Some(Fill::Lists { targets, edge })));
        Ok(())
    }

    fn dicts(&mut self, dicts: &DataSlice, ids: &[ItemId], below: &mut Below<'py>) -> Step<()> {
        expect_kind(ids, ItemId::is_dict, "dicts")?;
        let (keys, values, edge) = reads::dict_entries(dicts)?;
        // Entity, list and dict keys stay DataItems: their Python forms
        // could not be keys.
        let keys = leaves(self.py, &keys)?;
        let targets: Vec<Bound<'py, PyDict>> = ids.iter().map(|_| PyDict::new(self.py)).collect();
        for (id, target) in ids.iter().zip(&targets) {
            self.record(*id, target.as_any());
        }
        below.push((values, Some(Fill::Dicts { targets, keys, edge })));
        Ok(())
    }

    /// Entities and objects: each attribute read once, for the items whose
    /// schema declares it. An item whose schema declares none is an empty
    /// dict (as in Koda). A list or dict id under an entity schema is an
    /// empty list or dict, which then takes no attributes (as in Koda:
    /// setting one raises AttributeError).
    fn entities(&mut self, holders: &DataSlice, ids: &[ItemId], below: &mut Below<'py>) -> Step<()> {
        let Some((declares, attrs)) = reads::attributes(holders)? else { return Err(Stop::Python) };
        let options = self.options;
        let mut targets = Vec::with_capacity(ids.len());
        for (id, declares) in ids.iter().zip(declares) {
            let target = if id.is_list() {
                PyList::empty(self.py).into_any()
            } else if declares && !options.obj_as_dict && !id.is_dict() {
                self.obj_class.call0()?
            } else {
                PyDict::new(self.py).into_any()
            };
            self.record(*id, &target);
            targets.push(target);
        }
        for attr in attrs {
            // Leaving missing attributes out is for dicts (as Koda: an
            // `Obj` lists every attribute of its schema).
            let present = (!options.include_missing_attrs && options.obj_as_dict)
                .then(|| (0..attr.values.size()).map(|k| attr.values.get(k).is_some()).collect());
            let name = PyString::intern(self.py, &attr.name);
            let targets = attr.positions.iter().map(|&j| targets[j].clone()).collect();
            below.push((attr.values, Some(Fill::Attr { name, targets, present, as_dict: options.obj_as_dict })));
        }
        Ok(())
    }
}

impl<'py> Fill<'py> {
    fn fill(self, values: &[Bound<'py, PyAny>]) -> Step<()> {
        match self {
            Fill::Lists { targets, edge } => {
                for (p, target) in targets.iter().enumerate() {
                    for value in values.get(edge.child_range(p)).ok_or(Stop::Python)? {
                        target.append(value)?;
                    }
                }
            }
            Fill::Dicts { targets, keys, edge } => {
                for (p, target) in targets.iter().enumerate() {
                    let range = edge.child_range(p);
                    let row = keys.get(range.clone()).zip(values.get(range)).ok_or(Stop::Python)?;
                    for (key, value) in row.0.iter().zip(row.1) {
                        target.set_item(key, value)?;
                    }
                }
            }
            Fill::Attr { name, targets, present, as_dict } => {
                for (k, target) in targets.iter().enumerate() {
                    if present.as_ref().is_some_and(|present| !present[k]) {
                        continue;
                    }
                    let value = values.get(k).ok_or(Stop::Python)?;
                    match target.cast::<PyDict>() {
                        Ok(dict) if as_dict => dict.set_item(&name, value)?,
                        _ => target.setattr(&name, value)?,
                    }
                }
            }
        }
        Ok(())
    }
}

/// Stops the walk with Koda's error where an item of a list (dict) schema
/// is not a list (dict).
fn expect_kind(ids: &[ItemId], is_kind: fn(ItemId) -> bool, kinds: &str) -> Step<()> {
    match ids.iter().find(|&&id| !is_kind(id)) {
        Some(id) => Err(Stop::Raised(pyo3::exceptions::PyValueError::new_err(format!("kd.to_py: {kinds} expected, got {}", id.repr())))),
        None => Ok(()),
    }
}

/// The items of 1-D slice `flat` as Python values, with masks, schemas,
/// entities, lists and dicts left as DataItems (of `flat`'s schema and bag,
/// as `flat.S[i]`).
fn leaves<'py>(py: Python<'py>, flat: &DataSlice) -> Step<Vec<Bound<'py, PyAny>>> {
    let mut out = Vec::with_capacity(flat.size());
    for i in 0..flat.size() {
        let value = match flat.get(i) {
            Some(ScalarRef::Schema(Schema::Struct(_))) => return Err(Stop::Raised(struct_schema_error())),
            Some(item @ (ScalarRef::Mask | ScalarRef::Schema(_) | ScalarRef::ItemId(_) | ScalarRef::Expr(_))) => {
                wrap(py, DataSlice::item(Some(item), flat.schema())?.with_bag(flat.bag().cloned()))?
            }
            item => item_to_py(py, item)?,
        };
        out.push(value.into_bound(py));
    }
    Ok(out)
}

/// A primitive (or schema) item as a Python value; a struct schema is
/// Koda's error.
fn primitive_to_py<'py>(py: Python<'py>, item: Option<ScalarRef<'_>>) -> Step<Bound<'py, PyAny>> {
    if let Some(ScalarRef::Schema(Schema::Struct(_))) = item {
        return Err(Stop::Raised(struct_schema_error()));
    }
    Ok(item_to_py(py, item)?.into_bound(py))
}

/// Koda's refusal of a struct schema (an entity, list or dict schema) as a
/// value to convert: it has no Python form.
pub fn struct_schema_error() -> PyErr {
    pyo3::exceptions::PyValueError::new_err("kd.to_py: schema is not supported in to_py conversion")
}
