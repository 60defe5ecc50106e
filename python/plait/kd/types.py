"""Classes of plait values, for `isinstance` checks and type annotations
(`kd.types.DataSlice`, `kd.types.ListItem`, ...), as Koda's `kd.types`.

A DataItem comes to Python as the class Koda gives it: `SchemaItem` when its
schema is SCHEMA, `ListItem` / `DictItem` when it holds a list / dict, else
`DataItem`; all are DataItems (and so DataSlices). `Stream`, `StreamReader`,
`StreamWriter` and `Executor` are `kd.streams`'.
"""

from plait._plait import DataBag, DataItem, DataSlice, DictItem, Edge, Expr, JaggedShape, ListItem, SchemaItem
from plait._plait import Executor, Stream, StreamReader, StreamWriter
from plait.kd.iterables import Iterable

__all__ = [
    "DataBag",
    "DataItem",
    "DataSlice",
    "DictItem",
    "Edge",
    "Executor",
    "Expr",
    "Iterable",
    "JaggedShape",
    "ListItem",
    "SchemaItem",
    "Stream",
    "StreamReader",
    "StreamWriter",
]
