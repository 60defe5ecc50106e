"""plait against koladata on `kd.from_py(value, schema=S)` with generated
schemas (primitives, OBJECT, lists, dicts and named entities, nested) and
Python values that mostly fit them: missing values, missing and extra keys,
tuples for lists, and now and then a value of the wrong kind or type (a
primitive where a list is expected, a str where an int is, a dict with a
non-str key for an entity). Plain values take one native call
(`_plait.from_py_typed`), the others the Python level walk; both must give
Koda's result, or Koda's error (type and first line of the message).
"""

import importlib
import random

import pytest

from plait import kd
from koda_compare import normalised

SEEDS = range(300)

PRIMITIVE_SCHEMAS = ["INT32", "INT64", "FLOAT32", "FLOAT64", "STRING", "BYTES", "BOOLEAN"]
KEY_SCHEMAS = ["INT32", "INT64", "STRING", "BYTES"]
LEAVES = {
    "INT32": [0, 1, -5, 2**40],
    "INT64": [0, 7, 2**40],
    "FLOAT32": [1.5, -2.25, 3],
    "FLOAT64": [0.1, 2],
    "STRING": ["a", "", "xyz"],
    "BYTES": [b"q", b""],
    "BOOLEAN": [True, False],
}
WRONG = [1, "s", 2.5, b"b", True, [1], {"k": 1}, (1, 2)]


def schema_spec(rng, depth):
    pick = rng.random()
    if depth >= 3 or pick < 0.35:
        return ("prim", rng.choice(PRIMITIVE_SCHEMAS))
    if pick < 0.42:
        return ("object",)
    if pick < 0.62:
        return ("list", schema_spec(rng, depth + 1))
    if pick < 0.78:
        return ("dict", rng.choice(KEY_SCHEMAS), schema_spec(rng, depth + 1))
    names = rng.sample(["a", "b", "c", "d"], rng.randint(1, 3))
    return ("entity", f"E{depth}{''.join(names)}", [(n, schema_spec(rng, depth + 1)) for n in names])


def make_schema(k, spec):
    kind = spec[0]
    if kind == "prim":
        return getattr(k, spec[1])
    if kind == "object":
        return k.OBJECT
    if kind == "list":
        return k.list_schema(make_schema(k, spec[1]))
    if kind == "dict":
        return k.dict_schema(getattr(k, spec[1]), make_schema(k, spec[2]))
    return k.named_schema(spec[1], **{n: make_schema(k, s) for n, s in spec[2]})


def plain(rng, depth):
    """A value for an OBJECT place."""
    pick = rng.random()
    if depth >= 2 or pick < 0.5:
        return rng.choice([1, "x", 2.5, None, True])
    if pick < 0.75:
        return [plain(rng, depth + 1) for _ in range(rng.randint(0, 2))]
    return {rng.choice(["p", "q"]): plain(rng, depth + 1) for _ in range(rng.randint(0, 2))}


def value_for(rng, spec, misfit):
    """A Python value for schema `spec`; now and then (`misfit`) one that
    does not fit it."""
    if rng.random() < 0.1:
        return None
    if rng.random() < misfit:
        return rng.choice(WRONG)
    kind = spec[0]
    if kind == "prim":
        return rng.choice(LEAVES[spec[1]])
    if kind == "object":
        return plain(rng, 0)
    if kind == "list":
        items = [value_for(rng, spec[1], misfit) for _ in range(rng.randint(0, 3))]
        return tuple(items) if rng.random() < 0.15 else items
    if kind == "dict":
        keys = rng.sample(LEAVES[spec[1]] if spec[1] != "INT32" else [0, 1, -5], rng.randint(0, 2))
        return {key: value_for(rng, spec[2], misfit) for key in keys}
    row = {n: value_for(rng, s, misfit) for n, s in spec[2] if rng.random() < 0.85}
    if rng.random() < 0.1:
        row["extra"] = 1
    if rng.random() < misfit:
        row[7] = 1
    return row


