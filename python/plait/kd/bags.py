"""`kd.bags` and the bag functions of `kd.core`: making bags, layering them
(`updated`, `enriched`, `<<`, `>>`), attaching and removing them, and bags of
attribute updates (`kd.attrs`, `kd.attr`).

A layered bag reads through its parts in priority order without copying
them; `kd.with_merged_bag` copies them into one.
"""

from plait import _plait
from plait.kd import types

new = _plait.bag


def updated(*bags):
    """Returns one immutable bag that reads `bags`, the last one first.

    Nothing is copied: the new bag keeps `bags` as fallbacks, so this is O(1).
    Where several bags hold a value for the same attribute, the one from the
    latest bag is read. `kd.updated_bag(a, b, c)` reads like
    `kd.updated_bag(a, kd.updated_bag(b, c))`.

    Args:
      *bags: the DataBags to read, lowest priority first.

    Examples:
      >>> x = kd.new(a=1)
      >>> bag = kd.updated_bag(kd.attrs(x, a=2), kd.attrs(x, a=3))
      >>> x.with_bag(bag).a
      DataItem(3, schema: INT32, bag_id: $...)
    """
    return _plait.layered_bag(bags, True)


def enriched(*bags):
    """Returns one immutable bag that reads `bags`, the first one first.

    Nothing is copied: the new bag keeps `bags` as fallbacks, so this is O(1).
    Where several bags hold a value for the same attribute, the one from the
    earliest bag is read; later bags only fill in what earlier ones lack.

    Args:
      *bags: the DataBags to read, highest priority first.

    Examples:
      >>> x = kd.new(a=1)
      >>> bag = kd.enriched_bag(kd.attrs(x, a=2), kd.attrs(x, a=3, b=4))
      >>> x.with_bag(bag)
      DataItem(Entity(a=2, b=4), schema: ENTITY(a=INT32, b=INT32), bag_id: $...)
    """
    return _plait.layered_bag(bags, False)


def is_null_bag(bag):
    """Returns `kd.present` when `bag` is no bag at all.

    A slice without a bag reports its bag as None in plait, and None counts
    as the null bag here; any real DataBag, even an empty one, gives
    `kd.missing`.

    Args:
      bag: a DataBag, or None.

    Examples:
      >>> kd.bags.is_null_bag(kd.item(1).get_bag())
      DataItem(present, schema: MASK)
      >>> kd.bags.is_null_bag(kd.new(a=1).get_bag())
      DataItem(missing, schema: MASK)
    """
    return _plait.mask_item(bag is None)


def updated_slice(ds, *bags):
    """Returns `ds` with its bag updated by `bags`, whose values win.

    The result gets a new immutable bag that reads `bags` (the last one
    first) before the bag of `ds`; nothing is copied and `ds` itself is left
    as it was. `x.updated(bag)` and `x << bag` do the same.

    Args:
      ds: a DataSlice, with or without a bag.
      *bags: DataBags of updates, lowest priority first.

    Examples:
      >>> x = kd.new(a=1)
      >>> kd.updated(x, kd.attrs(x, a=2, b='z'))
      DataItem(Entity(a=2, b='z'), schema: ENTITY(a=INT32, b=STRING), bag_id: $...)
      >>> kd.updated(x, kd.attrs(x, a=2), kd.attrs(x, a=3)).a
      DataItem(3, schema: INT32, bag_id: $...)
    """
    return ds.with_bag(updated(ds.get_bag(), *bags))


def enriched_slice(ds, *bags):
    """Returns `ds` with `bags` added behind its bag, so its own values win.

    The result gets a new immutable bag that reads the bag of `ds` first and
    then `bags` in order; they only supply what the earlier bags lack.
    Nothing is copied. `x.enriched(bag)` and `x >> bag` do the same.

    Args:
      ds: a DataSlice, with or without a bag.
      *bags: DataBags to fall back to, highest priority first.

    Examples:
      >>> x = kd.new(a=1)
      >>> kd.enriched(x, kd.attrs(x, a=2, b=3))
      DataItem(Entity(a=1, b=3), schema: ENTITY(a=INT32, b=INT32), bag_id: $...)
    """
    return ds.with_bag(enriched(ds.get_bag(), *bags))


def attrs(x, /, *, overwrite_schema=False, **attrs):
    """Returns a new bag holding the attributes `attrs` of `x`.

    `x` itself is not changed: apply the bag with `kd.updated(x, bag)`.
    Values broadcast to the shape of `x`. An attribute that already exists
    keeps its schema: a value that cannot be cast to it raises, unless `x`
    is an OBJECT or `overwrite_schema` is True.

    Args:
      x: entities or objects (a DataSlice with a bag).
      overwrite_schema: whether to replace the schemas of existing attributes.
      **attrs: the attribute values, by name.

    Examples:
      >>> x = kd.new(a=1)
      >>> kd.updated(x, kd.attrs(x, a=2, b='z'))
      DataItem(Entity(a=2, b='z'), schema: ENTITY(a=INT32, b=STRING), bag_id: $...)
      >>> kd.attrs(x, a='s')
      Traceback (most recent call last):
      ...
      ValueError: kd.core.attrs: the schema for attribute 'a' is incompatible...
      >>> kd.updated(x, kd.attrs(x, a='s', overwrite_schema=True)).a
      DataItem('s', schema: STRING, bag_id: $...)
    """
    return _plait.attrs(x, attrs, overwrite_schema)


