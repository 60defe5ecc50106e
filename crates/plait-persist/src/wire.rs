//! Little-endian writing and bounds-checked reading of the format's
//! primitives. The reader never trusts a declared size: a count is accepted
//! only if that many elements of at least their minimum size fit in the
//! bytes that remain, so hostile input cannot make it allocate more than
//! the input's own size.

use plait_core::{Error, ErrorKind, Result};

/// The error for bytes that are not a valid plait file.
pub fn corrupt(message: impl std::fmt::Display) -> Error {
    Error::new(ErrorKind::Value, format!("kd.loads: invalid data: {message}"))
}

/// Bytes being written.
#[derive(Default)]
pub struct Writer {
    pub bytes: Vec<u8>,
}

impl Writer {
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
}

/// The deepest nesting of values accepted.
pub const MAX_DEPTH: usize = 64;

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, depth: 0, free_budget: (bytes.len() as u64).saturating_mul(8).saturating_add(FREE_ITEMS) }
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
        Reader { bytes, free_budget: self.free_budget, depth: self.depth }
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
