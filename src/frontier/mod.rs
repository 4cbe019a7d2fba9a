//! The frontier: durable per-host priority queues, the URL-seen test, and the politeness schedule.
//!
//! Queue entries live in the store (see [`keys`] for the key scheme); memory holds what must be
//! fast: the seen-set (fingerprint → state), per host the order of its queue (priority and
//! sequence of every URL that may be handed out) and counters, and the [`schedule`] of hosts:
//! best-first among the hosts whose politeness pause is over. Writes are staged and become
//! durable together at [`Frontier::commit`]; a queued or rescored URL may be handed out at once,
//! and a crash between commits loses nothing: the uncommitted work is simply done again.

pub mod best_n;
pub mod keys;
pub mod politeness;
mod rebuild;
pub mod schedule;
pub mod update;
pub mod view;

use crate::model::CrawlUri;
use crate::store::{Store, StoreError, WriteSet};
use best_n::BestN;
use keys::UrlState;
use politeness::{pause_after, FetchTiming, PolitenessConfig, SlotId, Slots, WaitReason};
use schedule::{Place, Schedule};
use std::collections::HashMap;
use std::net::IpAddr;
use std::time::{Duration, Instant};

pub mod host;
use host::{Host, RobotsStatus};

/// A frontier error.
#[derive(Debug, thiserror::Error)]
pub enum FrontierError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
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
    /// Its queue key.
    pub key: Vec<u8>,
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
}

/// Result of offering a URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offer {
    /// Newly queued.
    Added,
    /// Seen before, in this state.
    Known(UrlState),
}

/// The frontier of one crawl.
pub struct Frontier {
    store: Store,
    cfg: FrontierConfig,
    ws: WriteSet,
    seen: HashMap<u64, UrlState>,
    hosts: HashMap<String, Host>,
    slots: Slots,
    schedule: Schedule,
    best: BestN,
    /// Leases handed out and not given back (robots.txt included).
    inflight: u32,
    seq: u64,
    queued: u64,
}

impl Frontier {
    /// Opens the frontier on a store, rebuilding memory from what was committed.
    pub fn open(store: Store, cfg: FrontierConfig) -> Result<Frontier, FrontierError> {
        let mut f = Frontier {
            store,
            cfg,
            ws: WriteSet::default(),
            seen: HashMap::new(),
            hosts: HashMap::new(),
            slots: Slots::default(),
            schedule: Schedule::default(),
            best: BestN::default(),
            inflight: 0,
            seq: 0,
            queued: 0,
        };
        f.rebuild()?;
        Ok(f)
    }

    /// The state of a URL by fingerprint, if it was ever seen.
    pub fn state(&self, fp: u64) -> Option<UrlState> {
        self.seen.get(&fp).copied()
    }

    /// URLs waiting (including those in flight).
    pub fn queued(&self) -> u64 {
        self.queued
    }

    /// URLs ever seen.
    pub fn seen_count(&self) -> usize {
        self.seen.len()
    }

    /// Hosts known to the frontier.
    pub fn host_count(&self) -> usize {
        self.hosts.len()
    }

    /// Queues a URL unless it was seen before. `origin` is `scheme://host[:port]`. The URL may
    /// be handed out at once; it becomes durable at the next [`Frontier::commit`].
    pub fn offer(&mut self, fp: u64, host: &str, origin: &str, uri: CrawlUri) -> Offer {
        if let Some(&st) = self.seen.get(&fp) {
            return Offer::Known(st);
        }
        self.seq += 1;
        let inv = keys::inverted(uri.priority);
        let key = keys::queue_key_at(host, inv, self.seq);
        self.ws.put(
            keys::seen_key(fp),
            keys::seen_value(UrlState::Queued, Some(&key)),
        );
        self.ws.put(key, encode_entry(fp, &uri));
        self.seen.insert(fp, UrlState::Queued);
        self.queued += 1;
        let h = self
            .hosts
            .entry(host.to_string())
            .or_insert_with(|| Host::new(origin.to_string()));
        h.queued += 1;
        h.enqueue((inv, self.seq), &mut self.best);
        self.push(host, Instant::now());
        Offer::Added
    }

    /// Stages an extra write to be committed with the frontier (checkpoints, statistics).
    pub fn stage(&mut self, key: Vec<u8>, value: Vec<u8>) {
        self.ws.put(key, value);
    }

