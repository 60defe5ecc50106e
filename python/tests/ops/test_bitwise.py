"""kd.bitwise: values, schemas, missing items, broadcasting and errors
(each expectation checked on koladata 0.0.4)."""

import pytest

from plait import kd


def test_binary_operators_promote_and_broadcast():
    assert repr(kd.bitwise.bitwise_and(kd.slice([1, 6, None, 7]), 3)) == "DataSlice([1, 2, None, 3], schema: INT32, present: 3/4)"
    assert repr(kd.bitwise_or(kd.slice([1, 2]), kd.int64(4))) == "DataSlice([5, 6], schema: INT64, present: 2/2)"
    assert repr(kd.bitwise_xor(kd.slice([[1, 2], [3]]), kd.slice([1, 2]))) == "DataSlice([[0, 3], [1]], schema: INT32, present: 3/3)"
    assert repr(kd.bitwise_or(kd.slice([1, None, 7], kd.OBJECT), 3)) == "DataSlice([3, None, 7], schema: OBJECT, present: 2/3)"
    assert repr(kd.bitwise_and(None, 1)) == "DataItem(None, schema: INT32)"


def test_invert_and_count():
    assert kd.bitwise.invert(kd.slice([0, 1, None, -8])).to_py() == [-1, -2, None, 7]
    assert repr(kd.bitwise_invert(kd.int64(5))) == "DataItem(-6, schema: INT64)"
    assert repr(kd.bitwise.invert(kd.slice([None]))) == "DataSlice([None], schema: NONE, present: 0/1)"
    assert repr(kd.bitwise.count(kd.slice([1, 2, None, -1]))) == "DataSlice([1, 1, None, 32], schema: INT32, present: 3/4)"
    assert repr(kd.bitwise_count(kd.int64(-1))) == "DataItem(64, schema: INT32)"
    # Always INT32, even for OBJECT and missing inputs.
    assert repr(kd.bitwise.count(kd.slice([1, None], kd.OBJECT))) == "DataSlice([1, None], schema: INT32, present: 1/2)"
    assert repr(kd.bitwise.count(None)) == "DataItem(None, schema: INT32)"


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: kd.bitwise.bitwise_and(1.0, 2), "kd.bitwise.bitwise_and: argument `x` must be a slice of integer values, got a slice of FLOAT32"),
        (lambda: kd.bitwise.bitwise_and(1, kd.bool(True)), "kd.bitwise.bitwise_and: argument `y` must be a slice of integer values, got a slice of BOOLEAN"),
        (lambda: kd.bitwise.invert(kd.present), "kd.bitwise.invert: argument `x` must be a slice of integer values, got a slice of MASK"),
        (
            lambda: kd.bitwise.bitwise_and(kd.slice([1, "a"], kd.OBJECT), 1),
            "kd.bitwise.bitwise_and: argument `x` must be a slice of integer values, got a slice of OBJECT containing INT32 and STRING values",
        ),
        (lambda: kd.bitwise.bitwise_xor(kd.slice([1, 2]), kd.slice([1, 2, 3])), "kd.bitwise.bitwise_xor: shapes are not compatible: JaggedShape(2) vs JaggedShape(3)"),
    ],
)
def test_errors(call, message):
    with pytest.raises(ValueError) as e:
        call()
    assert str(e.value).splitlines()[0] == message


def test_lazy_forms():
    expr = kd.lazy.bitwise.bitwise_and(kd.I.x, 6)
    assert kd.eval(expr, x=kd.slice([3, 5])).to_py() == [2, 4]
