"""Benchmark workloads of bag layering (issue "Updates are never lost"):
with_attrs / updated on 1M entities, reading attributes through 10 layers of
updates (layers that do not hold the attribute, and layers that each update
a tenth of the entities), and kd.new over inputs whose bags must be checked
for conflicts (related bags sharing layers, unrelated bags); single writes
into mutable bags of 1M objects (issue "Hostile inputs": writes must not
copy the column); and what values bring along into a new bag (Koda's
adopt: an extraction of what they reach)."""

from bench_common import on_both


def workloads(scale, pkd, kkd):
    n = int(1_000_000 * scale)
    n_objs = max(n // 1000, 1)
    state = {}

    def prepare(kd, name):
        x = kd.new(a=kd.slice(list(range(n))))
        ys = kd.slice([float(i) for i in range(n)])
        texts = kd.slice([f"t{i % 1000}" for i in range(n)])
        # Ten layers over x, none holding `a`.
        over = x
        for k in range(10):
            over = over.with_attrs(**{f"b{k}": k})
        # Ten layers each updating `a` on every tenth entity.
        patched = x
        positions = kd.slice(list(range(n))) % 10
        for k in range(10):
            part = kd.select(x, positions == k)
            patched = patched.updated(kd.attrs(part, a=kd.slice(list(range(k, n, 10)) if n else [])))
        other = kd.new(a=kd.slice(list(range(n))))
        objs = kd.obj(a=kd.slice(list(range(n)))).fork_bag()
        ents = kd.new(a=kd.slice(list(range(n)))).fork_bag()
        picks = [(i * 7919) % max(n, 1) for i in range(100)]
        big_list = kd.list(list(range(n))).fork_bag()
        one_by_one = [kd.obj(a=i, s=f"t{i}") for i in range(n_objs)]
        frozen_objs = kd.obj(a=kd.slice(list(range(n))), s=texts)
        nested = kd.new(r=x, s=texts)
        state[name] = {"x": x, "ys": ys, "texts": texts, "over": over, "patched": patched, "other": other,
                       "x_b": x.with_attrs(b=ys), "objs": objs, "ents": ents,
                       "obj_items": [objs.S[i] for i in picks], "ent_items": [ents.S[i] for i in picks],
                       "big_list": big_list, "one_by_one": one_by_one, "frozen_objs": frozen_objs, "nested": nested}

    def append_each(lst):
        for k in range(100):
            lst.append(k)

    def write_each(items):
        for k, item in enumerate(items):
            item.a = k

    both = on_both(state, pkd, kkd)

    yield f"with_attrs(y=) on {n:,} entities", both(lambda kd, s: s["x"].with_attrs(y=s["ys"])), prepare
    yield f"with_attrs(s=STRING) on {n:,} entities", both(lambda kd, s: s["x"].with_attrs(s=s["texts"])), None
    yield f"updated(attrs(y=)) on {n:,} entities", both(lambda kd, s: s["x"].updated(kd.attrs(s["x"], y=s["ys"]))), None
    yield ".a under 10 layers without it (1M)", both(lambda kd, s: s["over"].a), None
    yield ".a under 10 layers each updating 1/10", both(lambda kd, s: s["patched"].a), None
    yield ".a.S[::3] items under 10 partial layers", both(lambda kd, s: kd.select(s["patched"], kd.has(s["x"].a) & (s["x"].a % 3 == 0)).a), None
    yield "kd.new(p=x, q=x.with_attrs(b=)) (merge)", both(lambda kd, s: kd.new(p=s["x"], q=s["x_b"])), None
    yield "kd.new(p=x, q=other) unrelated (merge)", both(lambda kd, s: kd.new(p=s["x"], q=s["other"])), None
    yield "100 single writes item.a = k (1M objects)", both(lambda kd, s: write_each(s["obj_items"])), None
    yield "100 single writes item.a = k (1M entities)", both(lambda kd, s: write_each(s["ent_items"])), None
    yield ".a of 1M entities after those writes", both(lambda kd, s: s["ents"].a), None
    yield "100 single appends to a 1M-item list", both(lambda kd, s: append_each(s["big_list"])), None
    yield f"kd.slice of {n_objs:,} objects made one by one", both(lambda kd, s: kd.slice(s["one_by_one"]).s), None
    # Values bring along what they reach (an extraction, as Koda's adopt).
    yield f"kd.extract of {n:,} entities", both(lambda kd, s: kd.extract(s["x"])), None
    yield f"kd.extract of {n:,} entities with a nested entity", both(lambda kd, s: kd.extract(s["nested"])), None
    yield f"x.with_attrs(q=other) ({n:,} entity values)", both(lambda kd, s: s["x"].with_attrs(q=s["other"])), None
    yield f"kd.new(p=objs) ({n:,} objects, int and text)", both(lambda kd, s: kd.new(p=s["frozen_objs"])), None
