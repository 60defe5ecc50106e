//! Preparing the arguments of an elementwise operator: the one broadcasting
//! step (prefix broadcasting to the common shape, seed 000) and the one
//! promotion step ([`crate::promote`]), giving each argument as a single column
//! of the computation type. DataItems stay single values (never expanded), so
//! `x * 2.0` reads `x` once and writes the result once.

use arrow_buffer::NullBuffer;
use plait_core::broadcast::{common_shape, expand_to_shape};
use plait_core::cast::{NumSlice, cast_column};
use plait_core::{Column, DataSlice, JaggedShape, Result, Schema, SliceData, Values};

use crate::kernel::{Lane, Side, and_presence};
use crate::num::{Float, Num};
use crate::promote::{Promotion, TypeClass, promote};

/// One argument after broadcasting and promotion.
#[derive(Clone, Debug)]
pub struct Operand {
    /// `None` when no item is present.
    pub column: Option<Column>,
    /// A DataItem that applies to every item of the result.
    pub is_item: bool,
    /// The column still holds its own numeric type, which the kernel converts
    /// to the computation type as it reads it (see [`prepare_lazy`]).
    pub lazy: bool,
}

impl Operand {
    /// The values as one kernel side; the caller has checked the type.
    pub fn side<T: Num>(&self) -> Side<'_, T> {
        let values = T::slice_of(&self.column.as_ref().expect("operand has values").values).expect("operand type");
        if self.is_item { Side::One(values[0]) } else { Side::Many(values) }
    }

    /// The values as one kernel lane in `T`, converted as they are read when
    /// the operand was prepared lazily ([`prepare_lazy`]).
    pub fn lane<T: Num>(&self) -> Lane<'_, T> {
        let values = &self.column.as_ref().expect("operand has values").values;
        if self.lazy {
            return Lane::Widen(NumSlice::of(values).expect("a lazy operand is numeric"));
        }
        match self.side::<T>() {
            Side::Many(values) => Lane::Many(values),
            Side::One(v) => Lane::One(v),
        }
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
    prepare_operands(op, args, promotion, false)
}

/// Like [`prepare_as`], but a numeric slice of another numeric type than
/// the computation type keeps its values: the kernel reads it through
/// [`Operand::lane`], converting a block at a time, so `int32_slice + 1.5`
/// costs about what `float32_slice + 1.5` does instead of a cast of the
/// whole slice first. Only for kernels that read operands through lanes.
pub fn prepare_lazy(op: &str, args: &[(&str, &DataSlice)], promotion: Promotion) -> Result<Prepared> {
    prepare_operands(op, args, promotion, true)
}

/// The arguments broadcast to their common shape, each cast to the
/// promotion's type (`lazy`: numbers of another numeric type kept as they
/// are, for kernels reading through lanes).
fn prepare_operands(op: &str, args: &[(&str, &DataSlice)], promotion: Promotion, lazy: bool) -> Result<Prepared> {
    let shapes: Vec<&JaggedShape> = args.iter().map(|(_, x)| x.shape()).collect();
    let shape = common_shape(op, &shapes)?;
    let operands = args.iter().map(|(_, x)| operand(op, x, &shape, promotion.dtype, lazy)).collect::<Result<Vec<_>>>()?;
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
        operands.push(operand(op, x, &shape, dtype, false)?);
    }
    Ok(Prepared { shape, promotion, operands })
}

