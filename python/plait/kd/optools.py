"""`kd.optools`: defining operators (seed 000, "Operators").

* `as_lambda_operator(name)` — the decorated function is traced once, with
  placeholders `P.<param>` for its parameters, into the operator's body;
  evaluation inlines the body (lowering).
* `as_py_function_operator(name)` — the decorated Python function is called
  at evaluation with the argument values.
* `as_backend_operator(name)` — declares an operator over a Rust kernel of
  the registry (the decorated function gives the signature and doc only).
* `add_to_registry(name=None, aliases=())` — registers an operator by name
  so that `kd.optools.make_operators_container` and the text of
  expressions find it.
"""

import functools
import inspect
import random
import types

from plait import _plait
from plait.kd import expr as _expr
from plait.kd._operators import unspecified


def _param_spec(fn, python_defaults=False):
    """`(name, kind, default_kind, default)` for each parameter of `fn`.
    With `python_defaults`, parameters with a default are left unspecified,
    so that calling `fn` applies its own (Python) defaults."""
    spec = []
    for p in inspect.signature(fn).parameters.values():
        if p.default is inspect.Parameter.empty:
            spec.append((p.name, p.kind.name, "required", None))
        elif p.default is unspecified or python_defaults:
            spec.append((p.name, p.kind.name, "unspecified", None))
        else:
            spec.append((p.name, p.kind.name, "value", p.default))
    return spec


def _with_python_face(op, fn=None):
    """Gives `op` a Python signature and doc (for `help` and `inspect`)."""
    op.__signature__ = _signature(op)
    op.__doc__ = op.doc or (fn.__doc__ if fn is not None else None)
    op.__name__ = op.name.rsplit(".", 1)[-1]
    return op


def _signature(op):
    params = []
    for name, kind, has_default, default in op.parameters():
        kind = getattr(inspect.Parameter, kind)
        if has_default:
            params.append(inspect.Parameter(name, kind, default=unspecified if default is None else default))
        else:
            params.append(inspect.Parameter(name, kind))
    return inspect.Signature(params)


def _name_of(name, fn):
    return name if name is not None else fn.__name__


def _finish(op, fn, qtype_constraints, py_objects):
    """`op` with a Python face, and its binding when it has constraints or
    boxing rules (or takes Python functions)."""
    op = _with_python_face(op, fn)
    _hook(op, _Binding(qtype_constraints or (), py_objects))
    return op


def as_lambda_operator(name, *, qtype_constraints=(), deterministic=None, custom_boxing_fn_name_per_parameter=None,
                       experimental_aux_policy=None, doc=None, **_options):
    """A decorator making a lambda operator of a function: the function is
    called once, in tracing mode, with `P.<param>` for each parameter (a
    tuple for `*args`), and what it returns is the body.

    >>> @kd.optools.as_lambda_operator('my_add')
    ... def my_add(x, y):
    ...   return x + y * 2
    >>> kd.eval(my_add(I.a, 3), a=1)
    DataItem(7, schema: INT32)
    """

    del deterministic  # plait finds out: operators it wraps that are not deterministic are never folded

    def decorate(fn):
        op_name = _name_of(name, fn)
        py_objects = _boxing(op_name, fn, custom_boxing_fn_name_per_parameter, experimental_aux_policy)
        body = _expr.trace_function(fn, lambda name: _expr.P[name])
        spec = _param_spec(fn)
        binding = _Binding(qtype_constraints or (), py_objects)
        if binding.constraints:
            body = _constrained_body(op_name, spec, binding, body)
        op = _plait.make_lambda_operator(op_name, spec, doc or fn.__doc__ or "", body)
        return _finish(op, fn, qtype_constraints, py_objects)

    return decorate


def as_py_function_operator(name, *, qtype_constraints=(), deterministic=True, custom_boxing_fn_name_per_parameter=None,
                            experimental_aux_policy=None, doc=None, **_options):
    """Returns a decorator making an operator that calls a Python function.

    The operator builds expression nodes; at evaluation the decorated
    function is called with the values of the arguments (DataSlices, or
    whatever the argument expressions compute) and its result is the value.
    The operator is not registered (see `kd.optools.add_to_registry`). Other
    Koda options are accepted and ignored.

    Args:
      name: the operator's name, shown in expressions.
      deterministic: False keeps calls on literal arguments from being
        computed ahead of evaluation, so the function runs at each evaluation.
      doc: the operator's docstring (the function's own when unspecified).

    Examples:
      >>> @kd.optools.as_py_function_operator('doc_example.py_double')
      ... def double(x):
      ...   return x * 2
      >>> double(I.a)
      doc_example.py_double(I.a)
      >>> kd.eval(double(I.a), a=kd.slice([1, 2]))
      DataSlice([2, 4], schema: INT32, present: 2/2)
    """

    def decorate(fn):
        op_name = _name_of(name, fn)
        py_objects = _boxing(op_name, fn, custom_boxing_fn_name_per_parameter, experimental_aux_policy)
        binding = _Binding(qtype_constraints or (), py_objects)
        call = fn
        if binding.constraints:
            sig = inspect.signature(fn)

            @functools.wraps(fn)
            def call(*args, **kwargs):
                bound = sig.bind(*args, **kwargs)
                bound.apply_defaults()
                binding.check({n: _unspecified_qtype() if v is None else _qtype_of(v, n in py_objects)
                               for n, v in bound.arguments.items()})
                return fn(*args, **kwargs)

        op = _plait.make_py_function_operator(op_name, _param_spec(fn), doc or fn.__doc__ or "", call, deterministic)
        return _finish(op, fn, qtype_constraints, py_objects)

    return decorate


