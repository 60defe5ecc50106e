//! Lists: `kd.implode` / `kd.explode`, `kd.lists.get_item` (`l[i]`),
//! `kd.list_size`, `kd.is_list` / `kd.has_list`, `kd.list_schema`,
//! `kd.appended_list`, `kd.concat_lists`, `kd.with_list_append_update`,
//! `kd.list_shaped` / `list_shaped_as` / `list_like`, `kd.select_items`.
//!
//! A list is an ItemId of kind List whose items live in a bag (see
//! `plait_core::bag::list_store`). Its schema is a uu schema (the same id for
//! the same item schema) whose `__items__` attribute is the item schema,
//! printed `LIST[INT32]`.

use std::collections::HashMap;

use plait_core::bag::text::LIST_ITEMS_ATTR;
use plait_core::cast::cast_to;
use plait_core::{DataBag, DataSlice, Edge, Error, ItemId, ItemKind, JaggedShape, Result, ScalarRef, Schema, SliceData};

use super::containers::{
    bag_for, container_schema_id, fill_container_schema, fit_to, fit_to_in_place, has_container, held_schema, is_container, rows_for, schema_item,
    typed_items,
};
use super::model::{
    adopt_value_bags, attr_schema, ids_for, ids_of, keep_bags, made_for, merged_bag_of, new_bag_over, update_with_values, updated_over,
    whole_allocation,
};
use crate::registry::Registry;

const IMPLODE: &str = "kd.lists.implode";
const NEW: &str = "kd.lists.new";
const EXPLODE: &str = "kd.lists.explode";
const GET_ITEM: &str = "kd.lists.get_item";
const SIZE: &str = "kd.lists.size";
const APPENDED: &str = "kd.lists.appended_list";

/// The list schema with items of `item`: the same id for the same item schema.
pub fn list_schema_id(item: Schema) -> ItemId {
    container_schema_id("list_schema", &[item])
}

/// Writes the list schema of `item` into `bag` (being built); returns it.
pub(super) fn fill_list_schema(bag: &DataBag, item: Schema) -> Schema {
    fill_container_schema(bag, "list_schema", &[LIST_ITEMS_ATTR], &[item])
}

/// `kd.list_schema(item_schema)`.
pub fn list_schema(item: &DataSlice) -> Result<DataSlice> {
    let op = "kd.schema.list_schema";
    let item_schema = schema_item(op, item)?;
    let bag = new_bag_over(op, &[item])?;
    let schema = fill_list_schema(&bag, item_schema);
    Ok(made_for(DataSlice::item(Some(ScalarRef::Schema(schema)), Schema::Schema)?.with_bag(Some(bag))))
}

/// The item schema of the lists in `x`; `None` when `x` does not hold lists.
fn item_schema(op: &str, x: &DataSlice) -> Result<Option<Schema>> {
    held_schema(op, x, LIST_ITEMS_ATTR)
}

/// The bag of a slice of lists, or Koda's error naming `what` was attempted.
fn list_bag<'a>(op: &str, x: &'a DataSlice, what: &str) -> Result<&'a DataBag> {
    // The message is formatted only for the error (appends call this per item).
    match x.bag() {
        Some(bag) => Ok(bag),
        None => bag_for(op, x, &format!("not possible to {what}")),
    }
}

/// `kd.implode(x, ndim=1, itemid=None)`: the last `ndim` dimensions of `x`
/// become lists (all of them for a negative `ndim`).
pub fn implode(x: &DataSlice, ndim: i64, itemid: Option<&DataSlice>) -> Result<DataSlice> {
    let rank = x.rank();
    let ndim = if ndim < 0 { rank } else { ndim as usize };
    if ndim > rank {
        return Err(Error::value(
            "kd.implode",
            format!("cannot implode 'x' to fold the last {ndim} dimension(s) because 'x' only has {rank} dimensions"),
        ));
    }
    if ndim == 0 {
        return Ok(x.clone());
    }
    let bag = new_bag_over("kd.implode", &[x])?;
    let mut current = x.clone();
    for level in 0..ndim {
        let edges = current.shape().edges();
        let edge = edges.last().expect("rank >= 1").clone();
        let outer = JaggedShape::from_edges(edges[..edges.len() - 1].to_vec())?;
        let given = itemid.filter(|_| level + 1 == ndim);
        let column = match given {
            // Fresh lists: one allocation, stored whole (no list of ids).
            None => {
                let (allocation, column) = super::model::fresh_allocation(ItemKind::List, outer.size());
                bag.fill(|w| w.set_whole_lists(allocation, &edge, current.data()));
                column
            }
            Some(_) => {
                let (ids, column) = ids_for(IMPLODE, ItemKind::List, given, &outer)?;
                bag.fill(|w| w.set_lists(&ids, &edge, current.data()));
                column
            }
        };
        let schema = fill_list_schema(&bag, current.schema());
        current = DataSlice::new(outer, column, schema)?;
    }
    Ok(made_for(current.with_bag(Some(bag))))
}

/// One more dimension: the items of each list.
fn explode_once(x: &DataSlice, schema: Schema) -> Result<DataSlice> {
    let bag = bag_for(EXPLODE, x, "cannot get list items")?;
    // Lists made together, read together: their stored edge and items as
    // they are, without a list of ids.
    if let Some(dense) = whole_allocation(x.data()).and_then(|(allocation, len)| bag.whole_lists(allocation, len)) {
        return typed_items(EXPLODE, x.schema(), x.shape().with_edge(dense.edge.clone())?, dense.items.clone(), schema, bag);
    }
    let (edge, items) = bag.explode(&ids_of(x))?;
    typed_items(EXPLODE, x.schema(), x.shape().with_edge(edge)?, items, schema, bag)
}

/// The items of each list of `x` in the range `start:stop` (Python's slice
/// rules; a bound may be a DataSlice aligned with `x`, a range per list):
/// `x[start:stop]`, a new last dimension.
pub fn items_in_range(x: &DataSlice, start: Option<DataSlice>, stop: Option<DataSlice>) -> Result<DataSlice> {
    use plait_core::subslice::{SliceArg, subslice};
    // Not lists: Koda says which schema lacks the list items.
    let rows = explode(x, 1).map_err(|e| super::access::missing_attr_error(x, LIST_ITEMS_ATTR, "kd.core.get_item").unwrap_or(e))?;
    if start.is_none() && stop.is_none() {
        return Ok(rows);
    }
    subslice(&rows, &[SliceArg::Ellipsis, SliceArg::range(start, stop)])
}

