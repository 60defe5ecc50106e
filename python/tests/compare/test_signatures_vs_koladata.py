"""plait against koladata: the parameters (names and kinds) of every `kd`
name of `reference/koda_api.tsv` that both libraries have as a function,
so that a call by keyword moves over with the import. What differs on
purpose is listed with its reason (the test then fails if it agrees)."""

import inspect
import os
import sys

import pytest

from plait import kd

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "scripts"))
import koda_diff  # noqa: E402

koda_kd = pytest.importorskip("koladata.kd", reason="koladata is not installed")

# Koda's eager wrappers of some operators have parameters of their own; plait
# has one signature for an operator's eager and lazy forms (the operator's,
# which kd.lazy.<name> shows in both libraries).
_EAGER_WRAPPER = "Koda's eager wrapper differs from its operator's signature, which plait's eager form keeps"
# The registration options Koda passes on to Arolla have no meaning here.
_AROLLA_OPTIONS = "plait takes Koda's Arolla-only registration options through **_options and does not use them"

DIFFERENT = {
    "kd.dumps": "plait adds the keyword-only `compression` (how its saved format is compressed)",
    "kd.trace_py_fn": "plait adds the keyword-only `return_type_as` and `input_types` (typed tracing, seed 000)",
    "kd.functor.trace_py_fn": "as kd.trace_py_fn",
    "kd.implode": _EAGER_WRAPPER + " (x, /, ndim, itemid)",
    "kd.lists.implode": _EAGER_WRAPPER + " (x, /, ndim, itemid)",
    "kd.is_fn": _EAGER_WRAPPER + " (obj)",
    "kd.functor.is_fn": _EAGER_WRAPPER + " (obj)",
    "kd.extension_types.wrap": _EAGER_WRAPPER + " (x, qtype)",
    "kd.extension_types.dynamic_cast": _EAGER_WRAPPER + " (value, qtype)",
    "kd.optools.add_to_registry": _AROLLA_OPTIONS,
    "kd.optools.add_to_registry_as_overload": _AROLLA_OPTIONS,
    "kd.optools.add_to_registry_as_overloadable": _AROLLA_OPTIONS,
    "kd.optools.as_backend_operator": _AROLLA_OPTIONS + "; its kernel is a Python function (`kernel=`)",
    "kd.optools.as_lambda_operator": _AROLLA_OPTIONS + "; plait adds `experimental_aux_policy` and `doc`",
    "kd.optools.as_py_function_operator": _AROLLA_OPTIONS + "; plait adds `experimental_aux_policy` and `doc`",
}


def _parameters(fn):
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    return [(p.name, p.kind.name) for p in signature.parameters.values()]


def _functions():
    names = []
    for row in koda_diff.reference_rows("koda_api.tsv"):
        name = row["name"]
        try:
            ours, theirs = koda_diff.resolve(kd, name), koda_diff.resolve(koda_kd, name)
        except AttributeError:
            continue
        if not (callable(ours) and callable(theirs)) or isinstance(ours, type) or isinstance(theirs, type):
            continue
        if _parameters(ours) is not None and _parameters(theirs) is not None:
            names.append(name)
    return names


NAMES = _functions()


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=DIFFERENT[n])) if n in DIFFERENT else n
             for n in NAMES])
def test_parameters_are_koda_s(name):
    ours, theirs = koda_diff.resolve(kd, name), koda_diff.resolve(koda_kd, name)
    assert _parameters(ours) == _parameters(theirs)


def test_every_listed_difference_is_a_function_of_both():
    assert not set(DIFFERENT) - set(NAMES)
