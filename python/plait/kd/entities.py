"""`kd.entities`: Koda's entities operators (built from the Rust registry),
and `kd.uu`, entities whose ids are derived from their content."""

from plait import _plait
from plait.kd import types
from plait.kd._operators import OPERATORS, export

export(globals(), "kd.entities")


def uu(seed=None, *, schema=None, overwrite_schema=False, **attrs):
    """Entities whose ids are derived from `seed` and the attribute values
    (the same content gives the same entity); their schema is the uu schema
    of the attributes' schemas unless `schema=` is given.

    >>> kd.uu(x=1).get_itemid() == kd.uu(x=1).get_itemid()
    DataItem(present, schema: MASK)
    """
    seed = "" if seed is None else seed
    attrs = {name: value if isinstance(value, types.DataSlice) else _plait.item(value, None) for name, value in attrs.items()}
    itemid = OPERATORS["kd.ids.uuid"](seed=seed, **attrs)
    if schema is None:
        schema = OPERATORS["kd.schema.uu_schema"](seed=seed, **{name: v.get_schema() for name, v in attrs.items()})
    return OPERATORS["kd.entities.new"](schema=schema, overwrite_schema=overwrite_schema, itemid=itemid, **attrs)


def strict_new(*, schema, overwrite_schema=False, itemid=None, **attrs):
    """Entities of `schema` like `kd.new`, refusing attributes the schema
    does not declare."""
    declared = set(_plait.get_attr_names(schema, intersection=True))
    for name in attrs:
        if name not in declared:
            raise ValueError(f"cannot create a new entity with attribute '{name}' not defined in the schema")
    options = {"itemid": itemid} if itemid is not None else {}
    return OPERATORS["kd.entities.new"](schema=schema, overwrite_schema=overwrite_schema, **options, **attrs)
