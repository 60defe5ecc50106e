//! `kd.types.Stream`, `StreamReader`, `StreamWriter` and `Executor`: the
//! Python faces of `plait_expr::stream`.
//!
//! Every wait here (`read_all`, `yield_all`, and the evaluations that may
//! wait, see `guard_detached`) releases the GIL, and every Python callback
//! run by an executor (`schedule`, `subscribe_once`) takes it back: a task
//! calling Python never waits for a thread that waits for it.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use plait_core::error::HostError;
use plait_core::{Error, ErrorKind};
use plait_expr::ExprValue;
use plait_expr::stream::{Executor, Stream, Writer, as_executor, as_stream};
use pyo3::exceptions::{PyTimeoutError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyType};

use crate::errors::to_py_err;
use crate::py_expr::{from_value, to_value};

/// A value only expressions understand (a stream marked by
/// `kd.streams.await_`), held for Python as it is.
#[pyclass(name = "OpaqueValue", module = "plait.types", frozen)]
pub struct PyOpaque {
    pub inner: ExprValue,
}

#[pymethods]
impl PyOpaque {
    fn __repr__(&self) -> String {
        self.inner.repr()
    }
}

/// Waits until `timeout` (seconds, `None`: forever) from now.
fn deadline(timeout: Option<f64>) -> PyResult<Option<Instant>> {
    match timeout {
        None => Ok(None),
        Some(t) if t.is_finite() && t >= 0.0 => Ok(Some(Instant::now() + Duration::from_secs_f64(t.min(1e9)))),
        Some(t) => Err(PyValueError::new_err(format!("timeout must be a non-negative number of seconds or None, got {t}"))),
    }
}

/// The value QType of a stream, as Python's `kd.qtypes` knows it.
fn qtype(py: Python<'_>, name: &str) -> PyResult<Py<PyAny>> {
    Ok(py.import("plait.kd.qtypes")?.getattr("_from_name")?.call1((name,))?.unbind())
}

/// Stream of values: written by a producer, read by any number of readers,
/// each from the start. `Stream.new(qtype)` gives a stream and its writer.
#[pyclass(name = "Stream", module = "plait.types", frozen, weakref)]
pub struct PyStream {
    pub inner: Arc<Stream>,
}

#[pymethods]
impl PyStream {
    /// `(stream, writer)`: a new open stream of values of `value_qtype`.
    #[staticmethod]
    fn new(py: Python<'_>, value_qtype: &Bound<'_, PyAny>) -> PyResult<(Py<PyStream>, Py<PyStreamWriter>)> {
        let name: String = value_qtype.getattr("name")?.extract()?;
        let (stream, writer) = Stream::new(&name);
        Ok((Py::new(py, PyStream { inner: stream })?, Py::new(py, PyStreamWriter { inner: Arc::new(writer) })?))
    }

    /// `Stream[T]` in annotations (T is for documentation only).
    #[classmethod]
    fn __class_getitem__(cls: &Bound<'_, PyType>, _item: &Bound<'_, PyAny>) -> Py<PyType> {
        cls.clone().unbind()
    }

    /// A new reader of the stream, from its first item.
    fn make_reader(&self) -> PyStreamReader {
        PyStreamReader { stream: self.inner.clone(), at: Mutex::new(0) }
    }

