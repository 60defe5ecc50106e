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
//! The parent's pool is never dropped in the child: its threads do not exist
//! there, and tearing it down would wait for them. It stays as a small leak
//! of memory the child got as a copy anyway.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicPtr, Ordering};

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
}
