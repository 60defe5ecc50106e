//! plait's worker threads: one rayon pool per process, built when a kernel
//! first needs it.
//!
//! Every parallel kernel runs its rayon iterators inside [`install`], never
//! on rayon's global pool. A process forked after the pool started
//! (`os.fork`, `multiprocessing` with the fork start method) inherits the
//! pool's bookkeeping but none of its threads, so a job handed to the global
//! pool there would wait forever. The pool here remembers the id of the
//! process that built it; a forked child sees another id and builds a pool of
//! its own.
//!
//! ```text
//!   parent:  install(job) ──▶ pool(pid 100) ──▶ workers of 100
//!   fork ─▶  child:  install(job) ──▶ pool(pid 100)?  no: build pool(pid 101)
//! ```
//!
//! Tasks (the work of executors, `kd.streams`) run on threads of their
//! own, started on demand: see [`spawn_task`].
//!
//! The parent's pool is never dropped in the child: its threads do not exist
//! there, and tearing it down would wait for them. It stays as a small leak
//! of memory the child got as a copy anyway.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicPtr, Ordering};

/// Inputs of at least this many items are split across threads.
pub const PARALLEL_MIN: usize = 1 << 17;

/// What each worker runs when it starts (e.g. pinning it to a CPU); given
/// the worker's index.
pub type StartHandler = Box<dyn Fn(usize) + Send + Sync>;

static START_HANDLER: OnceLock<StartHandler> = OnceLock::new();

/// A pool and the process that built it.
struct Pool {
    pid: u32,
    pool: rayon::ThreadPool,
}

/// The pool of the current process, once built. Published pools are never
/// freed (see the module docs), so references to them are `'static`.
static POOL: AtomicPtr<Pool> = AtomicPtr::new(std::ptr::null_mut());

/// Sets what each worker runs when it starts, for the pools built from now
/// on; only the first call counts. The number of workers is rayon's default
/// (`RAYON_NUM_THREADS`, else one per CPU).
pub fn set_start_handler(handler: StartHandler) {
    let _ = START_HANDLER.set(handler);
}

/// Runs `op` on this process's worker threads: rayon iterators inside it
/// share the workers. Called from a worker, it runs `op` in place.
pub fn install<R: Send>(op: impl FnOnce() -> R + Send) -> R {
    pool().install(op)
}

/// `f` on each of `items` at once, each item its own task on the worker
/// pool, at most `at_once` (else as many as the pool runs) at a time; the
/// kernels `f` runs share the pool with the other items' (work stealing,
/// no more threads than CPUs). Results in the items' order.
pub fn map_each<T: Send, R: Send>(items: Vec<T>, at_once: Option<usize>, f: impl Fn(T) -> R + Sync + Send) -> Vec<R> {
    use rayon::prelude::*;
    let at_once = at_once.unwrap_or(usize::MAX).max(1);
    let mut items = items.into_iter();
    let mut out = Vec::with_capacity(items.len());
    loop {
        let batch: Vec<T> = items.by_ref().take(at_once).collect();
        if batch.is_empty() {
            return out;
        }
        out.extend(install(|| batch.into_par_iter().with_max_len(1).map(&f).collect::<Vec<R>>()));
    }
}

/// The number of worker threads of this process's pool.
pub fn num_threads() -> usize {
    pool().current_num_threads()
}

fn pool() -> &'static rayon::ThreadPool {
    let pid = std::process::id();
    loop {
        let current = POOL.load(Ordering::Acquire);
        // SAFETY: a published pool is never freed, and `current` was
        // published (or is null).
        if let Some(found) = unsafe { current.as_ref() } {
            if found.pid == pid {
                return &found.pool;
            }
        }
        let fresh = Box::into_raw(Box::new(Pool { pid, pool: build() }));
        match POOL.compare_exchange(current, fresh, Ordering::AcqRel, Ordering::Acquire) {
            // The pool `current` (another process's, if any) is left as it is.
            // SAFETY: just published; never freed from here on.
            Ok(_) => return unsafe { &(*fresh).pool },
            // Another thread published a pool first: ours was never shared.
            // SAFETY: `fresh` came from `Box::into_raw` above and nobody else
            // has seen it.
            Err(_) => drop(unsafe { Box::from_raw(fresh) }),
        }
    }
}

