"""Control flow, `kd.py` and `kd.assertion` behaving as in Koda (koladata
0.0.4): the expected values are Koda's outputs. Koda's eager errors start
with `[FAILED_PRECONDITION]` or no operator name; plait's start with the
operator the user called (docs/differences.md)."""

import pytest

from plait import kd

I = kd.I


def test_map_result_has_the_common_schema_of_the_results():
    assert repr(kd.map(kd.fn(lambda x: x * 2), kd.slice([1, 2, None]))) == \
        "DataSlice([2, 4, None], schema: INT32, present: 2/3)"
    assert repr(kd.map(kd.fn(lambda x: kd.str(x)), kd.slice([1, 2, None]))) == \
        "DataSlice(['1', '2', None], schema: STRING, present: 2/3)"
    assert repr(kd.map(kd.fn(lambda x: x * 2), kd.item(3))) == "DataItem(6, schema: INT32)"
    assert repr(kd.map(kd.slice([kd.fn(I.x + 1), kd.fn(I.x + 1.5)]), x=kd.slice([5, 6]))) == \
        "DataSlice([6.0, 7.5], schema: FLOAT32, present: 2/2)"
    assert repr(kd.map(kd.fn(lambda x: x), kd.slice([1, 2], kd.INT64))) == \
        "DataSlice([1, 2], schema: INT64, present: 2/2)"
    assert repr(kd.map(kd.fn(lambda x: x), kd.slice([1, "a"]))) == \
        "DataSlice([1, 'a'], schema: OBJECT, present: 2/2)"
    assert repr(kd.map(kd.fn(lambda x: kd.present), kd.slice([5, 6]))) == \
        "DataSlice([present, present], schema: MASK, present: 2/2)"
    assert repr(kd.map(kd.fn(lambda x: x * 2), kd.slice([None, None]))) == \
        "DataSlice([None, None], schema: NONE, present: 0/2)"
    with pytest.raises(ValueError, match="^kd.functor.map: cannot find a common schema"):
        kd.map(kd.fn(lambda x: kd.new(a=x)), kd.slice([1, 2]))
    with pytest.raises(ValueError, match=r"^kd.functor.map: the functor is expected to be evaluated to a DataItem, "
                                         r"but the result has shape: JaggedShape\(2\)$"):
        kd.map(kd.fn(lambda x: x.repeat(2)), kd.slice([1, 2]))


def test_map_of_a_value_that_is_no_functor_names_it():
    # Koda: the same message.
    with pytest.raises(ValueError, match=r"^kd.functor.map: the first argument of kd.call must be a functor, got "
                                         r"DataItem\(1, schema: INT32\)$"):
        kd.map(kd.item(1), kd.slice([1]))
    assert kd.map(kd.slice([kd.fn(I.x + 1), None]), x=kd.slice([1, 2])).to_py() == [2, None]


def test_map_traces_a_python_function():
    assert repr(kd.map(lambda x: x + 1, kd.slice([1, 2]))) == "DataSlice([2, 3], schema: INT32, present: 2/2)"
    assert repr(kd.map(lambda x: x + 1, kd.slice([[1, 2], [3]]))) == \
        "DataSlice([[2, 3], [4]], schema: INT32, present: 3/3)"
    f = kd.fn(lambda x: kd.map(lambda y: y * 2, x))
    assert repr(f(kd.slice([1, 2]))) == "DataSlice([2, 4], schema: INT32, present: 2/2)"


def test_loops_do_not_pass_yields_to_the_functors():
    res = kd.while_(kd.fn(lambda n: n > 0), kd.fn(lambda n: kd.namedtuple(n=n - 1, yields=kd.iterables.make(n))),
                    n=3, yields=kd.iterables.make())
    assert [v.to_py() for v in res] == [3, 2, 1]
    res = kd.for_(kd.iterables.make(1, 2), kd.fn(lambda x, n: kd.namedtuple(n=n + x, yields=kd.iterables.make(n))),
                  n=0, yields=kd.iterables.make(),
                  finalize_fn=kd.fn(lambda n: kd.namedtuple(yields=kd.iterables.make(n * 100))))
    assert [v.to_py() for v in res] == [0, 1, 300]
    # Koda: ValueError "... no value provided for positional or keyword parameter [yields]".
    with pytest.raises(ValueError, match=r"no value provided for positional or keyword parameter \[yields\]"):
        kd.while_(kd.fn(lambda n, yields: n > 0), kd.fn(lambda n, yields: kd.namedtuple(n=n - 1)),
                  n=3, yields=kd.iterables.make())


