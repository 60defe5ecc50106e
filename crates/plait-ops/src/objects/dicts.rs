//! Dicts: `kd.dict` / `kd.dict_shaped` / `_shaped_as` / `_like`,
//! `kd.dicts.get_item` (`d[k]`), `get_keys`, `get_values`, `dict_size`,
//! `has_dict` / `is_dict`, `select_keys` / `select_values`, `dict_update` /
//! `with_dict_update` and `d[k] = v` on a mutable bag; `kd.dict_schema`,
//! `get_key_schema`, `get_value_schema`, `is_dict_schema`.
//!
//! A dict is an ItemId of kind Dict whose entries live in a bag (see
//! `plait_core::bag::dict_store`). Its schema is a uu schema (the same id for
//! the same key and value schemas) whose `__keys__` and `__values__`
//! attributes hold them, printed `DICT{STRING, INT32}`.

use plait_core::bag::text::{DICT_KEYS_ATTR, DICT_VALUES_ATTR};
use plait_core::broadcast::{align, expand_to_shape};
use plait_core::{DataBag, DataSlice, Error, ItemId, ItemKind, JaggedShape, Result, ScalarRef, Schema};

use super::containers::{
    bag_for, fill_container_schema, fit_to, fit_to_in_place, has_container, held_schema, is_container, rows_for, schema_item, typed_items,
};
use super::model::{
    adopt_value_bags, attr_schema, ids_for, ids_of, made_for, new_bag_over, refers_to_data, update_with_values, updated_over, whole_allocation,
};
use crate::registry::{Args, Registry};

const SCHEMA_KIND: &str = "dict_schema";
const SCHEMA_ATTRS: [&str; 2] = [DICT_KEYS_ATTR, DICT_VALUES_ATTR];

/// Koda's refusal of float and expression keys.
pub(super) fn check_key_schema(op: &str, key: Schema) -> Result<()> {
    match key {
        Schema::Float32 | Schema::Float64 | Schema::Expr => Err(Error::value(op, format!("dict keys cannot be {key}"))),
        _ => Ok(()),
    }
}

/// Koda's refusal of a key that is a missing DataItem without a type, for
/// a single dict (keys broadcast to a slice of dicts are simply skipped).
fn check_key_item(op: &str, keys: &DataSlice, dicts_rank: usize) -> Result<()> {
    if keys.is_item() && keys.schema() == Schema::None && dicts_rank == 0 {
        return Err(Error::value(op, "invalid key type: NOTHING"));
    }
    Ok(())
}

/// Writes the dict schema of `key` and `value` into `bag` (being built).
pub(super) fn fill_dict_schema(bag: &DataBag, key: Schema, value: Schema) -> Schema {
    fill_container_schema(bag, SCHEMA_KIND, &SCHEMA_ATTRS, &[key, value])
}

/// `kd.dict_schema(key_schema, value_schema)`.
pub fn dict_schema(key: &DataSlice, value: &DataSlice) -> Result<DataSlice> {
    let op = "kd.schema.dict_schema";
    let (key_schema, value_schema) = (schema_item(op, key)?, schema_item(op, value)?);
    check_key_schema(op, key_schema)?;
    let bag = new_bag_over(op, &[key, value])?;
    let schema = fill_dict_schema(&bag, key_schema, value_schema);
    Ok(made_for(DataSlice::item(Some(ScalarRef::Schema(schema)), Schema::Schema)?.with_bag(Some(bag))))
}

/// The key and value schemas of the dicts in `x`; `None` when `x` does not
/// hold dicts.
fn entry_schemas(op: &str, x: &DataSlice) -> Result<Option<(Schema, Schema)>> {
    let Some(keys) = held_schema(op, x, DICT_KEYS_ATTR)? else {
        return Ok(None);
    };
    let values = held_schema(op, x, DICT_VALUES_ATTR)?.unwrap_or(Schema::Object);
    Ok(Some((keys, values)))
}

