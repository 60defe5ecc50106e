"""Jagged-array workloads against the jagged-array libraries (issue 22):
plait, koladata, Awkward Array and Polars list columns on the same data in
one run, with a flat numpy operation over the same values as the memory-
bandwidth reference.

The data: 1M rows of 0..20 FLOAT32 values in [0, 100) (~10M values), 100k
groups of those rows for the two-dimensional aggregations, and 200k rows of
~2M short strings. Awkward and Polars are optional: a missing library's
column is empty (`make bench` installs both from bench/requirements.txt).
"""

import numpy as np

def _optional(name):
    try:
        return __import__(name)
    except ImportError:
        return None


def workloads(scale, pkd, kkd):
    import pyarrow as pa

    from plait.kd_ext import arrow

    ak, pl = _optional("awkward"), _optional("polars")
    rng = np.random.default_rng(22)
    n_rows = int(1_000_000 * scale)
    sizes = rng.integers(0, 21, size=n_rows)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    values = (rng.random(int(offsets[-1]), dtype=np.float32) * 100).astype(np.float32)
    jagged = pa.LargeListArray.from_arrays(pa.array(offsets), pa.array(values))
    # Groups of rows: ~10 rows each.
    n_groups = max(n_rows // 10, 1)
    group_sizes = np.diff(np.linspace(0, n_rows, n_groups + 1).astype(np.int64))
    group_offsets = np.concatenate([[0], np.cumsum(group_sizes)]).astype(np.int64)
    nested = pa.LargeListArray.from_arrays(pa.array(group_offsets), jagged)
    row_index = rng.integers(0, 21, size=n_rows).astype(np.int64)
    per_row = np.arange(n_rows, dtype=np.float32)

    state = {}

    def prepare(kd, name):
        if name == "plait":
            x, x2 = arrow.from_arrow(jagged), arrow.from_arrow(nested)
        else:
            shape = kd.shapes.new(n_rows, kd.slice(sizes.tolist()))
            x = kd.reshape(kd.slice(values.tolist(), kd.FLOAT32), shape)
            shape2 = kd.shapes.new(n_groups, kd.slice(group_sizes.tolist()), kd.slice(sizes.tolist()))
            x2 = kd.reshape(x.flatten(), shape2)
        state[name] = {
            "x": x,
            "x2": x2,
            "rows": kd.slice(per_row.tolist(), kd.FLOAT32),
            "index": kd.slice(row_index.tolist(), kd.INT64),
        }
        state[name]["lists"] = kd.implode(x)

    others = {}
    if ak is not None:
        others["awkward"] = {
            "x": ak.from_arrow(jagged, highlevel=True),
            "x2": ak.from_arrow(nested, highlevel=True),
            "rows": ak.Array(per_row),
        }
    if pl is not None:
        others["polars"] = {"x": pl.from_arrow(jagged), "x2": pl.from_arrow(nested)}

    def row(plait_fn, koda_fn=None, awkward=None, polars=None, numpy=None):
        impls = {"plait": lambda: plait_fn(pkd, state["plait"])}
        # koda_fn=False: koladata has no such operation.
        if kkd is not None and koda_fn is not False:
            impls["koladata"] = lambda: (koda_fn or plait_fn)(kkd, state["koladata"])
        if awkward is not None and "awkward" in others:
            impls["awkward"] = lambda: awkward(others["awkward"])
        if polars is not None and "polars" in others:
            impls["polars"] = lambda: polars(others["polars"])
        if numpy is not None:
            impls["numpy"] = numpy
        return impls

    n = len(values)
    tag = f"{n_rows / 1e6:g}M rows, {n / 1e6:.1f}M FLOAT32"
    yield f"agg_sum per row ({tag})", row(
        lambda kd, s: kd.agg_sum(s["x"]),
        awkward=lambda a: ak.sum(a["x"], axis=1),
        polars=lambda p: p["x"].list.sum(),
        numpy=lambda: values.sum(),
    ), prepare
    yield "agg_max per row", row(
        lambda kd, s: kd.agg_max(s["x"]),
        awkward=lambda a: ak.max(a["x"], axis=1),
        polars=lambda p: p["x"].list.max(),
        numpy=lambda: values.max(),
    ), None
    yield "agg_min per row", row(
        lambda kd, s: kd.agg_min(s["x"]),
        awkward=lambda a: ak.min(a["x"], axis=1),
        polars=lambda p: p["x"].list.min(),
        numpy=lambda: values.min(),
    ), None
    yield "agg_mean per row", row(
        lambda kd, s: kd.math.agg_mean(s["x"]),
        awkward=lambda a: ak.mean(a["x"], axis=1),
        polars=lambda p: p["x"].list.mean(),
        numpy=lambda: values.mean(),
    ), None
    yield "agg_count per row", row(
        lambda kd, s: kd.agg_count(s["x"]),
        awkward=lambda a: ak.count(a["x"], axis=1),
        polars=lambda p: p["x"].list.len(),
        numpy=lambda: np.diff(offsets),
    ), None
    yield "agg_sum over 2 dims (100k groups)", row(
        lambda kd, s: kd.agg_sum(s["x2"], ndim=2),
        awkward=lambda a: ak.sum(ak.flatten(a["x2"], axis=2), axis=1),
        polars=lambda p: p["x2"].list.eval(pl.element().list.sum()).list.sum(),
        numpy=lambda: values.sum(),
    ), None
    yield "agg_max over 2 dims", row(
        lambda kd, s: kd.agg_max(s["x2"], ndim=2),
        awkward=lambda a: ak.max(ak.flatten(a["x2"], axis=2), axis=1),
        polars=lambda p: p["x2"].list.eval(pl.element().list.max()).list.max(),
        numpy=lambda: values.max(),
    ), None
    yield "cum_sum within rows", row(
        lambda kd, s: kd.math.cum_sum(s["x"]),
        polars=lambda p: p["x"].list.eval(pl.element().cum_sum()),
        numpy=lambda: np.cumsum(values),
    ), None
    yield "sort within rows", row(
        lambda kd, s: kd.sort(s["x"]),
        awkward=lambda a: ak.sort(a["x"], axis=1),
        polars=lambda p: p["x"].list.sort(),
        numpy=lambda: np.sort(values),
    ), None
    yield "unique within rows", row(
        lambda kd, s: kd.unique(s["x"]),
        polars=lambda p: p["x"].list.unique(maintain_order=True),
    ), None
    yield "select(x > 50)", row(
        lambda kd, s: kd.select(s["x"], s["x"] > 50),
        awkward=lambda a: a["x"][a["x"] > 50],
        polars=lambda p: p["x"].list.eval(pl.element().filter(pl.element() > 50)),
        numpy=lambda: values[values > 50],
    ), None
    yield "expand_to: 1M row values onto the items", row(
        lambda kd, s: kd.expand_to(s["rows"], s["x"]),
        awkward=lambda a: ak.broadcast_arrays(a["rows"], a["x"])[0],
        polars=lambda p: pl.Series(per_row).repeat_by(pl.Series(sizes)),
        numpy=lambda: np.repeat(per_row, sizes),
    ), None
    yield "explode lists (1M lists)", row(
        lambda kd, s: kd.explode(s["lists"]),
        awkward=lambda a: ak.flatten(a["x"], axis=1),
        polars=lambda p: p["x"].explode(),
    ), None
    yield "implode rows into lists", row(
        lambda kd, s: kd.implode(s["x"]),
        awkward=lambda a: ak.unflatten(values, sizes),
    ), None
    yield "take one index per row", row(
        lambda kd, s: kd.take(s["x"], s["index"]),
        polars=lambda p: p["x"].list.get(pl.Series(row_index), null_on_oob=True),
    ), None
    yield "to_arrow of the rows", row(
        lambda kd, s: arrow.to_arrow(s["x"]),
        koda_fn=False,
        awkward=lambda a: ak.to_arrow(a["x"]),
        polars=lambda p: p["x"].to_arrow(),
    ), None
    yield "from_arrow of the rows", row(
        lambda kd, s: arrow.from_arrow(jagged),
        koda_fn=False,
        awkward=lambda a: ak.from_arrow(jagged),
        polars=lambda p: pl.from_arrow(jagged),
    ), None

    yield from text_workloads(scale, pkd, kkd, ak, pl, rng)
    yield from group_by_workloads(scale, pkd, kkd, pl, rng)


def text_workloads(scale, pkd, kkd, ak, pl, rng):
    """String operations on 200k rows of ~2M short words."""
    import pyarrow as pa

    from plait.kd_ext import arrow

    n_rows = int(200_000 * scale)
    sizes = rng.integers(0, 21, size=n_rows)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    vocabulary = np.array([f"w{k}x{k % 7}ab" * (1 + k % 3) for k in range(5000)], dtype=object)
    words = vocabulary[rng.integers(0, len(vocabulary), size=int(offsets[-1]))]
    text = pa.LargeListArray.from_arrays(pa.array(offsets), pa.array(words, type=pa.large_string()))
    state = {}

    def prepare(kd, name):
        if name == "plait":
            state[name] = arrow.from_arrow(text)
        else:
            shape = kd.shapes.new(n_rows, kd.slice(sizes.tolist()))
            state[name] = kd.reshape(kd.slice(words.tolist()), shape)

    a = ak.from_arrow(text) if ak is not None else None
    p = pl.from_arrow(text) if pl is not None else None

    def row(fn, awkward=None, polars=None):
        impls = {"plait": lambda: fn(pkd, state["plait"])}
        if kkd is not None:
            impls["koladata"] = lambda: fn(kkd, state["koladata"])
        if awkward is not None and a is not None:
            impls["awkward"] = awkward
        if polars is not None and p is not None:
            impls["polars"] = polars
        return impls

    tag = f"{len(words) / 1e6:.1f}M words in rows"
    yield f"strings.length ({tag})", row(
        lambda kd, x: kd.strings.length(x),
        awkward=lambda: ak.str.length(a),
        polars=lambda: p.list.eval(pl.element().str.len_chars()),
    ), prepare
    yield "strings.upper", row(
        lambda kd, x: kd.strings.upper(x),
        awkward=lambda: ak.str.upper(a),
        polars=lambda: p.list.eval(pl.element().str.to_uppercase()),
    ), None
    yield "strings.contains(x, 'x3')", row(
        lambda kd, x: kd.strings.contains(x, "x3"),
        awkward=lambda: ak.str.match_substring(a, "x3"),
        polars=lambda: p.list.eval(pl.element().str.contains("x3", literal=True)),
    ), None


def group_by_workloads(scale, pkd, kkd, pl, rng):
    """kd.group_by of ~10M FLOAT32 values by 1,000 integer keys, against a
    Polars group_by that collects each group's values into a list."""
    n = int(10_000_000 * scale)
    keys = rng.integers(0, 1000, size=n).astype(np.int64)
    values = rng.random(n, dtype=np.float32)
    state = {}

    def prepare(kd, name):
        if name == "plait":
            from plait.kd_ext import npkd

            state[name] = (npkd.from_array(values), npkd.from_array(keys))
        else:
            state[name] = (kd.slice(values.tolist(), kd.FLOAT32), kd.slice(keys.tolist(), kd.INT64))

    impls = {"plait": lambda: pkd.group_by(*state["plait"])}
    if kkd is not None:
        impls["koladata"] = lambda: kkd.group_by(*state["koladata"])
    if pl is not None:
        frame = pl.DataFrame({"k": keys, "v": values})
        impls["polars"] = lambda: frame.group_by("k", maintain_order=True).agg(pl.col("v"))
    yield f"group_by {n / 1e6:.0f}M values by 1,000 keys", impls, prepare
