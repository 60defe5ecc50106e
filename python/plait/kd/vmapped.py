"""`kd.vmap`: a function written for one example, run over a batch at once
(seed 003, "Vmap: Automatic Vectorization"). See docs/vmap.md.

The batch dimensions always lead (prefix semantics): `in_axes` says which
arguments are batched (their first dimension, which may be jagged below
it); the function is traced once and its expression rewritten in Rust
(`_plait.vmap_expr`, `plait_expr::vmap`) so that every operator acts per
example — `kd.sum` sums each example, `kd.index(x, dim=0)` indexes each
example's first dimension — while running as one vectorised evaluation.
"""

import functools
import inspect

from plait import _plait
from plait.kd import expr as _expr

_DataSlice = _plait.DataSlice
_Expr = _plait.Expr


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _same_kind(x, items):
    """A tuple, named tuple or list like `x`, holding `items`."""
    return type(x)(*items) if _is_namedtuple(x) else type(x)(items)


def _leaves(x, axes, path, out):
    """Appends `(path, value, axis)` for each DataSlice or expression of
    argument `x`, whose `in_axes` spec is `axes` (matched by prefix: an int
    or None applies to everything below)."""
    if isinstance(axes, (tuple, list)) and isinstance(x, (tuple, list)) and not _is_namedtuple(axes):
        if len(axes) != len(x):
            raise ValueError(f"kd.vmap: in_axes for {path} has {len(axes)} entries, but the argument has {len(x)}")
        return _same_kind(x, [_leaves(v, a, f"{path}[{i}]", out) for i, (v, a) in enumerate(zip(x, axes))])
    if isinstance(axes, dict):
        if not isinstance(x, dict) or set(axes) - set(x):
            raise ValueError(f"kd.vmap: in_axes for {path} is a dict with keys {sorted(axes)}, which the argument does not have")
        return {key: _leaves(v, axes.get(key, 0), f"{path}[{key!r}]", out) for key, v in x.items()}
    if axes is not None and (isinstance(axes, bool) or not isinstance(axes, int)):
        raise ValueError(f"kd.vmap: in_axes entries must be ints, None, or tuples / dicts of them; got {axes!r} for {path}")
    if _is_namedtuple(x) or isinstance(x, (tuple, list)):
        return _same_kind(x, [_leaves(v, axes, f"{path}[{i}]", out) for i, v in enumerate(x)])
    if isinstance(x, dict):
        return {key: _leaves(v, axes, f"{path}[{key!r}]", out) for key, v in x.items()}
    if isinstance(x, (_DataSlice, _Expr)) or x is None or isinstance(x, (bool, int, float, str, bytes)):
        if not isinstance(x, (_DataSlice, _Expr)):
            if axes is not None:
                from plait import kd

                x = kd.item(x)
            else:
                return x  # a Python value, not mapped: passed as it is
        index = len(out)
        out.append((path, x, axes))
        return _expr.I[f"_{index}"]
    raise TypeError(f"kd.vmap: argument {path} is a {type(x).__name__}; vmap maps over DataSlices (and tuples, lists and "
                    "dicts of them)")


def _move_dim(x, source, dest, path, what):
    """`x` with its dimension `source` moved to `dest` (the dimensions up to
    both uniform)."""
    from plait import kd

    rank = x.get_ndim().to_py()
    source, dest = (d + rank if d < 0 else d for d in (source, dest))
    if not (0 <= source < rank and 0 <= dest < rank):
        raise ValueError(f"kd.vmap: {what}={dest if source == 0 else source} for {path}, which has rank {rank}")
    if source == dest:
        return x
    last = max(source, dest)
    sizes = kd.shapes.get_sizes(x).to_py()
    lead = []
    for d in range(last + 1):
        row = sizes[d]
        if len(set(row)) > 1:
            raise ValueError(f"kd.vmap: {what} for {path}: dimension {d} is jagged, so dimension {source} cannot be moved "
                             f"to {dest} (map over a jagged dimension from the front, with in_axes=0 / out_axes=0)")
        lead.append(row[0] if row else 0)
    import numpy as np

    rest = rank - last - 1
    units = kd.flatten(kd.implode(x, ndim=rest) if rest else x)
    order = np.moveaxis(np.arange(int(np.prod(lead))).reshape(lead), source, dest)
    moved = kd.take(units, kd.slice(order.reshape(-1).tolist()))
    moved = kd.reshape(moved, kd.shapes.new(*order.shape))
    if rest:
        # The lists were a means: the result has `x`'s bag, or none.
        moved = kd.explode(moved, ndim=rest)
        moved = moved.with_bag(x.get_bag()) if x.has_bag() else moved.no_bag()
    return moved


