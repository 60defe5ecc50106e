"""`kd.shapes`: creating, inspecting and changing JaggedShapes.

Every function here is an operator of the Rust registry
(`crates/plait-ops/src/shapes/`), so `kd.shapes.X`, `kd.lazy.shapes.X` and
the operator inside a functor are one operator.
"""

from plait._plait import JaggedShape  # noqa: F401 - Koda's name in kd.shapes
from plait.kd._operators import export as _export
from plait.kd._operators import export_aliases as _export_aliases

_export(globals(), "kd.shapes")
# Other names Koda gives operators inside this namespace (`kd.shapes.ndim`).
_export_aliases(globals(), "kd.shapes")
