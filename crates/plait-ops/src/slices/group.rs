//! Grouping equal items of the last dimension: `kd.slices.unique`,
//! `group_by_indices` and `group_by`.
//!
//! ```text
//! x                     [1, 2, 1, None, 3, 2]
//! unique(x)             [1, 2, 3]                 first appearance order
//! group_by_indices(x)   [[0, 2], [1, 5], [4]]     a new dimension of groups
//! group_by(x)           [[1, 1], [2, 2], [3]]
//! ```
//!
//! Items are equal when their [`Key`]s are: numbers of one kind by value
//! (INT32 1 equals INT64 1, but not FLOAT32 1.0). `unique` treats NaNs as one
//! value; `group_by` puts every NaN in a group of its own, as Koda does.

use plait_core::{DataSlice, Edge, Error, JaggedShape, Result, Schema};

use super::gather::{int64_slice, replace_last_edge};
use std::hash::Hash;

use super::group_narrow::narrow_int_groups;
use super::keys::{Key, KeyUser, NanKeys, fast_map, fixed_keys, is_nan_key, keys_of, with_item_keys};

/// Checks that items of `x` can be sorted by `unique`/`group_by` (`sort=True`).
fn check_sortable(op: &str, x: &DataSlice) -> Result<()> {
    let dtypes: Vec<Schema> = x.data().dtypes().collect();
    if dtypes.len() > 1 {
        return Err(Error::value(op, "sort is not supported for mixed dtype"));
    }
    match dtypes.first() {
        Some(Schema::Schema) => Err(Error::value(op, "sort is not supported for DTYPE")),
        _ => Ok(()),
    }
}

/// The distinct present items of each group of the last dimension, in order
/// of first appearance (or sorted, NaN last).
pub fn unique(x: &DataSlice, sort: bool) -> Result<DataSlice> {
    let op = "kd.slices.unique";
    if sort {
        check_sortable(op, x)?;
    }
    if x.is_item() {
        return Ok(x.clone());
    }
    let edge = &x.shape().edges()[x.rank() - 1];
    struct FirstOfEach<'a> {
        edge: &'a Edge,
        sort: bool,
    }
    impl KeyUser for FirstOfEach<'_> {
        type Output = (Vec<usize>, Vec<i64>);
        fn use_keys<K: Hash + Ord + Copy + Send + Sync>(self, key: impl Fn(usize) -> Option<K> + Sync) -> Self::Output {
            first_of_each(self.edge, key, self.sort)
        }
    }
    let (firsts, sizes) = with_item_keys(x.data(), FirstOfEach { edge, sort });
    let shape = replace_last_edge(x.shape(), &sizes)?;
    DataSlice::new(shape, x.data().take(&firsts), x.schema())
}

/// The items a task of the worker pool takes in `first_of_each` and
/// `first_of_big_group`.
const RUN_ITEMS: usize = 1 << 16;

/// The first position of each distinct key in each group of `edge` (sorted by
/// key with `sort`), and how many there are per group. Many groups of many
/// items in all are split into runs of groups (~64K items each) computed
/// at once on the worker pool.
fn first_of_each<K: Hash + Ord + Copy + Send>(edge: &Edge, key: impl Fn(usize) -> Option<K> + Sync, sort: bool) -> (Vec<usize>, Vec<i64>) {
    use rayon::prelude::*;
    let groups = edge.parent_size();
    if edge.child_size() < crate::kernel::PARALLEL_MIN {
        return first_of_groups(edge, 0..groups, &key, sort);
    }
    if groups == 1 {
        let firsts = first_of_big_group(edge.child_range(0), &key, sort);
        let size = firsts.len() as i64;
        return (firsts, vec![size]);
    }
    let mut bounds = vec![0];
    let mut items = 0;
    for g in 0..groups {
        items += edge.size_of(g);
        if items >= RUN_ITEMS {
            bounds.push(g + 1);
            items = 0;
        }
    }
    if bounds.last() != Some(&groups) {
        bounds.push(groups);
    }
    let runs: Vec<(Vec<usize>, Vec<i64>)> =
        plait_core::parallel::install(|| bounds.par_windows(2).map(|w| first_of_groups(edge, w[0]..w[1], &key, sort)).collect());
    let mut firsts = Vec::with_capacity(runs.iter().map(|r| r.0.len()).sum());
    let mut sizes = Vec::with_capacity(groups);
    for (f, s) in runs {
        firsts.extend(f);
        sizes.extend(s);
    }
    (firsts, sizes)
}

