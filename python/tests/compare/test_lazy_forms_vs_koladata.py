"""Every lazy operator of Koda's API against koladata: the node it builds
and its signature.

For each `kd` name of `reference/koda_api.tsv` that koladata has as
`kd.lazy.<name>`, `kd.lazy.<name>(I.x)` (or with `I.y`, `I.z` when the
operator needs more: the fewest inputs koladata accepts) must print as
koladata's node does, ids masked: the operator's name, and its default
arguments with their schemas (`DataItem(0, schema: INT64)`, `unspecified`,
an empty slice). The signatures must agree too: parameter kinds, names and
default values. What differs on purpose is listed with its reason.
"""

import inspect
import os
import sys

import pytest

from plait import kd

from koda_compare import normalised

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "scripts"))
import koda_diff  # noqa: E402

koda_kd = pytest.importorskip("koladata.kd", reason="koladata is not installed")

LAZY = [row["name"].replace("kd.", "kd.lazy.", 1) for row in koda_diff.reference_rows("koda_api.tsv")]

# Nodes that print differently on purpose: name -> reason.
DIFFERENT_NODES = {
    "kd.lazy.dict": "plait's kd.dict unpacks Python dicts into keys and values first (kd.dicts._new)",
    "kd.lazy.dicts.new": "as kd.lazy.dict",
    "kd.lazy.dict_like": "plait's kd.dict_like is kd.dicts._shaped on x's shape, masked by x",
    "kd.lazy.dicts.like": "as kd.lazy.dict_like",
    "kd.lazy.dict_shaped": "plait's kd.dict_shaped is kd.dicts._shaped (Python dicts unpacked first)",
    "kd.lazy.dicts.shaped": "as kd.lazy.dict_shaped",
    "kd.lazy.dict_shaped_as": "as kd.lazy.dict_shaped, on x's shape",
    "kd.lazy.dicts.shaped_as": "as kd.lazy.dict_shaped_as",
    "kd.lazy.select_keys": "plait's kd.select_keys is kd.select of the keys",
    "kd.lazy.dicts.select_keys": "as kd.lazy.select_keys",
    "kd.lazy.select_values": "plait's kd.select_values is kd.select of the values",
    "kd.lazy.dicts.select_values": "as kd.lazy.select_values",
    "kd.lazy.dicts.get_item": "plait prints the operator; Koda prints its own get_item as x[key]",
    "kd.lazy.lists.get_item": "as kd.lazy.dicts.get_item",
    "kd.lazy.item": "Koda's kd.item wraps x in a rank assertion node; plait checks when evaluating",
    "kd.lazy.slices.item": "as kd.lazy.item",
    "kd.lazy.map_py": "plait's Python-function operators leave Python defaults unspecified (the function applies them)",
    "kd.lazy.py.map_py": "as kd.lazy.map_py",
    "kd.lazy.map_py_on_cond": "as kd.lazy.map_py",
    "kd.lazy.py.map_py_on_cond": "as kd.lazy.map_py",
    "kd.lazy.map_py_on_selected": "as kd.lazy.map_py",
    "kd.lazy.py.map_py_on_selected": "as kd.lazy.map_py",
    "kd.lazy.schema_from_proto_path": "Koda's default is the id of its empty extension list; plait's is unspecified",
    "kd.lazy.proto.schema_from_proto_path": "as kd.lazy.schema_from_proto_path",
    "kd.lazy.functor.call_fn_returning_stream_when_parallel": "Koda's default is an Arolla sequence QValue",
    "kd.lazy.agg_uuid": "plait prints the operator's full name where Koda has a separate kd.agg_uuid operator",
    "kd.lazy.has_fn": "as kd.lazy.agg_uuid (kd.functor.has_fn)",
    "kd.lazy.core.with_print": "kd.core.with_print is kd.assertion.with_print in plait",
    "kd.lazy.list": "plait names keyword-only arguments in a node; Koda's kd.list operator takes them by position",
    "kd.lazy.lists.new": "as kd.lazy.list",
}

# Signatures that differ on purpose: name -> reason.
DIFFERENT_SIGNATURES = {
    name: DIFFERENT_NODES[name]
    for name in (
        "kd.lazy.dict", "kd.lazy.dicts.new", "kd.lazy.dict_like", "kd.lazy.dicts.like", "kd.lazy.dict_shaped",
        "kd.lazy.dicts.shaped", "kd.lazy.dict_shaped_as", "kd.lazy.dicts.shaped_as", "kd.lazy.map_py",
        "kd.lazy.py.map_py", "kd.lazy.map_py_on_cond", "kd.lazy.py.map_py_on_cond", "kd.lazy.map_py_on_selected",
        "kd.lazy.py.map_py_on_selected", "kd.lazy.schema_from_proto_path", "kd.lazy.proto.schema_from_proto_path",
        "kd.lazy.functor.call_fn_returning_stream_when_parallel",
    )
}
DIFFERENT_SIGNATURES.update({
    "kd.lazy.concat_lists": "plait names its variadic parameter `lists` (Koda: arg0, *args)",
    "kd.lazy.lists.concat": "as kd.lazy.concat_lists",
    "kd.lazy.uu": "plait names the attributes **attrs (Koda: **kwargs)",
    "kd.lazy.entities.uu": "as kd.lazy.uu",
    "kd.lazy.uuobj": "as kd.lazy.uu",
    "kd.lazy.objs.uu": "as kd.lazy.uu",
})
# Lazy forms plait does not have: name -> reason (both tests).
NO_LAZY_FORM = {
    "kd.lazy.get_attr_names": "plait's kd.get_attr_names returns a Python list, eagerly only",
    "kd.lazy.functor.expr_fn": "plait makes functors eagerly, also inside tracing",
}
DIFFERENT_NODES.update(NO_LAZY_FORM)
DIFFERENT_SIGNATURES.update(NO_LAZY_FORM)


def _lazy(lib, name):
    try:
        return koda_diff.resolve(lib, name)
    except AttributeError:
        return None


def _inputs(lib, arity):
    return [getattr(lib.I, n) for n in "xyz"[:arity]]


def _koda_node(name):
    fn = _lazy(koda_kd, name)
    if fn is None or not callable(fn):
        return None
    for arity in range(1, 4):
        try:
            return arity, normalised(repr(fn(*_inputs(koda_kd, arity))))
        except Exception:  # noqa: BLE001 - an operator refusing an arity
            continue
    return None


def _params(names, different):
    return [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=different[n])) if n in different else n for n in names]


@pytest.mark.parametrize("name", _params(LAZY, DIFFERENT_NODES))
def test_lazy_node_prints_as_koda(name):
    theirs = _koda_node(name)
    if theirs is None:
        pytest.skip("koladata builds no node of this name from inputs")
    arity, text = theirs
    ours = normalised(repr(koda_diff.resolve(kd, name)(*_inputs(kd, arity))))
    assert ours == text


def _signature(fn):
    sig = inspect.signature(fn)
    return [
        (p.kind.name, p.name, None if p.default is inspect.Parameter.empty else normalised(repr(p.default)))
        for p in sig.parameters.values()
    ]


@pytest.mark.parametrize("name", _params(LAZY, DIFFERENT_SIGNATURES))
def test_lazy_signature_is_koda(name):
    theirs = _lazy(koda_kd, name)
    if theirs is None or not callable(theirs):
        pytest.skip("koladata has no lazy operator of this name")
    try:
        expected = _signature(theirs)
    except (TypeError, ValueError):
        pytest.skip("koladata's operator has no Python signature")
    assert _signature(koda_diff.resolve(kd, name)) == expected
