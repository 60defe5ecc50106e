"""`kd.expr`, `kd.I`, `kd.V` and `kd.eval`: building, inspecting,
transforming and evaluating expressions (seed 000, "Expressions and
Operators"; seed 002 for tags and passes).

Expressions are immutable DAGs built in Rust (`plait-expr`); evaluation
prepares them (names dropped, lambda operators inlined, literal subtrees
folded) and runs a plan cached by fingerprint.
"""

import contextlib
import inspect
import threading
import types

from plait import _plait
from plait.kd import _operators

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
    """Returns a context manager inside which `kd` operators build expressions.

    Inside `with kd.expr.tracing():` a call such as `kd.add(I.x, 1)` returns
    an expression node instead of computing; lambda operators and functors
    are traced this way. `kd.expr.eager()` computes again inside it. The
    contexts nest.

    Examples:
      >>> with kd.expr.tracing():
      ...   e = kd.add(I.x, 1)
      >>> e
      I.x + DataItem(1, schema: INT32)
      >>> kd.eval(e, x=2)
      DataItem(3, schema: INT32)
    """
    _plait.tracing_enter()
    try:
        yield
    finally:
        _plait.tracing_exit()


@contextlib.contextmanager
def eager():
    """Returns a context manager inside which `kd` operators compute, even when tracing.

    It undoes `kd.expr.tracing()` for the nested block (for example to build
    a functor or a constant while another function is being traced);
    tracing resumes when the block ends.

    Examples:
      >>> with kd.expr.tracing():
      ...   with kd.expr.eager():
      ...     three = kd.add(1, 2)
      ...   e = kd.add(I.x, three)
      >>> three
      DataItem(3, schema: INT32)
      >>> e
      I.x + DataItem(3, schema: INT32)
    """
    depth = _plait.tracing_suspend()
    try:
        yield
    finally:
        _plait.tracing_resume(depth)


# Per thread, a counter per function being traced: the functors made from
# Python functions inside it are named `_aux_0`, `_aux_1`, ... (Koda's names).
_aux_counters = threading.local()


def _aux_variable(value):
    """`value` (a functor made from a Python function while tracing) as a
    named literal: the traced functor stores it as its variable `_aux_N`."""
    counters = getattr(_aux_counters, "stack", None)
    if not counters:
        return literal(value)
    n = counters[-1]
    counters[-1] += 1
    return _plait.expr_call("kd.annotation.with_name", literal(value), f"_aux_{n}")


def trace_function(fn, leaf):
    """Returns the expression `fn` builds when called with a leaf per parameter.

    `fn` is called once, inside `kd.expr.tracing()`, with `leaf(name)` for
    each of its parameters (`kd.I[name]` for functors, `P[name]` for lambda
    operators). A `*args` parameter gets one leaf that stands for a tuple and
    `**kwargs` one that stands for a named tuple. A parameter annotated with
    an extension type (`kd.extension_type`) gets its leaf cast to the type,
    seen through the type's attributes and methods. A result that is not an
    expression becomes a literal.

    Args:
      fn: a Python function.
      leaf: makes the expression that stands for a parameter, from its name.

    Examples:
      >>> kd.expr.trace_function(lambda x, y: kd.agg_sum(x) + y, lambda name: I[name])
      kd.math.agg_sum(I.x, unspecified) + I.y
      >>> e = kd.expr.trace_function(lambda *args: kd.tuples.get_nth(args, 1), lambda name: I[name])
      >>> kd.eval(e, args=(kd.item(1), kd.item(2)))
      DataItem(2, schema: INT32)
    """
    from plait.kd import extension_types

    args, kwargs, var_args, var_kwargs = [], {}, None, None
    for name, p in inspect.signature(fn).parameters.items():
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            args.append(extension_types._parameter_view(leaf(name), p.annotation))
        elif p.kind == p.VAR_POSITIONAL:
            var_args = leaf(name)
            args.append(var_args)
        elif p.kind == p.KEYWORD_ONLY:
            kwargs[name] = extension_types._parameter_view(leaf(name), p.annotation)
        else:
            var_kwargs = (name, leaf(name))
            kwargs[name] = var_kwargs[1]
    if not hasattr(_aux_counters, "stack"):
        _aux_counters.stack = []
    _aux_counters.stack.append(0)
    try:
        with tracing():
            body = as_expr(fn(*args, **kwargs))
    finally:
        _aux_counters.stack.pop()
    if var_args is not None:
        body = sub(body, _plait.expr_call("kd.tuples.tuple", var_args), var_args)
    if var_kwargs is not None:
        name, value = var_kwargs
        body = sub(body, _plait.expr_call("kd.tuples.namedtuple", **{name: value}), value)
    return body


