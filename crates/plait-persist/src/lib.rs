//! plait's binary format (docs/format.md): DataSlices with their bags,
//! DataBags, expressions and functors (which are DataSlices) to bytes and
//! back.
//!
//! A file is a header (magic, version, what it holds, payload length), the
//! payload, and a CRC-32 of the payload. Loading checks all three before
//! decoding, and decoding validates every count, offset, reference and
//! operator: truncated, corrupted or hostile bytes give an error, never a
//! panic or an allocation larger than the input. Python code is never
//! saved: py_fn functors and Python-function operators are refused.
//!
//! * [`wire`] — bounds-checked primitives.
//! * [`codec`] — the values.

pub mod codec;
pub mod wire;

use plait_core::{DataBag, DataSlice, Error, Result};
use plait_expr::Expr;

use crate::codec::{Decoder, Encoder};
use crate::wire::{Reader, Writer, corrupt};

/// The first bytes of every file.
pub const MAGIC: [u8; 8] = *b"\x89PLAIT\r\n";

/// The version this plait writes (and the newest it reads).
pub const VERSION: u32 = 2;

/// What a file holds.
#[derive(Clone, Debug)]
pub enum Saved {
    Slice(DataSlice),
    Bag(DataBag),
    Expr(Expr),
}

impl Saved {
    fn tag(&self) -> u8 {
        match self {
            Saved::Slice(_) => 1,
            Saved::Bag(_) => 2,
            Saved::Expr(_) => 3,
        }
    }
}

/// How a payload is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    None,
    /// LZ4 (block format, the uncompressed size first).
    Lz4,
}

/// Header flag: the payload is LZ4-compressed.
const FLAG_LZ4: u8 = 1;

/// The largest expansion LZ4 can give (a bound on what a hostile header
/// may make the reader allocate).
const LZ4_MAX_RATIO: u64 = 255;

/// The bytes of `value`, uncompressed.
pub fn dumps(value: &Saved) -> Result<Vec<u8>> {
    dumps_with(value, Compression::None)
}

/// The bytes of `value`, compressed as asked.
pub fn dumps_with(value: &Saved, compression: Compression) -> Result<Vec<u8>> {
    let mut payload = Writer::default();
    let mut ctx = Encoder::default();
    match value {
        Saved::Slice(x) => codec::put_slice(&mut payload, x, &mut ctx)?,
        Saved::Bag(bag) => codec::put_bag(&mut payload, bag, &mut ctx)?,
        Saved::Expr(e) => codec::put_expr(&mut payload, e, &mut ctx)?,
    }
    let (flags, stored) = match compression {
        Compression::None => (0, payload.bytes),
        Compression::Lz4 => (FLAG_LZ4, lz4_flex::compress_prepend_size(&payload.bytes)),
    };
    let mut out = Writer::default();
    out.raw(&MAGIC);
    out.u32(VERSION);
    out.u8(value.tag());
    out.u8(flags);
    out.len(stored.len());
    out.raw(&stored);
    out.u32(crc32fast::hash(&stored));
    Ok(out.bytes)
}

/// The value `bytes` hold.
pub fn loads(bytes: &[u8]) -> Result<Saved> {
    let mut r = Reader::new(bytes);
    if r.take(MAGIC.len()).ok() != Some(&MAGIC[..]) {
        return Err(corrupt("not a plait file (wrong magic bytes)"));
    }
    let version = r.u32()?;
    if version == 0 || version > VERSION {
        return Err(Error::value("kd.loads", format!("unsupported format version {version} (this plait reads versions 1 to {VERSION})")));
    }
    let tag = r.u8()?;
    let flags = r.u8()?;
    if flags & !FLAG_LZ4 != 0 {
        return Err(corrupt(format!("unknown flags {flags:#x}")));
    }
    let len = r.u64()?;
    if len != r.remaining().saturating_sub(4) as u64 || r.remaining() < 4 {
        return Err(corrupt(format!("a payload of {len} bytes in a file of {} bytes", bytes.len())));
    }
    let payload = r.take(len as usize)?;
    let crc = r.u32()?;
    if crc != crc32fast::hash(payload) {
        return Err(corrupt("checksum mismatch (the bytes were changed or cut)"));
    }
    if flags & FLAG_LZ4 == 0 {
        return loads_payload(tag, payload);
    }
    loads_payload(tag, &decompress(payload)?)
}

/// The bytes LZ4 compressed into `compressed` (block format, the
/// uncompressed size first): the compressed payload of a file, or the body
/// of a packed block. The declared size must be one LZ4 can reach from
/// that many bytes, so a hostile size is refused before anything is
/// allocated.
pub(crate) fn decompress(compressed: &[u8]) -> Result<Vec<u8>> {
    let declared = compressed.get(..4).map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")) as u64);
    match declared {
        Some(size) if size <= (compressed.len() as u64).saturating_mul(LZ4_MAX_RATIO) => {}
        _ => return Err(corrupt("a compressed payload with an impossible size")),
    }
    lz4_flex::decompress_size_prepended(compressed).map_err(|e| corrupt(format!("the compressed payload: {e}")))
}

/// The value of a payload whose content tag is `tag` (the part of
/// [`loads`] after the header and checksum checks; the fuzz target drives
/// it directly, so that mutations reach the decoder).
pub fn loads_payload(tag: u8, payload: &[u8]) -> Result<Saved> {
    let mut p = Reader::new(payload);
    let mut ctx = Decoder::default();
    let value = match tag {
        1 => Saved::Slice(codec::get_slice(&mut p, &mut ctx)?),
        2 => Saved::Bag(codec::get_bag(&mut p, &mut ctx)?),
        3 => Saved::Expr(codec::get_expr(&mut p, &mut ctx)?),
        other => return Err(corrupt(format!("unknown content tag {other}"))),
    };
    if p.remaining() != 0 {
        return Err(corrupt(format!("{} bytes left after the value", p.remaining())));
    }
    Ok(value)
}
