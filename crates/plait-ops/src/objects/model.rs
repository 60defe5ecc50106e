//! The object model over a DataBag: ids of a slice, the schema of an
//! attribute, and writing attributes with Koda's schema rules.

use std::sync::Arc;

use arrow_buffer::NullBuffer;
use plait_core::bag::Roots;
use plait_core::bag::SCHEMA_ATTR;
use plait_core::bag::text::schema_text;
use plait_core::cast::cast_to;
use plait_core::itemid::new_allocation;
use plait_core::{Column, DataBag, DataSlice, Error, IdBits, ItemId, ItemKind, Result, Schema, SchemaValues, SliceData, Values};

/// The ItemIds of `x`'s items (`None` where missing or not an id).
pub fn ids_of(x: &DataSlice) -> Vec<Option<ItemId>> {
    // One column of ids, all present (entities and objects as created): a
    // straight map, without the per-item presence test.
    if let Some(Column { values: Values::ItemId(v), presence: None }) = x.data().single_column() {
        if let Some((base, len)) = v.as_run() {
            return (0..len as u128).map(|k| Some(ItemId(base + k))).collect();
        }
        return v.bits().iter().map(|&bits| Some(ItemId(bits as u128))).collect();
    }
    let mut out = vec![None; x.size()];
    for column in x.data().columns() {
        if let Values::ItemId(v) = &column.values {
            for (i, slot) in out.iter_mut().enumerate() {
                if column.is_present(i) {
                    *slot = Some(ItemId(v.get(i)));
                }
            }
        }
    }
    out
}

/// A column of ids as slice data.
pub fn ids_data(ids: &[Option<ItemId>]) -> SliceData {
    let mut values = Vec::with_capacity(ids.len());
    let mut all = true;
    for id in ids {
        values.push(id.map_or(0, |i| i.0 as i128));
        all &= id.is_some();
    }
    let presence = (!all).then(|| arrow_buffer::NullBuffer::from(ids.iter().map(Option::is_some).collect::<Vec<_>>()));
    SliceData::from_column(plait_core::Column::new(Values::ItemId(values.into()), presence))
}

/// The items an attribute is read from or written to.
///
/// `Whole` is slots 0..len of one allocation, in order: what `kd.new` and
/// `kd.obj` create, and what most reads see. The bag then reads and writes
/// whole dense columns ([`DataBag::get_attr_of_allocation`]), and nobody
/// builds a list of 32-byte `Option<ItemId>` per item.
#[derive(Clone, Debug)]
pub enum Ids {
    Whole { allocation: u64, len: usize },
    List(Vec<Option<ItemId>>),
}

