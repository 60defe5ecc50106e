"""Loops in typed programs (seed 004, Catalyst): a `kd.while_` / `kd.for_`
variable keeps its dimensions, or its initial value is tagged
`kd.typing.resizable` (Catalyst's `allow_array_resizing`); growing or
filtering state without the tag is a tracing-time error."""

import pytest

from plait import kd

T = kd.typing.SliceType


def double(returns):
    return kd.namedtuple(returns=kd.concat(returns, returns))


def short(returns):
    return kd.size(returns) < 5


def test_growing_state_needs_the_resizing_tag():
    with pytest.raises(ValueError, match=r"kd.functor.while_: loop variable `returns` changes its dimensions in body_fn: "
                                         r"INT32\[n\] before a round, INT32\[2\*n\] after; wrap its initial value in kd.typing.resizable"):
        kd.typing.infer(lambda x: kd.while_(short, double, returns=x), T(kd.INT32, ("n",)))
    t = kd.typing.infer(lambda x: kd.while_(short, double, returns=kd.typing.resizable(x)), T(kd.INT32, ("n",)))
    assert str(t) == "INT32[?]"


def test_the_tag_never_changes_values():
    x = kd.slice([1, 2])
    assert kd.typing.resizable(x).to_py() == [1, 2]
    assert kd.while_(short, double, returns=kd.typing.resizable(x)).to_py() == [1, 2, 1, 2, 1, 2, 1, 2]
    f = kd.fn(lambda x: kd.while_(short, double, returns=kd.typing.resizable(x)), input_types={"x": T(kd.INT32, ("n",))})
    assert f(x).to_py() == [1, 2, 1, 2, 1, 2, 1, 2]


def test_declared_types_fail_while_tracing():
    with pytest.raises(ValueError, match="loop variable `returns` changes its dimensions"):
        kd.fn(lambda x: kd.while_(short, double, returns=x), input_types={"x": T(kd.INT32, ("n",))})


def test_state_that_keeps_its_dimensions_keeps_its_type():
    def count_down(n, returns):
        return kd.namedtuple(n=n - 1, returns=returns * 2)

    t = kd.typing.infer(lambda x: kd.while_(lambda n, returns: n > 0, count_down, n=3, returns=x), T(kd.INT32, ("n", kd.typing.RAGGED)))
    assert str(t) == "INT32[n, *]"


def test_a_round_that_changes_the_schema_makes_it_unknown():
    def halve(returns):
        return kd.namedtuple(returns=returns / 2)

    t = kd.typing.infer(lambda x: kd.while_(lambda returns: kd.max(returns) > 1, halve, returns=x), T(kd.INT32, ("n",)))
    assert str(t) == "?[n]"


def test_for_loops_and_filters():
    # (The items of an iterable are not typed yet: the body filters by a
    # constant.)
    def keep_above(i, returns):
        return kd.namedtuple(returns=kd.select(returns, returns > 1))

    def loop(resizable):
        return lambda x: kd.for_(kd.iterables.make(1, 2), keep_above, returns=kd.typing.resizable(x) if resizable else x)

    with pytest.raises(ValueError, match="kd.functor.for_: loop variable `returns` changes its dimensions in body_fn: "
                                         r"INT32\[n\] before a round, INT32\[_pd_shp\d+\] after"):
        kd.typing.infer(loop(False), T(kd.INT32, ("n",)))
    assert str(kd.typing.infer(loop(True), T(kd.INT32, ("n",)))) == "INT32[?]"
    assert loop(True)(kd.slice([1, 2, 3, 4])).to_py() == [2, 3, 4]


def test_loops_yielding_iterables_are_unknown():
    t = kd.typing.infer(lambda x: kd.while_(lambda n: n > 0, lambda n: kd.namedtuple(n=n - 1, yields=kd.iterables.make(n)),
                                            n=x, yields=kd.iterables.make()), T(kd.INT32, ()))
    assert str(t) == str(kd.typing.UNKNOWN)
