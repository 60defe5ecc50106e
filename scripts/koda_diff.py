"""Runs the examples of plait's docstrings on koladata too and compares the
two outcomes: the differential test of every `kd` name and every method
(python/tests/compare/test_api_vs_koladata.py) is built on it.

    python scripts/koda_diff.py                 # every name of the reference files
    python scripts/koda_diff.py kd.math.add     # some
    python scripts/koda_diff.py --summary       # counts only
    python scripts/koda_diff.py --probe [NAME]  # the probe calls that disagree
    python scripts/koda_diff.py --probe-baseline  # rewrite probe_differences.txt

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


def _sorted_dicts(text):
    """`text` with the entries of every `Dict{...}` (nested too) sorted."""
    out, i = [], 0
    while i < len(text):
        start = text.find("Dict{", i)
        if start < 0:
            out.append(text[i:])
            break
        out.append(text[i:start + 5])
        # The entries up to the matching brace, split at depth 0.
        depth, j, entries, entry_start = 0, start + 5, [], start + 5
        while j < len(text):
            c = text[j]
            if c in "{[(":
                depth += 1
            elif c in "}])":
                if depth == 0:
                    break
                depth -= 1
            elif c == "," and depth == 0:
                entries.append(text[entry_start:j].strip())
                entry_start = j + 1
            j += 1
        entries.append(text[entry_start:j].strip())
        out.append(", ".join(sorted(_sorted_dicts(e) for e in entries if e)))
        i = j
    return "".join(out)


def normalise(text):
    """`text` with ids, addresses and float digits past the fifth cut, and
    the entries of each (flat) dict sorted: Koda lists them in hash order."""
    text = _ID.sub("$ID", text)
    text = _FLOAT.sub(r"\1", text)
    text = _sorted_dicts(text)
    return " ".join(text.split())


_STATUS = re.compile(r"^\[[A-Z_]+\] ")
# What names the failing call: `kd.op: ` (plait names the canonical
# operator, Koda sometimes an alias, an inner operator or none), Python's
# `name() ` before a binding error, and plait's `argument `x`: `.
_CONTEXT = re.compile(r"^((kd|koda_internal|M)\.[\w.]+: |[\w.]+\(\) |argument `\w+`: )")
# Where a message names a class: Koda's and plait's modules differ.
_CLASS_PATH = re.compile(r"\b(koladata\.types\.\w+|plait\.types)\.")


def error_text(outcome):
    """An error outcome's message without Koda's status code and without the
    leading `kd.op: ` context (plait names the canonical operator, Koda
    sometimes the alias, an inner operator or none)."""
    kind, _, message = outcome.partition(": ")
    message = _STATUS.sub("", message)
    while _CONTEXT.match(message):
        message = _CONTEXT.sub("", message, count=1)
    return kind, normalise(_CLASS_PATH.sub("", message))


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
    plait has (`kd_ext`, `pa`, `pd`) are skipped, and so are docstrings that
    register operators (their names are process-wide: a second run, after
    the doctests, would find them taken)."""
    ours, theirs = _globals(plait_kd), _globals(koda_kd)
    differences = []
    sources = examples(doc)
    if any(re.search(r"add_to_registry|add_alias|register_py_fn", s) for s in sources):
        return differences
    for source in sources:
        if re.search(r"\bkd_ext\b|\bpa\.|\bpd\.", source):
            continue
        a, b = _run(source, ours), _run(source, theirs)
        if not agree(a, b):
            differences.append((source.strip(), a.strip(), b.strip()))
    return differences


# --- probes: every operator called with the same small set of arguments

#: Argument expressions each operator is called with (alone, and in pairs).
PROBES = [
    "kd.item(1)", "kd.slice([1, None, 3])", "kd.slice([[1, 2], [3]])", "kd.slice([1.5, 2.5])",
    "kd.slice(['a', 'b'])", "kd.item('a')", "kd.slice([True, False])", "kd.present", "kd.item(None)",
    "kd.new(a=1)", "kd.obj(a=1)", "kd.list([1, 2])", "kd.dict({'a': 1})", "kd.INT32", "kd.slice([b'x'])",
]

