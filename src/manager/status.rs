//! A crawl's persisted status (`DATA/<name>/status.json`): its state, error and stop reason,
//! what `magpie crawl` records at its end, and how a missing or damaged file reads.

use serde::{Deserialize, Serialize};

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
    }
}

/// The status stored in `path`. A crawl made by `magpie crawl` has none: it is shown as
/// finished and is never started by the server on its own. A status that cannot be read is not
/// skipped (the crawl would vanish from the list): the crawl is shown as failed with the
/// reason, and starting it resumes it from its saved state.
pub(super) fn read_status(path: &std::path::Path) -> Status {
    let damaged = |why: String| {
        tracing::error!("{}: {why}", path.display());
        Status {
            state: CrawlState::Failed,
            error: Some(format!(
                "{}: {why}; start the crawl to resume it from its saved state",
                path.display()
            )),
            stop_reason: None,
        }
    };
    match std::fs::read_to_string(path) {
        Ok(text) => {
            serde_json::from_str(&text).unwrap_or_else(|e| damaged(format!("damaged: {e}")))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => cli_status(None),
        Err(e) => damaged(format!("cannot be read: {e}")),
    }
}

/// Records the end of a `magpie crawl` run in `DIR/<name>/status.json`, so that `magpie serve`
/// on the same data folder lists it as finished with its stop reason.
pub fn record_cli_run(crawl_dir: &std::path::Path, stop_reason: &str) -> std::io::Result<()> {
    let text = serde_json::to_string_pretty(&cli_status(Some(stop_reason))).unwrap_or_default();
    std::fs::write(crawl_dir.join("status.json"), text)
}
