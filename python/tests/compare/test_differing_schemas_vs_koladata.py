"""plait against koladata on data of many differing schemas: records with
differing keys made objects (each object a schema of its own), objects made
one by one, a schema whose attributes are entities of schemas of their own.
Listing attributes, copying (`kd.clone`, `kd.extract`, `kd.deep_clone`),
converting (`to_py`, `to_json`) and printing read, for each item, only the
attributes its schema has; the results must be Koda's.

Each program runs on both libraries; the outcomes must agree: the same repr
(ids and bag ids masked), or the same exception type and first message
line."""

import pytest

from plait import kd as pkd

from koda_compare import assert_same_repr_outcome, repr_outcome as outcome

kkd = pytest.importorskip("koladata.kd")


def _records(n=120):
    # Keys differ from record to record; some values missing, some nested.
    out = []
    for i in range(n):
        record = {f"k{i % 37}": i, "shared": f"s{i}"}
        if i % 3 == 0:
            record["nested"] = {f"z{i % 11}": i * 2, "t": None}
        if i % 5 == 0:
            record["items"] = [i, i + 1]
        out.append(record)
    return out


def _objects(kd):
    return kd.from_py(_records(), dict_as_obj=True)


def _one_by_one(kd):
    return kd.slice([kd.obj(**{f"a{i % 41}": i, "c": kd.obj(**{f"z{i % 7}": i})}) for i in range(90)])


def _wide_schema(kd):
    return kd.new(**{f"a{i}": kd.new(**{f"x{i}": i, "y": "t"}) for i in range(70)})


def _mutable(kd):
    # Written between questions: each answer sees every write.
    bag = kd.mutable_bag()
    objs = [bag.obj(**{f"a{i}": i}) for i in range(60)]
    names = []
    for i, o in enumerate(objs):
        o.set_attr(f"late{i % 5}", i)
        names.append(o.get_attr_names(intersection=True))
    return names


def _json_cycle(kd):
    bag = kd.mutable_bag()
    objs = [bag.obj(**{f"v{i}": i}) for i in range(20)]
    objs[3].set_attr("v3", objs[5])
    objs[5].set_attr("v5", objs[3])
    return kd.to_json(kd.slice(objs))


def _json_cycle_reached_from_many(kd):
    # The cycle is entered from the first item and from twenty others.
    bag = kd.mutable_bag()
    inner = bag.obj()
    outer = bag.obj(p=inner)
    inner.back = outer
    return kd.to_json(kd.slice([outer] + [bag.obj(**{f"y{i}": inner}) for i in range(20)]))


PROGRAMS = {
    "names_union": lambda kd: kd.get_attr_names(_objects(kd), intersection=False),
    "names_intersection": lambda kd: kd.get_attr_names(_objects(kd), intersection=True),
    "to_py": lambda kd: _objects(kd).to_py(),
    "to_py_dicts_without_missing": lambda kd: _objects(kd).to_py(obj_as_dict=True, include_missing_attrs=False),
    "clone_to_py": lambda kd: kd.clone(_objects(kd)).to_py(obj_as_dict=True),
    "extract_to_py": lambda kd: kd.extract(_objects(kd)[3:40]).to_py(obj_as_dict=True),
    "deep_clone_to_py": lambda kd: kd.deep_clone(_objects(kd)).to_py(obj_as_dict=True),
    "to_json": lambda kd: kd.to_json(_objects(kd)),
    "to_json_without_missing": lambda kd: kd.to_json(_objects(kd), include_missing_values=False),
    "to_json_indented": lambda kd: kd.to_json(_objects(kd), indent=2),
    "to_json_one_by_one": lambda kd: kd.to_json(_one_by_one(kd)),
    "to_json_attribute_of_differing_schemas": lambda kd: kd.to_json(kd.slice(
        [kd.obj(**{f"u{i}": i}) for i in range(20)]
        + [kd.obj(a=1), kd.obj(a=kd.list([1])), kd.obj(a=kd.new(b=1)), kd.obj(a=kd.present), kd.obj(a=kd.missing),
           kd.obj(b=2), kd.obj(), 3, None])),
    "to_json_key_lists_among_many_schemas": lambda kd: kd.to_json(kd.slice(
        [kd.obj(**{f"u{i}": i}) for i in range(20)]
        + [kd.obj(json_object_keys=kd.list(["b", "a"]), a=1, b=2),
           kd.obj(json_object_keys=kd.list(["y"]), json_object_values=kd.list([5]))])),
    "to_json_cycle_among_many_schemas": _json_cycle,
    "to_json_cycle_reached_from_many": _json_cycle_reached_from_many,
    "repr": lambda kd: _objects(kd),
    "nested_names": lambda kd: kd.get_attr_names(_objects(kd).nested, intersection=False),
    "one_by_one_to_py": lambda kd: _one_by_one(kd).to_py(),
    "one_by_one_names": lambda kd: kd.get_attr_names(_one_by_one(kd).c, intersection=False),
    "one_by_one_clone": lambda kd: kd.clone(_one_by_one(kd)).c.to_py(obj_as_dict=True),
    "wide_schema_repr": lambda kd: _wide_schema(kd).get_schema(),
    "wide_schema_to_py": lambda kd: _wide_schema(kd).to_py(max_depth=-1, obj_as_dict=True),
    "wide_schema_clone": lambda kd: kd.clone(_wide_schema(kd)).to_py(max_depth=-1, obj_as_dict=True),
    "wide_schema_deep_uuid_equal": lambda kd: kd.deep_uuid(_wide_schema(kd)) == kd.deep_uuid(kd.clone(_wide_schema(kd))),
    "mutable_written_between_questions": _mutable,
    "from_py_dict_as_obj_distinct_keys": lambda kd: kd.from_py(
        [{f"k{i}": i, "s": str(i)} for i in range(50)] + [{}, None, {"k1": None}], dict_as_obj=True).to_py(),
    "from_py_dict_as_obj_nested": lambda kd: kd.from_py(
        [{"a": {"b": [1, {"c": 2}]}, "d": {}}, {"a": None}], dict_as_obj=True).to_py(max_depth=-1),
    "from_py_dict_as_obj_names": lambda kd: kd.get_attr_names(
        kd.from_py([{"x": 1, "y": 2}, {"y": 3, "z": 4}], dict_as_obj=True), intersection=False),
    "to_py_objects_without_attributes": lambda kd: kd.slice([kd.obj(), kd.obj(a=1), None]).to_py(),
    "to_py_entity_without_attributes": lambda kd: kd.new().to_py(),
    "to_py_obj_keeps_missing_attributes": lambda kd: kd.new(a=kd.slice([1, None])).to_py(include_missing_attrs=False),
    "to_py_dicts_drop_missing_attributes": lambda kd: kd.new(a=kd.slice([1, None])).to_py(
        obj_as_dict=True, include_missing_attrs=False),
    "to_py_attribute_of_differing_schemas": lambda kd: kd.slice(
        [kd.obj(a=1), kd.obj(a=kd.list([1])), kd.obj(a=kd.new(b=1)), kd.obj(b=2)]).to_py(obj_as_dict=True),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_differing_schemas_agree(name):
    program = PROGRAMS[name]
    assert_same_repr_outcome(outcome(pkd, program), outcome(kkd, program))
