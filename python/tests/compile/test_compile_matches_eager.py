"""kd.compile gives the eager results: 500 random programs of elementwise
operators (fused), with aggregations, broadcasting, missing items, nested
functors (inlined) and kd.if_, on random inputs of every numeric type,
compiled and run twice (a miss, then a hit) against the same function
called eagerly (every fifth also as a functor, compiled); where eager raises, compiled raises an error of the same
type (test_compile.py checks the messages of single errors)."""

import random

import pytest

from plait import kd

N_PROGRAMS = 500

BINARY = ["{a} + {b}", "{a} - {b}", "{a} * {b}", "{a} / {b}", "kd.math.maximum({a}, {b})", "kd.math.minimum({a}, {b})",
          "{a} // {b}", "{a} % {b}", "{a} ** {b}"]
UNARY = ["-{a}", "+{a}", "kd.math.abs({a})", "kd.math.sign({a})", "kd.math.round({a})", "kd.math.floor({a})",
         "kd.math.ceil({a})", "kd.math.exp({a} / 10)", "kd.math.sqrt(kd.math.abs({a}))", "kd.math.log(kd.math.abs({a}) + 1)",
         "kd.math.log10(kd.math.abs({a}) + 1)", "kd.float32({a})", "kd.float64({a})", "kd.int64({a})", "kd.int32({a})"]
COMPARE = ["{a} > {b}", "{a} >= {b}", "{a} < {b}", "{a} <= {b}", "{a} == {b}", "{a} != {b}"]
MASKS = ["{m} & {n}", "{m} | {n}", "~{m}", "kd.has({a})", "kd.has_not({a})"]
CONSTS = ["1", "2", "-3", "0.5", "2.25", "kd.int64(7)", "kd.float64(1.5)", "None"]


class _Writer:
    def __init__(self, rng, names):
        self.rng = rng
        self.names = names

    def leaf(self):
        r = self.rng
        return r.choice(self.names) if r.random() < 0.75 else r.choice(CONSTS[:-1])

    def number(self, depth):
        r = self.rng
        if depth <= 0:
            return self.leaf()
        k = r.randrange(10)
        a = self.number(depth - 1)
        if k <= 3:
            return "(" + r.choice(BINARY).format(a=a, b=self.number(depth - 1)) + ")"
        if k == 4:
            return "(" + r.choice(UNARY).format(a=a) + ")"
        if k == 5:
            return f"({a} & {self.mask(depth - 1)})"
        if k == 6:
            return f"({a} | {self.number(depth - 1)})"
        if k == 7:
            return f"(kd.agg_sum({a}) + {self.number(depth - 1)})" if r.random() < 0.5 else f"helper({a}, {self.number(depth - 1)})"
        if k == 8:
            return f"kd.if_(kd.all(kd.has({a})), lambda v: v * 2, lambda v: v - 1, {a})"
        return a

    def mask(self, depth):
        r = self.rng
        if depth <= 0:
            return f"({self.leaf()} > 0)"
        if r.random() < 0.6:
            return "(" + r.choice(COMPARE).format(a=self.number(depth - 1), b=self.number(depth - 1)) + ")"
        return "(" + r.choice(MASKS).format(m=self.mask(depth - 1), n=self.mask(depth - 1), a=self.number(depth - 1)) + ")"


HELPER = kd.fn(lambda a, b=2: a * b + 1)


def program(k):
    rng = random.Random(k)
    names = ["x", "y", "z"][: rng.randint(1, 3)]
    writer = _Writer(rng, names)
    body = writer.mask(rng.randint(1, 4)) if rng.random() < 0.2 else writer.number(rng.randint(1, 5))
    return f"lambda {', '.join(names)}: {body}", len(names)


def _values(rng, n, dtype):
    out = []
    for _ in range(n):
        if rng.random() < 0.15:
            out.append(None)
        elif dtype in (kd.INT32, kd.INT64):
            out.append(rng.randint(-4, 6))
        else:
            out.append(rng.choice([0.0, -1.5, 2.0, 3.25, rng.uniform(-5, 5)]))
    return out


def inputs(k, count):
    """Arguments of program `k`: slices of one jagged shape, some of lower
    rank (broadcast) or DataItems, of random numeric types."""
    rng = random.Random(10_000 + k)
    sizes = [rng.randint(0, 4) for _ in range(rng.randint(1, 4))]
    args = []
    for _ in range(count):
        dtype = rng.choice([kd.INT32, kd.INT64, kd.FLOAT32, kd.FLOAT64])
        form = rng.random()
        if form < 0.2:
            args.append(kd.item(_values(rng, 1, dtype)[0], dtype))
        elif form < 0.35:
            args.append(kd.slice(_values(rng, len(sizes), dtype), dtype))
        else:
            rows = [_values(rng, s, dtype) for s in sizes]
            args.append(kd.slice(rows, dtype))
    return args


def outcome(fn, args):
    try:
        result = fn(*args)
    except Exception as e:  # noqa: BLE001 - the error is the outcome
        # Of two failing operations, which one raises first depends on the
        # order of evaluation (a plan's, not Python's): the type is compared.
        return ("error", type(e).__name__)
    if not isinstance(result, kd.types.DataSlice):
        return ("python value", repr(result))
    return ("value", repr(result.get_schema()), repr(result.get_shape()), repr(result.to_py()))


@pytest.mark.parametrize("chunk", range(10))
def test_compiled_calls_equal_eager_calls(chunk):
    namespace = {"kd": kd, "helper": HELPER}
    for k in range(chunk * N_PROGRAMS // 10, (chunk + 1) * N_PROGRAMS // 10):
        source, count = program(k)
        fn = eval(source, namespace)  # noqa: S307 - generated test programs
        compiled = kd.compile(fn)
        args = inputs(k, count)
        expected = outcome(fn, args)
        assert outcome(compiled, args) == expected, source
        assert outcome(compiled, args) == expected, source  # a hit
        if expected[0] != "error":  # (a function failing while traced caches nothing)
            assert compiled.stats.misses == 1, source
        if k % 5 == 0 and expected[0] == "value":
            # The program as a functor, compiled.
            assert outcome(kd.compile(kd.fn(fn)), args) == expected, source


def test_the_programs_fuse_and_cover_errors():
    """The generator makes fused plans, and programs that fail."""
    namespace = {"kd": kd, "helper": HELPER}
    fused = errors = 0
    for k in range(100):
        source, count = program(k)
        compiled = kd.compile(eval(source, namespace))  # noqa: S307
        args = inputs(k, count)
        fused += "kd.core._fused" in compiled.lower(*args)
        errors += outcome(compiled, args)[0] == "error"
    assert fused > 40
    assert errors > 3
