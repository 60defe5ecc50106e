"""`kd.masking`: Koda's masking operators (built from the Rust registry)."""

from plait.kd._operators import export

export(globals(), "kd.masking")
