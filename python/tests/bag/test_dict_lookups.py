"""Many keys looked up in one dict (`d[keys]` with `d` a DataItem): the
pipelined lookup of dicts stored as columns (`DictColumns::find_many`),
typed for INT32, INT64 and STRING keys and by item otherwise, checked
against Python dicts, including lookups in parallel chunks and dicts the
pipelined path does not take (updated in a later layer)."""

import random

import pytest

from plait import kd


def expected(table, queries):
    return [table.get(q) if q is not None else None for q in queries]


@pytest.mark.parametrize("n_keys, n_queries", [(0, 10), (1, 5), (7, 100), (1000, 5000), (20_000, 70_000)])
@pytest.mark.parametrize("kind", ["int32", "int64", "text"])
def test_lookups_match_python_dicts(n_keys, n_queries, kind):
    rng = random.Random(n_keys * 7 + n_queries)
    make = {"int32": lambda k: k, "int64": lambda k: k * 2**33, "text": lambda k: f"k{k}é"}[kind]
    keys = [make(k) for k in rng.sample(range(n_keys * 2 + 1), n_keys)]
    values = [rng.randrange(100) if rng.random() > 0.1 else None for _ in keys]
    table = dict(zip(keys, values))
    queries = [make(rng.randrange(n_keys * 2 + 2)) if rng.random() > 0.05 else None for _ in range(n_queries)]
    schema = {"int32": kd.INT32, "int64": kd.INT64, "text": kd.STRING}[kind]
    d = kd.dict(kd.slice(keys, schema), kd.slice(values, kd.INT32))
    got = d[kd.slice(queries, schema)]
    assert got.to_py() == expected(table, queries)
    assert got.get_schema() == kd.INT32


def test_lookups_keep_the_shape_of_the_keys():
    d = kd.dict({1: "a", 2: "b"})
    assert d[kd.slice([[1, 3], [], [2, None, 1]])].to_py() == [["a", None], [], ["b", None, "a"]]


def test_int_widths_and_mixed_keys_find_each_other():
    d = kd.dict(kd.slice([1, 2, 3], kd.INT64), kd.slice([10, 20, 30]))
    assert d[kd.slice([3, 1, 4])].to_py() == [30, 10, None]
    objects = kd.dict(kd.slice([1, 2, 3], kd.OBJECT), kd.slice([10, 20, 30]))
    assert objects[kd.slice([3, 1, 4], kd.INT64)].to_py() == [30, 10, None]
    mixed = kd.dict(kd.slice([1, "a", b"b", True], kd.OBJECT), kd.slice([1, 2, 3, 4]))
    assert mixed[kd.slice(["a", 1, True, b"b", 2, None], kd.OBJECT)].to_py() == [2, 1, 4, 3, None, None]
    assert mixed[kd.slice(["a", "b"])].to_py() == [2, None]


def test_values_of_several_types_and_missing_values():
    d = kd.dict(kd.slice(["x", "y", "z", "w"]), kd.slice([1, "two", None, 4.5], kd.OBJECT))
    assert d[kd.slice(["w", "y", "x", "z", "v"])].to_py() == [4.5, "two", 1, None, None]


def test_dicts_updated_in_a_later_layer_are_looked_up_through_it():
    d = kd.dict(kd.slice(list(range(50_000))), kd.slice(list(range(50_000))))
    updated = d.fork_bag()
    updated[7] = -7
    updated[50_001] = 1
    queries = kd.slice([7, 8, 49_999, 50_000, 50_001] * 10_000)
    assert updated[queries].to_py() == [-7, 8, 49_999, None, 1] * 10_000
    assert d[kd.slice([7, 8])].to_py() == [7, 8]
