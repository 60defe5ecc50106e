//! Koda's text forms of items, slices and schemas.
//!
//! `repr` of a slice: `DataSlice([1, None], schema: INT32, present: 1/2)`;
//! of an item: `DataItem(1, schema: INT32)`. `str` prints the items alone. Large
//! slices are abbreviated with `...` per dimension.

use std::fmt::Write;

use crate::bag::text::{item_node, schema_text};
use crate::column::ScalarRef;
use crate::schema::Schema;
use crate::slice::DataSlice;

/// How many items of one dimension are printed before `...`.
pub const ITEMS_PER_DIM_WHEN_ABBREVIATED: usize = 5;
/// Slices with more items than this are abbreviated.
pub const MAX_ITEMS_UNABBREVIATED: usize = 20;

/// How a finite float is laid out by [`write_float`]: the decimal exponents
/// written positionally, and the form of the exponent otherwise.
pub struct FloatLayout {
    /// Exponents (of the shortest scientific form) written as `123.45`.
    pub positional: std::ops::Range<i32>,
    /// `e+16` / `e-05` (Python's `repr`) rather than `e16` / `e-5`.
    pub python_exponent: bool,
}

/// Koda's layout of floats in reprs: positional for 1e-6 <= |x| < 1e21.
pub const KODA_FLOATS: FloatLayout = FloatLayout { positional: -6..21, python_exponent: false };

/// Writes finite `x` from `sci`, its shortest round-trip scientific form
/// (Rust's `{:e}`, e.g. "-1.25e-10"), laid out as `layout` says: whole
/// numbers end in `.0`, zero keeps its sign.
pub fn write_float(out: &mut String, x: f64, sci: &str, layout: &FloatLayout) {
    if x == 0.0 {
        out.push_str(if x.is_sign_negative() { "-0.0" } else { "0.0" });
        return;
    }
    let (mantissa, exp) = sci.split_once('e').expect("scientific form has an exponent");
    let exp: i32 = exp.parse().expect("exponent is an integer");
    let (sign, mantissa) = mantissa.strip_prefix('-').map_or(("", mantissa), |m| ("-", m));
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let digits = digits.trim_end_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    out.push_str(sign);
    if !layout.positional.contains(&exp) {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        if layout.python_exponent {
            write!(out, "e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs()).unwrap();
        } else {
            write!(out, "e{exp}").unwrap();
        }
        return;
    }
    let point = exp + 1; // digits before the decimal point
    if point <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-point) as usize));
        out.push_str(digits);
    } else if point as usize >= digits.len() {
        out.push_str(digits);
        out.extend(std::iter::repeat_n('0', point as usize - digits.len()));
        out.push_str(".0");
    } else {
        out.push_str(&digits[..point as usize]);
        out.push('.');
        out.push_str(&digits[point as usize..]);
    }
}

/// Formats a float the way Koda prints it: the shortest digits that round-trip
/// at the value's width, in positional notation for 1e-6 <= |x| < 1e21 (with a
/// trailing `.0` on whole numbers) and as `1.5e-7` / `1e21` otherwise.
pub fn format_float(x: f64, sci: String) -> String {
    if x.is_nan() {
        return "nan".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    let mut out = String::new();
    write_float(&mut out, x, &sci, &KODA_FLOATS);
    out
}

/// Koda's text of an f32.
pub fn format_f32(x: f32) -> String {
    format_float(x as f64, format!("{x:e}"))
}

/// Koda's text of an f64.
pub fn format_f64(x: f64) -> String {
    format_float(x, format!("{x:e}"))
}

/// Writes `bytes` as a Python bytes literal (`b'a\x00'`).
pub fn write_bytes_literal(out: &mut String, bytes: &[u8]) {
    out.push_str("b'");
    for &b in bytes {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'\'' => out.push_str("\\'"),
            b'"' => out.push_str("\\\""),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x20..=0x7e => out.push(b as char),
            _ => write!(out, "\\x{b:02x}").unwrap(),
        }
    }
    out.push('\'');
}

/// Writes `s` quoted, as Koda prints text inside a slice (`'it\'s'`).
pub fn write_string_literal(out: &mut String, s: &str) {
    out.push('\'');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => write!(out, "\\x{:02x}", c as u32).unwrap(),
            c => out.push(c),
        }
    }
    out.push('\'');
}

/// One present value as Koda quotes it in messages (`1`, `'s'`, `$id`).
pub fn item_text(item: ScalarRef<'_>) -> String {
    let mut out = String::new();
    write_item(&mut out, Some(item), Schema::Object, true);
    out
}

