"""Control flow over functors (`kd.functor.if_`, `map`, `while_`, `for_`,
`reduce`, `flat_map_chain`, `flat_map_interleaved`).

Eagerly these run now; inside tracing each becomes a Python-function
operator node, so the functor decides at evaluation which functors to call
(Python `if` and `for` in a traced function run once, at tracing).
"""

import functools
import types

from plait import _plait
from plait.kd import progress
from plait.kd._operators import unspecified
from plait.kd.iterables import Iterable
from plait.kd.tuples import NamedTuple

__all__ = ["flat_map_chain", "flat_map_interleaved", "for_", "if_", "map", "reduce", "while_"]


def _kd():
    from plait import kd

    return kd


def _functor(fn):
    """As Koda boxes a Python function (or `functools.partial`): a functor
    traced from it (`kd.trace_py_fn`). Other values are returned as they are.

    Traced on every call, as Koda does: a function reading globals that
    change must see them change. (Functors that call `kd.if_` with lambdas
    pay this per evaluation; tracing them into the functor would not.)"""
    if not isinstance(fn, (types.FunctionType, functools.partial)):
        return fn
    from plait.kd.functor import trace_py_fn

    return trace_py_fn(fn)


def _boxed(value):
    """As Koda boxes a Python value passed to an operator: scalars become
    DataItems, Python functions functors."""
    if isinstance(value, (bool, int, float, str, bytes, type(None))):
        return _kd().item(value)
    return _functor(value)


def _call(fn, *args, **kwargs):
    """Calls a functor (or a Python function)."""
    if _plait.is_functor(fn):
        return _plait.functor_call(fn, *args, **kwargs)
    if callable(fn) and not isinstance(fn, _plait.DataSlice):
        return fn(*args, **kwargs)
    raise TypeError(f"expected a functor, got {fn!r}")


def _is_present_mask_item(cond, message):
    if not isinstance(cond, _plait.DataSlice) or not cond.is_item() or str(cond.get_schema()) != "MASK":
        raise ValueError(message)
    return cond.get_present_count().to_py() == 1


def if_(cond, yes_fn, no_fn, *args, return_type_as=None, **kwargs):
    """Calls `yes_fn` if `cond` is present and `no_fn` otherwise.

    `cond` must be a MASK DataItem (a ValueError is raised otherwise); the
    other arguments are passed to the chosen functor and its result is
    returned. Only the chosen functor is called. As in Koda, a Python function
    is traced into a functor (`kd.fn`) and Python values are boxed.

    Args:
      cond: a MASK DataItem.
      yes_fn: the functor to call when `cond` is present.
      no_fn: the functor to call when `cond` is missing.
      *args: positional arguments for the functor.
      return_type_as: accepted for compatibility with Koda; not used by plait.
      **kwargs: keyword arguments for the functor.

    Examples:
      >>> kd.if_(kd.present, kd.fn(I.x + 1), kd.fn(I.x - 1), x=5)
      DataItem(6, schema: INT32)
      >>> x = kd.item(1)
      >>> kd.if_(x > 2, kd.fn(lambda x: x + 1), kd.fn(lambda x: x - 1), x)
      DataItem(0, schema: INT32)
    """
    del return_type_as
    fn = yes_fn if _is_present_mask_item(cond, "the condition in kd.if_ must be a MASK scalar") else no_fn
    return _call(_functor(fn), *[_boxed(a) for a in args], **{k: _boxed(v) for k, v in kwargs.items()})


