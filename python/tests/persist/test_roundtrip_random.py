"""Round-trip properties of kd.dumps / kd.loads over generated values:
random slices (ranks, jagged shapes, every primitive type, OBJECT mixes,
missing items), random entity graphs (nested entities, lists, dicts), and
random traced functors (calling the loaded functor gives what the original
gives)."""

import os
import random
import re
import sys

import pytest

from plait import kd

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "compare"))

from test_expr_vs_koladata import inputs_for, mask, num, plain, scale_add, text  # noqa: E402
from test_functor_vs_koladata import traced_function  # noqa: E402

VALUES = {
    "INT32": lambda rng: rng.randint(-5, 5),
    "INT64": lambda rng: kd.int64(rng.randint(-2**40, 2**40)),
    "FLOAT32": lambda rng: rng.choice([0.5, -1.25, 3.0]),
    "FLOAT64": lambda rng: kd.float64(rng.random()),
    "STRING": lambda rng: rng.choice(["", "a", "héllo", "x" * 30]),
    "BYTES": lambda rng: rng.choice([b"", b"\x00\xff", b"abc"]),
    "BOOLEAN": lambda rng: rng.choice([True, False]),
    "MASK": lambda rng: kd.present,
}


def random_items(rng, n, schema):
    items = []
    for _ in range(n):
        if rng.random() < 0.2:
            items.append(None)
        elif schema == "OBJECT":
            items.append(VALUES[rng.choice(list(VALUES))](rng))
        else:
            items.append(VALUES[schema](rng))
    return items


def nest(rng, items, rank):
    for _ in range(rank - 1):
        grouped, i = [], 0
        while i < len(items):
            k = rng.randint(0, 3)
            grouped.append(items[i:i + k])
            i += k
        items = grouped
    return items


def random_slice(rng):
    schema = rng.choice(list(VALUES) + ["OBJECT"])
    rank = rng.randint(0, 3)
    if rank == 0:
        item = random_items(rng, 1, schema)[0]
        return kd.item(item) if not isinstance(item, kd.types.DataSlice) else item
    items = random_items(rng, rng.randint(0, 12), schema)
    if schema not in ("OBJECT", "MASK") and all(not isinstance(v, kd.types.DataSlice) for v in items):
        return kd.slice(nest(rng, items, rank), getattr(kd, schema) if items and schema != "INT32" else None)
    return kd.slice([v if not isinstance(v, kd.types.DataSlice) else v for v in items])


@pytest.mark.parametrize("seed", range(300))
def test_random_slices(seed):
    x = random_slice(random.Random(seed))
    y = kd.loads(kd.dumps(x))
    assert repr(y) == repr(x)
    assert repr(y.get_shape()) == repr(x.get_shape())


def random_entity(rng, depth):
    attrs = {}
    for name in rng.sample(["a", "b", "c", "d"], rng.randint(1, 3)):
        pick = rng.random()
        if depth < 3 and pick < 0.25:
            attrs[name] = random_entity(rng, depth + 1)
        elif pick < 0.4:
            attrs[name] = kd.list(random_items(rng, rng.randint(0, 4), "INT32"))
        elif pick < 0.55:
            attrs[name] = kd.dict({f"k{i}": i for i in range(rng.randint(0, 3))})
        else:
            attrs[name] = VALUES[rng.choice(["INT32", "STRING", "FLOAT32"])](rng)
    return kd.obj(**attrs) if rng.random() < 0.5 else kd.new(**attrs)


@pytest.mark.parametrize("seed", range(150))
def test_random_entity_graphs(seed):
    x = random_entity(random.Random(seed), 0)
    y = kd.loads(kd.dumps(x))
    assert kd.to_py(y, max_depth=-1, obj_as_dict=True) == kd.to_py(x, max_depth=-1, obj_as_dict=True)
    assert y.get_itemid() == x.get_itemid()


@pytest.mark.parametrize("seed", range(150))
def test_random_functors(seed):
    kd.optools.add_to_registry(unsafe_override=True)(scale_add(kd))
    rng = random.Random(20_000 + seed)
    tree = rng.choice([num, num, mask, text])(rng, 0)
    if tree[0] == "const":
        tree = ("op", "math", "add", ("input", "a"), tree)
    f = traced_function(kd, tree, seed)
    g = kd.loads(kd.dumps(f))
    inputs = inputs_for(kd, seed)
    try:
        expected = f(**inputs)
    except ValueError as error:
        with pytest.raises(ValueError, match=re.escape(str(error).split("\n")[0])):
            g(**inputs)
        return
    assert plain(g(**inputs)) == plain(expected)
