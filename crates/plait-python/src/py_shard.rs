//! The Rust half of `kd.shard_map` (`python/plait/kd/sharded.py` is the
//! other): the replay plan of a traced program (`plait_expr::shard`), and
//! the cutting of values into shards' rows and their gathering.

use std::collections::HashMap;

use plait_core::DataSlice;
use plait_core::subslice::rows;
use plait_expr::shard::{Action, Import, Place, StepKind};
use plait_ops::registry::Value;
use plait_ops::typing::{TypeValue, type_of};
use pyo3::prelude::*;

use crate::errors::{guard, guard_detached};
use crate::py_expr::PyExpr;
use crate::py_slice::{PyDataSlice, wrap};

const OP: &str = "kd.shard_map";

fn place_text(p: Place) -> String {
    match p {
        Place::Whole => "whole".to_string(),
        Place::Rows(s) => format!("rows{s}"),
        Place::Partial => "partial".to_string(),
    }
}

/// An import as `(kind, name, split)`: kind `whole`, `piece`, `rows` or
/// `start` (split `-1` when none).
type ImportTuple = (&'static str, String, i64);

fn import_tuple(i: Import) -> ImportTuple {
    match i {
        Import::Whole(n) => ("whole", n, -1),
        Import::Piece(n) => ("piece", n, -1),
        Import::Rows { source, split } => ("rows", source, split as i64),
        Import::Start(s) => ("start", String::new(), s as i64),
    }
}

/// A step: (`once` / `shards`, level, imports, output names, the tuple
/// expression over `_0`.., the outputs over the imports' names).
type StepTuple = (&'static str, usize, Vec<ImportTuple>, Vec<String>, PyExpr, Vec<(String, PyExpr)>);
/// A gather: (level, source, output, stack, why).
type GatherTuple = (usize, String, String, bool, String);

/// A replay plan, as Python reads it.
#[pyclass(frozen, name = "ShardPlan", module = "plait.kd")]
pub struct PyShardPlan {
    plan: plait_expr::shard::Plan,
}

#[pymethods]
impl PyShardPlan {
    /// The actions in order: `("step", StepTuple)` or `("gather", GatherTuple)`.
    fn actions(&self, py: Python<'_>) -> PyResult<Vec<Py<PyAny>>> {
        self.plan
            .actions
            .iter()
            .map(|a| match a.clone() {
                Action::Step(s) => {
                    let kind = if s.kind == StepKind::Once { "once" } else { "shards" };
                    let shown = s.shown.into_iter().map(|(n, inner)| (n, PyExpr { inner })).collect();
                    let t: StepTuple = (kind, s.level, s.imports.into_iter().map(import_tuple).collect(), s.outputs, PyExpr { inner: s.expr }, shown);
                    Ok(("step", t).into_pyobject(py)?.into_any().unbind())
                }
                Action::Gather(g) => {
                    let t: GatherTuple = (g.level, g.source, g.output, g.stack, g.why);
                    Ok(("gather", t).into_pyobject(py)?.into_any().unbind())
                }
            })
            .collect()
    }

    /// The outputs: (name, place: `whole`, `rows<split>`).
    fn outputs(&self) -> Vec<(String, String)> {
        self.plan.outputs.iter().map(|(n, p)| (n.clone(), place_text(*p))).collect()
    }

    /// Splits made on the shards, with a value cut by each.
    fn split_sources(&self) -> Vec<(usize, String)> {
        self.plan.split_sources.iter().map(|(s, n)| (*s, n.clone())).collect()
    }
}

/// The replay plan of `outputs` over `inputs` (name, value: its type is
/// used), of which `sharded` (name -> split) are cut into shards' rows.
#[pyfunction]
fn shard_plan(
    outputs: Vec<PyRef<'_, PyExpr>>,
    inputs: Vec<(String, PyRef<'_, PyDataSlice>)>,
    sharded: HashMap<String, usize>,
) -> PyResult<PyShardPlan> {
    let outputs: Vec<_> = outputs.iter().map(|e| e.inner.clone()).collect();
    let types = inputs.iter().map(|(n, x)| (n.clone(), TypeValue::slice(type_of(&x.inner)))).collect();
    let plan = guard(|| plait_expr::shard::plan(&outputs, types, &sharded))?;
    Ok(PyShardPlan { plan })
}

/// The number of rows (items of dimension 0) of `x`.
#[pyfunction]
fn shard_row_count(x: PyRef<'_, PyDataSlice>) -> PyResult<usize> {
    let shape = x.inner.shape();
    match shape.edges().first() {
        Some(edge) => Ok(edge.child_size()),
        None => Err(crate::errors::value_error(OP, "a DataItem (rank 0) cannot be cut into rows: give it P() to pass it whole")),
    }
}

/// `x`'s rows `bounds[i]..bounds[i + 1]`, for each `i`.
#[pyfunction]
fn shard_split(py: Python<'_>, x: PyRef<'_, PyDataSlice>, bounds: Vec<usize>) -> PyResult<Vec<Py<PyAny>>> {
    let x = x.inner.clone();
    let pieces = guard_detached(py, move || bounds.windows(2).map(|w| rows(&x, w[0], w[1])).collect::<plait_core::Result<Vec<_>>>())?;
    pieces.into_iter().map(|p| wrap(py, p)).collect()
}

/// The shards' pieces made one value: concatenated along dimension 0, or
/// (partial results, items) stacked into a new one.
#[pyfunction]
fn shard_gather(py: Python<'_>, pieces: Vec<PyRef<'_, PyDataSlice>>, stack: bool) -> PyResult<Py<PyAny>> {
    let pieces: Vec<DataSlice> = pieces.iter().map(|p| p.inner.clone()).collect();
    // The registered operators: they attach the pieces' bags (merged when
    // the pieces came with bags of their own, as from Ray's workers).
    let joined = guard_detached(py, move || {
        let (name, ndim) = if stack { ("kd.slices.stack", 0) } else { ("kd.slices.concat", pieces.first().map_or(1, |p| p.rank()) as i64) };
        let ndim = Value::Slice(DataSlice::item(Some(plait_core::ScalarRef::Int64(ndim)), plait_core::Schema::Int64)?);
        plait_ops::registry::call_slice(name, pieces.into_iter().map(Value::Slice).collect(), vec![("ndim", ndim)])
    })?;
    wrap(py, joined)
}

/// A new Python object holding `x`'s data (shared, not copied): what
/// `kd.shard_map` returns for an input returned as it is, so that marking
/// the result's sharding leaves the caller's object alone.
#[pyfunction]
fn shard_alias(py: Python<'_>, x: PyRef<'_, PyDataSlice>) -> PyResult<Py<PyAny>> {
    wrap(py, x.inner.clone())
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(shard_alias, m)?)?;
    m.add_class::<PyShardPlan>()?;
    m.add_function(wrap_pyfunction!(shard_plan, m)?)?;
    m.add_function(wrap_pyfunction!(shard_row_count, m)?)?;
    m.add_function(wrap_pyfunction!(shard_split, m)?)?;
    m.add_function(wrap_pyfunction!(shard_gather, m)?)?;
    Ok(())
}
