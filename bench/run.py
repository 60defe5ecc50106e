"""plait benchmarks: fixed workloads timed on plait, koladata and numpy in one process.

Run with `make bench` (builds the extension in release mode first). Prints the
median of several runs per workload and the ratio koladata / plait (> 1 means
plait is faster). Performance claims in issues and docs come from this table.
"""

import argparse
import gc
import statistics
import time

import numpy as np

import workloads_bag_methods
import workloads_differing_schemas
import workloads_entities
import workloads_fast_paths
import workloads_mixed_types
import workloads_layering
import workloads_lists
import workloads_mutable
import workloads_control_flow
import workloads_conversion
import workloads_dicts
import workloads_expr
import workloads_functor
import workloads_persist
import workloads_interop
import workloads_math
import workloads_parallel
import workloads_per_call
import workloads_slices
import workloads_strings
import workloads_bitwise
import workloads_curves
import workloads_json
import workloads_proto
import workloads_random
import workloads_extension_types
import workloads_jagged
import workloads_koda_api
import workloads_typing
import workloads_compile
import workloads_vmap
import workloads_shard
from bench_common import setup_jagged
from plait import kd as pkd

try:
    from koladata import kd as kkd
except ImportError:  # the table then shows plait (and numpy) alone
    kkd = None


def median_seconds(fn, repeat):
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def foundation_workloads(scale):
    ints = list(range(int(1_000_000 * scale)))
    floats = [i * 0.5 for i in range(int(1_000_000 * scale))]
    n_rows = int(1_000_000 * scale)
    state = {}

    def prepare(kd, name):
        state[name] = setup_jagged(kd, n_rows)

    yield "box 1M Python ints", {
        "plait": lambda: pkd.slice(ints),
        "koladata": lambda: kkd.slice(ints),
        "numpy": lambda: np.array(ints, dtype=np.int32),
    }, None
    yield "box 1M Python floats", {
        "plait": lambda: pkd.slice(floats),
        "koladata": lambda: kkd.slice(floats),
        "numpy": lambda: np.array(floats, dtype=np.float32),
    }, None
    yield "to_py of 1M ints", {
        "plait": lambda: pkd.slice(ints).to_py(),
        "koladata": lambda: kkd.slice(ints).to_py(),
        "numpy": lambda: np.array(ints).tolist(),
    }, None
    yield f".S[:, 1:3] on {n_rows:,} rows (~10 items each)", {
        "plait": lambda: state["plait"][2].S[:, 1:3],
        "koladata": lambda: state["koladata"][2].S[:, 1:3],
    }, prepare
    yield ".S[..., 0] (first item per row)", {
        "plait": lambda: state["plait"][2].S[..., 0],
        "koladata": lambda: state["koladata"][2].S[..., 0],
    }, None
    yield "flatten jagged ~10M items", {
        "plait": lambda: pkd.flatten(state["plait"][2]),
        "koladata": lambda: kkd.flatten(state["koladata"][2]),
    }, None
    yield "reshape flat ~10M items to jagged", {
        "plait": lambda: pkd.reshape(state["plait"][0], state["plait"][1]),
        "koladata": lambda: kkd.reshape(state["koladata"][0], state["koladata"][1]),
    }, None
    yield "expand_to 1M rows onto ~10M items", {
        "plait": lambda: pkd.expand_to(pkd.slice(ints[:n_rows]), state["plait"][2]),
        "koladata": lambda: kkd.expand_to(kkd.slice(ints[:n_rows]), state["koladata"][2]),
    }, None


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--scale", type=float, default=1.0, help="shrink workloads (e.g. 0.01 for a smoke run)")
    parser.add_argument("--only", default="", help="run only the workload groups whose name contains this")
    args = parser.parse_args()
    groups = {
        "foundation": foundation_workloads(args.scale),
        "math": workloads_math.workloads(args.scale, pkd, kkd),
        "slices": workloads_slices.workloads(args.scale, pkd, kkd),
        "strings": workloads_strings.workloads(args.scale, pkd, kkd),
        "entities": workloads_entities.workloads(args.scale, pkd, kkd),
        "layering": workloads_layering.workloads(args.scale, pkd, kkd),
        "lists": workloads_lists.workloads(args.scale, pkd, kkd),
        "mutable": workloads_mutable.workloads(args.scale, pkd, kkd),
        "dicts": workloads_dicts.workloads(args.scale, pkd, kkd),
        "conversion": workloads_conversion.workloads(args.scale, pkd, kkd),
        "expr": workloads_expr.workloads(args.scale, pkd, kkd),
        "functor": workloads_functor.workloads(args.scale, pkd, kkd),
        "control_flow": workloads_control_flow.workloads(args.scale, pkd, kkd),
        "persist": workloads_persist.workloads(args.scale, pkd, kkd),
        "interop": workloads_interop.workloads(args.scale, pkd, kkd),
        "bitwise": workloads_bitwise.workloads(args.scale, pkd, kkd),
        "random": workloads_random.workloads(args.scale, pkd, kkd),
        "curves": workloads_curves.workloads(args.scale, pkd, kkd),
        "json": workloads_json.workloads(args.scale, pkd, kkd),
        "proto": workloads_proto.workloads(args.scale, pkd, kkd),
        "koda_api": workloads_koda_api.workloads(args.scale, pkd, kkd),
        "bag_methods": workloads_bag_methods.workloads(args.scale, pkd, kkd),
        "parallel": workloads_parallel.workloads(args.scale, pkd, kkd),
        "extension_types": workloads_extension_types.workloads(args.scale, pkd, kkd),
        "jagged": workloads_jagged.workloads(args.scale, pkd, kkd),
        "typing": workloads_typing.workloads(args.scale, pkd, kkd),
        "compile": workloads_compile.workloads(args.scale, pkd, kkd),
        "vmap": workloads_vmap.workloads(args.scale, pkd, kkd),
        "shard": workloads_shard.workloads(args.scale, pkd, kkd),
        "differing_schemas": workloads_differing_schemas.workloads(args.scale, pkd, kkd),
        "fast_paths": workloads_fast_paths.workloads(args.scale, pkd, kkd),
        "per_call": workloads_per_call.workloads(args.scale, pkd, kkd),
        "mixed_types": workloads_mixed_types.workloads(args.scale, pkd, kkd),
    }

    print(f"{'workload':<40} {'plait ms':>10} {'koladata ms':>12} {'numpy ms':>10} {'kd/plait':>9}")
    for group, generator in groups.items():
        if args.only not in group:
            continue
        if group == "jagged":
            run_comparison(generator, args.repeat)
            continue
        if group == "compile":
            run_comparison(generator, args.repeat, COMPILE_LIBRARIES, ("numpy", "jax.jit"))
            continue
        if group == "shard":
            run_comparison(generator, args.repeat, ("plait", "eager", "koladata", "awkward"), ("awkward",))
            overhead = workloads_shard.ray_overhead(pkd)
            if overhead is not None:
                per_task, times = overhead
                print(f"Ray's overhead per shard task (x + 1 on 8 rows, 2 shards): {per_task * 1e3:.2f} ms "
                      f"(a call: local {times['local'] * 1e3:.2f} ms, Ray {times['ray'] * 1e3:.2f} ms)")
            continue
        run_group(generator, args.repeat)
        if group == "persist":
            print("bytes written:", workloads_persist.size_report())
        if group == "entities":
            n = int(10_000_000 * args.scale)
            dense, rss = workloads_entities.memory_report(pkd, n)
            print(f"one INT32 attribute on {n:,} entities: {dense / 1e6:.1f} MB in the bag's dense columns, "
                  f"RSS +{rss / 1e6:.1f} MB")


