//! The frontier's contract: everything the crawl engine, the intake and the cockpit ask of a
//! frontier, whatever holds it. [`UrlFrontier`] is the queue of URLs; [`HostPolicy`] is what the
//! engine tells it about hosts (robots.txt, addresses, the crawl's budgets) and asks of them;
//! the engine is written against [`CrawlFrontier`], the two together, and nothing else of a
//! frontier. [`super::Frontier`] (memory over a local log) is one implementation;
//! `docs/design/distributed-frontier.md` maps the queue operations (offer to hosts) onto Redis
//! Cluster, and does not cover the rest yet. `tests/it/frontier_model.rs` holds an implementation
//! to the queue operations, [`UrlFrontier::demote`] and the robots.txt rules
//! ([`HostPolicy::robots_done`], [`HostPolicy::robots_allows`]) against a model, crash and
//! reopen included, so a second implementation can be checked by the same test; the iteration
//! calls, [`UrlFrontier::commit_around`], `close` and the rest of [`HostPolicy`] are checked by
//! the frontier's unit tests and the crawl tests.
//!
//! The promises, in short:
//! - A URL is queued once: [`UrlFrontier::offer`] and [`UrlFrontier::score`] of a fingerprint
//!   seen before never queue it again.
//! - [`UrlFrontier::next`] hands out, of the hosts whose politeness pause is over, the one
//!   whose best queued URL has the highest priority; within a host, priority then discovery
//!   order. A URL handed out is in no queue until [`UrlFrontier::complete`] gives it back.
//! - [`UrlFrontier::score`] moves a queued URL by the crawl's update function; a URL in flight
//!   or past queuing is left alone.
//! - [`UrlFrontier::commit`] makes everything before it durable; after a crash the frontier
//!   is as it was at the last commit, with every lease returned.

use super::host::HostView;
use super::keys::UrlState;
use super::pace::{Budget, PacingView};
use super::politeness::FetchTiming;
use super::update::{Scored, UpdateFn};
use super::view::QueuedUrl;
use super::{Completion, Frontier, FrontierError, Lease, Offer, UrlLease};
use crate::model::CrawlUri;
use crate::store::StoreError;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What a frontier does for a crawl.
pub trait UrlFrontier {
    /// Queues a URL unless its fingerprint was seen.
    fn offer(&mut self, fp: u64, host: &str, origin: &str, uri: CrawlUri) -> Offer;
    /// Scores a URL: inserts it if unknown, moves it if queued, else leaves it.
    fn score(
        &mut self,
        fp: u64,
        host: &str,
        origin: &str,
        uri: CrawlUri,
        score: f32,
        f: UpdateFn,
    ) -> Result<Scored, FrontierError>;
    /// Keeps a URL from being fetched; returns the state it had.
    fn blacklist(&mut self, fp: u64, host: &str) -> Result<Option<UrlState>, FrontierError>;
    /// The next URL (or robots.txt) to fetch at `now`.
    fn next(&mut self, now: Instant) -> Option<Lease>;
    /// Gives a leased URL back.
    fn complete(
        &mut self,
        lease: &UrlLease,
        how: Completion,
        timing: Option<FetchTiming>,
        now: Instant,
    );
    /// Makes everything so far durable.
    fn commit(&mut self) -> Result<(), FrontierError>;
    /// The state of a URL, if it was ever seen.
    fn state(&self, fp: u64) -> Option<UrlState>;
    /// URLs queued (in flight included).
    fn queued(&self) -> u64;
    /// The next `limit` URLs in fetch order, of one host or of all.
    fn peek(&self, limit: usize, host: Option<&str>) -> Result<Vec<QueuedUrl>, FrontierError>;
    /// Every host's queue state.
    fn hosts(&self) -> Vec<HostView>;
    /// Moves a queued URL to the lowest priority (a likely copy); whether it moved.
    fn demote(&mut self, fp: u64) -> bool;
    /// When [`UrlFrontier::next`] may next hand something out (`None`: nothing to wait for).
    fn next_wake(&self) -> Option<Instant>;
    /// Calls `f` with every queued URL and its host.
    fn for_each_queued(&self, f: &mut dyn FnMut(&str, CrawlUri)) -> Result<(), FrontierError>;
    /// Calls `f` with every queued URL of one host.
    fn for_each_queued_on(
        &self,
        host: &str,
        f: &mut dyn FnMut(CrawlUri),
    ) -> Result<(), FrontierError>;
    /// Commits what the frontier staged with the rest of the crawl's state: makes the
    /// frontier's part durable, numbered `n`; then `commit_store(n)` commits the store's batch
    /// carrying `n` (by which the frontier knows on opening whether the store holds its last
    /// commit); then the frontier marks its part as held by the store. `store_changes`:
    /// whether that batch changes the store. One call, so the halves cannot be reordered.
    fn commit_around(
        &mut self,
        store_changes: bool,
        commit_store: &mut dyn FnMut(u64) -> Result<(), StoreError>,
    ) -> Result<(), FrontierError>;
    /// Commits and closes: nothing is handed out after it.
    fn close(&mut self) -> Result<(), FrontierError>;
}

