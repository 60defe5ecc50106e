//! Entities, objects and struct schemas: creating them (`kd.new`, `kd.obj`),
//! reading attributes (`get_attr`, `.x`) and updating them (`with_attrs`,
//! `attrs`, assignment on a mutable bag). Seed 000 "Struct Schemas",
//! "OBJECT", "Implicit and Explicit Entity Schemas" and "Narrowing".
//!
//! * [`model`] — the one place that reads and writes schema attributes and
//!   decides whether an assignment fits a schema.
//! * [`access`], [`create`], [`update`], [`schemas`] — the operators.
//! * [`lists`], [`dicts`] — lists and dicts and their schemas;
//!   [`containers`] — what the two share.

pub mod access;
pub mod containers;
pub mod create;
pub mod dicts;
pub mod graph;
pub mod lists;
pub mod model;
pub mod schemas;
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
}