/// The schema of the keys (`attr` is `__keys__`) or of the values
/// (`__values__`) of dicts `x`, with Koda's errors of reading that attribute
/// from what is not a dict (`kd.get_keys`, `kd.get_values`). (The keys'
/// schema alone is one lookup: `d.get_keys()` is often called per item.)
fn entries_attr_schema(op: &str, x: &DataSlice, attr: &str) -> Result<Schema> {
    let schema = if attr == DICT_KEYS_ATTR { held_schema(op, x, DICT_KEYS_ATTR)? } else { entry_schemas(op, x)?.map(|(_, values)| values) };
    schema.ok_or_else(|| match x.schema() {
        Schema::Struct(_) | Schema::Object | Schema::Schema => Error::value(op, format!("the attribute '{attr}' is missing on the schema.")),
        primitive => Error::value(op, format!("cannot get or set attributes on schema: {primitive}")),
    })
}

/// The key and value schemas of dicts `x`, or Koda's error for non-dicts.
fn require_dicts(op: &str, x: &DataSlice) -> Result<(Schema, Schema)> {
    entry_schemas(op, x)?
        .ok_or_else(|| Error::value(op, format!("dict(s) expected, got {}", plait_core::bag::text::schema_text(x.schema(), x.bag()))))
}

/// Koda's refusal of dict values with more dimensions than the dicts (or
/// the keys, if they have more): `rank`.
fn check_values_rank(op: &str, rank: usize, values: &DataSlice) -> Result<()> {
    let extra = values.rank().saturating_sub(rank);
    if extra == 0 {
        return Ok(());
    }
    Err(Error::value(
        op,
        format!(
            "dict values being assigned in kd.dict_update(dct, keys, values), dct[keys] = values or kd.dict(keys, values) \
             must have the same or fewer dimensions than dct (or keys if larger), got {rank} < {}; \
             consider wrapping the last {extra} dimension(s) into lists using kd.implode(values, ndim={extra})",
            values.rank()
        ),
    ))
}

/// Keys and values aligned with dicts `x` for an update: `x` repeated over
/// a `keys` with more dimensions; `values` broadcast to the keys.
fn aligned_entries(op: &str, x: &DataSlice, keys: &DataSlice, values: &DataSlice) -> Result<[DataSlice; 3]> {
    check_values_rank(op, x.rank().max(keys.rank()), values)?;
    let [x, keys] = <[DataSlice; 2]>::try_from(align(op, &[x, keys])?).expect("two inputs");
    let values = expand_to_shape(op, values, x.shape(), 0)?;
    Ok([x, keys, values])
}

/// Keys and values cast to the schemas of dicts `x`, or Koda's error;
/// `in_place` where they are written into `x`'s bag ([`fit_to_in_place`]).
fn fitted(
    op: &str,
    x: &DataSlice,
    schemas: (Schema, Schema),
    keys: &DataSlice,
    values: &DataSlice,
    in_place: bool,
) -> Result<(DataSlice, DataSlice)> {
    let fit = if in_place { fit_to_in_place } else { fit_to };
    let keys = fit(op, "keys", x, schemas.0, keys)?;
    // OBJECT keys may still hold floats.
    if let Some(float) = keys.data().dtypes().find(|t| matches!(t, Schema::Float32 | Schema::Float64)) {
        check_key_schema(op, float)?;
    }
    let values = fit(op, "values", x, schemas.1, values)?;
    Ok((keys, values))
}

/// The arguments that fill new dicts.
pub struct Contents<'a> {
    pub keys: Option<&'a DataSlice>,
    pub values: Option<&'a DataSlice>,
    pub key_schema: Option<Schema>,
    pub value_schema: Option<Schema>,
    /// The arguments that gave the schemas: their bags hold the definitions
    /// of struct schemas (a list schema of values), which the dicts bring
    /// along.
    pub schemas_from: Vec<&'a DataSlice>,
    pub itemid: Option<&'a DataSlice>,
}

