//! Progress of long loops (`kd.map` over many items), reported to the host
//! that shows it — the Python bindings install one that draws
//! `kd.progress` bars. Without a host, or when the host shows no bar for
//! this much work, reporting costs nothing.

use std::sync::OnceLock;

/// What shows progress.
pub trait Host: Send + Sync {
    /// A bar for `total` items labelled `label`, or `None` when none is shown.
    fn start(&self, label: &str, total: usize) -> Option<Box<dyn Bar>>;
}

/// One bar being shown.
pub trait Bar {
    /// `done` more items are finished.
    fn update(&mut self, done: usize);
    /// The work is over (finished or failed).
    fn finish(&mut self);
}

static HOST: OnceLock<Box<dyn Host>> = OnceLock::new();

/// Installs the host (the first one installed stays).
pub fn set_host(host: Box<dyn Host>) {
    let _ = HOST.set(host);
}

/// Reports the progress of `total` items of work: `tick` after each item.
pub struct Progress {
    bar: Option<Box<dyn Bar>>,
    pending: usize,
}

/// Items reported to the host at once (a host redraws rarely anyway).
const BATCH: usize = 256;

impl Progress {
    pub fn start(label: &str, total: usize) -> Progress {
        Progress { bar: HOST.get().and_then(|h| h.start(label, total)), pending: 0 }
    }

    /// One more item is finished.
    pub fn tick(&mut self) {
        if let Some(bar) = &mut self.bar {
            self.pending += 1;
            if self.pending == BATCH {
                bar.update(std::mem::take(&mut self.pending));
            }
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(bar) = &mut self.bar {
            if self.pending > 0 {
                bar.update(self.pending);
            }
            bar.finish();
        }
    }
}
