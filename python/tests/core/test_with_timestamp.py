"""kd.with_timestamp: the value unchanged, and the time the operator ran."""

import time

from plait import kd
from plait.kd import I


def test_eager_pairs_value_and_time():
    before = time.time()
    x, t = kd.with_timestamp(kd.slice([1, 2]))
    after = time.time()
    kd.testing.assert_equal(x, kd.slice([1, 2]))
    assert t.get_schema() == kd.FLOAT64 and t.get_ndim() == 0
    assert before - 1 <= t.to_py() <= after + 1


def test_each_evaluation_takes_its_own_time():
    expr = kd.lazy.with_timestamp(I.x)
    _, first = kd.eval(expr, x=1)
    time.sleep(0.01)
    value, second = kd.eval(expr, x=1)
    assert second.to_py() > first.to_py()
    kd.testing.assert_equal(value, kd.item(1))


def test_steps_of_a_functor_are_ordered():
    def f(x):
        first = kd.with_timestamp(x + 1)
        second = kd.with_timestamp(kd.tuples.get_nth(first, 0) * 2)
        elapsed = kd.tuples.get_nth(second, 1) - kd.tuples.get_nth(first, 1)
        return kd.tuple(kd.tuples.get_nth(second, 0), elapsed)

    b, elapsed = kd.fn(f)(kd.item(3), return_type_as=kd.tuple(kd.item(0), kd.item(0.0)))
    kd.testing.assert_equal(b, kd.item(8))
    assert elapsed.to_py() >= 0


def test_passes_any_value_through():
    bag = kd.bag()
    assert kd.with_timestamp(bag)[0].fingerprint == bag.fingerprint