def as_backend_operator(name, *, kernel=None, qtype_constraints=(), doc=None, **_options):
    """Returns a decorator declaring an operator over a kernel of plait's registry.

    The decorated function only gives the parameters and the docstring; its
    body never runs. At evaluation the Rust kernel registered as `kernel`
    (by default `name`) computes the result. Raises ValueError when no such
    kernel exists. Other Koda options are accepted and ignored.

    Args:
      name: the operator's name.
      kernel: the name of the Rust kernel, when it differs from `name`.
      doc: the operator's docstring (the function's own when unspecified).

    Examples:
      >>> @kd.optools.as_backend_operator('kd.math.subtract')
      ... def minus(x, y):
      ...   '''Returns x minus y.'''
      >>> kd.eval(minus(I.a, 1), a=5)
      DataItem(4, schema: INT32)
    """

    def decorate(fn):
        op_name = _name_of(name, fn)
        spec = _param_spec(fn)
        op = _plait.make_backend_operator(op_name, kernel or name, spec, doc or fn.__doc__ or "")
        binding = _Binding(qtype_constraints or ())
        if binding.constraints:
            # Checked at evaluation too: the kernel, behind a lambda that checks.
            inner = _with_python_face(op, fn)
            body = _constrained_body(op_name, spec, binding, inner(*[_expr.P[p[0]] for p in spec]))
            op = _plait.make_lambda_operator(op_name, spec, doc or fn.__doc__ or "", body)
        return _finish(op, fn, qtype_constraints, ())

    return decorate


def add_to_registry(name=None, *, aliases=(), unsafe_override=False, **_options):
    """Returns a decorator that registers an operator by name.

    The operator is registered under `name` (its own name when unspecified)
    and under each of `aliases`, so that `kd.optools.make_operators_container`
    finds it; the decorator returns the registered operator. Registering a
    name that is taken raises ValueError unless `unsafe_override` is True.
    Other Koda options are accepted and ignored.

    Args:
      name: the name to register (the operator's own name when None).
      aliases: more names for the same operator.
      unsafe_override: whether to replace an operator already registered.

    Examples:
      >>> @kd.optools.add_to_registry(aliases=['doc_example.thrice'])
      ... @kd.optools.as_lambda_operator('doc_example.triple')
      ... def triple(x):
      ...   return x * 3
      >>> kd.eval(triple(I.a), a=2)
      DataItem(6, schema: INT32)
      >>> ops = kd.optools.make_operators_container('doc_example')
      >>> kd.eval(ops.doc_example.thrice(I.a), a=2)
      DataItem(6, schema: INT32)
    """

    def decorate(op):
        if not isinstance(op, _expr.ExprOperator):
            raise TypeError(f"kd.optools.add_to_registry: expected an operator, got {type(op).__name__}")
        registered = _with_python_face(_plait.registry_add(name or op.name, op, unsafe_override), op)
        binding = _HOOKS.get(op.fingerprint)
        if binding is not None:
            _HOOKS[registered.fingerprint] = binding
        for alias in aliases:
            added = _plait.registry_add(alias, op, unsafe_override)
            if binding is not None:
                _HOOKS[added.fingerprint] = binding
        return registered

    return decorate


def add_alias(name, alias, via_cc_operator_package=False):
    """Registers the operator registered as `name` under `alias` as well.

    Raises LookupError when no operator is registered as `name`.

    Args:
      name: the full name of a registered operator.
      alias: the additional name.
      via_cc_operator_package: Koda's option for registering from C++
        operator packages; plait registers in one registry either way.

    Examples:
      >>> kd.optools.add_alias('kd.math.add', 'doc_example.plus')
      >>> ops = kd.optools.make_operators_container('doc_example')
      >>> kd.eval(ops.doc_example.plus(I.a, 1), a=2)
      DataItem(3, schema: INT32)
    """
    del via_cc_operator_package  # one registry: nothing to choose
    op = _plait.registry_lookup(name)
    if op is None:
        raise ValueError(f"kd.optools.add_alias: operator {name} is not registered")
    _plait.registry_add(alias, op, False)


class _Container:
    """Registered operators by dotted name (`container.kd.math.add`), limited
    to the operators of the container's namespaces (as Koda's are)."""

    def __init__(self, prefix, namespaces):
        self._prefix = prefix
        self._namespaces = namespaces

    def _full(self, name):
        return f"{self._prefix}.{name}" if self._prefix else name

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        full = self._full(name)
        if full.rpartition(".")[0] in self._namespaces:
            op = _plait.registry_lookup(full)
            if op is not None:
                return _with_python_face(op)
        if any(ns == full or ns.startswith(full + ".") for ns in self._namespaces):
            return _Container(full, self._namespaces)
        raise AttributeError(f"'{full}' is not present in container")

    def __dir__(self):
        """The operators and namespaces reachable one level down."""
        names = set()
        prefix = self._full("")
        if self._prefix in self._namespaces:
            names.update(n[len(prefix):] for n in _plait.registry_names() if n.startswith(prefix) and "." not in n[len(prefix):])
        for ns in self._namespaces:
            if ns.startswith(prefix) and ns != self._prefix:
                names.add(ns[len(prefix):].split(".")[0])
        return sorted(names)

    def __repr__(self):
        return f"OperatorsContainer({self._prefix!r})"


