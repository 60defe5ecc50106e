"""plait against koladata on generated Python values given to kd.from_py:
nested lists, tuples and dicts of primitives (ints, floats, strings, bytes,
booleans, None) and dataclasses, with `dict_as_obj`, `from_dim` and a
`schema=` that fits the value or not, or `schema=None` (inferred). Results must agree in schema, shape and `to_py` (dicts and
objects compared as Python dicts, so key order does not matter), or both
calls must raise.
"""

import dataclasses
import functools
import random

import pytest

from plait import kd
from koda_compare import outcome, same_outcome

SEEDS = range(400)

PRIMITIVES = [0, 1, -7, 2.5, "a", "", b"q", True, False, None]
KEYS = ["a", "b", "c"]


@dataclasses.dataclass
class Pair:
    a: object
    b: object


class _Int(int):
    pass


class _Str(str):
    pass


def value(rng, depth):
    pick = rng.random()
    if depth >= 3 or pick < 0.4:
        return rng.choice(PRIMITIVES)
    if pick < 0.5:
        return Pair(value(rng, depth + 1), value(rng, depth + 1))
    if pick < 0.7:
        items = [value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
        return tuple(items) if rng.random() < 0.1 else items
    keys = rng.sample(KEYS + [1, 2], rng.randint(0, 3))
    return {k: value(rng, depth + 1) for k in keys}


def uniform_list(rng, depth):
    """Lists of lists of one kind of leaf, for from_dim and list schemas."""
    if depth == 0:
        return rng.choice([0, 1, 5, None]) if rng.random() < 0.8 else rng.choice(["s", 2.5])
    return [uniform_list(rng, depth - 1) for _ in range(rng.randint(0, 3))]


SCHEMAS = {
    "none": lambda k: None,
    "infer": lambda k: None,
    "object": lambda k: k.OBJECT,
    "int64": lambda k: k.INT64,
    "list_int": lambda k: k.list_schema(k.INT32),
    "list_list_int": lambda k: k.list_schema(k.list_schema(k.INT64)),
    "dict_str_int": lambda k: k.dict_schema(k.STRING, k.INT32),
    "dict_str_obj": lambda k: k.dict_schema(k.STRING, k.OBJECT),
    "entity": lambda k: k.named_schema("P", a=k.INT32, b=k.STRING),
}


def make_spec(seed):
    rng = random.Random(seed)
    mode = rng.choice(["free", "free", "lists", "dicts", "dataclasses"])
    if mode == "lists":
        depth = rng.randint(1, 3)
        return {"value": uniform_list(rng, depth), "from_dim": rng.randint(0, depth),
                "dict_as_obj": False, "schema": rng.choice(["none", "infer", "object", "int64", "list_int", "list_list_int"])}
    if mode == "dicts":
        rows = [{k: rng.choice([1, 2, "x", None]) for k in rng.sample(KEYS, rng.randint(0, 3))} for _ in range(rng.randint(0, 3))]
        from_dim = rng.randint(0, 1)
        return {"value": rows if from_dim else (rows[0] if rows else {}), "from_dim": from_dim,
                "dict_as_obj": rng.random() < 0.5, "schema": rng.choice(["none", "infer", "dict_str_int", "dict_str_obj", "entity"])}
    if mode == "dataclasses":
        # One kind per level: koladata 0.0.4 aborts the process when it
        # infers a schema for containers mixed with other kinds.
        leaf = rng.choice([[1, 2, None], ["x", "y"], [1, 2.5]])
        rows = [Pair(rng.choice(leaf), [rng.choice(leaf) for _ in range(rng.randint(0, 2))]) for _ in range(rng.randint(0, 3))]
        return {"value": rows, "from_dim": rng.randint(0, 1), "dict_as_obj": False, "schema": rng.choice(["none", "infer"])}
    return {"value": value(rng, 0), "from_dim": 0, "dict_as_obj": rng.random() < 0.3, "schema": "none"}


def run(k, spec):
    schema = SCHEMAS[spec["schema"]](k)
    options = {"schema": schema} if schema is not None or spec["schema"] == "infer" else {}
    return k.from_py(spec["value"], dict_as_obj=spec["dict_as_obj"], from_dim=spec["from_dim"], **options)


@pytest.mark.parametrize("seed", SEEDS)
def test_from_py_program(koda, seed):
    spec = make_spec(seed)
    kind, ours = outcome(lambda: run(kd, spec))
    koda_kind, theirs = outcome(lambda: run(koda, spec))
    if not same_outcome(kind, ours, koda_kind, theirs):
        return
    assert ours.to_py(max_depth=-1, obj_as_dict=True) == theirs.to_py(max_depth=-1, obj_as_dict=True), (spec, ours, theirs)


# Rows that are not what the schema asks for, missing rows, tuples, and text
# (the fast paths of boxing: a flat list of strs read straight into a column).
EDGE_CASES = {
    "dict schema, not a dict": lambda k: k.from_py([{"a": 1}, 5], schema=k.dict_schema(k.STRING, k.INT32), from_dim=1),
    "list schema, not a list": lambda k: k.from_py([[1], 5], schema=k.list_schema(k.INT32), from_dim=1),
    "inferred dicts and an int": lambda k: k.from_py([{"a": 1}, 5], schema=None),
    "inferred lists and an int": lambda k: k.from_py([[1], 5], schema=None),
    "lists and a dict": lambda k: k.from_py([[1], {"a": 1}], schema=None),
    "a dict and a dataclass": lambda k: k.from_py([{"a": 1}, Pair(1, 2)], schema=None),
    "a dataclass and a dict": lambda k: k.from_py([Pair(1, 2), {"a": 1}], schema=None),
    "an int and a dataclass": lambda k: k.from_py([5, Pair(1, 2)], schema=None),
    "DataItems and ints": lambda k: k.from_py([k.item(1), 5], schema=None),
    "an int and an entity": lambda k: k.from_py([5, k.new(a=1)], schema=None),
    "a list and a Koda list": lambda k: k.from_py([[1], k.list([1])], schema=None),
    "tuples, lists and None": lambda k: k.from_py([(1, 2), [3], None], schema=None),
    "dicts and None": lambda k: k.from_py([{"a": 1}, None, {"b": 2, "a": 3}], schema=None),
    "texts and None": lambda k: k.slice(["a", None, "b"]),
    "nested texts": lambda k: k.slice([["a"], ["b", None]]),
    "texts and an int": lambda k: k.slice(["a", 1]),
    "lone surrogate": lambda k: k.slice(["\ud800"]),
    "lone surrogate item": lambda k: k.item("\ud800"),
    "int subclass, inferred": lambda k: k.from_py(_Int(3), schema=None),
    "int subclasses in a list, inferred": lambda k: k.from_py([_Int(3), 4], schema=None),
    "int subclass keys, inferred": lambda k: k.from_py({_Int(1): 2}, schema=None),
    "str subclass, inferred": lambda k: k.from_py(_Str("a"), schema=None),
    "int keys as objects, inferred": lambda k: k.from_py({1: "a"}, dict_as_obj=True, schema=None),
}


@pytest.mark.parametrize("case", sorted(EDGE_CASES))
def test_from_py_edge_case(koda, case):
    make = EDGE_CASES[case]
    kind, ours = outcome(lambda: make(kd))
    koda_kind, theirs = outcome(lambda: make(koda))
    if kind == "error":
        assert (kind, ours) == (koda_kind, theirs)
        return
    if same_outcome(kind, ours, koda_kind, theirs):
        assert ours.to_py(max_depth=-1) == theirs.to_py(max_depth=-1)


# Plain values (lists, tuples, dicts and primitives) under the default OBJECT
# schema: converted in one native call (`from_py_plain`), or by the level
# walk when some value is not plain (big ints, float or None keys, a
# dataclass deep inside). Each item's schema is compared, not only its value
# (1 is INT32 and 2**40 INT64; floats too large for FLOAT32 are a deliberate
# difference, docs/differences.md).
PLAIN_LEAVES = [0, 1, -7, 2**40, 2**70, 2.5, 1e30, float("inf"), "a", "", "é", b"q", b"", True, False, None]
PLAIN_KEYS = ["a", "b", "", 1, 2**40, b"k", True, 1.5, None]


def plain_value(rng, depth):
    pick = rng.random()
    if depth >= 4 or pick < 0.35:
        return rng.choice(PLAIN_LEAVES)
    if pick < 0.65:
        items = [plain_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
        return tuple(items) if rng.random() < 0.2 else items
    if pick < 0.98:
        return {k: plain_value(rng, depth + 1) for k in rng.sample(PLAIN_KEYS, rng.randint(0, 3))}
    return Pair(1, [2])


def typed(k, x):
    """The items of OBJECT item `x` with their schemas: lists as lists,
    dicts and objects as sorted (key, value) pairs, primitives as
    (schema, value)."""
    if x.get_present_count() == 0:
        return None
    if k.is_list(x):
        return [typed(k, item) for item in x[:].L]
    if k.is_dict(x):
        return sorted((repr(key.to_py()), typed(k, x[key])) for key in x.get_keys().L)
    if k.is_primitive(x):
        schema = x.get_obj_schema() if str(x.get_schema()) == "OBJECT" else x.get_schema()
        return (str(schema), repr(x.to_py()))
    return sorted((name, typed(k, x.get_attr(name))) for name in k.dir(x))


def plain_spec(seed):
    rng = random.Random(seed)
    if rng.random() < 0.3:
        rows = [plain_value(rng, 1) for _ in range(rng.randint(0, 4))]
        return {"value": rows, "from_dim": 1, "dict_as_obj": rng.random() < 0.3}
    return {"value": plain_value(rng, 0), "from_dim": 0, "dict_as_obj": rng.random() < 0.3}


@pytest.mark.parametrize("seed", range(300))
def test_from_py_plain_program(koda, seed):
    spec = plain_spec(seed)

    def run_plain(k):
        return k.from_py(spec["value"], dict_as_obj=spec["dict_as_obj"], from_dim=spec["from_dim"])

    kind, ours = outcome(lambda: run_plain(kd))
    koda_kind, theirs = outcome(lambda: run_plain(koda))
    if not same_outcome(kind, ours, koda_kind, theirs):
        return
    ours_items = [typed(kd, x) for x in (ours.L if spec["from_dim"] else [ours])]
    theirs_items = [typed(koda, x) for x in (theirs.L if spec["from_dim"] else [theirs])]
    assert ours_items == theirs_items, spec


PLAIN_EDGE_CASES = {
    "deep lists": lambda k: k.from_py(functools.reduce(lambda v, _: [v], range(60), 1)),
    "deep dicts as objects": lambda k: k.from_py(functools.reduce(lambda v, _: {"a": v}, range(60), 1), dict_as_obj=True),
    "wide list of lists": lambda k: k.from_py([[i, str(i)] for i in range(300)]),
    "shared list": lambda k: k.from_py([[1, 2]] * 3),
    "empty containers": lambda k: k.from_py([[], {}, (), [[]], {"a": {}}]),
    "tuples of dicts": lambda k: k.from_py(({"a": 1}, {"b": (2, 3)})),
    "objects of different keys": lambda k: k.from_py([{"a": 1}, {"b": 2}, {"a": 3}, {}], dict_as_obj=True, from_dim=1),
    "lone surrogate inside": lambda k: k.from_py([["\ud800"]]),
    "lone surrogate key": lambda k: k.from_py({"\ud800": 1}),
    "float key": lambda k: k.from_py({1.5: 1}),
    "int key, dict_as_obj": lambda k: k.from_py({1: 1}, dict_as_obj=True),
}


@pytest.mark.parametrize("case", sorted(PLAIN_EDGE_CASES))
def test_from_py_plain_edge_case(koda, case):
    make = PLAIN_EDGE_CASES[case]
    kind, ours = outcome(lambda: make(kd))
    koda_kind, theirs = outcome(lambda: make(koda))
    if not same_outcome(kind, ours, koda_kind, theirs):
        return
    ours_items = [typed(kd, x) for x in (ours.L if ours.get_ndim().to_py() else [ours])]
    theirs_items = [typed(koda, x) for x in (theirs.L if theirs.get_ndim().to_py() else [theirs])]
    assert ours_items == theirs_items


def test_from_py_plain_results_can_be_updated(koda):
    """A converted value's bag is forked and written as any other's."""
    def program(k):
        x = k.from_py({"a": [1, 2], "b": {"c": "d"}}, dict_as_obj=True).fork_bag()
        x.a.append(3)
        x.b.c = "e"
        x.z = k.from_py([{"q": 1}])
        return x
    ours, theirs = program(kd), program(koda)
    assert typed(kd, ours) == typed(koda, theirs)


# Plain values with the schema inferred (`schema=None`): values of one type
# tree (lists of dicts of ..., None anywhere; dicts as entities of one new
# schema with `dict_as_obj`), converted in one native call
# (`from_py_inferred`), and values the level walk must refuse or convert.
LEAF_KINDS = {
    "int": [0, 1, -7, 2**40],
    "float": [2.5, -0.5, 1e30],
    "number": [1, 2.5, 2**40],
    "text": ["a", "", "é"],
    "bytes": [b"q", b""],
    "bool": [True, False],
    "none": [None],
}
KEY_KINDS = {"text": ["a", "b", "c", ""], "int": [1, 2, 3, 2**40], "bytes": [b"a", b"b"], "float": [1.5, 2.5]}


def type_tree(rng, depth):
    pick = rng.random()
    if depth >= 3 or pick < 0.4:
        return ("leaf", rng.choice(sorted(LEAF_KINDS)))
    if pick < 0.75:
        return ("list", type_tree(rng, depth + 1))
    return ("dict", rng.choice(sorted(KEY_KINDS)), type_tree(rng, depth + 1))


def typed_value(rng, tree):
    if rng.random() < 0.1:
        return None
    if tree[0] == "leaf":
        return rng.choice(LEAF_KINDS[tree[1]])
    if tree[0] == "list":
        items = [typed_value(rng, tree[1]) for _ in range(rng.randint(0, 3))]
        return tuple(items) if rng.random() < 0.2 else items
    keys = rng.sample(KEY_KINDS[tree[1]], rng.randint(0, 2))
    return {k: typed_value(rng, tree[2]) for k in keys}


@pytest.mark.parametrize("seed", range(300))
def test_from_py_inferred_plain_program(koda, seed):
    rng = random.Random(seed)
    tree = type_tree(rng, 0)
    from_dim = 1 if rng.random() < 0.3 else 0
    value = [typed_value(rng, tree) for _ in range(rng.randint(0, 3))] if from_dim else typed_value(rng, tree)
    if rng.random() < 0.1:
        value = [value, rng.choice(PLAIN_LEAVES)]  # kinds that do not mix (mostly)
    dict_as_obj = rng.random() < 0.3  # entities of one new schema

    def run_inferred(k):
        return k.from_py(value, schema=None, from_dim=from_dim, dict_as_obj=dict_as_obj)

    kind, ours = outcome(lambda: run_inferred(kd))
    koda_kind, theirs = outcome(lambda: run_inferred(koda))
    if not same_outcome(kind, ours, koda_kind, theirs):
        return
    ours_items = [typed(kd, x) for x in (ours.L if from_dim else [ours])]
    theirs_items = [typed(koda, x) for x in (theirs.L if from_dim else [theirs])]
    assert ours_items == theirs_items, (value, dict_as_obj)


def _self_containing(times, wrap=lambda v: v):
    """A list holding itself `times` times (through `wrap`)."""
    x = []
    x.extend([wrap(x)] * times)
    return x


@dataclasses.dataclass
class _Node:
    a: object = None
    b: object = None


def _node_in_itself():
    node = _Node()
    node.a = node.b = node
    return node


# Values that contain themselves: Koda's error, found before the levels
# double (a list holding itself twice doubles each level of the walk).
CYCLES = {
    "list in itself": lambda k: k.from_py(_self_containing(1)),
    "list in itself twice": lambda k: k.from_py(_self_containing(2)),
    "through dicts twice": lambda k: k.from_py(_self_containing(2, lambda x: {"a": x})),
    "through dicts twice, as objects": lambda k: k.from_py(_self_containing(2, lambda x: {"a": x}), dict_as_obj=True),
    "dataclass in itself twice": lambda k: k.from_py(_node_in_itself()),
    "shared deep list, not a cycle": lambda k: k.from_py(functools.reduce(lambda v, _: [v, v], range(14), 1)),
}


@pytest.mark.parametrize("case", sorted(CYCLES))
def test_from_py_of_values_containing_themselves(koda, case):
    make = CYCLES[case]
    kind, ours = outcome(lambda: make(kd))
    koda_kind, theirs = outcome(lambda: make(koda))
    assert kind == koda_kind, (ours, theirs)
    if kind == "error":
        assert ours.removeprefix("kd.from_py: ") == theirs


@pytest.mark.parametrize("dict_as_obj", [False, True])
def test_from_py_inferred_of_values_containing_themselves(dict_as_obj):
    """With `schema=None` too (koladata does not return here, so plait is
    checked alone)."""
    x = _self_containing(2, lambda x: {"a": x})
    with pytest.raises(ValueError, match="recursive Python object cannot be converted"):
        kd.from_py(x, schema=None, dict_as_obj=dict_as_obj)


# Primitives of several kinds with the schema inferred: OBJECT, each item
# of its own schema (1 is INT32, 2**40 INT64, 2.5 FLOAT32), as list items,
# dict values and a slice's items.
MIXED_PRIMITIVES = [1, "a", 2.5, True, b"x", None, 2**40, 0.1]


@pytest.mark.parametrize("value, from_dim, leaves", [
    (MIXED_PRIMITIVES, 1, lambda x: x),
    ([MIXED_PRIMITIVES], 1, lambda x: x[:].flatten()),
    ({"k": MIXED_PRIMITIVES}, 0, lambda x: x["k"][:]),
    ([{"a": 1, "b": "x"}, {"a": "y", "b": b"z"}], 1, lambda x: x.get_values().flatten()),
    ([[2**70, 1], [2**64 + 5, "a"]], 1, lambda x: x[:].flatten()),
])
def test_from_py_inferred_mixed_primitives(koda, value, from_dim, leaves):
    ours = kd.from_py(value, schema=None, from_dim=from_dim)
    theirs = koda.from_py(value, schema=None, from_dim=from_dim)
    assert str(ours.get_schema()) == str(theirs.get_schema())
    assert ours.to_py(max_depth=-1) == theirs.to_py(max_depth=-1)
    assert repr(leaves(ours).no_bag()) == repr(leaves(theirs).no_bag())
    assert repr(leaves(ours).get_obj_schema().no_bag()) == repr(leaves(theirs).get_obj_schema().no_bag())
