"""`kd.py`: running Python functions over the items of DataSlices —
`map_py`, `map_py_on_cond`, `map_py_on_selected`, `apply_py`.

Arguments are aligned to one shape; primitive items reach the function as
Python values (converted a whole column at a time), entities, objects,
lists and dicts as DataItems, MASK items as `kd.present`. With `ndim=k` the
function gets the last `k` dimensions of each group as nested Python lists.
The results are assembled like `kd.from_py(..., from_dim=1)`: primitives in
one pass, Python lists as Koda lists, DataItems as they are.
"""

import concurrent.futures

from plait import _plait
from plait.kd import progress
from plait.kd.functor import apply_py

__all__ = ["apply_py", "map_py", "map_py_on_cond", "map_py_on_selected"]

_PRIMITIVE_TYPES = {bool, int, float, str, bytes, type(None)}


def _kd():
    from plait import kd

    return kd


def _check_fn(fn, name="fn", op="kd.map_py"):
    if not callable(fn) or isinstance(fn, _plait.DataSlice):
        raise ValueError(f"{op}: expected a python callable, got {name}: {type(fn).__name__}")


def _as_slice(x):
    kd = _kd()
    return x if isinstance(x, kd.types.DataSlice) else kd.item(x)


_PRIMITIVE_SCHEMAS = {"INT32", "INT64", "FLOAT32", "FLOAT64", "BOOLEAN", "STRING", "BYTES", "MASK", "NONE"}


def _python_values(flat):
    """The items of a flat slice as Python values for the function: a whole
    column at a time for primitives; DataItems for entities, objects, lists
    and dicts."""
    kd = _kd()
    schema = str(flat.get_schema())
    primitive = schema in _PRIMITIVE_SCHEMAS or (
        schema == "OBJECT" and kd.agg_count(kd.has_primitive(flat)).to_py() == kd.agg_count(flat).to_py())
    return flat.to_py() if primitive else list(flat.L)


def _groups(x, ndim):
    """`x`'s last `ndim` dimensions as nested Python lists, one per item of
    the leading dimensions, in order."""
    nested = x.to_py()
    leading = x.get_ndim().to_py() - ndim
    if leading == 0:
        return [nested]
    for _ in range(leading - 1):
        nested = [item for group in nested for item in group]
    return nested


def _results_slice(results, schema):
    """The results as a one-dimensional slice (`from_py` with `from_dim=1`:
    with `schema`, each result must fit it, as Koda says (a float is not
    cast to INT32); without, the schema is inferred from them, as Koda does:
    ints and INT32 items give INT32, entities their schema, Python lists
    lists)."""
    kd = _kd()
    if schema is None and set(map(type, results)) <= _PRIMITIVE_TYPES:
        return kd.slice(results)
    return kd.from_py(results, from_dim=1, schema=schema)


def _run(fn, rows, n_args, names, max_threads, item_completed_callback, bar=None):
    """`fn` on each row of arguments (`None` rows are skipped: missing), in
    threads when `max_threads > 1`; `item_completed_callback(result)` is
    called in this thread for each computed result, and `bar` (a progress
    bar) advanced for each row."""
    if names:
        def call(row):
            return None if row is None else fn(*row[:n_args], **dict(zip(names, row[n_args:])))
    elif n_args == 1:
        def call(row):
            return None if row is None else fn(row[0])
    else:
        def call(row):
            return None if row is None else fn(*row)
    if bar is not None:
        inner = call

        def call(row):  # noqa: F811 - the same call, counted
            result = inner(row)
            bar.update()
            return result

    if max_threads is not None and _int(max_threads) > 1:
        with concurrent.futures.ThreadPoolExecutor(max_workers=_int(max_threads)) as pool:
            results = list(pool.map(call, rows))
    else:
        results = [call(row) for row in rows]
    if item_completed_callback is not None:
        for row, result in zip(rows, results):
            if row is not None:
                item_completed_callback(result)
    return results


def _int(x):
    return x.to_py() if isinstance(x, _plait.DataSlice) else x


def _none(x):
    """Koda's `None` defaults arrive as DataItems in expressions."""
    if isinstance(x, _plait.DataSlice) and x.is_item() and x.get_present_count() == 0:
        return None
    return x


def map_py(fn, *args, schema=None, max_threads=1, ndim=0, include_missing=None, item_completed_callback=None,
           **kwargs):
    """`fn` applied to the items of `args` / `kwargs` (aligned); missing
    where an argument is missing unless `include_missing`.

    >>> kd.map_py(lambda x, y: x + y, kd.slice([[1, 2], [3]]), kd.slice([10, 20]))
    DataSlice([[11, 12], [23]], schema: INT32, present: 3/3)
    """
    _check_fn(fn)
    return _map_py(fn, args, kwargs, schema, max_threads, ndim, include_missing, item_completed_callback,
                   f"Error occurred during evaluation of kd.map_py with fn={fn!r}")


