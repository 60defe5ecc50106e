"""`kd.entities`: Koda's entities operators (built from the Rust registry)."""

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