    /// The error for a value read from the store that does not decode (`what` says which, and
    /// why); it names the store's folder.
    pub fn damaged(&self, what: impl Into<String>) -> StoreError {
        self.store.damaged(what)
    }

    /// Reads a committed value (or one staged for this commit).
    pub fn read(&self, key: &[u8]) -> Result<Option<Vec<u8>>, FrontierError> {
        read_staged(&self.store, &self.ws, key)
    }

    /// When [`Frontier::next`] may next hand something out: at once if a host is ready and
    /// not held back by best-N, else when the first waiting host's pause ends (`None`: no host
    /// has work; a held-back host waits for a lease to come back).
    pub fn next_wake(&self) -> Option<Instant> {
        match self.schedule.ranked().next() {
            Some(rank) if !self.held_back(rank) => self.schedule.promoted_at(),
            _ => self.schedule.first_waiting(),
        }
    }

    /// Whether best-N-first holds a ready host back: it is not in the middle of its turn, its
    /// best URL is not among the N best counted, and those can still be fetched by someone
    /// (a fetch in flight, or a host waiting for its pause): so the crawl never stalls.
    fn held_back(&self, rank: &schedule::Rank) -> bool {
        rank.turn != 0
            && (self.inflight > 0 || self.schedule.first_waiting().is_some())
            && self
                .cfg
                .best_n
                .is_some_and(|n| !self.best.admits(rank.inv, n))
    }

    /// Hands out the next URL (or robots.txt): of the hosts that may be fetched from at `now`,
    /// the one whose best queued URL has the highest priority (see [`schedule`]).
    pub fn next(&mut self, now: Instant) -> Option<Lease> {
        while let Some((since, name)) = self.schedule.due(now) {
            let max = self.cfg.politeness.max_parallel_per_host;
            let Some(h) = self.hosts.get_mut(&name) else {
                continue;
            };
            if h.place != Place::Waiting {
                continue;
            }
            h.count(true, &mut self.best);
            h.place = if h.available() > 0 && h.inflight < max {
                Place::Ready(self.schedule.ready(&name, h.turn_left > 0, h.best(), since))
            } else {
                Place::Idle
            };
        }
        loop {
            let held = self.schedule.ranked().next().map(|r| self.held_back(r))?;
            if held {
                return None;
            }
            let rank = self.schedule.best()?;
            if let Some(h) = self.hosts.get_mut(&rank.host) {
                h.place = Place::Idle;
            }
            if let Some(lease) = self.try_lease(&rank.host, now) {
                return Some(lease);
            }
        }
    }

    fn try_lease(&mut self, name: &str, now: Instant) -> Option<Lease> {
        let cfg = &self.cfg;
        let h = self.hosts.get_mut(name)?;
        if h.record.fetched >= cfg.max_pages_per_host {
            h.wait = WaitReason::BudgetExhausted;
            h.exhaust(&mut self.best);
            return None;
        }
        if h.available() == 0 || h.inflight >= cfg.politeness.max_parallel_per_host {
            return None;
        }
        let slot = self.slots.get_mut(&h.slot_id(name));
        let wait_until = [slot.next_allowed, h.next_allowed]
            .into_iter()
            .flatten()
            .max();
        let retry_at = if let Some(t) = wait_until.filter(|t| *t > now) {
            Some(t)
        } else if slot.inflight >= cfg.politeness.max_parallel_per_ip {
            h.wait = WaitReason::Busy;
            Some(politeness::after(
                now,
                cfg.politeness.min_delay.max(Duration::from_millis(10)),
            ))
        } else {
            None
        };
        if let Some(t) = retry_at {
            // A host that has to wait loses the rest of its turn.
            h.turn_left = 0;
            self.push(name, t);
            return None;
        }
        let robots_due = cfg.respect_robots
            && match h.robots {
                RobotsStatus::Valid(expires) => expires <= now,
                RobotsStatus::Unknown => true,
                RobotsStatus::Fetching => return None,
            };
        if robots_due {
            h.robots = RobotsStatus::Fetching;
            h.inflight += 1;
            slot.inflight += 1;
            self.inflight += 1;
            return Some(Lease::Robots {
                host: name.to_string(),
                origin: h.origin.clone(),
            });
        }
        let (key, fp, uri) = loop {
            let (inv, seq) = h.dequeue_first(&mut self.best)?;
            let key = keys::queue_key_at(name, inv, seq);
            let entry = read_staged(&self.store, &self.ws, &key);
            match entry.as_ref().map(|e| e.as_deref().and_then(decode_entry)) {
                Ok(Some((fp, uri))) => break (key, fp, uri),
                Ok(None) => {
                    // A queue entry that cannot be read is dropped, loudly: the rest of the
                    // queue must not be held up by one damaged record.
                    tracing::error!(host = name, seq, "frontier: damaged queue entry dropped");
                    self.ws.delete(key);
                    h.queued = h.queued.saturating_sub(1);
                    self.queued = self.queued.saturating_sub(1);
                }
                Err(e) => {
                    tracing::error!(host = name, "frontier: cannot read the queue: {e}");
                    h.enqueue((inv, seq), &mut self.best);
                    return None;
                }
            }
        };
        h.leased.insert(key.clone());
        h.inflight += 1;
        slot.inflight += 1;
        self.inflight += 1;
        h.wait = WaitReason::Busy;
        h.turn_left = h
            .turn_left
            .checked_sub(1)
            .unwrap_or(cfg.balance_per_queue.saturating_sub(1));
        self.push(name, now);
        Some(Lease::Url(UrlLease {
            host: name.to_string(),
            key,
            fp,
            uri,
        }))
    }