def literal(value):
    """Returns an expression that holds `value` (a DataSlice, DataBag,
    JaggedShape or iterable) as a constant.

    Python values are not boxed here, as in Koda: box them first
    (`kd.expr.literal(kd.item(1))`), or use `kd.expr.as_expr`, which does.

    Args:
      value: a plait value.

    Examples:
      >>> kd.expr.literal(kd.item(1))
      DataItem(1, schema: INT32)
      >>> kd.expr.literal(kd.shapes.new(2))
      JaggedShape(2)
      >>> kd.expr.literal(1)
      Traceback (most recent call last):
      ...
      TypeError: `value` must be a QValue to be wrapped into a literal, got: int
    """
    from plait.kd import extension_types, iterables, qtypes, tuples

    if not isinstance(value, (_plait.DataSlice, _plait.DataBag, _plait.JaggedShape, iterables.Iterable, _plait.Object,
                              qtypes.QType, _plait.Slice, tuples.Tuple, tuples.NamedTuple, _operators.Unspecified)):
        kind = type(value)
        name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
        raise TypeError(f"`value` must be a QValue to be wrapped into a literal, got: {name}")
    return extension_types._view(_plait.expr_literal(value))


def as_expr(arg):
    """Returns `arg` if it is an expression, else a literal expression holding it.

    Args:
      arg: an expression or a value (DataSlice, Python scalar, ...).

    Examples:
      >>> kd.expr.as_expr(I.x + 1)
      I.x + DataItem(1, schema: INT32)
      >>> kd.expr.as_expr(5)
      DataItem(5, schema: INT32)
      >>> kd.expr.is_literal(kd.expr.as_expr(5))
      True
      >>> kd.expr.as_expr((I.x, 1))
      kd.tuples.tuple(I.x, DataItem(1, schema: INT32))
    """
    if isinstance(arg, Expr):
        return arg
    if isinstance(arg, tuple) and _holds_expr(arg):
        # A tuple (or named tuple) holding expressions, as a traced function
        # returning `x, y` gives: a tuple-making expression, as in Koda.
        return _plait.expr_call("kd.tuples.tuple", *(as_expr(item) for item in arg))
    if isinstance(arg, _plait.Object):
        from plait.kd import extension_types

        return extension_types._view(_plait.expr_literal(arg))
    if isinstance(arg, (types.FunctionType, types.MethodType)):
        # A Python function is traced into a functor, as Koda boxes it.
        from plait.kd import functor

        arg = functor.fn(arg)
    return _plait.expr_boxed_literal(arg)


def _holds_expr(items):
    """Whether the (nested) tuple `items` holds an expression; iterative, so
    no nesting depth reaches the native stack."""
    pending = [items]
    while pending:
        for item in pending.pop():
            if isinstance(item, Expr):
                return True
            if isinstance(item, tuple):
                pending.append(item)
    return False


def _check_expr(fn_name, expr):
    if not isinstance(expr, Expr):
        raise TypeError(f"kd.expr.{fn_name}: expected an Expr, got {type(expr).__name__}")


def is_literal(expr):
    """Returns True when `expr` is a literal node (a value inside an expression).

    Anything else, including a value that is not an expression, gives False.

    Args:
      expr: the expression to test.

    Examples:
      >>> kd.expr.is_literal(kd.expr.as_expr(1))
      True
      >>> kd.expr.is_literal(I.x + 1)
      False
    """
    return isinstance(expr, Expr) and expr._kind() == "literal"


def is_input(expr):
    """Returns True when `expr` is an input leaf such as `I.x`.

    Args:
      expr: the expression to test.

    Examples:
      >>> kd.expr.is_input(I.x)
      True
      >>> kd.expr.is_input(V.x)
      False
      >>> kd.expr.is_input(I.x + 1)
      False
    """
    return isinstance(expr, Expr) and expr._kind() == "input"


def is_variable(expr):
    """Returns True when `expr` is a variable leaf such as `V.x`.

    Args:
      expr: the expression to test.

    Examples:
      >>> kd.expr.is_variable(V.x)
      True
      >>> kd.expr.is_variable(I.x)
      False
    """
    return isinstance(expr, Expr) and expr._kind() == "variable"


