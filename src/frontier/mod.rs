//! The frontier: per-host priority queues, the URL-seen test, and the politeness schedule, in
//! compact memory over a durable log.
//!
//! Memory holds every URL seen in the columns of a [`table::UrlTable`] (fingerprint, priority,
//! state, host, score totals, record offset: 29 bytes, plus the seen-set), each host's queue
//! order as a heap of `(inverted priority, record id)`, and the [`schedule`] of hosts:
//! best-first among the hosts whose politeness pause is over. The disk holds each URL's record,
//! written once, and a log of operations ([`journal`], [`ops`]). Changes are staged and become
//! durable together at [`Frontier::commit`] (group commit, with the rest of the crawl state in
//! the store); a queued or rescored URL may be handed out at once, and a crash between commits
//! loses nothing: the uncommitted work is simply done again. [`contract::UrlFrontier`] is the
//! core of the contract another implementation (a shared frontier on Redis) is held to; the
//! engine still calls more of this type than it names.

pub(crate) mod best_n;
pub mod contract;
mod huge;
mod journal;
pub mod keys;
mod lease;
mod legacy;
#[cfg(test)]
pub(crate) use legacy::legacy_state;
mod ops;
pub(crate) mod pace;
pub mod politeness;
mod records;
mod replay;
pub(crate) use replay::stamped;
pub(crate) mod schedule;
mod table;
pub mod update;
pub(crate) mod view;

use crate::model::CrawlUri;
use crate::store::{Store, StoreError};
use best_n::BestN;
use contract::RobotsRules;
pub use journal::JournalError;
use keys::UrlState;
use ops::Op;
use politeness::{FetchTiming, PolitenessConfig, SlotId, Slots};
use records::Record;
use schedule::{Place, Schedule};
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use table::{Slot, UrlTable};

pub(crate) mod host;
use host::{Host, RobotsStatus};

/// A frontier error.
#[derive(Debug, thiserror::Error)]
pub enum FrontierError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The frontier's own files failed.
    #[error(transparent)]
    Journal(#[from] JournalError),
}

/// How the frontier schedules.
#[derive(Debug, Clone)]
pub struct FrontierConfig {
    /// Politeness knobs.
    pub politeness: PolitenessConfig,
    /// URLs taken from a host queue per turn.
    pub balance_per_queue: u32,
    /// Fetches per host before its queue is left alone.
    pub max_pages_per_host: u64,
    /// Fetch robots.txt before anything else on a host.
    pub respect_robots: bool,
    /// Best-N-first: while anything is in flight, only a URL among the N best queued is handed
    /// out (`None`: every ready host is served). See [`best_n`].
    pub best_n: Option<u64>,
}

/// The next thing to fetch.
#[derive(Debug, Clone)]
pub enum Lease {
    /// A queued URL.
    Url(UrlLease),
    /// The host's robots.txt, due before its URLs.
    Robots {
        /// Host key.
        host: String,
        /// `scheme://host[:port]`.
        origin: String,
    },
}

/// A queued URL handed out for fetching; give it back with [`Frontier::complete`].
#[derive(Debug, Clone)]
pub struct UrlLease {
    /// Host key.
    pub host: String,
    /// Its record id in the frontier.
    pub rid: u32,
    /// Fingerprint of its canonical form.
    pub fp: u64,
    /// The URL and what is known about it.
    pub uri: CrawlUri,
}

/// How a leased URL ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Completion {
    /// Fetched and archived.
    Done,
    /// Given up on.
    Failed,
    /// Disallowed by robots.txt (nothing was fetched).
    RobotsBlocked,
    /// Put back for another attempt.
    Retry,
    /// Not really tried, for a reason on the crawler's side (it had no file descriptor for
    /// the socket): back in its queue as it was, with no attempt and no error counted.
    Untried,
}

/// Result of offering a URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offer {
    /// Newly queued.
    Added,
    /// Seen before, in this state.
    Known(UrlState),
}

/// Host id of URLs blacklisted before any URL of their host was queued.
const NO_HOST: u32 = u32::MAX;

