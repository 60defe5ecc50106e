//! Looking items up in other slices: `kd.slices.translate` (one value per
//! key), `translate_group` (all values of a key, in a new dimension) and
//! `isin`.
//!
//! ```text
//! translate(['a', 'c'], ['a', 'b'], [1, 2])                  [1, None]
//! translate_group(['a', 'c'], ['a', 'b', 'a'], [1, 2, 3])    [[1, 3], []]
//! ```
//!
//! `keys_from` may have fewer dimensions than `keys_to`: its last dimension
//! is the lookup table of each item of the dimensions before it.

use plait_core::broadcast::expand_to_shape;
use plait_core::column::MISSING_INDEX;
use plait_core::{DataSlice, Edge, Error, JaggedShape, Result, Schema};

use super::gather::ancestors;
use super::keys::{Key, NanKeys, fast_map, keys_of};
use crate::comparison::order;
use crate::describe;
use crate::masking::mask_where;

const TRANSLATE: &str = "kd.slices.translate";

/// The lookup of `keys_to` in `keys_from`: for each item of `keys_to`, the
/// table (item of `keys_from` without its last dimension) it looks into.
struct Lookup<'a> {
    /// The key of every `keys_from` item, by table.
    from: Vec<(usize, Key<'a>, usize)>,
    /// For each `keys_to` item: its table and key.
    to: Vec<Option<(usize, Key<'a>)>>,
}

fn lookup<'a>(keys_to: &'a DataSlice, keys_from: &'a DataSlice) -> Result<Lookup<'a>> {
    let op = TRANSLATE;
    if keys_from.is_item() {
        return Err(Error::value(op, "keys_from and values_from must have at least one dimension"));
    }
    let tables = keys_from.shape().prefix(keys_from.rank() - 1);
    if !tables.is_prefix_of(keys_to.shape()) {
        return Err(Error::value(
            op,
            format!("keys_from.get_shape()[:-1] must be broadcastable to keys_to, but got {tables} vs {}", keys_to.shape()),
        ));
    }
    let (to, from) = (keys_to.schema(), keys_from.schema());
    let castable = to == Schema::None || to == Schema::Object || from == Schema::Object || to.is_implicitly_castable_to(from);
    if !castable {
        return Err(Error::value(op, "keys_to schema must be castable to keys_from schema"));
    }
    if let Some(float) = std::iter::once(from).chain(keys_from.data().dtypes()).find(|t| t.is_float()) {
        return Err(Error::value(op, format!("dict keys cannot be {float}")));
    }
    let from_keys = keys_of(keys_from.data(), NanKeys::Equal);
    let table_of = keys_from.shape().edges()[keys_from.rank() - 1].parent_ids();
    let from = from_keys.iter().enumerate().filter_map(|(i, k)| k.map(|k| (table_of[i], k, i))).collect();
    let to_tables = ancestors(keys_to.shape(), tables.rank());
    let to = keys_of(keys_to.data(), NanKeys::Equal).into_iter().zip(to_tables).map(|(k, t)| k.map(|k| (t, k))).collect();
    Ok(Lookup { from, to })
}

/// For each item of `keys_to`, the item of `values_from` at the same position
/// as the equal key of `keys_from` (missing when there is none).
pub fn translate(keys_to: &DataSlice, keys_from: &DataSlice, values_from: &DataSlice) -> Result<DataSlice> {
    let op = TRANSLATE;
    if keys_from.is_item() {
        return Err(Error::value(op, "keys_from and values_from must have at least one dimension"));
    }
    let values =
        expand_to_shape(op, values_from, keys_from.shape(), 0).map_err(|_| Error::value(op, "values_from must be broadcastable to keys_from"))?;
    let lookup = lookup(keys_to, keys_from)?;
    let mut table = fast_map::<(usize, Key<'_>), usize>(lookup.from.len());
    for &(t, k, i) in &lookup.from {
        if table.insert((t, k), i).is_some() {
            let deduplicated = super::group::unique(keys_from, false)?;
            return Err(Error::value(
                op,
                format!(
                    "keys_from must be unique within each group of the last dimension: original DataSlice {} vs DataSlice after dedup {}. Consider using translate_group instead",
                    describe(keys_from),
                    describe(&deduplicated)
                ),
            ));
        }
    }
    let gather: Vec<usize> = lookup.to.iter().map(|k| k.and_then(|k| table.get(&k).copied()).unwrap_or(MISSING_INDEX)).collect();
    DataSlice::new(keys_to.shape().clone(), values.data().take(&gather), values.schema())
}

/// For each item of `keys_to`, every item of `values_from` whose key in
/// `keys_from` equals it, in order, in a new last dimension.
pub fn translate_group(keys_to: &DataSlice, keys_from: &DataSlice, values_from: &DataSlice) -> Result<DataSlice> {
    if keys_from.shape() != values_from.shape() {
        return Err(Error::value("kd.slices.translate_group", "`keys_from` and `values_from` must have the same shape"));
    }
    if keys_from.is_item() {
        return Err(Error::value(TRANSLATE, "keys_from and values_from must have at least one dimension"));
    }
    let lookup = lookup(keys_to, keys_from)?;
    // Positions of `keys_from` items by (table, key), in order.
    let mut ids = fast_map::<(usize, Key<'_>), usize>(0);
    let mut members: Vec<Vec<usize>> = Vec::new();
    for &(t, k, i) in &lookup.from {
        let id = *ids.entry((t, k)).or_insert_with(|| {
            members.push(Vec::new());
            members.len() - 1
        });
        members[id].push(i);
    }
    let mut sizes = Vec::with_capacity(lookup.to.len());
    let mut gather = Vec::new();
    for k in &lookup.to {
        let found = k.and_then(|k| ids.get(&k)).map_or(&[][..], |&id| &members[id][..]);
        sizes.push(found.len() as i64);
        gather.extend_from_slice(found);
    }
    let shape: JaggedShape = keys_to.shape().with_edge(Edge::from_sizes(&sizes)?)?;
    DataSlice::new(shape, values_from.data().take(&gather), values_from.schema())
}

/// Present when the DataItem `x` equals some item of `y`.
pub fn isin(x: &DataSlice, y: &DataSlice) -> Result<DataSlice> {
    if !x.is_item() {
        return Err(Error::value("kd.slices.isin", "argument `x` must be a DataItem"));
    }
    // Items are compared as `kd.equal` compares them: schemas with nothing
    // in common are an error, not "not found".
    if plait_core::Schema::common(x.schema(), y.schema()).is_none() {
        return Err(crate::promote::no_common_schema_error("kd.slices.isin", (x.schema(), x.bag()), (y.schema(), y.bag())));
    }
    let found = x.get(0).is_some_and(|v| (0..y.size()).any(|j| y.get(j).is_some_and(|w| order(v, w) == Some(std::cmp::Ordering::Equal))));
    mask_where(&JaggedShape::scalar(), 1, |_| found)
}
