//! Joining slices: `kd.slices.concat` (along an existing dimension), `stack`
//! (along a new one) and `zip` (stack after aligning).
//!
//! ```text
//! concat([[1, 2], [3]], [[4], [5, 6]])          [[1, 2, 4], [3, 5, 6]]
//! stack([1, 2], [3, 4])                          [[1, 3], [2, 4]]
//! stack([1, 2], [3, 4], ndim=1)                  [[1, 2], [3, 4]]
//! ```

use plait_core::broadcast::align;
use plait_core::cast::cast_to_implicit;
use plait_core::column::ColumnBuilder;
use plait_core::{DataSlice, Edge, Error, JaggedShape, Result, Schema, SliceData};

/// Checks that there are arguments and that they share one rank.
fn check_ranks(op: &str, args: &[&DataSlice]) -> Result<usize> {
    let Some(first) = args.first() else {
        return Err(Error::value(op, "expected a nonzero number of args"));
    };
    for x in args {
        if x.rank() != first.rank() {
            return Err(Error::value(op, format!("all concat/stack args must have the same rank, got {} and {}", first.rank(), x.rank())));
        }
    }
    Ok(first.rank())
}

/// The items of `args` concatenated along dimension `dim` (edge index): under
/// each item of the shared prefix, the subtrees of every argument in turn.
fn concat_at(op: &str, args: &[DataSlice], dim: usize) -> Result<DataSlice> {
    let prefix = args[0].shape().prefix(dim);
    if args.iter().any(|x| x.shape().prefix(dim) != prefix) {
        return Err(Error::value(op, "concat/stack requires all inputs to have the same shape prefix before the concatenation dimension"));
    }
    let schema = args.iter().try_fold(Schema::None, |acc, x| Schema::common(acc, x.schema())).ok_or_else(|| {
        let bag = plait_core::DataBag::combined(args.iter().filter_map(DataSlice::bag));
        let schemas: Vec<Schema> = args.iter().map(DataSlice::schema).collect();
        Error::value(op, plait_core::bag::text::no_common_schema_among(&schemas, bag.as_ref()))
    })?;
    let args: Vec<DataSlice> = args.iter().map(|x| cast_to_implicit(op, x, schema)).collect::<Result<_>>()?;
    // The items of each level in result order, as (argument, index).
    let mut items: Vec<(usize, usize)> = Vec::new();
    let mut sizes = Vec::with_capacity(prefix.size());
    for q in 0..prefix.size() {
        let before = items.len();
        for (a, x) in args.iter().enumerate() {
            items.extend(x.shape().edges()[dim].child_range(q).map(|c| (a, c)));
        }
        sizes.push((items.len() - before) as i64);
    }
    let mut edges: Vec<Edge> = prefix.edges().to_vec();
    edges.push(Edge::from_sizes(&sizes)?);
    for level in dim + 1..args[0].rank() {
        let mut next = Vec::with_capacity(items.len());
        let mut sizes = Vec::with_capacity(items.len());
        for &(a, i) in &items {
            let range = args[a].shape().edges()[level].child_range(i);
            sizes.push(range.len() as i64);
            next.extend(range.map(|c| (a, c)));
        }
        edges.push(Edge::from_sizes(&sizes)?);
        items = next;
    }
    let mut base = Vec::with_capacity(args.len());
    let mut total = 0;
    for x in &args {
        base.push(total);
        total += x.size();
    }
    let all = concat_data(&args.iter().map(|x| x.data()).collect::<Vec<_>>());
    let indices: Vec<usize> = items.iter().map(|&(a, i)| base[a] + i).collect();
    DataSlice::new(JaggedShape::from_edges(edges)?, all.take(&indices), schema)
}

/// The items of `parts` one after another.
fn concat_data(parts: &[&SliceData]) -> SliceData {
    let total: usize = parts.iter().map(|d| d.len()).sum();
    let mut dtypes: Vec<Schema> = Vec::new();
    for d in parts.iter().flat_map(|p| p.dtypes()) {
        if !dtypes.contains(&d) {
            dtypes.push(d);
        }
    }
    let columns = dtypes
        .into_iter()
        .map(|dtype| {
            let mut out = ColumnBuilder::new(dtype, total);
            for part in parts {
                match part.columns().iter().find(|c| c.values.dtype() == dtype) {
                    Some(c) => (0..c.len()).for_each(|i| match c.get(i) {
                        Some(v) => out.push(v),
                        None => out.push_missing(),
                    }),
                    None => (0..part.len()).for_each(|_| out.push_missing()),
                }
            }
            out.finish()
        })
        .collect();
    SliceData::from_columns(total, columns)
}

/// `args` concatenated along dimension `rank - ndim`.
pub fn concat(args: &[&DataSlice], ndim: i64) -> Result<DataSlice> {
    let op = "kd.slices.concat";
    let rank = check_ranks(op, args)?;
    if rank == 0 {
        return Err(Error::value(op, "concatentation of DataItems (rank=0) is not supported - use stack instead"));
    }
    if ndim < 1 || ndim as usize > rank {
        return Err(Error::value(op, format!("invalid ndim={ndim} for rank={rank} concat")));
    }
    let args: Vec<DataSlice> = args.iter().map(|x| (*x).clone()).collect();
    concat_at(op, &args, rank - ndim as usize)
}

/// `args` stacked along a new dimension inserted at `rank - ndim`.
pub fn stack(args: &[&DataSlice], ndim: i64) -> Result<DataSlice> {
    stack_as("kd.slices.stack", args, ndim)
}

fn stack_as(op: &str, args: &[&DataSlice], ndim: i64) -> Result<DataSlice> {
    let rank = check_ranks(op, args)?;
    if ndim < 0 || ndim as usize > rank {
        return Err(Error::value(op, format!("invalid ndim={ndim} for rank={rank} stack")));
    }
    let dim = rank - ndim as usize;
    // A unit dimension at `dim` in every argument, then concatenation along it.
    let args: Vec<DataSlice> = args.iter().map(|x| x.with_shape(op, x.shape().flatten(dim, dim))).collect::<Result<_>>()?;
    concat_at(op, &args, dim)
}

/// `args` aligned, then stacked along a new last dimension.
pub fn zip(args: &[&DataSlice]) -> Result<DataSlice> {
    let op = "kd.slices.zip";
    if args.is_empty() {
        return Err(Error::value(op, "expected a nonzero number of args"));
    }
    let aligned = align(op, args)?;
    stack_as(op, &aligned.iter().collect::<Vec<_>>(), 0)
}
