//! Streams and executors (Koda's `kd.streams`, the machinery of
//! `kd.parallel`).
//!
//! A *stream* is a sequence of values written by a producer while readers
//! read them: its items stay in memory (every reader sees them all, from the
//! start), and it ends closed, with or without an error. An *executor* runs
//! tasks: the eager executor at once, on the calling thread; the others on
//! the task threads of `plait_core::parallel` (apart from the kernels'
//! workers), at most `thread_limit` tasks at a time, the rest queued.
//!
//! ```text
//!   writer ──write──▶ [item0 item1 item2 ...  closed(Ok | Err)]
//!                        ▲ reader A (at 3)   ▲ reader B (at 1)
//!   a reader with nothing new subscribes: its callback is scheduled on
//!   an executor at the next write or at the close
//! ```
//!
//! Operators over streams never block a task thread: they subscribe to
//! their inputs ([`consume`]) and write their outputs from callbacks. Only
//! `sync_wait` / `unsafe_blocking_wait` and Python's reads block, and the
//! Python bindings release the GIL around them (a task calling Python takes
//! the GIL back).
//!
//! Each task runs in a *context*, inherited from the code that scheduled it:
//! the executor running it (`kd.streams.current_executor`), the
//! cancellation token ([`Cancel`]: set when a result is no longer wanted,
//! checked between items so outstanding work stops), and, inside
//! `kd.parallel`, the executor on which loops over items run in parallel
//! ([`parallel_executor`], used by `kd.map`).

use std::any::Any;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, Weak};
use std::time::{Duration, Instant};

use plait_core::{Error, Result};
use plait_ops::registry::Value;

use crate::value::{ExprValue, Foreign};

/// Work for an executor.
pub type Task = Box<dyn FnOnce() + Send + 'static>;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

// ---------------------------------------------------------------- cancellation

/// A cancellation token: once cancelled, loops stop at their next item and
/// streams being produced for it are closed with an error.
#[derive(Clone, Debug, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    pub fn new() -> Cancel {
        Cancel::default()
    }

    pub fn cancel(&self) {
        self.0.store(true, Ordering::Release);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }
}

/// The error of work stopped by cancellation.
pub fn cancelled_error(op: &str) -> Error {
    Error::value(op, "cancelled: the result is no longer needed (a timeout, an error elsewhere, or the stream was dropped)")
}

// ---------------------------------------------------------------- context

/// Where the code on this thread runs (see the module docs).
#[derive(Clone, Default)]
struct Context {
    executor: Option<Executor>,
    in_task: bool,
    cancel: Option<Cancel>,
    parallel: Option<Executor>,
}

thread_local! {
    static CONTEXT: RefCell<Context> = RefCell::new(Context::default());
}

fn context() -> Context {
    CONTEXT.with(|c| c.borrow().clone())
}

/// Runs `f` in context `ctx`, restoring the previous one however it ends.
fn within<R>(ctx: Context, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Context>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let old = self.0.take().unwrap_or_default();
            CONTEXT.with(|c| *c.borrow_mut() = old);
        }
    }
    let old = CONTEXT.with(|c| std::mem::replace(&mut *c.borrow_mut(), ctx));
    let _restore = Restore(Some(old));
    f()
}

/// Whether this thread is running a task of an executor.
pub fn in_task() -> bool {
    CONTEXT.with(|c| c.borrow().in_task)
}

/// The executor running the current task, else the default executor.
pub fn current_executor() -> Executor {
    CONTEXT.with(|c| c.borrow().executor.clone()).unwrap_or_else(Executor::default_executor)
}

/// Whether the work of the current context was cancelled.
pub fn cancelled() -> bool {
    CONTEXT.with(|c| c.borrow().cancel.as_ref().is_some_and(Cancel::is_cancelled))
}

/// The cancellation token of the current context, if any.
pub fn current_cancel() -> Option<Cancel> {
    CONTEXT.with(|c| c.borrow().cancel.clone())
}