/// Writes one item as it appears inside a slice of `schema`. In an OBJECT slice
/// the wide numeric types are tagged (`int64{1}`, `float64{1.0}`) because their
/// type cannot be told from the digits.
pub fn write_item(out: &mut String, item: Option<ScalarRef<'_>>, schema: Schema, quote_text: bool) {
    let tag_wide = schema == Schema::Object;
    match item {
        None if schema == Schema::Mask => out.push_str("missing"),
        None => out.push_str("None"),
        Some(ScalarRef::Int32(v)) => write!(out, "{v}").unwrap(),
        Some(ScalarRef::Int64(v)) if tag_wide => write!(out, "int64{{{v}}}").unwrap(),
        Some(ScalarRef::Int64(v)) => write!(out, "{v}").unwrap(),
        Some(ScalarRef::Float32(v)) => out.push_str(&format_f32(v)),
        Some(ScalarRef::Float64(v)) if tag_wide => write!(out, "float64{{{}}}", format_f64(v)).unwrap(),
        Some(ScalarRef::Float64(v)) => out.push_str(&format_f64(v)),
        Some(ScalarRef::Boolean(v)) => out.push_str(if v { "True" } else { "False" }),
        Some(ScalarRef::Mask) => out.push_str("present"),
        Some(ScalarRef::Bytes(v)) => write_bytes_literal(out, v),
        Some(ScalarRef::String(v)) if quote_text => write_string_literal(out, v),
        Some(ScalarRef::String(v)) => out.push_str(v),
        Some(ScalarRef::Schema(v)) => write!(out, "{v}").unwrap(),
        // ITEMID items name their kind (`Entity:$…`); entities, lists and
        // dicts printed without their bag show the bare id, as Koda does.
        Some(ScalarRef::ItemId(v)) if schema == Schema::ItemId => out.push_str(&v.repr()),
        Some(ScalarRef::ItemId(v)) => out.push_str(&v.short()),
        Some(ScalarRef::Expr(v)) => out.push_str(&v.text()),
    }
}

/// The items of `slice` as nested lists (`[[1, 2], [3]]`), abbreviated when
/// large. `repr_mode` also shortens very long text items.
pub fn format_items_with(slice: &DataSlice, repr_mode: bool) -> String {
    let mut out = String::new();
    if slice.is_item() {
        item_node(slice.get(0), slice.schema(), slice.bag(), false).render(0, &mut out);
        return out;
    }
    let abbreviate = slice.size() > MAX_ITEMS_UNABBREVIATED;
    let mut budget = if abbreviate { MAX_ITEMS_UNABBREVIATED } else { usize::MAX };
    build_tree(slice, 0, 0, abbreviate, &mut budget, repr_mode).render(0, &mut out);
    out
}

/// `str` of a slice: its items as nested lists.
pub fn format_items(slice: &DataSlice) -> String {
    format_items_with(slice, false)
}

/// A group whose elements take more than this many characters on one line
/// is printed one element per line.
const MAX_INNER_LINE: usize = 88;
/// Text items longer than this (in characters) are shortened in `repr`.
const MAX_TEXT_CHARS: usize = 256;

/// Printed text with its nesting, so that long groups can wrap: the rows of
/// a slice (`[...]`), and the attributes, items or entries of an entity,
/// object, list or dict (`Obj(...)`, `List[...]`, `Dict{...}`).
pub enum Node {
    Leaf(String),
    Group { open: String, close: String, children: Vec<Node>, one_line: String },
}

impl Node {
    /// A group of `children` between `open` and `close`.
    pub fn group(open: impl Into<String>, close: impl Into<String>, children: Vec<Node>) -> Node {
        let (open, close) = (open.into(), close.into());
        let inner = children.iter().map(Node::one_line).collect::<Vec<_>>().join(", ");
        let one_line = format!("{open}{inner}{close}");
        Node::Group { open, close, children, one_line }
    }

    pub fn one_line(&self) -> &str {
        match self {
            Node::Leaf(text) => text,
            Node::Group { one_line, .. } => one_line,
        }
    }

    /// Writes the node on one line when its elements fit, else one element
    /// per line, indented by `indent` levels.
    pub fn render(&self, indent: usize, out: &mut String) {
        match self {
            Node::Group { open, close, children, one_line } if one_line.chars().count() - open.chars().count() - close.len() > MAX_INNER_LINE => {
                out.push_str(open);
                out.push('\n');
                for child in children {
                    out.extend(std::iter::repeat_n("  ", indent + 1));
                    child.render(indent + 1, out);
                    out.push_str(",\n");
                }
                out.extend(std::iter::repeat_n("  ", indent));
                out.push_str(close);
            }
            other => out.push_str(other.one_line()),
        }
    }

    /// The node with `prefix` before it and `suffix` after it on its
    /// first and last lines (`name=` before an attribute's value, `LIST[`
    /// and `]` around an item schema); a group still wraps by its own
    /// elements.
    pub fn wrapped(self, prefix: &str, suffix: &str) -> Node {
        match self {
            Node::Leaf(text) => Node::Leaf(format!("{prefix}{text}{suffix}")),
            Node::Group { open, close, children, .. } => Node::group(format!("{prefix}{open}"), format!("{close}{suffix}"), children),
        }
    }

