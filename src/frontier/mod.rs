//! The frontier: durable per-host priority queues, the URL-seen test, and the politeness schedule.
//!
//! Queues live in the store (see [`keys`] for the key scheme); memory holds only what must be
//! fast: the seen-set (fingerprint → state), per-host counters and a heap of hosts ordered by the
//! time they may next be fetched from. Writes are staged and become durable together at
//! [`Frontier::commit`]; until then a new URL is known to the seen-test but not yet poppable,
//! and a completed URL keeps its queue entry, so a crash between commits loses nothing: the
//! uncommitted work is simply done again.

pub mod keys;
pub mod politeness;
pub mod update;
pub mod view;

use crate::model::CrawlUri;
use crate::store::{Store, StoreError, WriteSet};
use keys::UrlState;
use politeness::{pause_after, FetchTiming, PolitenessConfig, SlotId, Slots, WaitReason};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};
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
    heap: BinaryHeap<Reverse<(Instant, u64, String)>>,
    tick: u64,
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
            heap: BinaryHeap::new(),
            tick: 0,
            seq: 0,
            queued: 0,
        };
        f.rebuild()?;
        Ok(f)
    }

    fn rebuild(&mut self) -> Result<(), FrontierError> {
        let seen = &mut self.seen;
        self.store.for_each(b"s", |k, v| {
            if let (Ok(fp), Some(state)) = (
                k[1..].try_into(),
                v.first().and_then(|&b| UrlState::from_byte(b)),
            ) {
                seen.insert(u64::from_be_bytes(fp), state);
            }
        })?;
        let hosts = &mut self.hosts;
        let mut queued = 0;
        self.store.for_each(b"q", |k, v| {
            let Some(name) = keys::host_of_queue_key(k) else {
                return;
            };
            let host = hosts.entry(name.to_string()).or_insert_with(|| {
                let origin = decode_entry(v)
                    .and_then(|(_, u)| url::Url::parse(&u.url).ok())
                    .map(|u| u.origin().ascii_serialization())
                    .unwrap_or_default();
                Host::new(origin)
            });
            host.queued += 1;
            queued += 1;
        })?;
        self.queued = queued;
        self.store.for_each(b"h", |k, v| {
            if let (Ok(name), Ok(rec)) = (
                std::str::from_utf8(&k[1..]),
                serde_json::from_slice::<host::HostRecord>(v),
            ) {
                if let Some(h) = self.hosts.get_mut(name) {
                    h.record = rec;
                }
            }
        })?;
        if let Some(v) = self.store.get(&keys::meta_key("seq"))? {
            self.seq = serde_json::from_slice(&v).unwrap_or(0);
        }
        let now = Instant::now();
        let names: Vec<String> = self.hosts.keys().cloned().collect();
        for name in names {
            self.push(&name, now);
        }
        Ok(())
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

    /// Queues a URL unless it was seen before. `origin` is `scheme://host[:port]`.
    pub fn offer(&mut self, fp: u64, host: &str, origin: &str, uri: CrawlUri) -> Offer {
        if let Some(&st) = self.seen.get(&fp) {
            return Offer::Known(st);
        }
        self.seq += 1;
        let key = keys::queue_key(host, uri.priority, self.seq);
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
        self.push(host, Instant::now());
        Offer::Added
    }

    /// Stages an extra write to be committed with the frontier (checkpoints, statistics).
    pub fn stage(&mut self, key: Vec<u8>, value: Vec<u8>) {
        self.ws.put(key, value);
    }

    /// Reads a committed value (or one staged for this commit).
    pub fn read(&self, key: &[u8]) -> Result<Option<Vec<u8>>, FrontierError> {
        match self.ws.staged(key) {
            Some(v) => Ok(v.map(|v| v.to_vec())),
            None => Ok(self.store.get(key)?),
        }
    }

    /// The earliest time a host may be ready, if any host has work.
    pub fn next_wake(&self) -> Option<Instant> {
        self.heap.peek().map(|Reverse((t, _, _))| *t)
    }

    /// Hands out the next URL (or robots.txt) whose host may be fetched from at `now`.
    pub fn next(&mut self, now: Instant) -> Option<Lease> {
        while let Some(Reverse((t, _, _))) = self.heap.peek() {
            if *t > now {
                return None;
            }
            let Some(Reverse((_, _, name))) = self.heap.pop() else {
                break;
            };
            if let Some(h) = self.hosts.get_mut(&name) {
                h.in_heap = false;
            }
            if let Some(lease) = self.try_lease(&name, now) {
                return Some(lease);
            }
        }
        None
    }

    fn try_lease(&mut self, name: &str, now: Instant) -> Option<Lease> {
        let cfg = &self.cfg;
        let h = self.hosts.get_mut(name)?;
        if h.record.fetched >= cfg.max_pages_per_host {
            h.wait = WaitReason::BudgetExhausted;
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
            Some(now + cfg.politeness.min_delay.max(Duration::from_millis(10)))
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
            return Some(Lease::Robots {
                host: name.to_string(),
                origin: h.origin.clone(),
            });
        }
        if h.buffer.is_empty() {
            let prefix = keys::host_prefix(name);
            let (leased, ws) = (&h.leased, &self.ws);
            let rows = self
                .store
                .scan(&prefix, cfg.balance_per_queue as usize, |k| {
                    hidden(leased, ws, k)
                })
                .unwrap_or_default();
            h.buffer = rows
                .into_iter()
                .filter_map(|(k, v)| decode_entry(&v).map(|(fp, u)| (k, fp, u)))
                .collect::<VecDeque<_>>();
        }
        let Some((key, fp, uri)) = h.buffer.pop_front() else {
            h.stalled = true;
            return None;
        };
        h.leased.insert(key.clone(), true);
        h.inflight += 1;
        slot.inflight += 1;
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
        h.leased.insert(lease.key.clone(), false);
        let state = match how {
            Completion::Done => UrlState::Done,
            Completion::Failed => UrlState::Failed,
            Completion::RobotsBlocked => UrlState::RobotsBlocked,
            Completion::Retry => {
                let mut uri = lease.uri.clone();
                uri.retries = uri.retries.saturating_add(1);
                self.ws.put(lease.key.clone(), encode_entry(lease.fp, &uri));
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
        if let Some(t) = timing {
            let (pause, why) = pause_after(&self.cfg.politeness, h.crawl_delay, &t);
            let until = now + pause;
            h.next_allowed = Some(until);
            h.wait = why;
            slot.next_allowed = Some(slot.next_allowed.map_or(until, |s| s.max(until)));
        } else if h.inflight == 0 {
            h.wait = WaitReason::Ready;
        }
        self.push(name, now);
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
        let (leased, ws) = (&h.leased, &self.ws);
        let rows = self.store.scan(&keys::host_prefix(host), usize::MAX, |k| {
            leased.contains_key(k) || ws.staged(k) == Some(None)
        })?;
        let mut out = Vec::new();
        for (k, v) in rows {
            let Some((fp, uri)) = decode_entry(&v) else {
                continue;
            };
            self.ws.delete(k);
            self.ws
                .put(keys::seen_key(fp), keys::seen_value(state, None));
            self.seen.insert(fp, state);
            out.push(uri);
        }
        h.buffer.clear();
        h.queued = h.queued.saturating_sub(out.len() as u64);
        self.queued = self.queued.saturating_sub(out.len() as u64);
        Ok(out)
    }

    /// Makes everything staged durable, atomically, and lets newly queued URLs be popped.
    pub fn commit(&mut self) -> Result<(), FrontierError> {
        self.ws
            .put(keys::meta_key("seq"), self.seq.to_string().into_bytes());
        let ws = std::mem::take(&mut self.ws);
        self.store.commit(ws)?;
        let now = Instant::now();
        let mut wake = Vec::new();
        for (name, h) in self.hosts.iter_mut() {
            h.leased.retain(|_, inflight| *inflight);
            if std::mem::take(&mut h.stalled) {
                wake.push(name.clone());
            }
        }
        for name in wake {
            self.push(&name, now);
        }
        Ok(())
    }

    /// Puts a host on the heap at `t` unless it is there already. A host in the middle of its
    /// turn goes to the front: before every host ready at `t` or earlier.
    fn push(&mut self, name: &str, t: Instant) {
        let Some(h) = self.hosts.get_mut(name) else {
            return;
        };
        if h.in_heap
            || h.available() == 0
            || h.inflight >= self.cfg.politeness.max_parallel_per_host
        {
            return;
        }
        h.in_heap = true;
        let key = if h.turn_left > 0 {
            let first = self
                .heap
                .peek()
                .map_or(t, |Reverse((top, _, _))| t.min(*top));
            (first, 0)
        } else {
            self.tick += 1;
            (t, self.tick)
        };
        self.heap.push(Reverse((key.0, key.1, name.to_string())));
    }

    /// Per-host view for statistics and the API.
    pub fn host_view(&self, name: &str) -> Option<host::HostView> {
        self.hosts.get(name).map(|h| h.view(name))
    }
}

/// Whether a committed queue entry must not be handed out yet: it is leased, or a write to it is
/// staged. A staged delete means it is gone; a staged put means it changed (rescored to the same
/// key, retried) and the committed copy is stale until the next commit, so leasing it would let
/// a completion overwrite the newer entry.
fn hidden(leased: &HashMap<Vec<u8>, bool>, ws: &WriteSet, key: &[u8]) -> bool {
    leased.contains_key(key) || ws.staged(key).is_some()
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
