"""Progress bars of kd.map_py / kd.map (issue 8): shown where forced (or on
terminals and notebooks), off in pipes, finished at 100%."""

import pytest

from plait import kd


@pytest.fixture(autouse=True)
def automatic_afterwards():
    yield
    kd.progress.set_enabled(None)


def test_off_when_not_interactive(capsys):
    assert kd.map_py(lambda x: x + 1, kd.slice(list(range(20_000)))).get_size().to_py() == 20_000
    assert capsys.readouterr().err == ""


def test_forced_bars_reach_100_percent(capsys):
    kd.progress.set_enabled(True)
    assert kd.map_py(lambda x: x * 2, kd.slice([1, None, 3])).to_py() == [2, None, 6]
    err = capsys.readouterr().err
    assert "kd.map_py: 100% |" in err and "3/3" in err
    assert kd.map_py(lambda x: x + 1, kd.slice([1, 2]), max_threads=2).to_py() == [2, 3]
    double = kd.fn(lambda x: x * 2)
    assert kd.map(double, kd.slice([1, 2])).to_py() == [2, 4]
    assert "kd.map: 100% |" in capsys.readouterr().err


def test_opt_out(capsys, monkeypatch):
    monkeypatch.setenv("PLAIT_PROGRESS", "0")
    assert not kd.progress.enabled(1_000_000)
    kd.progress.set_enabled(False)
    kd.map_py(lambda x: x, kd.slice([1]))
    assert capsys.readouterr().err == ""
