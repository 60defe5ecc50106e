//! Schemas and the type-promotion lattice (seed 000, "Type Promotion").
//!
//! ```text
//!            OBJECT
//!        /  /  |  \   \
//!  FLOAT64 MASK BOOLEAN BYTES STRING EXPR      ITEMID  SCHEMA
//!     |
//!  FLOAT32
//!     |
//!   INT64
//!     |
//!   INT32
//!      \_____________ NONE (below everything) ___________/
//! ```
//!
//! The common schema of two schemas is their supremum in this lattice; it is the
//! only place plait decides type promotion ([`Schema::common`]).

use crate::itemid::ItemId;

/// A primitive or special schema, or a struct schema: the ItemId of a schema
/// item whose attributes (in a DataBag) give the schemas of the attributes of
/// the values (entities, lists, dicts).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Schema {
    None,
    Int32,
    Int64,
    Float32,
    Float64,
    Boolean,
    Mask,
    Bytes,
    String,
    Expr,
    ItemId,
    Schema,
    Object,
    Struct(ItemId),
}

/// The nofollow schema of OBJECT (`kd.nofollow` of objects): a fixed id of
/// kind [`ItemKind::NofollowSchema`](crate::itemid::ItemKind) whose bits
/// name no struct schema.
pub const NOFOLLOW_OBJECT: ItemId = ItemId((5u128 << 124) | (1u128 << 123) | 0x0b1e_c700_0000_0000_0000_0000_0000);

impl Schema {
    /// The nofollow schema of `self`: struct schemas and OBJECT have one
    /// (`kd.nofollow_schema`); `None` for the others and for nofollow
    /// schemas.
    pub fn nofollow(self) -> Option<Schema> {
        match self {
            Schema::Object => Some(Schema::Struct(NOFOLLOW_OBJECT)),
            Schema::Struct(id) => id.nofollow().map(Schema::Struct),
            _ => None,
        }
    }

    /// The schema nofollow schema `self` wraps (`kd.get_nofollowed_schema`);
    /// `None` when `self` is no nofollow schema.
    pub fn nofollowed(self) -> Option<Schema> {
        match self {
            Schema::Struct(NOFOLLOW_OBJECT) => Some(Schema::Object),
            Schema::Struct(id) => id.nofollowed().map(Schema::Struct),
            _ => None,
        }
    }

    /// Whether `self` is a nofollow schema.
    pub fn is_nofollow(self) -> bool {
        matches!(self, Schema::Struct(id) if id.is_nofollow())
    }

    /// Every schema, in a fixed order (used by tests and tables).
    pub const ALL: [Schema; 13] = [
        Schema::None,
        Schema::Int32,
        Schema::Int64,
        Schema::Float32,
        Schema::Float64,
        Schema::Boolean,
        Schema::Mask,
        Schema::Bytes,
        Schema::String,
        Schema::Expr,
        Schema::ItemId,
        Schema::Schema,
        Schema::Object,
    ];

