"""Functors traced with input_types: checked while tracing, typed, and the
type kept in the functor (through dumps / loads too)."""

import re

import pytest

from plait import kd

T = kd.typing.SliceType


def test_input_types_by_name_or_position_and_text():
    f = kd.fn(lambda x: kd.agg_sum(x), input_types={"x": "FLOAT32[n, *]"})
    assert repr(kd.typing.get_type(f)) == "(x: FLOAT32[n, *]) -> FLOAT32[n]"
    assert f(kd.slice([[1.0, 2.0], [3.0]])).to_py() == [3.0, 3.0]
    g = kd.fn(lambda x, y: x + y, input_types=(T(kd.INT32, ("n",)), "FLOAT32[n]"))
    t = kd.typing.get_type(g)
    assert repr(t) == "(x: INT32[n], y: FLOAT32[n]) -> FLOAT32[n]"
    assert t.inputs == {"x": T(kd.INT32, ("n",)), "y": T(kd.FLOAT32, ("n",))}
    assert t.output == T("FLOAT32[n]")
    assert kd.typing.infer(g) == T("FLOAT32[n]")
    assert kd.typing.get_type(kd.fn(lambda x: x)) is None


def test_errors_are_raised_while_tracing():
    with pytest.raises(ValueError, match="no common primitive schema") as e:
        kd.fn(lambda x, y: x + y, input_types=("INT32[n]", "STRING[n]"))
    assert any("test_typed_functors.py:" in n for n in e.value.__notes__)
    with pytest.raises(TypeError, match="input_types must be a dict or a tuple"):
        kd.fn(lambda x: x, input_types="INT32[n]")
    with pytest.raises(TypeError, match="do not match the parameters"):
        kd.fn(lambda x: x, input_types={"y": "INT32[n]"})
    with pytest.raises(ValueError, match="cannot read"):
        kd.fn(lambda x: x, input_types={"x": "INT32[n"})
    with pytest.raises(TypeError, match="must be a kd.typing.SliceType or its text"):
        kd.fn(lambda x: x, input_types={"x": 3})


def test_trace_as_fn_with_input_types():
    @kd.trace_as_fn(input_types={"x": "INT32[n]"})
    def double(x):
        return x * 2

    h = kd.fn(lambda x: double(x) + 1)
    assert repr(kd.typing.get_type(h.double)) == "(x: INT32[n]) -> INT32[n]"
    assert h(kd.slice([1, 2])).to_py() == [3, 5]
    with pytest.raises(ValueError, match="cannot be given with py_fn"):
        kd.trace_as_fn(py_fn=True, input_types={"x": "INT32[n]"})


def test_the_type_survives_dumps():
    g = kd.fn(lambda x: kd.math.agg_mean(x), input_types={"x": "INT64[n, 3]"})
    assert repr(kd.typing.get_type(kd.loads(kd.dumps(g)))) == "(x: INT64[n, 3]) -> FLOAT32[n]"


def test_slice_type_text_form_round_trips():
    for text in ["FLOAT32[n, *]", "Entity(x=INT32, y=LIST[STRING])[2*n + 1, ?]", "?[...]", "DICT{STRING, INT64}[]"]:
        assert repr(T(text)) == text
    assert T("INT32[n]") == T(kd.INT32, ("n",))
    with pytest.raises(ValueError, match="cannot read \"INT32\": expected '\\[' at position 5"):
        T("INT32")
    with pytest.raises(ValueError, match="reserved"):
        T("INT32[_pd_shp0]")
    with pytest.raises(TypeError, match="takes no dims"):
        T("INT32[n]", ("n",))


def test_infer_a_functor_without_tracing():
    f = kd.fn(lambda x, y: kd.agg_sum(x * y))
    assert repr(kd.typing.infer(f, "FLOAT32[n, *]", "INT32[n]")) == "FLOAT32[n]"
    assert repr(kd.typing.infer(f, y="FLOAT32[n, *]")) == "?[...]"
    # Variables are typed through: `a` is inlined into the body.
    e = kd.fn(kd.I.x + kd.V.a, a=kd.I.y * 2)
    assert repr(kd.typing.infer(e, x="INT32[n]", y="FLOAT64[n]")) == "FLOAT64[n]"
    with pytest.raises(ValueError, match=r"differ in dimension 0 \(3 and 4\)"):
        kd.typing.infer(f, "INT32[3]", "INT32[4]")
    with pytest.raises(TypeError, match="3 positional types for 2 positional parameters"):
        kd.typing.infer(f, "INT32[3]", "INT32[3]", "INT32[3]")
    with pytest.raises(TypeError, match="no parameter `z`"):
        kd.typing.infer(f, z="INT32[3]")
    # A typed functor gives its own type, or is typed anew with new types.
    g = kd.fn(lambda x: x + 1, input_types=("INT32[n]",))
    assert repr(kd.typing.infer(g)) == "INT32[n]"
    assert repr(kd.typing.infer(g, "FLOAT64[m]")) == "FLOAT64[m]"


