"""`kd.slices`: Koda's operators on slices (built from the Rust registry)."""

import builtins

from plait import _plait
from plait.kd._operators import export as _export, export_aliases as _export_aliases, traced_through as _traced_through

_export(globals(), "kd.slices")
# Other names Koda gives operators inside this namespace (`kd.slices.at`
# is `kd.slices.take`, `kd.slices.reverse_select` is `inverse_select`).
_export_aliases(globals(), "kd.slices")


def _is_filter_function(fltr):
    """Whether filter `fltr` is a Python function or a functor (applied to
    what it filters), not a mask."""
    from plait.kd.expr import Expr

    if isinstance(fltr, Expr):
        return False
    return _plait.is_functor(fltr) or (callable(fltr) and not isinstance(fltr, _plait.DataSlice))


def _filter_is_function(ds, fltr, *args, **kwargs):
    """For the lazy forms of `select` and `select_items`: whether the filter
    of the call is a function (applied by the glue)."""
    return _is_filter_function(fltr)


def _apply_filter(fltr, x):
    """`fltr(x)` for a Python function or a functor; a mask as it is."""
    return fltr(x) if _is_filter_function(fltr) else fltr


_select_operator = select  # noqa: F821 - exported above


@_traced_through
def select(ds, fltr, expand_filter=True):
    return _select_operator(ds, _apply_filter(fltr, ds), expand_filter)


select.__doc__ = _select_operator.__doc__
select.__signature__ = _select_operator.__signature__
# Lazily too a filter function is applied by this glue, inside tracing
# (`kd.lazy.select(I.x, lambda v: v > 1)`, `I.x.select(...)`).
select.__plait_lazy_glue_when__ = _filter_is_function


def expr_quote(x):
    """Returns `x` as a DataSlice of schema EXPR: `kd.slice(x, kd.EXPR)`.

    Args:
      x: a DataSlice of quoted expressions (EXPR items, also in OBJECT), or
        None.

    Examples:
      >>> kd.expr_quote(kd.slice([kd.expr.pack_expr(I.x)]))
      DataSlice([I.x], schema: EXPR, present: 1/1)
      >>> kd.expr_quote(None)
      DataItem(None, schema: EXPR)
    """
    from plait import kd

    return kd.slice(x, kd.EXPR)


def internal_is_compliant_attr_name(attr_name, /):
    """Returns True when `attr_name` can be read as `ds.attr_name`: it is not
    the name of a DataSlice method or property (nor starts with `_`).

    Args:
      attr_name: an attribute name.

    Examples:
      >>> kd.slices.internal_is_compliant_attr_name('price')
      True
      >>> kd.slices.internal_is_compliant_attr_name('get_attr')
      False
    """
    from plait import kd

    if not isinstance(attr_name, builtins.str):  # `str` here is kd.slices.str
        raise TypeError(f"kd.slices.internal_is_compliant_attr_name: expected a str, got {type(attr_name).__name__}")
    return not attr_name.startswith("_") and not hasattr(kd.types.DataSlice, attr_name)
