"""Benchmark workloads of kd.parallel (issue 21): `call_multithreaded` of a
functor mapping a functor that does real work (a few vector operations and
an aggregation per item) over 1,000 items, against the sequential call of
the same functor, on plait and on koladata; and a stream pipeline
(`kd.streams.map` + `reduce`) over the same items."""

from bench_common import on_both


def per_item(kd):
    """Real work per item: ~20 vector operations over 2,000 numbers."""

    def work(x):
        v = kd.range(2000)
        for _ in range(5):
            v = (v * x + 3) % 1009
            v = kd.select(v, v > 100)
            v = v + kd.math.agg_max(v)
        return kd.math.agg_sum(v)

    return kd.fn(work)


def mapping(kd):
    return kd.fn(lambda xs, f: kd.map(f, xs))


def workloads(scale, pkd, kkd):
    n = max(int(1_000 * scale), 10)
    state = {}

    def prepare(kd, name):
        state[name] = {"fn": mapping(kd), "f": per_item(kd), "xs": kd.range(n)}

    both = on_both(state, pkd, kkd)
    yield (
        f"call_multithreaded, kd.map of {n:,} items",
        both(lambda kd, s: kd.parallel.call_multithreaded(s["fn"], s["xs"], f=s["f"])),
        prepare,
    )
    yield (
        f"sequential kd.call, kd.map of {n:,} items",
        both(lambda kd, s: kd.call(s["fn"], s["xs"], f=s["f"])),
        None,
    )
    yield (
        f"kd.streams.map + reduce, {n:,} items",
        both(lambda kd, s: kd.streams.sync_wait(
            kd.streams.reduce(lambda a, b: a + b, kd.streams.map(kd.streams.from_1d_slice(s["xs"]), s["f"]), 0))),
        None,
    )

    # Eager operators on large inputs compute without the GIL: Python
    # threads calling them compute at once (kd.unique runs on one core).
    big = {}

    def prepare_big(kd, name):
        import numpy as np

        rng = np.random.default_rng(21)
        big[name] = [kd.slice(rng.integers(0, 1_000_000, size=int(2_000_000 * scale)).tolist()) for _ in range(2)]

    def threads(kd, name):
        import threading

        out = [None, None]
        workers = [threading.Thread(target=lambda i=i: out.__setitem__(i, kd.unique(big[name][i]))) for i in range(2)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        return out

    yield (
        f"kd.unique of {int(2_000_000 * scale):,} ints in 2 Python threads",
        {"plait": lambda: threads(pkd, "plait"), **({"koladata": lambda: threads(kkd, "koladata")} if kkd is not None else {})},
        prepare_big,
    )
    yield (
        "  the same one after the other",
        {"plait": lambda: [pkd.unique(x) for x in big["plait"]],
         **({"koladata": lambda: [kkd.unique(x) for x in big["koladata"]]} if kkd is not None else {})},
        None,
    )
