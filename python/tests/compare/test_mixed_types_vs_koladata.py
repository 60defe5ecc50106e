"""plait against koladata on OBJECT slices holding items of several types
(numbers of each width, text, bytes, booleans, masks, entities side by
side, some missing), and on the shape operators that copy items a column
at a time: comparisons, select, coalesce, cond, collapse, stack, zip,
unique, text of floats.

Each program runs on both libraries; the outcomes must agree: the same repr
(ids and bag ids masked), or the same exception type and first message
line."""

import pytest

from plait import kd as pkd

from koda_compare import assert_same_repr_outcome, message_outcome, repr_outcome as outcome

kkd = pytest.importorskip("koladata.kd")


def _mixed(kd, n=60, shift=0):
    def item(i):
        k = (i + shift) % 9
        return [i, f"s{i % 4}", i * 0.5, None, b"b", True, kd.int64(i), kd.float64(i / 4), i % 3 == 0][k]
    return kd.slice([item(i) for i in range(n)], kd.OBJECT)


def _with_entities(kd):
    e = kd.obj(a=1)
    return kd.slice([e, 1, "x", e, None, kd.obj(a=1), 2.0], kd.OBJECT), e


def _mask(kd, n=60):
    return kd.slice([kd.present if i % 3 else None for i in range(n)], kd.MASK)