/// The first position of each distinct key in one large group `range`
/// (sorted by key with `sort`): runs of ~64K items each find their own
/// firsts on the worker pool, then the runs' firsts are taken in order,
/// keeping each key's first (the earliest run that has a key has its first
/// appearance).
fn first_of_big_group<K: Hash + Ord + Copy + Send>(
    range: std::ops::Range<usize>,
    key: &(impl Fn(usize) -> Option<K> + Sync),
    sort: bool,
) -> Vec<usize> {
    use rayon::prelude::*;
    let starts: Vec<usize> = range.clone().step_by(RUN_ITEMS).collect();
    let runs: Vec<Vec<usize>> = plait_core::parallel::install(|| {
        starts
            .par_iter()
            .map(|&start| {
                let mut seen = fast_map::<K, ()>(0);
                let mut firsts = Vec::new();
                for i in start..(start + RUN_ITEMS).min(range.end) {
                    if let Some(k) = key(i) {
                        if seen.insert(k, ()).is_none() {
                            firsts.push(i);
                        }
                    }
                }
                firsts
            })
            .collect()
    });
    let mut seen = fast_map::<K, ()>(runs.first().map_or(0, Vec::len));
    let mut firsts: Vec<usize> = runs.into_iter().flatten().filter(|&i| seen.insert(key(i).expect("present"), ()).is_none()).collect();
    if sort {
        firsts.sort_unstable_by_key(|&i| (key(i).expect("present"), i));
    }
    firsts
}

/// [`first_of_each`] for groups `groups` of `edge`.
fn first_of_groups<K: Hash + Ord + Copy>(
    edge: &Edge,
    groups: std::ops::Range<usize>,
    key: &impl Fn(usize) -> Option<K>,
    sort: bool,
) -> (Vec<usize>, Vec<i64>) {
    // Groups this small compare each key with the distinct ones kept so far
    // (cheaper than hashing them).
    const SMALL_GROUP: usize = 32;
    let mut seen = fast_map::<K, ()>(0);
    let items = edge.start_of(groups.end) - edge.start_of(groups.start);
    let mut firsts: Vec<usize> = Vec::with_capacity(items);
    let mut sizes = Vec::with_capacity(groups.len());
    for group in groups {
        let range = edge.child_range(group);
        let start = firsts.len();
        if range.len() <= SMALL_GROUP {
            for i in range {
                if let Some(k) = key(i) {
                    if !firsts[start..].iter().any(|&j| key(j) == Some(k)) {
                        firsts.push(i);
                    }
                }
            }
        } else {
            seen.clear();
            // Room for a few thousand keys, grown as more come: a group of
            // a million items with few distinct keys keeps a table that
            // fits in cache.
            seen.reserve(range.len().min(1 << 12));
            for i in range {
                if let Some(k) = key(i) {
                    if seen.insert(k, ()).is_none() {
                        firsts.push(i);
                    }
                }
            }
        }
        if sort {
            let mut keyed: Vec<(K, usize)> = firsts[start..].iter().map(|&i| (key(i).expect("present"), i)).collect();
            keyed.sort_unstable();
            firsts.truncate(start);
            firsts.extend(keyed.into_iter().map(|(_, i)| i));
        }
        sizes.push((firsts.len() - start) as i64);
    }
    (firsts, sizes)
}

/// The groups of equal key tuples in each group of the last dimension.
struct Grouping {
    /// The input shape without its last dimension, then groups, then members.
    shape: JaggedShape,
    /// The members of every group, as positions in the inputs.
    members: Vec<usize>,
}

