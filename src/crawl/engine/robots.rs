//! The engine's handling of a robots.txt fetch: the rules stored for the host (and its
//! sitemaps queued the first time), or the failure, as [`retry::decide_robots`] rules: retried
//! with backoff, final for a private address, the host's queue given up after
//! `limits.max_retries` failures. A fetch that found no file descriptor counts as none (see
//! `descriptors.rs`).

use super::retry::{decide_robots, RobotsAttempt, RobotsDecision};
use super::{Engine, FetchFailure, Span};
use crate::crawl::crawl_log::Refused;
use crate::crawl::pipeline::Processed;
use crate::fetch::robots::Robots;
use crate::frontier::contract::{CrawlFrontier, RobotsRules};
use crate::frontier::keys::UrlState;
use crate::frontier::politeness::FetchTiming;
use crate::model::CrawlUri;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The fetcher's parsed robots.txt is what the frontier keeps with each host.
impl RobotsRules for Robots {
    fn allows(&self, url: &str) -> bool {
        self.allowed(url)
    }

    fn crawl_delay(&self) -> Option<Duration> {
        Robots::crawl_delay(self)
    }
}

impl<F: CrawlFrontier> Engine<F> {
    pub(super) fn finish_robots(
        &mut self,
        host: String,
        origin: String,
        result: Result<Vec<Processed>, FetchFailure>,
        span: Span,
        now: Instant,
    ) -> Result<(), crate::crawl::CrawlError> {
        let took = span.took;
        if let Err(FetchFailure::Fetch(f)) = &result {
            if f.is_local() {
                // Not the host's failure: asked for again once descriptors are free.
                self.frontier.robots_untried(&host, now);
                self.out_of_descriptors(f, span.started, now);
                return Ok(());
            }
        }
        if result.is_ok() {
            self.shortage.worked(span.started, now);
        }
        let mut private = false;
        let robots = match result {
            Ok(chain) => {
                let mut last = None;
                for p in chain {
                    if last.is_none() {
                        self.frontier.set_ip(&host, p.records.info.ip);
                    }
                    let archived = self.archive(&p.records)?;
                    let robots_uri = CrawlUri {
                        hops: "P".into(),
                        source: "robots".into(),
                        ..CrawlUri::seed(p.records.info.url.clone())
                    };
                    self.log_exchange(
                        &robots_uri,
                        &p.records.info,
                        p.records.response_len,
                        vec![],
                    )?;
                    // The priority its metadata record states, so a rebuild reads the same score.
                    self.online.index_capture(
                        p.capture,
                        &archived,
                        None,
                        Some(robots_uri.priority),
                    )?;
                    self.stats.robots_fetches.fetch_add(1, Relaxed);
                    self.stats.status(p.records.info.status);
                    last = p.robots;
                }
                last
            }
            Err(FetchFailure::State(e)) => return Err(e),
            Err(e) => {
                let kind = match &e {
                    FetchFailure::Fetch(f) => f.kind(),
                    _ => "archive",
                };
                self.stats.error(kind);
                private = kind == "private-address";
                let robots_uri = CrawlUri {
                    hops: "P".into(),
                    source: "robots".into(),
                    ..CrawlUri::seed(format!("{origin}/robots.txt"))
                };
                self.log_failure(&robots_uri, kind, false)?;
                None
            }
        };
        let attempt = match &robots {
            Some(r) if !r.is_temporary_failure() => RobotsAttempt::Rules,
            _ => RobotsAttempt::Failed { private },
        };
        let failures = self.frontier.robots_failures(&host);
        match decide_robots(attempt, failures, self.retry_limits()) {
            RobotsDecision::Done => {
                let Some(r) = robots else {
                    return Ok(());
                };
                let ttl = self.spec.politeness.robots_ttl;
                let expires = crate::frontier::politeness::after(now, ttl);
                let timing = FetchTiming {
                    duration: took,
                    retry_after: None,
                    backoff: None,
                };
                let r = Arc::new(r);
                let first_time =
                    self.frontier
                        .robots_done(&host, r.clone(), expires, Some(timing), now);
                if first_time && self.spec.scope.sitemaps {
                    self.offer_sitemaps(&host, &origin, &r)?;
                }
            }
            RobotsDecision::Retry { retry_in } => {
                self.frontier.robots_failed(&host, retry_in, now);
            }
            RobotsDecision::Refuse { retry_in } => {
                self.frontier.robots_failed(&host, retry_in, now);
                let dropped = self.frontier.drain_host(&host, UrlState::Failed)?;
                self.stats.event(
                    "host-refused",
                    format!(
                        "{host}: private address (network.allow_private is off); {} queued URLs \
                         refused",
                        dropped.len()
                    ),
                );
                for uri in &dropped {
                    self.stats.error("private-address");
                    let (u, hops, via) = (&uri.url, &uri.hops, uri.via.as_deref());
                    let fp = url::Url::parse(u)
                        .map_or(0, |p| crate::uri::fingerprint(&crate::uri::canonical(&p)));
                    let source = &uri.source;
                    self.log_refusal(
                        fp,
                        Refused::Private,
                        u,
                        hops,
                        via,
                        source,
                        "private-address",
                    )?;
                }
            }
            RobotsDecision::GiveUp { retry_in } => {
                self.frontier.robots_failed(&host, retry_in, now);
                let dropped = self.frontier.drain_host(&host, UrlState::Failed)?;
                self.stats.event(
                    "host-blocked",
                    format!(
                        "{host}: robots.txt unavailable; {} queued URLs given up",
                        dropped.len()
                    ),
                );
                for uri in &dropped {
                    self.stats.error("robots-unavailable");
                    self.log_given_up(uri, "robots-unavailable")?;
                }
            }
        }
        Ok(())
    }
}