/// The executor on which loops over items run in parallel (inside
/// `kd.parallel`), if any.
pub fn parallel_executor() -> Option<Executor> {
    CONTEXT.with(|c| c.borrow().parallel.clone())
}

/// Runs `f` with parallel loops on `executor` and cancellation `cancel`.
pub fn in_parallel<R>(executor: Executor, cancel: Cancel, f: impl FnOnce() -> R) -> R {
    let mut ctx = context();
    ctx.parallel = Some(executor);
    ctx.cancel = Some(cancel);
    within(ctx, f)
}

/// Runs `f` with loops over items sequential again (a functor called
/// "normally" inside `kd.parallel`, a Python function).
pub fn sequential<R>(f: impl FnOnce() -> R) -> R {
    if CONTEXT.with(|c| c.borrow().parallel.is_none()) {
        return f();
    }
    let mut ctx = context();
    ctx.parallel = None;
    within(ctx, f)
}

/// Runs `f` outside any task context: a Python function called from a task
/// sees the main thread's world (blocking waits allowed, no parallel loops).
pub fn outside_tasks<R>(f: impl FnOnce() -> R) -> R {
    if CONTEXT.with(|c| !c.borrow().in_task && c.borrow().parallel.is_none()) {
        return f();
    }
    let mut ctx = context();
    ctx.parallel = None;
    ctx.in_task = false;
    within(ctx, f)
}

// ---------------------------------------------------------------- executors

/// Runs tasks; cloning shares the executor.
#[derive(Clone)]
pub struct Executor(Arc<ExecutorInner>);

struct ExecutorInner {
    kind: ExecutorKind,
    id: u64,
    queue: Mutex<Queue>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum ExecutorKind {
    Eager,
    /// On task threads, at most `limit` tasks at once.
    Threads {
        limit: usize,
        default: bool,
    },
}

#[derive(Default)]
struct Queue {
    waiting: VecDeque<Task>,
    running: usize,
}

fn next_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// The number of CPUs this process may use.
pub fn available_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

impl Executor {
    fn make(kind: ExecutorKind) -> Executor {
        Executor(Arc::new(ExecutorInner { kind, id: next_id(), queue: Mutex::new(Queue::default()) }))
    }

    /// The executor that runs each task at once, on the thread scheduling it.
    pub fn eager() -> Executor {
        static EAGER: OnceLock<Executor> = OnceLock::new();
        EAGER.get_or_init(|| Executor::make(ExecutorKind::Eager)).clone()
    }

    /// The process's default executor: one task per CPU at a time.
    pub fn default_executor() -> Executor {
        static DEFAULT: OnceLock<Executor> = OnceLock::new();
        DEFAULT.get_or_init(|| Executor::make(ExecutorKind::Threads { limit: available_threads(), default: true })).clone()
    }

    /// A new executor running at most `thread_limit` tasks at once (0: one
    /// per CPU).
    pub fn with_limit(thread_limit: usize) -> Executor {
        let limit = if thread_limit == 0 { available_threads() } else { thread_limit.min(plait_core::parallel::MAX_TASK_THREADS) };
        Executor::make(ExecutorKind::Threads { limit, default: false })
    }

    /// How many tasks run at once (1 for the eager executor).
    pub fn thread_limit(&self) -> usize {
        match self.0.kind {
            ExecutorKind::Eager => 1,
            ExecutorKind::Threads { limit, .. } => limit,
        }
    }

    pub fn is_eager(&self) -> bool {
        self.0.kind == ExecutorKind::Eager
    }

    /// Koda's names of executors.
    pub fn name(&self) -> &'static str {
        match self.0.kind {
            ExecutorKind::Eager => "eager_executor",
            ExecutorKind::Threads { default: true, .. } => "default_asio_executor",
            ExecutorKind::Threads { default: false, .. } => "asio_executor",
        }
    }

