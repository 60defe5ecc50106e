//! Grouping by one column of integer keys of a narrow range in one parent
//! (`kd.group_by(x, keys)` of a flat slice, the common case): the group of
//! each key is a table index, so every pass is a counting pass, and each
//! runs over chunks of the items on plait's worker threads.
//!
//! ```text
//! keys        [7, 5, 7, 9, 5]        chunks [7, 5, 7] [9, 5]
//! per chunk   first position and count of each key
//! merged      groups in order of first appearance (or of key): 7, 5, 9
//! members     each chunk writes its positions after the earlier chunks'
//!             [[0, 2], [1, 4], [3]]
//! ```

use std::sync::atomic::{AtomicUsize, Ordering};

use plait_core::{Column, Values};
use rayon::prelude::*;

/// Items per chunk of work, at least.
const CHUNK: usize = 1 << 16;

/// Fewer items than this are grouped by the caller's serial path.
const PARALLEL_MIN: usize = 1 << 18;

/// The members of each group, in group order, and the groups' sizes: `None`
/// when `column` is not of integers, is short, or its keys span a range too
/// wide for a table per chunk.
pub fn narrow_int_groups(column: &Column, sort: bool) -> Option<(Vec<usize>, Vec<i64>)> {
    match &column.values {
        Values::Int32(v) => groups(column, |i| i64::from(v[i]), sort),
        Values::Int64(v) => groups(column, |i| v[i], sort),
        _ => None,
    }
}

/// The per-chunk tables: the first position of each key (`usize::MAX`
/// when absent) and how many times it comes.
struct ChunkTable {
    first: Vec<usize>,
    count: Vec<usize>,
}

fn groups(column: &Column, key: impl Fn(usize) -> i64 + Sync, sort: bool) -> Option<(Vec<usize>, Vec<i64>)> {
    let n = column.len();
    if n < PARALLEL_MIN {
        return None;
    }
    let present = |i: usize| column.is_present(i);
    // About four chunks a thread, so that a slow chunk does not hold up the rest.
    let chunk = (n / (4 * plait_core::parallel::num_threads())).max(CHUNK);
    let chunks: Vec<std::ops::Range<usize>> = (0..n).step_by(chunk).map(|s| s..(s + chunk).min(n)).collect();
    let (low, high) = plait_core::parallel::install(|| {
        chunks
            .par_iter()
            .map(|r| r.clone().filter(|&i| present(i)).map(&key).fold((i64::MAX, i64::MIN), |(lo, hi), k| (lo.min(k), hi.max(k))))
            .reduce(|| (i64::MAX, i64::MIN), |a, b| (a.0.min(b.0), a.1.max(b.1)))
    });
    if low > high {
        return Some((Vec::new(), Vec::new()));
    }
    // A table of the range per chunk: at most a quarter of its items.
    let range = usize::try_from(high.abs_diff(low)).ok()?.checked_add(1)?;
    if range > chunk / 4 {
        return None;
    }
    let slot = |i: usize| (key(i) - low) as usize;
    let tables: Vec<ChunkTable> = plait_core::parallel::install(|| {
        chunks
            .par_iter()
            .map(|r| {
                let mut table = ChunkTable { first: vec![usize::MAX; range], count: vec![0; range] };
                for i in r.clone().filter(|&i| present(i)) {
                    let k = slot(i);
                    if table.count[k] == 0 {
                        table.first[k] = i;
                    }
                    table.count[k] += 1;
                }
                table
            })
            .collect()
    });
    // The groups (keys that come), in order of first appearance or of key.
    let first = |k: usize| tables.iter().map(|t| t.first[k]).min().unwrap_or(usize::MAX);
    let mut order: Vec<usize> = (0..range).filter(|&k| tables.iter().any(|t| t.count[k] > 0)).collect();
    if !sort {
        order.sort_by_key(|&k| first(k));
    }
    // Where each chunk writes the members of each key: after the groups
    // before it, and after the earlier chunks' members of the same key.
    let mut starts: Vec<Vec<usize>> = vec![vec![0; range]; tables.len()];
    let mut sizes = Vec::with_capacity(order.len());
    let mut total = 0;
    for &k in &order {
        let group_start = total;
        for (c, table) in tables.iter().enumerate() {
            starts[c][k] = total;
            total += table.count[k];
        }
        sizes.push((total - group_start) as i64);
    }
    let members: Vec<AtomicUsize> = (0..total).map(|_| AtomicUsize::new(0)).collect();
    plait_core::parallel::install(|| {
        chunks.par_iter().zip(starts.par_iter_mut()).for_each(|(r, next)| {
            for i in r.clone().filter(|&i| present(i)) {
                let k = slot(i);
                // Each position is written by one chunk only: no ordering needed.
                members[next[k]].store(i, Ordering::Relaxed);
                next[k] += 1;
            }
        })
    });
    Some((members.into_iter().map(AtomicUsize::into_inner).collect(), sizes))
}
