//! Ids derived from content and fresh ids: `kd.uuid` / `kd.ids.uuid`,
//! `uuid_for_list`, `uuid_for_dict`, `agg_uuid`, `uuids_with_allocation_size`,
//! `kd.uu_schema`, `encode_itemid` / `decode_itemid` / `hash_itemid`,
//! `is_uuid` / `has_uuid`, and `kd.allocation.new_itemid` / `new_listid` /
//! `new_dictid` with their `_shaped` / `_shaped_as` / `_like` forms.
//!
//! A uuid hashes (stable SipHash, see `plait_core::itemid::UuidHasher`) a
//! purpose tag, the seed and the attributes sorted by name, each value tagged
//! with its type: the same content gives the same id in any process.
//! plait's uuids differ from Koda's (the id layouts differ).

use plait_core::bag::text::schema_text;
use plait_core::broadcast::align;
use plait_core::itemid::{UuidHasher, allocate};
use plait_core::{DataSlice, Error, ItemId, ItemKind, JaggedShape, Result, ScalarRef, Schema, SliceData};

use super::model::ids_data;
use crate::registry::{Args, Registry};

/// The purpose tag of uuids of `kind` (so list and entity uuids of the same
/// content differ).
fn tag_of(kind: ItemKind) -> &'static str {
    match kind {
        ItemKind::List => "uuid_for_list",
        ItemKind::Dict => "uuid_for_dict",
        ItemKind::Schema | ItemKind::ImplicitSchema | ItemKind::NofollowSchema | ItemKind::NofollowImplicitSchema => "uu_schema",
        ItemKind::Object => "uuid",
    }
}

/// One uuid of `kind` per item of the aligned `attrs` (a DataItem without
/// attributes), from `seed` and the attributes' names and values.
pub fn uuids(op: &str, kind: ItemKind, seed: &str, attrs: &[(String, DataSlice)]) -> Result<DataSlice> {
    let mut sorted: Vec<&(String, DataSlice)> = attrs.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    let values: Vec<&DataSlice> = sorted.iter().map(|(_, v)| v).collect();
    let aligned = if values.is_empty() { Vec::new() } else { align(op, &values)? };
    let shape = aligned.first().map_or_else(JaggedShape::scalar, |s| s.shape().clone());
    let mut prefix = UuidHasher::new(tag_of(kind));
    prefix.write_str(seed);
    for (name, _) in &sorted {
        prefix.write_str(name);
    }
    let ids: Vec<Option<ItemId>> = (0..shape.size())
        .map(|i| {
            let mut h = prefix.clone();
            for value in &aligned {
                h.write_item(value.get(i));
            }
            Some(ItemId::uuid(kind, h.finish()))
        })
        .collect();
    DataSlice::new(shape, ids_data(&ids), Schema::ItemId)
}

/// `kd.ids.agg_uuid(x, ndim=1)`: one uuid per group of the last `ndim`
/// dimensions, from its items in order.
pub fn agg_uuid(x: &DataSlice, ndim: Option<i64>) -> Result<DataSlice> {
    let op = "kd.ids.agg_uuid";
    // (With ndim given, its range is checked first.)
    if x.is_item() && ndim.is_none() {
        return Err(Error::value(op, "Can't take agg_uuid over a DataItem"));
    }
    let groups = crate::groups::groups(op, x, ndim)?;
    let ids: Vec<Option<ItemId>> = crate::kernel::map_groups(&groups.edge, |range| {
        let mut h = UuidHasher::new("agg_uuid");
        for i in range {
            h.write_item(x.get(i));
        }
        Some(ItemId::uuid(ItemKind::Object, h.finish()))
    });
    DataSlice::new(groups.shape.clone(), ids_data(&ids), Schema::ItemId)
}

/// `kd.ids.uuids_with_allocation_size(seed, size=)`: `size` uuids with
/// consecutive offsets (like the ids of one allocation).
pub fn uuids_with_allocation_size(seed: &str, size: i64) -> Result<DataSlice> {
    let op = "kd.ids.uuids_with_allocation_size";
    if size < 0 {
        return Err(Error::value(op, format!("size must be non-negative, got {size}")));
    }
    // The ids, and the column made of them.
    plait_core::limits::ensure_allocatable(op, size as usize, 2 * std::mem::size_of::<Option<ItemId>>())?;
    let mut h = UuidHasher::new("uuids_with_allocation_size");
    h.write_str(seed);
    h.write_bytes(&size.to_le_bytes());
    // The low 32 bits count the items, as offsets do in an allocation.
    let base = h.finish() & !0xffff_ffff;
    let ids: Vec<Option<ItemId>> = (0..size as u128).map(|k| Some(ItemId::uuid(ItemKind::Object, base + k))).collect();
    DataSlice::new(JaggedShape::flat(size as usize), ids_data(&ids), Schema::ItemId)
}

