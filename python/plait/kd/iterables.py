"""`kd.iterables`: sequences of values for `kd.for_`, `kd.while_`'s
`yields` and `kd.functor.flat_map_chain` (Koda's ITERABLE).

The operators are builtins of the expression engine (computed in Rust,
`crates/plait-expr/src/builtins/iterables.rs`); an iterable comes to Python
as an `Iterable`, an immutable sequence of DataSlices (or other values).
"""

from plait.kd import _builtins
from plait.kd.tuples import _fingerprint


class Iterable:
    """Values in order (`ordered=False`: in any order, as Koda's
    unordered iterables; plait keeps the given order), of one QType
    (`value_type`, its name; by default the first value's, DATA_SLICE when
    there is none)."""

    __slots__ = ("_items", "_ordered", "_value_type")

    def __init__(self, items, ordered=True, value_type=None):
        self._items = tuple(items)
        self._ordered = ordered
        self._value_type = value_type

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
        # As Koda prints its iterables: `ITERABLE[DATA_SLICE]{sequence(<the
        # values>, value_qtype=DATA_SLICE)}`.
        values = "".join(f"{v!r}, " for v in self._items)
        return f"{self.qtype}{{sequence({values}value_qtype={self._value_qtype()})}}"

    def _value_qtype(self):
        from plait.kd import qtypes

        if self._value_type is not None:
            return qtypes._from_name(self._value_type)
        return qtypes._of(next(iter(self._items), None))

    @property
    def fingerprint(self):
        """Equal for iterables of values with equal fingerprints."""
        return _fingerprint("iterable", (), self._items)

    @property
    def qtype(self):
        """`ITERABLE[<QType of the values>]` (`ITERABLE[DATA_SLICE]` when
        empty)."""
        from plait.kd import qtypes

        return qtypes._iterable_of(self._value_qtype())


_builtins.export(globals(), "kd.iterables")
