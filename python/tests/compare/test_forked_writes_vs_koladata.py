"""plait against koladata on chains of writes into forked bags: dicts and
lists made together (one block of columns per allocation in plait), then
several rounds of forking (from the latest version or an older one) and
writing in place, into every dict or list, into a part of them, into a few
or into one, then reads. Every version made along the way is read at the
end and must read as in Koda: a write is never lost, and no version sees
the writes made to another (a fork neither its parent's later writes nor
its parent a fork's).

In plait, writes into many dicts of a block go to rows above the block's
columns (shared with the bag forked from), folded in once they grow or at
the first read of all of them as columns: the rounds are long enough, and
the dicts full enough, to take each path (rows above, several rounds of
them, folding, a read in between, dicts then changed one by one).

Koda lists dict keys in hash order and plait in insertion order
(docs/differences.md): a dict is compared as its sorted (key, value)
entries."""

import random

import pytest

from plait import kd
from koda_compare import _PREFIX

SEEDS = range(60)

# Keys the dicts are made with, and keys of the same type they are not.
KEY_POOLS = {
    "str": ([f"k{j}" for j in range(12)], ["new", "other", "absent"]),
    "int": (list(range(12)), [100, 101, 102]),
    "mixed": ([0, 1, 2, "a", "b", "c", 3], ["new", 100, "absent"]),
}
VALUES = [0, 1, 5, 9, -2, None]


def make_dicts(kd, spec):
    keys = kd.slice(spec["keys"])
    values = kd.slice(spec["values"])
    return kd.dict(keys, values)


def make_lists(kd, spec):
    return kd.implode(kd.slice(spec["lists"]))


def dict_spec(rng):
    n = rng.randint(8, 60)
    pool, extra = KEY_POOLS[rng.choice(list(KEY_POOLS))]
    # Dicts full enough that a write into each stays below half their
    # entries (rows above the columns), with some empty.
    keys = [rng.sample(pool, min(len(pool), rng.choice([0, 3, 5, 6, 8, 10]))) for _ in range(n)]
    values = [[rng.choice(VALUES[:-1]) for _ in row] for row in keys]
    return {"n": n, "pool": pool, "extra": extra, "keys": keys, "values": values}


def list_spec(rng):
    n = rng.randint(8, 60)
    return {"n": n, "lists": [[rng.randint(0, 9) for _ in range(rng.randint(0, 5))] for _ in range(n)]}


