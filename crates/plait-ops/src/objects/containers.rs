//! What lists and dicts share: their uu schemas (`LIST[..]`, `DICT{.., ..}`),
//! reading the schemas they hold (item, key, value) from a slice of
//! containers, the rows of a new dimension to fill them with, and the check
//! that values fit a held schema.

use plait_core::broadcast::expand_to_shape;
use plait_core::cast::cast_to;
use plait_core::itemid::UuidHasher;
use plait_core::{DataBag, DataSlice, Error, ItemId, ItemKind, JaggedShape, Result, ScalarRef, Schema, SliceData};

use super::access::{common_attr_schema, object_schemas};
use super::model::{attr_schema, ids_of, schemas_data};
use super::{dicts, list_edits, lists};
use crate::registry::Registry;
use plait_core::bag::text::{DICT_KEYS_ATTR, DICT_VALUES_ATTR, LIST_ITEMS_ATTR};

/// The text that identifies a schema in uu-schema hashes.
pub fn schema_key(schema: Schema) -> String {
    match schema {
        Schema::Struct(id) => id.encode(),
        other => other.name().to_string(),
    }
}

/// The uu schema `kind` (`list_schema`, `dict_schema`) of `parts`: the same
/// id for the same parts.
pub fn container_schema_id(kind: &str, parts: &[Schema]) -> ItemId {
    let mut h = UuidHasher::new(kind);
    for part in parts {
        h.write_str(&schema_key(*part));
    }
    ItemId::uuid(ItemKind::Schema, h.finish())
}

/// Writes the uu schema `kind` holding `parts` in attributes `attrs` into
/// `bag` (being built); returns it.
pub fn fill_container_schema(bag: &DataBag, kind: &str, attrs: &[&str], parts: &[Schema]) -> Schema {
    let id = container_schema_id(kind, parts);
    bag.fill(|w| {
        for (attr, part) in attrs.iter().zip(parts) {
            w.set_attr(attr, &[Some(id)], &schemas_data(vec![Some(*part)]));
        }
    });
    Schema::Struct(id)
}

/// The schema held by a SCHEMA item, or Koda's error.
pub fn schema_item(op: &str, x: &DataSlice) -> Result<Schema> {
    match x.get(0) {
        Some(ScalarRef::Schema(s)) if x.is_item() => Ok(s),
        _ if x.schema() != Schema::Schema => Err(crate::registry::not_a_schema(op, "schema", x)),
        _ => Err(Error::value(op, "expected a present schema item")),
    }
}

/// The schema that the containers in `x` hold in schema attribute `attr`
/// (`__items__`, `__keys__`, `__values__`): from `x`'s schema, or common to
/// the objects' schemas. `None` when `x` does not hold such containers.
pub fn held_schema(op: &str, x: &DataSlice, attr: &str) -> Result<Option<Schema>> {
    match x.schema() {
        Schema::Struct(id) => Ok(x.bag().and_then(|bag| attr_schema(bag, id, attr))),
        Schema::Object => {
            let ids = ids_of(x);
            if ids.iter().flatten().count() != x.present_count() {
                return Err(Error::value(op, "getting attributes of primitives is not allowed"));
            }
            let Some(bag) = x.bag() else {
                return Ok((x.present_count() == 0).then_some(Schema::None));
            };
            let schema_ids = object_schemas(bag, &ids, op)?;
            let mut schemas = Vec::new();
            for schema_id in schema_ids.iter().flatten() {
                match attr_schema(bag, *schema_id, attr) {
                    Some(s) => schemas.push(s),
                    None => return Ok(None),
                }
            }
            schemas.sort();
            schemas.dedup();
            if schemas.is_empty() {
                return Ok(Some(Schema::None));
            }
            common_attr_schema(bag, &schemas, op).map(Some)
        }
        _ => Ok(None),
    }
}

