//! `kd.strings`: operators over STRING and BYTES items.
//!
//! ```text
//! VarBinary column   offsets: [0, 3, 3, 5]   data: b"abcde"
//!                    items:   "abc", "" (missing), "de"
//! ```
//!
//! Kernels read the offsets and bytes of the input columns directly and write
//! the output column's offsets and bytes in one pass ([`text_map`]), split
//! across threads above [`crate::kernel::PARALLEL_MIN`] items. STRING items
//! are indexed by code points, BYTES items by bytes; ASCII-only data takes fast
//! paths where the two agree.
//!
//! Modules, one per family: [`case`] (length, upper, lower), [`search`]
//! (contains, count, find, substr, strip, replace), [`split_join`] (join,
//! split, agg_join), [`codec`] (encode, decode, base64), [`regex`], [`format`]
//! (format, printf, fstr).

pub mod case;
pub mod codec;
pub mod format;
pub mod regex;
pub mod search;
pub mod split_join;
mod types;

use arrow_buffer::{BooleanBuffer, NullBuffer, ScalarBuffer};
use plait_core::column::VarBinary;
use plait_core::{Column, DataSlice, Error, Result, Schema, SliceData, Values};

use crate::elementwise::{Operand, Prepared, prepare_each};
use crate::promote::{Promotion, TypeClass, data_type, promote_text};
use crate::registry::Registry;

pub use case::{length, lower, upper};
pub use codec::{decode, decode_base64, encode, encode_base64};
pub use format::{format, fstr, printf};
pub(crate) use plait_core::text_map::text_map;
pub use regex::{regex_extract, regex_find_all, regex_match, regex_replace_all};
pub use search::{contains, count, find, lstrip, replace, rfind, rstrip, strip, substr};
pub use split_join::{agg_join, join, split};

/// Prepares an operator's text arguments (`text`, checked against
/// `class` and promoted with [`promote_text`]) and integer arguments (`ints`,
/// read as INT64), broadcast to one shape.
pub(crate) fn prepare_text(op: &str, text: &[(&str, &DataSlice)], class: TypeClass, ints: &[(&str, &DataSlice)]) -> Result<Prepared> {
    let promotion = promote_text(op, text, class)?;
    for (name, x) in ints {
        data_type(op, name, x, TypeClass::Integer)?;
    }
    let args: Vec<(&str, &DataSlice)> = text.iter().chain(ints).copied().collect();
    let mut dtypes = vec![promotion.dtype; text.len()];
    dtypes.extend(std::iter::repeat_n(Schema::Int64, ints.len()));
    prepare_each(op, &args, &dtypes, promotion)
}

/// A text operand's values (STRING or BYTES column), if any is present.
pub(crate) fn text_of(o: &Operand) -> Option<&VarBinary> {
    match &o.column.as_ref()?.values {
        Values::String(v) | Values::Bytes(v) => Some(v),
        _ => None,
    }
}

/// One side of a text kernel: a value per item, or one value for all.
#[derive(Clone, Copy)]
pub(crate) enum TextSide<'a> {
    Many(&'a VarBinary),
    One(&'a [u8]),
    /// No item is present.
    Absent,
}

impl<'a> TextSide<'a> {
    pub(crate) fn of(o: &'a Operand) -> TextSide<'a> {
        match text_of(o) {
            None => TextSide::Absent,
            Some(v) if o.is_item => TextSide::One(v.value(0)),
            Some(v) => TextSide::Many(v),
        }
    }

    #[inline(always)]
    pub(crate) fn get(&self, i: usize) -> &'a [u8] {
        match self {
            TextSide::Many(v) => v.value(i),
            TextSide::One(v) => v,
            TextSide::Absent => b"",
        }
    }
}

/// One side of an integer argument (read as INT64); `None` where missing.
#[derive(Clone, Copy)]
pub(crate) struct IntSide<'a> {
    values: Option<&'a [i64]>,
    presence: Option<&'a NullBuffer>,
    is_item: bool,
}