def map(fn, *args, include_missing=False, **kwargs):  # noqa: A001 - Koda's name
    """Calls the functor `fn` on each item of the arguments and returns the results.

    The arguments (and `fn`, which may be a DataSlice of functors) are aligned
    to a common shape, and the result has that shape. An item is missing where
    the functor is missing, or where an argument is missing unless
    `include_missing` is true (then the functor receives the missing item).
    The result has the common schema of the results (an error is raised if
    they have none). A Python function is traced into a functor (`kd.fn`), as
    Koda does.

    Args:
      fn: a functor, or a DataSlice of functors.
      *args: positional arguments, one item of each per call.
      include_missing: whether to call the functor for missing items of the
        arguments.
      **kwargs: keyword arguments, one item of each per call.

    Examples:
      >>> kd.map(kd.fn(lambda x: x * 2), kd.slice([1, 2, None]))
      DataSlice([2, 4, None], schema: INT32, present: 2/3)
      >>> fns = kd.slice([kd.fn(I.x + 1), kd.fn(I.x * 10)])
      >>> kd.map(fns, x=kd.slice([5, 6]))
      DataSlice([6, 60], schema: INT32, present: 2/2)
      >>> kd.map(kd.fn(lambda x: x | 0), kd.slice([1, None]), include_missing=True)
      DataSlice([1, 0], schema: INT32, present: 2/2)
      >>> kd.map(lambda x: kd.str(x), kd.slice([1, 2]))
      DataSlice(['1', '2'], schema: STRING, present: 2/2)
    """
    from plait.kd.py import _as_slice, _int

    kd = _kd()
    include_missing = bool(_int(include_missing))
    names = list(kwargs)
    values = [_as_slice(_functor(fn))] + [_as_slice(a) for a in args] + [_as_slice(kwargs[k]) for k in names]
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
            result = _boxed(_call(f, *row[:n_args], **dict(zip(names, row[n_args:]))))
            if not result.is_item():
                raise ValueError("kd.functor.map: the functor is expected to be evaluated to a DataItem, but the "
                                 f"result has shape: {result.get_shape()!r}")
            results.append(result)
    try:
        # The results' common schema, as Koda's.
        out = kd.slice(results)
    except ValueError as error:
        raise ValueError(f"kd.functor.map: {str(error).removeprefix('kd.slice: ')}") from None
    return out.reshape(aligned[0].get_shape())


def _fields(op, fn_name, result):
    """The state updates a body returned (a named tuple or a dict)."""
    if isinstance(result, NamedTuple):
        return dict(result.items())
    if isinstance(result, dict):
        return result
    raise ValueError(f"{op}: {fn_name} must return a namedtuple, got type `{_type_name(result)}`")


def _type_name(value):
    return "DATA_SLICE" if isinstance(value, _plait.DataSlice) else type(value).__name__


def _result_var(op, returns, yields, yields_interleaved):
    given = [(name, v) for name, v in (("returns", returns), ("yields", yields), ("yields_interleaved", yields_interleaved))
             if v is not unspecified]
    if len(given) != 1:
        raise ValueError(f"{op}: exactly one of `returns`, `yields`, `yields_interleaved` must be specified")
    return given[0]


def _loop_state(initial_state, result_name, result_value):
    """The loop variables (Python values boxed) and the list of iterables to
    yield: as in Koda, `yields` / `yields_interleaved` is not passed to the
    functors, only set by them."""
    state = {name: _boxed(value) for name, value in initial_state.items()}
    if result_name == "returns":
        state["returns"] = _boxed(result_value)
        return state, []
    return state, [result_value]


def _apply(op, fn_name, state, yielded, updates, result_name):
    for name, value in _fields(op, fn_name, updates).items():
        if name == result_name and name != "returns":
            if not isinstance(value, Iterable):
                raise ValueError(f"{op}: expected `{name}` value to have type `ITERABLE[DATA_SLICE]`, got "
                                 f"`{_type_name(value)}`")
            yielded.append(value)
        elif name in state:
            state[name] = value
        else:
            raise ValueError(f"{op}: {fn_name} must return a namedtuple with field names that are a subset of the "
                             f"state variable names, got an unknown field: `{name}`")


def _finish(state, yielded, result_name):
    if result_name == "returns":
        return state["returns"]
    from plait.kd.iterables import chain

    return chain(*yielded)


def _condition(op, cond):
    """Whether the MASK DataItem `condition_fn` returned is present."""
    return _is_present_mask_item(cond, f"{op}: condition_fn must return a MASK DataItem, got {cond!r}")


