"""Benchmark workloads for lists (issue "DataBag"): implode and explode of
1M list items; appended_list and, in place, `l[1:3] = v` (issue 21).
Target: at least as fast as koladata."""

from bench_common import setup_jagged


def workloads(scale, pkd, kkd):
    n_rows = max(int(100_000 * scale), 1)
    state = {}

    def prepare(kd, name):
        # ~10 items per row: about 1M list items in 100k lists.
        _, _, jagged = setup_jagged(kd, n_rows)
        lists = kd.implode(jagged)
        state[name] = {"jagged": jagged, "lists": lists, "mutable": lists.fork_bag()}

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

    def assign_range(kd, name):
        state[name]["mutable"][1:3] = 0

    yield "lists[1:3] = 0 in place (each list)", entries(assign_range), None
