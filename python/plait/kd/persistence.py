"""`kd.dumps` / `kd.loads` (bytes) and `kd.dump` / `kd.load` (files):
DataSlices with their bags, DataBags, expressions and functors in plait's
binary format (docs/format.md). Loading untrusted bytes is safe: anything
that is not a valid file raises ValueError."""

from plait import _plait

__all__ = ["dump", "dumps", "load", "loads"]


def dumps(x, /, *, riegeli_options=None, compression=None):
    """Returns `x` serialized to bytes in plait's binary format.

    `x` may be a DataSlice (saved with the data reachable from it, as
    `kd.extract` finds it), a DataBag, an expression or a functor; `kd.loads`
    reads it back.

    Args:
      x: the value to save.
      riegeli_options: accepted for compatibility with Koda and ignored (plait
        does not write riegeli files).
      compression: None, or 'lz4' to compress the data.

    Examples:
      >>> data = kd.dumps(kd.slice([1, None, 3]))
      >>> type(data)
      <class 'bytes'>
      >>> kd.loads(data)
      DataSlice([1, None, 3], schema: INT32, present: 2/3)
      >>> kd.loads(kd.dumps(kd.obj(a=1, b='x'), compression='lz4')).to_py()
      Obj(a=1, b='x')
    """
    from plait import kd

    del riegeli_options
    if isinstance(x, kd.types.DataSlice) and x.get_bag() is not None and x.get_schema() != kd.SCHEMA:
        x = kd.extract(x)
    return _plait.dumps(x, compression)


def loads(x, /):
    """Returns the DataSlice, DataBag, expression or functor serialized in the bytes `x`.

    `x` is what `kd.dumps` produced. Invalid bytes raise a ValueError (never
    anything worse), so untrusted input is safe to load.

    Args:
      x: bytes (or a bytearray or memoryview).

    Examples:
      >>> f = kd.loads(kd.dumps(kd.fn(I.x + 1)))
      >>> f(x=2)
      DataItem(3, schema: INT32)
      >>> kd.loads(b'not plait data')
      Traceback (most recent call last):
      ...
      ValueError: kd.loads: invalid data: not a plait file (wrong magic bytes)
    """
    if not isinstance(x, (bytes, bytearray, memoryview)):
        raise TypeError(f"kd.loads: expected bytes, got {type(x).__name__}")
    return _plait.loads(bytes(x))


def dump(x, path, /, *, compression=None):
    """Saves `x` to the file `path` (in the format of `kd.dumps`).

    Args:
      x: the value to save (see `kd.dumps`).
      path: the file to write; it is replaced if it exists.
      compression: None, or 'lz4' to compress the data.

    Examples:
      >>> import os, tempfile
      >>> with tempfile.TemporaryDirectory() as d:
      ...   path = os.path.join(d, 'data.kd')
      ...   kd.dump(kd.slice([[1, 2], [3]]), path)
      ...   kd.load(path)
      DataSlice([[1, 2], [3]], schema: INT32, present: 3/3)
    """
    data = dumps(x, compression=compression)
    with open(path, "wb") as f:
        f.write(data)


def load(path, /):
    """Returns the value saved in the file `path` (by `kd.dump`).

    Args:
      path: the file to read.

    Examples:
      >>> import os, tempfile
      >>> with tempfile.TemporaryDirectory() as d:
      ...   path = os.path.join(d, 'bag.kd')
      ...   kd.dump(kd.obj(a=1).get_bag(), path)
      ...   kd.load(path)
      DataBag $...:
        1 Entities/Objects with 1 values in 1 attrs
        0 non empty Lists with 0 items
        0 non empty Dicts with 0 key/value entries
        1 schemas with 1 values
      <BLANKLINE>
      Top attrs:
        a: 1 values
    """
    with open(path, "rb") as f:
        return loads(f.read())
