//! The crawl's reports, as Heritrix has them and more: per host, per media type and per status
//! code, during the crawl and after it. Two persisted sources, each exact for what it counts:
//!
//! - **the crawl log** (`logs/crawl.log` and its rotated files) for what was *done*: every
//!   response with its status, size and media type, every failed fetch and every refusal.
//!   It is the one record of refusals and failures (no WARC record has them);
//! - **the capture index** for what was *archived*: captures per host, their relevance and
//!   the application detected.
//!
//! The log is added up incrementally: [`ReportCache`] remembers, per crawl, how far each file
//! was read (by device and inode, which a rotated file keeps under its new name) and the totals
//! so far, so a page reads only the lines written since the last one. A file that shrank or
//! went away (a crawl moved aside with `--fresh`) makes it start again from the beginning.

use crate::crawl::log_reader::{
    log_files, scan_forward, HostTally, LogFile, LogReadError, Tally, Totals, OTHER,
};
use crate::index::HostCaptures;
use crate::web::error::WebError;
use serde::Serialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Hosts a report lists at most (busiest first); the rest are counted.
pub const MAX_HOST_ROWS: usize = 2000;

impl From<LogReadError> for WebError {
    fn from(e: LogReadError) -> WebError {
        match e {
            LogReadError::Io { .. } => WebError::Internal(format!("the crawl log: {e}")),
            LogReadError::UnknownFile(_) | LogReadError::BadCursor(_) => WebError::BadParameter {
                name: "before".into(),
                reason: e.to_string(),
            },
        }
    }
}

/// The log folder of a crawl: `DATA/<crawl>/logs/`.
pub fn log_dir(data: &Path, crawl: &str) -> PathBuf {
    data.join(crawl).join("logs")
}

#[derive(Default)]
struct Running {
    /// How far each file (by identity) was read.
    read: HashMap<(u64, u64), u64>,
    totals: Totals,
}

/// The running totals of each crawl's log.
#[derive(Default)]
pub struct ReportCache {
    crawls: Mutex<HashMap<String, Arc<Mutex<Running>>>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl ReportCache {
    /// Reads what was added to the crawl's log since the last call and hands the totals to
    /// `f` (blocking: call it off the connection threads).
    pub fn with_totals<R>(
        &self,
        dir: &Path,
        crawl: &str,
        f: impl FnOnce(&Totals) -> R,
    ) -> Result<R, LogReadError> {
        let files = log_files(dir)?;
        let slot = lock(&self.crawls)
            .entry(crawl.to_string())
            .or_default()
            .clone();
        let mut run = lock(&slot);
        catch_up(&mut run, &files)?;
        Ok(f(&run.totals))
    }
}

fn catch_up(run: &mut Running, files: &[LogFile]) -> Result<(), LogReadError> {
    let ids: Option<Vec<(u64, u64)>> = files.iter().map(|f| f.identity).collect();
    let Some(ids) = ids else {
        // No identities (not Unix): no safe way to go on, so everything is read again.
        let mut totals = Totals::default();
        for f in files {
            scan_forward(&f.path, 0, |(_, t)| totals.add(t))?;
        }
        run.totals = totals;
        return Ok(());
    };
    let gone = run.read.keys().any(|k| !ids.contains(k));
    let shrunk = files
        .iter()
        .zip(&ids)
        .any(|(f, id)| run.read.get(id).is_some_and(|&n| n > f.len));
    if gone || shrunk {
        *run = Running::default();
    }
    for (f, id) in files.iter().zip(ids) {
        let from = run.read.get(&id).copied().unwrap_or(0);
        let totals = &mut run.totals;
        let to = scan_forward(&f.path, from, |(_, t)| totals.add(t))?;
        run.read.insert(id, to);
    }
    Ok(())
}

/// One host: what the log says, what the index holds.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct HostReport {
    /// The host key (`host` or `host:port`).
    pub host: String,
    /// From the crawl log: responses, bytes, statuses, failures, refusals.
    pub log: HostTally,
    /// From the capture index: captures, relevance, application (absent when none indexed).
    pub index: Option<HostCaptures>,
}

/// One media type or status code.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct GroupReport {
    /// The media type (lowercased, `(none)` without one) or the status code.
    pub key: String,
    /// What it means (negative status codes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub meaning: Option<String>,
    /// Lines and bytes received.
    #[serde(flatten)]
    pub tally: Tally,
}

/// The reports of a crawl.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[schemars(rename = "Reports")]
pub struct Reports {
    /// The crawl id.
    pub crawl: String,
    /// Crawl-log lines read (every file).
    pub log_lines: u64,
    /// Of which could not be read (too long, not twelve columns).
    pub unreadable_lines: u64,
    /// Why the index figures are missing, when they are (no index yet).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index_note: Option<String>,
    /// The relevance threshold `relevant` counts against (`scoring.threshold`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threshold: Option<f32>,
    /// Per host, most responses first (at most 2,000).
    pub hosts: Vec<HostReport>,
    /// Hosts not listed.
    pub more_hosts: usize,
    /// Per media type of the responses, most first.
    pub mime_types: Vec<GroupReport>,
    /// Per status code (negative: no response, see `docs/crawling.md`), most first.
    pub status_codes: Vec<GroupReport>,
}

