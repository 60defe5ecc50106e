"""Benchmark workloads for dicts (issue "DataBag"): lookup of 1M keys in one
dict (int and string keys), and 100k small dicts looked up and listed.
Target: dict lookup of 1M keys at least as fast as koladata."""

import numpy as np


def workloads(scale, pkd, kkd):
    n = max(int(1_000_000 * scale), 1)
    rng = np.random.default_rng(3)
    keys = rng.permutation(n).tolist()
    text_keys = [f"k{k}" for k in keys]
    lookups = rng.integers(0, int(n * 1.1), n).tolist()  # about 9% misses
    text_lookups = [f"k{k}" for k in lookups]
    n_small = max(int(100_000 * scale), 1)
    state = {}

    def prepare(kd, name):
        state[name] = {
            "ints": kd.dict(kd.slice(keys), kd.slice(keys)),
            "int_lookups": kd.slice(lookups),
            "texts": kd.dict(kd.slice(text_keys), kd.slice(keys)),
            "text_lookups": kd.slice(text_lookups),
            "small": kd.dict(kd.slice([["a", "b", "c"]] * n_small), kd.slice([[1, 2, 3]] * n_small)),
        }

    def entries(make):
        impls = {"plait": lambda: make(pkd, "plait")}
        if kkd is not None:
            impls["koladata"] = lambda: make(kkd, "koladata")
        return impls

    yield f"lookup {n:,} INT32 keys in one dict", entries(lambda kd, name: state[name]["ints"][state[name]["int_lookups"]]), prepare
    yield f"lookup {n:,} STRING keys in one dict", entries(lambda kd, name: state[name]["texts"][state[name]["text_lookups"]]), None
    yield f"create one dict of {n:,} INT32 keys", entries(lambda kd, name: kd.dict(state[name]["int_lookups"], state[name]["int_lookups"])), None
    yield f"d['b'] on {n_small:,} dicts of 3 keys", entries(lambda kd, name: state[name]["small"]["b"]), None
    yield f"get_keys of {n_small:,} dicts of 3 keys", entries(lambda kd, name: kd.get_keys(state[name]["small"])), None