impl Ids {
    /// The ids of `x`'s items.
    pub fn of(x: &DataSlice) -> Ids {
        match whole_allocation(x.data()) {
            Some((allocation, len)) => Ids::Whole { allocation, len },
            None => Ids::List(ids_of(x)),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Ids::Whole { len, .. } => *len,
            Ids::List(ids) => ids.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether item `i` is present (an id).
    pub fn is_present(&self, i: usize) -> bool {
        match self {
            Ids::Whole { .. } => true,
            Ids::List(ids) => ids[i].is_some(),
        }
    }

    /// The ids as a list (built for `Whole`).
    pub fn to_list(&self) -> std::borrow::Cow<'_, [Option<ItemId>]> {
        match self {
            Ids::Whole { allocation, len } => {
                let base = (*allocation as u128) << 64;
                std::borrow::Cow::Owned((0..*len as u128).map(|k| Some(ItemId(base | k))).collect())
            }
            Ids::List(ids) => std::borrow::Cow::Borrowed(ids),
        }
    }

    /// The first id of a `Whole` allocation (its offset 0).
    pub fn base(allocation: u64) -> u128 {
        (allocation as u128) << 64
    }
}

/// `(allocation, len)` when `data` is one all-present ItemId column holding
/// slots 0..len of one allocation in order. One pass over the raw bits, in
/// blocks without early exit so that it vectorizes.
pub fn whole_allocation(data: &SliceData) -> Option<(u64, usize)> {
    let Some(Column { values: Values::ItemId(ids), presence: None }) = data.single_column() else {
        return None;
    };
    if let Some((base, len)) = ids.as_run() {
        let first = ItemId(base);
        return first.allocation().filter(|_| first.offset() == 0).map(|allocation| (allocation, len));
    }
    let v = ids.bits();
    let first = ItemId(*v.first()? as u128);
    let allocation = first.allocation().filter(|_| first.offset() == 0)?;
    // Slot k must hold the allocation in the high half and k in the low
    // half; comparing the halves as u64 lanes vectorizes better than u128.
    let high = allocation;
    let mut start = 0u64;
    for block in v.chunks(64) {
        let ok = block.iter().zip(start..).fold(true, |ok, (&bits, k)| ok & (bits as u64 == k) & ((bits as u128 >> 64) as u64 == high));
        if !ok {
            return None;
        }
        start += block.len() as u64;
    }
    Some((allocation, v.len()))
}

/// The values of `name` for `ids`: a whole dense column when the bag has
/// one, else the general lookup.
pub fn read_attr(bag: &DataBag, name: &str, ids: &Ids) -> SliceData {
    if let Ids::Whole { allocation, len } = ids {
        if let Some(data) = bag.get_attr_of_allocation(name, *allocation, *len) {
            return data;
        }
    }
    bag.get_attr(name, &ids.to_list())
}

/// A fresh allocation of `n` items of `kind`: its ids, and the same ids as
/// the slice's column (built directly, without a presence bitmap).
pub fn fresh_ids(kind: ItemKind, n: usize) -> (Ids, SliceData) {
    let (allocation, column) = fresh_allocation(kind, n);
    (Ids::Whole { allocation, len: n }, column)
}

/// A new allocation of `n` ids of `kind`: its number and the ids as a
/// column (a run, written only if something reads them one by one).
pub fn fresh_allocation(kind: ItemKind, n: usize) -> (u64, SliceData) {
    let base = ItemId::new(kind, new_allocation(), 0);
    ((base.0 >> 64) as u64, SliceData::from_column(Column::full(Values::ItemId(IdBits::run(base.0, n)))))
}

/// The ids of new items of `kind` for `shape`: those of `itemid=` when
/// given (broadcast to `shape`), else a fresh allocation. Returns them as a
/// list (for writing into a bag) and as the result's column (a run for a
/// fresh allocation).
pub fn ids_for(op: &str, kind: ItemKind, itemid: Option<&DataSlice>, shape: &plait_core::JaggedShape) -> Result<(Vec<Option<ItemId>>, SliceData)> {
    match itemid {
        Some(given) => {
            let ids = ids_of(&plait_core::broadcast::expand_to_shape(op, given, shape, 0)?);
            // Lists and dicts take ids of their own kind only (entities and
            // objects any), as Koda.
            let wrong_kind = match kind {
                ItemKind::List => Some(("list", "List", ItemId::is_list as fn(ItemId) -> bool)),
                ItemKind::Dict => Some(("dict", "Dict", ItemId::is_dict as fn(ItemId) -> bool)),
                _ => None,
            };
            if let Some((what, name, is_kind)) = wrong_kind {
                if ids.iter().flatten().any(|&id| !is_kind(id)) {
                    return Err(Error::value(op, format!("itemid argument to {what} creation, requires {name} ItemIds")));
                }
            }
            let data = ids_data(&ids);
            Ok((ids, data))
        }
        None => {
            let (ids, data) = fresh_ids(kind, shape.size());
            Ok((ids.to_list().into_owned(), data))
        }
    }
}

/// The implicit schemas of a whole allocation of objects (same allocation
/// and offsets, kind ImplicitSchema), as ids and as a SCHEMA column.
pub fn implicit_schemas_of(allocation: u64, len: usize) -> (Ids, SliceData) {
    let base = ItemId(Ids::base(allocation)).with_kind(ItemKind::ImplicitSchema).0;
    let values = SchemaValues::structs(base, len);
    (Ids::Whole { allocation: (base >> 64) as u64, len }, SliceData::from_column(Column::full(Values::Schema(values))))
}

/// Whether `data` is exactly the implicit schemas of slots 0..len of
/// `allocation` (objects made together), all present.
pub fn is_implicit_schemas_of(data: &SliceData, allocation: u64) -> Option<u64> {
    let Some(Column { values: Values::Schema(schemas), presence: None }) = data.single_column() else {
        return None;
    };
    let base = ItemId(Ids::base(allocation)).with_kind(ItemKind::ImplicitSchema).0;
    if let Some((run_base, _)) = schemas.as_structs() {
        return (run_base == base).then_some((base >> 64) as u64);
    }
    let v = schemas.values();
    let ok = v.iter().zip(0u128..).fold(true, |ok, (s, k)| ok & matches!(s, Schema::Struct(id) if id.0 == base + k));
    ok.then_some((base >> 64) as u64)
}

/// Schemas as slice data: one SCHEMA column, built directly.
pub fn schemas_data(schemas: Vec<Option<Schema>>) -> SliceData {
    let n = schemas.len();
    let all = schemas.iter().all(Option::is_some);
    let presence = (!all).then(|| NullBuffer::from(schemas.iter().map(Option::is_some).collect::<Vec<_>>()));
    let values: Arc<[Schema]> = schemas.into_iter().map(|s| s.unwrap_or(Schema::None)).collect();
    SliceData::from_columns(n, vec![Column::new(Values::Schema(values.into()), presence)])
}

/// `n` copies of one schema as slice data (the attribute schema of objects
/// written together).
pub fn same_schema_data(schema: Schema, n: usize) -> SliceData {
    SliceData::from_column(Column::full(Values::Schema(SchemaValues::same(schema, n))))
}

/// The schema of attribute `name` of struct schema `schema_id`.
/// `ids` at `positions` (ascending and distinct, as
/// [`DataBag::attrs_held_by`] gives them; borrowed when they are all of
/// them).
pub fn picked<'t>(ids: &'t [Option<ItemId>], positions: &[usize]) -> std::borrow::Cow<'t, [Option<ItemId>]> {
    if positions.len() == ids.len() {
        return std::borrow::Cow::Borrowed(ids);
    }
    std::borrow::Cow::Owned(positions.iter().map(|&i| ids[i]).collect())
}

