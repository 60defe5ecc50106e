"""plait against koladata on generated programs over dicts: kd.dict from a
Python dict or from keys and values (0-2 jagged dimensions of dicts, missing
and duplicate keys, missing values, mixed key types, schema arguments),
kd.dict_shaped / dict_like, then an update (with_dict_update, or `d[k] = v`
on a forked bag) and a query (lookup, get_keys, get_values, dict_size,
has_dict, select_keys, to_py). Results must agree in schema, shape and
values, or both calls must raise.

Koda lists keys in hash order and plait in insertion order
(docs/differences.md), so keys and values are compared per dict as sorted
(key, value) entries; lookups, sizes and to_py compare directly."""

import random

import pytest

from plait import kd
from koda_compare import outcome, same_outcome

SEEDS = range(500)

KEYS = {
    "int": [0, 1, 2, 3, -1],
    "str": ["a", "b", "c", ""],
    "bytes": [b"a", b"b"],
    "bool": [True, False],
    "mixed": [1, "a", 2, "b"],
    "float": [0.5, 1.5],
}
VALUES = {
    "int": [0, 1, 7, -3],
    "float": [0.5, 2.0],
    "str": ["x", "yz"],
    "mixed": [1, "q", 2.5],
    "none": [None],
}


def scalar(rng, pool, missing):
    return None if rng.random() < missing else rng.choice(pool)


def nested(rng, pool, sizes, rank, missing):
    if rank == 0:
        return scalar(rng, pool, missing)
    if rank == 1:
        return [scalar(rng, pool, missing) for _ in range(sizes[0])]
    return [[scalar(rng, pool, missing) for _ in range(n)] for n in sizes[1:]]


def make_spec(seed):
    rng = random.Random(seed)
    key_kind = rng.choice(["int", "int", "str", "str", "bytes", "bool", "mixed", "float"])
    value_kind = rng.choice(list(VALUES))
    dict_rank = rng.choice([0, 0, 1, 1, 2])
    outer = rng.randint(1, 3)
    sizes = [outer] + [rng.randint(0, 3) for _ in range(outer)] if dict_rank == 2 else [rng.randint(0, 4)]
    if dict_rank == 0:
        sizes = [rng.randint(1, 4)]
    key_rank = dict_rank + 1
    spec = {
        "key_kind": key_kind,
        "creation": rng.choice(["pydict", "slices", "slices", "shaped", "like"]) if dict_rank == 0 else rng.choice(["slices", "slices", "like"]),
        "dict_rank": dict_rank,
        "sizes": sizes,
        "keys": keys_of(rng, key_kind, sizes, dict_rank),
        "values": None,
        "schema_arg": rng.choice([None, None, None, ("key_schema", "OBJECT"), ("value_schema", "OBJECT"),
                                  ("value_schema", "INT64"), ("value_schema", "FLOAT64"), ("value_schema", "STRING")]),
        "update": rng.choice([None, "with_update", "with_update_dict", "setitem"]),
        "update_key": scalar(rng, KEYS[rng.choice(["int", "str", key_kind, key_kind, key_kind])], 0.1),
        "update_value": scalar(rng, VALUES[value_kind] + [None], 0.0),
        "query": rng.choice(["lookup", "lookup", "entries", "size", "has_dict", "select_keys", "to_py", "repr_free"]),
        "lookup": None,
    }
    value_rank = rng.choice([key_rank, key_rank, 0])
    spec["values"] = nested(rng, VALUES[value_kind], sizes, value_rank, 0.2)
    if spec["creation"] == "pydict":
        spec["values"] = [scalar(rng, VALUES[value_kind], 0.2) for _ in spec["keys"]]
    spec["lookup"] = lookup_of(rng, key_kind, sizes, dict_rank)
    return spec


def keys_of(rng, kind, sizes, dict_rank):
    if dict_rank == 0:
        return [scalar(rng, KEYS[kind], 0.1) for _ in range(sizes[0])]
    return nested(rng, KEYS[kind], sizes, dict_rank + 1, 0.1)


def lookup_of(rng, kind, sizes, dict_rank):
    kind = kind if rng.random() < 0.85 else rng.choice(["int", "str"])
    if rng.random() < 0.4:
        return ("item", scalar(rng, KEYS[kind], 0.1))
    rank = rng.randint(dict_rank, dict_rank + 1) if dict_rank < 2 else 2
    if rank == 0:
        return ("item", scalar(rng, KEYS[kind], 0.1))
    if dict_rank == 0:
        return ("slice", [scalar(rng, KEYS[kind], 0.1) for _ in range(rng.randint(1, 4))])
    if rank == dict_rank:
        return ("slice", nested(rng, KEYS[kind], sizes, dict_rank, 0.1))
    return ("slice", [[scalar(rng, KEYS[kind], 0.1) for _ in range(rng.randint(0, 2))] for _ in range(sizes[0])])


