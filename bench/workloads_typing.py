"""Benchmark workloads of kd.typing (issue 23): tracing a 200-operation
function with and without declared input types, and inferring its type.
koladata traces the same function untyped (it has no types to declare).
Each timed run makes REPS calls (a single call of a fraction of a
millisecond is mostly noise): the table shows the time of REPS calls."""

from bench_common import on_both

N_OPS = 200
REPS = 20


def _repeated(impls):
    """Each of `impls` run REPS times in one timed run."""

    def repeat(fn):
        def run():
            for _ in range(REPS):
                fn()

        return run

    return {impl: repeat(fn) for impl, fn in impls.items()}


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
    calls = f"{REPS} calls"
    yield f"kd.fn of a {N_OPS}-operation fn, {calls}", _repeated(both(lambda kd, f: kd.fn(f))), prepare
    yield "  the same with input_types", _repeated({"plait": lambda: pkd.fn(state["plait"], input_types=types)}), None
    # Tracing alone, and tracing then typing (what input_types adds to it).
    from plait.kd import expr, typing

    parsed = typing._bind_types("bench", state["plait"], (), types)
    yield "  tracing alone", _repeated({"plait": lambda: expr.trace_function(state["plait"], lambda name: expr.I[name])}), None
    yield "  tracing and typing", _repeated({"plait": lambda: typing._traced(state["plait"], parsed)}), None
    yield "  kd.typing.infer of the function", _repeated({"plait": lambda: pkd.typing.infer(state["plait"], *types.values())}), None
    traced = {}

    def trace_once(kd, name):
        if name == "plait":  # koladata has no kd.typing to time
            traced[name] = kd.fn(state[name])

    yield "  kd.typing.infer of its functor", _repeated({"plait": lambda: pkd.typing.infer(traced["plait"], *types.values())}), trace_once
