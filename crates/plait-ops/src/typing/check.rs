//! Soundness checks of the type rules (`PLAIT_CHECK_TYPES=1`): every
//! operator run eagerly also runs its type rule on the exact types of its
//! arguments, and the result must be of the inferred type. A rule that
//! infers a wrong schema, rank or size, or refuses arguments the kernel
//! accepts, is a bug in plait: the call raises an internal error naming the
//! operator and both types.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU8, Ordering};

use plait_core::typing::{Dim, SchemaType, Size};
use plait_core::{Edge, Error, JaggedShape, Result};

use super::{ArgType, SizeNames, TypeArgs, TypeRule, TypeValue, type_of};
use crate::registry::{Operator, Value};

/// 0: the environment not read yet; 1: off; 2: on.
static CHECK: AtomicU8 = AtomicU8::new(0);

/// Whether results are checked against their inferred types: the
/// `PLAIT_CHECK_TYPES` environment variable is `1` (read once), or
/// [`set_enabled`] said so.
pub fn enabled() -> bool {
    match CHECK.load(Ordering::Relaxed) {
        0 => {
            let on = std::env::var_os("PLAIT_CHECK_TYPES").is_some_and(|v| v == "1");
            CHECK.store(if on { 2 } else { 1 }, Ordering::Relaxed);
            on
        }
        state => state == 2,
    }
}

/// Turns the checks on or off for the rest of the process.
pub fn set_enabled(on: bool) {
    CHECK.store(if on { 2 } else { 1 }, Ordering::Relaxed);
}

/// Checks `result`, what `op` gave on arguments `values` (one per
/// parameter, defaults not applied), `var_args` and `var_kwargs`, against
/// what `rule` infers from their exact types.
pub(crate) fn check_result(
    op: &Operator,
    rule: &TypeRule,
    values: &[Option<Value>],
    var_args: &[Value],
    var_kwargs: &[(String, Value)],
    result: &Value,
) -> Result<()> {
    let names = SizeNames::default();
    let args = TypeArgs::new(
        op,
        values.iter().map(|v| v.as_ref().map(|v| ArgType::Owned(TypeValue::of_value(v)))).collect(),
        var_args.iter().map(|v| ArgType::Owned(TypeValue::of_value(v))).collect(),
        var_kwargs.iter().map(|(n, v)| (n.clone(), ArgType::Owned(TypeValue::of_value(v)))).collect(),
        &names,
    );
    let unsound = |why: String| Error::internal(format!("the type rule of {} is wrong: {why}", op.name));
    let inferred = (rule.0)(&args).map_err(|e| unsound(format!("it refuses arguments the operator accepts ({})", e.message)))?;
    let mut sizes = HashMap::new();
    conforms(&inferred, result, &mut sizes)
        .map_err(|why| unsound(format!("it infers {inferred}, the result is {}: {why}", TypeValue::of_value(result))))
}

/// Whether `value` is of type `t`; `sizes` binds the size parameters `t`
/// names to what they are in `value`, on the way.
fn conforms(t: &TypeValue, value: &Value, sizes: &mut HashMap<String, i64>) -> std::result::Result<(), String> {
    match (t.untagged(), value) {
        (TypeValue::Unknown, _) => Ok(()),
        (TypeValue::Slice(t, _), Value::Slice(x)) => {
            // A struct schema is described (read from the bag) only when
            // the inferred type says something of its structure.
            match &t.schema {
                SchemaType::Unknown => {}
                SchemaType::Named(s) if *s == x.schema() => {}
                SchemaType::Named(_) => schema_conforms(&t.schema, &SchemaType::of_schema(x.schema()))?,
                _ => schema_conforms(&t.schema, &type_of(x).schema)?,
            }
            dims_conform(&t.dims, x.shape(), sizes)
        }
        (TypeValue::SizeItem(size), Value::Slice(x)) => match (value_of(size, sizes), x.int_item()) {
            (_, None) => Err("not an integer item".to_string()),
            (Some(k), Some(v)) if k != v => Err(format!("the size {size} is {k}, the item {v}")),
            _ => Ok(()),
        },
        (TypeValue::Shape(dims), Value::Shape(shape)) => dims_conform(dims, shape, sizes),
        (TypeValue::Bag, Value::Bag(_)) => Ok(()),
        (TypeValue::Tuple(ts), Value::Tuple(vs)) if ts.len() == vs.len() => {
            ts.iter().zip(vs).enumerate().try_for_each(|(i, (t, v))| conforms(t, v, sizes).map_err(|why| format!("item {i}: {why}")))
        }
        _ => Err("a value of another kind".to_string()),
    }
}

