"""Benchmark workloads of interop (issue 8): numpy conversions of 10M
items — the zero-copy view (to_array of a full numeric slice), the copy in
(from_array), and the fill of a slice with missing items."""

import numpy as np


def workloads(scale, pkd, kkd):
    from plait.kd_ext import npkd as p_npkd

    try:
        from koladata.ext import npkd as k_npkd
    except ImportError:
        k_npkd = None
    n = int(10_000_000 * scale)
    arr = np.arange(n, dtype=np.float32)
    state = {}

    def prepare(kd, name):
        npkd = p_npkd if name == "plait" else k_npkd
        state[name] = {"npkd": npkd, "x": npkd.from_array(arr), "holes": kd.slice([1.0, None] * (n // 20))}

    def both(fn):
        impls = {"plait": lambda: fn(state["plait"]), "numpy": lambda: arr.copy()}
        if kkd is not None and k_npkd is not None:
            impls["koladata"] = lambda: fn(state["koladata"])
        return impls

    yield f"npkd.to_array of {n:,} FLOAT32 (view)", both(lambda s: s["npkd"].to_array(s["x"])), prepare
    yield f"npkd.from_array of {n:,} FLOAT32", both(lambda s: s["npkd"].from_array(arr)), None
    yield f"npkd.to_array of {n // 10:,} items, half missing", both(lambda s: s["npkd"].to_array(s["holes"])), None
