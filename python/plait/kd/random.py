"""`kd.random`: random numbers, sampling, shuffling and hashing (built from the Rust registry)."""

from plait.kd._operators import export as _export

_export(globals(), "kd.random")
