//! DataSlice: a jagged shape, the items stored in typed columns, and a schema.
//! A DataItem is a DataSlice of rank 0. Slices are immutable: every operation
//! returns a new slice that shares buffers with its input where it can.
//! A slice of entities, objects, lists or dicts carries the DataBag that holds
//! their attributes.

use crate::bag::DataBag;
use crate::column::{Column, ScalarRef, SliceBuilder, SliceData, Values};
use crate::error::{Error, Result};
use crate::schema::Schema;
use crate::shape::JaggedShape;

/// A multidimensional, jagged, schema-typed collection of items.
#[derive(Clone, Debug)]
pub struct DataSlice {
    shape: JaggedShape,
    data: SliceData,
    schema: Schema,
    bag: Option<DataBag>,
}

impl DataSlice {
    /// A slice from its parts, checking that the items fill the shape and that
    /// every item's type is allowed by the schema.
    pub fn new(shape: JaggedShape, data: SliceData, schema: Schema) -> Result<DataSlice> {
        if shape.size() != data.len() {
            return Err(Error::internal(format!("{} items do not fill shape {shape} of size {}", data.len(), shape.size())));
        }
        for dtype in data.dtypes() {
            if !schema_admits(schema, dtype) {
                return Err(Error::internal(format!("an item of type {dtype} cannot have schema {schema}")));
            }
        }
        Ok(DataSlice { shape, data, schema, bag: None })
    }

    /// A slice whose schema is the common schema of its items' types.
    pub fn from_data(op: &str, shape: JaggedShape, data: SliceData) -> Result<DataSlice> {
        let schema = common_schema_of(op, data.dtypes())?;
        DataSlice::new(shape, data, schema)
    }

    /// A DataItem holding `value` (or missing) with `schema`.
    pub fn item(value: Option<ScalarRef<'_>>, schema: Schema) -> Result<DataSlice> {
        // Numbers, text, schemas, ids and missing items directly (loops
        // such as `kd.map`, single writes and per-item reads make DataItems
        // per item); other values through a builder.
        let number = |values: Values| SliceData::from_column(Column::new(values, None));
        let data = match value {
            None => SliceData::missing(1),
            Some(ScalarRef::Int32(v)) => number(Values::Int32(vec![v].into())),
            Some(ScalarRef::Int64(v)) => number(Values::Int64(vec![v].into())),
            Some(ScalarRef::Float32(v)) => number(Values::Float32(vec![v].into())),
            Some(ScalarRef::Float64(v)) => number(Values::Float64(vec![v].into())),
            Some(ScalarRef::String(v)) => number(Values::String(one_value(v.as_bytes()))),
            Some(ScalarRef::Bytes(v)) => number(Values::Bytes(one_value(v))),
            Some(ScalarRef::Mask) => number(Values::Mask(1)),
            Some(ScalarRef::Schema(v)) => number(Values::Schema(crate::column::SchemaValues::same(v, 1))),
            Some(ScalarRef::ItemId(v)) => number(Values::ItemId(vec![v.0 as i128].into())),
            Some(other) => {
                let mut builder = SliceBuilder::new();
                builder.push(Some(other));
                builder.finish()
            }
        };
        DataSlice::new(JaggedShape::scalar(), data, schema)
    }

    /// A slice of `shape` whose items are all missing, with `schema`.
    pub fn missing(shape: JaggedShape, schema: Schema) -> DataSlice {
        let data = SliceData::missing(shape.size());
        DataSlice { shape, data, schema, bag: None }
    }

    /// The shape.
    pub fn shape(&self) -> &JaggedShape {
        &self.shape
    }

    /// The items, flat.
    pub fn data(&self) -> &SliceData {
        &self.data
    }

    /// The schema.
    pub fn schema(&self) -> Schema {
        self.schema
    }

    /// Number of dimensions.
    pub fn rank(&self) -> usize {
        self.shape.rank()
    }

    /// Whether this is a DataItem (rank 0).
    pub fn is_item(&self) -> bool {
        self.shape.rank() == 0
    }

    /// Number of items, present or missing.
    pub fn size(&self) -> usize {
        self.data.len()
    }

