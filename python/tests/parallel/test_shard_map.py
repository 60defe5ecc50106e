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
    with pytest.raises(ValueError, match="a mesh has at most 1,048,576"):
        Mesh({"x": 10**12})
    with pytest.raises(ValueError, match="a mesh has at most 1,048,576"):
        Mesh({"x": 2**10, "y": 2**11})
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
    assert "partial sums and counts per shard, combined as kd.math.mean" in text and "stacked" in text
    text = str(sharded(lambda x: x - kd.math.mean(x)).lower(X * 1.5))
    assert "weighted mean" in text
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


@pytest.mark.parametrize("n", [2, 3, 4])
def test_operators_that_look_row_wise_but_cross_rows(n):
    mesh = Mesh({"x": n})
    flat = kd.slice([1, 5, 2, 7, 3])
    y = kd.slice([10, 20, 30, 40, 50])
    cases = [
        (lambda x: kd.expand_to(x, x, ndim=1), (flat,)),
        (lambda x: kd.expand_to(x, kd.expand_to(x, x, ndim=0)), (flat,)),
        (lambda x, y: kd.expand_to(y, x, ndim=1), (flat, y)),
        (lambda x: kd.expand_to(x, kd.expand_to(x, x, ndim=1), ndim=2), (X,)),
        (lambda x: kd.flatten(x, 0, 0), (flat,)),
        (lambda x: kd.flatten(x, -5, 0), (X,)),
        (lambda x: kd.flatten(x, 0, -2), (X,)),
        (lambda x: kd.flatten(x, 1, 1), (X,)),
        (lambda x, y: kd.index(kd.select(y, x > 2)), (flat, y)),
        (lambda x, y: kd.select(y, x > 2) + kd.slice([1, 2, 3]), (flat, y)),
        (lambda x: kd.index(kd.select(x, kd.agg_count(x) > 1, expand_filter=False), dim=0), (X,)),
        (lambda x: kd.select(x, kd.agg_count(x) > 1, expand_filter=False) + kd.slice([10, 20]), (X,)),
        (lambda x: kd.select(x, kd.has(x), expand_filter=False), (X,)),
    ]
    for fn, args in cases:
        f = kd.shard_map(fn, mesh, in_specs={0: P("x")})
        kd.testing.assert_equal(f(*args), fn(*args))
    # The bounds reported are the rows of the result, not of its input.
    out = kd.shard_map(lambda x, y: kd.select(y, x > 2), mesh, in_specs={0: P("x")})(flat, y)
    assert out.sharding.bounds[-1] == 3


@pytest.mark.parametrize("n", [2, 3, 4])
def test_objects_combine_as_the_unsharded_call(n):
    mesh = Mesh({"x": n})
    for x in (kd.slice([1.5, 2.5], kd.OBJECT), kd.slice([None, None, 1.5, 2.5], kd.OBJECT),
              kd.slice([kd.int64(1), kd.int64(2)], kd.OBJECT), kd.slice([[1, 2], [None], [3.5]], kd.OBJECT)):
        for fn in (kd.sum, kd.max, lambda v: kd.agg_sum(v, ndim=v.get_ndim()), kd.math.mean, kd.count):
            got = outcome(kd.shard_map(fn, mesh, in_specs=P("x")), x)
            assert_same(got, outcome(fn, x), f"{x!r}")
    mixed = kd.slice([1, 2.5, 3, 4], kd.OBJECT)
    with pytest.raises(ValueError, match="mixed types"):
        kd.shard_map(kd.math.mean, mesh, in_specs=P("x"))(mixed)


def test_an_argument_returned_as_it_is_keeps_its_own_sharding():
    y = kd.slice([1, 2, 3, 4])
    a, b = kd.shard_map(lambda x, y: (x * 2, y), MESH, in_specs={0: P("x")})(X, y)
    assert b is not y and y.sharding is None and b.sharding.spec == P()
    kd.testing.assert_equal(b, y)


def test_keyword_arguments_take_their_parameters_specs():
    y = kd.slice([1, 2, 3, 4])
    f = kd.shard_map(lambda x, y: x + y, MESH, in_specs={1: P("x")})
    kd.testing.assert_equal(f(X, y=y), X + y)
    g = kd.shard_map(lambda x, y: x + y, MESH, in_specs=(P("x"), P("x")))
    assert [i[3] for i in g.lower(x=X, y=y).inputs] == [0, 0]
    functor = kd.fn(lambda x, y: x * y)
    h = kd.shard_map(functor, MESH, in_specs={"x": P("x")})
    kd.testing.assert_equal(h(X, y), X * y)
    assert h.lower(X, y).inputs[0][3] == 0


