"""kd.testing.assert_equivalent against koladata: the same pairs pass and
fail, for each combination of `schemas_equality`, `ids_equality` and
`partial` (users' test suites rely on it not passing what Koda fails)."""

import functools

import pytest

from plait import kd as pkd

kkd = pytest.importorskip("koladata.kd")


def _cycle(kd):
    bag = kd.mutable_bag()
    o = bag.obj(x=1)
    o.me = o
    return o, o


PAIRS = {
    "int32 and int64": lambda kd: (kd.slice([1]), kd.int64([1])),
    "INT32 and FLOAT32": lambda kd: (kd.item(1), kd.item(1.0)),
    "INT32 and BOOLEAN": lambda kd: (kd.item(1), kd.item(True)),
    "STRING and BYTES": lambda kd: (kd.item("a"), kd.item(b"a")),
    "FLOAT32 and FLOAT64": lambda kd: (kd.float32(0.1), kd.float64(0.1)),
    "FLOAT32 and FLOAT64 exact": lambda kd: (kd.float32(0.5), kd.float64(0.5)),
    "NaN": lambda kd: (kd.item(float("nan")), kd.item(float("nan"))),
    "-0.0 and 0.0": lambda kd: (kd.item(-0.0), kd.item(0.0)),
    "MASK and BOOLEAN": lambda kd: (kd.present, kd.item(True)),
    "None and missing INT32": lambda kd: (kd.item(None), kd.int32(None)),
    "object 1 and 1": lambda kd: (kd.obj(1), kd.item(1)),
    "NONE and OBJECT": lambda kd: (kd.slice([None]), kd.slice([None], kd.OBJECT)),
    "shapes": lambda kd: (kd.slice([1]), kd.slice([[1]])),
    "empty lists of two item schemas": lambda kd: (kd.list([], item_schema=kd.INT32), kd.list([], item_schema=kd.STRING)),
    "list of OBJECT and of INT32": lambda kd: (kd.list([1], item_schema=kd.OBJECT), kd.list([1])),
    "lists of INT32 and FLOAT32": lambda kd: (kd.list([1]), kd.list([1.0])),
    "lists of lists": lambda kd: (kd.list([[1]]), kd.list([kd.list([1], item_schema=kd.INT64)])),
    "lists of two lengths": lambda kd: (kd.list([1]), kd.list([1, 2])),
    "list and dict": lambda kd: (kd.list([]), kd.dict({})),
    "entity and list": lambda kd: (kd.new(a=1), kd.list([1])),
    "object holding lists": lambda kd: (kd.obj(l=kd.list([1], item_schema=kd.OBJECT)), kd.obj(l=kd.list([1]))),
    "dict key schemas": lambda kd: (kd.dict({"a": 1}, key_schema=kd.OBJECT), kd.dict({"a": 1})),
    "dict value schemas": lambda kd: (kd.dict({"a": 1}, value_schema=kd.INT64), kd.dict({"a": 1})),
    "dict keys INT32 and INT64": lambda kd: (kd.dict({1: 2}), kd.dict({kd.int64(1): 2})),
    "dicts of entities": lambda kd: (kd.dict({"k": kd.new(a=1)}), kd.dict({"k": kd.new(a=1)})),
    "objects": lambda kd: (kd.obj(a=1), kd.obj(a=1)),
    "objects differing": lambda kd: (kd.obj(a=1), kd.obj(a=2)),
    "object attributes INT32 and INT64": lambda kd: (kd.obj(a=1), kd.obj(a=kd.int64(1))),
    "object attributes object and INT32": lambda kd: (kd.obj(a=kd.obj(1)), kd.obj(a=1)),
    "object attribute None and none": lambda kd: (kd.obj(a=1, b=None), kd.obj(a=1)),
    "objects holding entities": lambda kd: (kd.obj(x=kd.new(a=1)), kd.obj(x=kd.new(a=1))),
    "lists of objects": lambda kd: (kd.list([kd.obj(a=1)]), kd.list([kd.obj(a=1)])),
    "object and entity": lambda kd: (kd.obj(a=1), kd.new(a=1)),
    "entities": lambda kd: (kd.new(a=1), kd.new(a=1)),
    "entity attributes INT32 and INT64": lambda kd: (kd.new(a=1), kd.new(a=kd.int64(1))),
    "entity attribute None and none": lambda kd: (kd.new(a=1, b=None), kd.new(a=1)),
    "entities holding entities": lambda kd: (kd.new(x=kd.new(a=1)), kd.new(x=kd.new(a=1))),
    "named schemas A and B": lambda kd: (kd.new(a=1, schema="A"), kd.new(a=1, schema="B")),
    "named schemas A and A": lambda kd: (kd.new(a=1, schema="A"), kd.new(a=1, schema="A")),
    "lists of named and unnamed entities": lambda kd: (kd.list([kd.new(a=1, schema="A")]), kd.list([kd.new(a=1)])),
    "uu entities": lambda kd: (kd.uu(a=1), kd.uu(a=1)),
    "schema items": lambda kd: (kd.INT32, kd.INT32),
    "schema items differing": lambda kd: (kd.INT32, kd.INT64),
    "entity schema items": lambda kd: (kd.schema.new_schema(a=kd.INT32), kd.schema.new_schema(a=kd.INT32)),
    "cycle": _cycle,
    "extra attribute": lambda kd: (kd.obj(a=1, b=2), kd.obj(a=1)),
    "missing attribute": lambda kd: (kd.obj(a=1), kd.obj(a=1, b=2)),
}

