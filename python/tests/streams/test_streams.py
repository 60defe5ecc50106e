"""kd.streams (issue 21): streams, readers and writers, executors, and the
operators over streams — results, order, errors, cancellation and waits
that never hold the GIL."""

import gc
import threading
import time

import pytest

from plait import kd

from concurrency_probe import ConcurrencyProbe

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")


def items(stream, timeout=10):
    return [x.to_py() for x in stream.read_all(timeout=timeout)]


def test_make_and_read():
    s = kd.streams.make(1, 2, 3)
    assert repr(s) == "stream[DATA_SLICE]"
    assert s.qtype == kd.streams.get_stream_qtype(kd.qtypes.DATA_SLICE)
    assert items(s) == [1, 2, 3]
    # A stream is read again from the start by every reader.
    assert [x.to_py() for x in s.yield_all(timeout=None)] == [1, 2, 3]
    assert repr(kd.streams.make(kd.bag())) == "stream[DATA_BAG]"
    assert repr(kd.streams.make(value_type_as=kd.bag())) == "stream[DATA_BAG]"
    assert items(kd.streams.make()) == []
    with pytest.raises(ValueError, match="all items must have the same type"):
        kd.streams.make(1, kd.bag())


def test_writer_and_reader():
    stream, writer = kd.types.Stream.new(kd.qtypes.DATA_SLICE)
    reader = stream.make_reader()
    assert reader.read_available() == []
    writer.write(kd.item(1))
    writer.write(kd.slice([2, 3]))
    assert [x.to_py() for x in reader.read_available(limit=1)] == [1]
    assert [x.to_py() for x in reader.read_available()] == [[2, 3]]
    assert reader.read_available() == []
    writer.close()
    assert reader.read_available() is None
    with pytest.raises(ValueError, match="expected a value of type DATA_SLICE"):
        writer.write(kd.bag())


def test_close_with_an_exception_raises_it_for_every_reader():
    stream, writer = kd.types.Stream.new(kd.qtypes.DATA_SLICE)
    writer.write(kd.item(1))
    boom = KeyError("boom")
    writer.close(boom)
    reader = stream.make_reader()
    assert [x.to_py() for x in reader.read_available()] == [1]
    with pytest.raises(KeyError) as raised:
        reader.read_available()
    assert raised.value is boom
    with pytest.raises(KeyError):
        stream.read_all(timeout=1)


def test_read_all_times_out_and_writer_orphaned():
    stream, writer = kd.types.Stream.new(kd.qtypes.DATA_SLICE)
    with pytest.raises(TimeoutError):
        stream.read_all(timeout=0.05)
    with pytest.raises(TimeoutError):
        list(stream.yield_all(timeout=0.05))
    assert not writer.orphaned()
    del stream
    gc.collect()
    assert writer.orphaned()


def test_yield_all_gets_items_as_they_come():
    stream, writer = kd.types.Stream.new(kd.qtypes.DATA_SLICE)

    def produce():
        for i in range(5):
            time.sleep(0.01)
            writer.write(kd.item(i))
        writer.close()

    t = threading.Thread(target=produce)
    t.start()
    assert [x.to_py() for x in stream.yield_all(timeout=10)] == [0, 1, 2, 3, 4]
    t.join()


def test_from_1d_slice():
    assert items(kd.streams.from_1d_slice(kd.slice([1, None, 3]))) == [1, None, 3]
    with pytest.raises(ValueError, match="expected a 1D data slice, got 0 dimensions"):
        kd.streams.from_1d_slice(kd.item(1))


def test_chain_and_interleave():
    assert items(kd.streams.chain(kd.streams.make(1), kd.streams.make(2, 3))) == [1, 2, 3]
    assert sorted(items(kd.streams.interleave(kd.streams.make(1), kd.streams.make(2, 3)))) == [1, 2, 3]
    assert items(kd.streams.chain()) == []
    with pytest.raises(ValueError, match="all input streams must have the same value type"):
        kd.streams.chain(kd.streams.make(1), kd.streams.make(kd.bag()))
    nested = kd.streams.make(kd.streams.make(1, 2), kd.streams.make(3))
    assert repr(nested) == "stream[STREAM[DATA_SLICE]]"
    assert items(kd.streams.chain_from_stream(nested)) == [1, 2, 3]
    assert sorted(items(kd.streams.interleave_from_stream(nested))) == [1, 2, 3]


def test_chain_follows_open_streams():
    a, wa = kd.types.Stream.new(kd.qtypes.DATA_SLICE)
    b, wb = kd.types.Stream.new(kd.qtypes.DATA_SLICE)
    chained = kd.streams.chain(a, b)
    wb.write(kd.item(3))
    wb.close()
    reader = chained.make_reader()
    assert reader.read_available() == []
    wa.write(kd.item(1))
    wa.close()
    assert items(chained) == [1, 3]


