"""plait against koladata on giving values a schema: `kd.item` / `kd.slice`
with an entity, list or dict schema (the items taken as ids, the schema's
bag read too), casts to ITEMID, `kd.with_schema(x, kd.SCHEMA)`, the ids
`itemid=` accepts, `kd.uu` / `kd.uuobj` as operators, the keys of
`ds.S[...]` / `kd.subslice`, and `kd.cast_to` from one entity, list or dict
schema to another (Koda's deep cast).

Each program runs on both libraries; the outcomes must agree: the same repr
(ids and bag ids masked), or the same exception type and first message line
(without the operator prefix plait adds, or Koda's status prefix)."""

import pytest

from plait import kd as pkd

from koda_compare import assert_same_repr_outcome, repr_outcome as outcome

kkd = pytest.importorskip("koladata.kd")


def _es(kd):
    return kd.schema.new_schema(x=kd.INT32)


def _cycle(kd):
    bag = kd.mutable_bag()
    s = bag.new_schema(v=kd.INT32)
    s.next = s
    a = bag.new(v=kd.slice([1, 2]), schema=s)
    b = bag.new(v=kd.slice([3, 4]), schema=s)
    a.next = b
    b.next = a
    target = kd.mutable_bag().new_schema(v=kd.INT64)
    target.next = target
    cast = kd.cast_to(a, target)
    return cast.next.next.v, cast.next.v, kd.all(cast.next.next.get_itemid() == a.get_itemid())


def _new_schema(kd, **attrs):
    return kd.schema.new_schema(**attrs)