    /// Gives a leased URL back. `timing` is `None` when nothing was fetched (robots-blocked).
    pub fn complete(
        &mut self,
        lease: &UrlLease,
        how: Completion,
        timing: Option<FetchTiming>,
        now: Instant,
    ) {
        let Some(h) = self.hosts.get_mut(&lease.host) else {
            return;
        };
        h.inflight = h.inflight.saturating_sub(1);
        h.leased.remove(&lease.key);
        let state = match how {
            Completion::Done => UrlState::Done,
            Completion::Failed => UrlState::Failed,
            Completion::RobotsBlocked => UrlState::RobotsBlocked,
            Completion::Retry => {
                let mut uri = lease.uri.clone();
                uri.retries = uri.retries.saturating_add(1);
                self.ws.put(lease.key.clone(), encode_entry(lease.fp, &uri));
                if let Some(pos) = keys::queue_position(&lease.key) {
                    h.enqueue(pos, &mut self.best);
                }
                UrlState::Queued
            }
        };
        if state != UrlState::Queued {
            h.queued = h.queued.saturating_sub(1);
            self.queued = self.queued.saturating_sub(1);
            self.ws.delete(lease.key.clone());
            self.ws
                .put(keys::seen_key(lease.fp), keys::seen_value(state, None));
            self.seen.insert(lease.fp, state);
        }
        if how == Completion::Done {
            h.record.fetched += 1;
        } else if how != Completion::RobotsBlocked {
            h.record.errors += 1;
        }
        // A record of two integers always serialises; the default is never stored.
        self.ws.put(
            keys::host_key(&lease.host),
            serde_json::to_vec(&h.record).unwrap_or_default(),
        );
        let name = lease.host.clone();
        self.release(&name, timing, now);
    }

    fn release(&mut self, name: &str, timing: Option<FetchTiming>, now: Instant) {
        let Some(h) = self.hosts.get_mut(name) else {
            return;
        };
        let slot = self.slots.get_mut(&h.slot_id(name));
        slot.inflight = slot.inflight.saturating_sub(1);
        self.inflight = self.inflight.saturating_sub(1);
        let mut at = now;
        if let Some(t) = timing {
            let (pause, why) = pause_after(&self.cfg.politeness, h.crawl_delay, &t);
            let until = politeness::after(now, pause);
            h.next_allowed = Some(until);
            h.wait = why;
            slot.next_allowed = Some(slot.next_allowed.map_or(until, |s| s.max(until)));
            if pause > Duration::ZERO {
                // A host that has to wait loses the rest of its turn.
                h.turn_left = 0;
                at = until;
            }
            if matches!(why, WaitReason::RetryAfter | WaitReason::ErrorBackoff) {
                h.count(false, &mut self.best);
            }
        } else if h.inflight == 0 {
            h.wait = WaitReason::Ready;
        }
        self.push(name, at);
    }

    /// Records the result of a robots.txt fetch: rules valid until `expires`.
    pub fn robots_done(
        &mut self,
        host: &str,
        expires: Instant,
        crawl_delay: Option<Duration>,
        timing: Option<FetchTiming>,
        now: Instant,
    ) {
        if let Some(h) = self.hosts.get_mut(host) {
            h.inflight = h.inflight.saturating_sub(1);
            h.robots = RobotsStatus::Valid(expires);
            h.crawl_delay = crawl_delay;
        }
        self.release(host, timing, now);
    }

