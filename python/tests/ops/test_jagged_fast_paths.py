"""The fast paths of issue 22 (dense numeric sort, max / min / mean of
groups without missing items, unique of small groups, group_by of one
fixed-width key, explode / implode of whole allocations) give what the
general paths give: each is checked against the same operation taken
through its general path."""

import math

import numpy as np
import pytest

from plait import kd


def rows(values, sizes):
    return kd.reshape(kd.slice(values), kd.shapes.new(len(sizes), kd.slice(sizes)))


def same(a, b):
    """Equal item by item, NaN equal to NaN."""
    a, b = a.flatten().to_py(), b.flatten().to_py()
    return len(a) == len(b) and all(x == y or (isinstance(x, float) and math.isnan(x) and math.isnan(y)) for x, y in zip(a, b))


NAN = float("nan")
FLOATS = rows([3.0, NAN, 1.0, -0.0, 0.0, 2.0, 2.0, 5.0, 4.0], [4, 0, 3, 2])


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("x", [FLOATS, rows([3, 1, 2, 9, -4, 7], [3, 3]), rows([2**40, -1, 5], [3])])
def test_dense_sort_matches_the_general_sort(x, descending):
    # sort_by=x takes the general path (ranking positions first).
    assert same(kd.sort(x, descending=descending), kd.sort(x, sort_by=x, descending=descending))
    assert kd.sort(x, descending=descending).get_shape() == x.get_shape()


def test_dense_sort_keeps_negative_zero_order_and_puts_nan_last():
    x = kd.slice([1.0, NAN, 2.0, -0.0, 0.0])
    assert str(kd.sort(x)) == "[-0.0, 0.0, 1.0, 2.0, nan]"
    assert str(kd.sort(x, descending=True)) == "[2.0, 1.0, -0.0, 0.0, nan]"


def test_dense_max_min_mean_match_the_sparse_paths():
    x = FLOATS
    # The same values with one extra missing item per row take the paths
    # for missing items.
    holes = rows([3.0, NAN, 1.0, -0.0, None, 0.0, 2.0, None, 2.0, 5.0, 4.0, None], [5, 0, 4, 3])
    for op in (kd.agg_max, kd.agg_min, kd.math.agg_mean, kd.agg_sum):
        assert same(op(x), op(holes)), op
    assert kd.agg_max(rows([1, 7, 3], [3])).to_py() == [7]
    assert kd.agg_min(rows([1, 7, 3], [3])).to_py() == [1]
    assert kd.math.agg_mean(rows([1, 2], [2])).to_py() == [1.5]


def test_agg_count_of_dense_and_sparse_rows():
    assert kd.agg_count(rows([1, 2, 3], [2, 0, 1])).to_py() == [2, 0, 1]
    assert kd.agg_count(rows([1, None, 3], [2, 0, 1])).to_py() == [1, 0, 1]


@pytest.mark.parametrize("size", [5, 31, 32, 33, 200])
def test_unique_of_small_and_large_groups(size):
    rng = np.random.default_rng(size)
    values = rng.integers(0, 7, size=size * 3).tolist()
    x = rows(values, [size, size, size])
    expected = [list(dict.fromkeys(values[k * size:(k + 1) * size])) for k in range(3)]
    assert kd.unique(x).to_py() == expected
    assert kd.unique(x, sort=True).to_py() == [sorted(e) for e in expected]


@pytest.mark.parametrize("kind", ["text", "int", "float"])
def test_unique_of_one_large_group(kind):
    # One group of more items than a worker run (64K) takes the parallel
    # path: runs find their firsts, taken in order. Some keys first come
    # late (only in the last run), some are missing.
    rng = np.random.default_rng(7)
    codes = rng.integers(0, 500, size=300_000).tolist()
    codes[-5:] = [1000, 1001, 1000, None, 1002]
    codes[::1000] = [None] * len(codes[::1000])
    convert = {"text": lambda c: f"w{c}", "int": lambda c: c, "float": lambda c: c / 4 if c % 7 else NAN}[kind]
    values = [None if c is None else convert(c) for c in codes]
    expected = list(dict.fromkeys(v for v in values if v is not None and v == v))
    if kind == "float":  # NaNs are one item, where the first one is
        first_nan = next(i for i, v in enumerate(values) if v is not None and v != v)
        expected.insert(len(dict.fromkeys(v for v in values[:first_nan] if v is not None)), NAN)
    assert same(kd.unique(kd.slice(values)), kd.slice(expected))
    ordered = sorted((v for v in expected if v == v), key=lambda v: v)
    assert same(kd.unique(kd.slice(values), sort=True), kd.slice(ordered + ([NAN] if kind == "float" else [])))


