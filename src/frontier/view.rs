//! Read-only views of the frontier for the API and the cockpit: the next URLs in the order they
//! would be fetched, and per-host queue state with the reason a host is waiting.

use super::host::HostView;
use super::{Frontier, FrontierError};
use crate::model::CrawlUri;
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};
use std::iter::Peekable;
use std::time::Instant;

/// A queued URL as the API shows it.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct QueuedUrl {
    /// The URL.
    pub url: String,
    /// Host key.
    pub host: String,
    /// Priority in [0, 1].
    pub priority: f32,
    /// Navigation depth.
    pub depth: u32,
    /// Times discovered or scored while queued.
    pub discovered: u32,
    /// Scores received.
    pub scores: u32,
    /// Hop path from the seed.
    pub hops: String,
    /// Who queued or last scored it.
    pub source: String,
    /// The page it was found on.
    pub via: Option<String>,
    /// Failed attempts so far.
    pub retries: u8,
    /// Estimated milliseconds until it is fetched (politeness only).
    pub eta_ms: u64,
    /// The breakdown of the latest analysis score it received (document, paragraph, anchor,
    /// URL, parent, total), so the operator sees why it sits where it does; `None` for seeds,
    /// unscored links and URLs only scored by external processes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parts: Option<crate::model::ScoreParts>,
}

/// One host's queue while the schedule is played forward: its name, its best entries (inverted
/// priority, record id) still to hand out, and what is left of its turn.
type PlayedQueue<'a> = (&'a str, Peekable<std::vec::IntoIter<(u32, u32)>>, u32);

impl Frontier {
    /// The next `limit` URLs in the order they would be fetched, of one host or of all: the
    /// schedule played forward, each host handing out its queue in order and best-first among
    /// the hosts that are ready, each waiting `min_delay` after a fetch (fetch times and
    /// parallel fetches are not foreseen, so later positions are estimates).
    pub fn peek(&self, limit: usize, host: Option<&str>) -> Result<Vec<QueuedUrl>, FrontierError> {
        let now = Instant::now();
        let step = self.cfg.politeness.min_delay;
        let bl = self.cfg.balance_per_queue.max(1);
        let mut queues: Vec<PlayedQueue<'_>> = Vec::new();
        let mut waiting = BinaryHeap::new();
        for h in &self.hosts {
            if h.available() == 0 || host.is_some_and(|x| x != h.name) {
                continue;
            }
            let ready = h.next_allowed.unwrap_or(now).max(now);
            waiting.push(Reverse((ready, queues.len())));
            let best = h.top(&self.table, limit).into_iter().peekable();
            queues.push((h.name.as_str(), best, h.turn_left));
        }
        let mut ready = BTreeSet::new();
        let mut clock = now;
        let mut order = Vec::new();
        while order.len() < limit {
            while let Some(&Reverse((t, i))) = waiting.peek() {
                if t > clock {
                    break;
                }
                waiting.pop();
                let (_, queue, turn_left) = &mut queues[i];
                if let Some(&(inv, _)) = queue.peek() {
                    ready.insert((u8::from(*turn_left == 0), inv, t, i));
                }
            }
            let Some((_, _, _, i)) = ready.pop_first() else {
                match waiting.peek() {
                    Some(&Reverse((t, _))) => {
                        clock = t;
                        continue;
                    }
                    None => break,
                }
            };
            let (name, queue, turn_left) = &mut queues[i];
            let Some((_, rid)) = queue.next() else {
                continue;
            };
            order.push((*name, rid, clock));
            *turn_left = match turn_left.checked_sub(1) {
                _ if !step.is_zero() => 0,
                Some(left) => left,
                None => bl - 1,
            };
            if queue.peek().is_some() {
                waiting.push(Reverse((clock + step, i)));
            }
        }
        let mut out = Vec::with_capacity(order.len());
        for (name, rid, eta) in order {
            let u = self.read_uri(rid)?;
            out.push(QueuedUrl {
                depth: u.depth(),
                url: u.url,
                host: name.to_string(),
                priority: u.priority,
                discovered: u.discovered,
                scores: u.scores,
                hops: u.hops,
                source: u.source,
                via: u.via,
                retries: u.retries,
                parts: u.parts,
                eta_ms: eta.saturating_duration_since(now).as_millis() as u64,
            });
        }
        Ok(out)
    }

    /// Calls `f` with the host and entry of every queued URL that is not in flight.
    pub fn for_each_queued(&self, mut f: impl FnMut(&str, CrawlUri)) -> Result<(), FrontierError> {
        for h in &self.hosts {
            for (_, rid) in h.live(&self.table) {
                f(&h.name, self.read_uri(rid)?);
            }
        }
        Ok(())
    }

    /// Calls `f` with every queued URL of one host that is not in flight, in no particular order
    /// (a rule learned on the host, such as a copy rule or a template the helper learned to
    /// answer no page, is applied to what it queued before).
    pub fn for_each_queued_on(
        &self,
        host: &str,
        mut f: impl FnMut(CrawlUri),
    ) -> Result<(), FrontierError> {
        let Some(&hid) = self.ids.get(host) else {
            return Ok(());
        };
        let h = &self.hosts[hid as usize];
        for (_, rid) in h.live(&self.table) {
            f(self.read_uri(rid)?);
        }
        Ok(())
    }

    /// Every host's queue state, busiest first.
    pub fn hosts(&self) -> Vec<HostView> {
        let mut v: Vec<HostView> = self.hosts.iter().map(|h| h.view()).collect();
        v.sort_by(|a, b| b.queued.cmp(&a.queued).then(a.host.cmp(&b.host)));
        v
    }
}
