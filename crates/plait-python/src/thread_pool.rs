//! The worker threads of the parallel kernels.
//!
//! Each worker is pinned to one of the CPUs the process may use. Without
//! pinning, Linux tends to wake a worker on the CPU of the thread that woke it
//! (both then share one CPU until the load balancer moves one, milliseconds
//! later), so a kernel on two CPUs often ran at one CPU's speed.
//! `PLAIT_PIN_THREADS=0` leaves placement to the OS; `RAYON_NUM_THREADS` still
//! sets the number of workers.

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
    let cpus = if pin { allowed_cpus() } else { Vec::new() };
    let mut builder = rayon::ThreadPoolBuilder::new();
    if !cpus.is_empty() {
        builder = builder.start_handler(move |worker| pin_to(cpus[worker % cpus.len()]));
    }
    // Fails only if the pool already exists (another extension built it), and
    // then that pool serves.
    let _ = builder.build_global();
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
