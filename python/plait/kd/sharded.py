"""`kd.shard_map`: a function written for whole values, run with its
inputs cut into shards of whole rows (seed 003, "Shard Map"). See
docs/shard_map.md.

The function is traced once per input types; the replay plan is Rust's
(`_plait.shard_plan`, `plait_expr::shard`): operators that work row by
row run on every shard, operators that cross shards are replayed with
combining steps (partial aggregates, offsets), anything else gathers its
arguments and runs once. The result always equals `fn(*args)` on whole
values. `in_specs` / `out_specs` are the only place sharding is stated:
`P('x')` cuts dimension 0 over mesh axis `x`, `P()` passes a value whole.
Steps run on a runner (`plait.kd.runners`: `local`, plait's worker pool,
or `ray`).
"""

import collections
import threading
import warnings
import weakref

from plait import _plait
from plait.kd import expr as _expr
from plait.kd import progress, runners
from plait.kd.vmapped import _is_namedtuple, _same_kind
from plait.kd.vmapped import _positional_names as _function_positional_names

_DataSlice = _plait.DataSlice
_Expr = _plait.Expr
OP = "kd.shard_map"
# The most workers a mesh may have.
MAX_SHARDS = 1 << 20


class Mesh:
    """Named axes of workers: `Mesh({'x': 2})` is two shards along `x`.

    Examples:
      >>> kd.parallel.Mesh({'x': 2})
      Mesh({'x': 2})
      >>> kd.parallel.Mesh({'x': 2, 'y': 3}).size
      6
    """

    def __init__(self, axes):
        if not isinstance(axes, dict) or not axes:
            raise ValueError(f"kd.parallel.Mesh: expected a dict of axis names to sizes, such as {{'x': 2}}, got {axes!r}")
        for name, n in axes.items():
            if not isinstance(name, str) or not name:
                raise ValueError(f"kd.parallel.Mesh: axis names are non-empty strings, got {name!r}")
            if isinstance(n, bool) or not isinstance(n, int) or n < 1:
                raise ValueError(f"kd.parallel.Mesh: axis {name!r} has size {n!r}; sizes are positive ints")
        self.shape = dict(axes)
        if self.size > MAX_SHARDS:
            raise ValueError(f"kd.parallel.Mesh: {self.size} workers in all; a mesh has at most {MAX_SHARDS:,} (each shard is "
                             "a task and its rows' bounds are kept)")

    @property
    def axis_names(self):
        return tuple(self.shape)

    @property
    def size(self):
        n = 1
        for v in self.shape.values():
            n *= v
        return n

    def __eq__(self, other):
        return isinstance(other, Mesh) and self.shape == other.shape

    def __hash__(self):
        return hash(tuple(self.shape.items()))

    def __repr__(self):
        return f"Mesh({self.shape!r})"


class P:
    """A partition spec: `P('x')` cuts dimension 0 over mesh axis `x`
    (`P(('x', 'y'))` over both), `P()` keeps the value whole. Only
    dimension 0 is cut (rows stay whole: jagged rows too).

    Examples:
      >>> kd.parallel.P('x')
      P('x')
      >>> kd.parallel.P()
      P()
    """

    def __init__(self, *dims):
        for i, d in enumerate(dims):
            names = d if isinstance(d, tuple) else (d,)
            if not all(n is None or isinstance(n, str) for n in names):
                raise ValueError(f"kd.parallel.P: entries are mesh axis names, tuples of them or None, got {d!r}")
            if i > 0 and d is not None:
                raise ValueError(f"kd.parallel.P: only dimension 0 is cut into shards (rows stay whole); got {d!r} for "
                                 f"dimension {i}")
        self.dims = tuple(dims)

    @property
    def axes(self):
        """The mesh axes dimension 0 is cut over (empty: whole)."""
        if not self.dims or self.dims[0] is None:
            return ()
        return self.dims[0] if isinstance(self.dims[0], tuple) else (self.dims[0],)

    def __eq__(self, other):
        return isinstance(other, P) and self.axes == other.axes

    def __hash__(self):
        return hash(self.axes)

    def __repr__(self):
        return f"P({', '.join(repr(d) for d in self.dims)})"


