//! `kd.slices`: operators on the items and dimensions of slices.

mod concat;
mod counting;
mod filled;
mod gather;
mod group;
pub mod keys;
mod rank;
mod repeat;
mod select;
mod shape_checks;
mod take;
mod translate;

pub use concat::{concat, stack, zip};
pub(crate) use counting::int64_slice;
pub use counting::{agg_count, agg_size, collapse, count, cum_count, index, is_empty, size};
pub use filled::{empty_shaped, val_like, val_shaped};
pub use group::{group_by, group_by_indices, unique};
pub use rank::{dense_rank, inverse_mapping, ordinal_rank, sort};
pub use repeat::{range, repeat, repeat_present, tile};
pub use select::{inverse_select, select, select_present};
pub use shape_checks::{is_expandable_to, is_shape_compatible};
pub use take::{reverse, take};
pub use translate::{isin, translate, translate_group};

use crate::registry::Registry;

pub(crate) fn register(r: &mut Registry) {
    r.add("kd.slices.agg_count", &["kd.agg_count"], "x, ndim=unspecified", "Returns the number of present items along the last ndim dimensions.", |a| {
        agg_count(a.slice("x")?, a.ndim()?)
    });
    r.add("kd.slices.agg_size", &["kd.agg_size"], "x, ndim=unspecified", "Returns the number of items along the last ndim dimensions.", |a| {
        agg_size(a.slice("x")?, a.ndim()?)
    });
    r.add("kd.slices.count", &["kd.count"], "x", "Returns the number of present items.", |a| count(a.slice("x")?));
    r.add("kd.slices.size", &["kd.size"], "x", "Returns the number of items.", |a| size(a.slice("x")?));
    r.add("kd.slices.cum_count", &["kd.cum_count"], "x, ndim=unspecified", "Returns running counts of present items along the last ndim dimensions.", |a| {
        cum_count(a.slice("x")?, a.ndim()?)
    });
    r.add("kd.slices.index", &["kd.index"], "x, dim=-1", "Returns the index of each present item along dimension dim.", |a| index(a.slice("x")?, a.int("dim")?));
    r.add("kd.slices.collapse", &["kd.collapse"], "x, ndim=unspecified", "Returns the common value of each group, or missing when the items differ.", |a| {
        collapse(a.slice("x")?, a.ndim()?)
    });
    r.add("kd.slices.is_empty", &["kd.is_empty"], "x", "Returns present if x has no present item.", |a| is_empty(a.slice("x")?));
    r.add("kd.slices.empty_shaped", &["kd.empty_shaped"], "shape, schema=MASK", "Returns an all-missing slice of the given shape.", |a| {
        empty_shaped(a.shape("shape")?, a.schema("schema")?)
    });
    r.add("kd.slices.empty_shaped_as", &["kd.empty_shaped_as"], "shape_from, schema=MASK", "Returns an all-missing slice of the shape of shape_from.", |a| {
        empty_shaped(a.slice("shape_from")?.shape(), a.schema("schema")?)
    });
    r.add("kd.slices.val_like", &["kd.val_like"], "x, val", "Returns val where x is present.", |a| val_like(a.slice("x")?, a.slice("val")?));
    r.add("kd.slices.val_shaped", &["kd.val_shaped"], "shape, val", "Returns val expanded to the given shape.", |a| val_shaped(a.shape("shape")?, a.slice("val")?));
    r.add("kd.slices.val_shaped_as", &["kd.val_shaped_as"], "x, val", "Returns val expanded to the shape of x.", |a| val_shaped(a.slice("x")?.shape(), a.slice("val")?));
    register_selection(r);
    register_ordering(r);
    register_construction(r);
    register_lookup(r);
}

fn register_selection(r: &mut Registry) {
    r.add("kd.slices.select", &["kd.select"], "ds, fltr, expand_filter=True", "Creates a new DataSlice by filtering out missing items in fltr.", |a| {
        select(a.slice("ds")?, a.slice("fltr")?, a.bool("expand_filter")?)
    });
    r.add("kd.slices.select_present", &["kd.select_present"], "ds", "Creates a new DataSlice by removing missing items.", |a| select_present(a.slice("ds")?));
    r.add(
        "kd.slices.inverse_select",
        &["kd.slices.reverse_select", "kd.inverse_select", "kd.reverse_select"],
        "ds, fltr",
        "Creates a DataSlice by putting items in ds to present positions in fltr.",
        |a| inverse_select(a.slice("ds")?, a.slice("fltr")?),
    );
    r.add("kd.slices.take", &["kd.slices.at", "kd.take", "kd.at"], "x, indices", "Returns a new DataSlice with items at provided indices.", |a| {
        take(a.slice("x")?, a.slice("indices")?)
    });
    r.add("kd.slices.reverse", &["kd.reverse"], "ds", "Returns a DataSlice with items reversed on the last dimension.", |a| reverse(a.slice("ds")?));
}

