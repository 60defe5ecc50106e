"""`kd.entities`: Koda's entities operators (built from the Rust registry),
and `kd.uu`, entities whose ids are derived from their content."""

from plait import _plait
from plait.kd import types
from plait.kd._operators import OPERATORS as _OPERATORS
from plait.kd._operators import export as _export, traced_through as _traced_through

_export(globals(), "kd.entities")
_new_operator = new  # noqa: F821 - exported above


@_traced_through
def new(*args, **kwargs):
    # A Python list or dict is a Koda list or dict, as in Koda.
    if args and isinstance(args[0], (list, dict)):
        from plait.kd import dicts, lists

        return (lists.new if isinstance(args[0], list) else dicts.new)(*args, **kwargs)
    return _new_operator(*args, **kwargs)


new.__signature__ = _new_operator.__signature__
new.__doc__ = _new_operator.__doc__


def _expr_type():
    from plait.kd.expr import Expr

    return Expr


@_traced_through
def uu(seed=None, *, schema=None, overwrite_schema=False, **attrs):
    """Entities whose ids are derived from `seed` and the attribute values
    (the same content gives the same entity); their schema is the uu schema
    of the attributes' schemas unless `schema=` is given.

    >>> kd.uu(x=1).get_itemid() == kd.uu(x=1).get_itemid()
    DataItem(present, schema: MASK)
    """
    seed = "" if seed is None else seed
    attrs = _container_attrs(attrs, "kd.entities.uu")
    attrs = {name: value if isinstance(value, (types.DataSlice, _expr_type())) else _plait.item(value, None)
             for name, value in attrs.items()}
    itemid = _OPERATORS["kd.ids.uuid"](seed=seed, **attrs)
    if schema is None:
        schema = _OPERATORS["kd.schema.uu_schema"](seed=seed, **{name: v.get_schema() for name, v in attrs.items()})
    return _OPERATORS["kd.entities.new"](schema=schema, overwrite_schema=overwrite_schema, itemid=itemid, **attrs)


def _container_attrs(attrs, op):
    """`attrs` with Python lists, tuples and dicts as Koda list or dict items
    (as `kd.new` boxes them: `kd.from_py(v, schema=None)`), which Koda only
    allows for one item: the other values must be DataItems. While tracing
    they are left to the operators, which refuse them as Koda does."""
    containers = [v for v in attrs.values() if type(v) in (list, tuple, dict)]
    if not containers:
        return attrs
    if _plait.is_tracing():
        from plait.kd import optools

        # Refused as operators refuse them (lists are ambiguous, dicts
        # unsupported).
        return {name: optools.as_qvalue(v) if type(v) in (list, dict) else v for name, v in attrs.items()}
    if any(isinstance(v, types.DataSlice) and v.get_ndim() > 0 for v in attrs.values()):
        message = _plait.DICT_ATTR_OF_SLICE if type(containers[0]) is dict else _plait.LIST_ATTR_OF_SLICE
        raise ValueError(f"{op}: {message}")
    from plait.kd.from_py import from_py

    return {name: from_py(v, schema=None) if type(v) in (list, tuple, dict) else v for name, v in attrs.items()}