/// New dicts of `shape` holding `contents` (`kd.dict_shaped`): keys with
/// one more dimension than `shape` give several entries per dict, keys of
/// `shape`'s rank or less one entry per dict.
pub fn shaped(op: &str, shape: &JaggedShape, contents: &Contents<'_>) -> Result<DataSlice> {
    let key_schema = contents.key_schema.or(contents.keys.map(|k| k.schema())).unwrap_or(Schema::Object);
    let value_schema = contents.value_schema.or(contents.values.map(|v| v.schema())).unwrap_or(Schema::Object);
    check_key_schema(op, key_schema)?;
    let (ids, column) = ids_for(op, ItemKind::Dict, contents.itemid, shape)?;
    let inputs: Vec<&DataSlice> = [contents.keys, contents.values].into_iter().flatten().chain(contents.schemas_from.iter().copied()).collect();
    let bag = new_bag_over(op, &inputs)?;
    let schema = fill_dict_schema(&bag, key_schema, value_schema);
    let dicts = DataSlice::new(shape.clone(), column, schema)?;
    // The bag holds only what the dicts reach unless values that bring
    // data along are dropped (a missing key, a key given twice).
    let mut holds_only_reached = true;
    if let Some(keys) = contents.keys {
        check_key_item(op, keys, shape.rank())?;
        let key_rows = rows_for(op, keys, shape)?;
        let missing = DataSlice::missing(JaggedShape::scalar(), Schema::None);
        let values = contents.values.unwrap_or(&missing);
        check_values_rank(op, shape.rank().max(keys.rank()), values)?;
        let value_rows = expand_to_shape(op, values, key_rows.shape(), 0)?.with_bag(values.bag().cloned());
        let (keys, values) = fitted(op, &dicts, (key_schema, value_schema), &key_rows, &value_rows, false)?;
        let edge = keys.shape().edges().last().expect("key rows have rank >= 1").clone();
        bag.fill(|w| w.set_dicts(&ids, &edge, keys.data(), values.data()));
        let (keys_bring, values_bring) = (contents.keys.is_some_and(refers_to_data), contents.values.is_some_and(refers_to_data));
        if keys_bring || values_bring {
            let all_kept = keys.present_count() == keys.size() && (!keys_bring || values.present_count() == values.size());
            holds_only_reached = all_kept && crate::slices::unique(&keys, false)?.size() == keys.size();
        }
    }
    let dicts = dicts.with_bag(Some(bag));
    Ok(if holds_only_reached { made_for(dicts) } else { dicts })
}

/// `kd.dict(keys, values)`: one dict per row of the last dimension of
/// `keys` (a single dict for a DataItem key).
pub fn new(contents: &Contents<'_>) -> Result<DataSlice> {
    let op = "kd.dicts.new";
    let shape = match contents.keys {
        Some(keys) if keys.rank() > 0 => keys.shape().prefix(keys.rank() - 1),
        _ => JaggedShape::scalar(),
    };
    shaped(op, &shape, contents)
}

/// `d[keys]`: the value of each key in its dict (missing where absent).
pub fn get_item(x: &DataSlice, keys: &DataSlice) -> Result<DataSlice> {
    let op = "kd.dicts.get_item";
    let bag = bag_for(op, x, "cannot get dict values")?;
    let schemas = require_dicts(op, x)?;
    // One key looked up in dicts made together: no list of ids, no copies
    // of the key.
    if keys.is_item() {
        let key = fit_to(op, "keys", x, schemas.0, keys)?;
        if let (Some(k), Some((allocation, len))) = (key.get(0), whole_allocation(x.data())) {
            if let Some(data) = bag.dict_get_whole(allocation, len, k) {
                return typed_items(op, x.schema(), x.shape().clone(), data, schemas.1, bag);
            }
        }
    }
    // Many keys looked up in one dict: no list of ids either.
    if let (true, Some(ScalarRef::ItemId(id))) = (x.is_item(), x.data().get(0)) {
        let keys = fit_to(op, "keys", x, schemas.0, keys)?;
        if let Some(data) = bag.dict_get_one(id, keys.data()) {
            return typed_items(op, x.schema(), keys.shape().clone(), data, schemas.1, bag);
        }
    }
    let [dicts, keys] = <[DataSlice; 2]>::try_from(align(op, &[x, keys])?).expect("two inputs");
    let keys = fit_to(op, "keys", x, schemas.0, &keys)?;
    let data = bag.dict_get(&ids_of(&dicts), keys.data());
    typed_items(op, x.schema(), dicts.shape().clone(), data, schemas.1, bag)
}