def test_calls_of_typed_functors_instantiate_their_signature():
    # Seed 004: the callee's output dims refer to its inputs, and calling it
    # binds them to the caller's sizes.
    @kd.trace_as_fn(input_types={"x": "FLOAT32[n, *]"})
    def rowsum(x):
        return kd.agg_sum(x)

    assert repr(kd.typing.infer(lambda y: rowsum(y) * 2, T(kd.FLOAT32, ("k", kd.typing.RAGGED)))) == "FLOAT32[k]"

    @kd.trace_as_fn(input_types={"a": "INT32[n]", "b": "INT32[n]"})
    def add(a, b):
        return a + b

    assert repr(kd.typing.infer(lambda y, z: add(y, z), T(kd.INT32, ("m",)), T(kd.INT32, ("m",)))) == "INT32[m]"
    with pytest.raises(ValueError, match=r"argument `b`: expected INT32\[n\], inferred INT32\[4\]: size n is 3 already"):
        kd.typing.infer(lambda y, z: add(y, z), T(kd.INT32, (3,)), T(kd.INT32, (4,)))
    with pytest.raises(ValueError, match=r"argument `a`: expected INT32\[n\], inferred STRING\[m\]: STRING is not INT32"):
        kd.typing.infer(lambda y: add(y, y), T(kd.STRING, ("m",)))
    with pytest.raises(ValueError, match=r"rank 2 is not 1"):
        kd.typing.infer(lambda y: add(y, y), T(kd.INT32, ("m", 2)))


def test_sizes_a_callee_makes_are_fresh_per_call():
    @kd.trace_as_fn(input_types={"x": "INT32[n]"})
    def positive(x):
        return kd.select(x, x > 0)

    x = T(kd.INT32, ("n",))
    # One call on the same argument is one value: one size.
    assert re.fullmatch(r"INT32\[_pd_shp\d+\]", repr(kd.typing.infer(lambda y: positive(y) + positive(y), x)))
    # Calls on different arguments select counts of their own (which
    # evaluation compares).
    assert re.fullmatch(r"INT32\[_pd_shp\d+\]", repr(kd.typing.infer(lambda y, z: positive(y) - positive(z), x, x)))
    assert re.fullmatch(r"INT32\[_pd_shp\d+, 2\]", repr(kd.typing.infer(lambda y, z: kd.zip(positive(y), positive(z)), x, x)))
    assert kd.fn(lambda y: positive(y) + positive(y))(kd.slice([1, -2, 3])).to_py() == [2, 6]


def test_size_arguments_in_signatures_and_if_branches_sharing_a_dim():
    sz = kd.typing.size("sz")
    f = kd.fn(lambda sz: kd.range(sz + 1), input_types={"sz": sz})
    assert repr(kd.typing.get_type(f)) == "(sz: INT64[]=sz) -> INT64[sz + 1]"
    assert kd.typing.get_type(kd.loads(kd.dumps(f))).inputs == {"sz": sz}

    @kd.trace_as_fn(input_types={"n": sz})
    def up(n):
        return kd.range(n + 1)

    @kd.trace_as_fn(input_types={"n": sz})
    def down(n):
        return kd.range(n + 1) * 2

    @kd.trace_as_fn(input_types={"n": sz})
    def shorter(n):
        return kd.range(n)

    k = kd.typing.size("k")
    # Both branches give k + 1 items: the result has them.
    assert repr(kd.typing.infer(lambda k: kd.if_(k > 3, up, down, k), k)) == "INT64[k + 1]"
    assert repr(kd.typing.infer(lambda k: kd.if_(k > 3, up, down, k) + kd.range(k + 1), k)) == "INT64[k + 1]"
    # Branches that differ leave the dimension unknown.
    assert repr(kd.typing.infer(lambda k: kd.if_(k > 3, up, shorter, k), k)) == "INT64[?]"
    # A constant argument binds the size.
    assert repr(kd.typing.infer(lambda: up(kd.int64(4)))) == "INT64[5]"
    assert kd.fn(lambda k: kd.if_(k > 3, up, down, k))(kd.int64(2)).to_py() == [0, 2, 4]


def test_outputs_that_are_tuples_shapes_or_unknown():
    @kd.trace_as_fn(input_types={"x": "INT32[n]"})
    def pair(x):
        return kd.tuple(x, x + 1)

    @kd.trace_as_fn(input_types={"x": "INT32[n]"})
    def shape(x):
        return kd.get_shape(x)

    @kd.trace_as_fn(input_types={"x": "INT32[n]"})
    def opaque(x):
        # (What a Python function gives is known when it runs.)
        return kd.apply_py(lambda y: y, x)

    m = T(kd.INT32, ("m",))
    assert repr(kd.typing.get_type(kd.fn(pair))) == "(x: INT32[n]) -> (INT32[n], INT32[n])"
    assert kd.typing.get_type(kd.fn(pair)).output == (T("INT32[n]"), T("INT32[n]"))
    assert repr(kd.typing.infer(lambda y: pair(y), m)) == "(INT32[m], INT32[m])"
    assert repr(kd.typing.get_type(kd.loads(kd.dumps(kd.fn(shape))))) == "(x: INT32[n]) -> JAGGED_SHAPE[n]"
    assert kd.typing.infer(lambda y: shape(y), m) == "JAGGED_SHAPE[m]"
    assert repr(kd.typing.get_type(kd.fn(opaque))) == "(x: INT32[n]) -> ?"
    assert kd.typing.get_type(kd.fn(opaque)).output == kd.typing.UNKNOWN
    assert kd.typing.infer(lambda y: opaque(y), m) == kd.typing.UNKNOWN


