"""Benchmark workloads of persistence (issue 7): kd.dumps / kd.loads of a
10M-item FLOAT32 slice and of a bag of 1M entities with 3 attributes; the
sizes written are printed after the timings."""

import numpy as np

SIZES = {}


def workloads(scale, pkd, kkd):
    n = int(10_000_000 * scale)
    m = int(1_000_000 * scale)
    rng = np.random.default_rng(9)
    floats = rng.random(n, dtype=np.float32).tolist()
    a, b, c = rng.integers(0, 1000, m).tolist(), rng.random(m).tolist(), [f"s{i % 1000}" for i in range(m)]
    state = {}

    def prepare(kd, name):
        x = kd.slice(floats)
        entities = kd.new(a=kd.slice(a), b=kd.slice(b), c=kd.slice(c))
        state[name] = {"x": x, "bag": entities.get_bag(), "x_bytes": kd.dumps(x), "bag_bytes": kd.dumps(entities.get_bag())}
        SIZES[name] = (len(state[name]["x_bytes"]), len(state[name]["bag_bytes"]))

    def both(fn):
        impls = {"plait": lambda: fn(pkd, state["plait"])}
        if kkd is not None:
            impls["koladata"] = lambda: fn(kkd, state["koladata"])
        return impls

    yield f"dumps {n:,} FLOAT32", both(lambda kd, s: kd.dumps(s["x"])), prepare
    yield f"loads {n:,} FLOAT32", both(lambda kd, s: kd.loads(s["x_bytes"])), None
    yield f"dumps bag of {m:,} entities x 3 attrs", both(lambda kd, s: kd.dumps(s["bag"])), None
    yield f"loads bag of {m:,} entities x 3 attrs", both(lambda kd, s: kd.loads(s["bag_bytes"])), None


def size_report():
    """Bytes written by each library."""
    return "; ".join(f"{name}: slice {x:,} B, bag {b:,} B" for name, (x, b) in SIZES.items())