/// `kd.explode(x, ndim=1)`: the items of the lists as a new last dimension,
/// `ndim` times (as long as the items are lists, for a negative `ndim`).
pub fn explode(x: &DataSlice, ndim: i64) -> Result<DataSlice> {
    let mut current = x.clone();
    let mut done = 0i64;
    while ndim < 0 || done < ndim {
        if ndim < 0 && current.schema() == Schema::None {
            return Err(Error::value(EXPLODE, "cannot fully explode 'x' with NONE schema"));
        }
        if current.schema() == Schema::None {
            // Missing lists of unknown items (as Koda reads them): each
            // holds none, if there is a bag to hold lists at all.
            let bag = bag_for(EXPLODE, &current, "cannot get list items")?.clone();
            let shape = current.shape().with_edge(plait_core::Edge::uniform(current.size(), 0))?;
            current = DataSlice::missing(shape, Schema::None).with_bag(Some(bag));
            done += 1;
            continue;
        }
        // Exploding "all the way" stops at items that are not lists
        // (primitives among objects included).
        let held = match item_schema(EXPLODE, &current) {
            Err(_) if ndim < 0 => None,
            other => other?,
        };
        match held {
            Some(schema) => current = explode_once(&current, schema)?,
            None if ndim < 0 => break,
            // Lists whose bag is gone: their items (and schema) are unknown.
            None if current.bag().is_none() && (0..current.size()).any(|i| matches!(current.get(i), Some(ScalarRef::ItemId(id)) if id.is_list())) => {
                return Err(Error::value(EXPLODE, "cannot get list items without a DataBag"));
            }
            None => {
                return Err(Error::value(
                    EXPLODE,
                    format!("cannot explode 'x' to have additional {ndim} dimension(s), the maximum number of additional dimension(s) is {done}"),
                ));
            }
        }
        done += 1;
    }
    Ok(current)
}

/// The item schema of lists `x`, or the error of treating non-lists as lists.
fn require_lists(op: &str, x: &DataSlice) -> Result<Schema> {
    item_schema(op, x)?.ok_or_else(|| Error::value(op, format!("expected a DataSlice of lists, got {}", crate::describe(x))))
}

/// `l[i]`: item `index` of each list (negative counts from the end).
pub fn get_item(x: &DataSlice, index: &DataSlice) -> Result<DataSlice> {
    let schema = require_lists(GET_ITEM, x)?;
    if !matches!(index.schema(), Schema::Int32 | Schema::Int64 | Schema::None | Schema::Object) {
        return Err(Error::value(
            GET_ITEM,
            format!("cannot get items from list(s): expected indices to be integers, got {}", crate::describe(index)),
        ));
    }
    let bag = list_bag(GET_ITEM, x, "get List items")?;
    // One index into lists made together: positions straight from their
    // stored edge, without a list of ids or of indices.
    let one_index = match (index.is_item(), index.get(0)) {
        (true, Some(ScalarRef::Int32(v))) => Some(v as i64),
        (true, Some(ScalarRef::Int64(v))) => Some(v),
        _ => None,
    };
    if let Some(k) = one_index {
        if let Some(dense) = whole_allocation(x.data()).and_then(|(allocation, len)| bag.whole_lists(allocation, len)) {
            let positions: Vec<usize> =
                (0..dense.edge.parent_size()).map(|i| plait_core::bag::position_in(dense.edge.child_range(i), Some(k))).collect();
            return typed_items(GET_ITEM, x.schema(), x.shape().clone(), dense.items.take(&positions), schema, bag);
        }
    }
    let aligned = plait_core::broadcast::align(GET_ITEM, &[x, index])?;
    let (lists, index) = (&aligned[0], &aligned[1]);
    let indices: Vec<Option<i64>> = (0..index.size())
        .map(|i| match index.get(i) {
            Some(ScalarRef::Int32(v)) => Ok(Some(v as i64)),
            Some(ScalarRef::Int64(v)) => Ok(Some(v)),
            None => Ok(None),
            Some(_) => Err(Error::value(GET_ITEM, "the index must be an integer")),
        })
        .collect::<Result<_>>()?;
    let data = bag.list_items_at(&ids_of(lists), &indices);
    typed_items(GET_ITEM, x.schema(), lists.shape().clone(), data, schema, bag)
}

/// `kd.list_size(x)`: the number of items of each list (INT64).
pub fn size(x: &DataSlice) -> Result<DataSlice> {
    let bag = list_bag(SIZE, x, "get List size")?;
    if x.schema() == Schema::None {
        // Missing lists of no schema: missing sizes, as in Koda.
        return Ok(DataSlice::missing(x.shape().clone(), Schema::Int64));
    }
    if item_schema(SIZE, x)?.is_none() {
        return Err(super::containers::not_containers_for_size(SIZE, x, "list"));
    }
    // Lists made together and read together: the sizes are the rows of
    // their stored edge.
    if let Some(dense) = whole_allocation(x.data()).and_then(|(allocation, len)| bag.whole_lists(allocation, len)) {
        let sizes: Vec<i64> = (0..dense.edge.parent_size()).map(|i| dense.edge.child_range(i).len() as i64).collect();
        return crate::slices::int64_slice(x.shape(), sizes, None);
    }
    let sizes = bag.list_sizes(&ids_of(x));
    let values: Vec<i64> = sizes.iter().map(|s| s.map_or(0, |n| n as i64)).collect();
    let flags: Vec<bool> = sizes.iter().map(Option::is_some).collect();
    crate::slices::int64_slice(x.shape(), values, crate::kernel::presence_from_flags(&flags))
}

/// Whether each item is a list (`kd.has_list`).
pub fn has_list(x: &DataSlice) -> Result<DataSlice> {
    has_container("kd.lists.has_list", x, LIST_ITEMS_ATTR, ItemKind::List)
}

/// Whether `x` holds lists only (`kd.is_list`).
pub fn is_list(x: &DataSlice) -> Result<DataSlice> {
    is_container("kd.lists.is_list", x, LIST_ITEMS_ATTR, ItemKind::List)
}

/// The items of lists `x` followed by `append`, as rows (for the append
/// operators), with the item schema checked; and the items appended as
/// written (entities made objects for OBJECT lists), whose bag the update
/// brings along.
fn appended_rows(op: &str, x: &DataSlice, append: &DataSlice) -> Result<(DataSlice, DataSlice)> {
    // Koda's order: the bag first, then the schema.
    if x.bag().is_none() {
        return Err(Error::value(op, "cannot update a DataSlice of lists; the DataSlice is a reference without a Bag"));
    }
    let schema = item_schema(op, x)?.ok_or_else(|| Error::value(op, "expected first argument to be a DataSlice of lists"))?;
    let rows = explode_once(x, schema)?;
    let extra = rows_for(op, append, x.shape())?;
    let extra = fit_to(op, "list items", x, schema, &extra)?;
    Ok((keep_bags(crate::slices::concat(&[&rows, &extra], 1)?, &[&rows, &extra]), extra))
}

/// `kd.appended_list(x, append)`: new lists with the items of `x` and then
/// `append`; missing where `x` is.
pub fn appended_list(x: &DataSlice, append: &DataSlice) -> Result<DataSlice> {
    let (rows, _) = appended_rows(APPENDED, x, append)?;
    let lists = implode(&rows, 1, None)?;
    let lists = lists.with_schema(x.schema()).unwrap_or(lists);
    let bag = lists.bag().cloned();
    Ok(crate::masking::apply_mask(&lists, &crate::masking::has(x)?)?.with_bag(bag))
}

/// `kd.with_list_append_update(x, append)`: the same lists, in a new bag where
/// they end with `append`.
pub fn with_list_append_update(x: &DataSlice, append: &DataSlice) -> Result<DataSlice> {
    let op = "kd.lists.with_list_append_update";
    let (rows, appended) = appended_rows(op, x, append)?;
    let update = DataBag::new_immutable();
    let edge = rows.shape().edges().last().expect("rows have rank >= 1").clone();
    update.fill(|w| w.set_lists(&ids_of(x), &edge, rows.data()));
    let old = list_bag(op, x, "append items")?;
    Ok(x.clone().with_bag(Some(updated_over(op, old, update, &[&appended])?)))
}

