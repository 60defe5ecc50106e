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
