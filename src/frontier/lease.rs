//! Handing URLs out and taking them back: the choice of the next URL, leases, completions,
//! retries, and the politeness pause each fetch sets.

use super::host::RobotsStatus;
use super::ops::Op;
use super::politeness::{self, pause_after, FetchTiming, WaitReason};
use super::schedule::Place;
use super::table::Slot;
use super::{keys, records, Completion, Frontier, Lease, UrlLease};
use std::time::{Duration, Instant};

impl Frontier {
    /// Hands out the next URL (or robots.txt): of the hosts that may be fetched from at `now`,
    /// the one whose best queued URL has the highest priority (see [`schedule`]).
    pub fn next(&mut self, now: Instant) -> Option<Lease> {
        while let Some((since, hid)) = self.schedule.due(now) {
            let max = self.cfg.politeness.max_parallel_per_host;
            let Some(h) = self.hosts.get_mut(hid as usize) else {
                continue;
            };
            if h.place != Place::Waiting {
                continue;
            }
            h.count(true, &self.table, &mut self.best);
            h.settle(&self.table);
            h.place = if h.available() > 0 && h.inflight < max {
                Place::Ready(self.schedule.ready(hid, h.turn_left > 0, h.best(), since))
            } else {
                Place::Idle
            };
        }
        loop {
            let gated = self.schedule.ranked().next().map(|r| self.gated(r))?;
            if gated && !self.pacer.may_release() {
                return None;
            }
            let rank = self.schedule.best()?;
            if let Some(h) = self.hosts.get_mut(rank.host as usize) {
                h.place = Place::Idle;
            }
            if let Some(lease) = self.try_lease(rank.host, now) {
                if let Lease::Url(_) = lease {
                    self.pacer.spend(gated);
                }
                return Some(lease);
            }
        }
    }

    fn try_lease(&mut self, hid: u32, now: Instant) -> Option<Lease> {
        let cfg = &self.cfg;
        let h = self.hosts.get_mut(hid as usize)?;
        if h.record.fetched >= cfg.max_pages_per_host {
            h.wait = WaitReason::BudgetExhausted;
            h.exhaust(&self.table, &mut self.best);
            return None;
        }
        if h.available() == 0 || h.inflight >= cfg.politeness.max_parallel_per_host {
            return None;
        }
        let slot = self.slots.get_mut(&h.slot_id());
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
            self.push(hid, t);
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
                host: h.name.clone(),
                origin: h.origin.clone(),
            });
        }
        let (rid, uri) = loop {
            let h = &mut self.hosts[hid as usize];
            let (_, rid) = h.pop_best(&self.table, &mut self.best)?;
            match self.read_uri(rid) {
                Ok(uri) => break (rid, uri),
                Err(e) => {
                    // A record that cannot be read fails its URL, loudly: the rest of the
                    // queue must not be held up by one damaged record.
                    tracing::error!(host = hid, rid, "frontier: URL dropped: {e}");
                    self.finish(rid, hid, Slot::Failed, false);
                }
            }
        };
        self.table.set_slot(rid, Slot::Leased);
        let h = &mut self.hosts[hid as usize];
        h.inflight += 1;
        self.slots.get_mut(&h.slot_id()).inflight += 1;
        self.inflight += 1;
        h.wait = WaitReason::Busy;
        h.turn_left = h
            .turn_left
            .checked_sub(1)
            .unwrap_or(self.cfg.balance_per_queue.saturating_sub(1));
        let lease = UrlLease {
            host: h.name.clone(),
            rid,
            fp: self.table.fp(rid),
            uri,
        };
        self.push(hid, now);
        Some(Lease::Url(lease))
    }

    /// A queued URL leaves the queue for good in `slot`: logged as a completion (counted for
    /// the host by the replay) or as a mark.
    pub(super) fn finish(&mut self, rid: u32, hid: u32, slot: Slot, completed: bool) {
        self.table.set_slot(rid, slot);
        self.queued = self.queued.saturating_sub(1);
        if let Some(h) = self.hosts.get_mut(hid as usize) {
            h.queued = h.queued.saturating_sub(1);
        }
        let slot = slot as u8;
        self.log(if completed {
            Op::Complete { rid, slot }
        } else {
            Op::Mark { rid, slot }
        });
    }

    /// Gives a leased URL back. `timing` is `None` when nothing was fetched (robots-blocked).
    pub fn complete(
        &mut self,
        lease: &UrlLease,
        how: Completion,
        timing: Option<FetchTiming>,
        now: Instant,
    ) {
        let rid = lease.rid;
        let ours = (rid as usize) < self.table.len()
            && self.table.fp(rid) == lease.fp
            && self.table.slot(rid) == Slot::Leased;
        let hid = match ours {
            true => self.table.host(rid),
            false => match self.ids.get(&lease.host) {
                Some(&hid) => hid,
                None => return,
            },
        };
        let h = &mut self.hosts[hid as usize];
        h.inflight = h.inflight.saturating_sub(1);
        if ours {
            match how {
                Completion::Retry => self.retry(lease, hid),
                Completion::Untried => self.requeue(rid, hid),
                Completion::Done => self.finish(rid, hid, Slot::Done, true),
                Completion::Failed => self.finish(rid, hid, Slot::Failed, true),
                Completion::RobotsBlocked => self.finish(rid, hid, Slot::RobotsBlocked, true),
            }
        }
        let h = &mut self.hosts[hid as usize];
        match how {
            Completion::Done => h.record.fetched += 1,
            Completion::RobotsBlocked | Completion::Untried => {}
            Completion::Failed | Completion::Retry => h.record.errors += 1,
        }
        self.release(hid, timing, now);
    }

    /// Puts a leased URL back in its queue with one more attempt counted.
    fn retry(&mut self, lease: &UrlLease, hid: u32) {
        let rid = lease.rid;
        let mut uri = lease.uri.clone();
        uri.retries = uri.retries.saturating_add(1);
        match self
            .journal
            .append_with(|v| records::base(v, rid, lease.fp, &uri))
        {
            Ok(offset) => {
                self.table.set_offset(rid, offset);
                self.table.set_patched(rid, false);
                self.table.set_has_via(rid, uri.via.is_some());
                self.log(Op::Retry { rid, offset });
            }
            Err(e) => {
                self.poison(e);
            }
        }
        self.requeue(rid, hid);
    }

    /// Puts a leased URL back in its host's queue, its record as it was. Nothing is logged: a
    /// lease is never stored, so after a crash the URL is queued anyway.
    fn requeue(&mut self, rid: u32, hid: u32) {
        self.table.set_slot(rid, Slot::Available);
        let inv = keys::inverted(self.table.prio(rid));
        self.hosts[hid as usize].enqueue(inv, rid, &mut self.best);
    }

    pub(super) fn release(&mut self, hid: u32, timing: Option<FetchTiming>, now: Instant) {
        let Some(h) = self.hosts.get_mut(hid as usize) else {
            return;
        };
        let slot = self.slots.get_mut(&h.slot_id());
        slot.inflight = slot.inflight.saturating_sub(1);
        self.inflight = self.inflight.saturating_sub(1);
        let mut at = now;
        if let Some(t) = timing {
            let (pause, why) = pause_after(&self.cfg.politeness, h.crawl_delay, &t);
            self.pacer.fetched(t.duration, pause);
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
                h.count(false, &self.table, &mut self.best);
            }
        } else if h.inflight == 0 {
            h.wait = WaitReason::Ready;
        }
        self.push(hid, at);
    }
}
