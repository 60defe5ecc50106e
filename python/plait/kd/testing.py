"""`kd.testing`: assertions for tests of Koda data, as Koda's `kd.testing`.

They raise `AssertionError` with both values in the message, so a user's
test suite that calls them moves to plait with the import. They compare
Python objects (DataSlices, DataBags, shapes, expressions) and are test
utilities, not operators: they are Python by nature.
"""

import math as _math

from plait import _plait

__all__ = ["assert_allclose", "assert_dicts_keys_equal", "assert_dicts_values_equal", "assert_equal", "assert_equivalent",
           "assert_not_equal", "assert_unordered_equal"]


def _kd():
    from plait import kd

    return kd


def _text(x):
    """A value as the messages show it (slices with their shapes)."""
    if isinstance(x, _plait.DataSlice) and not x.is_item():
        return f"{repr(x)[:-1]}, shape: {x.get_shape()!r})"
    return repr(x)


def _check_values(actual, expected, exprs=True):
    """Koda's TypeError unless both are values (DataSlices, bags, shapes,
    tuples, iterables) or, where `exprs`, both expressions."""
    kd = _kd()
    if exprs and isinstance(actual, kd.expr.Expr) and isinstance(expected, kd.expr.Expr):
        return
    for name, value in (("actual_value", actual), ("expected_value", expected)):
        if not _is_value(value):
            raise TypeError(f"`{name}` must be a QValue, got {type(value)}")


def _equal(actual, expected):
    """Whether the two values are the same: for DataSlices the same schema,
    shape, items and bag; for expressions the same structure."""
    kd = _kd()
    if isinstance(actual, kd.expr.Expr) and isinstance(expected, kd.expr.Expr):
        return actual.fingerprint == expected.fingerprint
    return _same_values(actual, expected)


def _fingerprint_report(actual, expected, equal):
    """Koda's message for two values found equal (`equal`) or not equal:
    their fingerprints and texts; slices say so, expressions and other
    values more briefly."""
    def lines(x):
        return "\n    ".join(_text(x).split("\n"))

    def fingerprint(x):
        # (A slice's own is by content; equality here is by identity.)
        return x._identity_fingerprint() if isinstance(x, _plait.DataSlice) else x.fingerprint

    if equal:
        fingerprints, relation = f"fingerprint={fingerprint(actual)}", "equal"
    else:
        fingerprints = f"actual_fingerprint={fingerprint(actual)}, expected_fingerprint={fingerprint(expected)}"
        relation = "not equal"
    kd = _kd()
    if isinstance(actual, _plait.DataSlice) and isinstance(expected, _plait.DataSlice):
        head = f"DataSlices are {relation} by fingerprint:\n"
    elif isinstance(actual, kd.expr.Expr) and isinstance(expected, kd.expr.Expr):
        head = f"Exprs {relation} by fingerprint:"
    else:
        head = f"QValues {relation} by fingerprint:"
    return f"{head}\n  {fingerprints}\n  actual:\n    {lines(actual)}\n  expected:\n    {lines(expected)}"


def assert_equal(actual_value, expected_value, *, msg=None):
    """Asserts that the two values are the same: DataSlices of the same schema, shape and items reading the same DataBag.

    Entities are compared by their ids and the bag by its identity (use
    `assert_equivalent` to compare what the items hold). Expressions are
    compared by structure, DataBags by identity, shapes by their sizes.

    Args:
      actual_value: a DataSlice, DataBag, JaggedShape, Expr or None.
      expected_value: the value it must be.
      msg: the message of the AssertionError, instead of the default one.

    Examples:
      >>> kd.testing.assert_equal(kd.slice([1, 2]), kd.slice([1, 2]))
      >>> kd.testing.assert_equal(kd.slice([1, 2]), kd.slice([1, 2], kd.INT64))
      Traceback (most recent call last):
      ...
      AssertionError: DataSlices are not equal by fingerprint:
      ...
    """
    if actual_value is None and expected_value is None:
        return
    _check_values(actual_value, expected_value)
    if not _equal(actual_value, expected_value):
        raise AssertionError(msg or _fingerprint_report(actual_value, expected_value, equal=False))


def assert_not_equal(actual_value, expected_value, *, msg=None):
    """Asserts that the two values are not the same (see `assert_equal`).

    Args:
      actual_value: a DataSlice, DataBag, JaggedShape, Expr or None.
      expected_value: the value it must not be.
      msg: the message of the AssertionError, instead of the default one.

    Examples:
      >>> kd.testing.assert_not_equal(kd.slice([1, 2]), kd.slice([1, 3]))
    """
    if actual_value is None and expected_value is None:
        raise AssertionError(msg or "Both values are None")
    if actual_value is None or expected_value is None:
        return
    _check_values(actual_value, expected_value)
    if _equal(actual_value, expected_value):
        raise AssertionError(msg or _fingerprint_report(actual_value, expected_value, equal=True))