def get_input_names(expr, container=I):
    """Returns the names of the inputs (`I.<name>`) used in `expr`, sorted;
    with `container` `V`, the names of its variables (`V.<name>`).

    Variables are not inputs; `S` is the input named 'self'.

    Args:
      expr: an expression.
      container: `I` (the default) or `V`: which leaves are listed.

    Examples:
      >>> kd.expr.get_input_names(I.b + I.a * V.c)
      ['a', 'b']
      >>> kd.expr.get_input_names(S.x + I.y)
      ['self', 'y']
      >>> kd.expr.get_input_names(I.b + I.a * V.c, V)
      ['c']
    """
    _check_expr("get_input_names", expr)
    if container is not I and container is not V:
        raise TypeError(f"kd.expr.get_input_names: `container` must be kd.I or kd.V, got {container!r}")
    return _plait.expr_input_names(expr, container is V)


def get_name(expr):
    """Returns the name given to `expr` with `with_name`, or None.

    Only the outermost node counts: an expression that merely contains a
    named part has no name.

    Args:
      expr: an expression.

    Examples:
      >>> kd.expr.get_name((I.x + 1).with_name('y'))
      'y'
      >>> print(kd.expr.get_name((I.x + 1).with_name('y') * 2))
      None
    """
    _check_expr("get_name", expr)
    return _plait.expr_get_name(expr)


_SOURCE_TAG_PREFIX = "📍 "


def _source_location(expr, function_name, file_name, line, column, line_text):
    """Returns `expr` annotated with where in the source code it was made.

    The annotation changes nothing about the value: an error while
    evaluating `expr` names `file_name:line` (as tracing does for every node
    it makes). A value (not an expression) is returned as it is.

    Args:
      expr: an expression.
      function_name: the function the expression was made in.
      file_name: the file of that function.
      line: the line number.
      column: the column number.
      line_text: the text of the line.

    Examples:
      >>> e = kd.lazy.annotation.source_location(I.x + 1, 'f', 'my_file.py', 3, 4, 'x + 1')
      >>> kd.eval(e, x=1)
      DataItem(2, schema: INT32)
    """
    for name, value, kind in (("function_name", function_name, str), ("file_name", file_name, str), ("line", line, int),
                              ("column", column, int), ("line_text", line_text, str)):
        if not isinstance(value, kind) or isinstance(value, bool):
            raise ValueError(f"`{name}` must be a {'TEXT' if kind is str else 'INT32'} literal")
    if not isinstance(expr, Expr):
        return expr
    tags = [t for t in expr.tags if not str(t).startswith(_SOURCE_TAG_PREFIX)]
    tags.append(_plait.slice(f"{_SOURCE_TAG_PREFIX}{file_name}:{line}", None))
    return expr._with_tags(tuple(tags))


_source_location.__name__ = _source_location.__qualname__ = "source_location"


def unwrap_named(expr):
    """Returns the expression inside a named one, without its name.

    Raises ValueError when `expr` has no name.

    Args:
      expr: an expression named with `with_name`.

    Examples:
      >>> kd.expr.unwrap_named((I.x + 1).with_name('y'))
      I.x + DataItem(1, schema: INT32)
      >>> kd.expr.unwrap_named(I.x + 1)
      Traceback (most recent call last):
      ...
      ValueError: trying to remove the name from a non-named Expr
    """
    _check_expr("unwrap_named", expr)
    if get_name(expr) is None:
        raise ValueError("trying to remove the name from a non-named Expr")
    return expr.node_deps[0]


def sub(expr, *subs):
    """Returns `expr` with subexpressions replaced.

    Call it as `sub(expr, old, new)` or `sub(expr, (old1, new1), (old2, new2),
    ...)`. Nodes are matched by fingerprint (equal structure), all pairs at
    once, from the root down: a replaced node is not searched further.
    Values that are not expressions become literals.

    Args:
      expr: an expression.
      *subs: one `old, new` pair, or several `(old, new)` tuples.

    Examples:
      >>> kd.expr.sub(I.x + I.y, I.x, I.z)
      I.z + I.y
      >>> kd.expr.sub((I.x + 1) * I.x, (I.x + 1, V.a), (I.x, 2))
      V.a * DataItem(2, schema: INT32)
    """
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
    """Returns `expr` with its named subexpressions replaced, by name.

    Names unknown to `expr` are ignored; values that are not expressions
    become literals.

    Args:
      expr: an expression.
      **subs: the replacement for each name given with `with_name`.

    Examples:
      >>> e = (I.x + 1).with_name('a') * 2
      >>> kd.expr.sub_by_name(e, a=I.y)
      I.y * DataItem(2, schema: INT32)
      >>> kd.expr.sub_by_name(e, a=3)
      DataItem(3, schema: INT32) * DataItem(2, schema: INT32)
    """
    _check_expr("sub_by_name", expr)
    return _plait.expr_sub_by_name(expr, subs)