/// Puts the reports together from the log's totals and the index's host figures.
pub fn assemble(
    crawl: &str,
    totals: &Totals,
    index: Result<HashMap<String, HostCaptures>, String>,
    threshold: Option<f32>,
) -> Reports {
    let (mut by_host, index_note) = match index {
        Ok(m) => (m, None),
        Err(e) => (HashMap::new(), Some(e)),
    };
    let mut hosts: Vec<HostReport> = totals
        .hosts
        .iter()
        .map(|(h, t)| HostReport {
            host: h.clone(),
            log: t.clone(),
            index: by_host.remove(h),
        })
        .collect();
    // Hosts with captures but no line (a log lost, or an index rebuilt from other WARCs).
    hosts.extend(by_host.into_iter().map(|(host, c)| HostReport {
        host,
        log: HostTally::default(),
        index: Some(c),
    }));
    hosts.sort_by(|a, b| {
        let n = |h: &HostReport| h.log.responses + h.log.failed + h.log.refused;
        n(b).cmp(&n(a)).then_with(|| a.host.cmp(&b.host))
    });
    let more_hosts = hosts.len().saturating_sub(MAX_HOST_ROWS);
    hosts.truncate(MAX_HOST_ROWS);
    let mut mime_types: Vec<GroupReport> = totals
        .mimes
        .iter()
        .map(|(m, t)| GroupReport {
            key: m.clone(),
            meaning: None,
            tally: *t,
        })
        .collect();
    mime_types.sort_by(|a, b| {
        b.tally
            .lines
            .cmp(&a.tally.lines)
            .then_with(|| a.key.cmp(&b.key))
    });
    let mut codes: Vec<(i32, Tally)> = totals.statuses.iter().map(|(s, t)| (*s, *t)).collect();
    codes.sort_by(|a, b| b.1.lines.cmp(&a.1.lines).then_with(|| a.0.cmp(&b.0)));
    let status_codes = codes
        .into_iter()
        .map(|(s, tally)| GroupReport {
            key: if s == i32::MIN {
                OTHER.to_string()
            } else {
                s.to_string()
            },
            meaning: crate::crawl::log_reader::status_meaning(s).map(str::to_string),
            tally,
        })
        .collect();
    Reports {
        crawl: crawl.to_string(),
        log_lines: totals.lines,
        unreadable_lines: totals.unreadable,
        index_note,
        threshold,
        hosts,
        more_hosts,
        mime_types,
        status_codes,
    }
}

/// The reports of crawl `id`: the log added up, the index's host figures (a note instead when
/// it has no index yet).
pub async fn reports(
    state: &actix_web::web::Data<super::AppState>,
    id: &str,
) -> Result<Reports, WebError> {
    let spec = state.manager.spec(id)?;
    let threshold = spec.analysis.as_ref().map(|a| a.scoring.threshold);
    let index = super::api::index_of(state, id).await;
    let (state, id) = (state.clone(), id.to_string());
    super::api::blocking(move || {
        let figures = match index {
            Ok(index) => index
                .host_captures(threshold.map_or(f64::INFINITY, f64::from))
                .map_err(|e| format!("the index: {e}")),
            Err(e) => Err(format!("no index figures: {e}")),
        };
        let dir = log_dir(state.manager.data(), &id);
        Ok(state
            .reports
            .with_totals(&dir, &id, |t| assemble(&id, t, figures, threshold))?)
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crawl::crawl_log::{CrawlLog, Line};

    fn write(log: &mut CrawlLog, n: usize, host: &str) {
        for i in 0..n {
            let url = format!("http://{host}/p{i}");
            log.write(&Line {
                status: 200,
                size: Some(10),
                url: &url,
                mime: Some("text/html"),
                source: "crawl",
                ..Line::default()
            });
        }
        log.flush().unwrap();
    }

    #[test]
    fn the_log_is_added_up_once_across_rotations_and_again_after_a_fresh_start() {
        let dir = tempfile::tempdir().unwrap();
        let logs = dir.path().join("logs");
        let cache = ReportCache::default();
        let count = || {
            cache
                .with_totals(&logs, "c", |t| (t.lines, t.hosts.len()))
                .unwrap()
        };
        assert_eq!(count(), (0, 0), "no log yet");
        let mut log = CrawlLog::open(&logs).unwrap();
        write(&mut log, 5, "a.example");
        assert_eq!(count(), (5, 1));
        // Rotation: crawl.log becomes crawl.00000.log (same inode), a new crawl.log begins.
        write(&mut log, 2, "a.example");
        log.rotate(0).unwrap();
        write(&mut log, 3, "b.example");
        assert_eq!(count(), (10, 2), "nothing counted twice");
        assert_eq!(count(), (10, 2));
        let totals = cache.with_totals(&logs, "c", |t| t.clone()).unwrap();
        assert_eq!(totals.hosts["a.example"].bytes, 70);
        assert_eq!(totals.mimes["text/html"].lines, 10);
        // The crawl moved aside and started afresh: the count starts again.
        drop(log);
        std::fs::rename(&logs, dir.path().join("old")).unwrap();
        let mut log = CrawlLog::open(&logs).unwrap();
        write(&mut log, 1, "c.example");
        assert_eq!(count(), (1, 1));
        let r = cache
            .with_totals(&logs, "c", |t| {
                assemble("c", t, Err("no index".into()), Some(0.2))
            })
            .unwrap();
        assert_eq!(r.hosts[0].host, "c.example");
        assert_eq!(r.index_note.as_deref(), Some("no index"));
        assert_eq!(r.status_codes[0].key, "200");
    }
}
