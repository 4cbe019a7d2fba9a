//! A crawl's persisted status (`DATA/<name>/status.json`): its state, error and stop reason,
//! the counters it had when the file was written, what `magpie crawl` records at its end, and
//! how a missing or damaged file reads.
//!
//! The counters are there so the server can list a crawl that has no engine (a finished one, one
//! made by `magpie crawl`, one created and not yet started) with its true figures without opening
//! its store: a store holds threads and open files, this file holds nothing.

use crate::crawl::stats::{Stats, Totals};
use crate::frontier::pace::PacingView;
use serde::{Deserialize, Serialize};
use std::sync::atomic::Ordering::Relaxed;

/// Where a crawl is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CrawlState {
    /// Defined, not started; accepts intake.
    Created,
    /// Fetching.
    Running,
    /// Not fetching; state kept; accepts intake.
    Paused,
    /// Ended (frontier empty, a limit, or stopped); WARC files sealed.
    Finished,
    /// Ended by an error.
    Failed,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Status {
    pub(super) state: CrawlState,
    #[serde(default)]
    pub(super) error: Option<String>,
    #[serde(default)]
    pub(super) stop_reason: Option<String>,
    /// Who asked the crawl to stop and when (cleared when it runs again).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) stop: Option<super::outcome::StopMark>,
    /// The workflow this crawl is a run of: the crawl whose spec "Run again" copied (absent: the
    /// crawl is its own workflow, as every crawl made before workflows existed is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) workflow: Option<String>,
    /// When the crawl was created (RFC 3339, UTC, seconds; absent in files of older versions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) created: Option<String>,
}

/// A crawl's counters as they were when `status.json` was written: the totals its store keeps,
/// and the queue and host counts its engine last published.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(super) struct Counters {
    totals: Totals,
    urls_queued: u64,
    hosts: u64,
    /// The regime and pace last decided (absent in files of older versions, and without one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pacing: Option<PacingView>,
    /// The last notable events, oldest first, so the dashboard's log reads the same after a
    /// restart (absent in files of older versions).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    events: Vec<crate::crawl::stats::Event>,
}

impl Counters {
    /// The counters of `stats` now.
    pub(super) fn of(stats: &Stats) -> Counters {
        Counters {
            totals: stats.totals(),
            urls_queued: stats.queued.load(Relaxed),
            hosts: stats.hosts.load(Relaxed),
            pacing: stats
                .pacing
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone(),
            events: stats.recent_events(),
        }
    }

    /// Puts them into `stats` (an engine opened later restores its own from the store).
    pub(super) fn restore(&self, stats: &Stats) {
        stats.restore(&self.totals);
        stats.queued.store(self.urls_queued, Relaxed);
        stats.hosts.store(self.hosts, Relaxed);
        if let Some(p) = &self.pacing {
            stats.set_pacing(p.clone());
        }
        stats.keep_events(self.events.iter().cloned());
    }
}

/// `status.json` as written: the status, and the counters (absent in files of older versions).
#[derive(Serialize, Deserialize)]
struct StatusFile {
    #[serde(flatten)]
    status: Status,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    counters: Option<Counters>,
}

/// The status of a crawl made by `magpie crawl` (`stop_reason` as it reported, if known).
fn cli_status(stop_reason: Option<&str>) -> Status {
    Status {
        state: CrawlState::Finished,
        error: None,
        stop_reason: Some(stop_reason.map_or_else(
            || "crawled by magpie crawl".to_string(),
            |r| format!("{r} (magpie crawl)"),
        )),
        stop: None,
        workflow: None,
        created: None,
    }
}