class NamedSharding:
    """How a value is cut: its `mesh`, its `spec`, and the row `bounds` of
    its shards (shard `i` holds rows `bounds[i]` to `bounds[i + 1]`)."""

    def __init__(self, mesh, spec, bounds):
        self.mesh, self.spec, self.bounds = mesh, spec, tuple(bounds)

    @property
    def num_shards(self):
        return max(len(self.bounds) - 1, 1)

    def __eq__(self, other):
        return isinstance(other, NamedSharding) and (self.mesh, self.spec) == (other.mesh, other.spec)

    def __hash__(self):
        return hash((self.mesh, self.spec))

    def __repr__(self):
        return f"NamedSharding(mesh={self.mesh!r}, spec={self.spec!r})"


class ReshardingWarning(UserWarning):
    """An argument sharded one way was given to `kd.shard_map` with another
    spec: it is cut again."""


# The sharding of each value kd.shard_map returned, by id (removed when the
# value is freed).
_shardings = {}


def _set_sharding(x, sharding):
    if not isinstance(x, _DataSlice):
        return
    key = id(x)
    _shardings[key] = sharding
    weakref.finalize(x, _shardings.pop, key, None)


def sharding_of(x):
    """Returns the NamedSharding of a value `kd.shard_map` returned (None for any other); also `x.sharding`.

    Args:
      x: a value.

    Examples:
      >>> kd.slice([1, 2]).sharding is None
      True
    """
    return _shardings.get(id(x))


_DataSlice.sharding = property(sharding_of, doc="How kd.shard_map cut this value (a NamedSharding), or None.")

_state = threading.local()


