//! The fast paths of boxing: a flat run of exact Python ints, floats and
//! None, or of exact strs and None.
//!
//! This is most real input (lists of numbers or of names, possibly nested),
//! so it reads each object's type pointer and value straight through the C
//! API, with no per-item Python calls or temporary objects, and writes one
//! typed column. Anything else (bool, numpy scalars, ints beyond INT64, a
//! str subclass, ...) returns `None` and the general two-pass boxing takes
//! over.

use arrow_buffer::{BooleanBufferBuilder, NullBuffer, ScalarBuffer};
use plait_core::column::{Column, ColumnBuilder, Values};
use plait_core::{Schema, SliceData};
use pyo3::ffi;
use pyo3::prelude::*;

/// Numbers read so far: ints until the first float, then all as floats.
enum Numbers {
    Ints(Vec<i64>),
    Floats(Vec<f64>),
}

/// Boxes `n` items given as borrowed object pointers, if they are all exact
/// ints, floats or None and at least one is a number. Returns the items and
/// their common schema (INT32, INT64, FLOAT32 or FLOAT64, per seed 000).
///
/// # Safety
/// `get(i)` must return a valid borrowed pointer for every `i < n`, alive for
/// the duration of the call (the caller holds the container).
pub unsafe fn box_numbers(py: Python<'_>, n: usize, get: impl Fn(usize) -> *mut ffi::PyObject) -> PyResult<Option<(SliceData, Schema)>> {
    let int_type = &raw mut ffi::PyLong_Type;
    let float_type = &raw mut ffi::PyFloat_Type;
    // SAFETY: the caller holds the GIL (`py`); `Py_None` only returns the
    // address of the None singleton.
    let none = unsafe { ffi::Py_None() };
    let mut numbers = Numbers::Ints(Vec::with_capacity(n));
    let mut presence: Option<BooleanBufferBuilder> = None;
    let mut wide_int = false;
    let mut wide_float = false;
    let mut present = 0usize;
    for i in 0..n {
        let object = get(i);
        // SAFETY: `object` is a valid pointer (this function's contract).
        let ty = unsafe { ffi::Py_TYPE(object) };
        if ty == int_type {
            let mut overflow = 0;
            // SAFETY: `object` is a valid exact `int` and the GIL is held;
            // `overflow` is a live local.
            let v = unsafe { ffi::PyLong_AsLongLongAndOverflow(object, &mut overflow) };
            if overflow != 0 {
                return Ok(None); // wraps modulo 2**64: the general path knows how
            }
            // SAFETY: reading the thread's error indicator with the GIL held.
            if v == -1 && unsafe { !ffi::PyErr_Occurred().is_null() } {
                return Err(PyErr::fetch(py));
            }
            wide_int |= i32::try_from(v).is_err();
            match &mut numbers {
                Numbers::Ints(ints) => ints.push(v),
                Numbers::Floats(floats) => floats.push(v as f64),
            }
        } else if ty == float_type {
            // SAFETY: `object` is a valid exact `float` and the GIL is held
            // (an exact float cannot fail to convert).
            let v = unsafe { ffi::PyFloat_AsDouble(object) };
            wide_float |= v.is_finite() && v.abs() > f32::MAX as f64;
            if let Numbers::Ints(ints) = &numbers {
                let mut floats = Vec::with_capacity(n);
                floats.extend(ints.iter().map(|&x| x as f64));
                numbers = Numbers::Floats(floats);
            }
            if let Numbers::Floats(floats) = &mut numbers {
                floats.push(v);
            }
        } else if object == none {
            let bits = presence.get_or_insert_with(|| {
                let mut bits = BooleanBufferBuilder::new(n);
                bits.append_n(i, true);
                bits
            });
            bits.append(false);
            match &mut numbers {
                Numbers::Ints(ints) => ints.push(0),
                Numbers::Floats(floats) => floats.push(0.0),
            }
            continue;
        } else {
            return Ok(None);
        }
        present += 1;
        if let Some(bits) = &mut presence {
            bits.append(true);
        }
    }
    if present == 0 {
        return Ok(None); // all missing (or empty): NONE, the general path's case
    }
    let presence = presence.map(|mut bits| NullBuffer::new(bits.finish()));
    let (values, schema) = match numbers {
        Numbers::Ints(ints) if wide_int => (Values::Int64(ScalarBuffer::from(ints)), Schema::Int64),
        Numbers::Ints(ints) => {
            let narrow: Vec<i32> = ints.iter().map(|&v| v as i32).collect();
            (Values::Int32(ScalarBuffer::from(narrow)), Schema::Int32)
        }
        Numbers::Floats(floats) if wide_float => (Values::Float64(ScalarBuffer::from(floats)), Schema::Float64),
        Numbers::Floats(floats) => {
            let narrow: Vec<f32> = floats.iter().map(|&v| v as f32).collect();
            (Values::Float32(ScalarBuffer::from(narrow)), Schema::Float32)
        }
    };
    Ok(Some((SliceData::from_column(Column::new(values, presence)), schema)))
}

