"""`kd.core`: Koda's core operators (built from the Rust registry)."""

from plait.kd._operators import export as _export

_export(globals(), "kd.core")

from plait.kd.assertion import with_print  # noqa: E402,F401 - Koda's name in kd.core


