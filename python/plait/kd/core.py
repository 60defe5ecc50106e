"""`kd.core`: Koda's core operators (built from the Rust registry)."""

from plait.kd import _builtins
from plait.kd._operators import export as _export

_export(globals(), "kd.core")
_builtins.export(globals(), "kd.core")  # _fused (the plans of kd.compile)

from plait.kd.assertion import with_print  # noqa: E402,F401 - Koda's name in kd.core