    /// Schedules `task`; it runs in the context of the caller (its
    /// cancellation, its parallel mode), with this executor as the current.
    pub fn schedule(&self, task: Task) {
        let mut ctx = context();
        ctx.executor = Some(self.clone());
        ctx.in_task = true;
        let task: Task = Box::new(move || within(ctx, task));
        match self.0.kind {
            ExecutorKind::Eager => task(),
            ExecutorKind::Threads { limit, .. } => {
                let mut queue = lock(&self.0.queue);
                if queue.running >= limit {
                    queue.waiting.push_back(task);
                    return;
                }
                queue.running += 1;
                drop(queue);
                let me = self.clone();
                plait_core::parallel::spawn_task(Box::new(move || me.run(task)));
            }
        }
    }

    /// Runs `task`, then the tasks waiting for a free slot, on this thread.
    fn run(&self, mut task: Task) {
        loop {
            // A panic is the task's own failure; the slot stays usable.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(task));
            let mut queue = lock(&self.0.queue);
            match queue.waiting.pop_front() {
                Some(next) => task = next,
                None => {
                    queue.running -= 1;
                    return;
                }
            }
        }
    }

    pub fn id(&self) -> u64 {
        self.0.id
    }
}

impl fmt::Debug for Executor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Foreign for Executor {
    fn repr(&self) -> String {
        self.name().to_string()
    }

    fn fingerprint(&self) -> u128 {
        let mut h = plait_core::itemid::UuidHasher::new("executor");
        h.write_bytes(&self.0.id.to_le_bytes());
        h.write_bytes(&(std::process::id() as u64).to_le_bytes());
        h.finish()
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn type_name(&self) -> String {
        "EXECUTOR".to_string()
    }
}

/// The executor an expression value holds, if any.
pub fn as_executor(v: &ExprValue) -> Option<Executor> {
    match v {
        ExprValue::Foreign(f) => f.as_any().downcast_ref::<Executor>().cloned(),
        _ => None,
    }
}

// ---------------------------------------------------------------- streams

/// What a stream holds.
struct State {
    items: Vec<ExprValue>,
    closed: Option<Result<()>>,
    /// Callbacks waiting for the next write or the close.
    subscribers: Vec<(Executor, Task)>,
}

/// The shared contents of a stream (its handles, readers and writer point here).
pub struct Shared {
    value_type: Arc<str>,
    state: Mutex<State>,
    changed: Condvar,
    /// Cancelled when every handle of the stream is dropped, or on
    /// request (`_cancel`): the work producing it stops.
    cancel: Cancel,
}

/// A stream: the value `kd.streams.*` computes with (an expression value,
/// see [`as_stream`]). The writer holds it weakly: when no handle is left,
/// the stream is *orphaned* and its producers stop.
pub struct Stream {
    shared: Arc<Shared>,
}

impl Drop for Stream {
    fn drop(&mut self) {
        self.shared.cancel.cancel();
    }
}

/// The writing end of a stream. Dropped without [`Writer::close`], it
/// closes the stream with an error (so no reader waits forever).
pub struct Writer {
    shared: Arc<Shared>,
    handle: Weak<Stream>,
    closed: AtomicBool,
}

/// What a read found: items, and how the stream ended if it did.
pub struct Read {
    pub items: Vec<ExprValue>,
    pub end: Option<Result<()>>,
}

impl Stream {
    /// A new open stream of values of type `value_type` and its writer.
    pub fn new(value_type: &str) -> (Arc<Stream>, Writer) {
        let state = State { items: Vec::new(), closed: None, subscribers: Vec::new() };
        let shared = Arc::new(Shared { value_type: Arc::from(value_type), state: Mutex::new(state), changed: Condvar::new(), cancel: Cancel::new() });
        let stream = Arc::new(Stream { shared: shared.clone() });
        let writer = Writer { shared, handle: Arc::downgrade(&stream), closed: AtomicBool::new(false) };
        (stream, writer)
    }

