"""`kd.core`: Koda's core operators (built from the Rust registry)."""

from plait.kd._operators import export as _export

_export(globals(), "kd.core")

from plait._plait import dir, get_attr_names  # noqa: E402,A004 - Koda's names
from plait.kd.bags import (  # noqa: E402 - Koda's names in kd.core
    attr,
    attrs,
    enriched_slice as enriched,
    freeze_bag,
    get_bag,
    has_bag,
    no_bag,
    updated_slice as updated,
    with_bag,
    with_merged_bag,
)
from plait.kd.assertion import with_print  # noqa: E402,F401 - Koda's name in kd.core


_get_item_operator = get_item  # noqa: F821 - exported above


def get_item(x, key_or_index):
    # A Python slice selects a range of list items, as `x[1:]` does.
    if isinstance(key_or_index, slice):
        return x[key_or_index]
    return _get_item_operator(x, key_or_index)


get_item.__doc__ = _get_item_operator.__doc__
