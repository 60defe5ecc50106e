"""Benchmark workloads of kd.strings: length and case conversion on 1M strings
(mixed lengths, some missing), plus contains, replace and split."""

from bench_common import on_both

import numpy as np


def workloads(scale, pkd, kkd):
    n = int(1_000_000 * scale)
    rng = np.random.default_rng(2)
    alphabet = np.array(list("abcdefghij KLMNOP,xyz"))
    lengths = rng.integers(0, 25, size=n)
    chars = rng.choice(alphabet, size=int(lengths.sum()))
    words, pos = [], 0
    for k, length in enumerate(lengths.tolist()):
        words.append(None if k % 10 == 3 else "".join(chars[pos:pos + length]))
        pos += length
    state = {}

    def prepare(kd, name):
        state[name] = kd.slice(words)

    both = on_both(state, pkd, kkd)

    yield f"strings.length on {n:,} strings", both(lambda kd, x: kd.strings.length(x)), prepare
    yield f"strings.upper on {n:,} strings", both(lambda kd, x: kd.strings.upper(x)), None
    yield f"strings.lower on {n:,} strings", both(lambda kd, x: kd.strings.lower(x)), None
    yield "strings.contains(x, 'ab')", both(lambda kd, x: kd.strings.contains(x, "ab")), None
    yield "strings.replace(x, 'a', 'XY')", both(lambda kd, x: kd.strings.replace(x, "a", "XY")), None
    yield "strings.split(x, ',')", both(lambda kd, x: kd.strings.split(x, ",")), None
