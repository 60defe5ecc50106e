//! What an expression computes and holds as literals: DataSlices, shapes and
//! DataBags (the values of eager operators), tuples (several results, named
//! or not), and foreign values that only Python-function operators
//! understand (a Python object), carried through evaluation untouched.

use std::any::Any;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use plait_core::itemid::UuidHasher;
use plait_core::repr::repr_slice;
use plait_core::{Error, Result};
use plait_ops::registry::Value;

/// A value held by a foreign host (Python): opaque to Rust.
pub trait Foreign: Send + Sync + fmt::Debug {
    /// How the value prints inside an expression.
    fn repr(&self) -> String;
    /// A fingerprint: equal for the same host object.
    fn fingerprint(&self) -> u128;
    fn as_any(&self) -> &dyn Any;
    /// How Koda names the value's type in errors (`PY_OBJECT` for a Python
    /// object; streams and executors say theirs).
    fn type_name(&self) -> String {
        "PY_OBJECT".to_string()
    }
}

/// A tuple of values; `names` makes it a named tuple.
#[derive(Debug)]
pub struct Tuple {
    pub items: Vec<ExprValue>,
    pub names: Option<Vec<Arc<str>>>,
}

/// Values one after another (Koda's ITERABLE): what `kd.for_` loops over
/// and `yields` collects. `ordered: false` marks an unordered iterable
/// (`make_unordered`, `interleave`), whose consumers must not rely on the
/// order (plait keeps it).
#[derive(Debug)]
pub struct Iterable {
    pub items: Vec<ExprValue>,
    pub ordered: bool,
    /// The QType name of its values (`DATA_SLICE`, `DATA_BAG`, ...), also
    /// when it has none (Koda's `value_type_as=`).
    pub value_type: String,
}

/// A value in an expression.
#[derive(Clone, Debug)]
pub enum ExprValue {
    Data(Value),
    Tuple(Arc<Tuple>),
    Iterable(Arc<Iterable>),
    Foreign(Arc<dyn Foreign>),
    /// An optional argument without a value (inside lambda lowering).
    Unspecified,
}

/// Literal slices up to this size get a fingerprint of their content, so
/// that the same expression written twice has one fingerprint (and one cached
/// plan); larger ones are fingerprinted by identity, which costs nothing.
const CONTENT_FINGERPRINT_MAX_ITEMS: usize = 64;

impl ExprValue {
    pub fn slice(x: plait_core::DataSlice) -> ExprValue {
        ExprValue::Data(Value::Slice(x))
    }

    /// A tuple of `items` (what `*args` collects).
    pub fn tuple(items: Vec<ExprValue>) -> ExprValue {
        ExprValue::Tuple(Arc::new(Tuple { items, names: None }))
    }

    /// A named tuple of `fields`, in order (what `**kwargs` collects).
    pub fn named_tuple(fields: Vec<(String, ExprValue)>) -> ExprValue {
        let (names, items) = fields.into_iter().map(|(k, v)| (Arc::from(k.as_str()), v)).unzip();
        ExprValue::Tuple(Arc::new(Tuple { items, names: Some(names) }))
    }

    /// An iterable of `items`, of their type (DATA_SLICE when empty).
    pub fn iterable(items: Vec<ExprValue>, ordered: bool) -> ExprValue {
        let value_type = items.first().map_or_else(|| "DATA_SLICE".to_string(), crate::stream::value_type_name);
        ExprValue::iterable_of(items, ordered, value_type)
    }

    /// An iterable of `items`, of values of QType `value_type`.
    pub fn iterable_of(items: Vec<ExprValue>, ordered: bool, value_type: String) -> ExprValue {
        ExprValue::Iterable(Arc::new(Iterable { items, ordered, value_type }))
    }

    /// The value as an argument of an eager operator; `op` names the
    /// operator in the error for tuples and foreign values.
    pub fn into_data(self, op: &str) -> Result<Value> {
        match self {
            ExprValue::Data(v) => Ok(v),
            // A tuple of data (`kd.reshape`'s dimensions) is an eager value too.
            ExprValue::Tuple(t) if t.names.is_none() => match t.items.iter().map(|i| i.clone().into_data(op)).collect() {
                Ok(items) => Ok(Value::Tuple(items)),
                Err(_) => Err(Error::type_error(op, "expected a DataSlice, a JaggedShape or a DataBag, got a tuple")),
            },
            // An extension value where data is expected: Koda's QType error.
            ExprValue::Foreign(f) if f.as_any().is::<crate::extension::ObjectValue>() => {
                Err(Error::value(op, format!("expected DATA_SLICE, got {}", f.type_name())))
            }
            other => Err(Error::type_error(op, format!("expected a DataSlice, a JaggedShape or a DataBag, got {}", other.kind_name()))),
        }
    }

    /// A short name of the kind of value, for errors.
    pub fn kind_name(&self) -> String {
        match self {
            ExprValue::Data(Value::Slice(x)) => if x.is_item() { "a DataItem" } else { "a DataSlice" }.to_string(),
            ExprValue::Data(Value::Shape(_)) => "a JaggedShape".to_string(),
            ExprValue::Data(Value::Bag(_)) => "a DataBag".to_string(),
            ExprValue::Data(Value::Tuple(_)) => "a tuple".to_string(),
            ExprValue::Data(v @ (Value::Range { .. } | Value::Ellipsis)) => v.key_text(),
            ExprValue::Tuple(t) if t.names.is_some() => "a named tuple".to_string(),
            ExprValue::Tuple(_) => "a tuple".to_string(),
            ExprValue::Iterable(_) => "an iterable".to_string(),
            ExprValue::Foreign(f) => f.repr(),
            ExprValue::Unspecified => "unspecified".to_string(),
        }
    }

