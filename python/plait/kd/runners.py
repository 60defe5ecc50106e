"""Where `kd.shard_map` and `kd.parallel.run` compute: the `local` runner
(threads of this process, evaluating in Rust without the GIL) or `ray`
(tasks on a Ray cluster: `RAY_ADDRESS`, or a Ray started in this process).

A runner evaluates *steps* — one tuple expression over inputs `_0`, `_1`,
... — on lists of arguments, one task per list. On Ray, a step travels as
the `kd.dumps` bytes of a functor and data as `kd.dumps` bytes through the
object store: a worker loads plait's own format and never unpickles user
code. Values computed on workers stay there (as object references) until
the driver needs them.
"""

import concurrent.futures
import os
import threading

from plait import _plait

RUNNERS = ("local", "ray")


def runner_name(runner, op):
    """Returns the name of the runner to use: `runner`, else `PLAIT_RUNNER`, else `local`.

    Args:
      runner: `local`, `ray` or None.
      op: the operator asking (named in the error for any other name).

    Examples:
      >>> kd.runners.runner_name('ray', 'kd.shard_map')
      'ray'
    """
    name = runner or os.environ.get("PLAIT_RUNNER") or "local"
    if name not in RUNNERS:
        raise ValueError(f"{op}: runner must be one of {list(RUNNERS)} (or the environment variable PLAIT_RUNNER), got {name!r}")
    return name


def get_runner(runner, op, max_workers=None):
    """Returns a runner by name (see `runner_name`): a `LocalRunner` or a `RayRunner`.

    Args:
      runner: `local`, `ray` or None.
      op: the operator asking (named in errors).
      max_workers: the threads of a local runner (default: a shared pool).

    Examples:
      >>> kd.runners.get_runner('local', 'kd.shard_map').name
      'local'
    """
    name = runner_name(runner, op)
    return RayRunner(op) if name == "ray" else LocalRunner(max_workers)


class Step:
    """A step's expression, compiled or serialised once, as a runner needs it."""

    def __init__(self, expr, n_inputs, n_outputs):
        self.expr, self.n_inputs, self.n_outputs = expr, n_inputs, n_outputs
        self._plan = self._bytes = None
        self._lock = threading.Lock()

    def plan(self):
        with self._lock:
            if self._plan is None:
                self._plan = _plait.compile_plan(self.expr, self.n_inputs)
            return self._plan

    def functor_bytes(self):
        from plait import kd

        with self._lock:
            if self._bytes is None:
                self._bytes = kd.dumps(kd.functor.expr_fn(self.expr))
            return self._bytes

    def run(self, args):
        """The step's outputs (a tuple) on `args`, in this process."""
        return tuple(self.plan()(*args))


_pool = None
_pool_lock = threading.Lock()


def _local_pool():
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(os.cpu_count() or 1, 2), thread_name_prefix="plait-runner")
        return _pool


class LocalRunner:
    """Tasks on threads of this process (a shared pool, or `max_workers`
    threads of a pool of this runner's own)."""

    name = "local"

    def __init__(self, max_workers=None):
        self._own = concurrent.futures.ThreadPoolExecutor(max_workers=max_workers) if max_workers else None

    def put(self, value):
        return value

    def fetch(self, ref):
        return ref

    def run_many(self, tasks, on_done=None):
        """Tasks `(step, args, label)` at once: a list of output tuples. A
        failing task raises its error with a note naming its label; none of
        the results is returned then."""
        pool = self._own or _local_pool()
        if len(tasks) == 1:
            step, args, label = tasks[0]
            return [_labelled(step.run, args, label, on_done)]
        return _results([pool.submit(_labelled, step.run, args, label, on_done) for step, args, label in tasks])

    def close(self):
        if self._own is not None:
            self._own.shutdown()


def _labelled(fn, args, label, on_done):
    try:
        out = fn(args)
    except Exception as e:
        e.add_note(f"in {label}")
        raise
    if on_done is not None:
        on_done()
    return out


def _results(futures):
    """Every future's result, or the first failure (by position) after all
    have finished."""
    concurrent.futures.wait(futures)
    for f in futures:
        if f.exception() is not None:
            raise f.exception()
    return [f.result() for f in futures]


class RayRunner:
    """Tasks on Ray. Values are `kd.dumps` bytes in Ray's object store; a
    step's outputs stay there, one object per output."""

    name = "ray"

    def __init__(self, op):
        try:
            import ray
        except ImportError:
            raise ValueError(f"{op}: the ray runner needs the `ray` package (pip install ray)") from None
        if not ray.is_initialized():
            ray.init(address=os.environ.get("RAY_ADDRESS") or None, include_dashboard=False, log_to_driver=False)
        self._ray = ray
        from plait.kd import _ray_worker

        self._task = ray.remote(_ray_worker.run_step)

    def put(self, value):
        from plait.kd import _ray_worker

        return self._ray.put(_ray_worker.dump(value))

    def fetch(self, ref):
        from plait.kd import _ray_worker

        return _ray_worker.load(self._ray.get(ref))

    def run_many(self, tasks, on_done=None):
        """Tasks `(step, args, label)` (args: values or object references)
        as Ray tasks: a list of tuples of object references, one per output."""
        codes = {}
        submitted = []
        for step, args, _ in tasks:
            if id(step) not in codes:
                codes[id(step)] = self._ray.put(step.functor_bytes())
            n = step.n_outputs
            refs = [a if isinstance(a, self._ray.ObjectRef) else self.put(a) for a in args]
            out = self._task.options(num_returns=n).remote(codes[id(step)], step.n_inputs, n, *refs)
            submitted.append([out] if n == 1 else list(out))
        results = []
        failure = None
        for refs, (_, _, label) in zip(submitted, tasks):
            try:
                self._ray.wait(refs, num_returns=len(refs))
                self._ray.get(refs)
            except Exception as e:  # a task's error, or its worker's death
                if failure is None:
                    failure = _ray_failure(e, label)
            else:
                if on_done is not None:
                    on_done()
            results.append(tuple(refs))
        if failure is not None:
            raise failure
        return results

    def close(self):
        pass


def _ray_failure(e, label):
    """The exception a failed Ray task raised (its cause when Ray wrapped
    it), noted with the task's label."""
    cause = getattr(e, "cause", None)
    if isinstance(cause, Exception):
        cause.add_note(f"in {label} (on a Ray worker)")
        return cause
    error = RuntimeError(f"{label} failed on a Ray worker: {type(e).__name__}: {e}")
    error.__cause__ = e
    return error
