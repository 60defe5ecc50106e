"""`kd.entities`: Koda's entities operators (built from the Rust registry)."""

from plait.kd._operators import export

export(globals(), "kd.entities")
