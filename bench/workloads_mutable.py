"""Benchmark workloads of single writes into mutable bags (issue 19): one
attribute write (INT32 and STRING values) on one item of 1M entities and of
1M objects, one list append (INT32 and STRING items) to a 1M-item list, and
reads after a few single writes (the whole attribute, and a half selection)
so that the written items' layout (patches over the column) is timed too.
Each workload runs 100 writes; the per-call cost must not depend on the bag
size (`--scale` changes it)."""

from bench_common import on_both


def workloads(scale, pkd, kkd):
    n = int(1_000_000 * scale)
    state = {}

    def prepare(kd, name):
        ints = kd.slice(list(range(n)))
        texts = kd.slice([f"t{i % 1000}" for i in range(n)])
        ents = kd.new(a=ints, t=texts).fork_bag()
        objs = kd.obj(a=ints, t=texts).fork_bag()
        picks = [(i * 7919) % max(n, 1) for i in range(100)]
        # Entities read after 10 single writes, whole and half.
        read = kd.new(a=ints).fork_bag()
        for k in range(10):
            read.S[(k * 104729) % max(n, 1)].a = -k
        state[name] = {
            "ent_items": [ents.S[i] for i in picks],
            "obj_items": [objs.S[i] for i in picks],
            "int_list": kd.list(list(range(n))).fork_bag(),
            "text_list": kd.list([f"t{i % 1000}" for i in range(n)]).fork_bag(),
            "read": read,
            "half": kd.select(read, ints % 2 == 0),
        }

    def write_ints(items):
        for k, item in enumerate(items):
            item.a = k

    def write_texts(items):
        for item in items:
            item.t = "w"

    def append_ints(lst):
        for k in range(100):
            lst.append(k)

    def append_texts(lst):
        for _ in range(100):
            lst.append("w")

    both = on_both(state, pkd, kkd)

    yield f"100 x item.a = INT ({n:,} entities)", both(lambda kd, s: write_ints(s["ent_items"])), prepare
    yield f"100 x item.t = TEXT ({n:,} entities)", both(lambda kd, s: write_texts(s["ent_items"])), None
    yield f"100 x item.a = INT ({n:,} objects)", both(lambda kd, s: write_ints(s["obj_items"])), None
    yield f"100 x item.t = TEXT ({n:,} objects)", both(lambda kd, s: write_texts(s["obj_items"])), None
    yield f"100 x append(INT) ({n:,}-item list)", both(lambda kd, s: append_ints(s["int_list"])), None
    yield f"100 x append(TEXT) ({n:,}-item list)", both(lambda kd, s: append_texts(s["text_list"])), None
    yield ".a after 10 single writes (whole)", both(lambda kd, s: s["read"].a), None
    yield ".a after 10 single writes (half sel.)", both(lambda kd, s: s["half"].a), None
