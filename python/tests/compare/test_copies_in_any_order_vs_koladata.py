"""plait against koladata on copies (`kd.extract`, `kd.clone`,
`kd.shallow_clone`, `kd.deep_clone`, `kd.implode` of what they reach) of
slices whose items reach lists, dicts and entities made together (one
allocation) in any order and any subset: the copy writes the containers in
the order it meets them, and a write of the first ones must not drop the
others (it once did: `[obj(x=lists[1]), obj(y=lists[0])]` copied `x` as an
empty list). Contents are compared as Python values."""

import dataclasses
import random

import pytest

from plait import kd

from koda_compare import outcome

koda = pytest.importorskip("koladata.kd")

COPIES = ["extract", "clone", "shallow_clone", "deep_clone"]


def make(k, seed):
    rng = random.Random(seed)
    n = rng.randint(2, 6)
    kind = rng.choice(["lists", "dicts", "entities"])
    if kind == "lists":
        made = k.implode(k.slice([[i, i * 10] for i in range(n)]))
    elif kind == "dicts":
        made = k.dict(k.slice([[f"k{i}"] for i in range(n)]), k.slice([[i] for i in range(n)]))
    else:
        made = k.new(a=k.slice(list(range(n))))
    order = rng.sample(range(n), rng.randint(1, n))
    picked = [made.S[i] for i in order]
    if rng.random() < 0.5:
        return k.slice([k.obj(**{f"a{j}": item}) for j, item in enumerate(picked)]), True
    return k.slice(picked), False


@pytest.mark.parametrize("copy", COPIES)
@pytest.mark.parametrize("seed", range(40))
def test_copies_of_containers_reached_in_any_order(copy, seed):
    x, in_objects = make(kd, seed)
    if copy == "shallow_clone" and in_objects:
        # Koda's shallow clone of objects holding containers reads them back
        # differently (`[]` where plait gives `{}`): a difference of its own,
        # not of the order of writes.
        pytest.skip("shallow_clone of objects holding containers")
    ours = getattr(kd, copy)(x)
    theirs = getattr(koda, copy)(make(koda, seed)[0])
    assert ours.to_py(max_depth=-1, obj_as_dict=True) == theirs.to_py(max_depth=-1, obj_as_dict=True)


@dataclasses.dataclass
class Holder:
    v: object


def test_from_py_level_walk_keeps_lists_of_objects_made_apart():
    """The level walk (a dataclass sends the level there) makes objects of
    differing keys in allocations of their own, then lists of their values:
    every list keeps its items."""
    def run(k):
        return k.from_py([{"c": [1], "b": [3]}, Holder(1)], dict_as_obj=True)

    kind, ours = outcome(lambda: run(kd))
    koda_kind, theirs = outcome(lambda: run(koda))
    assert kind == koda_kind
    if kind == "ok":
        assert ours.to_py(max_depth=-1, obj_as_dict=True) == theirs.to_py(max_depth=-1, obj_as_dict=True)
