"""Operators of expressions (issue 5): lambda, Python-function and backend
operators, the registry, preparation (lowering, literal folding), names,
substitutions, tuples, tags, passes, and kd.eager / kd.lazy / tracing."""

import pytest

from plait import _plait, kd
from plait.kd._operators import unspecified

I = kd.I


@kd.optools.as_lambda_operator("my_add")
def my_add(x, y):
    return x + y * 2


def test_a_lambda_operator_is_lowered():
    e = my_add(I.a, 3)
    assert repr(e) == "my_add(I.a, DataItem(3, schema: INT32))"
    assert repr(my_add) == "<LambdaOperator 'my_add'(x, y): P.x + P.y * DataItem(2, schema: INT32)>"
    # Preparation inlines the body, and the literal subtree 3 * 2 folds.
    assert repr(kd.expr.prepare(e)) == "I.a + DataItem(6, schema: INT32)"
    assert kd.eval(e, a=1).to_py() == 7
    # Calling an operator builds an expression even with values.
    assert isinstance(my_add(1, 2), kd.expr.Expr)


def test_lambda_defaults_keywords_and_varargs():
    @kd.optools.as_lambda_operator("my_sum")
    def my_sum(x, *, ndim=unspecified):
        return kd.math.agg_sum(x, ndim=ndim)

    # An unspecified parameter leaves the operator's argument unspecified.
    assert repr(kd.expr.prepare(my_sum(I.x))) == "kd.math.agg_sum(I.x, unspecified)"
    assert kd.eval(my_sum(I.x), x=kd.slice([[1, 2], [3]])).to_py() == [3, 3]
    assert kd.eval(my_sum(I.x, ndim=2), x=kd.slice([[1, 2], [3]])).to_py() == 6

    @kd.optools.as_lambda_operator("second")
    def second(x, *args):
        return kd.tuples.get_nth(args, 1)

    assert kd.eval(second(I.a, I.b, 3), a=1, b=2).to_py() == 3


def test_lambdas_nest():
    @kd.optools.as_lambda_operator("twice_my_add")
    def twice(x):
        return my_add(x, x) * 2

    assert repr(kd.expr.prepare(twice(I.a))) == "(I.a + I.a * DataItem(2, schema: INT32)) * DataItem(2, schema: INT32)"
    assert kd.eval(twice(I.a), a=1).to_py() == 6


def test_literal_folding_reduces_the_node_count():
    e = I.x + (kd.expr.literal(kd.item(1)) + 2) * 3
    assert len(kd.expr.post_order(e)) == 7
    prepared = kd.expr.prepare(e)
    assert len(kd.expr.post_order(prepared)) == 3
    assert repr(prepared) == "I.x + DataItem(9, schema: INT32)"


def test_operators_that_allocate_are_not_folded():
    e = kd.lazy.new(a=1)
    assert repr(kd.expr.prepare(e)) == repr(e)
    first, second = kd.eval(e), kd.eval(e)
    assert first.get_itemid() != second.get_itemid()


def test_a_python_function_operator_runs():
    calls = []

    @kd.optools.as_py_function_operator("plus_hundred")
    def plus_hundred(x):
        calls.append(x)
        return x + 100

    e = plus_hundred(I.a)
    assert repr(e) == "plus_hundred(I.a)"
    assert kd.eval(e, a=1).to_py() == 101
    assert len(calls) == 1

    @kd.optools.as_py_function_operator("fails")
    def fails(x):
        raise KeyError("boom")

    # The Python exception comes out as it was, with a note naming the node.
    with pytest.raises(KeyError, match="boom") as info:
        kd.eval(fails(I.a) + 1, a=1)
    assert info.value.__notes__ == ["while evaluating fails(I.a)"]


def test_a_python_function_operator_gets_python_values():
    @kd.optools.as_py_function_operator("bag_of")
    def bag_of(x):
        return x.get_bag()

    @kd.optools.as_py_function_operator("attr_names")
    def attr_names(x, bag):
        return kd.slice(sorted(x.with_bag(bag).get_attr_names(intersection=True)))

    e = attr_names(I.x, bag_of(I.x))
    assert kd.eval(e, x=kd.new(a=1, b=2)).to_py() == ["a", "b"]