def test_map_keeps_order_on_many_threads():
    executor = kd.streams.make_executor(thread_limit=8)
    s = kd.streams.map(kd.streams.from_1d_slice(kd.range(200)), lambda x: x * 2, executor=executor)
    assert items(s) == [2 * i for i in range(200)]
    u = kd.streams.map_unordered(kd.streams.from_1d_slice(kd.range(200)), lambda x: x * 2, executor=executor)
    assert sorted(items(u)) == [2 * i for i in range(200)]


def test_map_on_the_eager_executor_is_done_at_once():
    s = kd.streams.map(kd.streams.make(1, 2), lambda x: x + 1, executor=kd.streams.get_eager_executor())
    assert [x.to_py() for x in s.make_reader().read_available()] == [2, 3]


def test_map_errors_close_the_stream():
    s = kd.streams.map(kd.streams.make(1, 2, 3), lambda x: x.foo)
    with pytest.raises(ValueError, match="failed to get attribute 'foo'"):
        s.read_all(timeout=10)
    wrong = kd.streams.map(kd.streams.make(1, 2), lambda x: kd.streams.make(x))
    with pytest.raises(ValueError, match=r"called with `DATA_SLICE` as the return type.*`STREAM\[DATA_SLICE\]`"):
        wrong.read_all(timeout=10)
    with pytest.raises(ValueError, match="expected a stream, got stream: DATA_SLICE"):
        kd.streams.map(kd.item(1), lambda x: x)


def test_map_of_a_python_function_raises_its_exception():
    def bad(x):
        raise ZeroDivisionError("no")

    s = kd.streams.map(kd.streams.make(1, 2), kd.py_fn(bad))
    with pytest.raises(ZeroDivisionError, match="no"):
        s.read_all(timeout=10)


def test_flat_maps():
    s = kd.streams.flat_map_chained(kd.streams.make(1, 10), lambda x: kd.streams.make(x, x * 2))
    assert items(s) == [1, 2, 10, 20]
    s = kd.streams.flat_map_interleaved(kd.streams.make(1, 10), lambda x: kd.streams.make(x, x * 2))
    assert sorted(items(s)) == [1, 2, 10, 20]
    with pytest.raises(ValueError, match=r"`STREAM\[DATA_SLICE\]` as the return type"):
        kd.streams.flat_map_chained(kd.streams.make(1), lambda x: x).read_all(timeout=10)


def test_reductions():
    assert items(kd.streams.reduce(lambda acc, x: acc * 10 + x, kd.streams.make(1, 2, 3), 0)) == [123]
    assert items(kd.streams.reduce_concat(kd.streams.make(kd.slice([2, 3]), kd.slice([4])), kd.slice([1]))) == [[1, 2, 3, 4]]
    assert items(kd.streams.reduce_stack(kd.streams.make(1, 2), kd.item(0))) == [[0, 1, 2]]
    s = kd.streams.reduce_stack(kd.streams.make(kd.slice([1, 2]), kd.slice([3, 4])), kd.slice([0, 0]))
    assert items(s) == [[[0, 1, 3], [0, 2, 4]]]


def test_foreach():
    body = lambda x, returns: kd.namedtuple(returns=returns + x)  # noqa: E731
    assert items(kd.streams.foreach(kd.streams.make(1, 2, 3), body, returns=0)) == [6]
    cond = lambda returns: returns < 3  # noqa: E731
    assert items(kd.streams.foreach(kd.streams.make(1, 2, 3, 4), body, returns=0, condition_fn=cond)) == [3]
    fin = lambda returns: kd.namedtuple(returns=returns * 100)  # noqa: E731
    assert items(kd.streams.foreach(kd.streams.make(1, 2, 3), body, returns=0, finalize_fn=fin)) == [600]
    yields = kd.streams.foreach(kd.streams.make(1, 2), lambda x: kd.namedtuple(yields=kd.streams.make(x, x * 10)), yields=kd.streams.make(0))
    assert items(yields) == [0, 1, 10, 2, 20]
    with pytest.raises(ValueError, match="exactly one of"):
        kd.streams.foreach(kd.streams.make(1), body)


def test_while():
    cond = lambda n, returns: n > 0  # noqa: E731
    body = lambda n, returns: kd.namedtuple(n=n - 1, returns=returns * n)  # noqa: E731
    assert items(kd.streams.while_(cond, body, n=5, returns=1)) == [120]
    res = kd.streams.while_(lambda n: n > 0, lambda n: kd.namedtuple(n=n - 1, yields=kd.streams.make(n)), n=3, yields=kd.streams.make())
    assert items(res) == [3, 2, 1]


def test_call_and_await():
    f = kd.fn(lambda x, y: x + y)
    assert items(kd.streams.call(f, kd.streams.await_(kd.streams.make(5)), y=1)) == [6]
    assert items(kd.streams.call(f, 1, y=kd.streams.await_(kd.streams.make(2)))) == [3]
    assert kd.streams.await_(kd.item(1)).to_py() == 1
    assert repr(kd.streams.await_(kd.streams.make(1))) == "LABEL[AWAIT]{stream[DATA_SLICE]}"
    with pytest.raises(ValueError, match="expected a stream with a single item, got an empty stream"):
        kd.streams.call(f, kd.streams.await_(kd.streams.make()), y=1).read_all(timeout=10)
    # A functor returning a stream: its items.
    g = kd.fn(lambda x: kd.streams.make(x, x))
    assert items(kd.streams.call(g, 4)) == [4, 4]


