"""The `kd` namespace: Koda's API over plait's engine.

Names, signatures and behaviour follow Koda (koladata); see
docs/differences.md for the few places where plait deliberately differs.
"""

import builtins

from plait import _plait
from plait.kd import qtypes, schema, shapes, types
from plait.kd.schema import (
    BOOLEAN,
    BYTES,
    EXPR,
    FLOAT32,
    FLOAT64,
    INT32,
    INT64,
    ITEMID,
    MASK,
    NONE,
    OBJECT,
    SCHEMA,
    STRING,
)
from plait.kd import allocation, bags, comparison, core, dicts, entities, ids, lists, masking, math, objs, slices, strings
from plait.kd import bitwise, curves, json, random  # noqa: A004 - Koda's names
from plait.kd import proto
from plait.kd._proto_messages import from_proto, schema_from_proto, to_proto
from plait._plait import bag, mutable_bag
from plait.kd._attr_names import dir, get_attr_names  # noqa: A004 - Koda's names
from plait.kd._operators import export_aliases as _export_aliases, traced_through as _traced_through
from plait.kd._operators import OPERATORS as _OPERATORS
from plait.kd import _builtins
from plait.kd import _methods  # noqa: F401 - attaches DataSlice methods
from plait.kd._mutation import del_attr, embed_schema, set_attr, set_attrs, set_schema, update_schema
from plait.kd import conversion  # noqa: F401 - structured to_py
from plait.kd.from_py import from_py
from plait.kd import expr
from plait.kd.expr import I, S, V, named_container
from plait.kd import optools, tuples
from plait.kd import functor
from plait.kd.functor import apply_py, bind, fn, is_fn, py_fn, register_py_fn, trace_as_fn, trace_py_fn
from plait.kd import py
from plait.kd.py import map_py, map_py_on_cond, map_py_on_selected, py_reference
from plait.kd import iterables
from plait.kd import streams, parallel
from plait.kd import assertion
from plait.kd import extension_types
from plait.kd.persistence import dump, dumps, load, loads
from plait.kd import vis
from plait.kd import testing
from plait.kd import progress
from plait.kd import typing
from plait.kd.compiled import compile  # noqa: A004 - the transform's name
from plait.kd.vmapped import vmap
from plait.kd.sharded import shard_map
from plait.kd.assertion import check_inputs, check_output, duck_dict, duck_list, duck_type, static_when_tracing

from_pytree = from_py
expr_quote = slices.expr_quote

# Koda's top-level names for operators (`kd.add` is `kd.math.add`, ...).
_export_aliases(globals())
_builtins.export_aliases(globals())
# Filters may be functions or functors: Python wrappers of the operators.
select = slices.select
select_items = lists.select_items
# kd.new / kd.obj of a Python list or dict make lists and dicts.
new = entities.new
obj = objs.new
get_item = core.get_item

list = lists._list  # noqa: A001 - Koda's name
list_shaped = lists.shaped
list_shaped_as = lists.shaped_as
list_like = lists.like
dict = dicts.new  # noqa: A001 - Koda's name
dict_shaped = dicts.shaped
dict_shaped_as = dicts.shaped_as
dict_like = dicts.like
select_keys = dicts.select_keys
select_values = dicts.select_values
agg_uuid = ids.agg_uuid
strict_new = entities.strict_new
has_fn = functor.has_fn
fstr = strings.fstr

present = _plait.mask_item(True)
missing = _plait.mask_item(False)


@_traced_through
def slice(x, /, schema=None):  # noqa: A001 - Koda's name
    """A DataSlice from a Python value or nested lists.

    Python ints become INT32 (INT64 when too large), floats FLOAT32 (FLOAT64
    when too large), None is missing; the slice's schema is the common schema of
    its items. With `schema=`, the items are cast explicitly.

    >>> kd.slice([[1, 2], [3]])
    DataSlice([[1, 2], [3]], schema: INT32, present: 3/3)
    """
    if isinstance(x, expr.Expr) or isinstance(schema, expr.Expr):
        # While tracing: the operator, applied to the values.
        return _OPERATORS["kd.slices.slice"](x, **({} if schema is None else {"schema": schema}))
    return _plait.slice(x, schema)