def make_case(seed):
    rng = random.Random(seed)
    spec = schema_spec(rng, 0)
    misfit = rng.choice([0.0, 0.0, 0.05, 0.2])
    from_dim = rng.choice([0, 0, 1])
    if from_dim:
        value = [value_for(rng, spec, misfit) for _ in range(rng.randint(0, 4))]
    else:
        value = value_for(rng, spec, misfit)
    return spec, value, from_dim


def outcome(k, spec, value, from_dim):
    try:
        result = k.from_py(value, schema=make_schema(k, spec), from_dim=from_dim)
    except (ValueError, TypeError, AttributeError) as error:
        return ("error", type(error).__name__, normalised(str(error).split("\n")[0]))
    return ("ok", str(result.get_schema()), repr(result.get_shape()),
            result.to_py(max_depth=-1, obj_as_dict=True))


@pytest.mark.parametrize("seed", SEEDS)
def test_from_py_under_schema(koda, seed):
    spec, value, from_dim = make_case(seed)
    assert outcome(kd, spec, value, from_dim) == outcome(koda, spec, value, from_dim), (spec, value, from_dim)


# Where the first value decides what a level is taken for (Koda's rule),
# and the errors of each place a value can be in.
EDGE_CASES = {
    "None then a primitive, lists expected": ([None, 1, [1]], ("list", ("list", ("prim", "INT32")))),
    "a primitive then a list, lists expected": ([1, [1]], ("list", ("list", ("prim", "INT32")))),
    "a list then a primitive, lists expected": ([[1], 1], ("list", ("list", ("prim", "INT32")))),
    "a primitive where a dict is expected": (5, ("dict", "STRING", ("prim", "INT32"))),
    "a list where a dict is expected": ([1], ("dict", "STRING", ("prim", "INT32"))),
    "a dict then an int, entities expected": ([{"a": 1}, 5], ("list", ("entity", "R", [("a", ("prim", "INT32"))]))),
    "an int then a dict, entities expected": ([5, {"a": 1}], ("list", ("entity", "R", [("a", ("prim", "INT32"))]))),
    "a list where an entity is expected": ([[5]], ("list", ("entity", "R", [("a", ("prim", "INT32"))]))),
    "a non-str key for an entity": ({"a": 1, 2: 3}, ("entity", "R", [("a", ("prim", "INT32"))])),
    "a dict for an INT32 attribute": ({"a": {"x": 1}}, ("entity", "R", [("a", ("prim", "INT32"))])),
    "an int for a list attribute": ({"a": 1}, ("entity", "R", [("a", ("list", ("prim", "INT32")))])),
    "mixed values of an attribute": ([{"a": 1}, {"a": "x"}], ("list", ("entity", "R", [("a", ("prim", "INT32"))]))),
    "a big int for an INT32 attribute": ({"a": 2**40}, ("entity", "R", [("a", ("prim", "INT32"))])),
    "a float key for INT32 keys": ({1.5: 1}, ("dict", "INT32", ("prim", "INT32"))),
    "a None key": ({None: 1}, ("dict", "INT32", ("prim", "INT32"))),
    "mixed list items": ([1, "a"], ("list", ("prim", "INT32"))),
    "a str for INT32": ("x", ("prim", "INT32")),
    "a list for INT32": ([1], ("prim", "INT32")),
    "an int for an entity": (5, ("entity", "R", [("a", ("prim", "INT32"))])),
    "nested OBJECT values": ({"a": [1, {"x": [2]}]}, ("dict", "STRING", ("object",))),
    # NONE, SCHEMA and ITEMID take DataItems: a first None (or container)
    # is a mismatch, a first primitive fails to cast.
    "None under NONE": (None, ("prim", "NONE")),
    "an int under NONE": (1, ("prim", "NONE")),
    "None under LIST[NONE]": ([None], ("list", ("prim", "NONE"))),
    "None then an int under LIST[NONE]": ([None, 1], ("list", ("prim", "NONE"))),
    "an int then None under LIST[NONE]": ([1, None], ("list", ("prim", "NONE"))),
    "a list under LIST[NONE]": ([[1]], ("list", ("prim", "NONE"))),
    "nothing under LIST[NONE]": ([], ("list", ("prim", "NONE"))),
    "None under LIST[SCHEMA]": ([None], ("list", ("prim", "SCHEMA"))),
    "None under LIST[ITEMID]": ([None], ("list", ("prim", "ITEMID"))),
    "None for a NONE attribute": ({"a": None}, ("entity", "R", [("a", ("prim", "NONE"))])),
    "no key for a NONE attribute": ({}, ("entity", "R", [("a", ("prim", "NONE"))])),
    "an int for a NONE attribute": ({"a": 1}, ("entity", "R", [("a", ("prim", "NONE"))])),
    "None for a NONE dict value": ({"a": None}, ("dict", "STRING", ("prim", "NONE"))),
    "no dict has the NONE attribute": ([None, {}], ("list", ("entity", "R", [("a", ("prim", "NONE"))]))),
    "a missing entity, then a NONE attribute": ([None, {"a": 1}], ("list", ("entity", "R", [("a", ("prim", "NONE"))]))),
    "a missing key, then a NONE attribute": ([{}, {"a": 1}], ("list", ("entity", "R", [("a", ("prim", "NONE"))]))),
    "a NONE attribute, then a missing key": ([{"a": 1}, {}], ("list", ("entity", "R", [("a", ("prim", "NONE"))]))),
}