def while_(condition_fn, body_fn, *, returns=unspecified, yields=unspecified, yields_interleaved=unspecified,
           **initial_state):
    """Runs `body_fn` while `condition_fn` is present, and returns the loop's result.

    The loop variables are `initial_state` and `returns`. Each round,
    `condition_fn` is called with the state as keyword arguments and must
    return a MASK DataItem; while it is present, `body_fn` (called the same way)
    returns a `kd.namedtuple` of the variables it changes. Exactly one of
    `returns`, `yields` and `yields_interleaved` must be given; with `returns`
    its final value is the result, with `yields` the result is its initial
    iterable followed by every iterable the body returned as `yields` (the
    functors are not passed `yields`). As in Koda, Python functions are traced
    into functors (`kd.fn`) and Python values are boxed.

    Args:
      condition_fn: a functor of the state returning a MASK DataItem.
      body_fn: a functor of the state returning a named tuple of updates.
      returns: the initial value of the result variable.
      yields: an initial iterable, chained with the ones the body yields.
      yields_interleaved: as `yields`, but the iterables may be interleaved.
      **initial_state: the other loop variables and their initial values.

    Examples:
      >>> cond = kd.fn(lambda n, returns: n > 0)
      >>> body = kd.fn(lambda n, returns: kd.namedtuple(n=n - 1, returns=returns * n))
      >>> kd.while_(cond, body, n=5, returns=1)
      DataItem(120, schema: INT32)
      >>> res = kd.while_(lambda n: n > 0, lambda n: kd.namedtuple(n=n - 1, yields=kd.iterables.make(n)),
      ...                 n=3, yields=kd.iterables.make())
      >>> [x.to_py() for x in res]
      [3, 2, 1]
    """
    op = "kd.functor.while_"
    condition_fn, body_fn = _functor(condition_fn), _functor(body_fn)
    result_name, result_value = _result_var(op, returns, yields, yields_interleaved)
    state, yielded = _loop_state(initial_state, result_name, result_value)
    while _condition(op, _call(condition_fn, **state)):
        _apply(op, "body_fn", state, yielded, _call(body_fn, **state), result_name)
    return _finish(state, yielded, result_name)


def for_(iterable, body_fn, *, finalize_fn=unspecified, condition_fn=unspecified, returns=unspecified,
         yields=unspecified, yields_interleaved=unspecified, **initial_state):
    """Runs `body_fn` on each item of an iterable, and returns the loop's result.

    `body_fn` is called with the item (positionally) and the loop variables
    (`initial_state` and `returns`) as keyword arguments, and returns a
    `kd.namedtuple` of the variables it changes. When
    `condition_fn` is given, the loop stops as soon as it is missing.
    `finalize_fn` (if given) runs once after the last item, unless
    `condition_fn` stopped the loop, and may update the state too. Exactly one
    of `returns`, `yields` and `yields_interleaved` must be given, as in
    `kd.while_`.

    Args:
      iterable: the items to loop over (`kd.iterables.make(...)`).
      body_fn: a functor of the item and the state returning a named tuple of
        updates.
      finalize_fn: an optional functor of the state run after the last item
        (if `condition_fn` is still present).
      condition_fn: an optional functor of the state returning a MASK DataItem;
        the loop continues while it is present.
      returns: the initial value of the result variable.
      yields: an initial iterable, chained with the ones the body yields.
      yields_interleaved: as `yields`, but the iterables may be interleaved.
      **initial_state: the other loop variables and their initial values.

    Examples:
      >>> body = kd.fn(lambda x, returns: kd.namedtuple(returns=returns + x))
      >>> kd.for_(kd.iterables.make(1, 2, 3), body, returns=0)
      DataItem(6, schema: INT32)
      >>> kd.for_(kd.iterables.make(1, 2, 3, 4), body, returns=0,
      ...         condition_fn=kd.fn(lambda returns: returns < 3))
      DataItem(3, schema: INT32)
      >>> kd.for_(kd.iterables.make(1, 2, 3), body, returns=0,
      ...         finalize_fn=kd.fn(lambda returns: kd.namedtuple(returns=returns * 100)))
      DataItem(600, schema: INT32)
      >>> res = kd.for_(kd.iterables.make(1, 2), lambda x: kd.namedtuple(yields=kd.iterables.make(x * 10)),
      ...               yields=kd.iterables.make())
      >>> [x.to_py() for x in res]
      [10, 20]
    """
    op = "kd.functor.for_"
    if not isinstance(iterable, Iterable):
        raise TypeError(f"{op}: expected an iterable (kd.iterables.make(...)), got {type(iterable).__name__}")
    body_fn, finalize_fn, condition_fn = _functor(body_fn), _functor(finalize_fn), _functor(condition_fn)
    result_name, result_value = _result_var(op, returns, yields, yields_interleaved)
    state, yielded = _loop_state(initial_state, result_name, result_value)

    def go_on():
        return condition_fn is unspecified or _condition(op, _call(condition_fn, **state))

    for item in iterable:
        if not go_on():
            break
        _apply(op, "body_fn", state, yielded, _call(body_fn, item, **state), result_name)
    else:
        # As in Koda, the condition is checked before `finalize_fn` too.
        if finalize_fn is not unspecified and go_on():
            _apply(op, "finalize_fn", state, yielded, _call(finalize_fn, **state), result_name)
    return _finish(state, yielded, result_name)