@pytest.mark.parametrize(
    "keys",
    [
        [3, 1, 3, None, 2, 1],  # narrow integer range: the table
        [3, 10**12, 3, None, -(10**12), 10**12],  # wide range: hashing
        [2**63 - 1, 1, 2**63 - 1, 1, None, 0],  # the largest INT64 is not NaN
        [1.5, NAN, 1.5, None, NAN, -0.0],  # floats: each NaN its own group
    ],
)
def test_group_by_one_key_matches_two_key_grouping(keys):
    values = kd.slice(list(range(len(keys))))
    k = kd.slice(keys)
    # A constant second key takes the general path (key tuples).
    general = kd.group_by(values, k, kd.val_shaped_as(k, 0))
    assert kd.group_by(values, k).to_py() == general.to_py()
    assert kd.group_by(values, k, sort=True).to_py() == kd.group_by(values, k, kd.val_shaped_as(k, 0), sort=True).to_py()


def python_groups(values, keys, sort):
    """The groups of `values` by `keys` (missing keys left out), in order of
    first appearance or of key."""
    groups = {}
    for v, k in zip(values, keys):
        if k is not None:
            groups.setdefault(k, []).append(v)
    return [groups[k] for k in (sorted(groups) if sort else groups)]


@pytest.mark.parametrize("sort", [False, True])
@pytest.mark.parametrize("kind", ["int32 narrow", "int64 negative", "missing keys", "wide range", "all missing"])
def test_group_by_of_many_narrow_integer_keys(kind, sort):
    # 300,000 items: the parallel counting path for narrow ranges, the
    # general one for wide ones; both give Python's grouping.
    rng = np.random.default_rng(5)
    n = 300_000
    keys = {
        "int32 narrow": rng.integers(0, 1000, n),
        "int64 negative": rng.integers(-2**40, -2**40 + 50, n),
        "missing keys": rng.integers(10, 20, n),
        "wide range": rng.integers(0, 2**40, n) // 1000 * 1000,
        "all missing": np.zeros(n, dtype=np.int64),
    }[kind].tolist()
    if kind in ("missing keys", "all missing"):
        keys = [None if (i % 3 == 0 or kind == "all missing") else k for i, k in enumerate(keys)]
    schema = kd.INT32 if kind == "int32 narrow" else kd.INT64
    values = list(range(n))
    got = kd.group_by(kd.slice(values), kd.slice(keys, schema), sort=sort)
    assert got.to_py() == python_groups(values, keys, sort)
    indices = kd.group_by_indices(kd.slice(keys, schema), sort=sort)
    assert indices.to_py() == python_groups(values, keys, sort)


def test_group_by_one_key_in_several_rows():
    values = rows([1, 2, 3, 4, 5, 6], [4, 2])
    keys = rows([7, 8, 7, 8, 8, 8], [4, 2])
    assert kd.group_by(values, keys).to_py() == [[[1, 3], [2, 4]], [[5, 6]]]


def test_explode_and_implode_of_whole_allocations():
    x = rows([1, 2, 3, 4], [2, 0, 2])
    lists = kd.implode(x)
    assert kd.explode(lists).to_py() == [[1, 2], [], [3, 4]]
    assert lists.S[1:].explode().to_py() == [[], [3, 4]]
    # The lists are ordinary lists: appending to one in a fork leaves the
    # others (and the original) alone.
    forked = lists.fork_bag()
    forked.S[0].append(9)
    assert forked.explode().to_py() == [[1, 2, 9], [], [3, 4]]
    assert lists.explode().to_py() == [[1, 2], [], [3, 4]]


def test_take_one_index_per_row():
    x = rows([1, 2, 3, 4, 5], [2, 0, 3])
    assert kd.take(x, kd.slice([1, 0, -1])).to_py() == [2, None, 5]
    assert kd.take(x, kd.slice([[0, 1], [], [2]])).to_py() == [[1, 2], [], [5]]
    assert kd.take(x, 0).to_py() == [1, None, 3]


def test_large_gathers_in_parallel_chunks():
    n = 300_000
    x = kd.slice(list(range(n)))
    assert kd.reverse(x).to_py() == list(range(n - 1, -1, -1))
    # Out-of-range indices give missing items.
    taken = kd.take(x, kd.slice(list(range(n)) + [n, -1]))
    assert taken.to_py() == list(range(n)) + [None, n - 1]


