"""kd.compile: the cache (keys, LRU, stats, explain_miss), fullgraph,
outputs, functors and composition with kd.map, kd.if_ and nested functors
(issue "kd.compile", seed 003 "Compile: Computation Caching")."""

import collections
import warnings

import pytest

from plait import kd


def test_two_calls_one_miss():
    f = kd.compile(lambda x, y: x * 2 + y)
    assert f(kd.slice([1, 2]), kd.slice([3, 4])).to_py() == [5, 8]
    assert f(kd.slice([5, 6]), kd.slice([7, 8])).to_py() == [17, 20]
    assert f.stats == (1, 1, 0, 1)
    assert (f.stats.hits, f.stats.misses, f.stats.fallbacks, f.stats.size) == (1, 1, 0, 1)


def test_new_row_sizes_under_dynamic_dims_hit():
    f = kd.compile(lambda x: kd.agg_sum(x) * 2, dynamic_dims={0: {0: "batch"}})
    assert f(kd.slice([[1, 2], [3]])).to_py() == [6, 6]
    assert f(kd.slice([[1], [2], [3, 4], []])).to_py() == [2, 4, 14, 0]
    assert f.stats.misses == 1 and f.stats.hits == 1
    # Without dynamic dims, a new size is a new key.
    g = kd.compile(lambda x: x + 1)
    g(kd.slice([1, 2]))
    g(kd.slice([1, 2, 3]))
    assert g.stats.misses == 2
    assert g.explain_miss().endswith("<lambda>: different input types: x was INT32[2], now INT32[3]")


def test_dynamic_dims_by_name_and_ragged_rows():
    f = kd.compile(lambda x, y: x + y, dynamic_dims={"y": {0: "n"}})
    f(kd.slice([1, 2]), kd.slice([1, 2]))
    f(kd.slice([1, 2]), kd.slice([[1], [2, 3]]))  # a new rank: a miss
    f(kd.slice([1, 2]), kd.slice([[4, 5, 6], [7]]))  # other row sizes: a hit
    assert f.stats.misses == 2 and f.stats.hits == 1


def test_new_schema_misses_and_explains():
    f = kd.compile(lambda x: x + 1)
    f(kd.slice([1, 2, 3]))
    f(kd.slice([1.0, 2.0, 3.0]))
    assert f.stats.misses == 2
    assert f.explain_miss().endswith("<lambda>: different input types: x was INT32[3], now FLOAT32[3]")


def test_changed_static_value_misses():
    f = kd.compile(lambda x, n: x * n, static_argnames=("n",))
    assert f(kd.slice([1, 2]), 3).to_py() == [3, 6]
    assert f(kd.slice([1, 2]), 3).to_py() == [3, 6]
    assert f(kd.slice([1, 2]), n=4).to_py() == [4, 8]
    assert f.stats == (1, 2, 0, 2)
    assert f.explain_miss().endswith("<lambda>: different static arguments: n was 3, now 4")


def test_unhashable_static_value_names_the_argument():
    f = kd.compile(lambda x, opts: x + opts[0], static_argnames="opts")
    with pytest.raises(ValueError, match="static argument 'opts' of .*<lambda> must be hashable, got list"):
        f(kd.slice([1]), [1])
    with pytest.raises(ValueError, match="static_argnames names 'nope'"):
        kd.compile(lambda x: x, static_argnames=("nope",))


def test_a_new_dict_key_misses():
    f = kd.compile(lambda d: d["a"] + d.get("b", 0))
    assert f({"a": kd.slice([1])}).to_py() == [1]
    assert f({"a": kd.slice([2])}).to_py() == [2]
    assert f({"a": kd.slice([1]), "b": kd.slice([5])}).to_py() == [6]
    assert f.stats.misses == 2 and f.stats.hits == 1
    assert "different argument structure" in f.explain_miss()


def test_tuples_and_named_tuples_of_arguments():
    Point = collections.namedtuple("Point", ["x", "y"])
    f = kd.compile(lambda p, pair: p.x * p.y + pair[0] - pair[1])
    assert f(Point(kd.slice([1, 2]), kd.slice([3, 4])), (kd.slice([1, 1]), 1)).to_py() == [3, 8]
    assert f(Point(kd.slice([2, 2]), kd.slice([3, 4])), (kd.slice([1, 1]), 1)).to_py() == [6, 8]
    assert f.stats.misses == 1
    f(Point(kd.slice([2, 2]), kd.slice([3, 4])), [kd.slice([1, 1]), 1])  # a list, not a tuple
    assert f.stats.misses == 2