/// `kd.get_keys(d)`: the keys of each dict as a new last dimension, in the
/// order they were first set.
pub fn get_keys(x: &DataSlice) -> Result<DataSlice> {
    let op = "kd.dicts.get_keys";
    let bag = bag_for(op, x, "cannot get dict keys")?;
    let key_schema = entries_attr_schema(op, x, DICT_KEYS_ATTR)?;
    let (edge, keys) = bag.dict_keys(&ids_of(x))?;
    typed_items(op, x.schema(), x.shape().with_edge(edge)?, keys, key_schema, bag)
}

/// `kd.get_values(d, keys=unspecified)`: the values of each dict in key
/// order as a new last dimension, or the values of `keys`.
pub fn get_values(x: &DataSlice, keys: Option<&DataSlice>) -> Result<DataSlice> {
    let op = "kd.dicts.get_values";
    if let Some(keys) = keys {
        return get_item(x, keys);
    }
    let bag = bag_for(op, x, "cannot get dict values")?;
    let value_schema = entries_attr_schema(op, x, DICT_VALUES_ATTR)?;
    let (edge, values) = bag.dict_values(&ids_of(x))?;
    typed_items(op, x.schema(), x.shape().with_edge(edge)?, values, value_schema, bag)
}

/// `kd.dict_size(d)`: the number of entries of each dict (INT64).
pub fn size(x: &DataSlice) -> Result<DataSlice> {
    let op = "kd.dicts.size";
    let bag = bag_for(op, x, "Not possible to get Dict size")?;
    if x.schema() == Schema::None {
        // Missing dicts of no schema: missing sizes, as in Koda.
        return Ok(DataSlice::missing(x.shape().clone(), Schema::Int64));
    }
    if entry_schemas(op, x)?.is_none() {
        return Err(super::containers::not_containers_for_size(op, x, "dict"));
    }
    if let Some((allocation, len)) = whole_allocation(x.data())
        && let Some(sizes) = bag.dict_sizes_whole(allocation, len)
    {
        return crate::slices::int64_slice(x.shape(), sizes, None);
    }
    let sizes = bag.dict_sizes(&ids_of(x));
    let values: Vec<i64> = sizes.iter().map(|s| s.map_or(0, |n| n as i64)).collect();
    let flags: Vec<bool> = sizes.iter().map(Option::is_some).collect();
    crate::slices::int64_slice(x.shape(), values, crate::kernel::presence_from_flags(&flags))
}

/// Whether each item is a dict (`kd.has_dict`).
pub fn has_dict(x: &DataSlice) -> Result<DataSlice> {
    has_container("kd.dicts.has_dict", x, DICT_KEYS_ATTR, ItemKind::Dict)
}

/// Whether `x` holds dicts only (`kd.is_dict`).
pub fn is_dict(x: &DataSlice) -> Result<DataSlice> {
    is_container("kd.dicts.is_dict", x, DICT_KEYS_ATTR, ItemKind::Dict)
}

/// The keys and the values an update writes: `keys` and `values`, or the
/// entries of the dicts `keys` when `values` is not given.
fn update_entries(keys: &DataSlice, values: Option<&DataSlice>) -> Result<(DataSlice, DataSlice)> {
    match values {
        Some(values) => Ok((keys.clone(), values.clone())),
        // Koda reads the dicts' entries (with the errors of kd.get_keys).
        None => Ok((get_keys(keys)?, get_values(keys, None)?)),
    }
}