def assert_equivalent(actual_value, expected_value, *, partial=None, ids_equality=None, schemas_equality=None, msg=None):
    """Asserts that the two values hold the same data, whatever their ids and bags.

    DataSlices are equivalent when they have the same shape and their items
    hold the same data, compared side by side: entities and objects by their
    attributes, lists by their items, dicts by their entries. With
    `schemas_equality` (the default) the schemas must be the same too: the
    types of primitives, what list and dict schemas hold, an explicit entity
    schema by its id (two `kd.new(a=1)` have different schemas), the
    implicit schemas of objects by their attributes; without it the values
    alone count (INT32 `1` and INT64 `1` agree). With `ids_equality=True`
    the ids must be the same; with `partial=True`, `actual_value` may hold
    attributes `expected_value` lacks. DataBags are equivalent when they hold
    the same contents; other values (shapes, tuples, iterables) when they
    are equal.

    The message of a failure is Koda's: both slices, then up to five
    differences, each `modified`, `modified schema`, `added` (only in
    `actual_value`) or `deleted` (only in `expected_value`), with its place
    (`expected.S[2].a`, `item at position 1 in list expected.x`,
    `key 'k' in expected`) and the items there.

    Args:
      actual_value: a DataSlice, DataBag, JaggedShape, tuple, iterable or None.
      expected_value: the value it must be equivalent to.
      partial: whether `actual_value` may have attributes `expected_value`
        lacks.
      ids_equality: whether the ids of entities must be the same.
      schemas_equality: whether schemas must be the same (True unless False
        is given).
      msg: the message of the AssertionError, instead of the default one.

    Examples:
      >>> kd.testing.assert_equivalent(kd.obj(a=1), kd.obj(a=1))
      >>> kd.testing.assert_equivalent(kd.new(a=1), kd.new(a=1), schemas_equality=False)
      >>> kd.testing.assert_equivalent(kd.list([1], item_schema=kd.OBJECT), kd.list([1]))
      Traceback (most recent call last):
      ...
      AssertionError: Expected: is equal to DataItem(List[1], schema: LIST[INT32])
      Actual: DataItem(List[1], schema: LIST[OBJECT]), with difference:
      modified schema:
      expected:
      DataItem(LIST[INT32], schema: SCHEMA, item_id: Schema:#...)
      -> actual:
      DataItem(LIST[OBJECT], schema: SCHEMA, item_id: Schema:#...)
    """
    kd = _kd()
    if actual_value is None and expected_value is None:
        return
    if isinstance(actual_value, _plait.DataSlice) and isinstance(expected_value, _plait.DataSlice):
        report = actual_value._difference_report(
            expected_value, bool(partial), schemas_equality is not False, bool(ids_equality))
        if report is not None:
            raise AssertionError(report if msg is None else msg)
        return
    for name, given in (("partial", partial), ("ids_equality", ids_equality), ("schemas_equality", schemas_equality)):
        if given is not None:
            raise AssertionError(f"`{name}` is only supported for DataSlices")
    if isinstance(actual_value, kd.types.DataBag) and isinstance(expected_value, kd.types.DataBag):
        if _bag_contents(actual_value) != _bag_contents(expected_value):
            raise AssertionError(msg or "DataBags are not equivalent\n\n"
                                 f"{actual_value.contents_repr()} != {expected_value.contents_repr()}")
        return
    # As Koda's: anything else must be one of its values (expressions are
    # compared with assert_equal; Python values are not values).
    _check_values(actual_value, expected_value, exprs=False)
    if not _same_values(actual_value, expected_value):
        raise AssertionError(msg or _fingerprint_report(actual_value, expected_value, equal=False))


def _is_value(x):
    """Whether `x` is one of Koda's values (not an expression, not a Python
    object)."""
    kd = _kd()
    return isinstance(x, (_plait.DataSlice, kd.types.DataBag, kd.types.JaggedShape, kd.tuples.Tuple, kd.tuples.NamedTuple,
                          kd.types.Iterable, _plait.Slice))


def _same_values(a, b):
    """Whether two values other than DataSlice pairs are the same: tuples,
    named tuples and iterables by their elements (DataSlices in them as
    `assert_equal` compares them), anything else by `==`."""
    kd = _kd()
    if isinstance(a, _plait.DataSlice) or isinstance(b, _plait.DataSlice):
        return isinstance(a, _plait.DataSlice) and isinstance(b, _plait.DataSlice) and a._identical(b)
    if type(a) is not type(b):
        return False
    if isinstance(a, kd.tuples.NamedTuple):
        return list(a.keys()) == list(b.keys()) and _same_values(tuple(a.values()), tuple(b.values()))
    if isinstance(a, kd.types.DataBag):
        return a._same_as(b)
    if isinstance(a, (tuple, kd.types.Iterable)):
        xs, ys = list(a), list(b)
        return len(xs) == len(ys) and all(_same_values(x, y) for x, y in zip(xs, ys))
    return a == b


