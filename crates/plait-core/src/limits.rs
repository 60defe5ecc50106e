//! The sizes and depths plait accepts (docs/limits.md), checked before
//! anything is allocated or walked, so that hostile inputs end in a clear
//! error instead of an abort, a hang or a stack overflow.
//!
//! A result whose size comes from a number the user gives (a shape, a
//! count, a format width) is checked here first: its bytes are computed
//! with checked arithmetic and reserved fallibly, so a result that could
//! not fit is a `ValueError` naming the operator, not an allocation failure
//! (which aborts a Rust process).

use crate::error::{Error, Result};

/// The widest field a format may ask for (`kd.strings.format`'s `{x:>N}`,
/// `kd.strings.printf`'s `%N.Md`): widths and precisions past this (C's
/// `INT_MAX`, as in Koda) are refused.
pub const MAX_FORMAT_WIDTH: usize = i32::MAX as usize;

/// The most dimensions a shape (and so a DataSlice) may have: deeper
/// nesting is almost always a list that contains itself, and a slice's text
/// form nests once per dimension. `kd.slice` of nested lists, `kd.shapes.new`,
/// `kd.reshape` and every operator adding a dimension refuse more.
pub const MAX_RANK: usize = 256;

/// The deepest nesting of functor calls (a functor calling itself through
/// `kd.call`, `kd.if_`, `kd.map` ...): deeper calls raise instead of
/// exhausting the stack.
pub const MAX_CALL_DEPTH: usize = 10_000;

/// Fails cleanly unless `items` items of `item_bytes` bytes each could be
/// allocated now: the product must not overflow and the memory must be
/// reservable (probed, then given back). The error names `op`.
pub fn ensure_allocatable(op: &str, items: usize, item_bytes: usize) -> Result<()> {
    let bytes = items.checked_mul(item_bytes.max(1)).filter(|&b| b <= isize::MAX as usize);
    let fits = bytes.is_some_and(|b| Vec::<u8>::new().try_reserve_exact(b).is_ok());
    if fits { Ok(()) } else { Err(too_large(op, items)) }
}

/// The error for a result of `items` items that could not be allocated.
pub fn too_large(op: &str, items: impl std::fmt::Display) -> Error {
    Error::value(op, format!("the result would have {items} items, more than this machine can allocate"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn impossible_sizes_are_errors() {
        assert!(ensure_allocatable("op", 10, 8).is_ok());
        let err = ensure_allocatable("kd.x", 1 << 50, 8).unwrap_err();
        assert_eq!(err.message, "kd.x: the result would have 1125899906842624 items, more than this machine can allocate");
        assert!(ensure_allocatable("op", usize::MAX, 2).is_err());
    }
}
