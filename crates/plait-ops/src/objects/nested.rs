//! Nested lists, dicts and objects made level by level into one new bag:
//! what `kd.from_py` makes of plain Python values (lists, tuples, dicts and
//! primitives) under the OBJECT schema, in one call.
//!
//! The caller walks its values from the top down and describes each level's
//! containers ([`LevelContainers`]); the containers are then made from the
//! bottom up ([`NestedBuilder::make_level`]), each level's items (primitives
//! and the ids of the containers made from the level below) being the
//! children of the level above. Every list, dict and object is an OBJECT
//! item, its schema stored as `__schema__`, as `kd.obj` of it would store it.

use plait_core::bag::SCHEMA_ATTR;
use plait_core::{DataBag, DataSlice, Edge, ItemId, ItemKind, JaggedShape, Result, Schema, SliceData};

use super::model::{Ids, fresh_allocation, made_for, new_bag_over, same_schema_data};

const OP: &str = "kd.from_py";

/// The containers of one level, in the order they come: their sizes, and
/// for objects the names of their attributes. Their children, in the level
/// below, are the items of all the lists, then the keys of all the dicts,
/// then their values, then the attribute values of all the objects.
#[derive(Debug, Default)]
pub struct LevelContainers {
    pub list_sizes: Vec<i64>,
    pub dict_sizes: Vec<i64>,
    /// How many objects (dicts made objects, `dict_as_obj=True`).
    pub objects: usize,
    /// The object of each attribute (ascending), and its name.
    pub attr_rows: Vec<usize>,
    pub attr_names: Vec<String>,
}

impl LevelContainers {
    pub fn is_empty(&self) -> bool {
        self.list_sizes.is_empty() && self.dict_sizes.is_empty() && self.objects == 0
    }

    /// How many children the level below holds.
    pub fn children(&self) -> usize {
        let list_items: i64 = self.list_sizes.iter().sum();
        let entries: i64 = self.dict_sizes.iter().sum();
        list_items as usize + 2 * entries as usize + self.attr_rows.len()
    }
}

/// The ids of a level's containers, once made: the `i`-th list of the level
/// is `list_id(i)`, and so on.
#[derive(Debug, Default)]
pub struct MadeLevel {
    lists: u128,
    dicts: u128,
    objects: Vec<i128>,
}

impl MadeLevel {
    pub fn list_id(&self, i: usize) -> ItemId {
        ItemId(self.lists + i as u128)
    }

    pub fn dict_id(&self, i: usize) -> ItemId {
        ItemId(self.dicts + i as u128)
    }

    pub fn object_id(&self, i: usize) -> ItemId {
        ItemId(self.objects[i] as u128)
    }
}

/// The bag the levels are made in (made with the first container: values
/// with none get no bag, as a slice of primitives has none).
#[derive(Default)]
pub struct NestedBuilder {
    bag: Option<DataBag>,
}

impl NestedBuilder {
    pub fn new() -> NestedBuilder {
        NestedBuilder::default()
    }

    /// Makes the containers of a level from `children` (the items of the
    /// level below, OBJECT, in the order [`LevelContainers`] says).
    pub fn make_level(&mut self, containers: &LevelContainers, children: &SliceData) -> Result<MadeLevel> {
        if children.len() != containers.children() {
            return Err(plait_core::Error::value(OP, "the values below a level do not match its containers"));
        }
        let mut made = MadeLevel::default();
        if containers.is_empty() {
            return Ok(made);
        }
        if self.bag.is_none() {
            self.bag = Some(new_bag_over(OP, &[])?);
        }
        let bag = self.bag.as_ref().expect("made above");
        let list_items: usize = containers.list_sizes.iter().sum::<i64>() as usize;
        let entries: usize = containers.dict_sizes.iter().sum::<i64>() as usize;
        let mut at = 0;
        // (Most levels hold one kind of container: the whole of `children`,
        // and nothing for the others, need no slicing.)
        let mut next = |len: usize| {
            let range = at..at + len;
            at += len;
            match len {
                0 => SliceData::missing(0),
                _ if len == children.len() => children.clone(),
                _ => children.range(range),
            }
        };
        let (items, keys, values, attr_values) = (next(list_items), next(entries), next(entries), next(containers.attr_rows.len()));
        if !containers.list_sizes.is_empty() {
            made.lists = make_lists(bag, &containers.list_sizes, &items)?;
        }
        if !containers.dict_sizes.is_empty() {
            made.dicts = make_dicts(bag, &containers.dict_sizes, &keys, &values)?;
        }
        if containers.objects > 0 {
            let values = DataSlice::new(JaggedShape::flat(attr_values.len()), attr_values, Schema::Object)?;
            made.objects =
                super::create::write_objects_with_attrs_at(bag, containers.objects, &containers.attr_rows, &containers.attr_names, &values)?;
        }
        Ok(made)
    }

    /// The top level's items (OBJECT; 1-D, or the one item when `item`)
    /// with the bag, which holds exactly what they reach.
    pub fn finish(self, top: SliceData, item: bool) -> Result<DataSlice> {
        let shape = if item && top.len() == 1 { JaggedShape::scalar() } else { JaggedShape::flat(top.len()) };
        let items = DataSlice::new(shape, top, Schema::Object)?;
        Ok(match self.bag {
            Some(bag) => made_for(items.with_bag(Some(bag))),
            None => items,
        })
    }
}

/// Lists of `sizes` holding `items`, OBJECT items of schema LIST[OBJECT]:
/// the base of their ids.
fn make_lists(bag: &DataBag, sizes: &[i64], items: &SliceData) -> Result<u128> {
    let edge = Edge::from_sizes(sizes)?;
    let (allocation, _) = fresh_allocation(ItemKind::List, sizes.len());
    let schema = super::lists::fill_list_schema(bag, Schema::Object);
    bag.fill(|w| {
        w.set_whole_lists(allocation, &edge, items);
        w.set_attr_column(SCHEMA_ATTR, allocation, &same_schema_data(schema, sizes.len()), None);
    });
    Ok(Ids::base(allocation))
}

/// Dicts of `sizes` holding `keys` → `values`, OBJECT items of schema
/// DICT{OBJECT, OBJECT}: the base of their ids.
fn make_dicts(bag: &DataBag, sizes: &[i64], keys: &SliceData, values: &SliceData) -> Result<u128> {
    let edge = Edge::from_sizes(sizes)?;
    let (allocation, _) = fresh_allocation(ItemKind::Dict, sizes.len());
    let base = Ids::base(allocation);
    let ids: Vec<Option<ItemId>> = (0..sizes.len()).map(|i| Some(ItemId(base + i as u128))).collect();
    let schema = super::dicts::fill_dict_schema(bag, Schema::Object, Schema::Object);
    bag.fill(|w| {
        w.set_dicts(&ids, &edge, keys, values);
        w.set_attr_column(SCHEMA_ATTR, allocation, &same_schema_data(schema, sizes.len()), None);
    });
    Ok(base)
}