def make_operators_container(*namespaces):
    """Returns a container to reach registered operators by their dotted names.

    `container.kd.math.add` is the operator registered as 'kd.math.add'. The
    operators directly in one of `namespaces` are reachable (`'kd'` reaches
    `kd.add`, not `kd.math.add`); any other name raises AttributeError.

    Args:
      *namespaces: the namespaces to reach (for example 'kd.math').

    Examples:
      >>> ops = kd.optools.make_operators_container('kd.math')
      >>> kd.eval(ops.kd.math.add(I.x, 1), x=2)
      DataItem(3, schema: INT32)
      >>> ops.kd.strings.length
      Traceback (most recent call last):
      ...
      AttributeError: 'kd.strings' is not present in container
    """
    return _Container("", frozenset(namespaces))


# ---------------------------------------------------------------- boxing

#: The boxing policy that keeps a Python function given as an argument a
#: Python object (by default, as in Koda, a Python function given to an
#: operator made here becomes a functor). Name it per parameter:
#: `custom_boxing_fn_name_per_parameter={'fn': WITH_PY_FUNCTION_TO_PY_OBJECT}`.
WITH_PY_FUNCTION_TO_PY_OBJECT = "as_qvalue_or_expr_with_py_function_to_py_object_support"

_POLICIES = ("koladata_default_boxing", WITH_PY_FUNCTION_TO_PY_OBJECT)


def _is_py_function(x):
    return isinstance(x, (types.FunctionType, types.BuiltinFunctionType, types.MethodType, functools.partial))


def _unsupported(x):
    kind = type(x)
    name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
    return ValueError(f"object with unsupported type: {name}")


def as_qvalue(arg):
    """Returns `arg` boxed as a value, as operators box their arguments.

    Python scalars become DataItems, tuples tuples of boxed values, Python
    functions functors; DataSlices, DataBags, JaggedShapes and QTypes stay
    as they are. A Python list is ambiguous (a slice or a Koda list?) and an
    expression is not a value: both raise ValueError.

    Args:
      arg: a Python value.

    Examples:
      >>> kd.optools.as_qvalue(1)
      DataItem(1, schema: INT32)
      >>> kd.optools.as_qvalue((1, 'a'))
      (DataItem(1, schema: INT32), DataItem('a', schema: STRING))
      >>> kd.optools.as_qvalue(I.x)
      Traceback (most recent call last):
      ...
      ValueError: failed to construct a QValue from the provided input containing an Expr: I.x
    """
    from plait.kd import functor, iterables, py, qtypes, tuples

    if isinstance(arg, _expr.Expr):
        raise ValueError(f"failed to construct a QValue from the provided input containing an Expr: {arg!r}")
    # (A `kd.py_reference` is Koda's PY_OBJECT value, passed as it is.)
    if isinstance(arg, (_plait.DataSlice, _plait.DataBag, _plait.JaggedShape, qtypes.QType, iterables.Iterable,
                        tuples.NamedTuple, _plait.Object, py.PyObject)):
        return arg
    if isinstance(arg, list):
        raise ValueError(_plait.AMBIGUOUS_LIST)
    if isinstance(arg, tuple):
        return tuple(as_qvalue(x) for x in arg)
    if arg is None or isinstance(arg, (bool, int, float, str, bytes)):
        return _plait.item(arg, None)
    if isinstance(arg, slice) or arg is Ellipsis:
        return arg
    if _is_py_function(arg):
        return functor.fn(arg)
    if isinstance(arg, _expr.ExprOperator):
        return arg
    raise _unsupported(arg)


def as_qvalue_or_expr(arg):
    """Returns `arg` as an expression when it holds one, else boxed as a value.

    An expression is returned as it is; a tuple holding an expression becomes
    a `kd.tuples.tuple` expression (and a Python slice with an expression
    bound a `kd.tuples.slice` one); anything else is boxed by
    `kd.optools.as_qvalue`.

    Args:
      arg: an expression or a Python value.

    Examples:
      >>> kd.optools.as_qvalue_or_expr(I.x)
      I.x
      >>> kd.optools.as_qvalue_or_expr((I.x, 1))
      kd.tuples.tuple(I.x, DataItem(1, schema: INT32))
      >>> kd.optools.as_qvalue_or_expr(5)
      DataItem(5, schema: INT32)
    """
    if isinstance(arg, _expr.Expr):
        return arg
    if isinstance(arg, tuple) and not hasattr(arg, "_fields"):
        items = [as_qvalue_or_expr(x) for x in arg]
        if any(isinstance(x, _expr.Expr) for x in items):
            return _plait.expr_call("kd.tuples.tuple", *items)
        return tuple(items)
    if isinstance(arg, slice):
        bounds = [as_qvalue_or_expr(b) if b is not None else None for b in (arg.start, arg.stop, arg.step)]
        if any(isinstance(b, _expr.Expr) for b in bounds):
            return _plait.expr_call("kd.tuples.slice", *bounds)
        return arg
    if isinstance(arg, dict):
        raise _unsupported(arg)
    return as_qvalue(arg)


