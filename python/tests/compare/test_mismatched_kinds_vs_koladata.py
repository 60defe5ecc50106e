"""plait against koladata where a value is not of the kind its schema or
its caller expects: list and dict ids under entity schemas (and entities
under list or dict schemas), printed and converted with `to_py`; Python
lists, tuples and dicts of subclasses given to `kd.slice`, `kd.item`,
`kd.obj`, `kd.new`, `kd.list`.

Each program runs on both libraries; the outcomes must agree: the same repr
(ids and bag ids masked), or the same exception type and first message
line (plait may say more after Koda's text, and names the operator)."""

import collections

import pytest

from plait import kd as pkd

from koda_compare import assert_same_repr_outcome, repr_outcome as outcome

kkd = pytest.importorskip("koladata.kd")


class L(list):
    pass


class T(tuple):
    pass


Pair = collections.namedtuple("Pair", "a b")


def _list(kd):
    return kd.list([1, 2])


def _dict(kd):
    return kd.dict({1: 2})


def _entity_schema(kd, **attrs):
    return kd.schema.new_schema(**attrs)


PROGRAMS = {
    # Printing: a list or dict id shows its contents under its own kind of
    # schema only.
    "list_under_empty_entity_schema": lambda kd: _list(kd).with_schema(_entity_schema(kd)),
    "list_under_entity_schema": lambda kd: _list(kd).with_schema(_entity_schema(kd, a=kd.INT32)),
    "list_under_named_schema": lambda kd: _list(kd).with_schema(kd.named_schema("X")),
    "dict_under_entity_schema": lambda kd: _dict(kd).with_schema(_entity_schema(kd)),
    "list_under_dict_schema": lambda kd: _list(kd).with_schema(kd.dict_schema(kd.INT32, kd.INT32)),
    "dict_under_list_schema": lambda kd: _dict(kd).with_schema(kd.list_schema(kd.INT32)),
    "lists_under_entity_schema": lambda kd: kd.slice([_list(kd), None]).with_schema(_entity_schema(kd, a=kd.INT32)),
    "list_without_its_schema": lambda kd: _list(kd).with_bag(kd.bag()),
    "dict_without_its_schema": lambda kd: _dict(kd).with_bag(kd.bag()),
    "str_of_list_under_entity_schema": lambda kd: str(_list(kd).with_schema(_entity_schema(kd, a=kd.INT32))),
    "entity_under_list_schema": lambda kd: kd.new(a=1).with_schema(kd.list_schema(kd.INT32)),
    # to_py: the Python value by the id's kind; attributes cannot be set on
    # a list or dict; a list (dict) schema wants lists (dicts).
    "to_py_list_under_empty_entity_schema": lambda kd: _list(kd).with_schema(_entity_schema(kd)).to_py(),
    "to_py_lists_under_empty_entity_schema": lambda kd: kd.slice([_list(kd)]).with_schema(_entity_schema(kd)).to_py(),
    "to_py_list_without_its_schema": lambda kd: _list(kd).with_bag(kd.bag()).to_py(),
    "to_py_list_under_entity_schema": lambda kd: _list(kd).with_schema(_entity_schema(kd, a=kd.INT32)).to_py(),
    "to_py_dict_under_entity_schema": lambda kd: _dict(kd).with_schema(_entity_schema(kd, a=kd.INT32)).to_py(),
    "to_py_dict_under_entity_schema_as_dict": lambda kd: _dict(kd).with_schema(_entity_schema(kd, a=kd.INT32)).to_py(
        obj_as_dict=True),
    "to_py_entity_under_list_schema": lambda kd: kd.new(a=1).with_schema(kd.list_schema(kd.INT32)).to_py(),
    "to_py_entity_under_dict_schema": lambda kd: kd.obj(a=1).with_schema(kd.dict_schema(kd.INT32, kd.INT32)).to_py(),
    "to_py_list_under_dict_schema": lambda kd: _list(kd).with_schema(kd.dict_schema(kd.INT32, kd.INT32)).to_py(),
    "to_py_dict_under_list_schema": lambda kd: _dict(kd).with_schema(kd.list_schema(kd.INT32)).to_py(),
    # Without a bag to read them from, ids stay DataItems of their schema.
    "to_py_entity_without_bag": lambda kd: kd.to_py(kd.new(a=1).no_bag()),
    "to_py_object_without_bag": lambda kd: kd.to_py(kd.obj(a=1).no_bag()),
    "to_py_list_without_bag": lambda kd: kd.to_py(kd.list([1]).no_bag()),
    "to_py_entities_without_bag": lambda kd: kd.to_py(kd.slice([kd.new(a=1)]).no_bag()),
    "to_pytree_entity_without_bag": lambda kd: kd.new(a=1).no_bag().to_pytree(),
    # Lists and dicts are made with ids of their own kind only.
    "from_py_dict_with_entity_id": lambda kd: kd.from_py({"a": 1}, itemid=kd.new_itemid()),
    "from_py_list_with_entity_id": lambda kd: kd.from_py([1, 2], itemid=kd.new_itemid()),
    "from_py_list_with_list_id": lambda kd: kd.from_py([1, 2], itemid=kd.uuid_for_list("x")),
    "from_py_dict_with_dict_id": lambda kd: kd.from_py({"a": 1}, itemid=kd.uuid_for_dict("x")),
    "list_with_entity_id": lambda kd: kd.list([1], itemid=kd.new_itemid()),
    "dict_with_entity_id": lambda kd: kd.dict({"a": 1}, itemid=kd.new_itemid()),
    "dict_with_list_id": lambda kd: kd.dict({"a": 1}, itemid=kd.uuid_for_list("x")),
    "lists_with_one_entity_id": lambda kd: kd.list_shaped(
        kd.shapes.new(2), itemid=kd.slice([kd.uuid_for_list("x"), kd.new_itemid()])),
    "entity_with_list_id": lambda kd: kd.new(a=1, itemid=kd.uuid_for_list("x")),
    "object_with_dict_id": lambda kd: kd.obj(a=1, itemid=kd.uuid_for_dict("x")),
    # Subclasses of list, tuple and dict are not boxed as a whole (their
    # items are, nested).
    "slice_of_list_subclass": lambda kd: kd.slice(L([1, 2])),
    "slice_of_tuple_subclass": lambda kd: kd.slice(T((1, 2))),
    "slice_of_namedtuple": lambda kd: kd.slice(Pair(1, 2)),
    "slice_of_nested_subclasses": lambda kd: kd.slice([L([1, 2]), Pair(3, 4)]),
    "slice_of_list_subclass_with_schema": lambda kd: kd.slice(L([1]), schema=kd.INT64),
    "slice_of_tuple": lambda kd: kd.slice((1, 2)),
    "item_of_list_subclass": lambda kd: kd.item(L([1])),
    "item_of_tuple_subclass": lambda kd: kd.item(T((1,))),
    "obj_of_list_subclass": lambda kd: kd.obj(L([1])),
    "obj_of_tuple_subclass": lambda kd: kd.obj(T((1,))),
    "obj_of_ordered_dict": lambda kd: kd.obj(collections.OrderedDict(a=1)),
    "new_attribute_of_list_subclass": lambda kd: kd.new(x=L([1])),
    "obj_attribute_of_ordered_dict": lambda kd: kd.obj(x=collections.OrderedDict(a=1)),
    "list_of_list_subclass": lambda kd: kd.list(L([1])),
    "from_py_of_list_subclass": lambda kd: kd.from_py(L([1, 2])),
    "operator_argument_of_list_subclass": lambda kd: kd.math.add(L([1]), 1),
    # Types named as Koda names them: C types with their module.
    "from_py_ordered_dict_under_int_list": lambda kd: kd.from_py([1, collections.OrderedDict(a=1)],
                                                                 schema=kd.list_schema(kd.INT32)),
    "from_py_deque_under_int": lambda kd: kd.from_py(collections.deque(), schema=kd.INT32),
    "from_py_deque_among_objects": lambda kd: kd.from_py([1, collections.deque()]),
    "slice_of_deque": lambda kd: kd.slice([collections.deque()]),
    "from_py_python_class_under_int_list": lambda kd: kd.from_py([1, L], schema=kd.list_schema(kd.INT32)),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_mismatched_kinds_agree(name):
    program = PROGRAMS[name]
    assert_same_repr_outcome(outcome(pkd, program), outcome(kkd, program))