/// The frontier of one crawl.
pub struct Frontier {
    store: Store,
    cfg: FrontierConfig,
    /// Whether the log had never committed when opened: an older crawl's state may then be in
    /// the store, for [`Frontier::migrate_older_state`].
    log_was_empty: bool,
    journal: journal::Journal,
    table: UrlTable,
    hosts: Vec<Host>,
    ids: HashMap<String, u32>,
    slots: Slots,
    schedule: Schedule,
    best: BestN,
    /// How choosy best-N may be: the regime and pace (see [`pace`]).
    pacer: pace::Pacer,
    /// Leases handed out and not given back (robots.txt included).
    inflight: u32,
    queued: u64,
    /// An error that could not be returned where it happened (the URL file or the record ids
    /// ran out while offering); the next commit returns it, so the crawl stops there.
    poisoned: Option<JournalError>,
}

impl Frontier {
    /// The state of a URL by fingerprint, if it was ever seen.
    pub fn state(&self, fp: u64) -> Option<UrlState> {
        self.table.find(fp).map(|rid| self.table.slot(rid).state())
    }

    /// URLs waiting (including those in flight).
    pub fn queued(&self) -> u64 {
        self.queued
    }

    /// URLs ever seen.
    pub fn seen_count(&self) -> usize {
        self.table.len()
    }

    /// Hosts known to the frontier.
    pub fn host_count(&self) -> usize {
        self.hosts.len()
    }

    /// Queues a URL unless it was seen before. `origin` is `scheme://host[:port]`. The URL may
    /// be handed out at once; it becomes durable at the next [`Frontier::commit`].
    pub fn offer(&mut self, fp: u64, host: &str, origin: &str, uri: CrawlUri) -> Offer {
        if let Some(st) = self.state(fp) {
            return Offer::Known(st);
        }
        self.insert(fp, host, origin, uri)
    }

    /// Queues a URL whose fingerprint the caller just looked up and did not find.
    fn insert(&mut self, fp: u64, host: &str, origin: &str, uri: CrawlUri) -> Offer {
        let hid = self.host_id(host, origin);
        let rid = self.table.len() as u32;
        let offset = match self
            .journal
            .append_with(|v| records::base(v, rid, fp, &uri))
        {
            Ok(o) => o,
            Err(e) => return self.poison(e),
        };
        let row = table::Row {
            fp,
            host: hid,
            prio: uri.priority,
            slot: Slot::Available,
            scores: uri.scores,
            sum: uri.score_sum,
            offset,
        };
        if self.table.push(row).is_none() {
            return self.poison(JournalError::Damaged {
                path: self.store.path().display().to_string(),
                what: "the frontier holds four billion URLs, its limit".into(),
            });
        }
        self.log(Op::Add {
            rid,
            host: hid,
            fp,
            prio: row.prio,
            slot: Slot::Available as u8,
            scores: row.scores,
            sum: row.sum,
            offset,
        });
        self.table.set_has_via(rid, uri.via.is_some());
        self.queued += 1;
        let h = &mut self.hosts[hid as usize];
        h.queued += 1;
        let inv = keys::inverted(row.prio);
        h.enqueue(inv, rid, &mut self.best);
        // A new entry never leaves the host's top stale: the schedule only changes for an idle
        // host, or a ready one whose best URL this is.
        match &h.place {
            Place::Waiting => {}
            Place::Ready(rank) if rank.inv <= inv => {}
            _ => self.push(hid, Instant::now()),
        }
        Offer::Added
    }

    fn poison(&mut self, e: JournalError) -> Offer {
        tracing::error!("frontier: {e}");
        self.poisoned.get_or_insert(e);
        Offer::Known(UrlState::Failed)
    }

    /// The id of a host, registering it (and logging it) the first time.
    fn host_id(&mut self, name: &str, origin: &str) -> u32 {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.hosts.len() as u32;
        self.hosts
            .push(Host::new(id, name.to_string(), origin.to_string()));
        self.ids.insert(name.to_string(), id);
        self.log(Op::Host {
            id,
            name: name.to_string(),
            origin: origin.to_string(),
        });
        id
    }

    fn log(&mut self, op: Op) {
        op.encode(self.journal.ops());
    }

