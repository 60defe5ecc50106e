//! Regular expressions over STRING items: `kd.strings.regex_match`,
//! `regex_extract`, `regex_find_all`, `regex_replace_all`.
//!
//! The pattern is one STRING DataItem, compiled once per distinct pattern
//! (a small process-wide cache) with the `regex` crate, whose syntax is RE2's.
//! Matching is unanchored, as RE2's `PartialMatch`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use plait_core::column::VarBinaryBuilder;
use plait_core::{Column, DataSlice, Edge, Error, Result, Schema, SliceData, Values};
use regex::Regex;

use super::{TextSide, finish_text, prepare_text, text_map, text_of};
use crate::elementwise::Prepared;
use crate::kernel::is_present;
use crate::promote::TypeClass;

/// Patterns kept compiled; the cache is cleared when it grows past this.
const CACHE_LIMIT: usize = 256;

/// The compiled `regex` argument of `op`.
fn compiled(op: &str, regex: &DataSlice) -> Result<Arc<Regex>> {
    let pattern = crate::checks::string_item(op, "regex", regex)?;
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<Regex>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(re) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(pattern) {
        return Ok(re.clone());
    }
    let re = Regex::new(pattern).map_err(|e| {
        let detail = e.to_string();
        let reason = detail.lines().rev().find(|l| l.starts_with("error:")).map_or(detail.as_str(), |l| l.trim_start_matches("error: "));
        Error::value(op, format!("invalid regular expression: `{pattern}`; {reason}"))
    })?;
    let re = Arc::new(re);
    let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
    if cache.len() >= CACHE_LIMIT {
        cache.clear();
    }
    cache.insert(pattern.to_string(), re.clone());
    Ok(re)
}

fn text_arg(op: &str, text: &DataSlice) -> Result<Prepared> {
    prepare_text(op, &[("text", text)], TypeClass::String, &[])
}

/// Present where `regex` matches somewhere in `text`.
pub fn regex_match(text: &DataSlice, regex: &DataSlice) -> Result<DataSlice> {
    let op = "kd.strings.regex_match";
    let p = text_arg(op, text)?;
    let re = compiled(op, regex)?;
    if p.all_missing() {
        return Ok(DataSlice::missing(p.shape.clone(), Schema::Mask));
    }
    let v = text_of(&p.operands[0]).expect("present text");
    let presence = p.operands[0].presence();
    let bits = super::search::parallel_bits(p.len(), |i| is_present(presence, i) && re.is_match(v.str_value(i)));
    crate::masking::mask_from_bits(&p.shape, bits)
}

/// The text of the one capturing group of the first match (empty when the
/// group did not take part); missing where nothing matches.
pub fn regex_extract(text: &DataSlice, regex: &DataSlice) -> Result<DataSlice> {
    let op = "kd.strings.regex_extract";
    let p = text_arg(op, text)?;
    let re = compiled(op, regex)?;
    let groups = re.captures_len() - 1;
    // As in Koda, the pattern's groups are checked only when there is text.
    if groups != 1 && !p.all_missing() {
        return Err(Error::value(
            op,
            format!("expected regular expression with exactly one capturing group; got `{}` which contains {groups} capturing groups", re.as_str()),
        ));
    }
    if p.all_missing() {
        return Ok(p.missing(p.dtype()));
    }
    let v = text_of(&p.operands[0]).expect("present text");
    let out = text_map(p.len(), p.operands[0].presence(), 0, |i, out| match re.captures(v.str_value(i)) {
        Some(c) => {
            out.extend_from_slice(c.get(1).map_or("", |m| m.as_str()).as_bytes());
            true
        }
        None => false,
    });
    finish_text(&p, Schema::String, out)
}

/// The capturing groups of every match: two new dimensions (matches, then
/// groups); groups that did not take part are empty strings.
pub fn regex_find_all(text: &DataSlice, regex: &DataSlice) -> Result<DataSlice> {
    let op = "kd.strings.regex_find_all";
    let p = text_arg(op, text)?;
    let re = compiled(op, regex)?;
    let groups = re.captures_len() - 1;
    let schema = p.promotion.schema(p.dtype());
    let n = p.len();
    let mut matches = Vec::with_capacity(n);
    let mut group_sizes = Vec::new();
    let mut out = VarBinaryBuilder::with_capacity(0);
    if let Some(v) = text_of(&p.operands[0]) {
        for i in 0..n {
            let mut m = 0i64;
            if p.operands[0].is_present(i) {
                for c in re.captures_iter(v.str_value(i)) {
                    m += 1;
                    group_sizes.push(groups as i64);
                    for g in 1..=groups {
                        out.push(c.get(g).map_or("", |m| m.as_str()).as_bytes());
                    }
                }
            }
            matches.push(m);
        }
    } else {
        matches.resize(n, 0);
    }
    let shape = p.shape.with_edge(Edge::from_sizes(&matches)?)?.with_edge(Edge::from_sizes(&group_sizes)?)?;
    let data = SliceData::from_column(Column::full(Values::String(out.finish())));
    DataSlice::new(shape, data, schema)
}

/// One piece of an RE2 rewrite string: literal text or a group number.
enum Piece {
    Text(String),
    Group(usize),
}