/// `kd.lists.list_append_update(x, append)`: a new bag holding only the
/// lists of `x` with `append` at their ends (and their schema).
pub fn list_append_update(x: &DataSlice, append: &DataSlice) -> Result<DataBag> {
    let op = "kd.lists.list_append_update";
    let (rows, appended) = appended_rows(op, x, append)?;
    let update = DataBag::new_immutable();
    let edge = rows.shape().edges().last().expect("rows have rank >= 1").clone();
    update.fill(|w| w.set_lists(&ids_of(x), &edge, rows.data()));
    if let Schema::Struct(_) = x.schema() {
        if let Some(item) = item_schema(op, x)? {
            fill_list_schema(&update, item);
        }
    }
    // Appended entities keep their attributes through their own bag.
    update_with_values(op, update, &[&appended])
}

/// `kd.concat_lists(*lists)`: new lists with the items of each argument's lists in turn.
pub fn concat_lists(lists: &[&DataSlice]) -> Result<DataSlice> {
    let op = "kd.lists.concat";
    if lists.is_empty() {
        // Nothing to concatenate: one empty list of OBJECT items, as in Koda.
        return shaped(&JaggedShape::scalar(), None, Some((Schema::Object, None)), None);
    }
    // What each argument holds is checked before they align, and a bag for
    // missing lists of no schema (NONE, which hold no items) after, as in
    // Koda (with its texts).
    for l in lists {
        if l.schema() != Schema::None && item_schema(op, l)?.is_none() {
            return Err(Error::value(op, "concat_lists expects all input slices to contain lists"));
        }
    }
    let aligned = plait_core::broadcast::align(op, lists)?;
    for l in lists.iter().filter(|l| l.schema() == Schema::None) {
        bag_for(op, l, "cannot get list items")?;
    }
    let rows: Vec<DataSlice> = aligned
        .iter()
        .map(|l| match item_schema(op, l)? {
            Some(schema) => explode_once(l, schema),
            None => explode(l, 1),
        })
        .collect::<Result<_>>()?;
    let refs: Vec<&DataSlice> = rows.iter().collect();
    // The items keep their bags (lists of lists, entities).
    implode(&keep_bags(crate::slices::concat(&refs, 1)?, &refs), 1, None)
}

/// `kd.select_items(ds, fltr)`: the items of each list where `fltr` is present.
pub fn select_items(x: &DataSlice, fltr: &DataSlice) -> Result<DataSlice> {
    // Koda explodes first, with explode's errors.
    let rows = explode(x, 1)?;
    Ok(crate::slices::select(&rows, fltr, true)?.with_bag(rows.bag().cloned()))
}

/// `kd.list_shaped(shape, items=None, item_schema=None)`: lists of `shape`,
/// with the last dimension of `items` (one list per item of `shape`), or empty.
/// The item schema comes with the argument that gave it, if any: the bag of
/// that holds a struct schema's definition, which the lists bring along.
pub fn shaped(
    shape: &JaggedShape,
    items: Option<&DataSlice>,
    item_schema: Option<(Schema, Option<&DataSlice>)>,
    itemid: Option<&DataSlice>,
) -> Result<DataSlice> {
    let op = "kd.lists.shaped";
    let rows = match items {
        // Items with more dimensions than one list row: Koda puts all the
        // items under each list item into its list.
        Some(items) if items.rank() > shape.rank() + 1 => {
            let flat = items.with_shape(op, items.shape().flatten(shape.rank(), items.rank()))?;
            rows_for(op, &flat, shape)?
        }
        Some(items) => rows_for(op, items, shape)?,
        None => DataSlice::missing(shape.with_edge(plait_core::Edge::uniform(shape.size(), 0))?, item_schema.map_or(Schema::Object, |(s, _)| s)),
    };
    implode(&with_item_schema(op, rows, item_schema)?, 1, itemid)
}

/// `l[i] = v` on lists of a mutable bag: item `index` of each list becomes
/// the value (indices out of range are ignored, as in Koda).
pub fn set_items_in_place(x: &DataSlice, index: &DataSlice, values: &DataSlice) -> Result<()> {
    let op = "kd.lists.set_item";
    if x.bag().is_some_and(|bag| !bag.is_mutable()) {
        return Err(plait_core::bag::immutable_error(op));
    }
    let schema = require_lists(op, x)?;
    let aligned = plait_core::broadcast::align(op, &[x, index, values])?;
    let (lists, index) = (&aligned[0], &aligned[1]);
    let values = fit_to_in_place(op, "list items", x, schema, &aligned[2].clone().with_bag(values.bag().cloned()))?;
    let bag = list_bag(op, x, "set List items")?;
    let ids = ids_of(lists);
    // The distinct lists are read at once, their items changed by one
    // gather (items, then the values over them), and written back at once.
    let mut rows = DistinctIds::new(&ids);
    let mut writes: Vec<(usize, i64, usize)> = Vec::with_capacity(ids.len());
    for (i, id) in ids.iter().enumerate() {
        let (Some(id), Some(k)) = (id, index.get(i)) else {
            continue;
        };
        let k = match k {
            ScalarRef::Int32(v) => v as i64,
            ScalarRef::Int64(v) => v,
            _ => return Err(Error::value(op, "the index must be an integer")),
        };
        writes.push((rows.row(*id), k, i));
    }
    let distinct = rows.ids;
    if distinct.is_empty() {
        return Ok(());
    }
    let (edge, items) = bag.explode(&distinct)?;
    // Where each item comes from: itself, or (written later wins) values[i].
    let mut from: Vec<usize> = (0..items.len()).collect();
    for (row, k, i) in writes {
        let range = edge.child_range(row);
        let n = range.len() as i64;
        let k = if k < 0 { k + n } else { k };
        if (0..n).contains(&k) {
            from[range.start + k as usize] = items.len() + i;
        }
    }
    let changed = items.take_pair(values.data(), &from);
    bag.set_lists(op, &distinct, &edge, &changed)
}

/// The distinct ids of a slice of lists in the order first met, each given
/// the row it is read and written back as.
struct DistinctIds {
    ids: Vec<Option<ItemId>>,
    /// For ids of one allocation (the usual case: lists made together), the
    /// row of each offset met so far: a table, no hashing.
    by_offset: Option<(u64, Vec<u32>)>,
    /// The rows of other ids.
    by_id: HashMap<ItemId, usize>,
}

impl DistinctIds {
    fn new(ids: &[Option<ItemId>]) -> DistinctIds {
        let first = ids.iter().flatten().next().and_then(|id| id.allocation());
        // A table up to a few times longer than the slice: far offsets
        // (a few lists of a huge allocation) are hashed instead.
        let span = ids.len().saturating_mul(4).saturating_add(64).min(u32::MAX as usize);
        let one_allocation = first.filter(|&a| ids.iter().flatten().all(|id| id.allocation() == Some(a) && (id.offset() as usize) < span));
        let by_offset = one_allocation.map(|allocation| {
            let end = ids.iter().flatten().map(|id| id.offset() as usize + 1).max().unwrap_or(0);
            (allocation, vec![u32::MAX; end])
        });
        DistinctIds { ids: Vec::new(), by_offset, by_id: HashMap::new() }
    }

