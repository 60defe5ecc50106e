//! Koda data to binary proto messages (`kd.proto.to_proto_bytes`, and
//! `kd.to_proto` through serialized messages).
//!
//! A message level at a time: each field's attribute is read for all the
//! messages of the level at once, nested messages are encoded as the next
//! level (all of them together) and spliced into their parents.

use plait_core::repr::write_item;
use plait_core::{DataBag, Error, ItemId, Result, ScalarRef, SliceData};

use super::desc::{Field, Pool, Ty};
use super::schema::map_fields;
use super::wire::{self, put_len, put_tag, put_varint};

const MAX_DEPTH: usize = 100;

struct Encoder<'a> {
    pool: &'a Pool,
    bag: Option<&'a DataBag>,
    op: &'a str,
}

fn dtype_name(v: ScalarRef<'_>) -> String {
    match v.dtype() {
        plait_core::Schema::String => "TEXT".to_string(),
        s => s.to_string(),
    }
}

fn value_text(v: ScalarRef<'_>) -> String {
    match v {
        ScalarRef::Boolean(b) => b.to_string(),
        ScalarRef::Float64(_) => {
            let mut out = String::new();
            write_item(&mut out, Some(v), v.dtype(), true);
            format!("float64{{{out}}}")
        }
        other => {
            let mut out = String::new();
            write_item(&mut out, Some(other), other.dtype(), true);
            out
        }
    }
}

/// The wire type of one (unpacked) value of `ty`.
fn wire_of(ty: Ty) -> u32 {
    match ty {
        Ty::Fixed32 | Ty::Sfixed32 | Ty::Float => wire::FIXED32,
        Ty::Fixed64 | Ty::Sfixed64 | Ty::Double => wire::FIXED64,
        Ty::String | Ty::Bytes | Ty::Message => wire::LEN,
        Ty::Group => wire::START_GROUP,
        _ => wire::VARINT,
    }
}