/// Parses RE2's rewrite syntax: `\0`..`\9` name groups, `\\` is a backslash.
fn parse_rewrite(rewrite: &str) -> Vec<Piece> {
    let mut pieces = Vec::new();
    let mut text = String::new();
    let mut chars = rewrite.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            text.push(c);
            continue;
        }
        match chars.next() {
            Some(d) if d.is_ascii_digit() => {
                if !text.is_empty() {
                    pieces.push(Piece::Text(std::mem::take(&mut text)));
                }
                pieces.push(Piece::Group(d as usize - '0' as usize));
            }
            Some(other) => text.push(other),
            None => text.push('\\'),
        }
    }
    if !text.is_empty() {
        pieces.push(Piece::Text(text));
    }
    pieces
}

/// `text` with every match of `regex` replaced by `replacement` (RE2 rewrite
/// syntax: `\1` is the first group). A rewrite naming a group the pattern
/// does not have leaves the text unchanged, as in Koda.
pub fn regex_replace_all(text: &DataSlice, regex: &DataSlice, replacement: &DataSlice) -> Result<DataSlice> {
    let op = "kd.strings.regex_replace_all";
    let p = prepare_text(op, &[("text", text)], TypeClass::String, &[])?;
    crate::promote::data_type(op, "replacement", replacement, TypeClass::String)?;
    let re = compiled(op, regex)?;
    let p = crate::elementwise::prepare_each(op, &[("text", text), ("replacement", replacement)], &[p.dtype(), Schema::String], p.promotion)?;
    if p.all_missing() {
        return Ok(p.missing(p.dtype()));
    }
    let v = text_of(&p.operands[0]).expect("present text");
    // (One text for all the replacements when `text` is an item.)
    let text_is_item = p.operands[0].is_item;
    let rewrite = TextSide::of(&p.operands[1]);
    let one = match rewrite {
        TextSide::One(r) => Some(parse_rewrite(std::str::from_utf8(r).unwrap_or_default())),
        _ => None,
    };
    let one_size = one.as_deref().map(RewriteSize::of);
    let groups = re.captures_len();
    let presence = p.presence();
    let too_large = std::sync::atomic::AtomicBool::new(false);
    let out = text_map(p.len(), presence.as_ref(), v.data.len(), |i, out| {
        let owned;
        let pieces = match &one {
            Some(pieces) => pieces,
            None => {
                owned = parse_rewrite(std::str::from_utf8(rewrite.get(i)).unwrap_or_default());
                &owned
            }
        };
        let h = v.str_value(if text_is_item { 0 } else { i });
        if pieces.iter().any(|p| matches!(p, Piece::Group(g) if *g >= groups)) {
            out.extend_from_slice(h.as_bytes());
            return true;
        }
        let owned_size;
        let sizes = match &one_size {
            Some(sizes) => sizes,
            None => {
                owned_size = RewriteSize::of(pieces);
                &owned_size
            }
        };
        if out.len().saturating_add(sizes.bound(h)) > LARGE_TEXT {
            // Possibly more than memory holds: the exact size is counted and
            // reserved first, so that it is an error rather than an abort.
            let size = sizes.exact(&re, h);
            if size > isize::MAX as usize || out.try_reserve(size).is_err() {
                too_large.store(true, std::sync::atomic::Ordering::Relaxed);
                return false;
            }
        }
        let mut last = 0;
        for c in re.captures_iter(h) {
            let m = c.get(0).expect("group 0 is the match");
            out.extend_from_slice(&h.as_bytes()[last..m.start()]);
            for piece in pieces {
                match piece {
                    Piece::Text(t) => out.extend_from_slice(t.as_bytes()),
                    Piece::Group(g) => out.extend_from_slice(c.get(*g).map_or("", |m| m.as_str()).as_bytes()),
                }
            }
            last = m.end();
        }
        out.extend_from_slice(&h.as_bytes()[last..]);
        true
    });
    if too_large.into_inner() {
        return Err(Error::value(op, "the result is more text than this machine can allocate"));
    }
    finish_text(&p, Schema::String, out)
}

/// Bytes of one result past which [`regex_replace_all`] counts and reserves
/// the result before writing it.
const LARGE_TEXT: usize = 1 << 26;

/// What a rewrite adds for each match: its literal bytes, and how many
/// times it copies each group (`\0`..`\9`).
struct RewriteSize {
    literal: usize,
    copies: [usize; 10],
}

impl RewriteSize {
    fn of(pieces: &[Piece]) -> RewriteSize {
        let mut size = RewriteSize { literal: 0, copies: [0; 10] };
        for piece in pieces {
            match piece {
                Piece::Text(t) => size.literal = size.literal.saturating_add(t.len()),
                Piece::Group(g) => size.copies[*g] = size.copies[*g].saturating_add(1),
            }
        }
        size
    }

    /// The most bytes `h` can grow to: there are at most `h.len() + 1`
    /// matches (one per position), each adding the literal text, and each
    /// group copied is part of a match, so its copies add up to at most
    /// `h.len()` bytes per copy.
    fn bound(&self, h: &str) -> usize {
        let copies = self.copies.iter().fold(0usize, |a, &c| a.saturating_add(c));
        h.len().saturating_add(h.len().saturating_add(1).saturating_mul(self.literal)).saturating_add(copies.saturating_mul(h.len()))
    }

    /// The exact bytes of `h` with every match of `re` rewritten
    /// (saturating at `usize::MAX`).
    fn exact(&self, re: &Regex, h: &str) -> usize {
        let mut size = h.len();
        for c in re.captures_iter(h) {
            let m = c.get(0).expect("group 0 is the match");
            size = (size - m.len()).saturating_add(self.literal);
            for (g, &n) in self.copies.iter().enumerate() {
                if n > 0 {
                    size = size.saturating_add(n.saturating_mul(c.get(g).map_or(0, |m| m.len())));
                }
            }
        }
        size
    }
}
