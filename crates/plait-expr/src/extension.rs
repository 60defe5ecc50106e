//! Extension types (`kd.extension_type`): user classes whose values are
//! objects — attributes by name, read through an optional prototype —
//! labelled with the class's QType (`LABEL[module.Class]`), as Koda's
//! extension types are Arolla objects under a label.
//!
//! * [`ExtensionType`] — a registered class: its label, the name its
//!   values print with and the fields they print; registered by name from
//!   the host (Python's decorator) in one process-wide table.
//! * [`Object`] — attributes and a prototype (Koda's `OBJECT` value, what
//!   `kd.extension_types.unwrap` gives).
//! * [`ObjectValue`] — an object, labelled with an extension type or not:
//!   the expression value of both (a [`Foreign`] value, so it passes
//!   through evaluation, functor calls and `py_fn` as streams do).
//! * [`QTypeValue`] — a QType given to an operator (`DATA_SLICE`,
//!   `LABEL[...]`), compared by name.
//!
//! The operators over them are `builtins/extension_types.rs`.

use std::any::Any;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, OnceLock, RwLock};

use plait_core::itemid::UuidHasher;
use plait_core::{Error, Result};

use crate::value::{ExprValue, Foreign};

/// The attribute that marks a null extension value (`make_null`).
pub const NULL_MARKER: &str = "_is_null_marker";

/// A registered extension type.
#[derive(Debug)]
pub struct ExtensionType {
    /// The QType's name: `LABEL[module.Class]`.
    pub qtype_name: Arc<str>,
    /// What its values print as: `Class(x=..., y=...)`.
    pub class_name: Arc<str>,
    /// The annotated fields, in order (what a value prints).
    pub fields: Vec<Arc<str>>,
}

fn registry() -> &'static RwLock<HashMap<Arc<str>, Arc<ExtensionType>>> {
    static REGISTRY: OnceLock<RwLock<HashMap<Arc<str>, Arc<ExtensionType>>>> = OnceLock::new();
    REGISTRY.get_or_init(Default::default)
}

/// The QType name of the class `label` (`module.qualname`): `LABEL[label]`,
/// quoted as Koda quotes a label that is not a dotted name
/// (`LABEL['m.f.<locals>.C']`).
pub fn qtype_name(label: &str) -> String {
    let plain = !label.is_empty()
        && !label.starts_with(|c: char| c.is_ascii_digit() || c == '.')
        && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
    if plain { format!("LABEL[{label}]") } else { format!("LABEL['{}']", label.replace('\\', "\\\\").replace('\'', "\\'")) }
}

/// Registers (or replaces) the extension type of class `label`, printed as
/// `class_name` with `fields`; returns it.
pub fn register(label: &str, class_name: &str, fields: Vec<String>) -> Arc<ExtensionType> {
    let qtype_name: Arc<str> = Arc::from(qtype_name(label));
    let ext = Arc::new(ExtensionType {
        qtype_name: qtype_name.clone(),
        class_name: Arc::from(class_name),
        fields: fields.into_iter().map(|f| Arc::from(f.as_str())).collect(),
    });
    registry().write().unwrap_or_else(|e| e.into_inner()).insert(qtype_name, ext.clone());
    ext
}

/// The extension type whose QType is named `qtype_name`.
pub fn lookup(qtype_name: &str) -> Option<Arc<ExtensionType>> {
    registry().read().unwrap_or_else(|e| e.into_inner()).get(qtype_name).cloned()
}

/// Koda's `OBJECT`: attributes by name (in the order given), and a
/// prototype read for the attributes it does not have.
#[derive(Debug, Default)]
pub struct Object {
    pub attrs: Vec<(Arc<str>, ExprValue)>,
    pub prototype: Option<Arc<Object>>,
}

impl Object {
    /// Attribute `name`, read through the prototypes.
    pub fn get(&self, name: &str) -> Option<&ExprValue> {
        let mut object = self;
        loop {
            if let Some((_, v)) = object.attrs.iter().find(|(n, _)| **n == *name) {
                return Some(v);
            }
            object = object.prototype.as_deref()?;
        }
    }