def test_python_values_and_functions_are_boxed():
    cond, body = kd.fn(lambda n, returns: n > 0), kd.fn(lambda n, returns: kd.namedtuple(n=n - 1))
    assert repr(kd.while_(cond, body, n=0, returns=1)) == "DataItem(1, schema: INT32)"
    add = kd.fn(lambda x, returns: kd.namedtuple(returns=returns + x))
    assert repr(kd.for_(kd.iterables.make(), add, returns=0)) == "DataItem(0, schema: INT32)"
    assert repr(kd.functor.reduce(kd.fn(lambda a, x: a + x), kd.iterables.make(), 0)) == "DataItem(0, schema: INT32)"
    assert repr(kd.functor.reduce(lambda a, x: a + x, kd.iterables.make(1, 2), 0)) == "DataItem(3, schema: INT32)"
    assert repr(kd.if_(kd.present, lambda: 1, lambda: 2)) == "DataItem(1, schema: INT32)"
    assert repr(kd.if_(kd.missing, lambda x: x + 1, lambda x: x - 1, 5)) == "DataItem(4, schema: INT32)"
    assert repr(kd.while_(lambda n, returns: n > 0, lambda n, returns: kd.namedtuple(n=n - 1, returns=returns * n),
                          n=5, returns=1)) == "DataItem(120, schema: INT32)"
    assert repr(kd.for_(kd.iterables.make(1), lambda x, returns: kd.namedtuple(returns=returns + x), returns=0)) == \
        "DataItem(1, schema: INT32)"
    assert repr(kd.assertion.with_assertion(1, kd.present, "m")) == "DataItem(1, schema: INT32)"


def test_a_functor_returning_a_literal():
    assert kd.is_fn(kd.fn(lambda: None))
    assert repr(kd.fn(lambda: None)()) == "DataItem(None, schema: NONE)"
    assert repr(kd.fn(lambda: 1)()) == "DataItem(1, schema: INT32)"
    assert "[](returns=DataItem(1, schema: INT32)), schema: OBJECT" in repr(kd.fn(lambda: 1))


def test_for_checks_the_condition_before_finalize():
    body = kd.fn(lambda x, returns: kd.namedtuple(returns=returns + x))
    fin = kd.fn(lambda returns: kd.namedtuple(returns=returns * 100))
    items = kd.iterables.make(1, 2, 3)
    assert kd.for_(items, body, returns=0, finalize_fn=fin, condition_fn=kd.fn(lambda returns: returns < 3)).to_py() == 3
    assert kd.for_(items, body, returns=0, finalize_fn=fin, condition_fn=kd.fn(lambda returns: returns < 6)).to_py() == 6
    assert kd.for_(items, body, returns=0, finalize_fn=fin, condition_fn=kd.fn(lambda returns: returns < 7)).to_py() == 600


def test_loop_errors():
    with pytest.raises(ValueError, match="^kd.functor.while_: body_fn must return a namedtuple with field names that are "
                                         "a subset of the state variable names, got an unknown field: `m`$"):
        kd.while_(kd.fn(lambda n, returns: n > 0), kd.fn(lambda n, returns: kd.namedtuple(m=n - 1)), n=1, returns=1)
    with pytest.raises(ValueError, match=r"^kd.functor.while_: condition_fn must return a MASK DataItem, "
                                         r"got DataItem\(1, schema: INT32\)$"):
        kd.while_(kd.fn(lambda n, returns: n), kd.fn(lambda n, returns: kd.namedtuple(n=n - 1)), n=1, returns=1)
    with pytest.raises(ValueError, match="^kd.functor.while_: body_fn must return a namedtuple, got type `DATA_SLICE`$"):
        kd.while_(kd.fn(lambda n, returns: n > 0), kd.fn(lambda n, returns: n), n=1, returns=1)
    with pytest.raises(ValueError, match="^kd.functor.while_: expected `yields` value to have type "
                                         "`ITERABLE\\[DATA_SLICE\\]`, got `DATA_SLICE`$"):
        kd.while_(kd.fn(lambda n: n > 0), kd.fn(lambda n: kd.namedtuple(n=n - 1, yields=kd.item(1))),
                  n=1, yields=kd.iterables.make())


