//! Koda's text forms of items, slices and schemas.
//!
//! `repr` of a slice: `DataSlice([1, None], schema: INT32, present: 1/2)`;
//! of an item: `DataItem(1, schema: INT32)`. `str` prints the items alone. Large
//! slices are abbreviated with `...` per dimension.

use std::fmt::Write;

use crate::bag::text::{item_node, limited, schema_text_with};
use crate::column::ScalarRef;
use crate::schema::Schema;
use crate::slice::DataSlice;

/// How much of a value its text shows (`kd.get_repr`'s options).
#[derive(Clone, Debug)]
pub struct ReprOptions {
    /// Entities, lists and dicts nested this deep print as their ids.
    pub depth: usize,
    /// A slice with more items is abbreviated, showing at most this many
    /// items in all; lists, dicts and entities show at most this many
    /// items, entries and attributes. `None`: no limit.
    pub item_limit: Option<usize>,
    /// How many items of one dimension an abbreviated slice shows.
    pub item_limit_per_dimension: usize,
    /// Text and bytes longer than this show their two ends only.
    pub max_str_len: Option<usize>,
    /// HTML with spans naming each element (for notebooks).
    pub html: bool,
    /// Whether the entities, objects, lists and dicts of a slice show their
    /// contents (else their ids, `Entity:$...`).
    pub attributes: bool,
}

/// The deepest nesting any text shows (a deeper `depth` is this one).
pub const MAX_REPR_DEPTH: usize = 256;

/// The most entities, lists, dicts and struct schemas one text expands
/// (data shared along many paths, with a large `depth`, would otherwise
/// expand exponentially often); past it they print as their ids.
pub const MAX_EXPANSIONS: usize = 10_000;

/// One text being built: its options, and how many more entities, lists,
/// dicts and schemas it may expand.
pub struct Printer<'a> {
    options: &'a ReprOptions,
    expansions_left: std::cell::Cell<usize>,
    /// Whether a value was met that its schema cannot read (an INT32
    /// stored where the schema now says INT64, after `kd.set_schema`):
    /// Koda then prints the items as their ids, the whole text.
    unreadable: std::cell::Cell<bool>,
    /// Whether an object without a schema in its bag was to be expanded
    /// (`shallow_clone` keeps an object attribute's id, not its schema):
    /// Koda then prints the item of the slice holding it as its id.
    schemaless: std::cell::Cell<bool>,
}

impl<'a> Printer<'a> {
    pub fn new(options: &'a ReprOptions) -> Printer<'a> {
        Printer {
            options,
            expansions_left: std::cell::Cell::new(MAX_EXPANSIONS),
            unreadable: std::cell::Cell::new(false),
            schemaless: std::cell::Cell::new(false),
        }
    }

    /// Notes an object without a schema met where it would be expanded.
    pub fn note_schemaless(&self) {
        self.schemaless.set(true);
    }

    /// Notes a value of another primitive type than its schema `schema`.
    pub fn check_readable(&self, item: Option<ScalarRef<'_>>, schema: Schema) {
        if schema.is_primitive() && item.is_some_and(|v| v.dtype() != schema) {
            self.unreadable.set(true);
        }
    }

    /// Whether a value its schema cannot read was met.
    fn met_unreadable(&self) -> bool {
        self.unreadable.get()
    }

    /// Whether one more value may show its contents (counting it).
    pub fn expand(&self) -> bool {
        let left = self.expansions_left.get();
        self.expansions_left.set(left.saturating_sub(1));
        left > 0
    }
}

impl std::ops::Deref for Printer<'_> {
    type Target = ReprOptions;

    fn deref(&self) -> &ReprOptions {
        self.options
    }
}

/// What `repr` shows.
pub const REPR: ReprOptions =
    ReprOptions { depth: 5, item_limit: Some(20), item_limit_per_dimension: 5, max_str_len: Some(256), html: false, attributes: true };

/// What `str` shows: as `repr`, with text in full.
pub const STR: ReprOptions = ReprOptions { max_str_len: None, ..REPR };

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
pub fn write_float<W: Write>(out: &mut W, x: f64, sci: &str, layout: &FloatLayout) {
    // (Writing to a String or a byte buffer cannot fail.)
    let _ = write_float_parts(out, x, sci, layout);
}

