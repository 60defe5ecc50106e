"""Environment variables read when plait is imported."""

import os
import subprocess
import sys

import pytest


def run_with(env_updates, code="from plait import kd; print(kd.agg_sum(kd.slice(list(range(300000)))))"):
    env = dict(os.environ, **env_updates)
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)


@pytest.mark.parametrize("name, value", [("PLAIT_PIN_THREADS", "0"), ("PLAIT_PIN_THREADS", "1"),
                                         ("PLAIT_BUFFER_CACHE_MB", "0"), ("PLAIT_BUFFER_CACHE_MB", "64")])
def test_accepted_values_compute_the_same(name, value):
    done = run_with({name: value})
    assert done.returncode == 0, done.stderr
    # The INT32 sum wraps, as in Koda.
    assert done.stdout.strip() == "2050177040"


@pytest.mark.parametrize("name, value, expected", [
    ("PLAIT_PIN_THREADS", "yes", "PLAIT_PIN_THREADS: expected 0 or 1, got \"yes\""),
    ("PLAIT_BUFFER_CACHE_MB", "lots", "PLAIT_BUFFER_CACHE_MB: expected a whole number of megabytes, got \"lots\""),
])
def test_bad_values_fail_the_import_with_a_message(name, value, expected):
    done = run_with({name: value})
    assert done.returncode != 0
    assert expected in done.stderr
