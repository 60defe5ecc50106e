"""`kd.compile`: a function traced once per abstract signature, its plan
optimised (elementwise operators fused into one pass, shared
subexpressions computed once, constants folded) and cached across calls
(seed 003, "Compile: Computation Caching"). See docs/compile.md.

The cache key of a call is the function (the Python function object, or
the functor's fingerprint), each DataSlice argument's abstract type
(schema and dimensions, the `dynamic_dims` matching any size), the values of
the static arguments, and the structure of tuples, lists, named tuples and
dicts of arguments. The Rust half (`_plait.compile_key`,
`_plait.compile_plan`) computes keys and runs plans.
"""

import collections
import functools
import inspect
import warnings

from plait import _plait
from plait.kd import expr as _expr
from plait.kd._lazy import EvaluationInTracingError

_DataSlice = _plait.DataSlice
_Expr = _plait.Expr

# A call whose trace evaluated something: run eagerly.
_EAGER = object()


class Stats(collections.namedtuple("Stats", ["hits", "misses", "fallbacks", "size"])):
    """Counts of a compiled function's calls: `hits` (a cached plan ran),
    `misses` (the function was traced), `fallbacks` (calls run eagerly
    because tracing evaluated something) and the cache's `size`."""


class _Entry:
    """A cache entry: the plan, how to rebuild the output, the output's
    values that are not computed, and the leaves' types (for
    `explain_miss`)."""

    __slots__ = ("plan", "treedef", "statics", "types", "static_args", "structure")

    def __init__(self, plan, treedef, statics, types, static_args, structure):
        self.plan = plan
        self.treedef = treedef
        self.statics = statics
        self.types = types
        self.static_args = static_args
        self.structure = structure

    def run(self, leaves):
        values = self.plan(*leaves)
        if self.treedef is None:
            return values
        return _unflatten(self.treedef, iter(values if isinstance(values, tuple) else (values,)), iter(self.statics))


# ------------------------------------------------------------ pytrees
#
# A tree definition is a nested tuple: ("leaf",), ("none",), ("static",),
# ("tuple", n, children), ("list", n, children), ("named", type, children),
# ("dict", keys, children). It is hashable, so it enters the cache key.


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _flatten_args(x, path, leaves, names):
    """The tree definition of argument `x` (at `path`), appending its
    DataSlices (Python scalars boxed) to `leaves` and their paths to `names`."""
    if isinstance(x, _DataSlice):
        leaves.append(x)
        names.append(path)
        return ("leaf",)
    if _is_namedtuple(x):
        return ("named", type(x), tuple(_flatten_args(v, f"{path}.{f}", leaves, names) for f, v in zip(x._fields, x)))
    if isinstance(x, (tuple, list)):
        kind = "tuple" if isinstance(x, tuple) else "list"
        return (kind, len(x), tuple(_flatten_args(v, f"{path}[{i}]", leaves, names) for i, v in enumerate(x)))
    if isinstance(x, dict):
        keys = tuple(x)
        return ("dict", keys, tuple(_flatten_args(x[k], f"{path}[{k!r}]", leaves, names) for k in keys))
    if x is None:  # no value: passed as it is (as JAX's empty pytree)
        return ("none",)
    if isinstance(x, (bool, int, float, str, bytes)):
        from plait import kd

        leaves.append(kd.item(x))
        names.append(path)
        return ("leaf",)
    raise TypeError(f"kd.compile: argument {path} is a {type(x).__name__}; a compiled function takes DataSlices, Python scalars "
                    "and tuples, lists and dicts of them (mark other arguments in static_argnames)")


def _unflatten(treedef, values, statics=iter(())):
    """The tree of `treedef` with `values` at its leaves and `statics` at
    its static places, in order."""
    kind = treedef[0]
    if kind == "leaf":
        return next(values)
    if kind == "none":
        return None
    if kind == "static":
        return next(statics)
    children = [_unflatten(c, values, statics) for c in treedef[2]]
    if kind == "named":
        return treedef[1](*children)
    if kind == "tuple":
        return tuple(children)
    if kind == "list":
        return children
    return dict(zip(treedef[1], children))


