"""f-strings whose fields are expressions (issue 21): `kd.lazy.fstr(f"{I.x:s}")`
builds a `kd.strings.format` expression, also inside traced functions where
the arguments are expressions, and `kd.functor.fstr_fn` makes a functor of
one, as Koda does."""

import pytest

from plait import kd

I, V = kd.I, kd.V


def test_fstr_in_a_traced_function():
    f = kd.fn(lambda x: kd.fstr(f"{x:s} a"))
    assert f(kd.slice([1, 2])).to_py() == ["1 a", "2 a"]
    assert kd.loads(kd.dumps(f))(kd.item(3)).to_py() == "3 a"


def test_fstr_of_expressions_with_specs_and_braces():
    e = kd.lazy.fstr(f"{I.x:s} is {I.y:.2f} {{b}}")
    assert isinstance(e, kd.types.Expr)
    assert kd.eval(e, x=kd.slice(["p", "q"]), y=1.234).to_py() == ["p is 1.23 {b}", "q is 1.23 {b}"]
    assert kd.eval(kd.lazy.strings.fstr(f"{I.x + 1:s}!"), x=1).to_py() == "2!"
    assert f"{I.x}" == "I.x"


def test_dataslice_fields_still_format_eagerly():
    assert kd.fstr(f"{kd.item(1):s} z").to_py() == "1 z"
    assert kd.eval(kd.lazy.fstr(f"{kd.item(3):s}!")).to_py() == "3!"
    with pytest.raises(ValueError, match="cannot mix expressions and DataSlices"):
        kd.lazy.fstr(f"{I.x:s} {kd.item(1):s}")


def test_eager_fstr_of_an_expression_is_an_error():
    # As Koda: the eager call formats values (kd.lazy.fstr builds the
    # expression; inside a traced function kd.fstr does).
    with pytest.raises(ValueError, match="f-string contains expression in eager kd.fstr call"):
        kd.fstr(f"{I.x:s}!")


def test_fstr_fn():
    assert kd.call(kd.functor.fstr_fn(f"{I.x:s} {I.y:s}"), x=1, y=2).to_py() == "1 2"
    assert kd.call(kd.functor.fstr_fn(f"{V.x:s} {I.y:s}", x=1), y=2).to_py() == "1 2"
    assert kd.call(kd.functor.fstr_fn(f"{(I.x + I.y):s}"), x=1, y=2).to_py() == "3"
    for text in ["abc", "{I.x}"]:
        with pytest.raises(ValueError, match="FString has nothing to format"):
            kd.functor.fstr_fn(text)
