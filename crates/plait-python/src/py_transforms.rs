//! The Rust halves of the function transforms `kd.compile` and `kd.vmap`
//! (`python/plait/kd/compiled.py`, `vmapped.py` are the others): the cache
//! key of a call's DataSlices; compiled plans — a traced function's
//! expression optimised (`plait_expr::compile`) and planned once, then run
//! on each call's values; and the vectorising rewrite (`plait_expr::vmap`).

use std::hash::{BuildHasher, Hasher};
use std::sync::Arc;

use plait_core::Edge;
use plait_expr::eval::{Bindings, Plan};
use plait_expr::{Expr, ExprValue};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::errors::guard;
use crate::py_expr::{PyExpr, eval_failure, from_value, to_value};
use crate::py_slice::PyDataSlice;

/// The part of a call's cache key its DataSlices make: each one's schema
/// and dimensions (a uniform dimension by its size, a ragged one as
/// ragged: its rows' sizes are data, as in the type `INT32[3, *]`), except
/// the dynamic dimensions, which count as dynamic whatever their size.
/// `dynamic` has, per DataSlice, `None` or an int whose bit `d` is set when
/// dimension `d` is dynamic (their names are the compiled function's, the
/// same at every call). 128 bits: a key only chooses a plan, and every plan
/// computes right on any values (the types only make it fast).
#[pyfunction]
fn compile_key(leaves: &Bound<'_, PyTuple>, dynamic: &Bound<'_, PyTuple>) -> PyResult<u128> {
    let seeds = [0x243f_6a88_85a3_08d3_u64, 0x1319_8a2e_0370_7344];
    let mut hashers = seeds.map(|s| foldhash::fast::FixedState::with_seed(s).build_hasher());
    for (k, leaf) in leaves.iter().enumerate() {
        let x = leaf.cast::<PyDataSlice>().map_err(|_| PyTypeError::new_err(format!("kd.compile: leaf {k} is not a DataSlice")))?;
        let x = &x.get().inner;
        let schema = x.schema();
        hashers.iter_mut().for_each(|h| std::hash::Hash::hash(&schema, h));
        let mut write = |word: u64| hashers.iter_mut().for_each(|h| h.write_u64(word));
        let mask = match dynamic.get_item(k) {
            Ok(m) if !m.is_none() => m.extract::<u64>()?,
            _ => 0,
        };
        write(x.shape().rank() as u64);
        for (d, edge) in x.shape().edges().iter().enumerate() {
            match edge {
                _ if d < 64 && mask & (1 << d) != 0 => write(2),
                Edge::Uniform { size, .. } => {
                    write(0);
                    write(*size as u64);
                }
                Edge::Split(_) => write(1),
            }
        }
    }
    let [high, low] = hashers.map(|h| h.finish());
    Ok(((high as u128) << 64) | low as u128)
}

/// A compiled plan: the traced expression over the call's leaves (`I._0`,
/// `I._1`, ...), prepared and fused, and its evaluation plan.
#[pyclass(frozen, name = "CompiledPlan", module = "plait.kd")]
pub struct PyCompiledPlan {
    expr: Expr,
    plan: Arc<Plan>,
    names: Vec<String>,
    /// Whether the plan never calls back into Python (see
    /// `plait_expr::compile::host_free`).
    host_free: bool,
}

/// `expr` (over inputs `_0` .. `_{n-1}`) compiled: literals folded, lambda
/// operators inlined, elementwise groups fused, shared subexpressions
/// computed once, planned.
#[pyfunction]
fn compile_plan(expr: &PyExpr, leaves: usize) -> PyResult<PyCompiledPlan> {
    let expr = guard(|| plait_expr::compile::optimise(&expr.inner))?;
    let plan = guard(|| plait_expr::eval::plan(&expr))?;
    let host_free = plait_expr::compile::host_free(&expr);
    Ok(PyCompiledPlan { expr, plan, names: (0..leaves).map(plait_expr::builtins::fused::input_name).collect(), host_free })
}

#[pymethods]
impl PyCompiledPlan {
    /// Runs the plan on `leaves` (one value per input, in order).
    #[pyo3(signature = (*leaves))]
    fn __call__(&self, py: Python<'_>, leaves: &Bound<'_, PyTuple>) -> PyResult<Py<PyAny>> {
        let values = self.leaf_values(leaves)?;
        let plan = self.plan.clone();
        let outcome = crate::errors::guard_detached(py, move || Ok(run_job((plan, values))))?;
        match outcome {
            Ok(value) => from_value(py, value),
            Err(failure) => Err(eval_failure(py, failure)),
        }
    }

