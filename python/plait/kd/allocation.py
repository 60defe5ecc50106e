"""`kd.allocation`: fresh ItemIds of entities, lists and dicts (built from the
Rust registry)."""

from plait.kd._operators import export as _export

_export(globals(), "kd.allocation")
