//! Little-endian writing and bounds-checked reading of the format's
//! primitives. The reader never trusts a declared size: a count is accepted
//! only if that many elements of at least their minimum size fit in the
//! bytes that remain, so hostile input cannot make it allocate more than
//! the input's own size.

use arrow_buffer::{ArrowNativeType, Buffer, MutableBuffer, ScalarBuffer};
use plait_core::{Error, ErrorKind, Result};

/// The format version this plait writes (and the newest it reads).
pub const VERSION: u32 = 4;

/// The error for bytes that are not a valid plait file.
pub fn corrupt(message: impl std::fmt::Display) -> Error {
    Error::new(ErrorKind::Value, format!("kd.loads: invalid data: {message}"))
}

/// Values transposed to or from byte planes a block at a time, so that
/// the block stays in the first-level cache while each plane takes its byte.
const PLANE_BLOCK: usize = 4096;

/// Bytes being written.
#[derive(Default)]
pub struct Writer {
    pub bytes: Vec<u8>,
}

impl Writer {
    /// A writer with room for `n` bytes (sized right, a large payload is
    /// written into pages touched once, not into a buffer grown by copies).
    pub fn with_capacity(n: usize) -> Writer {
        Writer { bytes: Vec::with_capacity(n) }
    }

    pub fn u8(&mut self, v: u8) {
        self.bytes.push(v);
    }

    pub fn u32(&mut self, v: u32) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }

    pub fn u64(&mut self, v: u64) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }

    pub fn len(&mut self, n: usize) {
        self.u64(n as u64);
    }

    pub fn u128(&mut self, v: u128) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }

    pub fn raw(&mut self, bytes: &[u8]) {
        self.bytes.extend_from_slice(bytes);
    }

    /// A length-prefixed byte string.
    pub fn blob(&mut self, bytes: &[u8]) {
        self.len(bytes.len());
        self.raw(bytes);
    }

    pub fn str(&mut self, s: &str) {
        self.blob(s.as_bytes());
    }

    /// An unsigned LEB128 varint: 7 bits a byte, low bits first.
    pub fn varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.bytes.push(v as u8 | 0x80);
            v >>= 7;
        }
        self.bytes.push(v as u8);
    }

    /// A signed varint, zigzag-coded (small magnitudes take one byte).
    pub fn zigzag(&mut self, v: i64) {
        self.varint(((v << 1) ^ (v >> 63)) as u64);
    }

    /// Values of `W` bytes each (`bytes`, little-endian, as in memory) as
    /// byte planes (version 3): the first byte of every value, then the
    /// second, and so on. The high bytes of small integers, the exponents
    /// of floats and the allocations of ids then stand in long runs that a
    /// compressor shrinks to nothing.
    pub fn planes<const W: usize>(&mut self, bytes: &[u8]) {
        debug_assert_eq!(bytes.len() % W, 0);
        let n = bytes.len() / W;
        let start = self.bytes.len();
        self.bytes.resize(start + bytes.len(), 0);
        let mut planes: Vec<&mut [u8]> = self.bytes[start..].chunks_exact_mut(n.max(1)).collect();
        for (b, values) in bytes.chunks(PLANE_BLOCK * W).enumerate() {
            for (p, plane) in planes.iter_mut().enumerate() {
                let out = &mut plane[b * PLANE_BLOCK..b * PLANE_BLOCK + values.len() / W];
                for (o, value) in out.iter_mut().zip(values.chunks_exact(W)) {
                    *o = value[p];
                }
            }
        }
    }
}

/// Bytes being read, front to back.
pub struct Reader<'a> {
    bytes: &'a [u8],
    /// How many more payload-free elements (MASK items, all-missing
    /// columns, bitmap bits) the input may still declare: eight per input
    /// byte plus [`FREE_ITEMS`], for the whole input, so what they make the
    /// reader build stays proportional to the input's size.
    free_budget: u64,
    /// Nesting of slices in bags in expressions, bounded (no cycles or
    /// stack exhaustion from hostile input).
    pub depth: usize,
    /// The format version of the input (the layouts that changed are read
    /// as that version wrote them).
    pub version: u32,
}

/// The deepest nesting of values accepted.
pub const MAX_DEPTH: usize = 64;