fn group(op: &str, keys: &[&DataSlice], sort: bool) -> Result<Grouping> {
    let Some(first) = keys.first() else {
        return Err(Error::value(op, "expected at least one argument"));
    };
    if first.is_item() {
        return Err(Error::value(op, "group_by arguments must be DataSlices with ndim > 0, got DataItems"));
    }
    if keys.iter().any(|k| k.shape() != first.shape()) {
        return Err(Error::value(op, "all arguments must have the same shape"));
    }
    if sort {
        for k in keys {
            check_sortable(op, k)?;
        }
    }
    let shape = first.shape();
    let edge = &shape.edges()[shape.rank() - 1];
    // One parent of integer keys of a narrow range: counting passes on the
    // worker threads.
    if let ([only], 1) = (keys, edge.parent_size()) {
        if let Some((members, sizes)) = only.data().single_column().and_then(|c| narrow_int_groups(c, sort)) {
            let groups = Edge::from_sizes(&[sizes.len() as i64])?;
            let shape = shape.prefix(shape.rank() - 1).with_edge(groups)?.with_edge(Edge::from_sizes(&sizes)?)?;
            return Ok(Grouping { shape, members });
        }
    }
    let (ids, count, order_keys) = match one_fixed_key(keys) {
        Some((column, fixed)) => {
            let (ids, count) = fixed_key_ids(edge, column, &fixed);
            (ids, count, OrderKeys::Fixed(fixed))
        }
        None => {
            let all_keys: Vec<Vec<Option<Key<'_>>>> = keys.iter().map(|k| keys_of(k.data(), NanKeys::Distinct)).collect();
            let (ids, count) = key_tuple_ids(edge, &all_keys);
            (ids, count, OrderKeys::Tuples(all_keys))
        }
    };
    // The first member of each group, and how many members it has.
    let mut first_member = vec![usize::MAX; count];
    let mut sizes = vec![0usize; count];
    for (i, &id) in ids.iter().enumerate() {
        if id != usize::MAX {
            if sizes[id] == 0 {
                first_member[id] = i;
            }
            sizes[id] += 1;
        }
    }
    // Groups are numbered parent after parent: the parent of each group's
    // first member, found by walking the parents once.
    let mut groups_per_parent = vec![0i64; edge.parent_size()];
    let mut parent = 0;
    for &f in &first_member {
        while edge.child_range(parent).end <= f {
            parent += 1;
        }
        groups_per_parent[parent] += 1;
    }
    // The order of groups: as they appeared, or by their key tuples within
    // each parent (groups of one parent are contiguous).
    let mut order: Vec<usize> = (0..count).collect();
    if sort {
        let mut start = 0;
        for &k in &groups_per_parent {
            let end = start + k as usize;
            order[start..end].sort_by(|&a, &b| order_keys.cmp(first_member[a], first_member[b]));
            start = end;
        }
    }
    // Members by group (a counting sort keeps positions in order).
    let mut offset = vec![0usize; count];
    let mut total = 0;
    for &g in &order {
        offset[g] = total;
        total += sizes[g];
    }
    let mut members = vec![0usize; total];
    for (i, &id) in ids.iter().enumerate() {
        if id != usize::MAX {
            members[offset[id]] = i;
            offset[id] += 1;
        }
    }
    let member_sizes: Vec<i64> = order.iter().map(|&g| sizes[g] as i64).collect();
    let shape = shape.prefix(shape.rank() - 1).with_edge(Edge::from_sizes(&groups_per_parent)?)?.with_edge(Edge::from_sizes(&member_sizes)?)?;
    debug_assert_eq!(shape.size(), members.len());
    Ok(Grouping { shape, members })
}

/// The keys groups are sorted by: one fixed-width column's order-preserving
/// keys, or the key tuples of any columns.
enum OrderKeys<'a> {
    Fixed(Vec<u64>),
    Tuples(Vec<Vec<Option<Key<'a>>>>),
}

impl OrderKeys<'_> {
    /// The order of the keys of items `a` and `b`.
    fn cmp(&self, a: usize, b: usize) -> std::cmp::Ordering {
        match self {
            OrderKeys::Fixed(keys) => keys[a].cmp(&keys[b]),
            OrderKeys::Tuples(all) => all.iter().map(|v| v[a].cmp(&v[b])).find(|o| o.is_ne()).unwrap_or(std::cmp::Ordering::Equal),
        }
    }
}

/// The column and its fixed-width keys when `keys` is one slice of one
/// fixed-width column (numbers, booleans, masks).
fn one_fixed_key<'a>(keys: &[&'a DataSlice]) -> Option<(&'a plait_core::Column, Vec<u64>)> {
    let [only] = keys else { return None };
    let column = only.data().single_column()?;
    Some((column, fixed_keys(&column.values)?))
}

