//! `kd.extension_types.*` — the operators on extension values (objects
//! labelled with an extension type's QType, `crate::extension`): making,
//! labelling and unlabelling them, reading and setting attributes, casts
//! and nulls. The decorator `kd.extension_type` (Python) builds classes
//! whose construction, attribute access and methods are these operators.

use std::sync::Arc;

use plait_core::{DataSlice, Error, Result, ScalarRef, Schema};
use plait_ops::registry::Value;

use super::{required, take};
use crate::extension::{self, NULL_MARKER, Object, ObjectValue, QTypeValue, extension_arg, extension_qtype_arg, qtype_of};
use crate::operator::{Builtin, BuiltinDef, CallArgs, text_item};
use crate::value::ExprValue;

macro_rules! def {
    ($name:literal, $signature:literal, $doc:expr, $call:expr) => {
        BuiltinDef { name: $name, aliases: &[], signature: $signature, doc: $doc, call: $call, deterministic: true, role: Builtin::Other }
    };
}

pub const DEFS: &[BuiltinDef] = &[
    def!("kd.extension_types.make", "qtype, prototype=unspecified, /, **attrs", MAKE_DOC, make),
    def!("kd.extension_types.make_null", "qtype", MAKE_NULL_DOC, make_null),
    def!("kd.extension_types.wrap", "obj, qtype", WRAP_DOC, wrap),
    def!("kd.extension_types.unwrap", "ext", UNWRAP_DOC, unwrap),
    def!("kd.extension_types.dynamic_cast", "ext, qtype", DYNAMIC_CAST_DOC, dynamic_cast),
    def!("kd.extension_types.get_attr", "ext, attr, qtype", GET_ATTR_DOC, get_attr),
    def!("kd.extension_types.has_attr", "ext, attr", HAS_ATTR_DOC, has_attr),
    def!("kd.extension_types.get_attr_qtype", "ext, attr", GET_ATTR_QTYPE_DOC, get_attr_qtype),
    def!("kd.extension_types.with_attrs", "ext, /, **attrs", WITH_ATTRS_DOC, with_attrs),
    def!("kd.extension_types.is_null", "ext", IS_NULL_DOC, is_null),
];

fn mask(present: bool) -> Result<ExprValue> {
    Ok(ExprValue::slice(DataSlice::item(present.then_some(ScalarRef::Mask), Schema::Mask)?))
}

/// The value of an optional argument, `None` where it is unspecified or
/// Python's `None` (a missing NONE item).
fn optional(args: &mut CallArgs, i: usize) -> Option<ExprValue> {
    take(args, i).filter(|v| !matches!(v, ExprValue::Data(Value::Slice(x)) if x.is_item() && x.schema() == Schema::None))
}

fn attr_name(op: &str, v: &ExprValue) -> Result<String> {
    text_item(op, "attr", v).map_err(|_| match v {
        ExprValue::Data(Value::Slice(x)) if !x.is_item() => Error::value(op, format!("`attr` must be a STRING item, got rank={}", x.rank())),
        _ => Error::value(op, format!("`attr` must be a STRING item, got {}", v.kind_name())),
    })
}

const MAKE_DOC: &str = "Returns a value of the extension type `qtype` with attributes `attrs`.

The attributes are stored as given (no casts: the class constructor casts to
the annotations); an attribute not given reads from `prototype`, an OBJECT
(what `kd.extension_types.unwrap` returns), where there is one.

Args:
  qtype: the QType of an extension type (`get_extension_qtype(cls)`).
  prototype: an OBJECT whose attributes the value falls back to, or None.
  **attrs: the attributes.

Examples:
  >>> @kd.extension_type()
  ... class MkPoint:
  ...   x: kd.INT32
  ...   y: kd.INT32
  >>> qtype = kd.extension_types.get_extension_qtype(MkPoint)
  >>> kd.extension_types.make(qtype, x=1, y=2)
  MkPoint(x=DataItem(1, schema: INT32), y=DataItem(2, schema: INT32))
  >>> kd.extension_types.make(qtype, x=1)
  MkPoint(x=DataItem(1, schema: INT32), y=<unknown>)";

fn make(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    let ext = extension_qtype_arg(op, "qtype", &required(op, &mut args, 0)?)?;
    let prototype = match optional(&mut args, 1) {
        None => None,
        Some(p) => match ObjectValue::of(&p) {
            Some(o) if o.label.is_none() => Some(o.object.clone()),
            _ => return Err(Error::value(op, format!("expected OBJECT, got prototype: {}", qtype_of(&p)))),
        },
    };
    let attrs = args.var_kwargs.into_iter().map(|(n, v)| (Arc::from(n.as_str()), v)).collect();
    Ok(ObjectValue { object: Arc::new(Object { attrs, prototype }), label: Some(ext) }.into_value())
}

