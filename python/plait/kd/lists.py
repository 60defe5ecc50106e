"""`kd.lists`: Koda's list operators (built from the Rust registry), and
`kd.list` / `kd.lists.new`, which builds lists from Python lists."""

import inspect as _inspect

from plait import _plait
from plait.kd import slices as _slices, types
from plait.kd._operators import OPERATORS as _OPERATORS
from plait.kd._operators import export as _export, traced_through as _traced_through

_export(globals(), "kd.lists")


_new_operator = _OPERATORS["kd.lists.new"]


@_traced_through
def new(items=None, *, item_schema=None, schema=None, itemid=None):
    """A list (a DataItem) with the given items; nested Python lists become
    lists of lists. `item_schema=` (or a list `schema=`) casts the items.
    Eagerly a DataSlice is refused (`kd.implode` makes lists of one); while
    tracing, an expression's dimensions all become lists, as in
    `kd.lazy.lists.new`.

    >>> kd.list([1, 2, 3])
    DataItem(List[1, 2, 3], schema: LIST[INT32], bag_id: $...)
    >>> kd.fn(lambda x: kd.lists.new(x))(kd.slice([[1], [2, 3]]))
    DataItem(List[List[1], List[2, 3]], schema: LIST[LIST[INT32]], bag_id: $...)
    """
    if isinstance(items, _plait.Expr):
        return _new_operator(items, item_schema=item_schema, schema=schema, itemid=itemid)
    if isinstance(items, types.DataSlice):
        raise ValueError("kd.list does not accept DataSlice as an input, please use kd.implode")
    _plait.refuse_container_subclass("kd.list", items)
    # Only the options given are passed (each None one would be boxed).
    options = {}
    if item_schema is not None:
        options["item_schema"] = item_schema
    if schema is not None:
        options["schema"] = schema
    if itemid is not None:
        options["itemid"] = itemid
    # As Koda: the Python list made a slice (nested lists, more dimensions),
    # all of whose dimensions become lists.
    if items is None:
        return _new_operator(**options)
    return _new_operator(_plait.slice(items, None), **options)


@_traced_through
def _list(items=None, *, item_schema=None, schema=None, itemid=None):
    """`kd.list`: a list (a DataItem) with the given items, as `kd.lists.new`
    builds it. A DataSlice is a TypeError here and a ValueError in
    `kd.lists.new`, as in Koda (whose `kd.list` checks in Python before
    calling the operator).

    >>> kd.list([[1], [2, 3]])
    DataItem(List[List[1], List[2, 3]], schema: LIST[LIST[INT32]], bag_id: $...)
    """
    if isinstance(items, types.DataSlice):
        raise TypeError("kd.list does not accept DataSlice as an input, please use kd.implode")
    return new(items, item_schema=item_schema, schema=schema, itemid=itemid)


_list.__name__ = _list.__qualname__ = "list"

_shaped_operator, _shaped_as_operator, _like_operator = shaped, shaped_as, like  # noqa: F821 - exported above


def _with_items(operator):
    """`operator` called as Koda's Python function calls it: `items=None`
    means no items (empty lists), while a DataItem(None) is one missing item
    per list (the lazy operator boxes None so, as Koda's does)."""

    @_traced_through
    def call(shape, /, items=None, *, item_schema=None, schema=None, itemid=None):
        given = {} if items is None else {"items": items}
        return operator(shape, **given, item_schema=item_schema, schema=schema, itemid=itemid)

    call.__name__ = call.__qualname__ = operator.name.rpartition(".")[2]
    call.__doc__ = operator.__doc__
    # Koda's name for the first parameter (`shape_from`, ...), the others
    # defaulting to None as in Koda's Python function.
    first = next(iter(_inspect.signature(operator).parameters.values()))
    params = list(_inspect.signature(call).parameters.values())
    call.__signature__ = _inspect.Signature([params[0].replace(name=first.name), *params[1:]])
    return call


shaped = _with_items(_shaped_operator)
shaped_as = _with_items(_shaped_as_operator)
like = _with_items(_like_operator)

_select_items_operator = select_items  # noqa: F821 - exported above


@_traced_through
def select_items(ds, fltr):
    # The items are read only for a filter function or functor (a mask is
    # the operator's to check against the lists).
    return _select_items_operator(ds, fltr(ds[:]) if _slices._is_filter_function(fltr) else fltr)


select_items.__doc__ = _select_items_operator.__doc__
# Lazily too a filter function is applied by this glue, inside tracing.
select_items.__plait_lazy_glue_when__ = _slices._filter_is_function