    /// The row of `id`, given the next one when it is new.
    fn row(&mut self, id: ItemId) -> usize {
        let next = self.ids.len();
        let slot = match &mut self.by_offset {
            Some((allocation, table)) if id.allocation() == Some(*allocation) => table.get_mut(id.offset() as usize),
            _ => None,
        };
        let row = match slot {
            Some(slot) => {
                if *slot == u32::MAX {
                    *slot = next as u32;
                }
                *slot as usize
            }
            None => *self.by_id.entry(id).or_insert(next),
        };
        if row == next {
            self.ids.push(Some(id));
        }
        row
    }
}

/// `l.append(v)` on lists of a mutable bag.
pub fn append_in_place(x: &DataSlice, append: &DataSlice) -> Result<()> {
    let op = "kd.lists.append";
    // Mutability is checked first, as in Koda.
    let bag = list_bag(op, x, "append to Lists")?;
    if !bag.is_mutable() {
        return Err(plait_core::bag::immutable_error(op));
    }
    // One list and one primitive of its item schema (`l.append(1)`): the
    // item is written as it is, with nothing to fit or bring along.
    if let (true, true, None, Some(ScalarRef::ItemId(id)), Schema::Struct(list_schema)) =
        (x.is_item(), append.is_item(), append.bag(), x.get(0), x.schema())
    {
        if append.schema().is_primitive() && attr_schema(bag, list_schema, LIST_ITEMS_ATTR) == Some(append.schema()) {
            return bag.append_to_lists(op, &[Some(id)], &Edge::uniform(1, 1), append.data());
        }
    }
    // Only the new items are fitted and written: the lists are not read.
    let schema = require_lists(op, x)?;
    let appended = rows_for(op, append, x.shape())?;
    let appended = fit_to_in_place(op, "list items", x, schema, &appended)?;
    // Appended entities and objects bring their data along.
    adopt_value_bags(op, bag, &[&appended])?;
    let ids = ids_of(x);
    if ids.len() > APPEND_IN_PLACE_MAX_LISTS {
        // Many lists at once: one new column for all of them is cheaper than
        // a tail chunk each.
        let (rows, _) = appended_rows(op, x, append)?;
        let edge = rows.shape().edges().last().expect("rows have rank >= 1").clone();
        return bag.set_lists(op, &ids, &edge, rows.data());
    }
    let edge = appended.shape().edges().last().expect("rows have rank >= 1").clone();
    bag.append_to_lists(op, &ids, &edge, appended.data())
}

/// Appends to at most this many lists at once go to the lists' tails
/// (O(items appended)); more are written as one new column.
const APPEND_IN_PLACE_MAX_LISTS: usize = 64;

/// `kd.get_item_schema(list_schema)`: the item schema of a list schema.
pub fn get_item_schema(schema: &DataSlice) -> Result<DataSlice> {
    super::model::container_schema_attr("kd.schema.get_item_schema", "List", schema, LIST_ITEMS_ATTR)
}