@_traced_through
def item(x, /, schema=None):
    """A DataItem from a Python scalar.

    >>> kd.item(1.5)
    DataItem(1.5, schema: FLOAT32)
    """
    if isinstance(x, expr.Expr) or isinstance(schema, expr.Expr):
        return _OPERATORS["kd.slices.item"](x, **({} if schema is None else {"schema": schema}))
    return _plait.item(x, schema)




def is_item(obj):
    """Returns `kd.present` if `obj` is a DataItem, else `kd.missing`.

    A DataSlice with dimensions (even of one item) and non-Koda values give
    `kd.missing`.

    Args:
      obj: any value.

    Examples:
      >>> kd.is_item(kd.item(1))
      DataItem(present, schema: MASK)
      >>> kd.is_item(kd.slice([1]))
      DataItem(missing, schema: MASK)
      >>> kd.is_item(1)
      DataItem(missing, schema: MASK)
    """
    return present if isinstance(obj, types.DataItem) else missing


def is_slice(obj):
    """Returns `kd.present` if `obj` is a DataSlice, else `kd.missing`.

    DataItems are DataSlices too; Python values (even lists) are not.

    Args:
      obj: any value.

    Examples:
      >>> kd.is_slice(kd.slice([1, 2]))
      DataItem(present, schema: MASK)
      >>> kd.is_slice(kd.item(1))
      DataItem(present, schema: MASK)
      >>> kd.is_slice([1, 2])
      DataItem(missing, schema: MASK)
    """
    return present if isinstance(obj, types.DataSlice) else missing




def to_py(ds, max_depth=2, obj_as_dict=False, include_missing_attrs=True):
    """Returns the contents of `ds` as Python values.

    The dimensions of `ds` become nested Python lists (a DataItem gives a
    single value), missing items None. Koda lists become Python lists, dicts
    Python dicts, and entities and objects `Obj` instances (Python dicts with
    `obj_as_dict=True`; an empty dict for one without attributes). Each
    attribute, list item or dict value read counts one level; items deeper
    than `max_depth` levels stay DataItems. An item reached twice (shared,
    or inside itself) is one Python value; an attribute with a nofollow
    schema is empty.

    Args:
      ds: a DataSlice.
      max_depth: how many levels to convert (2 by default; -1 for no limit).
      obj_as_dict: whether to give entities and objects as Python dicts.
      include_missing_attrs: whether to include attributes whose value is
        missing (as None).

    Examples:
      >>> kd.to_py(kd.slice([[1, 2], [None]]))
      [[1, 2], [None]]
      >>> kd.to_py(kd.new(a=1, b=kd.list([1, 2])))
      Obj(a=1, b=[1, 2])
      >>> kd.to_py(kd.obj(a=kd.obj(b=kd.obj(c=1))), max_depth=-1, obj_as_dict=True)
      {'a': {'b': {'c': 1}}}
    """
    return conversion.to_py(ds, max_depth, obj_as_dict, include_missing_attrs)


def to_pytree(ds, max_depth=2, include_missing_attrs=True):
    """Returns the contents of `ds` as a tree of Python lists and dicts.

    `kd.to_py` with entities and objects given as Python dicts, so the result
    is made of plain containers only (what pytree libraries walk).

    Args:
      ds: a DataSlice.
      max_depth: how many levels to convert (2 by default; -1 for no limit).
      include_missing_attrs: whether to include attributes whose value is
        missing (as None).

    Examples:
      >>> kd.to_pytree(kd.obj(a=1, b=kd.list([1, 2])))
      {'a': 1, 'b': [1, 2]}
      >>> kd.to_pytree(kd.slice([kd.new(x=1), None]))
      [{'x': 1}, None]
    """
    return conversion.to_py(ds, max_depth, True, include_missing_attrs)


def is_expr(obj):
    """Returns `kd.present` if `obj` is an expression, else `kd.missing`.

    Args:
      obj: any value.

    Examples:
      >>> kd.is_expr(I.x + 1)
      DataItem(present, schema: MASK)
      >>> kd.is_expr(kd.item(1))
      DataItem(missing, schema: MASK)
    """
    return present if isinstance(obj, expr.Expr) else missing


def clear_eval_cache():
    """Forgets the evaluation plans and compiled functors plait keeps, so the
    memory they hold is freed; they are rebuilt when next needed.

    Examples:
      >>> kd.clear_eval_cache()
      >>> kd.eval(I.x + 1, x=1)
      DataItem(2, schema: INT32)
    """
    _plait.clear_eval_cache()