    /// Waits until the stream is closed (at most `timeout` seconds, `None`:
    /// no limit) and returns its items as a list; raises its error, or
    /// `TimeoutError`.
    #[pyo3(signature = (*, timeout))]
    fn read_all(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<Py<PyList>> {
        let limit = deadline(timeout)?.map(|d| d.saturating_duration_since(Instant::now()));
        let stream = self.inner.clone();
        match py.detach(move || stream.wait_all(limit)) {
            Ok(Some(items)) => {
                let items = items.into_iter().map(|v| from_value(py, v)).collect::<PyResult<Vec<_>>>()?;
                Ok(PyList::new(py, items)?.unbind())
            }
            Ok(None) => Err(PyTimeoutError::new_err(())),
            Err(e) => Err(to_py_err(e)),
        }
    }

    /// An iterator over the items as they come; raises the stream's error,
    /// or `TimeoutError` if it is not closed within `timeout` seconds.
    #[pyo3(signature = (*, timeout))]
    fn yield_all(&self, timeout: Option<f64>) -> PyResult<StreamIterator> {
        Ok(StreamIterator { stream: self.inner.clone(), at: Mutex::new(0), deadline: deadline(timeout)? })
    }

    #[getter]
    fn qtype(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        qtype(py, &format!("STREAM[{}]", self.inner.value_type()))
    }

    #[getter]
    fn fingerprint(&self) -> String {
        format!("{:032x}", Arc::as_ptr(&self.inner) as usize as u128)
    }

    /// Stops the work producing the stream (it ends with an error).
    fn _cancel(&self) {
        self.inner.cancel();
    }

    fn __repr__(&self) -> String {
        format!("stream[{}]", self.inner.value_type())
    }
}

/// The iterator of `Stream.yield_all`.
#[pyclass(module = "plait.types")]
pub struct StreamIterator {
    stream: Arc<Stream>,
    at: Mutex<usize>,
    deadline: Option<Instant>,
}

#[pymethods]
impl StreamIterator {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        let at = *self.at.lock().unwrap_or_else(|e| e.into_inner());
        let (stream, deadline) = (self.stream.clone(), self.deadline);
        if !py.detach(move || stream.wait_past(at, deadline)) {
            return Err(PyTimeoutError::new_err(()));
        }
        let read = self.stream.read(at, 1);
        if let Some(item) = read.items.into_iter().next() {
            *self.at.lock().unwrap_or_else(|e| e.into_inner()) = at + 1;
            return from_value(py, item).map(Some);
        }
        match read.end {
            Some(Err(e)) => Err(to_py_err(e)),
            _ => Ok(None),
        }
    }
}

/// Stream reader: reads the items of a stream from its first on.
#[pyclass(name = "StreamReader", module = "plait.types", frozen)]
pub struct PyStreamReader {
    stream: Arc<Stream>,
    at: Mutex<usize>,
}

#[pymethods]
impl PyStreamReader {
    /// The items available now (at most `limit`): an empty list when none
    /// is and the stream is open, `None` once it is read to its end and
    /// closed (its error is raised if it was closed with one).
    #[pyo3(signature = (limit = None))]
    fn read_available(&self, py: Python<'_>, limit: Option<usize>) -> PyResult<Option<Py<PyList>>> {
        let mut at = self.at.lock().unwrap_or_else(|e| e.into_inner());
        let read = self.stream.read(*at, limit.unwrap_or(usize::MAX));
        *at += read.items.len();
        if read.items.is_empty() {
            match read.end {
                Some(Ok(())) => return Ok(None),
                Some(Err(e)) => return Err(to_py_err(e)),
                None => {}
            }
        }
        let items = read.items.into_iter().map(|v| from_value(py, v)).collect::<PyResult<Vec<_>>>()?;
        Ok(Some(PyList::new(py, items)?.unbind()))
    }

    /// Calls `callback()` on `executor` once there is something new to read
    /// (an item or the end). An exception it raises is reported as
    /// unraisable.
    fn subscribe_once(&self, executor: &PyExecutor, callback: Py<PyAny>) {
        let at = *self.at.lock().unwrap_or_else(|e| e.into_inner());
        self.stream.subscribe(at, executor.inner.clone(), python_task(callback));
    }
}

/// A Python callable as a task: run with the GIL, its exception reported
/// as unraisable (nobody waits for a task's result).
fn python_task(callback: Py<PyAny>) -> plait_expr::stream::Task {
    Box::new(move || {
        Python::attach(|py| {
            if let Err(e) = callback.call0(py) {
                e.write_unraisable(py, Some(callback.bind(py)));
            }
        })
    })
}

/// Stream writer: writes the items of a stream, then closes it (a writer
/// dropped without closing closes the stream with an error).
#[pyclass(name = "StreamWriter", module = "plait.types", frozen)]
pub struct PyStreamWriter {
    inner: Arc<Writer>,
}

