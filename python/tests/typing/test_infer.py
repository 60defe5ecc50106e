"""kd.typing.infer: result types without evaluation, and type errors raised
while tracing at the line that made them (issue 23's acceptance cases)."""

import pytest

from plait import kd

T = kd.typing.SliceType
RAGGED = kd.typing.RAGGED
size = kd.typing.size


def test_seed_000_example():
    ds = T(kd.schema.new_schema(x=kd.INT32), ("n", RAGGED))
    assert repr(kd.typing.infer(lambda ds: kd.agg_sum(ds.x), ds)) == "INT32[n]"
    with pytest.raises(ValueError, match=r"kd.math.add: arguments have no common primitive schema: inferred `x`: INT32\[n\], `y`: STRING\[\]") as e:
        kd.typing.infer(lambda ds: kd.agg_sum(ds.x) + kd.slice("abc"), ds)
    # The note names the node and the line that built it.
    (note,) = [n for n in e.value.__notes__ if n.startswith("while inferring")]
    assert "test_infer.py:" in note


def test_nothing_is_evaluated():
    calls = []

    def f(x):
        calls.append(1)
        return kd.math.agg_mean(x) * 2

    assert repr(kd.typing.infer(f, T(kd.INT64, ("n", RAGGED)))) == "FLOAT32[n]"
    assert calls == [1]  # traced once, with expressions


def test_pytato_shape_cases():
    nn = T(kd.INT32, ("n", "n"))
    assert repr(kd.typing.infer(lambda a, b: a + b, nn, nn)) == "INT32[n, n]"
    with pytest.raises(ValueError, match=r"differ in dimension 0 \(10 and 20\)"):
        kd.typing.infer(lambda a, b: a + b, T(kd.INT32, (10,)), T(kd.INT32, (20,)))
    with pytest.raises(ValueError, match=r"differ in dimension 0 \(n and m\)"):
        kd.typing.infer(lambda a, b: a + b, T(kd.INT32, ("n",)), T(kd.INT32, ("m",)))
    m = size("m")
    assert repr(kd.typing.infer(lambda a, b: a * b, T(kd.INT32, (2 * m + 1,)), T(kd.FLOAT32, (m + m + 1,)))) == "FLOAT32[2*m + 1]"
    x36 = T(kd.INT32, (36,))
    with pytest.raises(ValueError, match="shape_size=25 != items_size=36"):
        kd.typing.infer(lambda x: kd.reshape(x, (5, 5)), x36)
    with pytest.raises(ValueError, match="only one dimension can be a placeholder"):
        kd.typing.infer(lambda x: kd.reshape(x, (-1, -1)), x36)
    assert repr(kd.typing.infer(lambda x: kd.reshape(x, (6, -1)), x36)) == "INT32[6, 6]"
    assert repr(kd.typing.infer(lambda x: kd.reshape(x, kd.shapes.new(2, 18)), x36)) == "INT32[2, 18]"


def test_prefix_broadcasting_and_ragged_dims():
    rows = T(kd.FLOAT32, ("n", RAGGED))
    assert repr(kd.typing.infer(lambda x, y: x + y, rows, T(kd.INT32, ("n",)))) == "FLOAT32[n, *]"
    # The same ragged dimension passes through operators.
    assert repr(kd.typing.infer(lambda x: x * 2 + x, rows)) == "FLOAT32[n, *]"
    # Two ragged dimensions declared apart may be equal: left to evaluation.
    assert repr(kd.typing.infer(lambda x, y: x + y, rows, rows)) == "FLOAT32[n, *]"


def test_aggregations_drop_dimensions():
    x = T(kd.FLOAT64, ("n", 3, RAGGED))
    assert repr(kd.typing.infer(lambda x: kd.agg_max(x, ndim=2), x)) == "FLOAT64[n]"
    assert repr(kd.typing.infer(lambda x: kd.sum(x), x)) == "FLOAT64[]"
    assert repr(kd.typing.infer(lambda x: kd.agg_count(x), x)) == "INT64[n, 3]"
    assert repr(kd.typing.infer(lambda x: kd.math.argmax(x), x)) == "INT64[n, 3]"
    with pytest.raises(ValueError, match=r"expected rank >= 4"):
        kd.typing.infer(lambda x: kd.agg_sum(x, ndim=4), x)


def test_comparisons_masks_and_attributes():
    person = T(kd.schema.new_schema(age=kd.INT32, name=kd.STRING), ("n",))
    assert repr(kd.typing.infer(lambda p: p.age > 18, person)) == "MASK[n]"
    assert repr(kd.typing.infer(lambda p: p.name & (p.age > 18), person)) == "STRING[n]"
    assert repr(kd.typing.infer(lambda p: p.name | "?", person)) == "STRING[n]"
    with pytest.raises(ValueError, match="has no attribute 'height'"):
        kd.typing.infer(lambda p: p.height, person)
    with pytest.raises(ValueError, match=r"argument `x`: expected a slice of numeric values, inferred STRING\[n\]"):
        kd.typing.infer(lambda p: kd.agg_sum(p.name), person)


def test_unknown_types_check_nothing():
    assert repr(kd.typing.infer(lambda x: kd.agg_sum(x))) == "?[...]"
    # INT32 + unknown may be anything numeric (or OBJECT).
    assert repr(kd.typing.infer(lambda x, y: x + y, T(kd.INT32, ("n",)))) == "?[...]"
    # An operator without a type rule yet gives an unknown result.
    assert kd.typing.infer(lambda x: kd.strings.upper(x), T(kd.STRING, ("n",))) is not None


