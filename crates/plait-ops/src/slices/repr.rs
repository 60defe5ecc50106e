//! `kd.slices.get_repr`: a slice's text with the options of its display
//! (depth, item limits, text length, HTML, header fields).

use plait_core::repr::{Header, MAX_REPR_DEPTH, ReprOptions, repr_with};
use plait_core::{DataSlice, Error, Result, ScalarRef, Schema};

use crate::registry::{Args, Registry};

const OP: &str = "kd.slices.get_repr";

/// An integer item argument, with Koda's texts for anything else.
fn int_arg(a: &Args<'_>, name: &str) -> Result<i64> {
    let x = a.slice(name)?;
    let got = match (x.is_item(), x.get(0)) {
        (true, Some(ScalarRef::Int32(v))) => return Ok(i64::from(v)),
        (true, Some(ScalarRef::Int64(v))) => return Ok(v),
        (true, None) => "missing".to_string(),
        (true, Some(v)) => format!("an item of {}", v.dtype()),
        (false, _) => format!("a slice of rank {} > 0", x.rank()),
    };
    Err(Error::value(OP, format!("argument `{name}` must be an item holding INT64, got {got}")))
}

/// A limit: a negative one is none.
fn limit(n: i64) -> Option<usize> {
    usize::try_from(n).ok()
}

/// `kd.get_repr(x, ...)`.
pub fn get_repr(a: &Args<'_>) -> Result<DataSlice> {
    let x = a.slice("x")?;
    let options = ReprOptions {
        depth: limit(int_arg(a, "depth")?).map_or(MAX_REPR_DEPTH, |d| d.min(MAX_REPR_DEPTH)),
        item_limit: limit(int_arg(a, "item_limit")?),
        item_limit_per_dimension: limit(int_arg(a, "item_limit_per_dimension")?).unwrap_or(usize::MAX),
        max_str_len: limit(int_arg(a, "max_str_len")?),
        html: a.bool("format_html")?,
        attributes: a.bool("show_attributes")?,
    };
    // EXPR items print in full (plait keeps no quoted expressions in slices).
    int_arg(a, "max_expr_quote_len")?;
    a.bool("show_item_id")?;
    let show_schema = a.bool("show_schema")?;
    let header = Header {
        schema: show_schema,
        present_count: a.bool("show_present_count")?,
        shape: a.bool("show_shape")?,
        bag_id: a.bool("show_databag_id")?,
        // Koda shows an item's id with its schema, whatever
        // `show_item_id` says.
        item_id: show_schema,
    };
    let text = repr_with(x, &options, &header);
    DataSlice::item(Some(ScalarRef::String(&text)), Schema::String)
}

pub(crate) fn register(r: &mut Registry) {
    r.add(
        OP,
        &["kd.get_repr"],
        "x, /, *, depth=25, item_limit=200, item_limit_per_dimension=25, format_html=False, max_str_len=100, \
         max_expr_quote_len=10000, show_attributes=True, show_databag_id=False, show_shape=False, show_schema=False, \
         show_item_id=False, show_present_count=False",
        r#"Returns the text of DataSlice x, as a STRING item, showing as much as the options say.

Without header options the text is the items alone, as `str(x)` prints
them; a slice of more than `item_limit` entities prints the names of their
attributes instead (`DataSlice(attrs: [a, b])`).

Args:
  x: a DataSlice.
  depth: entities, lists and dicts nested this deep print as their ids.
  item_limit: a slice with more items is abbreviated to this many in all;
    lists, dicts and entities show at most this many items, entries and
    attributes. Negative: no limit.
  item_limit_per_dimension: how many items of each dimension an abbreviated
    slice shows.
  format_html: HTML with spans naming each element (for notebooks).
  max_str_len: text and bytes longer than this show their two ends only.
    Negative: no limit.
  max_expr_quote_len: accepted for Koda's signature (plait's slices hold
    no quoted expressions).
  show_attributes: whether the entities, objects, lists and dicts of a
    slice show their contents (else their ids, `Entity:$...`).
  show_databag_id: show the bag's id in a header.
  show_shape: show a slice's shape in a header.
  show_schema: show the schema in a header (and an entity item's id).
  show_item_id: accepted for Koda's signature (the id shows with the
    schema).
  show_present_count: show how many items of a slice are present.

Examples:
  >>> kd.get_repr(kd.slice([[1, 2, 3], [4]]), item_limit=2)
  DataItem('[[1, 2, ...], [...]]', schema: STRING)
  >>> kd.get_repr(kd.slice([1, 2]), show_schema=True, show_present_count=True)
  DataItem('DataSlice([1, 2], schema: INT32, present: 2/2)', schema: STRING)
  >>> print(kd.get_repr(kd.item('abcdefgh'), max_str_len=4).to_py())
  'ab'...'gh'
  >>> kd.get_repr(kd.new(a=kd.new(b=1)), depth=1)
  DataItem('Entity(a=$...)', schema: STRING)"#,
        get_repr,
    );
    r.type_rule(OP, crate::typing::rules::item(&[], Schema::String));
}