/// The bag of a slice of containers, or Koda's error naming `what` was attempted.
pub fn bag_for<'a>(op: &str, x: &'a DataSlice, what: &str) -> Result<&'a DataBag> {
    x.bag().ok_or_else(|| Error::value(op, format!("{what} without a DataBag")))
}

/// Koda's error of the size operators for items that are not `kind`s
/// (`"list"`, `"dict"`): a DataItem is named by its id, a slice is not.
pub fn not_containers_for_size(op: &str, x: &DataSlice, kind: &str) -> Error {
    match (x.is_item(), x.get(0)) {
        (true, Some(ScalarRef::ItemId(id))) => Error::value(op, format!("{kind} expected, got {}", id.repr())),
        _ => Error::value(op, format!("{kind}s expected")),
    }
}

/// Items read from containers, typed `schema`: cast from the items' own
/// types where the containers are objects (`containers`: their schema)
/// holding different schemas. Containers of one schema whose bag holds
/// items that schema does not admit (`kd.slice([kd.list([1])],
/// kd.list_schema(kd.INT64))` keeps the INT32 items) give Koda's error, as
/// such attributes do.
pub fn typed_items(op: &str, containers: Schema, shape: JaggedShape, data: SliceData, schema: Schema, bag: &DataBag) -> Result<DataSlice> {
    let raw = match DataSlice::new(shape.clone(), data.clone(), schema) {
        Ok(s) => s,
        Err(_) if containers == Schema::Object => cast_to(op, &DataSlice::new(shape, data, Schema::Object)?, schema)?,
        Err(_) => {
            return Err(Error::value(op, format!("{schema} schema can only be assigned to a DataSlice that contains only primitives of {schema}")));
        }
    };
    Ok(raw.with_bag(Some(bag.clone())))
}

/// The rows of `values` to put into containers of shape `shape`: one item
/// per container when `values` has at most the containers' rank (broadcast),
/// its last dimension when it has one more.
pub fn rows_for(op: &str, values: &DataSlice, shape: &JaggedShape) -> Result<DataSlice> {
    if values.rank() == shape.rank() + 1 {
        if &values.shape().prefix(shape.rank()) != shape {
            return Err(Error::value(
                op,
                format!(
                    "items of shape {} cannot fill containers of shape {shape}: the items must have the containers' shape, \
                     or one more dimension",
                    values.shape()
                ),
            ));
        }
        return Ok(values.clone());
    }
    let expanded = expand_to_shape(op, values, shape, 0)?;
    let unit = plait_core::Edge::uniform(shape.size(), 1);
    Ok(DataSlice::new(shape.with_edge(unit)?, expanded.data().clone(), expanded.schema())?.with_bag(values.bag().cloned()))
}

/// `values` cast to the held schema `schema` of `container`, or Koda's error
/// "the schema for `what` is incompatible" (`what`: list items, keys, values).
pub fn fit_to(op: &str, what: &str, container: &DataSlice, schema: Schema, values: &DataSlice) -> Result<DataSlice> {
    fitted_to(op, what, container, schema, values, false)
}

/// [`fit_to`] for values written into `container`'s mutable bag in place:
/// entities made objects there have their schema embedded there.
pub fn fit_to_in_place(op: &str, what: &str, container: &DataSlice, schema: Schema, values: &DataSlice) -> Result<DataSlice> {
    fitted_to(op, what, container, schema, values, true)
}

