//! The frontier's contract: the core of what the crawl engine, the intake and the cockpit ask
//! of a frontier, whatever holds it. The engine still calls more of [`super::Frontier`] than
//! this (robots state, a host's address, the next wake-up, draining a host, iteration, the
//! commit with the crawl's write set; `docs/ARCHITECTURE.md` lists them). [`super::Frontier`]
//! (memory over a local log) is one implementation; `docs/design/distributed-frontier.md` maps the same contract onto Redis
//! Cluster. `tests/frontier_model.rs` holds an implementation to it against a model, crash and
//! reopen included, so a second implementation can be checked by the same test.
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
use super::politeness::FetchTiming;
use super::update::{Scored, UpdateFn};
use super::view::QueuedUrl;
use super::{Completion, Frontier, FrontierError, Lease, Offer, UrlLease};
use crate::model::CrawlUri;
use std::time::Instant;

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
}

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
}
