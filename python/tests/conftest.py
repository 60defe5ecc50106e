import re

import pytest


@pytest.fixture(scope="session")
def koda():
    """The reference implementation (koladata), or a clean skip without it."""
    kd_module = pytest.importorskip("koladata.kd", reason="koladata is not installed")
    return kd_module


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
