//! `kd.strings.length`, `upper`, `lower`.
//!
//! ASCII data (checked once over the whole byte buffer) keeps its offsets:
//! `upper`/`lower` rewrite the bytes in place of a copy and share the offset
//! buffer; `length` is the difference of neighbouring offsets. Other data goes
//! item by item, code point by code point, into the output buffer.

use arrow_buffer::{Buffer, OffsetBuffer, ScalarBuffer};
use plait_core::column::VarBinary;
use plait_core::{DataSlice, Result, Schema, Values, parallel};
use rayon::prelude::*;

use super::{char_count, finish_text, fixed, prepare_text, text_map, text_of};
use crate::elementwise::Prepared;
use crate::kernel::{PARALLEL_MIN, build_vec, fill_vec};
use crate::promote::TypeClass;

/// Bytes per parallel task of the whole-buffer passes.
const BYTE_CHUNK: usize = 1 << 16;

/// The bytes the offsets of `v` cover, and the first offset.
fn covered(v: &VarBinary) -> (&[u8], usize) {
    let start = v.offsets[0] as usize;
    let end = v.offsets[v.len()] as usize;
    (&v.data.as_slice()[start..end], start)
}

/// Whether every byte is ASCII (in parallel for large buffers).
pub(crate) fn all_ascii(bytes: &[u8]) -> bool {
    if bytes.len() >= PARALLEL_MIN * 8 { parallel::install(|| bytes.par_chunks(BYTE_CHUNK).all(<[u8]>::is_ascii)) } else { bytes.is_ascii() }
}

/// Lengths: code points for STRING, bytes for BYTES; INT64.
pub fn length(x: &DataSlice) -> Result<DataSlice> {
    let op = "kd.strings.length";
    let p = prepare_text(op, &[("x", x)], TypeClass::Text, &[])?;
    let p = Prepared { promotion: fixed(p.promotion), ..p };
    if p.all_missing() {
        return Ok(p.missing(Schema::Int64));
    }
    let v = text_of(&p.operands[0]).expect("present text");
    let offsets: &[i64] = &v.offsets;
    let by_bytes = p.dtype() == Schema::Bytes || all_ascii(covered(v).0);
    let out: Vec<i64> = if by_bytes {
        build_vec(v.len(), |out| {
            let range = out.range();
            out.write_all(offsets[range.start..range.end + 1].windows(2).map(|ends| ends[1] - ends[0]));
        })
    } else {
        build_vec(v.len(), |out| out.write_all(out.range().map(|i| char_count(v.value(i)) as i64)))
    };
    p.finish(Values::Int64(ScalarBuffer::from(out)), p.operands[0].presence().cloned())
}

/// Upper case of each STRING item (full Unicode mappings, `ß` → `SS`).
pub fn upper(x: &DataSlice) -> Result<DataSlice> {
    convert_case("kd.strings.upper", x, true)
}

/// Lower case of each STRING item.
pub fn lower(x: &DataSlice) -> Result<DataSlice> {
    convert_case("kd.strings.lower", x, false)
}

fn convert_case(op: &str, x: &DataSlice, up: bool) -> Result<DataSlice> {
    let p = prepare_text(op, &[("x", x)], TypeClass::String, &[])?;
    // The result is STRING even for OBJECT inputs, as in Koda.
    let p = Prepared { promotion: fixed(p.promotion), ..p };
    if p.all_missing() {
        return Ok(p.missing(Schema::String));
    }
    let v = text_of(&p.operands[0]).expect("present text");
    let presence = p.operands[0].presence();
    let (bytes, start) = covered(v);
    if all_ascii(bytes) {
        let data = ascii_case(bytes, up);
        let offsets = if start == 0 {
            v.offsets.clone()
        } else {
            OffsetBuffer::new(ScalarBuffer::from(v.offsets.iter().map(|o| o - start as i64).collect::<Vec<_>>()))
        };
        let values = VarBinary { offsets, data: Buffer::from_vec(data) };
        return p.finish(Values::String(values), presence.cloned());
    }
    let out = text_map(v.len(), presence, bytes.len() + bytes.len() / 8, |i, out| {
        let s = v.str_value(i);
        if !up && !s.is_ascii() {
            // Context-dependent mappings (a final sigma) need the whole text.
            out.extend_from_slice(s.to_lowercase().as_bytes());
            return true;
        }
        for c in s.chars() {
            if c.is_ascii() {
                out.push(if up { c.to_ascii_uppercase() } else { c.to_ascii_lowercase() } as u8);
            } else {
                c.to_uppercase().for_each(|u| push_char(out, u));
            }
        }
        true
    });
    finish_text(&p, Schema::String, out)
}

#[inline]
fn push_char(out: &mut Vec<u8>, c: char) {
    let mut buf = [0u8; 4];
    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
}

/// ASCII bytes in upper or lower case, converted in parallel chunks.
fn ascii_case(bytes: &[u8], up: bool) -> Vec<u8> {
    let n = bytes.len();
    fill_vec(n, BYTE_CHUNK, n >= PARALLEL_MIN * 8, |out| {
        let src = &bytes[out.range()];
        if up {
            out.write_all(src.iter().map(u8::to_ascii_uppercase));
        } else {
            out.write_all(src.iter().map(u8::to_ascii_lowercase));
        }
    })
}
