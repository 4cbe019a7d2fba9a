//! The validated sections of a spec, grouped by the stage that reads them: durations typed,
//! defaults resolved, patterns compiled, names checked. Only [`super::Spec::validate`] builds
//! them, from a [`RawSpec`] already checked; nothing reads the raw form after that.

use regex::Regex;
use std::path::PathBuf;
use std::time::Duration;

use super::raw::{RawSpec, RawWarc};
use super::{invalid, SpecError};
use crate::frontier::politeness::PolitenessConfig;
use crate::frontier::FrontierConfig;

/// `scope`: which URLs belong to the crawl (the scope stage builds its matcher from this).
#[derive(Debug, Clone)]
pub struct ScopeRules {
    /// Compiled `scope.allow`; empty: the seeds' registered domains.
    pub allow: Vec<Regex>,
    /// Compiled `scope.deny`.
    pub deny: Vec<Regex>,
    /// `scope.max_depth`.
    pub max_depth: u32,
    /// `scope.embeds`.
    pub embeds: bool,
    /// `scope.sitemaps`.
    pub sitemaps: bool,
    /// `scope.max_path_repeats`.
    pub max_path_repeats: u32,
    /// `scope.max_redirects`.
    pub max_redirects: usize,
    /// `scope.max_sitemap_depth`.
    pub max_sitemap_depth: usize,
    /// `scope.discovery_links`.
    pub discovery_links: bool,
}

/// What the fetcher and the robots stage need of `politeness` (the pauses and parallelism are
/// the frontier's, in [`FrontierConfig::politeness`]).
#[derive(Debug, Clone)]
pub struct Politeness {
    /// `politeness.user_agent`.
    pub user_agent: String,
    /// `politeness.respect_robots`, for robots.txt and `<meta name=robots>`.
    pub respect_robots: bool,
    /// `politeness.robots_ttl_s`.
    pub robots_ttl: Duration,
}

/// `limits`, with durations typed (pages per host is the frontier's).
#[derive(Debug, Clone)]
pub struct Limits {
    /// `limits.max_pages`.
    pub max_pages: u64,
    /// `limits.max_bytes_per_page`.
    pub max_bytes_per_page: u64,
    /// `limits.timeout_ms`.
    pub timeout: Duration,
    /// `limits.connect_timeout_ms`, never above the whole-exchange timeout.
    pub connect_timeout: Duration,
    /// `limits.max_url_length`.
    pub max_url_length: usize,
    /// `limits.max_retries`.
    pub max_retries: u8,
    /// `limits.retry_delay_ms`.
    pub retry_delay: Duration,
    /// `limits.max_concurrency`.
    pub max_concurrency: usize,
    /// `limits.max_links_per_page`.
    pub max_links_per_page: usize,
    /// `limits.max_duration_s`: how long one run may take (`None`: no time limit).
    pub max_duration: Option<Duration>,
}

/// `aah`, when the helper is enabled.
#[derive(Debug, Clone)]
pub struct Aah {
    /// `aah.kb`: the knowledge-base folder; `None`, the built-in knowledge base.
    pub kb: Option<PathBuf>,
}

pub(super) fn scope(raw: &RawSpec, allow: Vec<Regex>, deny: Vec<Regex>) -> ScopeRules {
    let s = &raw.scope;
    ScopeRules {
        allow,
        deny,
        max_depth: s.max_depth,
        embeds: s.embeds,
        sitemaps: s.sitemaps,
        max_path_repeats: s.max_path_repeats,
        max_redirects: s.max_redirects as usize,
        max_sitemap_depth: s.max_sitemap_depth as usize,
        discovery_links: s.discovery_links,
    }
}

pub(super) fn politeness(raw: &RawSpec) -> Politeness {
    let p = &raw.politeness;
    Politeness {
        user_agent: p.user_agent.clone(),
        respect_robots: p.respect_robots,
        robots_ttl: Duration::from_secs(p.robots_ttl_s),
    }
}

pub(super) fn limits(raw: &RawSpec) -> Limits {
    let l = &raw.limits;
    Limits {
        max_pages: l.max_pages,
        max_bytes_per_page: l.max_bytes_per_page,
        timeout: Duration::from_millis(l.timeout_ms),
        connect_timeout: Duration::from_millis(l.connect_timeout_ms.min(l.timeout_ms)),
        max_url_length: l.max_url_length,
        max_retries: l.max_retries,
        retry_delay: Duration::from_millis(l.retry_delay_ms),
        max_concurrency: l.max_concurrency,
        max_links_per_page: l.max_links_per_page,
        max_duration: l.max_duration_s.map(Duration::from_secs),
    }
}

/// The frontier's configuration. Best-N-first defaults to the crawl's concurrency when the
/// crawl has a topic (`topical`), and is off otherwise or when the spec says 0.
pub(super) fn frontier(raw: &RawSpec, topical: bool) -> FrontierConfig {
    let p = &raw.politeness;
    FrontierConfig {
        politeness: PolitenessConfig {
            min_delay: Duration::from_millis(p.min_delay_ms),
            max_delay: Duration::from_millis(p.max_delay_ms),
            delay_factor: p.delay_factor,
            max_parallel_per_host: p.max_parallel_per_host,
            max_parallel_per_ip: p.max_parallel_per_ip.unwrap_or(p.max_parallel_per_host),
            max_retry_after: Duration::from_millis(p.max_retry_after_ms),
        },
        balance_per_queue: raw.frontier.balance_per_queue,
        max_pages_per_host: raw.limits.max_pages_per_host,
        respect_robots: p.respect_robots,
        best_n: match raw.frontier.best_n {
            Some(0) => None,
            Some(n) => Some(n),
            None if topical => Some(raw.limits.max_concurrency as u64),
            None => None,
        },
    }
}

/// `warc`: how the archive is written. Sizes and the gzip level are range-checked with the
/// rest of the spec (`ranges.rs`).
#[derive(Debug, Clone)]
pub struct Warc {
    /// File name prefix: letters, digits, `-`, `_` or `.` only, since it names every WARC file
    /// and goes into every `WARC-Filename`.
    pub prefix: String,
    /// Rotate files at about this size.
    pub max_file_bytes: u64,
    /// Write `revisit` records for payloads already archived in this crawl.
    pub dedup: bool,
    /// gzip level, 0–9.
    pub gzip_level: u32,
}

impl Warc {
    pub(super) fn validate(raw: &RawWarc) -> Result<Warc, SpecError> {
        let safe = |c: char| c.is_ascii_alphanumeric() || "-_.".contains(c);
        if raw.prefix.is_empty() || !raw.prefix.chars().all(safe) {
            return Err(invalid(
                "warc.prefix",
                "use letters, digits, '-', '_' or '.'",
            ));
        }
        Ok(Warc {
            prefix: raw.prefix.clone(),
            max_file_bytes: raw.max_file_bytes,
            dedup: raw.dedup,
            gzip_level: raw.gzip_level,
        })
    }
}