    /// The optimised expression.
    #[getter]
    fn expr(&self) -> PyExpr {
        PyExpr { inner: self.expr.clone() }
    }
}

impl PyCompiledPlan {
    /// `leaves` (one Python value per input, in order) as the plan's
    /// inputs, by name.
    fn leaf_values(&self, leaves: &Bound<'_, PyTuple>) -> PyResult<Vec<(String, ExprValue)>> {
        if leaves.len() != self.names.len() {
            return Err(PyTypeError::new_err(format!("kd.compile: the plan takes {} values, got {}", self.names.len(), leaves.len())));
        }
        self.names.iter().zip(leaves.iter()).map(|(name, leaf)| Ok((name.clone(), to_value("kd.compile", &leaf, false)?))).collect()
    }
}

/// A plan and the values of its inputs, by name.
type PlanJob = (Arc<Plan>, Vec<(String, ExprValue)>);

/// Runs each `(plan, leaves)` of `tasks` at once (at most `max_workers` at
/// a time), without the GIL: per task `(True, its result)` or `(False, the
/// exception it raised)`, in order. Plans that never call Python run as
/// tasks of the kernels' worker pool, sharing it with each other's kernels
/// (the shards of `kd.shard_map`); plans that may call Python (a `py_fn`,
/// a functor call, printing) each get a thread of their own, as a worker
/// waiting for the GIL would stall the kernels sharing the pool.
#[pyfunction]
#[pyo3(signature = (tasks, max_workers=None))]
fn run_plans(py: Python<'_>, tasks: Vec<(Py<PyCompiledPlan>, Bound<'_, PyTuple>)>, max_workers: Option<usize>) -> PyResult<Vec<(bool, Py<PyAny>)>> {
    let mut on_pool: Vec<(usize, PlanJob)> = Vec::new();
    let mut on_threads: Vec<(usize, PlanJob)> = Vec::new();
    for (i, (plan, leaves)) in tasks.iter().enumerate() {
        let plan = plan.get();
        let job = (i, (plan.plan.clone(), plan.leaf_values(leaves)?));
        if plan.host_free { on_pool.push(job) } else { on_threads.push(job) }
    }
    let n = tasks.len();
    let outcomes = crate::errors::guard_detached(py, move || {
        let mut outcomes: Vec<Option<RunOutcome>> = (0..n).map(|_| None).collect();
        // The plans that may call Python run on task threads: `at_once`
        // lanes, each taking the next waiting plan when it is done, while
        // the other plans run on the kernels' pool here.
        let lanes = max_workers.unwrap_or(usize::MAX).max(1).min(on_threads.len());
        let waiting = Arc::new(std::sync::Mutex::new(on_threads.into_iter()));
        let (sender, finished) = std::sync::mpsc::channel();
        for _ in 0..lanes {
            let (waiting, sender) = (waiting.clone(), sender.clone());
            plait_core::parallel::spawn_task(Box::new(move || {
                loop {
                    let next = waiting.lock().unwrap_or_else(|e| e.into_inner()).next();
                    let Some((i, job)) = next else { return };
                    if sender.send((i, run_job(job))).is_err() {
                        return;
                    }
                }
            }));
        }
        drop(sender);
        let indices: Vec<usize> = on_pool.iter().map(|(i, _)| *i).collect();
        let results = plait_core::parallel::map_each(on_pool.into_iter().map(|(_, job)| job).collect(), max_workers, run_job);
        for (i, r) in indices.into_iter().zip(results).chain(finished) {
            outcomes[i] = Some(r);
        }
        Ok(outcomes
            .into_iter()
            .map(|o| o.unwrap_or_else(|| Err(plait_expr::eval::EvalError::from(plait_core::Error::internal("a task's thread stopped")))))
            .collect::<Vec<_>>())
    })?;
    outcomes
        .into_iter()
        .map(|outcome| match outcome {
            Ok(value) => Ok((true, from_value(py, value)?)),
            Err(failure) => Ok((false, eval_failure(py, failure).into_value(py).into_any())),
        })
        .collect()
}

