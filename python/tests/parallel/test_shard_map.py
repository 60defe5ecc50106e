"""kd.shard_map on the local runner: the issue's examples, specs and their
errors, shardings, plans, failures, and random programs whose sharded
results equal the unsharded ones."""

import warnings

import pytest
from shard_programs import assert_same, outcome, program, reference

from plait import kd
from plait.kd.parallel import Mesh, P, ReshardingWarning

MESH = Mesh({"x": 2})
X = kd.slice([[1, 2], [3], [4, 5, 6], [7]])


def sharded(fn, mesh=MESH, **kwargs):
    kwargs.setdefault("in_specs", {0: P("x")})
    return kd.shard_map(fn, mesh, **kwargs)


def test_the_issue_examples():
    doubled = sharded(lambda x: x * 2)(X)
    kd.testing.assert_equal(doubled, X * 2)
    assert doubled.sharding.spec == P("x") and doubled.sharding.mesh == MESH
    assert doubled.sharding.bounds == (0, 2, 4)
    total = sharded(kd.sum)(X)
    kd.testing.assert_equal(total, kd.item(28))
    assert total.sharding.spec == P()
    kd.testing.assert_equal(sharded(kd.agg_sum)(X), kd.slice([3, 3, 15, 7]))
    kd.testing.assert_equal(sharded(lambda x: kd.index(x, dim=0))(X), kd.slice([[0, 0], [1], [2, 2, 2], [3]], kd.INT64))


@pytest.mark.parametrize("fn", [
    lambda x: kd.math.mean(x), lambda x: x - kd.math.mean(x), lambda x: kd.count(x), lambda x: kd.max(x),
    lambda x: kd.agg_sum(x, ndim=2), lambda x: kd.index(kd.flatten(x)), lambda x: kd.unique(kd.flatten(x) % 3),
    lambda x: kd.sort(kd.flatten(x), descending=True), lambda x: kd.select(kd.flatten(x), kd.flatten(x) > 2),
    lambda x: kd.math.cum_sum(kd.flatten(x)), lambda x: kd.math.median(x), lambda x: kd.index(x),
    lambda x: kd.masking.all(kd.has(x)), lambda x: kd.slices.is_empty(x), lambda x: kd.agg_count(kd.flatten(x)),
    lambda x: kd.math.agg_mean(kd.flatten(x)), lambda x: kd.select(kd.flatten(x), kd.flatten(x) > 2) + kd.sum(x),
])
def test_operators_that_cross_shards_equal_the_unsharded_call(fn):
    for mesh in (MESH, Mesh({"x": 3}), Mesh({"x": 6})):
        kd.testing.assert_equal(sharded(fn, mesh)(X), fn(X))


def test_whole_arguments_meet_shards_by_rows():
    y = kd.slice([10, 20, 30, 40])
    f = kd.shard_map(lambda x, y: x + y, MESH, in_specs=(P("x"), P()))
    kd.testing.assert_equal(f(X, y), X + y)
    kd.testing.assert_equal(f(X, kd.item(1)), X + 1)
    with pytest.raises(ValueError, match="shapes are not compatible"):
        f(X, kd.slice([1, 2, 3]))
    # Two sharded arguments with as many rows share the rows of each shard.
    g = kd.shard_map(lambda x, y: x * y, MESH, in_specs=P("x"))
    kd.testing.assert_equal(g(X, y), X * y)


def test_spec_forms():
    y = kd.slice([1, 1, 1, 1])
    by_name = kd.shard_map(lambda x, y: x + y, MESH, in_specs={"x": P("x")})
    kd.testing.assert_equal(by_name(X, y), X + y)
    kd.testing.assert_equal(by_name(X, y=y), X + y)
    every = kd.shard_map(lambda x: x + 1, MESH, in_specs=P("x"))
    assert every(X).sharding.spec == P("x")
    whole = kd.shard_map(lambda x: x + 1, MESH, in_specs=None)
    assert whole(X).sharding.spec == P()
    # Python values are boxed; lists and tuples of DataSlices take the spec of the argument.
    pair = kd.shard_map(lambda xs, k: xs[0] + xs[1] * k, MESH, in_specs={0: P("x")})
    kd.testing.assert_equal(pair((X, X), 3), X + X * 3)
    assert repr(P("x")) == "P('x')" and repr(P()) == "P()" and repr(MESH) == "Mesh({'x': 2})"


def test_spec_errors():
    with pytest.raises(ValueError, match="sizes are positive ints"):
        Mesh({"x": 0})
    with pytest.raises(ValueError, match="expected a dict"):
        Mesh(["x"])
    with pytest.raises(ValueError, match="only dimension 0 is cut"):
        P(None, "x")
    with pytest.raises(ValueError, match="names axis 'y'"):
        kd.shard_map(lambda x: x, MESH, in_specs=P("y"))(X)
    with pytest.raises(ValueError, match="DataItem"):
        kd.shard_map(lambda x: x, MESH, in_specs=P("x"))(kd.item(1))
    with pytest.raises(ValueError, match="in_specs names argument 'z'"):
        kd.shard_map(lambda x: x, MESH, in_specs={"z": P("x")})(X)
    with pytest.raises(TypeError, match="mesh must be a kd.parallel.Mesh"):
        kd.shard_map(lambda x: x, {"x": 2}, in_specs=P("x"))
    with pytest.raises(ValueError, match="out_specs has 1 entries for 2 outputs"):
        kd.shard_map(lambda x: (x, x), MESH, in_specs=P("x"), out_specs=(P("x"),))(X)
    with pytest.raises(ValueError, match=r"runner must be one of \['local', 'ray'\]"):
        kd.shard_map(lambda x: x, MESH, in_specs=P("x"), runner="mpi")
    with pytest.raises(TypeError, match="returned a str"):
        kd.shard_map(lambda x: "no", MESH, in_specs=P("x"))(X)