/// One argument broadcast to `shape` and cast to `dtype`; with `lazy`, a
/// numeric slice keeps its values for a kernel that converts them as it reads
/// (a DataItem is cast here: one value).
fn operand(op: &str, x: &DataSlice, shape: &JaggedShape, dtype: Schema, lazy: bool) -> Result<Operand> {
    let is_item = x.is_item() && shape.rank() > 0;
    let expanded;
    let x = if is_item || x.shape() == shape {
        x
    } else {
        expanded = expand_to_shape(op, x, shape, 0)?;
        &expanded
    };
    let mut lazy_cast = false;
    let column = match x.data().columns() {
        [] => None,
        [column] if dtype == Schema::None || column.values.dtype() == dtype => Some(column.clone()),
        [column] if lazy && !is_item && dtype.is_numeric() && column.values.dtype().is_numeric() => {
            // Promotion only widens numbers: the kernel's conversion is the cast.
            lazy_cast = true;
            Some(column.clone())
        }
        [column] => Some(cast_column(op, column, dtype)?),
        _ => unreachable!("promotion rejects mixed types"),
    };
    // An absent item makes every result item missing.
    let column = column.filter(|c| c.present_count() > 0);
    Ok(Operand { column, is_item, lazy: lazy_cast })
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
        let out = crate::kernel::map_lanes2(p.len(), a.lane::<T>(), b.lane::<T>(), K::apply::<T>);
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
        let out = crate::kernel::map_lane1(p.operands[0].lane::<T>(), K::apply::<T>);
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
        let out = crate::kernel::map_lanes2(p.len(), a.lane::<T>(), b.lane::<T>(), K::apply::<T>);
        p.finish(T::into_values(out), p.presence())
    })
}

