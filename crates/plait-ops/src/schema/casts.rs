//! The casting operators: `kd.schema.cast_to` (and its implicit and
//! narrowing forms) and one caster per schema, `kd.schema.to_int32` ...
//! and Koda's `kd.slices.int32` ... (`kd.int32`), which also box Python
//! lists. A cast keeps the bag of `x`.

use plait_core::cast::{cast_to, cast_to_implicit, cast_to_narrow};
use plait_core::{DataSlice, Result, Schema};

use crate::objects::create::to_object;
use crate::registry::{Args, Boxing, Registry, Value};

/// `x` cast to `target` with explicit rules; OBJECT writes the schemas of
/// entities, lists and dicts into a bag (`kd.obj(x)` does the same).
pub fn explicit(op: &str, x: &DataSlice, target: Schema) -> Result<DataSlice> {
    if target == Schema::Object { to_object(op, x) } else { cast_to(op, x, target) }
}

/// `x` as `kd.slice(x, schema)` / `kd.item(x, schema)` give it with a
/// primitive, OBJECT or ITEMID `schema`: cast explicitly, entities, lists
/// and dicts embedding their schemas as objects. Values given one by one
/// (`by_item`: Python values, DataItems) are cast as Koda casts items: an
/// entity is ITEMID data (`kd.item(entity, kd.STRING)` is a cast of ITEMID
/// data), and only ids are ids.
pub fn cast_boxed(op: &str, x: &DataSlice, schema: Schema, by_item: bool) -> Result<DataSlice> {
    match (x.schema(), schema) {
        (Schema::ItemId, Schema::Object) => x.with_schema(Schema::Object),
        (_, Schema::Object) => to_object(op, x),
        (source, Schema::ItemId) if source.is_struct() => x.with_schema(Schema::ItemId),
        (source, _) if by_item && (source.is_struct() || (schema == Schema::ItemId && source.is_primitive())) => {
            cast_to(op, &x.with_schema(Schema::Object)?, schema)
        }
        _ => cast_to(op, x, schema),
    }
}

/// `kd.slice(x, schema)` / `kd.item(x, schema)` of a DataSlice `x` (in an
/// expression, where `x` is a value by then; Python values are boxed
/// before): `x` as it is, or cast to `schema` as a whole (a struct schema
/// by [`slice_to_struct`]). `kd.item` refuses a DataSlice of rank > 0.
pub fn slice_of(op: &str, x: &DataSlice, schema: Option<&DataSlice>, item: bool) -> Result<DataSlice> {
    if item && !x.is_item() {
        // Koda's text, which names kd.item itself.
        return Err(plait_core::Error::new(plait_core::ErrorKind::Value, "kd.item: argument `x` cannot be a multi-dim DataSlice"));
    }
    let Some(schema) = schema.filter(|s| s.present_count() > 0) else {
        return Ok(x.clone());
    };
    let target = crate::registry::schema_item_arg(op, "schema", schema)?;
    if target.is_struct() {
        return slice_to_struct(op, x, schema, target);
    }
    cast_boxed(op, x, target, item)
}

/// `kd.cast_to(x, schema)`: [`explicit`], and from one entity, list or
/// dict schema (or from missing items) to another, Koda's deep cast.
fn cast_to_schema(op: &str, x: &DataSlice, schema: &DataSlice) -> Result<DataSlice> {
    let target = crate::registry::schema_item_arg(op, "schema", schema)?;
    if target.is_struct() {
        return super::deep_cast::deep_cast(x, schema, target);
    }
    explicit(op, x, target)
}

/// `x` given a struct schema as a whole slice (`kd.slice(x, schema)` of a
/// DataSlice): Koda casts it without its bag, so only items already of
/// that schema (kept with their bag) or missing items pass; entities of
/// another schema, ids and objects have nothing to be cast from.
pub fn slice_to_struct(op: &str, x: &DataSlice, schema: &DataSlice, target: Schema) -> Result<DataSlice> {
    let x = match (x.schema(), target) {
        (source, _) if source == target => x.clone(),
        (Schema::Struct(from), Schema::Struct(to)) => {
            return Err(plait_core::Error::value(
                op,
                format!(
                    "(deep) casting from entity schema {} to entity schema {} without DataBag is currently not supported",
                    from.repr(),
                    to.repr()
                ),
            ));
        }
        (source, Schema::Struct(to)) if source != Schema::Object && source != Schema::None => {
            return Err(plait_core::Error::value(
                op,
                format!("(deep) casting from {source} to entity schema {} is currently not supported", to.repr()),
            ));
        }
        _ => x.clone().with_bag(None),
    };
    super::deep_cast::deep_cast(&x, schema, target).map_err(|e| e.raised_by("kd.schema.cast_to", op))
}