fn fitted_to(op: &str, what: &str, container: &DataSlice, schema: Schema, values: &DataSlice, in_place: bool) -> Result<DataSlice> {
    // Values without a type (NONE, or OBJECT with nothing present) fit any
    // schema; typed values are checked even when there are none.
    let untyped = values.schema() == Schema::None || (values.schema() == Schema::Object && values.present_count() == 0);
    let incompatible = || {
        let bag = container.bag();
        Error::value(
            op,
            format!(
                "the schema for {what} is incompatible.\n\nExpected schema for {what}: {}\nAssigned schema for {what}: {}",
                plait_core::bag::text::schema_text(schema, bag),
                plait_core::bag::text::schema_text(values.schema(), values.bag().or(bag))
            ),
        )
    };
    if values.schema() == schema || schema == Schema::Object || untyped {
        return match schema {
            // Entities become objects (their schema embedded), as in Koda:
            // in the container's bag when written in place there (an item
            // with another schema embedded there does not fit).
            Schema::Object if values.schema().is_struct() => {
                use super::create::{Embedded, to_object_in};
                match container.bag().filter(|_| in_place).map_or(Ok(Embedded::NotThere), |bag| to_object_in(values, bag))? {
                    Embedded::Made(objects) => Ok(objects),
                    Embedded::Conflicting => Err(incompatible()),
                    Embedded::NotThere => super::create::to_object(op, values),
                }
            }
            Schema::Object => cast_to(op, values, Schema::Object),
            _ => values.with_schema(schema),
        };
    }
    let narrowed = values.narrowed_schema();
    if !schema.is_struct() && narrowed.is_implicitly_castable_to(schema) {
        return cast_to(op, values, schema);
    }
    Err(incompatible())
}

/// Whether each item of `x` is a container whose schema holds `attr`
/// (`kd.has_list`, `kd.has_dict`); for OBJECT, whether its id is of `kind`.
pub fn has_container(op: &str, x: &DataSlice, attr: &str, kind: ItemKind) -> Result<DataSlice> {
    let holds = matches!(held_schema(op, x, attr), Ok(Some(_)));
    let ids = ids_of(x);
    crate::masking::mask_where(x.shape(), x.size(), |i| match x.schema() {
        Schema::Object => ids[i].is_some_and(|id| id.kind() == kind),
        _ => holds && ids[i].is_some(),
    })
}

/// Whether `x` holds containers only (`kd.is_list`, `kd.is_dict`): a schema
/// holding `attr`, or OBJECT whose present items are all ids of `kind`.
pub fn is_container(op: &str, x: &DataSlice, attr: &str, kind: ItemKind) -> Result<DataSlice> {
    let yes = match x.schema() {
        Schema::Struct(_) => matches!(held_schema(op, x, attr), Ok(Some(_))),
        Schema::Object => {
            let ids = ids_of(x);
            ids.iter().flatten().count() == x.present_count() && ids.iter().flatten().all(|id| id.kind() == kind)
        }
        // Nothing at all: vacuously lists (or dicts), as in Koda.
        Schema::None => true,
        _ => false,
    };
    crate::masking::mask_where(&JaggedShape::scalar(), 1, |_| yes)
}

/// Whether `x` holds lists (rather than dicts), for the operators that
/// serve both.
fn holds_lists(x: &DataSlice) -> bool {
    matches!(held_schema("kd.core.get_item", x, LIST_ITEMS_ATTR), Ok(Some(_)))
}

/// `kd.get_item(x, key_or_index)` / `x[k]`: items of lists by index, or
/// values of dicts by key.
pub fn get_item(x: &DataSlice, key_or_index: &DataSlice) -> Result<DataSlice> {
    if holds_lists(x) { lists::get_item(x, key_or_index) } else { dicts::get_item(x, key_or_index) }
}

/// `x[start:stop]`: the items of lists in that range; of anything else, as
/// dicts (Koda's rule: lists where any item is one), `x[:]` only, their
/// values. A missing bound (`kd.item(None)`) is no bound.
pub fn items_in_range(x: &DataSlice, start: Option<DataSlice>, stop: Option<DataSlice>) -> Result<DataSlice> {
    const OP: &str = "kd.core.get_item";
    let bound = |b: Option<DataSlice>| b.filter(|b| !(b.is_item() && b.present_count() == 0));
    let (start, stop) = (bound(start), bound(stop));
    let lists = match x.schema() {
        Schema::Struct(_) => holds_lists(x),
        Schema::Object => (0..x.size()).any(|i| matches!(x.get(i), Some(ScalarRef::ItemId(id)) if id.is_list())),
        _ => false,
    };
    if lists {
        return lists::items_in_range(x, start, stop);
    }
    if start.is_some() || stop.is_some() {
        // Koda's text, without an operator's name.
        return Err(Error::new(plait_core::ErrorKind::Value, "slice with start or stop is not supported for dictionaries"));
    }
    if x.bag().is_none() {
        return Err(Error::value(OP, "cannot get dict values without a DataBag"));
    }
    dicts::get_values(x, None).map_err(|e| super::access::missing_attr_error(x, DICT_VALUES_ATTR, OP).unwrap_or(e))
}

