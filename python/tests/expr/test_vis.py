"""kd.vis (issue 8): expressions and functors as Graphviz dot, checked by
Graphviz itself when it is installed."""

import shutil
import subprocess

import pytest

from plait import kd

I = kd.I


def seed_functor():
    @kd.trace_as_fn()
    def my_inner_functor(x):
        return x + 1

    @kd.fn
    def my_outer_functor(a, b, c):
        sum_ab = kd.with_name(a + b, "sum_ab")
        return my_inner_functor(sum_ab) * c

    return my_outer_functor


def test_expression_dot():
    dot = kd.vis.to_dot((I.a + I.b) * I.c)
    assert dot.startswith("digraph plait {") and dot.endswith("}")
    assert 'label="+"' in dot and 'label="*"' in dot and 'label="I.a"' in dot
    assert dot.count("->") == 4


def test_functor_dot_has_the_seed_structure():
    dot = kd.vis.to_dot(seed_functor())
    assert 'label="functor seed_functor.<locals>.my_outer_functor"' in dot
    assert 'label="functor seed_functor.<locals>.my_inner_functor"' in dot
    assert 'sum_ab = I.a + I.b' in dot
    assert "_my_inner_functor_result = V.my_inner_functor(V.sum_ab)" in dot
    assert "returns = V._my_inner_functor_result * I.c" in dot
    with pytest.raises(TypeError, match="expected an expression or a functor"):
        kd.vis.to_dot(kd.item(1))


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz is not installed")
@pytest.mark.parametrize("make", [lambda: (I.a + I.b) * kd.lazy.math.agg_sum(I.c), seed_functor])
def test_graphviz_parses_it(make):
    result = subprocess.run(["dot", "-Tsvg"], input=kd.vis.to_dot(make()), capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "<svg" in kd.vis.to_svg(make())
