"""Benchmark workloads of kd.json: parsing 100k small JSON documents and
serialising them back, against Python's json module (and polars' JSON
decoding when polars is installed)."""

import json

from bench_common import on_both

try:
    import polars as pl
except ImportError:
    pl = None


def workloads(scale, pkd, kkd):
    n = int(100_000 * scale)
    docs = [json.dumps({"id": i, "name": f"user {i}", "score": i * 0.5, "tags": ["a", "b"][: i % 3], "ok": i % 2 == 0}) for i in range(n)]
    numbers = [str(i * 3) for i in range(n * 10)]
    state = {}

    def prepare(kd, name):
        texts = kd.slice(docs)
        state[name] = (texts, kd.from_json(texts), kd.slice(numbers))

    both = on_both(state, pkd, kkd)
    parse = {**both(lambda kd, s: kd.from_json(s[0])), "python json": lambda: [json.loads(d) for d in docs]}
    if pl is not None:
        parse["polars"] = lambda: pl.Series(docs).str.json_decode()
    yield f"from_json of {n:,} objects", parse, prepare
    yield f"from_json of {n * 10:,} numbers", {**both(lambda kd, s: kd.from_json(s[2])), "python json": lambda: [json.loads(d) for d in numbers]}, None
    objs = [json.loads(d) for d in docs]
    yield f"to_json of {n:,} objects", {**both(lambda kd, s: kd.to_json(s[1])), "python json": lambda: [json.dumps(o) for o in objs]}, None
