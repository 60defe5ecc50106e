"""The `ray` runner: kd.shard_map and kd.parallel.run on a Ray started in
this process (two CPUs), equal to the unsharded calls; failures name the
shard. Skipped where Ray cannot be installed."""

import pytest
from shard_programs import assert_same, outcome, program, reference

from plait import kd
from plait.kd.parallel import Mesh, P

ray = pytest.importorskip("ray")

MESH = Mesh({"x": 2})
X = kd.slice([[1, 2], [3], [4, 5, 6], [7]])


@pytest.fixture(scope="module", autouse=True)
def ray_cluster():
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    if started:
        ray.shutdown()


def on_ray(fn, **kwargs):
    kwargs.setdefault("in_specs", {0: P("x")})
    return kd.shard_map(fn, MESH, runner="ray", **kwargs)


def test_the_issue_examples_on_ray():
    doubled = on_ray(lambda x: x * 2)(X)
    kd.testing.assert_equal(doubled, X * 2)
    assert doubled.sharding.spec == P("x")
    kd.testing.assert_equal(on_ray(kd.sum)(X), kd.item(28))
    kd.testing.assert_equal(on_ray(kd.agg_sum)(X), kd.slice([3, 3, 15, 7]))
    kd.testing.assert_equal(on_ray(lambda x: kd.index(x, dim=0))(X), kd.slice([[0, 0], [1], [2, 2, 2], [3]], kd.INT64))
    kd.testing.assert_equal(on_ray(lambda x: x - kd.math.mean(x))(X), X - kd.math.mean(X))


def test_the_runner_from_the_environment(monkeypatch):
    monkeypatch.setenv("PLAIT_RUNNER", "ray")
    kd.testing.assert_equal(kd.shard_map(lambda x: x + 1, MESH, in_specs=P("x"))(X), X + 1)


def test_entities_travel_with_their_bags():
    people = kd.new(name=kd.slice(["ann", "bob", "cy"]), age=kd.slice([30, 40, 50]))
    kd.testing.assert_equal(on_ray(lambda p: kd.strings.upper(p.name))(people), kd.strings.upper(people.name))


def test_a_failing_shard_is_named():
    x = kd.slice([[1, 2], [3], [4], [0]])
    with pytest.raises(ValueError, match="division by zero") as info:
        on_ray(lambda x: kd.math.floordiv(x, x))(x)
    assert any("in shard 1 of 2 of kd.shard_map" in n and "Ray worker" in n for n in info.value.__notes__)


def test_partition_runs_on_ray():
    e = {"a": (kd.I.x + 1) * kd.I.y, "b": kd.lazy.agg_sum(kd.I.x * 2)}
    parts = kd.parallel.partition(e, lambda node: "add" if "add" in repr(node.op) else "rest")
    inputs = {"x": kd.slice([[1, 2], [3]]), "y": kd.item(5)}
    local = kd.parallel.run(parts, **inputs)
    remote = kd.parallel.run(parts, runner="ray", **inputs)
    assert set(local) == set(remote) == {"a", "b"}
    for name in local:
        kd.testing.assert_equal(remote[name], local[name])


@pytest.mark.parametrize("chunk", range(6))
def test_random_programs_on_ray_equal_the_unsharded_call(chunk):
    for seed in range(chunk * 50, chunk * 50 + 50):
        source, fn, x, y = program(seed)
        expected = reference(fn, x, y)
        target = kd.fn(fn) if seed % 2 and not isinstance(expected, tuple) else fn
        got = outcome(kd.shard_map(target, Mesh({"x": 2 + seed % 3}), in_specs={0: P("x")}, runner="ray"), x, y)
        assert_same(got, expected, f"seed {seed}:\n{source}")


def test_filters_cut_rows_on_the_workers():
    # The driver learns the new split's rows from the workers' counts.
    flat = kd.slice([1, 5, 2, 7, 3, 9])
    f = on_ray(lambda x: kd.index(kd.select(x, x > 2), dim=0) + kd.select(x, x > 2))
    kd.testing.assert_equal(f(flat), kd.index(kd.select(flat, flat > 2), dim=0) + kd.select(flat, flat > 2))


def test_partition_inputs_of_every_kind_travel_to_ray():
    parts = kd.parallel.partition({"a": kd.lazy.reshape(kd.I.x, kd.I.s) + kd.I.k}, lambda node: 0)
    x = kd.slice([1, 2, 3])
    out = kd.parallel.run(parts, runner="ray", x=x, s=kd.slice([[0], [0, 0]]).get_shape(), k=1)
    kd.testing.assert_equal(out["a"], kd.slice([[2], [3, 4]]))