# ---------------------------------------------------------------- equivalence


def _decay(op):
    if isinstance(op, str):
        found = _plait.registry_lookup(op)
        if found is None:
            raise LookupError(f"arolla.abc.decay_registered_operator() operator not found: {op!r}")
        return found
    if isinstance(op, _expr.ExprOperator):
        return op
    if isinstance(op, eager.EagerOperator):
        return op.lazy_op
    raise TypeError(f"arolla.abc.decay_registered_operator() expected Operator|str, got op: {type(op).__name__}")


def equiv_to_op(this_op, that_op):
    """Returns True iff the two operators compute the same.

    Each is an operator or the name it is registered under; an operator
    equals its aliases (`kd.agg_sum` is `kd.math.agg_sum`). Raises
    LookupError for a name no operator is registered as.

    Args:
      this_op: an operator or a registered name.
      that_op: an operator or a registered name.

    Examples:
      >>> kd.optools.equiv_to_op('kd.agg_sum', 'kd.math.agg_sum')
      True
      >>> kd.optools.equiv_to_op('kd.math.add', 'kd.math.subtract')
      False
    """
    return _decay(this_op)._impl_id == _decay(that_op)._impl_id


# ---------------------------------------------------------------- qtypes of arguments


def _qtypes():
    from plait.kd import qtypes

    return qtypes


class _FieldsQType:
    """The QType of a tuple (`tuple<DATA_SLICE,DATA_BAG>`) or named tuple
    (`namedtuple<a=DATA_SLICE>`), with the QTypes of its fields."""

    __slots__ = ("name", "fields", "names")

    def __init__(self, fields, names=None):
        self.fields = tuple(fields)
        self.names = names
        if names is None:
            self.name = "tuple<" + ",".join(f.name for f in self.fields) + ">"
        else:
            self.name = "namedtuple<" + ",".join(f"{n}={f.name}" for n, f in zip(names, self.fields)) + ">"

    def __eq__(self, other):
        return getattr(other, "name", None) == self.name

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return self.name


_UNSPECIFIED = None  # the QType of an unspecified argument (made on first use)


def _unspecified_qtype():
    global _UNSPECIFIED
    if _UNSPECIFIED is None:
        _UNSPECIFIED = _qtypes().QType("UNSPECIFIED")
    return _UNSPECIFIED


def _qtype_of(value, py_object=False):
    """The QType `value` has as an operator's argument (None when it holds an
    expression, so that it is known at evaluation only)."""
    from plait.kd import tuples

    qtypes = _qtypes()
    if value is unspecified:
        return _unspecified_qtype()
    if isinstance(value, _expr.Expr):
        return None
    if isinstance(value, tuples.NamedTuple):
        fields = [_qtype_of(v) for v in value.values()]
        return None if None in fields else _FieldsQType(fields, list(value.keys()))
    if isinstance(value, tuple):
        fields = [_qtype_of(v) for v in value]
        return None if None in fields else _FieldsQType(fields)
    if isinstance(value, dict):
        fields = [_qtype_of(v) for v in value.values()]
        return None if None in fields else _FieldsQType(fields, list(value))
    if isinstance(value, qtypes.QType):
        return qtypes.QTYPE
    if _is_py_function(value):
        return qtypes.QType("PY_OBJECT") if py_object else qtypes.DATA_SLICE
    qtype = getattr(value, "qtype", None)
    if isinstance(qtype, qtypes.QType):
        return qtype
    return qtypes.DATA_SLICE


def _bound_qtypes(op, args, kwargs, py_objects=()):
    """`{param: QType}` for a call of `op`, by the parameters of its
    signature (unspecified ones UNSPECIFIED); None for an argument that is an
    expression. Raises TypeError as Python does for a call that does not bind."""
    sig = _signature(op)
    bound = sig.bind(*args, **kwargs)
    out = {}
    for name, p in sig.parameters.items():
        if name in bound.arguments:
            value = bound.arguments[name]
        elif p.kind == p.VAR_POSITIONAL:
            value = ()
        elif p.kind == p.VAR_KEYWORD:
            value = {}
        else:
            value = p.default if p.default is not inspect.Parameter.empty else unspecified
        out[name] = _qtype_of(value, name in py_objects)
    return out


def _values_qtypes(names, values):
    """`{param: QType}` of the values an operator is called with at evaluation."""
    out = {}
    for name, value in zip(names, values):
        out[name] = _unspecified_qtype() if value is None else _qtype_of(value)
    return out


# ---------------------------------------------------------------- conditions


class _Condition:
    """A predicate on the QTypes of an operator's arguments, printed as Koda
    prints its condition expression."""

    __slots__ = ("_text", "_test", "params")

    def __init__(self, text, test, params):
        self._text = text
        self._test = test
        self.params = params

    def __call__(self, qtypes):
        return self._test(qtypes)

    def __repr__(self):
        return self._text