/// Writes `keys` → `values` into dicts `x` through `write`, after the checks
/// and casts every update shares.
fn update_with(
    op: &str,
    x: &DataSlice,
    keys: &DataSlice,
    values: Option<&DataSlice>,
    in_place: bool,
    write: impl FnOnce(&[Option<ItemId>], &DataSlice, &DataSlice) -> Result<()>,
) -> Result<()> {
    let schemas = require_dicts(op, x)?;
    check_key_item(op, keys, x.rank())?;
    let (keys, values) = update_entries(keys, values)?;
    let [dicts, keys, values] = aligned_entries(op, x, &keys, &values)?;
    let (keys, values) = fitted(op, x, schemas, &keys, &values, in_place)?;
    write(&ids_of(&dicts), &keys, &values)
}

/// A new bag holding only the entries `op` writes into dicts `x` (and the
/// dicts' schema).
/// Also returns the keys and values written (entities among them made
/// objects for OBJECT dicts), whose bags the update brings along.
fn update_bag(op: &str, x: &DataSlice, keys: &DataSlice, values: Option<&DataSlice>) -> Result<(DataBag, [DataSlice; 2])> {
    // Koda's order: the entries of dicts given as `keys`, then `x`.
    let (keys, values) = update_entries(keys, values)?;
    if x.bag().is_none() {
        return Err(Error::value(op, "cannot update a DataSlice of dicts without a DataBag"));
    }
    if entry_schemas(op, x)?.is_none() {
        return Err(Error::value(op, "expected a DataSlice of dicts"));
    }
    let update = DataBag::new_immutable();
    let mut written = None;
    update_with(op, x, &keys, Some(&values), false, |ids, keys, values| {
        update.fill(|w| w.set_dict_entries(ids, keys.data(), values.data()));
        written = Some([keys.clone(), values.clone()]);
        Ok(())
    })?;
    let written = written.expect("update_with writes once");
    if let (Schema::Struct(id), Some(bag)) = (x.schema(), x.bag()) {
        if let (Some(k), Some(v)) = (attr_schema(bag, id, DICT_KEYS_ATTR), attr_schema(bag, id, DICT_VALUES_ATTR)) {
            fill_dict_schema(&update, k, v);
        }
    }
    Ok((update, written))
}

/// `kd.dict_update(x, keys, values)`: a new bag holding only the updated
/// entries (and the dicts' schema).
pub fn dict_update(x: &DataSlice, keys: &DataSlice, values: Option<&DataSlice>) -> Result<DataBag> {
    let op = "kd.dicts.dict_update";
    let (update, [keys, values]) = update_bag(op, x, keys, values)?;
    update_with_values(op, update, &[&keys, &values])
}

/// `kd.with_dict_update(x, keys, values)`: `x` with a bag in which its dicts
/// hold the update (reading through to the old bag, and to the bags of the
/// keys and values for entities among them).
pub fn with_dict_update(x: &DataSlice, keys: &DataSlice, values: Option<&DataSlice>) -> Result<DataSlice> {
    let op = "kd.dicts.with_dict_update";
    let (update, [keys, values]) = update_bag(op, x, keys, values)?;
    let old = bag_for(op, x, "cannot update dicts")?.clone();
    Ok(x.clone().with_bag(Some(updated_over(op, &old, update, &[&keys, &values])?)))
}

/// `d[keys] = values` on dicts of a mutable bag. Values bringing their own
/// bag (entities) have it merged in.
pub fn set_in_place(x: &DataSlice, keys: &DataSlice, values: &DataSlice) -> Result<()> {
    let op = "kd.dicts.set_item";
    let bag = bag_for(op, x, "cannot set dict values")?;
    if !bag.is_mutable() {
        return Err(plait_core::bag::immutable_error(op));
    }
    update_with(op, x, keys, Some(values), true, |ids, keys, values| {
        // The bags of what is written (entities made objects included).
        adopt_value_bags(op, bag, &[keys, values])?;
        bag.set_dict_entries(op, ids, keys.data(), values.data())
    })
}