def attr(x, attr_name, value, overwrite_schema=False):
    """Returns a new bag holding the attribute `attr_name` of `x`.

    Like `kd.attrs` with a single attribute, whose name is given as a string,
    so it may be any text (`'full name'`, `'1'`).

    Args:
      x: entities or objects (a DataSlice with a bag).
      attr_name: the name of the attribute.
      value: its value, broadcast to the shape of `x`.
      overwrite_schema: whether to replace the schema of an existing attribute.

    Examples:
      >>> x = kd.new(a=1)
      >>> kd.updated(x, kd.attr(x, 'full name', 'Ann')).get_attr('full name')
      DataItem('Ann', schema: STRING, bag_id: $...)
      >>> kd.updated(x, kd.attr(x, 'a', 'one', overwrite_schema=True)).a
      DataItem('one', schema: STRING, bag_id: $...)
    """
    return _plait.attrs(x, {attr_name: value}, overwrite_schema)


def get_bag(ds):
    """Returns the bag of `ds`, or None when it has none.

    Koda returns a "null" DataBag object where plait returns None.

    Args:
      ds: a DataSlice.

    Examples:
      >>> x = kd.new(a=1)
      >>> kd.no_bag(x).with_bag(kd.get_bag(x)).a
      DataItem(1, schema: INT32, bag_id: $...)
      >>> kd.get_bag(kd.slice([1, 2])) is None
      True
    """
    return ds.get_bag()


def with_bag(ds, bag):
    """Returns `ds` with `bag` attached in place of its own.

    The bag is replaced, not merged: only what `bag` holds is readable.

    Args:
      ds: a DataSlice.
      bag: the DataBag to attach.

    Examples:
      >>> x = kd.new(a=1)
      >>> kd.with_bag(kd.no_bag(x), x.get_bag()).a
      DataItem(1, schema: INT32, bag_id: $...)
      >>> kd.with_bag(x, kd.attrs(x, a=5)).a
      DataItem(5, schema: INT32, bag_id: $...)
    """
    return ds.with_bag(bag)


def no_bag(ds):
    """Returns `ds` without a bag.

    Entities and objects become bare references (their ItemIds), whose
    attributes cannot be read until a bag is attached again.

    Args:
      ds: a DataSlice.

    Examples:
      >>> kd.no_bag(kd.new(a=1))
      DataItem($..., schema: $...)
      >>> kd.core.has_bag(kd.no_bag(kd.new(a=1)))
      DataItem(missing, schema: MASK)
    """
    return ds.no_bag()


def has_bag(ds):
    """Returns `kd.present` when `ds` has a bag attached, else `kd.missing`.

    Args:
      ds: a DataSlice.

    Examples:
      >>> kd.core.has_bag(kd.new(a=1))
      DataItem(present, schema: MASK)
      >>> kd.core.has_bag(kd.slice([1, 2]))
      DataItem(missing, schema: MASK)
    """
    return _plait.mask_item(ds.get_bag() is not None)


def freeze_bag(ds):
    """Returns `ds` with an immutable copy of its bag.

    Later changes to the original (mutable) bag do not show in the result.
    A slice without a bag is returned as it is.

    Args:
      ds: a DataSlice.

    Examples:
      >>> x = kd.mutable_bag().new(a=1)
      >>> frozen = kd.freeze_bag(x)
      >>> frozen.get_bag().is_mutable()
      DataItem(missing, schema: MASK)
      >>> x.set_attr('a', 2)
      >>> frozen.a
      DataItem(1, schema: INT32, bag_id: $...)
    """
    return ds.freeze_bag()


def with_merged_bag(ds):
    """Returns `ds` with its bag and all its fallbacks merged into one new bag.

    Layered bags (from `kd.updated`, `kd.enriched`, ...) are read through
    their parts; this copies what they hold into a single immutable bag,
    which can make later reads faster. Raises when `ds` has no bag.

    Args:
      ds: a DataSlice with a bag.

    Examples:
      >>> x = kd.new(a=1)
      >>> kd.with_merged_bag(kd.updated(x, kd.attrs(x, b=2)))
      DataItem(Entity(a=1, b=2), schema: ENTITY(a=INT32, b=INT32), bag_id: $...)
      >>> kd.with_merged_bag(kd.item(1))
      Traceback (most recent call last):
      ...
      ValueError: kd.core.with_merged_bag: expected a DataSlice with a DataBag, got one without
    """
    bag = ds.get_bag()
    if bag is None:
        raise ValueError("kd.core.with_merged_bag: expected a DataSlice with a DataBag, got one without")
    return ds.with_bag(bag.merged())


types.DataSlice.updated = updated_slice
types.DataSlice.enriched = enriched_slice
types.DataSlice.__lshift__ = lambda ds, bag: updated_slice(ds, bag)
types.DataSlice.__rshift__ = lambda ds, bag: enriched_slice(ds, bag)
types.DataSlice.with_merged_bag = with_merged_bag