    /// A queued URL as it stands: its record, the latest patch, and the priority and score
    /// totals memory holds.
    fn read_uri(&self, rid: u32) -> Result<CrawlUri, FrontierError> {
        let damaged = |what: String| JournalError::Damaged {
            path: self
                .store
                .path()
                .join("frontier/urls.dat")
                .display()
                .to_string(),
            what,
        };
        let offset = self.table.offset(rid);
        let (mut uri, patch) = match records::decode(&self.journal.read(offset)?) {
            Some(Record::Base { rid: r, uri, .. }) if r == rid => (uri, None),
            Some(Record::Patch(p)) if p.rid == rid => {
                match records::decode(&self.journal.read(p.base)?) {
                    Some(Record::Base { rid: r, uri, .. }) if r == rid => (uri, Some(p)),
                    _ => {
                        return Err(damaged(format!(
                            "the record of URL {rid} at offset {}",
                            p.base
                        ))
                        .into())
                    }
                }
            }
            _ => return Err(damaged(format!("the record of URL {rid} at offset {offset}")).into()),
        };
        if let Some(p) = patch {
            p.apply(&mut uri);
        }
        let (scores, sum) = self.table.scores(rid);
        uri.discovered = uri
            .discovered
            .saturating_add(scores.saturating_sub(uri.scores));
        uri.priority = self.table.prio(rid);
        uri.scores = scores;
        uri.score_sum = sum;
        Ok(uri)
    }

    /// When [`Frontier::next`] may next hand something out: at once if a host is ready and
    /// not held back by best-N, else when the first waiting host's pause ends (`None`: no host
    /// has work; a held-back host waits for a lease to come back).
    pub fn next_wake(&self) -> Option<Instant> {
        match self.schedule.ranked().next() {
            Some(rank) if !self.held_back(rank) => self.schedule.promoted_at(),
            Some(_) => [self.schedule.first_waiting(), self.pacer.wake()]
                .into_iter()
                .flatten()
                .min(),
            None => self.schedule.first_waiting(),
        }
    }

    /// Whether best-N-first holds a ready host back: [`Frontier::gated`], and the pace does not
    /// let it go (see [`pace`]).
    fn held_back(&self, rank: &schedule::Rank) -> bool {
        self.gated(rank) && !self.pacer.may_release()
    }

    /// Whether best-N alone would hold a ready host back: it is not in the middle of its turn,
    /// its best URL is not among the N best counted, and those can still be fetched by someone
    /// (a fetch in flight, or a host waiting for its pause): so the crawl never stalls.
    fn gated(&self, rank: &schedule::Rank) -> bool {
        rank.turn != 0
            && (self.inflight > 0 || self.schedule.first_waiting().is_some())
            && self
                .cfg
                .best_n
                .is_some_and(|n| !self.best.admits(rank.inv, n))
    }

    /// Tells the frontier what the crawl has left, so it decides how choosy best-N may be
    /// (see [`pace`]); the engine calls it before handing out URLs.
    pub fn pace(&mut self, budget: pace::Budget, now: Instant) {
        // Hosts with work: ready, pausing, or fetching (at most one host per fetch in flight).
        let busy = self.schedule.ready_len() + self.schedule.waiting_len() + self.inflight as u64;
        self.pacer.update(budget, busy, now);
    }

    /// The regime, the pace and why ready hosts wait, for statistics and the cockpit.
    pub fn pacing(&mut self) -> pace::PacingView {
        let held = self.schedule.ranked().filter(|r| self.gated(r)).count() as u64;
        self.pacer.set_held(held);
        self.pacer.view(self.cfg.best_n.is_some())
    }

    /// Records the result of a robots.txt fetch: `rules` valid until `expires`. True when the
    /// host had no rules before.
    pub fn robots_done(
        &mut self,
        host: &str,
        rules: Arc<dyn RobotsRules>,
        expires: Instant,
        timing: Option<FetchTiming>,
        now: Instant,
    ) -> bool {
        let Some(&hid) = self.ids.get(host) else {
            return false;
        };
        let h = &mut self.hosts[hid as usize];
        h.inflight = h.inflight.saturating_sub(1);
        h.robots = RobotsStatus::Valid(expires);
        h.robots_failures = 0;
        h.crawl_delay = rules.crawl_delay();
        let first = h.robots_rules.replace(rules).is_none();
        self.release(hid, timing, now);
        first
    }

    /// Whether the host's robots.txt rules allow `url`; true while it has none.
    pub fn robots_allows(&self, host: &str, url: &str) -> bool {
        self.host(host)
            .and_then(|h| h.robots_rules.as_ref())
            .is_none_or(|r| r.allows(url))
    }