def _flatten_output(x, traced, statics):
    """The tree definition of output `x`: computed values (expressions and
    DataSlices) go to `traced`, other values to `statics`."""
    if isinstance(x, (_Expr, _DataSlice)):
        traced.append(x)
        return ("leaf",)
    if _is_namedtuple(x):
        return ("named", type(x), tuple(_flatten_output(v, traced, statics) for v in x))
    if isinstance(x, (tuple, list)):
        return ("tuple" if isinstance(x, tuple) else "list", len(x), tuple(_flatten_output(v, traced, statics) for v in x))
    if isinstance(x, dict):
        return ("dict", tuple(x), tuple(_flatten_output(v, traced, statics) for v in x.values()))
    statics.append(x)
    return ("static",)


# ------------------------------------------------------------ compile


class CompiledFunction:
    """A function compiled by `kd.compile`: call it as the function itself.

    `stats` counts hits, misses and fallbacks; `explain_miss()` says why
    the last call missed the cache; `lower(*args, **kwargs)` shows the
    optimised plan for those arguments; `clear_cache()` empties the cache.
    """

    def __init__(self, fn, dynamic_dims, static_argnames, fullgraph, cache_size):
        from plait import kd

        if isinstance(cache_size, bool) or not isinstance(cache_size, int) or cache_size < 1:
            raise ValueError(f"kd.compile: cache_size must be a positive int, got {cache_size!r}")
        self._is_functor = isinstance(fn, _DataSlice) and bool(kd.is_fn(fn))
        if not self._is_functor and not callable(fn):
            raise TypeError(f"kd.compile: expected a Python function or a functor, got {type(fn).__name__}")
        self._fn = fn
        # What kd.map, kd.if_, ... trace when given this function.
        self.__plait_fn__ = fn
        # A functor is known by its fingerprint: equal functors share plans.
        self._identity = fn.fingerprint if self._is_functor else fn
        self._name = getattr(fn, "__qualname__", None) or ("functor" if self._is_functor else repr(fn))
        self._signature = _functor_signature(fn) if self._is_functor else inspect.signature(fn)
        if isinstance(static_argnames, str):
            static_argnames = (static_argnames,)
        self._static = frozenset(static_argnames)
        params = list(self._signature.parameters.values())
        for name in self._static:
            if name not in self._signature.parameters:
                raise ValueError(f"kd.compile: static_argnames names '{name}', which is not a parameter of {self._name}")
        self._dynamic = _dynamic_by_name(dynamic_dims or {}, params, self._name)
        # Positional calls with DataSlices only take the fast path: their
        # dimension names by position.
        positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        self._fast = not self._static and all(p.kind != p.VAR_POSITIONAL for p in params)
        self._fast_dynamic = tuple(_mask(self._dynamic.get(p.name)) for p in positional)
        self._fast_arity = len(positional)
        self._fullgraph = bool(fullgraph)
        self._cache_size = cache_size
        self._cache = collections.OrderedDict()
        self._hits = self._misses = self._fallbacks = 0
        self._last_miss = None
        self._warned = set()
        if not self._is_functor:
            functools.update_wrapper(self, fn, updated=())

    # -- calls

    def __call__(self, *args, **kwargs):
        if _plait.is_tracing():
            # Inside a function being traced: its operations join the trace.
            return self._call_function(args, kwargs)
        if not kwargs and self._fast and len(args) == self._fast_arity:
            try:
                key = (self._identity, _plait.compile_key(args, self._fast_dynamic))
            except TypeError:
                pass  # not all DataSlices: the general path
            else:
                entry = self._cache.get(key)
                if entry is not None and entry.plan is not _EAGER:
                    self._touch(key)
                    self._hits += 1
                    return entry.run(args)
        return self._call(args, kwargs)

    def __get__(self, obj, objtype=None):
        # A method: the object it is called on is a static argument (by its
        # own hash and equality, identity by default), so each object gets
        # its own plans in the one cache.
        if obj is None or self._is_functor:
            return self
        params = list(self._signature.parameters)
        if params and params[0] not in self._static:
            self._static = self._static | {params[0]}
            self._fast = False
        return functools.partial(self, obj)

    def _touch(self, key):
        # Another thread may have evicted the key since it was read: the
        # entry in hand still runs.
        try:
            self._cache.move_to_end(key)
        except KeyError:
            pass

    def _call_function(self, args, kwargs):
        if self._is_functor:
            from plait import kd

            return kd.call(self._fn, *args, **kwargs)
        return self._fn(*args, **kwargs)

    def _bind(self, args, kwargs):
        """(key, leaves, their names, the arguments' structure, the static
        arguments) of a call."""
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"kd.compile: {self._name}: {e}") from None
        # Parameters not given keep the function's own defaults (Python
        # values, seen as they are when traced).
        leaves, names, structure, statics, dynamic = [], [], [], [], []
        for name, value in bound.arguments.items():
            if name in self._static:
                try:
                    hash(value)
                except TypeError:
                    raise ValueError(f"kd.compile: static argument '{name}' of {self._name} must be hashable, got "
                                     f"{type(value).__name__}") from None
                statics.append((name, value))
                continue
            start = len(leaves)
            structure.append((name, _flatten_args(value, name, leaves, names)))
            dynamic.extend([None] * (len(leaves) - start))
            if name in self._dynamic and structure[-1][1] == ("leaf",):
                dynamic[start] = _mask(self._dynamic[name])
        structure, statics = tuple(structure), tuple(statics)
        # A call whose arguments are all single values, one per positional
        # parameter, has the key of the fast path (by keyword or by
        # position, DataSlices or Python scalars: one plan).
        plain = self._fast and len(leaves) == self._fast_arity and all(t == ("leaf",) for _, t in structure)
        if plain:
            key = (self._identity, _plait.compile_key(tuple(leaves), self._fast_dynamic))
        else:
            # Static values by type too: `1` and `True` are equal, not the same.
            static_key = tuple((n, type(v), v) for n, v in statics)
            key = (self._identity, structure, static_key, _plait.compile_key(tuple(leaves), tuple(dynamic)))
        return key, leaves, names, structure, statics

    def _call(self, args, kwargs):
        key, leaves, names, structure, statics = self._bind(args, kwargs)
        entry = self._cache.get(key)
        if entry is not None:
            self._touch(key)
            if entry.plan is _EAGER:
                self._fallbacks += 1
                return self._call_function(args, kwargs)
            self._hits += 1
            return entry.run(leaves)
        self._misses += 1
        types = tuple((n, str(_plait.typing_type_of(x))) for n, x in zip(names, leaves))
        self._last_miss = self._miss_reason(types, structure, statics)
        entry = self._trace(leaves, names, structure, statics, types)
        self._cache[key] = entry
        while len(self._cache) > self._cache_size:
            try:
                self._cache.popitem(last=False)
            except KeyError:  # emptied by another thread meanwhile
                break
        if entry.plan is _EAGER:
            self._fallbacks += 1
            return self._call_function(args, kwargs)
        return entry.run(leaves)

    def _trace(self, leaves, names, structure, statics, types):
        """Traces the function on the leaves' types: the entry."""
        inputs = iter([_expr.I[f"_{k}"] for k in range(len(leaves))])
        arguments = {name: _unflatten(treedef, inputs) for name, treedef in structure}
        arguments.update(statics)
        call_args, call_kwargs = _arrange(self._signature, arguments)
        epoch = _plait.eval_epoch()
        evaluated = None
        try:
            with _expr.tracing():
                out = self._call_function(call_args, call_kwargs)
        except EvaluationInTracingError as e:
            evaluated = str(e)
        if evaluated is None and _plait.eval_epoch() != epoch:
            evaluated = "an operator computed while it was being traced"
        if evaluated is not None:
            message = (f"kd.compile: {self._name} evaluated a value while being traced ({evaluated}); "
                       "a compiled function must build its result from its arguments without computing")
            if self._fullgraph:
                raise RuntimeError(message + " (fullgraph=True)")
            if self._name not in self._warned:
                self._warned.add(self._name)
                warnings.warn(message + "; running it eagerly instead", RuntimeWarning, stacklevel=4)
            return _Entry(_EAGER, None, (), types, statics, structure)
        traced, outputs = [], []
        treedef = _flatten_output(out, traced, outputs)
        if treedef == ("leaf",):
            body, treedef = _expr.as_expr(traced[0]), None
        else:
            body = _plait.expr_call("kd.tuples.tuple", *[_expr.as_expr(t) for t in traced])
        plan = _plait.compile_plan(body, len(leaves))
        return _Entry(plan, treedef, tuple(outputs), types, statics, structure)

    def _miss_reason(self, types, structure, statics):
        if not self._cache:
            return f"{self._name}: the first call (nothing cached)"
        last = next(reversed(self._cache.values()))
        if last.structure != structure:
            return f"{self._name}: different argument structure: {_describe(last.structure)}, now {_describe(structure)}"
        if last.static_args != statics:
            changed = [f"{n} was {v!r}, now {dict(statics).get(n)!r}" for n, v in last.static_args if dict(statics).get(n) != v]
            return f"{self._name}: different static arguments: " + "; ".join(changed)
        changed = [f"{n} was {a}, now {b}" for (n, a), (_, b) in zip(last.types, types) if a != b]
        if changed:
            return f"{self._name}: different input types: " + "; ".join(changed)
        return f"{self._name}: the same types as an entry that was evicted (cache_size={self._cache_size})"

    # -- inspection

    @property
    def stats(self):
        """`Stats(hits, misses, fallbacks, size)`."""
        return Stats(self._hits, self._misses, self._fallbacks, len(self._cache))

    def explain_miss(self):
        """Why the last call that missed the cache missed (None before any miss)."""
        return self._last_miss

    def lower(self, *args, **kwargs):
        """The optimised plan for these arguments, as text (traces without
        touching the cache)."""
        _, leaves, names, structure, statics = self._bind(args, kwargs)
        types = tuple((n, str(_plait.typing_type_of(x))) for n, x in zip(names, leaves))
        entry = self._trace(leaves, names, structure, statics, types)
        if entry.plan is _EAGER:
            return f"{self._name}: runs eagerly (it evaluates while being traced)"
        inputs = ", ".join(f"I._{k}: {t} ({n})" for k, (n, t) in enumerate(types))
        return f"inputs: {inputs}\nplan: {entry.plan.expr!r}"

    def clear_cache(self):
        """Forgets every cached plan (the counts stay)."""
        self._cache.clear()

    def __repr__(self):
        return f"kd.compile({self._name})"