def to_pylist(x):
    """Returns the first dimension of `x` as a Python list of DataSlices.

    Each element has one dimension fewer than `x` (DataItems when `x` has one
    dimension). A DataItem has no dimension to split and raises.

    Args:
      x: a DataSlice with at least one dimension.

    Examples:
      >>> kd.to_pylist(kd.slice([[1, 2], [3]]))
      [DataSlice([1, 2], schema: INT32, present: 2/2), DataSlice([3], schema: INT32, present: 1/1)]
      >>> kd.to_pylist(kd.slice([1, None]))
      [DataItem(1, schema: INT32), DataItem(None, schema: INT32)]
    """
    return builtins.list(x.L)


# Koda also lists these under `kd.slices`.
for _name in ("item", "slice"):
    setattr(slices, _name, globals()[_name])
del _name


eval = expr.eval  # noqa: A001 - Koda's name


def extension_type(unsafe_override=False):
    """Returns a class decorator making the class a Koda extension type.

    The same as `kd.extension_types.extension_type` (see there): annotations
    declare the attributes, calling the class makes a value, and in traced
    functors annotated parameters are seen through the class's attributes
    and methods.

    Args:
      unsafe_override: accepted for compatibility with Koda.

    Examples:
      >>> @kd.extension_type()
      ... class TopPair:
      ...   a: kd.INT32
      ...   b: kd.types.DataSlice
      ...   def total(self):
      ...     return self.a + kd.agg_sum(self.b)
      >>> pair = TopPair(a=1, b=kd.slice([2, 3]))
      >>> pair
      TopPair(a=DataItem(1, schema: INT32), b=DataSlice([2, 3], schema: INT32, present: 2/2))
      >>> pair.total()
      DataItem(6, schema: INT32)
      >>> def total(p: TopPair):
      ...   return p.total() * 2
      >>> kd.fn(total)(pair)
      DataItem(12, schema: INT32)
    """
    return extension_types.extension_type(unsafe_override)


def with_name(obj, name):
    """Returns `obj` with the name `name`: while tracing, and in its lazy
    form (`kd.lazy.with_name`), the named expression.

    Eagerly it does nothing, to values and expressions alike (as Koda's;
    `expr.with_name(name)` names an expression). Lazily, or while tracing,
    where a value becomes a literal, it names the node, so that
    `kd.expr.get_name` and `kd.expr.sub_by_name` find it.

    Args:
      obj: a value or an expression.
      name: the name, a string.

    Examples:
      >>> kd.with_name(kd.slice([1, 2]), 'x')
      DataSlice([1, 2], schema: INT32, present: 2/2)
      >>> kd.expr.get_name(kd.lazy.with_name(I.x + 1, 'y'))
      'y'
    """
    if not isinstance(name, builtins.str):
        raise ValueError("Name must be a string")
    if not _plait.is_tracing():
        return obj
    if not isinstance(obj, expr.Expr):
        # While tracing, a value named becomes a named literal (a variable of
        # the functor), as in Koda.
        obj = expr.as_expr(optools.as_qvalue(obj))
    # An extension type's view stays one (the name changes no value).
    return extension_types._view(_plait.expr_call("kd.annotation.with_name", obj, name))


# `kd.lazy`, `kd.eager`, and `kd.<op>` following tracing (built last: they
# cover every operator above).
from plait.kd import _lazy  # noqa: E402

lazy, eager = _lazy.build(__import__("sys").modules[__name__])
# Koda has no `kd.lazy.schema_from_py` (so it is added after `kd.lazy` is built).
schema_from_py = schema.schema_from_py
# `kd.lazy.annotation` is built by `_lazy.build`.
annotation = type(schema)("plait.kd.annotation", "Expression annotations (`kd.annotation.with_name`).")
annotation.with_name = with_name
annotation.source_location = expr._source_location
lazy.annotation.source_location = expr._source_location

# Signatures made by hand (`kd.functor.signature_utils`); its constants are
# items, made once `kd` is complete.
from plait.kd import signature_utils  # noqa: E402

functor.signature_utils = signature_utils

# DataBag methods that create items (`bag.new`, `bag.list`, ...) call the
# `kd` functions above, so they are attached last.
from plait.kd import _bag_methods  # noqa: E402

_bag_methods._attach_creating()