def test_map_py_on_selected_calls_fn_on_missing_arguments():
    x = kd.slice([1, None])
    assert repr(kd.map_py_on_selected(lambda x: x is None, kd.has(kd.slice([1, 1])), x)) == \
        "DataSlice([False, True], schema: BOOLEAN, present: 2/2)"
    assert repr(kd.map_py_on_selected(lambda x: x is None, kd.slice([kd.present, kd.missing]),
                                      kd.slice([None, None]))) == \
        "DataSlice([True, None], schema: BOOLEAN, present: 1/2)"
    assert repr(kd.map_py_on_selected(lambda x, y: (x, y) == (1, None), kd.has(kd.slice([1, 1])), x,
                                      y=kd.slice([None, 2]))) == \
        "DataSlice([True, False], schema: BOOLEAN, present: 2/2)"
    assert repr(kd.map_py_on_cond(lambda x: x is None, lambda x: -1, kd.has(kd.slice([1, None])),
                                  kd.slice([None, None]))) == "DataSlice([True, -1], schema: OBJECT, present: 2/2)"
    assert repr(kd.map_py_on_cond(lambda x: x is None, lambda x: x is None, kd.slice([kd.present, kd.missing]),
                                  kd.slice([None, None], kd.INT32))) == \
        "DataSlice([True, True], schema: BOOLEAN, present: 2/2)"
    assert repr(kd.map_py_on_selected(lambda x: 1, kd.slice([kd.missing, kd.missing]), kd.slice([1, 2]))) == \
        "DataSlice([None, None], schema: NONE, present: 0/2)"
    with pytest.raises(ValueError, match="^kd.map_py_on_selected: expected a mask, got cond: INT32$"):
        kd.map_py_on_selected(lambda x: x, kd.slice([1, 2]), kd.slice([1, 2]))
    with pytest.raises(ValueError, match="^kd.map_py_on_selected: 'cond' must have the same or smaller dimension "
                                         "than `args` and `kwargs`$"):
        kd.map_py_on_selected(lambda x: x, kd.slice([[kd.present, kd.missing], [kd.present]]), kd.slice([1, 2]))


def test_with_assertion_message_functor_and_scalar_condition():
    with pytest.raises(ValueError, match="^msg 5$"):
        kd.assertion.with_assertion(kd.item(1), kd.missing, kd.fn(lambda x: kd.format("msg {x}", x=x)), kd.item(5))
    with pytest.raises(ValueError, match="^msg 5$"):
        kd.assertion.with_assertion(kd.item(1), kd.missing, lambda x: kd.format("msg {x}", x=x), 5)
    g = kd.fn(lambda x: kd.assertion.with_assertion(x, x > 0, kd.fn(lambda x: kd.format("bad {x}", x=x)), x))
    assert g(1).to_py() == 1
    with pytest.raises(ValueError) as info:
        g(-1)
    assert str(info.value) == "bad -1"
    with pytest.raises(ValueError, match="^kd.assertion.with_assertion: expected rank 0, but got rank=1$"):
        kd.assertion.with_assertion(kd.item(1), kd.slice([kd.present]), "msg")
    with pytest.raises(ValueError, match="^kd.assertion.with_assertion: unsupported narrowing cast to MASK for the "
                                         "given BOOLEAN DataSlice$"):
        kd.assertion.with_assertion(kd.item(1), kd.item(True), "msg")
    with pytest.raises(ValueError, match="^kd.assertion.with_assertion: unsupported narrowing cast to STRING for the "
                                         "given INT32 DataSlice$"):
        kd.assertion.with_assertion(kd.item(1), kd.missing, kd.fn(lambda: 5))
    with pytest.raises(ValueError, match="^kd.assertion.with_assertion: expected a present value$"):
        kd.assertion.with_assertion(kd.item(1), kd.missing, lambda: None)
    with pytest.raises(ValueError, match="^kd.assertion.with_assertion: expected `args` to be empty when "
                                         "`message_or_fn` is a STRING message$"):
        kd.assertion.with_assertion(kd.item(1), kd.missing, "msg", 5)


