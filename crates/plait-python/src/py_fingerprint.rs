//! `Fingerprint`: what the `fingerprint` of a DataSlice, DataBag, shape,
//! expression, operator or extension value is, as Koda's: equal for equal
//! values, hashable, printed as 32 hex digits.

use pyo3::prelude::*;

/// A 128-bit fingerprint (`x.fingerprint`), printed as 32 hex digits.
#[pyclass(name = "Fingerprint", module = "plait._plait", frozen, eq, hash)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PyFingerprint(pub u128);

#[pymethods]
impl PyFingerprint {
    #[new]
    fn new(value: u128) -> Self {
        PyFingerprint(value)
    }

    fn __repr__(&self) -> String {
        format!("{:032x}", self.0)
    }

    fn __str__(&self) -> String {
        self.__repr__()
    }

    /// The fingerprint as a number.
    fn __int__(&self) -> u128 {
        self.0
    }

    /// Pickled as its number.
    fn __reduce__(slf: &Bound<'_, Self>) -> PyResult<(Py<PyAny>, (u128,))> {
        Ok((slf.get_type().into_any().unbind(), (slf.get().0,)))
    }
}
