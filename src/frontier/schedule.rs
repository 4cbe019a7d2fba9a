//! Which host goes next: best-first among the hosts that may be fetched from now.
//!
//! ARCOMEM §5.1: "each time the crawler selects the URL with the highest priority", taking up to
//! `bl` URLs from the chosen queue. Hosts whose politeness pause is not over wait on a heap keyed
//! by the time they may fetch again; once that time has come they join the *ready* set, ranked by
//! their best queued URL. A host in the middle of its `balance_per_queue` turn ranks before all
//! others, and ties go to the host that has been ready longest. Both structures are ordered, so
//! choosing a host costs O(log hosts) whatever the number of hosts.

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};
use std::time::Instant;

/// A ready host's place in the ranking (smallest first).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Rank {
    /// 0 while the host is in its `balance_per_queue` turn, 1 otherwise.
    pub turn: u8,
    /// The inverted priority of the host's best queued URL (smaller is better).
    pub inv: u32,
    /// When the host became ready: of equal priorities the longest wait goes first.
    pub since: Instant,
    /// Arrival order, for hosts ready at the same instant.
    pub tick: u64,
    /// The host id.
    pub host: u32,
}

/// Where a host is in the schedule. Invariant: `Waiting` hosts have exactly one entry on the
/// waiting heap, `Ready` hosts exactly one in the ready set (this very rank), `Idle` hosts none.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Place {
    /// Nothing to hand out now (no URL, all its fetch slots busy, robots.txt in flight).
    #[default]
    Idle,
    /// On the waiting heap.
    Waiting,
    /// In the ready set.
    Ready(Rank),
}

/// The waiting heap and the ready set.
#[derive(Debug, Default)]
pub struct Schedule {
    waiting: BinaryHeap<Reverse<(Instant, u64, u32)>>,
    ready: BTreeSet<Rank>,
    tick: u64,
    /// The time of the last promotion: every ready host was ready by then.
    promoted_at: Option<Instant>,
}

impl Schedule {
    /// Puts a host on the waiting heap, to become ready at `t`.
    pub fn wait(&mut self, host: u32, t: Instant) {
        self.tick += 1;
        self.waiting.push(Reverse((t, self.tick, host)));
    }

    /// Takes the next host whose time has come (at `now`), with that time.
    pub fn due(&mut self, now: Instant) -> Option<(Instant, u32)> {
        match self.waiting.peek() {
            Some(Reverse((t, _, _))) if *t <= now => {
                self.promoted_at = Some(now);
                self.waiting.pop().map(|Reverse((t, _, h))| (t, h))
            }
            _ => None,
        }
    }

    /// Ranks a host that has become ready; returns its rank for the host to keep.
    pub fn ready(&mut self, host: u32, turn: bool, inv: u32, since: Instant) -> Rank {
        self.tick += 1;
        let rank = Rank {
            turn: u8::from(!turn),
            inv,
            since,
            tick: self.tick,
            host,
        };
        self.ready.insert(rank.clone());
        rank
    }

    /// Moves a ready host to a new best priority or turn state, keeping its waiting time.
    pub fn rerank(&mut self, old: &Rank, turn: bool, inv: u32) -> Rank {
        self.ready.remove(old);
        let rank = Rank {
            turn: u8::from(!turn),
            inv,
            ..old.clone()
        };
        self.ready.insert(rank.clone());
        rank
    }

    /// Removes a ready host.
    pub fn remove(&mut self, rank: &Rank) {
        self.ready.remove(rank);
    }

    /// Takes the best ready host.
    pub fn best(&mut self) -> Option<Rank> {
        self.ready.pop_first()
    }

    /// The ready hosts, best first.
    pub fn ranked(&self) -> impl Iterator<Item = &Rank> {
        self.ready.iter()
    }

    /// Hosts in the ready set.
    pub fn ready_len(&self) -> u64 {
        self.ready.len() as u64
    }

    /// Hosts on the waiting heap.
    pub fn waiting_len(&self) -> u64 {
        self.waiting.len() as u64
    }

    /// The time of the last promotion: every ready host was ready by then.
    pub fn promoted_at(&self) -> Option<Instant> {
        self.promoted_at
    }

    /// The earliest time a waiting host may fetch again.
    pub fn first_waiting(&self) -> Option<Instant> {
        self.waiting.peek().map(|Reverse((t, _, _))| *t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn ready_hosts_rank_by_turn_then_priority_then_wait() {
        let mut s = Schedule::default();
        let t0 = Instant::now();
        let t1 = t0 + Duration::from_millis(5);
        s.ready(3, false, 10, t1);
        s.ready(4, false, 20, t0);
        s.ready(2, false, 10, t0);
        s.ready(1, true, 900, t1);
        let order: Vec<u32> = std::iter::from_fn(|| s.best().map(|r| r.host)).collect();
        assert_eq!(
            order,
            [1, 2, 3, 4],
            "in turn, early best, late best, early worse"
        );
    }

    #[test]
    fn waiting_hosts_come_due_in_time_order() {
        let mut s = Schedule::default();
        let t0 = Instant::now();
        s.wait(2, t0 + Duration::from_millis(20));
        s.wait(1, t0 + Duration::from_millis(10));
        assert_eq!(s.first_waiting(), Some(t0 + Duration::from_millis(10)));
        assert!(s.due(t0).is_none());
        let due = s.due(t0 + Duration::from_millis(15)).map(|(_, h)| h);
        assert_eq!(due, Some(1));
        assert!(s.due(t0 + Duration::from_millis(15)).is_none());
        let r = s.ready(1, false, 5, t0);
        assert_eq!(s.promoted_at(), Some(t0 + Duration::from_millis(15)));
        let r2 = s.rerank(&r, false, 1);
        assert_eq!(s.ranked().next(), Some(&r2));
        s.remove(&r2);
        assert_eq!(s.first_waiting(), Some(t0 + Duration::from_millis(20)));
    }
}
