import os
import re

# Every eager operator call of the suite checks its type rule against its
# result (`PLAIT_CHECK_TYPES`, docs/typing.md): a wrong rule fails the test
# that runs the operator.
os.environ.setdefault("PLAIT_CHECK_TYPES", "1")

import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _type_checks(request):
    """Tests marked `no_type_checks` run without the checks: they build
    data (bags of thousands of layers) whose every read the checks would
    repeat, making the test quadratic."""
    if request.node.get_closest_marker("no_type_checks") is None:
        yield
        return
    from plait import _plait

    was = _plait.typing_check_types()
    _plait.typing_check_types(False)
    try:
        yield
    finally:
        _plait.typing_check_types(was)


@pytest.fixture(scope="session")
def koda():
    """The reference implementation (koladata), or a clean skip without it."""
    kd_module = pytest.importorskip("koladata.kd", reason="koladata is not installed")
    return kd_module


def _resolve(root, name):
    """`root.a.b` for `name` 'a.b' (the `kd.` prefix left off)."""
    for part in name.split("."):
        root = getattr(root, part)
    return root


def _comparable(value):
    """`value` as something `==` can compare across bags and processes:
    reprs without bag ids for DataSlices and DataBags."""
    from plait import kd

    if isinstance(value, tuple):
        return tuple(_comparable(v) for v in value)
    if isinstance(value, (kd.types.DataSlice, kd.types.DataBag)):
        return re.sub(r"\$[0-9a-zA-Z]{4,}", "$", repr(value))
    return value


@pytest.fixture(scope="session")
def one_operator():
    """A checker that operator `kd.<name>` is one registry operator: called
    eagerly, as `kd.lazy.<name>` evaluated, inside a traced functor, and in
    that functor after `kd.dumps`/`kd.loads`, it gives the same result.
    `args` become the functor's inputs, `kwargs` literals inside it.
    Returns the eager result."""
    from plait import kd

    def check(name, *args, **kwargs):
        eager_op = _resolve(kd, name)
        assert isinstance(eager_op, type(kd.math.add)), f"kd.{name} is not a registry operator"
        eager = eager_op(*args, **kwargs)
        inputs = {f"a{i}": a for i, a in enumerate(args)}
        lazy_expr = _resolve(kd.lazy, name)(*(getattr(kd.I, k) for k in inputs), **kwargs)
        lazy = kd.eval(lazy_expr, **inputs)
        params = ", ".join(inputs)
        traced = kd.fn(eval(f"lambda {params}: op({params}, **kwargs)", {"op": eager_op, "kwargs": kwargs}))
        loaded = kd.loads(kd.dumps(traced))
        expected = _comparable(eager)
        assert _comparable(lazy) == expected, f"kd.lazy.{name}"
        assert _comparable(traced(*args)) == expected, f"kd.fn over kd.{name}"
        assert _comparable(loaded(*args)) == expected, f"kd.loads(kd.dumps(...)) of kd.fn over kd.{name}"
        return eager

    return check


# Functors are data: every functor the tests make is saved with kd.dumps at
# the end of the session. Only Python code may stop that: py_fn functors,
# map_py / apply_py, and operators the tests themselves define in Python.
_functors_made = []
_PYTHON_BY_NATURE = re.compile(
    r"cannot serialize (the Python-function operator (?!kd\.)|the Python-function operator "
    r"kd\.(py\.|apply_py|map_py|functor\._apply_py)|.* Python objects)")


def pytest_configure(config):
    from plait.kd import functor

    make = functor._make

    def recording(*args, **kwargs):
        f = make(*args, **kwargs)
        _functors_made.append(f)
        return f

    functor._make = recording


def pytest_sessionfinish(session, exitstatus):
    from plait import kd

    unsaveable = {}
    for f in _functors_made:
        try:
            kd.dumps(f)
        except ValueError as e:
            if not _PYTHON_BY_NATURE.search(str(e)):
                unsaveable.setdefault(str(e).splitlines()[0], repr(f)[:200])
    _functors_made.clear()
    if unsaveable:
        lines = [f"  {error}\n    e.g. {example}" for error, example in sorted(unsaveable.items())]
        print("\nfunctors that cannot be saved, though they use no Python code:\n" + "\n".join(lines))
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