def _param_name(placeholder):
    if not (isinstance(placeholder, _expr.Expr) and placeholder._kind() == "placeholder"):
        raise TypeError(f"kd.optools.constraints: expected a placeholder such as P.x, got {placeholder!r}")
    return placeholder.leaf_name


def _check_condition(cond, qtypes):
    """Whether condition `cond` holds for `qtypes` (`{param: QType}`): a
    `_Condition`, a Python predicate called with the QTypes of the
    parameters it names, or an expression over `P.<param>` and QTypes built
    with `==`, `!=`, `&`, `|` and `~`."""
    if isinstance(cond, _Condition):
        return cond(qtypes)
    if isinstance(cond, _expr.Expr):
        return _interpret(cond, qtypes)
    if callable(cond):
        names = [n for n in inspect.signature(cond).parameters]
        return bool(cond(**{n: qtypes.get(n) for n in names}))
    raise TypeError(f"kd.optools: a condition must be an expression over P or a Python predicate, got {cond!r}")


_CONNECTIVES = {
    "kd.comparison.equal": lambda a, b: a == b,
    "kd.comparison.not_equal": lambda a, b: a != b,
    "kd.masking.apply_mask": lambda a, b: bool(a) and bool(b),
    "kd.masking.coalesce": lambda a, b: bool(a) or bool(b),
    "kd.masking.has_not": lambda a: not a,
}


def _interpret(expr, qtypes):
    kind = expr._kind()
    if kind == "placeholder":
        return qtypes.get(expr.leaf_name)
    if kind == "literal":
        return expr.qvalue
    op = expr.op
    connective = _CONNECTIVES.get(op.name if op is not None else None)
    if connective is None:
        raise ValueError(f"kd.optools: a condition may use ==, !=, &, | and ~ of QTypes only, got {expr!r}")
    return connective(*(_interpret(d, qtypes) for d in expr.node_deps))


def _format_message(message, qtypes):
    for name, qtype in qtypes.items():
        message = message.replace("{" + name + "}", qtype.name if qtype is not None else "?")
    return message


class _Constraints:
    """`kd.optools.constraints`: the common qtype constraints of operators.

    Each `expect_*(P.x)` returns a `(condition, message)` pair for the
    `qtype_constraints` of `kd.optools.as_lambda_operator`,
    `as_py_function_operator` and `as_backend_operator`: calling the
    operator with an argument of another type raises ValueError(message),
    when the node is built (from values) or at evaluation.
    """

    @staticmethod
    def expect_data_slice(arg):
        """Returns a constraint that `arg` (`P.<param>`) is a DataSlice.

        Examples:
          >>> from plait.kd.expr import P
          >>> @kd.optools.as_lambda_operator(
          ...     'doc_example.ds_only',
          ...     qtype_constraints=[kd.optools.constraints.expect_data_slice(P.x)])
          ... def ds_only(x):
          ...   return x
          >>> kd.eval(ds_only(1))
          DataItem(1, schema: INT32)
          >>> ds_only(kd.bag())
          Traceback (most recent call last):
          ...
          ValueError: expected DATA_SLICE, got x: DATA_BAG
        """
        name = _param_name(arg)
        return (_Condition(f"P.{name} == DATA_SLICE", lambda q: _is_named(q.get(name), "DATA_SLICE"), (name,)),
                f"expected DATA_SLICE, got {name}: {{{name}}}")

    @staticmethod
    def expect_data_slice_or_unspecified(arg):
        """Returns a constraint that `arg` (`P.<param>`) is a DataSlice or unspecified."""
        name = _param_name(arg)
        return (_Condition(f"(P.{name} == DATA_SLICE) | (P.{name} == UNSPECIFIED)",
                           lambda q: _is_named(q.get(name), "DATA_SLICE", "UNSPECIFIED"), (name,)),
                f"expected DATA_SLICE, got {name}: {{{name}}}")

    @staticmethod
    def expect_jagged_shape(arg):
        """Returns a constraint that `arg` (`P.<param>`) is a JaggedShape."""
        name = _param_name(arg)
        return (_Condition(f"P.{name} == JAGGED_SHAPE", lambda q: _is_named(q.get(name), "JAGGED_SHAPE"), (name,)),
                f"expected JAGGED_SHAPE, got {name}: {{{name}}}")

    @staticmethod
    def expect_jagged_shape_or_unspecified(arg):
        """Returns a constraint that `arg` (`P.<param>`) is a JaggedShape or unspecified."""
        name = _param_name(arg)
        return (_Condition(f"(P.{name} == JAGGED_SHAPE) | (P.{name} == UNSPECIFIED)",
                           lambda q: _is_named(q.get(name), "JAGGED_SHAPE", "UNSPECIFIED"), (name,)),
                f"expected JAGGED_SHAPE or UNSPECIFIED, got {name}: {{{name}}}")

    @staticmethod
    def expect_data_slice_args(arg):
        """Returns a constraint that `arg` (`P.<param>` of `*args`) holds DataSlices only."""
        name = _param_name(arg)
        return (_Condition(f"all fields of P.{name} (a tuple) == DATA_SLICE",
                           lambda q: _fields_are(q.get(name), "DATA_SLICE", named=False), (name,)),
                f"expected all arguments to be DATA_SLICE, got {name}: {{{name}}}")

    @staticmethod
    def expect_data_slice_kwargs(arg):
        """Returns a constraint that `arg` (`P.<param>` of `**kwargs`) holds DataSlices only."""
        name = _param_name(arg)
        return (_Condition(f"all fields of P.{name} (a named tuple) == DATA_SLICE",
                           lambda q: _fields_are(q.get(name), "DATA_SLICE", named=True), (name,)),
                f"expected all arguments to be DATA_SLICE, got {name}: {{{name}}}")

    @staticmethod
    def expect_data_bag_args(arg):
        """Returns a constraint that `arg` (`P.<param>` of `*args`) holds DataBags only."""
        name = _param_name(arg)
        return (_Condition(f"all fields of P.{name} (a tuple) == DATA_BAG",
                           lambda q: _fields_are(q.get(name), "DATA_BAG", named=False), (name,)),
                f"expected all arguments to be DATA_BAG, got {name}: {{{name}}}")

    def __repr__(self):
        return "kd.optools.constraints"


