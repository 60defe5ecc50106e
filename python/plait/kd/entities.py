"""`kd.entities`: Koda's entities operators (built from the Rust registry)."""

from plait import _plait
from plait.kd._operators import export as _export, traced_through as _traced_through

_export(globals(), "kd.entities")
_new_operator = new  # noqa: F821 - exported above


@_traced_through
def new(*args, **kwargs):
    # A Python list, tuple or dict (exactly: not a subclass) is a Koda list
    # or dict, as in Koda.
    if args and type(args[0]) in (list, tuple, dict):
        from plait.kd import dicts, lists

        return (dicts.new if type(args[0]) is dict else lists.new)(*args, **kwargs)
    if args:
        _plait.refuse_container_subclass("kd.entities.new", args[0])
    return _new_operator(*args, **kwargs)


new.__signature__ = _new_operator.__signature__
new.__doc__ = _new_operator.__doc__