#[pymethods]
impl PyStreamWriter {
    /// Appends `item` to the stream.
    fn write(&self, item: &Bound<'_, PyAny>) -> PyResult<()> {
        let value = to_value("StreamWriter.write", item, false)?;
        let expected = self.inner.stream().map(|s| s.value_type().to_string());
        let got = plait_expr::stream::value_type_name(&value);
        if let Some(expected) = expected {
            if got != expected {
                return Err(PyValueError::new_err(format!("expected a value of type {expected}, got {got}")));
            }
        }
        self.inner.write(value);
        Ok(())
    }

    /// Closes the stream; with `exception`, readers get that exception.
    #[pyo3(signature = (exception = None))]
    fn close(&self, py: Python<'_>, exception: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let end = match exception {
            None => Ok(()),
            Some(e) => {
                let err = PyErr::from_value(e.clone());
                let message = err.value(py).to_string();
                Err(Error::from_host(ErrorKind::Value, message, HostError::new(err)))
            }
        };
        self.inner.close(end);
        Ok(())
    }

    /// Whether the stream has no reader left.
    fn orphaned(&self) -> bool {
        self.inner.orphaned()
    }
}

/// Executor: runs tasks (`schedule`) — on plait's task threads, at most
/// its thread limit at a time, or at once (the eager executor).
#[pyclass(name = "Executor", module = "plait.types", frozen)]
pub struct PyExecutor {
    pub inner: Executor,
}

#[pymethods]
impl PyExecutor {
    /// Runs `task_fn()` on the executor; its exception is reported as
    /// unraisable.
    fn schedule(&self, task_fn: Py<PyAny>) {
        self.inner.schedule(python_task(task_fn));
    }

    #[getter]
    fn qtype(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        qtype(py, "EXECUTOR")
    }

    #[getter]
    fn fingerprint(&self) -> String {
        format!("{:032x}", plait_expr::value::Foreign::fingerprint(&self.inner))
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyExecutor>().is_ok_and(|o| o.get().inner.id() == self.inner.id())
    }

    fn __hash__(&self) -> u64 {
        self.inner.id()
    }

    fn __repr__(&self) -> String {
        self.inner.name().to_string()
    }
}

/// `x` as a stream or executor value, if it is one.
pub fn to_stream_value(x: &Bound<'_, PyAny>) -> Option<ExprValue> {
    if let Ok(s) = x.cast::<PyStream>() {
        return Some(s.get().inner.value());
    }
    if let Ok(e) = x.cast::<PyExecutor>() {
        return Some(ExprValue::Foreign(Arc::new(e.get().inner.clone())));
    }
    x.cast::<PyOpaque>().ok().map(|o| o.get().inner.clone())
}

/// A stream or executor value as its Python object, if it is one.
pub fn from_stream_value(py: Python<'_>, v: &ExprValue) -> PyResult<Option<Py<PyAny>>> {
    if let Some(s) = as_stream(v) {
        return Ok(Some(Py::new(py, PyStream { inner: s })?.into_any()));
    }
    if let Some(e) = as_executor(v) {
        return Ok(Some(Py::new(py, PyExecutor { inner: e })?.into_any()));
    }
    if let ExprValue::Foreign(f) = v {
        if f.as_any().downcast_ref::<plait_expr::stream::Awaited>().is_some() {
            return Ok(Some(Py::new(py, PyOpaque { inner: v.clone() })?.into_any()));
        }
    }
    Ok(None)
}

/// Cancels the work of the stream `x` (the glue of `kd.parallel`'s timeouts).
#[pyfunction]
fn stream_cancel(x: &PyStream) {
    x.inner.cancel();
}

/// The tuple `(executor thread limit, is eager)` (tests).
#[pyfunction]
fn executor_info(x: &PyExecutor) -> (usize, bool) {
    (x.inner.thread_limit(), x.inner.is_eager())
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyStream>()?;
    m.add_class::<PyStreamReader>()?;
    m.add_class::<PyStreamWriter>()?;
    m.add_class::<PyExecutor>()?;
    m.add_class::<PyOpaque>()?;
    m.add_class::<StreamIterator>()?;
    m.add_function(wrap_pyfunction!(stream_cancel, m)?)?;
    m.add_function(wrap_pyfunction!(executor_info, m)?)?;
    Ok(())
}
