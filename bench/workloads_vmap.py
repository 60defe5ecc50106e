"""Benchmark workloads of kd.vmap (issue 25): a 20-operation per-example
function over 100,000 jagged rows (~10 items each), vectorised by
kd.vmap, against kd.map of the same function over the rows (as lists) in
plait and in koladata."""

from bench_common import jagged_rows


def per_row(kd):
    """20 operations on one row, giving one number."""

    def f(r):
        a = r * 2.0 + 1.0
        a = kd.math.abs(a - 3.0) * 0.5
        m = a > 1.0
        a = (a & m) | 0.0
        a = kd.math.maximum(a, r) - 1.0
        b = kd.math.cum_sum(a)
        return kd.sum(b * a) + kd.max(a) - kd.min(r) + kd.count(r) * 0.1

    return f


def workloads(scale, pkd, kkd):
    n_rows = int(100_000 * scale)
    state = {}

    def prepare(kd, name):
        sizes = jagged_rows(n_rows, seed=25)
        flat = kd.slice([float(i % 17) for i in range(sum(sizes))], kd.FLOAT32)
        x = kd.reshape(flat, kd.shapes.new(n_rows, kd.slice(sizes)))
        f = per_row(kd)
        state[name] = (x, kd.implode(x), kd.fn(lambda row: f(row[:])), f)
        if name == "plait":
            state["vmapped"] = kd.vmap(f)

    yield f"vmap of a 20-op fn over {n_rows:,} rows", {
        "plait": lambda: state["vmapped"](state["plait"][0]),
    }, prepare
    yield "  kd.map of it over the rows (lists)", {
        "plait": lambda: pkd.map(state["plait"][2], state["plait"][1]),
        "koladata": lambda: kkd.map(state["koladata"][2], state["koladata"][1]),
    }, None
