"""Benchmark workloads that went item by item or copied what they did not
change (found by a sweep of workloads against koladata, issue 21): writes
into every list or dict of a forked bag, merging many small bags into one,
attributes of objects updated at once, attributes of masked entities and of
one item, numbers of two types, stubs of objects, objects of entities, dicts
of BOOLEAN keys, records under a named schema."""

from bench_common import on_both


def workloads(scale, pkd, kkd):
    n = max(int(100_000 * scale), 10)
    big = max(int(1_000_000 * scale), 10)
    bags = max(int(1_000 * scale), 10)
    state = {}

    def prepare(kd, name):
        ints = kd.slice(list(range(big)))
        state[name] = {
            "lists": kd.implode(kd.slice([[i, i + 1, i + 2] for i in range(n)])),
            "dicts": kd.dict(kd.slice([[f"k{j}" for j in range(i % 9)] for i in range(n)]),
                             kd.slice([list(range(i % 9)) for i in range(n)])),
            "keys": kd.slice([f"w{i % 97}" for i in range(n)]),
            "small": kd.slice([i % 5 for i in range(n)]),
            "bags": [kd.new(a=kd.slice([i, i + 1]), b=kd.slice(["x", "y"])).get_bag() for i in range(bags)],
            "ints": ints,
            "objs": kd.obj(a=ints),
            "ents": kd.new(a=ints),
            "mask": ints % 3 != 0,
            "floats": kd.float32(ints),
            "item": kd.new(a=1, b="x"),
            "nested": kd.obj(b=kd.obj(c=ints), z=ints),
            "bool_dicts": kd.dict(kd.slice([[True, False]] * n), kd.slice([[1, 2]] * n)),
            "records": [{"a": i, "b": str(i)} for i in range(n)],
            "record_schema": kd.list_schema(kd.named_schema("Rec", a=kd.INT32, b=kd.STRING)),
        }

    def set_lists(s):
        lists = s["lists"].fork_bag()
        lists[0] = s["small"]

    def set_dicts(s):
        dicts = s["dicts"].fork_bag()
        dicts[s["keys"]] = 5

    def merge(kd, s):
        bag = kd.mutable_bag()
        for b in s["bags"]:
            bag.merge_inplace(b)

    def attr_loop(s):
        item = s["item"]
        for _ in range(10_000):
            item.a

    both = on_both(state, pkd, kkd)
    yield f"fork, lists[0] = v ({n:,} lists)", both(lambda kd, s: set_lists(s)), prepare
    yield f"fork, dicts[keys] = 5 ({n:,} dicts)", both(lambda kd, s: set_dicts(s)), None
    yield f"merge_inplace of {bags:,} small bags", both(merge), None
    yield f"kd.attrs(objects, b=...) ({big:,})", both(lambda kd, s: kd.attrs(s["objs"], b=s["ints"])), None
    yield f"(entities & mask).a ({big:,})", both(lambda kd, s: (s["ents"] & s["mask"]).a), None
    yield "10k x item.a (one entity)", both(lambda kd, s: attr_loop(s)), None
    yield f"INT32 + 1.5 ({big:,})", both(lambda kd, s: s["ints"] + 1.5), None
    yield f"FLOAT32 < INT32 ({big:,})", both(lambda kd, s: s["floats"] < s["ints"]), None
    yield f"kd.get_obj_schema ({big:,} objects)", both(lambda kd, s: kd.get_obj_schema(s["objs"])), None
    yield f"kd.stub (objects of objects, {big:,})", both(lambda kd, s: kd.stub(s["nested"])), None
    yield f"entities == entities ({big:,})", both(lambda kd, s: s["ents"] == s["ents"]), None
    yield f"kd.dict_size ({n:,} dicts)", both(lambda kd, s: kd.dict_size(s["dicts"])), None
    yield f"kd.obj(entities) ({big:,})", both(lambda kd, s: kd.obj(s["ents"])), None
    yield f"d[True] ({n:,} dicts of BOOLEAN keys)", both(lambda kd, s: s["bool_dicts"][True]), None
    yield f"from_py({n:,} records, schema=LIST[named])", both(lambda kd, s: kd.from_py(s["records"], schema=s["record_schema"])), None