/// Runs `K` over one argument prepared in a float type.
pub fn float_unary<K: FloatUnary>(p: &Prepared) -> Result<DataSlice> {
    if p.all_missing() {
        return Ok(p.missing(p.dtype()));
    }
    crate::with_float_type!(p.dtype(), T => {
        let out = crate::kernel::map_lane1(p.operands[0].lane::<T>(), K::apply::<T>);
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

#[cfg(test)]
mod tests {
    use arrow_buffer::NullBuffer;
    use plait_core::cast::cast_to;
    use plait_core::{Column, DataSlice, JaggedShape, Result, ScalarRef, Schema, SliceData, Values};

    use crate::kernel::PARALLEL_MIN;
    use crate::{comparison, masking, math};

    const NUMERIC: [Schema; 4] = [Schema::Int32, Schema::Int64, Schema::Float32, Schema::Float64];

    /// `n` items of numeric `dtype`, every fifth missing (its slot holding
    /// NaN or a huge integer, which no result may show), `seed` varying them.
    fn numbers(dtype: Schema, n: usize, seed: i64) -> DataSlice {
        let value = |k: usize| ((k as i64 * 37 + seed) % 101 - 50) as f64 * 0.75;
        let missing = |k: usize| k % 5 == 3;
        let values = match dtype {
            Schema::Int32 => Values::Int32((0..n).map(|k| if missing(k) { i32::MAX } else { value(k) as i32 }).collect::<Vec<_>>().into()),
            Schema::Int64 => Values::Int64((0..n).map(|k| if missing(k) { i64::MIN } else { value(k) as i64 }).collect::<Vec<_>>().into()),
            Schema::Float32 => Values::Float32((0..n).map(|k| if missing(k) { f32::NAN } else { value(k) as f32 }).collect::<Vec<_>>().into()),
            _ => Values::Float64((0..n).map(|k| if missing(k) { f64::NAN } else { value(k) }).collect::<Vec<_>>().into()),
        };
        let presence = NullBuffer::from((0..n).map(|k| !missing(k)).collect::<Vec<_>>());
        let data = SliceData::from_column(Column::new(values, Some(presence)));
        DataSlice::new(JaggedShape::flat(n), data, dtype).unwrap()
    }

    fn item(dtype: Schema, v: f64) -> DataSlice {
        let scalar = match dtype {
            Schema::Int32 => ScalarRef::Int32(v as i32),
            Schema::Int64 => ScalarRef::Int64(v as i64),
            Schema::Float32 => ScalarRef::Float32(v as f32),
            _ => ScalarRef::Float64(v),
        };
        DataSlice::item(Some(scalar), dtype).unwrap()
    }

    fn items(x: &DataSlice) -> (Schema, Vec<String>) {
        (x.schema(), (0..x.size()).map(|i| format!("{:?}", x.get(i))).collect())
    }

    type Binary = fn(&DataSlice, &DataSlice) -> Result<DataSlice>;

    const BINARY: [(&str, Binary); 11] = [
        ("add", math::add),
        ("subtract", math::subtract),
        ("multiply", math::multiply),
        ("divide", math::divide),
        ("pow", math::pow),
        ("maximum", math::maximum),
        ("minimum", math::minimum),
        ("less", comparison::less),
        ("greater_equal", comparison::greater_equal),
        ("equal", comparison::equal),
        ("not_equal", comparison::not_equal),
    ];

    /// `f(x, y)` with `x` and `y` of different types computes as `f` of both
    /// first cast to their common type (the path of one type).
    fn check_as_cast(name: &str, f: Binary, x: &DataSlice, y: &DataSlice) {
        let common = Schema::common(x.schema(), y.schema()).unwrap();
        let (cx, cy) = (cast_to("cast", x, common).unwrap(), cast_to("cast", y, common).unwrap());
        let (mixed, same) = (f(x, y).unwrap(), f(&cx, &cy).unwrap());
        assert_eq!(items(&mixed), items(&same), "{name}({}, {}) of {} items", x.schema(), y.schema(), mixed.size());
    }

    #[test]
    fn kernels_over_two_numeric_types_match_casting_first() {
        for a in NUMERIC {
            for b in NUMERIC {
                for n in [0, 1, 7, 1030] {
                    let (x, y) = (numbers(a, n, 3), numbers(b, n, 11));
                    for (name, f) in BINARY {
                        check_as_cast(name, f, &x, &y);
                        // A DataItem broadcast against a slice, on either side.
                        check_as_cast(name, f, &x, &item(b, 2.0));
                        check_as_cast(name, f, &item(a, -1.5), &y);
                    }
                }
                // Two DataItems; and an all-missing DataItem.
                for (name, f) in BINARY {
                    check_as_cast(name, f, &item(a, 3.0), &item(b, 0.5));
                    check_as_cast(name, f, &numbers(a, 4, 0), &DataSlice::item(None, b).unwrap());
                }
            }
        }
    }

    #[test]
    fn kernels_over_two_numeric_types_match_casting_first_in_parallel() {
        let n = PARALLEL_MIN + 1037;
        for (a, b) in [(Schema::Int32, Schema::Float32), (Schema::Float32, Schema::Float64), (Schema::Int64, Schema::Int32)] {
            let (x, y) = (numbers(a, n, 5), numbers(b, n, 8));
            for (name, f) in [BINARY[0], BINARY[3], BINARY[7]] {
                check_as_cast(name, f, &x, &y);
                check_as_cast(name, f, &y, &item(a, 7.0));
            }
        }
    }

    #[test]
    fn float_functions_of_integers_match_casting_first() {
        for a in NUMERIC {
            let x = numbers(a, 1030, 1);
            let as_float = cast_to("cast", &x, if a == Schema::Float64 { a } else { Schema::Float32 }).unwrap();
            for f in [math::sqrt, math::exp, math::log] {
                assert_eq!(items(&f(&x).unwrap()), items(&f(&as_float).unwrap()), "{a}");
            }
        }
    }

    #[test]
    fn mask_coalesce_is_the_union_of_presence() {
        let m = comparison::less(&numbers(Schema::Int32, 300, 2), &item(Schema::Int32, 0.0)).unwrap();
        let other = masking::has(&numbers(Schema::Float32, 300, 9)).unwrap();
        let union = masking::coalesce(&m, &other).unwrap();
        assert_eq!(union.schema(), Schema::Mask);
        for i in 0..300 {
            assert_eq!(union.get(i).is_some(), m.get(i).is_some() || other.get(i).is_some(), "{i}");
        }
    }
}
