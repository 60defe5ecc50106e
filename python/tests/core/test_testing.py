"""`kd.testing`: the assertions users' test suites call, with Koda's
semantics (koladata 0.0.4 answers noted where they matter)."""

import pytest

from plait import kd

I = kd.I


def test_assert_equal_compares_schema_shape_items_and_bag():
    kd.testing.assert_equal(kd.slice([1, 2]), kd.slice([1, 2]))
    kd.testing.assert_equal(kd.item(None), kd.item(None))
    kd.testing.assert_equal(kd.slice([float("nan")]), kd.slice([float("nan")]))
    for other in (kd.slice([1, 3]), kd.slice([1, 2], kd.INT64), kd.slice([[1], [2]]), kd.slice([1, None])):
        with pytest.raises(AssertionError, match=r"^DataSlices are not equal by fingerprint:\n\n  actual_fingerprint=[0-9a-f]{32}, "
                                                 r"expected_fingerprint=[0-9a-f]{32}\n  actual:\n    DataSlice\(\[1, 2\]"):
            kd.testing.assert_equal(kd.slice([1, 2]), other)
    e = kd.new(a=1)
    kd.testing.assert_equal(e, e)
    # Koda: the same content in another entity, or another bag, is not equal.
    with pytest.raises(AssertionError):
        kd.testing.assert_equal(e, kd.new(a=1))
    with pytest.raises(AssertionError):
        kd.testing.assert_equal(e, e.with_bag(kd.bag()))
    with pytest.raises(AssertionError, match="^my message$"):
        kd.testing.assert_equal(kd.item(1), kd.item(2), msg="my message")


def test_assert_equal_on_exprs_bags_shapes_and_other_values():
    kd.testing.assert_equal(I.x + 1, I.x + 1)
    with pytest.raises(AssertionError, match="^Exprs not equal by fingerprint:"):
        kd.testing.assert_equal(I.x + 1, I.x + 2)
    bag = kd.bag()
    kd.testing.assert_equal(bag, bag)
    with pytest.raises(AssertionError, match="^QValues not equal by fingerprint:"):
        kd.testing.assert_equal(kd.bag(), kd.bag())
    kd.testing.assert_equal(kd.slice([[1, 2], [3]]).get_shape(), kd.slice([[4, 5], [6]]).get_shape())
    kd.testing.assert_equal(None, None)
    # Koda: TypeError for None against a value.
    with pytest.raises(TypeError, match="`expected_value` must be a QValue, got <class 'NoneType'>"):
        kd.testing.assert_equal(kd.item(1), None)
    # Koda: TypeError "`actual_value` must be a QValue, got <class 'int'>".
    with pytest.raises(TypeError, match="`actual_value` must be"):
        kd.testing.assert_equal(1, kd.item(1))


def test_assert_not_equal():
    kd.testing.assert_not_equal(kd.slice([1, 2]), kd.slice([1, 3]))
    with pytest.raises(AssertionError, match="^DataSlices are equal by fingerprint:"):
        kd.testing.assert_not_equal(kd.slice([1, 2]), kd.slice([1, 2]))
    with pytest.raises(AssertionError, match="^Both values are None$"):
        kd.testing.assert_not_equal(None, None)
    kd.testing.assert_not_equal(None, kd.item(1))


def test_assert_equivalent_compares_what_items_hold():
    kd.testing.assert_equivalent(kd.new(a=1, b=kd.list([1, 2]), schema="S"), kd.new(a=1, b=kd.list([1, 2]), schema="S"))
    kd.testing.assert_equivalent(kd.obj(a=kd.obj(b="x")), kd.obj(a=kd.obj(b="x")))
    kd.testing.assert_equivalent(kd.list([1, 2]), kd.list([1, 2]))
    # Koda: two explicit schemas made apart are different schemas, unless schemas_equality=False.
    with pytest.raises(AssertionError):
        kd.testing.assert_equivalent(kd.new(a=1), kd.new(a=1))
    kd.testing.assert_equivalent(kd.new(a=1), kd.new(a=1), schemas_equality=False)
    for other in (kd.obj(a=2), kd.obj(a=1, b=2), kd.obj(a=kd.int64(1))):
        with pytest.raises(AssertionError, match="^Expected: is equal to DataItem"):
            kd.testing.assert_equivalent(kd.obj(a=1), other)
    # Koda: INT32 and FLOAT32 values are not equivalent.
    with pytest.raises(AssertionError):
        kd.testing.assert_equivalent(kd.slice([1, 2]), kd.slice([1, 2.0]))
    kd.testing.assert_equivalent(kd.new(a=1, b=2, schema="S"), kd.new(a=1, schema="S"), partial=True)
    e = kd.new(a=1)
    kd.testing.assert_equivalent(e, e.with_attrs(a=1), ids_equality=True)
    with pytest.raises(AssertionError):
        kd.testing.assert_equivalent(e, kd.new(a=1), ids_equality=True)


