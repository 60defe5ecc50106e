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
    """Returns the arguments as a tuple.

    Called directly it gives a Python tuple of the arguments as they are
    (Koda boxes them into DataItems). In an expression (`kd.lazy.tuples.tuple`,
    or inside tracing) it builds a tuple at evaluation; read its items with
    `kd.tuples.get_nth`.

    Args:
      *args: the values.

    Examples:
      >>> kd.tuples.tuple(kd.item(1), kd.slice([2, 3]))
      (DataItem(1, schema: INT32), DataSlice([2, 3], schema: INT32, present: 2/2))
      >>> kd.eval(kd.lazy.tuples.tuple(I.x, I.y), x=1, y=2)
      (DataItem(1, schema: INT32), DataItem(2, schema: INT32))
    """
    return builtins.tuple(args)


def namedtuple(**kwargs):
    """Returns the keyword arguments as a named tuple, in the order given.

    Called directly it gives a `NamedTuple` of the values as they are (read a
    field with `nt['a']` or `kd.tuples.get_namedtuple_field`). In an
    expression (`kd.lazy.tuples.namedtuple`, or inside tracing) it builds a
    named tuple at evaluation.

    Args:
      **kwargs: the values, by field name.

    Examples:
      >>> nt = kd.tuples.namedtuple(a=kd.item(1), b=kd.slice([2, 3]))
      >>> nt
      namedtuple<a=DATA_SLICE,b=DATA_SLICE>{(DataItem(1, schema: INT32), DataSlice([2, 3], schema: INT32, present: 2/2))}
      >>> nt['b']
      DataSlice([2, 3], schema: INT32, present: 2/2)
    """
    return NamedTuple(kwargs.keys(), kwargs.values())


def _index(n):
    if hasattr(n, "to_py"):
        n = n.to_py()
    if not isinstance(n, builtins.int) or isinstance(n, builtins.bool):
        raise TypeError(f"kd.tuples.get_nth: `n` must be an integer, got {n!r}")
    return n


def get_nth(x, n):
    """Returns the item at position `n` (from 0) of the tuple `x`.

    Raises ValueError when `n` is not between 0 and `len(x) - 1`.

    Args:
      x: a tuple (or, in an expression, an expression giving one).
      n: the position, a Python int or an integer DataItem.

    Examples:
      >>> kd.tuples.get_nth((kd.item(1), kd.item(2)), 1)
      DataItem(2, schema: INT32)
      >>> kd.eval(kd.lazy.tuples.get_nth(kd.lazy.tuples.tuple(I.x, I.y), 0), x=1, y=2)
      DataItem(1, schema: INT32)
    """
    n = _index(n)
    if not isinstance(x, (builtins.tuple, NamedTuple)):
        raise ValueError(f"kd.tuples.get_nth: expected a tuple, got {type(x).__name__}")
    if not 0 <= n < len(x):
        raise ValueError(f"index out of range: n={n}, value.field_count={len(x)}")
    return x[n]


def get_namedtuple_field(namedtuple, field_name):
    """Returns the field `field_name` of a named tuple.

    Raises an error when the named tuple has no such field.

    Args:
      namedtuple: a named tuple (see `kd.tuples.namedtuple`).
      field_name: the name of the field, a Python str or a STRING DataItem.

    Examples:
      >>> nt = kd.tuples.namedtuple(a=kd.item(1), b=kd.item(2))
      >>> kd.tuples.get_namedtuple_field(nt, 'b')
      DataItem(2, schema: INT32)
      >>> e = kd.lazy.tuples.namedtuple(a=I.x, b=I.y)
      >>> kd.eval(kd.lazy.tuples.get_namedtuple_field(e, 'a'), x=1, y=2)
      DataItem(1, schema: INT32)
    """
    if hasattr(field_name, "to_py"):
        field_name = field_name.to_py()
    if not isinstance(namedtuple, NamedTuple):
        raise ValueError(f"kd.tuples.get_namedtuple_field: expected a named tuple, got {type(namedtuple).__name__}")
    if field_name not in namedtuple.keys():
        raise KeyError(f"kd.tuples.get_namedtuple_field: the named tuple has no field '{field_name}'; "
                         f"its fields are {builtins.list(namedtuple.keys())}")
    return namedtuple[field_name]
