//! The in-memory frontier of simulated crawls: per-host priority queues, priority update
//! functions for URLs found again while queued, and balance per queue (`bl`).
//!
//! Selection works like Heritrix with ARCOMEM's `bl`: take the host queue whose best URL has the
//! highest priority (ties: the URL queued first), then take up to `bl` URLs from that queue,
//! each time its current best, before choosing a queue again. Breadth-first is the same
//! frontier with every priority equal, so the order is first-in first-out.

use std::cmp::Reverse;
use std::collections::BTreeSet;

/// How the priority of a URL that is found again while queued is updated (ARCOMEM 5.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Update {
    /// Keep the first score (a crawler without updates).
    First,
    /// The latest score.
    Last,
    /// The highest score so far.
    Max,
    /// The mean of all scores so far.
    Avg,
    /// The sum of all scores, mapped into [0, 1) as `1 - exp(-sum)` so that it stays a
    /// priority: monotone in the sum, equal to the score for one small score, and saturating
    /// for URLs found very often.
    Sum,
}

impl Update {
    /// All functions, in the order of ARCOMEM Table 1.
    pub const ALL: [Update; 5] = [
        Update::First,
        Update::Last,
        Update::Max,
        Update::Avg,
        Update::Sum,
    ];

    /// The name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            Update::First => "FIRST",
            Update::Last => "LAST",
            Update::Max => "MAX",
            Update::Avg => "AVG",
            Update::Sum => "SUM",
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    host: u32,
    priority: f32,
    first: f32,
    last: f32,
    max: f32,
    sum: f32,
    seen: u32,
    seq: u64,
    inherited: f32,
}

impl Entry {
    fn value(&self, update: Option<Update>) -> f32 {
        match update {
            None => 0.0,
            Some(Update::First) => self.first,
            Some(Update::Last) => self.last,
            Some(Update::Max) => self.max,
            Some(Update::Avg) => self.sum / self.seen as f32,
            Some(Update::Sum) => 1.0 - (-self.sum).exp(),
        }
    }
}

/// Queue key: best priority first, then first queued. Priorities are non-negative, so their
/// bit patterns order like the numbers.
type Key = (Reverse<u32>, u64, u32);

/// A priority frontier over page ids.
pub(crate) struct SimFrontier {
    update: Option<Update>,
    bl: u32,
    queues: Vec<BTreeSet<Key>>,
    entries: Vec<Option<Entry>>,
    done: Vec<bool>,
    seq: u64,
    current: Option<(u32, u32)>,
}

impl SimFrontier {
    /// A frontier for `pages` pages on `hosts` hosts; `update` `None` is breadth-first.
    pub(crate) fn new(pages: usize, hosts: usize, update: Option<Update>, bl: u32) -> SimFrontier {
        SimFrontier {
            update,
            bl: bl.max(1),
            queues: vec![BTreeSet::new(); hosts],
            entries: vec![None; pages],
            done: vec![false; pages],
            seq: 0,
            current: None,
        }
    }

    /// Offers page `id` on host `host` with link score `score`; `inherited` is what its
    /// parent passes on (the highest offer is kept). Crawled pages are ignored.
    pub(crate) fn offer(&mut self, id: u32, host: u32, score: f32, inherited: f32) {
        let i = id as usize;
        if self.done[i] {
            return;
        }
        let score = if score.is_finite() {
            score.max(0.0)
        } else {
            0.0
        };
        match &mut self.entries[i] {
            Some(e) => {
                let old = e.priority;
                e.last = score;
                e.max = e.max.max(score);
                e.sum += score;
                e.seen += 1;
                e.inherited = e.inherited.max(inherited);
                e.priority = e.value(self.update);
                if e.priority.to_bits() != old.to_bits() {
                    let q = &mut self.queues[e.host as usize];
                    q.remove(&(Reverse(old.to_bits()), e.seq, id));
                    q.insert((Reverse(e.priority.to_bits()), e.seq, id));
                }
            }
            None => {
                let mut e = Entry {
                    host,
                    priority: 0.0,
                    first: score,
                    last: score,
                    max: score,
                    sum: score,
                    seen: 1,
                    seq: self.seq,
                    inherited,
                };
                self.seq += 1;
                e.priority = e.value(self.update);
                self.queues[host as usize].insert((Reverse(e.priority.to_bits()), e.seq, id));
                self.entries[i] = Some(e);
            }
        }
    }