def _is_named(qtype, *names):
    return getattr(qtype, "name", None) in names


def _fields_are(qtype, name, named):
    return (isinstance(qtype, _FieldsQType) and (qtype.names is not None) == named
            and all(f.name == name for f in qtype.fields))


constraints = _Constraints()


# ---------------------------------------------------------------- call hooks


class _Binding:
    """What an operator made here does with its arguments besides binding
    them: the qtype constraints it checks and the parameters whose Python
    functions stay Python objects."""

    def __init__(self, constraints=(), py_objects=(), overloads_of=None):
        self.constraints = [(c, m) for c, m in constraints]
        self.py_objects = frozenset(py_objects)
        self.overloads_of = overloads_of

    def check(self, qtypes):
        """Raises ValueError when a constraint fails for `qtypes` (a QType
        per parameter; None where only evaluation knows)."""
        for cond, message in self.constraints:
            if _needs_unknown(cond, qtypes):
                continue
            if not _check_condition(cond, qtypes):
                raise ValueError(_format_message(message, qtypes))
        if self.overloads_of is not None and None not in qtypes.values():
            _find_overload(self.overloads_of, qtypes)

    def __call__(self, op, args, kwargs):
        try:
            qtypes = _bound_qtypes(op, args, kwargs, self.py_objects)
        except TypeError:
            return None  # binding raises its own error
        self.check(qtypes)
        if not self.py_objects and not any(_is_py_function(a) for a in (*args, *kwargs.values())):
            return None
        sig = _signature(op)
        bound = sig.bind(*args, **kwargs)
        for name, value in list(bound.arguments.items()):
            if name not in self.py_objects and _is_py_function(value):
                bound.arguments[name] = as_qvalue(value)
        return tuple(bound.args), dict(bound.kwargs)


def _needs_unknown(cond, qtypes):
    """Whether `cond` needs a QType known only at evaluation."""
    unknown = [n for n, q in qtypes.items() if q is None]
    if not unknown:
        return False
    if isinstance(cond, _Condition):
        return any(n in unknown for n in cond.params)
    if isinstance(cond, _expr.Expr):
        return any(d.leaf_name in unknown for d in _expr.post_order(cond) if d._kind() == "placeholder")
    return True


_HOOKS = {}


def _hook(op, binding):
    """Makes calls of `op` go through `binding` (by its fingerprint)."""
    _HOOKS[op.fingerprint] = binding
    _plait.enable_call_hooks()


def _call_hook(op, args, kwargs):
    """Called by `ExprOperator.__call__` (in Rust) for every call, once some
    operator has a binding: None to build the node from the arguments as
    they are, or the arguments to build it from."""
    binding = _HOOKS.get(op.fingerprint)
    if binding is None:
        return None
    return binding(op, args, kwargs or {})


def _boxing(name, fn, custom_boxing_fn_name_per_parameter, experimental_aux_policy):
    """The parameters whose Python functions stay Python objects."""
    params = list(inspect.signature(fn).parameters)
    if experimental_aux_policy is not None:
        if experimental_aux_policy not in _POLICIES:
            raise ValueError(f"{name}: unknown boxing policy: {experimental_aux_policy!r}")
        return set(params) if experimental_aux_policy == WITH_PY_FUNCTION_TO_PY_OBJECT else set()
    out = set()
    for param, policy in (custom_boxing_fn_name_per_parameter or {}).items():
        if param not in params:
            raise ValueError(f"custom_boxing_fn_name specified for unknown parameter: {param!r}")
        if policy not in _POLICIES:
            raise ValueError(f"{name}: unknown boxing policy: {policy!r}")
        if policy == WITH_PY_FUNCTION_TO_PY_OBJECT:
            out.add(param)
    return out


def _checker(name, params, binding):
    """A function operator that returns its first argument after checking
    `binding`'s constraints on the others (the values of `params`): the
    check at evaluation of an operator called with expressions."""
    names = [p[0] for p in params]

    def check(result, *values):
        binding.check(_values_qtypes(names, values))
        return result

    spec = [("result", "POSITIONAL_ONLY", "required", None)]
    spec += [(n, "POSITIONAL_ONLY", "unspecified", None) for n in names]
    check.__signature__ = inspect.Signature(
        [inspect.Parameter("result", inspect.Parameter.POSITIONAL_ONLY)]
        + [inspect.Parameter(n, inspect.Parameter.POSITIONAL_ONLY, default=None) for n in names])
    return _plait.make_py_function_operator(f"{name}._qtype_constraints", spec, "", check, True)


