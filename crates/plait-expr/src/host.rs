//! What evaluation shows the user, through the host that runs it: the
//! Python bindings install one that writes to `sys.stdout` (`kd.with_print`)
//! and draws `kd.progress` bars for long loops (`kd.map` over many items).
//! Without a host, text goes to the process's stdout and no bar is drawn.

use std::io::Write;
use std::sync::OnceLock;

/// What shows output and progress.
pub trait Host: Send + Sync {
    /// Writes `text` where the user reads printed output.
    fn print(&self, text: &str);
    /// A bar for `total` items labelled `label`, or `None` when none is shown.
    fn progress(&self, label: &str, total: usize) -> Option<Box<dyn Bar>>;
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

/// Prints `text` (as it is: the caller adds the line end).
pub fn print(text: &str) {
    match HOST.get() {
        Some(host) => host.print(text),
        None => {
            let mut out = std::io::stdout().lock();
            // Printing is not the computation: a closed stdout is no error of it.
            let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
        }
    }
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
        Progress { bar: HOST.get().and_then(|h| h.progress(label, total)), pending: 0 }
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
