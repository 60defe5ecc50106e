"""Items come as Koda's classes: `SchemaItem` for schema items, `ListItem`
/ `DictItem` for items holding a list / dict (whatever their schema), else
`DataItem`; all are DataItems and DataSlices (issue 21). `kd.qtypes` names
the kinds of values."""

import pickle

import pytest

from plait import kd


@pytest.mark.parametrize("make, cls", [
    (lambda: kd.list([1, 2]), "ListItem"),
    (lambda: kd.obj(kd.list([1])), "ListItem"),
    (lambda: kd.list([1]).get_itemid(), "ListItem"),
    (lambda: kd.list([1]).no_bag(), "ListItem"),
    (lambda: kd.dict({1: 2}), "DictItem"),
    (lambda: kd.obj(kd.dict({1: 2})), "DictItem"),
    (lambda: kd.INT32, "SchemaItem"),
    (lambda: kd.item(None, kd.SCHEMA), "SchemaItem"),
    (lambda: kd.named_schema("P", x=kd.INT32), "SchemaItem"),
    (lambda: kd.new(a=1).get_schema(), "SchemaItem"),
    (lambda: kd.item(1), "DataItem"),
    (lambda: kd.new(a=1), "DataItem"),
    (lambda: kd.item(None, kd.list_schema(kd.INT32)), "DataItem"),
    (lambda: kd.item(None, kd.OBJECT), "DataItem"),
])
def test_items_come_as_koda_classes(make, cls):
    x = make()
    assert type(x).__name__ == cls
    assert isinstance(x, kd.types.DataItem) and isinstance(x, kd.types.DataSlice)
    assert type(x) is getattr(kd.types, cls)


def test_slices_of_lists_stay_dataslices_and_items_of_them_are_list_items():
    lists = kd.implode(kd.slice([[1, 2], [3]]))
    assert type(lists) is kd.types.DataSlice
    assert type(lists.S[0]) is kd.types.ListItem
    assert [type(x).__name__ for x in kd.slice([kd.list([1]), kd.dict({1: 2}), 1], kd.OBJECT).L] == \
        ["ListItem", "DictItem", "DataItem"]


def test_item_classes_survive_pickle_and_keep_the_protocols():
    lst = pickle.loads(pickle.dumps(kd.list([1, 2, 3])))
    assert type(lst) is kd.types.ListItem and len(lst) == 3 and [x.to_py() for x in lst] == [1, 2, 3]
    d = kd.dict({"a": 1})
    assert "a" in d and len(d) == 1
    assert type(pickle.loads(pickle.dumps(kd.INT32))) is kd.types.SchemaItem


def test_types_namespace_lists_koda_classes():
    assert kd.types.Expr is type(kd.I.x)
    assert isinstance(kd.iterables.make(1, 2), kd.types.Iterable)
    for name in ("DataBag", "DataItem", "DataSlice", "DictItem", "Expr", "Iterable", "JaggedShape", "ListItem", "SchemaItem"):
        assert name in kd.types.__all__


def test_qtypes_compare_by_name_hash_pickle_and_print():
    assert repr(kd.qtypes.DATA_SLICE) == "DATA_SLICE"
    assert kd.qtypes.DATA_SLICE != kd.qtypes.DATA_BAG
    assert {kd.qtypes.DATA_SLICE: 1}[pickle.loads(pickle.dumps(kd.qtypes.DATA_SLICE))] == 1
    assert kd.qtypes.DATA_SLICE.fingerprint == pickle.loads(pickle.dumps(kd.qtypes.DATA_SLICE)).fingerprint
    assert kd.qtypes.EXECUTOR.name == "EXECUTOR" and kd.qtypes.NON_DETERMINISTIC_TOKEN.value_qtype is None
    assert repr(kd.iterables.make(1, 2).qtype) == "ITERABLE[DATA_SLICE]"
