//! Progress on stderr, from [`Stats`]: a redrawn status line (pages, queue, rate, bytes, errors,
//! hosts, and why fetching is paused when it is), or one JSON object a second (NDJSON) for
//! scripts that follow a crawl.

use super::stats::Stats;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::Duration;

/// Shows progress until the returned handle is dropped.
pub struct Progress {
    bar: Option<ProgressBar>,
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
        Progress {
            bar: Some(bar),
            task,
        }
    }

    /// Writes one JSON object ([`event`]) a second to stderr, one per line.
    pub fn start_json(stats: Arc<Stats>) -> Progress {
        let task = tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(1));
            loop {
                tick.tick().await;
                eprintln!("{}", event(&stats));
            }
        });
        Progress { bar: None, task }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.task.abort();
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// One progress event: `{"event":"progress","elapsed_s",...}` with the figures of the status
/// line, plus the harvest ratio and mean relevance when the crawl has a topic, and
/// `fetching_paused` (why) while fetching is paused for want of file descriptors, and the
/// `pacing` (regime, pace, why ready hosts wait) once the engine decided it.
pub fn event(s: &Stats) -> String {
    let pages = s.pages.load(Relaxed);
    let run_pages = pages - s.pages_at_start.load(Relaxed).min(pages);
    let secs = s.started.elapsed().as_secs_f64().max(0.001);
    let errors: u64 = s.errors.lock().map(|e| e.values().sum()).unwrap_or(0);
    let focus = s.focus.lock().map(|f| f.snapshot()).unwrap_or_default();
    let mut event = serde_json::json!({
        "event": "progress",
        "elapsed_s": (secs * 10.0).round() / 10.0,
        "pages": pages,
        "queued": s.queued.load(Relaxed),
        "pages_per_second": (run_pages as f64 / secs * 10.0).round() / 10.0,
        "bytes": s.bytes_received.load(Relaxed),
        "errors": errors,
        "hosts": s.hosts.load(Relaxed),
        "inflight": s.inflight.load(Relaxed),
        "pages_analysed": focus.analysed,
        "harvest_ratio": focus.harvest_ratio,
        "avg_relevance": focus.avg_relevance,
    });
    if let Some(why) = s.fetching_paused() {
        event["fetching_paused"] = why.into();
    }
    let pacing = s.pacing.lock().map(|p| p.clone()).unwrap_or_default();
    if let Some(p) = pacing {
        event["pacing"] = serde_json::to_value(p).unwrap_or_default();
    }
    event.to_string()
}

/// One status line.
pub fn line(s: &Stats) -> String {
    let pages = s.pages.load(Relaxed);
    let run_pages = pages - s.pages_at_start.load(Relaxed).min(pages);
    let secs = s.started.elapsed().as_secs_f64().max(0.001);
    let errors: u64 = s.errors.lock().map(|e| e.values().sum()).unwrap_or(0);
    let mut line = format!(
        "pages {pages} | queued {} | {:.0} pages/s | {} | errors {errors} | hosts {} | in flight {}",
        s.queued.load(Relaxed),
        run_pages as f64 / secs,
        indicatif::HumanBytes(s.bytes_received.load(Relaxed)),
        s.hosts.load(Relaxed),
        s.inflight.load(Relaxed),
    );
    if let Some(why) = s.fetching_paused() {
        line.push_str(" | PAUSED: ");
        line.push_str(&why);
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_descriptor_pause_shows_in_the_line_and_the_event() {
        let s = Stats::default();
        assert!(!line(&s).contains("PAUSED"));
        assert!(!event(&s).contains("fetching_paused"));
        s.set_fetching_paused(Some("out of file descriptors (EMFILE)".into()));
        assert!(line(&s).ends_with("| PAUSED: out of file descriptors (EMFILE)"));
        let e: serde_json::Value = serde_json::from_str(&event(&s)).expect("json");
        assert_eq!(e["fetching_paused"], "out of file descriptors (EMFILE)");
        s.set_fetching_paused(None);
        assert!(!line(&s).contains("PAUSED"));
    }
}
