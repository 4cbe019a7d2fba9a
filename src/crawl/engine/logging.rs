//! The engine's lines in the crawl log (`crawl_log.rs`): every fetch attempt (retries and
//! failures included), every robots.txt fetch, and every URL refused by robots.txt, scope,
//! blacklist or the private-address rule.

use super::Engine;
use crate::crawl::crawl_log::{failure_code, CrawlLog, Line, Refused};
use crate::frontier::contract::CrawlFrontier;
use crate::model::CrawlUri;
use crate::model::ExchangeInfo;

/// Annotations shared by every attempt at a URL: how many tries came before.
fn tries(uri: &CrawlUri) -> Vec<String> {
    if uri.retries > 0 {
        vec![format!("retries:{}", uri.retries)]
    } else {
        vec![]
    }
}

impl<F: CrawlFrontier> Engine<F> {
    fn log_write(&mut self, line: &Line) -> Result<(), crate::crawl::CrawlError> {
        let Some(log) = &mut self.log else {
            return Ok(());
        };
        log.write(line);
        self.flush_log_if_full()
    }

    /// Writes the crawl log out, off the async workers, when its lines fill its buffer
    /// before the next commit does.
    fn flush_log_if_full(&mut self) -> Result<(), crate::crawl::CrawlError> {
        match &mut self.log {
            Some(log) if log.is_full() => crate::blocking::off_the_workers(|| log.flush())
                .map_err(|source| crate::crawl::CrawlError::Log { source }),
            _ => Ok(()),
        }
    }

    /// An exchange that got an answer; `notes` adds to the annotations.
    pub(super) fn log_exchange(
        &mut self,
        uri: &CrawlUri,
        info: &ExchangeInfo,
        size: u64,
        mut notes: Vec<String>,
    ) -> Result<(), crate::crawl::CrawlError> {
        let mut annotations = tries(uri);
        if let Some(t) = info.truncated {
            annotations.push(format!("truncated:{}", t.as_warc()));
        }
        annotations.append(&mut notes);
        let mime = info
            .header("content-type")
            .map(|m| m.split(';').next().unwrap_or(m).trim());
        let started = info.started.format("%Y%m%d%H%M%S%3f").to_string();
        self.log_write(&Line {
            status: i32::from(info.status),
            size: Some(size),
            url: &info.url,
            hops: &uri.hops,
            via: uri.via.as_deref(),
            mime,
            fetch: Some((started, info.duration_ms)),
            digest: Some(&info.payload_digest),
            source: &uri.source,
            annotations,
        })
    }

    /// A fetch that got no answer (`kind` as `FetchError::kind`).
    pub(super) fn log_failure(
        &mut self,
        uri: &CrawlUri,
        kind: &str,
        retried: bool,
    ) -> Result<(), crate::crawl::CrawlError> {
        let mut annotations = tries(uri);
        annotations.push(kind.to_string());
        if retried {
            annotations.push("will-retry".into());
        }
        self.log_write(&Line {
            status: failure_code(kind),
            url: &uri.url,
            hops: &uri.hops,
            via: uri.via.as_deref(),
            source: &uri.source,
            annotations,
            ..Line::default()
        })
    }

    /// A queued URL given up without a fetch because its host's prerequisite failed
    /// (robots.txt could not be had): Heritrix's `-61`.
    pub(super) fn log_given_up(
        &mut self,
        uri: &CrawlUri,
        reason: &str,
    ) -> Result<(), crate::crawl::CrawlError> {
        self.log_write(&Line {
            status: -61,
            url: &uri.url,
            hops: &uri.hops,
            via: uri.via.as_deref(),
            source: &uri.source,
            annotations: vec![reason.to_string()],
            ..Line::default()
        })
    }

    /// A URL refused before any fetch; logged once per URL.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn log_refusal(
        &mut self,
        fp: u64,
        why: Refused,
        url: &str,
        hops: &str,
        via: Option<&str>,
        source: &str,
        reason: &str,
    ) -> Result<(), crate::crawl::CrawlError> {
        let Some(log) = &mut self.log else {
            return Ok(());
        };
        let line = Line {
            url,
            hops,
            via,
            source,
            annotations: vec![reason.to_string()],
            ..Line::default()
        };
        log.refused(fp, why, line);
        self.flush_log_if_full()
    }

    /// Rotates the crawl log when the WARC writer has started a new file since the last call.
    pub(super) fn rotate_log_with_warc(&mut self) -> Result<(), crate::crawl::CrawlError> {
        let files = self.archiver.files().len();
        if files <= self.log_files {
            return Ok(());
        }
        let closed = std::mem::replace(&mut self.log_files, files);
        if let (Some(log), Some(serial)) = (&mut self.log, closed.checked_sub(1)) {
            log.rotate(serial)
                .map_err(|source| crate::crawl::CrawlError::Log { source })?;
        }
        Ok(())
    }

    /// Pushes the crawl log to its file (with every commit).
    pub(super) fn flush_log(&mut self) -> Result<(), crate::crawl::CrawlError> {
        match &mut self.log {
            Some(log) => log
                .flush()
                .map_err(|source| crate::crawl::CrawlError::Log { source }),
            None => Ok(()),
        }
    }

    /// Opens the crawl log in `dir` (`DIR/<crawl>/logs`).
    pub(crate) fn open_log(
        &mut self,
        dir: &std::path::Path,
    ) -> Result<(), crate::crawl::CrawlError> {
        self.log =
            Some(CrawlLog::open(dir).map_err(|source| crate::crawl::CrawlError::Log { source })?);
        self.log_files = self.archiver.files().len();
        Ok(())
    }
}