def test_lru_of_two_over_a_b_c_a():
    f = kd.compile(lambda x: x + 1, cache_size=2)
    a, b, c = kd.slice([1]), kd.slice([1.0]), kd.slice([kd.int64(1)])
    for x in (a, b, c, a):
        f(x)
    assert f.stats == (0, 4, 0, 2)
    # Move-to-end on a hit: A, B, A, C keeps A.
    g = kd.compile(lambda x: x + 1, cache_size=2)
    for x in (a, b, a, c, a):
        g(x)
    assert g.stats == (2, 3, 0, 2)
    with pytest.raises(ValueError, match="cache_size must be a positive int"):
        kd.compile(lambda x: x, cache_size=0)


def test_mixed_outputs_come_back_intact_on_a_hit():
    f = kd.compile(lambda x: (x + 1, "tag", 3))
    first = f(kd.slice([1, 2]))
    second = f(kd.slice([5, 6]))
    assert f.stats == (1, 1, 0, 1)
    assert first[1:] == ("tag", 3) and second[1:] == ("tag", 3)
    assert second[0].to_py() == [6, 7]
    Out = collections.namedtuple("Out", ["total", "meta"])
    g = kd.compile(lambda x: Out(total=kd.sum(x), meta={"n": 2, "doubled": x * 2}))
    out = g(kd.slice([1, 2]))
    out = g(kd.slice([3, 4]))
    assert isinstance(out, Out) and out.total.to_py() == 7
    assert out.meta["n"] == 2 and out.meta["doubled"].to_py() == [6, 8]


def _reads_a_value(x):
    n = kd.sum(x).to_py()
    return x + n


def test_to_py_inside_raises_with_fullgraph_and_falls_back_otherwise():
    with pytest.raises(RuntimeError, match="_reads_a_value evaluated a value while being traced"):
        kd.compile(_reads_a_value, fullgraph=True)(kd.slice([1, 2]))
    f = kd.compile(_reads_a_value)
    with pytest.warns(RuntimeWarning, match="running it eagerly instead"):
        assert f(kd.slice([1, 2])).to_py() == [4, 5]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # one warning per function
        assert f(kd.slice([3, 4])).to_py() == [10, 11]
    assert f.stats.fallbacks == 2


def test_an_eager_evaluation_inside_moves_the_epoch():
    table = kd.slice([10, 20])

    def f(x):
        scale = kd.eager.math.agg_sum(table)  # computes now, while traced
        return x * scale

    with pytest.raises(RuntimeError, match="an operator computed while it was being traced"):
        kd.compile(f, fullgraph=True)(kd.slice([1]))
    with pytest.warns(RuntimeWarning):
        assert kd.compile(f)(kd.slice([1])).to_py() == [30]


def test_the_key_of_a_python_function_is_the_function_object():
    def make():
        return lambda x: x + 1

    f, g = make(), make()
    cf, cg = kd.compile(f), kd.compile(g)
    cf(kd.slice([1]))
    cg(kd.slice([1]))
    assert cf.stats.misses == 1 and cg.stats.misses == 1
    # Each compiled function has its own cache: compiling the same function
    # twice traces it twice.
    assert kd.compile(f)(kd.slice([1])).to_py() == [2]


def test_functors_compile_and_their_key_is_the_fingerprint():
    functor = kd.fn(lambda x, y=2: x * y + 1)
    f = kd.compile(functor)
    assert f(kd.slice([1, 2])).to_py() == [3, 5]
    assert f(kd.slice([3, 4]), y=10).to_py() == [31, 41]
    assert f(kd.slice([3, 4]), 10).to_py() == [31, 41]
    assert "kd.core._fused" in f.lower(kd.slice([1, 2]))
    with pytest.raises(TypeError, match="kd.compile: expected a Python function or a functor, got int"):
        kd.compile(1)


