"""Benchmark workloads of data of many differing schemas (issue 21): records
whose keys differ from one to the next made objects (each object a schema of
its own), records with optional fields, objects made one by one, and an
entity whose attributes are entities of schemas of their own, and 2,000 of
32,000 distinct-key objects (what they hold, not the bag's size). Listing,
copying, converting and printing them must cost what they hold, not the
number of items times the number of attribute names."""

import random

from bench_common import on_both


def workloads(scale, pkd, kkd):
    n = max(int(2_000 * scale), 10)
    optional = max(int(100_000 * scale), 10)
    wide = max(int(4_000 * scale), 10)
    many = 16 * n
    state = {}

    def prepare(kd, name):
        distinct = [{f"k{i}": i, f"j{i}": str(i), "c": {f"z{i}": 1}} for i in range(n)]
        rng = random.Random(1)
        fields = [{f"f{j}": (i if j % 2 else f"s{i}") for j in range(10) if rng.random() < 0.7} for i in range(optional)]
        state[name] = {
            "distinct": distinct,
            "fields": fields,
            "distinct_objs": kd.from_py(distinct, dict_as_obj=True),
            "field_objs": kd.from_py(fields, dict_as_obj=True),
            "one_by_one": kd.slice([kd.obj(**{f"k{i}": i, "c": kd.obj(**{f"z{i}": 1})}) for i in range(n)]),
            "wide": kd.new(**{f"a{i}": kd.new(**{f"x{i}": i}) for i in range(wide)}),
            "few_of_many": kd.from_py([{f"k{i}": i, f"j{i}": str(i), "c": {f"z{i}": 1}} for i in range(many)],
                                      dict_as_obj=True)[:].S[:n],
        }

    both = on_both(state, pkd, kkd)
    yield f"from_py dict_as_obj ({n:,} distinct keys)", both(lambda kd, s: kd.from_py(s["distinct"], dict_as_obj=True)), prepare
    yield f"clone ({n:,} distinct-key objects)", both(lambda kd, s: kd.clone(s["distinct_objs"])), None
    yield f"to_py ({n:,} distinct-key objects)", both(lambda kd, s: s["distinct_objs"].to_py()), None
    yield f"to_json ({n:,} distinct-key objects)", both(lambda kd, s: kd.to_json(s["distinct_objs"])), None
    yield f"deep_uuid ({n:,} distinct-key objects)", both(lambda kd, s: kd.deep_uuid(s["distinct_objs"])), None
    yield f"from_py dict_as_obj ({optional:,}, 10 optional)", both(lambda kd, s: kd.from_py(s["fields"], dict_as_obj=True)), None
    yield f"to_py ({optional:,} optional-field objects)", both(lambda kd, s: s["field_objs"].to_py()), None
    yield f"clone ({optional:,} optional-field objects)", both(lambda kd, s: kd.clone(s["field_objs"])), None
    yield f"to_json ({optional:,} optional-field objects)", both(lambda kd, s: kd.to_json(s["field_objs"])), None
    yield f"get_attr_names ({n:,} objects one by one)", both(lambda kd, s: kd.get_attr_names(s["one_by_one"], intersection=False)), None
    yield f"clone ({n:,} objects one by one)", both(lambda kd, s: kd.clone(s["one_by_one"])), None
    yield f"to_py ({n:,} objects one by one)", both(lambda kd, s: s["one_by_one"].to_py()), None
    yield f"clone (entity of {wide:,} entity attrs)", both(lambda kd, s: kd.clone(s["wide"])), None
    yield f"schema repr (entity of {wide:,} attrs)", both(lambda kd, s: repr(s["wide"].get_schema())), None
    yield f"to_json ({n:,} of {many:,} distinct-key objects)", both(lambda kd, s: kd.to_json(s["few_of_many"])), None
    yield f"clone ({n:,} of {many:,} distinct-key objects)", both(lambda kd, s: kd.clone(s["few_of_many"])), None
    yield f"to_py ({n:,} of {many:,} distinct-key objects)", both(lambda kd, s: s["few_of_many"].to_py()), None