pub(crate) fn register(r: &mut Registry) {
    r.add(
        "kd.schema.list_schema",
        &["kd.list_schema"],
        "item_schema",
        r#"Returns the schema of lists with items of item_schema.

The same item schema always gives the same schema, which is the schema
kd.list gives lists of such items.

Args:
  item_schema: the schema of the items (a schema DataItem).

Examples:
  >>> kd.list_schema(kd.INT32)
  DataItem(LIST[INT32], schema: SCHEMA, bag_id: $...)
  >>> kd.list_schema(kd.list_schema(kd.STRING))
  DataItem(LIST[LIST[STRING]], schema: SCHEMA, bag_id: $...)
  >>> kd.list_schema(kd.INT32) == kd.list([1, 2]).get_schema()
  DataItem(present, schema: MASK)"#,
        |a| list_schema(a.slice("item_schema")?),
    );
    r.add(
        "kd.schema.get_item_schema",
        &["kd.get_item_schema"],
        "list_schema",
        r#"Returns the item schema of a list schema.

Anything other than a list schema DataItem raises ValueError.

Args:
  list_schema: a list schema DataItem.

Examples:
  >>> kd.get_item_schema(kd.list_schema(kd.INT32))
  DataItem(INT32, schema: SCHEMA, bag_id: $...)
  >>> kd.get_item_schema(kd.list([[1, 2]]).get_schema())
  DataItem(LIST[INT32], schema: SCHEMA, bag_id: $...)"#,
        |a| get_item_schema(a.slice("list_schema")?),
    );
    r.add(
        "kd.lists.implode",
        &["kd.implode"],
        "x, ndim=int64(1), itemid=unspecified",
        r#"Folds the last ndim dimensions of x into new lists.

Each implosion turns the last dimension into lists, one per item of the
dimension before it, so the result has ndim fewer dimensions. With a
negative ndim, all dimensions are folded into a single nested list. ndim
larger than the number of dimensions raises ValueError.

Args:
  x: a DataSlice.
  ndim: how many dimensions to fold (1 when unspecified; -1 for all).
  itemid: ItemIds for the outermost new lists (optional).

Examples:
  >>> kd.implode(kd.slice([[1, 2], [None]]))
  DataSlice([List[1, 2], List[None]], schema: LIST[INT32], present: 2/2, bag_id: $...)
  >>> kd.implode(kd.slice([[[1, 2], [3]], [[4]]]), ndim=-1)
  DataItem(List[List[List[1, 2], List[3]], List[List[4]]], schema: LIST[LIST[LIST[INT32]]], bag_id: $...)"#,
        |a| implode(a.slice("x")?, a.index("ndim")?, a.opt_given("itemid")?),
    );
    r.add(
        "kd.lists.explode",
        &["kd.explode"],
        "x, ndim=int64(1)",
        r#"Returns the items of the lists in x as ndim new dimensions.

Each explosion adds one dimension holding the items of each list; a missing
list gives no items. With a negative ndim, lists are exploded as long as the
items are lists. Asking for more dimensions than there are levels of lists
raises ValueError. `x[:]` explodes once.

Args:
  x: a DataSlice of lists.
  ndim: how many times to explode (1 when unspecified; -1 for all levels).

Examples:
  >>> kd.explode(kd.slice([kd.list([1, 2]), None, kd.list([3])]))
  DataSlice([[1, 2], [], [3]], schema: INT32, present: 3/3, bag_id: $...)
  >>> kd.explode(kd.list([[1, 2], [3]]), ndim=-1)
  DataSlice([[1, 2], [3]], schema: INT32, present: 3/3, bag_id: $...)"#,
        |a| explode(a.slice("x")?, a.int("ndim")?),
    );
    r.add(
        "kd.lists.size",
        &["kd.list_size"],
        "list_slice",
        r#"Returns the number of items of each list.

The result is INT64, of the shape of list_slice, and missing where a list is
missing.

Args:
  list_slice: a DataSlice of lists.

Examples:
  >>> kd.list_size(kd.implode(kd.slice([[1, 2, 3], [4]])))
  DataSlice([3, 1], schema: INT64, present: 2/2)
  >>> kd.list_size(kd.slice([kd.list([1, 2]), None]))
  DataSlice([2, None], schema: INT64, present: 1/2)"#,
        |a| size(a.slice("list_slice")?),
    );
    r.add(
        "kd.lists.has_list",
        &["kd.has_list"],
        "x",
        r#"Returns present for each item of x that is a list.

Missing items are missing. In OBJECT data, each item is checked on its own.
See kd.is_list for a check of the whole slice.

Args:
  x: a DataSlice.

Examples:
  >>> kd.has_list(kd.slice([kd.list([1]), None]))
  DataSlice([present, missing], schema: MASK, present: 1/2)
  >>> kd.has_list(kd.slice([kd.obj(kd.list([1])), kd.obj(a=1), 1]))
  DataSlice([present, missing, missing], schema: MASK, present: 1/3)"#,
        |a| has_list(a.slice("x")?),
    );
    r.add(
        "kd.lists.is_list",
        &["kd.is_list"],
        "x",
        r#"Returns present if x holds lists only.

That is when x has a list schema, or has OBJECT schema and every present
item is a list (so an OBJECT slice with no present item counts). The result
is a MASK DataItem. See kd.has_list for a check per item.

Args:
  x: a DataSlice.

Examples:
  >>> kd.is_list(kd.slice([kd.list([1]), None]))
  DataItem(present, schema: MASK)
  >>> kd.is_list(kd.slice([kd.obj(kd.list([1])), kd.obj(a=1)]))
  DataItem(missing, schema: MASK)
  >>> kd.is_list(kd.item(None, kd.OBJECT))
  DataItem(present, schema: MASK)"#,
        |a| is_list(a.slice("x")?),
    );
    r.add(
        "kd.lists.appended_list",
        &["kd.appended_list"],
        "x, append",
        r#"Returns new lists with the items of x followed by append.

x and append must have compatible shapes: append is broadcast to x, or has
one more dimension holding several items for each list. The items must fit
the lists' item schema. The result has new ItemIds (see
kd.with_list_append_update to keep them).

Args:
  x: a DataSlice of lists.
  append: the items to add at the end of each list.

Examples:
  >>> kd.appended_list(kd.list([1, 2]), 3)
  DataItem(List[1, 2, 3], schema: LIST[INT32], bag_id: $...)
  >>> lists = kd.implode(kd.slice([[1], [2, 3]]))
  >>> kd.appended_list(lists, kd.slice([[10, 11], []]))
  DataSlice([List[1, 10, 11], List[2, 3]], schema: LIST[INT32], present: 2/2, bag_id: $...)"#,
        |a| appended_list(a.slice("x")?, a.slice("append")?),
    );
    r.add(
        "kd.lists.with_list_append_update",
        &["kd.with_list_append_update"],
        "x, append",
        r#"Returns x with a new DataBag in which its lists end with the items of append.

The lists keep their ItemIds; the new bag reads through to x's bag, which is
left unchanged. append is broadcast to x, or has one more dimension holding
several items for each list; the items must fit the lists' item schema.

Args:
  x: a DataSlice of lists.
  append: the items to add at the end of each list.

Examples:
  >>> l = kd.list([1, 2])
  >>> kd.with_list_append_update(l, 3)
  DataItem(List[1, 2, 3], schema: LIST[INT32], bag_id: $...)
  >>> lists = kd.implode(kd.slice([[1], [2, 3]]))
  >>> kd.with_list_append_update(lists, kd.slice([7, 8]))
  DataSlice([List[1, 7], List[2, 3, 8]], schema: LIST[INT32], present: 2/2, bag_id: $...)"#,
        |a| with_list_append_update(a.slice("x")?, a.slice("append")?),
    );
    r.add_value(
        "kd.lists.list_append_update",
        &["kd.list_append_update"],
        "x, append",
        r#"Returns a new DataBag holding the lists of x with the items of append at their ends.

The bag holds only that update (with the lists' schema), to be applied with
`x.updated(bag)` or kd.updated_bag. append is broadcast to x, or has one more
dimension holding several items for each list; the items must fit the lists'
item schema.

Args:
  x: a DataSlice of lists.
  append: the items to add at the end of each list.

Examples:
  >>> l = kd.list([1, 2])
  >>> update = kd.lists.list_append_update(l, kd.slice([3, 4]))
  >>> l.updated(update)
  DataItem(List[1, 2, 3, 4], schema: LIST[INT32], bag_id: $...)
  >>> l
  DataItem(List[1, 2], schema: LIST[INT32], bag_id: $...)"#,
        |a| Ok(crate::registry::Value::Bag(Some(list_append_update(a.slice("x")?, a.slice("append")?)?))),
    );
    r.add(
        "kd.lists.concat",
        &["kd.concat_lists"],
        "*lists",
        r#"Returns new lists holding the items of the given lists one after another.

The arguments are aligned first (see kd.align), so one list can be joined
to each list of a slice. A missing list counts as an empty one. The item
schema of the result is the common schema of the arguments' item schemas
(OBJECT when they have none). With no argument, ValueError is raised.

Args:
  *lists: DataSlices of lists.

Examples:
  >>> kd.concat_lists(kd.list([1, 2]), kd.list([3]))
  DataItem(List[1, 2, 3], schema: LIST[INT32], bag_id: $...)
  >>> kd.concat_lists(kd.implode(kd.slice([[1], [2, 3]])), kd.list([0]))
  DataSlice([List[1, 0], List[2, 3, 0]], schema: LIST[INT32], present: 2/2, bag_id: $...)
  >>> kd.concat_lists(kd.list([1]), kd.list(['a']))
  DataItem(List[1, 'a'], schema: LIST[OBJECT], bag_id: $...)"#,
        |a| concat_lists(&a.var_slices()?),
    );
    r.add(
        "kd.lists.select_items",
        &["kd.select_items"],
        "ds, fltr",
        r#"Returns the items of each list of ds where fltr is present, as a new last dimension.

fltr is a MASK DataSlice with the shape of the exploded lists (`ds[:]`), or
one that can be broadcast to it. The selected items keep their order.

Args:
  ds: a DataSlice of lists.
  fltr: the MASK DataSlice choosing the items.

Examples:
  >>> l = kd.list([1, 2, 3, 4])
  >>> kd.select_items(l, l[:] > 2)
  DataSlice([3, 4], schema: INT32, present: 2/2, bag_id: $...)
  >>> lists = kd.implode(kd.slice([[1], [2, 3]]))
  >>> kd.select_items(lists, kd.slice([[kd.present], [None, kd.present]]))
  DataSlice([[1], [3]], schema: INT32, present: 2/2, bag_id: $...)"#,
        |a| select_items(a.slice("ds")?, a.slice("fltr")?),
    );
    r.add(
        NEW,
        &["kd.list"],
        "items=unspecified, *, item_schema=unspecified, schema=unspecified, itemid=unspecified",
        r#"Creates a list from `items`: every dimension of a DataSlice becomes lists.

A 1-D slice gives a list of its items, a 2-D slice a list of lists, and so
on. Python lists are converted as `kd.slice` converts them (`kd.list` also
takes them, eagerly, and refuses DataSlices). Without items the list is
empty. The innermost items are cast to `item_schema`, or to the item schema
of `schema` (a list schema); giving both is an error.

Args:
  items: a DataSlice of at least one dimension, or a Python list (optional).
  item_schema: the schema of the innermost items (optional).
  schema: the schema of the list, when the items are one dimension (optional).
  itemid: the ItemId of the new list (optional).

Examples:
  >>> kd.lists.new([1, 2])
  DataItem(List[1, 2], schema: LIST[INT32], bag_id: $...)
  >>> kd.lazy.list(I.x).eval(x=kd.slice([[1, 2], [3]]))
  DataItem(List[List[1, 2], List[3]], schema: LIST[LIST[INT32]], bag_id: $...)
  >>> kd.lazy.list(I.x, item_schema=kd.INT64).eval(x=kd.slice([1, 2]))
  DataItem(List[1, 2], schema: LIST[INT64], bag_id: $...)
  >>> kd.fn(lambda x: kd.list(x))(kd.slice([1, 2]))
  DataItem(List[1, 2], schema: LIST[INT32], bag_id: $...)"#,
        |a| new(a.opt_slice("items")?, opt_item_schema(NEW, a)?, a.opt_given("itemid")?),
    );
    r.add(
        "kd.lists.shaped",
        &["kd.list_shaped"],
        "shape, /, items=unspecified, *, item_schema=unspecified, schema=unspecified, itemid=unspecified",
        r#"Creates new lists of the given shape.

One list is made for each item of the shape. items fill the lists: with one
more dimension than the shape, each list takes its row; otherwise each list
holds one item (broadcast). Without items, the lists are empty. The item
schema is item_schema, or that of schema (a list schema), or that of items,
or OBJECT.

Args:
  shape: a JaggedShape.
  items: the items of the lists (optional).
  item_schema: the schema of the items (optional).
  schema: the list schema of the result (optional).
  itemid: ItemIds for the new lists (optional).

Examples:
  >>> kd.list_shaped(kd.shapes.new(2), kd.slice([[1, 2], [3]]))
  DataSlice([List[1, 2], List[3]], schema: LIST[INT32], present: 2/2, bag_id: $...)
  >>> kd.list_shaped(kd.shapes.new(2))
  DataSlice([List[], List[]], schema: LIST[OBJECT], present: 2/2, bag_id: $...)
  >>> kd.list_shaped(kd.shapes.new(), kd.slice([1, 2]), item_schema=kd.FLOAT32)
  DataItem(List[1.0, 2.0], schema: LIST[FLOAT32], bag_id: $...)"#,
        |a| shaped(a.shape("shape")?, a.opt_slice("items")?, opt_item_schema("kd.lists.shaped", a)?, a.opt_given("itemid")?),
    );
    r.add(
        "kd.lists.shaped_as",
        &["kd.list_shaped_as"],
        "shape_from, /, items=unspecified, *, item_schema=unspecified, schema=unspecified, itemid=unspecified",
        r#"Creates new lists of the shape of shape_from.

One list is made for each item of shape_from, present or not. items fill
the lists: with one more dimension than shape_from, each list takes its row;
otherwise each list holds one item (broadcast). Without items, the lists are
empty. The item schema is item_schema, or that of schema (a list schema), or
that of items, or OBJECT.

Args:
  shape_from: the DataSlice whose shape the result has.
  items: the items of the lists (optional).
  item_schema: the schema of the items (optional).
  schema: the list schema of the result (optional).
  itemid: ItemIds for the new lists (optional).

Examples:
  >>> kd.list_shaped_as(kd.slice(['a', None]), kd.slice([[1, 2], [3]]))
  DataSlice([List[1, 2], List[3]], schema: LIST[INT32], present: 2/2, bag_id: $...)
  >>> kd.list_shaped_as(kd.slice([1, 2]), schema=kd.list_schema(kd.STRING))
  DataSlice([List[], List[]], schema: LIST[STRING], present: 2/2, bag_id: $...)"#,
        |a| shaped(a.slice("shape_from")?.shape(), a.opt_slice("items")?, opt_item_schema("kd.lists.shaped", a)?, a.opt_given("itemid")?),
    );
    r.add(
        "kd.lists.like",
        &["kd.list_like"],
        "shape_and_mask_from, /, items=unspecified, *, item_schema=unspecified, schema=unspecified, itemid=unspecified",
        r#"Creates new lists with the shape and the missing items of shape_and_mask_from.

One list is made for each present item of shape_and_mask_from (missing where
it is missing). items fill the lists: with one more dimension than
shape_and_mask_from, each list takes its row; otherwise each list holds one
item (broadcast). Without items, the lists are empty. The item schema is
item_schema, or that of schema (a list schema), or that of items, or OBJECT.

Args:
  shape_and_mask_from: the DataSlice giving the shape and the missing items.
  items: the items of the lists (optional).
  item_schema: the schema of the items (optional).
  schema: the list schema of the result (optional).
  itemid: ItemIds for the new lists (optional).

Examples:
  >>> kd.list_like(kd.slice([1, None, 3]), kd.slice([[1], [2], [3, 4]]))
  DataSlice([List[1], None, List[3, 4]], schema: LIST[INT32], present: 2/3, bag_id: $...)
  >>> kd.list_like(kd.slice([1, None]), item_schema=kd.STRING)
  DataSlice([List[], None], schema: LIST[STRING], present: 1/2, bag_id: $...)"#,
        |a| {
            let from = a.slice("shape_and_mask_from")?;
            let lists = shaped(from.shape(), a.opt_slice("items")?, opt_item_schema("kd.lists.shaped", a)?, a.opt_given("itemid")?)?;
            let bag = lists.bag().cloned();
            crate::masking::apply_mask(&lists, &crate::masking::has(from)?).map(|l| l.with_bag(bag))
        },
    );
    // Python lists of items are boxed as `kd.slice` boxes them, as in Koda
    // (`kd.list_shaped(kd.shapes.new(2), [[1], [2, 3]])`).
    r.boxing("kd.lists.shaped", crate::registry::Boxing::Lists);
    r.boxing("kd.lists.shaped_as", crate::registry::Boxing::Lists);
    r.boxing(NEW, crate::registry::Boxing::Lists);
    r.boxing("kd.lists.like", crate::registry::Boxing::Lists);
}

