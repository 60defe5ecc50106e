"""vmap(f)(batch) equals f applied to each example separately: 500 random
per-example functions (arithmetic, masks, whole-example aggregations,
aggregations over the last dimension, cumulative and sorting operators,
kd.index, kd.select, kd.flatten, kd.get_ndim, kd.if_ on per-example
conditions, kd.map, nested functors, an argument given whole to every
example) over random jagged batches of examples of rank 1 or 2."""

import random

import pytest

from plait import kd

N_PROGRAMS = 500

HELPER = kd.fn(lambda v, s=3: v * s - 1)


class _Writer:
    def __init__(self, rng):
        self.rng = rng

    def item(self, depth):
        """An expression giving one item per example."""
        r = self.rng
        k = r.randrange(8 if depth > 0 else 3)
        if k == 0:
            return f"kd.item({r.randint(-2, 4)})"
        if k == 1:
            return "w"
        if k == 2:
            return "kd.sum(v)"
        s = self.slice(depth - 1)
        return r.choice([f"kd.sum({s})", f"kd.max({s})", f"kd.min({s})", f"kd.count({s})", "kd.get_ndim(x)",
                         f"kd.sum(kd.select({s}, {s} > 0))", f"kd.sum(kd.flatten({s}))", f"({self.item(depth - 1)} + 1)"])

    def slice(self, depth):
        """An expression with the shape of the example `x`."""
        r = self.rng
        if depth <= 0:
            return r.choice(["x", "(x + 1)", "(x * 2)"])
        k = r.randrange(14)
        a = self.slice(depth - 1)
        if k <= 2:
            return "(" + r.choice(["{a} + {b}", "{a} - {b}", "{a} * {b}", "kd.math.maximum({a}, {b})"]).format(
                a=a, b=self.slice(depth - 1) if r.random() < 0.5 else self.item(depth - 1)) + ")"
        if k == 3:
            return f"kd.math.abs({a})"
        if k == 4:
            return f"(({a} & ({self.slice(depth - 1)} > {r.randint(-1, 3)})) | {self.item(depth - 1)})"
        if k == 5:
            return f"({a} + kd.agg_sum({self.slice(depth - 1)}))"
        if k == 6:
            return f"kd.math.cum_sum({a})"
        if k == 7:
            return f"kd.sort({a})"
        if k == 8:
            return f"({a} + kd.index({a}, dim={r.choice([0, -1])}))"
        if k == 9:
            return f"kd.if_({self.item(depth - 1)} > {r.randint(0, 6)}, lambda v: v * 2, lambda v: v - 1, {a})"
        if k == 10:
            return f"kd.map(lambda t: t * 3 + 1, {a})"
        if k == 11:
            return f"helper({a})"
        if k == 12:
            return f"({a} * kd.get_ndim({a}))"
        return a


def program(k):
    rng = random.Random(k)
    writer = _Writer(rng)
    body = writer.item(rng.randint(1, 3)) if rng.random() < 0.25 else writer.slice(rng.randint(1, 4))
    return f"lambda x, w, v: {body}"


def batch(k):
    """A batch of examples of rank 1 or 2 (jagged), an item and a slice
    given whole to every example."""
    rng = random.Random(50_000 + k)
    schema = rng.choice([kd.INT32, kd.FLOAT32])

    def value():
        return None if rng.random() < 0.1 else rng.randint(-3, 5)

    rank = rng.choice([1, 2])
    examples = []
    for _ in range(rng.randint(1, 4)):
        if rank == 1:
            examples.append([value() for _ in range(rng.randint(0, 4))])
        else:
            examples.append([[value() for _ in range(rng.randint(0, 3))] for _ in range(rng.randint(0, 3))])
    return kd.slice(examples, schema), kd.item(rng.randint(-2, 3)), kd.slice([value() for _ in range(rng.randint(0, 3))], schema)


def examples(x):
    """The examples of batch `x`, each with the rank it has in the batch
    (an empty one too)."""
    ndim = x.get_ndim().to_py() - 1
    lists = kd.implode(x, ndim=ndim)
    return [kd.explode(lists.S[i], ndim=ndim).no_bag() for i in range(lists.get_size().to_py())]


@pytest.mark.parametrize("chunk", range(10))
def test_vmap_equals_each_example_alone(chunk):
    namespace = {"kd": kd, "helper": HELPER}
    for k in range(chunk * N_PROGRAMS // 10, (chunk + 1) * N_PROGRAMS // 10):
        source = program(k)
        f = eval(source, namespace)  # noqa: S307 - generated test programs
        x, w, v = batch(k)
        per_example = [f(e, w, v) for e in examples(x)]
        vmapped = kd.vmap(f, in_axes=(0, None, None))(x, w, v)
        assert vmapped.to_py() == [r.to_py() for r in per_example], source
        if per_example and vmapped.get_present_count().to_py():
            assert vmapped.get_schema() == per_example[0].get_schema() or any(
                r.get_present_count().to_py() == 0 for r in per_example), source
