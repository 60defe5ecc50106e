import pytest


@pytest.fixture(scope="session")
def koda():
    """The reference implementation (koladata), or a clean skip without it."""
    kd_module = pytest.importorskip("koladata.kd", reason="koladata is not installed")
    return kd_module
