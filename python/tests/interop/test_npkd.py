"""kd_ext.npkd (issue 8, first part): numpy arrays to and from DataSlices,
zero-copy views where promised, and the same results as Koda's npkd."""

import numpy as np
import pytest

from plait import kd
from plait.kd_ext import npkd


@pytest.mark.parametrize("arr, text", [
    (np.array([1, 2, 3], dtype=np.int32), "DataSlice([1, 2, 3], schema: INT32, present: 3/3)"),
    (np.array([1.5, 2.5]), "DataSlice([1.5, 2.5], schema: FLOAT64, present: 2/2)"),
    (np.array([[1, 2], [3, 4]]), "DataSlice([[1, 2], [3, 4]], schema: INT64, present: 4/4)"),
    (np.array(["a", "b"]), "DataSlice(['a', 'b'], schema: STRING, present: 2/2)"),
    (np.array([True, False]), "DataSlice([True, False], schema: BOOLEAN, present: 2/2)"),
    (np.array([1, None], dtype=object), "DataSlice([1, None], schema: INT32, present: 1/2)"),
    (np.array([1, 2], dtype=np.uint8), "DataSlice([1, 2], schema: INT32, present: 2/2)"),
    (np.array([0.5], dtype=np.float32), "DataSlice([0.5], schema: FLOAT32, present: 1/1)"),
    (np.arange(6, dtype=np.int64).reshape(2, 3)[:, 1], "DataSlice([1, 4], schema: INT64, present: 2/2)"),
])
def test_from_array(arr, text):
    assert repr(npkd.from_array(arr)) == text


def test_from_array_copies():
    arr = np.array([1, 2, 3], dtype=np.int32)
    ds = npkd.from_array(arr)
    arr[0] = 100  # plait's data is immutable
    assert ds.to_py() == [1, 2, 3]


@pytest.mark.parametrize("ds, expected", [
    (kd.slice([1, 2, 3]), np.array([1, 2, 3], dtype=np.int32)),
    (kd.slice([1, None, 3]), np.array([1, 0, 3], dtype=np.int32)),
    (kd.slice([[1, 2], [3, 4]]), np.array([[1, 2], [3, 4]], dtype=np.int32)),
    (kd.item(5), np.array(5, dtype=np.int32)),
    (kd.slice([kd.present, None]), np.array([True, False])),
    (kd.int64(kd.slice([7])), np.array([7], dtype=np.int64)),
])
def test_to_array(ds, expected):
    got = npkd.to_array(ds)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert (got == expected).all()


def test_to_array_with_missing_and_text():
    got = npkd.to_array(kd.slice([1.5, None]))
    assert got.dtype == np.float32 and got[0] == 1.5 and np.isnan(got[1])
    assert npkd.to_array(kd.slice(["a", None])).tolist() == ["a", None]
    assert npkd.to_array(kd.slice([True, None])).tolist() == [True, None]
    with pytest.raises(ValueError, match="DataSlice has non-uniform shape. Please flatten it first."):
        npkd.to_array(kd.slice([[1, 2], [3]]))


def test_to_array_is_a_zero_copy_read_only_view():
    ds = npkd.from_array(np.arange(1_000_000, dtype=np.float32))
    first, second = npkd.to_array(ds), npkd.to_array(ds)
    # Both views point at plait's one buffer.
    assert first.__array_interface__["data"][0] == second.__array_interface__["data"][0]
    assert not first.flags.writeable
    with pytest.raises(ValueError):
        first[0] = 1.0
    del ds  # the view keeps the buffer alive
    assert first[999_999] == 999_999.0


def test_indices_round_trip():
    ds = kd.slice([[1, 2], [3], [], [4, 5, 6]])
    indices = npkd.get_elements_indices_from_ds(ds)
    assert [i.tolist() for i in indices] == [[0, 0, 1, 3, 3, 3], [0, 1, 0, 0, 1, 2]]
    assert repr(npkd.reshape_based_on_indices(ds.flatten(), indices)) == (
        "DataSlice([[1, 2], [3], [], [4, 5, 6]], schema: INT32, present: 6/6)")


def test_same_as_koda(koda):
    pytest.importorskip("koladata.ext.npkd")
    from koladata.ext import npkd as koda_npkd

    for arr in [np.array([1, 2, 3], dtype=np.int32), np.array([[1.5, 2.5]]), np.array(["a", "b"]), np.array([True])]:
        assert repr(npkd.from_array(arr)) == repr(koda_npkd.from_array(arr))
    for values in [[1, None, 3], [1.5, None], ["a", None], [[1, 2], [3, 4]]]:
        ours, theirs = npkd.to_array(kd.slice(values)), koda_npkd.to_array(koda.slice(values))
        assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
        assert np.array_equal(ours, theirs, equal_nan=ours.dtype.kind == "f")


@pytest.mark.parametrize(("values", "schema", "fmt"), [([1, 2], kd.INT32, "i"), ([1, 2], kd.INT64, "l"),
                                                       ([1.5, 2.5], kd.FLOAT32, "f"), ([1.5, 2.5], kd.FLOAT64, "d")])
def test_array_views_have_the_read_only_buffer_protocol(values, schema, fmt):
    from plait import _plait

    view, _ = _plait.numpy_view(kd.slice(values, schema))
    m = memoryview(view)
    assert (m.format, m.readonly, m.ndim, m.shape, m.tolist()) == (fmt, True, 1, (2,), values)
    with pytest.raises(TypeError):
        m[0] = 0  # read-only
    # The buffer protocol comes first in numpy, so the array is typed alike.
    assert np.asarray(view).tolist() == values and not np.asarray(view).flags.writeable
    del view  # the memoryview keeps plait's buffer alive
    assert m.tolist() == values