/// `x[k] = v` on lists or dicts of a mutable bag.
pub fn set_item_in_place(x: &DataSlice, key_or_index: &DataSlice, value: &DataSlice) -> Result<()> {
    if holds_lists(x) { list_edits::set_items_in_place(x, key_or_index, value) } else { dicts::set_in_place(x, key_or_index, value) }
}

/// `del x[k]` on lists or dicts of a mutable bag: lists lose item `k`; for
/// dicts, as Koda, the key's value becomes missing (the key stays).
pub fn del_item_in_place(x: &DataSlice, key_or_index: &DataSlice) -> Result<()> {
    if holds_lists(x) {
        return list_edits::remove_in_place(x, list_edits::Removed::At(key_or_index));
    }
    let missing = DataSlice::missing(JaggedShape::scalar(), Schema::None);
    dicts::set_in_place(x, key_or_index, &missing)
}

/// The struct schema held by a DataItem `x` with a bag, if it is one.
fn struct_schema_item(x: &DataSlice) -> Option<(ItemId, &DataBag)> {
    match (x.is_item().then(|| x.get(0)).flatten(), x.bag()) {
        (Some(ScalarRef::Schema(Schema::Struct(id))), Some(bag)) => Some((id, bag)),
        _ => None,
    }
}

/// What kind of schema item `x` is: a list, dict or entity schema (all three
/// are struct schemas), or none of them.
fn schema_kind(x: &DataSlice) -> Option<&'static str> {
    let (id, bag) = struct_schema_item(x)?;
    if attr_schema(bag, id, LIST_ITEMS_ATTR).is_some() {
        Some("list")
    } else if attr_schema(bag, id, DICT_KEYS_ATTR).is_some() {
        Some("dict")
    } else {
        Some("entity")
    }
}

/// `kd.schema.is_list_schema` / `is_dict_schema` / `is_entity_schema` /
/// `is_struct_schema` (`kind` None): present when `x` is such a schema item.
pub fn is_schema_of_kind(x: &DataSlice, kind: Option<&str>) -> Result<DataSlice> {
    let yes = match (schema_kind(x), kind) {
        (Some(_), None) => true,
        (Some(found), Some(wanted)) => found == wanted,
        (None, _) => false,
    };
    crate::masking::mask_where(&JaggedShape::scalar(), 1, |_| yes)
}

/// Whether item `i` of `x` is a primitive: present, and neither an id nor a
/// struct schema (which is an id too).
fn is_primitive_item(x: &DataSlice, i: usize) -> bool {
    matches!(x.get(i), Some(v) if !matches!(v, ScalarRef::ItemId(_) | ScalarRef::Schema(Schema::Struct(_))))
}

/// Whether item `i` of `x` is an entity or object (an id of kind Object).
fn is_entity_item(x: &DataSlice, i: usize) -> bool {
    matches!(x.get(i), Some(ScalarRef::ItemId(id)) if id.kind() == ItemKind::Object)
}