impl<'a> Reader<'a> {
    /// A reader of input in the current version.
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader::of_version(bytes, VERSION)
    }

    pub fn of_version(bytes: &'a [u8], version: u32) -> Reader<'a> {
        Reader { bytes, depth: 0, free_budget: (bytes.len() as u64).saturating_mul(8).saturating_add(FREE_ITEMS), version }
    }

    pub fn remaining(&self) -> usize {
        self.bytes.len()
    }

    pub fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if n > self.bytes.len() {
            return Err(corrupt(format!("truncated: {n} bytes needed, {} left", self.bytes.len())));
        }
        let (head, tail) = self.bytes.split_at(n);
        self.bytes = tail;
        Ok(head)
    }

    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }

    pub fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }

    pub fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }

    pub fn u128(&mut self) -> Result<u128> {
        Ok(u128::from_le_bytes(self.take(16)?.try_into().expect("16 bytes")))
    }

    /// A count of elements each at least `min_size` bytes long, checked
    /// against the bytes left; elements without a payload (`min_size` 0)
    /// are charged to the input's budget of them instead.
    pub fn count(&mut self, min_size: usize, what: &str) -> Result<usize> {
        let n = self.u64()?;
        let fits = if min_size == 0 {
            let fits = n <= self.free_budget;
            if fits {
                self.free_budget -= n;
            }
            fits
        } else {
            n.checked_mul(min_size as u64).is_some_and(|b| b <= self.remaining() as u64)
        };
        if !fits {
            return Err(corrupt(format!("{what}: a count of {n} does not fit in the {} bytes left", self.remaining())));
        }
        Ok(n as usize)
    }

    /// A reader of `bytes` (a part of this input stored compressed) that
    /// carries on this reader's nesting depth and budget of payload-free
    /// elements; [`Self::absorb`] takes them back when it is done.
    pub fn nested<'b>(&self, bytes: &'b [u8]) -> Reader<'b> {
        Reader { bytes, free_budget: self.free_budget, depth: self.depth, version: self.version }
    }

    /// Takes back the budget a [`Self::nested`] reader left.
    pub fn absorb(&mut self, nested: &Reader<'_>) {
        self.free_budget = nested.free_budget;
    }

    /// An unsigned LEB128 varint of at most 64 bits.
    pub fn varint(&mut self) -> Result<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = self.u8()?;
            if shift == 63 && byte > 1 {
                return Err(corrupt("a varint of more than 64 bits"));
            }
            v |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(v);
            }
        }
        unreachable!("the byte at shift 63 ends the varint or is refused")
    }

    /// A zigzag-coded signed varint.
    pub fn zigzag(&mut self) -> Result<i64> {
        let v = self.varint()?;
        Ok((v >> 1) as i64 ^ -((v & 1) as i64))
    }

    /// A varint count of elements each at least `min_size` (> 0) bytes
    /// long, checked against the bytes left (as [`Self::count`]).
    pub fn varint_count(&mut self, min_size: usize, what: &str) -> Result<usize> {
        let n = self.varint()?;
        if n.checked_mul(min_size as u64).is_none_or(|b| b > self.remaining() as u64) {
            return Err(corrupt(format!("{what}: a count of {n} does not fit in the {} bytes left", self.remaining())));
        }
        Ok(n as usize)
    }

    /// `n` values of `W` bytes each (`W` is the size of `T`), as
    /// [`Writer::planes`] wrote them in version 3 and as in memory before.
    pub fn fixed<T: ArrowNativeType, const W: usize>(&mut self, n: usize) -> Result<ScalarBuffer<T>> {
        debug_assert_eq!(W, std::mem::size_of::<T>());
        let bytes = self.take(n.checked_mul(W).ok_or_else(|| corrupt("a column too long"))?)?;
        if self.version < 3 {
            return Ok(ScalarBuffer::new(Buffer::from_slice_ref(bytes), 0, n));
        }
        let mut out = MutableBuffer::from_len_zeroed(n * W);
        for (b, values) in out.as_slice_mut().chunks_mut(PLANE_BLOCK * W).enumerate() {
            let m = values.len() / W;
            for p in 0..W {
                let plane = &bytes[p * n + b * PLANE_BLOCK..][..m];
                for (value, &byte) in values.chunks_exact_mut(W).zip(plane) {
                    value[p] = byte;
                }
            }
        }
        Ok(ScalarBuffer::new(out.into(), 0, n))
    }

    pub fn blob(&mut self) -> Result<&'a [u8]> {
        let n = self.count(1, "byte string")?;
        self.take(n)
    }

    pub fn str(&mut self) -> Result<&'a str> {
        std::str::from_utf8(self.blob()?).map_err(|_| corrupt("a string is not valid UTF-8"))
    }

    /// Enters one level of nesting.
    pub fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(corrupt(format!("values nested deeper than {MAX_DEPTH} levels")));
        }
        Ok(())
    }

    pub fn leave(&mut self) {
        self.depth -= 1;
    }
}

/// Payload-free elements accepted beyond eight per input byte (a slice of
/// a million present MASK items is a few bytes).
pub const FREE_ITEMS: u64 = 1 << 20;
