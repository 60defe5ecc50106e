"""`to_py` has two walks giving the same Python values: the native one
(`_plait.to_py_tree`) for the common cases, and the Python one of
`plait/kd/conversion.py` for what the native walk hands back
(`NotImplemented`: nofollow schemas, attributes without a common schema
across objects, data deeper than `MAX_DEPTH`). Here both convert generated
data (lists, dicts, entities, objects, shared items and cycles, several
dimensions, each option) and must agree value for value, sharing included."""

import random

import pytest

from plait import _plait, kd
from plait.kd import conversion

NATIVE = _plait.to_py_tree


@pytest.fixture
def python_walk(monkeypatch):
    """`to_py` through the Python walk (primitive slices still native)."""

    def handing_back(ds, *args):
        return NATIVE(ds, *args) if ds._converts_natively() else NotImplemented

    def convert(ds, **kwargs):
        monkeypatch.setattr(_plait, "to_py_tree", handing_back)
        try:
            return ds.to_py(**kwargs)
        finally:
            monkeypatch.setattr(_plait, "to_py_tree", NATIVE)

    return convert


def same(a, b):
    """Whether `a` and `b` are the same Python values, with the same
    sharing (an item twice in one is twice in the other) and DataItems
    for the same items."""
    pairs = {}
    stack = [(a, b)]
    while stack:
        a, b = stack.pop()
        if type(a) is not type(b):
            return False
        if isinstance(a, (list, dict, conversion.Obj)):
            if id(a) in pairs:
                if pairs[id(a)] != id(b):
                    return False
                continue
            pairs[id(a)] = id(b)
            if isinstance(a, list):
                if len(a) != len(b):
                    return False
                stack.extend(zip(a, b))
            else:
                a, b = (a, b) if isinstance(a, dict) else (a.__dict__, b.__dict__)
                if len(a) != len(b) or not all(same(x, y) for x, y in zip(a, b)):
                    return False
                stack.extend(zip(a.values(), b.values()))
        elif isinstance(a, kd.types.DataSlice):
            if not a._identical(b):
                return False
        elif a != b:
            return False
    return True


def random_value(rng, depth=0, keys=("a", "b", 1)):
    r = rng.random()
    if depth > 3 or r < 0.3:
        return rng.choice([1, 2.5, "s", b"b", True, None, 0])
    if r < 0.55:
        return [random_value(rng, depth + 1, keys) for _ in range(rng.randrange(4))]
    if r < 0.8:
        return {rng.choice(keys): random_value(rng, depth + 1, keys) for _ in range(rng.randrange(4))}
    return random_value(rng, depth + 1, keys)


def shared_objects(rng):
    """Objects in a mutable bag referring to each other (cycles, items
    reached at several depths) through attributes, lists and dicts."""
    bag = kd.mutable_bag()
    objs = [bag.obj(a=i) for i in range(4)]
    for o in objs:
        o.s = rng.choice(objs)
        o.l = bag.list([rng.choice(objs), 1])
        if rng.random() < 0.5:
            o.d = bag.dict({"k": rng.choice(objs)})
    return kd.slice([rng.choice(objs) for _ in range(3)] + [None])


def mixed_objects(rng):
    items = [kd.obj(a=1), kd.obj(b=kd.list([1, 2])), 5, "x", None, kd.present, kd.float64(1.5), kd.obj(kd.list([kd.obj(z=1)])),
             kd.obj(kd.dict({"a": kd.obj(c=2)})), kd.obj(), kd.obj(kd.list([1]))]
    rng.shuffle(items)
    return kd.slice(items[:rng.randrange(1, len(items))])


def entities(rng):
    e = kd.new(a=kd.slice([1, None, 3]), b=kd.slice(["x", "y", None]))
    e = e.with_attrs(c=kd.new(z=kd.slice([1, 2, 3])))
    return kd.slice([e.S[0], e.S[1], None, e.S[2], e.S[0]]) if rng.random() < 0.5 else e