/// The struct schema of item `id` of DataItem `x`: `x`'s schema for an
/// entity, its `__schema__` in `bag` for an object (`None` otherwise). The
/// single-item fast paths (`e.a`, `e.a = 1`) start here.
pub fn struct_schema_of_item(x: &DataSlice, bag: &DataBag, id: ItemId) -> Option<ItemId> {
    match x.schema() {
        Schema::Struct(s) => Some(s),
        Schema::Object => match bag.get_one(plait_core::bag::SCHEMA_ATTR, id)?.schema()? {
            Schema::Struct(s) => Some(s),
            _ => None,
        },
        _ => None,
    }
}

pub fn attr_schema(bag: &DataBag, schema_id: ItemId, name: &str) -> Option<Schema> {
    bag.get_one(name, schema_id).and_then(|v| v.schema())
}

/// `kd.get_item_schema` / `get_key_schema` / `get_value_schema`: the schema
/// in `attr` of the list or dict schema item `schema` (`kind` is `List` or
/// `Dict`); anything else is Koda's one error,
/// `expected Dict schema for get_key_schema, got ...`.
pub fn container_schema_attr(op: &str, kind: &str, schema: &DataSlice, attr: &str) -> Result<DataSlice> {
    let held = match (schema.is_item().then(|| schema.get(0)).flatten(), schema.bag()) {
        (Some(plait_core::ScalarRef::Schema(Schema::Struct(id))), Some(bag)) => attr_schema(bag, id, attr),
        _ => None,
    };
    let name = op.rsplit('.').next().unwrap_or(op);
    let held = held.ok_or_else(|| Error::value(op, format!("expected {kind} schema for {name}, got {}", crate::describe(schema))))?;
    Ok(DataSlice::item(Some(plait_core::ScalarRef::Schema(held)), Schema::Schema)?.with_bag(schema.bag().cloned()))
}

/// The bag of `x`, or Koda's error for a slice without one.
pub fn bag_of<'a>(op_context: &str, x: &'a DataSlice) -> Result<&'a DataBag> {
    x.bag().ok_or_else(|| attr_error(op_context, "the DataSlice is a reference without a bag"))
}

/// `failed to get attribute 'x': ...` errors (Python AttributeError in Koda;
/// plait raises ValueError with the same text).
pub fn attr_error(context: &str, message: impl std::fmt::Display) -> Error {
    Error::value(context, message)
}

/// Writes one attribute of some items (into a bag being built, or in place).
type SetAttr<'a> = dyn Fn(&str, &Ids, &SliceData) -> Result<()> + 'a;

/// Where the schemas of the items being written to live.
pub enum Target {
    /// One struct schema for every item (entities).
    Struct(ItemId),
    /// One schema per item (objects): their `__schema__` ids.
    PerItem(Ids),
}

