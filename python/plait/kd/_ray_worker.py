"""What a Ray worker runs for plait: a step (the `kd.dumps` bytes of a
functor whose body is a tuple expression) on arguments that are
`kd.dumps` bytes, its outputs returned as bytes. Nothing here unpickles
user code: Ray pickles only this module's function, by reference."""

import hashlib

from plait import _plait

# Compiled steps of this worker, by the hash of their bytes.
_plans = {}


def dump(value):
    """`value` as bytes for the object store (a DataSlice or DataBag in
    plait's format)."""
    from plait import kd

    if not isinstance(value, (_plait.DataSlice, _plait.DataBag)):
        raise TypeError(f"kd.shard_map: only DataSlices and DataBags travel to Ray workers, got {type(value).__name__}")
    return kd.dumps(value)


def load(data):
    from plait import kd

    return kd.loads(data)


def run_step(code, n_inputs, n_outputs, *args):
    """Runs a step: its outputs' bytes (one value when it has one output)."""
    from plait import kd

    key = hashlib.sha256(code).digest()
    plan = _plans.get(key)
    if plan is None:
        body = _plait.functor_body(kd.loads(code))
        plan = _plans[key] = _plait.compile_plan(body, n_inputs)
        if len(_plans) > 256:
            _plans.pop(next(iter(_plans)))
    out = tuple(plan(*(load(a) for a in args)))
    dumped = [dump(v) for v in out]
    return dumped[0] if n_outputs == 1 else dumped
