"""The `.pyi` stubs (issue 8) list every public name of `kd` and of its
namespaces, and parse. Regenerate them with scripts/gen_stubs.py."""

import ast
import os
import types

from plait import kd

STUBS = os.path.dirname(kd.__file__)


def names_in(stub):
    tree = ast.parse(open(os.path.join(STUBS, stub)).read())
    names = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            names.add(node.target.id)
        elif isinstance(node, ast.ImportFrom):
            names.update(alias.asname or alias.name for alias in node.names)
    return names


def public(namespace):
    return {n for n in vars(namespace) if not n.startswith("_") and not (
        isinstance(getattr(namespace, n), types.ModuleType) and not getattr(namespace, n).__name__.startswith("plait.kd."))}


def test_the_package_stub_lists_every_public_name():
    missing = public(kd) - names_in("__init__.pyi")
    assert not missing, f"run scripts/gen_stubs.py; missing: {sorted(missing)}"


def test_namespace_stubs_list_their_names():
    for name in ("math", "strings", "slices", "functor", "expr", "py"):
        missing = public(getattr(kd, name)) - names_in(name + ".pyi")
        assert not missing, f"run scripts/gen_stubs.py; kd.{name} misses {sorted(missing)}"