OPTIONS = {
    "default": {},
    "schemas_equality=False": {"schemas_equality": False},
    "ids_equality": {"ids_equality": True, "schemas_equality": False},
    "partial": {"partial": True, "schemas_equality": False},
}


def _outcome(kd, name, options):
    actual, expected = PAIRS[name](kd)
    try:
        kd.testing.assert_equivalent(actual, expected, **options)
        return "pass"
    except AssertionError:
        return "fail"


@pytest.mark.parametrize("options", sorted(OPTIONS))
@pytest.mark.parametrize("name", sorted(PAIRS))
def test_assert_equivalent_passes_as_koda(name, options):
    assert _outcome(pkd, name, OPTIONS[options]) == _outcome(kkd, name, OPTIONS[options])


OTHER = {
    "tuples": lambda kd: (kd.tuple(1, 2), kd.tuple(1, 2)),
    "tuples differing": lambda kd: (kd.tuple(1, 2), kd.tuple(1, 3)),
    "tuples of objects": lambda kd: (kd.tuple(kd.obj(a=1)), kd.tuple(kd.obj(a=1))),
    "named tuples": lambda kd: (kd.namedtuple(x=1), kd.namedtuple(x=1)),
    "named tuples differing": lambda kd: (kd.namedtuple(x=1), kd.namedtuple(x=2)),
    "named tuples in another order": lambda kd: (kd.namedtuple(x=1, y=2), kd.namedtuple(y=2, x=1)),
    "iterables": lambda kd: (kd.iterables.make(1), kd.iterables.make(1)),
    "iterables differing": lambda kd: (kd.iterables.make(1), kd.iterables.make(1, 2)),
    "shapes": lambda kd: (kd.shapes.new(2), kd.shapes.new(2)),
    "shapes differing": lambda kd: (kd.shapes.new(2), kd.shapes.new(3)),
    "empty bags": lambda kd: (kd.bag(), kd.bag()),
    "bags of objects": lambda kd: (kd.obj(a=1).get_bag(), kd.obj(a=1).get_bag()),
    "one bag": lambda kd: functools.reduce(lambda b, _: (b, b), [0], kd.obj(a=1).get_bag()),
    "expressions": lambda kd: (kd.I.x + 1, kd.I.x + 1),
    "a Python int and an item": lambda kd: (5, kd.item(5)),
    "an item and a Python int": lambda kd: (kd.item(5), 5),
    "a tuple and a Python tuple": lambda kd: (kd.tuple(1), (kd.item(1),)),
    "None and a bag": lambda kd: (None, kd.bag()),
    "Python lists": lambda kd: ([1], [1]),
    "Nones": lambda kd: (None, None),
}


@pytest.mark.parametrize("name", sorted(OTHER))
def test_assert_equivalent_of_other_values_as_koda(name):
    def outcome(kd):
        actual, expected = OTHER[name](kd)
        try:
            kd.testing.assert_equivalent(actual, expected)
            return "pass"
        except AssertionError:
            return "fail"
        except TypeError:
            return "TypeError"

    assert outcome(pkd) == outcome(kkd)