def dict_rounds(rng, spec):
    """Steps: ("fork", source version), ("write", rows, keys, values) into the
    latest version (rows None: every dict, in order), ("one", row, key,
    value), ("read",) of every dict as columns."""
    steps = []
    for _ in range(rng.randint(2, 6)):
        steps.append(("fork", rng.choice(["latest", "latest", "first", "random"]), rng.random()))
        for _ in range(rng.randint(1, 4)):
            kind = rng.choice(["all", "all", "many", "few", "one", "read", "repeat"])
            n = spec["n"]
            if kind == "all":
                rows = None
            elif kind == "many":
                rows = sorted(rng.sample(range(n), max(n // 3, 1)))
            elif kind == "few":
                rows = rng.sample(range(n), min(3, n))
            elif kind == "repeat":
                # Some dicts written twice in one write (the last wins).
                rows = [rng.randrange(n) for _ in range(n)]
            elif kind == "read":
                steps.append(("read",))
                continue
            else:
                steps.append(("one", rng.randrange(n), rng.choice(spec["pool"]), rng.choice(VALUES)))
                continue
            count = n if rows is None else len(rows)
            keys = [rng.choice(spec["pool"] + spec["extra"][:2]) if rng.random() < 0.9 else None for _ in range(count)]
            values = [rng.choice(VALUES) for _ in range(count)]
            steps.append(("write", rows, keys, values))
    return steps


def list_rounds(rng, spec):
    steps = []
    for _ in range(rng.randint(2, 6)):
        steps.append(("fork", rng.choice(["latest", "latest", "first", "random"]), rng.random()))
        for _ in range(rng.randint(1, 4)):
            kind = rng.choice(["all", "all", "many", "few", "append", "read"])
            n = spec["n"]
            if kind == "read":
                steps.append(("read",))
                continue
            rows = {"all": None, "many": sorted(rng.sample(range(n), max(n // 3, 1))),
                    "few": rng.sample(range(n), min(3, n)), "append": rng.sample(range(n), min(2, n))}[kind]
            count = n if rows is None else len(rows)
            index = [rng.choice([0, 1, -1, 2, 5]) for _ in range(count)]
            values = [rng.randint(10, 99) for _ in range(count)]
            steps.append(("append" if kind == "append" else "write", rows, index, values))
    return steps


def pick_version(versions, which, r):
    if which == "first":
        return versions[0]
    if which == "random":
        return versions[int(r * len(versions)) % len(versions)]
    return versions[-1]


def run_dicts(kd, spec, steps):
    versions = [make_dicts(kd, spec)]
    reads = []
    for step in steps:
        if step[0] == "fork":
            versions.append(pick_version(versions, step[1], step[2]).fork_bag())
        elif step[0] == "write":
            _, rows, keys, values = step
            d = versions[-1]
            target = d if rows is None else d.take(kd.slice(rows))
            target[kd.slice(keys)] = kd.slice(values)
        elif step[0] == "one":
            _, row, key, value = step
            versions[-1].S[row][key] = value
        else:
            reads.append(read_dicts(kd, versions[-1], spec))
    return [read_dicts(kd, v, spec) for v in versions], reads


def run_lists(kd, spec, steps):
    versions = [make_lists(kd, spec)]
    reads = []
    for step in steps:
        if step[0] == "fork":
            versions.append(pick_version(versions, step[1], step[2]).fork_bag())
        elif step[0] in ("write", "append"):
            kind, rows, index, values = step
            lists = versions[-1]
            target = lists if rows is None else lists.take(kd.slice(rows))
            if kind == "append":
                target.append(kd.slice(values))
            else:
                target[kd.slice(index)] = kd.slice(values)
        else:
            reads.append(versions[-1][:].to_py())
    return [versions_read_lists(v) for v in versions], reads


def versions_read_lists(lists):
    return lists[:].to_py()


def read_dicts(kd, d, spec):
    """Every dict's sorted entries, its size, and lookups of every key of
    the pool (and two absent ones) in every dict."""
    keys = d.get_keys().to_py()
    values = d.get_values().to_py()
    entries = [sorted(zip(k, v), key=repr) for k, v in zip(keys, values)]
    sizes = kd.dict_size(d).to_py()
    probes = spec["pool"] + spec["extra"]
    looked_up = [d[kd.item(key)].to_py() for key in probes]
    return entries, sizes, looked_up


@pytest.mark.parametrize("seed", SEEDS)
def test_dicts_written_through_forks(seed):
    from koladata import kd as kkd

    rng = random.Random(seed)
    spec = dict_spec(rng)
    steps = dict_rounds(rng, spec)
    assert run_dicts(kd, spec, steps) == run_dicts(kkd, spec, steps), steps


@pytest.mark.parametrize("seed", SEEDS)
def test_lists_written_through_forks(seed):
    from koladata import kd as kkd

    rng = random.Random(seed)
    spec = list_spec(rng)
    steps = list_rounds(rng, spec)
    assert run_lists(kd, spec, steps) == run_lists(kkd, spec, steps), steps


def small_bags(kd, rng_seed):
    """Bags of a few items each, as built one at a time: new entities, an
    update of some of a shared set, uu entities (the same ids in several
    bags, with other values), objects, and now and then a schema of the
    shared entities with another type for an attribute (a schema
    conflict)."""
    rng = random.Random(rng_seed)
    shared = kd.new(a=kd.slice([1, 2, 3, 4]), b=kd.slice(["x", "y", "z", "w"]))
    bags, reads = [shared.get_bag()], [shared]
    for i in range(rng.randint(20, 60)):
        kind = rng.choice(["new", "update", "uu", "obj", "conflict"] if rng.random() < 0.02 else ["new", "update", "uu", "obj"])
        if kind == "new":
            item = kd.new(a=kd.slice([i, i + 1]), b=kd.slice(["x", "y"]))
        elif kind == "update":
            item = shared.S[rng.randrange(4)].with_attrs(a=rng.randint(0, 9))
        elif kind == "uu":
            item = kd.uu(seed="s", k=rng.randint(0, 3)).with_attrs(v=rng.randint(0, 9))
        elif kind == "obj":
            item = kd.obj(a=i, c="q")
        else:
            item = shared.with_attrs(a=kd.str(shared.a), overwrite_schema=True)
        bags.append(item.get_bag())
        reads.append(item)
    return bags, reads


def merged_reads(kd, seed, **options):
    bags, items = small_bags(kd, seed)
    bag = kd.mutable_bag()
    for b in bags:
        try:
            bag.merge_inplace(b, **options)
        except ValueError as error:
            return ("error", _PREFIX.sub("", str(error)).split("\n")[0])
    uu = kd.uu(seed="s", k=kd.slice([0, 1, 2, 3]))
    out = [uu.with_bag(bag).maybe("v").to_py()]
    for item in items:
        out.append(item.with_bag(bag).to_py(obj_as_dict=True))
    return ("ok", out)


@pytest.mark.parametrize("seed", range(30))
@pytest.mark.parametrize("overwrite", [True, False])
def test_merging_many_small_bags(seed, overwrite):
    from koladata import kd as kkd

    assert merged_reads(kd, seed, overwrite=overwrite) == merged_reads(kkd, seed, overwrite=overwrite)