    /// The next page to crawl with the inherited score it was offered with.
    pub(crate) fn pop(&mut self) -> Option<(u32, f32)> {
        let host = match self.current {
            Some((h, left)) if left > 0 && !self.queues[h as usize].is_empty() => {
                self.current = Some((h, left - 1));
                h
            }
            _ => {
                let (h, _) = self
                    .queues
                    .iter()
                    .enumerate()
                    .filter_map(|(h, q)| q.first().map(|k| (h as u32, (k.0, k.1))))
                    .min_by_key(|&(_, k)| k)?;
                self.current = Some((h, self.bl - 1));
                h
            }
        };
        let (_, _, id) = self.queues[host as usize].pop_first()?;
        self.done[id as usize] = true;
        let e = self.entries[id as usize].take()?;
        Some((id, e.inherited))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(f: &mut SimFrontier) -> Vec<u32> {
        std::iter::from_fn(|| f.pop().map(|(id, _)| id)).collect()
    }

    #[test]
    fn breadth_first_is_fifo_across_hosts() {
        let mut f = SimFrontier::new(4, 2, None, 1);
        f.offer(2, 1, 0.9, 0.0);
        f.offer(0, 0, 0.1, 0.0);
        f.offer(3, 1, 0.5, 0.0);
        f.offer(1, 0, 0.7, 0.0);
        assert_eq!(drain(&mut f), [2, 0, 3, 1]);
    }

    #[test]
    fn best_first_takes_the_best_queue_head() {
        let mut f = SimFrontier::new(4, 2, Some(Update::First), 1);
        f.offer(0, 0, 0.1, 0.0);
        f.offer(1, 0, 0.7, 0.0);
        f.offer(2, 1, 0.9, 0.0);
        f.offer(3, 1, 0.5, 0.0);
        assert_eq!(drain(&mut f), [2, 1, 3, 0]);
    }

    #[test]
    fn balance_per_queue_stays_on_a_host() {
        let mut f = SimFrontier::new(4, 2, Some(Update::Max), 2);
        f.offer(0, 0, 0.8, 0.0);
        f.offer(1, 0, 0.1, 0.0);
        f.offer(2, 1, 0.7, 0.0);
        f.offer(3, 1, 0.6, 0.0);
        // Two from host 0 (even its weak URL), then two from host 1.
        assert_eq!(drain(&mut f), [0, 1, 2, 3]);
    }

    #[test]
    fn update_functions() {
        let order = |u: Update| {
            let mut f = SimFrontier::new(2, 1, Some(u), 1);
            f.offer(0, 0, 0.5, 0.0);
            f.offer(1, 0, 0.4, 0.0);
            f.offer(1, 0, 0.3, 0.0); // found again
            f.offer(1, 0, 0.55, 0.0); // and again
            drain(&mut f)
        };
        assert_eq!(order(Update::First), [0, 1]); // 0.4
        assert_eq!(order(Update::Last), [1, 0]); // 0.55
        assert_eq!(order(Update::Max), [1, 0]); // 0.55
        assert_eq!(order(Update::Avg), [0, 1]); // 0.4166
        assert_eq!(order(Update::Sum), [1, 0]); // 1 - e^-1.25 = 0.71
    }

    #[test]
    fn crawled_pages_are_not_queued_again_and_inherited_is_kept() {
        let mut f = SimFrontier::new(2, 1, Some(Update::Max), 1);
        f.offer(0, 0, 0.5, 0.2);
        f.offer(0, 0, 0.1, 0.4);
        assert_eq!(f.pop(), Some((0, 0.4)));
        f.offer(0, 0, 0.9, 0.0);
        assert_eq!(f.pop(), None);
    }
}