/// The uu schema of `fields` (the same id for the same seed and fields).
pub fn uu_schema_id(seed: &str, fields: &[(String, DataSlice)]) -> Result<ItemId> {
    let op = "kd.schema.uu_schema";
    let mut sorted: Vec<&(String, DataSlice)> = fields.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    let mut h = UuidHasher::new(tag_of(ItemKind::Schema));
    h.write_str(seed);
    for (name, value) in sorted {
        if !value.is_item() || value.schema() != Schema::Schema {
            return Err(Error::value(op, format!("argument `{name}` must be a schema item (e.g. kd.INT32), got {}", crate::describe(value))));
        }
        h.write_str(name);
        h.write_item(value.get(0));
    }
    Ok(ItemId::uuid(ItemKind::Schema, h.finish()))
}

/// The ItemIds of `x` (ITEMID, or entities, objects, lists and dicts), or an
/// error naming `op`.
fn require_ids(op: &str, x: &DataSlice) -> Result<()> {
    // Koda's text (which names kd.encode_itemid for hash_itemid too).
    if x.schema() == Schema::None {
        return Err(Error::value(op, "kd.encode_itemid: only ItemIds can be encoded, got NONE"));
    }
    let ok = (0..x.size()).all(|i| matches!(x.get(i), None | Some(ScalarRef::ItemId(_))));
    match ok {
        true => Ok(()),
        // An OBJECT slice of primitives is told apart, as Koda does.
        false if x.schema() == Schema::Object => Err(Error::value(op, "kd.encode_itemid: cannot use encode_itemid on primitives")),
        false => Err(Error::value(op, format!("kd.encode_itemid: only ItemIds can be encoded, got {}", schema_text(x.schema(), x.bag())))),
    }
}

/// `kd.encode_itemid(ds)`: each id as its base-62 text.
pub fn encode_itemid(x: &DataSlice) -> Result<DataSlice> {
    let op = "kd.ids.encode_itemid";
    require_ids(op, x)?;
    let mut b = plait_core::column::SliceBuilder::with_capacity(x.size());
    for i in 0..x.size() {
        match x.get(i) {
            Some(ScalarRef::ItemId(id)) => b.push(Some(ScalarRef::String(&id.encode()))),
            _ => b.push(None),
        }
    }
    DataSlice::new(x.shape().clone(), b.finish(), Schema::String)
}

/// `kd.decode_itemid(ds)`: ids from their base-62 text.
pub fn decode_itemid(x: &DataSlice) -> Result<DataSlice> {
    let op = "kd.ids.decode_itemid";
    if x.schema() == Schema::None {
        return Err(Error::value(op, "kd.encode_itemid: only STRING can be decoded, got NONE"));
    }
    let ids: Vec<Option<ItemId>> = (0..x.size())
        .map(|i| match x.get(i) {
            None => Ok(None),
            Some(ScalarRef::String(text)) => ItemId::decode(text).map(Some).ok_or_else(|| Error::value(op, format!("invalid ItemId text: {text:?}"))),
            Some(_) => Err(Error::value(op, format!("kd.encode_itemid: only STRING can be decoded, got {}", schema_text(x.schema(), x.bag())))),
        })
        .collect::<Result<_>>()?;
    DataSlice::new(x.shape().clone(), ids_data(&ids), Schema::ItemId)
}

/// `kd.hash_itemid(x)`: a 64-bit hash of each id (INT64).
pub fn hash_itemid(x: &DataSlice) -> Result<DataSlice> {
    let op = "kd.ids.hash_itemid";
    require_ids(op, x)?;
    let mut b = plait_core::column::SliceBuilder::with_capacity(x.size());
    for i in 0..x.size() {
        b.push(match x.get(i) {
            // Koda's hashes are in [0, 2**63 - 1].
            Some(ScalarRef::ItemId(id)) => Some(ScalarRef::Int64(id.hash64() & i64::MAX)),
            _ => None,
        });
    }
    let data = b.finish();
    let data = if data.present_count() == 0 { SliceData::missing(x.size()) } else { data };
    DataSlice::new(x.shape().clone(), data, Schema::Int64)
}