    /// A closed stream of `items`.
    pub fn from_items(value_type: &str, items: Vec<ExprValue>) -> Arc<Stream> {
        let (stream, writer) = Stream::new(value_type);
        lock(&stream.shared.state).items = items;
        writer.close(Ok(()));
        stream
    }

    /// The type of the values (`DATA_SLICE`, ...).
    pub fn value_type(&self) -> &str {
        &self.shared.value_type
    }

    /// The stream as an expression value.
    pub fn value(self: &Arc<Stream>) -> ExprValue {
        ExprValue::Foreign(Arc::new(StreamValue(self.clone())))
    }

    /// The items from `from` on (at most `limit`), and the end if every item
    /// was read and the stream is closed.
    pub fn read(&self, from: usize, limit: usize) -> Read {
        let state = lock(&self.shared.state);
        let to = state.items.len().min(from.saturating_add(limit));
        let items = state.items.get(from..to).map(<[ExprValue]>::to_vec).unwrap_or_default();
        let end = if to == state.items.len() { state.closed.clone() } else { None };
        Read { items, end }
    }

    /// Schedules `callback` on `executor` once there is an item past `from`
    /// or the stream is closed (at once if so already).
    pub fn subscribe(&self, from: usize, executor: Executor, callback: Task) {
        let mut state = lock(&self.shared.state);
        if state.items.len() > from || state.closed.is_some() {
            drop(state);
            executor.schedule(callback);
        } else {
            state.subscribers.push((executor, callback));
        }
    }

    /// Waits until the stream is closed (at most `timeout`) and returns its
    /// items, or its error. `Ok(None)` when the time ran out.
    pub fn wait_all(&self, timeout: Option<Duration>) -> Result<Option<Vec<ExprValue>>> {
        let deadline = timeout.map(|t| Instant::now() + t);
        let mut state = lock(&self.shared.state);
        loop {
            if let Some(end) = &state.closed {
                return end.clone().map(|()| Some(state.items.clone()));
            }
            state = match deadline {
                None => self.shared.changed.wait(state).unwrap_or_else(|e| e.into_inner()),
                Some(deadline) => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Ok(None);
                    }
                    self.shared.changed.wait_timeout(state, left).unwrap_or_else(|e| e.into_inner()).0
                }
            };
        }
    }

    /// Waits until there is an item past `from` or the stream is closed (at
    /// most until `deadline`); whether it happened.
    pub fn wait_past(&self, from: usize, deadline: Option<Instant>) -> bool {
        let mut state = lock(&self.shared.state);
        loop {
            if state.items.len() > from || state.closed.is_some() {
                return true;
            }
            state = match deadline {
                None => self.shared.changed.wait(state).unwrap_or_else(|e| e.into_inner()),
                Some(deadline) => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return false;
                    }
                    self.shared.changed.wait_timeout(state, left).unwrap_or_else(|e| e.into_inner()).0
                }
            };
        }
    }

    /// Stops the work producing the stream: its producers see the
    /// cancellation and close it with an error.
    pub fn cancel(&self) {
        self.shared.cancel.cancel();
    }

    /// The token cancelled when the stream is no longer wanted.
    pub fn cancel_token(&self) -> Cancel {
        self.shared.cancel.clone()
    }
}

impl fmt::Debug for Stream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "stream[{}]", self.shared.value_type)
    }
}

impl Foreign for StreamValue {
    fn repr(&self) -> String {
        format!("stream[{}]", self.0.shared.value_type)
    }

    fn fingerprint(&self) -> u128 {
        Arc::as_ptr(&self.0.shared) as usize as u128
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn type_name(&self) -> String {
        format!("STREAM[{}]", self.0.shared.value_type)
    }
}

impl Writer {
    /// Appends `item` (ignored once the stream is closed).
    pub fn write(&self, item: ExprValue) {
        let subscribers = {
            let mut state = lock(&self.shared.state);
            if state.closed.is_some() {
                return;
            }
            state.items.push(item);
            std::mem::take(&mut state.subscribers)
        };
        self.shared.changed.notify_all();
        for (executor, callback) in subscribers {
            executor.schedule(callback);
        }
    }