class VmappedFunction:
    """A function vectorised by `kd.vmap`: call it with batched arguments."""

    def __init__(self, fn, in_axes, out_axes, axis_size):
        from plait import kd

        self._is_functor = isinstance(fn, _DataSlice) and bool(kd.is_fn(fn))
        if not self._is_functor and not callable(fn):
            raise TypeError(f"kd.vmap: expected a Python function or a functor, got {type(fn).__name__}")
        if out_axes is not None and (isinstance(out_axes, bool) or not isinstance(out_axes, int)):
            raise ValueError(f"kd.vmap: out_axes must be an int or None, got {out_axes!r}")
        if axis_size is not None and (isinstance(axis_size, bool) or not isinstance(axis_size, int) or axis_size < 0):
            raise ValueError(f"kd.vmap: axis_size must be a non-negative int, got {axis_size!r}")
        self._fn = fn
        self.__plait_fn__ = fn
        self._in_axes = in_axes
        self._out_axes = out_axes
        self._axis_size = axis_size
        self._name = getattr(fn, "__qualname__", None) or ("functor" if self._is_functor else repr(fn))
        self._positional = _positional_names(fn)
        if not self._is_functor:
            functools.update_wrapper(self, fn, updated=())

    def _call_function(self, args, kwargs):
        if self._is_functor:
            from plait import kd

            return kd.call(self._fn, *args, **kwargs)
        return self._fn(*args, **kwargs)

    def __call__(self, *args, **kwargs):
        from plait import kd

        in_axes = self._in_axes
        names = [self._positional[i] if i < len(self._positional) else f"args[{i}]" for i in range(len(args))]
        if isinstance(in_axes, (tuple, list)):
            if len(in_axes) != len(args):
                raise ValueError(f"kd.vmap: in_axes has {len(in_axes)} entries for {len(args)} positional arguments of "
                                 f"{self._name}")
            specs, by_name = list(in_axes), {}
        elif isinstance(in_axes, dict):
            if not all(isinstance(k, str) for k in in_axes):
                raise ValueError(f"kd.vmap: in_axes as a dict maps argument names to specs, got keys {list(in_axes)}")
            specs, by_name = [in_axes.get(n, 0) for n in names], in_axes
        else:
            specs, by_name = [in_axes] * len(args), {}
        found = []
        leaf_args = [_leaves(a, s, n, found) for a, s, n in zip(args, specs, names)]
        leaf_kwargs = {k: _leaves(v, by_name.get(k, 0), k, found) for k, v in kwargs.items()}
        tracing = _plait.is_tracing()
        batched, values = [], []
        sizes = {}
        for k, (path, value, axis) in enumerate(found):
            if axis is not None:
                if not tracing:
                    if value.get_ndim().to_py() == 0:
                        raise ValueError(f"kd.vmap: argument {path} is a DataItem (rank 0): it has no dimension to map "
                                         "over (give it in_axes=None to pass it to every example)")
                    value = _move_dim(value, axis, 0, path, "in_axes")
                    sizes[path] = kd.shapes.size(value.get_shape()[:1]).to_py()
                elif axis != 0:
                    raise ValueError("kd.vmap: inside a traced function, in_axes must be 0 or None")
                batched.append(f"_{k}")
            values.append(value)
        if len(set(sizes.values())) > 1:
            shown = ", ".join(f"{p}: {n}" for p, n in sizes.items())
            raise ValueError(f"kd.vmap: the batched arguments of {self._name} have different batch sizes ({shown})")
        size = next(iter(sizes.values()), None)
        if self._axis_size is not None and size is not None and size != self._axis_size:
            raise ValueError(f"kd.vmap: axis_size={self._axis_size}, but the batched arguments have batch size {size}")
        if not batched and self._axis_size is None:
            raise ValueError(f"kd.vmap: no argument of {self._name} is batched (all in_axes are None): give axis_size")
        with _expr.tracing():
            out = self._call_function(leaf_args, leaf_kwargs)
        return self._finish(out, batched, values, size if size is not None else self._axis_size, tracing)

    def _finish(self, out, batched, values, size, tracing):
        from plait import kd

        single = isinstance(out, (_Expr, _DataSlice))
        outputs = [out] if single else (list(out) if isinstance(out, (tuple, list)) else None)
        if outputs is None:
            raise TypeError(f"kd.vmap: {self._name} returned a {type(out).__name__}; vmap returns DataSlices or tuples of them")
        results = []
        for o in outputs:
            rewritten, is_batched = _plait.vmap_expr(_expr.as_expr(o), batched, 1)
            if self._out_axes is None and is_batched:
                raise ValueError(f"kd.vmap: out_axes=None, but an output of {self._name} depends on the batched arguments")
            if self._out_axes is not None and not is_batched:
                # The same value for every example.
                rewritten = _plait.expr_call("kd.slices.expand_to", rewritten, _batch_of(batched, size, tracing),
                                             _plait.expr_call("kd.slices.get_ndim", rewritten))
            if tracing:
                if self._out_axes:
                    raise ValueError("kd.vmap: inside a traced function, out_axes must be 0 or None")
                results.append(_expr.sub_inputs(rewritten, **{f"_{k}": v for k, v in enumerate(values)}))
            else:
                value = kd.eval(rewritten, **{f"_{k}": v for k, v in enumerate(values)})
                results.append(_move_dim(value, 0, self._out_axes, "the result", "out_axes") if self._out_axes else value)
        if single:
            return results[0]
        return _same_kind(out, results)


