//! `DataSlice.fingerprint`: a number that is equal for slices of equal
//! content — the same schema, shape and values, where entities, objects,
//! lists and dicts count by what is reachable from them (as `deep_uuid`
//! sees it), not by their ids. So the same functor traced in two processes
//! (fresh ids each time) has one fingerprint, and a functor saved and
//! loaded keeps it: what caches of compiled functors key on.

use plait_core::itemid::UuidHasher;
use plait_core::{DataSlice, Result, ScalarRef};

/// The content fingerprint of `x`.
pub fn fingerprint(x: &DataSlice) -> Result<u128> {
    let mut h = UuidHasher::new("slice_fingerprint");
    // A struct schema's id is fresh per process: its content is in the items' deep uuids.
    let schema = if x.schema().is_struct() { "struct".to_string() } else { x.schema().to_string() };
    h.write_str(&schema);
    h.write_str(&x.shape().to_string());
    let has_ids = (0..x.size()).any(|i| matches!(x.get(i), Some(ScalarRef::ItemId(_))));
    let content = match (has_ids, x.bag()) {
        (true, Some(_)) => Some(super::graph::deep_uuid(x, None, "fingerprint")?),
        _ => None,
    };
    for i in 0..x.size() {
        match (x.get(i), &content) {
            (Some(ScalarRef::ItemId(_)), Some(ids)) => h.write_item(ids.get(i)),
            (item, _) => h.write_item(item),
        }
    }
    Ok(h.finish())
}
