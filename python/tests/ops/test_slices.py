"""kd.slices: selection, ordering, grouping, joining and lookup operators.

Expected values are Koda's (koladata 0.0.4) for the same calls.
"""

import math

import pytest

from plait import kd


def check(ds, value, schema, shape=None):
    assert ds.to_py() == value
    assert str(ds.get_schema()) == schema
    if shape is not None:
        assert str(ds.get_shape()) == shape


P, M = kd.present, None


# --- select / select_present / inverse_select ---------------------------------

def test_select_jagged_and_expanded_filter():
    x = kd.slice([[1, 2], [3]])
    check(kd.select(x, kd.slice([[P, M], [P]])), [[1], [3]], "INT32", "JaggedShape(2, 1)")
    check(kd.select(x, kd.slice([P, M])), [[1, 2], []], "INT32", "JaggedShape(2, [2, 0])")
    check(kd.slices.select(x, kd.present), [[1, 2], [3]], "INT32")


def test_select_without_expanding_filter_drops_subtrees():
    x = kd.slice([[[1, 2], [3]], [[4]]])
    check(kd.select(x, kd.slice([P, M]), expand_filter=False), [[[1, 2], [3]]], "INT32", "JaggedShape(1, 2, [2, 1])")
    check(kd.select(x, kd.slice([[P, M], [P]]), expand_filter=False), [[[1, 2]], [[4]]], "INT32")


def test_select_keeps_missing_items_and_object():
    check(kd.select(kd.slice([1, None, 3]), kd.slice([P, P, M])), [1, None], "INT32")
    check(kd.select(kd.slice([1, "a", 3.0]), kd.slice([P, P, M])), [1, "a"], "OBJECT")
    check(kd.select(kd.slice([1, 2, 3]), kd.slice([P, M, P], schema=kd.OBJECT)), [1, 3], "INT32")
    x = kd.slice([1, 20, 3, 40])
    check(kd.select(x, x > 10), [20, 40], "INT32")


def test_select_errors():
    with pytest.raises(ValueError, match="should only be OBJECT or MASK"):
        kd.select(kd.slice([1, 2]), kd.slice([True, False]))
    with pytest.raises(ValueError, match="must have all items of MASK dtype"):
        kd.select(kd.slice([1, 2]), kd.slice([kd.present, 1], schema=kd.OBJECT))
    with pytest.raises(ValueError, match="cannot select from DataItem"):
        kd.select(kd.item(1), kd.present)
    with pytest.raises(ValueError, match="failed to broadcast `fltr` to `ds`"):
        kd.select(kd.slice([1, 2, 3]), kd.slice([P, M]))
    with pytest.raises(ValueError, match="cannot have a higher rank"):
        kd.select(kd.slice([1]), kd.slice([[P]]), expand_filter=False)
    with pytest.raises(ValueError, match="must be an item holding BOOLEAN, got missing"):
        kd.select(kd.slice([1]), kd.slice([P]), expand_filter=kd.missing)


def test_select_present():
    check(kd.select_present(kd.slice([[1, None], [None]])), [[1], []], "INT32", "JaggedShape(2, [1, 0])")
    check(kd.select_present(kd.slice([None, None])), [], "NONE")
    with pytest.raises(ValueError, match="kd.slices.select: cannot select from DataItem"):
        kd.select_present(kd.item(1))


def test_inverse_select():
    fltr = kd.slice([[P, M], [P, M, P]])
    check(kd.inverse_select(kd.slice([[1], [2, 3]]), fltr), [[1, None], [2, None, 3]], "INT32")
    check(kd.reverse_select(kd.slice([1, "a"]), kd.slice([P, M, P])), [1, None, "a"], "OBJECT")
    check(kd.slices.reverse_select(kd.slice([1, 2]), kd.slice([P, M, P])), [1, None, 2], "INT32")
    with pytest.raises(ValueError, match=r"do not match: JaggedShape\(2\) vs JaggedShape\(1\)"):
        kd.inverse_select(kd.slice([1, 2]), kd.slice([P, M, M]))
    with pytest.raises(ValueError, match=r"Got rank\(ds\): 1, rank\(fltr\): 0"):
        kd.inverse_select(kd.slice([1, 2]), kd.present)


# --- ordering ------------------------------------------------------------------