def shape_of(k, spec):
    if spec["dict_rank"] == 0:
        return k.shapes.new()
    if spec["dict_rank"] == 1:
        return k.shapes.new(len(spec["keys"]))
    return k.shapes.new(len(spec["keys"]), [len(row) for row in spec["keys"]])


def create(k, spec):
    options = {}
    if spec["schema_arg"]:
        name, schema = spec["schema_arg"]
        options[name] = getattr(k, schema)
    if spec["creation"] == "pydict":
        entries = {}
        for key, value in zip(spec["keys"], spec["values"]):
            if key is not None:
                entries[key] = value
        return k.dict(entries, **options)
    keys, values = k.slice(spec["keys"]), k.slice(spec["values"])
    if spec["creation"] == "slices":
        return k.dict(keys, values, **options)
    if spec["creation"] == "shaped":
        return k.dict_shaped(shape_of(k, spec), keys, values, **options)
    if spec["dict_rank"] == 0:
        return k.dict_like(k.item(1), keys, values, **options)
    count = len(spec["keys"]) if spec["dict_rank"] == 1 else sum(len(row) for row in spec["keys"])
    shape_from = k.reshape(k.slice([1 if i % 2 == 0 else None for i in range(count)]), shape_of(k, spec))
    return k.dict_like(shape_from, keys, values, **options)


def update(k, spec, d):
    key, value = spec["update_key"], spec["update_value"]
    if spec["update"] == "with_update":
        return k.with_dict_update(d, key, value)
    if spec["update"] == "with_update_dict":
        return k.with_dict_update(d, k.dict({key: value}) if key is not None else k.dict())
    if spec["update"] == "setitem":
        d = d.fork_bag()
        d[key] = value
        return d
    return d


def entries(k, d):
    """Per dict, the sorted (key, value) pairs (dicts in nested lists)."""
    keys, values = k.get_keys(d).to_py(), k.get_values(d).to_py()

    def walk(ks, vs):
        if d_rank(ks) == 1:
            return sorted(zip(ks, vs), key=repr)
        return [walk(a, b) for a, b in zip(ks, vs)]
    return walk(keys, values)


def d_rank(x):
    return 1 + d_rank(x[0]) if isinstance(x, list) and x and isinstance(x[0], list) else 1


def run(k, spec):
    d = update(k, spec, create(k, spec))
    query = spec["query"]
    if query == "lookup":
        kind, key = spec["lookup"]
        return d[k.item(key) if kind == "item" else k.slice(key)]
    if query == "size":
        return k.dict_size(d)
    if query == "has_dict":
        return k.has_dict(d)
    if query == "select_keys":
        return k.select_keys(d, lambda keys: k.has(keys))
    if query == "to_py":
        return ("py", d.to_py())
    if query == "entries":
        return ("py", entries(k, d), str(d.get_schema()), repr(d.get_shape()))
    return ("py", str(d.get_schema()), repr(d.get_shape()))


def compare(ours_fn, theirs_fn, unordered):
    """Same outcome; for slices, the same values (each last-dimension row
    sorted when `unordered`: rows listing dict keys)."""
    kind, ours = outcome(ours_fn)
    koda_kind, theirs = outcome(theirs_fn)
    if isinstance(ours, tuple) or isinstance(theirs, tuple):
        assert (kind, ours) == (koda_kind, theirs)
        return
    if not same_outcome(kind, ours, koda_kind, theirs):
        return
    if str(theirs.get_schema()) == "MASK":
        ours_py, theirs_py = ours.to_py(), theirs.to_py()
        assert str(ours_py) == str(theirs_py)
        return
    ours_py, theirs_py = ours.to_py(), theirs.to_py()
    if unordered:
        ours_py, theirs_py = sort_rows(ours_py), sort_rows(theirs_py)
    assert ours_py == theirs_py, (ours, theirs)


def sort_rows(rows):
    if isinstance(rows, list) and rows and isinstance(rows[0], list):
        return [sort_rows(r) for r in rows]
    return sorted(rows, key=repr) if isinstance(rows, list) else rows


@pytest.mark.parametrize("seed", SEEDS)
def test_dicts_program(koda, seed):
    spec = make_spec(seed)
    compare(lambda: run(kd, spec), lambda: run(koda, spec), unordered=spec["query"] == "select_keys")
