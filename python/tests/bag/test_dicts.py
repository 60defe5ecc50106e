"""Dicts (issue 4): creation, lookups, keys and values, sizes, updates,
schemas, reprs, bag statistics and to_py. Expected texts were checked against
koladata 0.0.4 (bag ids removed, as they are random). Koda lists keys in hash
order; plait in the order they were first set (docs/differences.md), so the
texts below show insertion order."""

import re

import pytest

from plait import kd


def text(x):
    return re.sub(r", bag_id: \$[0-9a-f]{4}", "", repr(x))


def test_empty_dict_and_python_dicts():
    assert text(kd.dict()) == "DataItem(Dict{}, schema: DICT{OBJECT, OBJECT})"
    assert text(kd.dict({})) == "DataItem(Dict{}, schema: DICT{NONE, NONE})"
    d = kd.dict({"a": 1, "b": 2})
    assert text(d) == "DataItem(Dict{'a'=1, 'b'=2}, schema: DICT{STRING, INT32})"
    assert text(d.get_schema()) == "DataItem(DICT{STRING, INT32}, schema: SCHEMA)"
    assert str(kd.dict({"a": 1})) == "Dict{'a'=1}"
    assert text(kd.dict({"a": 1, "b": 2.0}).get_schema()) == "DataItem(DICT{STRING, FLOAT32}, schema: SCHEMA)"
    assert text(kd.dict({1: 1, "a": 2})) == "DataItem(Dict{1=1, 'a'=2}, schema: DICT{OBJECT, INT32})"


def test_dicts_from_keys_and_values():
    assert text(kd.dict(kd.slice(["a", "b"]), kd.slice([1, 2]))) == "DataItem(Dict{'a'=1, 'b'=2}, schema: DICT{STRING, INT32})"
    assert text(kd.dict(kd.item("a"), kd.item(1))) == "DataItem(Dict{'a'=1}, schema: DICT{STRING, INT32})"
    two = kd.dict(kd.slice([["a", "b"], ["c"]]), kd.slice([[1, 2], [3]]))
    assert text(two) == "DataSlice([Dict{'a'=1, 'b'=2}, Dict{'c'=3}], schema: DICT{STRING, INT32}, present: 2/2)"
    # One value for every key.
    assert text(kd.dict(kd.slice([["a", "b"], ["c"]]), 1)) == (
        "DataSlice([Dict{'a'=1, 'b'=1}, Dict{'c'=1}], schema: DICT{STRING, INT32}, present: 2/2)")
    # Later duplicates win; missing keys are skipped; missing values are kept.
    assert text(kd.dict(kd.slice(["a", "a"]), kd.slice([1, 2]))) == "DataItem(Dict{'a'=2}, schema: DICT{STRING, INT32})"
    assert text(kd.dict(kd.slice(["a", None]), kd.slice([1, 2]))) == "DataItem(Dict{'a'=1}, schema: DICT{STRING, INT32})"
    with_missing = kd.dict(kd.slice(["a", "b"]), kd.slice([1, None]))
    assert text(with_missing) == "DataItem(Dict{'a'=1, 'b'=None}, schema: DICT{STRING, INT32})"
    assert kd.dict_size(with_missing).to_py() == 2


def test_key_types():
    assert text(kd.dict({True: 1})) == "DataItem(Dict{True=1}, schema: DICT{BOOLEAN, INT32})"
    assert text(kd.dict({b"a": 1})) == "DataItem(Dict{b'a'=1}, schema: DICT{BYTES, INT32})"
    assert text(kd.dict(kd.slice([kd.present]), kd.slice([1]))) == "DataItem(Dict{present=1}, schema: DICT{MASK, INT32})"
    assert text(kd.dict(kd.INT32, 1)) == "DataItem(Dict{INT32=1}, schema: DICT{SCHEMA, INT32})"
    # INT32 and INT64 keys of equal value are one key (it keeps its first type);
    # BOOLEAN True and 1, STRING and BYTES stay apart.
    same = kd.dict(kd.slice([1, kd.int64(1)], kd.OBJECT), kd.slice([1, 2]))
    assert text(same) == "DataItem(Dict{1=2}, schema: DICT{OBJECT, INT32})"
    assert text(kd.dict(kd.slice([True, 1], kd.OBJECT), kd.slice([1, 2]))) == (
        "DataItem(Dict{True=1, 1=2}, schema: DICT{OBJECT, INT32})")
    assert kd.dict_size(kd.dict(kd.slice(["a", b"a"], kd.OBJECT), kd.slice([1, 2]))).to_py() == 2
    # Entities (and dicts) as keys print as their ids.
    e = kd.new(x=1)
    d = kd.dict(e, 1)
    assert re.fullmatch(r"Dict\{\$[0-9A-Za-z]{22}=1\}", str(d))
    assert d[e].to_py() == 1