/// `kd.has_primitive(x)` / `kd.has_entity(x)`: per item.
pub fn has_kind(x: &DataSlice, entity: bool) -> Result<DataSlice> {
    let entity_schema = matches!(x.schema(), Schema::Struct(_)) && schema_kind_of(x) == Some("entity");
    crate::masking::mask_where(x.shape(), x.size(), |i| match (entity, x.schema()) {
        (false, Schema::Struct(_) | Schema::ItemId) => false,
        (false, _) => is_primitive_item(x, i),
        (true, Schema::Object) => is_entity_item(x, i),
        (true, _) => entity_schema && x.get(i).is_some(),
    })
}

/// `kd.is_primitive(x)` / `kd.is_entity(x)`: for the whole slice.
pub fn is_kind(x: &DataSlice, entity: bool) -> Result<DataSlice> {
    let yes = match (entity, x.schema()) {
        (false, Schema::Struct(_) | Schema::ItemId) => false,
        (false, Schema::Object | Schema::Schema) => (0..x.size()).all(|i| x.get(i).is_none() || is_primitive_item(x, i)),
        (false, _) => true,
        (true, Schema::Object) => (0..x.size()).all(|i| x.get(i).is_none() || is_entity_item(x, i)),
        (true, Schema::Struct(_)) => schema_kind_of(x) == Some("entity"),
        (true, Schema::None) => true,
        (true, _) => false,
    };
    crate::masking::mask_where(&JaggedShape::scalar(), 1, |_| yes)
}

/// The kind of the struct schema of slice `x` (`list`, `dict`, `entity`).
fn schema_kind_of(x: &DataSlice) -> Option<&'static str> {
    let schema = DataSlice::item(Some(ScalarRef::Schema(x.schema())), Schema::Schema).ok()?.with_bag(x.bag().cloned());
    schema_kind(&schema)
}

/// `get_item(x, key_or_index)`, or with a range key `start:stop` the list
/// items in that range.
fn get_item_kernel(a: &crate::registry::Args<'_>) -> Result<DataSlice> {
    let x = a.slice("x")?;
    match a.value("key_or_index") {
        Some(crate::registry::Value::Range { step: Some(_), .. }) => {
            Err(Error::value("kd.core.get_item", "'step' argument of a Slice is not supported, got: DATA_SLICE"))
        }
        Some(crate::registry::Value::Range { start, stop, step: None }) => {
            lists::items_in_range(x, start.as_deref().cloned(), stop.as_deref().cloned())
        }
        _ => get_item(x, a.slice("key_or_index")?),
    }
}

