"""Benchmark workloads on OBJECT slices holding items of several types
(numbers and text side by side, as records from JSON give them), and shape
operators the sweep against koladata found slow (issue 21): comparisons,
select, coalesce, cond, collapse, stack, zip, unique of text, text of
floats, attributes with a default."""

from bench_common import on_both


def workloads(scale, pkd, kkd):
    n = max(int(1_000_000 * scale), 12)
    rows = max(int(100_000 * scale), 4)
    state = {}

    def prepare(kd, name):
        mixed_py = [i if i % 3 == 0 else (f"s{i % 100}" if i % 3 == 1 else i * 0.5) for i in range(n)]
        mixed = kd.slice(mixed_py, kd.OBJECT)
        other = kd.slice([i if i % 2 == 0 else f"s{i % 100}" for i in range(n)], kd.OBJECT)
        ints = kd.slice(list(range(n)))
        cube = kd.slice([[[i, i + 1], [i + 2]] for i in range(rows)])
        words = kd.slice([f"w{i % 5000}" for i in range(n)])
        ents = kd.new(a=kd.slice([i if i % 2 else None for i in range(n)]))
        state[name] = {
            "mixed": mixed,
            "other": other,
            "ints": ints,
            "mask": ints % 3 != 0,
            "cube": cube,
            "words": words,
            "floats": kd.float32(ints) / 7,
            "ents": ents,
            "halves": kd.slice([None if i % 2 else i for i in range(n)], kd.OBJECT),
        }

    both = on_both(state, pkd, kkd)
    yield f"OBJECT mixed == OBJECT mixed ({n:,})", both(lambda kd, s: s["mixed"] == s["other"]), prepare
    yield f"OBJECT mixed == 3 ({n:,})", both(lambda kd, s: s["mixed"] == 3), None
    yield f"OBJECT mixed != OBJECT mixed ({n:,})", both(lambda kd, s: s["mixed"] != s["other"]), None
    yield f"kd.select(OBJECT mixed, mask) ({n:,})", both(lambda kd, s: kd.select(s["mixed"], s["mask"])), None
    yield f"kd.coalesce(OBJECT half, OBJECT mixed) ({n:,})", both(lambda kd, s: kd.coalesce(s["halves"], s["mixed"])), None
    yield f"kd.cond(mask, OBJECT mixed, INT32) ({n:,})", both(lambda kd, s: kd.cond(s["mask"], s["mixed"], s["ints"])), None
    yield f"kd.collapse (3-D, {rows:,} rows)", both(lambda kd, s: kd.collapse(s["cube"])), None
    yield f"kd.stack(x, x, x) ({n:,})", both(lambda kd, s: kd.stack(s["ints"], s["ints"], s["ints"])), None
    yield f"kd.zip(x, x) ({n:,})", both(lambda kd, s: kd.zip(s["ints"], s["ints"])), None
    yield f"kd.unique(text) ({n:,})", both(lambda kd, s: kd.unique(s["words"])), None
    yield f"kd.str(FLOAT32) ({n:,})", both(lambda kd, s: kd.str(s["floats"])), None
    yield f"get_attr(default=0) ({n:,})", both(lambda kd, s: s["ents"].get_attr("a", default=0)), None