/// Whether each item is a uuid (`kd.ids.has_uuid`).
pub fn has_uuid(x: &DataSlice) -> Result<DataSlice> {
    crate::masking::mask_where(x.shape(), x.size(), |i| is_uuid_item(x.get(i)))
}

/// Whether an item is a uuid: an id, or a struct schema (uu_schema,
/// named_schema), made from content rather than allocated.
fn is_uuid_item(item: Option<ScalarRef<'_>>) -> bool {
    matches!(item, Some(ScalarRef::ItemId(id) | ScalarRef::Schema(Schema::Struct(id))) if id.is_uuid())
}

/// Whether every present item is a uuid (`kd.ids.is_uuid`).
pub fn is_uuid(x: &DataSlice) -> Result<DataSlice> {
    // Vacuously true when nothing is present, as in Koda.
    let yes = (0..x.size()).all(|i| x.get(i).is_none() || is_uuid_item(x.get(i)));
    crate::masking::mask_where(&JaggedShape::scalar(), 1, |_| yes)
}

/// Fresh ids of `kind` for `shape`, missing where `mask` is missing.
fn fresh(kind: ItemKind, shape: &JaggedShape, mask: Option<&DataSlice>) -> Result<DataSlice> {
    let ids = allocate(kind, shape.size()).1;
    let ids: Vec<Option<ItemId>> = ids.into_iter().enumerate().map(|(i, id)| mask.is_none_or(|m| m.get(i).is_some()).then_some(id)).collect();
    DataSlice::new(shape.clone(), ids_data(&ids), Schema::ItemId)
}

/// The `seed` argument as text.
fn seed(a: &Args<'_>) -> Result<String> {
    a.text("seed")
}

/// Registers `kd.allocation.new_<noun>` and its `_shaped`, `_shaped_as` and
/// `_like` forms (with their `kd.` aliases) for ids of `$kind`.
macro_rules! register_fresh_ids {
    ($r:expr, $kind:expr, [$new:literal, $new_doc:expr], [$shaped:literal, $shaped_doc:expr], [$shaped_as:literal, $shaped_as_doc:expr],
     [$like:literal, $like_doc:expr]) => {
        $r.add(concat!("kd.allocation.", $new), &[concat!("kd.", $new)], "", $new_doc, |_| fresh($kind, &JaggedShape::scalar(), None));
        $r.add(concat!("kd.allocation.", $shaped), &[concat!("kd.", $shaped)], "shape", $shaped_doc, |a| fresh($kind, a.shape("shape")?, None));
        $r.add(concat!("kd.allocation.", $shaped_as), &[concat!("kd.", $shaped_as)], "shape_from", $shaped_as_doc, |a| {
            fresh($kind, a.slice("shape_from")?.shape(), None)
        });
        $r.add(concat!("kd.allocation.", $like), &[concat!("kd.", $like)], "shape_and_mask_from", $like_doc, |a| {
            let from = a.slice("shape_and_mask_from")?;
            fresh($kind, from.shape(), Some(from))
        });
        // New ids hold no data: no bag, whatever the inputs' (Koda's too).
        for name in [$new, $shaped, $shaped_as, $like] {
            $r.bag_rule(&format!("kd.allocation.{name}"), crate::registry::BagRule::Drop);
        }
    };
}