@pytest.mark.parametrize("case", sorted(EDGE_CASES))
def test_from_py_under_schema_edge_case(koda, case):
    value, spec = EDGE_CASES[case]
    assert outcome(kd, spec, value, 0) == outcome(koda, spec, value, 0)


def test_one_native_call_for_plain_records():
    # The plain records below take the native path: the Python walk is not
    # entered (its converter would be).
    module = importlib.import_module("plait.kd.from_py")
    calls = []
    original = module._Converter.run
    module._Converter.run = lambda self, *args: calls.append(args) or original(self, *args)
    try:
        schema = kd.list_schema(kd.named_schema("Rec", a=kd.INT64, tags=kd.list_schema(kd.STRING)))
        result = kd.from_py([{"a": 1, "tags": ["x"]}, None, {"a": 2}], schema=schema)
    finally:
        module._Converter.run = original
    assert calls == []
    assert result.to_py(max_depth=-1, obj_as_dict=True) == [{"a": 1, "tags": ["x"]}, None, {"a": 2, "tags": None}]
    assert result[:].a.get_schema() == kd.INT64


def recursive_node(k):
    bag = k.mutable_bag()
    node = bag.named_schema("Node", v=k.INT32)
    node.child = node
    node.kids = k.list_schema(node)
    return node


@pytest.mark.parametrize("depth", [1, 20, 500])
def test_from_py_under_a_recursive_schema(koda, depth):
    # A chain of records as deep as `depth`, each with lists of records
    # (some missing, some empty): the walk ends where the values end,
    # though the schema goes on.
    value = {"v": 0, "kids": [{"v": -1}, None, {"v": -2, "kids": []}]}
    cur = value
    for i in range(1, depth):
        cur["child"] = {"v": i}
        cur = cur["child"]
    ours = kd.from_py(value, schema=recursive_node(kd))
    theirs = koda.from_py(value, schema=recursive_node(koda))
    assert ours.to_py(max_depth=-1, obj_as_dict=True) == theirs.to_py(max_depth=-1, obj_as_dict=True)


def test_from_py_of_none_under_a_recursive_schema():
    # (koladata 0.0.4 reports a recursive Python object here.)
    node = recursive_node(kd)
    assert kd.from_py(None, schema=node).get_present_count() == 0
    assert kd.from_py([None, None], schema=kd.list_schema(node)).to_py() == [None, None]