/// Writes attributes of `ids` into `write_bag` (which reads through to the
/// items' current bag), updating the schemas as Koda does: an attribute new to
/// the schema is added; an existing one must accept the value's narrowed
/// schema (the value is cast to it) unless `overwrite_schema` or the schema is
/// implicit, in which case the schema takes the value's schema.
/// `values` are already expanded to the items' shape.
pub fn write_attrs(
    op: &str,
    write_bag: &DataBag,
    ids: &Ids,
    target: &Target,
    attrs: &[(String, DataSlice)],
    overwrite_schema: bool,
    filling: bool,
) -> Result<()> {
    let set = |name: &str, ids: &Ids, data: &SliceData| -> Result<()> {
        match (ids, filling) {
            (Ids::Whole { allocation, .. }, true) => {
                write_bag.fill(|w| w.set_attr_of_allocation(name, *allocation, data));
                Ok(())
            }
            (Ids::Whole { allocation, .. }, false) => write_bag.set_attr_of_allocation(op, name, *allocation, data),
            (Ids::List(ids), true) => {
                write_bag.fill(|w| w.set_attr(name, ids, data));
                Ok(())
            }
            (Ids::List(ids), false) => write_bag.set_attr(op, name, ids, data),
        }
    };
    for (name, value) in attrs {
        refuse_schema_attr(op, name)?;
        match target {
            Target::Struct(schema_id) => {
                let value = fit_value(op, write_bag, *schema_id, name, value, overwrite_schema, &set, "original")?;
                set(name, ids, value.data())?;
            }
            Target::PerItem(schema_ids) => {
                // Objects: each object's schema takes the value's schema (implicit
                // schemas allow it); explicit schemas of objects are checked.
                // The distinct explicit schemas (usually none or one): no sort
                // of a per-object list.
                let whole_implicit = matches!(schema_ids, Ids::Whole { allocation, .. }
                    if ItemId(Ids::base(*allocation)).kind() == ItemKind::ImplicitSchema);
                let mut value = value.clone();
                if !whole_implicit {
                    let list = schema_ids.to_list();
                    let mut explicit: Vec<ItemId> = Vec::new();
                    let mut seen = std::collections::HashSet::new();
                    for &s in list.iter().flatten() {
                        if s.kind() != ItemKind::ImplicitSchema && explicit.last() != Some(&s) && seen.insert(s) {
                            explicit.push(s);
                        }
                    }
                    explicit.sort();
                    for schema_id in explicit {
                        value = fit_value(op, write_bag, schema_id, name, &value, overwrite_schema, &set, "Object")?;
                    }
                }
                // Objects made together: their implicit schemas are a whole
                // allocation, written as one column; otherwise only the
                // present objects with implicit schemas take the new schema.
                if whole_implicit {
                    if !schema_ids.is_empty() {
                        set(name, schema_ids, &same_schema_data(value.schema(), schema_ids.len()))?;
                    }
                } else {
                    let list = schema_ids.to_list();
                    let implicit: Vec<Option<ItemId>> =
                        list.iter().enumerate().map(|(i, s)| s.filter(|s| s.kind() == ItemKind::ImplicitSchema && ids.is_present(i))).collect();
                    if implicit.iter().any(Option::is_some) {
                        set(name, &Ids::List(implicit), &same_schema_data(value.schema(), list.len()))?;
                    }
                }
                set(name, ids, value.data())?;
            }
        }
    }
    Ok(())
}

/// Koda's refusal of `__schema__` given as an attribute to write.
pub fn refuse_schema_attr(op: &str, name: &str) -> Result<()> {
    if name == SCHEMA_ATTR {
        return Err(Error::value(op, "the attribute '__schema__' cannot be set directly; use with_schema or kd.obj"));
    }
    Ok(())
}

