"""Inputs shared by the benchmark workloads."""

import numpy as np


def jagged_rows(rows, seed=0):
    """Row sizes averaging 10 (so ~10 items per row), deterministic."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, 21, size=rows).tolist()


def setup_jagged(kd, n_rows):
    sizes = jagged_rows(n_rows)
    flat = kd.slice(list(range(sum(sizes))))
    shape = kd.shapes.new(n_rows, kd.slice(sizes))
    return flat, shape, kd.reshape(flat, shape)


def on_both(state, pkd, kkd):
    """`both(fn)`: the workload `fn(kd, state[name])` for plait and, when
    koladata is installed, for koladata (each with its own prepared state)."""

    def both(fn):
        impls = {"plait": lambda: fn(pkd, state["plait"])}
        if kkd is not None:
            impls["koladata"] = lambda: fn(kkd, state["koladata"])
        return impls

    return both