/// A host's robots.txt rules, parsed. The frontier keeps them with the host, so that whoever
/// leases the host's URLs asks the frontier, not the process that happened to read the file.
/// (A frontier shared between processes would keep the robots.txt answer itself and parse it
/// where it is read; the engine asks only [`HostPolicy::robots_allows`].)
pub trait RobotsRules: std::fmt::Debug + Send + Sync {
    /// Whether the rules allow fetching `url`.
    fn allows(&self, url: &str) -> bool;
    /// The `Crawl-delay` they ask of this crawler, if any.
    fn crawl_delay(&self) -> Option<Duration>;
}

/// Rules for unit tests: URLs containing one of `deny` are refused; `delay` is the Crawl-delay.
#[cfg(test)]
#[derive(Debug, Default)]
pub(crate) struct TestRules {
    pub deny: Vec<&'static str>,
    pub delay: Option<Duration>,
}

#[cfg(test)]
impl RobotsRules for TestRules {
    fn allows(&self, url: &str) -> bool {
        !self.deny.iter().any(|d| url.contains(d))
    }

    fn crawl_delay(&self) -> Option<Duration> {
        self.delay
    }
}

/// What the engine tells a frontier about hosts, and asks of them: robots.txt, addresses
/// (politeness is per IP), and the crawl's budgets (how choosy best-N may be).
pub trait HostPolicy {
    /// The host's robots.txt could not be fetched for a reason on the crawler's side: it is
    /// asked for again, with no failure counted.
    fn robots_untried(&mut self, host: &str, now: Instant);
    /// The host's robots.txt failed; asked for again after `retry_in`.
    fn robots_failed(&mut self, host: &str, retry_in: Duration, now: Instant);
    /// The host's robots.txt was read (or found missing): `rules` hold until `expires` (and
    /// after, until the file is read again), their `Crawl-delay` applies, and `timing` (of the
    /// robots.txt fetch, if any) paces the host. True when the host had no rules before.
    fn robots_done(
        &mut self,
        host: &str,
        rules: Arc<dyn RobotsRules>,
        expires: Instant,
        timing: Option<FetchTiming>,
        now: Instant,
    ) -> bool;
    /// Whether the host's robots.txt rules allow `url`; true while the host has none (its
    /// robots.txt is handed out before its URLs when the crawl respects robots.txt).
    fn robots_allows(&self, host: &str, url: &str) -> bool;
    /// How many times the host's robots.txt failed in a row.
    fn robots_failures(&self, host: &str) -> u32;
    /// The address the host answered from (politeness then counts per address).
    fn set_ip(&mut self, host: &str, ip: IpAddr);
    /// Ends every queued URL of the host in `state`; returns them.
    fn drain_host(&mut self, host: &str, state: UrlState) -> Result<Vec<CrawlUri>, FrontierError>;
    /// Hosts known.
    fn host_count(&self) -> usize;
    /// What the crawl has left, so the frontier decides how choosy best-N may be.
    fn pace(&mut self, budget: Budget, now: Instant);
    /// The pacing in force, for the statistics.
    fn pacing(&mut self) -> PacingView;
}

