//! Nested lists, dicts and objects made level by level into one new bag:
//! what `kd.from_py` makes of plain Python values (lists, tuples, dicts and
//! primitives) under the OBJECT schema or with inferred schemas, in one call.
//!
//! The caller walks its values from the top down and describes each level's
//! containers ([`LevelContainers`]); the containers are then made from the
//! bottom up ([`NestedBuilder::make_level`]), each level's items (primitives
//! and the ids of the containers made from the level below) being the
//! children of the level above. Every list, dict and object is an OBJECT
//! item, its schema stored as `__schema__`, as `kd.obj` of it would store it.
//! With schemas inferred (`schema=None`), containers are made a group at a
//! time instead ([`NestedBuilder::typed_lists`], [`NestedBuilder::typed_dicts`],
//! [`NestedBuilder::typed_entities`]), of the schemas their contents have;
//! under a given schema, the same way ([`NestedBuilder::over`] that schema,
//! entities of it by [`NestedBuilder::entities_of`]).

use plait_core::bag::SCHEMA_ATTR;
use plait_core::{DataBag, DataSlice, Edge, ItemId, ItemKind, JaggedShape, Result, ScalarRef, Schema, SliceData};

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
    /// Whether `bag` was given (see [`Self::into_bag`]), not made here.
    given: bool,
}

impl NestedBuilder {
    pub fn new() -> NestedBuilder {
        NestedBuilder::default()
    }

    /// A builder writing into `bag`, the mutable bag the values are then
    /// assigned in (`e.a = [1, 2]`): nothing is merged afterwards. As in
    /// Koda, what was written stays there if the assignment then fails.
    pub fn into_bag(bag: &DataBag) -> Result<NestedBuilder> {
        if !bag.is_mutable() {
            return Err(plait_core::Error::value(OP, "the bag to write the values into is immutable"));
        }
        Ok(NestedBuilder { bag: Some(bag.clone()), given: true })
    }

    /// A builder for values of the given `schema` (a SCHEMA item): its bag
    /// brings along what the schema reaches, as `kd.new(schema=...)` does,
    /// so a struct schema's result has its attributes (even with no
    /// container made: `kd.from_py(None, schema=S)`).
    pub fn over(schema: &DataSlice) -> Result<NestedBuilder> {
        let brings_along = matches!(schema.get(0), Some(ScalarRef::Schema(Schema::Struct(_)))) && schema.bag().is_some();
        Ok(NestedBuilder { bag: if brings_along { Some(new_bag_over(OP, &[schema])?) } else { None }, given: false })
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
        let bag = self.bag()?;
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
            let n = containers.list_sizes.len();
            let (allocation, schema) = write_lists(bag, &containers.list_sizes, &items, Schema::Object)?;
            as_objects(bag, allocation, schema, n);
            made.lists = Ids::base(allocation);
        }
        if !containers.dict_sizes.is_empty() {
            let n = containers.dict_sizes.len();
            let (allocation, schema) = write_dicts(bag, &containers.dict_sizes, &keys, &values, (Schema::Object, Schema::Object))?;
            as_objects(bag, allocation, schema, n);
            made.dicts = Ids::base(allocation);
        }
        if containers.objects > 0 {
            let values = DataSlice::new(JaggedShape::flat(attr_values.len()), attr_values, Schema::Object)?;
            made.objects =
                super::create::write_objects_with_attrs_at(bag, containers.objects, &containers.attr_rows, &containers.attr_names, &values)?;
        }
        Ok(made)
    }

    /// The bag, made with the first container.
    fn bag(&mut self) -> Result<&DataBag> {
        if self.bag.is_none() {
            self.bag = Some(new_bag_over(OP, &[])?);
        }
        Ok(self.bag.as_ref().expect("made above"))
    }

    /// Inferred schemas (`schema=None`): lists of `rows` (the size of each
    /// present row, None for a missing value) holding `items` (1-D, without
    /// a bag): a 1-D slice of them, of schema LIST[items' schema].
    pub fn typed_lists(&mut self, rows: &[Option<i64>], items: &DataSlice) -> Result<DataSlice> {
        let sizes: Vec<i64> = rows.iter().flatten().copied().collect();
        let (allocation, schema) = write_lists(self.bag()?, &sizes, items.data(), items.schema())?;
        DataSlice::new(JaggedShape::flat(rows.len()), row_ids(allocation, rows), schema)
    }

    /// Inferred schemas: dicts of `rows` holding `keys` → `values` (1-D,
    /// without bags), as [`Self::typed_lists`]; their schema is DICT{keys'
    /// schema, values' schema}. Keys must be of a schema dicts take.
    pub fn typed_dicts(&mut self, rows: &[Option<i64>], keys: &DataSlice, values: &DataSlice) -> Result<DataSlice> {
        super::dicts::check_key_schema(OP, keys.schema())?;
        let sizes: Vec<i64> = rows.iter().flatten().copied().collect();
        let (allocation, schema) = write_dicts(self.bag()?, &sizes, keys.data(), values.data(), (keys.schema(), values.schema()))?;
        DataSlice::new(JaggedShape::flat(rows.len()), row_ids(allocation, rows), schema)
    }

    /// Inferred schemas, `dict_as_obj=True`: entities of one new schema for
    /// `rows` (whether each is present), the present ones taking `attrs`
    /// (1-D, one value per present row, without bags); the schema has each
    /// attribute of its values' schema.
    pub fn typed_entities(&mut self, rows: &[bool], attrs: &[(String, DataSlice)]) -> Result<DataSlice> {
        let schema_id = plait_core::itemid::allocate(ItemKind::Schema, 1).1[0];
        self.entities_of(schema_id, rows, attrs)
    }

    /// Entities of struct schema `schema_id` for `rows` (whether each is
    /// present), the present ones taking `attrs` (1-D, one value per present
    /// row, without bags). Attributes the schema lacks are added to it; the
    /// values of those it has are cast to their schemas, as `kd.new` does.
    pub fn entities_of(&mut self, schema_id: ItemId, rows: &[bool], attrs: &[(String, DataSlice)]) -> Result<DataSlice> {
        let sizes: Vec<Option<i64>> = rows.iter().map(|&present| present.then_some(0)).collect();
        let n = rows.iter().filter(|&&present| present).count();
        let (allocation, _) = fresh_allocation(ItemKind::Object, n);
        let ids = Ids::Whole { allocation, len: n };
        super::model::write_attrs(OP, self.bag()?, &ids, &super::model::Target::Struct(schema_id), attrs, false, true)?;
        DataSlice::new(JaggedShape::flat(rows.len()), row_ids(allocation, &sizes), Schema::Struct(schema_id))
    }

    /// The top values of inferred schemas (1-D, or the one item when
    /// `item`) with the bag, which holds exactly what they reach.
    pub fn finish_typed(self, top: DataSlice, item: bool) -> Result<DataSlice> {
        let shape = if item && top.size() == 1 { JaggedShape::scalar() } else { JaggedShape::flat(top.size()) };
        let top = top.with_shape(OP, shape)?;
        Ok(match self.bag {
            // (A given bag holds more than the values reach.)
            Some(bag) if self.given => top.with_bag(Some(bag)),
            Some(bag) => made_for(top.with_bag(Some(bag))),
            None => top,
        })
    }

    /// The top level's items (OBJECT; 1-D, or the one item when `item`)
    /// with the bag, which holds exactly what they reach.
    pub fn finish(self, top: SliceData, item: bool) -> Result<DataSlice> {
        let top = DataSlice::new(JaggedShape::flat(top.len()), top, Schema::Object)?;
        self.finish_typed(top, item)
    }
}

