"""Benchmark workloads for kd.slices: select on a jagged slice, sort, unique and concat.

`workloads(scale, pkd, kkd)` yields `(title, {impl: fn}, prepare)` in the
style of bench/run.py; `kkd` (koladata) may be None, then its entry is left
out. Targets: select >= 2x koladata, sort and unique >= 1x.
"""

import numpy as np


def _jagged(kd, sizes):
    flat = kd.slice(list(range(sum(sizes))))
    return kd.reshape(flat, kd.shapes.new(len(sizes), kd.slice(sizes)))


def workloads(scale, pkd, kkd):
    n_rows = max(int(1_000_000 * scale), 1)
    n_items = max(int(1_000_000 * scale), 1)
    # ~10 items per row, as in bench/run.py.
    sizes = np.random.default_rng(0).integers(0, 21, size=n_rows).tolist()
    values = np.random.default_rng(1).integers(0, n_items, size=n_items)
    state = {}

    def prepare(kd, name):
        jagged = _jagged(kd, sizes)
        state[name] = {"jagged": jagged, "values": kd.slice(values.tolist())}

    def entries(make):
        impls = {"plait": lambda: make(pkd, "plait")}
        if kkd is not None:
            impls["koladata"] = lambda: make(kkd, "koladata")
        return impls

    def select(kd, name):
        j = state[name]["jagged"]
        return kd.select(j, j > 50)

    impls = entries(select)
    impls["numpy"] = lambda: state["numpy"][state["numpy"] > 50]
    state["numpy"] = np.arange(sum(sizes))
    yield f"select(j, j > 50), {n_rows:,} rows ~10 each", impls, prepare

    impls = entries(lambda kd, name: kd.sort(state[name]["values"]))
    impls["numpy"] = lambda: np.sort(values, kind="stable")
    yield f"sort {n_items:,} ints", impls, None

    impls = entries(lambda kd, name: kd.unique(state[name]["values"]))
    impls["numpy"] = lambda: np.unique(values)
    yield f"unique {n_items:,} ints", impls, None

    impls = entries(lambda kd, name: kd.unique(state[name]["values"], sort=True))
    yield f"unique(sort=True) {n_items:,} ints", impls, None

    # Concatenation along dimension 0 (rows one after another: typed
    # buffers appended) and along the last one (rows merged).
    impls = entries(lambda kd, name: kd.concat(state[name]["jagged"], state[name]["jagged"], ndim=2))
    impls["numpy"] = lambda: np.concatenate([state["numpy"], state["numpy"]])
    yield f"concat(j, j, ndim=2) (rows), {n_rows:,} rows", impls, None

    impls = entries(lambda kd, name: kd.concat(state[name]["jagged"], state[name]["jagged"]))
    yield "concat(j, j) (each row's items)", impls, None
