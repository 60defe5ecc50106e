"""Benchmark workloads of entities and objects: reading an attribute, creating
entities/objects with three attributes, setting an attribute on a mutable bag
(issue "Entities and objects"). `memory_report` measures the bytes of one
INT32 attribute on 10M entities of one allocation."""

from bench_common import on_both

import gc


def workloads(scale, pkd, kkd):
    n_read = int(100_000 * scale)
    n_make = int(1_000_000 * scale)
    state = {}

    def prepare(kd, name):
        x = kd.slice(list(range(n_read)))
        cols = [kd.slice(list(range(k, n_make + k))) for k in range(3)]
        entities = kd.new(x=x)
        # Read once so lazily built state (if any) is not timed.
        state[name] = {
            "entities": entities,
            "objects": kd.obj(x=x),
            "cols": cols,
            "mutable": entities.fork_bag(),
            "y": kd.slice([float(i) for i in range(n_read)]),
        }

    both = on_both(state, pkd, kkd)

    def set_in_place(kd, s):
        s["mutable"].y = s["y"]

    yield f"entities.x on {n_read:,} entities", both(lambda kd, s: s["entities"].x), prepare
    yield f"objects.x on {n_read:,} objects", both(lambda kd, s: s["objects"].x), None
    yield f"kd.new(a=, b=, c=) {n_make:,} entities", both(lambda kd, s: kd.new(a=s["cols"][0], b=s["cols"][1], c=s["cols"][2])), None
    yield f"kd.obj(a=, b=, c=) {n_make:,} objects", both(lambda kd, s: kd.obj(a=s["cols"][0], b=s["cols"][1], c=s["cols"][2])), None
    yield f"with_attrs(y=) on {n_read:,} entities", both(lambda kd, s: s["entities"].with_attrs(y=s["y"])), None
    yield f"ds.y = ... on {n_read:,} entities (mutable bag)", both(set_in_place), None


def _rss_bytes():
    """Resident set size from /proc/self/statm (Linux)."""
    import os

    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def memory_report(pkd, n=10_000_000):
    """Bytes of one INT32 attribute on `n` entities of one allocation: the
    bag's dense-column bytes, and the RSS growth of setting the attribute."""

    entities = pkd.new_shaped(pkd.shapes.new(n)).fork_bag()
    values = pkd.slice(list(range(n)))
    gc.collect()
    before_bag = entities.get_bag()._dense_bytes()
    before = _rss_bytes()
    entities.x = values + 1  # a fresh 40 MB column, stored as is
    after = _rss_bytes()
    dense = entities.get_bag()._dense_bytes() - before_bag
    return dense, after - before
