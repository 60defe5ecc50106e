"""kd.slices operators against koladata on generated inputs.

Each seed builds one (operator, inputs) case from nested Python lists and
runs it on both libraries: the value (`to_py`), schema and shape must match,
or both must raise.
"""

import random

import pytest

from plait import kd

SEEDS = range(500)


def scalar(rng, kind):
    if rng.random() < 0.2:
        return None
    if kind == "int":
        return rng.randint(-3, 6)
    if kind == "float":
        return rng.choice([0.0, -0.0, 1.5, -2.25, 3.0, float("nan"), float("inf")])
    if kind == "str":
        return rng.choice(["", "a", "b", "ab", "ä"])
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "mixed":
        return scalar(rng, rng.choice(["int", "float", "str"]))
    raise AssertionError(kind)


def nested(rng, kind, depth):
    if depth == 0:
        return scalar(rng, kind)
    return [nested(rng, kind, depth - 1) for _ in range(rng.choice([0, 1, 2, 3, 5]))]


def like(rng, value, kind):
    """A nested list with the structure of `value`, holding new scalars."""
    if isinstance(value, list):
        return [like(rng, v, kind) for v in value]
    return scalar(rng, kind)


def mask_like(rng, value):
    return like(rng, value, "int")


def case(seed):
    """A function of a `kd` module running one generated call."""
    rng = random.Random(seed)
    kind = rng.choice(["int", "int", "float", "str", "bool", "mixed"])
    depth = rng.choice([1, 1, 2, 2, 3])
    v = nested(rng, kind, depth)
    other = like(rng, v, rng.choice(["int", "str"]))
    fltr = mask_like(rng, v)
    desc = rng.random() < 0.5
    flag = rng.random() < 0.5
    # `ndim=None` is not "unspecified" in Koda (it raises); leave it out instead.
    nd = rng.choice([{}, {"ndim": 0}, {"ndim": 1}, {"ndim": 2}])
    n = rng.randint(-2, 4)
    ops = {
        "select": lambda kd: kd.select(kd.slice(v), kd.has(kd.slice(fltr))),
        "select_prefix": lambda kd: kd.select(kd.slice(v), kd.has(kd.slice(fltr)).S[:], expand_filter=False),
        "select_present": lambda kd: kd.select_present(kd.slice(v)),
        "inverse_select": lambda kd: kd.inverse_select(
            kd.select(kd.slice(v), kd.has(kd.slice(fltr))), kd.has(kd.slice(fltr))
        ),
        "sort": lambda kd: kd.sort(kd.slice(v), descending=desc),
        "sort_by": lambda kd: kd.sort(kd.slice(other), kd.slice(v), descending=desc),
        "ordinal_rank": lambda kd: kd.ordinal_rank(kd.slice(v), descending=desc, **nd),
        "ordinal_rank_tie": lambda kd: kd.ordinal_rank(kd.slice(v), tie_breaker=kd.slice(like(rng_copy(seed), v, "int"))),
        "dense_rank": lambda kd: kd.dense_rank(kd.slice(v), descending=desc, **nd),
        "unique": lambda kd: kd.unique(kd.slice(v), sort=flag),
        "group_by": lambda kd: kd.group_by(kd.slice(v), sort=flag),
        "group_by_keys": lambda kd: kd.group_by(kd.slice(v), kd.slice(other), sort=flag),
        "group_by_indices": lambda kd: kd.group_by_indices(kd.slice(v), kd.slice(other), sort=flag),
        "concat": lambda kd: kd.concat(kd.slice(v), kd.slice(other), ndim=rng_copy(seed).choice([1, 2])),
        "stack": lambda kd: kd.stack(kd.slice(v), kd.slice(other), ndim=rng_copy(seed).choice([0, 1])),
        "zip": lambda kd: kd.zip(kd.slice(v), kd.item(n)),
        "take": lambda kd: kd.take(kd.slice(v), n),
        "take_slice": lambda kd: kd.take(kd.slice(v), kd.slice(like(rng_copy(seed), v, "int")).S[..., :1]),
        "reverse": lambda kd: kd.reverse(kd.slice(v)),
        "range": lambda kd: kd.range(kd.slice(like(rng_copy(seed), v, "int")), n),
        "repeat": lambda kd: kd.repeat(kd.slice(v), max(n, 0)),
        "repeat_present": lambda kd: kd.repeat_present(kd.slice(v), max(n, 0)),
        "translate": lambda kd: kd.translate(kd.slice(other), kd.unique(kd.slice(other)), kd.slice(v).S[..., :1]),
        "translate_group": lambda kd: kd.translate_group(kd.slice(v), kd.slice(v), kd.slice(other)),
        "isin": lambda kd: kd.isin(kd.item(scalar(rng_copy(seed), kind)), kd.slice(v)),
        "inverse_mapping": lambda kd: kd.inverse_mapping(kd.ordinal_rank(kd.slice(v), **nd), **nd),
        "is_expandable_to": lambda kd: kd.is_expandable_to(kd.slice(v), kd.slice(other), **nd),
    }
    name = rng.choice(sorted(ops))
    return name, ops[name]


def rng_copy(seed):
    """A second generator, so both libraries see the same derived inputs."""
    return random.Random(seed * 7919 + 1)


def outcome(kd_module, fn):
    try:
        return "ok", fn(kd_module)
    except (ValueError, TypeError) as error:
        return "error", type(error).__name__


@pytest.mark.parametrize("seed", SEEDS)
def test_slices_operator(koda, seed):
    name, fn = case(seed)
    ours, theirs = outcome(kd, fn), outcome(koda, fn)
    assert ours[0] == theirs[0], (name, ours, theirs)
    if ours[0] == "error":
        return
    a, b = ours[1], theirs[1]
    assert repr(a.to_py()) == repr(b.to_py()), name
    assert str(a.get_schema()) == str(b.get_schema()), name
    assert str(a.get_shape()) == str(b.get_shape()), name
