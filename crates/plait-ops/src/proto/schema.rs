//! The Koda schemas of proto message types: a uu schema per message type
//! (derived from its full name), with the type's full name and the custom
//! defaults of its fields recorded in the schema's metadata object.

use plait_core::bag::BagWriter;
use plait_core::bag::SCHEMA_ATTR;
use plait_core::bag::text::{DICT_KEYS_ATTR, DICT_VALUES_ATTR, LIST_ITEMS_ATTR, SCHEMA_METADATA_ATTR};
use plait_core::column::SliceBuilder;
use plait_core::itemid::UuidHasher;
use plait_core::{ItemId, ItemKind, ScalarRef, Schema};

use super::desc::{Field, Pool, Ty};
use crate::objects::containers::container_schema_id;
use crate::objects::model::schemas_data;

/// The metadata attribute holding a message schema's proto full name.
pub const FULL_NAME_ATTR: &str = "__proto_schema_metadata_full_name__";
/// The prefix of metadata attributes holding fields' custom defaults.
pub const DEFAULT_PREFIX: &str = "proto_default_value_";

/// The uu schema of message type `full_name`.
pub fn message_schema_id(full_name: &str) -> ItemId {
    let mut h = UuidHasher::new("proto_message_schema");
    h.write_str(full_name);
    ItemId::uuid(ItemKind::Schema, h.finish())
}

/// The metadata object of schema `schema`.
pub fn metadata_id(schema: ItemId) -> ItemId {
    let mut h = UuidHasher::new("schema_metadata");
    h.write_item(Some(ScalarRef::ItemId(schema)));
    ItemId::uuid(ItemKind::Object, h.finish())
}

pub fn list_schema(item: Schema) -> Schema {
    Schema::Struct(container_schema_id("list_schema", &[item]))
}

pub fn dict_schema(key: Schema, value: Schema) -> Schema {
    Schema::Struct(container_schema_id("dict_schema", &[key, value]))
}

/// The Koda schema of a scalar proto type.
pub fn scalar_schema(ty: Ty) -> Schema {
    match ty {
        Ty::Int32 | Ty::Sint32 | Ty::Sfixed32 | Ty::Enum => Schema::Int32,
        Ty::Int64 | Ty::Sint64 | Ty::Sfixed64 | Ty::Uint32 | Ty::Fixed32 | Ty::Uint64 | Ty::Fixed64 => Schema::Int64,
        Ty::Float => Schema::Float32,
        Ty::Double => Schema::Float64,
        Ty::Bool => Schema::Boolean,
        Ty::String => Schema::String,
        Ty::Bytes => Schema::Bytes,
        Ty::Message | Ty::Group => Schema::Object,
    }
}

/// The schema of one value of `field` (an item of a repeated field).
pub fn value_schema(pool: &Pool, field: &Field) -> Schema {
    match field.message {
        Some(m) => Schema::Struct(message_schema_id(&pool.messages[m].full_name)),
        None => scalar_schema(field.ty),
    }
}

/// The (key, value) fields of a map field's entry type.
pub fn map_fields<'p>(pool: &'p Pool, field: &Field) -> (&'p Field, &'p Field) {
    let entry = &pool.messages[field.message.expect("a map field")];
    let key = entry.by_number.get(&1).map(|&i| &entry.fields[i]);
    let value = entry.by_number.get(&2).map(|&i| &entry.fields[i]);
    (key.expect("map key"), value.expect("map value"))
}

/// The schema of attribute `field` (lists and dicts for repeated fields and maps).
pub fn field_schema(pool: &Pool, field: &Field) -> Schema {
    if pool.is_map(field) {
        let (k, v) = map_fields(pool, field);
        dict_schema(value_schema(pool, k), value_schema(pool, v))
    } else if field.repeated {
        list_schema(value_schema(pool, field))
    } else {
        value_schema(pool, field)
    }
}

/// Writes the definition of `field`'s list or dict schema (nothing for others).
pub fn write_container_schema(w: &mut BagWriter<'_>, pool: &Pool, field: &Field) {
    let one = |s: Schema| schemas_data(vec![Some(s)]);
    if pool.is_map(field) {
        let (k, v) = map_fields(pool, field);
        let (ks, vs) = (value_schema(pool, k), value_schema(pool, v));
        let Schema::Struct(id) = dict_schema(ks, vs) else { unreachable!() };
        w.set_attr(DICT_KEYS_ATTR, &[Some(id)], &one(ks));
        w.set_attr(DICT_VALUES_ATTR, &[Some(id)], &one(vs));
    } else if field.repeated {
        let item = value_schema(pool, field);
        let Schema::Struct(id) = list_schema(item) else { unreachable!() };
        w.set_attr(LIST_ITEMS_ATTR, &[Some(id)], &one(item));
    }
}

/// The message types whose values `field` holds (its own, or a map's value type).
pub fn child_message(pool: &Pool, field: &Field) -> Option<usize> {
    if pool.is_map(field) { map_fields(pool, field).1.message } else { field.message }
}

/// A custom default as a Koda value.
pub enum DefaultValue {
    Int32(i32),
    Int64(i64),
    Float32(f32),
    Float64(f64),
    Boolean(bool),
    String(String),
    Bytes(Vec<u8>),
}

impl DefaultValue {
    pub fn as_ref(&self) -> ScalarRef<'_> {
        match self {
            DefaultValue::Int32(v) => ScalarRef::Int32(*v),
            DefaultValue::Int64(v) => ScalarRef::Int64(*v),
            DefaultValue::Float32(v) => ScalarRef::Float32(*v),
            DefaultValue::Float64(v) => ScalarRef::Float64(*v),
            DefaultValue::Boolean(v) => ScalarRef::Boolean(*v),
            DefaultValue::String(v) => ScalarRef::String(v),
            DefaultValue::Bytes(v) => ScalarRef::Bytes(v),
        }
    }
}