def _describe(structure):
    def tree(t):
        kind = t[0]
        if kind == "leaf":
            return "DataSlice"
        if kind == "none":
            return "None"
        if kind == "dict":
            return "{" + ", ".join(f"{k!r}: {tree(c)}" for k, c in zip(t[1], t[2])) + "}"
        inner = ", ".join(tree(c) for c in t[2])
        return f"{t[1].__name__}({inner})" if kind == "named" else (f"({inner})" if kind == "tuple" else f"[{inner}]")

    return "(" + ", ".join(f"{n}={tree(t)}" for n, t in structure) + ")"


def _arrange(signature, arguments):
    """Positional and keyword arguments for a call with these bound values."""
    args, kwargs = [], {}
    for name, p in signature.parameters.items():
        if name not in arguments:
            continue
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            args.append(arguments[name])
        elif p.kind == p.VAR_POSITIONAL:
            args.extend(arguments[name])
        elif p.kind == p.KEYWORD_ONLY:
            kwargs[name] = arguments[name]
        else:
            kwargs.update(arguments[name])
    return args, kwargs


def _functor_signature(fn):
    """The Python signature of functor `fn` (what a call binds to)."""
    from plait import kd

    params = kd.functor.get_signature(fn).parameters[:]
    out = []
    for i in range(params.get_size().to_py()):
        p = params.S[i]
        kind = getattr(inspect.Parameter, p.kind.kind.to_py().upper())
        default = p.default_value
        if default.get_schema().is_struct_schema() and kd.has_attr(default, "no_default_value"):
            default = inspect.Parameter.empty
        out.append(inspect.Parameter(p.name.to_py(), kind, default=default))
    return inspect.Signature(out)