const MAKE_NULL_DOC: &str = "Returns the null value of the extension type `qtype`.

A null value has none of the type's attributes; `kd.extension_types.is_null`
is present for it.

Args:
  qtype: the QType of an extension type.

Examples:
  >>> @kd.extension_type()
  ... class NullPoint:
  ...   x: kd.INT32
  >>> null = kd.extension_types.make_null(kd.extension_types.get_extension_qtype(NullPoint))
  >>> null
  NullPoint(x=<unknown>)
  >>> kd.extension_types.is_null(null)
  DataItem(present, schema: MASK)";

fn make_null(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    let ext = extension_qtype_arg(op, "qtype", &required(op, &mut args, 0)?)?;
    let attrs = vec![(Arc::from(NULL_MARKER), mask(true)?)];
    Ok(ObjectValue { object: Arc::new(Object { attrs, prototype: None }), label: Some(ext) }.into_value())
}

const WRAP_DOC: &str = "Returns the OBJECT `obj` as a value of the extension type `qtype`.

The inverse of `kd.extension_types.unwrap`.

Args:
  obj: an OBJECT (what `unwrap` returns).
  qtype: the QType of an extension type.

Examples:
  >>> @kd.extension_type()
  ... class WrapPoint:
  ...   x: kd.INT32
  >>> obj = kd.extension_types.unwrap(WrapPoint(x=1))
  >>> obj
  Object{attributes={x=DataItem(1, schema: INT32)}}
  >>> kd.extension_types.wrap(obj, kd.extension_types.get_extension_qtype(WrapPoint))
  WrapPoint(x=DataItem(1, schema: INT32))";

fn wrap(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    let x = required(op, &mut args, 0)?;
    let ext = extension_qtype_arg(op, "qtype", &required(op, &mut args, 1)?)?;
    match ObjectValue::of(&x) {
        Some(o) if o.label.is_none() => Ok(ObjectValue { object: o.object.clone(), label: Some(ext) }.into_value()),
        _ => Err(Error::value(op, format!("expected one of [OBJECT], got obj: {}", qtype_of(&x)))),
    }
}

const UNWRAP_DOC: &str = "Returns the OBJECT an extension value is made of (its attributes).

Args:
  ext: an extension value.

Examples:
  >>> @kd.extension_type()
  ... class UnwrapPoint:
  ...   x: kd.INT32
  >>> kd.extension_types.unwrap(UnwrapPoint(x=1))
  Object{attributes={x=DataItem(1, schema: INT32)}}
  >>> kd.extension_types.unwrap(kd.item(1))
  Traceback (most recent call last):
  ...
  ValueError: kd.extension_types.unwrap: expected an extension type qtype, got ext: DATA_SLICE";

fn unwrap(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    let x = required(op, &mut args, 0)?;
    let ext = extension_arg(op, "ext", &x)?;
    Ok(ObjectValue { object: ext.object.clone(), label: None }.into_value())
}

const DYNAMIC_CAST_DOC: &str = "Returns the extension value `ext` as a value of the extension type `qtype`.

Casts up (to a base class), down (to a subclass) and sideways: the
attributes are kept as they are, only the type changes, so a value cast up
and back down has all its attributes again, and virtual methods keep
calling the implementation the value was made with.

Args:
  ext: an extension value.
  qtype: the QType of an extension type.

Examples:
  >>> @kd.extension_type()
  ... class CastBase:
  ...   x: kd.INT32
  >>> @kd.extension_type()
  ... class CastChild(CastBase):
  ...   y: kd.INT32
  >>> up = kd.extension_types.dynamic_cast(CastChild(x=1, y=2), kd.extension_types.get_extension_qtype(CastBase))
  >>> up
  CastBase(x=DataItem(1, schema: INT32))
  >>> kd.extension_types.dynamic_cast(up, kd.extension_types.get_extension_qtype(CastChild)).y
  DataItem(2, schema: INT32)";

fn dynamic_cast(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    let x = required(op, &mut args, 0)?;
    let target = extension_qtype_arg(op, "qtype", &required(op, &mut args, 1)?)?;
    let ext = extension_arg(op, "ext", &x)?;
    if ext.label.as_ref().is_some_and(|l| Arc::ptr_eq(l, &target)) {
        return Ok(x);
    }
    Ok(ObjectValue { object: ext.object.clone(), label: Some(target) }.into_value())
}

const GET_ATTR_DOC: &str = "Returns the attribute `attr` of the extension value `ext`, of QType `qtype`.

