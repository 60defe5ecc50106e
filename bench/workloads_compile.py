"""Benchmark workloads of kd.compile (issue 24), one table with every
library measured in the same run: a 50-operation elementwise chain
(arithmetic, comparisons, masks) on 10M FLOAT32 — plait compiled and
eager, koladata (eager, and its functor call), numpy, jax.jit on CPU — a
cache-hit call on DataItems against a cached jax.jit call on scalars, a
new batch size under dynamic dims against a hit, and the chain over jagged
rows with a per-row value broadcast.

jax (in bench/requirements.txt) is optional: its columns are empty
without it."""

import numpy as np

try:
    import jax
    import jax.numpy as jnp
except ImportError:  # the table then has no jax column
    jax = None

N_BLOCKS = 5  # 10 operations each


def chain(kd):
    """50 operations: per block *, +, -, abs, /, >, &, |, maximum, *."""

    def f(x, y):
        a = x
        for _ in range(N_BLOCKS):
            a = a * 1.01
            a = a + y
            a = a - 0.5
            a = kd.math.abs(a)
            a = a / 1.3
            m = a > 0.2
            a = a & m
            a = a | y
            a = kd.math.maximum(a, 0.0)
            a = a * y
        return a

    return f


def numpy_chain(x, y):
    a = x
    for _ in range(N_BLOCKS):
        a = a * np.float32(1.01)
        a = a + y
        a = a - np.float32(0.5)
        a = np.abs(a)
        a = a / np.float32(1.3)
        a = np.where(a > np.float32(0.2), a, y)  # & then | (no missing in numpy)
        a = np.maximum(a, np.float32(0.0))
        a = a * y
    return a


def jax_chain(x, y):
    a = x
    for _ in range(N_BLOCKS):
        a = a * 1.01
        a = a + y
        a = a - 0.5
        a = jnp.abs(a)
        a = a / 1.3
        a = jnp.where(a > 0.2, a, y)
        a = jnp.maximum(a, 0.0)
        a = a * y
    return a


def workloads(scale, pkd, kkd):
    n = int(10_000_000 * scale)
    rng = np.random.default_rng(24)
    x_np = rng.standard_normal(n).astype(np.float32)
    y_np = rng.standard_normal(n).astype(np.float32)
    state = {}

    def prepare(kd, name):
        x = kd.slice(x_np) if name == "plait" else kd.slice(x_np.tolist(), kd.FLOAT32)
        y = kd.slice(y_np) if name == "plait" else kd.slice(y_np.tolist(), kd.FLOAT32)
        state[name] = (x, y, kd.fn(chain(kd)))
        if name == "plait":
            compiled = kd.compile(chain(kd))
            compiled(x, y)  # traced once: the timed calls hit
            state["compiled"] = compiled

    impls = {
        "plait": lambda: state["compiled"](*state["plait"][:2]),
        "plait eager": lambda: chain(pkd)(*state["plait"][:2]),
        "koladata": lambda: chain(kkd)(*state["koladata"][:2]),
        "koladata fn": lambda: state["koladata"][2](*state["koladata"][:2]),
        "numpy": lambda: numpy_chain(x_np, y_np),
    }
    if jax is not None:
        jitted = jax.jit(jax_chain)
        xj, yj = jnp.asarray(x_np), jnp.asarray(y_np)
        jitted(xj, yj).block_until_ready()
        impls["jax.jit"] = lambda: jitted(xj, yj).block_until_ready()
    yield f"50-op chain on {n:,} FLOAT32", impls, prepare

    # A cache hit on DataItems: the call's overhead (REPS calls per run).
    reps = 1000
    items = {}

    def prepare_items(kd, name):
        items[name] = (kd.item(0.3, kd.FLOAT32), kd.item(1.7, kd.FLOAT32))
        if name == "plait":
            compiled = kd.compile(chain(kd))
            compiled(*items[name])
            items["compiled"] = compiled
        else:
            items["koladata fn"] = kd.fn(chain(kd))

    def repeat(fn):
        def run():
            for _ in range(reps):
                fn()

        return run

    hit = {
        "plait": repeat(lambda: items["compiled"](*items["plait"])),
        "koladata fn": repeat(lambda: items["koladata fn"](*items["koladata"])),
    }
    if jax is not None:
        jitted_items = jax.jit(jax_chain)
        sx, sy = jnp.float32(0.3), jnp.float32(1.7)
        jitted_items(sx, sy).block_until_ready()
        hit["jax.jit"] = repeat(lambda: jitted_items(sx, sy).block_until_ready())
    yield f"  cache hit on DataItems, {reps} calls", hit, prepare_items

    # A new batch size under dynamic dims costs what a hit costs: the same
    # calls on slices of 11 sizes, by a function compiled with the batch
    # dimension dynamic (one plan) and by one compiled without (a plan per
    # size, traced before the timed runs: every call hits).
    batch = {}
    sizes = [995 + k % 11 for k in range(reps)]

    def prepare_batches(kd, name):
        if name != "plait":
            return
        by_size = {s: (kd.slice(x_np[:s]), kd.slice(y_np[:s])) for s in set(sizes)}
        batch["args"] = [by_size[s] for s in sizes]
        batch["dynamic"] = kd.compile(chain(kd), dynamic_dims={0: {0: "batch"}, 1: {0: "batch"}})
        batch["static"] = kd.compile(chain(kd))
        for args in by_size.values():
            batch["static"](*args)
        batch["dynamic"](*batch["args"][0])

    def calls(which):
        def run():
            c = batch[which]
            for args in batch["args"]:
                c(*args)

        return run

    yield f"  {reps} calls, 11 sizes, each a hit", {"plait": calls("static")}, prepare_batches
    yield f"  {reps} calls, 11 sizes, dynamic dims", {"plait": calls("dynamic")}, None

    # The chain over jagged rows, a per-row value broadcast to the items.
    n_rows = int(1_000_000 * scale)
    jagged = {}

    def prepare_jagged(kd, name):
        from bench_common import jagged_rows

        sizes = jagged_rows(n_rows)
        flat = rng.standard_normal(sum(sizes)).astype(np.float32)
        shape = kd.shapes.new(n_rows, kd.slice(sizes))
        values = kd.slice(flat) if name == "plait" else kd.slice(flat.tolist(), kd.FLOAT32)
        per_row = rng.standard_normal(n_rows).astype(np.float32)
        per_row = kd.slice(per_row) if name == "plait" else kd.slice(per_row.tolist(), kd.FLOAT32)
        jagged[name] = (kd.reshape(values, shape), per_row)
        if name == "plait":
            compiled = kd.compile(chain(kd))
            compiled(*jagged[name])
            jagged["compiled"] = compiled

    yield f"  the chain on {n_rows:,} jagged rows (~10M)", {
        "plait": lambda: jagged["compiled"](*jagged["plait"]),
        "plait eager": lambda: chain(pkd)(*jagged["plait"]),
        "koladata": lambda: chain(kkd)(*jagged["koladata"]),
    }, prepare_jagged
