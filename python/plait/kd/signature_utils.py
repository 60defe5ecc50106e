"""`kd.functor.signature_utils` (also `kd.signature_utils`): making functor
signatures by hand.

A signature is an object with a list of `parameters`; each parameter has a
`name`, a `kind` (one of `ParameterKind`'s entities) and a `default_value`
(`NO_DEFAULT_VALUE` when it has none), the layout `kd.functor.expr_fn` and
`kd.functor.get_signature` use.
"""

import inspect
import types as _pytypes

from plait import _plait


def _kd():
    from plait import kd

    return kd


def _kind(name):
    kd = _kd()
    return kd.uu(kind=name)


#: The kinds of parameters, as Python's `inspect.Parameter` names them.
ParameterKind = _pytypes.SimpleNamespace(
    POSITIONAL_ONLY=_kind("positional_only"),
    POSITIONAL_OR_KEYWORD=_kind("positional_or_keyword"),
    VAR_POSITIONAL=_kind("var_positional"),
    KEYWORD_ONLY=_kind("keyword_only"),
    VAR_KEYWORD=_kind("var_keyword"),
)

#: The `default_value` of a parameter without a default.
NO_DEFAULT_VALUE = _kd().uu(no_default_value=_kd().present)


def parameter(name, kind, default_value=NO_DEFAULT_VALUE):
    """Returns a functor parameter.

    Args:
      name: the parameter's name.
      kind: its kind, one of the `ParameterKind` constants.
      default_value: its default (`NO_DEFAULT_VALUE`: none).

    Examples:
      >>> su = kd.functor.signature_utils
      >>> p = su.parameter('x', su.ParameterKind.POSITIONAL_OR_KEYWORD)
      >>> p.name
      DataItem('x', schema: STRING, bag_id: $...)
    """
    kd = _kd()
    return kd.obj(name=name, kind=kind, default_value=default_value)


def signature(parameters):
    """Returns a functor signature with `parameters` in order.

    It is not checked here: a functor made with it checks it.

    Args:
      parameters: the parameters (made by `parameter`), in order.

    Examples:
      >>> su = kd.functor.signature_utils
      >>> s = su.signature([su.parameter('x', su.ParameterKind.POSITIONAL_OR_KEYWORD),
      ...                   su.parameter('y', su.ParameterKind.KEYWORD_ONLY, default_value=1)])
      >>> kd.functor.expr_fn(I.x + I.y, signature=s)(2)
      DataItem(3, schema: INT32)
    """
    kd = _kd()
    return kd.obj(parameters=kd.list(list(parameters)))


def from_py_signature(sig):
    """Returns the functor signature of Python signature `sig` (an `inspect.Signature`).

    Examples:
      >>> import inspect
      >>> s = kd.functor.signature_utils.from_py_signature(inspect.signature(lambda x, y=2: 0))
      >>> kd.functor.expr_fn(I.x * I.y, signature=s)(5)
      DataItem(10, schema: INT32)
    """
    spec = []
    for p in sig.parameters.values():
        if p.default is inspect.Parameter.empty:
            spec.append((p.name, p.kind.name, "required", None))
        else:
            spec.append((p.name, p.kind.name, "value", p.default))
    return _plait.make_signature(spec)


#: The signature `(*args, **kwargs)`.
ARGS_KWARGS_SIGNATURE = signature([
    parameter("args", ParameterKind.VAR_POSITIONAL),
    parameter("kwargs", ParameterKind.VAR_KEYWORD),
])


def _names_and_positional(fn):
    """The parameter names of functor `fn`'s signature, and those of its
    positional parameters (the ones `*args` bind to, in order)."""
    params = _kd().functor.get_signature(fn).parameters[:]
    names, kinds = params.name.to_py(), params.kind.get_attr("kind").to_py()
    return names, [n for n, k in zip(names, kinds) if k in ("positional_only", "positional_or_keyword")]