PROGRAMS = {
    "equal_mixed": lambda kd: _mixed(kd) == _mixed(kd, shift=1),
    "equal_self": lambda kd: _mixed(kd) == _mixed(kd),
    "not_equal_mixed": lambda kd: _mixed(kd) != _mixed(kd, shift=3),
    "equal_item": lambda kd: _mixed(kd) == 3,
    "equal_text_item": lambda kd: _mixed(kd) == "s1",
    "equal_float_item": lambda kd: _mixed(kd) == 1.0,
    "not_equal_item": lambda kd: _mixed(kd) != 4,
    "equal_int64_int32": lambda kd: kd.slice([kd.int64(1), 2, "a"], kd.OBJECT) == kd.slice([1, kd.int64(2), "a"], kd.OBJECT),
    "equal_nan": lambda kd: kd.slice([float("nan"), 1, "a"], kd.OBJECT) == kd.slice([float("nan"), 1.0, "a"], kd.OBJECT),
    "equal_entities": lambda kd: (lambda s, e: s == e)(*_with_entities(kd)),
    "not_equal_entities": lambda kd: (lambda s, e: s != e)(*_with_entities(kd)),
    "equal_mixed_2d": lambda kd: kd.slice([[1, "a"], [2.0, None, b"x"]], kd.OBJECT) == kd.slice([1, 2], kd.OBJECT),
    "equal_int32_float32_mixed": lambda kd: kd.slice([kd.int32(16777217), "a"], kd.OBJECT) == kd.slice([kd.float32(16777216.0), "a"], kd.OBJECT),
    "equal_int64_float32_mixed": lambda kd: kd.slice([kd.int64(2**40 + 1), "a"], kd.OBJECT) == kd.slice([kd.float32(2**40), "a"], kd.OBJECT),
    "equal_int64_float64_mixed": lambda kd: kd.slice([kd.int64(2**53 + 1), "a"], kd.OBJECT) == kd.slice([kd.float64(2**53), "a"], kd.OBJECT),
    "full_equal_int32_float32": lambda kd: kd.full_equal(kd.slice([kd.int32(16777217)], kd.OBJECT), kd.slice([kd.float32(16777216.0)], kd.OBJECT)),
    "unique_nans_mixed": lambda kd: kd.unique(kd.slice([float("nan"), float("nan"), 1], kd.OBJECT)),
    "unique_nans_floats": lambda kd: kd.unique(kd.slice([float("nan"), float("nan"), 1.0], kd.OBJECT)),
    "collapse_nans_mixed": lambda kd: kd.collapse(kd.slice([[float("nan"), float("nan"), None], ["a", None]], kd.OBJECT)),
    "dict_dropped_values_not_extracted": lambda kd: str(kd.extract(kd.obj(x=kd.dict(
        kd.slice([[1, None], [2, 2]]), kd.slice([[kd.obj(a=1), kd.obj(b=2)], [kd.obj(c=3), kd.obj(c=4)]])))).get_bag()).split("\n")[1:2],
    "select": lambda kd: kd.select(_mixed(kd), _mask(kd)),
    "select_every_other": lambda kd: kd.select(_mixed(kd, n=131), kd.slice([kd.present if i % 2 else None for i in range(131)], kd.MASK)),
    "select_present": lambda kd: kd.select_present(_mixed(kd)),
    "coalesce": lambda kd: kd.coalesce(_mixed(kd), _mixed(kd, shift=4)),
    "coalesce_int": lambda kd: kd.coalesce(_mixed(kd), 7),
    "coalesce_text_and_numbers": lambda kd: kd.coalesce(kd.slice(["a", None, None, "b"], kd.OBJECT), kd.slice([1, 2, None, 3.5])),
    "cond": lambda kd: kd.cond(_mask(kd), _mixed(kd), kd.slice(list(range(60)))),
    "cond_mixed_both": lambda kd: kd.cond(_mask(kd), _mixed(kd), _mixed(kd, shift=2)),
    "disjoint_coalesce": lambda kd: kd.disjoint_coalesce(_mixed(kd) & _mask(kd), kd.slice(["z"] * 60) & ~_mask(kd)),
    "collapse_mixed": lambda kd: kd.collapse(kd.slice([[1, 1, None], ["a", "a"], [1, "1"], [2.0, 2.0], [None]], kd.OBJECT)),
    "collapse_3d": lambda kd: kd.collapse(kd.slice([[[1, 1], [2, 3]], [[None, 4], []]])),
    "collapse_text": lambda kd: kd.collapse(kd.slice([["x", "x"], ["y", "z"], []])),
    "collapse_int_float": lambda kd: kd.collapse(kd.slice([[1, kd.int64(1)], [1, 1.0]], kd.OBJECT)),
    "stack": lambda kd: kd.stack(kd.slice([1, None, 3]), kd.slice([4, 5, None]), kd.slice([7, 8, 9])),
    "stack_mixed": lambda kd: kd.stack(_mixed(kd, n=10), _mixed(kd, n=10, shift=5)),
    "stack_2d_ndim1": lambda kd: kd.stack(kd.slice([[1, 2], [3]]), kd.slice([[4, 5], [6]]), ndim=1),
    "stack_text": lambda kd: kd.stack(kd.slice(["a", "bb", None]), kd.slice(["c", None, "dd"])),
    "zip": lambda kd: kd.zip(kd.slice([[1, 2], [3]]), 9, kd.slice(["a", "b"])),
    "zip_mixed": lambda kd: kd.zip(_mixed(kd, n=12), _mixed(kd, n=12, shift=2)),
    "unique_text": lambda kd: kd.unique(kd.slice([["b", "a", "b", None, "c"], ["a", "a"]])),
    "unique_text_sorted": lambda kd: kd.unique(kd.slice(["b", "a", "b", None, "c", "", "ab"]), sort=True),
    "unique_bytes": lambda kd: kd.unique(kd.slice([b"b", b"a", b"b"])),
    "unique_mixed": lambda kd: kd.unique(_mixed(kd)),
    "unique_text_big": lambda kd: kd.unique(kd.slice([f"w{i % 97}" for i in range(1000)])),
    "str_float32": lambda kd: kd.str(kd.float32(kd.slice(list(range(40)))) / 7),
    "str_float32_ties": lambda kd: kd.str(kd.float32(kd.slice([131072.125, 131072.375, -131072.875, 0.5, 1e20, 1e-7, 0.0, -0.0]))),
    "str_float64": lambda kd: kd.str(kd.float64(kd.slice(list(range(40)))) / 7),
    "str_float64_ties": lambda kd: kd.str(kd.slice([1e15 + 0.25, 1e15 + 0.75, 2.5, 1e300], kd.FLOAT64)),
    "str_mixed": lambda kd: kd.str(_mixed(kd, n=18)),
    "str_missing": lambda kd: kd.str(kd.slice([1.5, None, float("inf"), float("nan")])),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_mixed_types_agree(name):
    program = PROGRAMS[name]
    assert_same_repr_outcome(outcome(pkd, program), outcome(kkd, program))


# Errors whose details follow the first line: the schemas of the arguments.
MESSAGES = {
    "add_text_to_int": lambda kd: kd.slice([1, 2]) + kd.slice(["a", None]),
    "add_bytes_to_int": lambda kd: kd.item(1) + kd.item(b"a"),
    "add_bytes_to_text": lambda kd: kd.item("a") + kd.item(b"a"),
    "less_of_int_and_text": lambda kd: kd.item(1) < "a",
    "equal_int_and_entity": lambda kd: kd.item(1) == kd.new(a=1),
    "equal_list_and_named_entity": lambda kd: kd.list([1]) == kd.new(a=1, schema="A"),
    "equal_entities_of_two_schemas_alike": lambda kd: kd.new() == kd.new(),
    "equal_entities_of_two_schemas_with_attributes": lambda kd: kd.new(a=1) == kd.new(a=1),
    "coalesce_entities_of_two_schemas": lambda kd: kd.new(a=1) | kd.new(a=2),
    "coalesce_int_and_entity": lambda kd: kd.coalesce(kd.item(1), kd.new(a=2)),
    "coalesce_list_and_entity": lambda kd: kd.coalesce(kd.list([1]), kd.new(a=2)),
    "format_entity": lambda kd: kd.strings.format(kd.slice(["{a}"]), a=kd.new(x=1)),
    "format_list": lambda kd: kd.strings.format(kd.slice(["{a}"]), a=kd.list([1])),
    "format_object": lambda kd: kd.strings.format(kd.slice(["{a}"]), a=kd.obj(x=1)),
    "format_objects_and_numbers": lambda kd: kd.strings.format(kd.slice(["{a}"]), a=kd.slice([kd.obj(x=1), 1])),
    "printf_entity": lambda kd: kd.strings.printf(kd.slice(["%s"]), kd.new(x=1)),
}


@pytest.mark.parametrize("name", sorted(MESSAGES))
def test_whole_messages_agree(name):
    program = MESSAGES[name]
    assert message_outcome(pkd, program) == message_outcome(kkd, program)
