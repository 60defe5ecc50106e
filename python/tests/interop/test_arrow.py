"""kd_ext.arrow (issue 8, first part): jagged DataSlices to and from Arrow
(nested large-list arrays), sharing buffers both ways, and the Arrow
PyCapsule interface."""

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")

from plait import kd  # noqa: E402
from plait.kd_ext import arrow, npkd  # noqa: E402


@pytest.mark.parametrize("values", [
    [1, 2, 3], [[1, 2], [3], []], [[[1.5], [2.5, None]], []], [1.0, None], [], [[None, None]],
])
def test_round_trips(values):
    ds = kd.slice(values)
    array = arrow.to_arrow(ds)
    assert array.to_pylist() == values
    assert repr(arrow.from_arrow(array)) == repr(ds)


def test_types_and_items():
    assert arrow.to_arrow(kd.slice([[1, 2], [3]])).type == pa.large_list(pa.int32())
    assert arrow.to_arrow(kd.int64(kd.slice([1]))).type == pa.int64()
    assert arrow.to_arrow(kd.item(3)).to_pylist() == [3]
    assert repr(arrow.from_arrow(pa.array([[1, 2], [3]]))) == "DataSlice([[1, 2], [3]], schema: INT64, present: 3/3)"
    assert repr(arrow.from_arrow(pa.array([1.5, None], type=pa.float32()))) == (
        "DataSlice([1.5, None], schema: FLOAT32, present: 1/2)")
    assert arrow.from_arrow(pa.chunked_array([[1], [2, 3]])).to_py() == [1, 2, 3]
    sliced = pa.array([[1], [2, 3], [4]]).slice(1, 2)
    assert arrow.from_arrow(sliced).to_py() == [[2, 3], [4]]
    with pytest.raises(ValueError, match="DataSlices of STRING are not supported yet"):
        arrow.to_arrow(kd.slice(["a"]))
    with pytest.raises(ValueError, match="missing lists are not supported"):
        arrow.from_arrow(pa.array([[1], None]))
    with pytest.raises(ValueError, match="Arrow values of type string are not supported yet"):
        arrow.from_arrow(pa.array(["a"]))


def test_values_and_offsets_are_shared_not_copied():
    ds = kd.slice([[1.0, 2.0], [3.0]] * 1000)
    array = arrow.to_arrow(ds)
    values = array.values
    assert values.buffers()[1].address == npkd.to_array(ds.flatten()).__array_interface__["data"][0]
    back = arrow.from_arrow(array)
    assert npkd.to_array(back.flatten()).__array_interface__["data"][0] == values.buffers()[1].address
    # The offsets are the shape's split points, shared too.
    offsets = np.frombuffer(array.buffers()[1], dtype=np.int64)
    assert offsets[:4].tolist() == [0, 2, 3, 5]


def test_arrow_pycapsule_interface():
    ds = kd.slice([[1, 2], [3]])
    assert pa.array(ds).to_pylist() == [[1, 2], [3]]
    assert pa.array(kd.slice([1.5, None])).to_pylist() == [1.5, None]
