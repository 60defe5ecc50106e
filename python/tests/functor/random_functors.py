"""Random traced functors with control flow, for the persistence tests.

`program(k)` is the Python source of functor number `k`: a function `f(x)`
of a 1-dimensional INT32 slice, built from arithmetic, `kd.if_`, `kd.map`,
`kd.while_`, `kd.for_`, `kd.functor.reduce`, nested `@kd.trace_as_fn()`
functions and lambdas. The source depends only on `k`, so two processes
build the same functor from it (with fresh item ids, and the same content).
Some programs fail when called (a condition that is not a MASK item, a
mapped functor returning a slice): their errors must survive saving too.
"""

import random

from plait import kd

N_PROGRAMS = 300


class _Writer:
    def __init__(self, rng):
        self.rng = rng
        self.helpers = []
        self.n_helpers = 0

    def const(self):
        return str(self.rng.randint(-3, 5))

    def slice_expr(self, v, depth):
        """An expression of slice variable `v`, giving a slice of its shape."""
        r = self.rng
        if depth <= 0:
            return r.choice([v, f"({v} + {self.const()})", f"({v} * {self.const()})"])
        choice = r.randrange(9)
        inner = self.slice_expr(v, depth - 1)
        if choice == 0:
            return f"({inner} + {self.slice_expr(v, depth - 1)})"
        if choice == 1:
            return f"kd.map(lambda y: {self.item_expr('y', depth - 1)}, {inner})"
        if choice == 2:
            cond = r.choice([f"kd.sum({inner}) > {self.const()}", f"kd.all(kd.has({inner}))"] * 3 +
                            # Not a MASK item: an error when called.
                            [f"{inner} > 0"])
            return (f"kd.if_({cond}, lambda w: {self.slice_expr('w', depth - 1)}, "
                    f"lambda w: {self.slice_expr('w', depth - 1)}, {inner})")
        if choice == 3:
            return (f"kd.while_(lambda n, returns: n > 0, lambda n, returns: kd.namedtuple(n=n - 1, "
                    f"returns=returns + n), n={r.randint(0, 4)}, returns={inner})")
        if choice == 4:
            items = ", ".join(self.const() for _ in range(r.randint(0, 3)))
            return (f"kd.for_(kd.iterables.make({items}), lambda i, returns: kd.namedtuple(returns=returns * i), "
                    f"returns={inner})")
        if choice == 5:
            items = ", ".join(self.const() for _ in range(r.randint(0, 3)))
            return f"({inner} + kd.functor.reduce(lambda a, b: a + b, kd.iterables.make({items}), 0))"
        if choice == 6:
            name = f"helper_{self.n_helpers}"
            self.n_helpers += 1
            body = self.slice_expr("z", depth - 1)
            self.helpers.append(f"@kd.trace_as_fn()\ndef {name}(z):\n    return {body}\n")
            return f"{name}({inner})"
        if choice == 7 and r.random() < 0.3:
            # A mapped functor returning a slice: an error when called on a present item.
            return f"kd.map(lambda y: y.repeat(2), {inner})"
        return f"kd.math.abs({inner})"

    def item_expr(self, y, depth):
        """An expression of item variable `y`, giving an item."""
        r = self.rng
        if depth <= 0 or r.random() < 0.4:
            return r.choice([f"({y} + {self.const()})", f"({y} * {self.const()})", y])
        return (f"kd.if_({y} > {self.const()}, lambda u: {self.item_expr('u', depth - 1)}, "
                f"lambda u: {self.item_expr('u', depth - 1)}, {y})")


def program(k):
    """The source of program `k`: helper functions, then `f`."""
    w = _Writer(random.Random(k))
    body = w.slice_expr("x", 3)
    return "".join(w.helpers) + f"def f(x):\n    return {body}\n"


def build(k):
    """Functor `k`, traced from its source."""
    namespace = {"kd": kd}
    exec(compile(program(k), f"<random functor {k}>", "exec"), namespace)  # noqa: S102 - generated test code
    return kd.fn(namespace["f"])


def inputs(k):
    """Arguments to call functor `k` with."""
    rng = random.Random(10_000 + k)
    values = [rng.choice([None, rng.randint(-4, 6)]) for _ in range(rng.randint(0, 4))]
    return kd.slice(values, kd.INT32)


def outcome(f, x):
    """What calling `f` gives: the result's repr, or the error's type and message."""
    try:
        return "ok", repr(f(x))
    except Exception as e:  # noqa: BLE001 - every failure is an outcome to compare
        return type(e).__name__, str(e)
