"""Expressions (issue 5, first part): kd.I / kd.V, literals, kd.lazy
operators, Python operators on Exprs, Koda's text form, kd.eval with cached
plans. Texts checked against koladata 0.0.4."""

import pytest

from plait import kd

I = kd.I


def test_the_seed_example():
    e = (I.a + I.b) * I.c
    assert repr(e) == "(I.a + I.b) * I.c"
    assert repr(kd.eval(e, a=kd.int32(2), b=3, c=4)) == "DataItem(20, schema: INT32)"
    assert repr(e.eval(a=1, b=1, c=1)) == "DataItem(2, schema: INT32)"
    assert kd.expr.get_input_names(e) == ["a", "b", "c"]


@pytest.mark.parametrize("build, text", [
    (lambda: kd.lazy.math.agg_sum(I.x), "kd.math.agg_sum(I.x, unspecified)"),
    (lambda: kd.lazy.math.agg_sum(I.x, ndim=2), "kd.math.agg_sum(I.x, DataItem(2, schema: INT32))"),
    (lambda: kd.lazy.math.add(I.x, 1), "I.x + DataItem(1, schema: INT32)"),
    (lambda: kd.lazy.add(I.x, 1), "I.x + DataItem(1, schema: INT32)"),
    (lambda: I.x.y, "I.x.y"),
    (lambda: I.x[1], "I.x[DataItem(1, schema: INT32)]"),
    (lambda: -I.x, "-I.x"),
    (lambda: ~I.a, "~I.a"),
    (lambda: I.x & I.y, "I.x & I.y"),
    (lambda: I.a | I.b, "I.a | I.b"),
    (lambda: I.x == 1, "I.x == DataItem(1, schema: INT32)"),
    (lambda: I.a != I.b, "I.a != I.b"),
    (lambda: I.a >= 1, "I.a >= DataItem(1, schema: INT32)"),
    (lambda: kd.V.v, "V.v"),
    (lambda: kd.expr.literal(kd.slice([1, 2])), "DataSlice([1, 2], schema: INT32, present: 2/2)"),
    (lambda: (I.a + 1) * 2 - I.b / 3,
     "(I.a + DataItem(1, schema: INT32)) * DataItem(2, schema: INT32) - I.b / DataItem(3, schema: INT32)"),
    (lambda: I.a ** 2 % 3 // 4, "I.a ** DataItem(2, schema: INT32) % DataItem(3, schema: INT32) // DataItem(4, schema: INT32)"),
    (lambda: I.a - (I.b - I.c), "I.a - (I.b - I.c)"),
    (lambda: kd.lazy.strings.upper(I.s), "kd.strings.upper(I.s)"),
    (lambda: kd.lazy.slices.select(I.x, I.x > 1),
     "kd.slices.select(I.x, I.x > DataItem(1, schema: INT32), DataItem(True, schema: BOOLEAN))"),
    (lambda: 1 + I.a, "DataItem(1, schema: INT32) + I.a"),
])
def test_texts_are_kodas(build, text):
    assert repr(build()) == text


def test_evaluation():
    assert kd.eval(kd.lazy.math.agg_sum(I.x), x=kd.slice([[1, 2], [3]])).to_py() == [3, 3]
    assert kd.eval(I.e.x, e=kd.new(x=5)).to_py() == 5
    assert kd.eval(I.l[1], l=kd.list([1, 2])).to_py() == 2
    assert kd.eval(kd.lazy.strings.upper(I.s), s=kd.slice(["a", None])).to_py() == ["A", None]
    assert kd.eval(kd.slice([1])).to_py() == [1]  # a value evaluates to itself
    shared = I.x * 2
    assert kd.eval(shared + shared, x=3).to_py() == 12


def test_equal_structure_equal_fingerprints():
    assert (I.a + I.b).fingerprint == (I.a + I.b).fingerprint
    assert (I.a + I.b).fingerprint != (I.b + I.a).fingerprint
    assert kd.expr.is_literal(kd.expr.literal(kd.item(1))) and not kd.expr.is_literal(I.a)


def test_long_chains():
    e = I.x
    for _ in range(20000):
        e = e + 1
    assert kd.eval(e, x=0).to_py() == 20000


def test_errors_name_what_went_wrong():
    with pytest.raises(ValueError, match=r"kd.eval\(\) has missing inputs for: \[I.b\]"):
        kd.eval(I.a + I.b, a=1)
    with pytest.raises(TypeError, match="kd.math.add: missing 1 required positional argument: 'y'"):
        kd.lazy.math.add(I.x)
    with pytest.raises(TypeError):
        kd.lazy.math.neg(I.x, I.y)
    with pytest.raises(ValueError, match=r"missing inputs for: \[V.v\]"):
        kd.eval(kd.V.v + 1)
    with pytest.raises(TypeError, match="__bool__ is disabled for an Expr"):
        bool(I.a == 1)
    with pytest.raises(ValueError, match="kd.math.add"):
        kd.eval(I.a + I.b, a=1, b="x")
    with pytest.raises(ValueError, match="passing a Python list"):
        I.a + [1, 2]
