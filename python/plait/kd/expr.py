"""`kd.expr`, `kd.I`, `kd.V` and `kd.eval`: building, inspecting,
transforming and evaluating expressions (seed 000, "Expressions and
Operators"; seed 002 for tags and passes).

Expressions are immutable DAGs built in Rust (`plait-expr`); evaluation
prepares them (names dropped, lambda operators inlined, literal subtrees
folded) and runs a plan cached by fingerprint.
"""

import contextlib
import inspect

from plait import _plait

Expr = _plait.Expr
ExprOperator = _plait.ExprOperator


class _Leaves:
    """`kd.I` / `kd.V`: `kd.I.x` is the input named `x`."""

    def __init__(self, make, prefix):
        self._make = make
        self._prefix = prefix

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return self._make(name)

    def __getitem__(self, name):
        return self._make(name)

    def __repr__(self):
        return self._prefix


I = _Leaves(_plait.expr_input, "I")
V = _Leaves(_plait.expr_variable, "V")
# `kd.S` is `I.self`: the value `kd.eval(expr, value)` is given positionally.
S = _plait.expr_input("self")
# Placeholders of lambda operator bodies (`P.x`).
P = _Leaves(_plait.expr_placeholder, "P")


@contextlib.contextmanager
def tracing():
    """Inside, `kd.<op>(...)` builds an expression instead of computing
    (used to trace lambda operator bodies and functors)."""
    _plait.tracing_enter()
    try:
        yield
    finally:
        _plait.tracing_exit()


@contextlib.contextmanager
def eager():
    """Inside, `kd.<op>(...)` computes even when tracing is on (building a
    functor while tracing another)."""
    depth = _plait.tracing_suspend()
    try:
        yield
    finally:
        _plait.tracing_resume(depth)


def trace_function(fn, leaf):
    """The expression `fn` builds when called once, in tracing mode, with
    `leaf(name)` for each parameter (`kd.I[name]` for functors, `P[name]`
    for lambda operators). Python packs `*args` into `(leaf,)` and
    `**kwargs` into `{name: leaf}`; those become the leaf itself (a tuple,
    a named tuple at evaluation)."""
    args, kwargs, var_args, var_kwargs = [], {}, None, None
    for name, p in inspect.signature(fn).parameters.items():
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            args.append(leaf(name))
        elif p.kind == p.VAR_POSITIONAL:
            var_args = leaf(name)
            args.append(var_args)
        elif p.kind == p.KEYWORD_ONLY:
            kwargs[name] = leaf(name)
        else:
            var_kwargs = (name, leaf(name))
            kwargs[name] = var_kwargs[1]
    with tracing():
        body = as_expr(fn(*args, **kwargs))
    if var_args is not None:
        body = sub(body, _plait.expr_call("kd.tuples.tuple", var_args), var_args)
    if var_kwargs is not None:
        name, value = var_kwargs
        body = sub(body, _plait.expr_call("kd.tuples.namedtuple", **{name: value}), value)
    return body


def literal(value):
    """An expression holding `value`.

    >>> kd.expr.literal(1)
    DataItem(1, schema: INT32)
    """
    return _plait.expr_literal(value)


def as_expr(arg):
    """`arg` if it is an expression, else a literal holding it."""
    return arg if isinstance(arg, Expr) else literal(arg)


def _check_expr(fn_name, expr):
    if not isinstance(expr, Expr):
        raise TypeError(f"kd.expr.{fn_name}: expected an Expr, got {type(expr).__name__}")


def is_literal(expr):
    """Whether `expr` is a literal node."""
    return isinstance(expr, Expr) and expr._kind() == "literal"


def is_input(expr):
    """Whether `expr` is an input (`I.x`)."""
    return isinstance(expr, Expr) and expr._kind() == "input"


def is_variable(expr):
    """Whether `expr` is a variable (`V.x`)."""
    return isinstance(expr, Expr) and expr._kind() == "variable"


def get_input_names(expr):
    """The names of the inputs (`I.x`) of `expr`, sorted."""
    _check_expr("get_input_names", expr)
    return _plait.expr_input_names(expr)


