"""Benchmark workloads of functors (issue 6): calling a traced functor on
DataItems, tracing a 200-operation Python function, and kd.map_py over 1M
items."""

from bench_common import on_both

N_TRACE_OPS = 200


def small(kd):
    """The seed's example: a nested functor and a named variable."""

    @kd.trace_as_fn()
    def inner(x):
        return x + 1

    def outer(a, b, c):
        sum_ab = kd.with_name(a + b, "sum_ab")
        return inner(sum_ab) * c

    return kd.fn(outer)


def long_function(kd):
    def f(x, y):
        e = x
        for i in range(N_TRACE_OPS // 2):
            e = e * y + i if i % 2 else kd.math.maximum(e - y, x)
        return e

    return f


def workloads(scale, pkd, kkd):
    n = int(1_000_000 * scale)
    state = {}

    def prepare(kd, name):
        state[name] = {"fn": small(kd), "a": kd.int32(2), "b": kd.int32(3), "c": kd.int32(4), "f": long_function(kd),
                       "items": kd.slice(list(range(n)))}

    both = on_both(state, pkd, kkd)

    def call_many(kd, s):
        f, a, b, c = s["fn"], s["a"], s["b"], s["c"]
        for _ in range(1000):
            f(a, b, c)

    yield "call a traced functor x1000 (ms = us/call)", both(call_many), prepare
    yield f"trace a {N_TRACE_OPS}-operation function", both(lambda kd, s: kd.fn(s["f"])), None
    yield f"kd.map_py(lambda v: v + 1) over {n:,} items", both(lambda kd, s: kd.map_py(lambda v: v + 1, s["items"])), None
