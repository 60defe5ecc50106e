"""Smaller Koda names built for issue 21: kd.is_expr, kd.expr_quote,
kd.to_expr, kd.to_pytree, kd.clear_eval_cache, kd.named_container,
kd.py_reference, kd.tuples.slice, kd.functor.bind / is_fn as operators,
kd.schema.internal_maybe_named_schema, kd.slices.internal_* , FLOAT32
accumulation, ranges with DataSlice bounds and list ranges in get_item."""

import pytest

from plait import kd

I = kd.I


def test_is_expr_and_quoting():
    assert kd.is_expr(I.x + 1) and not kd.is_expr(kd.item(1)) and not kd.is_expr(1)
    quoted = kd.expr_quote(kd.slice([kd.expr.pack_expr(I.x), None]))
    assert str(quoted.get_schema()) == "EXPR" and quoted.get_present_count().to_py() == 1
    assert repr(kd.to_expr(kd.obj(kd.expr.pack_expr(I.x)))).startswith("DataItem(I.x, schema: EXPR")
    with pytest.raises(ValueError, match="casting a DataSlice with schema INT32 to EXPR is not supported"):
        kd.to_expr(kd.item(1))
    with pytest.raises(ValueError, match="casting data of type INT32 to EXPR is not supported|INT32 to EXPR"):
        kd.expr_quote(1)


def test_literals_need_plait_values():
    assert kd.expr.is_literal(kd.expr.literal(kd.item(1)))
    for bad, name in [(1, "int"), ("a", "str"), (None, "NoneType"), ([1], "list"), (I.x, "plait.types.Expr")]:
        with pytest.raises(TypeError, match=f"`value` must be a QValue to be wrapped into a literal, got: {name}"):
            kd.expr.literal(bad)


def test_to_pytree_gives_plain_containers():
    assert kd.to_pytree(kd.obj(a=1, b=kd.list([1, 2]))) == {"a": 1, "b": [1, 2]}
    assert kd.slice([kd.new(x=1), None]).to_pytree() == [{"x": 1}, None]
    assert isinstance(kd.to_pytree(kd.new(a=kd.new(b=1)), max_depth=1)["a"], kd.types.DataItem)


def test_clear_eval_cache_keeps_results():
    f = kd.fn(I.x * 2)
    assert f(x=2).to_py() == 4
    kd.clear_eval_cache()
    assert f(x=3).to_py() == 6 and kd.eval(I.x + 1, x=1).to_py() == 2


def test_named_container_names_expressions_only():
    c = kd.named_container()
    c.total = I.a + 1
    c.limit = 5
    assert kd.expr.get_name(c.total) == "total" and c.limit == 5
    assert kd.eval(c.total, a=1).to_py() == 2
    with pytest.raises(AttributeError):
        c.missing_name


def test_py_reference_passes_objects_through_functors():
    payload = {"k": [1, 2, 3]}
    ref = kd.py_reference(payload)
    assert ref.py_value() is payload
    assert kd.py_fn(lambda r: len(r.py_value()["k"]))(ref).to_py() == 3


def test_tuples_slice_is_a_subslice_range():
    assert kd.subslice(kd.slice([1, 2, 3, 4]), kd.tuples.slice(1, 3)).to_py() == [2, 3]
    assert kd.subslice(kd.slice([1, 2, 3, 4]), kd.tuples.slice(stop=-1)).to_py() == [1, 2, 3]
    assert kd.eval(kd.lazy.subslice(I.x, kd.lazy.tuples.slice(1)), x=kd.slice([1, 2])).to_py() == [2]
    # As Koda's: a None bound is a missing one (empty ranges), a step is
    # kept, and kd.subslice refuses it.
    assert kd.subslice(kd.slice([1, 2, 3, 4]), kd.tuples.slice(None, 3)).to_py() == []
    s = kd.tuples.slice(1, 3, 2)
    assert repr(s) == "slice(DataItem(1, schema: INT32), DataItem(3, schema: INT32), DataItem(2, schema: INT32))"
    assert str(s.qtype) == "slice<DATA_SLICE,DATA_SLICE,DATA_SLICE>" and s.step.to_py() == 2
    for call in (lambda: kd.subslice(kd.slice([1, 2]), s), lambda: kd.slice([1, 2]).S[s]):
        with pytest.raises(ValueError, match="slicing argument at position 0 is invalid: 'step' argument of a Slice "
                                             "is not supported, got: DATA_SLICE"):
            call()
    assert kd.loads(kd.dumps(kd.fn(kd.lazy.subslice(I.x, kd.lazy.tuples.slice(1, None, 2))))).returns is not None
    # As in Koda, any DataSlice is a bound; kd.subslice checks it is of integers.
    assert repr(kd.tuples.slice(kd.slice([1, 2]))) == (
        "slice(DataSlice([1, 2], schema: INT32, present: 2/2), unspecified, unspecified)")
    assert str(kd.tuples.slice().qtype) == "slice<UNSPECIFIED,UNSPECIFIED,UNSPECIFIED>"
    with pytest.raises(ValueError, match="kd.slices.subslice: .start. argument of a Slice must contain only integers, got STRING"):
        kd.subslice(kd.slice([1, 2]), kd.tuples.slice("a"))
    with pytest.raises(TypeError, match="`start` must be a DataSlice of integers or unspecified"):
        kd.tuples.slice(kd.shapes.new(2))


