"""`kd.objs`: Koda's objs operators (built from the Rust registry)."""

from plait import _plait
from plait.kd._operators import export as _export, traced_through as _traced_through

_export(globals(), "kd.objs")
_new_operator = new  # noqa: F821 - exported above


@_traced_through
def new(*args, **kwargs):
    # A Python list, tuple or dict (exactly: not a subclass) becomes objects
    # as `kd.from_py` makes them, as in Koda.
    if args and type(args[0]) in (list, tuple, dict):
        from plait.kd.from_py import from_py

        return from_py(*args, **kwargs)
    if args:
        _plait.refuse_container_subclass("kd.objs.new", args[0])
    return _new_operator(*args, **kwargs)


new.__signature__ = _new_operator.__signature__
new.__doc__ = _new_operator.__doc__
