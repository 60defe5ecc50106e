"""`kd.slices`: Koda's operators on slices (built from the Rust registry)."""

from plait.kd._operators import export as _export, export_aliases as _export_aliases

_export(globals(), "kd.slices")
# Other names Koda gives operators inside this namespace (`kd.slices.at`
# is `kd.slices.take`, `kd.slices.reverse_select` is `inverse_select`).
_export_aliases(globals(), "kd.slices")