/// The whole contract the engine is written against.
pub trait CrawlFrontier: UrlFrontier + HostPolicy {}

impl<T: UrlFrontier + HostPolicy> CrawlFrontier for T {}

impl UrlFrontier for Frontier {
    fn offer(&mut self, fp: u64, host: &str, origin: &str, uri: CrawlUri) -> Offer {
        Frontier::offer(self, fp, host, origin, uri)
    }

    fn score(
        &mut self,
        fp: u64,
        host: &str,
        origin: &str,
        uri: CrawlUri,
        score: f32,
        f: UpdateFn,
    ) -> Result<Scored, FrontierError> {
        Frontier::score(self, fp, host, origin, uri, score, f)
    }

    fn blacklist(&mut self, fp: u64, host: &str) -> Result<Option<UrlState>, FrontierError> {
        Frontier::blacklist(self, fp, host)
    }

    fn next(&mut self, now: Instant) -> Option<Lease> {
        Frontier::next(self, now)
    }

    fn complete(
        &mut self,
        lease: &UrlLease,
        how: Completion,
        timing: Option<FetchTiming>,
        now: Instant,
    ) {
        Frontier::complete(self, lease, how, timing, now)
    }

    fn commit(&mut self) -> Result<(), FrontierError> {
        Frontier::commit(self)
    }

    fn state(&self, fp: u64) -> Option<UrlState> {
        Frontier::state(self, fp)
    }

    fn queued(&self) -> u64 {
        Frontier::queued(self)
    }

    fn peek(&self, limit: usize, host: Option<&str>) -> Result<Vec<QueuedUrl>, FrontierError> {
        Frontier::peek(self, limit, host)
    }

    fn hosts(&self) -> Vec<HostView> {
        Frontier::hosts(self)
    }

    fn demote(&mut self, fp: u64) -> bool {
        Frontier::demote(self, fp)
    }

    fn next_wake(&self) -> Option<Instant> {
        Frontier::next_wake(self)
    }

    fn for_each_queued(&self, f: &mut dyn FnMut(&str, CrawlUri)) -> Result<(), FrontierError> {
        Frontier::for_each_queued(self, f)
    }

    fn for_each_queued_on(
        &self,
        host: &str,
        f: &mut dyn FnMut(CrawlUri),
    ) -> Result<(), FrontierError> {
        Frontier::for_each_queued_on(self, host, f)
    }

    fn commit_around(
        &mut self,
        store_changes: bool,
        commit_store: &mut dyn FnMut(u64) -> Result<(), StoreError>,
    ) -> Result<(), FrontierError> {
        Frontier::commit_around(self, store_changes, commit_store)
    }

    fn close(&mut self) -> Result<(), FrontierError> {
        Frontier::close(self)
    }
}

impl HostPolicy for Frontier {
    fn robots_untried(&mut self, host: &str, now: Instant) {
        Frontier::robots_untried(self, host, now)
    }

    fn robots_failed(&mut self, host: &str, retry_in: Duration, now: Instant) {
        Frontier::robots_failed(self, host, retry_in, now)
    }

    fn robots_done(
        &mut self,
        host: &str,
        rules: Arc<dyn RobotsRules>,
        expires: Instant,
        timing: Option<FetchTiming>,
        now: Instant,
    ) -> bool {
        Frontier::robots_done(self, host, rules, expires, timing, now)
    }

    fn robots_allows(&self, host: &str, url: &str) -> bool {
        Frontier::robots_allows(self, host, url)
    }

    fn robots_failures(&self, host: &str) -> u32 {
        Frontier::robots_failures(self, host)
    }

    fn set_ip(&mut self, host: &str, ip: IpAddr) {
        Frontier::set_ip(self, host, ip)
    }

    fn drain_host(&mut self, host: &str, state: UrlState) -> Result<Vec<CrawlUri>, FrontierError> {
        Frontier::drain_host(self, host, state)
    }

    fn host_count(&self) -> usize {
        Frontier::host_count(self)
    }

    fn pace(&mut self, budget: Budget, now: Instant) {
        Frontier::pace(self, budget, now)
    }

    fn pacing(&mut self) -> PacingView {
        Frontier::pacing(self)
    }
}
