"""`kd.comparison`: Koda's comparison operators (built from the Rust registry)."""

from plait.kd._operators import export as _export

_export(globals(), "kd.comparison")