    /// The fingerprint of a literal holding this value.
    pub fn fingerprint(&self) -> u128 {
        let mut h = UuidHasher::new("expr_value");
        match self {
            ExprValue::Data(Value::Slice(x)) if x.size() <= CONTENT_FINGERPRINT_MAX_ITEMS && x.bag().is_none() => {
                h.write_str("slice");
                h.write_str(&x.schema().to_string());
                h.write_str(&x.shape().to_string());
                for i in 0..x.size() {
                    h.write_item(x.get(i));
                }
            }
            ExprValue::Data(Value::Shape(shape)) if shape.size() <= CONTENT_FINGERPRINT_MAX_ITEMS => {
                h.write_str("shape");
                h.write_str(&shape.to_string());
            }
            // A bag by identity (its id is unique to it); the null bag is one value.
            ExprValue::Data(Value::Bag(bag)) => {
                h.write_str("bag");
                h.write_bytes(&bag.as_ref().map_or(0, |b| b.id()).to_le_bytes());
            }
            ExprValue::Data(v @ Value::Tuple(_)) => return ExprValue::from(v.clone()).fingerprint(),
            ExprValue::Data(Value::Range { start, stop, step }) => {
                h.write_str("range");
                for bound in [start, stop, step] {
                    h.write_bytes(&bound.clone().map_or(0, |b| ExprValue::slice(*b).fingerprint()).to_le_bytes());
                }
            }
            ExprValue::Data(Value::Ellipsis) => h.write_str("ellipsis"),
            ExprValue::Data(_) => {
                static COUNTER: AtomicU64 = AtomicU64::new(0);
                h.write_str("unique");
                h.write_bytes(&COUNTER.fetch_add(1, Ordering::Relaxed).to_le_bytes());
                h.write_bytes(&(std::process::id() as u64).to_le_bytes());
            }
            ExprValue::Tuple(t) => {
                h.write_str("tuple");
                for (i, item) in t.items.iter().enumerate() {
                    if let Some(names) = &t.names {
                        h.write_str(&names[i]);
                    }
                    h.write_bytes(&item.fingerprint().to_le_bytes());
                }
            }
            ExprValue::Iterable(it) => {
                h.write_str(if it.ordered { "iterable" } else { "unordered iterable" });
                h.write_str(&it.value_type);
                for item in &it.items {
                    h.write_bytes(&item.fingerprint().to_le_bytes());
                }
            }
            ExprValue::Foreign(f) => {
                h.write_str("foreign");
                h.write_bytes(&f.fingerprint().to_le_bytes());
            }
            ExprValue::Unspecified => h.write_str("unspecified"),
        }
        h.finish()
    }

    /// How the value prints inside an expression (Koda's reprs).
    pub fn repr(&self) -> String {
        match self {
            ExprValue::Data(Value::Slice(x)) => repr_slice(x),
            ExprValue::Data(Value::Shape(shape)) => shape.to_string(),
            ExprValue::Data(Value::Bag(Some(bag))) => format!("DataBag({})", bag.short_id()),
            ExprValue::Data(Value::Bag(None)) => "DataBag(null)".to_string(),
            ExprValue::Data(v @ Value::Tuple(_)) => ExprValue::from(v.clone()).repr(),
            // (Keys of `x.S[...]` and `x[...]` print as Python writes them:
            // see `text::push_key`.)
            ExprValue::Data(v @ (Value::Range { .. } | Value::Ellipsis)) => v.text(),
            ExprValue::Tuple(t) => {
                let items: Vec<String> = t.items.iter().map(ExprValue::repr).collect();
                match &t.names {
                    None if items.len() == 1 => format!("({},)", items[0]),
                    None => format!("({})", items.join(", ")),
                    Some(names) => {
                        let fields: Vec<String> = names.iter().map(|n| format!("{n}=DATA_SLICE")).collect();
                        format!("namedtuple<{}>{{({})}}", fields.join(","), items.join(", "))
                    }
                }
            }
            ExprValue::Iterable(it) => {
                let items: Vec<String> = it.items.iter().map(ExprValue::repr).collect();
                format!("Iterable[{}]", items.join(", "))
            }
            ExprValue::Foreign(f) => f.repr(),
            ExprValue::Unspecified => "unspecified".to_string(),
        }
    }
}

impl From<Value> for ExprValue {
    /// An eager value as an expression value; a tuple is an expression
    /// tuple (there is one form of tuples in expressions).
    fn from(v: Value) -> ExprValue {
        match v {
            Value::Tuple(items) => ExprValue::tuple(items.into_iter().map(ExprValue::from).collect()),
            v => ExprValue::Data(v),
        }
    }
}
#[cfg(test)]
mod tests {
    /// A value is moved at every step of an evaluation: it stays the size
    /// of a DataSlice and its tag.
    #[test]
    fn values_stay_small() {
        assert!(std::mem::size_of::<super::ExprValue>() <= std::mem::size_of::<plait_core::DataSlice>() + 8);
    }
}