def self_containing(rng):
    bag = kd.mutable_bag()
    lst = bag.list([1], item_schema=kd.OBJECT)
    lst.append(lst)
    d = bag.dict(key_schema=kd.STRING, value_schema=kd.OBJECT)
    d["self"] = d
    d["l"] = lst
    return kd.slice([kd.obj(lst), kd.obj(d), bag.obj(x=lst)])


MAKERS = [
    lambda rng: kd.from_py(random_value(rng)),
    lambda rng: kd.from_py(random_value(rng, keys=("a", "b")), dict_as_obj=True),
    lambda rng: kd.from_py([random_value(rng) for _ in range(3)], from_dim=1),
    lambda rng: kd.from_py([[random_value(rng, 1) for _ in range(rng.randrange(3))] for _ in range(3)], from_dim=2),
    shared_objects,
    mixed_objects,
    entities,
    self_containing,
    lambda rng: kd.dict(kd.new(x=kd.slice([1, 2])), kd.slice([1, 2])),
    lambda rng: kd.dict(kd.slice(["a", "b"]), kd.new(x=kd.slice([1, 2]))),
]

OPTIONS = [{}, {"max_depth": -1}, {"max_depth": 0}, {"max_depth": 1}, {"max_depth": 3},
           {"max_depth": -1, "obj_as_dict": True, "include_missing_attrs": False}, {"obj_as_dict": True},
           {"include_missing_attrs": False}]


@pytest.mark.parametrize("seed", range(40))
def test_the_walks_agree(seed, python_walk):
    rng = random.Random(seed)
    for make in MAKERS:
        x = make(rng)
        for options in OPTIONS:
            ours = x.to_py(**options)
            assert same(ours, python_walk(x, **options)), (x, options)
            assert same(ours, kd.to_py(x, **options)), (x, options)


@pytest.mark.parametrize("make", MAKERS)
def test_the_common_cases_are_native(make):
    x = make(random.Random(0))
    assert NATIVE(x, 2, False, True, conversion.Obj, conversion.MAX_DEPTH) is not NotImplemented


@pytest.mark.parametrize("x", [
    kd.new(x=kd.nofollow(kd.new(b=2))),
    kd.slice([kd.nofollow(kd.obj(a=1))]),
    kd.slice([kd.obj(a=1), kd.obj(a=kd.list([1]))]),
], ids=["nofollow attribute", "nofollow objects", "attributes of no common schema"])
def test_unusual_cases_are_handed_back(x, python_walk):
    assert NATIVE(x, 2, False, True, conversion.Obj, conversion.MAX_DEPTH) is NotImplemented
    assert same(x.to_py(), python_walk(x))


def test_arguments_the_native_walk_does_not_take():
    x = kd.obj(a=kd.obj(b=kd.obj(c=1)))
    assert same(x.to_py(max_depth=1.0, obj_as_dict=True), x.to_py(max_depth=1, obj_as_dict=True))
    assert x.to_py(max_depth=-1, obj_as_dict=1) == {"a": {"b": {"c": 1}}}
    assert conversion.to_py(kd.slice([1, 2])) == [1, 2]


def chain(n):
    """Entities linked by `p`, n levels deep."""
    e = kd.new(a=kd.range(n + 1), schema="Node")
    return e.with_attrs(p=kd.slices.at(e, kd.range(1, n + 2))).S[0]


@pytest.mark.parametrize("walk", ["native", "python"])
def test_data_deeper_than_max_depth_raises(walk, monkeypatch, python_walk):
    monkeypatch.setattr(conversion, "MAX_DEPTH", 50)
    convert = (lambda x, **kw: x.to_py(**kw)) if walk == "native" else python_walk
    y = convert(chain(49), max_depth=-1)
    for _ in range(49):
        y = y.p
    assert y.a == 49
    with pytest.raises(ValueError, match="kd.to_py: the data is nested more than 50 levels deep"):
        convert(chain(50), max_depth=-1)
    assert convert(chain(50), max_depth=50) is not None