def test_constants_are_computed():
    assert repr(kd.typing.infer(lambda: kd.slice([1, 2]) + 1)) == "INT32[2]"


def test_bad_calls():
    with pytest.raises(TypeError, match="must be a kd.typing.SliceType or its text"):
        kd.typing.infer(lambda x: x, kd.slice([1]))
    assert repr(kd.typing.infer(lambda x: x + 1, "INT64[n]")) == "INT64[n]"
    with pytest.raises(TypeError, match="do not match the parameters"):
        kd.typing.infer(lambda x: x, T(), T())
    with pytest.raises(TypeError, match="variadic"):
        kd.typing.infer(lambda *xs: xs, T())


def test_typing_scope_is_closed_after_an_error():
    with pytest.raises(ValueError):
        kd.typing.infer(lambda a, b: a + b, T(kd.INT32, (1,)), T(kd.INT32, (2,)))
    # Tracing afterwards checks nothing.
    f = kd.fn(lambda a, b: a + b)
    assert f(a=kd.slice([1]), b=kd.slice([2])).to_py() == [3]


def test_data_dependent_sizes_get_reserved_or_given_names():
    x = T(kd.INT32, ("n",))
    assert repr(kd.typing.infer(lambda x: kd.select(x, x > 0), x)) == "INT32[_pd_shp0]"
    # Two filters: two sizes, named in the order they are traced.
    assert repr(kd.typing.infer(lambda x: kd.select(kd.select(x, x > 0), x > 1), T(kd.INT32, ("n", 4)))) == "INT32[n, *]"
    named = kd.typing.infer(lambda x: kd.select(x, kd.typing.count_named(x > 0, "n_pos")), x)
    assert repr(named) == "INT32[n_pos]"
    # A selected slice has its own size, which may be n or not: only
    # evaluation tells (Koda runs it where every item was kept).
    assert repr(kd.typing.infer(lambda x: kd.select(x, x > 0) + x, x)) == "INT32[_pd_shp0]"
    assert kd.fn(lambda x: kd.select(x, x > 0) + x)(kd.slice([1, 2])).to_py() == [2, 4]
    with pytest.raises(ValueError, match="shapes are not compatible"):
        kd.fn(lambda x: kd.select(x, x > 0) + x)(kd.slice([1, -2]))
    # A size the user named is declared: it differs from every other name.
    with pytest.raises(ValueError, match=r"differ in dimension 0 \(n_pos and n\)"):
        kd.typing.infer(lambda x: kd.select(x, kd.typing.count_named(x > 0, "n_pos")) + x, x)
    # Rows of a rank-2 slice become ragged.
    assert repr(kd.typing.infer(lambda x: kd.select(x, x > 0), T(kd.INT32, ("n", 3)))) == "INT32[n, *]"
    assert repr(kd.typing.infer(lambda x: kd.select_present(x), x)) == "INT32[_pd_shp0]"
    with pytest.raises(ValueError, match="cannot select from DataItem"):
        kd.typing.infer(lambda x: kd.select(x, x > 0), T(kd.INT32, ()))


def test_a_size_named_twice_fails():
    x = T(kd.INT32, ("n",))
    with pytest.raises(ValueError, match="the size name 'n' is declared twice in one program"):
        kd.typing.infer(lambda x: kd.select(x, kd.typing.count_named(x > 0, "n")), x)
    with pytest.raises(ValueError, match="the size name 'k' is declared twice in one program"):
        kd.typing.infer(
            lambda x: kd.select(x, kd.typing.count_named(x > 0, "k")) + kd.select(x, kd.typing.count_named(x > 1, "k")), x)


def test_count_named_leaves_values_alone():
    mask = kd.slice([kd.present, None, kd.present])
    assert kd.typing.count_named(mask, "n").to_py() == mask.to_py()
    f = kd.fn(lambda x: kd.select(x, kd.typing.count_named(x > 0, "n")))
    assert f(kd.slice([1, -1, 2])).to_py() == [1, 2]
    with pytest.raises(ValueError, match="identifier"):
        kd.typing.count_named(mask, "not a name")
    with pytest.raises(ValueError, match="reserved"):
        kd.typing.count_named(mask, "_pd_shp3")
    with pytest.raises(ValueError, match="expected a slice of MASK"):
        kd.typing.count_named(kd.slice([1]), "n")


def test_integer_items_whose_value_is_a_size():
    # Catalyst's case: f(sz) = range(sz + 1) has sz + 1 items.
    sz = size("sz")
    assert repr(kd.typing.infer(lambda sz: kd.range(sz + 1), sz)) == "INT64[sz + 1]"
    assert kd.typing.infer(lambda sz: sz * 2 + 1, sz) == 2 * sz + 1
    assert repr(kd.typing.infer(lambda a, b: kd.range(a, b), sz, size("e"))) == "INT64[e - sz]"
    assert repr(kd.typing.infer(lambda sz, x: kd.range(sz) + x, sz, T(kd.INT64, ("sz",)))) == "INT64[sz]"
    with pytest.raises(ValueError, match=r"\(sz \+ 1 and sz\)"):
        kd.typing.infer(lambda sz, x: kd.range(sz + 1) + x, sz, T(kd.INT64, ("sz",)))
    # Not affine: the count is unknown, the rank is not.
    assert repr(kd.typing.infer(lambda sz: kd.range(sz * sz), sz)) == "INT64[?]"
    assert repr(kd.typing.infer(lambda sz: sz + 1.5, sz)) == "FLOAT32[]"
    # Evaluation agrees.
    assert kd.fn(lambda sz: kd.range(sz + 1))(kd.int64(3)).to_py() == [0, 1, 2, 3]