def sub_inputs(expr, container=I, /, **subs):
    """Returns `expr` with its inputs (or, with `container` `V`, its
    variables) replaced, by name.

    Inputs not named keep their place; values that are not expressions
    become literals. `S` is the input named 'self'.

    Args:
      expr: an expression.
      container: `I` (the default) or `V`: which leaves are replaced.
      **subs: the replacement for each input name.

    Examples:
      >>> kd.expr.sub_inputs(I.x + I.y, x=I.z, y=1)
      I.z + DataItem(1, schema: INT32)
      >>> kd.expr.sub_inputs(I.x + I.y, x=V.v)
      V.v + I.y
      >>> kd.expr.sub_inputs(I.x + V.x, V, x=2)
      I.x + DataItem(2, schema: INT32)
    """
    _check_expr("sub_inputs", expr)
    if container is I:
        return _plait.expr_sub_inputs(expr, subs)
    if container is V:
        return sub(expr, *[(V[name], value) for name, value in subs.items()])
    raise TypeError(f"kd.expr.sub_inputs: `container` must be kd.I or kd.V, got {container!r}")


def pack_expr(expr):
    """Returns `expr` packed into a DataItem with schema EXPR.

    This is how functors keep their expressions as attributes;
    `kd.expr.unpack_expr` gives the expression back.

    Args:
      expr: an expression.

    Examples:
      >>> kd.expr.pack_expr(I.x + 1)
      DataItem(I.x + DataItem(1, schema: INT32), schema: EXPR)
    """
    _check_expr("pack_expr", expr)
    return _plait.expr_pack(expr)


def unpack_expr(ds):
    """Returns the expression held by an EXPR DataItem.

    Raises ValueError for anything but a present EXPR DataItem.

    Args:
      ds: a DataItem with schema EXPR (see `kd.expr.pack_expr`).

    Examples:
      >>> kd.expr.unpack_expr(kd.expr.pack_expr(I.x + 1))
      I.x + DataItem(1, schema: INT32)
      >>> kd.expr.unpack_expr(kd.item(1))
      Traceback (most recent call last):
      ...
      ValueError: only present EXPR DataItems can be unpacked
    """
    if not isinstance(ds, _plait.DataSlice):
        raise TypeError(f"kd.expr.unpack_expr: expected an EXPR DataItem, got {type(ds).__name__}")
    return _plait.expr_unpack(ds)


def is_packed_expr(ds):
    """Returns `kd.present` when `ds` is a present EXPR DataItem, else `kd.missing`.

    Args:
      ds: any value.

    Examples:
      >>> kd.expr.is_packed_expr(kd.expr.pack_expr(I.x + 1))
      DataItem(present, schema: MASK)
      >>> kd.expr.is_packed_expr(kd.item(1))
      DataItem(missing, schema: MASK)
      >>> kd.expr.is_packed_expr(I.x)
      DataItem(missing, schema: MASK)
    """
    from plait import kd

    ok = isinstance(ds, _plait.DataSlice) and ds.is_item() and str(ds.get_schema()) == "EXPR" and ds.get_present_count() == 1
    return kd.present if ok else kd.missing


def tagged(expr, *tags):
    """Returns `expr` with `tags` added to its root node.

    Tags are descriptive metadata: evaluation never reads them, and they are
    not part of the fingerprint, so a tagged expression still equals the
    untagged one. Tags already on the node are kept. Read them with
    `kd.expr.get_tags`.

    Args:
      expr: an expression.
      *tags: the tags to add (strings, for example).

    Examples:
      >>> e = kd.expr.tagged(I.x + 1, 'source: user')
      >>> kd.expr.get_tags(e)
      (DataItem('source: user', schema: STRING),)
      >>> e.fingerprint == (I.x + 1).fingerprint
      True
    """
    _check_expr("tagged", expr)
    return expr._with_tags(tuple(expr.tags) + tags)


