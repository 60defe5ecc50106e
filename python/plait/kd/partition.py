"""`kd.parallel.partition` and `kd.parallel.run`: a DAG cut into parts
that run in dependency order (seed 002, Pytato's partitioning; issue
"shard_map and distributed execution"). See docs/partition.md.

`partition(outputs, part_fn)` asks `part_fn` which part each operator node
belongs to; the cutting is Rust's (`plait_expr::partition`): values read
across parts get reserved names (`_pd_part_ph<n>`), parts whose
dependencies make a cycle raise `PartitionInducedCycleError`, and the
result depends on nothing but the DAG and the keys (not on hash seeds).
`run(parts, **inputs)` evaluates the parts in batches whose parts need only
earlier batches, the parts of a batch at once on the `local` runner's
threads.
"""

from plait import _plait
from plait.kd import progress, runners

# The name of the output of a single expression or functor.
DEFAULT_OUTPUT = "_pd_out"


class PartitionInducedCycleError(ValueError):
    """The parts of a partition depend on each other in a cycle, so no order
    runs them (A -> B -> C with A and C in one part, B in another)."""


class Part:
    """One part of a partitioned DAG: `pid`, the `needed_pids` whose values
    it reads, its `input_names` (the DAG's inputs and boundary values) and
    `output_names`, and `outputs` (name -> expression)."""

    def __init__(self, pid, needed_pids, input_names, outputs):
        self.pid = pid
        self.needed_pids = tuple(needed_pids)
        self.input_names = tuple(input_names)
        self.outputs = dict(outputs)
        self.output_names = tuple(self.outputs)

    def __repr__(self):
        return (f"Part(pid={self.pid}, needed_pids={list(self.needed_pids)}, input_names={list(self.input_names)}, "
                f"output_names={list(self.output_names)})")


def _named_outputs(functor_or_outputs):
    from plait import kd

    x = functor_or_outputs
    if isinstance(x, _plait.DataSlice) and kd.is_fn(x):
        return [(DEFAULT_OUTPUT, _plait.functor_body(x))]
    if isinstance(x, _plait.Expr):
        return [(DEFAULT_OUTPUT, x)]
    if isinstance(x, dict) and all(isinstance(k, str) and isinstance(v, _plait.Expr) for k, v in x.items()):
        return list(x.items())
    raise TypeError("kd.parallel.partition: expected a functor, an expression or a dict of named expressions, got "
                    f"{type(x).__name__}")


def partition(functor_or_outputs, part_fn):
    """Returns the parts of a DAG cut by `part_fn`, in dependency order.

    `part_fn(node)` is called on each operator node of the DAG (an
    expression; children before parents) and returns a hashable key: nodes
    with the same key are one part. A value computed in one part and read in
    another crosses under a reserved name `_pd_part_ph<n>`: an output of
    the first part, an input of the second. Parts are numbered by their
    first node. A partition whose parts depend on each other in a cycle
    raises PartitionInducedCycleError.

    Args:
      functor_or_outputs: a functor, an expression, or a dict of named
        expressions (a functor's or expression's output is `_pd_out`).
      part_fn: the part key of an operator node.

    Examples:
      >>> e = (I.x + 1) * 2
      >>> parts = kd.parallel.partition(e, lambda node: 'add' if 'add' in repr(node.op) else 'rest')
      >>> [(p.pid, p.needed_pids, p.output_names) for p in parts]
      [(0, (), ('_pd_part_ph0',)), (1, (0,), ('_pd_out',))]
      >>> kd.parallel.run(parts, x=kd.slice([1, 2]))['_pd_out']
      DataSlice([4, 6], schema: INT32, present: 2/2)
    """
    outputs = _named_outputs(functor_or_outputs)
    keys, ids = [], {}
    for node in _plait.partition_nodes(outputs):
        key = part_fn(node)
        try:
            keys.append(ids.setdefault(key, len(ids)))
        except TypeError:
            raise TypeError(f"kd.parallel.partition: part_fn returned {key!r}, which is not hashable") from None
    kind, parts, cycle = _plait.partition_expr(outputs, keys)
    if kind == "cycle":
        shown = " -> ".join(f"part {p}" for p in cycle)
        raise PartitionInducedCycleError(f"kd.parallel.partition: the parts depend on each other in a cycle: {shown}")
    return [Part(*p) for p in parts]


def _batches(parts):
    """The pids of `parts` in batches: each batch needs only earlier ones."""
    done, out = set(), []
    while len(done) < len(parts):
        batch = [p.pid for p in parts if p.pid not in done and set(p.needed_pids) <= done]
        if not batch:
            raise PartitionInducedCycleError("kd.parallel.run: the parts depend on each other in a cycle")
        done.update(batch)
        out.append(batch)
    return out


def run(parts, *, runner=None, max_workers=None, **inputs):
    """Runs `parts` (from `kd.parallel.partition`) on `inputs`: the DAG's outputs by name.

    Parts run in dependency batches; the parts of one batch run at once on
    the runner's workers (`local`: tasks of plait's worker pool in this
    process, evaluating in Rust without the GIL; `ray`: tasks on a Ray cluster, values kept in its
    object store between parts). A part that fails raises its error, naming
    the part, and nothing is returned.

    Args:
      parts: the parts.
      runner: `local` or `ray` (default: the environment variable
        `PLAIT_RUNNER`, else `local`).
      max_workers: how many parts the local runner computes at a time
        (default: a batch's parts all at once on plait's worker pool).
      **inputs: the DAG's inputs by name.

    Examples:
      >>> parts = kd.parallel.partition({'a': I.x + 1, 'b': I.x * 3}, lambda node: repr(node.op))
      >>> out = kd.parallel.run(parts, x=kd.item(2))
      >>> out['a'], out['b']
      (DataItem(3, schema: INT32), DataItem(6, schema: INT32))
    """
    from plait import kd

    pool = runners.get_runner(runner, "kd.parallel.run", max_workers)
    by_pid = {p.pid: p for p in parts}
    values = {name: pool.put(v) for name, v in inputs.items()}
    items = sum(kd.slices.size(v).to_py() for v in inputs.values() if isinstance(v, _plait.DataSlice))
    try:
        with progress.bar(len(parts), "kd.parallel.run", items=items) as bar:
            for batch in _batches(parts):
                tasks = [_task(by_pid[pid], values) for pid in batch]
                # One task per part, all of a batch at once.
                results = pool.run_many(tasks, on_done=lambda: bar.update())
                for pid, out in zip(batch, results):
                    values.update(zip(by_pid[pid].output_names, out))
    finally:
        pool.close()
    boundary = _plait.partition_boundary_prefix()
    return {name: pool.fetch(v) for name, v in values.items() if name not in inputs and not name.startswith(boundary)}


def _task(part, values):
    """`part` as a runner's task: (its outputs as one step, the values it
    reads, its label)."""
    from plait.kd import expr as _expr

    missing = [n for n in part.input_names if n not in values]
    if missing:
        raise ValueError(f"kd.parallel.run: part {part.pid} reads {missing}, which neither the inputs nor earlier parts give")
    renamed = {name: _expr.I[f"_{i}"] for i, name in enumerate(part.input_names)}
    outputs = [_expr.sub_inputs(e, **renamed) for e in part.outputs.values()]
    step = runners.Step(_plait.expr_call("kd.tuples.tuple", *outputs), len(part.input_names), len(outputs))
    return step, [values[n] for n in part.input_names], f"part {part.pid} of the partition"