fn write_float_parts<W: Write>(out: &mut W, x: f64, sci: &str, layout: &FloatLayout) -> std::fmt::Result {
    if x == 0.0 {
        return out.write_str(if x.is_sign_negative() { "-0.0" } else { "0.0" });
    }
    let (mantissa, exp) = sci.split_once('e').expect("scientific form has an exponent");
    let exp: i32 = exp.parse().expect("exponent is an integer");
    let (sign, mantissa) = mantissa.strip_prefix('-').map_or(("", mantissa), |m| ("-", m));
    // The significant digits without the point (at most 17, and a few
    // more for `{:.N$e}` forms), in a buffer on the stack.
    let mut buf = [0u8; 40];
    let mut len = 0;
    for d in mantissa.bytes().filter(|&c| c != b'.').take(buf.len()) {
        buf[len] = d;
        len += 1;
    }
    let digits = std::str::from_utf8(&buf[..len]).unwrap_or("0").trim_end_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    out.write_str(sign)?;
    if !layout.positional.contains(&exp) {
        out.write_str(&digits[..1])?;
        if digits.len() > 1 {
            out.write_char('.')?;
            out.write_str(&digits[1..])?;
        }
        return if layout.python_exponent { write!(out, "e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs()) } else { write!(out, "e{exp}") };
    }
    let point = exp + 1; // digits before the decimal point
    if point <= 0 {
        out.write_str("0.")?;
        for _ in 0..-point {
            out.write_char('0')?;
        }
        out.write_str(digits)
    } else if point as usize >= digits.len() {
        out.write_str(digits)?;
        for _ in digits.len()..point as usize {
            out.write_char('0')?;
        }
        out.write_str(".0")
    } else {
        out.write_str(&digits[..point as usize])?;
        out.write_char('.')?;
        out.write_str(&digits[point as usize..])
    }
}

/// Writes a float the way Koda prints it: the shortest digits that
/// round-trip at the value's width (`sci`, see [`shortest`]), in positional
/// notation for 1e-6 <= |x| < 1e21 (with a trailing `.0` on whole numbers)
/// and as `1.5e-7` / `1e21` otherwise.
fn write_koda_float<W: Write>(out: &mut W, x: f64, sci: &str) {
    if x.is_nan() {
        let _ = out.write_str("nan");
    } else if x.is_infinite() {
        let _ = out.write_str(if x > 0.0 { "inf" } else { "-inf" });
    } else {
        write_float(out, x, sci, &KODA_FLOATS);
    }
}

/// Writes Koda's text of an f32 (no heap allocation: a column of them is
/// written into one buffer).
pub fn write_f32<W: Write>(out: &mut W, x: f32) {
    write_koda_float(out, x as f64, &shortest(x));
}

/// Writes Koda's text of an f64.
pub fn write_f64<W: Write>(out: &mut W, x: f64) {
    write_koda_float(out, x, &shortest(x));
}

/// Koda's text of an f32.
pub fn format_f32(x: f32) -> String {
    let mut out = String::with_capacity(24);
    write_f32(&mut out, x);
    out
}

/// Koda's text of an f64.
pub fn format_f64(x: f64) -> String {
    let mut out = String::with_capacity(32);
    write_f64(&mut out, x);
    out
}

/// A float's scientific form, kept on the stack (Rust's `{:e}` of any f64
/// takes at most 24 bytes; the rare re-rounded forms of [`shortest`] fit
/// too).
struct SciText {
    buf: [u8; 40],
    len: usize,
}

impl SciText {
    fn new() -> SciText {
        SciText { buf: [0; 40], len: 0 }
    }
}

impl Write for SciText {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        if end > self.buf.len() {
            return Err(std::fmt::Error);
        }
        self.buf[self.len..end].copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

impl std::ops::Deref for SciText {
    type Target = str;

    fn deref(&self) -> &str {
        // SAFETY: only whole `&str`s are ever copied into the buffer
        // (`write_str`, which refuses one that does not fit), so its first
        // `len` bytes are valid UTF-8.
        unsafe { std::str::from_utf8_unchecked(&self.buf[..self.len]) }
    }
}

/// The shortest scientific form of `x` that reads back as `x` and, where
/// two such forms are equally near `x`, the one whose last digit is even
/// (as Koda, Python and numpy print 131072.125f32: `131072.12`, and
/// 1e15 + 0.25: `1000000000000000.2`; Rust's `{:e}` gives the odd digit).
/// A form ending in an odd digit may be such a tie: `x`'s exact value
/// rounded half-even to as many digits (Rust's `{:.N$e}` is exact) is the
/// even one where it reads back as `x`.
///
/// A tie needs `x * 10^s` to be exactly half an odd integer, where `s` is
/// the number of digits after the point at the form's precision: for
/// `s >= 0` that holds only if `x`'s lowest set bit is `2^-(s + 1)`, which
/// rules out almost every value without formatting it again.
fn shortest<F: Dyadic>(x: F) -> SciText {
    let mut sci = SciText::new();
    let _ = write!(sci, "{x:e}");
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&*sci, "0"));
    if mantissa.bytes().last().is_none_or(|d| !d.is_ascii_digit() || (d - b'0') % 2 == 0) {
        return sci;
    }
    let digits = mantissa.bytes().filter(u8::is_ascii_digit).count();
    let places = digits as i64 - 1 - exponent.parse::<i64>().unwrap_or(0);
    if places >= 0 && x.lowest_bit_exponent() as i64 != -(places + 1) {
        return sci;
    }
    let mut even = SciText::new();
    let _ = write!(even, "{:.*e}", digits.saturating_sub(1), x);
    if even.parse::<F>().is_ok_and(|y| y == x) { even } else { sci }
}

/// A binary float: `x = odd * 2^e` for finite nonzero `x`, with `e` given
/// by [`Dyadic::lowest_bit_exponent`].
trait Dyadic: std::fmt::LowerExp + std::str::FromStr + PartialEq + Copy {
    /// The exponent of the lowest set bit of the value (meaningless for
    /// zero, infinities and NaN).
    fn lowest_bit_exponent(self) -> i32;
}

impl Dyadic for f32 {
    fn lowest_bit_exponent(self) -> i32 {
        let bits = self.to_bits();
        let (exp, fraction) = ((bits >> 23) & 0xff, bits & 0x7f_ffff);
        // Normal values carry the implicit leading bit; subnormals do not.
        let significand = if exp == 0 { fraction } else { fraction | 1 << 23 };
        significand.trailing_zeros() as i32 + (exp.max(1) as i32) - 150
    }
}

impl Dyadic for f64 {
    fn lowest_bit_exponent(self) -> i32 {
        let bits = self.to_bits();
        let (exp, fraction) = ((bits >> 52) & 0x7ff, bits & ((1 << 52) - 1));
        let significand = if exp == 0 { fraction } else { fraction | 1 << 52 };
        significand.trailing_zeros() as i32 + (exp.max(1) as i32) - 1075
    }
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

/// The items of `slice` as nested lists (`[[1, 2], [3]]`), abbreviated as
/// `options` say; an item alone without quotes around text.
pub fn format_items_as(slice: &DataSlice, options: &ReprOptions) -> String {
    let printer = Printer::new(options);
    let text = if slice.is_item() { top_item_node(slice.get(0), slice, false, &printer).rendered() } else { items_node(slice, &printer).rendered() };
    if printer.met_unreadable() { ids_text(slice, options) } else { text }
}

/// One item of `slice` (at the top, not inside another value) as a node;
/// when an object without a schema is met inside it, the item's id instead
/// (`Entity:$...` for an item alone, as [`id_text`] in a slice).
fn top_item_node(item: Option<ScalarRef<'_>>, slice: &DataSlice, quote: bool, o: &Printer<'_>) -> Node {
    o.schemaless.set(false);
    let node = item_node(item, slice.schema(), slice.bag(), quote, o);
    match item {
        Some(ScalarRef::ItemId(id)) if o.schemaless.get() => {
            Node::Leaf(if slice.is_item() { id.repr() } else { id_text(ScalarRef::ItemId(id), slice.schema(), slice.bag(), o.html) })
        }
        _ => node,
    }
}

/// The items of `slice` as their ids (`Entity:$...`), what Koda prints when
/// a value inside cannot be read under its schema.
fn ids_text(slice: &DataSlice, options: &ReprOptions) -> String {
    let ids_only = ReprOptions { attributes: false, ..options.clone() };
    match slice.get(0) {
        // (An item alone is not marked up, as in Koda.)
        Some(item) if slice.is_item() => id_text(item, slice.schema(), slice.bag(), false),
        _ => items_node(slice, &Printer::new(&ids_only)).rendered(),
    }
}

/// The rows of `slice` as a printable tree.
fn items_node(slice: &DataSlice, options: &Printer<'_>) -> Node {
    let abbreviate = options.item_limit.is_some_and(|limit| slice.size() > limit);
    let mut budget = if abbreviate { options.item_limit.unwrap_or(usize::MAX) } else { usize::MAX };
    build_tree(slice, 0, 0, abbreviate, &mut budget, options)
}

/// `str` of a slice: its items as nested lists.
pub fn format_items(slice: &DataSlice) -> String {
    format_items_as(slice, &STR)
}

/// A group whose elements take more than this many characters on one line
/// is printed one element per line.
const MAX_INNER_LINE: usize = 88;

/// Printed text with its nesting, so that long groups can wrap: the rows of
/// a slice (`[...]`), and the attributes, items or entries of an entity,
/// object, list or dict (`Obj(...)`, `List[...]`, `Dict{...}`).
pub enum Node {
    Leaf(String),
    Group {
        open: String,
        close: String,
        children: Vec<Node>,
        one_line: String,
        /// The width of the elements that decides wrapping: their
        /// characters (in HTML, the visible ones).
        inner_width: usize,
    },
}

/// What stands for items left out, in HTML.
pub const LIMITED_HTML: &str = "<span class=\"limited\">...</span>";

/// The width of HTML `text` for wrapping, as Koda counts it: the characters
/// outside tags, except that the marker of items left out counts whole.
fn visible_width(text: &str) -> usize {
    let mut in_tag = false;
    let visible = text
        .chars()
        .filter(|&c| match c {
            '<' => {
                in_tag = true;
                false
            }
            '>' if in_tag => {
                in_tag = false;
                false
            }
            _ => !in_tag,
        })
        .count();
    visible + text.matches(LIMITED_HTML).count() * (LIMITED_HTML.len() - 3)
}

impl Node {
    /// A group of `children` between `open` and `close`.
    pub fn group(open: impl Into<String>, close: impl Into<String>, children: Vec<Node>) -> Node {
        Node::group_measured(open.into(), close.into(), children, false)
    }

    /// A group in text that may be HTML: its wrapping counts the visible
    /// characters only.
    pub fn group_html(open: impl Into<String>, close: impl Into<String>, children: Vec<Node>, html: bool) -> Node {
        Node::group_measured(open.into(), close.into(), children, html)
    }

    fn group_measured(open: String, close: String, children: Vec<Node>, html: bool) -> Node {
        let inner = children.iter().map(Node::one_line).collect::<Vec<_>>().join(", ");
        let inner_width = if html { visible_width(&inner) } else { inner.chars().count() };
        let one_line = format!("{open}{inner}{close}");
        Node::Group { open, close, children, one_line, inner_width }
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
            Node::Group { open, close, children, inner_width, .. } if *inner_width > MAX_INNER_LINE => {
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
            Node::Group { open, close, children, inner_width, .. } => {
                let (open, close) = (format!("{prefix}{open}"), format!("{close}{suffix}"));
                // The prefix and suffix are outside the elements: the width
                // that decides wrapping is the same.
                let inner = children.iter().map(Node::one_line).collect::<Vec<_>>().join(", ");
                let one_line = format!("{open}{inner}{close}");
                Node::Group { open, close, children, one_line, inner_width }
            }
        }
    }

    /// The text, wrapped where groups are too long for one line.
    pub fn rendered(&self) -> String {
        let mut out = String::new();
        self.render(0, &mut out);
        out
    }
}

/// Builds the printed tree of row `parent` of dimension `dim`. When
/// abbreviating, each row shows at most `item_limit_per_dimension` elements
/// and at most `budget` leaf items are shown in total; a last-dimension row
/// reached with no budget left prints as `[...]`.
fn build_tree(slice: &DataSlice, dim: usize, parent: usize, abbreviate: bool, budget: &mut usize, o: &Printer<'_>) -> Node {
    let range = slice.shape().edges()[dim].child_range(parent);
    let is_last = dim + 1 == slice.rank();
    let mut shown = if abbreviate { range.len().min(o.item_limit_per_dimension) } else { range.len() };
    let mut children = Vec::new();
    let index = |k: usize| format!("slice-index=\"{k}\"");
    if is_last {
        if *budget == 0 && !range.is_empty() {
            return Node::group("[", "]", vec![limited(o.html)]);
        }
        shown = shown.min(*budget);
        for (k, i) in range.clone().take(shown).enumerate() {
            let node = match slice.get(i) {
                Some(item) if !o.attributes => Node::Leaf(id_text(item, slice.schema(), slice.bag(), o.html)),
                item => top_item_node(item, slice, true, o),
            };
            children.push(if o.html { node.wrapped(&format!("<span {}>", index(k)), "</span>") } else { node });
        }
        *budget -= shown;
    } else {
        for (k, i) in range.clone().take(shown).enumerate() {
            let node = build_tree(slice, dim + 1, i, abbreviate, budget, o);
            children.push(if o.html { node.wrapped(&format!("<span {}>", index(k)), "</span>") } else { node });
        }
    }
    if shown < range.len() {
        children.push(limited(o.html));
    }
    Node::group_html("[", "]", children, o.html)
}

/// An item of a slice without its contents: entities, objects, lists and
/// dicts as `Entity:$id`, `Obj:$id`, `List:$id`, `Dict:$id`, struct schemas
/// as their ids, everything else as it prints.
fn id_text(item: ScalarRef<'_>, schema: Schema, bag: Option<&crate::bag::DataBag>, html: bool) -> String {
    // (HTML marks the id itself: `Entity:<span class="object-id">$…</span>`.)
    let marked = |kind: &str, id: crate::itemid::ItemId| {
        if html { format!("{kind}:<span class=\"object-id\">{}</span>", id.short()) } else { format!("{kind}:{}", id.short()) }
    };
    match item {
        ScalarRef::ItemId(id) if schema == Schema::Object && !id.is_list() && !id.is_dict() => marked("Obj", id),
        ScalarRef::ItemId(id) if schema != Schema::ItemId => marked(id.kind_name(), id),
        ScalarRef::Schema(Schema::Struct(id)) => id.short(),
        other => item_node(Some(other), schema, bag, true, &Printer::new(&ReprOptions { html, ..REPR })).rendered(),
    }
}

/// What a header shows after the items (`kd.get_repr`'s `show_*` flags).
#[derive(Clone, Debug, Default)]
pub struct Header {
    pub schema: bool,
    pub present_count: bool,
    pub shape: bool,
    pub bag_id: bool,
    pub item_id: bool,
}

impl Header {
    /// What `repr` shows.
    pub const REPR: Header = Header { schema: true, present_count: true, shape: false, bag_id: true, item_id: false };
    /// What Koda's argument errors print of a slice: its schema and shape.
    pub const WITH_SHAPE: Header = Header { schema: true, present_count: false, shape: true, bag_id: true, item_id: false };

    fn any(&self) -> bool {
        self.schema || self.present_count || self.shape || self.bag_id
    }
}

/// The attribute names summarising a large slice of entities (Koda prints
/// `DataSlice(attrs: [a, b], ...)` rather than their items): when `slice`
/// has at least `item_limit` items, has a bag and holds only entities
/// (objects that are entities, or none at all), the sorted names of their
/// attributes.
fn attrs_summary(slice: &DataSlice, o: &ReprOptions) -> Option<String> {
    // Koda summarises from `item_limit` items on (an item too).
    let bag = slice.bag()?;
    if o.item_limit.is_none_or(|limit| slice.size() < limit) {
        return None;
    }
    let mut schemas: Vec<crate::itemid::ItemId> = Vec::new();
    match slice.schema() {
        Schema::Struct(id) if !id.is_nofollow() && !is_container_schema(bag, id) => schemas.push(id),
        Schema::Object => {
            for i in 0..slice.size() {
                match slice.get(i) {
                    None => {}
                    Some(ScalarRef::ItemId(id)) if !id.is_list() && !id.is_dict() => {
                        match bag.get_one(crate::bag::SCHEMA_ATTR, id).and_then(|v| v.schema()) {
                            Some(Schema::Struct(s)) if !s.is_nofollow() => {
                                if !schemas.contains(&s) {
                                    schemas.push(s);
                                }
                            }
                            _ => return None,
                        }
                    }
                    Some(_) => return None,
                }
            }
        }
        _ => return None,
    }
    let mut names: Vec<String> = schemas.iter().flat_map(|s| bag.attr_names(*s)).filter(|n| !crate::bag::is_internal_attr(n)).collect();
    names.sort();
    names.dedup();
    Some(format!("attrs: [{}]", names.join(", ")))
}

fn is_container_schema(bag: &crate::bag::DataBag, id: crate::itemid::ItemId) -> bool {
    use crate::bag::text::{DICT_KEYS_ATTR, LIST_ITEMS_ATTR};
    bag.get_one(LIST_ITEMS_ATTR, id).is_some() || bag.get_one(DICT_KEYS_ATTR, id).is_some()
}

/// `slice` as text: its items (or the attribute summary of a large slice of
/// entities) and, when `header` asks for any, `DataSlice(...)` /
/// `DataItem(...)` around them with what it asks for.
pub fn repr_with(slice: &DataSlice, options: &ReprOptions, header: &Header) -> String {
    let o = &Printer::new(options);
    let summary = attrs_summary(slice, o);
    let items = match &summary {
        Some(summary) => summary.clone(),
        None if slice.is_item() => top_item_node(slice.get(0), slice, true, o).rendered(),
        None => items_node(slice, o).rendered(),
    };
    let items = if summary.is_none() && o.met_unreadable() { ids_text(slice, options) } else { items };
    if !header.any() && summary.is_none() {
        return items;
    }
    let mut out = format!("{}({items}", if slice.is_item() { "DataItem" } else { "DataSlice" });
    if header.schema {
        write!(out, ", schema: {}", schema_text_with(slice.schema(), slice.bag(), options)).unwrap();
    }
    if !slice.is_item() && header.present_count {
        write!(out, ", present: {}/{}", slice.present_count(), slice.size()).unwrap();
    }
    if !slice.is_item() && header.shape {
        write!(out, ", shape: {}", slice.shape()).unwrap();
    }
    if let (true, Some(bag)) = (header.bag_id, slice.bag()) {
        write!(out, ", bag_id: {}", bag.short_id()).unwrap();
    }
    if let (true, true, Some(ScalarRef::ItemId(id) | ScalarRef::Schema(Schema::Struct(id)))) = (header.item_id, slice.is_item(), slice.get(0)) {
        write!(out, ", item_id: {}", id.repr()).unwrap();
    }
    out.push(')');
    out
}

/// Koda's `repr` of a slice or item.
pub fn repr_slice(slice: &DataSlice) -> String {
    repr_with(slice, &REPR, &Header::REPR)
}

/// `slice` as some of Koda's argument errors print it: with its shape
/// rather than its present count.
pub fn repr_with_shape(slice: &DataSlice) -> String {
    repr_with(slice, &REPR, &Header::WITH_SHAPE)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`shortest`] without the test that rules ties out: re-rounds every
    /// form ending in an odd digit.
    fn shortest_by_rerounding<F: Dyadic>(x: F) -> String {
        let sci = format!("{x:e}");
        let mantissa = sci.split_once('e').map_or(sci.as_str(), |(m, _)| m);
        if mantissa.bytes().last().is_none_or(|d| !d.is_ascii_digit() || (d - b'0') % 2 == 0) {
            return sci;
        }
        let digits = mantissa.bytes().filter(u8::is_ascii_digit).count();
        let even = format!("{:.*e}", digits.saturating_sub(1), x);
        if even.parse::<F>().is_ok_and(|y| y == x) { even } else { sci }
    }

    #[test]
    fn ruling_out_ties_by_the_lowest_bit_changes_no_text() {
        assert_eq!((0.75f32.lowest_bit_exponent(), 12.0f32.lowest_bit_exponent(), f32::from_bits(1).lowest_bit_exponent()), (-2, 2, -149));
        assert_eq!((0.75f64.lowest_bit_exponent(), (1e15 + 0.25).lowest_bit_exponent(), f64::from_bits(1).lowest_bit_exponent()), (-2, -2, -1074));
        // Values of every magnitude, and values with few fraction bits
        // (where ties live).
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..200_000 {
            let r = next();
            let f = f32::from_bits(r as u32);
            let g = f64::from_bits(r);
            let coarse = ((r >> 40) as f64 + (r & 7) as f64 / 8.0) * if r & 8 == 0 { 1.0 } else { 1e-3 };
            for x in [f, coarse as f32] {
                if x.is_finite() {
                    assert_eq!(&*shortest(x), shortest_by_rerounding(x), "{x:e}");
                }
            }
            for x in [g, coarse] {
                if x.is_finite() {
                    assert_eq!(&*shortest(x), shortest_by_rerounding(x), "{x:e}");
                }
            }
        }
    }

    #[test]
    fn floats_print_like_koda() {
        let cases: [(f32, &str); 14] = [
            // Two shortest forms equally near: the even last digit (the
            // values are exact f32s, written as f64s to say so).
            (131072.125_f64 as f32, "131072.12"),
            (131072.375_f64 as f32, "131072.38"),
            (131072.625_f64 as f32, "131072.62"),
            (-131072.875_f64 as f32, "-131072.88"),
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
        assert_eq!(format_f64(1e15 + 0.25), "1000000000000000.2");
        assert_eq!(format_f64(1e15 + 0.75), "1000000000000000.8");
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
