//! Protobuf glue: the host that finds message descriptors and converts
//! JSON-format messages through the `protobuf` package (`plait.kd.proto`),
//! and the functions `kd.from_proto` / `kd.to_proto` / `kd.schema_from_proto`
//! call with a message class's own descriptors.

use plait_core::{DataSlice, JaggedShape};
use plait_ops::proto::{self, FromArgs, ProtoHost};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};

use crate::errors::guard;
use crate::py_slice::{PyDataSlice, wrap};

struct PyProtoHost;

fn call<'py>(py: Python<'py>, name: &str, args: impl pyo3::call::PyCallArgs<'py>) -> Result<Bound<'py, PyAny>, String> {
    let module = py.import("plait.kd.proto").map_err(|e| e.to_string())?;
    module.getattr(name).and_then(|f| f.call1(args)).map_err(|e| e.value(py).to_string())
}

impl ProtoHost for PyProtoHost {
    fn descriptors(&self, full_name: &str) -> Result<Option<Vec<u8>>, String> {
        Python::attach(|py| {
            let got = call(py, "_host_descriptors", (full_name,))?;
            if got.is_none() {
                return Ok(None);
            }
            got.extract::<Vec<u8>>().map(Some).map_err(|e| e.to_string())
        })
    }

    fn json_to_binary(&self, full_name: &str, texts: &[&str]) -> Result<Vec<Option<Vec<u8>>>, String> {
        Python::attach(|py| {
            let got = call(py, "_host_json_to_binary", (full_name, texts.to_vec()))?;
            got.extract::<Vec<Option<Vec<u8>>>>().map_err(|e| e.to_string())
        })
    }

    fn binary_to_json(&self, full_name: &str, messages: &[&[u8]]) -> Result<Vec<String>, String> {
        Python::attach(|py| {
            let list = PyList::new(py, messages.iter().map(|m| PyBytes::new(py, m))).map_err(|e| e.to_string())?;
            let got = call(py, "_host_binary_to_json", (full_name, list))?;
            got.extract::<Vec<String>>().map_err(|e| e.to_string())
        })
    }
}

/// Koda data from serialized messages (`bytes` or None each) of type
/// `full_name` described by `descriptor_set`: a flat DataSlice.
#[pyfunction]
#[pyo3(signature = (messages, descriptor_set, full_name, extensions, itemid, schema))]
fn proto_from_messages(
    py: Python<'_>,
    messages: &Bound<'_, PyList>,
    descriptor_set: &[u8],
    full_name: &str,
    extensions: Vec<String>,
    itemid: Option<PyRef<'_, PyDataSlice>>,
    schema: Option<PyRef<'_, PyDataSlice>>,
) -> PyResult<Py<PyAny>> {
    let op = "kd.from_proto";
    let held: Vec<Option<Bound<'_, PyBytes>>> = messages.iter().map(|m| m.cast_into::<PyBytes>().ok()).collect();
    let data: Vec<Option<&[u8]>> = held.iter().map(|b| b.as_ref().map(|b| b.as_bytes())).collect();
    let itemid: Option<DataSlice> = itemid.map(|s| s.inner.clone());
    let schema: Option<DataSlice> = schema.map(|s| s.inner.clone());
    let result = guard(|| {
        let pool = proto::pool_of(op, descriptor_set)?;
        let m = proto::message_index(op, &pool, full_name)?;
        let args = FromArgs { extensions, itemids: itemid.as_ref(), schema: schema.as_ref(), on_invalid: None };
        let shape = JaggedShape::flat(data.len());
        proto::from_binary(op, &data, &shape, &pool, m, &args, &format!("failed to parse input as a binary proto of type `{full_name}`"))
    })?;
    wrap(py, result)
}

/// The items of `x` (flattened) as serialized messages of type `full_name`
/// (bytes, or None where missing).
#[pyfunction]
fn proto_to_messages<'py>(
    py: Python<'py>,
    x: PyRef<'_, PyDataSlice>,
    descriptor_set: &[u8],
    full_name: &str,
    op: &str,
) -> PyResult<Bound<'py, PyList>> {
    let out = guard(|| {
        let pool = proto::pool_of(op, descriptor_set)?;
        let m = proto::message_index(op, &pool, full_name)?;
        proto::to_binary(op, &x.inner, &pool, m)
    })?;
    PyList::new(py, out.iter().map(|b| b.as_ref().map(|b| PyBytes::new(py, b))))
}

/// The schema of message type `full_name` with every field.
#[pyfunction]
fn proto_schema(py: Python<'_>, descriptor_set: &[u8], full_name: &str, extensions: Vec<String>) -> PyResult<Py<PyAny>> {
    let op = "kd.schema_from_proto";
    let result = guard(|| {
        let pool = proto::pool_of(op, descriptor_set)?;
        let m = proto::message_index(op, &pool, full_name)?;
        proto::full_schema(op, &pool, m, &extensions)
    })?;
    wrap(py, result)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    proto::set_host(Box::new(PyProtoHost));
    m.add_function(wrap_pyfunction!(proto_from_messages, m)?)?;
    m.add_function(wrap_pyfunction!(proto_to_messages, m)?)?;
    m.add_function(wrap_pyfunction!(proto_schema, m)?)?;
    Ok(())
}
