"""kd.register_py_fn, kd.functor.map_py_fn, call_and_update_namedtuple,
signature_utils, FunctorFactory and kd.annotation.source_location."""

import inspect
import subprocess
import sys

import pytest

from plait import kd
from plait.kd import I


def triple(x, y=1):
    return x * 3 + y


def test_register_py_fn_calls_the_function_and_binds_defaults():
    f = kd.register_py_fn(triple, unsafe_override=True)
    kd.testing.assert_equal(f(kd.slice([1, 2])), kd.slice([4, 7]))
    g = kd.register_py_fn(triple, unsafe_override=True, y=10)
    kd.testing.assert_equal(g(1), kd.item(13))
    kd.testing.assert_equal(g(1, y=0), kd.item(3))


def test_register_py_fn_refuses_lambdas_and_duplicates():
    with pytest.raises(ValueError, match="invalid name"):
        kd.register_py_fn(lambda x: x)

    def local(x):
        return x

    with pytest.raises(ValueError, match="invalid name"):
        kd.register_py_fn(local)
    kd.register_py_fn(triple, unsafe_override=True)
    with pytest.raises(ValueError, match="is already registered"):
        kd.register_py_fn(triple)


def test_register_py_fn_functors_are_saved_by_name():
    f = kd.register_py_fn(triple, unsafe_override=True)
    data = kd.dumps(f)
    kd.testing.assert_equal(kd.loads(data)(2), kd.item(7))
    # Another process without the registration cannot load it.
    code = "import sys; from plait import kd; kd.loads(sys.stdin.buffer.read())"
    done = subprocess.run([sys.executable, "-c", code], input=data, capture_output=True)
    assert done.returncode != 0 and b"it is not registered in this process" in done.stderr


def test_py_fn_functors_are_still_refused_by_dumps():
    with pytest.raises(ValueError, match="no pickles"):
        kd.dumps(kd.py_fn(triple))


def test_map_py_fn():
    f = kd.functor.map_py_fn(lambda x, y: x + y, y=10)
    kd.testing.assert_equal(f(kd.slice([1, 2, None])), kd.slice([11, 12, None]))
    kd.testing.assert_equal(f(kd.slice([1]), y=1), kd.slice([2]))
    g = kd.functor.map_py_fn(lambda x: len(x), ndim=1)
    kd.testing.assert_equal(g(kd.slice([[1, 2], [3]])), kd.slice([2, 1]))
    h = kd.functor.map_py_fn(lambda x: 1 if x is None else 0, include_missing=True, schema=kd.INT64)
    kd.testing.assert_equal(h(kd.slice([5, None])), kd.slice([0, 1], kd.INT64))
    with pytest.raises(TypeError, match="cannot be an expression"):
        kd.functor.map_py_fn(lambda x: x, schema=I.s)


def test_call_and_update_namedtuple():
    nt = kd.namedtuple(a=1, b=2, c=3)
    f = kd.fn(lambda x: kd.namedtuple(c=x * 10, a=x))
    got = kd.functor.call_and_update_namedtuple(f, 5, namedtuple_to_update=nt)
    assert [v.to_py() for v in got] == [5, 2, 50]
    lazy = kd.lazy.functor.call_and_update_namedtuple(f, I.x, namedtuple_to_update=I.n)
    assert [v.to_py() for v in kd.eval(lazy, x=1, n=nt)] == [1, 2, 10]
    with pytest.raises(ValueError, match="does not have such a field"):
        kd.functor.call_and_update_namedtuple(kd.fn(lambda x: kd.namedtuple(d=x)), 5, namedtuple_to_update=nt)
    with pytest.raises(ValueError, match="must return a namedtuple"):
        kd.functor.call_and_update_namedtuple(kd.fn(lambda x: x), 5, namedtuple_to_update=nt)
    with pytest.raises(ValueError, match="expected a namedtuple"):
        kd.functor.call_and_update_namedtuple(f, 5, namedtuple_to_update=kd.tuple(1))


def test_signature_utils():
    su = kd.functor.signature_utils
    assert kd.signature_utils is su
    s = su.signature([su.parameter("x", su.ParameterKind.POSITIONAL_ONLY),
                      su.parameter("y", su.ParameterKind.KEYWORD_ONLY, default_value=2)])
    f = kd.functor.expr_fn(I.x * I.y, signature=s)
    kd.testing.assert_equal(f(3), kd.item(6))
    with pytest.raises(ValueError, match="unknown keyword arguments"):
        f(x=3)
    g = kd.functor.expr_fn(I.kwargs, signature=su.ARGS_KWARGS_SIGNATURE)
    assert g(a=1).a.to_py() == 1
    h = kd.functor.expr_fn(I.a - I.b, signature=su.from_py_signature(inspect.signature(lambda a, b=1: 0)))
    kd.testing.assert_equal(h(5), kd.item(4))


def test_functor_factory_gets_return_type_as():
    seen = []

    def factory(fn, return_type_as=None):
        seen.append(return_type_as)
        return kd.py_fn(fn)

    @kd.trace_as_fn(functor_factory=factory, return_type_as=kd.types.DataSlice)
    def inc(x):
        return x + 1

    kd.testing.assert_equal(kd.fn(lambda x: inc(x))(1), kd.item(2))
    assert seen == [kd.types.DataSlice]


def test_source_location_names_the_line_in_errors():
    e = kd.lazy.annotation.source_location(I.x + "a", "f", "my_file.py", 3, 4, "x + 'a'")
    with pytest.raises(ValueError) as info:
        kd.eval(e, x=1)
    assert any("my_file.py:3" in note for note in info.value.__notes__)
    kd.testing.assert_equal(kd.eval(kd.annotation.source_location(I.x + 1, "f", "a.py", 1, 0, ""), x=1), kd.item(2))
    kd.testing.assert_equal(kd.annotation.source_location(kd.item(5), "f", "a.py", 1, 0, ""), kd.item(5))
    with pytest.raises(ValueError, match="`line` must be a INT32 literal"):
        kd.annotation.source_location(I.x, "f", "a.py", "1", 0, "")
    with pytest.raises(ValueError, match="`function_name` must be a TEXT literal"):
        kd.annotation.source_location(I.x, 1, "a.py", 1, 0, "")
