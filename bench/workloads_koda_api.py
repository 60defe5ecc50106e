"""Benchmark workloads for what issue 21 added to the Koda API: ranges with
DataSlice bounds (`ds.S[:kd.index(ds) + 1]`, `ds.S[starts:]`), FLOAT32
`cum_sum` accumulated in FLOAT64, and `kd.from_py` inferring schemas
(`schema=None`) and converting dataclasses; schema metadata, a tree-like
copy of shared data (`flatten_cyclic_references`), an attribute of objects
with uuids (stored by id) and `kd.get_repr`.

`workloads(scale, pkd, kkd)` yields `(title, {impl: fn}, prepare)` in the
style of bench/run.py; `kkd` (koladata) may be None. Target: >= 1x koladata.
"""

import dataclasses

import numpy as np

from bench_common import on_both


@dataclasses.dataclass
class Point:
    x: int
    y: float
    tag: str


def workloads(scale, pkd, kkd):
    n_rows = max(int(20_000 * scale), 1)
    sizes = np.random.default_rng(0).integers(0, 21, size=n_rows).tolist()
    starts = np.random.default_rng(1).integers(0, 5, size=n_rows).tolist()
    floats = np.random.default_rng(2).uniform(-100, 100, size=max(int(1_000_000 * scale), 1)).round(2).tolist()
    n_py = max(int(50_000 * scale), 1)
    records = [{"a": i, "b": i + 1, "c": -i} for i in range(n_py)]
    points = [Point(i, i / 2, "p") for i in range(n_py)]
    state = {}

    n_schemas = max(int(10_000 * scale), 1)

    def prepare(kd, name):
        schemas = kd.slice([kd.named_schema(f"S{i}", a=kd.INT32) for i in range(n_schemas)])
        people = kd.new(name=kd.slice([f"p{i}" for i in range(n_py)]), age=kd.slice(list(range(n_py))))
        # Each entity refers to a shared pair twice: the tree-like copy has
        # five items per entity.
        shared = kd.new(a=people, b=people)
        flat = kd.slice(list(range(sum(sizes))))
        jagged = kd.reshape(flat, kd.shapes.new(len(sizes), kd.slice(sizes)))
        state[name] = {
            "jagged": jagged,
            "index": kd.index(jagged) + 1,
            "starts": kd.slice(starts),
            "floats": kd.float32(kd.slice(floats)),
            "schemas": schemas,
            "with_metadata": kd.with_metadata(schemas, unit="cm", version=kd.slice(list(range(n_schemas)))),
            "shared": kd.new(left=shared, right=shared),
            "people": people,
            # Objects with uuids: their attributes are stored by id, not
            # in columns.
            "uuobjs": kd.uuobj(x=kd.slice(list(range(n_schemas)))).with_attrs(version=kd.slice(list(range(n_schemas)))),
        }

    both = on_both(state, pkd, kkd)
    yield f"ds.S[:kd.index(ds) + 1] on {n_rows:,} rows", both(lambda kd, s: s["jagged"].S[:s["index"]]), prepare
    yield f"ds.S[starts:] on {n_rows:,} rows", both(lambda kd, s: s["jagged"].S[s["starts"]:]), None
    yield f"cum_sum of {len(floats):,} FLOAT32", both(lambda kd, s: kd.math.cum_sum(s["floats"])), None
    yield f"from_py(schema=None) of {n_py:,} dicts", both(lambda kd, s: kd.from_py(records, schema=None)), None
    yield f"from_py(schema=None) of {n_py:,} dataclasses", both(lambda kd, s: kd.from_py(points, schema=None)), None
    yield f"with_metadata of {n_schemas:,} schemas", both(lambda kd, s: kd.with_metadata(s["schemas"], unit="cm")), None
    yield f"get_metadata of {n_schemas:,} schemas", both(lambda kd, s: kd.get_metadata(s["with_metadata"]).version), None
    yield (f"flatten_cyclic_references of {n_py:,} entities (shared twice)",
           both(lambda kd, s: kd.core.flatten_cyclic_references(s["shared"], max_recursion_depth=0)), None)
    yield f"attribute of {n_schemas:,} uuobj objects", both(lambda kd, s: s["uuobjs"].version), None
    yield f"get_repr of {n_py:,} entities", both(lambda kd, s: kd.get_repr(s["people"], item_limit=100)), None
