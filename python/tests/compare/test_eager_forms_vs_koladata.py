"""plait against koladata for operators whose eager form differs from their
lazy one: `kd.with_name` does nothing eagerly (to values and expressions
alike) and names the node lazily, as an Expr method and while tracing;
`kd.slice` and `kd.item` box Python values eagerly and are operators on
the values of expressions lazily and in traced functions.

The outcomes must agree: the same repr, or the same exception type and
first message line."""

import pytest

from plait import kd as pkd

from koda_compare import assert_same_repr_outcome, repr_outcome as outcome

kkd = pytest.importorskip("koladata.kd")


def _error_says(fn, text):
    """The type of the error `fn` raises, and whether its message says
    `text` (the operators named before it differ)."""
    try:
        fn()
    except ValueError as error:
        return "ValueError", text in str(error)
    return "no error", False


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
    "slice_in_traced_function": lambda kd: kd.fn(lambda x: kd.slice(x))(kd.slice([1])),
    "slice_with_schema_in_traced_function": lambda kd: kd.fn(lambda x: kd.slice(x, kd.FLOAT32))(kd.slice([1])),
    "item_with_schema_in_traced_function": lambda kd: kd.fn(lambda x: kd.item(x, kd.INT64))(1),
    "item_of_slice_in_traced_function": lambda kd: _error_says(
        lambda: kd.fn(lambda x: kd.item(x))(kd.slice([1])), "kd.item: argument `x` cannot be a multi-dim DataSlice"),
    "slice_of_list_in_traced_function": lambda kd: kd.fn(lambda x: kd.slice([1, 2]) + x)(1),
    "lazy_slice_of_input": lambda kd: kd.eval(kd.lazy.slice(kd.I.x), x=kd.slice([1])),
    "lazy_slice_of_list": lambda kd: kd.eval(kd.lazy.slice([1, 2, 3])),
    "lazy_slice_of_list_with_schema": lambda kd: kd.eval(kd.lazy.slice([1, 2], kd.INT64)),
    "lazy_item_of_input_with_schema": lambda kd: kd.eval(kd.lazy.item(kd.I.x, kd.FLOAT32), x=1),
    "lazy_slice_of_entities_to_object": lambda kd: kd.eval(kd.lazy.slice(kd.I.x, kd.OBJECT),
                                                           x=kd.new(a=kd.slice([1]))).a,
    # A Python value is boxed with the schema when the node is built (the
    # node keeps no schema); a DataSlice keeps the schema argument.
    "lazy_slice_of_list_with_schema_repr": lambda kd: repr(kd.lazy.slice([1, 2], kd.INT64)),
    "lazy_slice_of_list_with_schema_keyword_repr": lambda kd: repr(kd.lazy.slice([1, 2], schema=kd.INT64)),
    "lazy_slices_slice_of_list_with_schema_repr": lambda kd: repr(kd.lazy.slices.slice([1, 2], kd.INT64)),
    "lazy_item_with_object_schema_repr": lambda kd: repr(kd.lazy.item(1, kd.OBJECT)),
    "lazy_slice_of_slice_with_schema_repr": lambda kd: repr(kd.lazy.slice(kd.slice([1, 2]), kd.INT64)),
    "lazy_item_of_value_with_schema_expression": lambda kd: _error_says(
        lambda: kd.lazy.item(1, kd.I.s), "`schema` cannot be an expression when `x` is a Python value"),
    "lazy_slice_of_list_with_schema_expression": lambda kd: _error_says(
        lambda: kd.lazy.slice([1, 2], kd.I.s), "`schema` cannot be an expression when `x` is a Python value"),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_eager_forms_agree(name):
    program = PROGRAMS[name]
    assert_same_repr_outcome(outcome(pkd, program), outcome(kkd, program))
