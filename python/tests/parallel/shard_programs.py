"""Random programs for the kd.shard_map tests: Python functions of a
sharded `x` (jagged, rank 1 to 3, with missing items) and a whole `y`,
whose operators keep shapes compatible, and how to compare their results."""

import random

import pytest

from plait import kd

# A value's dimensions as tokens: two values combine item by item when one
# is a prefix of the other.
_next = [0]


def _fresh():
    _next[0] += 1
    return f"d{_next[0]}"


def random_x(rng):
    rank = rng.choice([1, 1, 2, 2, 3])
    rows = rng.randint(0, 9)

    def build(depth):
        if depth == rank:
            return None if rng.random() < 0.15 else rng.randint(-9, 9)
        return [build(depth + 1) for _ in range(rng.randint(0, 4))]

    # Sometimes OBJECT: partial results of objects must combine as the whole's.
    return kd.slice([build(1) for _ in range(rows)], kd.OBJECT if rng.random() < 0.1 else kd.INT32)


def program(seed):
    """(source, fn, x, y) of a random program."""
    rng = random.Random(seed)
    x = random_x(rng)
    rank = x.get_ndim().to_py()
    x_dims = tuple(["r"] + [_fresh() for _ in range(rank - 1)])
    y_is_rows = rng.random() < 0.4
    y = kd.slice([rng.randint(-5, 5) for _ in range(kd.shapes.size(x.get_shape()[:1]).to_py())], kd.INT32) if y_is_rows else \
        kd.item(rng.randint(1, 5))
    vals = [("x", x_dims), ("y", ("r",) if y_is_rows else ())]
    lines = []

    def pick(pred=lambda d: True):
        # Values of unknown dimensions (None) are outputs only.
        choices = [v for v in vals if v[1] is not None and pred(v[1])]
        return rng.choice(choices) if choices else None

    def add(expr, dims):
        name = f"v{len(lines)}"
        lines.append(f"{name} = {expr}")
        vals.append((name, dims))

    for _ in range(rng.randint(1, 7)):
        kind = rng.randrange(18)
        a = pick()
        if kind <= 2:
            b = pick(lambda d, a=a: d[:len(a[1])] == a[1] or a[1][:len(d)] == d)
            longer = a[1] if len(a[1]) >= len(b[1]) else b[1]
            op = rng.choice(["{a} + {b}", "{a} - {b}", "{a} * {b}", "kd.math.maximum({a}, {b})"])
            add(op.format(a=a[0], b=b[0]), longer)
        elif kind == 3:
            add(rng.choice([f"-{a[0]}", f"kd.math.abs({a[0]})", f"{a[0]} * 3 + 1", f"kd.masking.coalesce({a[0]}, 0)",
                            f"kd.masking.apply_mask({a[0]}, {a[0]} > 0)"]), a[1])
        elif kind == 4:
            add(rng.choice([f"kd.sum({a[0]})", f"kd.max({a[0]})", f"kd.min({a[0]})", f"kd.count({a[0]})",
                            f"kd.math.mean({a[0]})", f"kd.math.median({a[0]})"]), ())
        elif kind == 5:
            a = pick(lambda d: len(d) >= 1)
            agg = rng.choice(["kd.agg_sum", "kd.agg_max", "kd.agg_count", "kd.math.agg_mean", "kd.agg_min"])
            ndim = rng.randint(1, len(a[1]))
            add(f"{agg}({a[0]}, ndim={ndim})" if ndim > 1 else f"{agg}({a[0]})", a[1][:len(a[1]) - ndim])
        elif kind == 6:
            a = pick(lambda d: len(d) >= 1)
            dim = rng.choice([0, -1, len(a[1]) - 1])
            add(f"kd.index({a[0]}, dim={dim})", a[1])
        elif kind == 7:
            a = pick(lambda d: len(d) >= 1)
            add(f"kd.select({a[0]}, {a[0]} > {rng.randint(-3, 3)})", a[1][:-1] + (_fresh(),))
        elif kind == 8:
            a = pick(lambda d: len(d) >= 1)
            add(f"kd.flatten({a[0]})", a[1] if len(a[1]) == 1 else (_fresh(),))
        elif kind == 9:
            a = pick(lambda d: len(d) >= 1)
            add(f"kd.unique({a[0]})", a[1][:-1] + (_fresh(),))
        elif kind == 10:
            a = pick(lambda d: len(d) >= 1)
            add(rng.choice([f"kd.sort({a[0]})", f"kd.math.cum_sum({a[0]})", f"kd.sort({a[0]}, descending=True)"]), a[1])
        elif kind == 11:
            a = pick(lambda d: len(d) >= 1)
            add(f"{a[0]} - kd.math.mean({a[0]})", a[1])
        elif kind == 12:
            a = pick(lambda d: len(d) >= 1)
            add(f"kd.select_present(kd.masking.apply_mask({a[0]}, {a[0]} > 0))", a[1][:-1] + (_fresh(),))
        elif kind == 13:
            a = pick(lambda d: len(d) >= 2)
            if a is not None:
                add(f"kd.masking.coalesce(kd.agg_max({a[0]}), -1)", a[1][:-1])
        elif kind == 14:
            a = pick(lambda d: len(d) >= 1)
            add(f"kd.flatten({a[0]}, {rng.randint(-3, 3)}, {rng.randint(-3, 3)})", None)
        elif kind == 15:
            a = pick(lambda d: len(d) >= 1)
            b = pick(lambda d, a=a: d[:len(a[1])] == a[1])
            add(f"kd.expand_to({a[0]}, {b[0]}, ndim={rng.randint(0, len(a[1]))})", None)
        elif kind == 16:
            a = pick(lambda d: len(d) >= 2)
            if a is not None:
                add(f"kd.select({a[0]}, kd.agg_count({a[0]}) > 1, expand_filter=False)", None)
        else:
            # A filter of dimension 0 (the first argument may be whole and the filter sharded).
            a, b = pick(lambda d: d == ("r",)), pick(lambda d: d == ("r",))
            if a is not None:
                add(f"kd.select({a[0]}, {b[0]} > 0)", (_fresh(),))
    outputs = [name for name, _ in vals[2:]] or ["x"]
    chosen = rng.sample(outputs, min(len(outputs), rng.randint(1, 2)))
    body = "\n    ".join(lines) if lines else "pass"
    ret = chosen[0] if len(chosen) == 1 else "(" + ", ".join(chosen) + ")"
    source = f"def f(x, y):\n    {body}\n    return {ret}\n"
    scope = {"kd": kd}
    exec(source, scope)  # noqa: S102 - generated test programs
    return source, scope["f"], x, y