@pytest.mark.parametrize("make", [lambda: kd.dict({1.5: 1}), lambda: kd.dict(kd.slice([1.5]), kd.slice([1])),
                                  lambda: kd.dict(kd.slice([1, 2.5], kd.OBJECT), 1)])
def test_float_keys_are_refused(make):
    with pytest.raises(ValueError, match="dict keys cannot be FLOAT32"):
        make()


def test_schema_arguments():
    assert text(kd.dict({"a": 1}, key_schema=kd.OBJECT).get_schema()) == "DataItem(DICT{OBJECT, INT32}, schema: SCHEMA)"
    assert text(kd.dict({"a": 1}, value_schema=kd.INT64)) == "DataItem(Dict{'a'=1}, schema: DICT{STRING, INT64})"
    assert text(kd.dict({"a": 1}, schema=kd.dict_schema(kd.STRING, kd.FLOAT32))) == (
        "DataItem(Dict{'a'=1.0}, schema: DICT{STRING, FLOAT32})")
    with pytest.raises(ValueError, match="the schema for values is incompatible.\n\nExpected schema for values: "
                                         "STRING\nAssigned schema for values: INT32"):
        kd.dict({"a": 1}, value_schema=kd.STRING)


def test_python_argument_errors():
    with pytest.raises(TypeError, match="`items_or_keys` must be a DataSlice or DataItem"):
        kd.dict({"a": 1}, kd.slice([1]))
    with pytest.raises(TypeError, match="`items_or_keys` must be a Python dict if `values` is not provided"):
        kd.dict(kd.slice(["a"]))
    with pytest.raises(ValueError, match="object with unsupported type: list"):
        kd.dict({"a": [1, 2]})
    with pytest.raises(ValueError, match="object with unsupported type: dict"):
        kd.dict({"a": {"x": 1}})
    with pytest.raises(ValueError, match=r"dict values being assigned in .* got 1 < 2; consider wrapping the last 1 dimension"):
        kd.dict(kd.slice(["a", "b"]), kd.slice([[1], [2]]))
    # One key, several values: Koda's refusal too (not the last value).
    with pytest.raises(ValueError, match=r"dict values being assigned in .* got 0 < 1"):
        kd.dict(kd.item(1), kd.slice([b"x"]))


def test_lookups():
    d = kd.dict({"a": 1, "b": 2})
    assert text(d["a"]) == "DataItem(1, schema: INT32)"
    assert text(d[kd.slice(["a", "c", "b"])]) == "DataSlice([1, None, 2], schema: INT32, present: 2/3)"
    assert text(d["z"]) == "DataItem(None, schema: INT32)"
    assert text(d[None]) == "DataItem(None, schema: INT32)"
    assert text(kd.get_item(d, "b")) == "DataItem(2, schema: INT32)"
    assert text(kd.dicts.get_item(d, "b")) == "DataItem(2, schema: INT32)"
    assert text(kd.get_values(d, kd.slice(["b", "a"]))) == "DataSlice([2, 1], schema: INT32, present: 2/2)"
    two = kd.dict(kd.slice([["a", "b"], ["c"]]), kd.slice([[1, 2], [3]]))
    assert text(two[kd.slice(["a", "c"])]) == "DataSlice([1, 3], schema: INT32, present: 2/2)"
    assert text(two[kd.slice([["a", "b", "c"], ["c"]])]) == "DataSlice([[1, 2, None], [3]], schema: INT32, present: 3/4)"
    with pytest.raises(ValueError, match="the schema for keys is incompatible.\n\nExpected schema for keys: STRING\n"
                                         "Assigned schema for keys: INT32"):
        d[1]
    with pytest.raises(ValueError, match="dict\\(s\\) expected, got ENTITY\\(x=INT32\\)"):
        kd.new(x=1)["a"]
    with pytest.raises(ValueError, match="cannot get dict values without a DataBag"):
        d.no_bag()["a"]