def test_runner_from_the_environment(monkeypatch):
    monkeypatch.setenv("PLAIT_RUNNER", "cluster")
    with pytest.raises(ValueError, match="got 'cluster'"):
        sharded(lambda x: x)(X)
    monkeypatch.setenv("PLAIT_RUNNER", "local")
    kd.testing.assert_equal(sharded(lambda x: x + 1)(X), X + 1)


def test_out_specs_set_the_sharding():
    rows_whole = sharded(lambda x: x + 1, out_specs=P())(X)
    assert rows_whole.sharding.spec == P()
    kd.testing.assert_equal(rows_whole, X + 1)
    whole_cut = sharded(lambda x: kd.sort(kd.flatten(x)), out_specs=P("x"))(X)
    assert whole_cut.sharding.spec == P("x") and whole_cut.sharding.bounds == (0, 3, 7)
    with pytest.raises(ValueError, match="has no rows to cut"):
        sharded(kd.sum, out_specs=P("x"))(X)
    a, b = sharded(lambda x: (x + 1, kd.sum(x)))(X)
    assert (a.sharding.spec, b.sharding.spec) == (P("x"), P())
    assert kd.slice([1]).sharding is None


def test_resharding_warns():
    y = sharded(lambda x: x + 1)(X)
    with pytest.warns(ReshardingWarning, match=r"sharded as P\('x'\).*resharded as P\(\)"):
        kd.shard_map(lambda x: x * 2, MESH, in_specs=P())(y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kd.testing.assert_equal(sharded(lambda x: x * 2)(y), (X + 1) * 2)


def test_sharding_inside_the_body_raises():
    inner = sharded(lambda x: x + 1)
    with pytest.raises(ValueError, match="inside a function kd.shard_map is tracing"):
        sharded(lambda x: inner(x) * 2)(X)
    with pytest.raises(ValueError, match="inside a traced function"):
        kd.fn(lambda x: inner(x))


def test_functors_and_tuples():
    f = kd.fn(lambda x, y: kd.agg_sum(x) * y)
    g = kd.shard_map(f, MESH, in_specs={0: P("x")})
    kd.testing.assert_equal(g(X, kd.item(2)), kd.slice([6, 6, 30, 14]))
    out = sharded(lambda x: [x * 0, kd.sum(x)])(X)
    assert isinstance(out, list) and out[1].to_py() == 28


def test_entities_and_text():
    people = kd.new(name=kd.slice(["ann", "bob", "cy"]), age=kd.slice([30, 40, 50]))
    f = sharded(lambda p: kd.strings.upper(p.name) + "!")
    kd.testing.assert_equal(f(people), kd.strings.upper(people.name) + "!")
    kd.testing.assert_equal(sharded(lambda p: kd.math.mean(p.age))(people), kd.math.mean(people.age))


def test_a_plan_is_traced_once_per_input_types():
    calls = []

    def fn(x):
        calls.append(1)
        return kd.agg_sum(x)

    f = sharded(fn)
    f(X)
    f(X + 1)
    assert len(calls) == 1
    f(kd.slice([[1.0], [2.0]]))
    assert len(calls) == 2


def test_lower_shows_the_plan():
    text = str(sharded(lambda x: x - kd.math.mean(x)).lower(X))
    assert "<lambda> on Mesh({'x': 2}): 2 shards" in text
    assert "input I._0 = x P('x'): rows cut by split 0" in text
    assert "on every shard" in text and "once" in text
    assert "weighted mean" in text and "stacked" in text
    text = str(sharded(lambda x: kd.index(x, dim=0)).lower(X))
    assert "first row of split 0" in text
    text = str(sharded(lambda x: kd.math.cum_sum(kd.flatten(x))).lower(X))
    assert "concatenated (kd.math.cum_sum works over dimension 0, which the shards cut)" in text
    steps = sharded(kd.sum).lower(X).steps()
    assert [s[0] for s in steps] == ["step", "gather", "step"]


def test_a_failing_shard_is_named():
    x = kd.slice([[1, 2], [3], [4], [0]])
    with pytest.raises(ValueError, match="division by zero") as info:
        sharded(lambda x: kd.math.floordiv(x, x))(x)
    assert any("in shard 1 of 2 of kd.shard_map" in n for n in info.value.__notes__)


def test_own_threads():
    kd.testing.assert_equal(sharded(lambda x: x * 3, max_workers=2)(X), X * 3)


@pytest.mark.parametrize("chunk", range(6))
def test_random_programs_equal_the_unsharded_call(chunk):
    for seed in range(chunk * 50, chunk * 50 + 50):
        source, fn, x, y = program(seed)
        mesh = Mesh({"x": 2 + seed % 3})
        expected = reference(fn, x, y)
        # Every other program as a functor (plait traces no functor returning a Python tuple).
        target = kd.fn(fn) if seed % 2 and not isinstance(expected, tuple) else fn
        got = outcome(kd.shard_map(target, mesh, in_specs={0: P("x")}), x, y)
        assert_same(got, expected, f"seed {seed}:\n{source}")
