"""Koda's alternative names for functions plait has under another name
(`kd.has_bag` is `kd.core.has_bag`, ...): each is the same function, in its
eager, lazy and tracing forms."""

import pytest

from plait import kd

# alias -> target, both relative to `kd`.
ALIASES = {
    "agg_uuid": "ids.agg_uuid",
    "flat_map_chain": "functor.flat_map_chain",
    "flat_map_interleaved": "functor.flat_map_interleaved",
    "flatten_end": "shapes.flatten_end",
    "get_dtype": "schema.get_dtype",
    "get_primitive_schema": "schema.get_primitive_schema",
    "has_bag": "core.has_bag",
    "has_fn": "functor.has_fn",
    "is_null_bag": "bags.is_null_bag",
    "list_append_update": "lists.list_append_update",
    "schema_from_py": "schema.schema_from_py",
    "strict_new": "entities.strict_new",
    "to_itemid": "schema.to_itemid",
    "to_none": "schema.to_none",
    "to_schema": "schema.to_schema",
    "with_schema_from_obj": "schema.with_schema_from_obj",
    "annotation.with_name": "with_name",
}

# Aliases Koda also has in `kd.lazy`.
LAZY = sorted(set(ALIASES) - {"schema_from_py"})


def _get(root, name):
    for part in name.split("."):
        root = getattr(root, part)
    return root


def _eager(fn):
    """The function under `kd`'s tracing dispatch wrapper."""
    return getattr(fn, "__wrapped_eager__", fn)


def _same_operator(a, b):
    op_a, op_b = getattr(a, "_builtin_operator", None), getattr(b, "_builtin_operator", None)
    if op_a is not None and op_b is not None:
        # A builtin operator of the expression engine: one registry entry
        # under two names, each showing its own in expressions (as in Koda).
        return op_a.aliases == op_b.aliases and op_a.doc == op_b.doc
    return _eager(a) is _eager(b)


@pytest.mark.parametrize("alias", sorted(ALIASES))
def test_alias_is_its_target(alias):
    assert _same_operator(_get(kd, alias), _get(kd, ALIASES[alias]))


@pytest.mark.parametrize("alias", LAZY)
def test_alias_has_a_lazy_form(alias):
    assert callable(_get(kd.lazy, alias))


def test_aliases_compute_like_their_targets():
    present, missing = "DataItem(present, schema: MASK)", "DataItem(missing, schema: MASK)"
    x = kd.slice([[[1, 2], [3]], [[4]]])
    assert kd.flatten_end(x, 2).to_py() == [1, 2, 3, 4]
    assert repr(kd.has_bag(kd.obj(a=1))) == present and repr(kd.has_bag(kd.item(1))) == missing
    assert repr(kd.has_fn(kd.fn(lambda v: v))) == present
    assert repr(kd.is_null_bag(kd.item(1).get_bag())) == present
    assert repr(kd.agg_uuid(kd.slice([[1, 2], [3]])).get_schema()) == "DataItem(ITEMID, schema: SCHEMA)"
    assert repr(kd.get_dtype(kd.slice([1, 2]))) == "DataItem(INT32, schema: SCHEMA)"
    assert repr(kd.get_primitive_schema(kd.slice([1.5]))) == "DataItem(FLOAT32, schema: SCHEMA)"
    assert repr(kd.to_none(kd.slice([None]))) == "DataSlice([None], schema: NONE, present: 0/1)"
    assert repr(kd.to_schema(kd.slice([kd.INT32], kd.OBJECT))) == "DataSlice([INT32], schema: SCHEMA, present: 1/1)"
    assert repr(kd.to_itemid(kd.new_itemid()).get_schema()) == "DataItem(ITEMID, schema: SCHEMA)"
    assert repr(kd.schema.is_entity_schema(kd.with_schema_from_obj(kd.obj(kd.new(a=1))).get_schema())) == present
    assert kd.strict_new(schema=kd.named_schema("A", a=kd.INT32), a=1).a.to_py() == 1
    assert repr(kd.schema_from_py(list[int])).startswith("DataItem(LIST[INT64], schema: SCHEMA")
    assert kd.annotation.with_name(kd.slice([1]), "x").to_py() == [1]
    assert kd.expr.get_name(kd.lazy.annotation.with_name(kd.I.x + 1, "y")) == "y"
    chained = kd.flat_map_chain(kd.iterables.make(1, 2), kd.fn(lambda v: kd.iterables.make(v, v * 10)))
    assert [v.to_py() for v in chained] == [1, 10, 2, 20]
    interleaved = kd.flat_map_interleaved(kd.iterables.make(1, 2), kd.fn(lambda v: kd.iterables.make(v, v * 10)))
    assert sorted(v.to_py() for v in interleaved) == [1, 2, 10, 20]


def test_aliases_follow_tracing():
    assert kd.fn(lambda v: kd.flatten_end(v))(kd.slice([[1], [2, 3]])).to_py() == [1, 2, 3]
    assert repr(kd.lazy.has_bag(kd.I.x).eval(x=kd.obj(a=1))) == "DataItem(present, schema: MASK)"
