"""Koda's functions that change a mutable bag in place: `kd.set_attr`,
`kd.set_attrs`, `kd.del_attr`, `kd.embed_schema`, `kd.set_schema` and
`kd.update_schema`. They are Python functions in Koda too (not operators:
there is no lazy form), and glue here: the work is done by the DataSlice's
methods and registry operators, in Rust."""

from plait.kd import types
from plait.kd._operators import OPERATORS


def set_attr(x, attr_name, value, overwrite_schema=False):
    """Sets attribute `attr_name` of the items of `x` to `value`, in place.

    `x`'s bag must be mutable. With `overwrite_schema`, the attribute's
    schema becomes `value`'s.

    Args:
      x: entities or objects with a mutable bag.
      attr_name: the name of the attribute.
      value: its value (a DataSlice or a Python value), broadcast to `x`.
      overwrite_schema: whether to replace the attribute's schema.

    Examples:
      >>> e = kd.mutable_bag().new(a=1)
      >>> kd.set_attr(e, 'a', 2)
      >>> e.a
      DataItem(2, schema: INT32, bag_id: $...)
    """
    x.set_attr(attr_name, value, overwrite_schema)


def set_attrs(x, *, overwrite_schema=False, **attrs):
    """Sets attributes of the items of `x`, in place (`x`'s bag must be
    mutable).

    Examples:
      >>> e = kd.mutable_bag().new(a=1)
      >>> kd.set_attrs(e, a=2, b='z')
      >>> e
      DataItem(Entity(a=2, b='z'), schema: ENTITY(a=INT32, b=STRING), bag_id: $...)
    """
    x.set_attrs(overwrite_schema=overwrite_schema, **attrs)


def del_attr(x, attr_name):
    """Deletes attribute `attr_name` of the items of `x`, in place.

    For entities the values become missing (the schema keeps the attribute);
    for objects the attribute leaves their schemas too; for schemas, the
    attribute leaves the schema. `x`'s bag must be mutable.

    Examples:
      >>> e = kd.mutable_bag().new(a=1, b=2)
      >>> kd.del_attr(e, 'a')
      >>> e
      DataItem(Entity(a=None, b=2), schema: ENTITY(a=INT32, b=INT32), bag_id: $...)
    """
    x._del_attr(attr_name)


def embed_schema(x):
    """Returns `x` with OBJECT schema, its entities' schema stored in them.

    Primitives are returned with OBJECT schema. Entities, lists and dicts get
    their schema as `__schema__` in `x`'s bag, which must be mutable.

    Examples:
      >>> kd.embed_schema(kd.slice([1, None]))
      DataSlice([1, None], schema: OBJECT, present: 1/2)
      >>> o = kd.embed_schema(kd.mutable_bag().new(a=1))
      >>> o.get_obj_schema()
      DataItem(ENTITY(a=INT32), schema: SCHEMA, bag_id: $...)
    """
    from plait import kd

    schema = x.get_schema()
    if any(bool(schema == s) for s in (kd.OBJECT, kd.SCHEMA, kd.ITEMID)):
        raise ValueError("schema embedding is only supported for a DataSlice with primitive, entity, list or dict "
                         f"schemas, got {schema}")
    if bool(kd.schema.is_primitive_schema(schema)) or bool(schema == kd.NONE):
        return x.with_schema(kd.OBJECT)
    bag = x._bag()
    if bag is None or not bool(bag.is_mutable()):
        raise ValueError("cannot embed object schema without a mutable DataBag")
    return bag._adopt_made("kd.embed_schema", OPERATORS["kd.objs.new"](x))


def set_schema(x, schema):
    """Returns a copy of `x` with `schema` (the items are not changed).

    Primitives must fit a primitive schema (`kd.cast_to` converts them). An
    entity schema is merged into `x`'s bag, which must be mutable. The
    attributes are not cast: one the new schema cannot read (an INT32 where
    it says INT64) fails when read, and the entity prints as its id.

    Examples:
      >>> kd.set_schema(kd.slice([1, 2], kd.OBJECT), kd.INT32)
      DataSlice([1, 2], schema: INT32, present: 2/2)
      >>> e = kd.mutable_bag().new(x=1)
      >>> kd.set_schema(e, kd.schema.new_schema(x=kd.INT32, y=kd.STRING))
      DataItem(Entity(x=1, y=None), schema: ENTITY(x=INT32, y=STRING), bag_id: $...)
      >>> kd.set_schema(e, kd.schema.new_schema(x=kd.INT64))
      DataItem(Entity:$..., schema: ENTITY(x=INT64), bag_id: $...)
    """
    from plait import kd

    if isinstance(schema, types.DataSlice) and bool(schema.get_schema() == kd.SCHEMA) and schema.is_item() \
            and bool(kd.schema.is_struct_schema(schema)):
        bag = x._bag()
        if bag is None:
            kd.bag()._check_mutable("kd.set_schema")  # Koda's error: nowhere to write the schema
        bag._check_mutable("kd.set_schema")
        if schema._bag() is not None and not bag._same_as(schema._bag()):
            schema = bag.adopt(schema)
        return kd.with_schema(x, schema.with_bag(bag))
    return kd.with_schema(x, schema)


def update_schema(obj, **attr_schemas):
    """Sets the schemas of attributes in the schema of entities `obj` (or of
    each object's own schema), in place; returns `obj`.

    Examples:
      >>> e = kd.mutable_bag().new(x=1)
      >>> kd.update_schema(e, y=kd.STRING).get_schema()
      DataItem(ENTITY(x=INT32, y=STRING), schema: SCHEMA, bag_id: $...)
    """
    from plait import kd

    schema = obj.get_obj_schema() if bool(obj.get_schema() == kd.OBJECT) else obj.get_schema()
    if not attr_schemas:
        return obj
    if schema._bag() is not None:
        schema._bag()._check_mutable("kd.update_schema")
    schema.set_attrs(**attr_schemas)
    return obj


__all__ = ["set_attr", "set_attrs", "del_attr", "embed_schema", "set_schema", "update_schema"]