def test_nested_functors_are_inlined_and_fused():
    inner = kd.fn(lambda a, b=2: a * b + 1)
    f = kd.compile(lambda x: inner(x) - inner(x, b=3) * 2)
    x = kd.slice([1.0, 2.0, None])
    assert f(x).to_py() == [-5.0, -9.0, None]
    plan = f.lower(x)
    assert plan.count("kd.core._fused") == 1 and "kd.call" not in plan


def test_composes_with_map_and_if():
    f = kd.compile(lambda x: kd.map(lambda v: v * 2 + 1, x) * 3)
    assert f(kd.slice([1, 2])).to_py() == [9, 15]
    g = kd.compile(lambda x, c: kd.if_(c, lambda x: x + 1, lambda x: x - 1, x) * 2)
    assert g(kd.slice([1, 2]), kd.present).to_py() == [4, 6]
    assert g(kd.slice([1, 2]), kd.missing).to_py() == [0, 2]
    # A compiled function inside a traced one is traced through.
    h = kd.fn(lambda x: f(x) + 1)
    assert h(kd.slice([1])).to_py() == [10]
    # Compiled functions given to kd.map and kd.if_, eagerly and traced.
    double = kd.compile(lambda v: v * 2 + 1)
    assert kd.map(double, kd.slice([1, 2])).to_py() == [3, 5]
    assert kd.fn(lambda x: kd.map(double, x))(kd.slice([1, 2])).to_py() == [3, 5]
    assert kd.if_(kd.present, double, double, kd.slice([1])).to_py() == [3]
    assert kd.map(kd.compile(kd.fn(lambda v: v - 1)), kd.slice([1, 2])).to_py() == [0, 1]
    assert kd.map_py(lambda v: f(v), kd.slice([1, 2])).to_py() == [9, 15]


def test_decorator_forms_and_lower():
    @kd.compile
    def f(x, y):
        return (x + y) * (x - y)

    @kd.compile(static_argnames=("k",))
    def g(x, k=2):
        return x ** k

    assert f(kd.slice([3.0]), kd.slice([1.0])).to_py() == [8.0]
    assert g(kd.slice([3.0])).to_py() == [9.0]
    assert f.__name__ == "f"
    text = f.lower(kd.slice([3.0]), kd.slice([1.0]))
    assert text.splitlines()[0] == "inputs: I._0: FLOAT32[1] (x), I._1: FLOAT32[1] (y)"
    assert "kd.core._fused" in text
    assert repr(f) == "kd.compile(test_decorator_forms_and_lower.<locals>.f)"