/// Checks `value` against attribute `name` of explicit schema `schema_id`
/// (adding the attribute when new), returning the value cast to it. Koda's
/// error calls that schema the `which` ("original" for entities, "Object"
/// for objects).
#[allow(clippy::too_many_arguments)]
fn fit_value(
    op: &str,
    bag: &DataBag,
    schema_id: ItemId,
    name: &str,
    value: &DataSlice,
    overwrite_schema: bool,
    set: &SetAttr<'_>,
    which: &str,
) -> Result<DataSlice> {
    let existing = attr_schema(bag, schema_id, name);
    let implicit = schema_id.kind() == ItemKind::ImplicitSchema;
    if let Some(expected) = existing {
        let narrowed = value.narrowed_schema();
        if expected == value.schema() {
            return Ok(value.clone());
        }
        if !expected.is_struct() && narrowed.is_implicitly_castable_to(expected) && !(overwrite_schema || implicit && narrowed != expected) {
            return cast_to(op, value, expected);
        }
        if !(overwrite_schema || implicit) {
            // No present value (NONE, or OBJECT with every item missing):
            // missing entities of the attribute's schema.
            if expected.is_struct() && narrowed == Schema::None {
                return Ok(DataSlice::missing(value.shape().clone(), expected).with_bag(value.bag().cloned()));
            }
            // Entities assigned to an OBJECT attribute become objects: their
            // schema is stored with them as `__schema__`.
            if let (Schema::Object, Schema::Struct(entity_schema)) = (expected, value.schema()) {
                let ids = Ids::of(value);
                let schemas = match &ids {
                    Ids::Whole { len, .. } => same_schema_data(Schema::Struct(entity_schema), *len),
                    Ids::List(list) => schemas_data(list.iter().map(|id| id.map(|_| Schema::Struct(entity_schema))).collect()),
                };
                set(SCHEMA_ATTR, &ids, &schemas)?;
                return value.with_schema(Schema::Object);
            }
        }
        if !(overwrite_schema || implicit) {
            return Err(Error::value(
                op,
                format!(
                    "the schema for attribute '{name}' is incompatible.\n\n\
                     Expected schema for '{name}': {}\nAssigned schema for '{name}': {}\n\n\
                     To fix this, explicitly override schema of '{name}' in the {which} schema by passing overwrite_schema=True.",
                    schema_text(expected, Some(bag)),
                    schema_text(value.schema(), value.bag().or(Some(bag)))
                ),
            ));
        }
    }
    set(name, &Ids::List(vec![Some(schema_id)]), &schemas_data(vec![Some(value.schema())]))?;
    Ok(value.clone())
}

/// A new bag for items built by `op` from `inputs`: it reads the merge of
/// the inputs' bags (snapshots that must agree: Koda's "cannot merge
/// DataBags" error where they do not; see `plait_core::bag::layering`).
pub fn new_bag_over(op: &str, inputs: &[&DataSlice]) -> Result<DataBag> {
    Ok(DataBag::with_fallbacks(DataBag::merged_inputs(op, &adopted_bags(inputs)?)?))
}

/// Whether values of `x`'s schema refer to data in a bag: entities, objects
/// and schemas do; primitives do not, and Koda leaves their bags out of
/// merges.
pub fn refers_to_data(x: &DataSlice) -> bool {
    x.bag().is_some() && (!x.schema().is_primitive() || x.schema() == Schema::Schema)
}

/// What Koda brings along with `values` written into a new bag, or merged
/// with other inputs (`kd.new`, `with_attrs`, `kd.slice` of items from
/// different bags, ...): for each value that refers to data, the data
/// reachable from it, as `kd.extract` finds it (a new bag each, in order).
/// What else the values' bags hold stays behind.
pub fn adopted_bags(values: &[&DataSlice]) -> Result<Vec<DataBag>> {
    values.iter().filter(|v| refers_to_data(v)).map(|v| adopted_bag(v)).collect()
}

/// What `x` brings along (see [`adopted_bags`]): its bag as it is when that
/// bag was made for exactly `x`'s items (see [`made_for`]), else what
/// `kd.extract` copies. Building nested data level by level (`kd.from_py`,
/// `kd.implode` of lists just made) stays linear.
fn adopted_bag(x: &DataSlice) -> Result<DataBag> {
    let bag = x.bag().expect("a value that refers to data has a bag");
    if roots_of(x).is_some_and(|roots| bag.reachable_from(&roots, x.schema())) {
        return Ok(bag.clone());
    }
    super::graph::reachable_bag(x)
}

/// `x`'s items as [`Roots`]: one whole allocation in order, or one struct
/// schema item.
fn roots_of(x: &DataSlice) -> Option<Roots> {
    if let Some((allocation, len)) = whole_allocation(x.data()) {
        return Some(Roots::Allocation { allocation, len });
    }
    if let Some(Column { values: Values::ItemId(ids), presence: None }) = x.data().single_column()
        && !x.is_item()
    {
        return Some(Roots::Ids(ids.bits().clone()));
    }
    match (x.is_item(), x.get(0)) {
        (true, Some(plait_core::ScalarRef::Schema(Schema::Struct(id)))) => Some(Roots::Schema(id)),
        _ => None,
    }
}

