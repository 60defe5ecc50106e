//! Lists: `kd.implode` / `kd.explode`, `kd.lists.get_item` (`l[i]`),
//! `kd.list_size`, `kd.is_list` / `kd.has_list`, `kd.list_schema`,
//! `kd.appended_list`, `kd.concat_lists`, `kd.with_list_append_update`,
//! `kd.list_shaped` / `list_shaped_as` / `list_like`, `kd.select_items`.
//!
//! A list is an ItemId of kind List whose items live in a bag (see
//! `plait_core::bag::list_store`). Its schema is a uu schema (the same id for
//! the same item schema) whose `__items__` attribute is the item schema,
//! printed `LIST[INT32]`.

use plait_core::bag::text::LIST_ITEMS_ATTR;
use plait_core::{DataBag, DataSlice, Error, ItemId, ItemKind, JaggedShape, Result, ScalarRef, Schema};

use super::containers::{
    bag_for, container_schema_id, fill_container_schema, fit_to, has_container, held_schema, is_container, rows_for, schema_item, typed_items,
};
use super::model::{
    attr_schema, ids_for, ids_of, keep_bags, made_for, merged_bag_of, new_bag_over, update_with_values, updated_over, whole_allocation,
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
pub(super) fn item_schema(op: &str, x: &DataSlice) -> Result<Option<Schema>> {
    held_schema(op, x, LIST_ITEMS_ATTR)
}

/// The bag of a slice of lists, or Koda's error naming `what` was attempted.
pub(super) fn list_bag<'a>(op: &str, x: &'a DataSlice, what: &str) -> Result<&'a DataBag> {
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
pub(super) fn require_lists(op: &str, x: &DataSlice) -> Result<Schema> {
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
