"""Benchmark workloads of control flow in functors (issue "One home for
operators"): `kd.map` of a traced functor over 100k items, a traced functor
with `kd.if_` called on items, `kd.while_` of 10k rounds, and saving and
loading a functor of 200 operations."""

from bench_common import on_both
from workloads_functor import N_TRACE_OPS as N_OPS, long_function


def mapped(kd):
    return kd.fn(lambda x: x * 2 + 1)


def branching(kd):
    return kd.fn(lambda x: kd.if_(x > 5, lambda x: x + 1, lambda x: x - 1, x))


def looping(kd):
    return kd.fn(lambda n: kd.while_(lambda n, returns: n > 0,
                                     lambda n, returns: kd.namedtuple(n=n - 1, returns=returns + n),
                                     n=n, returns=0))


def long_functor(kd):
    return kd.fn(long_function(kd))


def workloads(scale, pkd, kkd):
    n_map = max(int(100_000 * scale), 10)
    n_items = max(int(1_000 * scale), 10)
    n_rounds = max(int(10_000 * scale), 10)
    state = {}

    def prepare(kd, name):
        state[name] = {"map": mapped(kd), "x": kd.slice(list(range(n_map))), "if": branching(kd),
                       "items": [kd.item(i) for i in range(n_items)], "while": looping(kd), "n": kd.item(n_rounds),
                       "long": long_functor(kd)}

    both = on_both(state, pkd, kkd)

    def call_on_items(kd, s):
        f = s["if"]
        for item in s["items"]:
            f(item)

    yield f"kd.map of a traced functor, {n_map:,} items", both(lambda kd, s: kd.map(s["map"], s["x"])), prepare
    yield f"functor with kd.if_ on {n_items:,} items", both(call_on_items), None
    yield f"kd.while_ of {n_rounds:,} rounds", both(lambda kd, s: s["while"](s["n"])), None
    yield f"dumps + loads a {N_OPS}-op functor", both(lambda kd, s: kd.loads(kd.dumps(s["long"]))), None
