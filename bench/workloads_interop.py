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
    yield from arrow_workloads(n, pkd)


def arrow_workloads(n, pkd):
    """Arrow conversions of ~10M jagged items: plait against Awkward Array
    (ak.to_arrow / ak.from_arrow) in the same run; the koladata column is
    Awkward's time."""
    try:
        import awkward as ak
        import pyarrow as pa
    except ImportError:
        return
    from plait.kd_ext import arrow

    sizes = np.random.default_rng(3).integers(0, 20, n // 10)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    values = np.arange(offsets[-1], dtype=np.float32)
    jagged = pa.LargeListArray.from_arrays(pa.array(offsets), pa.array(values))
    ds = arrow.from_arrow(jagged)
    layout = ak.from_arrow(jagged)

    def pair(ours, theirs):
        return {"plait": ours, "koladata": theirs}

    yield f"to_arrow of {len(values):,} jagged FLOAT32 (vs ak)", pair(lambda: arrow.to_arrow(ds), lambda: ak.to_arrow(layout)), None
    yield f"from_arrow of {len(values):,} jagged FLOAT32 (vs ak)", pair(lambda: arrow.from_arrow(jagged), lambda: ak.from_arrow(jagged)), None

    # Text: 1M strings (Arrow large_string), and records of a number and a
    # string (a struct array: entities).
    words = pa.array([f"word{i % 1000}" for i in range(n // 10)], type=pa.large_string())
    text, text_layout = arrow.from_arrow(words), ak.from_arrow(words)
    yield f"to_arrow of {len(words):,} STRING (vs ak)", pair(lambda: arrow.to_arrow(text), lambda: ak.to_arrow(text_layout)), None
    yield f"from_arrow of {len(words):,} STRING (vs ak)", pair(lambda: arrow.from_arrow(words), lambda: ak.from_arrow(words)), None
    records = pa.StructArray.from_arrays([pa.array(values[: n // 10]), words], names=["x", "word"])
    entities, record_layout = arrow.from_arrow(records), ak.from_arrow(records)
    yield f"to_arrow of {len(records):,} entities (vs ak)", pair(lambda: arrow.to_arrow(entities), lambda: ak.to_arrow(record_layout)), None
    yield f"from_arrow of {len(records):,} entities (vs ak)", pair(lambda: arrow.from_arrow(records), lambda: ak.from_arrow(records)), None
