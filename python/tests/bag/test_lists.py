"""Lists (issue 4): creation, explode/implode, indexing, sizes, appends,
in-place updates, schemas, reprs and to_py. Expected texts were checked
against koladata 0.0.4 (bag ids removed, as they are random)."""

import re

import pytest

from plait import kd


def text(x):
    return re.sub(r", bag_id: \$[0-9a-f]{4}", "", repr(x))


def test_list_item_and_its_schema():
    lst = kd.list([1, 2, 3])
    assert text(lst) == "DataItem(List[1, 2, 3], schema: LIST[INT32])"
    assert text(lst.get_schema()) == "DataItem(LIST[INT32], schema: SCHEMA)"
    assert text(lst[:]) == "DataSlice([1, 2, 3], schema: INT32, present: 3/3)"
    assert text(lst[1]) == "DataItem(2, schema: INT32)"
    assert text(lst[-4]) == "DataItem(None, schema: INT32)"
    assert text(lst[1:2]) == "DataSlice([2], schema: INT32, present: 1/1)"
    assert text(kd.list_size(lst)) == "DataItem(3, schema: INT64)"
    assert lst.has_bag()


def test_list_schemas_are_the_same_for_the_same_item_schema():
    assert kd.list_schema(kd.INT32) == kd.list([1]).get_schema()
    assert text(kd.list_schema(kd.OBJECT)) == "DataItem(LIST[OBJECT], schema: SCHEMA)"
    assert text(kd.list([1]).get_schema().get_item_schema()) == "DataItem(INT32, schema: SCHEMA)"
    with pytest.raises(ValueError, match="schema's schema must be SCHEMA, got: INT32"):
        kd.list_schema(1)


def test_implode_and_explode():
    lists = kd.implode(kd.slice([[1, 2], [3]]))
    assert text(lists) == "DataSlice([List[1, 2], List[3]], schema: LIST[INT32], present: 2/2)"
    assert text(lists[:]) == "DataSlice([[1, 2], [3]], schema: INT32, present: 3/3)"
    assert text(kd.explode(lists)) == "DataSlice([[1, 2], [3]], schema: INT32, present: 3/3)"
    assert text(lists[0]) == "DataSlice([1, 3], schema: INT32, present: 2/2)"
    assert text(lists[5]) == "DataSlice([None, None], schema: INT32, present: 0/2)"
    nested = kd.slice([[[1], [2]], [[3]]])
    assert text(kd.implode(nested, ndim=2)) == (
        "DataSlice([List[List[1], List[2]], List[List[3]]], schema: LIST[LIST[INT32]], present: 2/2)"
    )
    assert text(kd.implode(nested, ndim=-1)) == (
        "DataItem(List[List[List[1], List[2]], List[List[3]]], schema: LIST[LIST[LIST[INT32]]])"
    )
    assert text(kd.explode(kd.list([[1], [2, 3]]), ndim=2)) == "DataSlice([[1], [2, 3]], schema: INT32, present: 3/3)"
    assert text(kd.explode(kd.list([[1], [2, 3]]), ndim=-1)) == "DataSlice([[1], [2, 3]], schema: INT32, present: 3/3)"
    assert text(kd.implode(kd.slice([[1, None], [None]]))) == (
        "DataSlice([List[1, None], List[None]], schema: LIST[INT32], present: 2/2)"
    )
    assert text(kd.implode(kd.slice([[], []]))) == "DataSlice([List[], List[]], schema: LIST[NONE], present: 2/2)"


def test_implode_then_explode_shares_the_column():
    values = kd.slice(list(range(1000)))
    back = kd.explode(kd.implode(values))
    assert back.to_py() == list(range(1000))


def test_missing_lists_and_lists_of_a_slice():
    a, b = kd.list([1, 2, 3]), kd.list([4])
    s = kd.slice([a, None, b])
    assert text(s) == "DataSlice([List[1, 2, 3], None, List[4]], schema: LIST[INT32], present: 2/3)"
    assert text(s[:]) == "DataSlice([[1, 2, 3], [], [4]], schema: INT32, present: 4/4)"
    assert text(s[-1]) == "DataSlice([3, None, 4], schema: INT32, present: 2/3)"
    assert text(s[1:]) == "DataSlice([[2, 3], [], []], schema: INT32, present: 2/2)"
    assert text(kd.list_size(s)) == "DataSlice([3, None, 1], schema: INT64, present: 2/3)"
    assert text(kd.lists.get_item(a, kd.slice([0, 5, -3]))) == "DataSlice([1, None, 1], schema: INT32, present: 2/3)"
    assert text(kd.is_list(s)) == "DataItem(present, schema: MASK)"
    assert text(kd.has_list(s)) == "DataSlice([present, missing, present], schema: MASK, present: 2/3)"
    mixed = kd.slice([kd.obj(a), kd.obj(a=1), 3])
    assert text(kd.has_list(mixed)) == "DataSlice([present, missing, missing], schema: MASK, present: 1/3)"


