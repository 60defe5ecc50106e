"""`kd.bags` and the bag functions of `kd.core`: making bags, layering them
(`updated`, `enriched`, `<<`, `>>`), attaching and removing them, and bags of
attribute updates (`kd.attrs`, `kd.attr`).

A layered bag reads through its parts in priority order without copying
them; `kd.with_merged_bag` copies them into one. The operators are the Rust
registry's (`crates/plait-ops/src/bags.rs`); `kd.bags.new` makes an empty
bag.
"""

from plait import _plait
from plait.kd._operators import OPERATORS as _OPERATORS
from plait.kd._operators import export as _export



def new():
    """Returns a new empty immutable DataBag (as `kd.bag()`, also while tracing).

    Examples:
      >>> kd.bags.new()
      DataBag(empty, $...)
    """
    return _plait.new_bag(False)


_export(globals(), "kd.bags")

# plait also lists the bag operators of `kd.core` here (the `_slice` forms
# are `kd.updated` / `kd.enriched`, which take a DataSlice first).
attr = _OPERATORS["kd.core.attr"]
attrs = _OPERATORS["kd.core.attrs"]
freeze_bag = _OPERATORS["kd.core.freeze_bag"]
get_bag = _OPERATORS["kd.core.get_bag"]
has_bag = _OPERATORS["kd.core.has_bag"]
no_bag = _OPERATORS["kd.core.no_bag"]
with_bag = _OPERATORS["kd.core.with_bag"]
with_merged_bag = _OPERATORS["kd.core.with_merged_bag"]
updated_slice = _OPERATORS["kd.core.updated"]
enriched_slice = _OPERATORS["kd.core.enriched"]