def test_assert_primitive_checks_the_items_of_object_slices():
    check = kd.assertion.assert_primitive
    assert repr(check("x", kd.slice([1, 2], kd.OBJECT), kd.INT32)) == "DataSlice([1, 2], schema: OBJECT, present: 2/2)"
    assert repr(check("x", kd.slice([1, 2.5], kd.OBJECT), kd.FLOAT32)) == \
        "DataSlice([1, 2.5], schema: OBJECT, present: 2/2)"
    assert repr(check("x", kd.slice([], kd.OBJECT), kd.MASK)) == "DataSlice([], schema: OBJECT, present: 0/0)"
    prefix = "kd.assertion.assert_primitive: argument `x` must be a slice of "
    for ds, schema, got in [
        (kd.slice([1, "a"], kd.OBJECT), kd.INT32, "INT32, got a slice of OBJECT containing INT32 and STRING values"),
        (kd.slice([1, "a", 2.5], kd.OBJECT), kd.INT32,
         "INT32, got a slice of OBJECT containing FLOAT32, INT32 and STRING values"),
        (kd.item(1, kd.OBJECT), kd.MASK, "MASK, got a slice of OBJECT containing INT32 values"),
        (kd.obj(a=1), kd.INT32, "INT32, got a slice of OBJECT containing non-primitive values"),
        (kd.slice([kd.obj(a=1), 1]), kd.INT32, "INT32, got a slice of OBJECT containing INT32 and non-primitive values"),
        (kd.slice([1, 2], kd.INT64), kd.INT32, "INT32, got a slice of INT64"),
    ]:
        with pytest.raises(ValueError) as info:
            check("x", ds, schema)
        assert str(info.value) == prefix + got
    with pytest.raises(ValueError, match="^kd.assertion.assert_primitive: primitive schema must contain a primitive "
                                         "DType, got OBJECT$"):
        check("x", kd.slice([1]), kd.OBJECT)


def test_assert_present_scalar_messages():
    check = kd.assertion.assert_present_scalar
    assert repr(check("x", kd.item(1, kd.OBJECT), kd.INT64)) == "DataItem(1, schema: OBJECT)"
    prefix = "kd.assertion.assert_present_scalar: argument `x` must be an item holding "
    for ds, schema, got in [
        (kd.item(None), kd.INT64, "INT64, got missing"),
        (kd.item(None, kd.STRING), kd.INT64, "INT64, got missing"),
        (kd.slice([1]), kd.INT64, "INT64, got a slice of rank 1 > 0"),
        (kd.slice([[1]]), kd.INT64, "INT64, got a slice of rank 2 > 0"),
        (kd.item("a"), kd.INT64, "INT64, got an item of STRING"),
        (kd.item("a", kd.OBJECT), kd.INT64, "INT64, got an item of OBJECT containing STRING values"),
        (kd.new(a=1), kd.INT64, "INT64, got an item of ENTITY(a=INT32)"),
        (kd.item(1), kd.MASK, "MASK, got an item of INT32"),
    ]:
        with pytest.raises(ValueError) as info:
            check("x", ds, schema)
        assert str(info.value) == prefix + got


def test_python_functions_are_traced_on_every_call():
    settings = {"k": 2}

    def scale(x):
        return x * settings["k"]

    assert kd.map(scale, kd.slice([1, 2])).to_py() == [2, 4]
    settings["k"] = 10
    assert kd.map(scale, kd.slice([1, 2])).to_py() == [10, 20]


def test_a_functor_reading_a_mutable_bag_sees_its_changes():
    # An immutable bag updated by a mutable one reads it live: the compiled
    # functor must not be cached with the old variables.
    f = kd.functor.expr_fn(kd.I.x + kd.V.y, y=1)
    m = kd.attrs(f, y=2).fork()
    g = f.updated(m)
    assert g(x=1).to_py() == 3
    f.with_bag(m).set_attr("y", 7)
    assert (g.y.to_py(), g(x=1).to_py()) == (7, 8)