def test_object_lists():
    assert text(kd.obj(kd.list([1, 2]))) == "DataItem(List[1, 2], schema: OBJECT)"
    assert text(kd.obj(kd.list([1, 2, 3]))[:]) == "DataSlice([1, 2, 3], schema: INT32, present: 3/3)"
    mixed = kd.slice([kd.obj(kd.list([1, 2, 3])), kd.obj(kd.list(["x"]))])
    assert text(mixed[:]) == "DataSlice([[1, 2, 3], ['x']], schema: OBJECT, present: 4/4)"
    numbers = kd.slice([kd.obj(kd.list([1])), kd.obj(kd.list([2.0]))])
    assert text(numbers[:]) == "DataSlice([[1.0], [2.0]], schema: FLOAT32, present: 2/2)"
    assert text(kd.obj(a=kd.list([1]))) == "DataItem(Obj(a=List[1]), schema: OBJECT)"


def test_kd_list_forms():
    assert text(kd.list()) == "DataItem(List[], schema: LIST[OBJECT])"
    assert text(kd.list([1, 2], item_schema=kd.INT64)) == "DataItem(List[1, 2], schema: LIST[INT64])"
    assert text(kd.list([1, "a"])) == "DataItem(List[1, 'a'], schema: LIST[OBJECT])"
    assert text(kd.list([1.5, 2])) == "DataItem(List[1.5, 2.0], schema: LIST[FLOAT32])"
    long = text(kd.list(list(range(30))))
    assert long.startswith("DataItem(List[0, 1, 2,") and ", 19, ...]" in long
    with pytest.raises(TypeError, match="please use kd.implode"):
        kd.list(kd.slice([1, 2]))
    assert text(kd.new(a=kd.list([1, 2]))) == "DataItem(Entity(a=List[1, 2]), schema: ENTITY(a=LIST[INT32]))"
    assert text(kd.implode(kd.new(a=kd.slice([1, 2])))) == (
        "DataItem(List[Entity(a=1), Entity(a=2)], schema: LIST[ENTITY(a=INT32)])"
    )


def test_shaped_and_like():
    assert text(kd.list_shaped(kd.shapes.new(2), kd.slice([[1], [2, 3]]))) == (
        "DataSlice([List[1], List[2, 3]], schema: LIST[INT32], present: 2/2)"
    )
    assert text(kd.list_like(kd.slice([1, None, 3]))) == (
        "DataSlice([List[], None, List[]], schema: LIST[OBJECT], present: 2/3)"
    )
    ids = kd.list_shaped(kd.shapes.new(2)).get_itemid()
    given = kd.list_shaped(kd.shapes.new(2), kd.slice([[1], [2]]), itemid=ids)
    assert given.get_itemid().to_py() == ids.to_py()


def test_appends_and_concat_make_new_lists():
    a, b = kd.list([1, 2, 3]), kd.list([4])
    appended = kd.appended_list(a, 5)
    assert text(appended) == "DataItem(List[1, 2, 3, 5], schema: LIST[INT32])"
    assert not (appended.get_itemid() == a.get_itemid())
    two = kd.appended_list(kd.implode(kd.slice([[1], [2, 3]])), kd.slice([7, 8]))
    assert text(two) == "DataSlice([List[1, 7], List[2, 3, 8]], schema: LIST[INT32], present: 2/2)"
    assert text(kd.concat_lists(a, b)) == "DataItem(List[1, 2, 3, 4], schema: LIST[INT32])"
    updated = kd.with_list_append_update(a, 9)
    assert text(updated) == "DataItem(List[1, 2, 3, 9], schema: LIST[INT32])"
    assert updated.get_itemid() == a.get_itemid()
    assert text(kd.select_items(a, a[:] > 1)) == "DataSlice([2, 3], schema: INT32, present: 2/2)"


def test_errors_name_the_operator():
    with pytest.raises(ValueError, match="kd.lists.appended_list: the schema for list items is incompatible"):
        kd.appended_list(kd.list([1]), "a")
    with pytest.raises(ValueError, match="kd.lists.explode: cannot explode 'x' to have additional 1 dimension"):
        kd.explode(kd.slice([1, 2]))
    with pytest.raises(ValueError, match="kd.lists.size: not possible to get List size without a DataBag"):
        kd.list_size(kd.slice([1, 2]))
    with pytest.raises(ValueError, match="only has 0 dimensions"):
        kd.implode(kd.item(1))
    with pytest.raises(ValueError, match="Slice with step != 1 is not supported"):
        kd.list([1, 2, 3])[::2]


def test_in_place_updates_need_a_mutable_bag():
    with pytest.raises(ValueError, match="fork_bag"):
        kd.list([1, 2])[0] = 5
    m = kd.list([1, 2, 3]).fork_bag()
    m[0] = 10
    assert text(m) == "DataItem(List[10, 2, 3], schema: LIST[INT32])"
    m[kd.slice([1, 2])] = kd.slice([7, 9])
    assert text(m) == "DataItem(List[10, 7, 9], schema: LIST[INT32])"
    m[5] = 1  # out of range: ignored
    m[1] = None
    assert text(m) == "DataItem(List[10, None, 9], schema: LIST[INT32])"
    m.append(kd.slice([4, 5]))
    assert text(m) == "DataItem(List[10, None, 9, 4, 5], schema: LIST[INT32])"
    with pytest.raises(ValueError, match="the schema for list items is incompatible"):
        m[0] = "x"


