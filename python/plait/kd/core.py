"""`kd.core`: Koda's core operators (built from the Rust registry)."""

from plait.kd._operators import export

export(globals(), "kd.core")

from plait._plait import dir, get_attr_names  # noqa: E402,A004 - Koda's names