def _bounds(n_rows, n_shards):
    return [(i * n_rows) // n_shards for i in range(n_shards + 1)]


def _bounds_of_counts(counts):
    """The row bounds of shards holding `counts` rows each."""
    bounds = [0]
    for c in counts:
        bounds.append(bounds[-1] + c)
    return bounds


def _check_spec(spec, mesh, path):
    if spec is None:
        return P()
    if not isinstance(spec, P):
        raise ValueError(f"{OP}: the spec of {path} must be a kd.parallel.P, got {spec!r}")
    for axis in spec.axes:
        if axis not in mesh.shape:
            raise ValueError(f"{OP}: {spec!r} for {path} names axis {axis!r}, which {mesh!r} does not have")
    return spec


def _leaves(x, spec, path, out):
    """Replaces each DataSlice (or Python scalar) in argument `x` with a
    traced input, appending `(path, value, spec)` to `out`."""
    if _is_namedtuple(x) or isinstance(x, (tuple, list)):
        return _same_kind(x, [_leaves(v, spec, f"{path}[{i}]", out) for i, v in enumerate(x)])
    if isinstance(x, dict):
        return {k: _leaves(v, spec, f"{path}[{k!r}]", out) for k, v in x.items()}
    if isinstance(x, (bool, int, float, str, bytes)) or x is None:
        from plait import kd

        x = kd.item(x)
    if not isinstance(x, _DataSlice):
        raise TypeError(f"{OP}: argument {path} is a {type(x).__name__}; shard_map takes DataSlices (and tuples, lists "
                        "and dicts of them)")
    out.append((path, x, spec))
    return _expr.I[f"_{len(out) - 1}"]


class _Entry:
    """A traced call: its plan, its steps ready to run, its outputs' structure."""

    def __init__(self, plan, structure, n_leaves):
        self.plan, self.structure = plan, structure
        self.actions = []
        for kind, action in plan.actions():
            if kind == "step":
                level, imports, outputs, expr = action[1], action[2], action[3], action[4]
                self.actions.append(("step", action[0], level, imports, outputs, runners.Step(expr, len(imports), len(outputs)),
                                     action[5]))
            else:
                self.actions.append(("gather",) + tuple(action))
        self.outputs = plan.outputs()
        self.split_sources = dict(plan.split_sources())
        self.n_leaves = n_leaves


class ShardMappedFunction:
    """A function run on shards by `kd.shard_map`: call it as the function."""

    def __init__(self, fn, mesh, in_specs, out_specs, runner, max_workers):
        from plait import kd

        self._is_functor = isinstance(fn, _DataSlice) and bool(kd.is_fn(fn))
        if not self._is_functor and not callable(fn):
            raise TypeError(f"{OP}: expected a Python function or a functor, got {type(fn).__name__}")
        if not isinstance(mesh, Mesh):
            raise TypeError(f"{OP}: mesh must be a kd.parallel.Mesh, got {type(mesh).__name__}")
        if not isinstance(in_specs, (P, dict, tuple, list)) and in_specs is not None:
            raise ValueError(f"{OP}: in_specs must be a P, a dict by argument position or name, or a tuple per argument; "
                             f"got {in_specs!r}")
        if out_specs is not None and not isinstance(out_specs, (P, tuple, list)):
            raise ValueError(f"{OP}: out_specs must be a P or a tuple of them, got {out_specs!r}")
        runners.runner_name(runner, OP)
        self._fn, self.mesh, self.in_specs, self.out_specs = fn, mesh, in_specs, out_specs
        self._runner, self._max_workers = runner, max_workers
        self._name = getattr(fn, "__qualname__", None) or ("functor" if self._is_functor else repr(fn))
        self._positional = _positional_names(fn, self._is_functor)
        self._cache = collections.OrderedDict()
        self._lock = threading.Lock()

    def _spec_of(self, position, name):
        """The spec of the argument at `position` (None: given by keyword)
        named `name`; a keyword argument that is a positional parameter has
        that parameter's position too."""
        specs = self.in_specs
        if isinstance(specs, P) or specs is None:
            return specs
        by_keyword = position is None
        if by_keyword and name in self._positional:
            position = self._positional.index(name)
        if isinstance(specs, dict):
            for key in (position, name):
                if key is not None and key in specs:
                    return specs[key]
            return None
        if position is None or (by_keyword and position >= len(specs)):
            return None
        if position >= len(specs):
            raise ValueError(f"{OP}: in_specs has {len(specs)} entries, but {self._name} got an argument at position {position}")
        return specs[position]

    def _bind(self, args, kwargs):
        if isinstance(self.in_specs, dict):
            given = set(self._positional[:len(args)]) | set(kwargs)
            for key in self.in_specs:
                if isinstance(key, int) and key < 0:
                    raise ValueError(f"{OP}: in_specs keys are argument positions (from 0) or names, got {key}")
                by_keyword = isinstance(key, int) and key < len(self._positional) and self._positional[key] in kwargs
                if isinstance(key, int) and not (0 <= key < len(args) or by_keyword) or isinstance(key, str) and key not in given:
                    raise ValueError(f"{OP}: in_specs names argument {key!r}, which the call does not give")
        found = []
        names = [self._positional[i] if i < len(self._positional) else f"args[{i}]" for i in range(len(args))]
        leaf_args = [_leaves(a, _check_spec(self._spec_of(i, n), self.mesh, n), n, found) for i, (a, n) in
                     enumerate(zip(args, names))]
        leaf_kwargs = {k: _leaves(v, _check_spec(self._spec_of(None, k), self.mesh, k), k, found) for k, v in kwargs.items()}
        return leaf_args, leaf_kwargs, found

    def _n_shards(self, spec):
        n = 1
        for axis in spec.axes:
            n *= self.mesh.shape[axis]
        return n

    def _prepare(self, args, kwargs):
        """The call's plan entry, its leaves' values and (path, value, spec),
        the split of each sharded leaf, each split's (rows, shards), and the
        number of shards."""
        if getattr(_state, "tracing", False):
            raise ValueError(f"{OP}: called inside a function kd.shard_map is tracing; shard only at the outside (a "
                             "sharding operation inside the body would run once per shard)")
        if _plait.is_tracing():
            raise ValueError(f"{OP}: called inside a traced function; kd.shard_map runs eagerly (call it outside, or trace "
                             "the function it runs)")
        leaf_args, leaf_kwargs, found = self._bind(args, kwargs)
        values, sharded, rows, counts = [], {}, {}, set()
        for k, (path, value, spec) in enumerate(found):
            current = sharding_of(value)
            if current is not None and (current.mesh, current.spec) != (self.mesh, spec):
                warnings.warn(f"{OP}: argument {path} of {self._name} is sharded as {current.spec!r} on {current.mesh!r}; "
                              f"it is resharded as {spec!r} on {self.mesh!r}", ReshardingWarning, stacklevel=4)
            if spec.axes:
                if value.get_ndim().to_py() == 0:
                    raise ValueError(f"{OP}: argument {path} of {self._name} is a DataItem (rank 0): it has no rows to cut "
                                     "(give it P() to pass it whole)")
                n_rows = _plait.shard_row_count(value)
                n_shards = self._n_shards(spec)
                counts.add(n_shards)
                rows[f"_{k}"] = (n_rows, n_shards)
            values.append(value)
        if len(counts) > 1:
            raise ValueError(f"{OP}: the in_specs of {self._name} cut arguments into different numbers of shards "
                             f"({sorted(counts)}); use one mesh axis (or the same axes) for all of them")
        # Inputs with as many rows share a split: their shards hold the same rows.
        split_of = {}
        for name, key in rows.items():
            sharded[name] = split_of.setdefault(key, len(split_of))
        n_shards = counts.pop() if counts else 1
        key = (_plait.compile_key(tuple(values), tuple([None] * len(values))), tuple(sorted(sharded.items())), n_shards,
               _structure_key(leaf_args, leaf_kwargs))
        with self._lock:
            entry = self._cache.get(key)
            if entry is not None:
                self._cache.move_to_end(key)
        if entry is None:
            entry = self._trace(leaf_args, leaf_kwargs, values, sharded)
            with self._lock:
                self._cache[key] = entry
                while len(self._cache) > 32:
                    self._cache.popitem(last=False)
        split_rows = {s: rows[name] for name, s in sharded.items()}
        return entry, values, found, sharded, split_rows, n_shards

    def _trace(self, leaf_args, leaf_kwargs, values, sharded):
        _state.tracing = True
        try:
            with _expr.tracing():
                if self._is_functor:
                    from plait import kd

                    out = kd.call(self._fn, *leaf_args, **leaf_kwargs)
                else:
                    out = self._fn(*leaf_args, **leaf_kwargs)
        finally:
            _state.tracing = False
        single = isinstance(out, (_Expr, _DataSlice))
        if not single and not isinstance(out, (tuple, list)):
            raise TypeError(f"{OP}: {self._name} returned a {type(out).__name__}; shard_map returns DataSlices or tuples of them")
        outputs = [out] if single else list(out)
        for o in outputs:
            if not isinstance(o, (_Expr, _DataSlice)):
                raise TypeError(f"{OP}: {self._name} returned a {type(o).__name__} among its outputs; shard_map returns "
                                "DataSlices or tuples of them")
        exprs = [_expr.as_expr(o) for o in outputs]
        plan = _plait.shard_plan(exprs, [(f"_{k}", v) for k, v in enumerate(values)], sharded)
        structure = None if single else (type(out), len(outputs))
        return _Entry(plan, structure, len(values))

    def _out_specs(self, n):
        specs = self.out_specs
        if specs is None or isinstance(specs, P):
            return [specs] * n
        if len(specs) != n:
            raise ValueError(f"{OP}: out_specs has {len(specs)} entries for {n} outputs of {self._name}")
        return list(specs)

    def __call__(self, *args, **kwargs):
        entry, values, found, sharded, split_rows, n_shards = self._prepare(args, kwargs)
        runner = runners.get_runner(self._runner, OP, self._max_workers)
        try:
            results = _Replay(entry, runner, values, sharded, split_rows, n_shards).run(self._name)
        finally:
            runner.close()
        specs = self._out_specs(len(results))
        outs = []
        for (value, place, bounds), spec in zip(results, specs):
            if any(value is v for v in values):
                # An argument returned as it is: a new object, so its sharding is the result's only.
                value = _plait.shard_alias(value)
            spec = _check_spec(spec, self.mesh, "an output") if spec is not None else (
                P(self._sharded_axis(found)) if place != "whole" else P())
            if spec.axes and (bounds is None or len(bounds) != self._n_shards(spec) + 1):
                if not isinstance(value, _DataSlice) or value.get_ndim().to_py() == 0:
                    raise ValueError(f"{OP}: out_specs asks for {spec!r}, but the output of {self._name} is a "
                                     f"{'DataItem' if isinstance(value, _DataSlice) else type(value).__name__}, which has no "
                                     "rows to cut")
                bounds = _bounds(_plait.shard_row_count(value), self._n_shards(spec))
            _set_sharding(value, NamedSharding(self.mesh, spec, bounds if spec.axes else (0,)))
            outs.append(value)
        if entry.structure is None:
            return outs[0]
        kind, _ = entry.structure
        return kind(*outs) if issubclass(kind, tuple) and hasattr(kind, "_fields") else kind(outs)

    def _sharded_axis(self, found):
        for _, _, spec in found:
            if spec.axes:
                return spec.dims[0]
        return None

    def lower(self, *args, **kwargs):
        """The replay plan of a call with these arguments, without running it.

        Examples:
          >>> f = kd.shard_map(lambda x: kd.sum(x), kd.parallel.Mesh({'x': 2}), in_specs=kd.parallel.P('x'))
          >>> print(f.lower(kd.slice([1, 2, 3])))  # doctest: +ELLIPSIS
          kd.shard_map plan of <lambda> on Mesh({'x': 2}): 2 shards
          ...
        """
        entry, values, found, sharded, split_rows, n_shards = self._prepare(args, kwargs)
        return Lowered(self._name, self.mesh, n_shards, entry, found, sharded)

    def __repr__(self):
        return f"<kd.shard_map of {self._name} on {self.mesh!r}>"


def _positional_names(fn, is_functor):
    """The names of `fn`'s positional parameters (a functor's from its
    signature; none known: empty)."""
    if is_functor:
        from plait.kd import signature_utils

        return signature_utils._names_and_positional(fn)[1]
    return _function_positional_names(fn)


def _structure_key(leaf_args, leaf_kwargs):
    def shape(x):
        if isinstance(x, (tuple, list)):
            return (type(x), tuple(shape(v) for v in x))
        if isinstance(x, dict):
            return ("dict", tuple((k, shape(v)) for k, v in x.items()))
        return "leaf"

    return shape(tuple(leaf_args)), tuple((k, shape(v)) for k, v in leaf_kwargs.items())


class _Replay:
    """One run of a plan: whole values by name, shards' pieces by name, and
    the row bounds of each split."""

    def __init__(self, entry, runner, values, sharded, split_rows, n_shards):
        self.entry, self.runner, self.n = entry, runner, n_shards
        self.whole = {f"_{k}": v for k, v in enumerate(values)}
        self.bounds = {s: _bounds(n_rows, n_shards) for s, (n_rows, _) in split_rows.items()}
        self.pieces = {}
        for name, s in sharded.items():
            local = _plait.shard_split(self.whole[name], self.bounds[s])
            self.pieces[name] = [runner.put(p) for p in local]
        self._rows = {}
        self._whole_refs = {}

    def _whole_ref(self, name):
        """A whole value as a shard task takes it (put once per run)."""
        if name not in self._whole_refs:
            self._whole_refs[name] = self.runner.put(self.whole[name])
        return self._whole_refs[name]

    def _rows_of(self, source, split):
        key = (source, split)
        if key not in self._rows:
            value = self.whole[source]
            if not isinstance(value, _DataSlice) or value.get_ndim().to_py() == 0:
                self._rows[key] = [self._whole_ref(source)] * self.n
            else:
                bounds = self.bounds[split]
                n_rows = _plait.shard_row_count(value)
                if n_rows != bounds[-1]:
                    raise ValueError(f"{OP}: a value with {n_rows} rows meets values with {bounds[-1]} rows: their shapes "
                                     "are not compatible")
                self._rows[key] = [self.runner.put(p) for p in _plait.shard_split(value, bounds)]
        return self._rows[key]

    def _shard_args(self, imports, i):
        args = []
        for kind, name, split in imports:
            if kind == "whole":
                args.append(self._whole_ref(name))
            elif kind == "piece":
                args.append(self.pieces[name][i])
            elif kind == "rows":
                args.append(self._rows_of(name, split)[i])
            else:
                from plait import kd

                args.append(self.runner.put(kd.int64(self.bounds[split][i])))
        return args

    def _fetch_pieces(self, name):
        return [self.runner.fetch(p) for p in self.pieces[name]]

    def run(self, fn_name):
        actions = self.entry.actions
        shard_steps = sum(1 for a in actions if a[0] == "step" and a[1] == "shards")
        rows = sum(b[-1] for b in self.bounds.values())
        with progress.bar(shard_steps * self.n, OP, items=rows) as bar:
            for action in actions:
                if action[0] == "gather":
                    _, level, source, output, stack, _why = action
                    self.whole[output] = _plait.shard_gather(self._fetch_pieces(source), stack)
                    continue
                _, kind, level, imports, outputs, step, _ = action
                if kind == "once":
                    args = [self.whole[name] if k == "whole" else None for k, name, _ in imports]
                    try:
                        out = step.run(args)
                    except Exception as e:
                        e.add_note(f"in {OP} of {fn_name}: the step computed once at level {level}")
                        raise
                    self.whole.update(zip(outputs, out))
                    continue
                labels = [f"shard {i} of {self.n} of {OP} of {fn_name} (level {level})" for i in range(self.n)]
                tasks = [(step, self._shard_args(imports, i), labels[i]) for i in range(self.n)]
                results = self.runner.run_many(tasks, on_done=lambda: bar.update())
                for j, name in enumerate(outputs):
                    self.pieces[name] = [r[j] for r in results]
                for s, source in self.entry.split_sources.items():
                    if source in outputs and s not in self.bounds:
                        self.bounds[s] = _bounds_of_counts([self.runner.row_count(p) for p in self.pieces[source]])
        results = []
        for name, place in self.entry.outputs:
            if place == "whole":
                results.append((self.whole[name], place, None))
            else:
                split = int(place[len("rows"):])
                pieces = self._fetch_pieces(name)
                if split not in self.bounds:
                    self.bounds[split] = _bounds_of_counts([_plait.shard_row_count(p) for p in pieces])
                results.append((_plait.shard_gather(pieces, False), place, self.bounds[split]))
        return results


class Lowered:
    """A call's replay plan (`kd.shard_map(...).lower(*args)`): which
    operators run on every shard, which once, and the gathers and combining
    steps between; `str()` shows it."""

    def __init__(self, name, mesh, n_shards, entry, found, sharded):
        self.name, self.mesh, self.n_shards, self.entry = name, mesh, n_shards, entry
        self.inputs = [(f"_{k}", path, spec, sharded.get(f"_{k}")) for k, (path, _, spec) in enumerate(found)]

    def steps(self):
        """The plan's actions: `('gather', level, source, output, stack, why)` and
        `('step', 'once' | 'shards', level, imports, outputs, shown)`."""
        out = []
        for a in self.entry.actions:
            out.append(a if a[0] == "gather" else a[:5] + (a[6],))
        return out

    def __str__(self):
        lines = [f"kd.shard_map plan of {self.name} on {self.mesh!r}: {self.n_shards} shards"]
        for name, path, spec, split in self.inputs:
            where = f"rows cut by split {split}" if split is not None else "whole"
            lines.append(f"  input I.{name} = {path} {spec!r}: {where}")
        for a in self.entry.actions:
            if a[0] == "gather":
                _, level, source, output, stack, why = a
                how = "stacked" if stack else "concatenated"
                lines.append(f"  [{level}] gather: I.{output} = the shards' {source} {how} ({why})")
            else:
                _, kind, level, imports, outputs, _, shown = a
                where = "on every shard" if kind == "shards" else "once"
                lines.append(f"  [{level}] {where}:")
                for k, name, split in imports:
                    if k == "rows":
                        lines.append(f"      reads each shard's rows of {name} (split {split})")
                    elif k == "start":
                        lines.append(f"      reads each shard's first row of split {split}")
                for out_name, e in shown:
                    lines.append(f"      {out_name} = {e!r}")
        lines.append("  outputs: " + ", ".join(f"{n} ({p})" for n, p in self.entry.outputs))
        return "\n".join(lines)

    def __repr__(self):
        return str(self)


def shard_map(fn=None, mesh=None, in_specs=None, out_specs=None, *, runner=None, max_workers=None):
    """Returns `fn` run with its arguments cut into shards of whole rows.

    `fn` is written for whole values; `in_specs` says which arguments are
    cut: `P('x')` cuts dimension 0 into `mesh.shape['x']` shards of whole
    rows (jagged rows stay whole), `P()` (or no spec) passes a value whole.
    The function is traced once per input types and replayed: operators
    that work row by row run on every shard at once; operators that cross
    shards — aggregations of all items or of dimension 0, `kd.index` of
    dimension 0, `kd.unique` and filters of dimension 0 — are replayed with
    combining steps (partial results per shard, combined once; offsets of
    each shard's first row); any other operator gathers its arguments and
    runs once. The result equals `fn(*args)`; `result.sharding` says how it
    is cut (`out_specs`, else `P(axis)` for values on the shards and `P()`
    for whole ones). `.lower(*args)` shows the plan without running it.

    Args:
      fn: a Python function or a functor (omit it to use `kd.shard_map(mesh=...)`
        as a decorator).
      mesh: a `kd.parallel.Mesh`.
      in_specs: one `P` for every argument, a dict by position or name, or
        a tuple per positional argument (None entries: whole).
      out_specs: a `P` for every output, or a tuple per output.
      runner: `local` (threads of this process) or `ray` (default: the
        environment variable `PLAIT_RUNNER`, else `local`).
      max_workers: how many shards the local runner computes at a time
        (default: all at once on plait's worker pool).

    Examples:
      >>> mesh = kd.parallel.Mesh({'x': 2})
      >>> x = kd.slice([[1, 2], [3], [4, 5, 6], [7]])
      >>> kd.shard_map(lambda x: x * 2, mesh, in_specs={0: kd.parallel.P('x')})(x)
      DataSlice([[2, 4], [6], [8, 10, 12], [14]], schema: INT32, present: 7/7)
      >>> kd.shard_map(kd.sum, mesh, in_specs={0: kd.parallel.P('x')})(x)
      DataItem(28, schema: INT32)
      >>> kd.shard_map(lambda x: kd.index(x, dim=0), mesh, in_specs={0: kd.parallel.P('x')})(x)
      DataSlice([[0, 0], [1], [2, 2, 2], [3]], schema: INT64, present: 7/7)
    """
    if fn is None:
        return lambda f: ShardMappedFunction(f, mesh, in_specs, out_specs, runner, max_workers)
    return ShardMappedFunction(fn, mesh, in_specs, out_specs, runner, max_workers)