    /// The text, wrapped where groups are too long for one line.
    pub fn rendered(&self) -> String {
        let mut out = String::new();
        self.render(0, &mut out);
        out
    }

    /// A leaf's text through `f` (groups unchanged).
    fn map_leaf(self, f: impl FnOnce(String) -> String) -> Node {
        match self {
            Node::Leaf(text) => Node::Leaf(f(text)),
            group => group,
        }
    }
}

/// Builds the printed tree of row `parent` of dimension `dim`. When
/// abbreviating, each list shows at most 5 elements and at most `budget` leaf
/// items are shown in total; a last-dimension list reached with no budget left
/// prints as `[...]`.
fn build_tree(slice: &DataSlice, dim: usize, parent: usize, abbreviate: bool, budget: &mut usize, repr_mode: bool) -> Node {
    let range = slice.shape().edges()[dim].child_range(parent);
    let is_last = dim + 1 == slice.rank();
    let mut shown = if abbreviate { range.len().min(ITEMS_PER_DIM_WHEN_ABBREVIATED) } else { range.len() };
    let mut children = Vec::new();
    if is_last {
        if *budget == 0 && !range.is_empty() {
            return Node::Leaf("[...]".to_string());
        }
        shown = shown.min(*budget);
        for i in range.clone().take(shown) {
            let node = item_node(slice.get(i), slice.schema(), slice.bag(), true);
            children.push(if repr_mode { node.map_leaf(shorten_text_item) } else { node });
        }
        *budget -= shown;
    } else {
        for i in range.clone().take(shown) {
            children.push(build_tree(slice, dim + 1, i, abbreviate, budget, repr_mode));
        }
    }
    if shown < range.len() {
        children.push(Node::Leaf("...".to_string()));
    }
    Node::group("[", "]", children)
}

/// A quoted text item over 256 characters, as its first and last 128 around
/// `'...'`.
fn shorten_text(text: String) -> String {
    // `text` is a quoted literal; count the characters between the quotes.
    let chars: Vec<char> = text.chars().collect();
    let (prefix_len, body) = if text.starts_with("b'") { (2, &chars[2..chars.len() - 1]) } else { (1, &chars[1..chars.len() - 1]) };
    if body.len() <= MAX_TEXT_CHARS {
        return text;
    }
    let head: String = chars[..prefix_len].iter().chain(&body[..128]).collect();
    let tail: String = body[body.len() - 128..].iter().collect();
    format!("{head}'...'{tail}'")
}

fn shorten_text_item(text: String) -> String {
    if text.starts_with('\'') || text.starts_with("b'") { shorten_text(text) } else { text }
}

/// Koda's `repr` of a slice or item.
pub fn repr_slice(slice: &DataSlice) -> String {
    let schema = schema_text(slice.schema(), slice.bag());
    let bag = slice.bag().map(|b| format!(", bag_id: {}", b.short_id())).unwrap_or_default();
    if slice.is_item() {
        let mut item = String::new();
        item_node(slice.get(0), slice.schema(), slice.bag(), true).map_leaf(shorten_text_item).render(0, &mut item);
        return format!("DataItem({item}, schema: {schema}{bag})");
    }
    format!("DataSlice({}, schema: {schema}, present: {}/{}{bag})", format_items_with(slice, true), slice.present_count(), slice.size())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_like_koda() {
        let cases: [(f32, &str); 10] = [
            (0.1, "0.1"),
            (1e20, "100000000000000000000.0"),
            (1e21, "1e21"),
            (1e-7, "1e-7"),
            (1.5e-7, "1.5e-7"),
            (1e-6, "0.000001"),
            (123456789.0, "123456790.0"),
            (1.0, "1.0"),
            (12345.678, "12345.678"),
            (-0.5, "-0.5"),
        ];
        for (x, want) in cases {
            assert_eq!(format_f32(x), want, "{x}");
        }
        assert_eq!(format_f64(1.7976931348623157e308), "1.7976931348623157e308");
        assert_eq!(format_f64(5e-324), "5e-324");
        assert_eq!(format_f32(f32::NAN), "nan");
        assert_eq!(format_f32(f32::NEG_INFINITY), "-inf");
    }

    #[test]
    fn text_literals() {
        let mut s = String::new();
        write_string_literal(&mut s, "a'b\"c\n");
        assert_eq!(s, r#"'a\'b"c\n'"#);
        let mut b = String::new();
        write_bytes_literal(&mut b, b"\x00\xffa");
        assert_eq!(b, r"b'\x00\xffa'");
    }
}