    fn repr(&self) -> String {
        let attrs: Vec<String> =
            self.attrs.iter().map(|(n, v)| if **n == *NULL_MARKER { format!("{n}=present") } else { format!("{n}={}", v.repr()) }).collect();
        match &self.prototype {
            None => format!("Object{{attributes={{{}}}}}", attrs.join(", ")),
            Some(p) => format!("Object{{attributes={{{}}}, prototype={}}}", attrs.join(", "), p.repr()),
        }
    }

    fn fingerprint(&self, h: &mut UuidHasher) {
        h.write_str("object");
        for (n, v) in &self.attrs {
            h.write_str(n);
            h.write_bytes(&v.fingerprint().to_le_bytes());
        }
        if let Some(p) = &self.prototype {
            h.write_str("prototype");
            p.fingerprint(h);
        }
    }
}

/// An object value: an extension value when `label` is set, else a plain
/// `OBJECT`.
#[derive(Debug, Clone)]
pub struct ObjectValue {
    pub object: Arc<Object>,
    pub label: Option<Arc<ExtensionType>>,
}

impl ObjectValue {
    /// `v` as an object value, if it is one.
    pub fn of(v: &ExprValue) -> Option<&ObjectValue> {
        match v {
            ExprValue::Foreign(f) => f.as_any().downcast_ref::<ObjectValue>(),
            _ => None,
        }
    }

    /// The value as an expression value.
    pub fn into_value(self) -> ExprValue {
        ExprValue::Foreign(Arc::new(self))
    }

    /// Whether the value is a null extension value.
    pub fn is_null(&self) -> bool {
        self.object.get(NULL_MARKER).is_some()
    }
}

impl Foreign for ObjectValue {
    fn repr(&self) -> String {
        match &self.label {
            None => self.object.repr(),
            Some(ext) => {
                let fields: Vec<String> = ext
                    .fields
                    .iter()
                    .map(|f| match self.object.get(f) {
                        Some(v) => format!("{f}={}", v.repr()),
                        None => format!("{f}=<unknown>"),
                    })
                    .collect();
                format!("{}({})", ext.class_name, fields.join(", "))
            }
        }
    }

    fn fingerprint(&self) -> u128 {
        let mut h = UuidHasher::new("object_value");
        h.write_str(self.label.as_ref().map_or("OBJECT", |e| &e.qtype_name));
        self.object.fingerprint(&mut h);
        h.finish()
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn type_name(&self) -> String {
        self.label.as_ref().map_or_else(|| "OBJECT".to_string(), |e| e.qtype_name.to_string())
    }
}

/// A QType as a value (an operator's `qtype` argument): its name.
#[derive(Debug, Clone)]
pub struct QTypeValue(pub Arc<str>);

impl QTypeValue {
    /// `v` as a QType, if it is one.
    pub fn of(v: &ExprValue) -> Option<&QTypeValue> {
        match v {
            ExprValue::Foreign(f) => f.as_any().downcast_ref::<QTypeValue>(),
            _ => None,
        }
    }

    /// A QType named `name` as an expression value.
    pub fn value(name: &str) -> ExprValue {
        ExprValue::Foreign(Arc::new(QTypeValue(Arc::from(name))))
    }
}

impl Foreign for QTypeValue {
    fn repr(&self) -> String {
        self.0.to_string()
    }