fn parse_float(text: &str) -> Option<f64> {
    match text {
        "inf" => Some(f64::INFINITY),
        "-inf" => Some(f64::NEG_INFINITY),
        "nan" => Some(f64::NAN),
        t => t.parse().ok(),
    }
}

/// protobuf's C escapes of bytes defaults.
fn unescape(text: &str) -> Vec<u8> {
    let b = text.as_bytes();
    let mut out = vec![];
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' || i + 1 >= b.len() {
            out.push(b[i]);
            i += 1;
            continue;
        }
        i += 1;
        match b[i] {
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'a' => out.push(7),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'v' => out.push(11),
            b'x' => {
                let end = (i + 1..(i + 3).min(b.len())).take_while(|&j| b[j].is_ascii_hexdigit()).last().map_or(i + 1, |j| j + 1);
                out.push(u8::from_str_radix(std::str::from_utf8(&b[i + 1..end]).unwrap_or("0"), 16).unwrap_or(0));
                i = end - 1;
            }
            b'0'..=b'7' => {
                let end = (i..(i + 3).min(b.len())).take_while(|&j| (b'0'..=b'7').contains(&b[j])).last().map_or(i + 1, |j| j + 1);
                out.push(u32::from_str_radix(std::str::from_utf8(&b[i..end]).unwrap_or("0"), 8).unwrap_or(0) as u8);
                i = end - 1;
            }
            c => out.push(c),
        }
        i += 1;
    }
    out
}

/// The custom default of `field`, if it has one.
pub fn custom_default(pool: &Pool, field: &Field) -> Option<DefaultValue> {
    let text = field.default.as_deref()?;
    Some(match field.ty {
        Ty::Int32 | Ty::Sint32 | Ty::Sfixed32 => DefaultValue::Int32(text.parse().ok()?),
        Ty::Int64 | Ty::Sint64 | Ty::Sfixed64 | Ty::Uint32 | Ty::Fixed32 => DefaultValue::Int64(text.parse().ok()?),
        Ty::Uint64 | Ty::Fixed64 => DefaultValue::Int64(text.parse::<u64>().ok()? as i64),
        Ty::Float => DefaultValue::Float32(parse_float(text)? as f32),
        Ty::Double => DefaultValue::Float64(parse_float(text)?),
        Ty::Bool => DefaultValue::Boolean(text == "true"),
        Ty::String => DefaultValue::String(text.to_string()),
        Ty::Bytes => DefaultValue::Bytes(unescape(text)),
        Ty::Enum => {
            let e = &pool.enums[field.enum_type?];
            DefaultValue::Int32(e.values.iter().find(|(n, _)| n == text)?.1)
        }
        Ty::Message | Ty::Group => return None,
    })
}

/// Writes the metadata object of message `m`'s schema.
pub fn write_metadata(w: &mut BagWriter<'_>, pool: &Pool, m: usize) {
    let msg = &pool.messages[m];
    let schema = message_schema_id(&msg.full_name);
    let meta = metadata_id(schema);
    let implicit = meta.with_kind(ItemKind::ImplicitSchema);
    w.set_attr(SCHEMA_METADATA_ATTR, &[Some(schema)], &id_data(meta));
    w.set_attr(SCHEMA_ATTR, &[Some(meta)], &schemas_data(vec![Some(Schema::Struct(implicit))]));
    let mut set = |name: &str, value: ScalarRef<'_>| {
        let mut b = SliceBuilder::with_capacity(1);
        b.push(Some(value));
        w.set_attr(name, &[Some(meta)], &b.finish());
        w.set_attr(name, &[Some(implicit)], &schemas_data(vec![Some(value.dtype())]));
    };
    set(FULL_NAME_ATTR, ScalarRef::String(&msg.full_name));
    for f in &msg.fields {
        if let Some(d) = custom_default(pool, f) {
            set(&format!("{DEFAULT_PREFIX}{}", f.name), d.as_ref());
        }
    }
}

fn id_data(id: ItemId) -> plait_core::SliceData {
    let mut b = SliceBuilder::with_capacity(1);
    b.push(Some(ScalarRef::ItemId(id)));
    b.finish()
}

/// Writes the whole schema of message `root` (every field, every message
/// type reachable from it) and of the extension fields `extensions`
/// (message index, field); returns the root schema.
pub fn write_full_schema(w: &mut BagWriter<'_>, pool: &Pool, root: usize, extensions: &[(usize, Field)]) -> Schema {
    let mut seen = vec![false; pool.messages.len()];
    let mut stack = vec![root];
    let mut extra: Vec<(usize, &Field)> = extensions.iter().map(|(m, f)| (*m, f)).collect();
    while let Some(m) = stack.pop() {
        if seen[m] {
            continue;
        }
        seen[m] = true;
        let msg = &pool.messages[m];
        let id = message_schema_id(&msg.full_name);
        write_metadata(w, pool, m);
        let own = msg.fields.iter().map(|f| (m, f));
        let mine: Vec<(usize, &Field)> = own.chain(extra.iter().filter(|(em, _)| *em == m).copied()).collect();
        for (_, f) in mine {
            w.set_attr(&f.name, &[Some(id)], &schemas_data(vec![Some(field_schema(pool, f))]));
            write_container_schema(w, pool, f);
            if let Some(c) = child_message(pool, f) {
                stack.push(c);
            }
        }
        extra.retain(|(em, _)| *em != m);
    }
    Schema::Struct(message_schema_id(&pool.messages[root].full_name))
}
