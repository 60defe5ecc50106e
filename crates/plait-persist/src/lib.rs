//! plait's binary format (docs/format.md): DataSlices with their bags,
//! DataBags, expressions and functors (which are DataSlices) to bytes and
//! back.
//!
//! A file is a header (magic, version, what it holds, payload length), the
//! payload, and a CRC-32 of the payload. Loading checks all three before
//! decoding, and decoding validates every count, offset, reference and
//! operator: truncated, corrupted or hostile bytes give an error, never a
//! panic or an allocation larger than the input (for a compressed payload,
//! than the codec's largest expansion of it: see [`compress`]). Python
//! code is never saved: py_fn functors and Python-function operators are
//! refused.
//!
//! * [`wire`] — bounds-checked primitives.
//! * [`codec`] — the values.
//! * [`compress`] — zstd and LZ4 payloads.

pub mod codec;
pub mod compress;
pub mod wire;

use plait_core::{DataBag, DataSlice, Error, JaggedShape, Result};
use plait_expr::{Expr, ExprValue};

use crate::codec::{Decoder, Encoder};
use crate::wire::{Reader, Writer, corrupt};

/// The first bytes of every file.
pub const MAGIC: [u8; 8] = *b"\x89PLAIT\r\n";

pub use crate::wire::VERSION;

/// What a file holds.
#[derive(Clone, Debug)]
pub enum Saved {
    Slice(DataSlice),
    Bag(DataBag),
    Expr(Expr),
    /// A shape (since version 4).
    Shape(JaggedShape),
    /// An extension type's value (since version 4; an `ObjectValue`).
    Extension(ExprValue),
}

impl Saved {
    fn tag(&self) -> u8 {
        match self {
            Saved::Slice(_) => 1,
            Saved::Bag(_) => 2,
            Saved::Expr(_) => 3,
            Saved::Shape(_) => 4,
            Saved::Extension(_) => 5,
        }
    }

    /// Whether the bag saved is mutable (so that it loads mutable, as in
    /// Koda).
    fn mutable(&self) -> bool {
        match self {
            Saved::Slice(x) => x.bag().is_some_and(DataBag::is_mutable),
            Saved::Bag(bag) => bag.is_mutable(),
            _ => false,
        }
    }

    /// This value with its bag mutable (a fork of the loaded one).
    fn made_mutable(self) -> Saved {
        match self {
            Saved::Slice(x) => {
                let bag = x.bag().map(|bag| bag.fork(true));
                Saved::Slice(x.with_bag(bag))
            }
            Saved::Bag(bag) => Saved::Bag(bag.fork(true)),
            other => other,
        }
    }
}

/// How a payload is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    None,
    /// LZ4 (block format, the uncompressed size first).
    Lz4,
    /// zstd, in independently compressed chunks ([`compress`]): what
    /// `kd.dumps` writes by default.
    Zstd,
}

/// Header flag: the payload is LZ4-compressed.
const FLAG_LZ4: u8 = 1;

/// Header flag: the payload is zstd-compressed (since version 3).
const FLAG_ZSTD: u8 = 2;

/// Header flag: the bag saved was mutable, and loads mutable (since
/// version 4).
const FLAG_MUTABLE: u8 = 4;

/// The bytes of `value`, uncompressed (pickles, which favour speed).
pub fn dumps(value: &Saved) -> Result<Vec<u8>> {
    dumps_with(value, Compression::None)
}

