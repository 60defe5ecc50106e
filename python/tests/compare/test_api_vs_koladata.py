"""Every name of Koda's API and every method of its classes, against
koladata (issue 21).

The two reference files in `reference/` list Koda's public API: every `kd`
name (koda_api.tsv) and every method of DataBag, DataSlice, DataItem,
ListItem, DictItem, SchemaItem, Expr and JaggedShape (koda_methods.tsv).
From them this file makes, per name:

- `test_name_exists`: plait has it (so a missing name fails a test);
- `test_examples_agree`: every example of plait's docstring for it, run on
  koladata too, gives the same outcome (value repr, schema, shape, or error
  type and message), with ids and addresses normalised.

Names not built yet are listed in NOT_YET, as strict xfails: building one
makes its test pass, which fails until it is taken off the list. Examples
that differ on purpose are listed in DIFFERENT, each with its reason (and
its entry in docs/differences.md).
"""

import os
import sys

import pytest

from plait import kd

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "scripts"))
import koda_diff  # noqa: E402

koda_kd = pytest.importorskip("koladata.kd", reason="koladata is not installed")

API = [row["name"] for row in koda_diff.reference_rows("koda_api.tsv")]
METHODS = [f"{row['class']}.{row['name']}" for row in koda_diff.reference_rows("koda_methods.tsv")]

# Names and methods plait does not have yet (issue 21 builds them).
NOT_YET = set()

# Docstring examples whose outcome differs from koladata's on purpose, each
# with its reason (see docs/differences.md): example source -> reason.
DIFFERENT = {
    "kd.get_keys(kd.dict({'a': 1, 'b': 2}))": "dict keys in insertion order; Koda's hash order is arbitrary",
    "kd.get_values(d)": "dict values in insertion order; Koda's hash order is arbitrary",
    "kd.get_values(d, kd.slice(['b', 'x']))": "same as kd.get_values(d)",
    "kd.stub(a, kd.slice(['y'])).y.get_itemid() == a.y.get_itemid()": "koladata 0.0.4 raises UNIMPLEMENTED for stub attrs",
    "kd.loads(kd.dumps(kd.obj(a=1, b='x'), compression='lz4')).to_py()": "plait's format takes a compression option",
    "kd.loads(b'not plait data')": "plait's own file format and its message",
    "kd.encode_itemid(kd.slice([kd.uuid(x=1), None]))": "uuids are derived with plait's own hash",
    "kd.shapes.flatten(kd.shapes.new(2, [2, 1]))": "seed 000 flattens shapes; Koda takes slices only",
    "kd.set_schema(e, kd.schema.new_schema(x=kd.INT64))": "koladata 0.0.4 prints the result as a bare id (its new schema's attributes are not in the result's bag)",
    "kd.tuples.slice(1, 3)": "a Python slice (its missing step prints None); Koda's Arolla slice prints unspecified",
}


def _params(names):
    return [
        pytest.param(n, marks=pytest.mark.xfail(strict=True, reason="not built yet (issue 21)")) if n in NOT_YET else n
        for n in names
    ]


def _method(label):
    cls, _, name = label.rpartition(".")
    return getattr(koda_diff.method_owner(kd, cls), name)


@pytest.mark.parametrize("name", _params(API))
def test_name_exists(name):
    ours = koda_diff.resolve(kd, name)
    theirs = koda_diff.resolve(koda_kd, name)
    assert callable(ours) == callable(theirs), f"{name}: callable in one library only"


@pytest.mark.parametrize("label", _params(METHODS))
def test_method_exists(label):
    _method(label)


def _differences(obj):
    return [d for d in koda_diff.compare_examples(obj.__doc__, kd, koda_kd) if d[0] not in DIFFERENT]


@pytest.mark.parametrize("name", [n for n in API if n not in NOT_YET])
def test_examples_agree(name):
    obj = koda_diff.resolve(kd, name)
    if not callable(obj):
        # A constant (kd.INT32, kd.present) prints as Koda's; a namespace
        # (kd.math, kd.I) has nothing to compare beyond its names.
        theirs = koda_diff.resolve(koda_kd, name)
        if isinstance(theirs, koda_kd.types.DataSlice):
            assert koda_diff.normalise(repr(obj)) == koda_diff.normalise(repr(theirs))
        return
    differences = _differences(obj)
    assert not differences, "\n".join(f">>> {s}\n  plait:    {a}\n  koladata: {b}" for s, a, b in differences)


@pytest.mark.parametrize("label", [m for m in METHODS if m not in NOT_YET])
def test_method_examples_agree(label):
    method = _method(label)
    if not callable(method):
        return
    differences = _differences(method)
    assert not differences, "\n".join(f">>> {s}\n  plait:    {a}\n  koladata: {b}" for s, a, b in differences)


def test_lists_are_current():
    """NOT_YET names only names of the reference files, and every example in
    DIFFERENT is still an example of some docstring."""
    known = set(API) | set(METHODS)
    assert not (NOT_YET - known)
    sources = set()
    for name in API:
        obj = koda_diff.resolve(kd, name) if name not in NOT_YET else None
        if callable(obj):
            sources.update(s.strip() for s in koda_diff.examples(obj.__doc__))
    assert not (set(DIFFERENT) - sources)
