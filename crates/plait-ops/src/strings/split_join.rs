//! `kd.strings.join` (elementwise concatenation), `split` (adds a dimension)
//! and `agg_join` (concatenation along the last `ndim` dimensions).
//!
//! ```text
//! split(['a b', None, 'c'])  →  [['a', 'b'], [], ['c']]   new edge sizes [2, 0, 1]
//! ```

use memchr::memmem;
use plait_core::column::VarBinaryBuilder;
use plait_core::{Column, DataSlice, Edge, Error, Result, ScalarRef, Schema, SliceData, Values};

use super::search::is_c_space;
use super::{TextSide, expect_rank0, finish_text, prepare_text, text_map, text_of};
use crate::elementwise::prepare_each;
use crate::groups::groups;
use crate::promote::{TypeClass, promote_text};

/// Concatenates the items of `args` elementwise (missing if any is missing).
pub fn join(args: &[&DataSlice]) -> Result<DataSlice> {
    let op = "kd.strings.join";
    if args.is_empty() {
        return Err(Error::value(op, "expected at least one argument"));
    }
    let names: Vec<String> = (0..args.len()).map(|i| format!("slices[{i}]")).collect();
    let named: Vec<(&str, &DataSlice)> = names.iter().map(String::as_str).zip(args.iter().copied()).collect();
    let p = prepare_text(op, &named, TypeClass::Text, &[])?;
    if p.all_missing() {
        return Ok(p.missing(p.dtype()));
    }
    let sides: Vec<TextSide> = p.operands.iter().map(TextSide::of).collect();
    let presence = p.presence();
    let hint: usize = sides.iter().map(|s| if let TextSide::Many(v) = s { v.data.len() } else { 0 }).sum();
    let out = text_map(p.len(), presence.as_ref(), hint, |i, out| {
        for s in &sides {
            out.extend_from_slice(s.get(i));
        }
        true
    });
    finish_text(&p, p.dtype(), out)
}

/// The bytes of a text DataItem (`None` when missing).
fn item_bytes(x: &DataSlice) -> Option<&[u8]> {
    match x.get(0) {
        Some(ScalarRef::String(s)) => Some(s.as_bytes()),
        Some(ScalarRef::Bytes(b)) => Some(b),
        _ => None,
    }
}

/// Splits each item of `x` by `sep` (runs of whitespace when `sep` is
/// missing; code points when `sep` is empty); the parts form a new last
/// dimension, empty for missing items.
pub fn split(x: &DataSlice, sep: &DataSlice) -> Result<DataSlice> {
    let op = "kd.strings.split";
    let promotion = promote_text(op, &[("x", x), ("sep", sep)], TypeClass::Text)?;
    expect_rank0(op, "sep", sep)?;
    let p = prepare_each(op, &[("x", x)], &[promotion.dtype], promotion)?;
    let schema = promotion.schema(promotion.dtype);
    let n = p.len();
    let Some(values) = text_of(&p.operands[0]) else {
        let shape = x.shape().with_edge(Edge::from_sizes(&vec![0; n])?)?;
        return Ok(DataSlice::missing(shape, schema));
    };
    let is_string = promotion.dtype == Schema::String;
    let sep = item_bytes(sep);
    let finder = sep.filter(|s| !s.is_empty()).map(memmem::Finder::new);
    let mut sizes = Vec::with_capacity(n);
    let mut out = VarBinaryBuilder::with_capacities(n, values.data.len());
    let mut count = 0usize;
    for i in 0..n {
        let before = count;
        if p.operands[0].is_present(i) {
            let h = values.value(i);
            let mut push = |part: &[u8]| {
                out.push(part);
                count += 1;
            };
            match (sep, &finder) {
                (None, _) => {
                    for part in h.split(|b| is_c_space(*b)).filter(|p| !p.is_empty()) {
                        push(part);
                    }
                }
                (Some(_), Some(f)) => {
                    let mut pos = 0;
                    while let Some(k) = f.find(&h[pos..]) {
                        push(&h[pos..pos + k]);
                        pos += k + f.needle().len();
                    }
                    push(&h[pos..]);
                }
                (Some(_), None) if is_string => {
                    let s = std::str::from_utf8(h).unwrap_or_default();
                    for (k, c) in s.char_indices() {
                        push(&h[k..k + c.len_utf8()]);
                    }
                }
                (Some(_), None) => {
                    for k in 0..h.len() {
                        push(&h[k..k + 1]);
                    }
                }
            }
        }
        sizes.push((count - before) as i64);
    }
    let shape = x.shape().with_edge(Edge::from_sizes(&sizes)?)?;
    let parts = out.finish();
    let values = if is_string { Values::String(parts) } else { Values::Bytes(parts) };
    let column = Column::full(values);
    let data = SliceData::from_column(column);
    DataSlice::new(shape, data, schema)
}

/// Joins the present items along the last `ndim` dimensions with `sep`
/// between them; groups without present items give missing.
pub fn agg_join(x: &DataSlice, sep: &DataSlice, ndim: Option<i64>) -> Result<DataSlice> {
    let op = "kd.strings.agg_join";
    let promotion = promote_text(op, &[("x", x), ("sep", sep)], TypeClass::Text)?;
    expect_rank0(op, "sep", sep)?;
    let g = groups(op, x, ndim)?;
    let p = prepare_each(op, &[("x", x)], &[promotion.dtype], promotion)?;
    let schema = promotion.schema(promotion.dtype);
    let Some(values) = text_of(&p.operands[0]) else {
        return Ok(DataSlice::missing(g.shape.clone(), schema));
    };
    let sep = item_bytes(sep).unwrap_or(b"");
    let operand = &p.operands[0];
    let edge = &g.edge;
    let out = text_map(g.len(), None, values.data.len() + sep.len() * values.len(), |k, out| {
        let mut any = false;
        for i in edge.child_range(k) {
            if operand.is_present(i) {
                if any {
                    out.extend_from_slice(sep);
                }
                out.extend_from_slice(values.value(i));
                any = true;
            }
        }
        any
    });
    let (values, presence) = out;
    let values = if promotion.dtype == Schema::Bytes { Values::Bytes(values) } else { Values::String(values) };
    let column = Column::new(values, presence);
    let data = SliceData::from_column(column);
    DataSlice::new(g.shape, data, schema)
}