/// `kd.lists.new(items, item_schema=, schema=, itemid=)`: one list, with
/// every dimension of `items` made lists (a 2-D slice: a list of lists), the
/// innermost items cast to the item schema given; without items, an empty
/// list (of OBJECT unless a schema is given).
fn new(items: Option<&DataSlice>, item_schema: Option<(Schema, Option<&DataSlice>)>, itemid: Option<&DataSlice>) -> Result<DataSlice> {
    let Some(items) = items else { return shaped(&JaggedShape::scalar(), None, item_schema, itemid) };
    if items.rank() == 0 {
        return Err(Error::value(NEW, "creating a list from values requires at least one dimension"));
    }
    implode(&with_item_schema(NEW, items.clone(), item_schema)?, -1, itemid)
}

/// List items `items` fitted to the item schema given (with the argument
/// that gave it, whose bag holds a struct item schema), as assigning them
/// would (Koda's "schema for list items is incompatible").
fn with_item_schema(op: &str, items: DataSlice, item_schema: Option<(Schema, Option<&DataSlice>)>) -> Result<DataSlice> {
    let Some((schema, from)) = item_schema else { return Ok(items) };
    let items = if schema != items.schema() { fit_to(op, "list items", from.unwrap_or(&items), schema, &items)? } else { items };
    Ok(match from {
        Some(from) if schema.is_struct() => {
            let bag = merged_bag_of(op, &[&items, from])?;
            items.with_bag(bag)
        }
        _ => items,
    })
}

