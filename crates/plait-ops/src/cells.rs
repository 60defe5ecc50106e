//! Values decoded from a text or wire format (`kd.json.from_json`,
//! `kd.proto.from_proto_bytes`) before they become columns: a primitive, a
//! range of a text or bytes pool, or a container made by the decoder
//! (group, index in the group), given an id at the end.

use plait_core::column::SliceBuilder;
use plait_core::{ItemId, ScalarRef, SliceData};

#[derive(Clone, Copy, Debug)]
pub enum Cell {
    Missing,
    Int32(i32),
    Int64(i64),
    Float32(f32),
    Float64(f64),
    Boolean(bool),
    Present,
    /// Text in the string pool.
    Str(u32, u32),
    /// Bytes in the bytes pool.
    Bytes(u32, u32),
    Container(u32, u32),
    /// The `on_invalid` value.
    Invalid,
}

/// `cells` as slice data: text and bytes read from their pools, containers
/// from the ids allocated for their groups, invalid values as `invalid`.
pub fn cells_data(cells: &[Cell], text: &str, bytes: &[u8], ids: &[Vec<ItemId>], invalid: Option<ScalarRef<'_>>) -> SliceData {
    let mut b = SliceBuilder::with_capacity(cells.len());
    for c in cells {
        b.push(match *c {
            Cell::Missing => None,
            Cell::Int32(v) => Some(ScalarRef::Int32(v)),
            Cell::Int64(v) => Some(ScalarRef::Int64(v)),
            Cell::Float32(v) => Some(ScalarRef::Float32(v)),
            Cell::Float64(v) => Some(ScalarRef::Float64(v)),
            Cell::Boolean(v) => Some(ScalarRef::Boolean(v)),
            Cell::Present => Some(ScalarRef::Mask),
            Cell::Str(a, b) => Some(ScalarRef::String(&text[a as usize..b as usize])),
            Cell::Bytes(a, b) => Some(ScalarRef::Bytes(&bytes[a as usize..b as usize])),
            Cell::Container(g, k) => Some(ScalarRef::ItemId(ids[g as usize][k as usize])),
            Cell::Invalid => invalid,
        });
    }
    b.finish()
}