def _mask(dims):
    """Dimensions `{d: name}` as the bits `compile_key` reads (bit d: dynamic)."""
    return None if dims is None else sum(1 << d for d in dims)


def _dynamic_by_name(dynamic_dims, params, name):
    """`dynamic_dims` (by position or name) as {parameter name: {dim: name}}."""
    if not isinstance(dynamic_dims, dict):
        raise TypeError(f"kd.compile: dynamic_dims must be a dict {{argument: {{dim: 'name'}}}}, got {type(dynamic_dims).__name__}")
    out = {}
    for arg, dims in dynamic_dims.items():
        if isinstance(arg, int) and not isinstance(arg, bool):
            if not 0 <= arg < len(params) or params[arg].kind not in (inspect.Parameter.POSITIONAL_ONLY,
                                                                     inspect.Parameter.POSITIONAL_OR_KEYWORD):
                raise ValueError(f"kd.compile: dynamic_dims names argument {arg}, which is not a positional parameter of {name}")
            arg = params[arg].name
        elif not isinstance(arg, str) or arg not in {p.name for p in params}:
            raise ValueError(f"kd.compile: dynamic_dims names argument {arg!r}, which is not a parameter of {name}")
        if not isinstance(dims, dict) or not all(isinstance(d, int) and not isinstance(d, bool) and 0 <= d < 64 and isinstance(n, str)
                                                 for d, n in dims.items()):
            raise ValueError(f"kd.compile: dynamic_dims[{arg!r}] must map dimensions (ints from 0 to 63) to names, got {dims!r}")
        out[arg] = dict(dims)
    return out