/// The kernel of a caster to `target`: the result keeps the bag `x` has
/// (or the one `to_object` wrote), so no [`crate::registry::BagRule`] applies.
fn caster(a: &Args<'_>, target: Schema) -> Result<Value> {
    explicit(a.op_name(), a.slice("x")?, target).map(Value::Slice)
}

/// What each caster accepts, and its examples: (notes, [(call, output)]);
/// `{name}` in a call or output is the caster's name.
fn caster_notes(schema: Schema) -> (&'static str, &'static [(&'static str, &'static str)]) {
    match schema {
        Schema::Int32 => (
            "Floats are truncated toward zero, booleans become 0 or 1, and\nstrings and bytes are parsed; an unparsable or out-of-range value raises.",
            &[
                ("{name}(kd.slice([1.9, -1.9, None]))", "DataSlice([1, -1, None], schema: INT32, present: 2/3)"),
                ("{name}('12')", "DataItem(12, schema: INT32)"),
            ],
        ),
        Schema::Int64 => (
            "Floats are truncated toward zero, booleans become 0 or 1, and\nstrings and bytes are parsed; an unparsable value raises.",
            &[
                ("{name}(kd.slice([1, 2, None]))", "DataSlice([1, 2, None], schema: INT64, present: 2/3)"),
                ("{name}(kd.slice(['12', '-3']))", "DataSlice([12, -3], schema: INT64, present: 2/2)"),
            ],
        ),
        Schema::Float32 => (
            "Numbers and booleans are converted and strings and bytes are parsed\n(`'inf'` and `'nan'` included); an unparsable value raises.",
            &[
                ("{name}(kd.slice([1, 2, None]))", "DataSlice([1.0, 2.0, None], schema: FLOAT32, present: 2/3)"),
                ("{name}('2.5')", "DataItem(2.5, schema: FLOAT32)"),
            ],
        ),
        Schema::Float64 => (
            "Numbers and booleans are converted and strings and bytes are parsed\n(`'inf'` and `'nan'` included); an unparsable value raises.",
            &[
                ("{name}(kd.slice([1, None]))", "DataSlice([1.0, None], schema: FLOAT64, present: 1/2)"),
                ("{name}('0.1')", "DataItem(0.1, schema: FLOAT64)"),
            ],
        ),
        Schema::Boolean => (
            "Numbers become True when non-zero; strings and bytes cannot be cast\nand raise.",
            &[
                ("{name}(kd.slice([0, 2, None]))", "DataSlice([False, True, None], schema: BOOLEAN, present: 2/3)"),
                ("{name}(kd.slice([0.0, 0.5]))", "DataSlice([False, True], schema: BOOLEAN, present: 2/2)"),
            ],
        ),
        Schema::Mask => (
            "Only MASK items (also inside an OBJECT slice) can be cast; other\ntypes, booleans included, raise (compare with True to get a mask).",
            &[
                ("{name}(kd.slice([kd.present, None], kd.OBJECT))", "DataSlice([present, missing], schema: MASK, present: 1/2)"),
                (
                    "{name}(kd.slice([True]))",
                    "Traceback (most recent call last):\n...\nValueError: {name}: casting a DataSlice with schema BOOLEAN to MASK is not supported",
                ),
            ],
        ),
        Schema::Bytes => (
            "Only BYTES items (also inside an OBJECT slice) can be cast; strings\nraise (use `kd.strings.encode` to encode them).",
            &[("{name}(kd.slice([b'a', None], kd.OBJECT))", "DataSlice([b'a', None], schema: BYTES, present: 1/2)")],
        ),
        Schema::String => (
            "Numbers and booleans are formatted; bytes become the text of their\nPython literal (use `kd.strings.decode` to decode UTF-8 instead).",
            &[
                ("{name}(kd.slice([1, 2.5, None]))", "DataSlice(['1', '2.5', None], schema: STRING, present: 2/3)"),
                ("{name}(kd.slice([True, b'hi'], kd.OBJECT))", "DataSlice(['true', 'b\\'hi\\''], schema: STRING, present: 2/2)"),
            ],
        ),
        Schema::Object => (
            "The items keep their values and only the slice's schema changes, so\nitems of different types can then be mixed.",
            &[
                ("{name}(kd.slice([1, 2, None]))", "DataSlice([1, 2, None], schema: OBJECT, present: 2/3)"),
                ("{name}('a').get_schema()", "DataItem(OBJECT, schema: SCHEMA)"),
            ],
        ),
        Schema::None => (
            "Only a DataSlice with no present item can be cast; any present item\nraises.",
            &[
                ("{name}(kd.slice([None, None], kd.OBJECT))", "DataSlice([None, None], schema: NONE, present: 0/2)"),
                ("{name}(None)", "DataItem(None, schema: NONE)"),
            ],
        ),
        Schema::Expr => (
            "Only EXPR items (also inside an OBJECT slice) and missing items can be\ncast; other types raise.",
            &[
                ("{name}(kd.obj(kd.expr.pack_expr(I.x + 1))).no_bag()", "DataItem(I.x + DataItem(1, schema: INT32), schema: EXPR)"),
                ("{name}(None)", "DataItem(None, schema: EXPR)"),
                (
                    "{name}(kd.item(1))",
                    "Traceback (most recent call last):\n...\nValueError: {name}: casting a DataSlice with schema INT32 to EXPR is not supported",
                ),
            ],
        ),
        _ => (
            "Only SCHEMA items (and missing items) can be cast; other types raise.",
            &[
                ("{name}(kd.slice([kd.INT32, None]))", "DataSlice([INT32, None], schema: SCHEMA, present: 1/2)"),
                ("{name}(None)", "DataItem(None, schema: SCHEMA)"),
            ],
        ),
    }
}

