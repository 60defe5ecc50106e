"""Bad input raises a clear Python exception, never a crash."""

import pytest

from plait import _plait, kd


def test_inconsistent_nesting():
    with pytest.raises(ValueError, match="kd.slice: input has to be a valid nested list"):
        kd.slice([1, [2]])
    with pytest.raises(ValueError, match="non-lists and lists cannot be mixed"):
        kd.slice([[1, 2], 3])


def test_non_prefix_expand_shows_both_shapes():
    with pytest.raises(ValueError) as info:
        kd.expand_to(kd.slice([1, 2, 3]), kd.slice([[1], [2]]))
    assert "JaggedShape(3)" in str(info.value) and "JaggedShape(2, 1)" in str(info.value)
    assert str(info.value).startswith("kd.slices.expand_to:")


def test_impossible_cast_shows_value_and_schema():
    with pytest.raises(ValueError, match=r"kd.slices.int32: unable to parse INT32: 'abc'"):
        kd.int32("abc")
    with pytest.raises(ValueError, match="kd.slices.int32: cannot cast nan to int32"):
        kd.int32(float("nan"))
    with pytest.raises(ValueError, match="casting a DataSlice with schema MASK to INT32 is not supported"):
        kd.int32(kd.present)
    with pytest.raises(ValueError, match="only missing values can be converted to NONE"):
        kd.item(1, schema=kd.NONE)


def test_out_of_range_index_gives_missing():
    x = kd.slice(["a", "b"])
    assert repr(x.S[5]) == "DataItem(None, schema: STRING)"
    assert repr(kd.slice([[1, 2], [3]]).S[1]) == "DataSlice([2, None], schema: INT32, present: 1/2)"


def test_too_many_indices():
    with pytest.raises(ValueError, match="larger than x.ndim: 3 > 2"):
        kd.slice([[1]]).S[0, 0, 0]
    with pytest.raises(ValueError, match="1 > 0"):
        kd.item(1).S[:]


def test_bad_index_types():
    # As Koda: keys are boxed, then the kernel names what it got.
    with pytest.raises(ValueError, match="kd.slices.subslice: the provided indices must contain only integers, got STRING"):
        kd.slice([1]).S["a"]
    with pytest.raises(ValueError, match="indices must contain only integers, got BOOLEAN"):
        kd.slice([1]).S[True]
    with pytest.raises(ValueError, match="'stop' argument of a Slice must contain only integers, got STRING"):
        kd.slice([1]).S[:"a"]
    with pytest.raises(ValueError, match="passing a Python list to a Koda operation is ambiguous"):
        kd.slice([1]).S[[0]]
    # Any step is refused, even 1 (Koda's rule), naming the key's position.
    for step in (2, 1):
        with pytest.raises(ValueError, match="slicing argument at position 1 is invalid: 'step' argument of a Slice is not supported"):
            kd.slice([[1, 2]]).S[:, ::step]
        with pytest.raises(ValueError, match="slicing argument at position 1 is invalid: 'step'"):
            kd.subslice(kd.slice([[1, 2]]), slice(None), slice(None, None, step))


def test_unsupported_python_objects():
    with pytest.raises(ValueError, match="object with unsupported type"):
        kd.slice(object())
    with pytest.raises(ValueError, match="object with unsupported type: dict"):
        kd.slice({1: 2})
    with pytest.raises(TypeError, match="kd.item"):
        kd.item([1])


def test_reshape_size_mismatch():
    with pytest.raises(ValueError, match="shape_size=5 != items_size=6"):
        kd.reshape(kd.slice([1, 2, 3, 4, 5, 6]), kd.shapes.new(5))


def test_shapes_new_validates():
    with pytest.raises(ValueError, match="dimension 1 has 3 size"):
        kd.shapes.new(2, [1, 2, 3])
    with pytest.raises(ValueError, match="negative"):
        kd.shapes.new(-1)


def test_bool_only_for_masks():
    assert bool(kd.present) is True
    assert bool(kd.missing) is False
    with pytest.raises(ValueError, match="non-MASK"):
        bool(kd.item(1))
    with pytest.raises(TypeError, match="__bool__ disabled for plait.types.DataSlice"):
        bool(kd.slice([kd.present]))


