"""plait against koladata for Python functions given to Koda:
`kd.apply_py` (the arguments and the result are boxed as operators box them:
a Python number is a DataItem, a Python list is refused as ambiguous, a dict
or an arbitrary object is an unsupported type; the result must have the type
`return_type_as=` names, a DataSlice by default), and filter functions of
`select` / `select_items` / `select_keys`, eager, lazy, as Expr methods and
inside traced functions. Traced functions read their parameters only (an
input written in the body or captured from an outer trace is refused while
tracing), and what they return is boxed as `kd.expr.as_expr` boxes it.

The outcomes must agree: the same repr, or the same exception type and
first message line (plait names the operator first)."""

import re

import pytest

from plait import kd as pkd

from koda_compare import assert_same_repr_outcome, repr_outcome as outcome

kkd = pytest.importorskip("koladata.kd")

PROGRAMS = {
    "int_result": lambda kd: kd.apply_py(lambda x: x + 1, 1),
    "argument_is_a_data_item": lambda kd: kd.apply_py(lambda x: type(x).__name__, 1),
    "text_argument": lambda kd: kd.apply_py(lambda x: type(x).__name__, "a"),
    "none_keyword_argument": lambda kd: kd.apply_py(lambda x: type(x).__name__, x=None),
    "slice_argument": lambda kd: kd.apply_py(lambda x: type(x).__name__, kd.slice([1])),
    "list_argument": lambda kd: kd.apply_py(lambda x: x, [1, 2]),
    "list_result": lambda kd: kd.apply_py(lambda x: [1, 2], 1),
    "dict_result": lambda kd: kd.apply_py(lambda x: {"a": 1}, 1),
    "object_result": lambda kd: kd.apply_py(lambda x: object(), 1),
    "none_result": lambda kd: kd.apply_py(lambda x: None, 1),
    "tuple_result": lambda kd: kd.apply_py(lambda x: (1, 2), 1),
    "bag_result": lambda kd: kd.apply_py(lambda: kd.bag()),
    "bag_result_as_bag_class": lambda kd: type(kd.apply_py(lambda: kd.bag(), return_type_as=kd.types.DataBag)).__name__,
    "bag_result_as_bag": lambda kd: type(kd.apply_py(lambda: kd.bag(), return_type_as=kd.bag())).__name__,
    "item_result_as_bag": lambda kd: kd.apply_py(lambda: 1, return_type_as=kd.bag()),
    "shape_result_as_shape_class": lambda kd: kd.apply_py(lambda: kd.item(1).get_shape(),
                                                          return_type_as=kd.types.JaggedShape),
    "slices_and_keywords": lambda kd: kd.apply_py(lambda x, y: x + y, kd.slice([1, 2]), y=3),
    "no_arguments": lambda kd: kd.apply_py(lambda: "z"),
    "not_callable": lambda kd: kd.apply_py(1, 1),
    # map_py results must fit `schema=` (nothing is cast).
    "map_py_float_as_int32": lambda kd: kd.map_py(lambda x: x * 1.5, kd.slice([1, 2]), schema=kd.INT32),
    "map_py_int_as_int64": lambda kd: kd.map_py(lambda x: x * 2, kd.slice([1, 2]), schema=kd.INT64),
    "map_py_int_as_float32": lambda kd: kd.map_py(lambda x: x * 2, kd.slice([1, 2]), schema=kd.FLOAT32),
    "map_py_text_as_int32": lambda kd: kd.map_py(lambda x: str(x), kd.slice([1, 2]), schema=kd.INT32),
    "map_py_int_as_text": lambda kd: kd.map_py(lambda x: x, kd.slice([1, 2]), schema=kd.STRING),
    "map_py_bool_as_mask": lambda kd: kd.map_py(lambda x: x > 1, kd.slice([1, 2]), schema=kd.MASK),
    "map_py_none_as_int32": lambda kd: kd.map_py(lambda x: None, kd.slice([1, 2]), schema=kd.INT32),
    "map_py_big_int_as_int32": lambda kd: kd.map_py(lambda x: 2**40, kd.slice([1, 2]), schema=kd.INT32),
    "map_py_bool_as_int32": lambda kd: kd.map_py(lambda x: True, kd.slice([1, 2]), schema=kd.INT32),
    "map_py_bytes_as_text": lambda kd: kd.map_py(lambda x: b"a", kd.slice([1, 2]), schema=kd.STRING),
    "map_py_float_lists_as_int_lists": lambda kd: kd.map_py(lambda x: [x * 1.5], kd.slice([1, 2]),
                                                            schema=kd.list_schema(kd.INT32)),
    "map_py_on_selected_float_as_int32": lambda kd: kd.map_py_on_selected(lambda x: x * 1.5, kd.slice([1, 2]) > 1,
                                                                          kd.slice([1, 2]), schema=kd.INT32),
    # Filter functions.
    "select_method_in_traced_function": lambda kd: kd.fn(lambda x: x.select(lambda v: v > 1))(kd.slice([1, 2, 3])),
    "select_in_traced_function": lambda kd: kd.fn(lambda x: kd.select(x, lambda v: v > 1))(kd.slice([1, 2, 3])),
    "select_items_method_in_traced_function": lambda kd: kd.fn(lambda x: x.select_items(lambda v: v > 1))(
        kd.list([1, 2, 3])),
    "saved_traced_select": lambda kd: kd.loads(kd.dumps(kd.fn(lambda x: x.select(lambda v: v > 1))))(
        kd.slice([1, 2, 3])),
    "lazy_select_of_function": lambda kd: kd.eval(kd.lazy.select(kd.I.x, lambda v: v > 1), x=kd.slice([1, 2, 3])),
    "lazy_select_of_functor": lambda kd: kd.eval(kd.lazy.select(kd.I.x, kd.fn(lambda v: v > 1)),
                                                 x=kd.slice([1, 2, 3])),
    "lazy_select_of_mask": lambda kd: kd.eval(kd.lazy.select(kd.I.x, kd.I.x > 1), x=kd.slice([1, 2, 3])),
    "select_items_of_functor": lambda kd: kd.select_items(kd.list([1, 2, 3]), kd.fn(lambda v: v > 1)),
    "expr_select_items_of_function": lambda kd: kd.eval(kd.I.x.select_items(lambda v: v > 1), x=kd.list([1, 2, 3])),
    "select_keys_of_function": lambda kd: kd.select_keys(kd.dict({1: 2, 3: 4}), lambda k: k > 1),
    "lazy_select_keys_of_function": lambda kd: kd.eval(kd.lazy.select_keys(kd.I.x, lambda k: k > 1),
                                                       x=kd.dict({1: 2, 3: 4})),
    # Traced functions read their parameters only.
    "traced_input_not_a_parameter": lambda kd: _first_line(lambda: kd.fn(lambda x: x + kd.I.y)),
    "traced_self_input": lambda kd: _first_line(lambda: kd.fn(lambda x: kd.I.self)),
    "traced_function_captures_outer_input": lambda kd: _first_line(
        lambda: kd.fn(lambda x, y: kd.call(lambda a: a + y, x))),
    "traced_map_body_captures_outer_input": lambda kd: _first_line(
        lambda: kd.fn(lambda x: kd.map(lambda y: y + x, x))),
    "traced_functor_of_outer_input": lambda kd: _first_line(lambda: kd.fn(lambda x: kd.fn(lambda y: y + x))),
    "traced_variable": lambda kd: kd.fn(lambda x: kd.V.a).returns,
    # What a traced function returns becomes an expression as kd.expr.as_expr boxes it.
    "traced_dict_result": lambda kd: kd.fn(lambda x: {"a": x}),
    "traced_list_result": lambda kd: kd.fn(lambda x: [x]),
    "as_expr_of_function": lambda kd: kd.expr.as_expr(lambda x: x).eval()(5),
    "as_expr_of_object": lambda kd: kd.expr.as_expr(object()),
    "as_expr_of_set": lambda kd: kd.expr.as_expr({1}),
    "as_expr_of_ellipsis": lambda kd: kd.expr.as_expr(...),
    "as_expr_of_none": lambda kd: kd.expr.as_expr(None),
    "as_expr_of_bytes": lambda kd: kd.expr.as_expr(b"x"),
    # Slices in expressions: Python's form as keys, Koda's slice(...) elsewhere.
    "as_expr_of_slice": lambda kd: kd.expr.as_expr(slice(1, 2)),
    "literal_of_slice_with_step": lambda kd: kd.expr.literal(kd.tuples.slice(1, None, 2)),
    "slice_in_a_tuple_node": lambda kd: kd.lazy.tuples.tuple(kd.tuples.slice(1)),
    "get_item_of_a_slice": lambda kd: kd.lazy.core.get_item(kd.I.x, slice(1, 2)),
    "subslice_keys": lambda kd: kd.I.x.S[1:2, ...],
    "fn_of_item": lambda kd: kd.fn(kd.item(1)),
    "fn_of_slice": lambda kd: kd.fn(kd.slice([1, 2])),
    "fn_of_int": lambda kd: kd.fn(1),
    # A Python object held in an expression prints as Koda prints it.
    "lazy_apply_py_repr": lambda kd: _without_addresses(repr(kd.lazy.apply_py(_increment, kd.I.x))),
    # Inputs and variables whose names are no identifiers.
    "input_names_printed": lambda kd: [kd.I["x y"], kd.V["a b"], kd.I["it's"], kd.I["1a"], kd.I["if"], kd.I["é"]],
}



def _increment(x):
    return x + 1


def _without_addresses(text):
    """`text` with Python objects' addresses (which differ between runs) masked."""
    return re.sub(r" at 0x[0-9a-f]+", " at <address>", text)


def _first_line(fn):
    """The first line of the error `fn` raises, addresses masked."""
    try:
        fn()
    except ValueError as e:
        return _without_addresses(str(e).split("\n")[0])
    return "no error"


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_python_functions_agree(name):
    program = PROGRAMS[name]
    assert_same_repr_outcome(outcome(pkd, program), outcome(kkd, program))