/// The item schema from `item_schema=` or a list `schema=`, with the
/// argument that gave it (errors name `op`).
fn opt_item_schema<'a>(op: &str, a: &'a crate::registry::Args<'_>) -> Result<Option<(Schema, Option<&'a DataSlice>)>> {
    let item_schema = a.opt_slice("item_schema")?.filter(|s| s.present_count() > 0);
    let schema = a.opt_slice("schema")?.filter(|s| s.present_count() > 0);
    if item_schema.is_some() && schema.is_some() {
        return Err(Error::value(op, "creating lists with schema accepts either a list schema or item schema, but not both"));
    }
    if let Some(s) = item_schema {
        return Ok(Some((schema_item(op, s)?, Some(s))));
    }
    if let Some(s) = schema {
        let list = schema_item(op, s)?;
        return match (list, s.bag()) {
            (Schema::Struct(id), Some(bag)) => Ok(attr_schema(bag, id, LIST_ITEMS_ATTR).map(|item| (item, Some(s)))),
            // (Koda's shaped forms read the item schema with get_item_schema.)
            _ if op == NEW => Err(Error::value(op, format!("expected List schema, got {list}"))),
            _ => Err(Error::value(op, format!("expected List schema for get_item_schema, got {}", plait_core::repr::repr_slice(s)))),
        };
    }
    Ok(None)
}

/// The bag of lists `x` that `op` changes in place, and their item schema,
/// or Koda's errors (no bag, an immutable bag, not lists).
fn lists_to_change<'a>(op: &str, x: &'a DataSlice, what: &str) -> Result<(&'a DataBag, Schema)> {
    let bag = list_bag(op, x, what)?;
    if !bag.is_mutable() {
        return Err(plait_core::bag::immutable_error(op));
    }
    let schema = item_schema(op, x)?.ok_or_else(|| {
        Error::value(
            op,
            format!(
                "the attribute '{LIST_ITEMS_ATTR}' is missing on the schema.\n\nIf it is not a typo, perhaps ignore the schema when getting the attribute. For example, ds.maybe('{LIST_ITEMS_ATTR}')"
            ),
        )
    })?;
    Ok((bag, schema))
}

/// Integer `v` (an index or a bound) of a list operation, or Koda's error.
fn list_index(op: &str, v: ScalarRef<'_>, what: &str) -> Result<i64> {
    match v {
        ScalarRef::Int32(v) => Ok(v as i64),
        ScalarRef::Int64(v) => Ok(v),
        _ => Err(Error::value(op, format!("cannot {what} list(s): expected indices to be integers"))),
    }
}

/// `x` rewritten with the positions in `removed` (a half-open range per
/// list, within the list) taken out of each list.
fn remove_ranges(op: &str, bag: &DataBag, ids: &[Option<ItemId>], edge: &Edge, items: &SliceData, removed: &[(usize, usize)]) -> Result<()> {
    if removed.iter().all(|(lo, hi)| lo >= hi) {
        return Ok(());
    }
    let mut kept = Vec::with_capacity(items.len());
    let mut sizes = Vec::with_capacity(ids.len());
    for (i, &(lo, hi)) in removed.iter().enumerate() {
        let range = edge.child_range(i);
        let (start, n) = (range.start, range.len());
        kept.extend(range.filter(|&j| !(start + lo..start + hi).contains(&j)));
        sizes.push((n - hi.saturating_sub(lo)) as i64);
    }
    bag.set_lists(op, ids, &Edge::from_sizes(&sizes)?, &items.take(&kept))
}

/// `l.pop(index)` on lists of a mutable bag: removes item `index` of each
/// list (negative counts from the end) and returns the items removed (a
/// missing item where the index is out of range). `strict` (one list,
/// `ListItem.pop`): an index out of range is Koda's IndexError instead.
pub fn pop_in_place(x: &DataSlice, index: &DataSlice, strict: bool) -> Result<DataSlice> {
    let op = "DataSlice.pop";
    let (bag, schema) = lists_to_change(op, x, "pop List items")?;
    if !matches!(index.schema(), Schema::Int32 | Schema::Int64 | Schema::None | Schema::Object) {
        return Err(Error::value(op, format!("the index must be an integer, got {}", crate::describe(index))));
    }
    let index = plait_core::broadcast::expand_to_shape(op, index, x.shape(), 0)?;
    let ids = ids_of(x);
    let (edge, items) = bag.explode(&ids)?;
    let mut removed = vec![(0, 0); ids.len()];
    let mut popped: Vec<Option<usize>> = vec![None; ids.len()];
    for i in 0..ids.len() {
        let range = edge.child_range(i);
        let n = range.len() as i64;
        let (Some(_), Some(k)) = (ids[i], index.get(i)) else { continue };
        let k = list_index(op, k, "pop items from")?;
        let at = if k < 0 { k + n } else { k };
        if strict && !(-n..n.max(1)).contains(&k) {
            return Err(Error::index(op, format!("List index out of range: list size {n} vs index {k}")));
        }
        if (0..n).contains(&at) {
            popped[i] = Some(range.start + at as usize);
            removed[i] = (at as usize, at as usize + 1);
        }
    }
    let mut b = plait_core::column::SliceBuilder::with_capacity(ids.len());
    for p in &popped {
        b.push(p.and_then(|p| items.get(p)));
    }
    let result = DataSlice::new(x.shape().clone(), b.finish(), Schema::Object)?;
    let result = cast_to(op, &result, schema).or_else(|_| result.with_schema(schema))?;
    remove_ranges(op, bag, &ids, &edge, &items, &removed)?;
    Ok(result.with_bag(Some(bag.clone())))
}

/// Which items of each list `del` removes.
pub enum Removed<'a> {
    /// `del l[i]`: the item at an index (aligned with the lists; the first
    /// given for a list counts), none where it is out of range or missing.
    At(&'a DataSlice),
    /// `del l[start:stop]`: the items in a range (Python's rules; DataItem
    /// bounds, a missing one no bound).
    Range(Option<&'a DataSlice>, Option<&'a DataSlice>),
}

/// `del l[i]` / `del l[start:stop]` on lists of a mutable bag: the items go
/// (Python's rules: negative counts from the end; out of range removes
/// nothing, as Koda).
pub fn remove_in_place(x: &DataSlice, which: Removed<'_>) -> Result<()> {
    let op = "DataSlice.__delitem__";
    let (bag, _) = lists_to_change(op, x, "remove List items")?;
    let ids = ids_of(x);
    let (edge, items) = bag.explode(&ids)?;
    let mut removed = vec![(0, 0); ids.len()];
    match which {
        Removed::At(index) => {
            // The lists aligned with the indices: a list given once with
            // several indices is changed once, by the first.
            let aligned = plait_core::broadcast::align(op, &[x, index])?;
            let (lists, index) = (&aligned[0], &aligned[1]);
            let row: HashMap<ItemId, usize> = ids.iter().enumerate().filter_map(|(i, id)| id.map(|id| (id, i))).collect();
            let mut done = vec![false; ids.len()];
            for (id, k) in ids_of(lists).iter().zip(0..lists.size()) {
                let (Some(id), Some(k)) = (id, index.get(k)) else { continue };
                let k = list_index(op, k, "remove items from")?;
                let i = row[id];
                if std::mem::replace(&mut done[i], true) {
                    continue;
                }
                let n = edge.child_range(i).len() as i64;
                let at = if k < 0 { k + n } else { k };
                if (0..n).contains(&at) {
                    removed[i] = (at as usize, at as usize + 1);
                }
            }
            // Every occurrence of a list is changed as its row says.
            for (i, id) in ids.iter().enumerate() {
                if let Some(id) = id {
                    removed[i] = removed[row[id]];
                }
            }
        }
        Removed::Range(start, stop) => {
            let bounds = RangeBounds::read(op, start, stop, "remove items from")?;
            for (i, r) in removed.iter_mut().enumerate() {
                *r = bounds.of(edge.child_range(i).len());
            }
        }
    }
    remove_ranges(op, bag, &ids, &edge, &items, &removed)
}

