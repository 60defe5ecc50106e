"""plait against koladata on kd.streams and kd.parallel (issue 21): the same
programs — stream pipelines, loops over streams, waits, errors, and
call_multithreaded / yield_multithreaded of random functors — give the same
items (compared by repr, ids aside), or both fail with the same message."""

import random
import re

import pytest

from plait import kd

koda = pytest.importorskip("koladata.kd", reason="koladata is not installed")


def norm(text):
    return re.sub(r"\$[0-9a-zA-Z]{4,}", "$", text)


def run(k, program):
    """("ok", repr of the result) or ("error", the message without the operator prefix)."""
    try:
        result = program(k)
    except (ValueError, TypeError) as error:
        message = str(error).split("\n")[0]
        message = re.sub(r"^\[[A-Z_]+\] ", "", message)
        while re.match(r"^(kd|koda_internal)\.[\w.]+: ", message):
            message = re.sub(r"^(kd|koda_internal)\.[\w.]+: ", "", message, count=1)
        return "error", message
    return "ok", norm(repr(result))


def read(stream):
    return stream.read_all(timeout=30)


PROGRAMS = {
    "make": lambda k: read(k.streams.make(1, 2, 3)),
    "make_mixed": lambda k: k.streams.make(1, k.bag()),
    "make_bags": lambda k: repr(k.streams.make(k.bag(), k.bag())),
    "from_1d_slice": lambda k: read(k.streams.from_1d_slice(k.slice([1, None, 3]))),
    "from_1d_slice_rank0": lambda k: k.streams.from_1d_slice(k.item(1)),
    "chain": lambda k: read(k.streams.chain(k.streams.make(1), k.streams.make(2, 3), k.streams.make())),
    "chain_mixed": lambda k: k.streams.chain(k.streams.make(1), k.streams.make(k.bag())),
    "chain_empty": lambda k: read(k.streams.chain()),
    "chain_from_stream": lambda k: read(k.streams.chain_from_stream(k.streams.make(k.streams.make(1, 2), k.streams.make(3)))),
    "interleave_sorted": lambda k: sorted(x.to_py() for x in read(k.streams.interleave(k.streams.make(1, 5), k.streams.make(2, 3)))),
    "map": lambda k: read(k.streams.map(k.streams.make(1, 2, 3), lambda x: x * 10)),
    "map_entities": lambda k: [x.a.to_py() for x in read(k.streams.map(k.streams.make(1, 2), lambda x: k.new(a=x)))],
    "map_unordered_sorted": lambda k: sorted(x.to_py() for x in read(k.streams.map_unordered(k.streams.make(1, 2, 3), lambda x: x + 1))),
    "map_error": lambda k: read(k.streams.map(k.streams.make(1, 2), lambda x: x.foo)),
    "map_wrong_type": lambda k: read(k.streams.map(k.streams.make(1), lambda x: k.streams.make(x))),
    "map_not_a_stream": lambda k: k.streams.map(k.item(1), lambda x: x),
    "flat_map_chained": lambda k: read(k.streams.flat_map_chained(k.streams.make(1, 10), lambda x: k.streams.make(x, x * 2))),
    "flat_map_interleaved_sorted": lambda k: sorted(
        x.to_py() for x in read(k.streams.flat_map_interleaved(k.streams.make(1, 10), lambda x: k.streams.make(x, x * 2)))),
    "flat_map_wrong_type": lambda k: read(k.streams.flat_map_chained(k.streams.make(1), lambda x: x)),
    "reduce": lambda k: read(k.streams.reduce(lambda a, x: a * 10 + x, k.streams.make(1, 2, 3), 0)),
    "reduce_concat": lambda k: read(k.streams.reduce_concat(k.streams.make(k.slice([2, 3]), k.slice([4])), k.slice([1]))),
    "reduce_concat_2d": lambda k: read(k.streams.reduce_concat(k.streams.make(k.slice([[3]])), k.slice([[1], [2]]), ndim=2)),
    "reduce_stack": lambda k: read(k.streams.reduce_stack(k.streams.make(k.slice([1, 2]), k.slice([3, 4])), k.slice([0, 0]))),
    "foreach_returns": lambda k: read(k.streams.foreach(k.streams.make(1, 2, 3), lambda x, returns: k.namedtuple(returns=returns + x), returns=0)),
    "foreach_condition": lambda k: read(k.streams.foreach(
        k.streams.make(1, 2, 3, 4), lambda x, returns: k.namedtuple(returns=returns + x), returns=0,
        condition_fn=lambda returns: returns < 3)),
    "foreach_finalize": lambda k: read(k.streams.foreach(
        k.streams.make(1, 2), lambda x, returns: k.namedtuple(returns=returns + x), returns=0,
        finalize_fn=lambda returns: k.namedtuple(returns=returns * 100))),
    "foreach_yields": lambda k: read(k.streams.foreach(
        k.streams.make(1, 2), lambda x: k.namedtuple(yields=k.streams.make(x, x * 10)), yields=k.streams.make(0))),
    "while_returns": lambda k: read(k.streams.while_(
        lambda n, returns: n > 0, lambda n, returns: k.namedtuple(n=n - 1, returns=returns * n), n=5, returns=1)),
    "while_yields": lambda k: read(k.streams.while_(
        lambda n: n > 0, lambda n: k.namedtuple(n=n - 1, yields=k.streams.make(n)), n=3, yields=k.streams.make())),
    "call_await": lambda k: read(k.streams.call(k.fn(lambda x, y: x + y), k.streams.await_(k.streams.make(5)), y=1)),
    "call_plain": lambda k: read(k.streams.call(k.fn(lambda x: x * 2), 4)),
    "await_plain": lambda k: k.streams.await_(k.item(1)),
    "sync_wait": lambda k: k.streams.sync_wait(k.streams.make(5)),
    "sync_wait_many": lambda k: k.streams.sync_wait(k.streams.make(1, 2)),
    "sync_wait_empty": lambda k: k.streams.sync_wait(k.streams.make()),
    "sync_wait_not_a_stream": lambda k: k.streams.sync_wait(k.item(1)),
    "executors": lambda k: (k.streams.get_default_executor(), k.streams.get_eager_executor(), k.streams.make_executor(thread_limit=2)),
    "make_executor_negative": lambda k: k.streams.make_executor(thread_limit=-1),
    "qtype": lambda k: (k.streams.make(1).qtype, k.streams.get_stream_qtype(k.qtypes.DATA_BAG), k.qtypes.EXECUTOR),
    "call_fn_returning_stream": lambda k: list(k.functor.call_fn_returning_stream_when_parallel(k.fn(lambda x: k.iterables.make(x, x)), 1)),
    "call_fn_normally": lambda k: k.functor.call_fn_normally_when_parallel(k.fn(lambda x: x + 1), 2),
    "call_multithreaded_iterable": lambda k: k.parallel.call_multithreaded(k.fn(lambda x: k.iterables.make(x)), 1),
    "call_multithreaded_bag": lambda k: k.parallel.call_multithreaded(k.fn(lambda x: k.attrs(k.new(), a=x)), 1),
    "call_multithreaded_error": lambda k: k.parallel.call_multithreaded(k.fn(lambda x: k.map(lambda y: y.foo, x)), k.slice([1, 2])),
    "yield_multithreaded": lambda k: list(k.parallel.yield_multithreaded(k.fn(lambda x: k.iterables.make(x, x + 1, x + 2)), 1)),
    # The value type of empty iterables and streams, from `value_type_as`
    # (a value or a class).
    "iterable_value_types": lambda k: [
        str(x.qtype) for x in (
            k.iterables.make(), k.iterables.make(value_type_as=k.bag()), k.iterables.make(value_type_as=k.types.DataBag),
            k.iterables.make_unordered(value_type_as=k.bag()), k.iterables.make(value_type_as=k.tuple(1, 2)),
            k.iterables.make(k.tuple(1, 2)), k.iterables.chain(value_type_as=k.bag()),
            k.iterables.interleave(k.iterables.make(value_type_as=k.bag())),
            k.eval(k.lazy.iterables.make(value_type_as=k.bag())))],
    "iterable_value_type_mismatch": lambda k: k.iterables.make(k.item(1), value_type_as=k.bag()),
    "iterable_repr_of_value_type": lambda k: k.iterables.make(value_type_as=k.bag()),
    "stream_value_types": lambda k: [
        str(x.qtype) for x in (
            k.streams.make(value_type_as=k.types.DataBag), k.streams.make(value_type_as=k.bag()),
            k.streams.make(value_type_as=k.types.DataSlice), k.streams.make(value_type_as=k.types.JaggedShape))],
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_same_outcome(name):
    ours, theirs = run(kd, PROGRAMS[name]), run(koda, PROGRAMS[name])
    assert ours[0] == theirs[0], (ours, theirs)
    if ours[0] == "ok":
        assert ours[1] == theirs[1]
    else:
        assert ours[1].startswith(theirs[1]) or theirs[1].startswith(ours[1]), (ours, theirs)


def random_functor(k, rng):
    """A functor mapping a random chain of operations over each item."""
    steps = [rng.choice(["add", "mul", "mod", "max", "neg"]) for _ in range(rng.randint(1, 6))]
    constants = [rng.randint(1, 9) for _ in steps]

    def item_fn(x):
        for step, c in zip(steps, constants):
            if step == "add":
                x = x + c
            elif step == "mul":
                x = x * c
            elif step == "mod":
                x = x % (c + 1)
            elif step == "max":
                x = k.math.maximum(x, c)
            else:
                x = -x
        return x

    inner = k.fn(item_fn)
    return k.fn(lambda xs, f: k.map(f, xs) + k.math.agg_sum(k.map(f, xs))), inner


@pytest.mark.parametrize("seed", range(20))
def test_call_multithreaded_of_random_functors(seed):
    values = random.Random(seed).sample(range(-50, 50), 30) + [None]
    results = []
    for k in (kd, koda):
        fn, f = random_functor(k, random.Random(seed))
        x = k.slice(values)
        parallel = k.parallel.call_multithreaded(fn, x, f=f, max_threads=4)
        assert norm(repr(parallel)) == norm(repr(k.call(fn, x, f=f)))
        results.append(norm(repr(parallel)))
    assert results[0] == results[1]
