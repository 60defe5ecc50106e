"""`kd.slices`: Koda's operators on slices (built from the Rust registry)."""

from plait.kd._operators import export, export_aliases

export(globals(), "kd.slices")
# Other names Koda gives operators inside this namespace (`kd.slices.at`
# is `kd.slices.take`, `kd.slices.reverse_select` is `inverse_select`).
export_aliases(globals(), "kd.slices")