/// The status stored in `path`, with the counters it recorded. A crawl made by `magpie crawl`
/// that never got to record its end has none: it is shown as finished (without counters) and is
/// never started by the server on its own. A status that cannot be read is not skipped (the crawl
/// would vanish from the list): the crawl is shown as failed with the reason, and starting it
/// resumes it from its saved state.
pub(super) fn read_status(path: &std::path::Path) -> (Status, Option<Counters>) {
    let damaged = |why: String| {
        tracing::error!("{}: {why}", path.display());
        Status {
            state: CrawlState::Failed,
            error: Some(format!(
                "{}: {why}; start the crawl to resume it from its saved state",
                path.display()
            )),
            stop_reason: None,
            stop: None,
            workflow: None,
            created: None,
        }
    };
    match std::fs::read_to_string(path) {
        Ok(text) => match serde_json::from_str::<StatusFile>(&text) {
            Ok(file) => (file.status, file.counters),
            Err(e) => (damaged(format!("damaged: {e}")), None),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (cli_status(None), None),
        Err(e) => (damaged(format!("cannot be read: {e}")), None),
    }
}

/// Writes `status.json` into `crawl_dir`: through a temporary file renamed over the old one, so
/// a crash while writing leaves the previous status, never half of one.
pub(super) fn write_status(
    crawl_dir: &std::path::Path,
    status: &Status,
    stats: &Stats,
) -> std::io::Result<()> {
    let file = StatusFile {
        status: status.clone(),
        counters: Some(Counters::of(stats)),
    };
    let text = serde_json::to_string_pretty(&file).map_err(std::io::Error::other)?;
    let (path, tmp) = (
        crawl_dir.join("status.json"),
        crawl_dir.join("status.json.tmp"),
    );
    let named = |p: &std::path::Path| {
        let p = p.display().to_string();
        move |e: std::io::Error| std::io::Error::new(e.kind(), format!("{p}: {e}"))
    };
    std::fs::write(&tmp, text).map_err(named(&tmp))?;
    std::fs::rename(&tmp, &path).map_err(named(&path))
}

/// Records the end of a `magpie crawl` run in `DIR/<name>/status.json`, so that `magpie serve`
/// on the same data folder lists it as finished with its stop reason and its counters (`stats`,
/// the statistics the run kept).
pub fn record_cli_run(
    crawl_dir: &std::path::Path,
    stop_reason: &str,
    stats: &Stats,
) -> std::io::Result<()> {
    write_status(crawl_dir, &cli_status(Some(stop_reason)), stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_survive_the_file_and_older_files_read_without_them() {
        let dir = tempfile::tempdir().unwrap();
        let stats = Stats::default();
        stats.pages.store(42, Relaxed);
        stats.status(200);
        stats.error("dns");
        stats.queued.store(7, Relaxed);
        stats.hosts.store(3, Relaxed);
        record_cli_run(dir.path(), "max-pages", &stats).unwrap();
        let (status, counters) = read_status(&dir.path().join("status.json"));
        assert_eq!(status.state, CrawlState::Finished);
        assert_eq!(
            status.stop_reason.as_deref(),
            Some("max-pages (magpie crawl)")
        );
        let shown = Stats::default();
        counters.expect("counters recorded").restore(&shown);
        let s = shown.summary("c", "", vec![]);
        assert_eq!(
            (
                s.pages_fetched,
                s.urls_queued,
                s.hosts,
                s.responses_by_status["2xx"]
            ),
            (42, 7, 3, 1)
        );
        assert_eq!(s.errors_by_kind["dns"], 1);
        assert!(!dir.path().join("status.json.tmp").exists());

        std::fs::write(dir.path().join("status.json"), r#"{"state":"paused"}"#).unwrap();
        let (status, counters) = read_status(&dir.path().join("status.json"));
        assert_eq!(
            (status.state, counters.is_none()),
            (CrawlState::Paused, true)
        );
    }

    #[test]
    fn the_last_events_survive_the_file_and_are_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let stats = Stats::default();
        for i in 0..crate::crawl::stats::RECENT_EVENTS + 5 {
            stats.event("host-blocked", format!("h{i}"));
        }
        let kept = stats.recent_events();
        assert_eq!(kept.len(), crate::crawl::stats::RECENT_EVENTS);
        assert_eq!(kept[0].detail, "h5", "the oldest go first");
        assert!(kept[0].at.ends_with('Z') && kept[0].at.len() == 20);
        record_cli_run(dir.path(), "finished", &stats).unwrap();
        let (_, counters) = read_status(&dir.path().join("status.json"));
        let shown = Stats::default();
        counters.expect("counters recorded").restore(&shown);
        assert_eq!(shown.recent_events(), kept);
    }

    #[test]
    fn damaged_counters_fail_the_crawl_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("status.json");
        std::fs::write(&path, r#"{"state":"finished","counters":{"totals":7}}"#).unwrap();
        let (status, counters) = read_status(&path);
        assert_eq!(status.state, CrawlState::Failed);
        assert!(counters.is_none());
        let error = status.error.unwrap();
        assert!(
            error.contains("status.json") && error.contains("damaged"),
            "{error}"
        );
    }
}