/// The bytes of `value`, compressed as asked.
pub fn dumps_with(value: &Saved, compression: Compression) -> Result<Vec<u8>> {
    // The payload is written after room for the header, so that an
    // uncompressed file is never copied; the header follows once the
    // payload's length is known.
    let estimate = match value {
        Saved::Slice(x) => codec::estimated_size(x),
        _ => 0,
    };
    let mut payload = Writer::with_capacity(HEADER + estimate + TRAILER);
    payload.raw(&[0; HEADER]);
    let mut ctx = Encoder::default();
    match value {
        Saved::Slice(x) => codec::put_slice(&mut payload, x, &mut ctx)?,
        Saved::Bag(bag) => codec::put_bag(&mut payload, bag, &mut ctx)?,
        Saved::Expr(e) => codec::put_expr(&mut payload, e, &mut ctx)?,
        Saved::Shape(shape) => codec::put_shape(&mut payload, shape),
        Saved::Extension(v) => codec::put_expr_value(&mut payload, v, &mut ctx)?,
    }
    let (flags, mut out) = match compression {
        Compression::None => (0, payload.bytes),
        Compression::Lz4 => (FLAG_LZ4, [&[0; HEADER][..], &compress::lz4_compress(&payload.bytes[HEADER..])].concat()),
        Compression::Zstd => {
            let mut out = Vec::with_capacity(HEADER + payload.bytes.len() / 2);
            out.extend_from_slice(&[0; HEADER]);
            compress::zstd_compress(&payload.bytes[HEADER..], &mut out)?;
            (FLAG_ZSTD, out)
        }
    };
    let stored_len = out.len() - HEADER;
    let mut header = Writer::with_capacity(HEADER);
    header.raw(&MAGIC);
    header.u32(VERSION);
    header.u8(value.tag());
    header.u8(if value.mutable() { flags | FLAG_MUTABLE } else { flags });
    header.len(stored_len);
    out[..HEADER].copy_from_slice(&header.bytes);
    let crc = crc32fast::hash(&out[HEADER..]);
    out.extend_from_slice(&crc.to_le_bytes());
    Ok(out)
}

/// The bytes before the payload: magic, version, content tag, flags and
/// the payload's length.
const HEADER: usize = MAGIC.len() + 4 + 1 + 1 + 8;

/// The bytes after the payload: its checksum.
const TRAILER: usize = 4;

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
    let known = match version {
        4.. => FLAG_LZ4 | FLAG_ZSTD | FLAG_MUTABLE,
        3 => FLAG_LZ4 | FLAG_ZSTD,
        _ => FLAG_LZ4,
    };
    if flags & !known != 0 || flags & (FLAG_LZ4 | FLAG_ZSTD) == FLAG_LZ4 | FLAG_ZSTD {
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
    let value = match flags & (FLAG_LZ4 | FLAG_ZSTD) {
        FLAG_LZ4 => loads_payload(version, tag, &compress::lz4_decompress(payload)?)?,
        FLAG_ZSTD => loads_payload(version, tag, &compress::zstd_decompress(payload)?)?,
        _ => loads_payload(version, tag, payload)?,
    };
    Ok(if flags & FLAG_MUTABLE != 0 { value.made_mutable() } else { value })
}

/// The value of a payload of format `version` whose content tag is `tag`
/// (the part of [`loads`] after the header and checksum checks; the fuzz
/// target drives it directly, so that mutations reach the decoder).
pub fn loads_payload(version: u32, tag: u8, payload: &[u8]) -> Result<Saved> {
    let mut p = Reader::of_version(payload, version);
    let mut ctx = Decoder::default();
    let value = match tag {
        1 => Saved::Slice(codec::get_slice(&mut p, &mut ctx)?),
        2 => Saved::Bag(codec::get_bag(&mut p, &mut ctx)?),
        3 => Saved::Expr(codec::get_expr(&mut p, &mut ctx)?),
        4 if version >= 4 => Saved::Shape(codec::get_shape(&mut p)?),
        5 if version >= 4 => match codec::get_expr_value(&mut p, &mut ctx)? {
            v @ ExprValue::Foreign(_) if plait_expr::extension::ObjectValue::of(&v).is_some() => Saved::Extension(v),
            _ => return Err(corrupt("the value of an extension type is not an object")),
        },
        other => return Err(corrupt(format!("unknown content tag {other}"))),
    };
    if p.remaining() != 0 {
        return Err(corrupt(format!("{} bytes left after the value", p.remaining())));
    }
    Ok(value)
}
