//! Preparing the arguments of an elementwise operator: the one broadcasting
//! step (prefix broadcasting to the common shape, seed 000) and the one
//! promotion step ([`crate::promote`]), giving each argument as a single column
//! of the computation type. DataItems stay single values (never expanded), so
//! `x * 2.0` reads `x` once and writes the result once.

use arrow_buffer::NullBuffer;
use plait_core::broadcast::{common_shape, expand_to_shape};
use plait_core::cast::cast_column;
use plait_core::{Column, DataSlice, JaggedShape, Result, Schema, SliceData, Values};

use crate::kernel::{Side, and_presence};
use crate::num::{Float, Num};
use crate::promote::{Promotion, TypeClass, promote};

/// One argument after broadcasting and promotion.
#[derive(Clone, Debug)]
pub struct Operand {
    /// `None` when no item is present.
    pub column: Option<Column>,
    /// A DataItem that applies to every item of the result.
    pub is_item: bool,
}

impl Operand {
    /// The values as one kernel side; the caller has checked the type.
    pub fn side<T: Num>(&self) -> Side<'_, T> {
        let values = T::slice_of(&self.column.as_ref().expect("operand has values").values).expect("operand type");
        if self.is_item { Side::One(values[0]) } else { Side::Many(values) }
    }

    /// The presence bitmap over the result's items (`None` = all present).
    pub fn presence(&self) -> Option<&NullBuffer> {
        if self.is_item { None } else { self.column.as_ref().and_then(|c| c.presence.as_ref()) }
    }

    /// The values, for kernels that are not numeric.
    pub fn values(&self) -> &Values {
        &self.column.as_ref().expect("operand has values").values
    }

    /// Whether item `i` of the result sees a present value here.
    pub fn is_present(&self, i: usize) -> bool {
        match &self.column {
            None => false,
            Some(c) => self.is_item || c.is_present(i),
        }
    }

    /// Index of the value that item `i` of the result reads.
    pub fn index(&self, i: usize) -> usize {
        if self.is_item { 0 } else { i }
    }
}

/// The arguments of an elementwise operator, ready for a kernel.
#[derive(Clone, Debug)]
pub struct Prepared {
    pub shape: JaggedShape,
    pub promotion: Promotion,
    pub operands: Vec<Operand>,
}

impl Prepared {
    /// Number of result items.
    pub fn len(&self) -> usize {
        self.shape.size()
    }

    /// Whether the result has no items.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The computation type.
    pub fn dtype(&self) -> Schema {
        self.promotion.dtype
    }

    /// Whether some argument has no present item, so no result item is present.
    pub fn all_missing(&self) -> bool {
        self.operands.iter().any(|o| o.column.is_none())
    }

    /// Items present in every argument.
    pub fn presence(&self) -> Option<NullBuffer> {
        self.operands.iter().fold(None, |acc, o| and_presence(acc.as_ref(), o.presence()))
    }

    /// The all-missing result whose items would have type `out`.
    pub fn missing(&self, out: Schema) -> DataSlice {
        DataSlice::missing(self.shape.clone(), self.promotion.schema(out))
    }

    /// The result of a kernel that wrote `values` (of type `out`) for every
    /// item; items are present where `presence` says.
    pub fn finish(&self, values: Values, presence: Option<NullBuffer>) -> Result<DataSlice> {
        let out = values.dtype();
        let column = Column::new(values, presence);
        let data = SliceData::from_column(column);
        DataSlice::new(self.shape.clone(), data, self.promotion.schema(out))
    }
}

/// Broadcasts the named arguments of `op` to their common shape and promotes
/// them to one type accepted by `class`.
pub fn prepare(op: &str, args: &[(&str, &DataSlice)], class: TypeClass) -> Result<Prepared> {
    let promotion = promote(op, args, class)?;
    prepare_as(op, args, promotion)
}

/// Like [`prepare`] with the promotion already decided.
pub fn prepare_as(op: &str, args: &[(&str, &DataSlice)], promotion: Promotion) -> Result<Prepared> {
    let shapes: Vec<&JaggedShape> = args.iter().map(|(_, x)| x.shape()).collect();
    let shape = common_shape(op, &shapes)?;
    let mut operands = Vec::with_capacity(args.len());
    for (_, x) in args {
        operands.push(operand(op, x, &shape, promotion.dtype)?);
    }
    Ok(Prepared { shape, promotion, operands })
}

/// Broadcasts the named arguments of `op` to their common shape, converting
/// each to its own type (`dtypes[i]`, e.g. text and offsets in one call); the
/// promotion describes the result.
pub fn prepare_each(op: &str, args: &[(&str, &DataSlice)], dtypes: &[Schema], promotion: Promotion) -> Result<Prepared> {
    let shapes: Vec<&JaggedShape> = args.iter().map(|(_, x)| x.shape()).collect();
    let shape = common_shape(op, &shapes)?;
    let mut operands = Vec::with_capacity(args.len());
    for ((_, x), &dtype) in args.iter().zip(dtypes) {
        operands.push(operand(op, x, &shape, dtype)?);
    }
    Ok(Prepared { shape, promotion, operands })
}