def _batch_of(batched, size, tracing):
    """An expression of a slice with the batch dimension alone."""
    if batched:
        first = _expr.I[batched[0]]
        ndim = _plait.expr_call("kd.math.subtract", _plait.expr_call("kd.slices.get_ndim", first), _expr.as_expr(1))
        return _plait.expr_call("kd.masking.agg_has", first, ndim)
    from plait import kd

    return _expr.as_expr(kd.present_shaped(kd.shapes.new(size)))


def _positional_names(fn):
    """The names of `fn`'s positional parameters (none known: empty)."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return []
    return [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


def vmap(fn=None, in_axes=0, out_axes=0, axis_size=None):
    """Returns `fn` vectorised: called with a batch, it computes `fn` for every example at once.

    `fn` is written for one example; the batch dimension leads each batched
    argument (and may be jagged: examples of different sizes need no
    padding). Inside, every operation sees one example: `x.get_ndim()`,
    `kd.sum(x)`, `kd.index(x, dim=0)`, aggregations, `kd.select`, attributes
    act per example, while the function is traced once and runs as one
    vectorised evaluation. Nested vmaps map over further leading dimensions.

    Args:
      fn: a Python function or a functor (omit it to use `kd.vmap(...)` as a
        decorator with options).
      in_axes: for each positional argument (an int or None for all of them,
        a tuple with one spec per argument, a dict by argument name for
        keyword arguments; specs match nested tuples and dicts by prefix):
        the dimension to map over (moved to the front: the dimensions before
        it must be uniform), or None to give the argument whole to every
        example.
      out_axes: where the batch dimension goes in the outputs (0: first;
        None for outputs that do not depend on the batch).
      axis_size: the batch size when no argument is batched.

    Examples:
      >>> kd.vmap(lambda a, b: a + b, in_axes=(0, None))(kd.slice([[1, 2], [3, 4]]), kd.slice([10, 20]))
      DataSlice([[11, 22], [13, 24]], schema: INT32, present: 4/4)
      >>> kd.vmap(kd.sum)(kd.slice([[1, 2], [3], [4, 5, 6]]))
      DataSlice([3, 3, 15], schema: INT32, present: 3/3)
      >>> kd.vmap(lambda x: kd.index(x, dim=0))(kd.slice([[5, 6], [7]]))
      DataSlice([[0, 1], [0]], schema: INT64, present: 3/3)
      >>> kd.vmap(kd.vmap(kd.sum))(kd.slice([[[1, 2], [3]], [[4]]]))
      DataSlice([[3, 3], [4]], schema: INT32, present: 3/3)
    """
    if fn is None:
        return lambda f: VmappedFunction(f, in_axes, out_axes, axis_size)
    return VmappedFunction(fn, in_axes, out_axes, axis_size)