fn build() -> rayon::ThreadPool {
    let mut builder = rayon::ThreadPoolBuilder::new().thread_name(|i| format!("plait-worker-{i}"));
    if let Some(handler) = START_HANDLER.get() {
        builder = builder.start_handler(handler);
    }
    match builder.build() {
        Ok(pool) => pool,
        // The caller's guard turns this into an exception; nothing to run on.
        Err(e) => panic!("plait: cannot start the worker threads: {e}"),
    }
}

// ---------------------------------------------------------------- tasks

/// A task for [`spawn_task`].
pub type Task = Box<dyn FnOnce() + Send + 'static>;

/// The threads of tasks (the executors of `kd.streams` and `kd.parallel`),
/// apart from the kernels' pool above.
///
/// A task may call Python (a `py_fn` functor), so it may wait for the GIL;
/// a kernel started by a thread holding the GIL waits for the kernels'
/// workers. Were tasks run by those workers, a worker waiting for the GIL
/// would stall that kernel forever. So tasks get threads of their own: a
/// task may run kernels (on the kernels' pool, which never waits for the
/// GIL), and the kernels' workers never run tasks.
///
/// Threads are started when tasks wait and none is idle, up to
/// [`MAX_TASK_THREADS`]; a thread idle for [`TASK_IDLE`] ends. How many
/// tasks run at once is the executors' business (their thread limits). The
/// state remembers its process: a forked child starts threads of its own.
struct TaskThreads {
    pid: u32,
    queue: std::collections::VecDeque<Task>,
    threads: usize,
    idle: usize,
}

/// The most task threads a process runs at once.
pub const MAX_TASK_THREADS: usize = 1024;
/// How long a task thread waits for work before it ends.
const TASK_IDLE: std::time::Duration = std::time::Duration::from_secs(5);

fn task_state() -> &'static (std::sync::Mutex<TaskThreads>, std::sync::Condvar) {
    static STATE: OnceLock<(std::sync::Mutex<TaskThreads>, std::sync::Condvar)> = OnceLock::new();
    STATE.get_or_init(|| {
        let state = TaskThreads { pid: std::process::id(), queue: Default::default(), threads: 0, idle: 0 };
        (std::sync::Mutex::new(state), std::sync::Condvar::new())
    })
}

/// Runs `task` on a task thread (see [`TaskThreads`]), soon. A panic in a
/// task ends the task, not the thread's later work.
pub fn spawn_task(task: Task) {
    let (lock, ready) = task_state();
    let mut state = lock.lock().unwrap_or_else(|e| e.into_inner());
    let pid = std::process::id();
    if state.pid != pid {
        // A forked child: the parent's threads do not exist here.
        state.pid = pid;
        state.threads = 0;
        state.idle = 0;
    }
    state.queue.push_back(task);
    if state.idle >= state.queue.len() {
        ready.notify_one();
        return;
    }
    if state.threads < MAX_TASK_THREADS {
        let spawned = std::thread::Builder::new().name("plait-task".to_string()).spawn(task_thread);
        if spawned.is_ok() {
            state.threads += 1;
            return;
        }
    }
    // No thread could start: a busy one takes the task when it is free.
    ready.notify_one();
}

fn task_thread() {
    let (lock, ready) = task_state();
    let mut state = lock.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        if let Some(task) = state.queue.pop_front() {
            drop(state);
            // A panicking task is the task's failure (its stream is closed
            // by its own guard); the thread goes on.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(task));
            state = lock.lock().unwrap_or_else(|e| e.into_inner());
            continue;
        }
        state.idle += 1;
        let (next, timeout) = ready.wait_timeout(state, TASK_IDLE).unwrap_or_else(|e| e.into_inner());
        state = next;
        state.idle -= 1;
        if timeout.timed_out() && state.queue.is_empty() {
            state.threads -= 1;
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use rayon::prelude::*;

    #[test]
    fn runs_on_the_pool() {
        let sum: u64 = super::install(|| (0..10_000u64).into_par_iter().sum());
        assert_eq!(sum, 10_000 * 9_999 / 2);
        assert!(super::num_threads() >= 1);
        // Nested: a worker runs the inner job in place.
        assert_eq!(super::install(|| super::install(|| 7)), 7);
    }

    #[test]
    fn runs_tasks() {
        let (send, receive) = std::sync::mpsc::channel();
        for i in 0..100 {
            let send = send.clone();
            super::spawn_task(Box::new(move || send.send(i).unwrap()));
        }
        let mut got: Vec<i32> = (0..100).map(|_| receive.recv().unwrap()).collect();
        got.sort();
        assert_eq!(got, (0..100).collect::<Vec<_>>());
    }
}
