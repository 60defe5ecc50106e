"""`kd.schema`: schema constants, casting and common schemas (seed 000, "Schema")."""

from plait import _plait
from plait._plait import agg_common_schema, cast_to_implicit, cast_to_narrow, common_schema
from plait.kd._operators import OPERATORS as _OPERATORS
from plait.kd._operators import export as _export

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


# What each caster accepts, and its examples: (notes, [(call, output), ...]);
# `{name}` in a call is the caster's public name.
_CASTER_DOCS = {
    "INT32": ("Floats are truncated toward zero, booleans become 0 or 1, and\n"
              "strings and bytes are parsed; an unparsable or out-of-range value raises.",
              [("{name}(kd.slice([1.9, -1.9, None]))", "DataSlice([1, -1, None], schema: INT32, present: 2/3)"),
               ("{name}('12')", "DataItem(12, schema: INT32)")]),
    "INT64": ("Floats are truncated toward zero, booleans become 0 or 1, and\n"
              "strings and bytes are parsed; an unparsable value raises.",
              [("{name}(kd.slice([1, 2, None]))", "DataSlice([1, 2, None], schema: INT64, present: 2/3)"),
               ("{name}(kd.slice(['12', '-3']))", "DataSlice([12, -3], schema: INT64, present: 2/2)")]),
    "FLOAT32": ("Numbers and booleans are converted and strings and bytes are parsed\n"
                "(`'inf'` and `'nan'` included); an unparsable value raises.",
                [("{name}(kd.slice([1, 2, None]))", "DataSlice([1.0, 2.0, None], schema: FLOAT32, present: 2/3)"),
                 ("{name}('2.5')", "DataItem(2.5, schema: FLOAT32)")]),
    "FLOAT64": ("Numbers and booleans are converted and strings and bytes are parsed\n"
                "(`'inf'` and `'nan'` included); an unparsable value raises.",
                [("{name}(kd.slice([1, None]))", "DataSlice([1.0, None], schema: FLOAT64, present: 1/2)"),
                 ("{name}('0.1')", "DataItem(0.1, schema: FLOAT64)")]),
    "BOOLEAN": ("Numbers become True when non-zero; strings and bytes cannot be cast\n"
                "and raise.",
                [("{name}(kd.slice([0, 2, None]))", "DataSlice([False, True, None], schema: BOOLEAN, present: 2/3)"),
                 ("{name}(kd.slice([0.0, 0.5]))", "DataSlice([False, True], schema: BOOLEAN, present: 2/2)")]),
    "MASK": ("Only MASK items (also inside an OBJECT slice) can be cast; other\n"
             "types, booleans included, raise (compare with True to get a mask).",
             [("{name}(kd.slice([kd.present, None], kd.OBJECT))",
               "DataSlice([present, missing], schema: MASK, present: 1/2)"),
              ("{name}(kd.slice([True]))", "Traceback (most recent call last):\n...\n"
               "ValueError: {name}: casting a DataSlice with schema BOOLEAN to MASK is not supported")]),
    "BYTES": ("Only BYTES items (also inside an OBJECT slice) can be cast; strings\n"
              "raise (use `kd.strings.encode` to encode them).",
              [("{name}(kd.slice([b'a', None], kd.OBJECT))", "DataSlice([b'a', None], schema: BYTES, present: 1/2)")]),
    "STRING": ("Numbers and booleans are formatted; bytes become the text of their\n"
               "Python literal (use `kd.strings.decode` to decode UTF-8 instead).",
               [("{name}(kd.slice([1, 2.5, None]))", "DataSlice(['1', '2.5', None], schema: STRING, present: 2/3)"),
                ("{name}(kd.slice([True, b'hi'], kd.OBJECT))",
                 "DataSlice(['true', 'b\\'hi\\''], schema: STRING, present: 2/2)")]),
    "OBJECT": ("The items keep their values and only the slice's schema changes, so\n"
               "items of different types can then be mixed.",
               [("{name}(kd.slice([1, 2, None]))", "DataSlice([1, 2, None], schema: OBJECT, present: 2/3)"),
                ("{name}('a').get_schema()", "DataItem(OBJECT, schema: SCHEMA)")]),
    "NONE": ("Only a DataSlice with no present item can be cast; any present item\n"
             "raises.",
             [("{name}(kd.slice([None, None], kd.OBJECT))", "DataSlice([None, None], schema: NONE, present: 0/2)"),
              ("{name}(None)", "DataItem(None, schema: NONE)")]),
    "SCHEMA": ("Only SCHEMA items (and missing items) can be cast; other types raise.",
               [("{name}(kd.slice([kd.INT32, None]))", "DataSlice([INT32, None], schema: SCHEMA, present: 1/2)"),
                ("{name}(None)", "DataItem(None, schema: SCHEMA)")]),
}


