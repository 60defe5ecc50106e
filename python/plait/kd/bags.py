"""`kd.bags` and the bag functions of `kd.core`: making bags, layering them
(`updated`, `enriched`, `<<`, `>>`), attaching and removing them, and bags of
attribute updates (`kd.attrs`, `kd.attr`).

A layered bag reads through its parts in priority order without copying
them; `kd.with_merged_bag` copies them into one.
"""

from plait import _plait
from plait.kd import types

new = _plait.bag


def updated(*bags):
    """One bag reading `bags` with the last one first (`kd.updated_bag`)."""
    return _plait.layered_bag(bags, True)


def enriched(*bags):
    """One bag reading `bags` with the first one first (`kd.enriched_bag`)."""
    return _plait.layered_bag(bags, False)


def is_null_bag(bag):
    """`kd.present` when `bag` is no bag (None)."""
    return _plait.mask_item(bag is None)


def updated_slice(ds, *bags):
    """`ds` with its bag updated by `bags` (later bags win) (`kd.updated`)."""
    return ds.with_bag(updated(ds.get_bag(), *bags))


def enriched_slice(ds, *bags):
    """`ds` with its bag enriched by `bags` (its own values win) (`kd.enriched`)."""
    return ds.with_bag(enriched(ds.get_bag(), *bags))


def attrs(x, /, *, overwrite_schema=False, **attrs):
    """A bag holding attributes `attrs` of `x` (apply with `kd.updated`)."""
    return _plait.attrs(x, attrs, overwrite_schema)


def attr(x, attr_name, value, overwrite_schema=False):
    """A bag holding attribute `attr_name` of `x`."""
    return _plait.attrs(x, {attr_name: value}, overwrite_schema)


def get_bag(ds):
    """The bag of `ds` (None without one)."""
    return ds.get_bag()


def with_bag(ds, bag):
    """`ds` with `bag`."""
    return ds.with_bag(bag)


def no_bag(ds):
    """`ds` without a bag."""
    return ds.no_bag()


def has_bag(ds):
    """`kd.present` when `ds` has a bag."""
    return _plait.mask_item(ds.get_bag() is not None)


def freeze_bag(ds):
    """`ds` with an immutable copy of its bag."""
    return ds.freeze_bag()


def with_merged_bag(ds):
    """`ds` with its bag and fallbacks merged into one new immutable bag."""
    bag = ds.get_bag()
    if bag is None:
        raise ValueError("kd.core.with_merged_bag: expected a DataSlice with a DataBag, got one without")
    return ds.with_bag(bag.merged())


types.DataSlice.updated = updated_slice
types.DataSlice.enriched = enriched_slice
types.DataSlice.__lshift__ = lambda ds, bag: updated_slice(ds, bag)
types.DataSlice.__rshift__ = lambda ds, bag: enriched_slice(ds, bag)
types.DataSlice.with_merged_bag = with_merged_bag
