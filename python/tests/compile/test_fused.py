"""kd.core._fused: a group of elementwise operators in one pass gives what
the operators give one by one — every operator of a group, every numeric
type, missing items, broadcasting, inputs large enough for many chunks and
threads, bags — and where it declines, the eager result or error."""

import itertools
import re

import numpy as np
import pytest

from plait import kd
from plait.kd import I

BINARY = [kd.lazy.math.add, kd.lazy.math.subtract, kd.lazy.math.multiply, kd.lazy.math.divide, kd.lazy.math.pow,
          kd.lazy.math.floordiv, kd.lazy.math.mod, kd.lazy.math.maximum, kd.lazy.math.minimum]
UNARY = [kd.lazy.math.neg, kd.lazy.math.pos, kd.lazy.math.abs, kd.lazy.math.sign, kd.lazy.math.round, kd.lazy.math.floor,
         kd.lazy.math.ceil, kd.lazy.math.log, kd.lazy.math.log10, kd.lazy.math.exp, kd.lazy.math.sqrt]
COMPARE = [kd.lazy.comparison.equal, kd.lazy.comparison.not_equal, kd.lazy.comparison.less, kd.lazy.comparison.less_equal,
           kd.lazy.comparison.greater, kd.lazy.comparison.greater_equal]
TYPES = [kd.INT32, kd.INT64, kd.FLOAT32, kd.FLOAT64]


def numbers(n, dtype, seed, missing=0.1, zeros=True):
    rng = np.random.default_rng(seed)
    values = rng.integers(-5, 6, n) if dtype in (kd.INT32, kd.INT64) else rng.standard_normal(n) * 3
    if not zeros:
        values[values == 0] = 1
    out = values.tolist()
    for i in np.flatnonzero(rng.random(n) < missing):
        out[i] = None
    if dtype in (kd.FLOAT32, kd.FLOAT64) and n > 3:
        out[1], out[2] = float("nan"), float("inf")
    return kd.slice(out, dtype)


def fused(body, *inputs):
    return kd.core._fused(kd.expr.pack_expr(body), *inputs)


def same(a, b):
    kd.testing.assert_equal(a, b)


def check(body, *inputs):
    """Fused equals the body evaluated operator by operator (the plan, with
    no fusion), or raises the same error."""
    try:
        expected = kd.eval(body, **{f"_{k}": x for k, x in enumerate(inputs)})
    except ValueError as e:
        with pytest.raises(ValueError, match=re.escape(str(e).split("\n")[0])):
            fused(body, *inputs)
        return
    same(fused(body, *inputs), expected)


@pytest.mark.parametrize("op", BINARY, ids=lambda op: op.name)
def test_binary_operators_on_every_pair_of_types(op):
    for (tx, ty), n in itertools.product(itertools.product(TYPES, TYPES), [5, 3000]):
        x, y = numbers(n, tx, 1), numbers(n, ty, 2, zeros=False)
        check(op(op(I._0, I._1), I._1), x, y)


@pytest.mark.parametrize("op", UNARY, ids=lambda op: op.name)
def test_unary_operators_on_every_type(op):
    for t in TYPES:
        x = numbers(3000, t, 3)
        check(kd.lazy.math.add(op(I._0), I._0), x)


@pytest.mark.parametrize("op", COMPARE, ids=lambda op: op.name)
def test_comparisons_give_masks(op):
    for tx, ty in itertools.product(TYPES, TYPES):
        x, y = numbers(2500, tx, 4), numbers(2500, ty, 5)
        check(kd.lazy.masking.apply_mask(I._0 + 1, op(I._0, I._1)), x, y)
        check(kd.lazy.masking.mask_and(op(I._0, I._1), I._1 > 0), x, y)


def test_casts_up_the_lattice_fuse_and_others_decline():
    for t in TYPES:
        x = numbers(3000, t, 11)
        for cast in (kd.lazy.int32, kd.lazy.int64, kd.lazy.float32, kd.lazy.float64):
            check(cast(I._0 * 3) + 1, x)
    body = kd.lazy.float32(I._0 + 1) * 2
    program = kd.compile(lambda x: kd.float32(x + 1) * 2)
    assert "kd.core._fused" in program.lower(kd.slice([1]))
    check(body, kd.slice([1, None, 3]))