/// The bounds of a Python slice `l[start:stop]` of lists (DataItems; a
/// missing one no bound).
struct RangeBounds {
    start: Option<i64>,
    stop: Option<i64>,
}

impl RangeBounds {
    /// The bounds, or Koda's error for a DataSlice given as one (`what`:
    /// what the operation does to lists, for the error of a non-integer).
    fn read(op: &str, start: Option<&DataSlice>, stop: Option<&DataSlice>, what: &str) -> Result<RangeBounds> {
        let bound = |b: Option<&DataSlice>, name: &str| -> Result<Option<i64>> {
            match b {
                Some(b) if !b.is_item() => Err(Error::value(
                    op,
                    format!(
                        "python object can only contain DataItems, got DataSlice with shape {}; during unpacking of the '{name}' slice argument",
                        b.shape()
                    ),
                )),
                Some(b) => b.get(0).map(|v| list_index(op, v, what)).transpose(),
                None => Ok(None),
            }
        };
        Ok(RangeBounds { start: bound(start, "start")?, stop: bound(stop, "stop")? })
    }

    /// The range `lo..hi` of a list of `n` items (Python's rules: negative
    /// counts from the end, clamped to the list; `hi` never below `lo`).
    fn of(&self, n: usize) -> (usize, usize) {
        let n = n as i64;
        let clamp = |k: i64| (if k < 0 { k + n } else { k }).clamp(0, n) as usize;
        let lo = self.start.map_or(0, clamp);
        (lo, self.stop.map_or(n as usize, clamp).max(lo))
    }
}

/// `l[start:stop] = values` on lists of a mutable bag: the items in the
/// range (Python's rules; an empty range is where the values go in) are
/// replaced by `values`: the new items of each list (one dimension more
/// than the lists), or one value (an item) put at every position of each
/// range, as Koda does.
pub fn replace_range_in_place(x: &DataSlice, start: Option<&DataSlice>, stop: Option<&DataSlice>, values: &DataSlice) -> Result<()> {
    let op = "DataSlice.__setitem__";
    let (bag, schema) = lists_to_change(op, x, "set List items")?;
    let bounds = RangeBounds::read(op, start, stop, "set items of")?;
    let ids = ids_of(x);
    let (edge, items) = bag.explode(&ids)?;
    let ranges: Vec<(usize, usize)> = (0..ids.len()).map(|i| bounds.of(edge.child_range(i).len())).collect();
    let rows = if values.rank() == x.rank() + 1 {
        rows_for(op, values, x.shape())?
    } else if values.rank() > 0 {
        return Err(Error::value(
            op,
            format!(
                "trying to modify a slice of lists with {} dimensions using a slice with {} dimensions, while {} dimensions are \
                 required. For example, instead of foo[1:3] = bar where bar is a list, write foo[1:3] = bar[:]",
                x.rank(),
                values.rank(),
                x.rank() + 1
            ),
        ));
    } else {
        let each = plait_core::broadcast::expand_to_shape(op, values, x.shape(), 0)?;
        let sizes: Vec<i64> = ranges.iter().map(|&(lo, hi)| (hi - lo) as i64).collect();
        let edge = Edge::from_sizes(&sizes)?;
        let repeated = each.data().repeat_by_edge(None, &edge);
        DataSlice::new(x.shape().with_edge(edge)?, repeated, each.schema())?.with_bag(each.bag().cloned())
    };
    let rows = fit_to_in_place(op, "list items", x, schema, &rows)?;
    adopt_value_bags(op, bag, &[&rows])?;
    // Each list: its items before the range, its new items, its items after.
    let new_edge = rows.shape().edges().last().expect("rows have rank >= 1");
    let mut runs = Vec::with_capacity(3 * ids.len());
    let mut sizes = Vec::with_capacity(ids.len());
    for (i, &(lo, hi)) in ranges.iter().enumerate() {
        let (old, new) = (edge.child_range(i), new_edge.child_range(i));
        sizes.push((old.len() - (hi - lo) + new.len()) as i64);
        for run in [(false, old.start..old.start + lo), (true, new), (false, old.start + hi..old.end)] {
            if !run.1.is_empty() {
                runs.push(run);
            }
        }
    }
    bag.set_lists(op, &ids, &Edge::from_sizes(&sizes)?, &items.take_runs_pair(rows.data(), &runs))
}

/// `x.clear()` on lists or dicts of a mutable bag: lists lose all their
/// items, dicts the values of all their keys (as in Koda, the keys stay,
/// with missing values).
pub fn clear_in_place(x: &DataSlice) -> Result<()> {
    let op = "DataSlice.clear";
    let Some(bag) = x.bag() else {
        return Err(Error::value(op, "cannot clear lists or dicts without a DataBag"));
    };
    if !bag.is_mutable() {
        return Err(plait_core::bag::immutable_error(op));
    }
    let ids = ids_of(x);
    if item_schema(op, x)?.is_some() {
        let edge = plait_core::Edge::from_sizes(&vec![0; ids.len()])?;
        return bag.set_lists(op, &ids, &edge, &plait_core::column::SliceBuilder::new().finish());
    }
    if let Some(i) = ids.iter().position(|id| id.is_some_and(|id| !id.is_dict())) {
        let id = ids[i].expect("present");
        return Err(Error::value(op, format!("dict expected, got {}", id.repr())));
    }
    let (edge, keys) = bag.dict_keys(&ids)?;
    let owners: Vec<Option<ItemId>> = ids.iter().enumerate().flat_map(|(i, id)| std::iter::repeat_n(*id, edge.child_range(i).len())).collect();
    let mut missing = plait_core::column::SliceBuilder::with_capacity(keys.len());
    for _ in 0..keys.len() {
        missing.push(None);
    }
    bag.set_dict_entries(op, &owners, &keys, &missing.finish())
}

#[cfg(test)]
mod tests {
    use plait_core::{Column, DataSlice, JaggedShape, ScalarRef, Schema, SliceData, Values};

    #[test]
    fn items_the_list_schema_does_not_admit_are_an_error() {
        let column = Column::full(Values::Int32(vec![1].into()));
        let items = DataSlice::new(JaggedShape::flat(1), SliceData::from_column(column), Schema::Int32).unwrap();
        let list = super::implode(&items, 1, None).unwrap();
        let int64 = DataSlice::item(Some(ScalarRef::Schema(Schema::Int64)), Schema::Schema).unwrap();
        let relabelled = crate::objects::schemas::with_schema(&list, &super::list_schema(&int64).unwrap()).unwrap();
        let error = super::explode(&relabelled, 1).unwrap_err();
        assert!(
            error.message.ends_with("INT64 schema can only be assigned to a DataSlice that contains only primitives of INT64"),
            "{}",
            error.message
        );
        // The list with its own schema reads its items.
        assert_eq!(super::explode(&list, 1).unwrap().schema(), Schema::Int32);
    }
}
