"""Every operator of Koda's API called with the same small set of
arguments (items and slices of each kind, entities, objects, lists, dicts,
schemas; alone and in pairs), on plait and on koladata (issue 21).

Outcomes must agree: both return equal values (reprs with ids normalised),
or both raise the same exception type with the same message (plait may add
detail after Koda's text; see `koda_diff.agree`).

Where they do not yet, `probe_differences.txt` lists the calls, one per
line; the test of a name fails both when a call disagrees that is not
listed (a regression) and when a listed call now agrees (take it off the
list: it is `python scripts/koda_diff.py --probe-baseline` that rewrites it).
"""

import os
import sys

import pytest

from plait import kd

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "scripts"))
import koda_diff  # noqa: E402

koda_kd = pytest.importorskip("koladata.kd", reason="koladata is not installed")

BASELINE = koda_diff.read_probe_baseline()
NAMES = koda_diff.probed_names(koda_diff.reference_rows("koda_api.tsv"), kd, koda_kd)


@pytest.mark.parametrize("name", NAMES)
def test_probes_agree(name):
    differing = {call for call, _, _ in koda_diff.probe(name, kd, koda_kd)}
    known = BASELINE.get(name, set())
    new = differing - known
    fixed = known - differing
    assert not new, f"calls that disagree with koladata: {sorted(new)}"
    assert not fixed, f"calls that now agree; run scripts/koda_diff.py --probe-baseline: {sorted(fixed)}"


def test_baseline_names_are_probed():
    assert not set(BASELINE) - set(NAMES)
