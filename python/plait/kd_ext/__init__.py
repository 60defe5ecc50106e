"""`kd_ext`: plait's bridges to other libraries (as Koda's `kd_ext`).

* `npkd` — numpy arrays to and from DataSlices.
"""

from plait.kd_ext import npkd

__all__ = ["npkd"]