def test_sort():
    check(kd.sort(kd.slice([[3, 1], [2, None, 0]])), [[1, 3], [0, 2, None]], "INT32")
    check(kd.sort(kd.slice([3, None, 1, 2]), descending=True), [3, 2, 1, None], "INT32")
    check(kd.sort(kd.slice(["a", None, "c"]), kd.slice([3, 1, 2])), [None, "c", "a"], "STRING")
    check(kd.sort(kd.slice([1, 2, 3], schema=kd.OBJECT)), [1, 2, 3], "OBJECT")
    floats = kd.sort(kd.slice([3.0, float("nan"), -0.0, float("-inf")]), descending=True).to_py()
    assert floats[:3] == [3.0, -0.0, float("-inf")] and math.isnan(floats[3])


def test_sort_errors():
    with pytest.raises(ValueError, match="more sparse"):
        kd.sort(kd.slice(["a", "b"]), kd.slice([1, None]))
    with pytest.raises(ValueError, match="must have the same shape"):
        kd.sort(kd.slice(["a", "b"]), kd.slice([1]))
    with pytest.raises(ValueError, match="orderable values, got a slice of OBJECT containing INT32 and STRING"):
        kd.sort(kd.slice([1, "a"]))
    with pytest.raises(ValueError, match="mixed types is not supported"):
        kd.sort(kd.slice([1, 2.5], schema=kd.OBJECT))
    with pytest.raises(ValueError, match=r"expected rank\(x\) > 0"):
        kd.sort(kd.item(1))


def test_ordinal_rank():
    check(kd.ordinal_rank(kd.slice([3, None, 1, 2, 1])), [3, None, 0, 2, 1], "INT64")
    check(kd.ordinal_rank(kd.slice([[3, None, 1], [2, 1]]), ndim=2), [[3, None, 0], [2, 1]], "INT64")
    check(kd.ordinal_rank(kd.slice([[3, 1], [2]]), ndim=0), [[0, 0], [0]], "INT64")
    ties = kd.slice([3, 1, 1, 1])
    check(kd.ordinal_rank(ties, tie_breaker=kd.slice([0, 2, 1, None])), [2, 1, 0, None], "INT64")
    check(kd.ordinal_rank(ties, tie_breaker=kd.slice([0, 2, 1, 1]), descending=True), [0, 3, 1, 2], "INT64")
    with pytest.raises(ValueError, match="tie_breaker must be integers"):
        kd.ordinal_rank(ties, tie_breaker=kd.slice(["a", "b", "c", "d"]))


def test_dense_rank():
    check(kd.dense_rank(kd.slice([3, None, 1, 2, 1])), [2, None, 0, 1, 0], "INT64")
    check(kd.dense_rank(kd.slice([3, None, 1, 2, 1]), descending=True), [0, None, 2, 1, 2], "INT64")
    # Every NaN has a rank of its own, after the numbers.
    check(kd.dense_rank(kd.slice([3.0, float("nan"), 1.0, float("nan")])), [1, 2, 0, 3], "INT64")
    check(kd.dense_rank(kd.slice([kd.present, None])), [0, None], "INT64")


def test_inverse_mapping():
    check(kd.inverse_mapping(kd.slice([[1, 2, 0], [0, None]])), [[2, 0, 1], [0, None]], "INT32")
    check(kd.inverse_mapping(kd.slice([[1, 2, 0], [4, 3]]), ndim=2), [[2, 0, 1], [4, 3]], "INT32")
    check(kd.inverse_mapping(kd.slice([1, 0], schema=kd.OBJECT)), [1, 0], "OBJECT")
    with pytest.raises(ValueError, match="element 1 appears twice"):
        kd.inverse_mapping(kd.slice([1, 1, 0]))
    with pytest.raises(ValueError, match="element 5 is not a valid element of a permutation of size 3"):
        kd.inverse_mapping(kd.slice([1, 5, 0]))
    with pytest.raises(ValueError, match="integer values"):
        kd.inverse_mapping(kd.slice([1.0, 0.0]))


# --- grouping ------------------------------------------------------------------

def test_unique():
    check(kd.unique(kd.slice([[3, None, 1], [3, 2, 2], []])), [[3, 1], [3, 2], []], "INT32", "JaggedShape(3, [2, 2, 0])")
    check(kd.unique(kd.slice([3, None, 1, 3, 2, 1]), sort=True), [1, 2, 3], "INT32")
    check(kd.unique(kd.slice([1, "a", 1, 1.0, kd.int64(1)])), [1, "a", 1.0], "OBJECT")
    check(kd.unique(kd.item(1)), 1, "INT32")
    out = kd.unique(kd.slice([float("nan"), 1.0, float("nan"), -0.0, 0.0]), sort=True).to_py()
    assert out[:2] == [-0.0, 1.0] and math.isnan(out[2]) and len(out) == 3
    with pytest.raises(ValueError, match="sort is not supported for mixed dtype"):
        kd.unique(kd.slice([1, "a"]), sort=True)


