"""`kd.slices`: Koda's operators on slices (built from the Rust registry)."""

from plait.kd._operators import export

export(globals(), "kd.slices")
