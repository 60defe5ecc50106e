"""Benchmark workloads of entities and objects: reading an attribute, creating
entities/objects with three attributes, setting an attribute on a mutable bag
(issue "Entities and objects"); `kd.cast_to` from one entity schema to
another (a deep cast of numbers, text and a nested entity, and of a cycle
of entities), and reading what `bag.new(..., schema=)` made in a mutable
bag (issue 21). `memory_report` measures the bytes of one INT32 attribute
on 10M entities of one allocation."""

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
        deep = kd.new(a=x, b=kd.slice([float(i) for i in range(n_read)]), s=kd.slice([f"t{i % 1000}" for i in range(n_read)]),
                      c=kd.new(z=x))
        deep_schema = kd.schema.new_schema(a=kd.INT64, b=kd.FLOAT64, s=kd.STRING, c=kd.schema.new_schema(z=kd.FLOAT32))
        bag = kd.mutable_bag()
        node = bag.new_schema(v=kd.INT32)
        node.next = node
        ring_a, ring_b = bag.new(v=x, schema=node), bag.new(v=x, schema=node)
        ring_a.next, ring_b.next = ring_b, ring_a
        ring_schema = kd.mutable_bag().new_schema(v=kd.INT64)
        ring_schema.next = ring_schema
        state[name] = {
            "deep": deep, "deep_schema": deep_schema, "ring": ring_a, "ring_schema": ring_schema,
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
    yield f"cast_to another entity schema, {n_read:,} (deep)", both(lambda kd, s: kd.cast_to(s["deep"], s["deep_schema"])), None
    yield f"cast_to a cyclic schema, 2 x {n_read:,} entities", both(lambda kd, s: kd.cast_to(s["ring"], s["ring_schema"])), None
    yield f".v of {n_read:,} made by bag.new(schema=)", both(lambda kd, s: s["ring"].v), None


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