def get_name(expr):
    """The name given to `expr` by `kd.with_name`, or None."""
    _check_expr("get_name", expr)
    return _plait.expr_get_name(expr)


def unwrap_named(expr):
    """The expression a name was given to (`kd.with_name`)."""
    _check_expr("unwrap_named", expr)
    if get_name(expr) is None:
        raise ValueError("trying to remove the name from a non-named Expr")
    return expr.node_deps[0]


def sub(expr, *subs):
    """`expr` with subexpressions replaced: `sub(expr, (old, new), ...)` or
    `sub(expr, old, new)`. Nodes are matched by fingerprint."""
    _check_expr("sub", expr)
    if len(subs) == 2 and isinstance(subs[0], Expr):
        subs = (subs,)
    pairs = []
    for pair in subs:
        old, new = pair
        _check_expr("sub", old)
        pairs.append((old, new))
    return _plait.expr_sub(expr, pairs)


def sub_by_name(expr, /, **subs):
    """`expr` with the subexpressions named by `kd.with_name` replaced."""
    _check_expr("sub_by_name", expr)
    return _plait.expr_sub_by_name(expr, subs)


def sub_inputs(expr, /, **subs):
    """`expr` with inputs replaced (`sub_inputs(e, a=I.b, c=1)`)."""
    _check_expr("sub_inputs", expr)
    return _plait.expr_sub_inputs(expr, subs)


def pack_expr(expr):
    """`expr` as an EXPR DataItem (how functors keep expressions)."""
    _check_expr("pack_expr", expr)
    return _plait.expr_pack(expr)


def unpack_expr(ds):
    """The expression in an EXPR DataItem."""
    if not isinstance(ds, _plait.DataSlice):
        raise TypeError(f"kd.expr.unpack_expr: expected an EXPR DataItem, got {type(ds).__name__}")
    return _plait.expr_unpack(ds)


def is_packed_expr(ds):
    """`kd.present` if `ds` is an EXPR DataItem holding an expression."""
    from plait import kd

    ok = isinstance(ds, _plait.DataSlice) and ds.is_item() and str(ds.get_schema()) == "EXPR" and ds.get_present_count() == 1
    return kd.present if ok else kd.missing


def tagged(expr, *tags):
    """`expr` with `tags` added: descriptive metadata that no evaluation
    reads and that stays out of the fingerprint (seed 002)."""
    _check_expr("tagged", expr)
    return expr._with_tags(tuple(expr.tags) + tags)


def get_tags(expr):
    """The tags of the node `expr` (see `tagged`)."""
    _check_expr("get_tags", expr)
    return tuple(expr.tags)


def transform(expr, fn):
    """A bottom-up pass: `fn(node)` is called once for each distinct node,
    after its arguments, with the arguments already transformed; what it
    returns replaces the node. Subgraphs `fn` leaves alone stay the same
    nodes, so a pass that changes nothing returns `expr` itself.

    >>> kd.expr.transform(I.a + I.b, lambda n: I[n.leaf_name + '2'] if kd.expr.is_input(n) else n)
    I.a2 + I.b2
    """
    _check_expr("transform", expr)
    return _plait.expr_transform(expr, fn)


def post_order(expr):
    """Every distinct node of `expr`, each after its arguments."""
    _check_expr("post_order", expr)
    return _plait.expr_post_order(expr)


def prepare(expr):
    """`expr` as evaluation runs it: names dropped, lambda operators
    inlined, deterministic operators on literals folded into literals."""
    _check_expr("prepare", expr)
    return _plait.expr_prepare(expr)


def eval(expr, self_input=None, /, **inputs):  # noqa: A001 - Koda's name
    """The value of `expr` with the inputs given by name (and `S`, that is
    `I.self`, given positionally); a value that is not an expression
    evaluates to itself."""
    if not isinstance(expr, Expr):
        return expr
    if self_input is not None:
        inputs = {"self": self_input, **inputs}
    return _plait.eval_expr(expr, inputs)

