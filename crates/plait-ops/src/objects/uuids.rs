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

use plait_core::broadcast::align;
use plait_core::itemid::{allocate, UuidHasher};
use plait_core::{DataSlice, Error, ItemId, ItemKind, JaggedShape, Result, ScalarRef, Schema, SliceData};

use super::model::ids_data;
use crate::registry::{Args, Registry};

/// The purpose tag of uuids of `kind` (so list and entity uuids of the same
/// content differ).
fn tag_of(kind: ItemKind) -> &'static str {
    match kind {
        ItemKind::List => "uuid_for_list",
        ItemKind::Dict => "uuid_for_dict",
        ItemKind::Schema | ItemKind::ImplicitSchema => "uu_schema",
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
            return Err(Error::type_error(op, format!("argument `{name}` must be a schema item (e.g. kd.INT32), got {}", crate::describe(value))));
        }
        h.write_str(name);
        h.write_item(value.get(0));
    }
    Ok(ItemId::uuid(ItemKind::Schema, h.finish()))
}

/// The ItemIds of `x` (ITEMID, or entities, objects, lists and dicts), or an
/// error naming `op`.
fn require_ids(op: &str, x: &DataSlice) -> Result<()> {
    let ok = (0..x.size()).all(|i| matches!(x.get(i), None | Some(ScalarRef::ItemId(_))));
    if ok { Ok(()) } else { Err(Error::value(op, format!("expected ItemIds, got {}", crate::describe(x)))) }
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
    let ids: Vec<Option<ItemId>> = (0..x.size())
        .map(|i| match x.get(i) {
            None => Ok(None),
            Some(ScalarRef::String(text)) => {
                ItemId::decode(text).map(Some).ok_or_else(|| Error::value(op, format!("invalid ItemId text: {text:?}")))
            }
            Some(_) => Err(Error::value(op, format!("expected STRING, got {}", crate::describe(x)))),
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
            Some(ScalarRef::ItemId(id)) => Some(ScalarRef::Int64(id.hash64())),
            _ => None,
        });
    }
    let data = b.finish();
    let data = if data.present_count() == 0 { SliceData::missing(x.size()) } else { data };
    DataSlice::new(x.shape().clone(), data, Schema::Int64)
}

/// Whether each item is a uuid (`kd.ids.has_uuid`).
pub fn has_uuid(x: &DataSlice) -> Result<DataSlice> {
    crate::masking::mask_where(x.shape(), x.size(), |i| matches!(x.get(i), Some(ScalarRef::ItemId(id)) if id.is_uuid()))
}

/// Whether every present item is a uuid (`kd.ids.is_uuid`).
pub fn is_uuid(x: &DataSlice) -> Result<DataSlice> {
    let yes = x.present_count() > 0
        && (0..x.size()).all(|i| match x.get(i) {
            None => true,
            Some(ScalarRef::ItemId(id)) => id.is_uuid(),
            Some(_) => false,
        });
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
    ($r:expr, $kind:expr, $new:literal, $shaped:literal, $shaped_as:literal, $like:literal) => {
        $r.add(concat!("kd.allocation.", $new), &[concat!("kd.", $new)], "", "Allocates a new ItemId.", |_| {
            fresh($kind, &JaggedShape::scalar(), None)
        });
        $r.add(concat!("kd.allocation.", $shaped), &[concat!("kd.", $shaped)], "shape", "Allocates new ItemIds of the given shape.", |a| {
            fresh($kind, a.shape("shape")?, None)
        });
        $r.add(
            concat!("kd.allocation.", $shaped_as),
            &[concat!("kd.", $shaped_as)],
            "shape_from",
            "Allocates new ItemIds of the shape of shape_from.",
            |a| fresh($kind, a.slice("shape_from")?.shape(), None),
        );
        $r.add(
            concat!("kd.allocation.", $like),
            &[concat!("kd.", $like)],
            "shape_and_mask_from",
            "Allocates new ItemIds with the shape and sparsity of shape_and_mask_from.",
            |a| {
                let from = a.slice("shape_and_mask_from")?;
                fresh($kind, from.shape(), Some(from))
            },
        );
    };
}

pub(crate) fn register(r: &mut Registry) {
    r.add("kd.ids.uuid", &["kd.uuid"], "seed='', **kwargs", "Returns ItemIds derived from seed and the attribute values.", |a| {
        uuids("kd.ids.uuid", ItemKind::Object, &seed(a)?, &a.named_slices()?)
    });
    r.add("kd.ids.uuid_for_list", &["kd.uuid_for_list"], "seed='', **kwargs", "Returns list ItemIds derived from seed and the attribute values.", |a| {
        uuids("kd.ids.uuid_for_list", ItemKind::List, &seed(a)?, &a.named_slices()?)
    });
    r.add("kd.ids.uuid_for_dict", &["kd.uuid_for_dict"], "seed='', **kwargs", "Returns dict ItemIds derived from seed and the attribute values.", |a| {
        uuids("kd.ids.uuid_for_dict", ItemKind::Dict, &seed(a)?, &a.named_slices()?)
    });
    r.add("kd.ids.agg_uuid", &[], "x, ndim=unspecified", "Returns one uuid per group of the last ndim dimensions.", |a| {
        agg_uuid(a.slice("x")?, a.ndim()?)
    });
    r.add(
        "kd.ids.uuids_with_allocation_size",
        &["kd.uuids_with_allocation_size"],
        "seed='', *, size",
        "Returns size uuids with consecutive offsets.",
        |a| uuids_with_allocation_size(&seed(a)?, a.int("size")?),
    );
    r.add("kd.ids.encode_itemid", &["kd.encode_itemid"], "ds", "Returns the base-62 text of each ItemId.", |a| encode_itemid(a.slice("ds")?));
    r.add("kd.ids.decode_itemid", &["kd.decode_itemid"], "ds", "Returns the ItemIds of base-62 texts.", |a| decode_itemid(a.slice("ds")?));
    r.add("kd.ids.hash_itemid", &["kd.hash_itemid"], "x", "Returns a 64-bit hash of each ItemId.", |a| hash_itemid(a.slice("x")?));
    r.add("kd.ids.has_uuid", &[], "x", "Returns present where the item is a uuid.", |a| has_uuid(a.slice("x")?));
    r.add("kd.ids.is_uuid", &[], "x", "Returns present if every present item is a uuid.", |a| is_uuid(a.slice("x")?));
    for name in ["kd.ids.uuid", "kd.ids.uuid_for_list", "kd.ids.uuid_for_dict", "kd.ids.agg_uuid"] {
        r.without_bags(name);
    }
    register_fresh_ids!(r, ItemKind::Object, "new_itemid", "new_itemid_shaped", "new_itemid_shaped_as", "new_itemid_like");
    register_fresh_ids!(r, ItemKind::List, "new_listid", "new_listid_shaped", "new_listid_shaped_as", "new_listid_like");
    register_fresh_ids!(r, ItemKind::Dict, "new_dictid", "new_dictid_shaped", "new_dictid_shaped_as", "new_dictid_like");
    r.add("kd.schema.uu_schema", &["kd.uu_schema"], "seed='', **kwargs", "Returns the schema with the given attribute schemas (the same for the same seed and attributes).", |a| {
        let fields = a.named_slices()?;
        super::schemas::schema_with_fields("kd.schema.uu_schema", uu_schema_id(&seed(a)?, &fields)?, None, &fields)
    });
}
