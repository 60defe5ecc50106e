//! Joining slices: `kd.slices.concat` (along an existing dimension), `stack`
//! (along a new one) and `zip` (stack after aligning).
//!
//! ```text
//! concat([[1, 2], [3]], [[4], [5, 6]])          [[1, 2, 4], [3, 5, 6]]
//! stack([1, 2], [3, 4])                          [[1, 3], [2, 4]]
//! stack([1, 2], [3, 4], ndim=1)                  [[1, 2], [3, 4]]
//! ```

use arrow_buffer::{BooleanBufferBuilder, NullBuffer};
use plait_core::broadcast::align_to_first_widest;
use plait_core::cast::cast_to_implicit;
use plait_core::column::ColumnBuilder;
use plait_core::{Column, DataSlice, Edge, Error, JaggedShape, Result, Schema, SliceData, Values};

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
    if dim == 0 {
        return concat_rows(&args, schema);
    }
    let mut base = Vec::with_capacity(args.len());
    let mut total = 0;
    for x in &args {
        base.push(total);
        total += x.size();
    }
    let all = concat_data(&args.iter().map(|x| x.data()).collect::<Vec<_>>());
    if dim + 1 == args[0].rank() {
        return concat_last(&args, &prefix, &base, &all, schema);
    }
    // Under each prefix item `q`, each argument's subtree is one run of
    // items at every level: track the runs `(argument, lo..hi)` in result
    // order, level by level, then copy the last level's runs.
    let mut runs: Vec<(usize, usize, usize)> = Vec::with_capacity(prefix.size() * args.len());
    let mut sizes = Vec::with_capacity(prefix.size());
    for q in 0..prefix.size() {
        let mut size = 0;
        for (a, x) in args.iter().enumerate() {
            let r = x.shape().edges()[dim].child_range(q);
            size += r.len();
            runs.push((a, r.start, r.end));
        }
        sizes.push(size as i64);
    }
    let mut edges: Vec<Edge> = prefix.edges().to_vec();
    edges.push(Edge::from_sizes(&sizes)?);
    for level in dim + 1..args[0].rank() {
        let mut sizes = Vec::new();
        for run in &mut runs {
            let (a, lo, hi) = *run;
            let edge = &args[a].shape().edges()[level];
            sizes.extend((lo..hi).map(|i| edge.size_of(i) as i64));
            *run = (a, edge.start_of(lo), edge.start_of(hi));
        }
        edges.push(Edge::from_sizes(&sizes)?);
    }
    let ranges: Vec<std::ops::Range<usize>> = runs.iter().filter(|(_, lo, hi)| hi > lo).map(|&(a, lo, hi)| base[a] + lo..base[a] + hi).collect();
    DataSlice::new(JaggedShape::from_edges(edges)?, all.take_ranges(&ranges), schema)
}

/// `args` concatenated along their last dimension (what `stack(..., ndim=0)`
/// and `zip` do): under each prefix item, the items of each argument in
/// turn, gathered from `all` (the arguments' items one after another,
/// argument `a`'s from `base[a]`) by index, with no list of runs.
fn concat_last(args: &[DataSlice], prefix: &JaggedShape, base: &[usize], all: &SliceData, schema: Schema) -> Result<DataSlice> {
    let dim = prefix.rank();
    let last: Vec<&Edge> = args.iter().map(|x| &x.shape().edges()[dim]).collect();
    let mut indices = Vec::with_capacity(all.len());
    let uniform: Option<Vec<usize>> = last.iter().map(|e| e.uniform_size()).collect();
    let edge = match uniform {
        // Every argument has rows of one size: so has the result.
        Some(sizes) => {
            for q in 0..prefix.size() {
                for (a, &size) in sizes.iter().enumerate() {
                    let start = base[a] + q * size;
                    indices.extend(start..start + size);
                }
            }
            Edge::uniform(prefix.size(), sizes.iter().sum())
        }
        None => {
            let mut sizes = Vec::with_capacity(prefix.size());
            for q in 0..prefix.size() {
                let mut size = 0;
                for (a, e) in last.iter().enumerate() {
                    let r = e.child_range(q);
                    size += r.len();
                    indices.extend(base[a] + r.start..base[a] + r.end);
                }
                sizes.push(size as i64);
            }
            Edge::from_sizes(&sizes)?
        }
    };
    let mut edges: Vec<Edge> = prefix.edges().to_vec();
    edges.push(edge);
    DataSlice::new(JaggedShape::from_edges(edges)?, all.take(&indices), schema)
}

