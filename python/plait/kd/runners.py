"""Where `kd.shard_map` and `kd.parallel.run` compute: the `local` runner
(plait's worker pool in this process, evaluating in Rust without the GIL) or `ray`
(tasks on a Ray cluster: `RAY_ADDRESS`, or a Ray started in this process).

A runner evaluates *steps* — one tuple expression over inputs `_0`, `_1`,
... — on lists of arguments, one task per list. On Ray, a step travels as
the `kd.dumps` bytes of a functor and data as `kd.dumps` bytes through the
object store: a worker loads plait's own format and never unpickles user
code. Values computed on workers stay there (as object references) until
the driver needs them.
"""

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


class LocalRunner:
    """Tasks on plait's worker pool, in this process: the tasks of a batch
    run at once, each a task of the pool whose kernels share it (at most
    `max_workers` at a time when given), without the GIL."""

    name = "local"

    def __init__(self, max_workers=None):
        if max_workers is not None and (isinstance(max_workers, bool) or not isinstance(max_workers, int) or max_workers < 1):
            raise ValueError(f"max_workers must be a positive int, got {max_workers!r}")
        self._max_workers = max_workers

    def put(self, value):
        return value

    def fetch(self, ref):
        return ref

    def row_count(self, ref):
        """The rows of a value a task computed."""
        return _plait.shard_row_count(ref)

    def run_many(self, tasks, on_done=None):
        """Tasks `(step, args, label)` at once: a list of output tuples. A
        failing task raises its error with a note naming its label (the
        first failing task's, by position); none of the results is returned
        then."""
        outcomes = _plait.run_plans([(step.plan(), tuple(args)) for step, args, _ in tasks], self._max_workers)
        for (ok, value), (_, _, label) in zip(outcomes, tasks):
            if not ok:
                value.add_note(f"in {label}")
                raise value
        if on_done is not None:
            for _ in tasks:
                on_done()
        return [tuple(value) for _, value in outcomes]

    def close(self):
        pass


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
        # How values travel: uncompressed unless PLAIT_RAY_COMPRESSION says
        # `lz4` or `zstd` (for clusters whose network is slower than memory).
        self._compression = os.environ.get("PLAIT_RAY_COMPRESSION") or None
        if self._compression not in (None, "lz4", "zstd"):
            raise ValueError(f"{op}: PLAIT_RAY_COMPRESSION must be lz4 or zstd (or unset), got {self._compression!r}")
        # Row counts of the values tasks computed, by object reference.
        self._rows = {}

    def put(self, value):
        from plait.kd import _ray_worker

        return self._ray.put(_ray_worker.dump(value, self._compression))

    def fetch(self, ref):
        from plait.kd import _ray_worker

        return _ray_worker.load(self._ray.get(ref))

    def row_count(self, ref):
        return self._rows[ref]

    def run_many(self, tasks, on_done=None):
        """Tasks `(step, args, label)` (args: values or object references)
        as Ray tasks: a list of tuples of object references, one per output."""
        codes = {}
        submitted = []
        for step, args, _ in tasks:
            if id(step) not in codes:
                codes[id(step)] = self._ray.put(step.functor_bytes())
            refs = [a if isinstance(a, self._ray.ObjectRef) else self.put(a) for a in args]
            # The outputs, then their row counts: only the counts come back here.
            out = self._task.options(num_returns=step.n_outputs + 1).remote(codes[id(step)], step.n_inputs, self._compression, *refs)
            submitted.append(list(out))
        results = []
        failure = None
        for refs, (_, _, label) in zip(submitted, tasks):
            outputs, status = refs[:-1], refs[-1]
            try:
                counts = self._ray.get(status)
            except Exception as e:  # a task's error, or its worker's death
                if failure is None:
                    failure = _ray_failure(e, label)
            else:
                self._rows.update(zip(outputs, counts))
                if on_done is not None:
                    on_done()
            results.append(tuple(outputs))
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
