//! Operators over slices of schemas (`kd.schema.common_schema`,
//! `kd.schema.agg_common_schema`).

use crate::column::{ScalarRef, SliceBuilder};
use crate::error::{Error, Result};
use crate::schema::Schema;
use crate::slice::DataSlice;

/// The common schema of the schemas in the last `ndim` dimensions of `x`, one
/// per item of the remaining dimensions. Missing items are skipped; a group with
/// no present schema gives a missing item.
pub fn agg_common_schema(op: &str, x: &DataSlice, ndim: usize) -> Result<DataSlice> {
    if !matches!(x.schema(), Schema::Schema | Schema::Object | Schema::None) {
        return Err(Error::value(op, format!("argument `x` must be a slice of SCHEMA, got a slice of {}", x.schema())));
    }
    if ndim > x.rank() {
        return Err(Error::value(op, format!("expected 0 <= ndim <= rank, got ndim={ndim} and rank={}", x.rank())));
    }
    let keep = x.rank() - ndim;
    let flat = x.shape().flatten(keep, x.rank());
    let groups = &flat.edges()[keep];
    let mut out = SliceBuilder::new();
    for g in 0..groups.parent_size() {
        let mut acc: Option<Schema> = None;
        for i in groups.child_range(g) {
            match x.get(i) {
                Some(ScalarRef::Schema(s)) => {
                    let current = acc.unwrap_or(Schema::None);
                    acc = Some(Schema::common(current, s).ok_or_else(|| {
                        let group: Vec<Schema> = groups
                            .child_range(g)
                            .filter_map(|j| match x.get(j) {
                                Some(ScalarRef::Schema(s)) => Some(s),
                                _ => None,
                            })
                            .collect();
                        Error::value(op, crate::bag::text::no_common_schema_among(&group, x.bag()))
                    })?);
                }
                None => {}
                Some(other) => {
                    return Err(Error::value(op, format!("expected schemas, got an item of type {}", other.dtype())));
                }
            }
        }
        out.push(acc.map(ScalarRef::Schema));
    }
    DataSlice::new(x.shape().prefix(keep), out.finish(), Schema::Schema)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::{Edge, JaggedShape};

    #[test]
    fn aggregates_rows() {
        let mut b = SliceBuilder::new();
        for s in [Schema::Int32, Schema::Float32, Schema::Int64, Schema::Mask] {
            b.push(Some(ScalarRef::Schema(s)));
        }
        let shape = JaggedShape::from_edges(vec![Edge::uniform(1, 2), Edge::uniform(2, 2)]).unwrap();
        let x = DataSlice::new(shape, b.finish(), Schema::Schema).unwrap();
        let rows = agg_common_schema("op", &x, 1).unwrap();
        assert_eq!(rows.get(0), Some(ScalarRef::Schema(Schema::Float32)));
        assert_eq!(rows.get(1), Some(ScalarRef::Schema(Schema::Object)));
        let all = agg_common_schema("op", &x, 2).unwrap();
        assert_eq!(all.get(0), Some(ScalarRef::Schema(Schema::Object)));
    }
}
