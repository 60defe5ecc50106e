"""Runs the examples in the docstrings of plait's public functions
(`kd.*`, `kd_ext.*`) as doctests, so every documented example stays true.

    python scripts/doc_examples.py              # run all, print failures
    python scripts/doc_examples.py kd.math.add  # run some
    python scripts/doc_examples.py --missing    # functions without an example

Examples see `kd`, `kd_ext`, `I`, `V`, `S`, `np`, `pa` and `pd`; `...` in an
expected output matches anything (item ids, addresses). A test
(python/tests/core/test_docstrings.py) runs them all.
"""

import doctest
import inspect
import sys
import types

from plait import kd, kd_ext

OPTIONS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _is_function(value):
    if isinstance(value, (type, kd.types.DataSlice, kd.expr.Expr)) or not callable(value):
        return False
    module = getattr(value, "__module__", None) or type(value).__module__
    return module.startswith("plait")


def public_functions():
    """Every public function of `kd` and its namespaces and of `kd_ext`,
    once each, under its longest name (`kd.math.add` rather than `kd.add`)."""
    found = {}

    def visit(namespace, prefix):
        for name in sorted(vars(namespace)):
            value = getattr(namespace, name)
            if name.startswith("_") or isinstance(value, types.ModuleType) or not _is_function(value):
                continue
            full = f"{prefix}.{name}"
            key = id(value)
            if key not in found or len(full) > len(found[key][0]):
                found[key] = (full, value)

    visit(kd, "kd")
    for name, module in sorted(vars(kd).items()):
        if isinstance(module, types.ModuleType) and module.__name__.startswith("plait.kd.") and not name.startswith("_") \
                and name not in ("lazy", "eager", "types"):
            visit(module, f"kd.{name}")
    for name in ("npkd", "arrow", "pdkd"):
        visit(getattr(kd_ext, name), f"kd_ext.{name}")
    return dict(sorted(found.values()))


def _globals():
    import numpy as np
    import pandas as pd
    import pyarrow as pa

    return {"kd": kd, "kd_ext": kd_ext, "I": kd.I, "V": kd.V, "S": kd.S, "np": np, "pa": pa, "pd": pd}


def run_examples(name, doc):
    """The failures (doctest's report, as text) of the examples in `doc`."""
    test = doctest.DocTestParser().get_doctest(inspect.cleandoc(doc or ""), _globals(), name, None, 0)
    out = []
    runner = doctest.DocTestRunner(optionflags=OPTIONS)
    runner.run(test, out=out.append)
    return "".join(out)


def has_example(doc):
    return bool(doctest.DocTestParser().get_examples(inspect.cleandoc(doc or "")))


def main(argv):
    functions = public_functions()
    if argv[:1] == ["--missing"]:
        for name, fn in functions.items():
            if not has_example(fn.__doc__):
                print(name)
        return 0
    names = argv or list(functions)
    failed = 0
    for name in names:
        report = run_examples(name, functions[name].__doc__)
        if report:
            failed += 1
            print(report)
    print(f"{len(names) - failed} of {len(names)} docstrings pass", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
