"""Benchmark workloads for lists (issue "DataBag"): implode and explode of
1M list items; appended_list and, in place on 100k lists at once,
`l[1:3] = v`, `l[1] = v`, `l.append(v)`, `del l[1:2]` and `l.pop(0)`, of
numbers and of text (issue 21). Each in-place workload changes its own fork
of the lists, run after run (as koladata's does). Target: at least as fast
as koladata."""

from bench_common import setup_jagged


def workloads(scale, pkd, kkd):
    n_rows = max(int(100_000 * scale), 1)
    state = {}

    def prepare(kd, name):
        # ~10 items per row: about 1M list items in 100k lists.
        _, _, jagged = setup_jagged(kd, n_rows)
        lists = kd.implode(jagged)
        text = kd.implode(kd.strings.format("w{x}", x=jagged))
        state[name] = {"jagged": jagged, "lists": lists, "text": text}

    def entries(make):
        impls = {"plait": lambda: make(pkd, "plait")}
        if kkd is not None:
            impls["koladata"] = lambda: make(kkd, "koladata")
        return impls

    yield f"implode ~1M items into {n_rows:,} lists", entries(lambda kd, name: kd.implode(state[name]["jagged"])), prepare
    yield "explode them back (lists[:])", entries(lambda kd, name: state[name]["lists"][:]), None
    yield "lists[0] (first item of each)", entries(lambda kd, name: state[name]["lists"][0]), None
    yield "list_size of each", entries(lambda kd, name: kd.list_size(state[name]["lists"])), None
    yield "appended_list (one item each)", entries(lambda kd, name: kd.appended_list(state[name]["lists"], 0)), None

    def in_place(label, lists, change):
        """A workload changing in place a fork of `lists` made beforehand."""

        def run(kd, name):
            forks = state[name].setdefault("forks", {})
            if label not in forks:
                forks[label] = state[name][lists].fork_bag()
            change(forks[label])

        return run

    def assign_range(x):
        x[1:3] = 0

    def set_item(x):
        x[1] = 0

    def delete_range(x):
        del x[1:2]

    yield "lists[1:3] = 0 in place (each list)", entries(in_place("range", "lists", assign_range)), None
    yield "lists[1] = 0 in place", entries(in_place("set", "lists", set_item)), None
    yield "lists.append(0) in place", entries(in_place("append", "lists", lambda x: x.append(0))), None
    yield "del lists[1:2] in place", entries(in_place("del", "lists", delete_range)), None
    yield "lists.pop(0) in place", entries(in_place("pop", "lists", lambda x: x.pop(0))), None

    def assign_text(x):
        x[1:3] = "z"

    yield "text lists[1:3] = 'z' in place", entries(in_place("text range", "text", assign_text)), None
    yield "text lists.append('z') in place", entries(in_place("text append", "text", lambda x: x.append("z"))), None
