"""kd.optools extras: constraints, overloads, eager operators, boxing,
non-determinism tokens (compared with koladata where it matters)."""

import pytest

from plait import kd
from plait.kd.expr import P

I = kd.I
C = kd.optools.constraints


def test_qtype_constraints_literal_and_eval():
    @kd.optools.as_lambda_operator("test_extras.ds_only", qtype_constraints=[C.expect_data_slice(P.x)])
    def ds_only(x):
        return x

    assert kd.eval(ds_only(1)).to_py() == 1
    with pytest.raises(ValueError, match="expected DATA_SLICE, got x: DATA_BAG"):
        ds_only(kd.bag())
    e = ds_only(I.x)
    with pytest.raises(ValueError, match="expected DATA_SLICE, got x: DATA_BAG"):
        kd.eval(e, x=kd.bag())
    assert kd.eval(e, x=2).to_py() == 2


def test_constraint_args():
    @kd.optools.as_lambda_operator("test_extras.args", qtype_constraints=[C.expect_data_slice_args(P.args)])
    def f(*args):
        return kd.tuples.get_nth(args, 0)

    with pytest.raises(ValueError, match=r"expected all arguments to be DATA_SLICE, got args: tuple<DATA_SLICE,DATA_BAG>"):
        f(1, kd.bag())


def test_py_function_constraint():
    @kd.optools.as_py_function_operator("test_extras.pyf", qtype_constraints=[C.expect_jagged_shape(P.s)])
    def f(s):
        return kd.item(1)

    with pytest.raises(ValueError, match="expected JAGGED_SHAPE, got s: DATA_SLICE"):
        kd.eval(f(I.s), s=kd.item(1))
    assert kd.eval(f(I.s), s=kd.shapes.new(2)).to_py() == 1


def test_equiv_to_op():
    assert kd.optools.equiv_to_op("kd.agg_sum", "kd.math.agg_sum")
    assert not kd.optools.equiv_to_op("kd.math.add", "kd.math.subtract")
    with pytest.raises(LookupError, match="operator not found: 'kd.nope'"):
        kd.optools.equiv_to_op("kd.nope", "kd.math.add")
    with pytest.raises(TypeError):
        kd.optools.equiv_to_op(1, "kd.math.add")


def test_as_qvalue():
    assert repr(kd.optools.as_qvalue(1)) == "DataItem(1, schema: INT32)"
    with pytest.raises(ValueError, match="Python list"):
        kd.optools.as_qvalue([1])
    with pytest.raises(ValueError, match="containing an Expr"):
        kd.optools.as_qvalue(I.x)
    assert repr(kd.optools.as_qvalue_or_expr((I.x, 1))) == "kd.tuples.tuple(I.x, DataItem(1, schema: INT32))"


def test_eager_operator():
    add = kd.optools.eager.EagerOperator("kd.math.add")
    assert add(1, 2).to_py() == 3
    with pytest.raises(TypeError, match="got an Expr for the argument 'x'"):
        add(I.x, 2)


def test_overloads():
    @kd.optools.add_to_registry_as_overloadable("test_extras.ov")
    def ov(x):
        """Doc."""

    with pytest.raises(ValueError, match=r"no matching overload \[x: DATA_SLICE\]"):
        ov(1)

    @kd.optools.add_to_registry_as_overload("test_extras.ov._ds", overload_condition_expr=P.x == kd.qtypes.DATA_SLICE)
    @kd.optools.as_lambda_operator("test_extras.ov._ds")
    def ov_ds(x):
        return x + 1

    @kd.optools.add_to_registry_as_overload("test_extras.ov._bag", overload_condition_expr=lambda x: x == kd.qtypes.DATA_BAG)
    @kd.optools.as_lambda_operator("test_extras.ov._bag")
    def ov_bag(x):
        return kd.item(7)

    assert kd.eval(ov(1)).to_py() == 2
    assert kd.eval(ov(I.x), x=kd.bag()).to_py() == 7
    assert kd.optools.equiv_to_op(ov, "test_extras.ov")


def test_non_deterministic_tokens():
    tok = kd.optools.unified_non_deterministic_kwarg()

    @kd.optools.as_lambda_operator("test_extras.mk")
    def mk(x):
        return kd.new(x=x, **tok)

    e = mk(1)
    assert kd.eval(e).get_itemid() != kd.eval(e).get_itemid()
    assert kd.eval(e).x.to_py() == 1
    f1 = kd.optools.fix_non_deterministic_tokens(kd.lazy.new(x=1))
    f2 = kd.optools.fix_non_deterministic_tokens(kd.lazy.new(x=1))
    assert f1.fingerprint == f2.fingerprint
    t1 = kd.optools.fix_non_deterministic_tokens(kd.optools.unified_non_deterministic_arg())
    t2 = kd.optools.fix_non_deterministic_tokens(kd.optools.unified_non_deterministic_arg())
    assert t1.fingerprint == t2.fingerprint


def test_py_function_boxing():
    seen = []

    @kd.optools.as_py_function_operator(
        "test_extras.pf", custom_boxing_fn_name_per_parameter={"fn": kd.optools.WITH_PY_FUNCTION_TO_PY_OBJECT})
    def pf(fn, x):
        seen.append(fn)
        return x

    def g(y):
        return y

    assert kd.eval(pf(g, 1)).to_py() == 1
    assert seen[-1] is g
    with pytest.raises(ValueError, match="unknown parameter: 'z'"):
        kd.optools.as_py_function_operator(
            "test_extras.pf2", custom_boxing_fn_name_per_parameter={"z": kd.optools.WITH_PY_FUNCTION_TO_PY_OBJECT})(
                lambda x: x)
    assert kd.optools.WITH_PY_FUNCTION_TO_PY_OBJECT == "as_qvalue_or_expr_with_py_function_to_py_object_support"