    /// Closes the stream, with `Err` as its error (a second close is ignored).
    pub fn close(&self, end: Result<()>) {
        self.closed.store(true, Ordering::Release);
        let subscribers = {
            let mut state = lock(&self.shared.state);
            if state.closed.is_some() {
                return;
            }
            state.closed = Some(end);
            std::mem::take(&mut state.subscribers)
        };
        self.shared.changed.notify_all();
        for (executor, callback) in subscribers {
            executor.schedule(callback);
        }
    }

    /// Whether no handle of the stream is left (nobody will read it).
    pub fn orphaned(&self) -> bool {
        self.handle.strong_count() == 0
    }

    /// Whether the stream is closed.
    pub fn is_closed(&self) -> bool {
        lock(&self.shared.state).closed.is_some()
    }

    /// Whether the stream's consumer gave up on it (dropped or cancelled):
    /// its producers should stop.
    pub fn abandoned(&self) -> bool {
        self.orphaned() || self.shared.cancel.is_cancelled()
    }

    /// The stream written, while a handle of it is left.
    pub fn stream(&self) -> Option<Arc<Stream>> {
        self.handle.upgrade()
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        if !self.closed.load(Ordering::Acquire) {
            self.close(Err(Error::value("kd.streams", "the stream's writer was dropped without closing it")));
        }
    }
}

/// A stream inside an expression value (a handle: see [`Stream`]).
#[derive(Debug)]
pub struct StreamValue(pub Arc<Stream>);

/// The stream an expression value holds, if any.
pub fn as_stream(v: &ExprValue) -> Option<Arc<Stream>> {
    match v {
        ExprValue::Foreign(f) => f.as_any().downcast_ref::<StreamValue>().map(|s| s.0.clone()),
        _ => None,
    }
}

/// A stream marked by `kd.streams.await_`: `kd.streams.call` waits for its
/// single item.
#[derive(Debug)]
pub struct Awaited(pub Arc<Stream>);

impl Foreign for Awaited {
    fn repr(&self) -> String {
        format!("LABEL[AWAIT]{{stream[{}]}}", self.0.value_type())
    }

