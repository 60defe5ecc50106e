"""`kd.bitwise`: bitwise operators on integers (built from the Rust registry)."""

from plait.kd._operators import export as _export

_export(globals(), "kd.bitwise")
