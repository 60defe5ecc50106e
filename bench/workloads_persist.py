"""Benchmark workloads of persistence (issue 7): kd.dumps / kd.loads of a
10M-item FLOAT32 slice, of a bag of 1M entities with 3 attributes (an
INT32, a FLOAT32 and a STRING of 1,000 distinct values) and (issue 22) of
one with distinct text (a name and a sentence per entity), and
(issue 19) of linked chains of 200k objects made one by one (an INT32
attribute and a link, and the same with a STRING attribute); the sizes
written are printed after the timings.

Each library builds the chains the way it builds them fastest: plait with
`kd.obj(v=i, next=prev)` in a loop (each object in a bag of its own that
reads the previous one's), koladata in a mutable bag (`bag.obj(...)`):
koladata's `kd.obj` loop takes time quadratic in the chain's length (10 s
for 3,000 objects). (plait's `bag.obj` loop is linear too.)"""

from bench_common import on_both

import numpy as np

SIZES = {}


def workloads(scale, pkd, kkd):
    n = int(10_000_000 * scale)
    m = int(1_000_000 * scale)
    rng = np.random.default_rng(9)
    floats = rng.random(n, dtype=np.float32).tolist()
    a, b, c = rng.integers(0, 1000, m).tolist(), rng.random(m).tolist(), [f"s{i % 1000}" for i in range(m)]
    words = ["red", "green", "blue", "fast", "slow", "cat", "dog", "tree", "river", "stone", "light", "dark"]
    picks = rng.integers(0, len(words), (m, 6)).tolist()
    names = [f"user{i:07d}" for i in rng.permutation(m).tolist()]
    sentences = [" ".join(words[k] for k in row) for row in picks]
    state = {}

    def prepare(kd, name):
        x = kd.slice(floats)
        entities = kd.new(a=kd.slice(a), b=kd.slice(b), c=kd.slice(c))
        texts = kd.new(name=kd.slice(names), sentence=kd.slice(sentences))
        state[name] = {"x": x, "bag": entities.get_bag(), "x_bytes": kd.dumps(x), "bag_bytes": kd.dumps(entities.get_bag()),
                       "texts": texts.get_bag(), "texts_bytes": kd.dumps(texts.get_bag())}
        SIZES.setdefault(name, {}).update(slice=len(state[name]["x_bytes"]), bag=len(state[name]["bag_bytes"]),
                                          text_bag=len(state[name]["texts_bytes"]))

    both = on_both(state, pkd, kkd)

    yield f"dumps {n:,} FLOAT32", both(lambda kd, s: kd.dumps(s["x"])), prepare
    yield f"loads {n:,} FLOAT32", both(lambda kd, s: kd.loads(s["x_bytes"])), None
    yield f"dumps bag of {m:,} entities x 3 attrs", both(lambda kd, s: kd.dumps(s["bag"])), None
    yield f"loads bag of {m:,} entities x 3 attrs", both(lambda kd, s: kd.loads(s["bag_bytes"])), None
    yield f"dumps bag of {m:,} entities x 2 texts", both(lambda kd, s: kd.dumps(s["texts"])), None
    yield f"loads bag of {m:,} entities x 2 texts", both(lambda kd, s: kd.loads(s["texts_bytes"])), None
    yield from chain_workloads(int(200_000 * scale), pkd, kkd)


def build_chain(kd, n, text, in_mutable_bag):
    """The last of `n` objects each linking to the one made before it."""
    bag = kd.mutable_bag() if in_mutable_bag else None
    make = bag.obj if in_mutable_bag else kd.obj
    x = make(v=0, s="item0") if text else make(v=0)
    for i in range(1, n):
        x = make(v=i, s=f"item{i}", next=x) if text else make(v=i, next=x)
    return x.freeze_bag() if in_mutable_bag else x


def chain_workloads(n, pkd, kkd):
    state = {}

    def prepare(kd, name):
        for text in (False, True):
            x = build_chain(kd, n, text, in_mutable_bag=name == "koladata")
            data = kd.dumps(x)
            state[name, text] = {"x": x, "bytes": data}
            SIZES.setdefault(name, {})["chain" + (" with text" if text else "")] = len(data)

    def both(fn, text):
        impls = {"plait": lambda: fn(pkd, state["plait", text])}
        if kkd is not None:
            impls["koladata"] = lambda: fn(kkd, state["koladata", text])
        return impls

    for text in (False, True):
        what = f"chain of {n:,} objects" + (" + text" if text else "")
        yield f"dumps {what}", both(lambda kd, s: kd.dumps(s["x"]), text), prepare if not text else None
        yield f"loads {what}", both(lambda kd, s: kd.loads(s["bytes"]).next.next.v, text), None


def size_report():
    """Bytes written by each library."""
    return "; ".join(f"{name}: " + ", ".join(f"{what} {size:,} B" for what, size in sizes.items()) for name, sizes in SIZES.items())
