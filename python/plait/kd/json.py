"""`kd.json`: JSON parsing and serialisation (built from the Rust registry)."""

from plait.kd._operators import export as _export

_export(globals(), "kd.json")