def _constrained_body(name, params, binding, body):
    checker = _checker(name, params, binding)
    return checker(body, *[_expr.P[p[0]] for p in params])


# ---------------------------------------------------------------- overloads

_OVERLOADS = {}  # overloadable name -> [(condition, operator)]


def _find_overload(name, qtypes):
    for cond, op in _OVERLOADS.get(name, ()):
        if _check_condition(cond, qtypes):
            return op
    listed = ", ".join(f"{n}: {q.name}" for n, q in qtypes.items())
    raise ValueError(f"no matching overload [{listed}]")


def add_to_registry_as_overloadable(name, *, unsafe_override=False, aux_policy="koladata_default_boxing", **_options):
    """Returns a decorator registering an overloadable operator called `name`.

    The decorated function gives the signature and docstring only (its body
    never runs, as in Koda). A call is computed by the first overload
    (`kd.optools.add_to_registry_as_overload`) whose condition holds for the
    QTypes of the arguments; with none, ValueError `no matching overload`
    (when the node is built from values, or at evaluation).

    Args:
      name: the name to register.
      unsafe_override: whether to replace an operator already registered.
      aux_policy: the boxing policy (`kd.optools.WITH_PY_FUNCTION_TO_PY_OBJECT`
        keeps Python functions Python objects).

    Examples:
      >>> @kd.optools.add_to_registry_as_overloadable('doc_example.describe')
      ... def describe(x):
      ...   '''Describes x.'''
      >>> @kd.optools.add_to_registry_as_overload(
      ...     'doc_example.describe._slice',
      ...     overload_condition_expr=kd.expr.P.x == kd.qtypes.DATA_SLICE)
      ... @kd.optools.as_lambda_operator('doc_example.describe._slice')
      ... def describe_slice(x):
      ...   return x + 1
      >>> kd.eval(describe(1))
      DataItem(2, schema: INT32)
      >>> describe(kd.bag())
      Traceback (most recent call last):
      ...
      ValueError: no matching overload [x: DATA_BAG]
    """

    def decorate(fn):
        py_objects = _boxing(name, fn, None, aux_policy)
        sig = inspect.signature(fn)
        names = list(sig.parameters)

        def dispatch(*args, **kwargs):
            bound = sig.bind_partial(*args, **kwargs)
            values = {n: bound.arguments.get(n) for n in names}
            qtypes = {n: _unspecified_qtype() if v is None else _qtype_of(v, n in py_objects) for n, v in values.items()}
            op = _find_overload(name, qtypes)
            return _eager_call(op, args, kwargs)

        op = _plait.make_py_function_operator(name, _param_spec(fn, python_defaults=True), fn.__doc__ or "", dispatch, False)
        _OVERLOADS.setdefault(name, [])
        registered = _with_python_face(_plait.registry_add(name, op, unsafe_override), fn)
        _hook(registered, _Binding((), py_objects, overloads_of=name))
        return registered

    return decorate


def add_to_registry_as_overload(name=None, *, overload_condition_expr, unsafe_override=False, **_options):
    """Returns a decorator registering an operator as an overload.

    `name` (the operator's own name when None) is `<overloadable>.<suffix>`:
    the operator is registered under it and computes calls of the
    overloadable operator when `overload_condition_expr` holds. The
    condition is an expression over the parameters `kd.expr.P.<param>`,
    compared with `kd.qtypes` (`==`, `!=`, `&`, `|`, `~`), or a Python
    predicate taking QTypes by parameter name. Overloads are tried in the
    order they were added.

    Args:
      name: the overload's name.
      overload_condition_expr: when the overload applies.
      unsafe_override: whether to replace an operator already registered.

    Examples:
      >>> @kd.optools.add_to_registry_as_overloadable('doc_example.size_of')
      ... def size_of(x):
      ...   '''The size of x.'''
      >>> @kd.optools.add_to_registry_as_overload(
      ...     'doc_example.size_of._shape',
      ...     overload_condition_expr=kd.expr.P.x == kd.qtypes.JAGGED_SHAPE)
      ... @kd.optools.as_lambda_operator('doc_example.size_of._shape')
      ... def size_of_shape(x):
      ...   return kd.shapes.size(x)
      >>> kd.eval(size_of(kd.shapes.new(2, [1, 3])))
      DataItem(4, schema: INT64)
    """

    def decorate(op):
        if not isinstance(op, _expr.ExprOperator):
            raise TypeError(f"kd.optools.add_to_registry_as_overload: expected an operator, got {type(op).__name__}")
        full = name or op.name
        overloadable = full.rsplit(".", 1)[0] if "." in full else ""
        if overloadable not in _OVERLOADS:
            raise LookupError(f"arolla.abc.lookup_operator() unknown operator: {overloadable!r}")
        for p_name, _kind, has_default, _default in op.parameters():
            if has_default:
                raise ValueError(f"operator overloads do not support parameters with default values: {p_name}=None")
        registered = add_to_registry(full, unsafe_override=unsafe_override)(op)
        _OVERLOADS[overloadable].append((overload_condition_expr, registered))
        return registered

    return decorate