def reduce(fn, items, initial_value):  # noqa: A001 - Koda's name
    """Folds the items of an iterable with `fn`, starting from `initial_value`.

    The result is `fn(...fn(fn(initial_value, items[0]), items[1])..., items[-1])`;
    `fn` is called with the accumulated value and the next item as positional
    arguments. As in Koda, a Python function is traced into a functor
    (`kd.fn`) and a Python `initial_value` is boxed.

    Args:
      fn: a functor of two positional arguments.
      items: an iterable (`kd.iterables.make(...)`).
      initial_value: the starting value.

    Examples:
      >>> kd.functor.reduce(kd.fn(lambda acc, x: acc * 10 + x), kd.iterables.make(1, 2, 3), 0)
      DataItem(123, schema: INT32)
      >>> kd.functor.reduce(lambda acc, x: acc + x, kd.iterables.make(), 0)
      DataItem(0, schema: INT32)
    """
    if not isinstance(items, Iterable):
        raise TypeError(f"kd.functor.reduce: expected an iterable, got {type(items).__name__}")
    fn, out = _functor(fn), _boxed(initial_value)
    for item in items:
        out = _call(fn, out, item)
    return out


def flat_map_chain(iterable, fn, value_type_as=None):
    """Calls `fn` on each item of an iterable and chains the iterables it returns, in order.

    Args:
      iterable: the input iterable.
      fn: a functor that takes one item and returns an iterable.
      value_type_as: accepted for compatibility with Koda; not used by plait.

    Examples:
      >>> res = kd.functor.flat_map_chain(kd.iterables.make(1, 2),
      ...                                 kd.fn(lambda x: kd.iterables.make(x, x * 10)))
      >>> [x.to_py() for x in res]
      [1, 10, 2, 20]
    """
    from plait.kd.iterables import chain

    del value_type_as
    return chain(*[_call(fn, item) for item in iterable])


def flat_map_interleaved(iterable, fn, value_type_as=None):
    """Calls `fn` on each item of an iterable and interleaves the iterables it returns.

    The order of the result is not specified (plait takes one item of each
    iterable in turn), but the items of one returned iterable keep their order.

    Args:
      iterable: the input iterable.
      fn: a functor that takes one item and returns an iterable.
      value_type_as: accepted for compatibility with Koda; not used by plait.

    Examples:
      >>> res = kd.functor.flat_map_interleaved(kd.iterables.make(1, 2),
      ...                                       kd.fn(lambda x: kd.iterables.make(x, x * 10)))
      >>> sorted(x.to_py() for x in res)
      [1, 2, 10, 20]
    """
    from plait.kd.iterables import interleave

    del value_type_as
    return interleave(*[_call(fn, item) for item in iterable])