PROGRAMS = {
    # kd.item / kd.slice with a struct schema: ids reinterpreted, the
    # schema's bag along
    "item None with an entity schema": lambda kd: kd.item(None, _es(kd)),
    "item None with an entity schema, attribute": lambda kd: kd.item(None, _es(kd)).get_schema().x,
    "item None with a list schema, item schema": lambda kd: kd.item(None, kd.list_schema(_es(kd))).get_schema().get_item_schema().x,
    "item entity with another entity schema": lambda kd: kd.item(kd.new(x=1), _es(kd)),
    "item entity with another entity schema, attribute": lambda kd: kd.item(kd.new(x=1), _es(kd)).x,
    "item entity without bag with a schema": lambda kd: kd.item(kd.new(x=1).no_bag(), _es(kd)),
    "item object with an entity schema": lambda kd: kd.item(kd.obj(x=1), _es(kd)),
    "item ids with an entity schema": lambda kd: kd.item(kd.new(x=1).get_itemid(), _es(kd)),
    "slice of entities and objects with a schema": lambda kd: kd.slice([kd.new(x=1), kd.obj(x=2)], _es(kd)),
    "slice of missing items with a schema": lambda kd: kd.slice([None, None], _es(kd)).get_schema().x,
    "slice with an entity and an int": lambda kd: kd.slice([kd.new(x=1), 5], _es(kd)),
    "item int with an entity schema": lambda kd: kd.item(1, _es(kd)),
    "item int item with an entity schema": lambda kd: kd.item(kd.item(1), _es(kd)),
    "item dict with an entity schema": lambda kd: kd.item({"a": 1}, _es(kd)),
    "item entity with a named schema": lambda kd: kd.item(kd.new(x=1, schema="A"), kd.named_schema("A")),
    "slice of entities with another schema": lambda kd: kd.slice(kd.new(x=kd.slice([1, 2])), _es(kd)),
    "slice of an entity item with another schema": lambda kd: kd.slice(kd.new(x=1), _es(kd)),
    "slice of entities with their schema": lambda kd: (lambda e: kd.slice(e, e.get_schema()).x)(kd.new(x=kd.slice([1, 2]))),
    "slice of ids with a schema": lambda kd: kd.slice(kd.new(x=kd.slice([1, 2])).get_itemid(), _es(kd)),
    "slice of missing items with a schema, DataSlice": lambda kd: kd.slice(kd.slice([None, None]), _es(kd)),
    "slice of objects with a schema": lambda kd: kd.slice(kd.obj(kd.new(x=1)), kd.new(x=1).get_schema()),
    "slice of objects without schemas": lambda kd: kd.slice(kd.new(x=kd.slice([1, 2])).with_schema(kd.OBJECT), _es(kd)),
    # other targets
    "item entity as OBJECT": lambda kd: kd.item(kd.new(x=1), kd.OBJECT),
    "item entity as OBJECT, its schema": lambda kd: kd.item(kd.new(x=1), kd.OBJECT).get_obj_schema(),
    "item ids as OBJECT": lambda kd: kd.item(kd.new(x=1).get_itemid(), kd.OBJECT),
    "item entity as ITEMID": lambda kd: kd.item(kd.new(x=1), kd.ITEMID),
    "item object as ITEMID": lambda kd: kd.item(kd.obj(x=1), kd.ITEMID),
    "item entity as STRING": lambda kd: kd.item(kd.new(x=1), kd.STRING),
    "item object as INT32": lambda kd: kd.item(kd.obj(x=1), kd.INT32),
    "item text as INT32": lambda kd: kd.item("1", kd.INT32),
    "item text item as INT32": lambda kd: kd.item(kd.item("1"), kd.INT32),
    "item float item as INT32": lambda kd: kd.item(kd.item(1.5), kd.INT32),
    "slice of text and int as INT64": lambda kd: kd.slice(["1", 2], kd.INT64),
    "item with a text as schema": lambda kd: kd.item(1, "INT32"),
    # casts to ITEMID
    "cast_to entity ITEMID": lambda kd: kd.cast_to(kd.new(x=1), kd.ITEMID),
    "cast_to list ITEMID": lambda kd: kd.cast_to(kd.list([1]), kd.ITEMID),
    "cast_to object ITEMID": lambda kd: kd.cast_to(kd.obj(x=1), kd.ITEMID),
    "cast_to primitive object ITEMID": lambda kd: kd.cast_to(kd.obj(1), kd.ITEMID),
    # ids as schemas
    "with_schema entity SCHEMA": lambda kd: kd.with_schema(kd.new(a=1), kd.SCHEMA),
    "with_schema schema ids SCHEMA": lambda kd: kd.with_schema(_es(kd).get_itemid(), kd.SCHEMA),
    "with_schema object SCHEMA": lambda kd: kd.with_schema(kd.obj(a=1), kd.SCHEMA),
    "with_schema ints SCHEMA": lambda kd: kd.with_schema(kd.slice([1]), kd.SCHEMA),
    "with_schema missing object SCHEMA": lambda kd: kd.with_schema(kd.slice([None], kd.OBJECT), kd.SCHEMA),
    # itemid= takes present ITEMIDs only
    "new with empty itemid": lambda kd: kd.new(a=1, itemid=kd.slice([])),
    "new with missing itemids": lambda kd: kd.new(a=kd.slice([1, 2]), itemid=kd.slice([None, None])),
    "new with itemid None": lambda kd: kd.new(a=1, itemid=None),
    "new with int itemid": lambda kd: kd.new(a=1, itemid=kd.slice([1])),
    "new with entity itemid": lambda kd: kd.new(a=1, itemid=kd.new(b=1)),
    "new with a missing ITEMID": lambda kd: kd.new(a=1, itemid=kd.item(None, kd.ITEMID)),
    "obj with empty itemid": lambda kd: kd.obj(a=1, itemid=kd.slice([])),
    "new_shaped with partly missing itemids": lambda kd: kd.new_shaped(kd.shapes.new(2), itemid=kd.slice([kd.uuid(a=1), None])),
    "new with uuids": lambda kd: kd.new(a=kd.slice([1, 2]), itemid=kd.uuid(a=kd.slice([1, 2]))).a,
    # kd.uu / kd.uuobj
    "uu lazy": lambda kd: kd.lazy.uu(seed="a", x=kd.I.x),
    "uu with itemid attribute": lambda kd: kd.uu(itemid=1),
    "uu with a list attribute": lambda kd: kd.uu(x=1, y=[1, 2]),
    "uu of a slice with a list attribute": lambda kd: kd.uu(x=kd.slice([1, 2]), y=[1, 2]),
    "uu with a given schema": lambda kd: kd.uu(x=1, schema=kd.uu_schema(x=kd.INT64)),
    "uu overwriting the schema": lambda kd: kd.uu(x=1.5, schema=kd.uu_schema(x=kd.INT64), overwrite_schema=True).get_schema(),
    "uu with a slice seed": lambda kd: kd.uu(kd.slice(["a", "b"]), x=1),
    "uu with missing values": lambda kd: kd.uu(x=kd.slice([1, None])),
    "uu traced with a list": lambda kd: kd.fn(lambda x: kd.uu(x=x, y=[1]))(1),
    "uu traced": lambda kd: kd.fn(lambda x: kd.uu("s", x=x, y=2))(1),
    "uuobj with a list attribute": lambda kd: kd.uuobj(x=[1]),
    "uuobj of nothing": lambda kd: kd.uuobj(),
    "uu of an object": lambda kd: kd.uu(x=kd.obj(a=1)).x.a,
    "uu same content same id": lambda kd: kd.uu(x=1, y="a").get_itemid() == kd.uu(y="a", x=1).get_itemid(),
    "uuobj same content same id": lambda kd: kd.uuobj(x=1).get_itemid() == kd.uuobj(x=1).get_itemid(),
    # kd.cast_to between struct schemas: ids kept, values cast deeply
    "deep cast entity": lambda kd: kd.cast_to(kd.new(x=1), _es(kd)),
    "deep cast drops attributes": lambda kd: kd.cast_to(kd.new(x=1, y=2), _es(kd)).get_attr_names(intersection=True),
    "deep cast leaves unnamed data": lambda kd: kd.cast_to(kd.new(x=1, y=kd.new(z=1)), _es(kd)).get_bag().get_approx_size(),
    "deep cast a slice": lambda kd: kd.cast_to(kd.new(x=kd.slice([1, None, 3])), _es(kd)),
    "deep cast missing entities": lambda kd: kd.cast_to(kd.slice([kd.new(x=1), None]), _es(kd)),
    "deep cast truncates floats": lambda kd: kd.cast_to(kd.new(x=1.7), _es(kd)),
    "deep cast parses texts": lambda kd: kd.cast_to(kd.new(x="12"), _es(kd)),
    "deep cast unparsable text": lambda kd: kd.cast_to(kd.new(x="a"), _es(kd)),
    "deep cast OBJECT primitives": lambda kd: kd.cast_to(kd.new(x=kd.obj(1)), _es(kd)),
    "deep cast nested": lambda kd: kd.cast_to(kd.new(x=kd.new(z=1)), _new_schema(kd, x=_new_schema(kd, z=kd.INT64))).x.z,
    "deep cast nested drops": lambda kd: kd.cast_to(kd.new(x=kd.new(a=1, b=2)), _new_schema(kd, x=_new_schema(kd, a=kd.INT64))),
    "deep cast entity to primitive attribute": lambda kd: kd.cast_to(kd.new(x=kd.new(a=1)), _es(kd)),
    "deep cast primitive to entity attribute": lambda kd: kd.cast_to(kd.new(x=1), _new_schema(kd, x=_es(kd))),
    "deep cast to OBJECT attribute": lambda kd: kd.cast_to(kd.new(x=1), _new_schema(kd, x=kd.OBJECT)),
    "deep cast to ITEMID attribute": lambda kd: kd.cast_to(kd.new(x=1), _new_schema(kd, x=kd.ITEMID)),
    "deep cast missing attribute": lambda kd: kd.cast_to(kd.new(x=1), _new_schema(kd, x=kd.INT32, y=kd.STRING)),
    "deep cast NONE attribute": lambda kd: kd.cast_to(kd.new(x=1, y=None), _new_schema(kd, x=kd.INT32, y=kd.STRING)),
    "deep cast entity without bag": lambda kd: kd.cast_to(kd.new(x=1).no_bag(), _es(kd)),
    "deep cast missing item": lambda kd: kd.cast_to(kd.item(None), _es(kd)),
    "deep cast ids": lambda kd: kd.cast_to(kd.new(x=1).get_itemid(), _es(kd)),
    "deep cast ints": lambda kd: kd.cast_to(kd.slice([1]), _es(kd)),
    "deep cast list items": lambda kd: kd.cast_to(kd.list([1, 2]), kd.list_schema(kd.STRING))[:],
    "deep cast list attribute": lambda kd: kd.cast_to(kd.new(x=kd.list([1, 2])), _new_schema(kd, x=kd.list_schema(kd.INT64))).x[:],
    "deep cast list of entities": lambda kd: kd.cast_to(kd.new(items=kd.implode(kd.new(a=kd.slice([1, 2])))),
                                                        _new_schema(kd, items=kd.list_schema(_new_schema(kd, a=kd.STRING)))).items[:].a,
    "deep cast nested lists": lambda kd: kd.cast_to(kd.list([kd.list([1]), None]), kd.list_schema(kd.list_schema(kd.INT64)))[:][:],
    "deep cast dict": lambda kd: kd.cast_to(kd.dict({1: 2}), kd.dict_schema(kd.INT64, kd.STRING)),
    "deep cast dict of entities": lambda kd: kd.cast_to(kd.dict({"a": kd.new(z=1)}),
                                                        kd.dict_schema(kd.STRING, _new_schema(kd, z=kd.INT64)))["a"].z,
    "deep cast list to dict": lambda kd: kd.cast_to(kd.list([1]), kd.dict_schema(kd.INT64, kd.STRING)),
    "deep cast entity to list": lambda kd: kd.cast_to(kd.new(x=1), kd.list_schema(kd.INT32)),
    "deep cast a cycle": _cycle,
    "deep cast object of an explicit schema": lambda kd: kd.cast_to(kd.obj(kd.new(x=1)), _es(kd)),
    "deep cast objects and missing": lambda kd: kd.cast_to(kd.slice([kd.obj(kd.new(x=1)), None]), _es(kd)),
    "deep cast objects and ints": lambda kd: kd.cast_to(kd.slice([kd.obj(kd.new(x=1)), 1]), _es(kd)),
    "deep cast object of an implicit schema": lambda kd: kd.cast_to(kd.obj(x=1), _es(kd)),
    "deep cast missing objects": lambda kd: kd.cast_to(kd.slice([None], kd.OBJECT), _es(kd)),
    "deep cast list object": lambda kd: kd.cast_to(kd.obj(kd.list([1])), kd.list_schema(kd.INT64)),
    "deep cast object without schema": lambda kd: kd.cast_to(kd.new(x=1).with_schema(kd.OBJECT), _es(kd)),
    "deep cast result is frozen": lambda kd: kd.cast_to(kd.new(x=1).fork_bag(), _es(kd)).get_bag().is_mutable(),
    "deep cast to a named schema": lambda kd: kd.cast_to(kd.new(x=1), kd.named_schema("A", x=kd.INT64)),
    "deep cast named to unnamed": lambda kd: kd.cast_to(kd.new(x=1, schema="A"), _new_schema(kd, x=kd.INT64)),
    "deep cast OBJECT attribute": lambda kd: kd.cast_to(kd.new(o=kd.obj(a=1)), _new_schema(kd, o=kd.OBJECT)),
    "deep cast nested OBJECT attribute": lambda kd: kd.cast_to(kd.new(n=kd.new(o=kd.obj(a=1)), k=1),
                                                               _new_schema(kd, n=kd.new(o=kd.obj(a=1)).get_schema())),
    "deep cast SCHEMA attribute": lambda kd: kd.cast_to(kd.new(s=_new_schema(kd, a=kd.INT32)), _new_schema(kd, s=kd.SCHEMA)).s.a,
    "deep cast entity attribute to ITEMID": lambda kd: kd.cast_to(kd.new(i=kd.new(a=1)), _new_schema(kd, i=kd.ITEMID)).i.get_schema(),
    "deep cast ITEMID attribute to entity": lambda kd: kd.cast_to(kd.new(i=kd.new(a=1).get_itemid()), _new_schema(kd, i=_es(kd))),
    "deep cast shared entities": lambda kd: (lambda c: kd.cast_to(kd.new(a=c, b=c), _new_schema(kd, a=_es(kd), b=_es(kd))))(kd.new(x=kd.slice([1, 2]))).b.x,
    "new with duplicate itemids": lambda kd: kd.new(a=kd.slice([1, 2]), itemid=kd.slice([kd.uuid(a=1), kd.uuid(a=1)])),
    "obj with duplicate itemids": lambda kd: kd.obj(a=kd.slice([1, 2]), itemid=kd.slice([kd.uuid(a=1), kd.uuid(a=1)])),
    # ds.S / kd.subslice keys, boxed as Koda boxes them
    "S with a text index": lambda kd: kd.slice([[1, 2, 3], [4]]).S["a"],
    "S with a float index": lambda kd: kd.slice([[1, 2, 3], [4]]).S[1.5],
    "S with a bool index": lambda kd: kd.slice([[1, 2, 3], [4]]).S[True],
    "S with a list index": lambda kd: kd.slice([[1, 2, 3], [4]]).S[[1]],
    "S with a text bound": lambda kd: kd.slice([[1, 2, 3], [4]]).S[:"a"],
    "S with bool bounds": lambda kd: kd.slice([[1, 2, 3], [4]]).S[:, : kd.slice([True, False])],
    "S with a step": lambda kd: kd.slice([[1, 2, 3], [4]]).S[::2],
    "S with step 1": lambda kd: kd.slice([[1, 2, 3], [4]]).S[:, ::1],
    "S with int64 index": lambda kd: kd.slice([[1, 2, 3], [4]]).S[kd.int64(1)],
    "S with missing bounds": lambda kd: kd.slice([[1, 2, 3], [4]]).S[:, : kd.slice([1, None])],
    "subslice with a step": lambda kd: kd.subslice(kd.slice([[1, 2, 3], [4]]), slice(None, None, 2)),
    "subslice with a text bound": lambda kd: kd.subslice(kd.slice([[1, 2, 3], [4]]), slice("a", None)),
    "L with a step": lambda kd: kd.slice([[1, 2, 3], [4]]).L[::2],
    "list item with a step": lambda kd: kd.list([1, 2, 3])[::2],
    "list item with step 1": lambda kd: kd.list([1, 2, 3])[::1],
    "get_item with step 1": lambda kd: kd.get_item(kd.list([1, 2, 3]), slice(0, 2, 1)),
    "get_item with step 2": lambda kd: kd.get_item(kd.list([1, 2, 3]), slice(0, 2, 2)),
    "lists.get_item with step 2": lambda kd: kd.lists.get_item(kd.list([1, 2, 3]), slice(0, 2, 2)),
    "lazy get_item with step 1": lambda kd: kd.eval(kd.I.l[0:2:1], l=kd.list([1, 2, 3])),
    "traced get_item with step 1": lambda kd: kd.fn(lambda l: kd.get_item(l, slice(0, 2, 1)))(kd.list([1, 2, 3])),
    # no writes through a no-follow reference
    "set_attr through nofollow": lambda kd: kd.nofollow(kd.new(a=1).fork_bag()).set_attr("a", 2),
    "setattr through nofollow": lambda kd: setattr(kd.nofollow(kd.new(a=1).fork_bag()), "a", "x"),
    "with_attrs through nofollow": lambda kd: kd.nofollow(kd.new(a=1)).with_attrs(a=2),
    "attrs through nofollow": lambda kd: kd.attrs(kd.nofollow(kd.new(a=1)), a=2),
    "set_attr through nofollow object": lambda kd: kd.nofollow(kd.obj(a=1).fork_bag()).set_attr("a", 3),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_same_outcome_as_koladata(name):
    program = PROGRAMS[name]
    assert_same_repr_outcome(outcome(pkd, program), outcome(kkd, program))