def _caster_doc(op_name, schema):
    """The docstring of the caster `op_name` to `schema` (with examples)."""
    notes, examples = _CASTER_DOCS[str(schema)]
    lines = [f"Returns `x` cast to {schema} with explicit casting rules.", "", notes,
             "Missing items stay missing, and a Python value or list is boxed first.", "",
             "Args:", "  x: a DataSlice, or a Python value to box.", "", "Examples:"]
    for call, output in examples:
        lines.append("  >>> " + call.format(name=op_name))
        lines.extend("  " + line for line in output.format(name=op_name).split("\n"))
    return "\n".join(lines) + "\n"


def _make_caster(op_name, schema):
    """Returns a function casting its argument to `schema` with explicit rules.

    The function boxes Python values, casts like `kd.cast_to(x, schema)`, and
    names itself `op_name` in the errors it raises. It is how `kd.int32`,
    `kd.schema.to_int32` and the other casters are made.
    """

    def cast(x):
        return _plait.cast_to(op_name, x, schema)

    cast.__name__ = op_name.rsplit(".", 1)[-1]
    cast.__qualname__ = cast.__name__
    cast.__doc__ = _caster_doc(op_name, schema) if str(schema) in _CASTER_DOCS else (
        f"Returns `x` cast to {schema} with explicit casting rules.")
    return cast


to_int32 = _make_caster("kd.schema.to_int32", INT32)
to_int64 = _make_caster("kd.schema.to_int64", INT64)
to_float32 = _make_caster("kd.schema.to_float32", FLOAT32)
to_float64 = _make_caster("kd.schema.to_float64", FLOAT64)
to_bool = _make_caster("kd.schema.to_bool", BOOLEAN)
to_mask = _make_caster("kd.schema.to_mask", MASK)
to_bytes = _make_caster("kd.schema.to_bytes", BYTES)
to_str = _make_caster("kd.schema.to_str", STRING)
to_object = _make_caster("kd.schema.to_object", OBJECT)
to_none = _make_caster("kd.schema.to_none", NONE)
to_schema = _make_caster("kd.schema.to_schema", SCHEMA)


def get_schema(x):
    """Returns the schema of DataSlice `x`, as a SCHEMA DataItem.

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
      DataItem(ENTITY(a=INT32, b=STRING), schema: SCHEMA, bag_id: $...)
    """
    return x.get_schema()


def is_primitive_schema(x):
    """Returns `kd.present` if `x` is a primitive schema DataItem, else `kd.missing`.

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
      DataItem(missing, schema: MASK)
    """
    is_schema = isinstance(x, _plait.DataItem) and str(x.get_schema()) == "SCHEMA"
    return _plait.mask_item(is_schema and str(x) in _PRIMITIVES)


def _item_schemas(ds):
    """The distinct schemas of `ds`'s present items, as SCHEMA items (for
    OBJECT, each item's own; else the slice's schema)."""
    if str(ds.get_schema()) != "OBJECT":
        return [ds.get_schema()]
    flat = ds.get_obj_schema().flatten()
    distinct = _OPERATORS["kd.slices.unique"](_OPERATORS["kd.slices.select_present"](flat))
    return [distinct.S[i] for i in range(distinct.get_size().to_py())]


