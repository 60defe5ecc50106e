"""kd.json: from_json and to_json (checked against koladata 0.0.4),
round trips, escaping, unicode, invalid and hostile input."""

import json
import random

import pytest

from plait import kd


def test_from_json_infers_objects_lists_and_numbers():
    x = kd.from_json('{"a": {"b": 1}, "c": [1, "x", null], "d": 1.5, "e": null, "f": true, "g": 12345678901}')
    assert x.get_schema() == kd.OBJECT
    assert x.a.b.to_py() == 1 and x.c[:].to_py() == [1, "x", None] and x.d.to_py() == 1.5
    assert x.f.to_py() is True and x.g.get_schema() == kd.OBJECT and repr(x.g).startswith("DataItem(int64{12345678901}")
    assert x.json_object_keys[:].to_py() == ["a", "c", "d", "e", "f", "g"]
    assert kd.dir(x) == ["a", "c", "d", "e", "f", "g", "json_object_keys", "json_object_values"]
    dup = kd.from_json('{"a": 1, "a": 2, "a": 3}')
    assert dup.a.to_py() == 3 and dup.json_object_values[:].to_py() == [1, 2, 3]
    assert kd.from_json('{"a": 1}', keys_attr=None, values_attr=None).get_attr_names(intersection=True) == ["a"]
    assert kd.from_json(kd.slice(["2147483648", "9223372036854775808", "1E2"])).to_py() == [2147483648, -(2**63), 100.0]


def test_from_json_with_schemas():
    assert repr(kd.from_json("1", kd.INT32)).startswith("DataItem(1, schema: INT32")
    assert kd.from_json('"1.5"', kd.FLOAT64).to_py() == 1.5
    assert kd.from_json('"YWJj"', kd.BYTES).to_py() == b"abc"
    assert kd.from_json("true", kd.MASK).to_py() == kd.present
    assert kd.from_json("[1, null]", kd.list_schema(kd.INT64))[:].to_py() == [1, None]
    assert kd.from_json('{"a": 1}', kd.dict_schema(kd.STRING, kd.INT32))["a"].to_py() == 1
    e = kd.from_json('{"a": 1, "b": "x"}', kd.schema.new_schema(a=kd.FLOAT32))
    assert e.a.to_py() == 1.0 and e.get_attr_names(intersection=True) == ["a"]
    assert kd.from_json("[1, 2.0]", kd.OBJECT, kd.FLOAT64)[:].to_py() == [1.0, 2.0]


@pytest.mark.parametrize(
    "text, kwargs, message",
    [
        ('"a"', {"schema": kd.INT32}, "unable to parse INT32: 'a'; json string invalid for INT32 schema"),
        ("1", {"schema": kd.MASK}, "casting data of type INT64 to MASK is not supported; json number 1 invalid for MASK schema"),
        ('"a"', {"schema": kd.BYTES}, "json string invalid for BYTES schema, must be valid base64"),
        ("[1]", {"schema": kd.INT32}, "json array invalid for non-LIST schema"),
        ("tru", {}, "json parse error at position 4 near token \"tru\""),
        ("1e400", {}, "number overflow parsing '1e400'"),
    ],
)
def test_from_json_errors(text, kwargs, message):
    with pytest.raises(ValueError, match="kd.json.from_json: ") as e:
        kd.from_json(text, **kwargs)
    assert message in str(e.value)


def test_on_invalid_and_missing():
    assert kd.from_json(kd.slice(["1", "x", None]), on_invalid=-1).to_py() == [1, -1, None]
    with pytest.raises(ValueError, match="must be a slice of STRING, got a slice of INT32"):
        kd.from_json(5)


def test_deep_and_hostile_input():
    assert kd.from_json("[" * 5000 + "]" * 5000).get_schema() == kd.OBJECT
    with pytest.raises(ValueError, match="nesting is deeper than"):
        kd.from_json("[" * 200_000 + "]" * 200_000)
    # (Unclosed, the text's syntax error is the one reported, as Koda's.)
    with pytest.raises(ValueError, match="unexpected end of input"):
        kd.from_json("[" * 200_000)
    with pytest.raises(ValueError, match="surrogate"):
        kd.from_json('"\\ud800"')
    assert kd.from_json('"\\u00e9\\ud83d\\ude00"').to_py() == "é😀"
    with pytest.raises(ValueError, match="cycle detected"):
        a = kd.new(v=1)
        kd.to_json(a.with_attrs(me=a))


def test_to_json_values_and_formats():
    assert kd.to_json(kd.slice([1, None, 2.5, "a", True])).to_py() == ["1", None, "2.5", '"a"', "true"]
    assert kd.to_json(kd.slice([0.1, -(2.0**63), float("nan")])).to_py() == ["0.10000000149011612", "-9.223372036854776e+18", '"nan"']
    assert kd.to_json(kd.slice([0.1, 1e16], kd.FLOAT64)).to_py() == ["0.1", "1e+16"]
    assert kd.to_json(kd.list([1, None, 3]), indent=2).to_py() == "[\n  1,\n  null,\n  3\n]"
    assert kd.to_json(kd.new(a=kd.list([1]), b=kd.new(c=1)), indent=-1).to_py() == '{"a":[1],"b":{"c":1}}'
    assert kd.to_json(kd.dict({2: 1, 1: 2, 10: 3})).to_py() == '{"1": 2, "10": 3, "2": 1}'
    assert kd.to_json(kd.new(x=kd.missing)).to_py() == '{"x": false}'
    assert kd.to_json(kd.new(a=1, b=None), include_missing_values=False).to_py() == '{"a": 1}'
    assert kd.to_json("é😀\x01").to_py() == '"\\u00e9\\ud83d\\ude00\\u0001"'
    assert kd.to_json("é😀", ensure_ascii=False).to_py() == '"é😀"'
    ordered = kd.new(json_object_keys=kd.list(["x", "z", "x"]), json_object_values=kd.list([1, 2, 3]))
    assert kd.to_json(ordered).to_py() == '{"x": 1, "z": 2, "x": 3}'
    with pytest.raises(ValueError, match="unsupported schema SCHEMA for json serialization"):
        kd.to_json(kd.INT32)


def test_round_trip_matches_python_json():
    rng = random.Random(1)

    def value(depth):
        r = rng.random()
        if depth > 3 or r < 0.4:
            return rng.choice([None, True, False, 0, -7, 2**40, 1.5, "", "a\"b", "é\n"])
        if r < 0.7:
            return [value(depth + 1) for _ in range(rng.randrange(4))]
        return {rng.choice("abcd"): value(depth + 1) for _ in range(rng.randrange(4))}

    texts = [json.dumps(value(0)) for _ in range(200)]
    back = kd.to_json(kd.from_json(kd.slice(texts)), keys_attr="json_object_keys").to_py()
    # A top-level null is a missing item, so no text.
    assert [None if t is None else json.loads(t) for t in back] == [json.loads(t) for t in texts]