impl<'a> IntSide<'a> {
    pub(crate) fn of(o: &'a Operand) -> IntSide<'a> {
        let values = o.column.as_ref().and_then(|c| match &c.values {
            Values::Int64(v) => Some(&v[..]),
            _ => None,
        });
        IntSide { values, presence: o.column.as_ref().and_then(|c| c.presence.as_ref()), is_item: o.is_item }
    }

    #[inline(always)]
    pub(crate) fn get(&self, i: usize) -> Option<i64> {
        let values = self.values?;
        let i = if self.is_item { 0 } else { i };
        crate::kernel::is_present(self.presence, i).then(|| values[i])
    }
}

/// Python's slice bounds: `start`/`end` (negative from the end, missing =
/// the whole value) clamped to `0..=len`.
#[inline]
pub(crate) fn clamp_range(len: usize, start: Option<i64>, end: Option<i64>) -> (usize, usize) {
    let len_i = len as i64;
    let fix = |v: i64| {
        if v < 0 { (v + len_i).max(0) } else { v.min(len_i) }
    };
    let s = start.map_or(0, fix) as usize;
    let e = end.map_or(len_i, fix) as usize;
    (s, e)
}

/// Byte offset of each of the first `n` code points (and the end), for
/// character indexing of a non-ASCII STRING value.
pub(crate) fn char_starts(s: &[u8]) -> Vec<usize> {
    let mut out: Vec<usize> = s.iter().enumerate().filter(|(_, b)| (**b as i8) >= -0x40).map(|(i, _)| i).collect();
    out.push(s.len());
    out
}

/// Number of code points of UTF-8 text.
#[inline]
pub(crate) fn char_count(s: &[u8]) -> usize {
    s.iter().filter(|b| (**b as i8) >= -0x40).count()
}

/// One value of type `R` per item (`None` = missing), for items present
/// under `presence`; in parallel for large `n`.
pub(crate) fn value_map<R: Copy + Default + Send + Sync>(
    n: usize,
    presence: Option<&NullBuffer>,
    f: impl Fn(usize) -> Option<R> + Sync,
) -> (Vec<R>, Option<NullBuffer>) {
    let pairs: Vec<(R, bool)> = crate::kernel::build_vec(n, |out| {
        out.write_all(out.range().map(|i| {
            let v = if crate::kernel::is_present(presence, i) { f(i) } else { None };
            v.map_or((R::default(), false), |v| (v, true))
        }));
    });
    let bits = BooleanBuffer::collect_bool(n, |i| pairs[i].1);
    let values = pairs.into_iter().map(|p| p.0).collect();
    let presence = NullBuffer::new(bits);
    (values, (presence.null_count() > 0).then_some(presence))
}

/// The result of a text kernel, typed `dtype` (STRING or BYTES), with the
/// schema the promotion gives (OBJECT for OBJECT inputs).
pub(crate) fn finish_text(p: &Prepared, dtype: Schema, out: (VarBinary, Option<NullBuffer>)) -> Result<DataSlice> {
    let (values, presence) = out;
    let values = if dtype == Schema::Bytes { Values::Bytes(values) } else { Values::String(values) };
    p.finish(values, presence)
}

/// The result of an INT64 kernel (schema INT64 whatever the inputs).
pub(crate) fn finish_int64(p: &Prepared, out: (Vec<i64>, Option<NullBuffer>)) -> Result<DataSlice> {
    let column = Column::new(Values::Int64(ScalarBuffer::from(out.0)), out.1);
    let data = SliceData::from_column(column);
    DataSlice::new(p.shape.clone(), data, Schema::Int64)
}

/// The error of an operator whose argument must be a DataItem.
pub(crate) fn expect_rank0(op: &str, arg: &str, x: &DataSlice) -> Result<()> {
    if x.is_item() { Ok(()) } else { Err(Error::value(op, format!("expected rank({arg}) == 0"))) }
}

/// The promotion of an operator with a fixed output type.
pub(crate) fn fixed(promotion: Promotion) -> Promotion {
    Promotion { object: false, ..promotion }
}

pub(crate) fn register(r: &mut Registry) {
    r.add(
        "kd.strings.length",
        &[],
        "x",
        r#"Returns a DataSlice of lengths in bytes for Byte or codepoints for String.

The result is INT64; missing items stay missing.

Args:
  x: a DataSlice of strings or bytes.

Examples:
  >>> kd.strings.length(kd.slice(['abc', 'héllo', '', None]))
  DataSlice([3, 5, 0, None], schema: INT64, present: 3/4)
  >>> kd.strings.length(kd.slice([b'h\xc3\xa9llo']))
  DataSlice([6], schema: INT64, present: 1/1)"#,
        |a| length(a.slice("x")?),
    );
    r.add(
        "kd.strings.upper",
        &[],
        "x",
        r#"Returns a DataSlice with the uppercase version of each string in the input.

Uppercasing follows Unicode rules (a character may become several, as ß
becomes SS); x must be STRING (BYTES raise a ValueError). Missing items stay
missing.

Args:
  x: a DataSlice of strings.

Examples:
  >>> kd.strings.upper(kd.slice(['Hello', 'straße', None]))
  DataSlice(['HELLO', 'STRASSE', None], schema: STRING, present: 2/3)"#,
        |a| upper(a.slice("x")?),
    );
    r.add(
        "kd.strings.lower",
        &[],
        "x",
        r#"Returns a DataSlice with the lowercase version of each string in the input.

Lowercasing follows Unicode rules; x must be STRING (BYTES raise a
ValueError). Missing items stay missing.

Args:
  x: a DataSlice of strings.

Examples:
  >>> kd.strings.lower(kd.slice(['Hello', 'ÉCOLE', None]))
  DataSlice(['hello', 'école', None], schema: STRING, present: 2/3)"#,
        |a| lower(a.slice("x")?),
    );
    r.add(
        "kd.strings.contains",
        &[],
        "s, substr",
        r#"Returns present iff `s` contains `substr`.

s and substr broadcast against each other; the result is a MASK, missing
where s or substr is missing. Every string contains the empty string.

Args:
  s: strings or bytes to search in.
  substr: strings or bytes to look for (of the same kind as s).

Examples:
  >>> kd.strings.contains(kd.slice(['apple', 'banana', None]), 'an')
  DataSlice([missing, present, missing], schema: MASK, present: 1/3)
  >>> kd.strings.contains(kd.slice(['apple', 'banana']), kd.slice(['pl', 'x']))
  DataSlice([present, missing], schema: MASK, present: 1/2)"#,
        |a| contains(a.slice("s")?, a.slice("substr")?),
    );
    r.add(
        "kd.strings.count",
        &[],
        "s, substr",
        r#"Counts the number of occurrences of `substr` in `s`.

Occurrences may overlap ('aa' occurs 3 times in 'aaaa'), and the empty
string occurs once more than the length of s. The result is INT64, missing
where s or substr is missing.

Args:
  s: strings or bytes to search in.
  substr: strings or bytes to count (of the same kind as s).

Examples:
  >>> kd.strings.count(kd.slice(['banana', 'apple', None]), 'a')
  DataSlice([3, 1, None], schema: INT64, present: 2/3)
  >>> kd.strings.count(kd.slice(['aaaa']), 'aa')
  DataSlice([3], schema: INT64, present: 1/1)"#,
        |a| count(a.slice("s")?, a.slice("substr")?),
    );
    r.add(
        "kd.strings.find",
        &[],
        "s, substr, start=int64(0), end=int64(None)",
        r#"Returns the offset of the first occurrence of `substr` in `s`.

Only the part [start, end) of s is searched (Python slice rules: negative
offsets count from the end), but the offset is counted from the start of s.
Offsets are in characters for STRING and bytes for BYTES. The result is
INT64, missing when substr is not found or an argument is missing.

Args:
  s: strings or bytes to search in.
  substr: strings or bytes to look for (of the same kind as s).
  start: where the search begins (0 by default).
  end: where the search ends, exclusive (the end of s by default).

Examples:
  >>> kd.strings.find(kd.slice(['banana', 'apple', None]), 'an')
  DataSlice([1, None, None], schema: INT64, present: 1/3)
  >>> kd.strings.find('banana', 'an', start=2)
  DataItem(3, schema: INT64)
  >>> kd.strings.find('héllo', 'l')
  DataItem(2, schema: INT64)"#,
        |a| find(a.slice("s")?, a.slice("substr")?, a.slice("start")?, a.slice("end")?),
    );
    r.add(
        "kd.strings.rfind",
        &[],
        "s, substr, start=int64(0), end=int64(None)",
        r#"Returns the offset of the last occurrence of `substr` in `s`.

Like `kd.strings.find`, but searches from the right: only [start, end) of s
is searched, and the offset is counted from the start of s (in characters
for STRING, bytes for BYTES). Missing when substr is not found.

Args:
  s: strings or bytes to search in.
  substr: strings or bytes to look for (of the same kind as s).
  start: where the search begins (0 by default).
  end: where the search ends, exclusive (the end of s by default).

Examples:
  >>> kd.strings.rfind(kd.slice(['banana', 'apple', None]), 'an')
  DataSlice([3, None, None], schema: INT64, present: 1/3)
  >>> kd.strings.rfind('banana', 'an', end=4)
  DataItem(1, schema: INT64)"#,
        |a| rfind(a.slice("s")?, a.slice("substr")?, a.slice("start")?, a.slice("end")?),
    );
    r.add(
        "kd.strings.substr",
        &[],
        "x, start=int64(0), end=int64(None)",
        r#"Returns a DataSlice of substrings with indices [start, end).

Indices follow Python slice rules (negative ones count from the end, and an
empty range gives ''); they count characters for STRING and bytes for BYTES.
All arguments broadcast together.

Args:
  x: a DataSlice of strings or bytes.
  start: where the substrings begin (0 by default).
  end: where they end, exclusive (the end of each string by default).

Examples:
  >>> kd.strings.substr(kd.slice(['hello', 'hi', None]), 1, 3)
  DataSlice(['el', 'i', None], schema: STRING, present: 2/3)
  >>> kd.strings.substr(kd.slice(['hello', 'world']), kd.slice([0, 2]), end=-1)
  DataSlice(['hell', 'rl'], schema: STRING, present: 2/2)
  >>> kd.strings.substr('héllo', -3)
  DataItem('llo', schema: STRING)"#,
        |a| substr(a.slice("x")?, a.slice("start")?, a.slice("end")?),
    );
    r.add(
        "kd.strings.strip",
        &[],
        "s, chars=None",
        r#"Strips whitespaces or the specified characters from both sides of `s`.

With chars, any of its characters is stripped (it is a set, not a prefix or
suffix). s and chars broadcast together; missing items stay missing.

Args:
  s: strings or bytes to strip.
  chars: the characters to strip (whitespace when missing).

Examples:
  >>> kd.strings.strip(kd.slice(['  a b  ', '\tc\n', None]))
  DataSlice(['a b', 'c', None], schema: STRING, present: 2/3)
  >>> kd.strings.strip(kd.slice(['xxaxyx']), 'xy')
  DataSlice(['a'], schema: STRING, present: 1/1)"#,
        |a| strip(a.slice("s")?, a.slice("chars")?),
    );
    r.add(
        "kd.strings.lstrip",
        &[],
        "s, chars=None",
        r#"Strips whitespaces or the specified characters from the left side of `s`.

With chars, any of its characters is stripped (it is a set, not a prefix).
s and chars broadcast together; missing items stay missing.

Args:
  s: strings or bytes to strip.
  chars: the characters to strip (whitespace when missing).

Examples:
  >>> kd.strings.lstrip(kd.slice(['  a b  ', None]))
  DataSlice(['a b  ', None], schema: STRING, present: 1/2)
  >>> kd.strings.lstrip(kd.slice(['xxaxyx']), 'xy')
  DataSlice(['axyx'], schema: STRING, present: 1/1)"#,
        |a| lstrip(a.slice("s")?, a.slice("chars")?),
    );
    r.add(
        "kd.strings.rstrip",
        &[],
        "s, chars=None",
        r#"Strips whitespaces or the specified characters from the right side of `s`.

With chars, any of its characters is stripped (it is a set, not a suffix).
s and chars broadcast together; missing items stay missing.

Args:
  s: strings or bytes to strip.
  chars: the characters to strip (whitespace when missing).

Examples:
  >>> kd.strings.rstrip(kd.slice(['  a b  ', None]))
  DataSlice(['  a b', None], schema: STRING, present: 1/2)
  >>> kd.strings.rstrip(kd.slice(['xxaxyx']), 'xy')
  DataSlice(['xxa'], schema: STRING, present: 1/1)"#,
        |a| rstrip(a.slice("s")?, a.slice("chars")?),
    );
    r.add(
        "kd.strings.replace",
        &[],
        "s, old, new, max_subs=int32(None)",
        r#"Replaces up to `max_subs` occurrences of `old` within `s` with `new`.

Occurrences are replaced from left to right, all of them when max_subs is
missing. An empty `old` matches before every character and at the end.
All arguments broadcast together.

Args:
  s: strings or bytes.
  old: the substring to replace.
  new: its replacement.
  max_subs: the largest number of replacements (all when missing).

Examples:
  >>> kd.strings.replace(kd.slice(['banana', 'apple', None]), 'a', 'o')
  DataSlice(['bonono', 'opple', None], schema: STRING, present: 2/3)
  >>> kd.strings.replace(kd.slice(['banana']), 'a', 'o', max_subs=2)
  DataSlice(['bonona'], schema: STRING, present: 1/1)"#,
        |a| replace(a.slice("s")?, a.slice("old")?, a.slice("new")?, a.slice("max_subs")?),
    );
    r.add(
        "kd.strings.join",
        &[],
        "*args",
        r#"Concatenates the given strings.

The arguments broadcast together and are concatenated item by item; an item
is missing where any argument is missing. All arguments must be STRING or
all BYTES.

Args:
  *args: DataSlices of strings or bytes (at least one).

Examples:
  >>> kd.strings.join('Hello, ', kd.slice(['Ann', 'Bob']), '!')
  DataSlice(['Hello, Ann!', 'Hello, Bob!'], schema: STRING, present: 2/2)
  >>> kd.strings.join(kd.slice(['a', 'b', None]), '-', kd.slice(['x', 'y', 'z']))
  DataSlice(['a-x', 'b-y', None], schema: STRING, present: 2/3)"#,
        |a| join(&a.var_slices()?),
    );
    r.add(
        "kd.strings.split",
        &[],
        "x, sep=None",
        r#"Returns x split by the provided separator.

The parts of each item go into a new last dimension. Without sep, runs of
whitespace separate the parts and empty parts are dropped (as Python's
str.split()); with sep, every occurrence splits, so empty parts are kept. A
missing item gives no parts.

Args:
  x: a DataSlice of strings or bytes.
  sep: the separator (whitespace when missing).

Examples:
  >>> kd.strings.split(kd.slice(['a b  c', ' d ', None]))
  DataSlice([['a', 'b', 'c'], ['d'], []], schema: STRING, present: 4/4)
  >>> kd.strings.split(kd.slice(['a,b,,c', '']), ',')
  DataSlice([['a', 'b', '', 'c'], ['']], schema: STRING, present: 5/5)"#,
        |a| split(a.slice("x")?, a.slice("sep")?),
    );
    r.add(
        "kd.strings.agg_join",
        &[],
        "x, sep=None, ndim=unspecified",
        r#"Returns a DataSlice of strings joined on last ndim dimensions.

The present items of each group are joined with sep between them (nothing
when sep is missing); a group with no present item gives a missing item.
Works on STRING and BYTES (sep must be of the same kind).

Args:
  x: a DataSlice of strings or bytes.
  sep: the separator, a DataItem (none by default).
  ndim: how many trailing dimensions to join over (1 when unspecified).

Examples:
  >>> kd.strings.agg_join(kd.slice([['a', 'b', None], ['c'], []]), ', ')
  DataSlice(['a, b', 'c', None], schema: STRING, present: 2/3)
  >>> kd.strings.agg_join(kd.slice([['a', 'b'], ['c']]), '-', ndim=2)
  DataItem('a-b-c', schema: STRING)
  >>> kd.strings.agg_join(kd.slice([[b'a', b'b'], [b'c']]))
  DataSlice([b'ab', b'c'], schema: BYTES, present: 2/2)"#,
        |a| agg_join(a.slice("x")?, a.slice("sep")?, a.agg_ndim()?),
    );
    r.add(
        "kd.strings.encode",
        &[],
        "x",
        r#"Encodes `x` as BYTES using UTF-8 encoding.

STRING items are encoded and BYTES items are kept as they are; missing
items stay missing.

Args:
  x: a DataSlice of strings (or bytes).

Examples:
  >>> kd.strings.encode(kd.slice(['abc', 'é', None]))
  DataSlice([b'abc', b'\xc3\xa9', None], schema: BYTES, present: 2/3)"#,
        |a| encode(a.slice("x")?),
    );
    r.add(
        "kd.strings.decode",
        &[],
        "x",
        r#"Decodes `x` as STRING using UTF-8 decoding.

BYTES items are decoded as UTF-8 and STRING items are kept as they are;
invalid UTF-8 raises a ValueError. Missing items stay missing.

Args:
  x: a DataSlice of bytes (or strings).

Examples:
  >>> kd.strings.decode(kd.slice([b'abc', b'\xc3\xa9', None]))
  DataSlice(['abc', 'é', None], schema: STRING, present: 2/3)"#,
        |a| decode(a.slice("x")?),
    );
    r.add(
        "kd.strings.encode_base64",
        &[],
        "x",
        r#"Encodes BYTES `x` using base64 encoding (RFC 4648 section 4), with padding.

The result is STRING; missing items stay missing. STRING input is refused
(encode it to BYTES first with `kd.strings.encode`).

Args:
  x: a DataSlice of bytes.

Examples:
  >>> kd.strings.encode_base64(kd.slice([b'hello', b'', None]))
  DataSlice(['aGVsbG8=', '', None], schema: STRING, present: 2/3)"#,
        |a| encode_base64(a.slice("x")?),
    );
    r.add(
        "kd.strings.decode_base64",
        &[],
        "x, /, *, on_invalid=unspecified",
        r#"Decodes BYTES from `x` using base64 encoding (RFC 4648 section 4).

x may hold STRING or BYTES; padding is optional. An invalid item raises a
ValueError unless on_invalid is given, in which case it replaces the item
(on_invalid=None makes it missing). The result is BYTES.

Args:
  x: base64 text, as strings or bytes.
  on_invalid: the value for items that are not valid base64 (raise when
    unspecified).

Examples:
  >>> kd.strings.decode_base64(kd.slice(['aGVsbG8=', 'aGk', None]))
  DataSlice([b'hello', b'hi', None], schema: BYTES, present: 2/3)
  >>> kd.strings.decode_base64(kd.slice(['aGVsbG8=', '!!']), on_invalid=None)
  DataSlice([b'hello', None], schema: BYTES, present: 1/2)
  >>> kd.strings.decode_base64(kd.slice(['aGVsbG8=', '!!']), on_invalid=b'?')
  DataSlice([b'hello', b'?'], schema: BYTES, present: 2/2)"#,
        |a| decode_base64(a.slice("x")?, a.opt_slice("on_invalid")?),
    );
    r.add(
        "kd.strings.regex_match",
        &[],
        "text, regex",
        r#"Returns `present` if `text` matches the regular expression `regex`.

The regex may match anywhere in the text; anchor it with ^ and $ to match
the whole text. The result is a MASK, missing where text is missing. regex
uses RE2 syntax.

Args:
  text: a DataSlice of strings.
  regex: a regular expression.

Examples:
  >>> kd.strings.regex_match(kd.slice(['abc', 'xbz', 'a', None]), 'b.')
  DataSlice([present, present, missing, missing], schema: MASK, present: 2/4)
  >>> kd.strings.regex_match(kd.slice(['abc', 'ABC']), '^[a-z]+$')
  DataSlice([present, missing], schema: MASK, present: 1/2)"#,
        |a| regex_match(a.slice("text")?, a.slice("regex")?),
    );
    r.add(
        "kd.strings.regex_extract",
        &[],
        "text, regex",
        r#"Extracts a substring from `text` with the capturing group of `regex`.

regex must have exactly one capturing group. The result holds the text the
group captured in the first match, and is missing where there is no match or
text is missing. regex uses RE2 syntax.

Args:
  text: a DataSlice of strings.
  regex: a regular expression with one capturing group.

Examples:
  >>> kd.strings.regex_extract(kd.slice(['id=12', 'x id=7;', 'none', None]), r'id=(\d+)')
  DataSlice(['12', '7', None, None], schema: STRING, present: 2/4)"#,
        |a| regex_extract(a.slice("text")?, a.slice("regex")?),
    );
    r.add(
        "kd.strings.regex_find_all",
        &[],
        "text, regex",
        r#"Returns the captured groups of all matches of `regex` in `text`.

The result has two more dimensions than text: one item per non-overlapping
match, then the texts of its capturing groups (none when regex has no
group). A missing text gives no matches. regex uses RE2 syntax.

Args:
  text: a DataSlice of strings.
  regex: a regular expression.

Examples:
  >>> kd.strings.regex_find_all(kd.slice(['a1b22', 'none', None]), r'(\d+)')
  DataSlice([[['1'], ['22']], [], []], schema: STRING, present: 2/2)
  >>> kd.strings.regex_find_all(kd.item('k1=v1,k2=v2'), r'(\w+)=(\w+)')
  DataSlice([['k1', 'v1'], ['k2', 'v2']], schema: STRING, present: 4/4)"#,
        |a| regex_find_all(a.slice("text")?, a.slice("regex")?),
    );
    r.add(
        "kd.strings.regex_replace_all",
        &[],
        "text, regex, replacement",
        r#"Replaces all non-overlapping matches of `regex` in `text`.

In replacement, \1 to \9 stand for the capturing groups of the match and
\0 for the whole match. text and replacement broadcast together; missing
items stay missing. regex uses RE2 syntax.

Args:
  text: a DataSlice of strings.
  regex: a regular expression.
  replacement: the replacement strings.

Examples:
  >>> kd.strings.regex_replace_all(kd.slice(['a1b22', None]), r'\d+', '#')
  DataSlice(['a#b#', None], schema: STRING, present: 1/2)
  >>> kd.strings.regex_replace_all(kd.slice(['John Smith']), r'(\w+) (\w+)', r'\2, \1')
  DataSlice(['Smith, John'], schema: STRING, present: 1/1)"#,
        |a| regex_replace_all(a.slice("text")?, a.slice("regex")?, a.slice("replacement")?),
    );
    r.add(
        "kd.strings.format",
        &["kd.format"],
        "fmt, /, **kwargs",
        r#"Formats strings according to python str.format style.

Fields of fmt are named after the keyword arguments ({name}, with an
optional format spec such as {x:.2f} or {n:03d}); all arguments broadcast
together. An item is missing where fmt or any argument is missing. A BYTES
fmt gives BYTES (STRING and BYTES cannot be mixed); MASK arguments are
refused.

Args:
  fmt: the format strings.
  **kwargs: the values for the named fields.

Examples:
  >>> kd.format('Hello, {name}!', name=kd.slice(['Ann', 'Bob', None]))
  DataSlice(['Hello, Ann!', 'Hello, Bob!', None], schema: STRING, present: 2/3)
  >>> kd.format(kd.slice(['{x}+{y}', '{x}*{y}']), x=1, y=kd.slice([2, 3]))
  DataSlice(['1+2', '1*3'], schema: STRING, present: 2/2)
  >>> kd.format('{v:.2f}', v=3.14159)
  DataItem('3.14', schema: STRING)"#,
        |a| {
            let kwargs: Vec<(&str, &DataSlice)> = a
                .var_kwargs()
                .iter()
                .map(|(name, v)| match v {
                    crate::registry::Value::Slice(x) => Ok((name.as_str(), x)),
                    _ => Err(Error::type_error("kd.strings.format", format!("argument `{name}` must be a DataSlice"))),
                })
                .collect::<Result<_>>()?;
            format(a.slice("fmt")?, &kwargs)
        },
    );
    r.add(
        "kd.strings.printf",
        &[],
        "fmt, *args",
        r#"Formats strings according to printf-style (C++) format strings.

The arguments fill the conversions of fmt in order (%s, %d, %5.2f, %x, ...;
%% is a literal percent sign). fmt and the arguments broadcast together, and
an item is missing where any of them is missing. A BYTES fmt gives BYTES.

Args:
  fmt: the format strings.
  *args: the values for the conversions, in order.

Examples:
  >>> kd.strings.printf('%s is %d', kd.slice(['Ann', 'Bob']), kd.slice([3, None]))
  DataSlice(['Ann is 3', None], schema: STRING, present: 1/2)
  >>> kd.strings.printf('%.2f|%5s|%x', 3.14159, 'ab', 255)
  DataItem('3.14|   ab|ff', schema: STRING)"#,
        |a| printf(a.slice("fmt")?, &a.var_slices()?),
    );
    r.add(
        "kd.strings.fstr",
        &["kd.fstr"],
        "fstr, /",
        r#"Transforms Koda f-string into an expression.

Write a Python f-string in which every DataSlice has a format spec (`{x:s}`
for the default text, or a spec such as `{x:.2f}`); kd.fstr evaluates it
item by item, broadcasting the slices together, as `kd.format` does. An item
is missing where any slice is missing. A string without such a field raises
a ValueError.

Args:
  fstr: the f-string.

Examples:
  >>> name = kd.slice(['Ann', 'Bob', 'Cy'])
  >>> cats = kd.slice([1, 2, None])
  >>> kd.fstr(f'{name:s} has {cats:s} cats')
  DataSlice(['Ann has 1 cats', 'Bob has 2 cats', None], schema: STRING, present: 2/3)
  >>> kd.fstr(f'price: {kd.item(1.5):.2f}')
  DataItem('price: 1.50', schema: STRING)"#,
        |a| fstr(a.slice("fstr")?),
    );
    // Koda keeps the bag of text it only re-encodes.
    for name in ["kd.strings.decode", "kd.strings.encode"] {
        r.bag_rule(name, crate::registry::BagRule::PassThrough);
    }

    // Type rules (see `crate::typing`).
    use crate::promote::TypeClass::{Bytes, Integer, String, Text};
    use crate::typing::rules::{Out, aggregate, elementwise, elementwise_params};
    use plait_core::Schema;
    r.type_rule("kd.strings.length", elementwise(&["x"], Text, Out::Fixed(Schema::Int64)));
    for name in ["kd.strings.upper", "kd.strings.lower"] {
        r.type_rule(name, elementwise(&["x"], String, Out::Fixed(Schema::String)));
    }
    r.type_rule("kd.strings.contains", elementwise(&["s", "substr"], Text, Out::Fixed(Schema::Mask)));
    r.type_rule("kd.strings.count", elementwise(&["s", "substr"], Text, Out::Fixed(Schema::Int64)));
    for name in ["kd.strings.strip", "kd.strings.lstrip", "kd.strings.rstrip"] {
        r.type_rule(name, elementwise(&["s", "chars"], Text, Out::Common));
    }
    r.type_rule("kd.strings.encode", elementwise(&["x"], Text, Out::Fixed(Schema::Bytes)));
    r.type_rule("kd.strings.decode", elementwise(&["x"], Text, Out::Fixed(Schema::String)));
    r.type_rule("kd.strings.regex_match", elementwise(&["text", "regex"], String, Out::Fixed(Schema::Mask)));
    r.type_rule("kd.strings.regex_extract", elementwise(&["text", "regex"], String, Out::SameAs("text")));
    r.type_rule("kd.strings.regex_replace_all", elementwise(&["text", "regex", "replacement"], String, Out::SameAs("text")));
    r.type_rule("kd.strings.agg_join", aggregate(Text, Out::JoinedWith("sep")));
    r.type_rule("kd.strings.encode_base64", elementwise(&["x"], Bytes, Out::Fixed(Schema::String)));
    r.type_rule(
        "kd.strings.decode_base64",
        crate::typing::TypeRule::new(|a| {
            // Text that is not base64 gives `on_invalid`, of any schema.
            let out = if a.get("on_invalid").is_some() { Out::Unknown } else { Out::Fixed(Schema::Bytes) };
            let x = a.slice("x")?;
            crate::typing::rules::check_class(a.op_name(), "x", x, Text)?;
            Ok(crate::typing::TypeValue::slice(x.with_schema(crate::typing::rules::out_schema(out, x))))
        }),
    );
    for name in ["kd.strings.find", "kd.strings.rfind"] {
        r.type_rule(name, elementwise_params(&["s", "substr"], Text, &[("start", Integer), ("end", Integer)], Out::Fixed(Schema::Int64)));
    }
    r.type_rule("kd.strings.replace", elementwise_params(&["s", "old", "new"], Text, &[("max_subs", Integer)], Out::SameAs("s")));
    r.type_rule("kd.strings.substr", elementwise_params(&["x"], Text, &[("start", Integer), ("end", Integer)], Out::SameAs("x")));
    r.type_rule("kd.strings.fstr", crate::typing::TypeRule::new(types::fstr));
    r.type_rule("kd.strings.join", crate::typing::TypeRule::new(types::join));
    r.type_rule("kd.strings.format", crate::typing::TypeRule::new(types::format));
    r.type_rule("kd.strings.printf", crate::typing::TypeRule::new(types::format));
    r.type_rule("kd.strings.split", crate::typing::TypeRule::new(types::split));
    r.type_rule("kd.strings.regex_find_all", crate::typing::TypeRule::new(types::regex_find_all));
}
