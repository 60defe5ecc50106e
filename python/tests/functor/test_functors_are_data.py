"""Functors are data (seed 001): random traced functors with control flow
(`kd.if_`, `kd.map`, `kd.while_`, `kd.for_`, `kd.functor.reduce`, nested
`trace_as_fn` functors, lambdas) are saved, loaded in a fresh process that
never imported the code defining them, and give the same results or the
same errors there; the same functor traced in two processes has one
fingerprint."""

import json
import os
import re
import subprocess
import sys
import textwrap

import pytest

from plait import kd

HERE = os.path.dirname(__file__)
sys.path.insert(0, HERE)
import random_functors  # noqa: E402 - the generator beside this file

N = random_functors.N_PROGRAMS

# Loads every saved functor and its argument, calls it, and prints what it
# gave and its fingerprint: plait only, no test code.
LOADER = textwrap.dedent("""
    import json, sys
    from plait import kd
    directory, n = sys.argv[1], int(sys.argv[2])
    out = []
    for k in range(n):
        f, x = kd.load(f"{directory}/f{k}.plait"), kd.load(f"{directory}/x{k}.plait")
        try:
            got = ["ok", repr(f(x))]
        except Exception as e:
            got = [type(e).__name__, str(e)]
        out.append(got + [str(f.fingerprint)])
    assert "random_functors" not in sys.modules
    print(json.dumps(out))
""")

# Traces every functor again and prints its fingerprint.
BUILDER = textwrap.dedent("""
    import json, sys
    sys.path.insert(0, sys.argv[1])
    import random_functors
    print(json.dumps([str(random_functors.build(k).fingerprint) for k in range(int(sys.argv[2]))]))
""")


def run(script, *args):
    done = subprocess.run([sys.executable, "-c", script, *map(str, args)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def without_bag_ids(text):
    return re.sub(r"\$[0-9a-f]+", "$", text)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    directory = tmp_path_factory.mktemp("functors")
    functors = [random_functors.build(k) for k in range(N)]
    outcomes = []
    for k, f in enumerate(functors):
        kd.dump(f, str(directory / f"f{k}.plait"))
        kd.dump(random_functors.inputs(k), str(directory / f"x{k}.plait"))
        outcomes.append(random_functors.outcome(f, random_functors.inputs(k)))
    return directory, functors, outcomes


def test_the_programs_use_control_flow_and_some_fail(saved):
    _, _, outcomes = saved
    sources = "".join(random_functors.program(k) for k in range(N))
    for construct in ("kd.if_", "kd.map", "kd.while_", "kd.for_", "kd.functor.reduce", "trace_as_fn", "lambda"):
        assert construct in sources
    failures = sum(kind != "ok" for kind, _ in outcomes)
    assert 0 < failures < N // 3


def test_loaded_in_a_fresh_process_they_give_the_same_results_and_errors(saved):
    directory, functors, outcomes = saved
    loaded = run(LOADER, directory, N)
    for k, (kind, text, fingerprint) in enumerate(loaded):
        assert (kind, without_bag_ids(text)) == (outcomes[k][0], without_bag_ids(outcomes[k][1])), random_functors.program(k)
        assert fingerprint == str(functors[k].fingerprint), random_functors.program(k)


def test_traced_in_another_process_they_have_the_same_fingerprints(saved):
    _, functors, _ = saved
    assert run(BUILDER, HERE, N) == [str(f.fingerprint) for f in functors]


def test_saving_a_py_fn_names_it_and_unknown_operators_are_named():
    with pytest.raises(ValueError, match="cannot serialize .*py_fn"):
        kd.dumps(kd.fn(lambda x: kd.map(kd.py_fn(lambda y: y), x)))
    data = kd.dumps(kd.fn(lambda x: kd.math.abs(x)), compression=None)
    hostile = data.replace(b"kd.math.abs", b"kd.math.xyz")
    import zlib
    body = bytearray(hostile)
    body[-4:] = zlib.crc32(bytes(body[22:-4])).to_bytes(4, "little")
    with pytest.raises(ValueError, match="unknown operator kd.math.xyz"):
        kd.loads(bytes(body))


@kd.check_inputs(x=kd.INT32)
def _checked(x):
    return x + 1


@pytest.mark.parametrize("make, args, expected", [
    (lambda: kd.fn(lambda x: kd.with_print(x + 1, "x is", x)), (kd.item(2),), "3"),
    (lambda: kd.fn(lambda x: kd.assertion.with_assertion(x, x > 0, lambda x: kd.strings.join("bad ", kd.strings.format("{x}", x=x)), x)),
     (kd.item(2),), "2"),
    (lambda: kd.fn(lambda x: kd.assertion.assert_primitive("x", x, kd.INT64)), (kd.slice([1, 2]),), "[1, 2]"),
    (lambda: kd.fn(_checked), (kd.item(1),), "2"),
    (lambda: kd.fn(lambda x: kd.dict(x, x)[x]), (kd.slice(["a", "b"]),), "['a', 'b']"),
    (lambda: kd.fn(lambda x: kd.explode(kd.list([1, 2])) + x), (kd.item(1),), "[2, 3]"),
    (lambda: kd.fn(lambda x: kd.new(a=x).a), (kd.slice([1, 2]),), "[1, 2]"),
    (lambda: kd.fn(lambda x: kd.select(x, lambda v: v > 1)), (kd.slice([1, 2, 3]),), "[2, 3]"),
    (lambda: kd.fn(lambda x: kd.tuples.get_nth(kd.tuple(x, x + 1), 1)), (kd.item(1),), "2"),
    (lambda: kd.fn(lambda x: kd.iterables.reduce_concat(kd.iterables.make(x, x), x)), (kd.slice([1]),), "[1, 1, 1]"),
    (lambda: kd.fn(lambda x: kd.functor.flat_map_chain(kd.iterables.from_1d_slice(x),
                                                       lambda v: kd.iterables.make(v, v))),
     (kd.slice([1, 2]),), "ITERABLE[DATA_SLICE]"),
])
def test_functors_of_moved_operators_are_saved(make, args, expected, capsys):
    f = make()
    loaded = kd.loads(kd.dumps(f))
    assert loaded.fingerprint == f.fingerprint
    for g in (f, loaded):
        result = g(*args)
        text = repr(result) if expected == "ITERABLE[DATA_SLICE]" else str(result)
        assert text.startswith(expected)


def test_with_print_prints_at_each_call_of_a_loaded_functor(capsys):
    f = kd.loads(kd.dumps(kd.fn(lambda x: kd.with_print(x, "x =", x, sep=" "))))
    f(kd.item(5))
    f(kd.slice([1, 2]))
    assert capsys.readouterr().out == "x = 5\nx = [1, 2]\n"


def test_a_failing_check_of_a_loaded_functor_gives_its_message():
    f = kd.loads(kd.dumps(kd.fn(_checked)))
    with pytest.raises(ValueError, match="type mismatch for parameter x; expected type INT32, got STRING"):
        f(kd.item("a"))