def test_no_len_or_iteration_on_slices():
    with pytest.raises(TypeError):
        len(kd.slice([1, 2]))
    assert [repr(i) for i in kd.slice([1, 2]).L] == ["DataItem(1, schema: INT32)", "DataItem(2, schema: INT32)"]
    assert len(kd.slice([[1], [2, 3]]).L) == 2


def test_rust_panic_becomes_runtime_error():
    with pytest.raises(RuntimeError, match="internal error in plait"):
        _plait._debug_panic()


def test_schema_argument_must_be_a_schema():
    # Koda's texts, after the operator's name.
    with pytest.raises(ValueError, match="^kd.slice: schema's schema must be SCHEMA, got: INT32$"):
        kd.slice([1], schema=kd.item(1))
    with pytest.raises(TypeError, match="^kd.item: expecting schema to be a DataSlice, got int$"):
        kd.item(1, schema=1)
    with pytest.raises(ValueError, match=r"^kd.slice: schema can only be 0-rank schema slice, got: rank\(1\)$"):
        kd.slice([1], schema=kd.slice([kd.INT32]))
    with pytest.raises(ValueError, match="^kd.item: schema must contain either a DType or valid schema ItemId, got None$"):
        kd.item(1, kd.item(None, kd.SCHEMA))


def test_dataslice_indices():
    x = kd.slice([["a", "b"], ["c"], ["d", "e", "f"]])
    assert x.S[kd.slice([[0], [0, 5], [1, -1]])].to_py() == [["a"], ["c", None], ["e", "f"]]
    assert x.S[kd.slice([1, 0, 2]), kd.slice([0, 0, 1])].to_py() == ["c", "a", "e"]
    assert x.S[kd.slice([1, None, 0]), :].to_py() == [["c"], [], ["a", "b"]]
    with pytest.raises(ValueError, match=r"shapes are not compatible: JaggedShape\(2\) vs JaggedShape\(3\)"):
        x.S[kd.slice([0, 2])]
    with pytest.raises(ValueError, match="indices must contain only integers, got STRING"):
        x.S[kd.slice(["a", "b", "c"])]


def test_with_schema_reinterprets_only_matching_items():
    assert repr(kd.slice([1, 2], kd.OBJECT).with_schema(kd.INT32)) == "DataSlice([1, 2], schema: INT32, present: 2/2)"
    assert repr(kd.slice([None], kd.INT32).with_schema(kd.STRING)) == "DataSlice([None], schema: STRING, present: 0/1)"
    with pytest.raises(ValueError, match="INT64 schema can only be assigned to a DataSlice that contains only primitives of INT64"):
        kd.slice([1, 2]).with_schema(kd.INT64)
    with pytest.raises(ValueError, match="NONE schema requires DataSlice to be empty and unknown"):
        kd.slice([1]).with_schema(kd.NONE)


def test_items_are_hashable_slices_are_not():
    assert hash(kd.item(1)) == hash(kd.item(1))
    assert hash(kd.item(1)) != hash(kd.int64(1))
    assert hash(kd.INT32) == hash(kd.INT32)
    with pytest.raises(TypeError, match="unhashable type"):
        hash(kd.slice([1]))


def test_huge_and_recursive_inputs_raise_instead_of_crashing():
    huge = kd.shapes.new(10**12, 2)
    assert repr(huge) == "JaggedShape(1000000000000, 2)"
    with pytest.raises(ValueError, match="more than this machine can allocate"):
        kd.expand_to_shape(kd.item(1), huge)
    with pytest.raises(ValueError, match="more than 2\\*\\*63 items"):
        kd.shapes.new(2**62, 4)
    looped = []
    looped.append(looped)
    with pytest.raises(ValueError, match="input contains itself"):
        kd.slice(looped)
    deep = 1
    for _ in range(300):
        deep = [deep]
    with pytest.raises(ValueError, match="nested more than 256 levels"):
        kd.slice(deep)
