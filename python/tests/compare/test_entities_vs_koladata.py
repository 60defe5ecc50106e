"""plait against koladata on generated programs over entities and objects:
kd.new / kd.obj with random attributes (ints, floats, strings, mixed,
missing values, 0-2 jagged dimensions, nested entities and objects), then
updates (with_attrs / with_attr, schema conflicts, overwrite_schema) and a
query (get_attr with and without default, maybe, has_attr, kd.dir,
get_attr_names). Results must agree in schema, shape and values, or both
calls must raise.

Entity ids and bag ids differ between the two systems, so results are never
compared by id or repr: entities and objects are compared through their
attribute names and (recursively) their attribute values; primitives by
`to_py()`. Error texts are not compared (plait prefixes the operator name).

Left out (documented in docs/differences.md): `to_py()` of entities and
objects (not implemented in plait yet), the text of errors, and `kd.dir` of
an OBJECT DataItem holding a primitive."""

import random

import pytest

from plait import kd
from koda_compare import outcome, same_outcome

SEEDS = range(600)

NAMES = ["a", "b", "x"]
PRIMITIVE_SCHEMAS = {"INT32", "INT64", "FLOAT32", "FLOAT64", "BOOLEAN", "MASK", "BYTES", "STRING", "NONE",
                     "ITEMID", "SCHEMA", "EXPR"}


# --- program specs: plain Python data, so that both systems run the same program

def scalar(rng, kind):
    if rng.random() < 0.25:
        return None
    return {
        "int": lambda: rng.choice([0, 1, -2, 7, 100]),
        "int64": lambda: rng.choice([0, 3, -5]),
        "float": lambda: rng.choice([0.5, -1.25, 2.0]),
        "str": lambda: rng.choice(["", "a", "xyz"]),
        "bytes": lambda: rng.choice([b"", b"q"]),
        "bool": lambda: rng.choice([True, False]),
        "mixed": lambda: rng.choice([1, "a", 2.5]),
        "object_int": lambda: rng.choice([1, 2]),
        "none": lambda: None,
    }[kind]()


def nested(rng, kind, sizes, rank):
    """Values of `rank` dimensions following the row sizes of the program."""
    if rank == 0:
        return scalar(rng, kind)
    if rank == 1:
        return [scalar(rng, kind) for _ in sizes]
    return [[scalar(rng, kind) for _ in range(n)] for n in sizes]


def value_spec(rng, sizes, rank, depth, exact=False):
    """An attribute value of at most `rank` dimensions (a prefix of the
    program's shape, so that it broadcasts); of `rank` with `exact`."""
    r = rank if exact else rng.randint(0, rank)
    pick = rng.random()
    if depth < 2 and pick < 0.2:
        return (rng.choice(["new", "obj"]), attrs_spec(rng, sizes, r, depth + 1, exact))
    if r == 0 and pick < 0.35:
        return ("raw", rng.choice([1, 2.5, "s", None, True]))
    kind = rng.choice(["int", "int", "float", "str", "mixed", "none", "int64", "bytes", "bool", "object_int"])
    return ("slice", kind, nested(rng, kind, sizes, r))


def attrs_spec(rng, sizes, rank, depth, exact=False, names=NAMES):
    """Attributes; with `exact`, the first one has `rank` dimensions (so the
    items made from them do)."""
    chosen = rng.sample(names, rng.randint(1 if exact or not depth else 0, min(3, len(names))))
    return {name: value_spec(rng, sizes, rank, depth, exact and k == 0) for k, name in enumerate(chosen)}


def make_spec(seed):
    rng = random.Random(seed)
    rank = rng.choice([0, 1, 1, 2, 2])
    sizes = [rng.randint(0, 3) for _ in range(rng.randint(0 if rank == 2 else 1, 4))]
    maker = rng.choice(["new", "new", "obj", "obj", "named"])
    spec = {"rank": rank, "sizes": sizes, "maker": maker, "attrs": attrs_spec(rng, sizes, rank, 0, exact=True)}
    # Missing items (applied when the items have the program's full rank).
    spec["mask"] = ([rng.random() < 0.7 for _ in range(len(sizes) if rank == 1 else sum(sizes))]
                    if rng.random() < 0.3 else None)
    steps = []
    for _ in range(rng.choice([0, 1, 1, 2])):
        # Existing names (schema conflicts, overwrite_schema) or new ones.
        overwrite = rng.random() < 0.3
        names = NAMES if rng.random() < 0.5 else ["y", "z"]
        if rng.random() < 0.7:
            steps.append(("with_attrs", attrs_spec(rng, sizes, rank, 1, names=names), overwrite))
        else:
            steps.append(("with_attr", rng.choice(names), value_spec(rng, sizes, rank, 1), overwrite))
    spec["steps"] = steps
    name = rng.choice(NAMES + ["y", "y"])
    query = rng.choice(["get", "get", "getattr", "default", "default", "maybe", "has", "dir", "names", "chain",
                        "sub_has", "sub_maybe", "sub_dir", "sub_default"])
    spec["query"] = (query, name, value_spec(rng, sizes, rank, 1) if query == "default" else rng.choice(NAMES),
                     rng.random() < 0.5)
    return spec


# --- running a spec on one system