def run_group(generator, repeat):
    for name, impls, prepare in generator:
        if prepare is not None:
            prepare(pkd, "plait")
            if kkd is not None:
                prepare(kkd, "koladata")
        results = {}
        for impl, fn in impls.items():
            if impl == "koladata" and kkd is None:
                continue
            results[impl] = median_seconds(fn, repeat) * 1e3
        plait_ms = results["plait"]
        koda_ms = results.get("koladata")
        numpy_ms = results.get("numpy")
        ratio = f"{koda_ms / plait_ms:8.2f}x" if koda_ms else "      n/a"
        fmt = lambda v: f"{v:10.3f}" if v is not None else f"{'-':>10}"  # noqa: E731
        print(f"{name:<40} {fmt(plait_ms)} {fmt(koda_ms):>12} {fmt(numpy_ms)} {ratio}")


# The columns of the kd.compile table (issue 24).
COMPILE_LIBRARIES = ("plait", "plait eager", "koladata", "koladata fn", "numpy", "jax.jit")


def run_comparison(generator, repeat, libraries=("plait", "koladata", "awkward", "polars", "numpy"), rival_names=("awkward", "polars")):
    """A table of libraries: every library's time, koladata / plait, and
    the fastest rival over plait (> 1 means plait is faster). The jagged
    table (issue 22) has Awkward and Polars as rivals; kd.compile's
    (issue 24) numpy and jax.jit."""
    print()
    width = {lib: max(13, len(lib) + 5) for lib in libraries}
    print(f"{'workload':<40}" + "".join(f"{name + ' ms':>{width[name]}}" for name in libraries) + f"{'kd/plait':>10}{'best/plait':>11}")
    for name, impls, prepare in generator:
        if prepare is not None:
            prepare(pkd, "plait")
            if kkd is not None:
                prepare(kkd, "koladata")
        ms = {impl: median_seconds(fn, repeat) * 1e3 for impl, fn in impls.items()
              if fn is not None and (kkd is not None or not impl.startswith("koladata"))}
        cells = "".join(f"{ms[lib]:{width[lib]}.2f}" if lib in ms else f"{'-':>{width[lib]}}" for lib in libraries)
        koladata = [ms[lib] for lib in ("koladata", "koladata fn") if lib in ms]
        koda = f"{min(koladata) / ms['plait']:9.2f}x" if koladata else f"{'-':>10}"
        rivals = [ms[lib] for lib in rival_names if lib in ms]
        best = f"{min(rivals) / ms['plait']:10.2f}x" if rivals else f"{'-':>11}"
        print(f"{name:<40}{cells}{koda}{best}")


if __name__ == "__main__":
    main()
