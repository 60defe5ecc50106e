"""plait against koladata on generated programs that change lists in place:
lists imploded from a jagged slice (ints, floats, text, mixed, missing
items) in a forked bag, taken as a slice that may give a list several times
(or a missing one), then one to three of `l[i] = v`, `l.append(v)`,
`l[a:b] = v` (one value, or new items per list), `del l[i]`, `del l[a:b]`,
`l.pop(i)`, with one index or an index per list. A list given several times
is changed once per occurrence, in order: no write may be lost. The lists
afterwards, and what each pop returned, must agree, or both must raise
the same error."""

import random

import pytest

from plait import kd
from koda_compare import assert_same_repr_outcome, repr_outcome

SEEDS = range(1000)

VALUES = {
    "int": [0, 1, -3, 7],
    "float": [0.5, 2.0],
    "str": ["a", "bc", ""],
    "mixed": [1, "q", 2.5],
}


def value(rng, kind):
    return None if rng.random() < 0.1 else rng.choice(VALUES[kind])


def make_spec(seed):
    rng = random.Random(seed)
    kind = rng.choice(list(VALUES))
    # Past 64 lists, appends are written as one new column, not list by list.
    n = rng.choice([1, 3, 5, 70])
    data = [[value(rng, kind) for _ in range(rng.randint(0, 5))] for _ in range(n)]
    if rng.random() < 0.5:
        taken = None
    else:
        taken = [rng.randrange(n) for _ in range(rng.choice([1, 4, 80]))]
        if rng.random() < 0.3:
            taken[rng.randrange(len(taken))] = None
    edits = []
    for _ in range(rng.randint(1, 3)):
        what = rng.choice(["set", "append", "append_rows", "setrange", "setrange_rows", "del", "delrange", "pop"])
        per_list = rng.random() < 0.4
        edits.append({
            "what": what,
            "index": rng.choice([0, 1, -1, -3, 4]),
            "indices": per_list,
            "range": (rng.choice([None, 0, 1, -1, -4, 6]), rng.choice([None, 0, 2, -1, 9])),
            "seed": rng.randrange(1 << 30),
            "value_kind": rng.choice([kind, kind, "int"]),
        })
    return {"kind": kind, "data": data, "taken": taken, "edits": edits}


def edit(k, x, e):
    """Applies one edit to lists `x`; returns what a pop gave (or None)."""
    rng = random.Random(e["seed"])
    size = x.get_size()
    one = lambda: value(rng, e["value_kind"])  # noqa: E731
    index = k.slice([rng.choice([0, 1, -1, 3, None]) for _ in range(size)]) if e["indices"] else e["index"]
    rows = lambda: k.slice([[one() for _ in range(rng.randint(0, 2))] for _ in range(size)])  # noqa: E731
    start, stop = e["range"]
    if e["what"] == "set":
        x[index] = k.slice([one() for _ in range(size)]) if e["indices"] else one()
    elif e["what"] == "append":
        x.append(one())
    elif e["what"] == "append_rows":
        x.append(rows())
    elif e["what"] == "setrange":
        x[start:stop] = one()
    elif e["what"] == "setrange_rows":
        x[start:stop] = rows()
    elif e["what"] == "del":
        del x[index]
    elif e["what"] == "delrange":
        del x[start:stop]
    else:
        return x.pop(index).to_py()
    return None


def run(k, spec):
    lists = k.implode(k.slice(spec["data"])).fork_bag()
    x = lists if spec["taken"] is None else lists.S[k.slice(spec["taken"])]
    popped = [edit(k, x, e) for e in spec["edits"]]
    return lists[:].to_py(), popped


@pytest.mark.parametrize("seed", SEEDS)
def test_list_edits_program(koda, seed):
    spec = make_spec(seed)
    ours = repr_outcome(kd, lambda k: run(k, spec))
    theirs = repr_outcome(koda, lambda k: run(k, spec))
    assert_same_repr_outcome(ours, theirs)