/// The docstring of the caster `name` (its canonical name) to `schema`.
/// Built once, when the registry is, and kept for the process (the
/// registry holds `&'static str` docstrings).
fn caster_doc(name: &str, schema: Schema) -> &'static str {
    let (notes, examples) = caster_notes(schema);
    let mut doc = format!(
        "Returns `x` cast to {schema} with explicit casting rules.\n\n{notes}\nMissing items stay missing, and a Python value is boxed first.\n\n\
         Args:\n  x: a DataSlice, or a Python value to box.\n\nExamples:\n"
    );
    for (call, output) in examples {
        doc.push_str(&format!("  >>> {}\n", call.replace("{name}", name)));
        for line in output.replace("{name}", name).lines() {
            doc.push_str(&format!("  {line}\n"));
        }
    }
    Box::leak(doc.into_boxed_str())
}

/// One caster `$to` (with aliases) per schema, and for the primitives
/// Koda's `kd.slices.<type>` form, which boxes Python lists.
macro_rules! register_casters {
    ($r:expr, $( $schema:ident: $to:literal [$($to_alias:literal),*] $(, $slices:literal [$($alias:literal),*])? ; )*) => {
        $(
            $r.add_value($to, &[$($to_alias),*], "x", caster_doc($to, Schema::$schema), |a| caster(a, Schema::$schema));
            $(
                $r.add_value($slices, &[$($alias),*], "x", caster_doc($slices, Schema::$schema), |a| caster(a, Schema::$schema));
                // `kd.int32([1, 2])` boxes the list, as `kd.slice([1, 2], kd.INT32)`.
                $r.boxing($slices, if Schema::$schema == Schema::Float64 { Boxing::Float64 } else { Boxing::Lists });
            )?
        )*
    };
}