def test_objects_holding_dicts():
    o = kd.obj(kd.dict({"a": 1}))
    assert text(o) == "DataItem(Dict{'a'=1}, schema: OBJECT)"
    assert text(o["a"]) == "DataItem(1, schema: INT32)"
    mixed = kd.slice([kd.obj(kd.dict({"a": 1})), kd.obj(kd.dict({"a": "x"}))])
    assert text(mixed["a"]) == "DataSlice([1, 'x'], schema: OBJECT, present: 2/2)"
    keys = kd.slice([kd.obj(kd.dict({"a": 1})), kd.obj(kd.dict({1: "x"}))]).get_keys()
    assert text(keys) == "DataSlice([['a'], [1]], schema: OBJECT, present: 2/2)"
    assert text(kd.has_dict(kd.slice([o, kd.obj(x=1), None]))) == "DataSlice([present, missing, missing], schema: MASK, present: 1/3)"
    assert text(kd.is_dict(kd.dict())) == "DataItem(present, schema: MASK)"
    assert text(kd.is_dict(kd.slice([1]))) == "DataItem(missing, schema: MASK)"


def test_keys_values_and_sizes():
    d = kd.dict({"z": 1, "a": 2, "m": 3})
    assert text(d.get_keys()) == "DataSlice(['z', 'a', 'm'], schema: STRING, present: 3/3)"
    assert text(d.get_values()) == "DataSlice([1, 2, 3], schema: INT32, present: 3/3)"
    assert text(kd.dict_size(d)) == "DataItem(3, schema: INT64)"
    assert text(d.dict_size()) == "DataItem(3, schema: INT64)"
    sparse = kd.dict_like(kd.slice([1, None]), "a", 1)
    assert text(sparse) == "DataSlice([Dict{'a'=1}, None], schema: DICT{STRING, INT32}, present: 1/2)"
    assert text(sparse.get_keys()) == "DataSlice([['a'], []], schema: STRING, present: 1/1)"
    assert text(kd.dict_size(sparse)) == "DataSlice([1, None], schema: INT64, present: 1/2)"
    assert text(sparse["a"]) == "DataSlice([1, None], schema: INT32, present: 1/2)"
    with pytest.raises(ValueError, match="kd.dicts.size: Not possible to get Dict size without a DataBag"):
        kd.dict_size(kd.slice([1]))
    # Koda's words: the keys are an attribute the entity's schema lacks.
    with pytest.raises(ValueError, match="kd.dicts.get_keys: the attribute '__keys__' is missing on the schema"):
        kd.get_keys(kd.new(x=1))


def test_select_keys_and_values():
    d = kd.dict({"a": 1, "b": 2})
    assert text(kd.select_keys(d, lambda k: k == "a")) == "DataSlice(['a'], schema: STRING, present: 1/1)"
    assert text(kd.select_values(d, lambda v: v > 1)) == "DataSlice([2], schema: INT32, present: 1/1)"
    assert text(d.select_keys(d.get_keys() != "a")) == "DataSlice(['b'], schema: STRING, present: 1/1)"