def test_a_backend_operator():
    @kd.optools.as_backend_operator("my_math.plus", kernel="kd.math.add")
    def plus(x, y):
        """Adds."""

    assert repr(plus(I.a, 1)) == "my_math.plus(I.a, DataItem(1, schema: INT32))"
    assert kd.eval(plus(I.a, 1), a=2).to_py() == 3
    with pytest.raises(ValueError, match="no backend operator is registered as kd.no_such"):
        kd.optools.as_backend_operator("x", kernel="kd.no_such")(lambda x: None)
    with pytest.raises(ValueError, match="does not match the backend operator"):
        kd.optools.as_backend_operator("x", kernel="kd.math.add")(lambda x: None)


def test_the_registry():
    @kd.optools.add_to_registry(aliases=["kd.test_alias_op"])
    @kd.optools.as_lambda_operator("kd.test_ns.test_op")
    def test_op(x, y=1):
        return x - y

    assert repr(test_op(I.a)) == "kd.test_ns.test_op(I.a, DataItem(1, schema: INT32))"
    assert kd.eval(test_op(I.a), a=5).to_py() == 4
    container = kd.optools.make_operators_container("kd", "kd.test_ns")
    assert kd.eval(container.kd.test_ns.test_op(I.a, 2), a=5).to_py() == 3
    assert repr(container.kd.test_alias_op(I.a)) == "kd.test_alias_op(I.a, DataItem(1, schema: INT32))"
    assert "test_op" in dir(container.kd.test_ns) and "test_ns" in dir(container.kd)
    # Only the operators directly in the container's namespaces, as in Koda.
    with pytest.raises(AttributeError, match="'kd.math' is not present in container"):
        container.kd.math.add  # noqa: B018
    with pytest.raises(AttributeError, match="'kd.no_such_op' is not present in container"):
        container.kd.no_such_op  # noqa: B018
    only_kd = kd.optools.make_operators_container("kd")
    with pytest.raises(AttributeError, match="'kd.test_ns' is not present in container"):
        only_kd.kd.test_ns.test_op  # noqa: B018
    with pytest.raises(ValueError, match="already exists"):
        kd.optools.add_to_registry()(test_op)
    with pytest.raises(ValueError, match="cannot be replaced"):
        kd.optools.add_to_registry("kd.math.add")(test_op)
    kd.optools.add_to_registry(unsafe_override=True)(test_op)


def test_names():
    n = kd.lazy.with_name(I.a + 1, "foo")
    assert repr(n) == "foo = I.a + DataItem(1, schema: INT32)\nfoo"
    assert kd.expr.get_name(n) == "foo"
    assert kd.expr.get_name(I.a) is None
    assert repr(kd.expr.unwrap_named(n)) == "I.a + DataItem(1, schema: INT32)"
    assert repr(n + 2) == "foo = I.a + DataItem(1, schema: INT32)\nfoo + DataItem(2, schema: INT32)"
    assert kd.eval(n + 2, a=1).to_py() == 4
    assert kd.with_name(kd.item(1), "x").to_py() == 1  # eager: unchanged
    with pytest.raises(ValueError, match="non-named"):
        kd.expr.unwrap_named(I.a)


def test_substitutions():
    e = (I.a + I.b) * I.c
    assert repr(kd.expr.sub(e, I.a, I.z)) == "(I.z + I.b) * I.c"
    assert repr(kd.expr.sub(e, (I.a, I.z), (I.c, I.y))) == "(I.z + I.b) * I.y"
    assert repr(kd.expr.sub_inputs(e, a=I.q, b=5)) == "(I.q + DataItem(5, schema: INT32)) * I.c"
    assert repr(kd.expr.sub_by_name(kd.lazy.with_name(I.a, "n") + 1, n=I.w)) == "I.w + DataItem(1, schema: INT32)"
    assert kd.expr.is_input(I.a) and kd.expr.is_variable(kd.V.a) and not kd.expr.is_input(e)


