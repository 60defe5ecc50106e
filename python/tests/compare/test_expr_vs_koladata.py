"""plait against koladata on random expressions over the eager operators.

Each random expression is built four ways — plait's kd.lazy, plait's kd.<op>
inside tracing, plait's eager operators applied directly, and koladata's
kd.lazy — and evaluated: values, schemas and shapes must agree (or all must
fail), and the expression texts must be Koda's. The expressions are typed
trees over numbers, masks and strings, with varargs (strings.join),
keyword arguments (strings.format) and a lambda operator defined the same
way in both libraries (lowered by preparation)."""

import random

import pytest

from plait import kd
from koda_compare import outcome, same_outcome

SEEDS = range(3000)

NUM_BINARY = ["add", "subtract", "multiply", "maximum", "minimum"]
NUM_UNARY = [("math", "abs"), ("math", "neg"), ("math", "sign"), ("math", "pos")]
NUM_AGG = [("math", "agg_sum"), ("math", "agg_max"), ("math", "agg_min"), ("slices", "agg_count"),
           ("math", "cum_sum"), ("slices", "agg_size")]
COMPARE = ["greater", "less_equal", "equal", "not_equal"]
STR_UNARY = ["upper", "lower", "strip"]


def num(rng, depth):
    pick = rng.random()
    if depth >= 4 or pick < 0.2:
        return rng.choice([("input", "a"), ("input", "b"), ("input", "c"), ("const", rng.choice([1, 2, -3, 0.5]))])
    if pick < 0.4:
        return ("op", "math", rng.choice(NUM_BINARY), num(rng, depth + 1), num(rng, depth + 1))
    if pick < 0.5:
        return ("op",) + rng.choice(NUM_UNARY) + (num(rng, depth + 1),)
    if pick < 0.6:
        return ("op", "masking", "apply_mask", num(rng, depth + 1), mask(rng, depth + 1))
    if pick < 0.65:
        return ("op", "masking", "coalesce", num(rng, depth + 1), num(rng, depth + 1))
    if pick < 0.75:
        return ("op",) + rng.choice(NUM_AGG) + (num(rng, depth + 1),)
    if pick < 0.8:
        return ("op", "strings", "length", text(rng, depth + 1))
    if pick < 0.87:
        return ("lambda", num(rng, depth + 1), num(rng, depth + 1))
    if pick < 0.93:
        return ("op", "masking", "cond", mask(rng, depth + 1), num(rng, depth + 1), num(rng, depth + 1))
    return ("op", "math", "agg_sum", num(rng, depth + 1), ("kwarg", "ndim", 2))


def mask(rng, depth):
    pick = rng.random()
    if pick < 0.6 or depth >= 4:
        return ("op", "comparison", rng.choice(COMPARE), num(rng, depth + 1), num(rng, depth + 1))
    if pick < 0.8:
        return ("op", "masking", rng.choice(["has", "has_not"]), num(rng, depth + 1))
    return ("op", "masking", "mask_and", mask(rng, depth + 1), mask(rng, depth + 1))


def text(rng, depth):
    pick = rng.random()
    if depth >= 4 or pick < 0.3:
        return rng.choice([("input", "s"), ("const", "x-"), ("const", " Pad ")])
    if pick < 0.5:
        return ("op", "strings", rng.choice(STR_UNARY), text(rng, depth + 1))
    if pick < 0.65:
        return ("op", "strings", "join") + tuple(text(rng, depth + 1) for _ in range(rng.randint(1, 3)))
    if pick < 0.8:
        return ("op", "strings", "format", ("const", "{x}/{y}"), ("kwarg", "x", num(rng, depth + 1)),
                ("kwarg", "y", text(rng, depth + 1)))
    if pick < 0.9:
        return ("op", "masking", "apply_mask", text(rng, depth + 1), mask(rng, depth + 1))
    return ("op", "masking", "coalesce", text(rng, depth + 1), text(rng, depth + 1))


LAMBDAS = {}


def scale_add(k):
    """The same lambda operator, defined in either library."""
    if k not in LAMBDAS:
        @k.optools.as_lambda_operator("test.scale_add")
        def op(x, y, scale=2):
            return x * scale + y

        LAMBDAS[k] = op
    return LAMBDAS[k]


def build(k, tree, mode):
    """The tree as an expression (`lazy`, or `traced` with kd.<op> inside
    tracing) or as a value (`eager`)."""
    kind = tree[0]
    if kind == "input":
        return getattr(k.I, tree[1]) if mode != "eager" else INPUTS[k][tree[1]]
    if kind == "const":
        return tree[1]
    if kind == "lambda":
        x, y = build(k, tree[1], mode), build(k, tree[2], mode)
        if mode == "eager":
            return x * 2 + y
        return scale_add(k)(x, y)
    _, ns, name, *arg_trees = tree
    args = [build(k, t, mode) for t in arg_trees if t[0] != "kwarg"]
    kwargs = {t[1]: (t[2] if not isinstance(t[2], tuple) else build(k, t[2], mode)) for t in arg_trees if t[0] == "kwarg"}
    namespace = getattr(k.lazy if mode == "lazy" else k, ns)
    return getattr(namespace, name)(*args, **kwargs)


INPUTS = {}


def inputs_for(k, rng_seed):
    rng = random.Random(rng_seed)
    rows = [rng.randint(0, 3) for _ in range(3)]
    values = {name: [[rng.choice([1, 2, 5, -1, None]) for _ in range(n)] for n in rows] for name in "ab"}
    words = [[rng.choice(["ab", "Cd", None, "e f"]) for _ in range(n)] for n in rows]
    return {"a": k.slice(values["a"]), "b": k.slice(values["b"]), "c": k.slice([rng.choice([1, 3]) for _ in rows]),
            "s": k.slice(words)}


def plain(x):
    """Comparable Python values (masks by their text: to_py keeps them DataItems)."""
    return str(x) if str(x.get_schema()) == "MASK" else x.to_py()


def traced(tree):
    with kd.expr.tracing():
        return build(kd, tree, "traced")


@pytest.mark.parametrize("seed", SEEDS)
def test_expression(koda, seed):
    rng = random.Random(seed)
    tree = rng.choice([num, num, mask, text])(rng, 0)
    if tree[0] == "const":
        tree = ("op", "math", "add", ("input", "a"), tree)
    INPUTS[kd] = inputs_for(kd, seed)
    INPUTS[koda] = inputs_for(koda, seed)
    ours = build(kd, tree, "lazy")
    theirs_expr = build(koda, tree, "lazy")
    assert repr(ours) == repr(theirs_expr).replace("📍", "")
    assert traced(tree).fingerprint == ours.fingerprint
    lazy_kind, lazy = outcome(lambda: kd.eval(ours, **INPUTS[kd]))
    eager_kind, eager = outcome(lambda: build(kd, tree, "eager"))
    koda_kind, theirs = outcome(lambda: koda.eval(theirs_expr, **INPUTS[koda]))
    assert lazy_kind == eager_kind, (tree, lazy, eager)
    if lazy_kind == "error":
        assert lazy == eager, tree
    if same_outcome(lazy_kind, lazy, koda_kind, theirs):
        assert plain(lazy) == plain(theirs) == plain(eager), (tree, lazy, theirs)