/// Whether everything `x`'s bag reads is reachable from `x`'s items.
pub fn bag_made_for(x: &DataSlice) -> bool {
    matches!((x.bag(), roots_of(x)), (Some(bag), Some(roots)) if bag.reachable_from(&roots, x.schema()))
}

/// `result`, made by an operator in a new bag over what its inputs brought
/// along: its bag records that everything in it is reachable from the
/// result's items (when they are one whole allocation), so passing the
/// result on copies nothing.
pub fn made_for(result: DataSlice) -> DataSlice {
    if let (Some(bag), Some(roots)) = (result.bag(), roots_of(&result)) {
        bag.set_made_for(roots, result.schema());
    }
    result
}

/// The bag an update operator returns (`kd.dict_update`,
/// `kd.list_append_update`): `update`, which wins, over the merge of what
/// the `values` written bring along.
pub fn update_with_values(op: &str, update: DataBag, values: &[&DataSlice]) -> Result<DataBag> {
    let mut layers = vec![update];
    layers.extend(DataBag::merged_inputs(op, &adopted_bags(values)?)?);
    Ok(DataBag::combined(&layers).expect("one layer at least"))
}

/// Copies what the `values` written into mutable `bag` bring along (`x.a =
/// v`, `d[k] = v`, `append`) into it, as Koda does: data that disagrees
/// with what `bag` holds is Koda's merge conflict. Values of `bag` itself
/// bring nothing: their data is there already.
pub fn adopt_value_bags(op: &str, bag: &DataBag, values: &[&DataSlice]) -> Result<()> {
    let others: Vec<&DataSlice> = values.iter().copied().filter(|v| v.bag() != Some(bag)).collect();
    adopted_bags(&others)?.iter().try_for_each(|other| bag.merge_from(op, other, plait_core::bag::OnConflict::Raise))
}

/// One bag for a result built from `inputs` (`kd.slice`, `kd.stack`,
/// `kd.concat` of items from several bags): none, the one bag they share
/// as is (nothing to merge: still read through, as in Koda), or a bag
/// reading the merge of what each input brings along.
pub fn merged_bag_of(op: &str, inputs: &[&DataSlice]) -> Result<Option<DataBag>> {
    let mut bags = DataBag::distinct(inputs.iter().filter_map(|x| x.bag()));
    if bags.len() <= 1 {
        return Ok(bags.pop());
    }
    let adopted = adopted_bags(inputs)?;
    if adopted.is_empty() {
        // Primitives from several bags bring nothing along: an empty bag,
        // as Koda's (whatever else those bags say, even in conflict).
        return Ok(Some(DataBag::new_immutable()));
    }
    DataBag::merge_of(op, &adopted)
}

/// What the update layer of `with_attrs`, `with_dict_update` and list
/// appends reads through: the merge of the bags of the `values` written
/// (entities keep their attributes; snapshots that must agree), then `x`'s
/// bag (read through), which the update and the values win over.
pub fn below_update(op: &str, x: &DataBag, values: &[&DataSlice]) -> Result<Vec<DataBag>> {
    let mut layers = DataBag::merged_inputs(op, &adopted_bags(values)?)?;
    layers.push(x.clone());
    Ok(DataBag::distinct(&layers))
}

/// `x`'s bag updated by the bag `update`, over the merge of the values'
/// bags (see [`below_update`]).
pub fn updated_over(op: &str, x: &DataBag, update: DataBag, values: &[&DataSlice]) -> Result<DataBag> {
    Ok(DataBag::updated(&DataBag::with_fallbacks(below_update(op, x, values)?), &[update]))
}

/// A result holding entities or objects keeps the bags of the inputs (one bag
/// as is; several read through in argument order), as in Koda; primitive
/// results carry no bag, OBJECT results holding only primitives included
/// (`kd.agg_sum` of OBJECT numbers).
pub fn keep_bags(result: DataSlice, inputs: &[&DataSlice]) -> DataSlice {
    let holds_ids = match result.schema() {
        Schema::Struct(_) | Schema::ItemId | Schema::Schema => true,
        Schema::Object => result.data().dtypes().any(|d| matches!(d, Schema::ItemId | Schema::Schema)),
        _ => false,
    };
    if result.bag().is_some() || !holds_ids {
        return result;
    }
    let bag = DataBag::combined(inputs.iter().filter_map(|x| x.bag()));
    result.with_bag(bag)
}
