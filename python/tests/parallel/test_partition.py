"""kd.parallel.partition and kd.parallel.run: DAGs cut into parts that run
in dependency order give the unpartitioned results; partition-induced
cycles are refused; partitions do not depend on hash seeds."""

import json
import os
import random
import re
import subprocess
import sys

import pytest

from plait import _plait, kd
from plait.kd import I

OPS = ["({a} + {b})", "({a} * {b})", "({a} - {b})", "kd.lazy.math.maximum({a}, {b})", "kd.lazy.agg_sum({a})",
       "kd.lazy.math.abs({a})"]


def random_dag(k):
    """Named outputs over I.x (a jagged slice) and I.y (an item), with
    shared subexpressions."""
    rng = random.Random(k)
    pool = [I.x, I.y, I.x * 2]
    for _ in range(rng.randint(3, 12)):
        template = rng.choice(OPS)
        a, b = rng.choice(pool), rng.choice(pool)
        pool.append(eval(template.format(a="a", b="b"), {"kd": kd, "a": a, "b": b}))  # noqa: S307 - generated test DAGs
    return {f"out{i}": e for i, e in enumerate(rng.sample(pool[3:], min(2, len(pool) - 3)))}


def inputs():
    return {"x": kd.slice([[1, -2], [3]]), "y": kd.item(5)}


def test_the_a_b_c_cycle_is_refused():
    a = I.x + 1
    b = a * 2
    c = a + b
    with pytest.raises(kd.parallel.PartitionInducedCycleError, match="part 0 -> part 1 -> part 0"):
        kd.parallel.partition(c, lambda node: "B" if node.fingerprint == b.fingerprint else "AC")
    assert issubclass(kd.parallel.PartitionInducedCycleError, ValueError)
    parts = kd.parallel.partition(c, lambda node: "A" if node.fingerprint == a.fingerprint else "BC")
    assert [(p.pid, p.needed_pids) for p in parts] == [(0, ()), (1, (0,))]
    assert parts[0].output_names == ("_pd_part_ph0",) and "_pd_part_ph0" in parts[1].input_names
    assert kd.parallel.run(parts, x=kd.slice([1, 2]))["_pd_out"].to_py() == [6, 9]


@pytest.mark.parametrize("k", range(50))
def test_running_the_parts_equals_the_dag(k):
    outputs = random_dag(k)
    try:
        expected = {name: kd.eval(e, **inputs()) for name, e in outputs.items()}
    except ValueError as e:
        # A DAG failing whole fails partitioned, with the same error.
        with pytest.raises(ValueError, match=re.escape(str(e).split("\n")[0])):
            kd.parallel.run(kd.parallel.partition(outputs, lambda node: 0), **inputs())
        return
    rng = random.Random(100 + k)
    n_parts = rng.randint(1, 4)
    # Contiguous runs of nodes in post order: never a cycle.
    n_nodes = len(_plait.partition_nodes(list(outputs.items())))
    seen = []

    def contiguous(node):
        seen.append(node.fingerprint)
        return (len(seen) - 1) * n_parts // n_nodes

    parts = kd.parallel.partition(outputs, contiguous)
    assert len(parts) == min(n_parts, n_nodes)
    got = kd.parallel.run(parts, **inputs())
    assert set(got) == set(expected)
    for name in expected:
        kd.testing.assert_equal(got[name], expected[name])
    # Random parts: either a cycle (refused) or the same results.
    choice = {}
    try:
        parts = kd.parallel.partition(outputs, lambda node: choice.setdefault(node.fingerprint, rng.randrange(n_parts)))
    except kd.parallel.PartitionInducedCycleError:
        return
    got = kd.parallel.run(parts, **inputs())
    for name in expected:
        kd.testing.assert_equal(got[name], expected[name])


def test_functors_and_runner_choice():
    f = kd.fn(lambda x, y: kd.agg_sum(x * y) + kd.sum(y))
    parts = kd.parallel.partition(f, lambda node: repr(node.op))
    assert len(parts) == 4
    out = kd.parallel.run(parts, x=kd.slice([[1, 2], [3]]), y=kd.slice([[1, 1], [2]]))
    assert out["_pd_out"].to_py() == [7, 10]
    with pytest.raises(ValueError, match=r"runner must be one of \['local', 'ray'\]"):
        kd.parallel.run(parts, runner="elsewhere", x=kd.item(1), y=kd.item(1))
    with pytest.raises(TypeError, match="expected a functor, an expression or a dict"):
        kd.parallel.partition(3, lambda node: 0)


def test_a_failing_part_is_named():
    parts = kd.parallel.partition({"z": (I.x // I.y) + 1}, lambda node: repr(node.op))
    with pytest.raises(ValueError, match="division by zero") as info:
        kd.parallel.run(parts, x=kd.slice([1]), y=kd.slice([0]))
    assert any("in part 0 of the partition" in note for note in info.value.__notes__)


_SUMMARY = """
import json
from plait import _plait, kd
from plait.kd import I
e = {'a': kd.lazy.agg_sum(I.x * 2) + I.y, 'b': kd.lazy.math.abs(I.x - I.y)}
parts = kd.parallel.partition(e, lambda node: str(node.op) + '-part')
print(json.dumps([[p.pid, list(p.needed_pids), list(p.input_names), list(p.output_names)] for p in parts]))
"""


def test_the_same_partition_for_any_hash_seed():
    outs = set()
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run([sys.executable, "-c", _SUMMARY], env=env, capture_output=True, text=True, check=True).stdout
        outs.add(out)
        assert json.loads(out)
    assert len(outs) == 1
