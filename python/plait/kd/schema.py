"""`kd.schema`: schema constants, casting and common schemas (seed 000, "Schema").

The operators are the Rust registry's (`crates/plait-ops/src/schema/`);
`schema_from_py`, which takes Python types, is written here.
"""

from plait import _plait
from plait.kd._operators import OPERATORS as _OPERATORS
from plait.kd._operators import export as _export
from plait.kd._operators import export_aliases as _export_aliases

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
    import typing

    if not isinstance(tpe, type) and typing.get_origin(tpe) is None:
        raise TypeError(f"kd.schema_from_py expects a Python type, got {tpe}.")
    return _schema_from_py(tpe)


def _schema_from_py(tpe):
    """The schema of Python type `tpe` (see `schema_from_py`)."""
    import dataclasses
    import types as pytypes
    import typing

    origin = typing.get_origin(tpe)
    args = typing.get_args(tpe)
    if origin in (typing.Union, pytypes.UnionType):
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1:
            return _schema_from_py(rest[0])
    simple = {int: INT64, float: FLOAT32, str: STRING, bytes: BYTES, bool: BOOLEAN}
    if tpe in simple:
        return simple[tpe]
    if origin is list and len(args) == 1:
        return _OPERATORS["kd.schema.list_schema"](_schema_from_py(args[0]))
    if origin is dict and len(args) == 2:
        return _OPERATORS["kd.schema.dict_schema"](_schema_from_py(args[0]), _schema_from_py(args[1]))
    if dataclasses.is_dataclass(tpe) and isinstance(tpe, type):
        hints = typing.get_type_hints(tpe)
        fields = {f.name: _schema_from_py(hints[f.name]) for f in dataclasses.fields(tpe)}
        name = f"__schema_from_py__{tpe.__module__}.{tpe.__qualname__}"
        return _OPERATORS["kd.schema.named_schema"](name, **fields)
    if origin is not None:
        raise TypeError(f"unsupported generic field type in kd.schema_from_py: {origin!r}.")
    raise TypeError(f"unsupported type in kd.schema_from_py: {tpe!r}.")


_export(globals(), "kd.schema")
# Other names Koda gives operators inside this namespace (`kd.schema.get_dtype`).
_export_aliases(globals(), "kd.schema")
