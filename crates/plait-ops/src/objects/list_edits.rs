//! Changes to lists in place, in a mutable bag: `l[i] = v`, `l[a:b] = v`,
//! `l.append(v)`, `del l[i]`, `del l[a:b]`, `l.pop(i)`.
//!
//! Each is a splice of every list it is given: the items at a cut (found
//! from the list's length) give way to new items. Lists given once each
//! (the usual case) are read at once, spliced in one pass over their
//! columns ([`SliceData::splice_rows`]) and written back at once; lists
//! made together whose column the bag alone holds (a second change on the
//! same fork) have their items moved within it instead. A list
//! given several times is changed once per occurrence, in order, as in Koda
//! (`kd.slice([l, l]).append(kd.slice([1, 2]))` appends both; `del` of
//! item 0 twice removes two items).

use std::collections::HashMap;
use std::ops::Range;

use plait_core::bag::text::LIST_ITEMS_ATTR;
use plait_core::cast::cast_to;
use plait_core::column::MISSING_INDEX;
use plait_core::splice::{Splice, Splices};
use plait_core::{Column, DataBag, DataSlice, Edge, Error, ItemId, Result, ScalarRef, Schema, SliceData, Values};

use super::containers::{fit_to_in_place, rows_for};
use super::lists::{item_schema, list_bag, require_lists};
use super::model::{adopt_value_bags, attr_schema, ids_of, whole_allocation};

/// `l[i] = v` on lists of a mutable bag: item `index` of each list becomes
/// the value (indices out of range are ignored, as in Koda).
pub fn set_items_in_place(x: &DataSlice, index: &DataSlice, values: &DataSlice) -> Result<()> {
    let op = "kd.lists.set_item";
    if x.bag().is_some_and(|bag| !bag.is_mutable()) {
        return Err(plait_core::bag::immutable_error(op));
    }
    let schema = require_lists(op, x)?;
    // (An index DataItem stays one item: one index for every list.)
    let (lists, index, aligned_values) = if index.is_item() {
        let aligned = plait_core::broadcast::align(op, &[x, values])?;
        (aligned[0].clone(), index.clone(), aligned[1].clone())
    } else {
        let aligned = plait_core::broadcast::align(op, &[x, index, values])?;
        (aligned[0].clone(), aligned[1].clone(), aligned[2].clone())
    };
    let lists = &lists;
    if index.present_count() == 0 {
        // Nothing to write: the values are not checked either, as in Koda.
        return Ok(());
    }
    let values = fit_to_in_place(op, "list items", x, schema, &aligned_values.with_bag(values.bag().cloned()))?;
    let bag = list_bag(op, x, "set List items")?;
    let indices = Indices::read(&index, || Error::value(op, "the index must be an integer"))?;
    with_position!(&indices, position => {
        let cut = |i: usize, n: usize| Ok(position(i, n).map(|at| at..at + 1));
        splice_lists(op, bag, lists, cut, NewItems::Fill(values.data()), false).map(drop)
    })
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
    let edge = appended.shape().edges().last().expect("rows have rank >= 1");
    if x.size() > APPEND_IN_PLACE_MAX_LISTS {
        // Many lists at once: one new column for all of them is cheaper than
        // a tail chunk each.
        let end = |_: usize, n: usize| Ok(Some(n..n));
        return splice_lists(op, bag, x, end, NewItems::Rows(edge, appended.data()), false).map(drop);
    }
    bag.append_to_lists(op, &ids_of(x), edge, appended.data())
}

/// Appends to at most this many lists at once go to the lists' tails
/// (O(items appended)); more are written as one new column.
const APPEND_IN_PLACE_MAX_LISTS: usize = 64;