def test_shaped_forms():
    assert text(kd.dict_shaped(kd.shapes.new(2))) == "DataSlice([Dict{}, Dict{}], schema: DICT{OBJECT, OBJECT}, present: 2/2)"
    assert text(kd.dict_shaped(kd.shapes.new(2), "a", kd.slice([1, 2]))) == (
        "DataSlice([Dict{'a'=1}, Dict{'a'=2}], schema: DICT{STRING, INT32}, present: 2/2)")
    assert text(kd.dict_shaped(kd.shapes.new(2), kd.slice([["a", "b"], ["c"]]), 1)) == (
        "DataSlice([Dict{'a'=1, 'b'=1}, Dict{'c'=1}], schema: DICT{STRING, INT32}, present: 2/2)")
    assert text(kd.dict_shaped(kd.shapes.new(), {"k": 0})) == "DataItem(Dict{'k'=0}, schema: DICT{STRING, INT32})"
    with pytest.raises(ValueError, match="cannot create a DataSlice of dicts from a Python dictionary"):
        kd.dict_shaped_as(kd.slice([7, 8]), {"k": 0})
    assert text(kd.dict_like(kd.slice([1, None, 3]), "a", 5)) == (
        "DataSlice([Dict{'a'=5}, None, Dict{'a'=5}], schema: DICT{STRING, INT32}, present: 2/3)")
    with pytest.raises(ValueError, match="cannot fill containers of shape JaggedShape\\(3\\)"):
        kd.dict_shaped(kd.shapes.new(3), kd.slice([["a", "b"], ["c"]]), 1)


def test_itemid_argument():
    d = kd.dict({"a": 1})
    again = kd.dict({"a": 2}, itemid=d.get_itemid())
    assert str(again.get_itemid()) == str(d.get_itemid())
    assert again["a"].to_py() == 2


def test_values_may_be_entities_lists_and_dicts():
    assert text(kd.dict({"a": kd.new(x=1)})) == "DataItem(Dict{'a'=Entity(x=1)}, schema: DICT{STRING, ENTITY(x=INT32)})"
    assert text(kd.dict({"a": kd.obj(x=1)})) == "DataItem(Dict{'a'=Obj(x=1)}, schema: DICT{STRING, OBJECT})"
    assert text(kd.dict({"a": kd.list([1, 2])})) == "DataItem(Dict{'a'=List[1, 2]}, schema: DICT{STRING, LIST[INT32]})"
    nested = kd.dict({"a": kd.dict({"x": 1})})
    assert text(nested) == "DataItem(Dict{'a'=Dict{'x'=1}}, schema: DICT{STRING, DICT{STRING, INT32}})"
    assert nested["a"]["x"].to_py() == 1


def test_in_place_updates_need_a_mutable_bag():
    d = kd.dict({"a": 1})
    with pytest.raises(ValueError, match="cannot modify/create item\\(s\\) on an immutable DataBag"):
        d["b"] = 2
    m = d.fork_bag()
    m["b"] = 2
    m["a"] = None
    assert text(m) == "DataItem(Dict{'a'=None, 'b'=2}, schema: DICT{STRING, INT32})"
    assert m.dict_size().to_py() == 2
    assert d.dict_size().to_py() == 1  # the fork copied on write
    with pytest.raises(ValueError, match="the schema for keys is incompatible"):
        m[1] = 2
    with pytest.raises(ValueError, match="the schema for values is incompatible"):
        m["e"] = kd.int64(5)


def test_entities_set_as_values_bring_their_bag():
    m = kd.dict(kd.item("k"), kd.new(x=1)).fork_bag()
    m["j"] = kd.new(x=2, schema=m.get_schema().get_value_schema())
    assert m["j"].x.to_py() == 2


def test_immutable_updates():
    d = kd.dict({"a": 1})
    updated = kd.with_dict_update(d, "b", 2)
    assert text(updated) == "DataItem(Dict{'a'=1, 'b'=2}, schema: DICT{STRING, INT32})"
    assert text(d) == "DataItem(Dict{'a'=1}, schema: DICT{STRING, INT32})"
    assert text(kd.with_dict_update(d, kd.dict({"c": 3}))) == "DataItem(Dict{'a'=1, 'c'=3}, schema: DICT{STRING, INT32})"
    assert text(d.with_dict_update("a", 5)["a"]) == "DataItem(5, schema: INT32)"
    bag = kd.dict_update(d, "b", 2)
    assert text(bag) == (
        "DataBag $XXXX:\n  0 Entities/Objects with 0 values in 0 attrs\n  0 non empty Lists with 0 items\n"
        "  1 non empty Dicts with 1 key/value entries\n  1 schemas with 2 values\n\nTop attrs:\n").replace("$XXXX", bag_id(bag))
    assert d.with_bag(bag)["b"].to_py() == 2
    with pytest.raises(ValueError, match="kd.dicts.with_dict_update: the schema for keys is incompatible"):
        kd.with_dict_update(d, 1, 2)