def test_tuples():
    t = kd.lazy.tuples.tuple(I.a, I.b)
    assert repr(t) == "kd.tuples.tuple(I.a, I.b)"
    assert [x.to_py() for x in kd.eval(t, a=1, b=2)] == [1, 2]
    assert kd.eval(kd.lazy.tuples.get_nth(t, 1), a=1, b=2).to_py() == 2
    nt = kd.lazy.tuples.namedtuple(x=I.a, y=I.b)
    assert repr(nt) == "kd.tuples.namedtuple(x=I.a, y=I.b)"
    value = kd.eval(nt, a=1, b=2)
    assert repr(value) == "namedtuple<x=DATA_SLICE,y=DATA_SLICE>{(DataItem(1, schema: INT32), DataItem(2, schema: INT32))}"
    assert value["y"].to_py() == 2 and value.x.to_py() == 1
    assert kd.eval(kd.lazy.tuples.get_namedtuple_field(nt, "y"), a=1, b=2).to_py() == 2
    with pytest.raises(ValueError, match="index out of range: n=5, value.field_count=2"):
        kd.eval(kd.lazy.tuples.get_nth(t, 5), a=1, b=2)
    with pytest.raises(KeyError, match="has no field `z`"):
        kd.eval(kd.lazy.tuples.get_namedtuple_field(nt, "z"), a=1, b=2)
    # Eagerly, Python tuples.
    assert kd.tuples.get_nth(kd.tuples.tuple(1, 2), 1) == 2
    assert kd.tuples.get_namedtuple_field(kd.tuples.namedtuple(a=1), "a") == 1


def test_tags_describe_and_change_nothing():
    e = I.a + 1
    tagged = kd.expr.tagged(e, "from differentiation")
    assert kd.expr.get_tags(tagged) == ("from differentiation",)
    assert kd.expr.get_tags(e) == ()
    assert tagged.fingerprint == e.fingerprint
    assert kd.eval(tagged, a=1).to_py() == kd.eval(e, a=1).to_py()
    assert kd.expr.get_tags(kd.expr.tagged(tagged, "x")) == ("from differentiation", "x")


def test_a_user_pass_renames_inputs():
    left = I.a + I.b
    right = kd.lazy.math.abs(I.c)
    e = left * right

    def rename(node):
        return I[node.leaf_name + "_renamed"] if kd.expr.is_input(node) and node.leaf_name != "c" else node

    renamed = kd.expr.transform(e, rename)
    assert repr(renamed) == "(I.a_renamed + I.b_renamed) * kd.math.abs(I.c)"
    assert kd.expr.get_input_names(renamed) == ["a_renamed", "b_renamed", "c"]
    # A pass that changes nothing returns the same expression.
    assert kd.expr.transform(e, lambda node: node).fingerprint == e.fingerprint


def test_a_pass_can_propagate_tags_and_analyse():
    visited = []
    kd.expr.transform((I.a + I.a) * I.a, lambda n: visited.append(repr(n)) or n)
    assert visited == ["I.a", "I.a + I.a", "(I.a + I.a) * I.a"]  # shared nodes once

    def tag_sums(node):
        op = node.op
        return kd.expr.tagged(node, "sum") if op is not None and op.name == "kd.math.add" else node

    tagged = kd.expr.transform(I.x + I.y * 2, tag_sums)
    assert kd.expr.get_tags(tagged) == ("sum",)
    assert kd.expr.get_tags(tagged.node_deps[1]) == ()
    with pytest.raises(ZeroDivisionError):
        kd.expr.transform(I.x + 1, lambda n: 1 / 0)


def test_tracing_makes_kd_operators_lazy():
    with kd.expr.tracing():
        e = kd.math.add(I.a, 1)
        f = kd.attrs(I.x, a=1)
        g = kd.eager.math.add(1, 2)
    assert repr(e) == "I.a + DataItem(1, schema: INT32)"
    # kd.attrs is a registry operator: traced under its canonical name, with Koda's default shown.
    assert repr(f) == "kd.core.attrs(I.x, overwrite_schema=DataItem(False, schema: BOOLEAN), a=DataItem(1, schema: INT32))"
    assert g.to_py() == 3
    bag = kd.eval(f, x=kd.new())
    assert isinstance(bag, kd.types.DataBag)
    assert kd.math.add(1, 2).to_py() == 3  # eager again outside


