//! Little-endian writing and bounds-checked reading of the format's
//! primitives. The reader never trusts a declared size: a count is accepted
//! only if that many elements of at least their minimum size fit in the
//! bytes that remain, so hostile input cannot make it allocate more than
//! the input's own size.

use plait_core::{Error, ErrorKind, Result};

/// The error for bytes that are not a valid plait file.
pub fn corrupt(message: impl std::fmt::Display) -> Error {
    Error { kind: ErrorKind::Value, message: format!("kd.loads: invalid data: {message}") }
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