def get_tags(expr):
    """Returns the tags of the root node of `expr`, as a tuple.

    Only the node itself counts, not its arguments (see `kd.expr.tagged`).

    Args:
      expr: an expression.

    Examples:
      >>> kd.expr.get_tags(kd.expr.tagged(kd.expr.tagged(I.x, 'a'), 'b'))
      (DataItem('a', schema: STRING), DataItem('b', schema: STRING))
      >>> kd.expr.get_tags(kd.expr.tagged(I.x, 'a') + 1)
      ()
    """
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
    """Returns every distinct node of `expr`, each one after its arguments.

    A node used several times is listed once; `expr` itself comes last.

    Args:
      expr: an expression.

    Examples:
      >>> kd.expr.post_order(I.x + I.y * 2)
      [I.x, I.y, DataItem(2, schema: INT32), I.y * DataItem(2, schema: INT32), I.x + I.y * DataItem(2, schema: INT32)]
      >>> kd.expr.post_order(I.x * I.x)
      [I.x, I.x * I.x]
    """
    _check_expr("post_order", expr)
    return _plait.expr_post_order(expr)


def prepare(expr):
    """Returns `expr` as evaluation runs it.

    Names are dropped, lambda operators are replaced by their bodies, and
    deterministic operators whose arguments are all literals are computed
    into literals. `kd.eval` does this itself; call it to see the result.

    Args:
      expr: an expression.

    Examples:
      >>> kd.expr.prepare((I.x + (kd.expr.as_expr(1) + 2)).with_name('y'))
      I.x + DataItem(3, schema: INT32)
    """
    _check_expr("prepare", expr)
    return _plait.expr_prepare(expr)


def eval(expr, self_input=_operators.unspecified, /, **input_values):  # noqa: A001 - Koda's name
    """Returns the value of `expr`, with its inputs given by name.

    `S` (the input named 'self') is given positionally; every other input
    `I.<name>` by keyword. Raises ValueError when an input is missing. A
    value that is not an expression is returned as it is.

    Args:
      expr: an expression.
      self_input: the value of `S` (optional; when not given, `S` is an
        entity saying so: `Entity(self_not_specified=present)`).
      **input_values: the value of each input, by name.

    Examples:
      >>> kd.eval(I.x + I.y, x=1, y=kd.slice([10, None]))
      DataSlice([11, None], schema: INT32, present: 1/2)
      >>> kd.eval(S.a * 2 + I.b, kd.new(a=3), b=1)
      DataItem(7, schema: INT32)
      >>> kd.eval(I.x + 1)
      Traceback (most recent call last):
      ...
      ValueError: kd.eval() has missing inputs for: [I.x]
    """
    if not isinstance(expr, Expr):  # a value evaluates to itself, boxed as Koda boxes it
        return expr if isinstance(expr, _plait.DataSlice) else _plait.item(expr, None)
    if "self" in input_values:
        raise ValueError("I.self must be passed as a positional argument to kd.eval()")
    if self_input is not _operators.unspecified:
        input_values = {"self": self_input, **input_values}
    return _plait.eval_expr(expr, input_values)


class NamedContainer:
    """A container that names the expressions put in it: `c.x = I.a + 1`
    stores `kd.with_name(I.a + 1, 'x')`, so a functor traced from it shows
    `x` as a variable. Other values are stored as they are, except while a
    function is traced: then they become named literals (`c.a = 2` is
    `kd.with_name(kd.expr.as_expr(2), 'a')`), variables of the functor too.

    Examples:
      >>> c = kd.named_container()
      >>> c.total = I.a + 1
      >>> kd.expr.get_name(c.total)
      'total'
      >>> c.limit = 5
      >>> c.limit
      5
    """

    def __setattr__(self, name, value):
        if not isinstance(value, Expr) and _plait.is_tracing():
            from plait.kd import optools

            # Tuples may hold expressions (as_expr makes them tuple
            # expressions); other values are boxed as operators box them.
            value = as_expr(value if isinstance(value, tuple) else optools.as_qvalue(value))
        if isinstance(value, Expr):
            value = _plait.expr_call("kd.annotation.with_name", value, name)
        object.__setattr__(self, name, value)


def named_container():
    """Returns a new `NamedContainer`: expressions assigned to its attributes
    are named after them (`kd.with_name`).

    Examples:
      >>> c = kd.named_container()
      >>> c.y = I.x * 2
      >>> c.y
      y = I.x * DataItem(2, schema: INT32)
      y
      >>> kd.expr.get_name(c.y)
      'y'
    """
    return NamedContainer()
