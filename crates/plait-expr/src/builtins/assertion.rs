//! `kd.assertion.*` and `kd.with_print`: checks and prints that run when a
//! functor is evaluated (and right away eagerly).

use plait_core::{DataSlice, Error, ErrorKind, Result, ScalarRef, Schema};
use plait_ops::registry::Value;

use super::{required, slice_arg, take};
use crate::functor;
use crate::operator::{Builtin, BuiltinDef, CallArgs, text_item};
use crate::value::ExprValue;

const WITH_ASSERTION: &str = "kd.assertion.with_assertion";
use plait_ops::checks::{ASSERT_PRESENT_SCALAR, ASSERT_PRIMITIVE};

pub const DEFS: &[BuiltinDef] = &[
    BuiltinDef {
        name: WITH_ASSERTION,
        aliases: &[],
        signature: "x, condition, message_or_fn, *args",
        doc: WITH_ASSERTION_DOC,
        call: with_assertion,
        // A failing check must fail at every evaluation, not once at folding.
        deterministic: false,
        role: Builtin::Other,
    },
    BuiltinDef {
        name: ASSERT_PRIMITIVE,
        aliases: &[],
        signature: "arg_name, ds, primitive_schema",
        doc: ASSERT_PRIMITIVE_DOC,
        call: assert_primitive,
        deterministic: false,
        role: Builtin::Other,
    },
    BuiltinDef {
        name: ASSERT_PRESENT_SCALAR,
        aliases: &[],
        signature: "arg_name, ds, primitive_schema",
        doc: ASSERT_PRESENT_SCALAR_DOC,
        call: assert_present_scalar,
        deterministic: false,
        role: Builtin::Other,
    },
    BuiltinDef {
        name: "kd.assertion.with_print",
        aliases: &["kd.with_print"],
        signature: "x, *args, sep=' ', end='\\n'",
        doc: WITH_PRINT_DOC,
        call: with_print,
        deterministic: false,
        role: Builtin::Other,
    },
];

/// Whether DataItem `item` (narrowly castable to `schema`) is present.
fn present(op: &str, item: &DataSlice, schema: Schema) -> Result<bool> {
    if !item.is_item() {
        return Err(Error::value(op, format!("expected rank 0, but got rank={}", item.rank())));
    }
    let cast = plait_core::cast::cast_to_narrow(op, item, schema)?;
    Ok(cast.present_count() == 1)
}

const WITH_ASSERTION_DOC: &str = "Returns `x` if `condition` is present, and raises a ValueError otherwise.

The error message is `message_or_fn` itself (a STRING item, and then
`args` must be empty), or the result of calling it with `args` when it is
a functor or a Python function (so an expensive message is built only on
failure); as in Koda, a Python function is traced into a functor
(`kd.fn`). In a functor (`kd.lazy.assertion.with_assertion`) the check
runs at every call.

Args:
  x: the value to return.
  condition: a MASK DataItem.
  message_or_fn: the error message, or a functor returning it.
  *args: arguments for `message_or_fn` when it is a functor.

Examples:
  >>> x = kd.item(3)
  >>> kd.assertion.with_assertion(x, x > 0, 'x must be positive')
  DataItem(3, schema: INT32)
  >>> kd.assertion.with_assertion(x, x > 5, lambda x: kd.format('x={x} is too small', x=x), x)
  Traceback (most recent call last):
  ...
  ValueError: x=3 is too small
  >>> f = kd.fn(kd.lazy.assertion.with_assertion(I.x, I.x > 0, 'x must be positive'))
  >>> f(x=-1)
  Traceback (most recent call last):
  ...
  ValueError: x must be positive
  ...";

fn with_assertion(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    let x = required(op, &mut args, 0)?;
    let condition = slice_arg(WITH_ASSERTION, "condition", required(op, &mut args, 1)?)?;
    if present(WITH_ASSERTION, &condition, Schema::Mask)? {
        return Ok(x);
    }
    let message = match required(op, &mut args, 2)? {
        ExprValue::Data(Value::Slice(f)) if functor::is_functor(&f) => {
            functor::call(&f, std::mem::take(&mut args.var_args), Vec::new()).map_err(|e| e.error)?
        }
        _ if !args.var_args.is_empty() => {
            return Err(Error::value(WITH_ASSERTION, "expected `args` to be empty when `message_or_fn` is a STRING message"));
        }
        message => message,
    };
    let message = slice_arg(WITH_ASSERTION, "message_or_fn", message)?;
    if !present(WITH_ASSERTION, &message, Schema::String)? {
        return Err(Error::value(WITH_ASSERTION, "expected a present value"));
    }
    let text = plait_core::cast::cast_to_narrow(WITH_ASSERTION, &message, Schema::String)?;
    Err(Error::new(ErrorKind::Value, plait_core::repr::format_items(&text)))
}

/// The primitive schema argument, checked.
fn primitive_schema(op: &str, v: ExprValue) -> Result<Schema> {
    let x = slice_arg(op, "primitive_schema", v)?;
    if x.schema() != Schema::Schema {
        return Err(Error::value(op, format!("primitive schema's schema must be SCHEMA, got: {}", x.schema())));
    }
    match (x.is_item(), x.get(0)) {
        (true, Some(ScalarRef::Schema(s))) if s.is_primitive() => Ok(s),
        _ => Err(Error::value(op, format!("primitive schema must contain a primitive DType, got {}", plait_core::repr::format_items(&x)))),
    }
}

use plait_ops::checks::not_castable;

