"""`kd.objs`: Koda's objs operators (built from the Rust registry), and
`kd.uuobj`, objects whose ids are derived from their content."""

from plait.kd._operators import OPERATORS as _OPERATORS
from plait.kd._operators import export as _export, traced_through as _traced_through

_export(globals(), "kd.objs")
_new_operator = new  # noqa: F821 - exported above


@_traced_through
def new(*args, **kwargs):
    # A Python list or dict becomes objects as `kd.from_py` makes them, as in Koda.
    if args and isinstance(args[0], (list, dict)):
        from plait.kd.from_py import from_py

        return from_py(*args, **kwargs)
    return _new_operator(*args, **kwargs)


new.__signature__ = _new_operator.__signature__
new.__doc__ = _new_operator.__doc__


@_traced_through
def uuobj(seed=None, **attrs):
    """Returns objects whose ItemIds are computed from `seed` and the attributes.

    The same seed and attribute values always give the same ItemId, so equal
    content means the same object; a different `seed` gives another id for
    the same content. The attribute values broadcast together, and the
    result has the OBJECT schema.

    Args:
      seed: a string that distinguishes ids made from the same attributes
        (empty by default).
      **attrs: the attribute values.

    Examples:
      >>> kd.uuobj(x=kd.slice([1, 2]), y='a')
      DataSlice([Obj(x=1, y='a'), Obj(x=2, y='a')], schema: OBJECT, present: 2/2, bag_id: $...)
      >>> kd.uuobj(x=1).get_itemid() == kd.uuobj(x=1).get_itemid()
      DataItem(present, schema: MASK)
      >>> kd.uuobj(x=1).get_itemid() == kd.uuobj('other', x=1).get_itemid()
      DataItem(missing, schema: MASK)
    """
    from plait.kd.entities import _container_attrs

    attrs = _container_attrs(attrs, "kd.objs.uu")
    itemid = _OPERATORS["kd.ids.uuid"](seed="" if seed is None else seed, **attrs)
    return _OPERATORS["kd.objs.new"](itemid=itemid, **attrs)


uu = uuobj