/// Lists of `sizes` holding `items` (of `item_schema`), made in `bag`: the
/// base of their ids, and their schema.
fn write_lists(bag: &DataBag, sizes: &[i64], items: &SliceData, item_schema: Schema) -> Result<(u64, Schema)> {
    let edge = Edge::from_sizes(sizes)?;
    let (allocation, _) = fresh_allocation(ItemKind::List, sizes.len());
    let schema = super::lists::fill_list_schema(bag, item_schema);
    bag.fill(|w| w.set_whole_lists(allocation, &edge, items));
    Ok((allocation, schema))
}

/// Dicts of `sizes` holding `keys` → `values` (of the given schemas), made
/// in `bag`: their allocation, and their schema.
fn write_dicts(bag: &DataBag, sizes: &[i64], keys: &SliceData, values: &SliceData, schemas: (Schema, Schema)) -> Result<(u64, Schema)> {
    let edge = Edge::from_sizes(sizes)?;
    let (allocation, _) = fresh_allocation(ItemKind::Dict, sizes.len());
    let base = Ids::base(allocation);
    let ids: Vec<Option<ItemId>> = (0..sizes.len()).map(|i| Some(ItemId(base + i as u128))).collect();
    let schema = super::dicts::fill_dict_schema(bag, schemas.0, schemas.1);
    bag.fill(|w| w.set_dicts(&ids, &edge, keys, values));
    Ok((allocation, schema))
}

/// Containers of `allocation` made as objects: each stores its `schema`
/// as `__schema__`.
fn as_objects(bag: &DataBag, allocation: u64, schema: Schema, n: usize) {
    bag.fill(|w| w.set_attr_column(SCHEMA_ATTR, allocation, &same_schema_data(schema, n), None));
}

/// The ids of `rows` (a size for each present row, None for a missing one)
/// of containers made for the present rows, in order, from `allocation`.
fn row_ids(allocation: u64, rows: &[Option<i64>]) -> SliceData {
    let base = Ids::base(allocation);
    let mut next = 0u128;
    let mut column = plait_core::column::ColumnBuilder::new(Schema::ItemId, rows.len());
    for row in rows {
        match row {
            Some(_) => {
                column.push(ScalarRef::ItemId(ItemId(base + next)));
                next += 1;
            }
            None => column.push_missing(),
        }
    }
    SliceData::from_column(column.finish())
}
