//! `plait._plait`: the Python bindings of plait. The `kd` namespace in
//! `python/plait/kd` arranges these functions under Koda's names.

mod boxing;
mod py_bag;
mod errors;
mod fast_numbers;
mod functions;
mod py_operator;
mod py_shape;
mod py_slice;
mod unboxing;

use pyo3::prelude::*;

#[pymodule]
fn _plait(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<py_slice::PyDataSlice>()?;
    m.add_class::<py_slice::PyDataItem>()?;
    m.add_class::<py_slice::SlicingHelper>()?;
    m.add_class::<py_slice::ListView>()?;
    m.add_class::<py_shape::PyJaggedShape>()?;
    m.add_class::<py_shape::PyEdge>()?;
    py_operator::register(m)?;
    py_bag::register(m)?;
    functions::register(m)
}