/// `args` along dimension 0: their rows one after another, so each level's
/// edges and the items follow one another too (no gather).
fn concat_rows(args: &[DataSlice], schema: Schema) -> Result<DataSlice> {
    let rows = args.iter().map(|x| x.shape().edges()[0].child_size()).sum();
    let mut edges = vec![Edge::uniform(1, rows)];
    for level in 1..args[0].rank() {
        let level_edges: Vec<&Edge> = args.iter().map(|x| &x.shape().edges()[level]).collect();
        let parents = level_edges.iter().map(|e| e.parent_size()).sum();
        let uniform = level_edges[0].uniform_size().filter(|&size| level_edges.iter().all(|e| e.uniform_size() == Some(size)));
        edges.push(match uniform {
            Some(size) => Edge::uniform(parents, size),
            None => Edge::from_sizes(&level_edges.iter().flat_map(|e| e.sizes()).collect::<Vec<_>>())?,
        });
    }
    let data = concat_data(&args.iter().map(|x| x.data()).collect::<Vec<_>>());
    DataSlice::new(JaggedShape::from_edges(edges)?, data, schema)
}

/// The items of `parts` one after another: fixed-width values and
/// presence a part at a time, other values item by item.
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
            let of_parts: Vec<(usize, Option<&Column>)> =
                parts.iter().map(|p| (p.len(), p.columns().iter().find(|c| c.values.dtype() == dtype))).collect();
            concat_fixed_width(&of_parts, total).unwrap_or_else(|| concat_by_item(dtype, &of_parts, total))
        })
        .collect();
    SliceData::from_columns(total, columns)
}

/// The column of one type over parts (a part without it: missing there),
/// when its values have a fixed width; `None` for other types.
fn concat_fixed_width(parts: &[(usize, Option<&Column>)], total: usize) -> Option<Column> {
    fn join<'a, T: Copy + Default + 'a>(
        parts: &[(usize, Option<&'a Column>)],
        total: usize,
        get: impl Fn(&'a Values) -> Option<&'a [T]>,
    ) -> Option<Vec<T>> {
        let mut out: Vec<T> = Vec::with_capacity(total);
        for (len, column) in parts {
            match column {
                Some(c) => out.extend_from_slice(get(&c.values)?),
                None => out.resize(out.len() + len, T::default()),
            }
        }
        Some(out)
    }
    let dtype = parts.iter().find_map(|(_, c)| c.map(|c| c.values.dtype()))?;
    let values = match dtype {
        Schema::Int32 | Schema::Int64 | Schema::Float32 | Schema::Float64 => {
            crate::with_num_type!(dtype, T => <T as crate::num::Num>::into_values(join(parts, total, <T as crate::num::Num>::slice_of)?))
        }
        Schema::ItemId => Values::ItemId(join(parts, total, |v| if let Values::ItemId(ids) = v { Some(ids.bits()) } else { None })?.into()),
        Schema::Boolean => {
            let mut bits = BooleanBufferBuilder::new(total);
            for (len, column) in parts {
                match column.map(|c| &c.values) {
                    Some(Values::Boolean(b)) => bits.append_buffer(b),
                    Some(_) => return None,
                    None => bits.append_n(*len, false),
                }
            }
            Values::Boolean(bits.finish())
        }
        Schema::Mask => Values::Mask(total),
        _ => return None,
    };
    let all_present = parts.iter().all(|(_, c)| c.is_some_and(|c| c.presence.is_none()));
    let presence = (!all_present).then(|| {
        let mut bits = BooleanBufferBuilder::new(total);
        for (len, column) in parts {
            match column.map(|c| c.presence.as_ref()) {
                Some(Some(p)) => bits.append_buffer(p.inner()),
                Some(None) => bits.append_n(*len, true),
                None => bits.append_n(*len, false),
            }
        }
        NullBuffer::new(bits.finish())
    });
    Some(Column::new(values, presence))
}

/// The column of one type over parts, item by item.
fn concat_by_item(dtype: Schema, parts: &[(usize, Option<&Column>)], total: usize) -> Column {
    let mut out = ColumnBuilder::new(dtype, total);
    for (len, column) in parts {
        match column {
            Some(c) => (0..c.len()).for_each(|i| match c.get(i) {
                Some(v) => out.push(v),
                None => out.push_missing(),
            }),
            None => (0..*len).for_each(|_| out.push_missing()),
        }
    }
    out.finish()
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
    let aligned = align_to_first_widest(op, args)?;
    stack_as(op, &aligned.iter().collect::<Vec<_>>(), 0)
}
