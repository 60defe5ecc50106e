//! `kd.json.*`: `from_json` (JSON text to Koda data, [`parse`]) and
//! `to_json` (Koda data to JSON text, [`write`]).

pub mod parse;
mod syntax;
pub mod write;

use plait_core::{DataBag, DataSlice, Error, Result, ScalarRef, Schema};

use crate::checks::not_castable;
use crate::registry::{Args, BagRule, Registry};

/// A schema as Koda names it in messages (struct schemas by their id).
pub(crate) fn schema_name(s: Schema, _bag: Option<&DataBag>) -> String {
    match s {
        Schema::Struct(id) => format!("Schema:{}", id.encode()),
        other => other.to_string(),
    }
}

/// An optional STRING item argument (`None` when given as None).
fn opt_text(op: &str, a: &Args<'_>, name: &str) -> Result<Option<String>> {
    let Some(x) = a.opt_given(name)? else { return Ok(None) };
    if x.is_item() && x.get(0).is_none() {
        return Ok(None);
    }
    crate::checks::string_item(op, name, x).map(|s| Some(s.to_string()))
}

/// A SCHEMA item argument.
fn schema_arg(op: &str, a: &Args<'_>, name: &str) -> Result<(Schema, Option<DataBag>)> {
    let x = a.slice(name)?;
    crate::registry::schema_item_arg(op, name, x).map(|s| (s, x.bag().cloned()))
}

fn from_json_kernel(a: &Args<'_>) -> Result<DataSlice> {
    let op = parse::FROM_JSON;
    let x = a.slice("x")?;
    if let Some(got) = not_castable(x, Schema::String) {
        return Err(Error::value(op, format!("argument `x` must be a slice of STRING, got a slice of {got}")));
    }
    let (schema, schema_bag) = schema_arg(op, a, "schema")?;
    let (number, _) = schema_arg(op, a, "default_number_schema")?;
    let number_schema = match number {
        Schema::Object => None,
        s if s.is_numeric() => Some(s),
        _ => {
            return Err(Error::value(
                op,
                // (Koda shows the schema of the argument, not the schema it holds.)
                "expected default_number_schema to be OBJECT or a numeric primitive schema, got DataItem(SCHEMA, schema: SCHEMA)",
            ));
        }
    };
    // The default, an empty 1-D slice, is Koda's "not given": invalid
    // texts raise.
    let on_invalid = a.opt_slice("on_invalid")?.filter(|v| v.is_item() || v.size() > 0);
    if let Some(v) = on_invalid {
        if !v.is_item() {
            return Err(Error::value(op, format!("on_invalid must be a DataItem, got a slice of rank {}", v.rank())));
        }
    }
    let opts = parse::Options {
        schema,
        schema_bag: schema_bag.as_ref(),
        number_schema,
        keys_attr: opt_text(op, a, "keys_attr")?,
        values_attr: opt_text(op, a, "values_attr")?,
        on_invalid: on_invalid.is_some(),
    };
    parse::from_json(x, &opts, on_invalid)
}

/// An item argument holding `schema` (Koda's assert_present_scalar wording,
/// naming `kd.json.to_json`).
fn item_of<'a>(a: &'a Args<'_>, name: &str, schema: Schema) -> Result<Option<ScalarRef<'a>>> {
    let op = write::TO_JSON;
    let Some(x) = a.opt_given(name)? else { return Ok(None) };
    let expected = format!("argument `{name}` must be an item holding {schema}, got");
    if !x.is_item() {
        return Err(Error::value(op, format!("{expected} a slice of rank {} > 0", x.rank())));
    }
    match x.get(0) {
        None => Ok(None),
        Some(v) if v.dtype() == schema || (schema == Schema::Int32 && v.dtype() == Schema::Int64) => Ok(Some(v)),
        Some(v) => Err(Error::value(op, format!("{expected} an item of {}", v.dtype()))),
    }
}

fn to_json_kernel(a: &Args<'_>) -> Result<DataSlice> {
    let op = write::TO_JSON;
    let indent = match item_of(a, "indent", Schema::Int32)? {
        Some(ScalarRef::Int32(v)) => Some(v as i64),
        Some(ScalarRef::Int64(v)) => Some(v),
        _ => None,
    };
    let flag = |name: &str, default: bool| -> Result<bool> {
        Ok(match item_of(a, name, Schema::Boolean)? {
            Some(ScalarRef::Boolean(b)) => b,
            _ => default,
        })
    };
    let format = write::Format {
        indent,
        ensure_ascii: flag("ensure_ascii", true)?,
        keys_attr: opt_text(op, a, "keys_attr")?,
        values_attr: opt_text(op, a, "values_attr")?,
        include_missing: flag("include_missing_values", true)?,
    };
    write::to_json(a.slice("x")?, &format)
}