def test_eager_operators_refuse_expressions():
    with pytest.raises(TypeError, match="kd.math.add: for eager evaluation, all arguments must be eager values "
                                        r"\(e.g. DataSlices\), got an Expr for the argument 'x': I.a"):
        kd.math.add(I.a, 1)
    with pytest.raises(TypeError, match="got an Expr for the argument 'y'"):
        kd.math.add(1, y=I.a)
    # A DataSlice operand with an Expr builds an expression.
    assert repr(kd.item(1) + I.a) == "DataItem(1, schema: INT32) + I.a"
    assert repr(kd.item(1) & I.m) == "DataItem(1, schema: INT32) & I.m"


def test_bad_input_names_the_problem():
    with pytest.raises(ValueError, match="unknown operator: kd.no_such_op"):
        _plait.expr_call("kd.no_such_op", I.a)
    with pytest.raises(TypeError, match="kd.math.neg: takes 1 positional argument but 2 were given"):
        kd.lazy.math.neg(I.x, I.y)
    with pytest.raises(ValueError, match=r"missing inputs for: \[I.b, I.c\]"):
        kd.eval(I.a + I.b + I.c, a=1)
    with pytest.raises(ValueError, match="kd.math.add: object with unsupported type") as info:
        kd.lazy.math.add(I.a, object())
    assert info.value.__notes__ == ["Error occurred while processing argument: `y`"]
    with pytest.raises(ValueError, match="kd.math.add: expected DATA_SLICE, got y: DATA_BAG") as info:
        kd.eval(I.a + kd.expr.literal(kd.bag()), a=1)
    assert info.value.__notes__[0].startswith("while evaluating I.a + DataBag(")


def test_packed_expressions_are_items():
    e = (I.a + I.b) * I.c
    packed = kd.expr.pack_expr(e)
    assert repr(packed) == "DataItem((I.a + I.b) * I.c, schema: EXPR)"
    assert kd.expr.unpack_expr(packed).fingerprint == e.fingerprint
    assert kd.expr.is_packed_expr(packed)
    assert not kd.expr.is_packed_expr(kd.item(1))
    assert not kd.expr.is_packed_expr(e)
    # Stored as an attribute and read back (how functors keep their bodies).
    obj = kd.obj(f=packed)
    assert repr(obj) == f"DataItem(Obj(f=(I.a + I.b) * I.c), schema: OBJECT, bag_id: {repr(obj).rsplit('bag_id: ', 1)[1][:-1]})"
    assert kd.eval(kd.expr.unpack_expr(obj.f), a=1, b=2, c=3).to_py() == 9
    # EXPR items compare by structure.
    assert packed == kd.expr.pack_expr((I.a + I.b) * I.c)
    assert not packed == kd.expr.pack_expr(I.a)
    s = kd.slice([packed, None, kd.expr.pack_expr(I.b)])
    assert repr(s) == "DataSlice([(I.a + I.b) * I.c, None, I.b], schema: EXPR, present: 2/3)"
    assert kd.unique(kd.slice([packed, packed])).get_size() == 1
    for bad in (kd.item(1), kd.slice([packed]), kd.item(None, kd.EXPR)):
        with pytest.raises(ValueError, match="^only present EXPR DataItems can be unpacked$"):
            kd.expr.unpack_expr(bad)
    with pytest.raises(TypeError, match="kd.expr.pack_expr: expected an Expr, got DataItem"):
        kd.expr.pack_expr(kd.item(1))
    with pytest.raises(ValueError, match="dict keys cannot be EXPR"):
        kd.dict({packed: 1})
    with pytest.raises(ValueError, match="must be a slice of consistent numeric, bytes or string values, got a slice of EXPR"):
        kd.eval(I.x + 1, x=packed)


def test_expressions_have_dataslice_methods():
    x = I.x
    assert repr(x.S[1:]) == "I.x.S[DataItem(1, schema: INT32):]"
    assert repr(x.S[:, 0]) == "I.x.S[:, DataItem(0, schema: INT32)]"
    assert kd.eval(x.S[1:], x=kd.slice([[1, 2, 3], [4]])).to_py() == [[2, 3], []]
    assert repr(x.get_schema()) == "kd.get_schema(I.x)"
    assert kd.eval(x.flatten(), x=kd.slice([[1, 2], [3]])).to_py() == [1, 2, 3]
    assert repr(x.get_attr("a")) == "I.x.a"
    assert repr(x.with_name("n")) == "n = I.x\nn"
    assert kd.eval(x.select(x > 1), x=kd.slice([1, 2, 3])).to_py() == [2, 3]