def test_group_by():
    x = kd.slice([1, 2, 1, None, 3, 2])
    check(kd.group_by(x), [[1, 1], [2, 2], [3]], "INT32", "JaggedShape(3, [2, 2, 1])")
    check(kd.group_by_indices(x), [[0, 2], [1, 5], [4]], "INT64")
    check(kd.group_by(kd.slice([[1, 2, 1], [3, 3]])), [[[1, 1], [2]], [[3, 3]]], "INT32")
    values = kd.slice(["a", "b", "c", "d"])
    check(kd.group_by(values, kd.slice([1, 2, 1, 1]), kd.slice([1, 1, None, 1])), [["a", "d"], ["b"]], "STRING")
    check(kd.group_by(kd.slice([1, 2, 1]), kd.slice(["b", "a", "b"]), sort=True), [[2], [1, 1]], "INT32")
    nans = kd.group_by(kd.slice([3.0, float("nan"), float("nan")]))
    assert str(nans.get_shape()) == "JaggedShape(3, 1)"
    check(kd.group_by(kd.slice([None, None])), [], "NONE", "JaggedShape(0, [])")


def test_group_by_errors():
    with pytest.raises(ValueError, match="ndim > 0, got DataItems"):
        kd.group_by(kd.item(1))
    with pytest.raises(ValueError, match="same shape"):
        kd.group_by(kd.slice([1, 2]), kd.slice([1, 2, 3]))
    with pytest.raises(ValueError, match="expected at least one argument"):
        kd.group_by_indices()


# --- joining -------------------------------------------------------------------

def test_concat():
    a, b = kd.slice([[1, 2], [3]]), kd.slice([[4], [5, 6]])
    check(kd.concat(a, b), [[1, 2, 4], [3, 5, 6]], "INT32", "JaggedShape(2, 3)")
    check(kd.concat(a, b, ndim=2), [[1, 2], [3], [4], [5, 6]], "INT32")
    check(kd.concat(kd.slice([1, 2]), kd.slice(["a", None])), [1, 2, "a", None], "OBJECT")
    check(kd.concat(kd.slice([1]), kd.slice([3.0])), [1.0, 3.0], "FLOAT32")
    with pytest.raises(ValueError, match="same rank, got 1 and 2"):
        kd.concat(kd.slice([1]), kd.slice([[1]]))
    with pytest.raises(ValueError, match="use stack instead"):
        kd.concat(kd.item(1), kd.item(2))
    with pytest.raises(ValueError, match="same shape prefix"):
        kd.concat(a, kd.slice([[1], [2], [3]]))
    with pytest.raises(ValueError, match="cannot find a common schema"):
        kd.concat(kd.slice([1]), kd.slice([kd.INT32]))


def test_stack_and_zip():
    check(kd.stack(kd.slice([1, 2]), kd.slice([3, 4])), [[1, 3], [2, 4]], "INT32")
    check(kd.stack(kd.slice([1, 2]), kd.slice([3, 4]), ndim=1), [[1, 2], [3, 4]], "INT32")
    check(kd.stack(kd.item(1), kd.item(2)), [1, 2], "INT32")
    check(kd.stack(kd.slice([[1, 2], [3]]), kd.slice([[4, 5], [6]])), [[[1, 4], [2, 5]], [[3, 6]]], "INT32")
    check(kd.zip(kd.slice([[1, 2], [3]]), kd.slice([4, 5])), [[[1, 4], [2, 4]], [[3, 5]]], "INT32")
    check(kd.zip(kd.item(1), kd.item("a")), [1, "a"], "OBJECT")
    with pytest.raises(ValueError, match="invalid ndim=1 for rank=0 stack"):
        kd.stack(kd.item(1), kd.item(2), ndim=1)
    with pytest.raises(ValueError, match="nonzero number of args"):
        kd.zip()


# --- positions -----------------------------------------------------------------

