//! Searching and slicing: `kd.strings.contains`, `count`, `find`, `rfind`,
//! `substr`, `strip`, `lstrip`, `rstrip`, `replace`.
//!
//! Offsets (`find`, `substr`) follow Python's slice rules and count code
//! points for STRING and bytes for BYTES. A substring given as one DataItem is
//! searched with one prepared [`memchr::memmem::Finder`].

use memchr::memmem;
use plait_core::{DataSlice, Error, Result, Schema};

use super::{IntSide, TextSide, char_count, char_starts, clamp_range, finish_int64, finish_text, fixed, prepare_text, text_map, value_map};
use crate::elementwise::Prepared;
use crate::kernel::{build_vec, collect_bits, is_present};
use crate::promote::TypeClass;

/// A needle searched for in every item: prepared once when it is one value.
enum Needle<'a> {
    One(Box<memmem::Finder<'a>>),
    Many(TextSide<'a>),
}

impl<'a> Needle<'a> {
    fn new(side: TextSide<'a>) -> Needle<'a> {
        match side {
            TextSide::One(v) => Needle::One(Box::new(memmem::Finder::new(v))),
            other => Needle::Many(other),
        }
    }

    #[inline]
    fn bytes(&self, i: usize) -> &[u8] {
        match self {
            Needle::One(f) => f.needle(),
            Needle::Many(side) => side.get(i),
        }
    }

    #[inline]
    fn find(&self, i: usize, hay: &[u8]) -> Option<usize> {
        match self {
            Needle::One(f) => f.find(hay),
            Needle::Many(side) => memmem::find(hay, side.get(i)),
        }
    }
}

fn two_text(op: &str, s: &DataSlice, substr: &DataSlice) -> Result<Prepared> {
    // Koda names the text argument `x` in these errors.
    prepare_text(op, &[("x", s), ("substr", substr)], TypeClass::Text, &[])
}

/// A bitmap of `pred` over `n` items, split across threads by items (the
/// per-item work of text predicates is large).
pub(crate) fn parallel_bits(n: usize, pred: impl Fn(usize) -> bool + Sync) -> arrow_buffer::BooleanBuffer {
    if n < crate::kernel::PARALLEL_MIN {
        return collect_bits(n, pred);
    }
    let flags: Vec<bool> = build_vec(n, |out| out.write_all(out.range().map(&pred)));
    arrow_buffer::BooleanBuffer::from(flags)
}

/// Present where `s` contains `substr`.
pub fn contains(s: &DataSlice, substr: &DataSlice) -> Result<DataSlice> {
    let op = "kd.strings.contains";
    let p = two_text(op, s, substr)?;
    if p.all_missing() {
        return Ok(DataSlice::missing(p.shape.clone(), Schema::Mask));
    }
    let hay = TextSide::of(&p.operands[0]);
    let needle = Needle::new(TextSide::of(&p.operands[1]));
    let presence = p.presence();
    let bits = match (&hay, &needle) {
        (TextSide::Many(v), Needle::One(f)) if !f.needle().is_empty() => {
            // One pass of the searcher over the whole byte buffer; each match
            // marks the item it falls in when it does not cross its end.
            let (offsets, data, width) = (&v.offsets[..], v.data.as_slice(), f.needle().len());
            let mut hits = vec![false; v.len()];
            let (mut pos, mut item) = (offsets[0] as usize, 0usize);
            let end = offsets[v.len()] as usize;
            while let Some(k) = f.find(&data[pos..end]) {
                let m = pos + k;
                while offsets[item + 1] as usize <= m {
                    item += 1;
                }
                if m + width <= offsets[item + 1] as usize {
                    hits[item] = true;
                    pos = offsets[item + 1] as usize;
                } else {
                    pos = m + 1;
                }
            }
            let presence = presence.as_ref();
            collect_bits(v.len(), |i| hits[i] && is_present(presence, i))
        }
        _ => parallel_bits(p.len(), |i| is_present(presence.as_ref(), i) && needle.find(i, hay.get(i)).is_some()),
    };
    crate::masking::mask_from_bits(&p.shape, bits)
}

/// Number of (possibly overlapping) occurrences of `substr` in `s`; an empty
/// `substr` occurs once per code point (byte for BYTES) plus once.
pub fn count(s: &DataSlice, substr: &DataSlice) -> Result<DataSlice> {
    let op = "kd.strings.count";
    let p = two_text(op, s, substr)?;
    let p = Prepared { promotion: fixed(p.promotion), ..p };
    if p.all_missing() {
        return Ok(p.missing(Schema::Int64));
    }
    let is_string = p.dtype() == Schema::String;
    let hay = TextSide::of(&p.operands[0]);
    let needle = Needle::new(TextSide::of(&p.operands[1]));
    let presence = p.presence();
    let out = value_map(p.len(), presence.as_ref(), |i| {
        let h = hay.get(i);
        if needle.bytes(i).is_empty() {
            return Some(if is_string { char_count(h) } else { h.len() } as i64 + 1);
        }
        let mut n = 0i64;
        let mut pos = 0;
        while let Some(k) = needle.find(i, &h[pos..]) {
            n += 1;
            pos += k + 1;
        }
        Some(n)
    });
    finish_int64(&p, out)
}

/// Offset of the first occurrence of `substr` in `s[start:end]` (Python's
/// `str.find`, missing where not found).
pub fn find(s: &DataSlice, substr: &DataSlice, start: &DataSlice, end: &DataSlice) -> Result<DataSlice> {
    find_impl("kd.strings.find", s, substr, start, end, false)
}

/// Offset of the last occurrence of `substr` in `s[start:end]`.
pub fn rfind(s: &DataSlice, substr: &DataSlice, start: &DataSlice, end: &DataSlice) -> Result<DataSlice> {
    find_impl("kd.strings.rfind", s, substr, start, end, true)
}

fn find_impl(op: &str, s: &DataSlice, substr: &DataSlice, start: &DataSlice, end: &DataSlice, last: bool) -> Result<DataSlice> {
    let p = prepare_text(op, &[("x", s), ("substr", substr)], TypeClass::Text, &[("start", start), ("end", end)])?;
    let p = Prepared { promotion: fixed(p.promotion), ..p };
    if p.operands[0].column.is_none() || p.operands[1].column.is_none() {
        return Ok(p.missing(Schema::Int64));
    }
    let is_string = p.dtype() == Schema::String;
    let hay = TextSide::of(&p.operands[0]);
    let needle = Needle::new(TextSide::of(&p.operands[1]));
    let (starts, ends) = (IntSide::of(&p.operands[2]), IntSide::of(&p.operands[3]));
    let presence = crate::kernel::and_presence(p.operands[0].presence(), p.operands[1].presence());
    let out = value_map(p.len(), presence.as_ref(), |i| {
        let h = hay.get(i);
        let sub = needle.bytes(i);
        let ascii = !is_string || h.is_ascii();
        let len = if ascii { h.len() } else { char_count(h) };
        let len_i = len as i64;
        // Python's rules: a start past the end finds nothing, even ''.
        let st = match starts.get(i) {
            Some(v) if v < 0 => (v + len_i).max(0),
            Some(v) => v,
            None => 0,
        };
        if st > len_i {
            return None;
        }
        let (st, en) = clamp_range(len, Some(st), ends.get(i));
        if st > en {
            return None;
        }
        let (bs, be, cs) = if ascii {
            (st, en, None)
        } else {
            let cs = char_starts(h);
            (cs[st], cs[en], Some(cs))
        };
        let window = &h[bs..be];
        let found = if last { memmem::rfind(window, sub) } else { needle.find(i, window) }?;
        let byte = bs + found;
        Some(match cs {
            None => byte as i64,
            Some(cs) => cs.partition_point(|&b| b < byte) as i64,
        })
    });
    finish_int64(&p, out)
}

/// `x[start:end]` with Python's slice rules, by code points for STRING and by
/// bytes for BYTES.
pub fn substr(x: &DataSlice, start: &DataSlice, end: &DataSlice) -> Result<DataSlice> {
    let op = "kd.strings.substr";
    let p = prepare_text(op, &[("x", x)], TypeClass::Text, &[("start", start), ("end", end)])?;
    if p.operands[0].column.is_none() {
        return Ok(p.missing(p.dtype()));
    }
    let is_string = p.dtype() == Schema::String;
    let text = TextSide::of(&p.operands[0]);
    let (starts, ends) = (IntSide::of(&p.operands[1]), IntSide::of(&p.operands[2]));
    let out = text_map(p.len(), p.operands[0].presence(), 0, |i, out| {
        let h = text.get(i);
        if !is_string || h.is_ascii() {
            let (s, e) = clamp_range(h.len(), starts.get(i), ends.get(i));
            if s < e {
                out.extend_from_slice(&h[s..e]);
            }
        } else {
            let cs = char_starts(h);
            let (s, e) = clamp_range(cs.len() - 1, starts.get(i), ends.get(i));
            if s < e {
                out.extend_from_slice(&h[cs[s]..cs[e]]);
            }
        }
        true
    });
    finish_text(&p, p.dtype(), out)
}

/// Which sides [`strip_impl`] strips.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sides {
    Both,
    Left,
    Right,
}

/// `s` without leading and trailing whitespace (or characters of `chars`).
pub fn strip(s: &DataSlice, chars: &DataSlice) -> Result<DataSlice> {
    strip_impl("kd.strings.strip", s, chars, Sides::Both)
}

/// `s` without leading whitespace (or characters of `chars`).
pub fn lstrip(s: &DataSlice, chars: &DataSlice) -> Result<DataSlice> {
    strip_impl("kd.strings.lstrip", s, chars, Sides::Left)
}

/// `s` without trailing whitespace (or characters of `chars`).
pub fn rstrip(s: &DataSlice, chars: &DataSlice) -> Result<DataSlice> {
    strip_impl("kd.strings.rstrip", s, chars, Sides::Right)
}

/// C's `isspace` on bytes: space, `\t`, `\n`, `\v`, `\f`, `\r`.
#[inline]
pub(crate) fn is_c_space(b: u8) -> bool {
    b == b' ' || (b'\t'..=b'\r').contains(&b)
}

fn strip_impl(op: &str, s: &DataSlice, chars: &DataSlice, sides: Sides) -> Result<DataSlice> {
    let p = prepare_text(op, &[("s", s), ("chars", chars)], TypeClass::Text, &[])?;
    if p.operands[0].column.is_none() {
        return Ok(p.missing(p.dtype()));
    }
    let is_string = p.dtype() == Schema::String;
    let text = TextSide::of(&p.operands[0]);
    let set_side = TextSide::of(&p.operands[1]);
    let chars_op = &p.operands[1];
    let one_set: Option<Vec<char>> = match set_side {
        TextSide::One(v) if is_string => Some(String::from_utf8_lossy(v).chars().collect()),
        _ => None,
    };
    let (left, right) = (sides != Sides::Right, sides != Sides::Left);
    let out = text_map(p.len(), p.operands[0].presence(), 0, |i, out| {
        let h = text.get(i);
        let set = chars_op.is_present(i).then(|| set_side.get(i));
        if is_string {
            let t = std::str::from_utf8(h).unwrap_or_default();
            let r = match set {
                None => match (left, right) {
                    (true, true) => t.trim(),
                    (true, false) => t.trim_start(),
                    _ => t.trim_end(),
                },
                Some(set) => {
                    let owned;
                    let set: &[char] = match &one_set {
                        Some(v) => v,
                        None => {
                            owned = String::from_utf8_lossy(set).chars().collect::<Vec<char>>();
                            &owned
                        }
                    };
                    let mut r = t;
                    if left {
                        r = r.trim_start_matches(set);
                    }
                    if right {
                        r = r.trim_end_matches(set);
                    }
                    r
                }
            };
            out.extend_from_slice(r.as_bytes());
        } else {
            let keep = |b: &u8| match set {
                None => !is_c_space(*b),
                Some(set) => !set.contains(b),
            };
            let from = if left { h.iter().position(keep).unwrap_or(h.len()) } else { 0 };
            let to = if right { h.iter().rposition(keep).map_or(from, |k| k + 1) } else { h.len() };
            out.extend_from_slice(&h[from..to.max(from)]);
        }
        true
    });
    finish_text(&p, p.dtype(), out)
}

/// `s` with up to `max_subs` occurrences of `old` replaced by
/// `new` (all when `max_subs` is missing or negative), as Python's
/// `str.replace`.
pub fn replace(s: &DataSlice, old: &DataSlice, new: &DataSlice, max_subs: &DataSlice) -> Result<DataSlice> {
    let op = "kd.strings.replace";
    let p = prepare_text(op, &[("s", s), ("old", old), ("new", new)], TypeClass::Text, &[("max_subs", max_subs)])?;
    if p.operands[..3].iter().any(|o| o.column.is_none()) {
        return Ok(p.missing(text_type_of(s, p.dtype())));
    }
    let is_string = p.dtype() == Schema::String;
    let text = TextSide::of(&p.operands[0]);
    let needle = Needle::new(TextSide::of(&p.operands[1]));
    let with = TextSide::of(&p.operands[2]);
    let limits = IntSide::of(&p.operands[3]);
    let presence = p.operands[..3].iter().fold(None, |acc, o| crate::kernel::and_presence(acc.as_ref(), o.presence()));
    let hint = match text {
        TextSide::Many(v) => v.data.len(),
        _ => 0,
    };
    let too_large = std::sync::atomic::AtomicBool::new(false);
    let out = text_map(p.len(), presence.as_ref(), hint, |i, out| {
        let h = text.get(i);
        let new = with.get(i);
        let mut budget = match limits.get(i) {
            Some(m) if m >= 0 => m as usize,
            _ => usize::MAX,
        };
        // The most this item can grow to, reserved up front when large, so
        // that a replacement blowing up past memory is an error, not an abort.
        let matches = (h.len() / needle.bytes(i).len().max(1)).saturating_add(1).min(budget);
        let bound = h.len().saturating_add(matches.saturating_mul(new.len()));
        if bound > LARGE_TEXT && out.try_reserve(bound).is_err() {
            too_large.store(true, std::sync::atomic::Ordering::Relaxed);
            return false;
        }
        if needle.bytes(i).is_empty() {
            // Before every code point (byte) and at the end.
            let mut pos = 0;
            while pos < h.len() {
                if budget == 0 {
                    break;
                }
                out.extend_from_slice(new);
                budget -= 1;
                let step = if is_string { utf8_width(h[pos]) } else { 1 };
                out.extend_from_slice(&h[pos..(pos + step).min(h.len())]);
                pos += step;
            }
            if pos >= h.len() && budget > 0 {
                out.extend_from_slice(new);
            }
            out.extend_from_slice(&h[pos.min(h.len())..]);
            return true;
        }
        let width = needle.bytes(i).len();
        let mut pos = 0;
        while budget > 0 {
            match needle.find(i, &h[pos..]) {
                Some(k) => {
                    out.extend_from_slice(&h[pos..pos + k]);
                    out.extend_from_slice(new);
                    pos += k + width;
                    budget -= 1;
                }
                None => break,
            }
        }
        out.extend_from_slice(&h[pos..]);
        true
    });
    if too_large.into_inner() {
        return Err(Error::value(op, "the result is more text than this machine can allocate"));
    }
    finish_text(&p, p.dtype(), out)
}

/// Bytes of one text result past which [`replace`] reserves its upper bound first.
const LARGE_TEXT: usize = 1 << 26;

/// The type of an all-missing result: NONE when `s` itself has no text type
/// (Koda keeps the type of `s`), else the common text type.
fn text_type_of(s: &DataSlice, common: Schema) -> Schema {
    if s.schema() == Schema::None { Schema::None } else { common }
}

/// Bytes of the UTF-8 sequence that starts with `b`.
#[inline]
fn utf8_width(b: u8) -> usize {
    match b {
        0..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xff => 4,
        _ => 1,
    }
}
