//! The worker threads of the parallel kernels.
//!
//! Each worker is pinned to one of the CPUs the process may use. Without
//! pinning, Linux tends to wake a worker on the CPU of the thread that woke it
//! (both then share one CPU until the load balancer moves one, milliseconds
//! later), so a kernel on two CPUs often ran at one CPU's speed.
//! `PLAIT_PIN_THREADS=0` leaves placement to the OS; `RAYON_NUM_THREADS` still
//! sets the number of workers.
//!
//! The pool itself is `plait_core::parallel`'s: built on first use, once per
//! process, so a forked child builds its own (the parent's workers do not
//! exist there).

use pyo3::prelude::*;

pub fn configure() -> PyResult<()> {
    let pin = match std::env::var("PLAIT_PIN_THREADS") {
        Ok(text) => match text.trim() {
            "0" => false,
            "1" => true,
            _ => {
                return Err(pyo3::exceptions::PyValueError::new_err(format!("PLAIT_PIN_THREADS: expected 0 or 1, got {text:?}")));
            }
        },
        Err(_) => true,
    };
    if pin {
        // The CPUs are read when a pool starts: a forked child may have been
        // given others.
        plait_core::parallel::set_start_handler(Box::new(|worker| {
            let cpus = allowed_cpus();
            if !cpus.is_empty() {
                pin_to(cpus[worker % cpus.len()]);
            }
        }));
    }
    Ok(())
}

/// The CPUs this process may run on, in order (empty where unknown).
#[cfg(target_os = "linux")]
fn allowed_cpus() -> Vec<usize> {
    // SAFETY: `set` is a plain bitmask that sched_getaffinity fills in.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Vec::new();
        }
        (0..libc::CPU_SETSIZE as usize).filter(|&cpu| libc::CPU_ISSET(cpu, &set)).collect()
    }
}

#[cfg(not(target_os = "linux"))]
fn allowed_cpus() -> Vec<usize> {
    Vec::new()
}

#[cfg(target_os = "linux")]
fn pin_to(cpu: usize) {
    // SAFETY: as above; pinning the calling (worker) thread only. A failure
    // leaves the thread where the OS put it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
}

#[cfg(not(target_os = "linux"))]
fn pin_to(_cpu: usize) {}