def _reference(op, values, sizes, dtype):
    """numpy's aggregate of each row (None where it is missing)."""
    starts = np.concatenate([[0], np.cumsum(sizes)])[:-1]
    full = sizes > 0
    out = np.zeros(len(sizes), dtype=np.float64 if op == "mean" else dtype)
    if full.any():
        ufunc = {"sum": np.add, "mean": np.add, "max": np.maximum, "min": np.minimum}[op]
        # Empty rows between two rows add nothing to the segment before them.
        wide = np.float64 if op == "mean" or dtype == np.float32 else dtype
        out[full] = ufunc.reduceat(values.astype(wide), starts[full])
    if op == "mean":
        out[full] /= sizes[full]
        out = out.astype(np.float32)
    elif dtype == np.float32:
        out = out.astype(np.float32)
    py = out.tolist()
    return py if op == "sum" else [v if n else None for v, n in zip(py, sizes)]


OPS = {"sum": kd.agg_sum, "max": kd.agg_max, "min": kd.agg_min, "mean": kd.math.agg_mean}
SCHEMAS = {np.float32: kd.FLOAT32, np.int32: kd.INT32, np.int64: kd.INT64, np.float64: kd.FLOAT64}


def _jagged(values, sizes, dtype):
    return kd.reshape(kd.slice(values.tolist(), SCHEMAS[dtype]), kd.shapes.new(len(sizes), kd.slice(sizes.tolist())))


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64, np.float64])
@pytest.mark.parametrize("widest", [8, 20, 32, 40, 300])
@pytest.mark.parametrize("large", [False, True])
def test_dense_aggregations_per_row_match_numpy(dtype, widest, large):
    # Groups up to 8, 24 and 32 wide take the SIMD windows, wider ones the
    # lanes; about 300,000 items run in parallel tasks; the last rows'
    # windows pass the end of the values. Values are multiples of 1/8, so
    # that every order of adding them gives the same sum.
    rng = np.random.default_rng(widest * 7 + large)
    n_rows = 600_000 // widest if large else 37
    sizes = rng.integers(0, widest + 1, size=n_rows)
    values = (rng.integers(-800, 800, size=int(sizes.sum())) / (1 if np.issubdtype(dtype, np.integer) else 8)).astype(dtype)
    x = _jagged(values, sizes, dtype)
    for name, op in OPS.items():
        if name == "mean" and dtype in (np.int64, np.float64):
            continue
        assert op(x).to_py() == _reference(name, values, sizes, dtype), (name, dtype, widest)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("widest", [30, 100])
def test_dense_max_min_of_rows_with_nan_and_infinities(dtype, widest):
    # Rows wider than 32 are read in runs of 32 and a window for the rest: a
    # NaN or an infinity may fall in either part.
    rng = np.random.default_rng(5)
    sizes = rng.integers(0, widest, size=3000)
    values = (rng.random(int(sizes.sum())) * 10).astype(dtype)
    special = rng.integers(0, len(values), size=300)
    values[special[:100]] = np.nan
    values[special[100:200]] = np.inf
    values[special[200:]] = -np.inf
    x = _jagged(values, sizes, dtype)
    for name in ("max", "min"):
        got = OPS[name](x).to_py()
        want = _reference(name, values, sizes, dtype)
        assert all(g == w or (g is not None and w is not None and math.isnan(g) and math.isnan(w)) for g, w in zip(got, want)), name
        assert sum(1 for g in got if g is not None and math.isnan(g)) == sum(1 for w in want if w is not None and math.isnan(w))


def test_dense_aggregations_of_uniform_rows_and_wrapping_sums():
    for width in (0, 5, 40):
        values = np.arange(4 * width, dtype=np.int32).reshape(4, width)
        x = kd.slice(values.tolist(), kd.INT32)
        assert kd.agg_max(x).to_py() == [int(r.max()) if width else None for r in values]
        assert kd.agg_sum(x).to_py() == [int(r.sum()) for r in values]
        assert kd.math.agg_mean(x).to_py() == [float(r.mean()) if width else None for r in values]
    # INT32 sums wrap, in windows and in runs alike, and across the two.
    for width in (3, 40, 64, 70):
        x = kd.reshape(kd.slice([2**31 - 1] * width, kd.INT32), kd.shapes.new(1, width))
        assert kd.agg_sum(x).to_py() == [int(np.sum(np.full(width, 2**31 - 1, dtype=np.int32), dtype=np.int32))]