    fn fingerprint(&self) -> u128 {
        (Arc::as_ptr(&self.0) as usize as u128) ^ 0x5157
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn type_name(&self) -> String {
        format!("STREAM[{}]", self.0.value_type())
    }
}

/// How Koda names the type of a value (`DATA_SLICE`, `STREAM[DATA_BAG]`, ...).
pub fn value_type_name(v: &ExprValue) -> String {
    match v {
        ExprValue::Data(Value::Slice(_)) => "DATA_SLICE".to_string(),
        ExprValue::Data(Value::Shape(_)) => "JAGGED_SHAPE".to_string(),
        ExprValue::Data(Value::Bag(_)) => "DATA_BAG".to_string(),
        ExprValue::Data(t @ Value::Tuple(_)) => value_type_name(&ExprValue::from(t.clone())),
        // `tuple<DATA_SLICE,DATA_BAG>`, `namedtuple<a=DATA_SLICE>`.
        ExprValue::Tuple(t) => {
            let types = t.items.iter().map(value_type_name);
            match &t.names {
                None => format!("tuple<{}>", types.collect::<Vec<_>>().join(",")),
                Some(names) => {
                    let fields: Vec<String> = names.iter().zip(types).map(|(n, ty)| format!("{n}={ty}")).collect();
                    format!("namedtuple<{}>", fields.join(","))
                }
            }
        }
        ExprValue::Foreign(f) => f.type_name(),
        other => crate::builtins::type_name(other).to_string(),
    }
}

// ---------------------------------------------------------------- reading

/// Reads `stream` asynchronously on `executor`: `on_item` for each item in
/// order (`Ok(false)` or an error stops reading), then `on_end` with how
/// the reading ended. No thread waits: when nothing is new, the reader
/// subscribes and returns.
pub fn consume<I, E>(stream: Arc<Stream>, executor: Executor, on_item: I, on_end: E)
where
    I: FnMut(ExprValue) -> Result<bool> + Send + 'static,
    E: FnOnce(Result<()>) + Send + 'static,
{
    struct Consumer<I, E> {
        stream: Arc<Stream>,
        executor: Executor,
        at: usize,
        on_item: I,
        on_end: Option<E>,
    }
    fn step<I, E>(mut c: Box<Consumer<I, E>>)
    where
        I: FnMut(ExprValue) -> Result<bool> + Send + 'static,
        E: FnOnce(Result<()>) + Send + 'static,
    {
        loop {
            let read = c.stream.read(c.at, usize::MAX);
            c.at += read.items.len();
            for item in read.items {
                let go_on = if cancelled() { Err(cancelled_error("kd.streams")) } else { (c.on_item)(item) };
                match go_on {
                    Ok(true) => {}
                    Ok(false) => return (c.on_end.take().expect("ends once"))(Ok(())),
                    Err(e) => return (c.on_end.take().expect("ends once"))(Err(e)),
                }
            }
            if let Some(end) = read.end {
                return (c.on_end.take().expect("ends once"))(end);
            }
            // Nothing new: wait for the next write without a thread.
            let (stream, executor, at) = (c.stream.clone(), c.executor.clone(), c.at);
            let more = stream.read(at, 1);
            if more.items.is_empty() && more.end.is_none() {
                stream.subscribe(at, executor, Box::new(move || step(c)));
                return;
            }
        }
    }
    executor.clone().schedule(Box::new(move || step(Box::new(Consumer { stream, executor, at: 0, on_item, on_end: Some(on_end) }))));
}

// ---------------------------------------------------------------- parallel loops

/// Computes `f(0)`, ..., `f(n - 1)` on `executor` and returns the results
/// in order; the first error (or a cancellation) stops the others.
///
/// The calling thread works too: it takes items from the same counter as
/// the helper tasks, so it never waits for a task that has not started
/// (no deadlock however few threads the executor has, and nested loops
/// inside `f` are safe); it waits only for items other threads are
/// computing.
pub fn parallel_for<T: Send + 'static>(executor: &Executor, n: usize, f: Arc<dyn Fn(usize) -> Result<T> + Send + Sync>) -> Result<Vec<T>> {
    struct Job<T> {
        f: Arc<dyn Fn(usize) -> Result<T> + Send + Sync>,
        n: usize,
        next: AtomicUsize,
        failed: AtomicBool,
        results: Mutex<Vec<Option<T>>>,
        error: Mutex<Option<(usize, Error)>>,
        finished: Mutex<usize>,
        done: Condvar,
    }
    impl<T> Job<T> {
        fn work(&self) {
            loop {
                if self.failed.load(Ordering::Acquire) {
                    return;
                }
                let i = self.next.fetch_add(1, Ordering::AcqRel);
                if i >= self.n {
                    return;
                }
                let result = if cancelled() { Err(cancelled_error("kd.parallel")) } else { (self.f)(i) };
                match result {
                    Ok(v) => lock(&self.results)[i] = Some(v),
                    Err(e) => {
                        let mut error = lock(&self.error);
                        // The error of the first item that failed, as a sequential loop reports.
                        if error.as_ref().is_none_or(|(j, _)| i < *j) {
                            *error = Some((i, e));
                        }
                        self.failed.store(true, Ordering::Release);
                    }
                }
                *lock(&self.finished) += 1;
                self.done.notify_all();
            }
        }
    }
    let job = Arc::new(Job {
        f,
        n,
        next: AtomicUsize::new(0),
        failed: AtomicBool::new(false),
        results: Mutex::new((0..n).map(|_| None).collect()),
        error: Mutex::new(None),
        finished: Mutex::new(0),
        done: Condvar::new(),
    });
    let helpers = executor.thread_limit().min(n).saturating_sub(1);
    if !executor.is_eager() {
        for _ in 0..helpers {
            let job = job.clone();
            executor.schedule(Box::new(move || job.work()));
        }
    }
    job.work();
    let mut finished = lock(&job.finished);
    while *finished < job.next.load(Ordering::Acquire).min(n) {
        finished = job.done.wait(finished).unwrap_or_else(|e| e.into_inner());
    }
    drop(finished);
    if let Some((_, e)) = lock(&job.error).take() {
        return Err(e);
    }
    let results = std::mem::take(&mut *lock(&job.results));
    results.into_iter().map(|r| r.ok_or_else(|| cancelled_error("kd.parallel"))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(i: i64) -> ExprValue {
        ExprValue::slice(plait_core::DataSlice::item(Some(plait_core::ScalarRef::Int64(i)), plait_core::Schema::Int64).unwrap())
    }

    #[test]
    fn writes_and_reads() {
        let (stream, writer) = Stream::new("DATA_SLICE");
        writer.write(item(1));
        assert_eq!(stream.read(0, 10).items.len(), 1);
        assert!(stream.read(0, 10).end.is_none());
        writer.close(Ok(()));
        assert!(matches!(stream.read(1, 10).end, Some(Ok(()))));
        assert_eq!(stream.wait_all(None).unwrap().unwrap().len(), 1);
    }

    #[test]
    fn dropped_writer_closes_with_an_error() {
        let (stream, writer) = Stream::new("DATA_SLICE");
        drop(writer);
        assert!(stream.wait_all(None).is_err());
    }

    #[test]
    fn orphaned_when_no_handle_is_left() {
        let (stream, writer) = Stream::new("DATA_SLICE");
        assert!(!writer.orphaned());
        drop(stream);
        assert!(writer.orphaned() && writer.abandoned());
    }

    #[test]
    fn consumes_asynchronously() {
        let (stream, writer) = Stream::new("DATA_SLICE");
        let seen = Arc::new(AtomicUsize::new(0));
        let seen2 = seen.clone();
        let (done_stream, done_writer) = Stream::new("DATA_SLICE");
        let done_writer = Mutex::new(Some(done_writer));
        consume(
            stream.clone(),
            Executor::default_executor(),
            move |_| {
                seen2.fetch_add(1, Ordering::SeqCst);
                Ok(true)
            },
            move |end| {
                lock(&done_writer).take().unwrap().close(end);
            },
        );
        for i in 0..10 {
            writer.write(item(i));
        }
        writer.close(Ok(()));
        done_stream.wait_all(None).unwrap();
        assert_eq!(seen.load(Ordering::SeqCst), 10);
    }

    #[test]
    fn parallel_for_keeps_the_order_and_the_first_error() {
        let executor = Executor::with_limit(4);
        let squares = parallel_for(&executor, 100, Arc::new(|i| Ok(i * i))).unwrap();
        assert_eq!(squares, (0..100).map(|i| i * i).collect::<Vec<_>>());
        let failed = parallel_for(&executor, 100, Arc::new(|i| if i >= 10 { Err(Error::value("op", format!("item {i}"))) } else { Ok(i) }));
        assert!(failed.unwrap_err().message.contains("item"));
        // Nested loops on one thread do not deadlock.
        let one = Executor::with_limit(1);
        let inner = one.clone();
        let nested = parallel_for(&one, 4, Arc::new(move |i| Ok(parallel_for(&inner, 4, Arc::new(move |j| Ok(i * j)))?.iter().sum::<usize>())));
        assert_eq!(nested.unwrap(), vec![0, 6, 12, 18]);
    }
}
