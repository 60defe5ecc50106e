//! Shapes from Koda's dimension forms (`kd.shapes.new(2, [2, 1])`,
//! `kd.reshape(x, (-1, 3))`): an integer item is a uniform dimension (two
//! numbers, however large), a DataSlice the size of each parent.

use plait_core::cast::cast_to;
use plait_core::{DataSlice, Edge, Error, JaggedShape, Result, ScalarRef, Schema};

use crate::registry::Value;

/// One dimension as given.
enum Dim<'a> {
    Uniform(i64),
    Sizes(&'a DataSlice),
}

fn dim<'a>(op: &str, i: usize, v: &'a Value) -> Result<Dim<'a>> {
    let Value::Slice(x) = v else {
        return Err(Error::type_error(op, format!("dimension {i} must be an int, a list of ints or a DataSlice of sizes, got {}", v.describe())));
    };
    // Koda's conversion to INT64: integers only (in OBJECT too), no
    // parsing of texts, no narrowing of floats.
    let dtypes = match x.schema() {
        Schema::Object => x.data().columns().iter().filter(|c| c.present_count() > 0).map(|c| c.values.dtype()).collect(),
        schema => vec![schema],
    };
    if let Some(&bad) = dtypes.iter().find(|d| !matches!(d, Schema::Int32 | Schema::Int64 | Schema::None | Schema::Object)) {
        return Err(Error::value(op, crate::registry::not_integer(bad)));
    }
    match (x.rank(), x.get(0)) {
        (0, Some(ScalarRef::Int32(n))) => Ok(Dim::Uniform(n as i64)),
        (0, Some(ScalarRef::Int64(n))) => Ok(Dim::Uniform(n)),
        (0, _) => Err(Error::value(op, format!("expected a present value for dimension {i}"))),
        (1, _) => Ok(Dim::Sizes(x)),
        (rank, _) => Err(Error::value(op, format!("unsupported DataSlice rank: {rank} (dimension {i} must be an int or a 1-D DataSlice of sizes)"))),
    }
}

/// The sizes a DataSlice dimension lists (as INT64), in order.
fn sizes(op: &str, i: usize, x: &DataSlice) -> Result<Vec<i64>> {
    let sizes = cast_to(op, x, Schema::Int64)?;
    (0..sizes.size())
        .map(|k| match sizes.get(k) {
            Some(ScalarRef::Int64(v)) => Ok(v),
            _ => Err(Error::value(op, format!("dimension {i} has a missing size"))),
        })
        .collect()
}

/// The shape with dimensions `dims`, outermost first.
pub fn shape_from_dims(op: &str, dims: &[Value]) -> Result<JaggedShape> {
    let mut edges = Vec::with_capacity(dims.len());
    let mut parent = 1usize;
    for (i, d) in dims.iter().enumerate() {
        let edge = match dim(op, i, d)? {
            Dim::Sizes(x) => {
                let sizes = sizes(op, i, x)?;
                if sizes.len() != parent {
                    return Err(Error::value(
                        op,
                        format!("dimension {i} has {} size(s) but the previous dimension has {parent} item(s)", sizes.len()),
                    ));
                }
                Edge::from_sizes(&sizes)?
            }
            Dim::Uniform(size) if size < 0 => return Err(Error::value(op, format!("dimension {i} has a negative size {size}"))),
            Dim::Uniform(size) => {
                let total = (parent as u64).checked_mul(size as u64).filter(|&t| t <= i64::MAX as u64);
                if total.is_none() {
                    return Err(Error::value(op, format!("dimension {i} would hold more than 2**63 items")));
                }
                Edge::uniform(parent, size as usize)
            }
        };
        parent = edge.child_size();
        edges.push(edge);
    }
    JaggedShape::from_edges(edges)
}

/// `dims` with its -1 (at most one) replaced by the uniform size that makes
/// the shape hold `items` items, as Koda resolves it.
pub fn resolve_placeholder(op: &str, items: usize, dims: &[Value]) -> Result<Vec<Value>> {
    let parsed = dims.iter().enumerate().map(|(i, d)| dim(op, i, d)).collect::<Result<Vec<_>>>()?;
    let holes: Vec<usize> = parsed.iter().enumerate().filter(|(_, d)| matches!(d, Dim::Uniform(-1))).map(|(i, _)| i).collect();
    let at = match holes[..] {
        [] => return Ok(dims.to_vec()),
        [at] => at,
        _ => return Err(Error::value(op, "only one dimension can be a placeholder")),
    };
    // i128: products of two i64 sizes cannot overflow.
    let total = |i: usize, d: &Dim<'_>, parents: i128| -> Result<i128> {
        Ok(match d {
            Dim::Uniform(n) => parents * *n as i128,
            Dim::Sizes(x) => sizes(op, i, x)?.iter().map(|&s| s as i128).sum(),
        })
    };
    let mut parent_size: i128 = 1;
    for (i, d) in parsed[..at].iter().enumerate() {
        parent_size = total(i, d, parent_size)?.min(i64::MAX as i128);
    }
    let mut child_size = items as i128;
    for d in parsed[at + 1..].iter().rev() {
        match d {
            Dim::Sizes(x) => child_size = x.size() as i128,
            Dim::Uniform(n) if *n == 0 || child_size % *n as i128 != 0 => {
                return Err(Error::value(
                    op,
                    format!(
                        "{child_size} items cannot be split into dimensions of size {n}, so the placeholder dimension at index {at} cannot be resolved"
                    ),
                ));
            }
            Dim::Uniform(n) => child_size /= *n as i128,
        }
    }
    if parent_size == 0 || child_size % parent_size != 0 {
        return Err(Error::value(
            op,
            format!(
                "parent_size={parent_size} does not divide child_size={child_size}, so the placeholder dimension at index {at} cannot be resolved"
            ),
        ));
    }
    let size = i64::try_from(child_size / parent_size).map_err(|_| Error::value(op, "the placeholder dimension is too large"))?;
    let mut out = dims.to_vec();
    out[at] = Value::Slice(DataSlice::item(Some(ScalarRef::Int64(size)), Schema::Int64)?);
    Ok(out)
}
