"""Benchmark workloads of kd.typing (issue 23): tracing a 200-operation
function with and without declared input types, and inferring its type.
koladata traces the same function untyped (it has no types to declare)."""

from bench_common import on_both

N_OPS = 200


def _program(kd):
    """A function of 200 operations: arithmetic, comparisons, masks and an
    aggregation every 50 steps (each traced node is one operation)."""

    def f(x, y):
        z = x
        for i in range(N_OPS // 4):
            z = z * 2 + y
            z = kd.math.maximum(z, x) - 1
        return kd.agg_sum(z & (z > 0))

    return f


def workloads(scale, pkd, kkd):
    del scale  # tracing cost does not depend on data
    state = {}

    def prepare(kd, name):
        state[name] = _program(kd)

    both = on_both(state, pkd, kkd)
    types = {"x": "FLOAT32[n, *]", "y": "FLOAT32[n]"}
    yield f"kd.fn of a {N_OPS}-operation function", both(lambda kd, f: kd.fn(f)), prepare
    yield "  the same with input_types", {"plait": lambda: pkd.fn(state["plait"], input_types=types)}, None
    yield "  kd.typing.infer of the traced function", {"plait": lambda: pkd.typing.infer(state["plait"], *types.values())}, None
    traced = {}

    def trace_once(kd, name):
        if name == "plait":  # koladata has no kd.typing to time
            traced[name] = kd.fn(state[name])

    yield "  kd.typing.infer of its functor", {"plait": lambda: pkd.typing.infer(traced["plait"], *types.values())}, trace_once