impl Encoder<'_> {
    fn invalid(&self, f: &Field, v: ScalarRef<'_>) -> Error {
        Error::value(
            self.op,
            format!(
                "invalid proto field {} with value type {} for Koda value {} with dtype {}",
                f.name,
                f.ty.cpp_name(),
                value_text(v),
                dtype_name(v)
            ),
        )
    }

    fn out_of_range(&self, f: &Field, v: i64) -> Error {
        Error::value(self.op, format!("value {v} out of range for proto field {} with value type {}", f.name, f.ty.cpp_name()))
    }

    /// Writes the payload of one scalar of `f` (no tag); `skip_zero`: returns
    /// false without writing for a zero value.
    fn scalar(&self, out: &mut Vec<u8>, f: &Field, v: ScalarRef<'_>, skip_zero: bool) -> Result<bool> {
        let int = match v {
            ScalarRef::Int32(x) => Some(x as i64),
            ScalarRef::Int64(x) => Some(x),
            _ => None,
        };
        match f.ty {
            Ty::Int32 | Ty::Sint32 | Ty::Sfixed32 | Ty::Enum => {
                let x = int.ok_or_else(|| self.invalid(f, v))?;
                let x = i32::try_from(x).map_err(|_| self.out_of_range(f, x))?;
                if skip_zero && x == 0 {
                    return Ok(false);
                }
                match f.ty {
                    Ty::Sint32 => put_varint(out, wire::zigzag32(x)),
                    Ty::Sfixed32 => out.extend_from_slice(&x.to_le_bytes()),
                    _ => put_varint(out, x as i64 as u64),
                }
            }
            Ty::Int64 | Ty::Sint64 | Ty::Sfixed64 => {
                let x = int.ok_or_else(|| self.invalid(f, v))?;
                if skip_zero && x == 0 {
                    return Ok(false);
                }
                match f.ty {
                    Ty::Sint64 => put_varint(out, wire::zigzag64(x)),
                    Ty::Sfixed64 => out.extend_from_slice(&x.to_le_bytes()),
                    _ => put_varint(out, x as u64),
                }
            }
            Ty::Uint32 | Ty::Fixed32 => {
                let x = int.ok_or_else(|| self.invalid(f, v))?;
                let x = u32::try_from(x).map_err(|_| self.out_of_range(f, x))?;
                if skip_zero && x == 0 {
                    return Ok(false);
                }
                if f.ty == Ty::Fixed32 { out.extend_from_slice(&x.to_le_bytes()) } else { put_varint(out, x as u64) }
            }
            Ty::Uint64 | Ty::Fixed64 => {
                // INT64 holds uint64 values as their two's complement (as
                // reading them gives).
                let x = match v {
                    ScalarRef::Int32(x) => u64::try_from(x).map_err(|_| self.out_of_range(f, x as i64))?,
                    ScalarRef::Int64(x) => x as u64,
                    _ => return Err(self.invalid(f, v)),
                };
                if skip_zero && x == 0 {
                    return Ok(false);
                }
                if f.ty == Ty::Fixed64 { out.extend_from_slice(&x.to_le_bytes()) } else { put_varint(out, x) }
            }
            Ty::Float | Ty::Double => {
                // Integers widen; a float must have the field's width.
                let x = match (f.ty, v) {
                    (_, ScalarRef::Int32(x)) => x as f64,
                    (_, ScalarRef::Int64(x)) => x as f64,
                    (Ty::Float, ScalarRef::Float32(x)) => x as f64,
                    (Ty::Double, ScalarRef::Float64(x)) => x,
                    _ => return Err(self.invalid(f, v)),
                };
                if f.ty == Ty::Float {
                    let x = x as f32;
                    if skip_zero && x.to_bits() == 0 {
                        return Ok(false);
                    }
                    out.extend_from_slice(&x.to_le_bytes());
                } else {
                    if skip_zero && x.to_bits() == 0 {
                        return Ok(false);
                    }
                    out.extend_from_slice(&x.to_le_bytes());
                }
            }
            Ty::Bool => {
                let x = match v {
                    ScalarRef::Boolean(b) => b,
                    ScalarRef::Mask => true,
                    _ => return Err(self.invalid(f, v)),
                };
                if skip_zero && !x {
                    return Ok(false);
                }
                put_varint(out, x as u64);
            }
            Ty::String | Ty::Bytes => {
                let b: &[u8] = match (f.ty, v) {
                    (Ty::String, ScalarRef::String(s)) => s.as_bytes(),
                    (Ty::Bytes, ScalarRef::Bytes(b)) => b,
                    _ => return Err(self.invalid(f, v)),
                };
                if skip_zero && b.is_empty() {
                    return Ok(false);
                }
                put_varint(out, b.len() as u64);
                out.extend_from_slice(b);
            }
            Ty::Message | Ty::Group => return Err(self.invalid(f, v)),
        }
        Ok(true)
    }

    fn ids(&self, data: &SliceData) -> Result<Vec<Option<ItemId>>> {
        let mut ids = Vec::with_capacity(data.len());
        for i in 0..data.len() {
            match data.get(i) {
                None => ids.push(None),
                Some(ScalarRef::ItemId(id)) => ids.push(Some(id)),
                Some(v) => {
                    return Err(Error::value(self.op, format!("proto message should have only entities/objects, found {}", v.dtype())));
                }
            }
        }
        Ok(ids)
    }

    fn attr(&self, name: &str, ids: &[Option<ItemId>]) -> SliceData {
        match self.bag {
            Some(bag) => bag.get_attr(name, ids),
            None => SliceData::missing(ids.len()),
        }
    }

    /// The messages of type `m` that `ids` are (empty for missing ids).
    fn level(&self, ids: &[Option<ItemId>], m: usize, depth: usize) -> Result<Vec<Vec<u8>>> {
        if depth > MAX_DEPTH {
            return Err(Error::value(self.op, "proto messages are nested too deeply"));
        }
        let mut out = vec![Vec::new(); ids.len()];
        if ids.iter().all(Option::is_none) {
            return Ok(out);
        }
        let msg = &self.pool.messages[m];
        let mut fields: Vec<&Field> = msg.fields.iter().chain(msg.extensions.iter()).collect();
        fields.sort_by_key(|f| f.number);
        for f in fields {
            let values = self.attr(&f.name, ids);
            if values.present_count() == 0 {
                continue;
            }
            if self.pool.is_map(f) {
                self.map_field(&mut out, f, &values, depth)?;
            } else if f.repeated {
                self.repeated_field(&mut out, f, &values, depth)?;
            } else if let Some(cm) = f.message {
                let child_ids = self.ids(&values)?;
                let children = self.level(&child_ids, cm, depth + 1)?;
                for (i, child) in children.iter().enumerate() {
                    if child_ids[i].is_some() {
                        put_len(&mut out[i], f.number, child);
                    }
                }
            } else {
                let skip_zero = !f.presence && !f.in_oneof;
                let mut payload = Vec::new();
                for (i, buf) in out.iter_mut().enumerate() {
                    let Some(v) = values.get(i) else { continue };
                    payload.clear();
                    if self.scalar(&mut payload, f, v, skip_zero)? {
                        put_tag(buf, f.number, wire_of(f.ty));
                        buf.extend_from_slice(&payload);
                    }
                }
            }
        }
        Ok(out)
    }

    fn lists(&self, f: &Field, values: &SliceData) -> Result<(Vec<Option<ItemId>>, plait_core::Edge, SliceData)> {
        let is_list = |i: usize| match values.get(i) {
            None => true,
            Some(ScalarRef::ItemId(id)) => id.is_list(),
            Some(_) => false,
        };
        if !(0..values.len()).all(is_list) {
            let kind = if f.message.is_some() { "message" } else { "primitive" };
            return Err(Error::value(
                self.op,
                format!("proto repeated {kind} field {} expected Koda DataSlice to contain only Lists but got {}", f.name, describe_data(values)),
            ));
        }
        let ids = self.ids(values)?;
        let (edge, items) = match self.bag {
            Some(bag) => bag.explode(&ids)?,
            None => (plait_core::Edge::from_sizes(&vec![0; ids.len()])?, SliceData::missing(0)),
        };
        if items.present_count() != items.len() {
            return Err(Error::value(
                self.op,
                format!("proto repeated field {} cannot represent missing values, but got {}", f.name, describe_data(&items)),
            ));
        }
        Ok((ids, edge, items))
    }

    fn repeated_field(&self, out: &mut [Vec<u8>], f: &Field, values: &SliceData, depth: usize) -> Result<()> {
        let (ids, edge, items) = self.lists(f, values)?;
        if let Some(cm) = f.message {
            let item_ids = self.ids(&items)?;
            let encoded = self.level(&item_ids, cm, depth + 1)?;
            for (i, buf) in out.iter_mut().enumerate() {
                if ids[i].is_none() {
                    continue;
                }
                for k in edge.child_range(i) {
                    put_len(buf, f.number, &encoded[k]);
                }
            }
            return Ok(());
        }
        let mut payload = Vec::new();
        for (i, buf) in out.iter_mut().enumerate() {
            if ids[i].is_none() {
                continue;
            }
            let range = edge.child_range(i);
            if range.is_empty() {
                continue;
            }
            if f.packed {
                payload.clear();
                for k in range {
                    self.scalar(&mut payload, f, items.get(k).expect("present"), false)?;
                }
                put_len(buf, f.number, &payload);
            } else {
                for k in range {
                    put_tag(buf, f.number, wire_of(f.ty));
                    self.scalar(buf, f, items.get(k).expect("present"), false)?;
                }
            }
        }
        Ok(())
    }

    fn map_field(&self, out: &mut [Vec<u8>], f: &Field, values: &SliceData, depth: usize) -> Result<()> {
        let ids = self.ids(values)?;
        let Some(bag) = self.bag else { return Ok(()) };
        let (edge, keys, vals) = bag.dict_entries(&ids)?;
        let (kf, vf) = map_fields(self.pool, f);
        let encoded = match vf.message {
            Some(vm) => Some(self.level(&self.ids(&vals)?, vm, depth + 1)?),
            None => None,
        };
        let mut entry = Vec::new();
        for (i, buf) in out.iter_mut().enumerate() {
            if ids[i].is_none() {
                continue;
            }
            for k in edge.child_range(i) {
                entry.clear();
                put_tag(&mut entry, 1, wire_of(kf.ty));
                match keys.get(k) {
                    Some(key) => {
                        self.scalar(&mut entry, kf, key, false)?;
                    }
                    None => entry.push(0),
                }
                match &encoded {
                    Some(e) => put_len(&mut entry, 2, &e[k]),
                    None => {
                        put_tag(&mut entry, 2, wire_of(vf.ty));
                        match vals.get(k) {
                            Some(v) => {
                                self.scalar(&mut entry, vf, v, false)?;
                            }
                            None => zero_payload(&mut entry, vf.ty),
                        }
                    }
                }
                put_len(buf, f.number, &entry);
            }
        }
        Ok(())
    }
}

fn zero_payload(out: &mut Vec<u8>, ty: Ty) {
    match wire_of(ty) {
        wire::FIXED32 => out.extend_from_slice(&[0; 4]),
        wire::FIXED64 => out.extend_from_slice(&[0; 8]),
        _ => out.push(0),
    }
}

fn describe_data(data: &SliceData) -> String {
    match plait_core::DataSlice::new(plait_core::JaggedShape::flat(data.len()), data.clone(), plait_core::Schema::Object) {
        Ok(x) => crate::describe(&x),
        Err(_) => String::new(),
    }
}

/// Encodes the entities or objects `items` (a flat column) as messages of
/// type `m` (None where an item is missing).
pub fn encode(items: &SliceData, bag: Option<&DataBag>, pool: &Pool, m: usize, op: &str) -> Result<Vec<Option<Vec<u8>>>> {
    let enc = Encoder { pool, bag, op };
    let ids = enc.ids(items)?;
    let out = enc.level(&ids, m, 0)?;
    Ok(out.into_iter().zip(&ids).map(|(b, id)| id.map(|_| b)).collect())
}