def test_bind_and_is_fn_are_operators_that_trace():
    add = kd.fn(I.x + I.y)
    assert kd.bind(add, y=1)(x=2).to_py() == 3
    assert kd.bind(kd.fn(lambda x, y: x - y), 10)(3).to_py() == 7
    traced = kd.fn(lambda g: kd.bind(g, y=5))
    assert traced(add)(x=1).to_py() == 6
    assert kd.is_fn(add) and not kd.is_fn(lambda: 1) and not kd.is_fn(I.x)
    assert kd.fn(lambda f: kd.is_fn(f))(add)
    assert repr(kd.lazy.functor.bind(I.f, y=1)).startswith("kd.functor.bind(I.f")
    with pytest.raises(TypeError, match="kd.functor.bind: expected a functor, got DataItem\\(1"):
        kd.bind(kd.item(1))
    with pytest.raises(TypeError, match="expected a functor"):
        kd.bind(lambda x: x)


def test_internal_helpers():
    assert kd.schema.internal_maybe_named_schema("P") == kd.named_schema("P")
    assert kd.schema.internal_maybe_named_schema(kd.INT32) == kd.INT32
    with pytest.raises(ValueError, match="schema's schema must be SCHEMA, got: INT32"):
        kd.schema.internal_maybe_named_schema(1)
    assert kd.slices.internal_is_compliant_attr_name("price")
    assert not kd.slices.internal_is_compliant_attr_name("get_attr")
    assert not kd.slices.internal_is_compliant_attr_name("_x")
    assert kd.slices.internal_select_by_slice(kd.slice([1, 2, 3]), kd.slice([kd.present, None, kd.present])).to_py() == [1, 3]


def test_float32_running_sums_and_deviations_round_once():
    assert kd.math.cum_sum(kd.slice([49.14, -2.99, -34.87])).to_py() == pytest.approx([49.14, 46.149998, 11.280001], abs=1e-6)
    assert repr(kd.math.cum_sum(kd.slice([49.14, -2.99, -34.87]))) == \
        "DataSlice([49.14, 46.149998, 11.280001], schema: FLOAT32, present: 3/3)"
    assert str(kd.math.cum_sum(kd.slice([1.5, None, 2.5], kd.FLOAT64)).get_schema()) == "FLOAT64"
    x = kd.float32(kd.slice([1.1, 2.2, 3.3, 4.7]))
    std = kd.math.agg_std(x)
    assert std.to_py() == pytest.approx(float(kd.math.agg_var(x).to_py()) ** 0.5, rel=1e-6)


def test_ranges_with_computed_bounds_trace_and_save():
    prefixes = kd.fn(lambda x: x.S[:kd.index(x) + 1])
    assert kd.loads(kd.dumps(prefixes))(kd.slice([[1, 2], [3]])).to_py() == [[[1], [1, 2]], [[3]]]
    x = kd.slice([[1, 2, 3], [4]])
    assert kd.eval(kd.lazy.subslice(I.x, slice(I.a, None)), x=x, a=kd.slice([1, 0])).to_py() == [[2, 3], [4]]
    assert kd.eval(I.l[I.a:], l=kd.list([1, 2, 3]), a=1).to_py() == [2, 3]


def test_ranges_with_dataslice_bounds():
    ds = kd.slice([[1, 2, 3], [4, 5]])
    assert ds.S[:kd.slice([1, 2])].to_py() == [[1], [4, 5]]
    assert ds.S[kd.slice([1, 0]):].to_py() == [[2, 3], [4, 5]]
    assert ds.S[:kd.index(ds) + 1].to_py() == [[[1], [1, 2], [1, 2, 3]], [[4], [4, 5]]]
    assert kd.subslice(ds, slice(kd.slice([0, 1]), kd.slice([2, None]))).to_py() == [[1, 2], []]
    assert ds.S[kd.item(None, kd.INT32):].to_py() == [[], []]
    with pytest.raises(ValueError, match="argument of a Slice must contain only integers"):
        ds.S[kd.slice(["a", "b"]):]


def test_get_item_takes_python_slices_eagerly_and_lazily():
    lst = kd.list([1, 2, 3])
    assert kd.get_item(lst, slice(1, None)).to_py() == [2, 3]
    assert kd.eval(kd.lazy.core.get_item(I.x, slice(1, None)), x=lst).to_py() == [2, 3]
    lists = kd.implode(kd.slice([[1, 2, 3], [4, 5]]))
    assert lists[kd.slice([1, 0]):].to_py() == [[2, 3], [4, 5]]
    assert lst[kd.item(1):].to_py() == [2, 3]