/// Boxes `n` items given as borrowed object pointers, if they are all exact
/// strs or None and at least one is a str: a STRING column.
///
/// # Safety
/// As [`box_numbers`]: `get(i)` must return a valid borrowed pointer for
/// every `i < n`, alive for the duration of the call.
pub unsafe fn box_texts(py: Python<'_>, n: usize, get: impl Fn(usize) -> *mut ffi::PyObject) -> PyResult<Option<SliceData>> {
    let str_type = &raw mut ffi::PyUnicode_Type;
    // SAFETY: the caller holds the GIL (`py`); `Py_None` only returns the
    // address of the None singleton.
    let none = unsafe { ffi::Py_None() };
    let mut column = ColumnBuilder::new(Schema::String, n);
    let mut present = 0usize;
    for i in 0..n {
        let object = get(i);
        // SAFETY: `object` is a valid pointer (this function's contract).
        let ty = unsafe { ffi::Py_TYPE(object) };
        if ty == str_type {
            let mut len: ffi::Py_ssize_t = 0;
            // SAFETY: `object` is a valid exact `str` and the GIL is held;
            // the UTF-8 buffer it returns lives as long as the str, which
            // outlives this iteration (it is only copied into the column).
            let data = unsafe { ffi::PyUnicode_AsUTF8AndSize(object, &mut len) };
            if data.is_null() {
                drop(PyErr::fetch(py));
                return Err(invalid_unicode()); // lone surrogates: not UTF-8
            }
            // SAFETY: `data` points at `len` bytes of valid UTF-8 (CPython's
            // contract for PyUnicode_AsUTF8AndSize).
            let text = unsafe { std::str::from_utf8_unchecked(std::slice::from_raw_parts(data.cast::<u8>(), len as usize)) };
            column.push(plait_core::ScalarRef::String(text));
            present += 1;
        } else if object == none {
            column.push_missing();
        } else {
            return Ok(None);
        }
    }
    Ok((present > 0).then(|| SliceData::from_column(column.finish())))
}

/// Boxes `n` items given as borrowed object pointers, if they are all
/// bools or None and at least one is a bool: a BOOLEAN column.
///
/// # Safety
/// As [`box_numbers`]: `get(i)` must return a valid borrowed pointer for
/// every `i < n`, alive for the duration of the call.
pub unsafe fn box_bools(n: usize, get: impl Fn(usize) -> *mut ffi::PyObject) -> Option<SliceData> {
    // SAFETY: these only return the addresses of the singletons (`bool` has
    // no other instances).
    let (yes, no, none) = unsafe { (ffi::Py_True(), ffi::Py_False(), ffi::Py_None()) };
    let mut values = BooleanBufferBuilder::new(n);
    let mut presence = BooleanBufferBuilder::new(n);
    let mut present = 0usize;
    for i in 0..n {
        let object = get(i);
        if object == yes || object == no {
            values.append(object == yes);
            presence.append(true);
            present += 1;
        } else if object == none {
            values.append(false);
            presence.append(false);
        } else {
            return None;
        }
    }
    if present == 0 {
        return None;
    }
    let presence = (present < n).then(|| NullBuffer::new(presence.finish()));
    Some(SliceData::from_column(Column::new(Values::Boolean(values.finish()), presence)))
}

/// Koda's error for a str that is not valid Unicode (lone surrogates).
pub fn invalid_unicode() -> PyErr {
    pyo3::exceptions::PyValueError::new_err("invalid unicode object")
}