def test_sync_wait():
    assert kd.streams.sync_wait(kd.streams.make(5)).to_py() == 5
    assert kd.streams.unsafe_blocking_wait(kd.streams.make(5)).to_py() == 5
    with pytest.raises(ValueError, match="got a stream with multiple items"):
        kd.streams.sync_wait(kd.streams.make(1, 2))
    with pytest.raises(ValueError, match="expected a stream, got stream: DATA_SLICE"):
        kd.streams.sync_wait(kd.item(1))


def test_sync_wait_releases_the_gil_for_python_producers():
    # The producer is a py_fn run by a task thread: it needs the GIL the
    # waiting thread would otherwise hold.
    slow = kd.py_fn(lambda x: (time.sleep(0.05), x + 1)[1])
    s = kd.streams.call(slow, kd.item(1))
    assert kd.streams.sync_wait(s).to_py() == 2


def test_sync_wait_is_refused_inside_a_task():
    f = kd.fn(lambda x: kd.streams.sync_wait(kd.streams.make(x)))
    with pytest.raises(ValueError, match="cannot wait inside a task"):
        kd.streams.call(f, 1).read_all(timeout=10)
    g = kd.fn(lambda x: kd.streams.unsafe_blocking_wait(kd.streams.make(x)))
    assert items(kd.streams.call(g, 1)) == [1]


def test_executors():
    assert repr(kd.streams.get_default_executor()) == "default_asio_executor"
    assert repr(kd.streams.get_eager_executor()) == "eager_executor"
    assert repr(kd.streams.make_executor()) == "asio_executor"
    assert repr(kd.streams.current_executor()) == "default_asio_executor"
    assert kd.streams.get_default_executor().qtype == kd.qtypes.EXECUTOR
    assert isinstance(kd.streams.make_executor(thread_limit=2), kd.types.Executor)
    with pytest.raises(ValueError, match="`thread_limit` must be non-negative, but got: -1"):
        kd.streams.make_executor(thread_limit=-1)
    executor = kd.streams.make_executor(thread_limit=2)
    current = kd.fn(lambda x: kd.streams.current_executor())
    got = kd.streams.sync_wait(kd.streams.call(current, 1, executor=executor, return_type_as=executor))
    assert got == executor


def test_schedule_runs_python_with_the_gil_and_reports_errors(capsys):
    executor = kd.streams.make_executor(thread_limit=3)
    done = threading.Event()
    seen = []
    executor.schedule(lambda: (seen.append(threading.current_thread().name), done.set()))
    assert done.wait(10)
    assert seen
    # An exception in a task is reported (as unraisable), not lost silently.
    failed = threading.Event()

    def bad():
        failed.set()
        raise ValueError("task failed")

    executor.schedule(bad)
    assert failed.wait(10)


def test_thread_limit_bounds_concurrency():
    executor = kd.streams.make_executor(thread_limit=2)
    probe = ConcurrencyProbe(0.01)
    s = kd.streams.map(kd.streams.from_1d_slice(kd.range(20)), kd.py_fn(probe.work), executor=executor)
    assert items(s) == list(range(20))
    assert 1 <= probe.most <= 2


def test_subscribe_once():
    stream, writer = kd.types.Stream.new(kd.qtypes.DATA_SLICE)
    reader = stream.make_reader()
    called = threading.Event()
    reader.subscribe_once(kd.streams.get_default_executor(), called.set)
    assert not called.wait(0.05)
    writer.write(kd.item(1))
    assert called.wait(10)
    writer.close()


def test_dropping_the_output_stops_the_work():
    calls = []

    def work(x):
        calls.append(x)
        time.sleep(0.01)
        return x

    executor = kd.streams.make_executor(thread_limit=1)
    s = kd.streams.map(kd.streams.from_1d_slice(kd.range(500)), kd.py_fn(work), executor=executor)
    time.sleep(0.05)
    del s
    gc.collect()
    time.sleep(0.2)
    n = len(calls)
    time.sleep(0.2)
    assert len(calls) == n < 500


def test_streams_inside_functors():
    f = kd.fn(lambda x: kd.streams.sync_wait(kd.streams.reduce(lambda a, b: a + b, kd.streams.map(kd.streams.from_1d_slice(x), lambda y: y * y), 0)))
    assert f(kd.slice([1, 2, 3])).to_py() == 14
    expr = kd.lazy.streams.make(1, 2)
    assert [x.to_py() for x in kd.eval(expr).read_all(timeout=10)] == [1, 2]
    assert "kd.streams.make" in repr(expr)
