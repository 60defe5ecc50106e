"""plait against koladata on traced functors: random Python functions over
numbers, masks and strings — with named variables (`kd.with_name`), nested
functors (`@kd.trace_as_fn()`) and a lambda operator — are traced by
`kd.fn` in both libraries and called on the same inputs; results (values,
schemas, shapes) must agree, or both must fail."""

import random

import pytest

from plait import kd
from koda_compare import outcome, same_outcome
from test_expr_vs_koladata import inputs_for, mask, num, plain, scale_add, text

SEEDS = range(400)

INNER = {}


def inner(k):
    """A nested functor, the same in either library."""
    if k not in INNER:
        @k.trace_as_fn(name="inner")
        def inner_fn(x):
            return k.math.maximum(x * 2, x + 1)

        INNER[k] = inner_fn
    return INNER[k]


def emit(k, tree, env, rng_state):
    """The tree computed with `k`'s eager-style API on `env`'s values (in
    tracing, expressions), naming some subresults and calling the nested
    functor on some (decided by `rng_state`, the same for both libraries)."""
    kind = tree[0]
    if kind == "input":
        return env[tree[1]]
    if kind == "const":
        return tree[1]
    if kind == "lambda":
        return scale_add(k)(emit(k, tree[1], env, rng_state), emit(k, tree[2], env, rng_state))
    _, ns, name, *arg_trees = tree
    args = [emit(k, t, env, rng_state) for t in arg_trees if t[0] != "kwarg"]
    kwargs = {t[1]: (t[2] if not isinstance(t[2], tuple) else emit(k, t[2], env, rng_state))
              for t in arg_trees if t[0] == "kwarg"}
    result = getattr(getattr(k, ns), name)(*args, **kwargs)
    choice = rng_state.random()
    if choice < 0.15:
        rng_state.count += 1
        result = k.with_name(result, f"v{rng_state.count}")
    elif choice < 0.2 and ns == "math" and name in ("add", "multiply", "subtract"):
        result = inner(k)(result)
    return result


class Choices(random.Random):
    count = 0


def traced_function(k, tree, seed):
    # Made before tracing: Koda offers neither kd.optools nor kd.trace_as_fn inside it.
    scale_add(k)
    inner(k)

    def f(a, b, c, s):
        return emit(k, tree, {"a": a, "b": b, "c": c, "s": s}, Choices(seed))

    return k.fn(f)


@pytest.mark.parametrize("seed", SEEDS)
def test_functor(koda, seed):
    rng = random.Random(10_000 + seed)
    tree = rng.choice([num, num, mask, text])(rng, 0)
    if tree[0] == "const":
        tree = ("op", "math", "add", ("input", "a"), tree)
    ours_kind, ours = outcome(lambda: traced_function(kd, tree, seed)(**inputs_for(kd, seed)))
    koda_kind, theirs = outcome(lambda: traced_function(koda, tree, seed)(**inputs_for(koda, seed)))
    if same_outcome(ours_kind, ours, koda_kind, theirs):
        assert plain(ours) == plain(theirs), (tree, ours, theirs)
