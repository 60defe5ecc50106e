"""Benchmark workloads of kd.bitwise on 1M integers (some missing), against
numpy's bitwise ufuncs where they do the same job."""

import numpy as np

from bench_common import on_both


def workloads(scale, pkd, kkd):
    n = int(1_000_000 * scale)
    rng = np.random.default_rng(3)
    a = rng.integers(-(2**31), 2**31 - 1, size=n, dtype=np.int64).astype(np.int32)
    b = rng.integers(-(2**31), 2**31 - 1, size=n, dtype=np.int64).astype(np.int32)
    a_list = [None if i % 10 == 3 else int(v) for i, v in enumerate(a)]
    state = {}

    def prepare(kd, name):
        state[name] = (kd.slice(a_list), kd.slice(b.tolist()))

    both = on_both(state, pkd, kkd)
    yield f"bitwise_and of {n:,} INT32 pairs", {
        **both(lambda kd, s: kd.bitwise.bitwise_and(s[0], s[1])),
        "numpy": lambda: np.bitwise_and(a, b),
    }, prepare
    yield "bitwise_xor with an item", {**both(lambda kd, s: kd.bitwise.bitwise_xor(s[0], 12345)), "numpy": lambda: np.bitwise_xor(a, 12345)}, None
    yield "bitwise invert", {**both(lambda kd, s: kd.bitwise.invert(s[1])), "numpy": lambda: np.invert(b)}, None
    yield "bitwise count", {**both(lambda kd, s: kd.bitwise.count(s[1])), "numpy": lambda: np.bitwise_count(b) if hasattr(np, "bitwise_count") else None}, None
