//! The progress bar on stderr: pages, queue, rate, bytes, errors and hosts, refreshed from [`Stats`].

use super::stats::Stats;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::Duration;

/// Draws the bar until the returned handle is dropped.
pub struct Progress {
    bar: ProgressBar,
    task: tokio::task::JoinHandle<()>,
}

impl Progress {
    /// Starts drawing on stderr.
    pub fn start(stats: Arc<Stats>) -> Progress {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr_with_hz(4));
        bar.set_style(
            ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        let b = bar.clone();
        let task = tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_millis(250));
            loop {
                tick.tick().await;
                b.set_message(line(&stats));
                b.tick();
            }
        });
        Progress { bar, task }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.task.abort();
        self.bar.finish_and_clear();
    }
}

/// One status line.
pub fn line(s: &Stats) -> String {
    let pages = s.pages.load(Relaxed);
    let run_pages = pages - s.pages_at_start.load(Relaxed).min(pages);
    let secs = s.started.elapsed().as_secs_f64().max(0.001);
    let errors: u64 = s.errors.lock().map(|e| e.values().sum()).unwrap_or(0);
    format!(
        "pages {pages} | queued {} | {:.0} pages/s | {} | errors {errors} | hosts {} | in flight {}",
        s.queued.load(Relaxed),
        run_pages as f64 / secs,
        indicatif::HumanBytes(s.bytes_received.load(Relaxed)),
        s.hosts.load(Relaxed),
        s.inflight.load(Relaxed),
    )
}
