"""`kd.ids`: ItemIds derived from content (`uuid`, `uuid_for_list`, ...),
their text and hash (built from the Rust registry)."""

from plait.kd._operators import export as _export

_export(globals(), "kd.ids")
