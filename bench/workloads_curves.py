"""Benchmark workloads of kd.curves on 1M points (numpy.interp does the
linear case)."""

import numpy as np

from bench_common import on_both


def workloads(scale, pkd, kkd):
    n = int(1_000_000 * scale)
    rng = np.random.default_rng(4)
    points = rng.uniform(-1, 101, size=n)
    xs = np.linspace(0, 100, 21)
    ys = np.sqrt(xs)
    adj = [[float(x), float(y)] for x, y in zip(xs, ys)]
    state = {}

    def prepare(kd, name):
        state[name] = (kd.slice(points.tolist(), kd.FLOAT64), kd.slice(adj, kd.FLOAT64))

    both = on_both(state, pkd, kkd)
    yield f"pwl_curve on {n:,} points, 21 knots", {
        **both(lambda kd, s: kd.curves.pwl_curve(s[0], s[1])),
        "numpy": lambda: np.interp(points, xs, ys),
    }, prepare
    yield "log_p1_pwl_curve", both(lambda kd, s: kd.curves.log_p1_pwl_curve(s[0], s[1])), None