def test_take():
    check(kd.take(kd.slice([1, 2, 3]), kd.slice([2, 0, None, -1, 5, -4])), [3, 1, None, 3, None, None], "INT32")
    x = kd.slice([[1, 2, 3], [4]])
    check(kd.take(x, kd.item(1)), [2, None], "INT32")
    check(kd.take(x, kd.slice([[[0, 1]], [[0], [0, 0]]])), [[[1, 2]], [[4], [4, 4]]], "INT32")
    check(kd.at(kd.slice([1, 2, 3]), 1), 2, "INT32")
    check(kd.slices.at(kd.slice([1, "a", None]), kd.slice([1, 2])), ["a", None], "OBJECT")
    with pytest.raises(ValueError, match="DataItem is not supported"):
        kd.take(kd.item(1), kd.item(0))
    with pytest.raises(ValueError, match="invalid indices"):
        kd.take(kd.slice([1]), kd.slice([0.0]))
    with pytest.raises(ValueError, match="not compatible with shape"):
        kd.take(x, kd.slice([0, 1, 0]))


def test_reverse_and_range():
    check(kd.reverse(kd.slice([[1, None], [3], []])), [[None, 1], [3], []], "INT32")
    check(kd.reverse(kd.item(1)), 1, "INT32")
    check(kd.range(3), [0, 1, 2], "INT64")
    check(kd.range(kd.slice([1, None, 3]), 4), [[1, 2, 3], [], [3]], "INT64", "JaggedShape(3, [3, 0, 1])")
    check(kd.range(5, 2), [], "INT64")
    with pytest.raises(ValueError, match="integer values"):
        kd.range(1.0)


def test_repeat_and_tile():
    check(kd.repeat(kd.slice([1, 2, None]), kd.slice([1, 0, 2])), [[1], [], [None, None]], "INT32")
    check(kd.repeat(kd.item(1), 3), [1, 1, 1], "INT32")
    check(kd.repeat(kd.slice([1, 2]), kd.slice([[1, 2], [3]])), [[[1], [1, 1]], [[2, 2, 2]]], "INT32")
    check(kd.repeat_present(kd.slice([1, 2, None]), 2), [[1, 1], [2, 2], []], "INT32")
    with pytest.raises(ValueError, match="no missing size values"):
        kd.repeat(kd.slice([1, 2]), kd.slice([1, None]))
    check(kd.tile(kd.slice([1, 2]), kd.shapes.new(3)), [[1, 2], [1, 2], [1, 2]], "INT32")


# --- lookup --------------------------------------------------------------------

def test_translate():
    check(kd.translate(kd.slice(["a", "b", "c", None]), kd.slice(["a", "b"]), kd.slice([1, 2])), [1, 2, None, None], "INT32")
    check(kd.translate(kd.slice([["a", "b"], ["c", "a"]]), kd.slice(["a", "b"]), kd.slice([1, 2])), [[1, 2], [None, 1]], "INT32")
    check(kd.translate(kd.slice([1, "a"]), kd.slice(["a", 1]), kd.slice([1, 2])), [2, 1], "INT32")
    check(kd.translate(kd.slice([1, 2]), kd.slice([1, 2]), kd.item(5)), [5, 5], "INT32")
    with pytest.raises(ValueError, match="keys_from must be unique"):
        kd.translate(kd.slice(["a"]), kd.slice(["a", "a"]), kd.slice([1, 2]))
    with pytest.raises(ValueError, match="dict keys cannot be FLOAT32"):
        kd.translate(kd.slice([1]), kd.slice([1.0]), kd.slice([1]))
    with pytest.raises(ValueError, match="castable to keys_from schema"):
        kd.translate(kd.slice([1]), kd.slice(["a"]), kd.slice([1]))


def test_translate_group_and_isin():
    out = kd.translate_group(kd.slice(["a", "c", None]), kd.slice(["a", "b", "a", None]), kd.slice([1, 2, None, 4]))
    check(out, [[1, None], [], []], "INT32", "JaggedShape(3, [2, 0, 0])")
    check(kd.translate_group(kd.item("a"), kd.slice(["a", "b", "a"]), kd.slice([1, 2, 3])), [1, 3], "INT32")
    assert kd.isin(kd.item(1.0), kd.slice([[1], [2]])).to_py() is not None
    assert kd.isin(kd.item(float("nan")), kd.slice([float("nan")])).to_py() is None
    with pytest.raises(ValueError, match="must be a DataItem"):
        kd.isin(kd.slice([1]), kd.slice([1]))


