"""`kd.schema`: schema constants, casting and common schemas (seed 000, "Schema")."""

from plait import _plait
from plait._plait import agg_common_schema, cast_to_implicit, cast_to_narrow, common_schema
from plait.kd._operators import OPERATORS, export

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


def _item_schemas(ds):
    """The distinct schemas of `ds`'s present items, as SCHEMA items (for
    OBJECT, each item's own; else the slice's schema)."""
    if str(ds.get_schema()) != "OBJECT":
        return [ds.get_schema()]
    flat = ds.get_obj_schema().flatten()
    distinct = OPERATORS["kd.slices.unique"](OPERATORS["kd.slices.select_present"](flat))
    return [distinct.S[i] for i in range(distinct.get_size().to_py())]


def get_primitive_schema(ds):
    """The primitive schema of `ds`'s items: its schema when primitive, the
    one type its OBJECT items share, else a missing SCHEMA item."""
    schemas = _item_schemas(ds)
    if len(schemas) == 1 and str(schemas[0]) in _PRIMITIVES:
        return schemas[0].no_bag()
    return _plait.item(None, SCHEMA)


get_dtype = get_primitive_schema


def with_schema_from_obj(x):
    """`x` (OBJECT) with the one schema its items carry as its schema:
    primitives of one type cast to it, entities of one explicit schema given
    that schema; mixed items stay OBJECT."""
    if str(x.get_schema()) != "OBJECT":
        return x
    schemas = _item_schemas(x)
    if len(schemas) != 1:
        return x
    if str(schemas[0]) in _PRIMITIVES:
        return _plait.cast_to("kd.schema.with_schema_from_obj", x, schemas[0])
    if str(schemas[0]).startswith("IMPLICIT_ENTITY"):
        raise ValueError("kd.schema.with_schema_from_obj: DataSlice cannot have an implicit schema as its schema")
    return x.with_schema(schemas[0])


def schema_from_py(tpe):
    """The Koda schema of a Python type: int -> INT64, float -> FLOAT32,
    str, bytes, bool, list[T] -> LIST[T], dict[K, V] -> DICT{K, V}, a
    dataclass -> a named schema of its fields; `T | None` is `T`."""
    import dataclasses
    import types as pytypes
    import typing

    origin = typing.get_origin(tpe)
    args = typing.get_args(tpe)
    if origin in (typing.Union, pytypes.UnionType):
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1:
            return schema_from_py(rest[0])
    simple = {int: INT64, float: FLOAT32, str: STRING, bytes: BYTES, bool: BOOLEAN}
    if tpe in simple:
        return simple[tpe]
    if origin is list and len(args) == 1:
        return OPERATORS["kd.schema.list_schema"](schema_from_py(args[0]))
    if origin is dict and len(args) == 2:
        return OPERATORS["kd.schema.dict_schema"](schema_from_py(args[0]), schema_from_py(args[1]))
    if dataclasses.is_dataclass(tpe) and isinstance(tpe, type):
        hints = typing.get_type_hints(tpe)
        fields = {f.name: schema_from_py(hints[f.name]) for f in dataclasses.fields(tpe)}
        name = f"__schema_from_py__{tpe.__module__}.{tpe.__qualname__}"
        return OPERATORS["kd.schema.named_schema"](name, **fields)
    raise TypeError(f"unsupported type in kd.schema_from_py: {tpe!r}.")


def to_itemid(x):
    """The ItemIds of `x`'s entities, objects, lists or dicts."""
    return OPERATORS["kd.core.get_itemid"](x)


get_itemid = to_itemid


export(globals(), "kd.schema")