const ASSERT_PRIMITIVE_DOC: &str = "Returns `ds` if its items can be implicitly cast to `primitive_schema`, and raises a ValueError otherwise.

A slice whose items are all missing (schema NONE) always passes; so does
an OBJECT slice whose present items all can be cast. The error message
names the argument as `arg_name`.

Args:
  arg_name: the argument's name, for the error message.
  ds: the DataSlice to check.
  primitive_schema: the expected primitive schema (e.g. `kd.INT64`).

Examples:
  >>> kd.assertion.assert_primitive('x', kd.slice([1, 2]), kd.INT64)
  DataSlice([1, 2], schema: INT32, present: 2/2)
  >>> kd.assertion.assert_primitive('x', kd.slice([1, 2], kd.OBJECT), kd.INT32)
  DataSlice([1, 2], schema: OBJECT, present: 2/2)
  >>> kd.assertion.assert_primitive('x', kd.slice(['a']), kd.INT32)
  Traceback (most recent call last):
  ...
  ValueError: kd.assertion.assert_primitive: argument `x` must be a slice of INT32, got a slice of STRING
  >>> kd.assertion.assert_primitive('x', kd.slice([1, 'a']), kd.INT32)
  Traceback (most recent call last):
  ...
  ValueError: kd.assertion.assert_primitive: argument `x` must be a slice of INT32, got a slice of OBJECT containing INT32 and STRING values";

fn assert_primitive(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    const OP: &str = ASSERT_PRIMITIVE;
    let name = text_item(OP, "arg_name", &required(op, &mut args, 0)?)?;
    let ds = slice_arg(OP, "ds", required(op, &mut args, 1)?)?;
    let target = primitive_schema(OP, required(op, &mut args, 2)?)?;
    if let Some(got) = not_castable(&ds, target) {
        return Err(Error::value(OP, format!("argument `{name}` must be a slice of {target}, got a slice of {got}")));
    }
    Ok(ExprValue::slice(ds))
}

const ASSERT_PRESENT_SCALAR_DOC: &str = "Returns `ds` if it is a present DataItem castable to `primitive_schema`, and raises a ValueError otherwise.

Args:
  arg_name: the argument's name, for the error message.
  ds: the DataItem to check.
  primitive_schema: the expected primitive schema (e.g. `kd.INT64`).

Examples:
  >>> kd.assertion.assert_present_scalar('x', kd.item(1), kd.INT64)
  DataItem(1, schema: INT32)
  >>> kd.assertion.assert_present_scalar('x', kd.item(None, kd.INT32), kd.INT64)
  Traceback (most recent call last):
  ...
  ValueError: kd.assertion.assert_present_scalar: argument `x` must be an item holding INT64, got missing
  >>> kd.assertion.assert_present_scalar('x', kd.slice([1]), kd.INT64)
  Traceback (most recent call last):
  ...
  ValueError: kd.assertion.assert_present_scalar: argument `x` must be an item holding INT64, got a slice of rank 1 > 0";

fn assert_present_scalar(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    const OP: &str = ASSERT_PRESENT_SCALAR;
    let name = text_item(OP, "arg_name", &required(op, &mut args, 0)?)?;
    let ds = slice_arg(OP, "ds", required(op, &mut args, 1)?)?;
    let target = primitive_schema(OP, required(op, &mut args, 2)?)?;
    let expected = format!("argument `{name}` must be an item holding {target}, got");
    if !ds.is_item() {
        return Err(Error::value(OP, format!("{expected} a slice of rank {} > 0", ds.rank())));
    }
    if ds.present_count() != 1 {
        return Err(Error::value(OP, format!("{expected} missing")));
    }
    if let Some(got) = not_castable(&ds, target) {
        return Err(Error::value(OP, format!("{expected} an item of {got}")));
    }
    Ok(ExprValue::slice(ds))
}

const WITH_PRINT_DOC: &str = "Prints `args` and returns `x` unchanged.

The arguments are printed like Python's `print` (DataItems as their
values), separated by `sep` and followed by `end`. In a functor
(`kd.lazy.with_print`) the printing happens at every evaluation.

Args:
  x: the value to return.
  *args: the values to print.
  sep: the separator between the printed values.
  end: the text printed after the last value.

Examples:
  >>> kd.with_print(kd.item(1), 'x is', kd.item(1))
  x is 1
  DataItem(1, schema: INT32)
  >>> kd.with_print(kd.slice([1, 2]), 'values', kd.slice([1, 2]), sep=': ')
  values: [1, 2]
  DataSlice([1, 2], schema: INT32, present: 2/2)
  >>> f = kd.fn(kd.lazy.with_print(I.x + 1, 'x =', I.x))
  >>> f(x=5)
  x = 5
  DataItem(6, schema: INT32)";

fn with_print(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    const OP: &str = "kd.assertion.with_print";
    let x = required(op, &mut args, 0)?;
    // Parameters: x, *args, sep, end.
    let text_or = |v: Option<ExprValue>, default: &str| v.map_or(Ok(default.to_string()), |v| text_item(OP, "sep", &v));
    let sep = text_or(take(&mut args, 2), " ")?;
    let end = text_or(take(&mut args, 3), "\n")?;
    let parts: Vec<String> = args
        .var_args
        .iter()
        .map(|v| match v {
            ExprValue::Data(Value::Slice(s)) => plait_core::repr::format_items(s),
            other => other.repr(),
        })
        .collect();
    crate::host::print(&format!("{}{end}", parts.join(&sep)));
    Ok(x)
}
