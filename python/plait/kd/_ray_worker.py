"""What a Ray worker runs for plait: a step (the `kd.dumps` bytes of a
functor whose body is a tuple expression) on arguments that are
`kd.dumps` bytes, its outputs returned as bytes. Nothing here unpickles
user code: Ray pickles only this module's function, by reference."""

import hashlib

from plait import _plait

# Compiled steps of this worker, by the hash of their bytes.
_plans = {}


def dump(value, compression=None):
    """`value` as bytes for the object store, in plait's format: a
    DataSlice (Python scalars boxed), a DataBag, or a JaggedShape (as a
    slice of that shape), each behind a one-byte tag. Uncompressed by
    default (the object store of one machine is memory: compressing costs
    more than copying); `compression` is `kd.dumps`'s."""
    from plait import kd

    if isinstance(value, (bool, int, float, str, bytes)) or value is None:
        value = kd.item(value)
    if isinstance(value, _plait.DataSlice):
        return b"S" + kd.dumps(value, compression=compression)
    if isinstance(value, _plait.DataBag):
        return b"B" + kd.dumps(value, compression=compression)
    if isinstance(value, _plait.JaggedShape):
        return b"H" + kd.dumps(kd.present_shaped(value), compression=compression)
    raise TypeError(f"kd.parallel: values that travel to Ray workers are DataSlices, DataBags, JaggedShapes and Python "
                    f"scalars; got a {type(value).__name__}")


def load(data):
    from plait import kd

    tag, body = data[:1], data[1:]
    if tag == b"H":
        return kd.loads(body).get_shape()
    if tag in (b"S", b"B"):
        return kd.loads(body)
    raise ValueError(f"kd.parallel: bytes from the object store with an unknown tag {tag!r}")


def row_count(value):
    """The rows of a value (-1 for a DataItem or a value that is no DataSlice)."""
    if isinstance(value, _plait.DataSlice) and value.get_ndim().to_py() > 0:
        return _plait.shard_row_count(value)
    return -1


def run_step(code, n_inputs, compression, *args):
    """Runs a step: its outputs' bytes, then their row counts (so the
    driver learns how a filter cut the rows without fetching them)."""
    from plait import kd

    key = hashlib.sha256(code).digest()
    plan = _plans.get(key)
    if plan is None:
        body = _plait.functor_body(kd.loads(code))
        plan = _plans[key] = _plait.compile_plan(body, n_inputs)
        if len(_plans) > 256:
            _plans.pop(next(iter(_plans)))
    out = tuple(plan(*(load(a) for a in args)))
    return (*[dump(v, compression) for v in out], [row_count(v) for v in out])