fn operand(op: &str, x: &DataSlice, shape: &JaggedShape, dtype: Schema) -> Result<Operand> {
    let is_item = x.is_item() && shape.rank() > 0;
    let expanded;
    let x = if is_item || x.shape() == shape {
        x
    } else {
        expanded = expand_to_shape(op, x, shape, 0)?;
        &expanded
    };
    let column = match x.data().columns() {
        [] => None,
        [column] => Some(if dtype == Schema::None { column.clone() } else { cast_column(op, column, dtype)? }),
        _ => unreachable!("promotion rejects mixed types"),
    };
    // An absent item makes every result item missing.
    let column = column.filter(|c| c.present_count() > 0);
    Ok(Operand { column, is_item })
}

/// A numeric kernel of two arguments, generic over the value type.
pub trait NumBinary {
    fn apply<T: Num>(a: T, b: T) -> T;
}

/// A numeric kernel of one argument, generic over the value type.
pub trait NumUnary {
    fn apply<T: Num>(a: T) -> T;
}

/// Runs `K` over two prepared numeric arguments; the result has their type.
pub fn numeric_binary<K: NumBinary>(p: &Prepared) -> Result<DataSlice> {
    if p.all_missing() {
        return Ok(p.missing(p.dtype()));
    }
    crate::with_num_type!(p.dtype(), T => {
        let [a, b] = [&p.operands[0], &p.operands[1]];
        let out = crate::kernel::map2(p.len(), a.side::<T>(), b.side::<T>(), K::apply::<T>);
        p.finish(T::into_values(out), p.presence())
    })
}

/// `K` on two present numeric DataItems, computed on the values alone: the
/// common case of expressions over items, where building columns would cost
/// more than the arithmetic. `None` sends the call down the general path
/// (slices, missing items, other kinds of values).
pub fn numeric_items<K: NumBinary>(x: &DataSlice, y: &DataSlice, promotion: &Promotion) -> Option<DataSlice> {
    if !x.is_item() || !y.is_item() || !matches!(promotion.dtype, Schema::Int32 | Schema::Int64 | Schema::Float32 | Schema::Float64) {
        return None;
    }
    let (a, b) = (x.get(0)?, y.get(0)?);
    crate::with_num_type!(promotion.dtype, T => {
        let out = K::apply(T::from_scalar(a)?, T::from_scalar(b)?);
        let column = Column::new(T::into_values(vec![out]), None);
        Some(DataSlice::new(JaggedShape::scalar(), SliceData::from_column(column), promotion.schema(T::SCHEMA)).ok()?)
    })
}

/// Runs `K` over one prepared numeric argument; the result has its type.
pub fn numeric_unary<K: NumUnary>(p: &Prepared) -> Result<DataSlice> {
    if p.all_missing() {
        return Ok(p.missing(p.dtype()));
    }
    crate::with_num_type!(p.dtype(), T => {
        let a = &p.operands[0];
        let out = match a.side::<T>() {
            Side::Many(values) => crate::kernel::map1(values, K::apply::<T>),
            Side::One(v) => vec![K::apply(v)],
        };
        p.finish(T::into_values(out), p.presence())
    })
}

/// A float kernel of two arguments, generic over the float type.
pub trait FloatBinary {
    fn apply<T: Float>(a: T, b: T) -> T;
}

/// A float kernel of one argument, generic over the float type.
pub trait FloatUnary {
    fn apply<T: Float>(a: T) -> T;
}

/// Runs `K` over two arguments prepared in a float type.
pub fn float_binary<K: FloatBinary>(p: &Prepared) -> Result<DataSlice> {
    if p.all_missing() {
        return Ok(p.missing(p.dtype()));
    }
    crate::with_float_type!(p.dtype(), T => {
        let [a, b] = [&p.operands[0], &p.operands[1]];
        let out = crate::kernel::map2(p.len(), a.side::<T>(), b.side::<T>(), K::apply::<T>);
        p.finish(T::into_values(out), p.presence())
    })
}

/// Runs `K` over one argument prepared in a float type.
pub fn float_unary<K: FloatUnary>(p: &Prepared) -> Result<DataSlice> {
    if p.all_missing() {
        return Ok(p.missing(p.dtype()));
    }
    crate::with_float_type!(p.dtype(), T => {
        let out = match p.operands[0].side::<T>() {
            Side::Many(values) => crate::kernel::map1(values, K::apply::<T>),
            Side::One(v) => vec![K::apply(v)],
        };
        p.finish(T::into_values(out), p.presence())
    })
}

/// The float type numeric `dtype` computes in for operators with float results
/// (`/`, `**`, `log`, ...): FLOAT64 stays, every other number becomes FLOAT32.
pub fn float_type(dtype: Schema) -> Schema {
    match dtype {
        Schema::Float64 => Schema::Float64,
        Schema::None => Schema::None,
        _ => Schema::Float32,
    }
}
