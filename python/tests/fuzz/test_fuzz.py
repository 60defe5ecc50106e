"""The hostile-input fuzzer (issue 19) as part of `make test`.

`test_fuzz_finds_no_crash_hang_panic_or_corruption` runs the generated
cases of fuzz_cases.py for PLAIT_FUZZ_SECONDS seconds (20 by default) from
seed PLAIT_FUZZ_SEED (0; `random` picks one); a failure names the seed and
the command that replays it. The other tests check that the harness notices
each kind of failure, so that a clean run means something.
"""

import os
import random

import fuzz_cases
import fuzz_harness


def env_seed():
    seed = os.environ.get("PLAIT_FUZZ_SEED", "0")
    return random.randrange(2**40) if seed == "random" else int(seed)


def test_fuzz_finds_no_crash_hang_panic_or_corruption(monkeypatch):
    # The workers run without the type checks: hostile cases (values
    # nested 10,000 deep) make every check read through all the levels.
    monkeypatch.setenv("PLAIT_CHECK_TYPES", "0")
    seconds = float(os.environ.get("PLAIT_FUZZ_SECONDS", "20"))
    workers = int(os.environ.get("PLAIT_FUZZ_WORKERS", "2"))
    report = fuzz_harness.run(seconds, env_seed(), workers)
    print(report.summary())
    assert not report.failures, report.describe()
    # Every family ran: a run that tried nothing is no evidence.
    assert set(report.per_family) == set(fuzz_cases.FAMILIES), report.summary()


def test_the_harness_reports_crashes_hangs_panics_and_wrong_answers(monkeypatch):
    monkeypatch.setenv("PLAIT_CHECK_TYPES", "0")
    families = ["_abort", "_hang", "_wrong", "_panic", "_fine"]
    report = fuzz_harness.run(60, 100, workers=2, families=families, case_timeout=3, batch=5, count=5)
    kinds = {fuzz_cases.family_of(f.seed, families): f for f in report.failures}
    assert sorted(kinds) == ["_abort", "_hang", "_panic", "_wrong"], report.describe()
    assert kinds["_abort"].kind == "crash" and "SIGABRT" in kinds["_abort"].detail
    assert kinds["_abort"].alone.startswith("fails alone too: the worker died with signal SIGABRT")
    assert kinds["_hang"].kind == "hang" and kinds["_hang"].alone.startswith("hangs alone too")
    assert "is not an Exception" in kinds["_panic"].detail
    assert kinds["_wrong"].detail == "a wrong answer: got 1, want 2"
    # The seed and the command that replays it come with each failure.
    text = kinds["_abort"].describe(families)
    assert f"--replay {kinds['_abort'].seed} --family _abort,_hang,_wrong,_panic,_fine" in text
    assert report.per_family["_fine"] >= 1