/// The optional schema argument `name` (`None` when not given or missing).
fn opt_schema(a: &Args<'_>, op: &str, name: &str) -> Result<Option<Schema>> {
    match a.opt_slice(name)?.filter(|s| s.present_count() > 0) {
        Some(s) => schema_item(op, s).map(Some),
        None => Ok(None),
    }
}

/// The key and value schemas from `key_schema=` / `value_schema=`, or from
/// a dict `schema=`.
fn opt_entry_schemas(a: &Args<'_>, op: &str) -> Result<(Option<Schema>, Option<Schema>)> {
    if let Some(s) = a.opt_slice("schema")?.filter(|s| s.present_count() > 0) {
        let (Schema::Struct(id), Some(bag)) = (schema_item(op, s)?, s.bag()) else {
            return Err(Error::value(op, format!("`schema` must be a dict schema, got {}", crate::describe(s))));
        };
        let (k, v) = (attr_schema(bag, id, DICT_KEYS_ATTR), attr_schema(bag, id, DICT_VALUES_ATTR));
        if k.is_none() {
            return Err(Error::value(op, format!("`schema` must be a dict schema, got {}", crate::describe(s))));
        }
        return Ok((k, v));
    }
    Ok((opt_schema(a, op, "key_schema")?, opt_schema(a, op, "value_schema")?))
}

/// The contents of new dicts from the arguments of the creating operators.
fn contents<'a>(a: &'a Args<'_>, op: &str) -> Result<Contents<'a>> {
    let (key_schema, value_schema) = opt_entry_schemas(a, op)?;
    let mut schemas_from = Vec::new();
    for name in ["schema", "key_schema", "value_schema"] {
        schemas_from.extend(a.opt_slice(name)?.filter(|s| s.present_count() > 0));
    }
    Ok(Contents {
        keys: a.opt_slice("keys")?,
        values: a.opt_slice("values")?,
        key_schema,
        value_schema,
        schemas_from,
        itemid: a.opt_given("itemid")?,
    })
}