/// Which items of each list `del` removes.
pub enum Removed<'a> {
    /// `del l[i]`: the item at an index (aligned with the lists), none
    /// where it is out of range or missing.
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
    let nothing = SliceData::missing(0);
    match which {
        Removed::At(index) => {
            let (lists, index) = aligned_with_index(op, x, index)?;
            let lists = &lists;
            let indices = Indices::read(&index, || Error::value(op, "cannot remove items from list(s): expected indices to be integers"))?;
            with_position!(&indices, position => {
                let cut = |i: usize, n: usize| Ok(position(i, n).map(|at| at..at + 1));
                splice_lists(op, bag, lists, cut, NewItems::Rows(&Edge::uniform(lists.size(), 0), &nothing), false).map(drop)
            })
        }
        Removed::Range(start, stop) => {
            let bounds = RangeBounds::read(op, start, stop, "remove items from")?;
            let cut = |_: usize, n: usize| Ok(Some(bounds.of(n)).filter(|r| !r.is_empty()));
            splice_lists(op, bag, x, cut, NewItems::Rows(&Edge::uniform(x.size(), 0), &nothing), false).map(drop)
        }
    }
}

/// `l.pop(index)` on lists of a mutable bag: removes item `index` of each
/// list (negative counts from the end; lists and indices aligned) and
/// returns the items removed (a missing item where the index is out of
/// range). `strict` (one list, `ListItem.pop`): an index out of range is
/// Koda's IndexError instead.
pub fn pop_in_place(x: &DataSlice, index: &DataSlice, strict: bool) -> Result<DataSlice> {
    let op = "DataSlice.pop";
    let (bag, schema) = lists_to_change(op, x, "pop List items")?;
    if !matches!(index.schema(), Schema::Int32 | Schema::Int64 | Schema::None | Schema::Object) {
        return Err(Error::value(op, format!("the index must be an integer, got {}", crate::describe(index))));
    }
    let (lists, index) = aligned_with_index(op, x, index)?;
    let lists = &lists;
    let indices = Indices::read(&index, || Error::value(op, "cannot pop items from list(s): expected indices to be integers"))?;
    let nothing = SliceData::missing(0);
    let popped = with_position!(&indices, position => {
        let cut = |i: usize, n: usize| {
            let at = position(i, n);
            if strict && at.is_none() {
                check_in_range(op, indices.get(i), n)?;
            }
            Ok(at.map(|at| at..at + 1))
        };
        splice_lists(op, bag, lists, cut, NewItems::Rows(&Edge::uniform(lists.size(), 0), &nothing), true)?.expect("asked for")
    });
    // The items removed have the lists' item schema (items of another type
    // under an OBJECT-like schema are cast as reading them would).
    let result = match DataSlice::new(lists.shape().clone(), popped.clone(), schema) {
        Ok(result) => result,
        Err(_) => {
            let result = DataSlice::new(lists.shape().clone(), popped, Schema::Object)?;
            cast_to(op, &result, schema).or_else(|_| result.with_schema(schema))?
        }
    };
    Ok(result.with_bag(Some(bag.clone())))
}