    /// robots.txt could not be had (5xx, unreachable): the host waits `retry_in` and tries again.
    pub fn robots_failed(&mut self, host: &str, retry_in: Duration, now: Instant) {
        let Some(&hid) = self.ids.get(host) else {
            return;
        };
        let h = &mut self.hosts[hid as usize];
        h.inflight = h.inflight.saturating_sub(1);
        h.robots = RobotsStatus::Unknown;
        h.robots_failures += 1;
        let t = FetchTiming {
            duration: Duration::ZERO,
            retry_after: None,
            backoff: Some(retry_in),
        };
        self.release(hid, Some(t), now);
    }

    /// The robots.txt fetch of `host` was not really tried (the crawler had no file
    /// descriptor for it): the host asks for it again as soon as it may, with no failure
    /// counted.
    pub fn robots_untried(&mut self, host: &str, now: Instant) {
        let Some(&hid) = self.ids.get(host) else {
            return;
        };
        let h = &mut self.hosts[hid as usize];
        h.inflight = h.inflight.saturating_sub(1);
        h.robots = RobotsStatus::Unknown;
        self.release(hid, None, now);
    }

    /// How many times in a row robots.txt of `host` could not be had.
    pub fn robots_failures(&self, host: &str) -> u32 {
        self.host(host).map_or(0, |h| h.robots_failures)
    }

    fn host(&self, name: &str) -> Option<&Host> {
        self.ids.get(name).map(|&id| &self.hosts[id as usize])
    }

    /// Tells the frontier the address a host resolved to, so hosts on one IP share politeness.
    pub fn set_ip(&mut self, host: &str, ip: IpAddr) {
        let Some(&hid) = self.ids.get(host) else {
            return;
        };
        let h = &mut self.hosts[hid as usize];
        if h.ip == Some(ip) {
            return;
        }
        let old = h.slot_id();
        let moving = h.inflight;
        h.ip = Some(ip);
        let from = self.slots.get_mut(&old);
        from.inflight = from.inflight.saturating_sub(moving);
        let next = from.next_allowed;
        let to = self.slots.get_mut(&SlotId::Ip(ip));
        to.inflight += moving;
        to.next_allowed = to.next_allowed.max(next);
    }

    /// Removes every queued, unleased URL of a host, marking each with `state`; returns them.
    pub fn drain_host(
        &mut self,
        host: &str,
        state: UrlState,
    ) -> Result<Vec<CrawlUri>, FrontierError> {
        let Some(&hid) = self.ids.get(host) else {
            return Ok(vec![]);
        };
        let mut out = Vec::new();
        while let Some((_, rid)) = self.hosts[hid as usize].pop_best(&self.table, &mut self.best) {
            let uri = self.read_uri(rid);
            self.finish(rid, hid, Slot::of(state), false);
            match uri {
                Ok(uri) => out.push(uri),
                Err(e) => tracing::error!(host, rid, "frontier: damaged URL dropped: {e}"),
            }
        }
        self.push(hid, Instant::now());
        Ok(out)
    }

    /// Brings a host's place in the schedule up to date after its queue or its fetches changed:
    /// an idle host with something to hand out starts waiting until `t`, a ready host is
    /// re-ranked by its (new) best URL, or dropped if it has nothing left to hand out.
    fn push(&mut self, hid: u32, t: Instant) {
        let Some(h) = self.hosts.get_mut(hid as usize) else {
            return;
        };
        if h.place == Place::Waiting {
            // Ranked when it comes due, after a sweep of its top (see `next`).
            return;
        }
        h.settle(&self.table);
        let has_work = h.available() > 0 && h.inflight < self.cfg.politeness.max_parallel_per_host;
        h.place = match std::mem::take(&mut h.place) {
            Place::Ready(rank) if has_work => {
                let (turn, inv) = (h.turn_left > 0, h.best());
                if rank.inv == inv && rank.turn == u8::from(!turn) {
                    Place::Ready(rank)
                } else {
                    Place::Ready(self.schedule.rerank(&rank, turn, inv))
                }
            }
            Place::Ready(rank) => {
                self.schedule.remove(&rank);
                Place::Idle
            }
            Place::Idle if has_work => {
                self.schedule.wait(hid, t);
                Place::Waiting
            }
            place => place,
        };
    }

    /// Per-host view for statistics and the API.
    pub fn host_view(&self, name: &str) -> Option<host::HostView> {
        self.host(name).map(Host::view)
    }
}

#[cfg(test)]
mod host_policy_tests;
#[cfg(test)]
mod tests;
