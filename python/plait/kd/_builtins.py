"""The builtin operators of the expression engine as `kd` functions.

`kd.if_`, `kd.map`, `kd.while_`, `kd.for_`, `kd.functor.reduce`, `kd.call`,
`kd.iterables.*` and `kd.tuples.*` are computed in Rust
(`crates/plait-expr/src/builtins/`), where their signatures and docstrings
live. Each gets three forms, all the same registry entry:
* lazy (`kd.lazy.X`): builds an expression node;
* eager (`kd.eager.X`): computes now;
* `kd.X`: computes, except inside tracing, where it builds.

The only Python here is boxing: a Python function given to one of them
becomes a functor (traced once, as Koda does); inside tracing it is stored
as a variable `_aux_N` of the functor being traced.
"""

import functools
import types

from plait import _plait
from plait.kd import optools

# Builtin operators by canonical name.
OPERATORS = {op.name: optools._with_python_face(op) for op in _plait.builtin_operators()}


def _is_function(x):
    return isinstance(x, (types.FunctionType, functools.partial))


def _traced(f):
    from plait.kd.functor import trace_py_fn

    return trace_py_fn(f)


def _unwrapped(x):
    """A function transformed by `kd.compile` is given to control flow as
    the function or functor it wraps (traced once, as any function)."""
    return getattr(x, "__plait_fn__", x)


def _box_eager(x):
    x = _unwrapped(x)
    return _traced(x) if _is_function(x) else x


def _box_lazy(x):
    x = _unwrapped(x)
    if not _is_function(x):
        return x
    from plait.kd import expr

    return expr._aux_variable(_traced(x))


# Builtins that test or take functors as they are: a Python function given
# to them stays a Python value (`kd.is_fn(lambda: 1)` is missing, as Koda's).
_NO_BOXING = {"kd.functor.bind", "kd.functor.is_fn", "kd.functor.has_fn", "kd.bind", "kd.is_fn", "kd.has_fn"}


def _forms(op):
    """(lazy, eager, kd) forms of builtin operator `op`."""
    if op.name in _NO_BOXING:
        return _unboxed_forms(op)

    def eager(*args, **kwargs):
        return op._eval(*[_box_eager(a) for a in args], **{k: _box_eager(v) for k, v in kwargs.items()})

    def follow_tracing(*args, **kwargs):
        if _plait.is_tracing():
            return op(*[_box_lazy(a) for a in args], **{k: _box_lazy(v) for k, v in kwargs.items()})
        return eager(*args, **kwargs)

    return _named_forms(op, eager, follow_tracing)


def _bound(x):
    """A value `kd.functor.bind` binds: an expression is computed at each
    call of the bound functor from that call's arguments, as Koda's (a
    functor of it, called with them); anything else as it is."""
    from plait import kd

    if not isinstance(x, kd.expr.Expr):
        return x
    lazy = kd.lazy
    call = lazy.functor._call_bound(kd.fn(x), lazy.tuples.tuple(), lazy.tuples.namedtuple(), kd.I.args, kd.I.kwargs)
    return kd.expr.pack_expr(call)


def _unboxed_forms(op):
    def eager(*args, **kwargs):
        if op.name.endswith("is_fn") and len(args) == 1 and not kwargs and not isinstance(args[0], _plait.DataSlice):
            # Anything that is not a plait value (a Python function, an
            # Expr) is not a functor.
            from plait import kd

            return kd.missing
        if op.name.endswith("bind") and args:
            args = (args[0], *(_bound(a) for a in args[1:]))
            kwargs = {k: v if k == "return_type_as" else _bound(v) for k, v in kwargs.items()}
        return op._eval(*args, **kwargs)

    def follow_tracing(*args, **kwargs):
        return op(*args, **kwargs) if _plait.is_tracing() else eager(*args, **kwargs)

    return _named_forms(op, eager, follow_tracing)


def _named_forms(op, eager, follow_tracing):
    for f in (eager, follow_tracing):
        f.__signature__ = op.__signature__
        f.__doc__ = op.__doc__
        f.__name__ = f.__qualname__ = op.__name__
        f.__module__ = "plait.kd"
    follow_tracing.__wrapped_eager__ = eager
    follow_tracing._builtin_operator = eager._builtin_operator = op
    return op, eager, follow_tracing


FORMS = {name: _forms(op) for name, op in OPERATORS.items()}


def forms_of(fn):
    """The (lazy, eager, kd) forms of `fn` when it is the `kd` form of a
    builtin operator, else None."""
    op = getattr(fn, "_builtin_operator", None)
    return None if op is None else FORMS[op.name]


def export(namespace, prefix):
    """Puts the builtin operators named `prefix.<name>` into `namespace`
    (a module's `globals()`) as `<name>`, in their `kd` form."""
    for name, forms in FORMS.items():
        head, _, short = name.rpartition(".")
        if head == prefix:
            namespace[short] = forms[2]


def export_aliases(namespace, prefix="kd"):
    """Puts the builtin operators having an alias `prefix.<name>` into
    `namespace` as `<name>`, in their `kd` form."""
    for op in OPERATORS.values():
        for alias in op.aliases:
            head, _, short = alias.rpartition(".")
            if head == prefix:
                FORMS.setdefault(alias, _forms(optools._with_python_face(_plait.registry_lookup(alias))))
                namespace[short] = FORMS[alias][2]
