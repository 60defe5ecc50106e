"""`kd.tuples`: several values as one (seed 002's DictOfNamedArrays).

The operators are builtins of the expression engine (computed in Rust,
`crates/plait-expr/src/builtins/tuples.rs`); eagerly a tuple comes to
Python as a `Tuple` (a Python tuple that prints as Koda's), a named tuple as
a `NamedTuple`.
"""

import builtins
import hashlib

from plait import _plait
from plait.kd import _builtins


def _fingerprint(kind, names, values):
    """The fingerprint of a tuple: of its kind, field names and the
    fingerprints of its values."""
    h = hashlib.blake2b(kind.encode(), digest_size=16)
    for name in names:
        h.update(b"\0" + name.encode())
    for value in values:
        h.update(builtins.int(value.fingerprint).to_bytes(16, "little"))
    return _plait.Fingerprint(builtins.int.from_bytes(h.digest(), "little"))


class Tuple(builtins.tuple):
    """The values of a tuple an operator returns (`kd.align(x, y)`): a Python
    tuple printed as Koda prints its tuples, `(a, b)`, and `(a)` for one.

    Examples:
      >>> kd.align(kd.item(1))
      (DataItem(1, schema: INT32))
    """

    __slots__ = ()

    def __repr__(self):
        return "(" + ", ".join(repr(v) for v in self) + ")"

    @property
    def qtype(self):
        """`tuple<...>` of the values' QTypes, as Koda names it."""
        from plait.kd import qtypes

        return qtypes._tuple_of(self)

    @property
    def fingerprint(self):
        """Equal for tuples of values with equal fingerprints."""
        return _fingerprint("tuple", (), self)


class NamedTuple:
    """Values by field name, in order; `nt['x']` or `nt.x`. (Named tuples
    an evaluation returns come to Python as these: see py_expr.rs.)"""

    __slots__ = ("_names", "_values")

    def __init__(self, names, values):
        object.__setattr__(self, "_names", builtins.tuple(names))
        object.__setattr__(self, "_values", builtins.tuple(values))

    def keys(self):
        return builtins.list(self._names)

    @property
    def qtype(self):
        """`namedtuple<a=...>` of the fields' QTypes, as Koda names it."""
        from plait.kd import qtypes

        return qtypes._namedtuple_of(self._names, self._values)

    @property
    def fingerprint(self):
        """Equal for named tuples of the same names and values with equal
        fingerprints."""
        return _fingerprint("namedtuple", self._names, self._values)

    def values(self):
        return self._values

    def items(self):
        return builtins.tuple(zip(self._names, self._values))

    def __getitem__(self, key):
        if isinstance(key, builtins.int):
            return self._values[key]
        try:
            return self._values[self._names.index(key)]
        except ValueError:
            raise KeyError(key) from None

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name, value):
        raise AttributeError("a NamedTuple is immutable")

    def __len__(self):
        return len(self._values)

    def __iter__(self):
        return iter(self._values)

    def __eq__(self, other):
        return isinstance(other, NamedTuple) and self._names == other._names and all(
            a is b for a, b in zip(self._values, other._values))

    def __hash__(self):
        return hash(self._names)

    def __repr__(self):
        fields = ",".join(f"{n}=DATA_SLICE" for n in self._names)
        values = ", ".join(repr(v) for v in self._values)
        return f"namedtuple<{fields}>{{({values})}}"


_builtins.export(globals(), "kd.tuples")
