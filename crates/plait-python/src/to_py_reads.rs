//! The bag reads of the native `to_py` walk ([`crate::to_py_walk`]), each
//! through the plait-ops operator the Python walk (`plait/kd/conversion.py`)
//! calls: which items of a 1-D slice are lists, dicts or entities, and the
//! items one level below them. Pure Rust: no Python value is made here.

use plait_core::bag::text::{DICT_KEYS_ATTR, LIST_ITEMS_ATTR};
use plait_core::{DataSlice, Edge, Error, ItemId, ItemKind, JaggedShape, Result, ScalarRef, Schema};
use plait_ops::objects::{access, dicts, lists, model};

const OP: &str = "kd.to_py";

/// What an item is, for `to_py`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    Primitive,
    List,
    Dict,
    /// An entity or an object with attributes.
    Entity,
}

/// The present items of one kind of a 1-D slice.
pub struct Part {
    pub kind: Kind,
    /// Where the items are in the slice.
    pub positions: Vec<usize>,
    /// The items (the slice itself when it is all of them).
    pub items: DataSlice,
}

/// The present items of 1-D slice `flat` (of OBJECT or a struct schema) by
/// kind, in the order the walk converts them: primitives, lists, dicts,
/// entities. An item of none of the kinds (a struct schema among objects)
/// is in no part, as for the Python walk's `kd.has_*` masks.
pub fn parts_by_kind(flat: &DataSlice) -> Result<Vec<Part>> {
    let n = flat.size();
    let mut positions: [Vec<usize>; 4] = Default::default();
    match flat.schema() {
        Schema::Struct(id) => {
            let declares = |attr| flat.bag().and_then(|bag| model::attr_schema(bag, id, attr)).is_some();
            let kind = if declares(LIST_ITEMS_ATTR) {
                Kind::List
            } else if declares(DICT_KEYS_ATTR) {
                Kind::Dict
            } else {
                Kind::Entity
            };
            positions[kind as usize] = (0..n).filter(|&i| flat.get(i).is_some()).collect();
        }
        _ => {
            for i in 0..n {
                let kind = match flat.get(i) {
                    None | Some(ScalarRef::Schema(Schema::Struct(_))) => continue,
                    Some(ScalarRef::ItemId(id)) => match id.kind() {
                        ItemKind::List => Kind::List,
                        ItemKind::Dict => Kind::Dict,
                        ItemKind::Object => Kind::Entity,
                        _ => continue,
                    },
                    Some(_) => Kind::Primitive,
                };
                positions[kind as usize].push(i);
            }
        }
    }
    let kinds = [Kind::Primitive, Kind::List, Kind::Dict, Kind::Entity];
    let mut parts = Vec::new();
    for (kind, positions) in kinds.into_iter().zip(positions) {
        if !positions.is_empty() {
            let items = if positions.len() == n { flat.clone() } else { take(flat, &positions)? };
            parts.push(Part { kind, positions, items });
        }
    }
    Ok(parts)
}

/// The ids of items that are all present ids (the items of a [`Part`] of
/// lists, dicts or entities).
pub fn ids(items: &DataSlice) -> Result<Vec<ItemId>> {
    model::ids_of(items).into_iter().map(|id| id.ok_or_else(|| Error::internal("kd.to_py: an item without an id"))).collect()
}

/// The items of 1-D slice `flat` at `positions`, as a 1-D slice.
pub fn take(flat: &DataSlice, positions: &[usize]) -> Result<DataSlice> {
    Ok(DataSlice::new(JaggedShape::flat(positions.len()), flat.data().take(positions), flat.schema())?.with_bag(flat.bag().cloned()))
}

/// The items of lists `lists` (1-D, all present), one list after another,
/// and the edge from the lists to them.
pub fn list_items(lists: &DataSlice) -> Result<(DataSlice, Edge)> {
    flat_rows(lists::explode(lists, 1)?)
}

/// The keys and the values of dicts `dicts` (1-D, all present), one dict
/// after another, and the edge from the dicts to them.
pub fn dict_entries(dicts: &DataSlice) -> Result<(DataSlice, DataSlice, Edge)> {
    let (keys, edge) = flat_rows(dicts::get_keys(dicts)?)?;
    let (values, _) = flat_rows(dicts::get_values(dicts, None)?)?;
    if values.size() != keys.size() {
        return Err(Error::internal("kd.to_py: dict keys and values differ in number"));
    }
    Ok((keys, values, edge))
}

/// One attribute of entities or objects, as [`attributes`] reads it.
pub struct Attr {
    pub name: String,
    /// The entities whose schema declares it.
    pub positions: Vec<usize>,
    /// Its values there (1-D).
    pub values: DataSlice,
}

/// The attributes of entities or objects `holders` (1-D, all present): for
/// each item whether its schema declares any attribute, and each attribute
/// some schema declares (in name order) with its values where declared.
/// `None` where the walk leaves the conversion to Python: an attribute
/// declared nofollow, or objects whose schemas give an attribute schemas
/// with no common one (read one object at a time there).
pub fn attributes(holders: &DataSlice) -> Result<Option<(Vec<bool>, Vec<Attr>)>> {
    let n = holders.size();
    let is_object = holders.schema() == Schema::Object;
    let declared = access::declared_attrs(holders)?;
    let mut declares = vec![false; n];
    let mut attrs = Vec::with_capacity(declared.len());
    for (name, positions, nofollow) in declared {
        if nofollow.iter().any(|&skip| skip) {
            return Ok(None);
        }
        for &j in &positions {
            declares[j] = true;
        }
        let at = if positions.len() == n { holders.clone() } else { take(holders, &positions)? };
        let values = if is_object {
            match access::maybe(&at, &name) {
                Ok(values) => values,
                Err(_) => return Ok(None),
            }
        } else {
            access::get_attr(&at, &name, None)?
        };
        attrs.push(Attr { name, positions, values });
    }
    Ok(Some((declares, attrs)))
}

/// Whether `to_py` of slice `x` is the conversion of its items one by one
/// (no lists, dicts, entities or objects to walk).
pub fn converts_natively(x: &DataSlice) -> bool {
    !matches!(x.schema(), Schema::Object | Schema::Struct(_)) || x.bag().is_none()
}

/// A 2-D slice of rows as its items (1-D) and the edge of its rows.
fn flat_rows(rows: DataSlice) -> Result<(DataSlice, Edge)> {
    let edge = rows.shape().edges().last().cloned().ok_or_else(|| Error::internal("kd.to_py: rows without a dimension"))?;
    let items = rows.with_shape(OP, JaggedShape::flat(rows.size()))?;
    Ok((items, edge))
}