fn register_ordering(r: &mut Registry) {
    r.add("kd.slices.sort", &["kd.sort"], "x, sort_by=unspecified, descending=False", "Sorts the items in `x` over the last dimension.", |a| {
        sort(a.slice("x")?, a.opt_slice("sort_by")?, a.bool("descending")?)
    });
    r.add(
        "kd.slices.ordinal_rank",
        &["kd.ordinal_rank"],
        "x, tie_breaker=unspecified, descending=False, ndim=unspecified",
        "Returns ordinal ranks of items in `x` over the last `ndim` dimensions.",
        |a| ordinal_rank(a.slice("x")?, a.opt_slice("tie_breaker")?, a.bool("descending")?, a.ndim()?),
    );
    r.add("kd.slices.dense_rank", &["kd.dense_rank"], "x, descending=False, ndim=unspecified", "Returns dense ranks of items in `x` over the last `ndim` dimensions.", |a| {
        dense_rank(a.slice("x")?, a.bool("descending")?, a.ndim()?)
    });
    r.add("kd.slices.inverse_mapping", &["kd.inverse_mapping"], "x, ndim=unspecified", "Returns inverse permutations of indices over the last `ndim` dimension.", |a| {
        inverse_mapping(a.slice("x")?, a.ndim()?)
    });
    r.add("kd.slices.unique", &["kd.unique"], "x, sort=False", "Returns a DataSlice with unique values within each dimension.", |a| {
        unique(a.slice("x")?, a.bool("sort")?)
    });
    r.add("kd.slices.group_by", &["kd.group_by"], "x, *keys, sort=False", "Returns `x` with values in last dimension grouped using a new dimension.", |a| {
        group_by(a.slice("x")?, &a.var_slices()?, a.bool("sort")?)
    });
    r.add("kd.slices.group_by_indices", &["kd.group_by_indices"], "*keys, sort=False", "Returns an indices DataSlice that describes the order of `group_by` result.", |a| {
        group_by_indices(&a.var_slices()?, a.bool("sort")?)
    });
}

fn register_construction(r: &mut Registry) {
    r.add("kd.slices.concat", &["kd.concat"], "*args, ndim=1", "Returns the concatenation of the given DataSlices on dimension `rank-ndim`.", |a| {
        concat(&a.var_slices()?, a.int("ndim")?)
    });
    r.add("kd.slices.stack", &["kd.stack"], "*args, ndim=0", "Stacks the given DataSlices, creating a new dimension at index `rank-ndim`.", |a| {
        stack(&a.var_slices()?, a.int("ndim")?)
    });
    r.add("kd.slices.zip", &["kd.zip"], "*args", "Zips the given DataSlices into a new DataSlice with a new last dimension.", |a| zip(&a.var_slices()?));
    r.add("kd.slices.range", &["kd.range"], "start, end=unspecified", "Returns a DataSlice of INT64s with range [start, end).", |a| {
        range(a.slice("start")?, a.opt_slice("end")?)
    });
    r.add("kd.slices.repeat", &["kd.repeat"], "x, sizes", "Returns `x` with values repeated according to `sizes`.", |a| repeat(a.slice("x")?, a.slice("sizes")?));
    r.add("kd.slices.repeat_present", &["kd.repeat_present"], "x, sizes", "Returns `x` with present values repeated according to `sizes`.", |a| {
        repeat_present(a.slice("x")?, a.slice("sizes")?)
    });
    r.add("kd.slices.tile", &["kd.tile"], "x, shape", "Nests the whole `x` under `shape`.", |a| tile(a.slice("x")?, a.shape("shape")?));
}

fn register_lookup(r: &mut Registry) {
    r.add("kd.slices.translate", &["kd.translate"], "keys_to, keys_from, values_from", "Translates `keys_to` based on `keys_from`->`values_from` mapping.", |a| {
        translate(a.slice("keys_to")?, a.slice("keys_from")?, a.slice("values_from")?)
    });
    r.add("kd.slices.translate_group", &["kd.translate_group"], "keys_to, keys_from, values_from", "Translates `keys_to` based on `keys_from`->`values_from` mapping.", |a| {
        translate_group(a.slice("keys_to")?, a.slice("keys_from")?, a.slice("values_from")?)
    });
    r.add("kd.slices.isin", &["kd.isin"], "x, y", "Returns a DataItem indicating whether DataItem x is present in y.", |a| isin(a.slice("x")?, a.slice("y")?));
    r.add("kd.slices.is_shape_compatible", &["kd.is_shape_compatible"], "x, y", "Returns present if the shapes of `x` and `y` are compatible.", |a| {
        is_shape_compatible(a.slice("x")?, a.slice("y")?)
    });
    r.add("kd.slices.is_expandable_to", &["kd.is_expandable_to"], "x, target, ndim=unspecified", "Returns true if `x` is expandable to `target`.", |a| {
        is_expandable_to(a.slice("x")?, a.slice("target")?, a.ndim()?)
    });
}