def outcome(fn, *args):
    """The result of `fn(*args)`, or the exception it raised."""
    try:
        return fn(*args)
    except Exception as e:  # noqa: BLE001 - compared with the other call's
        return e


def reference(fn, *args):
    """What the unsharded call of `fn` traced into a functor gives (a tuple
    of outputs, each from its own functor), or the exception it raised.
    Tracing drops operators whose results are not returned, as shard_map's
    does."""
    from plait.kd import expr as _expr

    with _expr.tracing():
        probe = fn(*[kd.I[f"_{i}"] for i in range(len(args))])
    if not isinstance(probe, tuple):
        return outcome(kd.fn(fn), *args)
    def nth(i):
        return lambda x, y: fn(x, y)[i]

    return tuple(outcome(kd.fn(nth(i)), *args) for i in range(len(probe)))


def assert_same(got, expected, source):
    if isinstance(expected, Exception):
        assert isinstance(got, Exception), f"{source}\nexpected {type(expected).__name__}: {expected}\ngot {got!r}"
        assert type(got) is type(expected), f"{source}\nexpected {type(expected).__name__}: {expected}\ngot {got!r}"
        return
    if isinstance(got, Exception):
        pytest.fail(f"{source}\nraised {type(got).__name__}: {got}\nexpected {expected!r}")
    if isinstance(expected, tuple):
        failed = [e for e in expected if isinstance(e, Exception)]
        if failed:
            return assert_same(got, failed[0], source)
        assert isinstance(got, tuple) and len(got) == len(expected), source
        for g, e in zip(got, expected):
            assert_same(g, e, source)
        return
    if expected.get_schema() in (kd.FLOAT32, kd.FLOAT64):
        assert got.get_schema() == expected.get_schema(), source
        kd.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    else:
        try:
            kd.testing.assert_equal(got, expected)
        except AssertionError as e:
            raise AssertionError(f"{source}\n{e}") from None