def build(k, spec):
    tag = spec[0]
    if tag == "raw":
        return spec[1]
    if tag == "slice":
        _, kind, value = spec
        if kind == "int64":
            return k.int64(k.slice(value))
        if kind == "object_int":
            return k.slice(value, k.OBJECT)
        return k.slice(value)
    attrs = {name: build(k, v) for name, v in spec[1].items()}
    return k.new(**attrs) if tag == "new" else k.obj(**attrs)


def run(k, spec):
    attrs = {name: build(k, v) for name, v in spec["attrs"].items()}
    if spec["maker"] == "named":
        ds = k.new(**attrs, schema="Point")
    else:
        ds = getattr(k, spec["maker"])(**attrs)
    if spec["mask"] is not None and ds.get_ndim() == spec["rank"] and spec["rank"] > 0:
        flags = spec["mask"]
        if spec["rank"] == 2:
            rows, pos = [], 0
            for n in spec["sizes"]:
                rows.append([1 if f else None for f in flags[pos:pos + n]])
                pos += n
            ds = ds & k.has(k.slice(rows))
        else:
            ds = ds & k.has(k.slice([1 if f else None for f in flags]))
    for step in spec["steps"]:
        if step[0] == "with_attrs":
            ds = ds.with_attrs(**{name: build(k, v) for name, v in step[1].items()}, overwrite_schema=step[2])
        else:
            ds = ds.with_attr(step[1], build(k, step[2]), overwrite_schema=step[3])
    query, name, extra, flag = spec["query"]
    if query == "get":
        return ds.get_attr(name)
    if query == "getattr":
        return getattr(ds, name)
    if query == "default":
        return ds.get_attr(name, default=build(k, extra))
    if query == "maybe":
        return k.maybe(ds, name)
    if query == "has":
        return k.has_attr(ds, name)
    if query == "dir":
        return k.dir(ds)
    if query == "names":
        return ds.get_attr_names(intersection=flag)
    if query == "chain":
        return ds.get_attr(name).get_attr(extra)
    # Queries on an attribute's values (primitives or NONE with a bag,
    # nested entities or objects).
    sub = k.maybe(ds, name)
    if query == "sub_has":
        return k.has_attr(sub, extra)
    if query == "sub_maybe":
        return k.maybe(sub, extra)
    if query == "sub_dir":
        # koladata 0.0.4 raises for an OBJECT DataItem holding a primitive
        # but skips primitives in OBJECT slices; plait skips them in both
        # (docs/differences.md).
        if sub.get_ndim() == 0 and str(sub.get_schema()) == "OBJECT" and str(sub.get_obj_schema()) in PRIMITIVE_SCHEMAS:
            return ["<not compared>"]
        return k.dir(sub)
    return sub.get_attr(extra, default=1 if flag else "s")


# --- comparing results without ids

def presence(k, x):
    def walk(v):
        if isinstance(v, list):
            return [walk(i) for i in v]
        return v is not None
    return walk(k.has(x).to_py())


def item_schemas(k, x):
    flat = k.flatten(x.get_obj_schema())
    return [str(flat.S[i]) for i in range(flat.get_size().to_py())]


def assert_same(ours, theirs, depth=0):
    if isinstance(theirs, list):  # kd.dir / get_attr_names
        assert ours == theirs
        return
    schema = str(theirs.get_schema())
    if schema in PRIMITIVE_SCHEMAS:
        if schema == "MASK":
            assert presence(kd, ours) == presence(koda_module(), theirs)
        else:
            assert ours.to_py() == theirs.to_py(), (ours, theirs)
        return
    assert presence(kd, ours) == presence(koda_module(), theirs)
    if schema == "OBJECT":
        ours_schemas, their_schemas = item_schemas(kd, ours), item_schemas(koda_module(), theirs)
        assert ours_schemas == their_schemas
        if all(s in PRIMITIVE_SCHEMAS or s == "None" for s in their_schemas):
            assert ours.to_py() == theirs.to_py()
            return
        names_of = lambda x: x.get_attr_names(intersection=False)  # noqa: E731
        read = lambda x, name: x.maybe(name)  # noqa: E731
    else:
        names_of = lambda x: x.get_attr_names(intersection=True)  # noqa: E731
        read = lambda x, name: x.get_attr(name)  # noqa: E731
    kind, names = outcome(lambda: names_of(ours))
    koda_kind, their_names = outcome(lambda: names_of(theirs))
    assert kind == koda_kind
    if kind == "error" or depth >= 3:
        return
    assert names == their_names
    for name in their_names:
        compare(lambda: read(ours, name), lambda: read(theirs, name), depth + 1)


def compare(ours_fn, theirs_fn, depth=0):
    kind, ours = outcome(ours_fn)
    koda_kind, theirs = outcome(theirs_fn)
    if isinstance(ours, list) or isinstance(theirs, list):
        assert (kind, ours) == (koda_kind, theirs)
        return
    if not same_outcome(kind, ours, koda_kind, theirs):
        return
    assert_same(ours, theirs, depth)


_KODA = []


def koda_module():
    return _KODA[0]


@pytest.mark.parametrize("seed", SEEDS)
def test_entities_program(koda, seed):
    _KODA[:] = [koda]
    spec = make_spec(seed)
    compare(lambda: run(kd, spec), lambda: run(koda, spec))