def test_shape_checks():
    assert kd.is_shape_compatible(kd.slice([1, 2]), kd.slice([[1], [2, 3]])).to_py() is not None
    assert kd.is_shape_compatible(kd.slice([1, 2]), kd.slice([1, 2, 3])).to_py() is None
    assert kd.is_expandable_to(kd.slice([[1], [2, 3]]), kd.slice([1, 2])).to_py() is None
    assert kd.is_expandable_to(kd.slice([[1], [2, 3]]), kd.slice([1, 2]), ndim=1).to_py() is not None


_X = kd.slice([[1, 2], [3]])

# (operator, args, kwargs, expected repr or shape): each is one registry
# operator, the same eagerly, lazily and inside a saved functor.
_SHAPE_OPERATORS = [
    ("shapes.new", (2, kd.slice([2, 1])), {}, "JaggedShape(2, [2, 1])"),
    ("get_shape", (_X,), {}, "JaggedShape(2, [2, 1])"),
    ("shapes.get_shape", (_X,), {}, "JaggedShape(2, [2, 1])"),
    ("shapes.rank", (_X.get_shape(),), {}, "DataItem(2, schema: INT64)"),
    ("shapes.ndim", (kd.shapes.new(2, 3, 1),), {}, "DataItem(3, schema: INT64)"),
    ("shapes.size", (kd.shapes.new(2, [2, 1]),), {}, "DataItem(3, schema: INT64)"),
    ("shapes.get_sizes", (_X,), {}, "DataSlice([[2], [2, 1]], schema: INT64, present: 3/3)"),
    ("shapes.dim_sizes", (_X.get_shape(), 1), {}, "DataSlice([2, 1], schema: INT64, present: 2/2)"),
    ("shapes.dim_mapping", (_X.get_shape(), 1), {}, "DataSlice([0, 0, 1], schema: INT64, present: 3/3)"),
    ("reshape", (kd.slice([1, 2, 3, 4]),), {"shape": kd.shapes.new(2, 2)}, "DataSlice([[1, 2], [3, 4]], schema: INT32, present: 4/4)"),
    ("reshape", (kd.slice([1, 2, 3, 4]),), {"shape": (-1, 2)}, "DataSlice([[1, 2], [3, 4]], schema: INT32, present: 4/4)"),
    ("reshape_as", (kd.slice([1, 2, 3]), _X), {}, "DataSlice([[1, 2], [3]], schema: INT32, present: 3/3)"),
    ("flatten", (_X,), {}, "DataSlice([1, 2, 3], schema: INT32, present: 3/3)"),
    ("flatten", (kd.shapes.new(2, [2, 1]),), {}, "JaggedShape(3)"),
    ("shapes.flatten", (_X, 1, 1), {}, "DataSlice([[[1, 2]], [[3]]], schema: INT32, present: 3/3)"),
    ("flatten_end", (kd.slice([[[1, 2], [3]], [[4]]]),), {}, "DataSlice([[1, 2, 3], [4]], schema: INT32, present: 4/4)"),
    ("expand_to_shape", (kd.slice(["a", "b"]), kd.shapes.new(2, 2)), {},
     "DataSlice([['a', 'a'], ['b', 'b']], schema: STRING, present: 4/4)"),
    ("shapes.is_expandable_to_shape", (kd.slice([1, 2]), kd.shapes.new(2, [2, 1])), {}, "DataItem(present, schema: MASK)"),
    ("expand_to", (kd.slice([10, 20]), _X), {}, "DataSlice([[10, 10], [20]], schema: INT32, present: 3/3)"),
    ("slices.expand_to", (kd.slice([[1, 2], [3]]), kd.slice([[0, 0], [0]])), {"ndim": 1},
     "DataSlice([[[1, 2], [1, 2]], [[3]]], schema: INT32, present: 5/5)"),
    ("get_ndim", (_X,), {}, "DataItem(2, schema: INT64)"),
    ("slices.get_ndim", (kd.item(1),), {}, "DataItem(0, schema: INT64)"),
    ("align", (_X, kd.slice([10, 20])), {},
     "(DataSlice([[1, 2], [3]], schema: INT32, present: 3/3), DataSlice([[10, 10], [20]], schema: INT32, present: 3/3))"),
]


@pytest.mark.parametrize("name,args,kwargs,expected", _SHAPE_OPERATORS, ids=[c[0] for c in _SHAPE_OPERATORS])
def test_shape_operators_are_one_operator(one_operator, name, args, kwargs, expected):
    assert repr(one_operator(name, *args, **kwargs)) == expected


