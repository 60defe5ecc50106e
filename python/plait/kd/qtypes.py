"""`kd.qtypes`: the kinds of values plait computes with, as Koda's QTypes.

A QType names what a value is (`DATA_SLICE`, `DATA_BAG`, `JAGGED_SHAPE`,
...). `x.qtype` gives it for slices, bags, shapes and iterables; operators and
functors declare what they return with it. QTypes compare by name, hash, pickle
and print as their name.
"""

import hashlib

from plait import _plait


class QType:
    """The kind of a value, named as Koda names it (`DATA_SLICE`, ...).

    Examples:
      >>> kd.qtypes.DATA_SLICE
      DATA_SLICE
      >>> kd.slice([1, 2]).qtype == kd.qtypes.DATA_SLICE
      True
    """

    __slots__ = ("_name", "_value_qtype")

    def __init__(self, name, value_qtype=None):
        self._name = name
        self._value_qtype = value_qtype

    @property
    def name(self):
        """The QType's name, e.g. `'DATA_SLICE'`."""
        return self._name

    @property
    def value_qtype(self):
        """For a container QType (`ITERABLE[DATA_SLICE]`), the QType of its
        values; else None."""
        return self._value_qtype

    @property
    def qtype(self):
        """The QType of a QType: `QTYPE`."""
        return QTYPE

    @property
    def fingerprint(self):
        """Equal for equal QTypes, in every process."""
        digest = hashlib.blake2b(self._name.encode(), digest_size=16).digest()
        return _plait.Fingerprint(int.from_bytes(digest, "little"))

    def __eq__(self, other):
        return isinstance(other, QType) and other._name == self._name

    def __hash__(self):
        return hash(("plait.QType", self._name))

    def __repr__(self):
        return self._name

    def __reduce__(self):
        return (QType, (self._name, self._value_qtype))


QTYPE = QType("QTYPE")
DATA_SLICE = QType("DATA_SLICE")
DATA_BAG = QType("DATA_BAG")
JAGGED_SHAPE = QType("JAGGED_SHAPE")
EXECUTOR = QType("EXECUTOR")
NON_DETERMINISTIC_TOKEN = QType("NON_DETERMINISTIC_TOKEN")


def _iterable_of(value_qtype):
    """The QType of an iterable of `value_qtype` values: `ITERABLE[DATA_SLICE]`."""
    return QType(f"ITERABLE[{value_qtype.name}]", value_qtype)


def _stream_of(value_qtype):
    """The QType of a stream of `value_qtype` values: `STREAM[DATA_SLICE]`."""
    return QType(f"STREAM[{value_qtype.name}]", value_qtype)


def _of(value):
    """The QType of a value (DATA_SLICE when it does not say)."""
    return getattr(value, "qtype", None) or DATA_SLICE


def _tuple_of(values):
    """The QType of a tuple of `values`: `tuple<DATA_SLICE,DATA_BAG>`."""
    return QType(f"tuple<{','.join(_of(v).name for v in values)}>")


def _namedtuple_of(names, values):
    """The QType of a named tuple: `namedtuple<a=DATA_SLICE,b=DATA_BAG>`."""
    return QType(f"namedtuple<{','.join(f'{n}={_of(v).name}' for n, v in zip(names, values))}>")


def _from_name(name):
    """The QType named `name` (`STREAM[DATA_SLICE]`, `EXECUTOR`, ...)."""
    for prefix, make in (("STREAM[", _stream_of), ("ITERABLE[", _iterable_of)):
        if name.startswith(prefix) and name.endswith("]"):
            return make(_from_name(name[len(prefix):-1]))
    return QType(name)


__all__ = ["DATA_BAG", "DATA_SLICE", "EXECUTOR", "NON_DETERMINISTIC_TOKEN"]
