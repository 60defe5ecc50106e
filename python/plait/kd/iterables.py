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
    """An iterable of `items`."""
    del value_type_as
    return Iterable(_boxed(v) for v in items)


def make_unordered(*items, value_type_as=None):
    """An iterable of `items`, in no particular order."""
    del value_type_as
    return Iterable((_boxed(v) for v in items), ordered=False)


def _check(name, iterables):
    for it in iterables:
        if not isinstance(it, Iterable):
            raise TypeError(f"kd.iterables.{name}: expected iterables, got {type(it).__name__}")


def chain(*iterables, value_type_as=None):
    """The items of each iterable, one iterable after the other."""
    del value_type_as
    _check("chain", iterables)
    return Iterable(v for it in iterables for v in it)


def interleave(*iterables, value_type_as=None):
    """The items of all iterables, in some interleaving (plait: round robin)."""
    del value_type_as
    _check("interleave", iterables)
    gap = object()
    rounds = itertools.zip_longest(*iterables, fillvalue=gap)
    return Iterable((v for round_ in rounds for v in round_ if v is not gap), ordered=False)


def from_1d_slice(slice_):
    """The items of a one-dimensional slice, as DataItems."""
    kd = _kd()
    if slice_.get_ndim().to_py() != 1:
        raise ValueError(f"kd.iterables.from_1d_slice: expected a 1-dimensional DataSlice, got rank {slice_.get_ndim().to_py()}")
    return Iterable(slice_.L)


def reduce_concat(items, initial_value, ndim=1):
    """`initial_value` concatenated with each item (`kd.concat(..., ndim=)`)."""
    kd = _kd()
    _check("reduce_concat", [items])
    out = initial_value
    for item in items:
        out = kd.concat(out, item, ndim=ndim)
    return out


def reduce_updated_bag(items, initial_value):
    """`initial_value` (a bag) updated by each bag of `items` in order."""
    kd = _kd()
    _check("reduce_updated_bag", [items])
    return kd.updated_bag(initial_value, *items)
