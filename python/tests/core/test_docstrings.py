"""Every public function of `kd` and `kd_ext` has a docstring with an
example, and every example is true (issue 8). scripts/doc_examples.py
finds the functions and runs the examples; run it directly while writing
docs."""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "scripts"))
import doc_examples  # noqa: E402

FUNCTIONS = doc_examples.public_functions()


def test_every_public_function_has_an_example():
    missing = [name for name, fn in FUNCTIONS.items() if not doc_examples.has_example(fn.__doc__)]
    assert not missing, f"public functions without an example: {missing}"
    assert len(FUNCTIONS) > 400


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_docstring_examples_are_true(name):
    report = doc_examples.run_examples(name, FUNCTIONS[name].__doc__)
    assert not report, report