def test_errors_are_the_eager_ones():
    f = kd.compile(lambda x, y: x // y + 1)
    with pytest.raises(ValueError, match="kd.math.floordiv: division by zero"):
        f(kd.slice([1, 2]), kd.slice([1, 0]))
    assert f(kd.slice([1, 2]), kd.slice([1, 2])).to_py() == [2, 2]
    g = kd.compile(lambda x: x + 1)
    with pytest.raises(ValueError, match="kd.math.add: arguments do not contain values castable to a common primitive schema"):
        g(kd.slice(["a"]))
    h = kd.compile(lambda x, y: x * 2 + y)
    with pytest.raises(ValueError, match="shapes are not compatible"):
        h(kd.slice([1, 2]), kd.slice([1, 2, 3]))
    with pytest.raises(TypeError, match="argument x is a object"):
        h(object(), 1)
    with pytest.raises(TypeError, match="kd.compile: .*<lambda>: missing a required argument: 'y'"):
        h(kd.slice([1]))


def test_python_scalars_are_boxed():
    f = kd.compile(lambda x, y: x * y)
    assert f(kd.slice([1, 2]), 2).to_py() == [2, 4]
    assert f(kd.slice([1, 2]), 3).to_py() == [3, 6]
    assert f.stats == (1, 1, 0, 1)


def test_clear_cache_keeps_counts():
    f = kd.compile(lambda x: x + 1)
    f(kd.slice([1]))
    f.clear_cache()
    f(kd.slice([1]))
    assert f.stats == (0, 2, 0, 1)


def test_keywords_positions_and_python_scalars_share_a_plan():
    f = kd.compile(lambda x, y: x * y)
    f(kd.slice([1, 2]), kd.item(2))
    f(x=kd.slice([1, 2]), y=kd.item(2))
    f(kd.slice([1, 2]), 2)
    assert f.stats == (2, 1, 0, 1)


def test_threads_share_a_compiled_function():
    import concurrent.futures

    f = kd.compile(lambda x: x * 2 + 1, cache_size=2)
    inputs = [kd.slice([i] * (1 + i % 3)) for i in range(60)]
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        results = list(pool.map(f, inputs))
    assert [r.to_py() for r in results] == [[2 * i + 1] * (1 + i % 3) for i in range(60)]
    # Three sizes: at least three traces; never more than two plans kept.
    assert f.stats.size <= 2 and f.stats.misses >= 3


def test_negative_zero_constants_stay_apart():
    f = kd.compile(lambda x: (x + 0.0) * -0.0)
    x = kd.slice([1.0, 2.0])
    assert repr(f(x)) == repr((x + 0.0) * -0.0)
    g = kd.compile(lambda x: x * -0.0 + 0)
    assert repr(g(x)) == repr(x * -0.0 + 0)


def test_operators_returning_their_input_values_give_what_eager_gives():
    x = kd.new(a=kd.slice([1, 2])).a
    f = kd.compile(lambda x: kd.math.round(kd.math.floor(x)))
    kd.testing.assert_equal(f(x), kd.math.round(kd.math.floor(x)))
    # Computed primitives carry no bag (as in Koda), integers rounded too.
    assert not f(x).has_bag()


def test_unread_arguments_of_inlined_calls_are_still_computed():
    inner = kd.fn(lambda x, y: x + 1)
    f = kd.compile(lambda x: kd.call(inner, x, x // 0))
    with pytest.raises(ValueError, match="division by zero"):
        f(kd.slice([1, 2]))
    g = kd.compile(lambda x: kd.call(inner, x, x) * 2)  # an input: inlined
    assert g(kd.slice([1])).to_py() == [4]
    assert "kd.call" not in g.lower(kd.slice([1]))


def test_compiled_expr_functors_keep_the_self_parameter():
    f = kd.compile(kd.fn(kd.I.x + 1))
    assert f(x=kd.slice([1])).to_py() == [2]
    assert kd.compile(kd.functor.expr_fn(kd.I.self * 2))(kd.slice([3])).to_py() == [6]


def test_defaults_and_none_reach_the_function_as_python_values():
    def f(x, scale=None, n=2):
        for _ in range(n):
            x = x * 2
        return x if scale is None else x * scale

    c = kd.compile(f)
    assert c(kd.slice([1, 2])).to_py() == [4, 8]
    assert c(kd.slice([1, 2]), None).to_py() == [4, 8]
    assert c(kd.slice([1, 2]), 3).to_py() == [12, 24]
    # A Python int given is traced (a DataItem): loops need it static.
    assert kd.compile(f, static_argnames="n")(kd.slice([1, 2]), None, n=1).to_py() == [2, 4]


def test_other_threads_computing_do_not_count_as_evaluation():
    import threading

    stop = threading.Event()

    def busy():
        while not stop.is_set():
            kd.math.agg_sum(kd.slice([1, 2, 3]))

    thread = threading.Thread(target=busy)
    thread.start()
    try:
        def long_chain(x):
            for _ in range(300):
                x = x * 1 + 0
            return x

        assert kd.compile(long_chain, fullgraph=True)(kd.slice([1])).to_py() == [1]
    finally:
        stop.set()
        thread.join()


def test_static_values_are_keyed_by_type_too():
    f = kd.compile(lambda x, flag: x * 2 if flag is True else x, static_argnames="flag")
    assert f(kd.slice([1, 2]), True).to_py() == [2, 4]
    assert f(kd.slice([1, 2]), 1).to_py() == [1, 2]


def test_methods_compile_per_object():
    class Scaler:
        def __init__(self, k):
            self.k = k

        @kd.compile
        def apply(self, x):
            return x * self.k + 1

    two, three = Scaler(2), Scaler(3)
    assert two.apply(kd.slice([1, 2])).to_py() == [3, 5]
    assert three.apply(kd.slice([1, 2])).to_py() == [4, 7]
    assert two.apply(kd.slice([5, 6])).to_py() == [11, 13]
    assert Scaler.apply.stats == (1, 2, 0, 2)
