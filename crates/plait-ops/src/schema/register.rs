//! The registry entries of the schema helpers, with their docstrings.

use super::*;
use crate::registry::{BagRule, Registry};

pub(super) fn register(r: &mut Registry) {
    r.add_value(
        "kd.schema.get_schema",
        &["kd.get_schema"],
        "x",
        r#"Returns the schema of DataSlice `x`, as a SCHEMA DataItem.

The schema belongs to the whole slice: a slice of mixed items has the
OBJECT schema (see `kd.get_obj_schema` for each item's own schema). An
entity, list or dict schema keeps the bag of `x`, where its attributes
are stored.

Args:
  x: a DataSlice.

Examples:
  >>> kd.get_schema(kd.slice([1, 2]))
  DataItem(INT32, schema: SCHEMA)
  >>> kd.get_schema(kd.slice([1, 'a']))
  DataItem(OBJECT, schema: SCHEMA)
  >>> kd.get_schema(kd.new(a=1, b='x'))
  DataItem(ENTITY(a=INT32, b=STRING), schema: SCHEMA, bag_id: $...)"#,
        |a| get_schema(a.slice("x")?).map(Value::Slice),
    );
    r.add_value(
        "kd.schema.is_primitive_schema",
        &[],
        "x",
        r#"Returns `kd.present` if `x` is a primitive schema DataItem, else `kd.missing`.

The primitive schemas are INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, MASK,
BYTES, STRING and EXPR; OBJECT, ITEMID, SCHEMA, NONE, entity schemas,
slices and non-schema items all give `kd.missing`.

Args:
  x: any value.

Examples:
  >>> kd.schema.is_primitive_schema(kd.STRING)
  DataItem(present, schema: MASK)
  >>> kd.schema.is_primitive_schema(kd.OBJECT)
  DataItem(missing, schema: MASK)
  >>> kd.schema.is_primitive_schema(kd.item(1))
  DataItem(missing, schema: MASK)"#,
        |a| is_primitive_schema(a.value("x").expect("x is required")).map(Value::Slice),
    );
    r.add(
        "kd.schema.get_primitive_schema",
        &["kd.schema.get_dtype", "kd.get_primitive_schema", "kd.get_dtype"],
        "ds",
        r#"Returns the primitive schema of the items of `ds`.

For a slice with a primitive schema, that schema (even when every item
is missing); for an OBJECT slice whose present items are all primitives
of one type, that type. Anything else (mixed types, entities, no present
item) gives a missing SCHEMA item. `kd.schema.get_dtype` is the same
operator.

Args:
  ds: a DataSlice.

Examples:
  >>> kd.schema.get_dtype(kd.slice([1, None], kd.OBJECT))
  DataItem(INT32, schema: SCHEMA)
  >>> kd.schema.get_dtype(kd.slice([None], kd.FLOAT32))
  DataItem(FLOAT32, schema: SCHEMA)
  >>> kd.schema.get_dtype(kd.slice([1, 'a']))
  DataItem(None, schema: SCHEMA)"#,
        |a| get_primitive_schema(a.slice("ds")?),
    );
    r.bag_rule("kd.schema.get_primitive_schema", BagRule::Drop);
    r.add_value(
        "kd.schema.with_schema_from_obj",
        &["kd.with_schema_from_obj"],
        "x",
        r#"Returns OBJECT slice `x` with the common schema of its items as its schema.

The items' schemas (`kd.get_obj_schema`) are joined as
`kd.schema.agg_common_schema` joins them: primitives are cast to their
common type (INT32 and FLOAT32 give FLOAT32; numbers and text stay
OBJECT), entities of one explicit schema (a list, dict or named schema)
get that schema, and no present item gives NONE. Objects with implicit
schemas (made by `kd.obj(a=...)`), schemas with no common schema and a
slice that is not OBJECT raise.

Args:
  x: an OBJECT DataSlice.

Examples:
  >>> kd.schema.with_schema_from_obj(kd.slice([1, None, 3], kd.OBJECT))
  DataSlice([1, None, 3], schema: INT32, present: 2/3)
  >>> kd.schema.with_schema_from_obj(kd.slice([1, 2.5], kd.OBJECT))
  DataSlice([1.0, 2.5], schema: FLOAT32, present: 2/2)
  >>> kd.schema.with_schema_from_obj(kd.obj(kd.list([1, 2])))
  DataItem(List[1, 2], schema: LIST[INT32], bag_id: $...)"#,
        |a| with_schema_from_obj(a.op_name(), a.slice("x")?).map(Value::Slice),
    );
    r.add(
        "kd.schema.agg_common_schema",
        &[],
        "x, ndim=unspecified",
        r#"Returns the common schema of the schemas in x along its last ndim dimensions.

Missing schemas are skipped; a group with no present schema gives a missing
schema. Primitive schemas with no common primitive schema give OBJECT; an
entity schema with any other schema raises ValueError. The result has ndim
fewer dimensions than x.

Args:
  x: a DataSlice of schemas.
  ndim: how many trailing dimensions to aggregate over (1 when unspecified).

Examples:
  >>> x = kd.slice([[kd.INT32, None], [kd.FLOAT32, kd.INT64], [None]])
  >>> kd.schema.agg_common_schema(x)
  DataSlice([INT32, FLOAT32, None], schema: SCHEMA, present: 2/3)
  >>> kd.schema.agg_common_schema(x, ndim=2)
  DataItem(FLOAT32, schema: SCHEMA)
  >>> kd.schema.agg_common_schema(kd.slice([[kd.INT32, kd.STRING]]))
  DataSlice([OBJECT], schema: SCHEMA, present: 1/1)"#,
        |a| {
            // Koda's order: `ndim` (its type, then against the rank), `x`'s
            // type, then that `x` is not an item.
            let (op, x, given) = (a.op_name(), a.slice("x")?, a.ndim()?);
            let ndim = agg_ndim(op, given)?;
            if given.is_some() && ndim > x.rank() {
                return Err(Error::value(op, format!("expected 0 <= ndim <= rank, got ndim={ndim} and rank={}", x.rank())));
            }
            crate::promote::data_type(op, "x", x, crate::promote::TypeClass::Schema)?;
            if x.is_item() {
                return Err(Error::value(op, "aggregation is not supported for scalar DataItems"));
            }
            agg_common_schema(op, x, ndim)
        },
    );
    r.add(
        "kd.schema.common_schema",
        &[],
        "x",
        r#"Returns the common schema of all the schemas in x, as a DataItem.

Missing schemas are skipped (with none present, the result is missing).
Primitive schemas with no common primitive schema give OBJECT; an entity
schema with any other schema raises ValueError. x must have schema SCHEMA.

Args:
  x: a DataSlice of schemas.

Examples:
  >>> kd.schema.common_schema(kd.slice([kd.INT32, kd.FLOAT32, None]))
  DataItem(FLOAT32, schema: SCHEMA)
  >>> kd.schema.common_schema(kd.slice([[kd.INT32], [kd.INT64, kd.STRING]]))
  DataItem(OBJECT, schema: SCHEMA)"#,
        |a| {
            let x = a.slice("x")?;
            crate::promote::data_type(a.op_name(), "x", x, crate::promote::TypeClass::Schema)?;
            agg_common_schema(a.op_name(), x, x.rank())
        },
    );
    // Type rules (see `crate::typing`).
    use crate::promote::TypeClass;
    use crate::typing::rules::{Out, aggregate, item, like};
    use plait_core::Schema;
    r.type_rule("kd.schema.agg_common_schema", aggregate(TypeClass::Schema, Out::Fixed(Schema::Schema)));
    for name in ["kd.schema.common_schema", "kd.schema.get_primitive_schema", "kd.schema.get_schema"] {
        r.type_rule(name, item(&[], Schema::Schema));
    }
    r.type_rule("kd.schema.is_primitive_schema", item(&[], Schema::Mask));
    r.type_rule("kd.schema.with_schema_from_obj", like("x", Out::Unknown));
}
