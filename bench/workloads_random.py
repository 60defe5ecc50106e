"""Benchmark workloads of kd.random: CityHash of 1M strings and integers,
stable sampling, seeded integers and a shuffle (numpy's generator for the
comparable jobs)."""

import numpy as np

from bench_common import on_both


def workloads(scale, pkd, kkd):
    n = int(1_000_000 * scale)
    words = [f"user-{i * 7919 % 1000003}" for i in range(n)]
    ints = list(range(n))
    rows = [list(range(k % 20)) for k in range(n // 10)]
    state = {}

    def prepare(kd, name):
        state[name] = (kd.slice(words), kd.slice(ints), kd.slice(rows))

    both = on_both(state, pkd, kkd)
    rng = np.random.default_rng(1)
    yield f"cityhash of {n:,} strings", both(lambda kd, s: kd.random.cityhash(s[0], 42)), prepare
    yield f"cityhash of {n:,} ints", both(lambda kd, s: kd.random.cityhash(s[1], 42)), None
    yield "sample(x, 0.1, seed) by index", both(lambda kd, s: kd.random.sample(s[1], 0.1, 7)), None
    yield "sample(x, 0.1, seed, key)", both(lambda kd, s: kd.random.sample(s[1], 0.1, 7, s[0])), None
    yield f"sample_n(x, 5) on {n // 10:,} rows", both(lambda kd, s: kd.random.sample_n(s[2], 5, 7)), None
    yield f"randint_shaped_as {n:,} (seeded)", {
        **both(lambda kd, s: kd.random.randint_shaped_as(s[1], 0, 1000, seed=5)),
        "numpy": lambda: rng.integers(0, 1000, size=n),
    }, None
    yield f"shuffle {n:,} ints", {**both(lambda kd, s: kd.random.shuffle(s[1], seed=5)), "numpy": lambda: rng.permutation(n)}, None
