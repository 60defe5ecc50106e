"""`kd.tuples`: several values as one (seed 002's DictOfNamedArrays).

Eagerly these are Python tuples and `NamedTuple`s; in expressions they are
the builtin operators `kd.tuples.tuple` / `namedtuple` / `get_nth` /
`get_namedtuple_field`, evaluated in Rust.
"""

import builtins


class NamedTuple:
    """Values by field name, in order; `nt['x']` or `nt.x`. (Named tuples
    an evaluation returns come to Python as these: see py_expr.rs.)"""

    __slots__ = ("_names", "_values")

    def __init__(self, names, values):
        object.__setattr__(self, "_names", builtins.tuple(names))
        object.__setattr__(self, "_values", builtins.tuple(values))

    def keys(self):
        return self._names

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


def tuple(*args):  # noqa: A001 - Koda's name
    """The arguments as a tuple."""
    return builtins.tuple(args)


def namedtuple(**kwargs):
    """The keyword arguments as a named tuple."""
    return NamedTuple(kwargs.keys(), kwargs.values())


def _index(n):
    if hasattr(n, "to_py"):
        n = n.to_py()
    if not isinstance(n, builtins.int) or isinstance(n, builtins.bool):
        raise TypeError(f"kd.tuples.get_nth: `n` must be an integer, got {n!r}")
    return n


def get_nth(x, n):
    """The `n`-th value of tuple `x`."""
    n = _index(n)
    if not isinstance(x, (builtins.tuple, NamedTuple)):
        raise ValueError(f"kd.tuples.get_nth: expected a tuple, got {type(x).__name__}")
    if not 0 <= n < len(x):
        raise ValueError(f"index out of range: n={n}, value.field_count={len(x)}")
    return x[n]


def get_namedtuple_field(namedtuple, field_name):
    """The field `field_name` of a named tuple."""
    if hasattr(field_name, "to_py"):
        field_name = field_name.to_py()
    if not isinstance(namedtuple, NamedTuple):
        raise ValueError(f"kd.tuples.get_namedtuple_field: expected a named tuple, got {type(namedtuple).__name__}")
    if field_name not in namedtuple.keys():
        raise ValueError(f"kd.tuples.get_namedtuple_field: the named tuple has no field '{field_name}'; "
                         f"its fields are {builtins.list(namedtuple.keys())}")
    return namedtuple[field_name]
