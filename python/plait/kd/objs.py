"""`kd.objs`: Koda's objs operators (built from the Rust registry), and
`kd.uuobj`, objects whose ids are derived from their content."""

from plait.kd._operators import OPERATORS, export

export(globals(), "kd.objs")


def uuobj(seed=None, **attrs):
    """Objects whose ids are derived from `seed` and the attribute values."""
    itemid = OPERATORS["kd.ids.uuid"](seed="" if seed is None else seed, **attrs)
    return OPERATORS["kd.objs.new"](itemid=itemid, **attrs)


uu = uuobj
