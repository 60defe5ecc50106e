"""`kd.iterables`: sequences of values for `kd.for_`, `kd.while_`'s
`yields` and `kd.functor.flat_map_chain` (Koda's ITERABLE).

An iterable is an immutable Python sequence of DataSlices (or other
values); in expressions it travels as a value of the evaluation.
"""

import builtins as _builtins
import itertools

__all__ = ["Iterable", "chain", "from_1d_slice", "interleave", "make", "make_unordered", "reduce_concat",
           "reduce_updated_bag"]


class Iterable:
    """Values in order (`ordered=False`: in any order, as Koda's
    unordered iterables; plait keeps the given order)."""

    __slots__ = ("_items", "_ordered")

    def __init__(self, items, ordered=True):
        self._items = _builtins.tuple(items)
        self._ordered = ordered

    def __iter__(self):
        return iter(self._items)

    def __len__(self):
        return len(self._items)

    def __getitem__(self, i):
        return self._items[i]

    def __eq__(self, other):
        return isinstance(other, Iterable) and self._items == other._items

    def __hash__(self):
        return hash(self._items)

    def __repr__(self):
        return f"Iterable[{', '.join(repr(v) for v in self._items)}]"


def _kd():
    from plait import kd

    return kd


def _boxed(value):
    kd = _kd()
    if isinstance(value, (kd.types.DataSlice, kd.types.DataBag, Iterable)):
        return value
    return kd.item(value)


def make(*items, value_type_as=None):
    """Returns an iterable of the given items, in order.

    Python values are boxed into DataItems; DataSlices (of any shape) and
    DataBags are kept as they are.

    Args:
      *items: the items.
      value_type_as: accepted for compatibility with Koda; not used by plait.

    Examples:
      >>> it = kd.iterables.make(1, kd.slice([2, 3]))
      >>> list(it)
      [DataItem(1, schema: INT32), DataSlice([2, 3], schema: INT32, present: 2/2)]
      >>> list(kd.iterables.make())
      []
    """
    del value_type_as
    return Iterable(_boxed(v) for v in items)


def make_unordered(*items, value_type_as=None):
    """Returns an iterable of the given items, in no particular order.

    Code must not depend on the order of the items (plait keeps the given
    order, Koda may not).

    Args:
      *items: the items.
      value_type_as: accepted for compatibility with Koda; not used by plait.

    Examples:
      >>> it = kd.iterables.make_unordered(1, 2, 3)
      >>> sorted(x.to_py() for x in it)
      [1, 2, 3]
    """
    del value_type_as
    return Iterable((_boxed(v) for v in items), ordered=False)


def _check(name, iterables):
    for it in iterables:
        if not isinstance(it, Iterable):
            raise TypeError(f"kd.iterables.{name}: expected iterables, got {type(it).__name__}")


def chain(*iterables, value_type_as=None):
    """Returns the items of all the iterables, one iterable after another.

    Args:
      *iterables: the iterables to chain.
      value_type_as: accepted for compatibility with Koda; not used by plait.

    Examples:
      >>> it = kd.iterables.chain(kd.iterables.make(1, 2), kd.iterables.make(3))
      >>> [x.to_py() for x in it]
      [1, 2, 3]
    """
    del value_type_as
    _check("chain", iterables)
    return Iterable(v for it in iterables for v in it)


def interleave(*iterables, value_type_as=None):
    """Returns the items of all the iterables, interleaved in an unspecified order.

    The items of each input iterable keep their relative order; plait takes one
    item of each iterable in turn.

    Args:
      *iterables: the iterables to interleave.
      value_type_as: accepted for compatibility with Koda; not used by plait.

    Examples:
      >>> it = kd.iterables.interleave(kd.iterables.make(1, 2), kd.iterables.make(3))
      >>> sorted(x.to_py() for x in it)
      [1, 2, 3]
    """
    del value_type_as
    _check("interleave", iterables)
    gap = object()
    rounds = itertools.zip_longest(*iterables, fillvalue=gap)
    return Iterable((v for round_ in rounds for v in round_ if v is not gap), ordered=False)


def from_1d_slice(slice_):
    """Returns an iterable of the items of a one-dimensional DataSlice, as DataItems.

    Missing items are kept (as missing DataItems). A DataSlice of another rank
    raises a ValueError.

    Args:
      slice_: a one-dimensional DataSlice.

    Examples:
      >>> list(kd.iterables.from_1d_slice(kd.slice([1, None, 3])))
      [DataItem(1, schema: INT32), DataItem(None, schema: INT32), DataItem(3, schema: INT32)]
    """
    if slice_.get_ndim().to_py() != 1:
        raise ValueError(f"kd.iterables.from_1d_slice: expected a 1-dimensional DataSlice, got rank {slice_.get_ndim().to_py()}")
    return Iterable(slice_.L)


def reduce_concat(items, initial_value, ndim=1):
    """Returns `initial_value` concatenated with each item of `items` in turn.

    Each step is `kd.concat(result, item, ndim=ndim)`, so the items must have
    the rank of `initial_value`.

    Args:
      items: an iterable of DataSlices.
      initial_value: the DataSlice to start from.
      ndim: how many trailing dimensions are concatenated (1 by default).

    Examples:
      >>> items = kd.iterables.make(kd.slice([2, 3]), kd.slice([4]))
      >>> kd.iterables.reduce_concat(items, kd.slice([1]))
      DataSlice([1, 2, 3, 4], schema: INT32, present: 4/4)
      >>> items = kd.iterables.make(kd.slice([[3]]), kd.slice([[4, 5]]))
      >>> kd.iterables.reduce_concat(items, kd.slice([[1], [2]]), ndim=2)
      DataSlice([[1], [2], [3], [4, 5]], schema: INT32, present: 5/5)
    """
    kd = _kd()
    _check("reduce_concat", [items])
    out = initial_value
    for item in items:
        out = kd.concat(out, item, ndim=ndim)
    return out


def reduce_updated_bag(items, initial_value):
    """Returns the DataBag `initial_value` updated by each DataBag of `items`, in order.

    Where two bags set the same attribute, the later bag wins.

    Args:
      items: an iterable of DataBags.
      initial_value: the DataBag to start from.

    Examples:
      >>> e = kd.new(a=0)
      >>> updates = kd.iterables.make(kd.attrs(e, a=1), kd.attrs(e, b=2), kd.attrs(e, a=3))
      >>> bag = kd.iterables.reduce_updated_bag(updates, kd.bag())
      >>> e.updated(bag)
      DataItem(Entity(a=3, b=2), schema: ENTITY(a=INT32, b=INT32), bag_id: $...)
    """
    kd = _kd()
    _check("reduce_updated_bag", [items])
    return kd.updated_bag(initial_value, *items)