/// Koda's IndexError of `ListItem.pop(k)` for an index `k` out of a list of
/// `n` items (popping an empty list at 0 gives a missing item instead, as
/// in Koda).
#[cold]
fn check_in_range(op: &str, k: Option<i64>, n: usize) -> Result<()> {
    match k {
        Some(k) if !(-(n as i64)..(n as i64).max(1)).contains(&k) => {
            Err(Error::index(op, format!("List index out of range: list size {n} vs index {k}")))
        }
        _ => Ok(()),
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
    let cut = |_: usize, n: usize| Ok(Some(bounds.of(n)));
    if values.rank() == x.rank() + 1 {
        let rows = fit_to_in_place(op, "list items", x, schema, &rows_for(op, values, x.shape())?)?;
        adopt_value_bags(op, bag, &[&rows])?;
        let edge = rows.shape().edges().last().expect("rows have rank >= 1");
        return splice_lists(op, bag, x, cut, NewItems::Rows(edge, rows.data()), false).map(drop);
    }
    if values.rank() > 0 {
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
    }
    let each = plait_core::broadcast::expand_to_shape(op, values, x.shape(), 0)?;
    let each = fit_to_in_place(op, "list items", x, schema, &each)?;
    adopt_value_bags(op, bag, &[&each])?;
    splice_lists(op, bag, x, cut, NewItems::Fill(each.data()), false).map(drop)
}

/// What each occurrence of a list puts in at its cut.
enum NewItems<'a> {
    /// Occurrence `i`: row `i` of the items (rows under the edge).
    Rows(&'a Edge, &'a SliceData),
    /// Occurrence `i`: item `i`, at every position of the cut.
    Fill(&'a SliceData),
}

/// Splices lists `lists`, an occurrence each, in order: occurrence `i`
/// cuts its list at `cut(i, n)` (`n`: the list's length when the
/// occurrence comes; `None`: the list is left alone) and puts in its new
/// items. With `removed`, returns the first item each occurrence cut out
/// (missing where it cut nothing). Every cut is found before anything is
/// written: an error leaves the lists as they were.
fn splice_lists(
    op: &str,
    bag: &DataBag,
    lists: &DataSlice,
    cut: impl FnMut(usize, usize) -> Result<Option<Range<usize>>>,
    new: NewItems<'_>,
    removed: bool,
) -> Result<Option<SliceData>> {
    // The lists of a whole allocation, in order, stored together (lists
    // made at once): occurrence `i` is row `i` of their column, read and
    // written back whole, with no list of ids.
    if let Some((allocation, len)) = whole_allocation(lists.data()) {
        if let Some(dense) = bag.whole_lists(allocation, len) {
            let (plan, popped) = plan_once_each(len, |i| i, &dense.edge, &dense.items, cut, new, removed)?;
            drop(dense); // so that the lists' column can be changed in place
            if let Some(Plan { splices, new_items }) = plan {
                bag.splice_whole_lists(op, allocation, &new_items, splices)?;
            }
            return Ok(popped);
        }
    }
    let ids = ids_of(lists);
    let mut distinct = DistinctIds::new(&ids);
    let rows: Vec<usize> = ids.iter().map(|id| id.map_or(MISSING_INDEX, |id| distinct.row(id))).collect();
    let (edge, items) = bag.explode(&distinct.ids)?;
    let once_each = distinct.ids.len() == rows.iter().filter(|&&r| r != MISSING_INDEX).count();
    let (lists, popped) = if once_each {
        let (plan, popped) = plan_once_each(rows.len(), |i| rows[i], &edge, &items, cut, new, removed)?;
        (plan.map(|Plan { splices, new_items }| items.splice_rows(&edge, &new_items, splices)).transpose()?, popped)
    } else {
        splice_in_turn(&rows, &edge, &items, cut, new, removed)?
    };
    if let Some((edge, items)) = lists {
        bag.set_lists(op, &distinct.ids, &edge, &items)?;
    }
    Ok(popped)
}

/// How lists each given once are spliced: a splice per row, with the new
/// items the splices read.
struct Plan {
    splices: Splices,
    new_items: SliceData,
}

/// [`splice_lists`] when each list comes once: occurrence `i` (of
/// `occurrences`) is row `row(i)` of the lists read (`edge`, `items`;
/// [`MISSING_INDEX`]: a missing list), the rows met in order (each list
/// numbered as first met). Gives the plan of the splice
/// (`None` when no list changes) and what `removed` asks for.
fn plan_once_each(
    occurrences: usize,
    row: impl Fn(usize) -> usize,
    edge: &Edge,
    items: &SliceData,
    mut cut: impl FnMut(usize, usize) -> Result<Option<Range<usize>>>,
    new: NewItems<'_>,
    removed: bool,
) -> Result<(Option<Plan>, Option<SliceData>)> {
    let mut splices = Splices::of_rows_of(edge);
    // A fill of at most one item per list reads the values as they are;
    // longer ones repeat them first (below).
    let mut fill_longer = false;
    // With `removed`: where each occurrence's first removed item is.
    let mut first_removed = Vec::with_capacity(if removed { occurrences } else { 0 });
    for i in 0..occurrences {
        if removed {
            first_removed.push(MISSING_INDEX);
        }
        let r = row(i);
        if r == MISSING_INDEX {
            continue;
        }
        if r != splices.rows().len() {
            return Err(Error::internal(format!("list {i} is row {r}, not the next row ({})", splices.rows().len())));
        }
        let row_items = edge.child_range(r);
        let Some(c) = cut(i, row_items.len())? else {
            splices.push(row_items.len(), Splice::default())?;
            continue;
        };
        if let (true, Some(first)) = (!c.is_empty(), first_removed.last_mut()) {
            *first = row_items.start + c.start;
        }
        let new = match new {
            NewItems::Rows(edge, _) => edge.child_range(i),
            NewItems::Fill(_) => {
                fill_longer |= c.len() > 1;
                i..i + c.len()
            }
        };
        splices.push(row_items.len(), Splice { cut: c, new })?;
    }
    let popped = removed.then(|| items.take(&first_removed));
    if !splices.changes_some_row() {
        return Ok((None, popped));
    }
    let new_items = match new {
        NewItems::Rows(_, items) => items.clone(),
        NewItems::Fill(values) if !fill_longer => values.clone(),
        NewItems::Fill(values) => {
            // Occurrence `i` of row `r` fills its cut with item `i` repeated:
            // the repeats laid out in order of occurrence.
            let mut sizes = vec![0i64; occurrences];
            let mut start = 0;
            for (i, size) in sizes.iter_mut().enumerate() {
                let r = row(i);
                if r != MISSING_INDEX {
                    let len = splices.rows()[r].new.len();
                    splices.place_new(r, start);
                    (*size, start) = (len as i64, start + len);
                }
            }
            values.repeat_by_edge(None, &Edge::from_sizes(&sizes)?)
        }
    };
    Ok((Some(Plan { splices, new_items }), popped))
}

/// The lists' new rows (edge and items; `None` when none changes) and,
/// when asked for, the first item each occurrence removed.
type Spliced = (Option<(Edge, SliceData)>, Option<SliceData>);

/// [`splice_lists`] when some list comes more than once: each list is
/// followed as positions (in `items`, then in the new items) through its
/// occurrences in order, then gathered once.
fn splice_in_turn(
    rows: &[usize],
    edge: &Edge,
    items: &SliceData,
    mut cut: impl FnMut(usize, usize) -> Result<Option<Range<usize>>>,
    new: NewItems<'_>,
    removed: bool,
) -> Result<Spliced> {
    let na = items.len();
    let mut lists: Vec<Vec<usize>> = (0..edge.parent_size()).map(|r| edge.child_range(r).collect()).collect();
    let mut popped = vec![MISSING_INDEX; if removed { rows.len() } else { 0 }];
    for (i, &row) in rows.iter().enumerate() {
        if row == MISSING_INDEX {
            continue;
        }
        let list = &mut lists[row];
        let Some(c) = cut(i, list.len())? else { continue };
        if removed && !c.is_empty() {
            popped[i] = list[c.start];
        }
        match &new {
            NewItems::Rows(edge, _) => drop(list.splice(c, edge.child_range(i).map(|j| na + j))),
            NewItems::Fill(_) => {
                let n = c.len();
                drop(list.splice(c, std::iter::repeat_n(na + i, n)));
            }
        }
    }
    let (NewItems::Rows(_, new_items) | NewItems::Fill(new_items)) = new;
    let sizes: Vec<i64> = lists.iter().map(|l| l.len() as i64).collect();
    let spliced = items.take_pair(new_items, &lists.concat());
    Ok((Some((Edge::from_sizes(&sizes)?, spliced)), removed.then(|| items.take_pair(new_items, &popped))))
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
        DistinctIds { ids: Vec::with_capacity(ids.len()), by_offset, by_id: HashMap::new() }
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

/// The lists and the indices aligned with them; an index DataItem stays
/// one item (one index for every list, not repeated per list).
fn aligned_with_index(op: &str, x: &DataSlice, index: &DataSlice) -> Result<(DataSlice, DataSlice)> {
    if index.is_item() {
        return Ok((x.clone(), index.clone()));
    }
    let aligned = plait_core::broadcast::align(op, &[x, index])?;
    Ok((aligned[0].clone(), aligned[1].clone()))
}

/// Integer indices into lists, one per occurrence (missing: none).
enum Indices<'a> {
    /// One index (or none) for every occurrence.
    One(Option<i64>),
    /// One column of integers, all present (read without dispatch).
    Int32(&'a [i32]),
    Int64(&'a [i64]),
    /// Integers and missing items.
    Any(&'a DataSlice),
}

impl<'a> Indices<'a> {
    /// The indices of `index` (aligned with the lists); a present index
    /// that is no integer is the error `not_integer` makes.
    fn read(index: &'a DataSlice, not_integer: impl Fn() -> Error) -> Result<Indices<'a>> {
        let columns = index.data().columns();
        if columns.iter().any(|c| !matches!(c.values, Values::Int32(_) | Values::Int64(_))) {
            return Err(not_integer());
        }
        Ok(match columns {
            _ if index.is_item() => Indices::One(Indices::Any(index).get(0)),
            [Column { values: Values::Int32(v), presence: None }] => Indices::Int32(v),
            [Column { values: Values::Int64(v), presence: None }] => Indices::Int64(v),
            _ => Indices::Any(index),
        })
    }

    /// Index `i`, if present.
    #[inline]
    fn get(&self, i: usize) -> Option<i64> {
        match self {
            Indices::One(k) => *k,
            Indices::Int32(v) => Some(v[i] as i64),
            Indices::Int64(v) => Some(v[i]),
            Indices::Any(index) => match index.get(i)? {
                ScalarRef::Int32(v) => Some(v as i64),
                ScalarRef::Int64(v) => Some(v),
                _ => None,
            },
        }
    }

    /// Where index `i` falls in a list of `n` items (see
    /// [`position_in_list`]).
    #[inline]
    fn position(&self, i: usize, n: usize) -> Option<usize> {
        position_in_list(self.get(i), n)
    }
}

/// Where index `k` falls in a list of `n` items (negative counts from the
/// end); `None` where it is missing or out of range.
#[inline]
fn position_in_list(k: Option<i64>, n: usize) -> Option<usize> {
    let k = k?;
    let at = if k < 0 { k + n as i64 } else { k };
    (0..n as i64).contains(&at).then_some(at as usize)
}

/// `$body` with `$position(i, n)` giving where occurrence `i`'s index falls
/// in a list of `n` items ([`Indices::position`]), compiled apart for one
/// index for every list (`pop(0)`, `del l[i]`, `l[i] = v`): the loop over
/// the lists then reads it with no dispatch and no call per list.
macro_rules! with_position {
    ($indices:expr, $position:ident => $body:expr) => {
        match $indices {
            Indices::One(k) => {
                let k = *k;
                let $position = move |_: usize, n: usize| position_in_list(k, n);
                $body
            }
            indices => {
                let $position = |i: usize, n: usize| indices.position(i, n);
                $body
            }
        }
    };
}
use with_position;

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
    fn of(&self, n: usize) -> Range<usize> {
        let n = n as i64;
        let clamp = |k: i64| (if k < 0 { k + n } else { k }).clamp(0, n) as usize;
        let lo = self.start.map_or(0, clamp);
        lo..self.stop.map_or(n as usize, clamp).max(lo)
    }
}
