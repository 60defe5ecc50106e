import pytest


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
    import re

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
