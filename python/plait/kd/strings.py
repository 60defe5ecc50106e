"""`kd.strings`: Koda's string operators (built from the Rust registry)."""

from plait.kd._operators import export as _export

_export(globals(), "kd.strings")

# --- f-strings with expressions: `kd.lazy.fstr(f"{I.x:s} is {I.y:.2f}")`, also
# inside traced functions, where the arguments are expressions.

import itertools as _itertools  # noqa: E402
import re as _re  # noqa: E402

from plait.kd._operators import traced_through as _traced_through  # noqa: E402

# An expression in an f-string is written as a field naming it in this
# table: `\x1eplait-expr:<id>:<spec>\x1f` (DataSlices have their own fields,
# stashed in Rust). The table keeps the latest fields only.
_EXPR_FIELDS = {}
_EXPR_FIELD_LIMIT = 10_000
_expr_ids = _itertools.count()
_EXPR_FIELD = _re.compile("\x1eplait-expr:(\\d+):([^\x1f]*)\x1f")


def _format_expr(expr, spec):
    """`Expr.__format__`: `f"{expr}"` is its text; `f"{expr:spec}"` a field
    that `kd.fstr` formats with `spec` (`s` for the default form)."""
    if not spec:
        return str(expr)
    field_id = next(_expr_ids)
    _EXPR_FIELDS[field_id] = expr
    while len(_EXPR_FIELDS) > _EXPR_FIELD_LIMIT:
        del _EXPR_FIELDS[next(iter(_EXPR_FIELDS))]
    return f"\x1eplait-expr:{field_id}:{spec}\x1f"


def _has_expr_fields(x):
    return isinstance(x, str) and "\x1eplait-expr:" in x


def _expr_fstr(text):
    """The expression formatting the f-string `text` whose fields are
    expressions: `kd.strings.format` of the text with named fields."""
    if "\x1eplait:" in text:
        raise ValueError("kd.strings.fstr: an f-string cannot mix expressions and DataSlices; "
                         "pass the DataSlice as an expression (kd.expr.literal)")
    fmt, fields, position = [], {}, 0
    for match in _EXPR_FIELD.finditer(text):
        fmt.append(text[position:match.start()].replace("{", "{{").replace("}", "}}"))
        expr = _EXPR_FIELDS.get(int(match.group(1)))
        if expr is None:
            raise ValueError("kd.strings.fstr: the f-string refers to an expression that is no longer available")
        name = f"_{len(fields)}"
        spec = match.group(2)
        fmt.append("{" + name + ("" if spec == "s" else ":" + spec) + "}")
        fields[name] = expr
        position = match.end()
    fmt.append(text[position:].replace("{", "{{").replace("}", "}}"))
    from plait import kd

    return kd.lazy.strings.format("".join(fmt), **fields)


_fstr_operator = fstr  # noqa: F821 - exported above


@_traced_through
def fstr(x):  # noqa: F811 - Koda's eager parameter name (its operator's is `fstr`)
    text = x
    if _has_expr_fields(text):
        from plait import _plait

        if not _plait.is_tracing():
            # As Koda: an eager call formats values, not expressions (the
            # lazy form, kd.lazy.fstr, builds the expression).
            raise ValueError("kd.strings.fstr: f-string contains expression in eager kd.fstr call")
        return _expr_fstr(text)
    return _fstr_operator(text)


fstr.__doc__ = _fstr_operator.__doc__
fstr.__plait_lazy_is_glue__ = True
fstr.__plait_lazy_signature__ = _fstr_operator.__signature__