pub(crate) fn register(r: &mut Registry) {
    r.add(
        "kd.ids.uuid",
        &["kd.uuid"],
        "seed='', **kwargs",
        r#"Returns ItemIds derived from seed and the attribute values.

The same seed, attribute names and values always give the same id, in any
process; the order of the keyword arguments does not matter. The values are
aligned and one id is made per item (missing values take part too). The result
has schema ITEMID; use it as `itemid=` to make entities with stable ids.

Args:
  seed: a text that separates ids made from the same values.
  **kwargs: the values (DataSlices that can be aligned).

Examples:
  >>> kd.uuid(x=1, y=2) == kd.uuid(y=2, x=1)
  DataItem(present, schema: MASK)
  >>> kd.uuid(x=kd.slice([1, 2, 1])) == kd.uuid(x=1)
  DataSlice([present, missing, present], schema: MASK, present: 2/3)
  >>> kd.uuid(seed='a', x=1) == kd.uuid(seed='b', x=1)
  DataItem(missing, schema: MASK)"#,
        |a| uuids("kd.ids.uuid", ItemKind::Object, &seed(a)?, &a.named_slices()?),
    );
    r.add(
        "kd.ids.uuid_for_list",
        &["kd.uuid_for_list"],
        "seed='', **kwargs",
        r#"Returns list ItemIds derived from seed and the attribute values.

Works like `kd.uuid`, but the ids are of the list kind (usable as `itemid=` of
`kd.list`) and differ from the entity ids `kd.uuid` makes from the same values.

Args:
  seed: a text that separates ids made from the same values.
  **kwargs: the values (DataSlices that can be aligned).

Examples:
  >>> kd.uuid_for_list(seed='l', x=1)
  DataItem(List:#..., schema: ITEMID)
  >>> kd.uuid_for_list(x=1) == kd.uuid(x=1)
  DataItem(missing, schema: MASK)
  >>> kd.list([1, 2], itemid=kd.uuid_for_list(seed='l'))
  DataItem(List[1, 2], schema: LIST[INT32], bag_id: $...)"#,
        |a| uuids("kd.ids.uuid_for_list", ItemKind::List, &seed(a)?, &a.named_slices()?),
    );
    r.add(
        "kd.ids.uuid_for_dict",
        &["kd.uuid_for_dict"],
        "seed='', **kwargs",
        r#"Returns dict ItemIds derived from seed and the attribute values.

Works like `kd.uuid`, but the ids are of the dict kind (usable as `itemid=` of
`kd.dict`) and differ from the entity ids `kd.uuid` makes from the same values.

Args:
  seed: a text that separates ids made from the same values.
  **kwargs: the values (DataSlices that can be aligned).

Examples:
  >>> kd.uuid_for_dict(seed='d', k=kd.slice([1, 2]))
  DataSlice([Dict:#..., Dict:#...], schema: ITEMID, present: 2/2)
  >>> kd.dict({'a': 1}, itemid=kd.uuid_for_dict(seed='d'))
  DataItem(Dict{'a'=1}, schema: DICT{STRING, INT32}, bag_id: $...)"#,
        |a| uuids("kd.ids.uuid_for_dict", ItemKind::Dict, &seed(a)?, &a.named_slices()?),
    );
    r.add(
        "kd.ids.agg_uuid",
        &[],
        "x, ndim=unspecified",
        r#"Returns one uuid per group of the last ndim dimensions.

Each id is derived from the items of its group in order, so groups with equal
items in equal order get equal ids. Missing items take part, and an empty group
also gets an id. The result has ndim fewer dimensions than x.

Args:
  x: a DataSlice.
  ndim: how many trailing dimensions to aggregate over (1 when unspecified).

Examples:
  >>> r = kd.ids.agg_uuid(kd.slice([[1, 2], [1, 2], [2, 1]]))
  >>> r == r.L[0]
  DataSlice([present, present, missing], schema: MASK, present: 2/3)
  >>> kd.ids.agg_uuid(kd.slice([[1, 2], [3]]), ndim=2)
  DataItem(Entity:#..., schema: ITEMID)"#,
        |a| agg_uuid(a.slice("x")?, a.agg_ndim()?),
    );
    r.add(
        "kd.ids.uuids_with_allocation_size",
        &["kd.uuids_with_allocation_size"],
        "seed='', *, size",
        r#"Returns size uuids with consecutive offsets.

The ids are distinct and belong to one allocation, like ids made by one call of
`kd.new_itemid_shaped`, but they depend only on seed and size: the same
arguments give the same ids. The result is a 1-dimensional ITEMID slice.

Args:
  seed: a text that separates allocations of the same size.
  size: the number of ids (non-negative).

Examples:
  >>> ids = kd.uuids_with_allocation_size(seed='a', size=3)
  >>> ids.get_shape()
  JaggedShape(3)
  >>> ids == kd.uuids_with_allocation_size(seed='a', size=3)
  DataSlice([present, present, present], schema: MASK, present: 3/3)
  >>> kd.ids.is_uuid(ids)
  DataItem(present, schema: MASK)"#,
        |a| uuids_with_allocation_size(&seed(a)?, a.int("size")?),
    );
    r.add(
        "kd.ids.encode_itemid",
        &["kd.encode_itemid"],
        "ds",
        r#"Returns the base-62 text of each ItemId.

The result is a STRING slice of the shape of `ds` (22 characters per id);
missing items stay missing. `kd.decode_itemid` turns the text back into the
ids. Items that are not ids raise.

Args:
  ds: a DataSlice of ItemIds (ITEMID, entities, objects, lists or dicts).

Examples:
  >>> kd.strings.length(kd.encode_itemid(kd.new_itemid()))
  DataItem(22, schema: INT64)
  >>> kd.encode_itemid(kd.slice([kd.uuid(x=1), None]))
  DataSlice(['...', None], schema: STRING, present: 1/2)"#,
        |a| encode_itemid(a.slice("ds")?),
    );
    r.add(
        "kd.ids.decode_itemid",
        &["kd.decode_itemid"],
        "ds",
        r#"Returns the ItemIds of base-62 texts.

The inverse of `kd.encode_itemid`: the result has schema ITEMID and the shape
of `ds`; missing items stay missing. Texts that are not encoded ids raise.

Args:
  ds: a STRING DataSlice of texts made by `kd.encode_itemid`.

Examples:
  >>> ids = kd.slice([kd.uuid(x=1), None])
  >>> kd.decode_itemid(kd.encode_itemid(ids)) == ids
  DataSlice([present, missing], schema: MASK, present: 1/2)
  >>> kd.decode_itemid(kd.encode_itemid(kd.new_itemid())).get_schema()
  DataItem(ITEMID, schema: SCHEMA)"#,
        |a| decode_itemid(a.slice("ds")?),
    );
    r.add(
        "kd.ids.hash_itemid",
        &["kd.hash_itemid"],
        "x",
        r#"Returns a 64-bit hash of each ItemId.

The result is an INT64 slice of the shape of `x`; equal ids have equal hashes
and missing items stay missing. Items that are not ids raise.

Args:
  x: a DataSlice of ItemIds (ITEMID, entities, objects, lists or dicts).

Examples:
  >>> h = kd.hash_itemid(kd.uuid(x=kd.slice([1, 2, 1])))
  >>> h.get_schema()
  DataItem(INT64, schema: SCHEMA)
  >>> h == h.L[0]
  DataSlice([present, missing, present], schema: MASK, present: 2/3)"#,
        |a| hash_itemid(a.slice("x")?),
    );
    r.add(
        "kd.ids.has_uuid",
        &[],
        "x",
        r#"Returns present where the item is a uuid.

A uuid is an id derived from content (`kd.uuid`, `kd.uu`, `kd.deep_uuid`, ...)
rather than freshly allocated. The result is a MASK of the shape of `x`;
missing items, primitives and allocated ids give missing.

Args:
  x: a DataSlice.

Examples:
  >>> kd.ids.has_uuid(kd.slice([kd.uuid(x=1), None, kd.new_itemid()]))
  DataSlice([present, missing, missing], schema: MASK, present: 1/3)
  >>> kd.ids.has_uuid(kd.uu(x=kd.slice([1, 2])))
  DataSlice([present, present], schema: MASK, present: 2/2)"#,
        |a| has_uuid(a.slice("x")?),
    );
    r.add(
        "kd.ids.is_uuid",
        &[],
        "x",
        r#"Returns present if every present item is a uuid.

The result is a MASK DataItem. Missing items are skipped; a primitive or an
allocated id makes it missing.

Args:
  x: a DataSlice.

Examples:
  >>> kd.ids.is_uuid(kd.slice([kd.uuid(x=1), None]))
  DataItem(present, schema: MASK)
  >>> kd.ids.is_uuid(kd.new(x=1))
  DataItem(missing, schema: MASK)
  >>> kd.ids.is_uuid(kd.slice([1, 2]))
  DataItem(missing, schema: MASK)"#,
        |a| is_uuid(a.slice("x")?),
    );
    for name in ["kd.ids.uuid", "kd.ids.uuid_for_list", "kd.ids.uuid_for_dict", "kd.ids.agg_uuid"] {
        r.bag_rule(name, crate::registry::BagRule::Drop);
    }
    register_fresh_ids!(
        r,
        ItemKind::Object,
        [
            "new_itemid",
            r#"Allocates a new ItemId.

The id is fresh: no other allocation gives it, in this process or (with
overwhelming probability) in another one. The result is a DataItem of schema ITEMID without a bag; pass it as
`itemid=` to `kd.new` or `kd.obj` to create an entity or object with that id.

Examples:
  >>> kd.new_itemid()
  DataItem(Entity:$..., schema: ITEMID)
  >>> kd.new_itemid() == kd.new_itemid()
  DataItem(missing, schema: MASK)
  >>> kd.new(x=1, itemid=kd.new_itemid())
  DataItem(Entity(x=1), schema: ENTITY(x=INT32), bag_id: $...)"#
        ],
        [
            "new_itemid_shaped",
            r#"Allocates new ItemIds of the given shape.

All ids are fresh and distinct, and belong to one allocation. The result has
schema ITEMID and no bag.

Args:
  shape: a JaggedShape (for example from `kd.shapes.new` or `x.get_shape()`).

Examples:
  >>> kd.new_itemid_shaped(kd.shapes.new(2))
  DataSlice([Entity:$..., Entity:$...], schema: ITEMID, present: 2/2)
  >>> kd.new_itemid_shaped(kd.shapes.new(2, [2, 1])).get_shape()
  JaggedShape(2, [2, 1])"#
        ],
        [
            "new_itemid_shaped_as",
            r#"Allocates new ItemIds of the shape of shape_from.

Only the shape of `shape_from` is used: every item gets a fresh id, missing or
not. The result has schema ITEMID and no bag.

Args:
  shape_from: a DataSlice whose shape the result takes.

Examples:
  >>> kd.new_itemid_shaped_as(kd.slice([1, None]))
  DataSlice([Entity:$..., Entity:$...], schema: ITEMID, present: 2/2)
  >>> kd.new_itemid_shaped_as(kd.slice([[1, 2], [3]])).get_shape()
  JaggedShape(2, [2, 1])"#
        ],
        [
            "new_itemid_like",
            r#"Allocates new ItemIds with the shape and sparsity of shape_and_mask_from.

Each present item of `shape_and_mask_from` gets a fresh id; where it is
missing, the result is missing. The result has schema ITEMID and no bag.

Args:
  shape_and_mask_from: a DataSlice whose shape and missing items the result
    takes.

Examples:
  >>> kd.new_itemid_like(kd.slice([1, None, 3]))
  DataSlice([Entity:$..., None, Entity:$...], schema: ITEMID, present: 2/3)
  >>> kd.has(kd.new_itemid_like(kd.slice([[None, 'a'], ['b']])))
  DataSlice([[missing, present], [present]], schema: MASK, present: 2/3)"#
        ]
    );
    register_fresh_ids!(
        r,
        ItemKind::List,
        [
            "new_listid",
            r#"Allocates a new list ItemId.

The id is fresh and of the list kind, so it can be given as `itemid=` to
`kd.list`. The result is a DataItem of schema ITEMID without a bag.

Examples:
  >>> kd.new_listid()
  DataItem(List:$..., schema: ITEMID)
  >>> kd.list([1, 2], itemid=kd.new_listid())
  DataItem(List[1, 2], schema: LIST[INT32], bag_id: $...)"#
        ],
        [
            "new_listid_shaped",
            r#"Allocates new list ItemIds of the given shape.

All ids are fresh, distinct and of the list kind. The result has schema ITEMID
and no bag.

Args:
  shape: a JaggedShape (for example from `kd.shapes.new` or `x.get_shape()`).

Examples:
  >>> kd.new_listid_shaped(kd.shapes.new(2))
  DataSlice([List:$..., List:$...], schema: ITEMID, present: 2/2)
  >>> kd.new_listid_shaped(kd.shapes.new(2, [1, 3])).get_shape()
  JaggedShape(2, [1, 3])"#
        ],
        [
            "new_listid_shaped_as",
            r#"Allocates new list ItemIds of the shape of shape_from.

Only the shape of `shape_from` is used: every item gets a fresh list id,
missing or not. The result has schema ITEMID and no bag.

Args:
  shape_from: a DataSlice whose shape the result takes.

Examples:
  >>> kd.new_listid_shaped_as(kd.slice([None, 'a']))
  DataSlice([List:$..., List:$...], schema: ITEMID, present: 2/2)
  >>> kd.new_listid_shaped_as(kd.item(1))
  DataItem(List:$..., schema: ITEMID)"#
        ],
        [
            "new_listid_like",
            r#"Allocates new list ItemIds with the shape and sparsity of shape_and_mask_from.

Each present item of `shape_and_mask_from` gets a fresh list id; where it is
missing, the result is missing. The result has schema ITEMID and no bag.

Args:
  shape_and_mask_from: a DataSlice whose shape and missing items the result
    takes.

Examples:
  >>> kd.new_listid_like(kd.slice([1, None, 3]))
  DataSlice([List:$..., None, List:$...], schema: ITEMID, present: 2/3)"#
        ]
    );
    register_fresh_ids!(
        r,
        ItemKind::Dict,
        [
            "new_dictid",
            r#"Allocates a new dict ItemId.

The id is fresh and of the dict kind, so it can be given as `itemid=` to
`kd.dict`. The result is a DataItem of schema ITEMID without a bag.

Examples:
  >>> kd.new_dictid()
  DataItem(Dict:$..., schema: ITEMID)
  >>> kd.dict({'a': 1}, itemid=kd.new_dictid())
  DataItem(Dict{'a'=1}, schema: DICT{STRING, INT32}, bag_id: $...)"#
        ],
        [
            "new_dictid_shaped",
            r#"Allocates new dict ItemIds of the given shape.

All ids are fresh, distinct and of the dict kind. The result has schema ITEMID
and no bag.

Args:
  shape: a JaggedShape (for example from `kd.shapes.new` or `x.get_shape()`).

Examples:
  >>> kd.new_dictid_shaped(kd.shapes.new(2))
  DataSlice([Dict:$..., Dict:$...], schema: ITEMID, present: 2/2)
  >>> kd.new_dictid_shaped(kd.shapes.new()).get_ndim()
  DataItem(0, schema: INT64)"#
        ],
        [
            "new_dictid_shaped_as",
            r#"Allocates new dict ItemIds of the shape of shape_from.

Only the shape of `shape_from` is used: every item gets a fresh dict id,
missing or not. The result has schema ITEMID and no bag.

Args:
  shape_from: a DataSlice whose shape the result takes.

Examples:
  >>> kd.new_dictid_shaped_as(kd.slice([1, None]))
  DataSlice([Dict:$..., Dict:$...], schema: ITEMID, present: 2/2)
  >>> kd.new_dictid_shaped_as(kd.slice([[1, 2], [3]])).get_shape()
  JaggedShape(2, [2, 1])"#
        ],
        [
            "new_dictid_like",
            r#"Allocates new dict ItemIds with the shape and sparsity of shape_and_mask_from.

Each present item of `shape_and_mask_from` gets a fresh dict id; where it is
missing, the result is missing. The result has schema ITEMID and no bag.

Args:
  shape_and_mask_from: a DataSlice whose shape and missing items the result
    takes.

Examples:
  >>> kd.new_dictid_like(kd.slice([None, 'x']))
  DataSlice([None, Dict:$...], schema: ITEMID, present: 1/2)"#
        ]
    );
    r.add(
        "kd.schema.uu_schema",
        &["kd.uu_schema"],
        "seed='', **kwargs",
        r#"Returns the schema with the given attribute schemas (the same for the same seed and attributes).

The schema's id is derived from seed and the attribute names and schemas, so
the same arguments give the same schema in any bag or process, and a different
seed gives another one. Each attribute value must be a schema item.

Args:
  seed: a text that separates schemas with the same attributes.
  **kwargs: the attribute names and their schemas.

Examples:
  >>> kd.uu_schema(x=kd.INT32, y=kd.FLOAT32)
  DataItem(ENTITY(x=INT32, y=FLOAT32), schema: SCHEMA, bag_id: $...)
  >>> kd.uu_schema(x=kd.INT32) == kd.uu_schema(x=kd.INT32)
  DataItem(present, schema: MASK)
  >>> kd.uu_schema(seed='a', x=kd.INT32) == kd.uu_schema(seed='b', x=kd.INT32)
  DataItem(missing, schema: MASK)"#,
        |a| {
            let fields = a.named_slices()?;
            super::schemas::schema_with_fields("kd.schema.uu_schema", uu_schema_id(&seed(a)?, &fields)?, None, &fields)
        },
    );
}