pub(crate) fn register(r: &mut Registry) {
    r.add(
        "kd.schema.dict_schema",
        &["kd.dict_schema"],
        "key_schema, value_schema",
        r#"Returns the schema of dicts with the given key and value schemas.

The same key and value schemas always give the same schema, which is the
schema kd.dict gives dicts of such keys and values.

Args:
  key_schema: the schema of the keys (a schema DataItem).
  value_schema: the schema of the values (a schema DataItem).

Examples:
  >>> kd.dict_schema(kd.STRING, kd.INT64)
  DataItem(DICT{STRING, INT64}, schema: SCHEMA, bag_id: $...)
  >>> kd.dict_schema(kd.STRING, kd.INT32) == kd.dict({'a': 1}).get_schema()
  DataItem(present, schema: MASK)"#,
        |a| dict_schema(a.slice("key_schema")?, a.slice("value_schema")?),
    );
    r.add(
        "kd.schema.get_key_schema",
        &["kd.get_key_schema"],
        "dict_schema",
        r#"Returns the key schema of a dict schema.

Anything other than a dict schema DataItem raises ValueError.

Args:
  dict_schema: a dict schema DataItem.

Examples:
  >>> kd.get_key_schema(kd.dict_schema(kd.STRING, kd.INT64))
  DataItem(STRING, schema: SCHEMA, bag_id: $...)
  >>> kd.get_key_schema(kd.dict({1: 'a'}).get_schema())
  DataItem(INT32, schema: SCHEMA, bag_id: $...)"#,
        |a| super::model::container_schema_attr("kd.schema.get_key_schema", "Dict", a.slice("dict_schema")?, DICT_KEYS_ATTR),
    );
    r.add(
        "kd.schema.get_value_schema",
        &["kd.get_value_schema"],
        "dict_schema",
        r#"Returns the value schema of a dict schema.

Anything other than a dict schema DataItem raises ValueError.

Args:
  dict_schema: a dict schema DataItem.

Examples:
  >>> kd.get_value_schema(kd.dict_schema(kd.STRING, kd.INT64))
  DataItem(INT64, schema: SCHEMA, bag_id: $...)
  >>> kd.get_value_schema(kd.dict({1: 'a'}).get_schema())
  DataItem(STRING, schema: SCHEMA, bag_id: $...)"#,
        |a| super::model::container_schema_attr("kd.schema.get_value_schema", "Dict", a.slice("dict_schema")?, DICT_VALUES_ATTR),
    );
    r.add(
        "kd.dicts._new",
        &[],
        "keys=unspecified, values=unspecified, *, key_schema=None, value_schema=None, schema=None, itemid=None",
        "Creates dicts from keys and values (kd.dict after Python dicts are unpacked).",
        |a| new(&contents(a, "kd.dicts.new")?),
    );
    r.add(
        "kd.dicts._shaped",
        &[],
        "shape, /, keys=unspecified, values=unspecified, *, key_schema=None, value_schema=None, schema=None, itemid=None",
        "Creates dicts of the given shape (kd.dict_shaped after Python dicts are unpacked).",
        |a| shaped("kd.dicts.shaped", a.shape("shape")?, &contents(a, "kd.dicts.shaped")?),
    );
    r.add(
        "kd.dicts.get_keys",
        &["kd.get_keys"],
        "dict_ds",
        r#"Returns the keys of each dict, as a new last dimension.

Keys come in the order they were first set, the same order as
kd.get_values. A missing dict has no keys. The result has the dicts' key
schema.

Args:
  dict_ds: a DataSlice of dicts.

Examples:
  >>> kd.get_keys(kd.dict({'a': 1, 'b': 2}))
  DataSlice(['a', 'b'], schema: STRING, present: 2/2, bag_id: $...)
  >>> kd.get_keys(kd.slice([kd.dict({'a': 1}), None, kd.dict({'b': 2, 'c': 3})]))
  DataSlice([['a'], [], ['b', 'c']], schema: STRING, present: 3/3, bag_id: $...)"#,
        |a| get_keys(a.slice("dict_ds")?),
    );
    r.add(
        "kd.dicts.get_values",
        &["kd.get_values"],
        "dict_ds, key_ds=unspecified",
        r#"Returns the values of each dict as a new last dimension, or the values at key_ds.

Without key_ds, the values come in the order of kd.get_keys (the order the
keys were first set) and a missing dict has none. With key_ds, this is
kd.dicts.get_item(dict_ds, key_ds): keys absent from a dict give missing
values.

Args:
  dict_ds: a DataSlice of dicts.
  key_ds: the keys to look up (optional).

Examples:
  >>> d = kd.dict({'a': 1, 'b': 2})
  >>> kd.get_values(d)
  DataSlice([1, 2], schema: INT32, present: 2/2, bag_id: $...)
  >>> kd.get_values(d, kd.slice(['b', 'x']))
  DataSlice([2, None], schema: INT32, present: 1/2, bag_id: $...)"#,
        |a| get_values(a.slice("dict_ds")?, a.opt_slice("key_ds")?),
    );
    r.add(
        "kd.dicts.size",
        &["kd.dict_size"],
        "dict_slice",
        r#"Returns the number of entries of each dict.

The result is INT64, of the shape of dict_slice, and missing where a dict is
missing.

Args:
  dict_slice: a DataSlice of dicts.

Examples:
  >>> kd.dict_size(kd.dict({'a': 1, 'b': 2}))
  DataItem(2, schema: INT64)
  >>> kd.dict_size(kd.slice([kd.dict({'a': 1}), None, kd.dict({'b': 2, 'c': 3})]))
  DataSlice([1, None, 2], schema: INT64, present: 2/3)"#,
        |a| size(a.slice("dict_slice")?),
    );
    r.add(
        "kd.dicts.has_dict",
        &["kd.has_dict"],
        "x",
        r#"Returns present for each item of x that is a dict.

Missing items are missing. In OBJECT data, each item is checked on its own.
See kd.is_dict for a check of the whole slice.

Args:
  x: a DataSlice.

Examples:
  >>> kd.has_dict(kd.slice([kd.dict({'a': 1}), None]))
  DataSlice([present, missing], schema: MASK, present: 1/2)
  >>> kd.has_dict(kd.slice([kd.obj(kd.dict({1: 2})), kd.obj(a=1), 1]))
  DataSlice([present, missing, missing], schema: MASK, present: 1/3)"#,
        |a| has_dict(a.slice("x")?),
    );
    r.add(
        "kd.dicts.is_dict",
        &["kd.is_dict"],
        "x",
        r#"Returns present if x holds dicts only.

That is when x has a dict schema, or has OBJECT schema and every present
item is a dict (so an OBJECT slice with no present item counts). The result
is a MASK DataItem. See kd.has_dict for a check per item.

Args:
  x: a DataSlice.

Examples:
  >>> kd.is_dict(kd.slice([kd.dict({'a': 1}), None]))
  DataItem(present, schema: MASK)
  >>> kd.is_dict(kd.slice([kd.obj(kd.dict({1: 2})), kd.obj(a=1)]))
  DataItem(missing, schema: MASK)
  >>> kd.is_dict(kd.slice([1, 2]))
  DataItem(missing, schema: MASK)"#,
        |a| is_dict(a.slice("x")?),
    );
    r.add(
        "kd.dicts.with_dict_update",
        &["kd.with_dict_update"],
        "x, keys, values=unspecified",
        r#"Returns x with a new DataBag in which its dicts hold the given entries.

The dicts keep their ItemIds; the new bag reads through to x's bag, which is
left unchanged. keys and values are broadcast to x. When values is not
given, keys must be dicts whose entries are copied. Keys and values must fit
the dicts' key and value schemas, or ValueError is raised.

Args:
  x: a DataSlice of dicts.
  keys: the keys to set, or dicts holding the entries to set.
  values: the values for keys (optional).

Examples:
  >>> d = kd.dict({'a': 1})
  >>> kd.with_dict_update(d, 'a', 5)
  DataItem(Dict{'a'=5}, schema: DICT{STRING, INT32}, bag_id: $...)
  >>> kd.with_dict_update(d, kd.dict({'a': 10}))
  DataItem(Dict{'a'=10}, schema: DICT{STRING, INT32}, bag_id: $...)
  >>> kd.with_dict_update(kd.slice([d, kd.dict({'b': 2})]), 'z', kd.slice([7, 8])).get_values()
  DataSlice([[1, 7], [2, 8]], schema: INT32, present: 4/4, bag_id: $...)"#,
        |a| with_dict_update(a.slice("x")?, a.slice("keys")?, a.opt_slice("values")?),
    );
    r.add_value(
        "kd.dicts.dict_update",
        &["kd.dict_update"],
        "x, keys, values=unspecified",
        r#"Returns a new DataBag with updates to the dicts of `x`; `x` is unchanged.

With `values`, `keys` are set to `values` in each dict (both broadcast to
the shape of `x`, or one dimension more for several entries per dict);
a missing value (or None) removes the entry's value. Without `values`,
`keys` is a DataSlice of dicts whose entries are copied into the dicts
of `x`. Apply the bag with `x.updated(bag)` or `kd.updated`.

Args:
  x: a DataSlice of dicts.
  keys: the keys to set, or a DataSlice of dicts holding the updates.
  values: the values for `keys` (not given when `keys` holds dicts).

Examples:
  >>> d = kd.dict({'a': 1})
  >>> d.updated(kd.dict_update(d, 'a', 5))
  DataItem(Dict{'a'=5}, schema: DICT{STRING, INT32}, bag_id: $...)
  >>> d.updated(kd.dict_update(d, 'b', 2))['b']
  DataItem(2, schema: INT32, bag_id: $...)
  >>> d.updated(kd.dict_update(d, kd.dict({'a': 7})))
  DataItem(Dict{'a'=7}, schema: DICT{STRING, INT32}, bag_id: $...)"#,
        |a| Ok(crate::registry::Value::Bag(Some(dict_update(a.slice("x")?, a.slice("keys")?, a.opt_slice("values")?)?))),
    );
}