def test_assert_allclose():
    kd.testing.assert_allclose(kd.slice([1.0, 2.0, None]), kd.slice([1.0, 2.0000001, None]))
    kd.testing.assert_allclose(kd.slice([1.0, 2.0]), kd.slice([1.0, 2.1]), atol=0.2)
    with pytest.raises(AssertionError, match="^the values are not close up to the given tolerance:"):
        kd.testing.assert_allclose(kd.slice([1.0, 2.0]), kd.slice([1.0, 2.1]))
    with pytest.raises(AssertionError):
        kd.testing.assert_allclose(kd.slice([1.0, None]), kd.slice([1.0, 2.0]))
    with pytest.raises(AssertionError):
        kd.testing.assert_allclose(kd.slice([[1.0]]), kd.slice([1.0]))


def test_assert_unordered_equal_and_dicts():
    kd.testing.assert_unordered_equal(kd.slice([1, 2, None]), kd.slice([None, 2, 1]))
    kd.testing.assert_unordered_equal(kd.slice([[1, 2], [3]]), kd.slice([[2, 1], [3]]))
    with pytest.raises(AssertionError, match=r"^Unordered DataSlice DataSlice\(\[1, 2\]"):
        kd.testing.assert_unordered_equal(kd.slice([1, 2]), kd.slice([2, 3]))
    with pytest.raises(AssertionError):
        kd.testing.assert_unordered_equal(kd.slice([[1], [2, 3]]), kd.slice([[1, 2], [3]]))
    d = kd.dict({"a": 1, "b": 2})
    kd.testing.assert_dicts_keys_equal(d, kd.slice(["b", "a"]))
    kd.testing.assert_dicts_values_equal(d, kd.slice([2, 1]))
    with pytest.raises(AssertionError):
        kd.testing.assert_dicts_keys_equal(d, kd.slice(["a"]))


def test_koda_agrees(koda):
    # The same outcomes on koladata for the cases above that both accept.
    kkd = koda
    kkd.testing.assert_equal(kkd.slice([1, 2]), kkd.slice([1, 2]))
    with pytest.raises(AssertionError):
        kkd.testing.assert_equal(kkd.new(a=1), kkd.new(a=1))
    with pytest.raises(AssertionError):
        kkd.testing.assert_equivalent(kkd.new(a=1), kkd.new(a=1))
    kkd.testing.assert_equivalent(kkd.new(a=1), kkd.new(a=1), schemas_equality=False)
    kkd.testing.assert_equivalent(kkd.new(a=1, b=2, schema="S"), kkd.new(a=1, schema="S"), partial=True)
    with pytest.raises(AssertionError):
        kkd.testing.assert_equivalent(kkd.slice([1, 2]), kkd.slice([1, 2.0]))
    kkd.testing.assert_unordered_equal(kkd.slice([1, 2]), kkd.slice([2, 1]))
    kkd.testing.assert_allclose(kkd.slice([1.0, 2.0]), kkd.slice([1.0, 2.0000001]))


def test_assert_equivalent_of_data_100000_levels_deep():
    # The walk keeps its own stack and the places it reports as links, so
    # depth costs neither native stack nor text growing with it.
    bag = kd.mutable_bag()
    top = node = bag.obj(x=0)
    for i in range(100_000):
        node.next = bag.obj(x=i + 1)
        node = node.next
    copy = top.extract()
    kd.testing.assert_equivalent(top, copy)
    node.x = -1
    with pytest.raises(AssertionError, match=r"modified:\nexpected(\.next){100000}\.x:\nDataItem\(100000, schema: INT32\)\n"
                                             r"-> actual(\.next){100000}\.x:\nDataItem\(-1, schema: INT32\)$"):
        kd.testing.assert_equivalent(top, copy)
