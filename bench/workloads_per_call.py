"""Benchmark workloads of one small call repeated (1,000 calls a row): what a
program pays per operation when it converts and touches values one at a
time (a Python loop over records, a request handler), where fixed costs —
argument boxing, Python glue, bag creation, thread hand-offs — dominate."""

from bench_common import on_both

CALLS = 1_000


def workloads(scale, pkd, kkd):
    state = {}
    record = {"a": 1, "b": [1, 2, 3], "c": {"x": "y"}}

    def prepare(kd, name):
        state[name] = {
            "records": kd.from_py(record),
            "list": kd.from_py([1, 2, 3, 4]),
            "entity": kd.new(a=1, b="x"),
            "small": kd.slice([3, 1, 2]),
            "record_schema": kd.named_schema("Rec", a=kd.INT32, b=kd.list_schema(kd.INT64), c=kd.dict_schema(kd.STRING, kd.STRING)),
            "int64_list": kd.list_schema(kd.INT64),
            "dict": kd.dict({"a": 1, "b": 2}),
            "mutable_entity": kd.mutable_bag().new(),
            "mutable_dict": kd.mutable_bag().dict(),
        }

    def repeat(fn):
        def run(kd, s):
            for _ in range(CALLS):
                fn(kd, s)
        return run

    both = on_both(state, pkd, kkd)
    yield f"{CALLS:,} x from_py(small dict)", both(repeat(lambda kd, s: kd.from_py(record))), prepare
    yield f"{CALLS:,} x from_py(small dict, dict_as_obj)", both(repeat(lambda kd, s: kd.from_py(record, dict_as_obj=True))), None
    yield f"{CALLS:,} x from_py(small dict, schema=None)", both(repeat(lambda kd, s: kd.from_py({"a": [1, 2]}, schema=None))), None
    yield f"{CALLS:,} x from_py(small dict, schema=named)", both(repeat(lambda kd, s: kd.from_py(record, schema=s["record_schema"]))), None
    yield f"{CALLS:,} x from_py([1, 2, 3], schema=LIST[INT64])", both(repeat(lambda kd, s: kd.from_py([1, 2, 3], schema=s["int64_list"]))), None
    yield f"{CALLS:,} x from_py(1)", both(repeat(lambda kd, s: kd.from_py(1))), None
    yield f"{CALLS:,} x to_py(small dict)", both(repeat(lambda kd, s: s["records"].to_py())), None
    yield f"{CALLS:,} x to_py(small list)", both(repeat(lambda kd, s: s["list"].to_py())), None
    yield f"{CALLS:,} x kd.list([1, 2, 3])", both(repeat(lambda kd, s: kd.list([1, 2, 3]))), None
    yield f"{CALLS:,} x kd.sort(3 items)", both(repeat(lambda kd, s: kd.sort(s["small"]))), None
    yield f"{CALLS:,} x kd.new(a=1, b='x')", both(repeat(lambda kd, s: kd.new(a=1, b="x"))), None
    yield f"{CALLS:,} x entity.get_attr('a')", both(repeat(lambda kd, s: s["entity"].get_attr("a"))), None
    yield f"{CALLS:,} x entity.a", both(repeat(lambda kd, s: s["entity"].a)), None
    yield f"{CALLS:,} x entity.get_schema()", both(repeat(lambda kd, s: s["entity"].get_schema())), None
    yield f"{CALLS:,} x entity.get_itemid()", both(repeat(lambda kd, s: s["entity"].get_itemid())), None
    yield f"{CALLS:,} x dict.get_keys()", both(repeat(lambda kd, s: s["dict"].get_keys())), None
    yield f"{CALLS:,} x kd.uu(a=1)", both(repeat(lambda kd, s: kd.uu(a=1))), None
    yield f"{CALLS:,} x kd.new(a=[1, 2, 3])", both(repeat(lambda kd, s: kd.new(a=[1, 2, 3]))), None
    yield f"{CALLS:,} x kd.new(a={{'x': 1}})", both(repeat(lambda kd, s: kd.new(a={"x": 1}))), None
    yield f"{CALLS:,} x entity.a = [1, 2]", both(repeat(lambda kd, s: setattr(s["mutable_entity"], "a", [1, 2]))), None
    yield f"{CALLS:,} x dict['k'] = {{'x': [1]}}", both(repeat(lambda kd, s: s["mutable_dict"].__setitem__("k", {"x": [1]}))), None
    yield f"{CALLS:,} x kd.bag()", both(repeat(lambda kd, s: kd.bag())), None
