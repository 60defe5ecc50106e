//! Schemas in abstract types: Koda's schemas, with entity, list and dict
//! schemas described by their structure (the attributes' schemas) rather
//! than by a schema item of some bag.

use std::fmt;
use std::sync::Arc;

use crate::schema::Schema;

/// What is known of a slice's schema.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SchemaType {
    Unknown,
    /// A schema without attributes: a primitive, NONE, OBJECT, ITEMID,
    /// SCHEMA or EXPR (never `Schema::Struct`).
    Named(Schema),
    /// Entities with these attributes (sorted by name; others may exist).
    Entity(Vec<(Arc<str>, SchemaType)>),
    /// Lists of items of this schema.
    List(Box<SchemaType>),
    /// Dicts from keys to values of these schemas.
    Dict(Box<SchemaType>, Box<SchemaType>),
}

impl SchemaType {
    /// The type of a schema without attributes; a struct schema, whose
    /// attributes live in a bag, is `Unknown` here.
    pub fn of_schema(schema: Schema) -> SchemaType {
        match schema {
            Schema::Struct(_) => SchemaType::Unknown,
            other => SchemaType::Named(other),
        }
    }

    /// Entities with `attrs` (in any order; a name given twice keeps its
    /// last schema).
    pub fn entity(attrs: impl IntoIterator<Item = (Arc<str>, SchemaType)>) -> SchemaType {
        let mut attrs: Vec<(Arc<str>, SchemaType)> = attrs.into_iter().collect();
        attrs.reverse();
        attrs.sort_by(|a, b| a.0.cmp(&b.0));
        attrs.dedup_by(|a, b| a.0 == b.0);
        SchemaType::Entity(attrs)
    }

    /// The schema, when it is a named one.
    pub fn named(&self) -> Option<Schema> {
        match self {
            SchemaType::Named(s) => Some(*s),
            _ => None,
        }
    }

    /// The schema of attribute `name` of entities of this schema: `None`
    /// when the entity schema has no such attribute; unknown for unknown
    /// schemas and OBJECT (whose items carry their own schemas); SCHEMA for
    /// schema items (whose attributes are schemas, except the `__...__`
    /// ones they keep for themselves).
    pub fn attr(&self, name: &str) -> Option<SchemaType> {
        match self {
            SchemaType::Entity(attrs) => attrs.iter().find(|(n, _)| n.as_ref() == name).map(|(_, s)| s.clone()),
            SchemaType::Unknown | SchemaType::Named(Schema::Object) => Some(SchemaType::Unknown),
            // A schema's metadata (`__schema_metadata__`) is an object.
            SchemaType::Named(Schema::Schema) if name.starts_with("__") => Some(SchemaType::Unknown),
            SchemaType::Named(Schema::Schema) => Some(SchemaType::Named(Schema::Schema)),
            // Missing items have every attribute, missing.
            SchemaType::Named(Schema::None) => Some(SchemaType::Named(Schema::None)),
            _ => None,
        }
    }

    /// The common schema of `a` and `b` on Koda's promotion lattice (NONE
    /// below everything, numbers widen, primitives of different kinds meet
    /// at OBJECT); unknown when either is, `None` when there is none.
    pub fn common(a: &SchemaType, b: &SchemaType) -> Option<SchemaType> {
        match (a, b) {
            (SchemaType::Unknown, _) | (_, SchemaType::Unknown) => Some(SchemaType::Unknown),
            (SchemaType::Named(x), SchemaType::Named(y)) => Schema::common(*x, *y).map(SchemaType::Named),
            (SchemaType::Named(Schema::None), other) | (other, SchemaType::Named(Schema::None)) => Some(other.clone()),
            (x, y) if x == y => Some(x.clone()),
            // Types describe struct schemas by structure, as their bags show
            // them: one schema may be seen with different attributes.
            (x, y) if x.may_be(y) => Some(SchemaType::Unknown),
            _ => None,
        }
    }

    /// Whether a schema of type `self` may be the schema of type `other`:
    /// two entity types may (an entity schema is known by the attributes
    /// some bag gives it), a list and a dict may not.
    pub fn may_be(&self, other: &SchemaType) -> bool {
        match (self, other) {
            (SchemaType::Unknown, _) | (_, SchemaType::Unknown) => true,
            (SchemaType::Named(x), SchemaType::Named(y)) => x == y,
            (SchemaType::Entity(_), SchemaType::Entity(_)) => true,
            (SchemaType::List(x), SchemaType::List(y)) => x.may_be(y),
            (SchemaType::Dict(kx, vx), SchemaType::Dict(ky, vy)) => kx.may_be(ky) && vx.may_be(vy),
            _ => false,
        }
    }
}

/// `INT32`, `Entity(x=INT32, y=?)`, `LIST[STRING]`, `DICT{STRING, INT64}`,
/// `?` when unknown.
impl fmt::Display for SchemaType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SchemaType::Unknown => write!(f, "?"),
            SchemaType::Named(s) => write!(f, "{}", s.name()),
            SchemaType::Entity(attrs) => {
                write!(f, "Entity(")?;
                for (i, (name, schema)) in attrs.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{name}={schema}")?;
                }
                write!(f, ")")
            }
            SchemaType::List(items) => write!(f, "LIST[{items}]"),
            SchemaType::Dict(keys, values) => write!(f, "DICT{{{keys}, {values}}}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(s: Schema) -> SchemaType {
        SchemaType::Named(s)
    }

    #[test]
    fn text_forms() {
        let e = SchemaType::entity([(Arc::from("y"), SchemaType::Unknown), (Arc::from("x"), named(Schema::Int32))]);
        assert_eq!(e.to_string(), "Entity(x=INT32, y=?)");
        assert_eq!(SchemaType::List(Box::new(named(Schema::String))).to_string(), "LIST[STRING]");
        assert_eq!(SchemaType::Dict(Box::new(named(Schema::String)), Box::new(e.clone())).to_string(), "DICT{STRING, Entity(x=INT32, y=?)}");
        assert_eq!(e.attr("x"), Some(named(Schema::Int32)));
        assert_eq!(e.attr("z"), None);
        assert_eq!(named(Schema::Object).attr("z"), Some(SchemaType::Unknown));
        assert_eq!(named(Schema::Int32).attr("z"), None);
    }

    #[test]
    fn common_follows_the_lattice() {
        let c = |a, b| SchemaType::common(&named(a), &named(b));
        assert_eq!(c(Schema::Int32, Schema::Float32), Some(named(Schema::Float32)));
        assert_eq!(c(Schema::Int32, Schema::String), Some(named(Schema::Object)));
        assert_eq!(c(Schema::ItemId, Schema::Int32), None);
        let e = SchemaType::entity([]);
        assert_eq!(SchemaType::common(&e, &named(Schema::None)), Some(e.clone()));
        assert_eq!(SchemaType::common(&e, &named(Schema::Int32)), None);
        assert_eq!(SchemaType::common(&e, &SchemaType::Unknown), Some(SchemaType::Unknown));
    }
}
