//! `plait._plait`: the Python bindings of plait. The `kd` namespace in
//! `python/plait/kd` arranges these functions under Koda's names.

mod boxing;
mod cycles;
mod errors;
mod fast_boxing;
mod from_py_plain;
mod from_py_typed;
mod functions;
mod left_off;
mod py_arrow;
mod py_bag;
mod py_expr;
mod py_extension;
mod py_fingerprint;
mod py_from_py;
mod py_functor;
mod py_method;
mod py_numpy;
mod py_operator;
mod py_persist;
mod py_proto;
mod py_range;
mod py_shape;
mod py_shard;
mod py_slice;
mod py_stream;
mod py_to_py;
mod py_transforms;
mod py_typing;
mod thread_pool;
mod to_py_reads;
mod to_py_walk;
mod unboxing;

use pyo3::prelude::*;

/// Large freed buffers are kept for the next operator's output (see
/// `plait_core::buffer_cache`).
#[global_allocator]
static ALLOCATOR: plait_core::buffer_cache::BufferCachingAllocator = plait_core::buffer_cache::BufferCachingAllocator;

/// Applies `PLAIT_BUFFER_CACHE_MB` (megabytes of freed large buffers kept for
/// reuse; 0 turns the cache off) and makes the cache safe across `fork()`.
fn configure_buffer_cache() -> PyResult<()> {
    plait_core::buffer_cache::install_fork_handlers();
    let Ok(text) = std::env::var("PLAIT_BUFFER_CACHE_MB") else { return Ok(()) };
    let megabytes: usize = text
        .trim()
        .parse()
        .map_err(|_| pyo3::exceptions::PyValueError::new_err(format!("PLAIT_BUFFER_CACHE_MB: expected a whole number of megabytes, got {text:?}")))?;
    plait_core::buffer_cache::set_limit(megabytes.saturating_mul(1 << 20));
    Ok(())
}

#[pymodule]
fn _plait(m: &Bound<'_, PyModule>) -> PyResult<()> {
    configure_buffer_cache()?;
    thread_pool::configure()?;
    m.add("AMBIGUOUS_LIST", py_operator::AMBIGUOUS_LIST)?;
    m.add("LIST_ATTR_OF_SLICE", py_operator::LIST_ATTR_OF_SLICE)?;
    m.add("DICT_ATTR_OF_SLICE", py_operator::DICT_ATTR_OF_SLICE)?;
    m.add("RECURSIVE_CONTAINER", from_py_plain::RECURSIVE_CONTAINER)?;
    m.add_class::<py_slice::PyDataSlice>()?;
    m.add_class::<py_slice::PyDataItem>()?;
    m.add_class::<py_slice::PyListItem>()?;
    m.add_class::<py_slice::PyDictItem>()?;
    m.add_class::<py_slice::PySchemaItem>()?;
    m.add_class::<py_slice::SlicingHelper>()?;
    m.add_class::<py_slice::ListView>()?;
    m.add_class::<py_slice::ItemIterator>()?;
    m.add_class::<py_shape::PyJaggedShape>()?;
    m.add_class::<py_fingerprint::PyFingerprint>()?;
    m.add_class::<py_range::PyRange>()?;
    m.add_class::<py_shape::PyEdge>()?;
    m.add_function(wrap_pyfunction!(py_shape::py_expect_shape, m)?)?;
    py_operator::register(m)?;
    py_method::register(m)?;
    py_bag::register(m)?;
    py_expr::register(m)?;
    py_typing::register(m)?;
    py_transforms::register(m)?;
    py_shard::register(m)?;
    py_functor::register(m)?;
    py_from_py::register(m)?;
    from_py_plain::register(m)?;
    from_py_typed::register(m)?;
    py_persist::register(m)?;
    py_proto::register(m)?;
    py_numpy::register(m)?;
    py_arrow::register(m)?;
    py_stream::register(m)?;
    py_to_py::register(m)?;
    py_extension::register(m)?;
    functions::register(m)
}
