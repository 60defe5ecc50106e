"""Benchmark workloads of the eager operators: arithmetic, aggregation,
broadcasting and operator-call overhead (issue "Eager operators")."""

import numpy as np

from bench_common import setup_jagged


def workloads(scale, pkd, kkd):
    n = int(10_000_000 * scale)
    rng = np.random.default_rng(1)
    x_np = rng.random(n, dtype=np.float32)
    y_np = rng.random(n, dtype=np.float32)
    x_list, y_list = x_np.tolist(), y_np.tolist()
    state = {}

    def prepare(kd, name):
        state[name] = (kd.slice(x_list, kd.FLOAT32), kd.slice(y_list, kd.FLOAT32))

    yield f"x + y * 2.0 on {n:,} FLOAT32", {
        "plait": lambda: state["plait"][0] + state["plait"][1] * 2.0,
        "koladata": lambda: state["koladata"][0] + state["koladata"][1] * 2.0,
        "numpy": lambda: x_np + y_np * np.float32(2.0),
    }, prepare

    masked = {}

    def prepare_masked(kd, name):
        x, y = state[name]
        masked[name] = (x & (x > 0.5), y)

    yield f"coalesce (x & m) | y, {n:,} FLOAT32", {
        "plait": lambda: masked["plait"][0] | masked["plait"][1],
        "koladata": lambda: masked["koladata"][0] | masked["koladata"][1],
        "numpy": lambda: np.where(x_np > np.float32(0.5), x_np, y_np),
    }, prepare_masked

    n_rows = int(1_000_000 * scale)
    jagged = {}

    def prepare_jagged(kd, name):
        flat, shape, j = setup_jagged(kd, n_rows)
        jagged[name] = (j, kd.slice(list(range(n_rows))))

    yield f"agg_sum over {n_rows:,} rows (~10 items)", {
        "plait": lambda: pkd.agg_sum(jagged["plait"][0]),
        "koladata": lambda: kkd.agg_sum(jagged["koladata"][0]),
    }, prepare_jagged
    yield "agg_max over the same rows", {
        "plait": lambda: pkd.agg_max(jagged["plait"][0]),
        "koladata": lambda: kkd.agg_max(jagged["koladata"][0]),
    }, None
    yield "broadcast add of 1M rows onto them", {
        "plait": lambda: jagged["plait"][0] + jagged["plait"][1],
        "koladata": lambda: jagged["koladata"][0] + jagged["koladata"][1],
    }, None
    yield "j > 50 on the jagged slice", {
        "plait": lambda: jagged["plait"][0] > 50,
        "koladata": lambda: jagged["koladata"][0] > 50,
    }, None

    calls = 100_000
    items = {}

    def prepare_items(kd, name):
        items[name] = (kd.item(1), kd.item(2))

    def add_items(name):
        a, b = items[name]
        for _ in range(calls):
            a + b

    yield f"a + b on DataItems x{calls:,} (us/call = ms/100)", {
        "plait": lambda: add_items("plait"),
        "koladata": lambda: add_items("koladata"),
    }, prepare_items