/// Whether items of schema `actual` are of schema `t` (an entity type
/// lists some of the attributes, each of which must conform).
fn schema_conforms(t: &SchemaType, actual: &SchemaType) -> std::result::Result<(), String> {
    match (t, actual) {
        (SchemaType::Unknown, _) | (_, SchemaType::Unknown) => Ok(()),
        (SchemaType::Named(a), SchemaType::Named(b)) if a == b => Ok(()),
        (SchemaType::Entity(attrs), SchemaType::Entity(_)) => attrs.iter().try_for_each(|(name, s)| match actual.attr(name) {
            Some(a) => schema_conforms(s, &a).map_err(|why| format!("attribute '{name}': {why}")),
            None => Err(format!("no attribute '{name}'")),
        }),
        (SchemaType::List(a), SchemaType::List(b)) => schema_conforms(a, b),
        (SchemaType::Dict(ka, va), SchemaType::Dict(kb, vb)) => schema_conforms(ka, kb).and_then(|_| schema_conforms(va, vb)),
        _ => Err(format!("schema {actual} is not {t}")),
    }
}

/// Whether `shape` has dimensions `dims` (`None`: any).
fn dims_conform(dims: &Option<Vec<Dim>>, shape: &JaggedShape, sizes: &mut HashMap<String, i64>) -> std::result::Result<(), String> {
    let Some(dims) = dims else { return Ok(()) };
    let edges = shape.edges();
    if dims.len() != edges.len() {
        return Err(format!("rank {} is not {}", edges.len(), dims.len()));
    }
    for (i, (dim, edge)) in dims.iter().zip(edges).enumerate() {
        let (size, actual) = match dim {
            Dim::Unknown => continue,
            Dim::Ragged { total } => (total, RowSize::Is(edge.child_size() as i64)),
            Dim::Uniform(size) => (size, row_size(edge)),
        };
        let actual = match actual {
            RowSize::Is(k) => k,
            RowSize::NoRows => continue,
            RowSize::Varies => return Err(format!("dimension {i} is ragged, not {size}")),
        };
        match (size.as_param(), value_of(size, sizes)) {
            (_, Some(k)) if k != actual => return Err(format!("dimension {i} is {actual}, not {size} = {k}")),
            (Some(p), None) => {
                sizes.insert(p.to_string(), actual);
            }
            _ => {}
        }
    }
    Ok(())
}

/// The size of the rows of one dimension.
enum RowSize {
    /// Every row has this size (for the first dimension: its number of
    /// items).
    Is(i64),
    /// There are no rows: any size holds.
    NoRows,
    Varies,
}

fn row_size(edge: &Edge) -> RowSize {
    match edge {
        Edge::Uniform { parent_size: 0, .. } => RowSize::NoRows,
        Edge::Uniform { size, .. } => RowSize::Is(*size as i64),
        Edge::Split(points) => {
            let mut rows = points.windows(2).map(|w| w[1] - w[0]);
            match rows.next() {
                None => RowSize::NoRows,
                Some(first) if rows.all(|r| r == first) => RowSize::Is(first),
                Some(_) => RowSize::Varies,
            }
        }
    }
}

/// The value of `size` with the parameters bound so far, when they all are.
fn value_of(size: &Size, sizes: &HashMap<String, i64>) -> Option<i64> {
    size.substitute(&|p: &str| sizes.get(p).map(|&v| Size::constant(v)))?.as_constant()
}
