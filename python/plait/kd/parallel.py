"""`kd.parallel`: calling a functor with its independent work in parallel.

`transform(fn)` gives a functor that runs `fn` as a task on an executor
(its first, positional-only argument `_executor`) and returns a stream of
its result; inside, the items of `kd.map` are computed in parallel on the
executor's threads. `call_multithreaded` and `yield_multithreaded` call it
on a new executor (or the default one) and wait, without the GIL, for the
result; a timeout cancels the outstanding work. Results equal those of
`kd.call(fn, ...)`.

The work is Rust's (`kd.parallel._call`, `crates/plait-expr/src/builtins/streams.rs`);
this module is glue: building the functor, choosing the executor, waiting.
"""

import functools
import inspect
import time
import types as _pytypes

from plait import _plait
from plait.kd import _builtins, functor as _functor
from plait.kd import types as _types

_builtins.export(globals(), "kd.parallel")
_call_op = _builtins.OPERATORS["kd.parallel._call"]


def _as_functor(fn):
    if isinstance(fn, (_pytypes.FunctionType, functools.partial)):
        return _functor.fn(fn)
    if not _plait.is_functor(fn):
        raise TypeError(f"kd.parallel: expected a functor or a Python function, got {type(fn).__name__}")
    return fn


def transform(fn, *, allow_runtime_transforms=False):
    """Returns a functor that runs `fn` in parallel.

    The result takes an executor as its first (positional-only) argument,
    `_executor`, then `fn`'s arguments; called, it returns at once with a
    stream of `fn`'s result (of its items when `fn` returns an iterable),
    computed as a task on the executor with the items of `kd.map` computed
    in parallel on its threads. Reading the stream gives what `fn` returns.

    Args:
      fn: a functor or a Python function (traced into one).
      allow_runtime_transforms: accepted for compatibility with Koda (plait
        parallelises functors computed at run time too).

    Returns:
      The parallel functor.

    Unlike Koda, whose transformed functor takes futures (which have no
    public API yet), plait's takes plain values (and streams, read as
    iterables): `kd.streams.sync_wait(f(kd.streams.get_default_executor(), 2))`
    gives 3 for `f = kd.parallel.transform(lambda x: x + 1)`.

    Examples:
      >>> kd.is_fn(kd.parallel.transform(lambda x: x + 1))
      DataItem(present, schema: MASK)
    """
    del allow_runtime_transforms
    from plait.kd import expr as _expr

    inner = _as_functor(fn)
    returns = _call_op(_expr.I._executor, _expr.V.fn, _expr.I.args, _expr.I.kwargs)
    signature = _functor._signature([
        ("_executor", inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.empty),
        *_functor._ARGS_KWARGS,
    ])
    return _functor.expr_fn(returns, signature=signature, fn=inner)


def _type_name(x, what):
    """Koda's name of the type `x` stands for (a class or a value)."""
    if x is _types.DataSlice or x is _types.DataItem or isinstance(x, _types.DataSlice):
        return "DATA_SLICE"
    if x is _types.DataBag or isinstance(x, _types.DataBag):
        return "DATA_BAG"
    if x is _types.JaggedShape or isinstance(x, _types.JaggedShape):
        return "JAGGED_SHAPE"
    raise ValueError(f"kd.parallel: unsupported {what}: {x!r}")


def _executor(max_threads):
    from plait.kd import streams

    if max_threads is None:
        return streams.get_default_executor()
    if isinstance(max_threads, bool) or not isinstance(max_threads, int) or max_threads <= 0:
        raise ValueError(f"kd.parallel: max_threads must be a positive integer or None, got {max_threads!r}")
    return streams.make_executor(thread_limit=max_threads)


def _start(fn, args, kwargs, max_threads, return_type):
    from plait.kd import tuples

    fn = _as_functor(fn)
    return _call_op._eval(_executor(max_threads), fn, tuple(args), tuples.namedtuple(**kwargs), return_type)


def call_multithreaded(fn, /, *args, return_type_as=_types.DataSlice, max_threads=None, timeout=None, **kwargs):
    """Calls a functor with the items of its `kd.map` loops computed in parallel.

    The result is that of `kd.call(fn, *args, **kwargs)`; the call runs as a
    task on a new executor of `max_threads` threads (the default executor
    when None), and this thread waits without holding the GIL. After
    `timeout` seconds a `TimeoutError` is raised and the outstanding work is
    cancelled. Errors in the functor are raised here, whichever thread met
    them. Do not call it from inside a functor (`py_fn`): compose the
    functors and call once.

    Args:
      fn: the functor (or a Python function, traced).
      *args: positional arguments for `fn`.
      return_type_as: the type of the result (`kd.types.DataSlice`,
        `kd.types.DataBag`, `kd.types.JaggedShape`, or a value of the type).
      max_threads: the most threads to use; None for the default executor.
      timeout: seconds to wait at most; None to wait for as long as it takes.
      **kwargs: keyword arguments for `fn`.

    Returns:
      The result of the call.

    Examples:
      >>> kd.parallel.call_multithreaded(kd.fn(lambda x: x + 1), 1)
      DataItem(2, schema: INT32)
      >>> f = kd.fn(lambda x: kd.map(lambda y: y * 2, x))
      >>> kd.parallel.call_multithreaded(f, kd.slice([1, 2, 3]), max_threads=2)
      DataSlice([2, 4, 6], schema: INT32, present: 3/3)
    """
    stream = _start(fn, args, kwargs, max_threads, _type_name(return_type_as, "return_type_as"))
    try:
        (result,) = stream.read_all(timeout=timeout)
    except TimeoutError:
        _plait.stream_cancel(stream)
        raise
    return result


def yield_multithreaded(fn, /, *args, value_type_as=_types.DataSlice, max_threads=None, timeout=None, **kwargs):
    """Calls a functor returning an iterable, and yields its items as they come.

    As `call_multithreaded`, for a functor returning an iterable: the items
    are those of `kd.call(fn, *args, **kwargs)`, in order. `timeout` bounds
    the time until the last item (a `TimeoutError` is raised then, and the
    work is cancelled); stopping the iteration early cancels it too.

    Args:
      fn: the functor (or a Python function, traced).
      *args: positional arguments for `fn`.
      value_type_as: the type of the items (as `return_type_as` of
        `call_multithreaded`).
      max_threads: the most threads to use; None for the default executor.
      timeout: seconds to wait at most; None to wait for as long as it takes.
      **kwargs: keyword arguments for `fn`.

    Yields:
      The items of the iterable `fn` returns.

    Examples:
      >>> f = kd.fn(lambda x: kd.iterables.make(x, x + 1))
      >>> list(kd.parallel.yield_multithreaded(f, 1))
      [DataItem(1, schema: INT32), DataItem(2, schema: INT32)]
    """
    stream = _start(fn, args, kwargs, max_threads, f"STREAM[{_type_name(value_type_as, 'value_type_as')}]")
    deadline = None if timeout is None else time.monotonic() + timeout
    try:
        while_open = stream.yield_all(timeout=None if deadline is None else max(0.0, deadline - time.monotonic()))
        yield from while_open
    finally:
        _plait.stream_cancel(stream)


from plait.kd.partition import Part, PartitionInducedCycleError, partition, run  # noqa: E402 - kd.parallel's DAG parts
from plait.kd.sharded import Mesh, NamedSharding, P, ReshardingWarning  # noqa: E402 - kd.shard_map's specs

__all__ = ["Mesh", "NamedSharding", "P", "Part", "PartitionInducedCycleError", "ReshardingWarning", "call_multithreaded", "partition",
           "run", "transform", "yield_multithreaded"]