    fn fingerprint(&self) -> u128 {
        let mut h = UuidHasher::new("qtype");
        h.write_str(&self.0);
        h.finish()
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn type_name(&self) -> String {
        "QTYPE".to_string()
    }
}

impl fmt::Display for QTypeValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The QType name of any value, as Koda names it (`DATA_SLICE`,
/// `LABEL[m.Point]`, `OBJECT`, ...).
pub fn qtype_of(v: &ExprValue) -> String {
    crate::builtins::type_name(v).into_owned()
}

/// Argument `what` of `op` as an extension value (Koda's message otherwise).
pub fn extension_arg<'a>(op: &str, what: &str, v: &'a ExprValue) -> Result<&'a ObjectValue> {
    match ObjectValue::of(v) {
        Some(o) if o.label.is_some() => Ok(o),
        _ => Err(Error::value(op, format!("expected an extension type qtype, got {what}: {}", qtype_of(v)))),
    }
}

/// Argument `what` of `op` as a registered extension type's QType.
pub fn extension_qtype_arg(op: &str, what: &str, v: &ExprValue) -> Result<Arc<ExtensionType>> {
    let Some(q) = QTypeValue::of(v) else {
        return Err(Error::type_error(op, format!("expected a QType for `{what}`, got {}", qtype_of(v))));
    };
    lookup(&q.0).ok_or_else(|| Error::value(op, format!("expected an extension type qtype for `{what}`, got {q}")))
}

/// Attribute `attr` of extension value `ext`, checked to be of QType
/// `qtype` (the one operation behind `ext.attr`, eager or traced).
pub fn get_attr(op: &str, ext: &ObjectValue, attr: &str, qtype: &str) -> Result<ExprValue> {
    let v = ext.object.get(attr).ok_or_else(|| Error::value(op, format!("attribute not found: '{attr}'")))?;
    let actual = qtype_of(v);
    if actual != qtype {
        return Err(Error::value(op, format!("looked for attribute '{attr}' with type {qtype}, but the attribute has actual type {actual}")));
    }
    Ok(v.clone())
}

/// `ext` with `attrs` set: a new object whose prototype is `ext`'s object
/// (so nothing is copied), under the same label.
pub fn with_attrs(ext: &ObjectValue, attrs: Vec<(String, ExprValue)>) -> ObjectValue {
    if attrs.is_empty() {
        return ext.clone();
    }
    let attrs = attrs.into_iter().map(|(n, v)| (Arc::from(n.as_str()), v)).collect();
    ObjectValue { object: Arc::new(Object { attrs, prototype: Some(ext.object.clone()) }), label: ext.label.clone() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tracing::int32_value;

    #[test]
    fn labels_are_quoted_unless_dotted_names() {
        assert_eq!(qtype_name("__main__.Point"), "LABEL[__main__.Point]");
        assert_eq!(qtype_name("m.f.<locals>.P"), "LABEL['m.f.<locals>.P']");
    }

    #[test]
    fn attributes_read_through_prototypes_and_print() {
        let ext = register("tests.Pt", "Pt", vec!["x".into(), "y".into()]);
        let base = Object { attrs: vec![(Arc::from("x"), int32_value(1))], prototype: None };
        let v = ObjectValue { object: Arc::new(base), label: Some(ext) };
        assert_eq!(v.repr(), "Pt(x=DataItem(1, schema: INT32), y=<unknown>)");
        let w = with_attrs(&v, vec![("y".into(), int32_value(2))]);
        assert_eq!(w.repr(), "Pt(x=DataItem(1, schema: INT32), y=DataItem(2, schema: INT32))");
        assert_eq!(get_attr("op", &w, "x", "DATA_SLICE").unwrap().repr(), "DataItem(1, schema: INT32)");
        let e = get_attr("op", &w, "x", "DATA_BAG").unwrap_err();
        assert!(e.message.contains("looked for attribute 'x' with type DATA_BAG"), "{}", e.message);
        assert!(get_attr("op", &w, "z", "DATA_SLICE").unwrap_err().message.contains("attribute not found: 'z'"));
        assert_ne!(v.fingerprint(), w.fingerprint());
        let plain = ObjectValue { object: w.object.clone(), label: None };
        assert!(plain.repr().starts_with("Object{attributes={y=DataItem(2, schema: INT32)}, prototype=Object{"), "{}", plain.repr());
    }
}
