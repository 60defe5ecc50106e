"""Benchmark workloads for what issue 21 added to the Koda API: ranges with
DataSlice bounds (`ds.S[:kd.index(ds) + 1]`, `ds.S[starts:]`), FLOAT32
`cum_sum` accumulated in FLOAT64, and `kd.from_py` inferring schemas
(`schema=None`) and converting dataclasses.

`workloads(scale, pkd, kkd)` yields `(title, {impl: fn}, prepare)` in the
style of bench/run.py; `kkd` (koladata) may be None. Target: >= 1x koladata.
"""

import dataclasses

import numpy as np

from bench_common import on_both


@dataclasses.dataclass
class Point:
    x: int
    y: float
    tag: str


def workloads(scale, pkd, kkd):
    n_rows = max(int(20_000 * scale), 1)
    sizes = np.random.default_rng(0).integers(0, 21, size=n_rows).tolist()
    starts = np.random.default_rng(1).integers(0, 5, size=n_rows).tolist()
    floats = np.random.default_rng(2).uniform(-100, 100, size=max(int(1_000_000 * scale), 1)).round(2).tolist()
    n_py = max(int(50_000 * scale), 1)
    records = [{"a": i, "b": i + 1, "c": -i} for i in range(n_py)]
    points = [Point(i, i / 2, "p") for i in range(n_py)]
    state = {}

    def prepare(kd, name):
        flat = kd.slice(list(range(sum(sizes))))
        jagged = kd.reshape(flat, kd.shapes.new(len(sizes), kd.slice(sizes)))
        state[name] = {
            "jagged": jagged,
            "index": kd.index(jagged) + 1,
            "starts": kd.slice(starts),
            "floats": kd.float32(kd.slice(floats)),
        }

    both = on_both(state, pkd, kkd)
    yield f"ds.S[:kd.index(ds) + 1] on {n_rows:,} rows", both(lambda kd, s: s["jagged"].S[:s["index"]]), prepare
    yield f"ds.S[starts:] on {n_rows:,} rows", both(lambda kd, s: s["jagged"].S[s["starts"]:]), None
    yield f"cum_sum of {len(floats):,} FLOAT32", both(lambda kd, s: kd.math.cum_sum(s["floats"])), None
    yield f"from_py(schema=None) of {n_py:,} dicts", both(lambda kd, s: kd.from_py(records, schema=None)), None
    yield f"from_py(schema=None) of {n_py:,} dataclasses", both(lambda kd, s: kd.from_py(points, schema=None)), None
