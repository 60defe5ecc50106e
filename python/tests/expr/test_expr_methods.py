"""Expressions have Koda's methods (issue 21): DataSlice methods build the
operator Koda's expression view builds (`I.x.get_size()` is `kd.size(I.x)`),
DataBag methods and those that only mean something on data raise Koda's
error, and the node API (`equals`, `inputs`, `is_literal`, ...) tells what a
node is."""

import pytest

from plait import kd

I = kd.I


@pytest.mark.parametrize("method, op, args", [
    ("get_size", "kd.slices.size", ()),
    ("get_present_count", "kd.slices.count", ()),
    ("get_dtype", "kd.schema.get_dtype", ()),
    ("get_sizes", "kd.shapes.get_sizes", ()),
    ("is_list_schema", "kd.schema.is_list_schema", ()),
    ("is_dict_schema", "kd.schema.is_dict_schema", ()),
    ("is_entity_schema", "kd.schema.is_entity_schema", ()),
    ("is_primitive_schema", "kd.schema.is_primitive_schema", ()),
    ("is_struct_schema", "kd.schema.is_struct_schema", ()),
    ("with_schema_from_obj", "kd.schema.with_schema_from_obj", ()),
    ("get_keys", "kd.dicts.get_keys", ()),
])
def test_methods_build_koda_operators(method, op, args):
    e = getattr(I.x, method)(*args)
    assert isinstance(e, kd.types.Expr) and e.op.name == op


def test_methods_evaluate_as_the_data_methods():
    x = kd.slice([[1, None], [3]])
    for method in ("get_size", "get_present_count"):
        assert repr(getattr(I.x, method)().eval(x=x)) == repr(getattr(x, method)())
    schema = kd.named_schema("P", a=kd.INT32)
    made = I.s.new(a=1).eval(s=schema)
    assert made.get_schema() == schema and made.a.to_py() == 1
    f = I.f.bind(y=10).eval(f=kd.fn(I.x + I.y))
    assert f(x=1).to_py() == 11


def test_list_slicing_helper_of_an_expression():
    x = kd.slice([[1, 2, 3], [4, 5]])
    assert I.x.L[0].eval(x=x).to_py() == [1, 2, 3]


@pytest.mark.parametrize("method, owner", [
    ("list", "a DataBag"), ("dict", "a DataBag"), ("uu", "a DataBag"), ("fork", "a DataBag"),
    ("merge_inplace", "a DataBag"), ("named_schema", "a DataBag"), ("get_approx_size", "a DataBag"),
    ("get_attr_names", "a DataSlice"), ("from_vals", "a DataSlice"), ("display", "a DataSlice"),
    ("is_mutable", "a DataSlice/DataBag"),
])
def test_data_only_methods_raise_koda_error(method, owner):
    with pytest.raises(ValueError, match=rf"calling \.{method}\(\) on {owner} is not supported in expr/tracing mode"):
        getattr(I.x, method)()


def test_node_api():
    e = I.x + I.y
    assert e.equals(I.x + I.y) and not e.equals(I.y + I.x) and not e.equals(1)
    assert e.inputs() == ["x", "y"] and (kd.V.a + 1).inputs() == []
    literal = kd.expr.literal(kd.item(1))
    assert literal.is_literal and not e.is_literal
    assert e.is_operator and I.x.is_operator and not literal.is_operator
    assert not I.x.is_leaf and not I.x.is_placeholder
    assert I.x.leaf_key == "" and I.x.placeholder_key == ""
    assert e.qtype is None


def test_positional_eval_is_self():
    assert (kd.S + 1).eval(kd.item(1)).to_py() == 2
    assert kd.S.a.eval(kd.new(a=3)).to_py() == 3
    assert (I.x * 2).eval(x=4).to_py() == 8