def test_out_specs_over_another_axis_report_its_shards():
    mesh = Mesh({"x": 2, "y": 3})
    out = kd.shard_map(lambda x: x + 1, mesh, in_specs=P("x"), out_specs=P("y"))(kd.slice([1, 2, 3, 4, 5, 6]))
    assert out.sharding.bounds == (0, 2, 4, 6)


def test_calls_from_several_threads_at_once():
    import concurrent.futures

    fns = [sharded(lambda x, k=k: x * k + kd.sum(x)) for k in range(6)]
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        outs = list(pool.map(lambda f: f(X), fns))
    for k, out in enumerate(outs):
        kd.testing.assert_equal(out, X * k + kd.sum(X))


def test_rows_of_shards_equal_subslices():
    import random

    from plait import _plait

    rng = random.Random(7)
    values = [kd.slice([[1, None], [3], [], [4, 5, 6]]), kd.slice([[[1], [2, 3]], [[4]], [], [[5, 6], []]]),
              kd.slice([["a", "b"], ["c"], [None], ["d", "e"]]), kd.slice([[1, "x"], [2.5], [None], [kd.present]], kd.OBJECT),
              kd.slice([[1, 2], [3, 4], [5, 6], [7, 8]]), kd.slice([[[1, 2]], [[3, 4]], [[5, 6]], [[7, 8]]]),
              kd.slice([True, False, None, True]), kd.new(a=kd.slice([1, 2, 3, 4]))]
    for x in values:
        for _ in range(10):
            cut = sorted(rng.randint(0, 4) for _ in range(rng.randint(1, 3)))
            bounds = [0, *cut, 4]
            pieces = _plait.shard_split(x, bounds)
            for (a, b), piece in zip(zip(bounds, bounds[1:]), pieces):
                kd.testing.assert_equal(piece, kd.subslice(x, slice(a, b), ...))
            kd.testing.assert_equal(_plait.shard_gather(pieces, False), x)


def test_a_progress_bar_counts_the_shards_tasks(capsys):
    kd.progress.set_enabled(True)
    try:
        sharded(lambda x: x - kd.math.mean(x))(X)
    finally:
        kd.progress.set_enabled(None)
    err = capsys.readouterr().err
    assert "kd.shard_map: 100%" in err and "| 4/4" in err
    # Off by default where the output is no terminal.
    sharded(lambda x: x + 1)(X)
    assert capsys.readouterr().err == ""


def test_integer_means_are_exact():
    for x in (kd.slice([[3, 5, 5], [None, 3, 3]]), kd.slice([kd.int64(2**40 + 1), kd.int64(3), kd.int64(7)]),
              kd.slice([[None], [None]], kd.INT32)):
        for n in (2, 3):
            kd.testing.assert_equal(kd.shard_map(kd.math.mean, Mesh({"x": n}), in_specs=P("x"))(x), kd.math.mean(x))


def test_in_specs_keys_are_checked():
    with pytest.raises(ValueError, match="positions \\(from 0\\) or names, got -1"):
        kd.shard_map(lambda a, y: y, MESH, in_specs={-1: P("x")})(1, y=X)
    # A keyword argument past a tuple of specs passes whole.
    f = kd.shard_map(lambda x, y=1: x + y, MESH, in_specs=(P("x"),))
    kd.testing.assert_equal(f(X, y=kd.item(1)), X + 1)


def test_plans_calling_python_run_beside_the_pool():
    # Parts with Python functions get threads of their own: no deadlock with
    # the kernels' pool, results as sequential.
    big = kd.range(0, 300_000)

    def g(s):
        return s + kd.int64(kd.sum(big * 3 % 1000003) * 0)

    outs = {}
    for k in range(6):
        outs[f"p{k}"] = kd.lazy.call(kd.py_fn(g), kd.I.x + k)
        outs[f"r{k}"] = kd.lazy.sum(kd.lazy.math.pow(kd.I.big, 2) * k + kd.I.big)
    parts = kd.parallel.partition(outs, lambda n: repr(n))
    got = kd.parallel.run(parts, x=kd.range(0, 10), big=big)
    for k in range(6):
        kd.testing.assert_equal(got[f"p{k}"], kd.range(0, 10) + k)