def test_outputs_refer_to_other_outputs():
    # Seed 004's OutDBIdx: a size one output makes, another output has too;
    # each call of the functor gives both the same new size.
    @kd.trace_as_fn(input_types={"x": "INT32[n]"})
    def positives_and_their_index(x):
        p = kd.select(x, x > 0)
        return kd.tuple(p, kd.index(p))

    assert repr(kd.typing.get_type(kd.fn(positives_and_their_index))) == "(x: INT32[n]) -> (INT32[_pd_shp0], INT64[_pd_shp0])"
    t = kd.typing.infer(lambda y: positives_and_their_index(y), T(kd.INT32, ("m",)))
    assert re.fullmatch(r"\(INT32\[(_pd_shp\d+)\], INT64\[\1\]\)", repr(t))
    def index_of_positives(y):
        return kd.tuples.get_nth(positives_and_their_index(y), 1)

    assert re.fullmatch(r"INT64\[_pd_shp\d+\]", repr(kd.typing.infer(index_of_positives, T(kd.INT32, ("m",)))))
    assert kd.fn(index_of_positives)(kd.slice([3, -1, 4])).to_py() == [0, 1]


def test_an_output_of_an_input_s_rows_keeps_its_ragged_edge():
    # Seed 004's InDBIdx on a jagged dimension: the output's rows are the
    # input's (`*a` in the type), and a call gives them the caller's edge.
    @kd.trace_as_fn(input_types={"x": "FLOAT32[n, *]"})
    def double(x):
        return x * 2

    assert repr(kd.typing.get_type(kd.fn(double))) == "(x: FLOAT32[n, *a]) -> FLOAT32[n, *a]"
    assert repr(kd.typing.infer(lambda z: double(z), T("FLOAT32[k, *e]"))) == "FLOAT32[k, *e]"
    # Rows a callee makes are a new edge.
    split = kd.fn(lambda s: kd.strings.split(s), input_types={"s": "STRING[n]"})
    assert repr(kd.typing.get_type(split)) == "(s: STRING[n]) -> STRING[n, *]"
    g = kd.fn(lambda x, y: kd.agg_sum(x) + y, input_types={"x": "FLOAT32[n, *]", "y": "FLOAT32[n, *]"})
    assert repr(kd.typing.get_type(g)) == "(x: FLOAT32[n, *], y: FLOAT32[n, *a]) -> FLOAT32[n, *a]"
    assert repr(T("FLOAT32[n, *a]")) == "FLOAT32[n, *a]" and repr(T("FLOAT32[n, *]")) == "FLOAT32[n, *]"
    # An argument on another edge than one the declaration names twice.
    two = kd.fn(lambda x, y: x + y, input_types={"x": "FLOAT32[n, *a]", "y": "FLOAT32[n, *a]"})
    with pytest.raises(ValueError, match="another ragged edge than the one FLOAT32\\[n, \\*a\\] names"):
        kd.typing.infer(lambda p, q: kd.call(two, p, q), T("FLOAT32[k, *e]"), T("FLOAT32[k, *f]"))
    assert kd.typing.infer(lambda p: kd.call(two, p, p), T("FLOAT32[k, *e]")) is not None


def test_calls_of_untyped_functors_are_typed_from_their_body():
    plus_one = kd.fn(lambda x: x + 1)
    assert repr(kd.typing.infer(lambda y: kd.call(plus_one, y), T(kd.INT32, ("n",)))) == "INT32[n]"
    assert repr(kd.typing.infer(lambda y: kd.call(plus_one, x=y) * 2.5, T(kd.INT64, ("n", 3)))) == "FLOAT32[n, 3]"
    with pytest.raises(ValueError, match="kd.math.add: arguments have no common primitive schema"):
        kd.typing.infer(lambda y: kd.call(plus_one, y), T(kd.STRING, ("n",)))

    @kd.trace_as_fn()
    def total(x):
        return kd.agg_sum(x)

    assert repr(kd.typing.infer(lambda y: total(y), T(kd.FLOAT32, ("n", kd.typing.RAGGED)))) == "FLOAT32[n]"
    # Arguments that do not bind leave the call unknown (evaluation reports it).
    assert repr(kd.typing.infer(lambda y: kd.call(plus_one, y, y), T(kd.INT32, ("n",)))) == repr(kd.typing.UNKNOWN)