pub(crate) fn register(r: &mut Registry) {
    r.add(
        "kd.json.from_json",
        &["kd.from_json"],
        "x, /, schema=OBJECT, default_number_schema=OBJECT, *, on_invalid=[], keys_attr='json_object_keys', values_attr='json_object_values'",
        r#"Parses a DataSlice `x` of JSON strings.

The result has the shape of `x` (missing texts give missing items) and lives
in a new immutable DataBag.

With `schema=OBJECT` (the default) the schema is inferred: JSON null,
booleans, numbers and strings become missing, BOOLEAN, numbers and STRING
items; arrays become lists (LIST[OBJECT]); objects become objects whose
attributes are the keys. Numbers are INT32, INT64 or FLOAT32 as `kd.from_py`
would box them, unless `default_number_schema` names a numeric schema for
all of them. Objects also record their key order in the list attribute
`keys_attr` and their values in `values_attr` (pass None to disable): with
duplicate keys the attribute holds the last value, and a key equal to
`keys_attr` or `values_attr` is only in the values list.

With another `schema`, the JSON must fit it: primitives are cast with Koda's
explicit casts (BYTES from base64 strings), arrays need LIST schemas, objects
dict or entity schemas (entities take only the attributes their schema
has); OBJECT inside `schema` infers as above.

Invalid JSON raises a ValueError, unless `on_invalid` is given: then the
item is `on_invalid`. Nesting is limited to 100000 arrays and objects.

Args:
  x: a DataSlice of STRING holding JSON texts.
  schema: the schema of the result (default OBJECT: inferred).
  default_number_schema: OBJECT, or a numeric schema for every number.
  on_invalid: the DataItem that invalid texts become.
  keys_attr: the attribute recording object key order, or None.
  values_attr: the attribute recording object values, or None.

Examples:
  >>> kd.json.from_json(kd.slice(['1', '"a"', None, 'true', '1.5']))
  DataSlice([1, 'a', None, True, 1.5], schema: OBJECT, present: 4/5, bag_id: ...)
  >>> kd.from_json('[1, 2, null]', kd.list_schema(kd.INT64))[:]
  DataSlice([1, 2, None], schema: INT64, present: 2/3, bag_id: ...)
  >>> x = kd.from_json('{"b": 1, "a": [true]}')
  >>> x.b, x.a[:], x.json_object_keys[:]
  (DataItem(1, schema: OBJECT, bag_id: ...), DataSlice([True], schema: OBJECT, present: 1/1, bag_id: ...), DataSlice(['b', 'a'], schema: STRING, present: 2/2, bag_id: ...))
  >>> kd.from_json(kd.slice(['1', 'x']), on_invalid=-1)
  DataSlice([1, -1], schema: OBJECT, present: 2/2, bag_id: ...)"#,
        from_json_kernel,
    );
    r.add(
        "kd.json.to_json",
        &["kd.to_json"],
        "x, /, *, indent=None, ensure_ascii=True, keys_attr='json_object_keys', values_attr='json_object_values', include_missing_values=True",
        r#"Converts `x` to a DataSlice of JSON strings.

Every item becomes one JSON text (missing items stay missing). Primitives are
JSON numbers, strings and booleans (`kd.present` is `true`; BYTES are base64
strings; non-finite floats are the strings "nan", "inf", "-inf"; finite floats
are written as Python's `repr`); lists are arrays; dicts are objects with keys
in sorted order (keys must be STRING, BYTES, INT32 or INT64); entities and
objects are objects with their attributes in sorted order. Missing values
inside are `null` (`false` for MASK attributes); `include_missing_values=False`
leaves missing attributes out. An entity with a `keys_attr` list attribute is
written with exactly those keys in that order, with values from its
`values_attr` list if it has one. Cycles raise a ValueError.

`indent=None` puts one space after ',' and ':'; a negative indent writes no
whitespace; `indent >= 0` pretty-prints. With `ensure_ascii` (the default)
every non-ASCII character is escaped.

Args:
  x: the DataSlice to convert.
  indent: an INT32 DataItem or None.
  ensure_ascii: a BOOLEAN DataItem.
  keys_attr: the attribute holding key order, or None.
  values_attr: the attribute holding values in key order, or None.
  include_missing_values: a BOOLEAN DataItem.

Examples:
  >>> kd.json.to_json(kd.slice([1, None, 2.5, 'a']))
  DataSlice(['1', None, '2.5', '"a"'], schema: STRING, present: 3/4)
  >>> kd.to_json(kd.new(b=kd.list([1, 2]), a='é'))
  DataItem('{"a": "\\u00e9", "b": [1, 2]}', schema: STRING)
  >>> print(kd.to_json(kd.dict({'x': 1}), indent=2).to_py())
  {
    "x": 1
  }"#,
        to_json_kernel,
    );
    r.bag_rule("kd.json.to_json", BagRule::Drop);
    // A new bag on every call.
    r.non_deterministic("kd.json.from_json");
    // Type rules (see `crate::typing`): the schema asked for (OBJECT by
    // default), text out.
    r.type_rule(
        "kd.json.from_json",
        crate::typing::TypeRule::new(|a| Ok(crate::typing::TypeValue::slice(a.slice("x")?.with_schema(a.known_schema("schema"))))),
    );
    r.type_rule("kd.json.to_json", crate::typing::rules::like("x", crate::typing::rules::Out::Fixed(plait_core::Schema::String)));
}