/// Group ids for one fixed-width key column: (parent, key) numbered in
/// order of first appearance, `usize::MAX` for a missing key, and each
/// NaN a group of its own (as Koda groups them). Also the number of groups.
fn fixed_key_ids(edge: &Edge, column: &plait_core::Column, keys: &[u64]) -> (Vec<usize>, usize) {
    let mut ids = vec![usize::MAX; keys.len()];
    let mut count = 0;
    // (An integer key may equal the NaN key: only floats have NaNs.)
    let floats = matches!(column.values, plait_core::Values::Float32(_) | plait_core::Values::Float64(_));
    // One parent and integer keys of a narrow range: the group of each key
    // is read from a table indexed by the key, without hashing.
    if !floats && edge.parent_size() == 1 {
        let present = |i: &usize| column.is_present(*i);
        let (low, high) = (0..keys.len()).filter(present).fold((u64::MAX, 0), |(lo, hi), i| (lo.min(keys[i]), hi.max(keys[i])));
        if low <= high && high - low < (keys.len() as u64).max(1 << 16) {
            let mut table = vec![usize::MAX; (high - low + 1) as usize];
            for i in (0..keys.len()).filter(present) {
                let slot = &mut table[(keys[i] - low) as usize];
                if *slot == usize::MAX {
                    *slot = count;
                    count += 1;
                }
                ids[i] = *slot;
            }
            return (ids, count);
        }
    }
    let mut next = fast_map::<(usize, u64), usize>(0);
    for parent in 0..edge.parent_size() {
        for i in edge.child_range(parent) {
            if !column.is_present(i) {
                continue;
            }
            let key = keys[i];
            ids[i] = if floats && is_nan_key(key) {
                count += 1;
                count - 1
            } else {
                *next.entry((parent, key)).or_insert_with(|| {
                    count += 1;
                    count - 1
                })
            };
        }
    }
    (ids, count)
}

/// Group ids for key tuples, refined one key at a time: (id so far, key)
/// -> new id, numbered in order of first appearance. The first ids are the
/// parents, so groups never span two parents and come out parent after
/// parent. Also the number of groups.
fn key_tuple_ids(edge: &Edge, all_keys: &[Vec<Option<Key<'_>>>]) -> (Vec<usize>, usize) {
    let mut ids: Vec<usize> = edge.parent_ids();
    let mut count = 0;
    for key_values in all_keys {
        let mut next = fast_map::<(usize, Key<'_>), usize>(0);
        count = 0;
        for (id, key) in ids.iter_mut().zip(key_values) {
            *id = match key {
                Some(key) if *id != usize::MAX => *next.entry((*id, *key)).or_insert_with(|| {
                    count += 1;
                    count - 1
                }),
                _ => usize::MAX,
            };
        }
    }
    (ids, count)
}

/// The positions (within the last dimension) of the items of each group of
/// equal key tuples; items with a missing key are left out.
pub fn group_by_indices(keys: &[&DataSlice], sort: bool) -> Result<DataSlice> {
    let grouping = group("kd.slices.group_by_indices", keys, sort)?;
    let input = keys[0].shape();
    let edge = &input.edges()[input.rank() - 1];
    let starts: Vec<usize> = edge.parent_ids().iter().map(|&p| edge.child_range(p).start).collect();
    let positions = grouping.members.iter().map(|&i| (i - starts[i]) as i64).collect();
    int64_slice(&grouping.shape, positions, None)
}

/// The items of `x` grouped by `keys` (by `x` itself when no key is given).
pub fn group_by(x: &DataSlice, keys: &[&DataSlice], sort: bool) -> Result<DataSlice> {
    let keys: Vec<&DataSlice> = if keys.is_empty() { vec![x] } else { keys.to_vec() };
    if keys.iter().any(|k| k.shape() != x.shape()) {
        return Err(Error::value("kd.slices.group_by", "First argument `x` must have the same shape as the other arguments"));
    }
    let grouping = group("kd.slices.group_by_indices", &keys, sort)?;
    DataSlice::new(grouping.shape, x.data().take(&grouping.members), x.schema())
}