#: Names not probed: they take Python functions or files, print, make
#: non-deterministic values, or need arguments the probes do not have.
NOT_PROBED = (
    "kd.streams", "kd.parallel", "kd.proto", "kd.extension_types", "kd.testing", "kd.optools", "kd.random",
    "kd.functor", "kd.py.", "kd.expr.", "kd.tuples", "kd.iterables", "kd.annotation", "kd.allocation", "kd.ids.new_",
    "kd.trace_py_fn", "kd.py_fn", "kd.fn", "kd.map_py", "kd.dumps", "kd.dump", "kd.load", "kd.loads", "kd.with_print",
    "kd.call", "kd.progress", "kd.get_repr", "kd.slices.get_repr", "kd.bag", "kd.mutable_bag", "kd.new_", "kd.uuid",
    "kd.check_", "kd.trace_as_fn", "kd.register_py_fn", "kd.bind", "kd.is_fn", "kd.map", "kd.if_", "kd.while_",
    "kd.for_", "kd.flat_map", "kd.apply_py", "kd.py_reference", "kd.named_container", "kd.duck_", "kd.static_when",
    "kd.eval", "kd.clear_eval_cache", "kd.shuffle", "kd.sample", "kd.randint", "kd.uu", "kd.to_py", "kd.to_pytree",
    "kd.from_py", "kd.from_pytree", "kd.extension_type", "kd.tuple", "kd.namedtuple", "kd.cityhash",
    "kd.with_timestamp", "kd.core.with_timestamp",
)


def probe_calls(name):
    """The calls `name` is probed with: each probe alone, and pairs."""
    calls = [f"{name}({p})" for p in PROBES]
    pairs = [(a, b) for i, a in enumerate(PROBES) for j, b in enumerate(PROBES) if i == j or (i + 2 * j) % 7 == 0]
    calls += [f"{name}({a}, {b})" for a, b in pairs]
    return calls


def outcome(source, kd_module):
    """What evaluating `source` gives: its repr, or `!Type: first line`."""
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            return repr(eval(source, {"kd": kd_module}))  # noqa: S307 - our own probe text
    except Exception as error:  # noqa: BLE001 - the outcome is the exception
        first = str(error).split("\n")[0]
        return f"!{type(error).__name__}: {first}"


def probed_names(rows, plait_kd, koda_kd):
    """The callable names of the API both libraries have, minus NOT_PROBED."""
    names = []
    for row in rows:
        name = row["name"]
        if name.startswith(NOT_PROBED):
            continue
        try:
            ours, theirs = resolve(plait_kd, name), resolve(koda_kd, name)
        except AttributeError:
            continue
        if callable(ours) and callable(theirs) and not isinstance(ours, type):
            names.append(name)
    return names


def probe(name, plait_kd, koda_kd):
    """The probe calls of `name` whose outcomes disagree:
    [(call, plait's outcome, koladata's outcome)]."""
    return [(c, a, b) for c in probe_calls(name)
            for a, b in [(outcome(c, plait_kd), outcome(c, koda_kd))] if not agree(a, b)]


PROBE_BASELINE = os.path.join(REFERENCE, "..", "probe_differences.txt")


def read_probe_baseline():
    """The probe calls known to disagree, by name."""
    known = {}
    if os.path.exists(PROBE_BASELINE):
        with open(PROBE_BASELINE) as f:
            for line in f:
                call = line.rstrip("\n")
                if call and not call.startswith("#"):
                    known.setdefault(call.split("(", 1)[0], set()).add(call)
    return known


def write_probe_baseline(plait_kd, koda_kd):
    """Rewrites the baseline with the calls that disagree now."""
    calls = []
    for name in probed_names(reference_rows("koda_api.tsv"), plait_kd, koda_kd):
        calls.extend(call for call, _, _ in probe(name, plait_kd, koda_kd))
    with open(PROBE_BASELINE, "w") as f:
        f.write("# Probe calls whose outcome still differs from koladata's (test_probes_vs_koladata.py).\n")
        f.write("# Written by `python scripts/koda_diff.py --probe-baseline`; shrink it, never grow it by hand.\n")
        f.writelines(f"{c}\n" for c in sorted(calls))
    return len(calls)


def method_owner(kd_module, cls):
    """The object holding the methods of a koda_methods.tsv class: a class of
    `kd.types`, or the `kd.types` / `kd.qtypes` module itself."""
    if cls.startswith("kd."):
        return resolve(kd_module, cls)
    return getattr(kd_module.types, cls)


def main(argv):
    from koladata import kd as koda_kd

    from plait import kd

    if "--probe-baseline" in argv:
        print(f"{write_probe_baseline(kd, koda_kd)} probe calls differ", file=sys.stderr)
        return 0
    if "--probe" in argv:
        names = [a for a in argv if not a.startswith("--")] or probed_names(reference_rows("koda_api.tsv"), kd, koda_kd)
        for name in names:
            for call, a, b in probe(name, kd, koda_kd):
                print(f"{call}\n  plait:    {a[:200]}\n  koladata: {b[:200]}")
        return 0
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
