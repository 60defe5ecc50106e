"""`kd.vis`: pictures of expressions and functors as Graphviz dot text,
like the diagrams of seed 000 (an expression tree; a functor as a box of
its variables, nested functors as boxes inside, arrows from what each
variable uses).

`to_dot(x)` gives the dot text; `to_svg(x)` renders it when Graphviz's
`dot` program is installed.
"""

import shutil
import subprocess

from plait import _plait
from plait.kd import expr as _expr

__all__ = ["to_dot", "to_svg"]

_MAX_LABEL = 60


def _quote(text):
    text = text if len(text) <= _MAX_LABEL else text[: _MAX_LABEL - 1] + "…"
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _node_label(node):
    if node._kind() == "operator":  # the Python symbol when it has one, as in the seed's diagrams
        return node.op._symbol or node.op.name
    return repr(node)


def _expr_lines(e, prefix, lines):
    """Nodes and edges of expression `e` (ids prefixed); returns the root's id."""
    ids = {}
    for k, node in enumerate(_expr.post_order(e)):
        node_id = f"{prefix}{k}"
        ids[node.fingerprint] = node_id
        shape = "ellipse" if node._kind() == "operator" else "box"
        lines.append(f"  {node_id} [label={_quote(_node_label(node))}, shape={shape}];")
        for dep in node.node_deps:
            lines.append(f"  {node_id} -> {ids[dep.fingerprint]};")
    return ids[e.fingerprint]


def _functor_lines(fn, prefix, lines, depth):
    """A cluster for functor `fn`: one node per variable (and `returns`),
    `name = expression` on each, arrows from the variables each uses."""
    name = fn.maybe("__qualname__").to_py() if fn.has_attr("__qualname__") else None
    lines.append(f"  subgraph cluster_{prefix} {{")
    lines.append(f"    label={_quote(f'functor {name}' if name else 'functor')}; style=rounded;")
    attrs = [a for a in fn.get_attr_names(intersection=True) if a not in ("__signature__", "__qualname__", "__module__")]
    ids = {a: f"{prefix}_{k}" for k, a in enumerate(attrs)}
    uses = []
    for attr in attrs:
        value = fn.get_attr(attr)
        if _plait.is_functor(value) and depth < 4:
            inner = _functor_lines(value, ids[attr], lines, depth + 1)
            lines.append(f"    {ids[attr]} [label={_quote(attr)}, shape=box, style=dashed];")
            lines.append(f"    {ids[attr]} -> {inner} [style=dotted];")
            continue
        if _expr.is_packed_expr(value):
            e = _expr.unpack_expr(value)
            text = f"{attr} = {e!r}"
            uses += [(v, attr) for v in _variable_names(e) if v in ids]
        else:
            text = f"{attr} = {value!r}"
        shape = "box" if attr != "returns" else "doubleoctagon"
        lines.append(f"    {ids[attr]} [label={_quote(text)}, shape={shape}];")
    for used, user in uses:
        lines.append(f"    {ids[used]} -> {ids[user]};")
    lines.append("  }")
    return ids.get("returns", next(iter(ids.values()), prefix))


def _variable_names(e):
    return sorted({n.leaf_name for n in _expr.post_order(e) if n._kind() == "variable"})


def to_dot(x):
    """Graphviz dot text for an expression or a functor.

    >>> print(kd.vis.to_dot((kd.I.a + kd.I.b) * kd.I.c))  # doctest: +ELLIPSIS
    digraph plait {...
    """
    lines = ["digraph plait {", "  rankdir=TB;", '  node [fontname="monospace", fontsize=10];']
    if isinstance(x, _expr.Expr):
        _expr_lines(x, "n", lines)
    elif _plait.is_functor(x):
        _functor_lines(x, "f", lines, 0)
    else:
        raise TypeError(f"kd.vis.to_dot: expected an expression or a functor, got {type(x).__name__}")
    lines.append("}")
    return "\n".join(lines)


def to_svg(x):
    """Returns a picture of an expression or a functor as SVG text.

    The Graphviz dot text of `kd.vis.to_dot` is rendered by Graphviz's `dot`
    program, which must be on the PATH: without it this raises RuntimeError.

    Args:
      x: an expression or a functor.

    Examples:
      >>> try:
      ...   svg = kd.vis.to_svg((I.a + I.b) * 2)
      ... except RuntimeError:  # Graphviz is not installed
      ...   svg = None
      >>> svg is None or svg.lstrip().startswith('<?xml') and '<svg' in svg
      True
    """
    dot = shutil.which("dot")
    if dot is None:
        raise RuntimeError("kd.vis.to_svg: Graphviz's `dot` program is not installed (apt install graphviz)")
    return subprocess.run([dot, "-Tsvg"], input=to_dot(x), capture_output=True, text=True, check=True).stdout
