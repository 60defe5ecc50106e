"""`kd.schema`: schema constants, casting and common schemas (seed 000, "Schema")."""

from plait import _plait
from plait._plait import agg_common_schema, cast_to_implicit, cast_to_narrow, common_schema
from plait.kd._operators import export

__all__ = [
    "agg_common_schema",
    "cast_to",
    "cast_to_implicit",
    "cast_to_narrow",
    "get_obj_schema",
    "named_schema",
    "new_schema",
    "common_schema",
    "get_schema",
    "is_primitive_schema",
    "to_bool",
    "to_bytes",
    "to_float32",
    "to_float64",
    "to_int32",
    "to_int64",
    "to_mask",
    "to_none",
    "to_object",
    "to_schema",
    "to_str",
    "with_schema",
]

INT32 = _plait.schema_constant("INT32")
INT64 = _plait.schema_constant("INT64")
FLOAT32 = _plait.schema_constant("FLOAT32")
FLOAT64 = _plait.schema_constant("FLOAT64")
BOOLEAN = _plait.schema_constant("BOOLEAN")
MASK = _plait.schema_constant("MASK")
BYTES = _plait.schema_constant("BYTES")
STRING = _plait.schema_constant("STRING")
EXPR = _plait.schema_constant("EXPR")
ITEMID = _plait.schema_constant("ITEMID")
SCHEMA = _plait.schema_constant("SCHEMA")
OBJECT = _plait.schema_constant("OBJECT")
NONE = _plait.schema_constant("NONE")

_PRIMITIVES = ("INT32", "INT64", "FLOAT32", "FLOAT64", "BOOLEAN", "MASK", "BYTES", "STRING", "EXPR")


def cast_to(x, schema):
    """`x` cast to `schema` with explicit (relaxed, possibly failing) rules.

    >>> kd.cast_to(kd.slice(['1', '2']), kd.INT64)
    DataSlice([1, 2], schema: INT64, present: 2/2)
    """
    return _plait.cast_to("kd.schema.cast_to", x, schema)


def make_caster(op_name, schema):
    """A function casting its argument to `schema` with explicit rules.

    `op_name` is the name errors report (`kd.int32`, `kd.schema.to_int32`, ...).
    """

    def cast(x):
        return _plait.cast_to(op_name, x, schema)

    cast.__name__ = op_name.rsplit(".", 1)[-1]
    cast.__qualname__ = cast.__name__
    cast.__doc__ = f"`x` boxed and cast to {schema} with explicit casting rules (may fail per item)."
    return cast


to_int32 = make_caster("kd.schema.to_int32", INT32)
to_int64 = make_caster("kd.schema.to_int64", INT64)
to_float32 = make_caster("kd.schema.to_float32", FLOAT32)
to_float64 = make_caster("kd.schema.to_float64", FLOAT64)
to_bool = make_caster("kd.schema.to_bool", BOOLEAN)
to_mask = make_caster("kd.schema.to_mask", MASK)
to_bytes = make_caster("kd.schema.to_bytes", BYTES)
to_str = make_caster("kd.schema.to_str", STRING)
to_object = make_caster("kd.schema.to_object", OBJECT)
to_none = make_caster("kd.schema.to_none", NONE)
to_schema = make_caster("kd.schema.to_schema", SCHEMA)


def get_schema(x):
    """The schema of DataSlice `x`."""
    return x.get_schema()


def with_schema(x, schema):
    """`x` reinterpreted as `schema` without converting its items."""
    return x.with_schema(schema)


def is_primitive_schema(x):
    """`kd.present` if `x` is a primitive schema item, else `kd.missing`."""
    is_schema = isinstance(x, _plait.DataItem) and str(x.get_schema()) == "SCHEMA"
    return _plait.mask_item(is_schema and str(x) in _PRIMITIVES)


export(globals(), "kd.schema")
