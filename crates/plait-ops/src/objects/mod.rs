//! Entities, objects and struct schemas: creating them (`kd.new`, `kd.obj`),
//! reading attributes (`get_attr`, `.x`) and updating them (`with_attrs`,
//! `attrs`, assignment on a mutable bag). Seed 000 "Struct Schemas",
//! "OBJECT", "Implicit and Explicit Entity Schemas" and "Narrowing".
//!
//! * [`model`] — the one place that reads and writes schema attributes and
//!   decides whether an assignment fits a schema.
//! * [`access`], [`create`], [`update`], [`schemas`] — the operators.
//! * [`lists`], [`dicts`] — lists and dicts and their schemas;
//!   [`list_edits`] — lists changed in place;
//!   [`containers`] — what the two share.
//! * [`nested`] — nested lists, dicts and objects made level by level in one
//!   bag (`kd.from_py` of plain Python values).

pub mod access;
pub mod containers;
pub mod create;
pub mod dicts;
pub mod equivalence;
pub mod fingerprint;
pub mod flatten;
pub mod graph;
mod id_set;
pub mod list_edits;
pub mod lists;
pub mod metadata;
pub mod model;
pub mod nested;
pub mod refs;
pub mod schemas;
mod types;
pub mod update;
pub mod uuids;

use crate::registry::Registry;

pub(crate) fn register(r: &mut Registry) {
    access::register(r);
    create::register(r);
    containers::register(r);
    lists::register(r);
    dicts::register(r);
    update::register(r);
    schemas::register(r);
    uuids::register(r);
    graph::register(r);
    refs::register(r);
    metadata::register(r);
    flatten::register(r);
    types::register(r);
    // Operators that allocate fresh ids give a different result on every
    // call: expression preparation must not fold them into literals.
    for name in create::CREATORS.into_iter().chain([
        "kd.lists.new",
        "kd.lists.implode",
        "kd.lists.appended_list",
        "kd.lists.concat",
        "kd.lists.select_items",
        "kd.lists.shaped",
        "kd.lists.shaped_as",
        "kd.lists.like",
        "kd.lists.with_list_append_update",
        "kd.dicts._new",
        "kd.dicts._shaped",
        "kd.schema.new_schema",
        "kd.allocation.new_itemid",
        "kd.allocation.new_itemid_shaped",
        "kd.allocation.new_itemid_shaped_as",
        "kd.allocation.new_itemid_like",
        "kd.allocation.new_listid",
        "kd.allocation.new_listid_shaped",
        "kd.allocation.new_listid_shaped_as",
        "kd.allocation.new_listid_like",
        "kd.allocation.new_dictid",
        "kd.allocation.new_dictid_shaped",
        "kd.allocation.new_dictid_shaped_as",
        "kd.allocation.new_dictid_like",
        "kd.core.clone",
        "kd.core.clone_as_full",
        "kd.core.shallow_clone",
        "kd.core.deep_clone",
    ]) {
        r.non_deterministic(name);
    }
    // Koda's Python functions for these check their first argument first.
    for name in ["kd.entities.shaped", "kd.objs.shaped", "kd.lists.shaped", "kd.dicts._shaped"] {
        r.first_arg(name, crate::registry::FirstArg::Shape);
    }
    for name in ["kd.lists.implode", "kd.lists.concat"] {
        r.first_arg(name, crate::registry::FirstArg::Slice);
    }
}