def test_shape_operators_in_expressions_show_their_arguments():
    assert repr(kd.lazy.reshape(kd.I.x, (-1, 3))) == "kd.reshape(I.x, (DataItem(-1, schema: INT32), DataItem(3, schema: INT32)))"
    assert repr(kd.lazy.reshape(kd.I.x, kd.shapes.new(2))) == "kd.reshape(I.x, JaggedShape(2))"
    assert repr(kd.lazy.shapes.new(2, [2, 1])) == (
        "kd.shapes.new(DataItem(2, schema: INT32), DataSlice([2, 1], schema: INT32, present: 2/2))")
    with pytest.raises(ValueError, match="only one dimension can be a placeholder"):
        kd.eval(kd.lazy.reshape(kd.I.x, (-1, -1)), x=kd.slice([1, 2]))


def test_subslice_is_one_operator_with_python_keys():
    x = kd.slice([[1, 2, 3], [4, 5]])
    assert isinstance(kd.subslice, type(kd.math.add)) and kd.slices.subslice is kd.subslice
    expected = "DataSlice([[2, 3], [5]], schema: INT32, present: 3/3)"
    assert repr(kd.subslice(x, slice(1, None))) == expected
    assert repr(kd.eval(kd.lazy.subslice(kd.I.x, slice(1, None)), x=x)) == expected
    for f in (kd.fn(lambda x: x.S[1:]), kd.fn(lambda x: kd.subslice(x, ..., slice(1, None)))):
        assert repr(f(x)) == expected
        assert repr(kd.loads(kd.dumps(f))(x)) == expected
    g = kd.fn(lambda x: kd.subslice(x, 1, ...))
    assert kd.loads(kd.dumps(g))(x).to_py() == [4, 5]
    assert repr(kd.lazy.subslice(kd.I.x, 1, ...)) == "I.x.S[DataItem(1, schema: INT32), ...]"
    with pytest.raises(ValueError, match="kd.slices.subslice: slicing argument at position 0 is invalid: .step. argument of a Slice is not supported"):
        kd.subslice(x, slice(None, None, 2))


def test_select_of_large_slices_in_parallel_chunks():
    # Past 128K items the filter runs in chunks on the worker pool: the
    # same items, presence and shape as one pass.
    import random

    rng = random.Random(3)
    n = 300_007
    ints = [None if rng.random() < 0.1 else rng.randint(-50, 50) for _ in range(n)]
    keep = [rng.random() < 0.6 for _ in range(n)]
    mask = kd.slice([kd.present if k else None for k in keep], kd.MASK)
    expected = [v for v, k in zip(ints, keep) if k]
    assert kd.select(kd.slice(ints), mask).to_py() == expected
    assert kd.select(kd.slice([float(v) if v is not None else None for v in ints], kd.FLOAT64), mask).to_py() == \
        [float(v) if v is not None else None for v in expected]
    bools = [None if v is None else v > 0 for v in ints]
    assert kd.select(kd.slice(bools), mask).to_py() == [b for b, k in zip(bools, keep) if k]
    people = kd.new(a=kd.slice(ints))
    kd.testing.assert_equal(kd.select(people, mask).a, kd.select(kd.slice(ints), mask).with_bag(people.get_bag()))
    rows = kd.reshape(kd.slice(ints), kd.shapes.new(n // 7 + 1 if n % 7 else n // 7, [7] * (n // 7) + ([n % 7] if n % 7 else [])))
    kept_rows = kd.select(rows, rows > 0)
    assert kept_rows.to_py() == [[v for v in row if v is not None and v > 0] for row in rows.to_py()]


def test_unique_per_row_of_many_rows_in_parallel_runs():
    # Past 128K items, runs of rows are computed at once on the worker pool:
    # the same firsts, order and sizes as one pass (sorted or not).
    import random

    rng = random.Random(5)
    rows = [[None if rng.random() < 0.05 else rng.randint(0, 40) for _ in range(rng.randint(0, 60))] for _ in range(6000)]
    x = kd.slice(rows)
    assert kd.size(x).to_py() > 131_072

    def firsts(row):
        out = []
        for v in row:
            if v is not None and v not in out:
                out.append(v)
        return out
    assert kd.unique(x).to_py() == [firsts(r) for r in rows]
    assert kd.unique(x, sort=True).to_py() == [sorted(firsts(r)) for r in rows]
    strings = kd.slice([[None if v is None else str(v) for v in r] for r in rows])
    assert kd.unique(strings).to_py() == [[str(v) for v in firsts(r)] for r in rows]