pub(crate) fn register(r: &mut Registry) {
    r.add(
        "kd.core.has_primitive",
        &["kd.has_primitive"],
        "x",
        r#"Returns present for each item of x that is a primitive value.

Numbers, strings, bytes, booleans, masks and primitive schemas such as
kd.INT32 are primitives; entities, lists and dicts are not. Missing items
are missing. See kd.is_primitive for a check of the whole slice.

Args:
  x: a DataSlice.

Examples:
  >>> kd.has_primitive(kd.slice([1, None, 'a']))
  DataSlice([present, missing, present], schema: MASK, present: 2/3)
  >>> kd.has_primitive(kd.slice([1, kd.obj(a=1), None]))
  DataSlice([present, missing, missing], schema: MASK, present: 1/3)"#,
        |a| has_kind(a.slice("x")?, false),
    );
    r.add(
        "kd.core.is_primitive",
        &["kd.is_primitive"],
        "x",
        r#"Returns present if x holds primitives only.

That is when x has a primitive schema (even with no present item), or has
OBJECT (or NONE) schema and every present item is a primitive. The result is
a MASK DataItem. See kd.has_primitive for a check per item.

Args:
  x: a DataSlice.

Examples:
  >>> kd.is_primitive(kd.slice([1, 'a', None]))
  DataItem(present, schema: MASK)
  >>> kd.is_primitive(kd.int32(None))
  DataItem(present, schema: MASK)
  >>> kd.is_primitive(kd.slice([1, kd.obj(a=1)]))
  DataItem(missing, schema: MASK)"#,
        |a| is_kind(a.slice("x")?, false),
    );
    r.add(
        "kd.core.has_entity",
        &["kd.has_entity"],
        "x",
        r#"Returns present for each item of x that is an entity.

Items of an entity schema are entities; in OBJECT data, the items that are
objects with attributes are (lists, dicts and primitives are not). Missing
items are missing. See kd.is_entity for a check of the whole slice.

Args:
  x: a DataSlice.

Examples:
  >>> kd.has_entity(kd.slice([kd.obj(a=1), 1, None, kd.obj(kd.list([1]))]))
  DataSlice([present, missing, missing, missing], schema: MASK, present: 1/4)
  >>> kd.has_entity(kd.slice([kd.new(a=1), None]))
  DataSlice([present, missing], schema: MASK, present: 1/2)"#,
        |a| has_kind(a.slice("x")?, true),
    );
    r.add(
        "kd.core.is_entity",
        &["kd.is_entity"],
        "x",
        r#"Returns present if x holds entities only.

That is when x has an entity schema, or has OBJECT schema and every present
item is an entity (so an OBJECT slice with no present item counts). The
result is a MASK DataItem. See kd.has_entity for a check per item.

Args:
  x: a DataSlice.

Examples:
  >>> kd.is_entity(kd.new(a=1))
  DataItem(present, schema: MASK)
  >>> kd.is_entity(kd.slice([kd.obj(a=1), None]))
  DataItem(present, schema: MASK)
  >>> kd.is_entity(kd.slice([kd.obj(a=1), 1]))
  DataItem(missing, schema: MASK)"#,
        |a| is_kind(a.slice("x")?, true),
    );
    r.add(
        "kd.schema.is_list_schema",
        &[],
        "x",
        r#"Returns present if x is a list schema.

x must be a schema DataItem to be one; a list itself, or a slice of
schemas, gives missing.

Args:
  x: the DataSlice to check.

Examples:
  >>> kd.schema.is_list_schema(kd.list_schema(kd.INT32))
  DataItem(present, schema: MASK)
  >>> kd.schema.is_list_schema(kd.list([1]))
  DataItem(missing, schema: MASK)
  >>> kd.schema.is_list_schema(kd.INT32)
  DataItem(missing, schema: MASK)"#,
        |a| is_schema_of_kind(a.slice("x")?, Some("list")),
    );
    r.add(
        "kd.schema.is_dict_schema",
        &[],
        "x",
        r#"Returns present if x is a dict schema.

x must be a schema DataItem to be one; a dict itself, or a slice of
schemas, gives missing.

Args:
  x: the DataSlice to check.

Examples:
  >>> kd.schema.is_dict_schema(kd.dict_schema(kd.STRING, kd.INT32))
  DataItem(present, schema: MASK)
  >>> kd.schema.is_dict_schema(kd.list_schema(kd.INT32))
  DataItem(missing, schema: MASK)"#,
        |a| is_schema_of_kind(a.slice("x")?, Some("dict")),
    );
    r.add(
        "kd.schema.is_entity_schema",
        &[],
        "x",
        r#"Returns present if x is an entity schema.

Entity schemas are the struct schemas that are neither list nor dict
schemas (named schemas included); OBJECT and primitive schemas are not.

Args:
  x: the DataSlice to check.

Examples:
  >>> kd.schema.is_entity_schema(kd.new(a=1).get_schema())
  DataItem(present, schema: MASK)
  >>> kd.schema.is_entity_schema(kd.list_schema(kd.INT32))
  DataItem(missing, schema: MASK)
  >>> kd.schema.is_entity_schema(kd.OBJECT)
  DataItem(missing, schema: MASK)"#,
        |a| is_schema_of_kind(a.slice("x")?, Some("entity")),
    );
    r.add(
        "kd.schema.is_struct_schema",
        &[],
        "x",
        r#"Returns present if x is a struct schema: an entity, list or dict schema.

OBJECT and primitive schemas are not struct schemas.

Args:
  x: the DataSlice to check.

Examples:
  >>> kd.schema.is_struct_schema(kd.new(a=1).get_schema())
  DataItem(present, schema: MASK)
  >>> kd.schema.is_struct_schema(kd.list_schema(kd.INT32))
  DataItem(present, schema: MASK)
  >>> kd.schema.is_struct_schema(kd.OBJECT)
  DataItem(missing, schema: MASK)"#,
        |a| is_schema_of_kind(a.slice("x")?, None),
    );
    // One kernel under three names; each name documents its own use. A
    // Python slice key (`x[1:]`) is a range of list items (boxed below).
    r.add(
        "kd.core.get_item",
        &["kd.get_item"],
        "x, key_or_index",
        r#"Returns the items of lists at the given indices, or the values of dicts at the given keys.

x and key_or_index are aligned (see kd.align). List indices are integers,
negative ones counting from the end; an index out of range gives a missing
item. Keys absent from a dict give missing values. `x[key_or_index]` is the
same; for a range of list items use `x[start:stop]`.

Args:
  x: a DataSlice of lists or of dicts.
  key_or_index: list indices or dict keys (a DataItem or a DataSlice).

Examples:
  >>> kd.get_item(kd.list([10, 20, 30]), kd.slice([0, -1, 5]))
  DataSlice([10, 30, None], schema: INT32, present: 2/3, bag_id: $...)
  >>> kd.get_item(kd.dict({'a': 1, 'b': 2}), kd.slice(['b', 'c']))
  DataSlice([2, None], schema: INT32, present: 1/2, bag_id: $...)
  >>> kd.get_item(kd.implode(kd.slice([[1, 2], [3]])), 1)
  DataSlice([2, None], schema: INT32, present: 1/2, bag_id: $...)"#,
        get_item_kernel,
    );
    r.add(
        "kd.lists.get_item",
        &[],
        "x, key_or_index",
        r#"Returns the items of lists at the given indices.

x and key_or_index are aligned (see kd.align). Indices are integers,
negative ones counting from the end; an index out of range gives a missing
item. `x[i]` is the same; for a range of items use `x[start:stop]`. Like
kd.get_item, this also reads dicts by key.

Args:
  x: a DataSlice of lists.
  key_or_index: the indices (a DataItem or a DataSlice of integers).

Examples:
  >>> lists = kd.implode(kd.slice([[1, 2, 3], [4]]))
  >>> kd.lists.get_item(lists, -1)
  DataSlice([3, 4], schema: INT32, present: 2/2, bag_id: $...)
  >>> kd.lists.get_item(lists, kd.slice([2, 0]))
  DataSlice([3, 4], schema: INT32, present: 2/2, bag_id: $...)
  >>> kd.lists.get_item(lists, 1)
  DataSlice([2, None], schema: INT32, present: 1/2, bag_id: $...)"#,
        get_item_kernel,
    );
    r.add(
        "kd.dicts.get_item",
        &[],
        "x, key_or_index",
        r#"Returns the values of dicts at the given keys.

x and key_or_index are aligned (see kd.align); keys absent from a dict give
missing values. Keys must fit the dicts' key schema (a key of a wider type
raises ValueError). `x[key]` is the same. Like kd.get_item, this also reads
lists by index.

Args:
  x: a DataSlice of dicts.
  key_or_index: the keys (a DataItem or a DataSlice).

Examples:
  >>> d = kd.dict({'a': 1, 'b': 2})
  >>> kd.dicts.get_item(d, 'a')
  DataItem(1, schema: INT32, bag_id: $...)
  >>> kd.dicts.get_item(d, kd.slice(['b', 'c']))
  DataSlice([2, None], schema: INT32, present: 1/2, bag_id: $...)"#,
        get_item_kernel,
    );
    for name in ["kd.core.get_item", "kd.lists.get_item", "kd.dicts.get_item"] {
        r.boxing(name, crate::registry::Boxing::Keys);
    }
}
