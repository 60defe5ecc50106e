"""plait against koladata on generated programs over lists: kd.implode of
jagged slices (1-3 dimensions, missing items, mixed types), kd.list of nested
Python lists, list_shaped / list_like, then an update (appended_list,
with_list_append_update, concat_lists; on a forked bag `l[i] = v`, append, or
`l[a:b] = v` with v one value or the new items of one list)
and a query (explode with ndim, `l[i]` with negative and missing indices,
`l[a:b]`, list_size, select_items, has_list / is_list, to_py). Results must
agree in schema, shape and values, or both calls must raise."""

import random

import pytest

from plait import kd
from koda_compare import outcome, same_outcome

SEEDS = range(400)

VALUES = {
    "int": [0, 1, -3, 7],
    "float": [0.5, 2.0],
    "str": ["a", "bc"],
    "mixed": [1, "q", 2.5],
}


def rows(rng, kind, depth):
    """Nested Python lists of `depth` levels of `kind` values (10% missing)."""
    if depth == 0:
        return None if rng.random() < 0.1 else rng.choice(VALUES[kind])
    return [rows(rng, kind, depth - 1) for _ in range(rng.randint(0, 3))]


def make_spec(seed):
    rng = random.Random(seed)
    kind = rng.choice(list(VALUES))
    depth = rng.randint(1, 3)
    return {
        "kind": kind,
        "depth": depth,
        "data": [rows(rng, kind, depth - 1) for _ in range(rng.randint(1, 3))] if depth > 1 else rows(rng, kind, 1),
        "creation": rng.choice(["implode", "implode", "implode_all", "list", "shaped", "like"]),
        "update": rng.choice([None, None, "appended", "with_append", "concat", "setitem", "append", "setrange",
                              "setrange_items"]),
        "range": (rng.choice([None, 0, 1, -1, 3, -5]), rng.choice([None, 0, 2, -1, 6])),
        "extra": rng.choice(VALUES[rng.choice([kind, kind, "int"])]),
        "index": rng.choice([0, 1, -1, -4, 5, None]),
        "query": rng.choice(["explode", "explode_all", "index", "index_slice", "range", "size", "select", "has",
                             "is", "to_py"]),
    }


def create(k, spec):
    if spec["creation"] == "list":
        return k.list(spec["data"])
    x = k.slice(spec["data"])
    if spec["creation"] == "implode_all":
        return k.implode(x, ndim=-1)
    if spec["creation"] == "shaped":
        return k.list_shaped(_prefix_shape(k, x), x)
    if spec["creation"] == "like":
        return k.list_like(k.implode(x), x)
    return k.implode(x)


def _prefix_shape(k, x):
    """The shape of `x` without its last dimension."""
    return k.implode(x).get_shape()


def update(k, spec, lists):
    extra = spec["extra"]
    if spec["update"] == "appended":
        return k.appended_list(lists, extra)
    if spec["update"] == "with_append":
        return k.with_list_append_update(lists, extra)
    if spec["update"] == "concat":
        return k.concat_lists(lists, lists)
    if spec["update"] == "setitem":
        forked = lists.fork_bag()
        forked[spec["index"] if spec["index"] is not None else 0] = extra
        return forked
    if spec["update"] in ("setrange", "setrange_items"):
        forked = lists.fork_bag()
        start, stop = spec["range"]
        if spec["update"] == "setrange_items" and lists.get_ndim() == 0:
            forked[start:stop] = k.slice([extra, extra])
        else:
            forked[start:stop] = extra
        return forked
    if spec["update"] == "append":
        forked = lists.fork_bag()
        forked.append(extra)
        return forked
    return lists


def run(k, spec):
    lists = update(k, spec, create(k, spec))
    query = spec["query"]
    if query == "explode":
        return k.explode(lists)
    if query == "explode_all":
        return k.explode(lists, ndim=-1)
    if query == "index":
        return lists[spec["index"] if spec["index"] is not None else 0]
    if query == "index_slice":
        return lists[k.item(spec["index"], k.INT64) if spec["index"] is not None else k.item(None, k.INT32)]
    if query == "range":
        return lists[1:]
    if query == "size":
        return k.list_size(lists)
    if query == "select":
        return k.select_items(lists, k.has(k.explode(lists)))
    if query == "has":
        return k.has_list(lists)
    if query == "is":
        return k.is_list(lists)
    return ("py", lists.to_py(max_depth=-1))


@pytest.mark.parametrize("seed", SEEDS)
def test_lists_program(koda, seed):
    spec = make_spec(seed)
    kind, ours = outcome(lambda: run(kd, spec))
    koda_kind, theirs = outcome(lambda: run(koda, spec))
    if isinstance(ours, tuple) or isinstance(theirs, tuple):
        assert (kind, ours) == (koda_kind, theirs), spec
        return
    if not same_outcome(kind, ours, koda_kind, theirs):
        return
    assert str(ours.to_py(max_depth=-1)) == str(theirs.to_py(max_depth=-1)), (spec, ours, theirs)