def _map_py(fn, args, kwargs, schema, max_threads, ndim, include_missing, item_completed_callback, note):
    """`map_py`, adding `note` to an error `fn` raises."""
    kd = _kd()
    schema, include_missing, item_completed_callback = _none(schema), _none(include_missing), _none(item_completed_callback)
    ndim = _int(ndim)
    if include_missing is not None and not _int(include_missing) and ndim != 0:
        raise ValueError("`include_missing=False` can only be used with `ndim=0`")
    include_missing = bool(_int(include_missing)) if include_missing is not None else ndim != 0
    names = list(kwargs)
    values = [_as_slice(a) for a in args] + [_as_slice(kwargs[k]) for k in names]
    if not values:
        raise TypeError("kd.map_py: expected at least one argument to map over")
    aligned = kd.align(*values) if len(values) > 1 else values
    rank = aligned[0].get_ndim().to_py()
    if not 0 <= ndim <= rank:
        raise ValueError(f"kd.map_py: ndim must be between 0 and the rank of the arguments ({rank}), got {ndim}")
    present = None
    if ndim == 0:
        columns = [_python_values(a.flatten()) for a in aligned]
        if not include_missing and any(a.get_present_count().to_py() < a.get_size().to_py() for a in aligned):
            everywhere = kd.has(aligned[0])
            for a in aligned[1:]:
                everywhere = everywhere & kd.has(a)
            # As BOOLEAN (True or None): to_py of a MASK makes a DataItem per item.
            present = (kd.item(True) & everywhere).flatten().to_py()
    else:
        columns = [_groups(a, ndim) for a in aligned]
    n_items = len(columns[0]) if columns else 0
    show_progress = progress.enabled(n_items)
    try:
        if not show_progress and len(columns) == 1 and not names and _int(max_threads) in (None, 1) and item_completed_callback is None:
            # The common case, one argument: no row tuples, no wrapper frame.
            column = columns[0]
            results = list(map(fn, column)) if present is None else [fn(v) if p else None for v, p in zip(column, present)]
        else:
            rows = list(zip(*columns))
            if present is not None:
                rows = [row if p else None for row, p in zip(rows, present)]
            if show_progress:
                with progress.Bar(n_items, "kd.map_py") as bar:
                    results = _run(fn, rows, len(args), names, max_threads, item_completed_callback, bar)
            else:
                results = _run(fn, rows, len(args), names, max_threads, item_completed_callback)
    except Exception as error:
        error.add_note(note)
        raise
    # The shape of the leading dimensions (the groups, for `ndim > 0`).
    shape = aligned[0].get_shape() if ndim == 0 else kd.agg_size(aligned[0], ndim=ndim).get_shape()
    return _results_slice(results, schema).reshape(shape)


def map_py_on_selected(fn, cond, *args, schema=None, max_threads=1, item_completed_callback=None, **kwargs):
    """Applies the Python function `fn` to the items where `cond` is present.

    Like `kd.map_py`, but the result is missing wherever `cond` is missing, and
    `fn` is not called there. `fn` is called on every selected item, also
    where an argument is missing (it receives None). `cond` is aligned with the
    arguments and must not have more dimensions than they have.

    Args:
      fn: a Python function, called once per selected item.
      cond: a MASK DataSlice selecting the items.
      *args: positional arguments (DataSlices or Python values).
      schema: the schema of the result (inferred from the results by default).
      max_threads: how many threads may call `fn` at once.
      item_completed_callback: called with each result, in the calling thread.
      **kwargs: keyword arguments (DataSlices or Python values).

    Examples:
      >>> x = kd.slice([1, 2, 3])
      >>> kd.map_py_on_selected(lambda v: v * 10, x > 1, x)
      DataSlice([None, 20, 30], schema: INT32, present: 2/3)
      >>> kd.map_py_on_selected(lambda v: str(v), x != 2, x, schema=kd.STRING)
      DataSlice(['1', None, '3'], schema: STRING, present: 2/3)
      >>> kd.map_py_on_selected(lambda v: v is None, kd.present, kd.slice([1, None]))
      DataSlice([False, True], schema: BOOLEAN, present: 2/2)
    """
    op = "kd.map_py_on_selected"
    _check_fn(fn, "fn", op)
    return _on_cond(op, fn, None, cond, args, kwargs, schema, max_threads, item_completed_callback,
                    f"Error occurred during evaluation of {op} with fn={fn!r}")