def test_masks_and_coalesce():
    x, y = numbers(5000, kd.FLOAT32, 6, missing=0.3), numbers(5000, kd.INT64, 7, missing=0.3)
    check((I._0 & (I._1 > 0)) | (I._1 * 2), x, y)
    check(kd.lazy.masking.has(I._0) | (I._1 > 3), x, y)
    check(~kd.lazy.masking.has(I._0) & (I._1 > 0), x, y)
    check(kd.lazy.masking.mask_or(I._0 > 0, kd.lazy.masking.has_not(I._1)), x, y)
    check((I._0 | None) + (I._1 | 1), x, y)


def test_many_chunks_and_threads():
    n = 700_001  # more than one parallel task, an odd tail
    x, y = numbers(n, kd.FLOAT32, 8, missing=0.05), numbers(n, kd.INT32, 9, missing=0.0)
    check(((I._0 * 1.5 + I._1) & (I._0 > 0)) | (I._1 / 3), x, y)
    full = kd.slice(np.arange(n, dtype=np.float64))
    result = fused(kd.lazy.math.abs(I._0 - 10.0) * 2.0, full)
    assert result.get_present_count().to_py() == n
    check(kd.lazy.math.abs(I._0 - 10.0) * 2.0, full)


def test_broadcasting_items_and_lower_ranks():
    rows = kd.slice([[1.0, None, 3.0], [], [4.0, 5.0]])
    per_row = kd.slice([10, None, 20])
    check((I._0 + I._1) * I._2 - 1, rows, per_row, kd.item(2.0))
    check((I._0 + I._1) * I._2 - 1, rows, per_row, kd.item(None, kd.FLOAT32))
    check(I._0 * 2 + I._1, kd.item(3), kd.item(4.5))


def test_declines_give_the_eager_result_or_error():
    with pytest.raises(ValueError, match="kd.math.floordiv: division by zero"):
        fused(I._0 // I._1 + 1, kd.slice([1, 2]), kd.slice([1, 0]))
    # A zero divisor at a missing item is no error.
    check(I._0 // I._1 + 1, kd.slice([1, None]), kd.slice([1, 0]))
    check(I._0 + I._1 + "!", kd.slice(["a", "b"]), kd.slice(["c", "d"]))
    check(I._0 * 2 + 1, kd.slice([1, 2], kd.OBJECT))
    with pytest.raises(ValueError, match="kd.math.multiply: DataSlice with mixed types is not supported"):
        fused(I._0 * 2 + 1, kd.slice([1, 2.5], kd.OBJECT))
    with pytest.raises(ValueError, match="shapes are not compatible"):
        fused(I._0 * 2 + I._1, kd.slice([1, 2]), kd.slice([1, 2, 3]))


def test_bags_follow_the_operators():
    bag = kd.bag()
    x = kd.slice([1, 2, None]).with_bag(bag)
    # Computed numbers carry no bag; `|` passes its inputs' bags through.
    same(fused(I._0 * 2 + 1, x), (x * 2 + 1))
    assert repr(fused(I._0 * 2 + 1, x).get_bag()) == repr((x * 2 + 1).get_bag())
    result = fused((I._0 * 2) | I._1, x, kd.slice([7, 7, 7]))
    same(result, (x * 2) | kd.slice([7, 7, 7]))
    entity = kd.new(a=kd.slice([1.0, 2.0]))
    same(fused(I._0 * 2 + 1, entity.a), entity.a * 2 + 1)


def test_fused_nodes_type_their_bodies():
    f = kd.fn(lambda x: fused(I._0 * 2 + 1.5, x), input_types={"x": "INT32[n]"})
    assert repr(kd.typing.get_type(f)) == "(x: INT32[n]) -> FLOAT32[n]"
