"""`kd.strings`: Koda's string operators (built from the Rust registry)."""

from plait.kd._operators import export

export(globals(), "kd.strings")
