"""Control flow over functors (`kd.functor.if_`, `map`, `while_`, `for_`,
`reduce`, `flat_map_chain`, `flat_map_interleaved`).

Eagerly these run now; inside tracing each becomes a Python-function
operator node, so the functor decides at evaluation which functors to call
(Python `if` and `for` in a traced function run once, at tracing).
"""

from plait import _plait
from plait.kd import progress
from plait.kd._operators import unspecified
from plait.kd.iterables import Iterable
from plait.kd.tuples import NamedTuple

__all__ = ["flat_map_chain", "flat_map_interleaved", "for_", "if_", "map", "reduce", "while_"]


def _kd():
    from plait import kd

    return kd


def _call(fn, *args, **kwargs):
    """Calls a functor (or a Python function)."""
    if _plait.is_functor(fn):
        return _plait.functor_call(fn, *args, **kwargs)
    if callable(fn) and not isinstance(fn, _plait.DataSlice):
        return fn(*args, **kwargs)
    raise TypeError(f"expected a functor, got {fn!r}")


def _is_present_mask_item(op, cond):
    kd = _kd()
    if not isinstance(cond, kd.types.DataSlice) or not cond.is_item() or str(cond.get_schema()) != "MASK":
        raise ValueError(f"the condition in {op} must be a MASK scalar")
    return cond.get_present_count().to_py() == 1


def if_(cond, yes_fn, no_fn, *args, return_type_as=None, **kwargs):
    """Calls `yes_fn` when `cond` (a MASK DataItem) is present, else `no_fn`,
    with the remaining arguments."""
    del return_type_as
    return _call(yes_fn if _is_present_mask_item("kd.if_", cond) else no_fn, *args, **kwargs)


def map(fn, *args, include_missing=False, **kwargs):  # noqa: A001 - Koda's name
    """Calls the functors in `fn` (a functor, or a slice of functors
    aligned with the arguments) on each item of the arguments; missing where
    the functor is, or an argument is (unless `include_missing`)."""
    from plait.kd.py import _as_slice, _int, _results_slice

    kd = _kd()
    include_missing = bool(_int(include_missing))
    names = list(kwargs)
    values = [fn] + [_as_slice(a) for a in args] + [_as_slice(kwargs[k]) for k in names]
    aligned = kd.align(*values)
    flat = [a.flatten() for a in aligned]
    fns, columns = list(flat[0].L), [list(f.L) for f in flat[1:]]
    presence = [[p is not None for p in (kd.item(True) & kd.has(f)).to_py()] for f in flat]
    n_args = len(args)
    results = []
    with progress.bar(len(fns), "kd.map") as bar:
        for i, f in enumerate(fns):
            bar.update()
            if not presence[0][i] or (not include_missing and not all(p[i] for p in presence[1:])):
                results.append(None)
                continue
            row = [c[i] for c in columns]
            results.append(_call(f, *row[:n_args], **dict(zip(names, row[n_args:]))))
    return _results_slice(results, None).reshape(aligned[0].get_shape())


def _fields(op, result):
    """The state updates a body returned (a named tuple or a dict)."""
    if isinstance(result, NamedTuple):
        return dict(result.items())
    if isinstance(result, dict):
        return result
    raise TypeError(f"{op}: the body must return a named tuple of updated variables (kd.namedtuple(...)), got {result!r}")


def _result_var(op, returns, yields, yields_interleaved):
    given = [(name, v) for name, v in (("returns", returns), ("yields", yields), ("yields_interleaved", yields_interleaved))
             if v is not unspecified]
    if len(given) != 1:
        raise ValueError(f"{op}: exactly one of `returns`, `yields`, `yields_interleaved` must be specified")
    return given[0]


def _apply(op, state, updates, result_name):
    for name, value in _fields(op, updates).items():
        if name not in state:
            raise ValueError(f"{op}: the body returned an unknown variable '{name}'")
        if result_name in ("yields", "yields_interleaved") and name == result_name:
            state["_yielded"].append(value)
        else:
            state[name] = value


def _finish(state, result_name):
    if result_name == "returns":
        return state["returns"]
    from plait.kd.iterables import chain

    return chain(state[result_name], *state["_yielded"])


def _loop_state(initial_state, result_name, result_value):
    state = dict(initial_state)
    state[result_name] = result_value
    state["_yielded"] = []
    return state


def _visible(state):
    return {k: v for k, v in state.items() if k != "_yielded"}


def while_(condition_fn, body_fn, *, returns=unspecified, yields=unspecified, yields_interleaved=unspecified,
           **initial_state):
    """While `condition_fn(**state)` is present, `body_fn(**state)` returns
    a named tuple of updated variables; the result is `returns` (or the
    chained `yields`)."""
    op = "kd.functor.while_"
    result_name, result_value = _result_var(op, returns, yields, yields_interleaved)
    state = _loop_state(initial_state, result_name, result_value)
    while _is_present_mask_item(op, _call(condition_fn, **_visible(state))):
        _apply(op, state, _call(body_fn, **_visible(state)), result_name)
    return _finish(state, result_name)


def for_(iterable, body_fn, *, finalize_fn=unspecified, condition_fn=unspecified, returns=unspecified,
         yields=unspecified, yields_interleaved=unspecified, **initial_state):
    """For each item of `iterable` (while `condition_fn(**state)` is
    present), `body_fn(item, **state)` returns a named tuple of updated
    variables; `finalize_fn(**state)` runs after the last item."""
    op = "kd.functor.for_"
    if not isinstance(iterable, Iterable):
        raise TypeError(f"{op}: expected an iterable (kd.iterables.make(...)), got {type(iterable).__name__}")
    result_name, result_value = _result_var(op, returns, yields, yields_interleaved)
    state = _loop_state(initial_state, result_name, result_value)
    for item in iterable:
        if condition_fn is not unspecified and not _is_present_mask_item(op, _call(condition_fn, **_visible(state))):
            break
        _apply(op, state, _call(body_fn, item, **_visible(state)), result_name)
    if finalize_fn is not unspecified:
        _apply(op, state, _call(finalize_fn, **_visible(state)), result_name)
    return _finish(state, result_name)


def reduce(fn, items, initial_value):  # noqa: A001 - Koda's name
    """`fn(...fn(fn(initial_value, items[0]), items[1])...)`."""
    if not isinstance(items, Iterable):
        raise TypeError(f"kd.functor.reduce: expected an iterable, got {type(items).__name__}")
    out = initial_value
    for item in items:
        out = _call(fn, out, item)
    return out


def flat_map_chain(iterable, fn, value_type_as=None):
    """The iterables `fn(item)` returns, chained in order."""
    from plait.kd.iterables import chain

    del value_type_as
    return chain(*[_call(fn, item) for item in iterable])


def flat_map_interleaved(iterable, fn, value_type_as=None):
    """The iterables `fn(item)` returns, interleaved."""
    from plait.kd.iterables import interleave

    del value_type_as
    return interleave(*[_call(fn, item) for item in iterable])
