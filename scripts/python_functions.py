"""Lists the public functions of the `kd` namespaces that are written in
Python (`types.FunctionType` objects), grouped by the module defining them,
with the public names each one has. Registry operators (`plait.types.Operator`
objects), the `kd` forms of the builtin operators of plait-expr
(`kd/_builtins.py`: `kd.if_`, `kd.map`, ...) and PyO3 builtins are not
listed: they are Rust. Glue marked `traced_through` (boxing and choosing a
registry operator, which a traced functor sees as that operator) is listed
apart.

docs/architecture.md ("Python-defined public functions") keeps a table of
these by category; run `python scripts/python_functions.py` after adding or
moving a function and update the table.
"""

import collections
import inspect
import os
import types

from plait import kd

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _walk(namespace, prefix, found, depth=0):
    for name in dir(namespace):
        if name.startswith("_"):
            continue
        obj = getattr(namespace, name)
        if isinstance(obj, types.FunctionType) and hasattr(obj, "_builtin_operator"):
            continue
        if isinstance(obj, types.FunctionType):
            # `kd.<name>` is often a tracing-dispatch wrapper (`_lazy.py`) of
            # the function `kd.eager.<name>` is, or of a Rust builtin: one
            # entry per wrapped function, listed where it is written.
            inner = inspect.unwrap(obj)
            found[inner if isinstance(inner, types.FunctionType) else (inner, obj)].append(f"{prefix}.{name}")
        elif depth < 2 and _is_namespace(obj):
            _walk(obj, f"{prefix}.{name}", found, depth + 1)


def _is_namespace(obj):
    if isinstance(obj, types.ModuleType):
        return obj.__name__.startswith("plait.kd")
    return isinstance(obj, types.SimpleNamespace) or type(obj).__name__ == "_Container"


def python_functions():
    """{source file: [(function name, [public names, shortest first])]}."""
    found = collections.defaultdict(list)
    wrappers = {}
    _walk(kd, "kd", found)
    by_file = collections.defaultdict(list)
    merged = collections.defaultdict(list)
    for key, names in found.items():
        if isinstance(key, tuple):  # (Rust builtin, a wrapper of it)
            merged[key[0]].extend(names)
            wrappers[key[0]] = key[1]
        else:
            merged[key].extend(names)
    for fn, names in merged.items():
        source = os.path.relpath(inspect.getsourcefile(wrappers.get(fn, fn)) or "?", ROOT)
        by_file[source].append((fn.__qualname__, sorted(set(names), key=lambda n: (len(n), n))))
    return {source: sorted(fns) for source, fns in sorted(by_file.items())}


def _traced_through(source, qualname):
    module = ".".join(os.path.splitext(source)[0].split(os.sep)[1:])
    fn = getattr(__import__(module, fromlist=["_"]), qualname, None)
    return getattr(fn, "__plait_traced_through__", False)


def main():
    total, glue = 0, 0
    for source, fns in python_functions().items():
        print(f"{source} ({len(fns)})")
        for qualname, names in fns:
            mark = " [traced through]" if _traced_through(source, qualname) else ""
            glue += bool(mark)
            print(f"    {qualname}{mark}: {', '.join(names[:3])}{' ...' if len(names) > 3 else ''}")
        total += len(fns)
    print(f"{total} Python-defined public functions, {glue} of them glue traced through")


if __name__ == "__main__":
    main()