def _bag_contents(bag):
    """What a bag holds, without the bag's own id."""
    return [line for text in (bag.data_triples_repr(), bag.schema_triples_repr()) for line in str(text).split("\n")[1:]]


def _close(a, b, rtol, atol):
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, float) and isinstance(b, float) and _math.isnan(a) and _math.isnan(b):
        return True
    return abs(a - b) <= atol + rtol * abs(b)


def assert_allclose(actual_value, expected_value, *, rtol=None, atol=0.0):
    """Asserts that two numeric DataSlices have the same shape and close values.

    Each item must satisfy `|actual - expected| <= atol + rtol * |expected|`
    (missing where the other is missing). `rtol` defaults to 1e-6 for
    FLOAT32 values and 1e-7 otherwise, as numpy's `assert_allclose`.

    Args:
      actual_value: a numeric DataSlice.
      expected_value: the values it must be close to.
      rtol: the relative tolerance.
      atol: the absolute tolerance.

    Examples:
      >>> kd.testing.assert_allclose(kd.slice([1.0, 2.0]), kd.slice([1.0, 2.0000001]))
      >>> kd.testing.assert_allclose(kd.slice([1.0, 2.0]), kd.slice([1.0, 2.1]))
      Traceback (most recent call last):
      ...
      AssertionError: the values are not close up to the given tolerance:
      ...
    """
    kd = _kd()
    if rtol is None:
        rtol = 1e-6 if kd.FLOAT32 in (actual_value.get_schema(), expected_value.get_schema()) else 1e-7
    message = (f"the values are not close up to the given tolerance:\n\nactual: {_text(actual_value)}\n"
               f"expected: {_text(expected_value)}")
    if actual_value.get_shape() != expected_value.get_shape():
        raise AssertionError(message)
    actual, expected = actual_value.flatten().to_py(), expected_value.flatten().to_py()
    if not all(_close(a, b, rtol, atol) for a, b in zip(actual, expected)):
        raise AssertionError(message)


def _sorted_items(x):
    return sorted(x.flatten().to_py(), key=lambda v: (v is None, repr(type(v)), repr(v)))


def assert_unordered_equal(actual_value, expected_value):
    """Asserts that two DataSlices hold the same items in their last dimension, in any order.

    The shapes must be the same; the items of each row are compared as
    multisets.

    Args:
      actual_value: a DataSlice.
      expected_value: the items it must hold.

    Examples:
      >>> kd.testing.assert_unordered_equal(kd.slice([1, 2]), kd.slice([2, 1]))
      >>> kd.testing.assert_unordered_equal(kd.slice([[1, 2], [3]]), kd.slice([[2, 1], [3]]))
    """
    kd = _kd()
    same = actual_value.get_shape() == expected_value.get_shape() and actual_value.get_schema() == expected_value.get_schema()
    if same:
        rank = actual_value.get_ndim().to_py()
        if rank == 0:
            same = actual_value._identical(expected_value)
        else:
            rows = zip(kd.implode(actual_value).flatten().L, kd.implode(expected_value).flatten().L) if rank > 1 \
                else [(actual_value, expected_value)]
            same = all(_sorted_items(a if rank == 1 else a[:]) == _sorted_items(b if rank == 1 else b[:]) for a, b in rows)
    if not same:
        raise AssertionError(f"Unordered DataSlice {_text(actual_value)} != {_text(expected_value)}")


def assert_dicts_keys_equal(dicts, expected_keys):
    """Asserts that the keys of each dict are `expected_keys` (one row per dict), in any order.

    Args:
      dicts: a DataSlice of dicts.
      expected_keys: the keys, one more dimension than `dicts`.

    Examples:
      >>> kd.testing.assert_dicts_keys_equal(kd.dict({'a': 1, 'b': 2}), kd.slice(['b', 'a']))
    """
    assert_unordered_equal(_kd().get_keys(dicts).no_bag(), expected_keys.no_bag())


def assert_dicts_values_equal(dicts, expected_values):
    """Asserts that the values of each dict are `expected_values` (one row per dict), in any order.

    Args:
      dicts: a DataSlice of dicts.
      expected_values: the values, one more dimension than `dicts`.

    Examples:
      >>> kd.testing.assert_dicts_values_equal(kd.dict({'a': 1, 'b': 2}), kd.slice([2, 1]))
    """
    assert_unordered_equal(_kd().get_values(dicts).no_bag(), expected_values.no_bag())