    /// Number of present items.
    pub fn present_count(&self) -> usize {
        self.data.present_count()
    }

    /// The item at flat position `i`, if present.
    pub fn get(&self, i: usize) -> Option<ScalarRef<'_>> {
        self.data.get(i)
    }

    /// The value of an INT32 or INT64 item (`None` for anything else: a
    /// slice, a missing item, another kind of value).
    pub fn int_item(&self) -> Option<i64> {
        match (self.is_item(), self.get(0)) {
            (true, Some(ScalarRef::Int32(v))) => Some(v as i64),
            (true, Some(ScalarRef::Int64(v))) => Some(v),
            _ => None,
        }
    }

    /// The same items under another shape of the same size (no copy).
    pub fn with_shape(&self, op: &str, shape: JaggedShape) -> Result<DataSlice> {
        if shape.size() != self.size() {
            return Err(Error::value(
                op,
                format!("shape size must be compatible with number of items: shape_size={} != items_size={}", shape.size(), self.size()),
            ));
        }
        Ok(DataSlice { shape, data: self.data.clone(), schema: self.schema, bag: self.bag.clone() })
    }

    /// The same items with other items data under the same shape (internal).
    pub(crate) fn with_data(&self, data: SliceData, schema: Schema) -> Result<DataSlice> {
        Ok(DataSlice::new(self.shape.clone(), data, schema)?.with_bag(self.bag.clone()))
    }

    /// The DataBag holding the attributes of the items, if any.
    pub fn bag(&self) -> Option<&DataBag> {
        self.bag.as_ref()
    }

    /// The same slice with `bag` (`kd.with_bag`, or `None` for `kd.no_bag`).
    pub fn with_bag(mut self, bag: Option<DataBag>) -> DataSlice {
        self.bag = bag;
        self
    }

    /// Reinterprets the items as `schema` without changing them
    /// (`DataSlice.with_schema`): allowed when every item's type fits the schema.
    pub fn with_schema(&self, schema: Schema) -> Result<DataSlice> {
        for dtype in self.data.dtypes() {
            if !schema_admits(schema, dtype) {
                let message = if schema == Schema::None {
                    "NONE schema requires DataSlice to be empty and unknown".to_string()
                } else if schema.is_struct() {
                    "DataSlice with an Entity schema must hold Entities or Objects.".to_string()
                } else {
                    format!(
                        "{schema} schema can only be assigned to a DataSlice that contains only \
                         primitives of {schema}, got items of type {dtype} (use kd.cast_to to convert them)"
                    )
                };
                return Err(Error::value("kd.schema.with_schema", message));
            }
        }
        Ok(DataSlice { shape: self.shape.clone(), data: self.data.clone(), schema, bag: self.bag.clone() })
    }

    /// The narrowed schema (seed 000, "Narrowing"): for OBJECT, the common schema
    /// of the present items' types (OBJECT when they have none; NONE when no
    /// item is present); otherwise the schema itself.
    pub fn narrowed_schema(&self) -> Schema {
        if self.schema != Schema::Object {
            return self.schema;
        }
        self.data.dtypes().try_fold(Schema::None, Schema::common).unwrap_or(Schema::Object)
    }
}

/// Whether a slice with `schema` may hold an item of type `dtype`.
pub fn schema_admits(schema: Schema, dtype: Schema) -> bool {
    match schema {
        Schema::Object => dtype.is_primitive() || matches!(dtype, Schema::ItemId | Schema::Schema),
        Schema::Struct(_) => dtype == Schema::ItemId,
        other => other == dtype,
    }
}

/// The common schema of `schemas` (NONE for none), or the error naming the pair
/// that has no common schema.
pub fn common_schema_of(op: &str, schemas: impl IntoIterator<Item = Schema>) -> Result<Schema> {
    let mut acc = Schema::None;
    for s in schemas {
        acc = Schema::common(acc, s).ok_or_else(|| Error::value(op, format!("no common schema for {acc} and {s}")))?;
    }
    Ok(acc)
}

/// The text column of one value.
fn one_value(bytes: &[u8]) -> crate::column::VarBinary {
    let mut builder = crate::column::VarBinaryBuilder::with_capacity(1);
    builder.push(bytes);
    builder.finish()
}
