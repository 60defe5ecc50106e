"""Benchmark workloads of expressions (issue 5): building a 100-operator
expression, building and evaluating it, and re-evaluating it (a cached
plan), on DataItems and on 1M-item slices."""

from bench_common import on_both

import numpy as np

N_OPS = 100


def chain(kd):
    """A 100-operator expression over I.x and I.y: adds, products,
    differences and maxima, with literals."""
    I = kd.I  # noqa: E741 - Koda's name
    e = I.x
    for i in range(N_OPS):
        step = i % 4
        if step == 0:
            e = e + I.y
        elif step == 1:
            e = e * 0.5
        elif step == 2:
            e = e - I.y
        else:
            e = kd.lazy.math.maximum(e, I.y)
    return e


def workloads(scale, pkd, kkd):
    n = int(1_000_000 * scale)
    rng = np.random.default_rng(5)
    xs = rng.random(n, dtype=np.float32).tolist()
    ys = rng.random(n, dtype=np.float32).tolist()
    state = {}

    def prepare(kd, name):
        state[name] = {
            "expr": chain(kd),
            "x_item": kd.float32(0.25), "y_item": kd.float32(0.5),
            "x": kd.slice(xs), "y": kd.slice(ys),
        }

    both = on_both(state, pkd, kkd)

    yield f"build a {N_OPS}-operator expression", both(lambda kd, s: chain(kd)), prepare
    yield f"build + eval {N_OPS} ops on DataItems", both(
        lambda kd, s: kd.eval(chain(kd), x=s["x_item"], y=s["y_item"])), None
    yield f"eval {N_OPS} ops on DataItems (cached)", both(
        lambda kd, s: kd.eval(s["expr"], x=s["x_item"], y=s["y_item"])), None
    yield f"build + eval {N_OPS} ops on {n:,} items", both(
        lambda kd, s: kd.eval(chain(kd), x=s["x"], y=s["y"])), None
    yield f"eval {N_OPS} ops on {n:,} items (cached)", both(
        lambda kd, s: kd.eval(s["expr"], x=s["x"], y=s["y"])), None