pub(crate) fn register(r: &mut Registry) {
    register_casters!(r,
        Int32: "kd.schema.to_int32" [], "kd.slices.int32" ["kd.int32"];
        Int64: "kd.schema.to_int64" [], "kd.slices.int64" ["kd.int64"];
        Float32: "kd.schema.to_float32" [], "kd.slices.float32" ["kd.float32"];
        Float64: "kd.schema.to_float64" [], "kd.slices.float64" ["kd.float64"];
        Boolean: "kd.schema.to_bool" [], "kd.slices.bool" ["kd.bool"];
        Mask: "kd.schema.to_mask" [], "kd.slices.mask" ["kd.mask"];
        Bytes: "kd.schema.to_bytes" [], "kd.slices.bytes" ["kd.bytes"];
        String: "kd.schema.to_str" [], "kd.slices.str" ["kd.str"];
        Object: "kd.schema.to_object" ["kd.to_object"];
        None: "kd.schema.to_none" ["kd.to_none"];
        Schema: "kd.schema.to_schema" ["kd.to_schema"];
        Expr: "kd.schema.to_expr" ["kd.to_expr"];
    );
    r.add_value(
        "kd.slices.slice",
        &["kd.slice"],
        "x, schema=unspecified",
        r#"Returns `x` as a DataSlice, cast to `schema` when it is given.

Python values (nested lists of scalars) are boxed as kd.slice boxes them,
with `schema`, when the expression is built (`schema` must then be a value,
and the node keeps the boxed value only); a DataSlice stays as it is, or is
cast to `schema` as a whole. This is the operator kd.slice builds in
expressions and traced functions.

Args:
  x: a DataSlice or Python value.
  schema: the schema of the result (optional).

Examples:
  >>> kd.eval(kd.lazy.slice(I.x), x=kd.slice([1, 2]))
  DataSlice([1, 2], schema: INT32, present: 2/2)
  >>> kd.eval(kd.lazy.slice(I.x, kd.INT64), x=kd.slice([1, 2]))
  DataSlice([1, 2], schema: INT64, present: 2/2)"#,
        |a| slice_of(a.op_name(), a.slice("x")?, a.opt_slice("schema")?, false).map(Value::Slice),
    );
    r.boxing("kd.slices.slice", Boxing::AtBinding { item: false });
    r.add_value(
        "kd.slices.item",
        &["kd.item"],
        "x, schema=unspecified",
        r#"Returns `x` as a DataItem, cast to `schema` when it is given.

A DataSlice of rank > 0 is an error. A Python scalar is boxed with
`schema` when the expression is built, as in kd.slice. This is the
operator kd.item builds in expressions and traced functions.

Args:
  x: a DataItem or Python scalar.
  schema: the schema of the result (optional).

Examples:
  >>> kd.eval(kd.lazy.item(I.x, kd.FLOAT32), x=1)
  DataItem(1.0, schema: FLOAT32)"#,
        |a| slice_of(a.op_name(), a.slice("x")?, a.opt_slice("schema")?, true).map(Value::Slice),
    );
    r.boxing("kd.slices.item", Boxing::AtBinding { item: true });
    r.add_value(
        "kd.schema.cast_to",
        &["kd.cast_to"],
        "x, schema",
        r#"Returns `x` cast to `schema` with explicit (relaxed, possibly failing) rules.

Primitives are converted (strings parsed, floats truncated); entities, lists
and dicts become OBJECT with their schemas stored with them. Cast to another
entity, list or dict schema, entities, lists and dicts (or objects of one
explicit schema) keep their ids and every attribute, list item and dict key
and value the schema names is cast to its schema there, deeply; what the
schema does not name is left behind, and a name it has that `x`'s schema
lacks is an error. The result's bag holds what was cast and the schema.

Args:
  x: a DataSlice.
  schema: the schema to cast to (a schema DataItem).

Examples:
  >>> kd.cast_to(kd.slice(['1', '2']), kd.INT64)
  DataSlice([1, 2], schema: INT64, present: 2/2)
  >>> kd.cast_to(kd.slice([1, 2]), kd.OBJECT)
  DataSlice([1, 2], schema: OBJECT, present: 2/2)
  >>> kd.cast_to(kd.new(a=1.5, b='x'), kd.schema.new_schema(a=kd.INT64))
  DataItem(Entity(a=1), schema: ENTITY(a=INT64), bag_id: $...)"#,
        |a| cast_to_schema(a.op_name(), a.slice("x")?, a.slice("schema")?).map(Value::Slice),
    );
    r.add_value(
        "kd.schema.cast_to_implicit",
        &[],
        "x, schema",
        r#"Returns x cast to schema, allowing only implicit (widening) casts.

An implicit cast never loses information: INT32 to INT64 or FLOAT32, any
primitive to OBJECT, and so on; other casts raise ValueError (see kd.cast_to
for explicit ones). A Python value is boxed first.

Args:
  x: the DataSlice (or Python value) to cast.
  schema: the schema to cast to (a schema DataItem).

Examples:
  >>> kd.schema.cast_to_implicit(kd.slice([1, 2]), kd.INT64)
  DataSlice([1, 2], schema: INT64, present: 2/2)
  >>> kd.schema.cast_to_implicit(kd.slice([1, None]), kd.FLOAT32)
  DataSlice([1.0, None], schema: FLOAT32, present: 1/2)
  >>> kd.schema.cast_to_implicit(kd.int64(1), kd.INT32)
  Traceback (most recent call last):
  ...
  ValueError: kd.schema.cast_to_implicit: unsupported implicit cast from INT64 to INT32"#,
        |a| cast_to_implicit(a.op_name(), a.slice("x")?, a.schema("schema")?).map(Value::Slice),
    );
    r.add_value(
        "kd.schema.cast_to_narrow",
        &[],
        "x, schema",
        r#"Returns x cast to schema, where OBJECT data may be narrowed to a primitive schema.

OBJECT items can be cast to a primitive schema when each of them can be
implicitly cast to it; otherwise the rules of kd.schema.cast_to_implicit
apply, and a cast they do not allow raises ValueError. A Python value is
boxed first.

Args:
  x: the DataSlice (or Python value) to cast.
  schema: the schema to cast to (a schema DataItem).

Examples:
  >>> kd.schema.cast_to_narrow(kd.slice([1, None, 2], kd.OBJECT), kd.INT64)
  DataSlice([1, None, 2], schema: INT64, present: 2/3)
  >>> kd.schema.cast_to_narrow(kd.slice([1, 2.5], kd.OBJECT), kd.FLOAT32)
  DataSlice([1.0, 2.5], schema: FLOAT32, present: 2/2)
  >>> kd.schema.cast_to_narrow(kd.slice([1, 'a'], kd.OBJECT), kd.INT32)
  Traceback (most recent call last):
  ...
  ValueError: kd.schema.cast_to_narrow: unsupported narrowing cast to INT32 for the given OBJECT DataSlice"#,
        |a| cast_to_narrow(a.op_name(), a.slice("x")?, a.schema("schema")?).map(Value::Slice),
    );
    // Type rules (see `crate::typing`): a cast keeps the dims.
    use crate::typing::rules::{Out, like};
    for (name, schema) in [
        ("kd.schema.to_bool", Schema::Boolean),
        ("kd.schema.to_bytes", Schema::Bytes),
        ("kd.schema.to_expr", Schema::Expr),
        ("kd.schema.to_float32", Schema::Float32),
        ("kd.schema.to_float64", Schema::Float64),
        ("kd.schema.to_int32", Schema::Int32),
        ("kd.schema.to_int64", Schema::Int64),
        ("kd.schema.to_mask", Schema::Mask),
        ("kd.schema.to_none", Schema::None),
        ("kd.schema.to_object", Schema::Object),
        ("kd.schema.to_schema", Schema::Schema),
        ("kd.schema.to_str", Schema::String),
        ("kd.slices.bool", Schema::Boolean),
        ("kd.slices.bytes", Schema::Bytes),
        ("kd.slices.float32", Schema::Float32),
        ("kd.slices.float64", Schema::Float64),
        ("kd.slices.int32", Schema::Int32),
        ("kd.slices.int64", Schema::Int64),
        ("kd.slices.mask", Schema::Mask),
        ("kd.slices.str", Schema::String),
    ] {
        r.type_rule(name, like("x", Out::Fixed(schema)));
    }
    // kd.slice / kd.item of a value: its type, with `schema` when given.
    for name in ["kd.slices.slice", "kd.slices.item"] {
        r.type_rule(
            name,
            crate::typing::TypeRule::new(|a| {
                let x = a.slice("x")?;
                Ok(crate::typing::TypeValue::slice(if a.get("schema").is_some() { x.with_schema(a.known_schema("schema")) } else { x.clone() }))
            }),
        );
    }
    for name in ["kd.schema.cast_to", "kd.schema.cast_to_implicit", "kd.schema.cast_to_narrow"] {
        r.type_rule(name, crate::typing::TypeRule::new(|a| Ok(crate::typing::TypeValue::slice(a.slice("x")?.with_schema(a.known_schema("schema"))))));
    }
}
