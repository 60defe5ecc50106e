"""plait against koladata on random expressions over the eager operators:
each expression is evaluated by plait's kd.eval, by plait's eager operators
applied directly, and by koladata's kd.eval; values, schemas and shapes must
agree (or all three must fail)."""

import random

import pytest

from plait import kd
from koda_compare import outcome, same_outcome

SEEDS = range(300)

BINARY = ["add", "subtract", "multiply", "maximum", "minimum"]
UNARY = ["abs", "neg"]
COMPARE = ["greater", "less_equal", "equal"]


def make_tree(rng, depth):
    pick = rng.random()
    if depth >= 4 or pick < 0.25:
        return rng.choice([("input", "a"), ("input", "b"), ("input", "c"), ("const", rng.choice([1, 2, -3, 0.5]))])
    if pick < 0.55:
        return ("math", rng.choice(BINARY), make_tree(rng, depth + 1), make_tree(rng, depth + 1))
    if pick < 0.7:
        return ("math", rng.choice(UNARY), make_tree(rng, depth + 1))
    if pick < 0.85:
        cond = ("comparison", rng.choice(COMPARE), make_tree(rng, depth + 1), make_tree(rng, depth + 1))
        return ("masking", "apply_mask", make_tree(rng, depth + 1), cond)
    return ("math", rng.choice(["agg_sum", "agg_max"]), make_tree(rng, depth + 1))


def build(k, tree, lazy):
    kind = tree[0]
    if kind == "input":
        return getattr(k.I, tree[1]) if lazy else INPUTS[k][tree[1]]
    if kind == "const":
        return tree[1]
    namespace = getattr(k.lazy if lazy else k, tree[0])
    args = [build(k, t, lazy) for t in tree[2:]]
    return getattr(namespace, tree[1])(*args)


INPUTS = {}


def inputs_for(k, rng_seed):
    rng = random.Random(rng_seed)
    rows = [rng.randint(0, 3) for _ in range(3)]
    values = {name: [[rng.choice([1, 2, 5, -1, None]) for _ in range(n)] for n in rows] for name in "ab"}
    return {"a": k.slice(values["a"]), "b": k.slice(values["b"]), "c": k.slice([rng.choice([1, 3]) for _ in rows])}


@pytest.mark.parametrize("seed", SEEDS)
def test_expression(koda, seed):
    rng = random.Random(seed)
    tree = make_tree(rng, 0)
    if tree[0] == "const":
        tree = ("math", "add", ("input", "a"), tree)
    INPUTS[kd] = inputs_for(kd, seed)
    INPUTS[koda] = inputs_for(koda, seed)
    lazy_kind, lazy = outcome(lambda: kd.eval(build(kd, tree, True), **INPUTS[kd]))
    eager_kind, eager = outcome(lambda: build(kd, tree, False))
    koda_kind, theirs = outcome(lambda: koda.eval(build(koda, tree, True), **INPUTS[koda]))
    assert lazy_kind == eager_kind, (tree, lazy, eager)
    if same_outcome(lazy_kind, lazy, koda_kind, theirs):
        assert lazy.to_py() == theirs.to_py() == eager.to_py(), (tree, lazy, theirs)