def map_py_on_cond(true_fn, false_fn, cond, *args, schema=None, max_threads=1, item_completed_callback=None,
                   **kwargs):
    """Applies `true_fn` to the items where `cond` is present and `false_fn` to the others.

    Like `kd.map_py` with the function chosen per item; with `false_fn=None`
    the result is missing where `cond` is missing. The functions are called
    on every item, also where an argument is missing (they receive None), and
    their results are merged into one DataSlice. `cond` is aligned with the
    arguments and must not have more dimensions than they have.

    Args:
      true_fn: a Python function for the items where `cond` is present.
      false_fn: a Python function for the other items, or None.
      cond: a MASK DataSlice, aligned with the arguments.
      *args: positional arguments (DataSlices or Python values).
      schema: the schema of the result (inferred from the results by default).
      max_threads: how many threads may call the functions at once.
      item_completed_callback: called with each result, in the calling thread.
      **kwargs: keyword arguments (DataSlices or Python values).

    Examples:
      >>> x = kd.slice([1, 2, 3])
      >>> kd.map_py_on_cond(lambda v: v * 10, lambda v: -v, x > 1, x)
      DataSlice([-1, 20, 30], schema: INT32, present: 3/3)
      >>> kd.map_py_on_cond(lambda v: v * 10, None, x > 1, x)
      DataSlice([None, 20, 30], schema: INT32, present: 2/3)
    """
    op = "kd.map_py_on_cond"
    _check_fn(true_fn, "true_fn", op)
    false_fn = _none(false_fn)
    if false_fn is not None:
        _check_fn(false_fn, "false_fn", op)
    return _on_cond(op, true_fn, false_fn, cond, args, kwargs, schema, max_threads, item_completed_callback,
                    f"Error occurred during evaluation of {op} with true_fn={true_fn!r} and false_fn={false_fn!r}")


def _on_cond(op, true_fn, false_fn, cond, args, kwargs, schema, max_threads, item_completed_callback, note):
    """`map_py_on_cond` (`false_fn` None: `map_py_on_selected`), as Koda's."""
    kd = _kd()
    if not args and not kwargs:
        raise TypeError(f"{op}: expected at least one input DataSlice, got none")
    cond = _as_slice(cond)
    if str(cond.get_schema()) != "MASK":
        raise ValueError(f"{op}: expected a mask, got cond: {cond.get_schema()}")
    names = list(kwargs)
    values = [_as_slice(a) for a in args] + [_as_slice(kwargs[k]) for k in names]
    if cond.get_ndim().to_py() > max(v.get_ndim().to_py() for v in values):
        raise ValueError(f"{op}: 'cond' must have the same or smaller dimension than `args` and `kwargs`")
    cond, *values = kd.align(cond, *values)
    if false_fn is None:
        # `fn` on the selected items only.
        selected = cond.flatten()
        values = [kd.select(v.flatten(), selected) for v in values]
        result = _map_py(true_fn, values[:len(args)], dict(zip(names, values[len(args):])), schema, max_threads, 0,
                         True, item_completed_callback, note)
        return kd.inverse_select(result, selected).reshape(cond.get_shape())

    def call(present, /, *fn_args, **fn_kwargs):
        return (true_fn if present else false_fn)(*fn_args, **fn_kwargs)

    # The condition as BOOLEAN: `True` or None for `call`.
    values = [kd.item(True) & cond] + values
    return _map_py(call, values[:len(args) + 1], dict(zip(names, values[len(args) + 1:])), schema, max_threads, 0,
                   True, item_completed_callback, note)


class PyObject:
    """A Python object passed by reference through plait (what
    `kd.py_reference` returns): `py_value()` gives the object back. It cannot
    be saved (`kd.dumps`), as Koda's references cannot."""

    __slots__ = ("_value",)

    def __init__(self, value):
        self._value = value

    def py_value(self):
        """The wrapped Python object."""
        return self._value

    def __repr__(self):
        return f"PyObject{{{self._value!r}}}"


def py_reference(obj):
    """Wraps `obj` to pass it by reference into functors and `kd.py_fn`
    functions, which get it back with `.py_value()`.

    Args:
      obj: any Python object.

    Examples:
      >>> ref = kd.py_reference([1, 2])
      >>> ref.py_value()
      [1, 2]
      >>> kd.py_fn(lambda r: len(r.py_value()))(ref)
      DataItem(2, schema: INT32)
    """
    return PyObject(obj)