def test_to_py_of_lists_and_objects():
    assert kd.list([[1, 2], [3]]).to_py() == [[1, 2], [3]]
    assert kd.slice([kd.list([1]), kd.list([2])]).to_py() == [[1], [2]]
    assert kd.obj(a=1, b=kd.list([1, 2])).to_py(obj_as_dict=True) == {"a": 1, "b": [1, 2]}
    assert repr(kd.obj(a=1, b=kd.list([1, 2])).to_py()) == "Obj(a=1, b=[1, 2])"
    deep = kd.implode(kd.slice([[[[1]]]]), ndim=-1).to_py()
    assert isinstance(deep[0][0], kd.types.DataItem)
    assert kd.slice([kd.obj(a=1), None]).to_py(obj_as_dict=True) == [{"a": 1}, None]


def test_many_single_appends_read_back_in_order():
    # In-place appends go to the list's tail (no copy of the list each time);
    # every read sees them in order.
    lst = kd.list([0, 1, 2]).fork_bag()
    for i in range(3, 1000):
        lst.append(i)
    assert lst.to_py() == list(range(1000))
    assert lst[:].to_py()[-3:] == [997, 998, 999]
    assert lst[500].to_py() == 500
    assert lst[-1].to_py() == 999
    assert kd.list_size(lst).to_py() == 1000
    frozen = lst.freeze_bag()
    lst.append(1000)
    assert kd.list_size(frozen).to_py() == 1000  # the copy from before is unchanged
    assert kd.loads(kd.dumps(lst)).to_py() == list(range(1001))
    assert kd.with_list_append_update(lst, 1001)[:].to_py()[-2:] == [1000, 1001]
    assert kd.with_merged_bag(lst).to_py() == list(range(1001))


def test_appends_to_a_list_of_a_fallback_bag_copy_it_first():
    base = kd.list([1, 2])
    layered = kd.updated(base, kd.bag())  # the list lives in a fallback
    mutable = layered.fork_bag()
    mutable.append(3)
    mutable.append(kd.slice([4, 5]))
    assert mutable.to_py() == [1, 2, 3, 4, 5]
    assert base.to_py() == [1, 2]


def test_appends_to_several_lists_at_once():
    lists = kd.implode(kd.slice([[1], [2, 3], []])).fork_bag()
    lists.append(kd.slice([10, 20, 30]))
    lists.append(kd.slice([[11], [], [31, 32]]))
    assert lists[:].to_py() == [[1, 10, 11], [2, 3, 20], [30, 31, 32]]


def test_slices_of_lists_take_step_one_only():
    lst = kd.list([1, 2, 3])
    assert lst[::1].to_py() == [1, 2, 3]
    assert kd.slice([[1, 2], [3]]).L[::kd.item(1)].to_py() == [[1, 2], [3]]
    # True is not the step 1 (Koda refuses a BOOLEAN step too).
    for step in (2, True, 1.0, "a"):
        with pytest.raises(ValueError, match="Slice with step != 1 is not supported"):
            lst[::step]


def test_range_assignment_replaces_the_items_in_the_range():
    lists = kd.slice([kd.list([1, 2, 3]), kd.list([4]), None]).fork_bag()
    lists[1:] = kd.slice([[7], [8, 9], []])
    assert lists.to_py() == [[1, 7], [4, 8, 9], None]
    one = kd.list([1, 2, 3, 4]).fork_bag()
    one[-3:-1] = kd.slice([0])  # negative bounds count from the end
    assert one.to_py() == [1, 0, 4]
    one[2:1] = kd.slice([5, 6])  # an empty range is where the items go in
    assert one.to_py() == [1, 0, 5, 6, 4]
    one[1:] = 9  # one value, at every position of the range
    assert one.to_py() == [1, 9, 9, 9, 9]
    one[:] = kd.slice([], kd.INT32)
    assert one.to_py() == []
    with pytest.raises(ValueError, match="slices with step != 1 are not supported"):
        one[::2] = kd.slice([1])
    with pytest.raises(ValueError, match="the schema for list items is incompatible"):
        one[:] = kd.slice(["a"])
    with pytest.raises(ValueError, match="while 1 dimensions are required"):
        one[:] = kd.slice([[1]])
    with pytest.raises(ValueError, match="immutable DataBag"):
        kd.list([1])[0:1] = 2


def test_appended_list_is_missing_where_the_list_is():
    lists = kd.slice([kd.list([1]), None])
    assert kd.lists.appended_list(lists, kd.slice([5, 6])).to_py() == [[1, 5], None]
