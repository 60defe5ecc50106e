//! `kd.slices`: operators on the items and dimensions of slices.

mod counting;
mod filled;

pub use counting::{agg_count, agg_size, collapse, count, cum_count, index, is_empty, size};
pub use filled::{empty_shaped, val_like, val_shaped};

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
}
