//! `kd.random.*`: random integers, sampling, shuffling and hashing.
pub mod cityhash;
pub(crate) fn register(_r: &mut crate::registry::Registry) {}
