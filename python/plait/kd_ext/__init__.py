"""`kd_ext`: plait's bridges to other libraries (as Koda's `kd_ext`).

* `npkd` — numpy arrays to and from DataSlices.
* `arrow` — Arrow arrays (pyarrow) to and from DataSlices; imported on first
  use, since pyarrow is optional.
"""

from plait.kd_ext import npkd

__all__ = ["arrow", "npkd"]


def __getattr__(name):
    if name == "arrow":
        import importlib

        return importlib.import_module("plait.kd_ext.arrow")
    raise AttributeError(name)