def get_primitive_schema(ds):
    """Returns the primitive schema of the items of `ds`.

    For a slice with a primitive schema, that schema (even when every item
    is missing); for an OBJECT slice whose present items are all primitives
    of one type, that type. Anything else (mixed types, entities, no present
    item) gives a missing SCHEMA item. `kd.schema.get_dtype` is the same
    function.

    Args:
      ds: a DataSlice.

    Examples:
      >>> kd.schema.get_dtype(kd.slice([1, None], kd.OBJECT))
      DataItem(INT32, schema: SCHEMA)
      >>> kd.schema.get_dtype(kd.slice([None], kd.FLOAT32))
      DataItem(FLOAT32, schema: SCHEMA)
      >>> kd.schema.get_dtype(kd.slice([1, 'a']))
      DataItem(None, schema: SCHEMA)
    """
    schemas = _item_schemas(ds)
    if len(schemas) == 1 and str(schemas[0]) in _PRIMITIVES:
        return schemas[0].no_bag()
    return _plait.item(None, SCHEMA)


get_dtype = get_primitive_schema


def with_schema_from_obj(x):
    """Returns OBJECT slice `x` with the common schema of its items as its schema.

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
      DataItem(List[1, 2], schema: LIST[INT32], bag_id: $...)
    """
    op = "kd.schema.with_schema_from_obj"
    if str(x.get_schema()) != "OBJECT":
        raise ValueError(f"{op}: DataSlice must have OBJECT schema, got {x.get_schema()}")
    schemas = x.get_obj_schema().flatten()
    try:
        common = agg_common_schema(schemas).with_bag(schemas.get_bag())  # the bag names implicit schemas
    except ValueError:
        raise ValueError(f"{op}: the items have no common schema") from None
    if common.get_present_count().to_py() == 0:
        return _plait.cast_to(op, x, NONE)
    name = str(common)
    if name in _PRIMITIVES or name == "NONE":
        return _plait.cast_to(op, x, common)
    if name == "OBJECT":
        return x
    if name.startswith("IMPLICIT_ENTITY"):
        raise ValueError(f"{op}: DataSlice cannot have an implicit schema as its schema")
    return x.with_schema(common)


def schema_from_py(tpe):
    """Returns the Koda schema matching a Python type annotation.

    `int` is INT64, `float` FLOAT32, `str` STRING, `bytes` BYTES, `bool`
    BOOLEAN; `list[T]` is a LIST schema and `dict[K, V]` a DICT schema of
    the converted types; a dataclass is a named schema of its fields;
    `T | None` is the schema of `T`. Other types raise TypeError.

    Args:
      tpe: a Python type.

    Examples:
      >>> kd.schema.schema_from_py(int)
      DataItem(INT64, schema: SCHEMA)
      >>> kd.schema.schema_from_py(dict[str, list[float]])
      DataItem(DICT{STRING, LIST[FLOAT32]}, schema: SCHEMA, bag_id: $...)
      >>> import dataclasses
      >>> @dataclasses.dataclass
      ... class Point:
      ...   x: int
      ...   y: float | None
      >>> kd.schema.schema_from_py(Point).get_attr_names(intersection=True)
      ['x', 'y']
    """
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
        return _OPERATORS["kd.schema.list_schema"](schema_from_py(args[0]))
    if origin is dict and len(args) == 2:
        return _OPERATORS["kd.schema.dict_schema"](schema_from_py(args[0]), schema_from_py(args[1]))
    if dataclasses.is_dataclass(tpe) and isinstance(tpe, type):
        hints = typing.get_type_hints(tpe)
        fields = {f.name: schema_from_py(hints[f.name]) for f in dataclasses.fields(tpe)}
        name = f"__schema_from_py__{tpe.__module__}.{tpe.__qualname__}"
        return _OPERATORS["kd.schema.named_schema"](name, **fields)
    raise TypeError(f"unsupported type in kd.schema_from_py: {tpe!r}.")


def to_itemid(x):
    """Returns the ItemIds of the entities, objects, lists or dicts in `x`.

    The result has the ITEMID schema and the shape of `x`; missing items
    stay missing, and primitive items raise. `kd.schema.get_itemid` is the
    same function.

    Args:
      x: a DataSlice of entities, objects, lists or dicts.

    Examples:
      >>> kd.schema.to_itemid(kd.slice([kd.obj(a=1), None]))
      DataSlice([Entity:$..., None], schema: ITEMID, present: 1/2, bag_id: $...)
      >>> kd.schema.to_itemid(kd.list([1, 2]))
      DataItem(List:$..., schema: ITEMID, bag_id: $...)
    """
    return _OPERATORS["kd.core.get_itemid"](x)


get_itemid = to_itemid


_export(globals(), "kd.schema")
