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

use std::ops::Range;

use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use plait_core::{Column, DataSlice, Error, Result, Schema, SliceData, Values};
use plait_core::column::VarBinary;
use rayon::prelude::*;

use crate::elementwise::{Operand, Prepared, prepare_each};
use crate::kernel::PARALLEL_MIN;
use crate::promote::{Promotion, TypeClass, data_type, promote_text};
use crate::registry::Registry;

pub use case::{length, lower, upper};
pub use codec::{decode, decode_base64, encode, encode_base64};
pub use format::{format, fstr, printf};
pub use regex::{regex_extract, regex_find_all, regex_match, regex_replace_all};
pub use search::{contains, count, find, lstrip, replace, rfind, rstrip, strip, substr};
pub use split_join::{agg_join, join, split};

/// Items per parallel task of the text kernels.
const TEXT_CHUNK: usize = 1 << 14;

/// Prepares an operator's text arguments (`text`, checked against
/// `class` and promoted with [`promote_text`]) and integer arguments (`ints`,
/// read as INT64), broadcast to one shape.
pub(crate) fn prepare_text(
    op: &str,
    text: &[(&str, &DataSlice)],
    class: TypeClass,
    ints: &[(&str, &DataSlice)],
) -> Result<Prepared> {
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
    let fix = |v: i64| if v < 0 { (v + len_i).max(0) } else { v.min(len_i) };
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

/// A growing output column: end offsets and bytes.
pub(crate) struct TextChunk {
    pub ends: Vec<i64>,
    pub data: Vec<u8>,
    pub missing: Vec<usize>,
}

/// Writes one text value per item: `f(i, out)` appends item `i`'s bytes and
/// returns whether it is present. Only items present under `presence` are
/// visited (the others stay empty and missing). Runs in parallel chunks for
/// large `n`.
pub(crate) fn text_map(
    n: usize,
    presence: Option<&NullBuffer>,
    bytes_hint: usize,
    f: impl Fn(usize, &mut Vec<u8>) -> bool + Sync,
) -> (VarBinary, Option<NullBuffer>) {
    let run = |r: Range<usize>, hint: usize| {
        let mut chunk = TextChunk { ends: Vec::with_capacity(r.len()), data: Vec::with_capacity(hint), missing: Vec::new() };
        for i in r {
            if crate::kernel::is_present(presence, i) && !f(i, &mut chunk.data) {
                chunk.missing.push(i);
            }
            chunk.ends.push(chunk.data.len() as i64);
        }
        chunk
    };
    let chunks: Vec<TextChunk> = if n >= PARALLEL_MIN {
        let tasks = n.div_ceil(TEXT_CHUNK);
        let hint = bytes_hint / tasks.max(1) + 16;
        (0..tasks).into_par_iter().map(|k| run(k * TEXT_CHUNK..((k + 1) * TEXT_CHUNK).min(n), hint)).collect()
    } else {
        vec![run(0..n, bytes_hint)]
    };
    join_chunks(n, presence, chunks)
}

/// Concatenates the chunks of [`text_map`].
pub(crate) fn join_chunks(n: usize, presence: Option<&NullBuffer>, mut chunks: Vec<TextChunk>) -> (VarBinary, Option<NullBuffer>) {
    let missing: Vec<usize> = chunks.iter_mut().flat_map(|c| std::mem::take(&mut c.missing)).collect();
    let (offsets, data) = if chunks.len() == 1 {
        let chunk = chunks.pop().expect("one chunk");
        let mut offsets = Vec::with_capacity(n + 1);
        offsets.push(0);
        offsets.extend_from_slice(&chunk.ends);
        (offsets, chunk.data)
    } else {
        let total: usize = chunks.iter().map(|c| c.data.len()).sum();
        let mut offsets: Vec<i64> = crate::kernel::output_vec(n + 1);
        let mut data: Vec<u8> = crate::kernel::output_vec(total);
        offsets.push(0);
        for c in &chunks {
            let base = data.len() as i64;
            offsets.extend(c.ends.iter().map(|e| e + base));
            data.extend_from_slice(&c.data);
        }
        (offsets, data)
    };
    let values = VarBinary { offsets: OffsetBuffer::new(ScalarBuffer::from(offsets)), data: Buffer::from_vec(data) };
    (values, with_missing(n, presence, &missing))
}

/// `presence` with the items of `missing` cleared.
pub(crate) fn with_missing(n: usize, presence: Option<&NullBuffer>, missing: &[usize]) -> Option<NullBuffer> {
    if missing.is_empty() {
        return presence.cloned();
    }
    let mut bits = arrow_buffer::BooleanBufferBuilder::new(n);
    match presence {
        Some(p) => bits.append_buffer(p.inner()),
        None => bits.append_n(n, true),
    }
    for &i in missing {
        bits.set_bit(i, false);
    }
    Some(NullBuffer::new(bits.finish()))
}

/// One value of type `R` per item (`None` = missing), for items present
/// under `presence`; in parallel for large `n`.
pub(crate) fn value_map<R: Copy + Default + Send + Sync>(
    n: usize,
    presence: Option<&NullBuffer>,
    f: impl Fn(usize) -> Option<R> + Sync,
) -> (Vec<R>, Option<NullBuffer>) {
    let pairs: Vec<(R, bool)> = crate::kernel::build_vec(n, |start, out| {
        for (k, o) in out.iter_mut().enumerate() {
            let i = start + k;
            let v = if crate::kernel::is_present(presence, i) { f(i) } else { None };
            o.write(v.map_or((R::default(), false), |v| (v, true)));
        }
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
    r.add("kd.strings.length", &[], "x", "Returns a DataSlice of lengths in bytes for Byte or codepoints for String.", |a| length(a.slice("x")?));
    r.add("kd.strings.upper", &[], "x", "Returns a DataSlice with the uppercase version of each string in the input.", |a| upper(a.slice("x")?));
    r.add("kd.strings.lower", &[], "x", "Returns a DataSlice with the lowercase version of each string in the input.", |a| lower(a.slice("x")?));
    r.add("kd.strings.contains", &[], "s, substr", "Returns present iff `s` contains `substr`.", |a| contains(a.slice("s")?, a.slice("substr")?));
    r.add("kd.strings.count", &[], "s, substr", "Counts the number of occurrences of `substr` in `s`.", |a| count(a.slice("s")?, a.slice("substr")?));
    r.add("kd.strings.find", &[], "s, substr, start=0, end=None", "Returns the offset of the first occurrence of `substr` in `s`.", |a| {
        find(a.slice("s")?, a.slice("substr")?, a.slice("start")?, a.slice("end")?)
    });
    r.add("kd.strings.rfind", &[], "s, substr, start=0, end=None", "Returns the offset of the last occurrence of `substr` in `s`.", |a| {
        rfind(a.slice("s")?, a.slice("substr")?, a.slice("start")?, a.slice("end")?)
    });
    r.add("kd.strings.substr", &[], "x, start=0, end=None", "Returns a DataSlice of substrings with indices [start, end).", |a| {
        substr(a.slice("x")?, a.slice("start")?, a.slice("end")?)
    });
    r.add("kd.strings.strip", &[], "s, chars=None", "Strips whitespaces or the specified characters from both sides of `s`.", |a| {
        strip(a.slice("s")?, a.slice("chars")?)
    });
    r.add("kd.strings.lstrip", &[], "s, chars=None", "Strips whitespaces or the specified characters from the left side of `s`.", |a| {
        lstrip(a.slice("s")?, a.slice("chars")?)
    });
    r.add("kd.strings.rstrip", &[], "s, chars=None", "Strips whitespaces or the specified characters from the right side of `s`.", |a| {
        rstrip(a.slice("s")?, a.slice("chars")?)
    });
    r.add("kd.strings.replace", &[], "s, old_substr, new_substr, max_subs=None", "Replaces up to `max_subs` occurrences of `old_substr` within `s` with `new_substr`.", |a| {
        replace(a.slice("s")?, a.slice("old_substr")?, a.slice("new_substr")?, a.slice("max_subs")?)
    });
    r.add("kd.strings.join", &[], "*args", "Concatenates the given strings.", |a| join(&a.var_slices()?));
    r.add("kd.strings.split", &[], "x, sep=None", "Returns x split by the provided separator.", |a| split(a.slice("x")?, a.slice("sep")?));
    r.add("kd.strings.agg_join", &[], "x, sep=None, ndim=unspecified", "Returns a DataSlice of strings joined on last ndim dimensions.", |a| {
        agg_join(a.slice("x")?, a.slice("sep")?, a.ndim()?)
    });
    r.add("kd.strings.encode", &[], "x", "Encodes `x` as BYTES using UTF-8 encoding.", |a| encode(a.slice("x")?));
    r.add("kd.strings.decode", &[], "x", "Decodes `x` as STRING using UTF-8 decoding.", |a| decode(a.slice("x")?));
    r.add("kd.strings.encode_base64", &[], "x", "Encodes BYTES `x` using base64 encoding (RFC 4648 section 4), with padding.", |a| {
        encode_base64(a.slice("x")?)
    });
    r.add("kd.strings.decode_base64", &[], "x, /, *, on_invalid=unspecified", "Decodes BYTES from `x` using base64 encoding (RFC 4648 section 4).", |a| {
        decode_base64(a.slice("x")?, a.opt_slice("on_invalid")?)
    });
    r.add("kd.strings.regex_match", &[], "text, regex", "Returns `present` if `text` matches the regular expression `regex`.", |a| {
        regex_match(a.slice("text")?, a.slice("regex")?)
    });
    r.add("kd.strings.regex_extract", &[], "text, regex", "Extracts a substring from `text` with the capturing group of `regex`.", |a| {
        regex_extract(a.slice("text")?, a.slice("regex")?)
    });
    r.add("kd.strings.regex_find_all", &[], "text, regex", "Returns the captured groups of all matches of `regex` in `text`.", |a| {
        regex_find_all(a.slice("text")?, a.slice("regex")?)
    });
    r.add("kd.strings.regex_replace_all", &[], "text, regex, replacement", "Replaces all non-overlapping matches of `regex` in `text`.", |a| {
        regex_replace_all(a.slice("text")?, a.slice("regex")?, a.slice("replacement")?)
    });
    r.add("kd.strings.format", &["kd.format"], "fmt, /, **kwargs", "Formats strings according to python str.format style.", |a| {
        let kwargs: Vec<(&str, &DataSlice)> = a
            .var_kwargs()
            .iter()
            .map(|(name, v)| match v {
                crate::registry::Value::Slice(x) => Ok((name.as_str(), x)),
                crate::registry::Value::Shape(_) => Err(Error::type_error("kd.strings.format", format!("argument `{name}` must be a DataSlice"))),
            })
            .collect::<Result<_>>()?;
        format(a.slice("fmt")?, &kwargs)
    });
    r.add("kd.strings.printf", &[], "fmt, *args", "Formats strings according to printf-style (C++) format strings.", |a| {
        printf(a.slice("fmt")?, &a.var_slices()?)
    });
    r.add("kd.strings.fstr", &["kd.fstr"], "x", "Transforms Koda f-string into an expression.", |a| fstr(a.slice("x")?));
}
