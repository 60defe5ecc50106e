"""`kd.slices`: Koda's operators on slices (built from the Rust registry)."""

from plait import _plait
from plait.kd._operators import export as _export, export_aliases as _export_aliases, traced_through as _traced_through

_export(globals(), "kd.slices")
# Other names Koda gives operators inside this namespace (`kd.slices.at`
# is `kd.slices.take`, `kd.slices.reverse_select` is `inverse_select`).
_export_aliases(globals(), "kd.slices")


def _apply_filter(fltr, x):
    """`fltr(x)` for a Python function or a functor; a mask as it is."""
    from plait.kd.expr import Expr

    if isinstance(fltr, Expr):
        return fltr
    if _plait.is_functor(fltr) or (callable(fltr) and not isinstance(fltr, _plait.DataSlice)):
        return fltr(x)
    return fltr


_select_operator = select  # noqa: F821 - exported above


@_traced_through
def select(ds, fltr, expand_filter=True):
    return _select_operator(ds, _apply_filter(fltr, ds), expand_filter)


select.__doc__ = _select_operator.__doc__