type RunOutcome = std::result::Result<ExprValue, plait_expr::eval::EvalError>;

/// One plan on its values; a panic is this task's error, not the batch's.
fn run_job((plan, values): PlanJob) -> RunOutcome {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let values: Vec<(&str, ExprValue)> = values.iter().map(|(n, v)| (n.as_str(), v.clone())).collect();
        plan.run(&Bindings { inputs: Some(&values), variables: None })
    }))
    .unwrap_or_else(|payload| {
        let message = crate::errors::panic_detail(&*payload).unwrap_or_default();
        Err(plait_core::Error::internal(format!("a panic while running a plan: {message}")).into())
    })
}

/// How many operators have computed on this thread so far (`kd.compile`'s
/// epoch: an evaluation inside a function being traced moves it).
#[pyfunction]
fn eval_epoch() -> u64 {
    plait_ops::registry::eval_epoch()
}

/// `expr` with inputs `batched` carrying `k` leading batch dimensions,
/// rewritten to compute every example at once (`kd.vmap`); also whether
/// the result is batched.
#[pyfunction]
fn vmap_expr(expr: &PyExpr, batched: Vec<String>, k: i64) -> PyResult<(PyExpr, bool)> {
    let batched = batched.into_iter().collect();
    let (inner, is_batched) = guard(|| plait_expr::vmap::vectorize(&expr.inner, &batched, k))?;
    Ok((PyExpr { inner }, is_batched))
}

/// The operator nodes of named expressions `outputs`, each once, children
/// first: what `kd.parallel.partition` asks its `part_fn` about.
#[pyfunction]
fn partition_nodes(outputs: Vec<(String, PyRef<'_, PyExpr>)>) -> Vec<PyExpr> {
    let outputs: Vec<(String, Expr)> = outputs.into_iter().map(|(n, e)| (n, e.inner.clone())).collect();
    plait_expr::partition::operator_nodes(&outputs).into_iter().map(|inner| PyExpr { inner }).collect()
}

/// One part: (pid, needed pids, input names, [(output name, expression)]).
type PartTuple = (usize, Vec<usize>, Vec<String>, Vec<(String, PyExpr)>);

/// `outputs` cut into parts by `keys` (a part key per operator node of
/// `partition_nodes`): `("parts", [part, ...])` in dependency batches'
/// order of pids, or `("cycle", [pid, ...])`.
#[pyfunction]
fn partition_expr(outputs: Vec<(String, PyRef<'_, PyExpr>)>, keys: Vec<u64>) -> PyResult<(String, Vec<PartTuple>, Vec<usize>)> {
    use plait_expr::partition::{Partitioned, partition};
    let outputs: Vec<(String, Expr)> = outputs.into_iter().map(|(n, e)| (n, e.inner.clone())).collect();
    Ok(match guard(|| partition(&outputs, &keys))? {
        Partitioned::Cycle(pids) => ("cycle".to_string(), Vec::new(), pids),
        Partitioned::Parts(parts) => {
            let parts = parts
                .into_iter()
                .map(|p| {
                    let outputs = p.outputs.into_iter().map(|(n, inner)| (n, PyExpr { inner })).collect();
                    (p.pid, p.needed_pids.into_iter().collect(), p.input_names.into_iter().collect(), outputs)
                })
                .collect();
            ("parts".to_string(), parts, Vec::new())
        }
    })
}

/// The prefix of the names of values crossing part boundaries.
#[pyfunction]
fn partition_boundary_prefix() -> &'static str {
    plait_expr::partition::BOUNDARY_PREFIX
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyCompiledPlan>()?;
    m.add_function(wrap_pyfunction!(partition_boundary_prefix, m)?)?;
    m.add_function(wrap_pyfunction!(partition_nodes, m)?)?;
    m.add_function(wrap_pyfunction!(partition_expr, m)?)?;
    m.add_function(wrap_pyfunction!(vmap_expr, m)?)?;
    m.add_function(wrap_pyfunction!(compile_key, m)?)?;
    m.add_function(wrap_pyfunction!(compile_plan, m)?)?;
    m.add_function(wrap_pyfunction!(eval_epoch, m)?)?;
    m.add_function(wrap_pyfunction!(run_plans, m)?)?;
    Ok(())
}
