//! One host's queue state in memory: counters, leases, robots status and its politeness clock.

use super::best_n::BestN;
use super::politeness::{SlotId, WaitReason};
use super::schedule::Place;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, HashSet};
use std::net::IpAddr;
use std::time::{Duration, Instant};

/// Where the host's robots.txt stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RobotsStatus {
    /// Not fetched yet (or failed; retried after a pause).
    Unknown,
    /// Being fetched.
    Fetching,
    /// Rules known until this time.
    Valid(Instant),
}

/// Per-host counters that survive restarts (stored under `h`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct HostRecord {
    /// Pages fetched and archived.
    pub fetched: u64,
    /// Fetches that failed or were retried.
    pub errors: u64,
}

/// A host's queue state.
#[derive(Debug)]
pub struct Host {
    /// `scheme://host[:port]`, to build robots.txt URLs.
    pub origin: String,
    /// Queued URLs, including leased and not-yet-committed ones.
    pub queued: u64,
    /// Fetches in flight (robots.txt included).
    pub inflight: u32,
    /// Queue keys handed out and not completed yet.
    pub leased: HashSet<Vec<u8>>,
    /// The queued URLs that may be handed out, as (inverted priority, sequence): the order of
    /// the host's queue, kept in memory so the best URL is known without reading the store.
    pub index: BTreeSet<(u32, u64)>,
    /// No fetch before this.
    pub next_allowed: Option<Instant>,
    /// Why it waits.
    pub wait: WaitReason,
    /// URLs this host may still hand out in its current turn (`balance_per_queue` per turn):
    /// while it is above zero the host ranks before every other ready host.
    pub turn_left: u32,
    /// Where the host is in the schedule.
    pub place: Place,
    /// Its budget (`max_pages_per_host`) is spent: it never fetches again.
    pub exhausted: bool,
    /// Its queue counts for best-N: not while the host is exhausted or in a long pause
    /// (Retry-After, error backoff), so that URLs which cannot be fetched soon hold nothing back.
    pub counted: bool,
    /// robots.txt status.
    pub robots: RobotsStatus,
    /// Consecutive robots.txt failures.
    pub robots_failures: u32,
    /// robots.txt Crawl-delay.
    pub crawl_delay: Option<Duration>,
    /// Resolved address, once known.
    pub ip: Option<IpAddr>,
    /// Durable counters.
    pub record: HostRecord,
}

impl Host {
    /// A host with nothing queued yet.
    pub fn new(origin: String) -> Host {
        Host {
            origin,
            queued: 0,
            inflight: 0,
            leased: HashSet::new(),
            index: BTreeSet::new(),
            next_allowed: None,
            turn_left: 0,
            wait: WaitReason::Ready,
            place: Place::Idle,
            exhausted: false,
            counted: true,
            robots: RobotsStatus::Unknown,
            robots_failures: 0,
            crawl_delay: None,
            ip: None,
            record: HostRecord::default(),
        }
    }

    /// Queued URLs not in flight.
    pub fn available(&self) -> u64 {
        self.index.len() as u64
    }

    /// Adds a URL to the queue order (and to the best-N counts while the host can fetch).
    pub fn enqueue(&mut self, pos: (u32, u64), best: &mut BestN) {
        if self.index.insert(pos) && self.counted {
            best.add(pos.0);
        }
    }

    /// Removes a URL from the queue order; false if it was not there.
    pub fn dequeue(&mut self, pos: (u32, u64), best: &mut BestN) -> bool {
        let had = self.index.remove(&pos);
        if had && self.counted {
            best.remove(pos.0);
        }
        had
    }

    /// Takes the best URL off the queue order.
    pub fn dequeue_first(&mut self, best: &mut BestN) -> Option<(u32, u64)> {
        let pos = self.index.pop_first()?;
        if self.counted {
            best.remove(pos.0);
        }
        Some(pos)
    }

    /// Marks the host's budget as spent: its queued URLs stop counting for best-N for good.
    pub fn exhaust(&mut self, best: &mut BestN) {
        self.exhausted = true;
        self.count(false, best);
    }

    /// Counts the host's queued URLs for best-N, or stops counting them (an exhausted host is
    /// never counted again).
    pub fn count(&mut self, on: bool, best: &mut BestN) {
        let on = on && !self.exhausted;
        if on == std::mem::replace(&mut self.counted, on) {
            return;
        }
        for &(inv, _) in &self.index {
            if on {
                best.add(inv);
            } else {
                best.remove(inv);
            }
        }
    }

    /// The inverted priority of the best URL that may be handed out (`u32::MAX` if none).
    pub fn best(&self) -> u32 {
        self.index.first().map_or(u32::MAX, |&(inv, _)| inv)
    }

    /// The politeness slot this host uses.
    pub fn slot_id(&self, name: &str) -> SlotId {
        match self.ip {
            Some(ip) => SlotId::Ip(ip),
            None => SlotId::Host(name.to_string()),
        }
    }

    /// A snapshot for statistics and the API.
    pub fn view(&self, name: &str) -> HostView {
        let now = Instant::now();
        HostView {
            host: name.to_string(),
            queued: self.queued,
            inflight: self.inflight,
            fetched: self.record.fetched,
            errors: self.record.errors,
            wait: self.wait,
            wait_ms: self
                .next_allowed
                .map_or(0, |t| t.saturating_duration_since(now).as_millis() as u64),
            crawl_delay_ms: self.crawl_delay.map(|d| d.as_millis() as u64),
            ip: self.ip,
        }
    }
}

/// What the API shows of a host queue.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct HostView {
    /// Host key.
    pub host: String,
    /// Queued URLs.
    pub queued: u64,
    /// Fetches in flight.
    pub inflight: u32,
    /// Pages fetched.
    pub fetched: u64,
    /// Errors.
    pub errors: u64,
    /// Why it waits.
    pub wait: WaitReason,
    /// Milliseconds until it may be fetched from again.
    pub wait_ms: u64,
    /// robots.txt Crawl-delay in force.
    pub crawl_delay_ms: Option<u64>,
    /// Resolved address.
    pub ip: Option<IpAddr>,
}
