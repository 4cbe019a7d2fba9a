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
    /// The host key.
    pub host: String,
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
    waiting: BinaryHeap<Reverse<(Instant, u64, String)>>,
    ready: BTreeSet<Rank>,
    tick: u64,
    /// The time of the last promotion: every ready host was ready by then.
    promoted_at: Option<Instant>,
}

impl Schedule {
    /// Puts a host on the waiting heap, to become ready at `t`.
    pub fn wait(&mut self, host: &str, t: Instant) {
        self.tick += 1;
        self.waiting.push(Reverse((t, self.tick, host.to_string())));
    }

    /// Takes the next host whose time has come (at `now`), with that time.
    pub fn due(&mut self, now: Instant) -> Option<(Instant, String)> {
        match self.waiting.peek() {
            Some(Reverse((t, _, _))) if *t <= now => {
                self.promoted_at = Some(now);
                self.waiting.pop().map(|Reverse((t, _, h))| (t, h))
            }
            _ => None,
        }
    }

    /// Ranks a host that has become ready; returns its rank for the host to keep.
    pub fn ready(&mut self, host: &str, turn: bool, inv: u32, since: Instant) -> Rank {
        self.tick += 1;
        let rank = Rank {
            turn: u8::from(!turn),
            inv,
            since,
            tick: self.tick,
            host: host.to_string(),
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

    /// The hosts still waiting, with the time each may fetch again.
    pub fn waiting(&self) -> impl Iterator<Item = (Instant, &str)> {
        self.waiting
            .iter()
            .map(|Reverse((t, _, h))| (*t, h.as_str()))
    }

    /// When something may next be handed out: at once if a host is ready, else the earliest
    /// waiting time.
    pub fn next_wake(&self) -> Option<Instant> {
        if !self.ready.is_empty() {
            return self.promoted_at;
        }
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
        s.ready("late-best", false, 10, t1);
        s.ready("early-worse", false, 20, t0);
        s.ready("early-best", false, 10, t0);
        s.ready("in-turn", true, 900, t1);
        let order: Vec<String> = std::iter::from_fn(|| s.best().map(|r| r.host)).collect();
        assert_eq!(order, ["in-turn", "early-best", "late-best", "early-worse"]);
    }

    #[test]
    fn waiting_hosts_come_due_in_time_order() {
        let mut s = Schedule::default();
        let t0 = Instant::now();
        s.wait("b", t0 + Duration::from_millis(20));
        s.wait("a", t0 + Duration::from_millis(10));
        assert_eq!(s.next_wake(), Some(t0 + Duration::from_millis(10)));
        assert!(s.due(t0).is_none());
        let due = s.due(t0 + Duration::from_millis(15)).map(|(_, h)| h);
        assert_eq!(due.as_deref(), Some("a"));
        assert!(s.due(t0 + Duration::from_millis(15)).is_none());
        let r = s.ready("a", false, 5, t0);
        assert_eq!(s.next_wake(), Some(t0 + Duration::from_millis(15)));
        let r2 = s.rerank(&r, false, 1);
        assert_eq!(s.ranked().next(), Some(&r2));
        s.remove(&r2);
        assert_eq!(s.next_wake(), Some(t0 + Duration::from_millis(20)));
    }
}
