"""`kd.objs`: Koda's objs operators (built from the Rust registry)."""

from plait.kd._operators import export

export(globals(), "kd.objs")
