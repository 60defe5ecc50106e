"""Boxing of numbers: the fast path (exact ints/floats/None) and its fallbacks
must give exactly what the general path gives."""

import pytest

from plait import kd


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ([1, 2, 3], "DataSlice([1, 2, 3], schema: INT32, present: 3/3)"),
        ([None, 1], "DataSlice([None, 1], schema: INT32, present: 1/2)"),
        ([1, None], "DataSlice([1, None], schema: INT32, present: 1/2)"),
        ([None, None], "DataSlice([None, None], schema: NONE, present: 0/2)"),
        ([1, 2**40], "DataSlice([1, 1099511627776], schema: INT64, present: 2/2)"),
        ([1, 2.5], "DataSlice([1.0, 2.5], schema: FLOAT32, present: 2/2)"),
        ([2**40, 0.5], "DataSlice([1099511600000.0, 0.5], schema: FLOAT32, present: 2/2)"),
        ([0.5, None, 1], "DataSlice([0.5, None, 1.0], schema: FLOAT32, present: 2/3)"),
        ([0.1, 1e300], "DataSlice([0.1, 1e300], schema: FLOAT64, present: 2/2)"),
        ([float("inf"), 1.0], "DataSlice([inf, 1.0], schema: FLOAT32, present: 2/2)"),
        ([1, 2**64 + 5], "DataSlice([1, 5], schema: INT64, present: 2/2)"),
        ([1, True], "DataSlice([1, True], schema: OBJECT, present: 2/2)"),
        ([True, 1], "DataSlice([True, 1], schema: OBJECT, present: 2/2)"),
        ([[1, None], [], [2.5]], "DataSlice([[1.0, None], [], [2.5]], schema: FLOAT32, present: 2/3)"),
        ((1, 2), "DataSlice([1, 2], schema: INT32, present: 2/2)"),
        ([-(2**31), 2**31 - 1], "DataSlice([-2147483648, 2147483647], schema: INT32, present: 2/2)"),
        ([-(2**31) - 1], "DataSlice([-2147483649], schema: INT64, present: 1/1)"),
    ],
)
def test_number_lists(value, expected):
    assert repr(kd.slice(value)) == expected


def test_int_subclasses_take_the_general_path():
    class MyInt(int):
        pass

    assert repr(kd.slice([MyInt(3), 4])) == "DataSlice([3, 4], schema: INT32, present: 2/2)"


def test_schema_argument_converts_from_python_values():
    assert repr(kd.slice([0.1, 2], schema=kd.FLOAT64)) == "DataSlice([0.1, 2.0], schema: FLOAT64, present: 2/2)"
    assert repr(kd.slice([1, None], schema=kd.INT64)) == "DataSlice([1, None], schema: INT64, present: 1/2)"


def test_float64_casts_of_python_floats_keep_double_precision():
    assert repr(kd.float64(0.1)) == "DataItem(0.1, schema: FLOAT64)"
    assert repr(kd.float64([0.1, 1])) == "DataSlice([0.1, 1.0], schema: FLOAT64, present: 2/2)"
    assert repr(kd.schema.to_float64(1e300)) == "DataItem(1e300, schema: FLOAT64)"
    # A DataSlice already FLOAT32 is cast as it is.
    assert kd.float64(kd.float32(0.1)).to_py() != 0.1


def test_bytes_repr_escapes_both_quotes():
    assert repr(kd.item(b"a'b\"\x00\n")) == "DataItem(b'a\\'b\\\"\\x00\\n', schema: BYTES)"