def compile(fn=None, *, dynamic_dims=None, static_argnames=(), fullgraph=False, cache_size=64):  # noqa: A001 - the transform's name
    """Returns `fn` compiled: traced once per abstract signature, its plan optimised and cached.

    A call looks up its key — the function, each DataSlice argument's
    schema and dimensions (`dynamic_dims` by name only), the static
    arguments' values and the structure of tuples, lists and dicts of
    arguments — among the last `cache_size` keys. On a hit the cached plan
    runs on the arguments' values; on a miss `fn` is traced (once, with an
    expression for each DataSlice) into a plan where chains of elementwise
    operators run in one pass with no intermediate slice, shared
    subexpressions run once and constants are folded. Results are the
    eager ones. Values `fn` returns that are not computed (strings, ints)
    are kept and returned as they are.

    A function that evaluates something while traced (`.to_py()` of an
    argument, an eager operator) cannot be one plan: with `fullgraph=True`
    that is a RuntimeError; otherwise a warning, and such calls run `fn`
    eagerly (counted in `stats.fallbacks`).

    Args:
      fn: a Python function or a functor (omit it to use `kd.compile(...)`
        as a decorator with options).
      dynamic_dims: `{argument: {dimension: 'name'}}`, arguments by position
        or name: those dimensions may change size (row sizes too, for a
        ragged one) without a new trace.
      static_argnames: parameters whose values are part of the key, passed
        to `fn` as they are (they must be hashable).
      fullgraph: whether an evaluation while tracing is an error.
      cache_size: how many plans are kept (the least recently used goes).

    Examples:
      >>> f = kd.compile(lambda x, y: (x + y) * 2 - 1)
      >>> f(kd.slice([1, 2]), kd.slice([3, 4]))
      DataSlice([7, 11], schema: INT32, present: 2/2)
      >>> f(kd.slice([5, 6]), kd.slice([7, 8]))
      DataSlice([23, 27], schema: INT32, present: 2/2)
      >>> f.stats
      Stats(hits=1, misses=1, fallbacks=0, size=1)
      >>> @kd.compile(dynamic_dims={0: {0: 'batch'}})
      ... def g(x):
      ...   return kd.agg_sum(x) + 1
      >>> g(kd.slice([[1, 2], [3]])); g(kd.slice([[1], [2], [3, 4]])); g.stats.misses
      DataSlice([4, 4], schema: INT32, present: 2/2)
      DataSlice([2, 3, 8], schema: INT32, present: 3/3)
      1
    """
    if fn is None:
        return lambda f: CompiledFunction(f, dynamic_dims, static_argnames, fullgraph, cache_size)
    return CompiledFunction(fn, dynamic_dims, static_argnames, fullgraph, cache_size)
