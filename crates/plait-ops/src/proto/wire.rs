//! The protobuf wire format: varints, tags, fixed-width values and
//! length-delimited runs, read from a byte slice and written to a buffer.

/// Wire types.
pub const VARINT: u32 = 0;
pub const FIXED64: u32 = 1;
pub const LEN: u32 = 2;
pub const START_GROUP: u32 = 3;
pub const END_GROUP: u32 = 4;
pub const FIXED32: u32 = 5;

/// A reader over one message's bytes; every read fails (None) on truncated
/// or malformed input.
pub struct Reader<'a> {
    pub data: &'a [u8],
    pub pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8]) -> Reader<'a> {
        Reader { data, pos: 0 }
    }

    #[inline]
    pub fn done(&self) -> bool {
        self.pos >= self.data.len()
    }

    #[inline]
    pub fn varint(&mut self) -> Option<u64> {
        let mut value = 0u64;
        for shift in (0..70).step_by(7) {
            let &b = self.data.get(self.pos)?;
            self.pos += 1;
            if shift == 63 && b > 1 {
                return None;
            }
            value |= ((b & 0x7f) as u64) << shift;
            if b < 0x80 {
                return Some(value);
            }
        }
        None
    }

    /// A field's number and wire type.
    #[inline]
    pub fn tag(&mut self) -> Option<(u32, u32)> {
        let t = self.varint()?;
        let number = t >> 3;
        if number == 0 || number > (1 << 29) - 1 {
            return None;
        }
        Some((number as u32, (t & 7) as u32))
    }

    #[inline]
    pub fn fixed32(&mut self) -> Option<u32> {
        let b = self.data.get(self.pos..self.pos + 4)?;
        self.pos += 4;
        Some(u32::from_le_bytes(b.try_into().ok()?))
    }

    #[inline]
    pub fn fixed64(&mut self) -> Option<u64> {
        let b = self.data.get(self.pos..self.pos + 8)?;
        self.pos += 8;
        Some(u64::from_le_bytes(b.try_into().ok()?))
    }

    #[inline]
    pub fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = usize::try_from(self.varint()?).ok()?;
        let end = self.pos.checked_add(n)?;
        let b = self.data.get(self.pos..end)?;
        self.pos = end;
        Some(b)
    }

    /// Skips a field of `wire` type whose tag was read (`number` closes a group).
    pub fn skip(&mut self, number: u32, wire: u32, depth: usize) -> Option<()> {
        match wire {
            VARINT => self.varint().map(|_| ()),
            FIXED64 => self.fixed64().map(|_| ()),
            FIXED32 => self.fixed32().map(|_| ()),
            LEN => self.bytes().map(|_| ()),
            START_GROUP => {
                if depth > 100 {
                    return None;
                }
                loop {
                    let (n, w) = self.tag()?;
                    if w == END_GROUP {
                        return (n == number).then_some(());
                    }
                    self.skip(n, w, depth + 1)?;
                }
            }
            _ => None,
        }
    }
}

#[inline]
pub fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

#[inline]
pub fn put_tag(out: &mut Vec<u8>, number: u32, wire: u32) {
    put_varint(out, ((number as u64) << 3) | wire as u64);
}

#[inline]
pub fn put_len(out: &mut Vec<u8>, number: u32, bytes: &[u8]) {
    put_tag(out, number, LEN);
    put_varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

#[inline]
pub fn zigzag32(v: i32) -> u64 {
    ((v << 1) ^ (v >> 31)) as u32 as u64
}

#[inline]
pub fn zigzag64(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

#[inline]
pub fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip() {
        for v in [0u64, 1, 127, 128, 300, u32::MAX as u64, u64::MAX] {
            let mut out = vec![];
            put_varint(&mut out, v);
            assert_eq!(Reader::new(&out).varint(), Some(v));
        }
        assert_eq!(Reader::new(&[0x80]).varint(), None);
        assert_eq!(unzigzag(zigzag64(-5)), -5);
        assert_eq!(unzigzag(zigzag32(-5)) as i32, -5);
    }
}
