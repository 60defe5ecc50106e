"""Runs the examples of plait's docstrings on koladata too and compares the
two outcomes: the differential test of every `kd` name and every method
(python/tests/compare/test_api_vs_koladata.py) is built on it.

    python scripts/koda_diff.py                 # every name of the reference files
    python scripts/koda_diff.py kd.math.add     # some
    python scripts/koda_diff.py --summary       # counts only

An example's outcome is what doctest would print (the repr of its value, or
what it prints) or its exception's type and first line. Both sides are
normalised before comparing: item and bag ids, addresses and float noise do
not count.
"""

import contextlib
import csv
import doctest
import inspect
import io
import os
import re
import sys
import traceback

# Koda's public API, listed from koladata: every `kd` name (koda_api.tsv) and
# every method of its classes (koda_methods.tsv).
REFERENCE = os.path.join(os.path.dirname(__file__), "..", "python", "tests", "compare", "reference")


def reference_rows(file):
    """The rows of one reference file (`koda_api.tsv` or `koda_methods.tsv`)."""
    with open(os.path.join(REFERENCE, file), newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def resolve(root, dotted):
    """`root.a.b` for `dotted` = 'kd.a.b' (the first part names root); raises
    AttributeError naming the first missing part."""
    obj = root
    for part in dotted.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


_ID = re.compile(r"\$[0-9A-Za-z]{4,}|#[0-9A-Za-z]{8,}|0x[0-9a-f]{6,}")
_FLOAT = re.compile(r"(\d+\.\d{5})\d+")


def normalise(text):
    """`text` with ids, addresses and float digits past the fifth cut."""
    text = _ID.sub("$ID", text)
    text = _FLOAT.sub(r"\1", text)
    return " ".join(text.split())


_STATUS = re.compile(r"^\[[A-Z_]+\] ")
_CONTEXT = re.compile(r"^(kd|koda_internal|M)\.[\w.]+: ")


def error_text(outcome):
    """An error outcome's message without Koda's status code and without the
    leading `kd.op: ` context (plait names the canonical operator, Koda
    sometimes the alias, an inner operator or none)."""
    kind, _, message = outcome.partition(": ")
    message = _STATUS.sub("", message)
    while _CONTEXT.match(message):
        message = _CONTEXT.sub("", message, count=1)
    return kind, normalise(message)


def agree(ours, theirs):
    """Whether two outcomes agree: equal after normalising; for errors, the
    same exception type and one message a prefix of the other (plait may add
    detail after Koda's text)."""
    if ours.startswith("!") and theirs.startswith("!"):
        (kind_a, a), (kind_b, b) = error_text(ours), error_text(theirs)
        return kind_a == kind_b and (a.startswith(b) or b.startswith(a))
    return normalise(ours) == normalise(theirs)


def _run(source, globs):
    """What doctest would show for one example: the displayed value or the
    printed text, or `!ExceptionType: first line`."""
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(source, "<example>", "single"), globs)  # noqa: S102 - our own docstrings
    except Exception as error:  # noqa: BLE001 - the outcome is the exception
        first = str(error).split("\n")[0]
        return f"!{type(error).__name__}: {first}"
    return out.getvalue()


def _globals(kd_module):
    import numpy as np

    return {"kd": kd_module, "I": kd_module.I, "V": kd_module.V, "S": kd_module.S, "np": np}


def examples(doc):
    """The example sources of a docstring, in order."""
    return [e.source for e in doctest.DocTestParser().get_examples(inspect.cleandoc(doc or ""))]


def compare_examples(doc, plait_kd, koda_kd):
    """The examples of `doc` whose outcomes differ: a list of
    (source, plait's outcome, koladata's outcome). Examples that use what only
    plait has (`kd_ext`, `pa`, `pd`) are skipped."""
    ours, theirs = _globals(plait_kd), _globals(koda_kd)
    differences = []
    for source in examples(doc):
        if re.search(r"\bkd_ext\b|\bpa\.|\bpd\.", source):
            continue
        a, b = _run(source, ours), _run(source, theirs)
        if not agree(a, b):
            differences.append((source.strip(), a.strip(), b.strip()))
    return differences


def method_owner(kd_module, cls):
    """The object holding the methods of a koda_methods.tsv class: a class of
    `kd.types`, or the `kd.types` / `kd.qtypes` module itself."""
    if cls.startswith("kd."):
        return resolve(kd_module, cls)
    return getattr(kd_module.types, cls)


def main(argv):
    from koladata import kd as koda_kd

    from plait import kd

    summary = "--summary" in argv
    names = [a for a in argv if not a.startswith("--")]
    rows = reference_rows("koda_api.tsv")
    wanted = names or [r["name"] for r in rows]
    missing, no_doc, differ, same = [], [], [], 0
    for name in wanted:
        try:
            obj = resolve(kd, name)
        except AttributeError:
            missing.append(name)
            continue
        doc = getattr(obj, "__doc__", None) if callable(obj) else None
        if callable(obj) and not examples(doc):
            no_doc.append(name)
            continue
        try:
            diffs = compare_examples(doc, kd, koda_kd) if callable(obj) else []
        except Exception:  # noqa: BLE001 - report and go on
            diffs = [("<runner>", traceback.format_exc(), "")]
        if diffs:
            differ.append(name)
            if not summary:
                print(f"== {name}")
                for src, a, b in diffs:
                    print(f"  >>> {src}\n  plait:   {a}\n  koladata: {b}")
        else:
            same += 1
    print(f"same {same}, differ {len(differ)}, missing {len(missing)}, no example {len(no_doc)}", file=sys.stderr)
    if summary:
        print("differ:", " ".join(differ))
    return 1 if (missing or differ) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