Raises ValueError when `ext` has no such attribute, or when it is of
another QType. `ext.attr` is this operator with the annotation's QType.

Args:
  ext: an extension value.
  attr: the attribute's name, a STRING item.
  qtype: the QType the attribute must have (`kd.qtypes.DATA_SLICE` for data).

Examples:
  >>> @kd.extension_type()
  ... class AttrPoint:
  ...   x: kd.INT32
  >>> kd.extension_types.get_attr(AttrPoint(x=1), 'x', kd.qtypes.DATA_SLICE)
  DataItem(1, schema: INT32)
  >>> kd.extension_types.get_attr(AttrPoint(x=1), 'y', kd.qtypes.DATA_SLICE)
  Traceback (most recent call last):
  ...
  ValueError: kd.extension_types.get_attr: attribute not found: 'y'";

fn get_attr(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    let x = required(op, &mut args, 0)?;
    let attr = attr_name(op, &required(op, &mut args, 1)?)?;
    let q = required(op, &mut args, 2)?;
    let ext = extension_arg(op, "ext", &x)?;
    let Some(qtype) = QTypeValue::of(&q) else {
        return Err(Error::value(op, format!("expected QTYPE, got qtype: {}", qtype_of(&q))));
    };
    extension::get_attr(op, ext, &attr, &qtype.0)
}

const HAS_ATTR_DOC: &str = "Returns present when the extension value `ext` has the attribute `attr`.

Args:
  ext: an extension value.
  attr: the attribute's name, a STRING item.

Examples:
  >>> @kd.extension_type()
  ... class HasPoint:
  ...   x: kd.INT32
  >>> kd.extension_types.has_attr(HasPoint(x=1), 'x')
  DataItem(present, schema: MASK)
  >>> kd.extension_types.has_attr(HasPoint(x=1), 'y')
  DataItem(missing, schema: MASK)";

fn has_attr(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    let x = required(op, &mut args, 0)?;
    let attr = attr_name(op, &required(op, &mut args, 1)?)?;
    mask(extension_arg(op, "ext", &x)?.object.get(&attr).is_some())
}

const GET_ATTR_QTYPE_DOC: &str = "Returns the QType of the attribute `attr` of `ext`, or NOTHING when it has none.

Args:
  ext: an extension value.
  attr: the attribute's name, a STRING item.

Examples:
  >>> @kd.extension_type()
  ... class QtPoint:
  ...   x: kd.INT32
  >>> kd.extension_types.get_attr_qtype(QtPoint(x=1), 'x')
  DATA_SLICE
  >>> kd.extension_types.get_attr_qtype(QtPoint(x=1), 'y')
  NOTHING";

fn get_attr_qtype(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    let x = required(op, &mut args, 0)?;
    let attr = attr_name(op, &required(op, &mut args, 1)?)?;
    let ext = extension_arg(op, "ext", &x)?;
    Ok(QTypeValue::value(&ext.object.get(&attr).map_or_else(|| "NOTHING".to_string(), qtype_of)))
}

const WITH_ATTRS_DOC: &str = "Returns `ext` with the attributes `attrs` set (added or replaced).

The values are stored as given, not cast to the annotations (the method
`ext.with_attrs(...)` casts them).

Args:
  ext: an extension value.
  **attrs: the attributes to set.

Examples:
  >>> @kd.extension_type()
  ... class WithPoint:
  ...   x: kd.INT32
  ...   y: kd.INT32
  >>> kd.extension_types.with_attrs(WithPoint(x=1, y=2), y=5)
  WithPoint(x=DataItem(1, schema: INT32), y=DataItem(5, schema: INT32))";

fn with_attrs(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    let x = required(op, &mut args, 0)?;
    let ext = extension_arg(op, "ext", &x)?;
    if ext.is_null() {
        return Err(Error::value(op, "expected a non-null extension type"));
    }
    Ok(extension::with_attrs(ext, args.var_kwargs).into_value())
}

const IS_NULL_DOC: &str = "Returns present when the extension value `ext` is null.

Args:
  ext: an extension value.

Examples:
  >>> @kd.extension_type()
  ... class IsNullPoint:
  ...   x: kd.INT32
  >>> kd.extension_types.is_null(IsNullPoint(x=1))
  DataItem(missing, schema: MASK)
  >>> kd.extension_types.is_null(kd.extension_types.make_null(kd.extension_types.get_extension_qtype(IsNullPoint)))
  DataItem(present, schema: MASK)";

fn is_null(op: &str, mut args: CallArgs) -> Result<ExprValue> {
    let x = required(op, &mut args, 0)?;
    mask(extension_arg(op, "ext", &x)?.is_null())
}
