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
    attrs = {name: value if isinstance(value, (types.DataSlice, _expr_type())) else _plait.item(value, None)
             for name, value in attrs.items()}
    itemid = _OPERATORS["kd.ids.uuid"](seed=seed, **attrs)
    if schema is None:
        schema = _OPERATORS["kd.schema.uu_schema"](seed=seed, **{name: v.get_schema() for name, v in attrs.items()})
    return _OPERATORS["kd.entities.new"](schema=schema, overwrite_schema=overwrite_schema, itemid=itemid, **attrs)


def strict_new(*, schema, overwrite_schema=False, itemid=None, **attrs):
    """Returns new entities of `schema`, refusing attributes it does not declare.

    Like `kd.new(schema=schema, ...)`, but an attribute missing from the
    schema raises instead of being added to it. Declared attributes that are
    not given stay missing. The attribute values broadcast together.

    Args:
      schema: the entity schema of the result.
      overwrite_schema: whether to replace the schema of an attribute whose
        value has another schema.
      itemid: ITEMIDs to use for the entities.
      **attrs: the attribute values.

    Examples:
      >>> s = kd.named_schema('Point', x=kd.INT32, y=kd.INT32)
      >>> kd.entities.strict_new(x=kd.slice([1, 2]), schema=s)
      DataSlice([Entity(x=1, y=None), Entity(x=2, y=None)], schema: Point(x=INT32, y=INT32), present: 2/2, bag_id: $...)
      >>> kd.entities.strict_new(x=1, z=2, schema=s)
      Traceback (most recent call last):
      ...
      ValueError: cannot create a new entity with attribute 'z' not defined in the schema
    """
    declared = set(_plait.get_attr_names(schema, intersection=True))
    for name in attrs:
        if name not in declared:
            raise ValueError(f"cannot create a new entity with attribute '{name}' not defined in the schema")
    options = {"itemid": itemid} if itemid is not None else {}
    return _OPERATORS["kd.entities.new"](schema=schema, overwrite_schema=overwrite_schema, **options, **attrs)