# ---------------------------------------------------------------- eager


def _eager_call(op, args, kwargs):
    """`op` computed on values now."""
    from plait.kd import functor  # noqa: F401 - boxing of functions

    return _expr.eval(op(*args, **kwargs))


class _EagerOperator:
    """An eager-mode adapter for an operator: calling it computes the
    operator on the arguments, which must be values (not expressions).

    Examples:
      >>> add = kd.optools.eager.EagerOperator('kd.math.add')
      >>> add(1, 2)
      DataItem(3, schema: INT32)
      >>> add(I.x, 2)
      Traceback (most recent call last):
      ...
      TypeError: kd.math.add: for eager evaluation, all arguments must be eager values (e.g. DataSlices), got an Expr for the argument 'x': I.x; if it is intentional, perhaps wrap the Expr into a Koda Functor using kd.fn(expr) or use corresponding kd.lazy operator
    """

    __slots__ = ("lazy_op", "__signature__")

    def __init__(self, op):
        if isinstance(op, str):
            found = _plait.registry_lookup(op)
            if found is None:
                raise AttributeError(f"{op!r} is not present in container")
            op = found
        if not isinstance(op, _expr.ExprOperator):
            raise TypeError(f"kd.optools.eager.EagerOperator: expected an operator, got {type(op).__name__}")
        self.lazy_op = op
        self.__signature__ = _signature(op)

    def getdoc(self):
        """The operator's docstring."""
        return self.lazy_op.doc

    def __call__(self, *args, **kwargs):
        bound = self.__signature__.bind_partial(*args, **kwargs)
        for name, value in bound.arguments.items():
            values = value.values() if isinstance(value, dict) else value if isinstance(value, tuple) else (value,)
            for v in values:
                if isinstance(v, _expr.Expr):
                    raise TypeError(
                        f"{self.lazy_op.name}: for eager evaluation, all arguments must be eager values (e.g. "
                        f"DataSlices), got an Expr for the argument '{name}': {v!r}; if it is intentional, perhaps wrap "
                        "the Expr into a Koda Functor using kd.fn(expr) or use corresponding kd.lazy operator")
        return _eager_call(self.lazy_op, args, kwargs)


class _EagerNamespace:
    """`kd.optools.eager`: `EagerOperator`."""

    EagerOperator = _EagerOperator

    def __repr__(self):
        return "kd.optools.eager"


_EagerOperator.__name__ = _EagerOperator.__qualname__ = "EagerOperator"
eager = _EagerNamespace()


# ---------------------------------------------------------------- non-determinism


def _token_value(seed, param=None):
    del seed, param
    return None


_TOKEN_OP = _plait.make_py_function_operator(
    "koda_internal.non_deterministic",
    [("seed", "POSITIONAL_OR_KEYWORD", "required", None), ("param", "POSITIONAL_OR_KEYWORD", "unspecified", None)],
    "A non-determinism token (never folded into a literal).", _token_value, False)


def _token(seed, param=None):
    from plait import kd

    seed_item = kd.int64(seed)
    return _TOKEN_OP(seed_item) if param is None else _TOKEN_OP(seed_item, param)


def unified_non_deterministic_arg():
    """Returns a non-determinism token, an expression to pass as an argument.

    Koda threads such a token through operators so that they compute afresh
    at each evaluation. In plait every operator that is not deterministic
    computes afresh at each evaluation already: an operator given a token
    (as its last positional argument, or `**unified_non_deterministic_kwarg()`)
    ignores it, and a lambda operator wrapping `kd.new` gives new ids at each
    evaluation with or without one.

    Examples:
      >>> tok = kd.optools.unified_non_deterministic_arg()
      >>> kd.expr.is_literal(tok)
      False
    """
    return _token(random.getrandbits(63))


def unified_non_deterministic_kwarg():
    """Returns `{'_non_deterministic_token': token}`, a non-determinism token
    to pass as `**kwargs` (see `kd.optools.unified_non_deterministic_arg`).

    Examples:
      >>> list(kd.optools.unified_non_deterministic_kwarg())
      ['_non_deterministic_token']
    """
    return {"_non_deterministic_token": unified_non_deterministic_arg()}


def fix_non_deterministic_tokens(expr, *, param=None):
    """Returns `expr` with its non-determinism tokens numbered 1, 2, ... in
    order, so that expressions built separately compare equal.

    Evaluation still computes non-deterministic operators afresh.

    Args:
      expr: an expression.
      param: an expression the tokens are made from (none by default).

    Examples:
      >>> e1 = kd.optools.fix_non_deterministic_tokens(kd.lazy.new(x=1))
      >>> e2 = kd.optools.fix_non_deterministic_tokens(kd.lazy.new(x=1))
      >>> e1.fingerprint == e2.fingerprint
      True
    """
    if not isinstance(expr, _expr.Expr):
        raise TypeError(f"arolla.abc.transform() expected an expression, got expr: {type(expr).__name__}")
    counter = [0]

    def fix(node):
        op = node.op
        if op is not None and op.name == "koda_internal.non_deterministic":
            counter[0] += 1
            return _token(counter[0], param)
        return node

    return _expr.transform(expr, fix)