    /// The name Koda prints for a primitive or special schema; struct schemas
    /// are printed with their bag (`ENTITY(x=INT32)`, see `repr`).
    pub fn name(self) -> &'static str {
        match self {
            Schema::None => "NONE",
            Schema::Int32 => "INT32",
            Schema::Int64 => "INT64",
            Schema::Float32 => "FLOAT32",
            Schema::Float64 => "FLOAT64",
            Schema::Boolean => "BOOLEAN",
            Schema::Mask => "MASK",
            Schema::Bytes => "BYTES",
            Schema::String => "STRING",
            Schema::Expr => "EXPR",
            Schema::ItemId => "ITEMID",
            Schema::Schema => "SCHEMA",
            Schema::Object => "OBJECT",
            Schema::Struct(_) => "STRUCT",
        }
    }

    /// Parses a schema name as printed by [`Schema::name`].
    pub fn from_name(name: &str) -> Option<Schema> {
        Schema::ALL.into_iter().find(|s| s.name() == name)
    }

    /// Position on the numeric chain INT32 < INT64 < FLOAT32 < FLOAT64.
    fn numeric_rank(self) -> Option<u8> {
        match self {
            Schema::Int32 => Some(0),
            Schema::Int64 => Some(1),
            Schema::Float32 => Some(2),
            Schema::Float64 => Some(3),
            _ => None,
        }
    }

    /// INT32, INT64, FLOAT32 or FLOAT64.
    pub fn is_numeric(self) -> bool {
        self.numeric_rank().is_some()
    }

    /// INT32 or INT64.
    pub fn is_integer(self) -> bool {
        matches!(self, Schema::Int32 | Schema::Int64)
    }

    /// FLOAT32 or FLOAT64.
    pub fn is_float(self) -> bool {
        matches!(self, Schema::Float32 | Schema::Float64)
    }

    /// Schemas whose values can live in an OBJECT slice (they sit below OBJECT in
    /// the lattice).
    pub fn is_below_object(self) -> bool {
        matches!(
            self,
            Schema::None
                | Schema::Int32
                | Schema::Int64
                | Schema::Float32
                | Schema::Float64
                | Schema::Boolean
                | Schema::Mask
                | Schema::Bytes
                | Schema::String
                | Schema::Expr
                | Schema::Object
        )
    }

    /// Whether this is a struct schema (entity, list or dict).
    pub fn is_struct(self) -> bool {
        matches!(self, Schema::Struct(_))
    }

    /// The schema item of a struct schema.
    pub fn struct_id(self) -> Option<ItemId> {
        match self {
            Schema::Struct(id) => Some(id),
            _ => None,
        }
    }

    /// Koda's primitive schemas: the ones whose values are plain data.
    pub fn is_primitive(self) -> bool {
        self.is_below_object() && !matches!(self, Schema::None | Schema::Object)
    }

    /// The supremum of `a` and `b` in the promotion lattice, or `None` when the
    /// two have no common schema (e.g. ITEMID and INT32).
    pub fn common(a: Schema, b: Schema) -> Option<Schema> {
        if a == b || b == Schema::None {
            return Some(a);
        }
        if a == Schema::None {
            return Some(b);
        }
        if let (Some(ra), Some(rb)) = (a.numeric_rank(), b.numeric_rank()) {
            return Some(if ra >= rb { a } else { b });
        }
        if a.is_below_object() && b.is_below_object() {
            return Some(Schema::Object);
        }
        None
    }

    /// Whether values of `self` may be cast implicitly (safely) to `target`.
    pub fn is_implicitly_castable_to(self, target: Schema) -> bool {
        Schema::common(self, target) == Some(target)
    }
}

impl std::fmt::Display for Schema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Schema::Struct(id) => f.write_str(&id.short()),
            other => f.write_str(other.name()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Schema::{self, *};

    #[test]
    fn nofollow_round_trips() {
        use crate::itemid::{ItemKind, allocate};
        for kind in [ItemKind::Schema, ItemKind::ImplicitSchema] {
            let s = Struct(allocate(kind, 1).1[0]);
            let n = s.nofollow().unwrap();
            assert!(n.is_nofollow() && !s.is_nofollow() && n.is_struct());
            assert_eq!(n.nofollowed(), Some(s));
            assert_eq!(n.nofollow(), Option::None);
        }
        let n = Object.nofollow().unwrap();
        assert_eq!(n.nofollowed(), Some(Object));
        assert_eq!(Int32.nofollow(), Option::None);
        assert_eq!(Int32.nofollowed(), Option::None);
    }

    #[test]
    fn seed_examples() {
        assert_eq!(Schema::common(Int32, Int64), Some(Int64));
        assert_eq!(Schema::common(Int32, Float64), Some(Float64));
        assert_eq!(Schema::common(Int32, Mask), Some(Object));
        assert_eq!(Schema::common(Int32, ItemId), Option::None);
        assert_eq!(Schema::common(Int32, Float32), Some(Float32));
    }

    #[test]
    fn lattice_is_associative_and_commutative() {
        for a in Schema::ALL {
            for b in Schema::ALL {
                assert_eq!(Schema::common(a, b), Schema::common(b, a), "{a} {b}");
                for c in Schema::ALL {
                    let left = Schema::common(a, b).and_then(|ab| Schema::common(ab, c));
                    let right = Schema::common(b, c).and_then(|bc| Schema::common(a, bc));
                    assert_eq!(left, right, "<{a}, {b}, {c}>");
                }
            }
        }
    }

    #[test]
    fn none_is_bottom() {
        for a in Schema::ALL {
            assert_eq!(Schema::common(None, a), Some(a));
        }
    }
}
