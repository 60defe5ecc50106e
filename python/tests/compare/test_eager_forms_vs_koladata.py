"""plait against koladata for operators whose eager form differs from their
lazy one: `kd.with_name` does nothing eagerly (to values and expressions
alike) and names the node lazily, as an Expr method and while tracing.

The outcomes must agree: the same repr, or the same exception type and
first message line."""

import pytest

from plait import kd as pkd

from koda_compare import assert_same_repr_outcome, repr_outcome as outcome

kkd = pytest.importorskip("koladata.kd")


def _name_of(kd, e):
    return repr(e), kd.expr.get_name(e)


PROGRAMS = {
    "eager_with_name_of_expression": lambda kd: _name_of(kd, kd.with_name(kd.I.x + 1, "n")),
    "lazy_with_name_of_expression": lambda kd: _name_of(kd, kd.lazy.with_name(kd.I.x + 1, "n")),
    "expression_method_with_name": lambda kd: _name_of(kd, (kd.I.x + 1).with_name("n")),
    "eager_with_name_of_item": lambda kd: kd.with_name(kd.item(1), "n"),
    "eager_with_name_of_python_value": lambda kd: kd.with_name([1], "n"),
    "with_name_of_item_name": lambda kd: kd.with_name(kd.I.x, kd.item("n")),
    "with_name_of_int_name": lambda kd: kd.with_name(kd.item(1), 1),
    "with_name_while_tracing": lambda kd: kd.fn(lambda x: kd.with_name(x + 1, "y") * 2)(x=1),
    "with_name_while_tracing_names_a_variable": lambda kd: sorted(
        k for k in kd.dir(kd.fn(lambda x: kd.with_name(x + 1, "y") * 2)) if k != "__signature__"),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_eager_forms_agree(name):
    program = PROGRAMS[name]
    assert_same_repr_outcome(outcome(pkd, program), outcome(kkd, program))
