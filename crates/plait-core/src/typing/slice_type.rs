//! The abstract type of a DataSlice.

use std::fmt;

use super::dim::Dim;
use super::schema_type::SchemaType;
use super::size::Size;
use crate::shape::{Edge, JaggedShape};

/// A schema and, when the rank is known, one dimension per rank.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SliceType {
    pub schema: SchemaType,
    /// `None`: the rank is unknown.
    pub dims: Option<Vec<Dim>>,
}

impl SliceType {
    pub fn new(schema: SchemaType, dims: Vec<Dim>) -> SliceType {
        SliceType { schema, dims: Some(dims) }
    }

    /// Nothing known.
    pub fn unknown() -> SliceType {
        SliceType { schema: SchemaType::Unknown, dims: None }
    }

    /// The rank, when known.
    pub fn rank(&self) -> Option<usize> {
        self.dims.as_ref().map(Vec::len)
    }

    /// The same dimensions with another schema.
    pub fn with_schema(&self, schema: SchemaType) -> SliceType {
        SliceType { schema, dims: self.dims.clone() }
    }

    /// The same schema, rank unknown.
    pub fn with_unknown_dims(&self) -> SliceType {
        SliceType { schema: self.schema.clone(), dims: None }
    }

    /// The dimensions of a concrete shape: a uniform edge is its size, a
    /// split edge ragged with its number of items.
    pub fn dims_of(shape: &JaggedShape) -> Vec<Dim> {
        shape
            .edges()
            .iter()
            .map(|edge| match edge {
                Edge::Uniform { size, .. } => Dim::Uniform(Size::constant(*size as i64)),
                Edge::Split(_) => Dim::Ragged { total: Size::constant(edge.child_size() as i64) },
            })
            .collect()
    }
}

/// `FLOAT32[n, *]`, `INT32[]` (an item), `?[...]` (nothing known).
impl fmt::Display for SliceType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[", self.schema)?;
        match &self.dims {
            None => write!(f, "...")?,
            Some(dims) => {
                for (i, d) in dims.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{d}")?;
                }
            }
        }
        write!(f, "]")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Schema;

    #[test]
    fn text_form() {
        let t = SliceType::new(SchemaType::Named(Schema::Float32), vec![Dim::Uniform(Size::param("n")), Dim::Ragged { total: Size::param("t") }]);
        assert_eq!(t.to_string(), "FLOAT32[n, *]");
        assert_eq!(SliceType::new(SchemaType::Named(Schema::Int32), vec![]).to_string(), "INT32[]");
        assert_eq!(SliceType::unknown().to_string(), "?[...]");
    }

    #[test]
    fn dims_of_a_jagged_shape() {
        let shape = JaggedShape::from_edges(vec![Edge::uniform(1, 2), Edge::from_sizes(&[2, 1]).unwrap(), Edge::uniform(3, 4)]).unwrap();
        let dims = SliceType::dims_of(&shape);
        assert_eq!(dims, vec![Dim::Uniform(Size::constant(2)), Dim::Ragged { total: Size::constant(3) }, Dim::Uniform(Size::constant(4))]);
    }
}