def bag_id(bag):
    return repr(bag).split()[1].rstrip(":")


def test_dict_schemas():
    schema = kd.dict_schema(kd.STRING, kd.INT32)
    assert text(schema) == "DataItem(DICT{STRING, INT32}, schema: SCHEMA)"
    assert schema == kd.dict({"a": 1}).get_schema()
    assert text(schema.get_key_schema()) == "DataItem(STRING, schema: SCHEMA)"
    assert text(kd.get_value_schema(schema)) == "DataItem(INT32, schema: SCHEMA)"
    assert text(kd.schema.is_dict_schema(schema)) == "DataItem(present, schema: MASK)"
    assert text(kd.schema.is_dict_schema(kd.list_schema(kd.INT32))) == "DataItem(missing, schema: MASK)"
    assert text(kd.dict_schema(kd.NONE, kd.INT32)) == "DataItem(DICT{NONE, INT32}, schema: SCHEMA)"
    with pytest.raises(ValueError, match="kd.schema.dict_schema: dict keys cannot be FLOAT64"):
        kd.dict_schema(kd.FLOAT64, kd.INT32)
    with pytest.raises(ValueError, match="expected Dict schema for get_key_schema, got DataItem\\(LIST\\[INT32\\]"):
        kd.get_key_schema(kd.list_schema(kd.INT32))
    with pytest.raises(ValueError, match="expected Dict schema for get_value_schema, got DataItem\\(Dict"):
        kd.dict({"a": 1}).get_value_schema()


def test_long_dicts_wrap_and_abbreviate():
    assert "\n" not in repr(kd.dict({i: i for i in range(15)}))
    wrapped = text(kd.dict({i: i for i in range(16)}))
    assert wrapped.startswith("DataItem(Dict{\n  0=0,\n  1=1,\n") and wrapped.endswith("  15=15,\n}, schema: DICT{INT32, INT32})")
    big = text(kd.dict({i: i for i in range(30)}))
    assert big.count("=") == 20 and "  ...,\n}" in big
    nested = text(kd.obj(a=kd.dict({i: i for i in range(18)})))
    assert nested.startswith("DataItem(Obj(\n  a=Dict{\n    0=0,\n") and nested.endswith("  },\n), schema: OBJECT)")
    in_slice = text(kd.slice([kd.dict({i: i for i in range(18)})]))
    assert in_slice.startswith("DataSlice([\n  Dict{\n    0=0,\n")


def test_bag_statistics():
    bag = kd.dict({"a": 1}).get_bag()
    assert text(bag).endswith("  0 Entities/Objects with 0 values in 0 attrs\n  0 non empty Lists with 0 items\n"
                              "  1 non empty Dicts with 1 key/value entries\n  1 schemas with 2 values\n\nTop attrs:\n")
    entities = kd.obj(x=kd.slice([1, 2, 3]), y=2).get_bag()
    assert repr(entities).split("\n")[1:] == [
        "  3 Entities/Objects with 6 values in 2 attrs", "  0 non empty Lists with 0 items",
        "  0 non empty Dicts with 0 key/value entries", "  3 schemas with 6 values", "", "Top attrs:",
        "  y: 3 values", "  x: 3 values"]
    assert repr(kd.bag()).startswith("DataBag(empty, $")


def test_to_py():
    assert kd.dict({"a": 1, "b": 2}).to_py() == {"a": 1, "b": 2}
    assert kd.obj(kd.dict({"a": 1})).to_py() == {"a": 1}
    assert kd.to_py(kd.dict({1: kd.dict({"x": None})})) == {1: {"x": None}}
    assert kd.list([kd.dict({"a": 1})]).to_py() == [{"a": 1}]
    assert kd.dict(kd.slice([["a"], ["b", "c"]]), 1).to_py() == [{"a": 1}, {"b": 1, "c": 1}]