    /// robots.txt could not be had (5xx, unreachable): the host waits `retry_in` and tries again.
    pub fn robots_failed(&mut self, host: &str, retry_in: Duration, now: Instant) {
        if let Some(h) = self.hosts.get_mut(host) {
            h.inflight = h.inflight.saturating_sub(1);
            h.robots = RobotsStatus::Unknown;
            h.robots_failures += 1;
        }
        let t = FetchTiming {
            duration: Duration::ZERO,
            retry_after: None,
            backoff: Some(retry_in),
        };
        self.release(host, Some(t), now);
    }

    /// How many times in a row robots.txt of `host` could not be had.
    pub fn robots_failures(&self, host: &str) -> u32 {
        self.hosts.get(host).map_or(0, |h| h.robots_failures)
    }

    /// Tells the frontier the address a host resolved to, so hosts on one IP share politeness.
    pub fn set_ip(&mut self, host: &str, ip: IpAddr) {
        let Some(h) = self.hosts.get_mut(host) else {
            return;
        };
        if h.ip == Some(ip) {
            return;
        }
        let old = h.slot_id(host);
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
        let Some(h) = self.hosts.get_mut(host) else {
            return Ok(vec![]);
        };
        let mut out = Vec::new();
        while let Some((inv, seq)) = h.dequeue_first(&mut self.best) {
            let key = keys::queue_key_at(host, inv, seq);
            let entry = read_staged(&self.store, &self.ws, &key)?;
            self.ws.delete(key);
            h.queued = h.queued.saturating_sub(1);
            self.queued = self.queued.saturating_sub(1);
            let Some((fp, uri)) = entry.as_deref().and_then(decode_entry) else {
                tracing::error!(host, seq, "frontier: damaged queue entry dropped");
                continue;
            };
            self.ws
                .put(keys::seen_key(fp), keys::seen_value(state, None));
            self.seen.insert(fp, state);
            out.push(uri);
        }
        self.push(host, Instant::now());
        Ok(out)
    }

    /// Makes everything staged durable, atomically.
    pub fn commit(&mut self) -> Result<(), FrontierError> {
        self.ws
            .put(keys::meta_key("seq"), self.seq.to_string().into_bytes());
        let ws = std::mem::take(&mut self.ws);
        self.store.commit(ws)?;
        Ok(())
    }

    /// Brings a host's place in the schedule up to date after its queue or its fetches changed:
    /// an idle host with something to hand out starts waiting until `t`, a ready host is
    /// re-ranked by its (new) best URL, or dropped if it has nothing left to hand out.
    fn push(&mut self, name: &str, t: Instant) {
        let Some(h) = self.hosts.get_mut(name) else {
            return;
        };
        let has_work = h.available() > 0 && h.inflight < self.cfg.politeness.max_parallel_per_host;
        h.place = match std::mem::take(&mut h.place) {
            Place::Ready(rank) if has_work => {
                Place::Ready(self.schedule.rerank(&rank, h.turn_left > 0, h.best()))
            }
            Place::Ready(rank) => {
                self.schedule.remove(&rank);
                Place::Idle
            }
            Place::Idle if has_work => {
                self.schedule.wait(name, t);
                Place::Waiting
            }
            place => place,
        };
    }

    /// Per-host view for statistics and the API.
    pub fn host_view(&self, name: &str) -> Option<host::HostView> {
        self.hosts.get(name).map(|h| h.view(name))
    }
}

/// Reads a value as it will be after the next commit: staged if a write is staged, else
/// committed.
fn read_staged(store: &Store, ws: &WriteSet, key: &[u8]) -> Result<Option<Vec<u8>>, FrontierError> {
    match ws.staged(key) {
        Some(v) => Ok(v.map(|v| v.to_vec())),
        None => Ok(store.get(key)?),
    }
}

fn encode_entry(fp: u64, uri: &CrawlUri) -> Vec<u8> {
    let mut v = fp.to_be_bytes().to_vec();
    keys::encode_uri_into(&mut v, uri);
    v
}

fn decode_entry(v: &[u8]) -> Option<(u64, CrawlUri)> {
    let fp = u64::from_be_bytes(v.get(..8)?.try_into().ok()?);
    Some((fp, keys::decode_uri(&v[8..])?))
}

#[cfg(test)]
mod tests;
