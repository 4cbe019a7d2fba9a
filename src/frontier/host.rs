//! One host's queue state in memory: counters, leases, robots status and its politeness clock.

use super::best_n::BestN;
use super::contract::RobotsRules;
use super::politeness::{SlotId, WaitReason};
use super::schedule::Place;
use super::table::UrlTable;
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::net::IpAddr;
use std::sync::Arc;
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
    /// Host id.
    pub id: u32,
    /// Host key.
    pub name: String,
    /// `scheme://host[:port]`, to build robots.txt URLs.
    pub origin: String,
    /// Queued URLs, including leased and not-yet-committed ones.
    pub queued: u64,
    /// Fetches in flight (robots.txt included).
    pub inflight: u32,
    /// The queue order: a min-heap of entries `inverted priority << 32 | record id`, so the
    /// best URL, then the first discovered, comes first. A rescore pushes a new entry and leaves
    /// the old one behind; entries that no longer stand for an available URL at that priority
    /// (see [`UrlTable::live`]) are skipped and, when they outnumber the live ones, swept.
    queue: BinaryHeap<Reverse<u64>>,
    /// Queued URLs that may be handed out (live entries).
    available: u64,
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
    /// robots.txt rules, once read (kept past their expiry until read again).
    pub robots_rules: Option<Arc<dyn RobotsRules>>,
    /// Resolved address, once known.
    pub ip: Option<IpAddr>,
    /// Durable counters.
    pub record: HostRecord,
}

impl Host {
    /// A host with nothing queued yet.
    pub fn new(id: u32, name: String, origin: String) -> Host {
        Host {
            id,
            name,
            origin,
            queued: 0,
            inflight: 0,
            queue: BinaryHeap::new(),
            available: 0,
            next_allowed: None,
            turn_left: 0,
            wait: WaitReason::Ready,
            place: Place::Idle,
            exhausted: false,
            counted: true,
            robots: RobotsStatus::Unknown,
            robots_failures: 0,
            crawl_delay: None,
            robots_rules: None,
            ip: None,
            record: HostRecord::default(),
        }
    }

    /// Queued URLs not in flight.
    pub fn available(&self) -> u64 {
        self.available
    }

    /// Adds a URL to the queue order (and to the best-N counts while the host can fetch).
    pub fn enqueue(&mut self, inv: u32, rid: u32, best: &mut BestN) {
        self.queue.push(Reverse(entry(inv, rid)));
        self.available += 1;
        if self.counted {
            best.add(inv);
        }
    }

    /// Moves an available URL from `old` to `new` (the table already holds the new priority).
    pub fn moved(&mut self, old: u32, new: u32, rid: u32, t: &UrlTable, best: &mut BestN) {
        if old != new {
            self.queue.push(Reverse(entry(new, rid)));
            if self.counted {
                best.remove(old);
                best.add(new);
            }
            self.sweep(t);
        }
    }

    /// An available URL at `inv` left the queue (blacklisted); its entry goes stale.
    pub fn removed(&mut self, inv: u32, best: &mut BestN) {
        self.available = self.available.saturating_sub(1);
        if self.counted {
            best.remove(inv);
        }
    }

    /// Takes the best available URL off the queue order: (inverted priority, record id). The
    /// caller changes its state in the table.
    pub fn pop_best(&mut self, t: &UrlTable, best: &mut BestN) -> Option<(u32, u32)> {
        while let Some(Reverse(e)) = self.queue.pop() {
            let (inv, rid) = split(e);
            if t.live(inv, rid) {
                self.removed(inv, best);
                return Some((inv, rid));
            }
        }
        None
    }

    /// Drops stale entries from the top, so [`Host::best`] is right, and sweeps the queue when
    /// stale entries outnumber live ones.
    pub fn settle(&mut self, t: &UrlTable) {
        while let Some(&Reverse(e)) = self.queue.peek() {
            let (inv, rid) = split(e);
            if t.live(inv, rid) {
                break;
            }
            self.queue.pop();
        }
        self.sweep(t);
    }

    /// Rebuilds the queue from its live entries once stale ones outnumber them (amortised
    /// O(1) per rescore).
    fn sweep(&mut self, t: &UrlTable) {
        if self.queue.len() as u64 > 2 * self.available + 32 {
            let live: Vec<Reverse<u64>> = self
                .live(t)
                .into_iter()
                .map(|(inv, rid)| Reverse(entry(inv, rid)))
                .collect();
            self.queue = BinaryHeap::from(live);
        }
    }

    /// Every available URL, best first, once each.
    pub fn live(&self, t: &UrlTable) -> Vec<(u32, u32)> {
        let mut v: Vec<u64> = self
            .queue
            .iter()
            .map(|r| r.0)
            .filter(|&e| {
                let (inv, rid) = split(e);
                t.live(inv, rid)
            })
            .collect();
        v.sort_unstable();
        v.dedup();
        v.into_iter().map(split).collect()
    }

    /// The `k` best available URLs, best first, walking the heap from its root (O(k log k)).
    pub fn top(&self, t: &UrlTable, k: usize) -> Vec<(u32, u32)> {
        let heap = self.queue.as_slice();
        let mut out: Vec<(u32, u32)> = Vec::with_capacity(k.min(heap.len()));
        let mut frontier = BinaryHeap::new();
        if let Some(root) = heap.first() {
            frontier.push(Reverse((root.0, 0usize)));
        }
        while let Some(Reverse((e, i))) = frontier.pop() {
            if out.len() >= k {
                break;
            }
            let (inv, rid) = split(e);
            if t.live(inv, rid) && out.last() != Some(&(inv, rid)) {
                out.push((inv, rid));
            }
            for c in [2 * i + 1, 2 * i + 2] {
                if let Some(child) = heap.get(c) {
                    frontier.push(Reverse((child.0, c)));
                }
            }
        }
        out
    }

    /// Marks the host's budget as spent: its queued URLs stop counting for best-N for good.
    pub fn exhaust(&mut self, t: &UrlTable, best: &mut BestN) {
        self.exhausted = true;
        self.count(false, t, best);
    }

    /// Counts the host's queued URLs for best-N, or stops counting them (an exhausted host is
    /// never counted again).
    pub fn count(&mut self, on: bool, t: &UrlTable, best: &mut BestN) {
        let on = on && !self.exhausted;
        if on == std::mem::replace(&mut self.counted, on) {
            return;
        }
        for (inv, _) in self.live(t) {
            if on {
                best.add(inv);
            } else {
                best.remove(inv);
            }
        }
    }

    /// The inverted priority of the best URL that may be handed out (`u32::MAX` if none); right
    /// after [`Host::settle`].
    pub fn best(&self) -> u32 {
        match self.queue.peek() {
            Some(&Reverse(e)) if self.available > 0 => split(e).0,
            _ => u32::MAX,
        }
    }

    /// The politeness slot this host uses.
    pub fn slot_id(&self) -> SlotId {
        match self.ip {
            Some(ip) => SlotId::Ip(ip),
            None => SlotId::Host(self.id),
        }
    }

    /// A snapshot for statistics and the API.
    pub fn view(&self) -> HostView {
        let now = Instant::now();
        HostView {
            host: self.name.clone(),
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

fn entry(inv: u32, rid: u32) -> u64 {
    (u64::from(inv) << 32) | u64::from(rid)
}

fn split(e: u64) -> (u32, u32) {
    ((e >> 32) as u32, e as u32)
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
