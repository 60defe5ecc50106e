"""Benchmark workloads of kd.shard_map (issue 26), measured in one run,
over 100M generated FLOAT32 items (1M jagged rows of ~100):

- a mixed job: aggregations of all items and of rows, and a select (its
  elementwise and aggregation kernels already use both cores unsharded;
  the select runs on one);
- a CPU-bound job: a select and distinct values per row, and
  aggregations (distinct values run on one core; the rest on both);
- a hashing job: distinct values per row and their count (on one core:
  the work sharding spreads);

each unsharded (eager, and kd.compile of the same function: the plan
shard_map runs on each shard), sharded over 2 workers on the local runner
and on Ray, and in koladata (and Awkward Array for the mixed job); then
Ray's overhead per shard task on a tiny input.

Ray and Awkward are optional: their rows are skipped without them."""

import time

import numpy as np

try:
    import awkward as ak
except ImportError:
    ak = None

try:
    import ray
except ImportError:
    ray = None


def job(kd):
    """Aggregations of all items and of each row, and a select."""

    def f(x):
        m = kd.math.mean(x)
        y = x * 1.5 - m
        kept = kd.select(y, y > 0.0)
        return kd.agg_sum(kept), kd.agg_max(y), kd.max(y), kd.count(kept)

    return f


def cpu_job(kd):
    """A select and distinct values per row, then aggregations."""

    def f(x):
        buckets = kd.math.floor(x * 10.0)
        kept = kd.select(buckets, buckets > 0.0)
        distinct = kd.agg_count(kd.unique(kept))
        return kd.agg_sum(kept), distinct, kd.sum(distinct)

    return f


def hashing_job(kd):
    """Distinct values per row, counted."""

    def f(x):
        distinct = kd.agg_count(kd.unique(kd.math.floor(x * 10.0)))
        return distinct, kd.sum(distinct)

    return f


def awkward_job(x):
    m = ak.mean(x, axis=None)
    y = x * 1.5 - m
    kept = y[y > 0.0]
    return ak.sum(kept, axis=-1), ak.max(y, axis=-1), ak.max(y, axis=None), ak.count(kept, axis=None)


def generate(n_rows, seed=26):
    """Row sizes averaging 100 and the items (FLOAT32), as numpy arrays."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(50, 151, size=n_rows)
    values = rng.standard_normal(int(sizes.sum()), dtype=np.float32)
    return sizes, values


def workloads(scale, pkd, kkd):
    n_rows = int(1_000_000 * scale)
    state = {}

    def prepare(kd, name):
        from plait.kd_ext import npkd

        sizes, values = state.setdefault("data", generate(n_rows))
        if name == "plait":
            flat = npkd.from_array(values)
            state["plait"] = kd.reshape(flat, kd.shapes.new(n_rows, npkd.from_array(sizes.astype(np.int64))))
            mesh = kd.parallel.Mesh({"x": 2})
            for label, make in (("mixed", job), ("cpu", cpu_job), ("hashing", hashing_job)):
                f = make(kd)
                state[label] = {
                    "eager": f, "compiled": kd.compile(f),
                    "local": kd.shard_map(f, mesh, in_specs=kd.parallel.P("x"), runner="local"),
                    "ray": kd.shard_map(f, mesh, in_specs=kd.parallel.P("x"), runner="ray"),
                }
            if ak is not None:
                state["awkward"] = ak.unflatten(values, sizes)
        else:
            flat = kd.slice(values.tolist(), kd.FLOAT32)
            state["koladata"] = kd.reshape(flat, kd.shapes.new(n_rows, kd.slice(sizes.tolist())))
            state["koladata mixed"], state["koladata cpu"], state["koladata hashing"] = job(kd), cpu_job(kd), hashing_job(kd)

    x = lambda: state["plait"]  # noqa: E731
    for label, title in (("mixed", "mixed job"), ("cpu", "CPU-bound job"), ("hashing", "hashing job")):
        yield f"{title}, {n_rows:,} rows (~{n_rows * 100 / 1e6:.0f}M items): unsharded", {
            "plait": lambda label=label: state[label]["compiled"](x()),
            "koladata": lambda label=label: state[f"koladata {label}"](state["koladata"]),
            "eager": lambda label=label: state[label]["eager"](x()),
            "awkward": (lambda: awkward_job(state["awkward"])) if ak is not None and label == "mixed" else None,
        }, prepare if label == "mixed" else None
        yield "  kd.shard_map over 2 workers, local", {
            "plait": lambda label=label: state[label]["local"](x()),
        }, None
        if ray is not None:
            yield "  kd.shard_map over 2 workers, Ray", {
                "plait": lambda label=label: state[label]["ray"](x()),
            }, _start_ray


def _start_ray(kd, name):
    """Starts Ray in-process (2 CPUs) once, before plait's Ray runs."""
    if name == "plait" and not ray.is_initialized():
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)


def ray_overhead(pkd, repeat=20):
    """Seconds per shard task Ray adds over the local runner: a one-step
    job (x + 1) on 8 rows, over 2 shards, Ray's time minus local's."""
    if ray is None:
        return None
    _start_ray(pkd, "plait")
    x = pkd.slice([[1, 2], [3], [4, 5, 6], [7], [8], [9, 10], [11], [12]])
    mesh = pkd.parallel.Mesh({"x": 2})
    times = {}
    for runner in ("local", "ray"):
        f = pkd.shard_map(lambda v: v + 1, mesh, in_specs=pkd.parallel.P("x"), runner=runner)
        f(x)
        start = time.perf_counter()
        for _ in range(repeat):
            f(x)
        times[runner] = (time.perf_counter() - start) / repeat
    return (times["ray"] - times["local"]) / 2, times
