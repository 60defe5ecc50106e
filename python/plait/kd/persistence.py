"""`kd.dumps` / `kd.loads` (bytes) and `kd.dump` / `kd.load` (files):
DataSlices with their bags, DataBags, expressions and functors in plait's
binary format (docs/format.md). Loading untrusted bytes is safe: anything
that is not a valid file raises ValueError."""

from plait import _plait

__all__ = ["dump", "dumps", "load", "loads"]


def dumps(x, /, *, riegeli_options=None, compression=None):
    """The bytes of `x`: a DataSlice (with the data reachable from it, as
    `kd.extract` finds it), a DataBag, an Expr, or a functor.

    `compression='lz4'` compresses the payload. `riegeli_options` is
    accepted for Koda compatibility and ignored (plait does not write riegeli
    files).
    """
    from plait import kd

    del riegeli_options
    if isinstance(x, kd.types.DataSlice) and x.get_bag() is not None and x.get_schema() != kd.SCHEMA:
        x = kd.extract(x)
    return _plait.dumps(x, compression)


def loads(x, /):
    """The DataSlice, DataBag or Expr saved in `x` (bytes)."""
    if not isinstance(x, (bytes, bytearray, memoryview)):
        raise TypeError(f"kd.loads: expected bytes, got {type(x).__name__}")
    return _plait.loads(bytes(x))


def dump(x, path, /, *, compression=None):
    """Saves `x` (see `dumps`) to the file `path`."""
    data = dumps(x, compression=compression)
    with open(path, "wb") as f:
        f.write(data)


def load(path, /):
    """The value saved in the file `path` (see `loads`)."""
    with open(path, "rb") as f:
        return loads(f.read())
