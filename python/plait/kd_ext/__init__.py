"""`kd_ext`: plait's bridges to other libraries (as Koda's `kd_ext`).

* `npkd` — numpy arrays to and from DataSlices.
* `arrow` — Arrow arrays (pyarrow) to and from DataSlices.
* `pdkd` — pandas DataFrames to and from DataSlices.

`arrow` and `pdkd` are imported on first use (pyarrow and pandas are
optional).
"""

from plait.kd_ext import npkd

__all__ = ["arrow", "npkd", "pdkd"]


def __getattr__(name):
    if name in ("arrow", "pdkd"):
        import importlib

        return importlib.import_module(f"plait.kd_ext.{name}")
    raise AttributeError(name)
