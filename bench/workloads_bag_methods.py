"""Benchmark workloads of the DataBag / DataSlice methods of issue 21:
`kd.clone_as_full`, `kd.extract_update`, `kd.nofollow` + `kd.follow`,
`kd.ref` + `kd.reify`, `kd.extract` stopping at nofollow attributes,
`bag.implode` (creating into a mutable bag), `bag.new` and `kd.set_attrs`
on a mutable bag, `kd.strict_with_attrs`, and nested lists and dicts built
level by level in one bag (`cur = bag.list([cur])`: each level costs the
same at any depth)."""

from bench_common import on_both


def workloads(scale, pkd, kkd):
    n = int(200_000 * scale)
    rows = max(1, n // 10)
    levels = max(10, n // 20)
    state = {}

    def prepare(kd, name):
        x = kd.slice(list(range(n)))
        inner = kd.new(z=x)
        with_missing = kd.new(a=x, b=inner) & (x % 3 != 0)
        nested = kd.slice([list(range(i * 10, i * 10 + 10)) for i in range(rows)])
        state[name] = {
            "x": x,
            "entities": kd.new(a=x, b=inner),
            "with_missing": with_missing,
            "nofollow_holder": kd.new(a=x, b=kd.nofollow(inner)),
            "nested": nested,
            "mutable": kd.new(a=x).fork_bag(),
            "y": kd.slice([float(i) for i in range(n)]),
        }

    both = on_both(state, pkd, kkd)

    def implode_in_bag(kd, s):
        return kd.mutable_bag().implode(s["nested"])

    def new_in_bag(kd, s):
        return kd.mutable_bag().new(a=s["x"], b=s["y"])

    def nested_in_bag(kd, make):
        bag = kd.mutable_bag()
        cur = bag.list([0])
        for _ in range(levels):
            cur = make(bag, cur)
        return cur

    def set_attrs(kd, s):
        kd.set_attrs(s["mutable"], y=s["y"], z=s["x"])

    def ref_reify(kd, s):
        return kd.reify(kd.ref(s["entities"]), s["entities"])

    yield f"kd.clone_as_full {n:,} entities (1/3 missing)", both(lambda kd, s: kd.clone_as_full(s["with_missing"])), prepare
    yield f"kd.extract_update {n:,} entities", both(lambda kd, s: kd.extract_update(s["entities"])), None
    yield f"kd.extract stopping at nofollow {n:,}", both(lambda kd, s: kd.extract(s["nofollow_holder"])), None
    yield f"kd.follow(kd.nofollow()) {n:,} entities", both(lambda kd, s: kd.follow(kd.nofollow(s["entities"]))), None
    yield f"kd.reify(kd.ref()) {n:,} entities", both(ref_reify), None
    yield f"bag.implode {rows:,} lists of 10", both(implode_in_bag), None
    yield f"bag.new(a=, b=) {n:,} entities", both(new_in_bag), None
    yield f"kd.set_attrs(y=, z=) on {n:,} entities", both(set_attrs), None
    yield f"kd.strict_with_attrs(a=) {n:,} entities", both(lambda kd, s: kd.strict_with_attrs(s["entities"], a=s["x"])), None
    yield f"cur = bag.list([cur]) {levels:,} levels", both(lambda kd, s: nested_in_bag(kd, lambda bag, cur: bag.list([cur]))), None
    yield f"cur = bag.dict({{'k': cur}}) {levels:,} levels", both(lambda kd, s: nested_in_bag(kd, lambda bag, cur: bag.dict({"k": cur}))), None
