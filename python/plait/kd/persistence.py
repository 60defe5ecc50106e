"""`kd.dumps` / `kd.loads` (bytes) and `kd.dump` / `kd.load` (files):
DataSlices with their bags, DataBags, shapes, extension values, expressions
and functors in plait's
binary format (docs/format.md). Loading untrusted bytes is safe: anything
that is not a valid file raises ValueError."""

import os
import stat

from plait import _plait

__all__ = ["dump", "dumps", "load", "loads"]

#: The file header: magic (8 bytes), version (4), content tag (1), flags (1),
#: payload length (8); a CRC-32 (4) follows the payload (docs/format.md).
_MAGIC = b"\x89PLAIT\r\n"
_HEADER = 22
_TRAILER = 4


def dumps(x, /, *, riegeli_options=None, compression="zstd"):
    """Returns `x` serialized to bytes in plait's binary format.

    `x` may be a DataSlice (saved with the data reachable from it, as
    `kd.extract` finds it), a DataBag, a JaggedShape, a value of an extension
    type, an expression or a functor; `kd.loads` reads it back, with a
    mutable bag where `x` had one.

    Args:
      x: the value to save.
      riegeli_options: accepted for compatibility with Koda and ignored (plait
        does not write riegeli files).
      compression: 'zstd' (the default: the smallest files, written and
        read on all cores), 'lz4' (faster, larger) or None (uncompressed).

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
    if isinstance(x, kd.types.DataSlice) and x._bag() is not None and x.get_schema() != kd.SCHEMA:
        mutable = bool(x._bag().is_mutable())
        x = kd.extract(x)
        if mutable:  # (saved as mutable, so that it loads mutable)
            x = x.fork_bag()
    return _plait.dumps(x, compression)


def loads(x):
    """Returns the DataSlice, DataBag, shape, extension value, expression or functor serialized in the bytes `x`.

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


def dump(x, path, /, *, compression="zstd"):
    """Saves `x` to the file `path` (in the format of `kd.dumps`).

    Args:
      x: the value to save (see `kd.dumps`).
      path: the file to write; it is replaced if it exists.
      compression: 'zstd' (the default), 'lz4' or None (see `kd.dumps`).

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
    data = _read_file(path)
    try:
        return loads(data)
    except ValueError as e:
        raise ValueError(str(e).replace("kd.loads:", f"kd.load: {os.fspath(path)!r}:", 1)) from None


def _read_file(path):
    """The bytes of the plait file `path`, read without trusting it: only a
    regular file is read (a FIFO, a device such as /dev/zero or a directory
    is refused without blocking), and only as many bytes as its size, which
    the header's payload length must match."""
    name = os.fspath(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ValueError(f"kd.load: {name!r} is not a regular file")
    except BaseException:
        os.close(fd)
        raise
    with os.fdopen(fd, "rb") as f:
        size = st.st_size
        header = f.read(min(size, _HEADER))
        if len(header) == _HEADER and header[:len(_MAGIC)] == _MAGIC:
            declared = int.from_bytes(header[14:22], "little")
            if declared != size - _HEADER - _TRAILER:
                raise ValueError(f"kd.load: {name!r}: invalid data: the header declares a payload of {declared} "
                                 f"bytes in a file of {size} bytes")
        data = header + f.read(size - len(header))
        if len(data) != size or f.read(1):
            raise ValueError(f"kd.load: {name!r} changed while it was read")
    return data
