//! The priority update path: scores from the crawl's own analysis and from external scorers
//! (the JSON intake) change queued URLs' priorities in place, insert new URLs, or blacklist them.
//!
//! ARCOMEM §4.4 and §5.1: a queued URL's priority becomes `update(old, new)` with the crawl's
//! update function. The first real score always replaces the depth-based default priority.

use super::keys::{self, UrlState};
use super::ops::Op;
use super::records::{self, Record};
use super::schedule::Place;
use super::table::{self, Slot};
use super::{Frontier, FrontierError, NO_HOST};
use crate::model::CrawlUri;
use serde::{Deserialize, Serialize};

/// How a new score combines with the scores a queued URL already has.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum UpdateFn {
    /// Keep the first score (the baseline best-first crawler).
    First,
    /// Take the most recent score.
    Last,
    /// Take the highest score.
    Max,
    /// The running mean of all scores received.
    #[default]
    Avg,
    /// The sum of all scores, mapped into [0, 1) by `1 - e^(-sum)`.
    Sum,
}

impl UpdateFn {
    /// The new priority of `uri` after receiving `score`; updates its running totals.
    pub fn apply(self, uri: &mut CrawlUri, score: f32) -> f32 {
        let (p, n, sum) = self.combine(uri.priority, uri.scores, uri.score_sum, score);
        (uri.priority, uri.scores, uri.score_sum) = (p, n, sum);
        p
    }

    /// The new (priority, score count, score sum) of a URL at `priority` with `scores` scores
    /// summing to `sum`, after receiving `score`.
    pub fn combine(self, priority: f32, scores: u32, sum: f32, score: f32) -> (f32, u32, f32) {
        let score = if score.is_finite() {
            score.clamp(0.0, 1.0)
        } else {
            0.0
        };
        let first = scores == 0;
        let n = scores.saturating_add(1);
        let sum = sum + score;
        let p = if first {
            match self {
                UpdateFn::Sum => sum_priority(score),
                _ => score,
            }
        } else {
            match self {
                UpdateFn::First => priority,
                UpdateFn::Last => score,
                UpdateFn::Max => priority.max(score),
                UpdateFn::Avg => sum / n as f32,
                UpdateFn::Sum => sum_priority(sum),
            }
        };
        (p.clamp(0.0, 1.0), n, sum)
    }
}

fn sum_priority(sum: f32) -> f32 {
    1.0 - (-sum).exp()
}

/// What a score did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scored {
    /// The URL was new and is now queued with this priority.
    Inserted(f32),
    /// The queued URL moved from one priority to another.
    Updated {
        /// Before.
        old: f32,
        /// After.
        new: f32,
    },
    /// The URL is being fetched right now; the score is ignored.
    InFlight,
    /// The URL is past queuing (fetched, failed, blacklisted); the score is ignored.
    Ignored(UrlState),
}

impl Frontier {
    /// Applies a score to a URL: inserts it if unknown, moves it if queued, ignores it otherwise.
    /// `uri` carries the URL, hops, via and source to record; its priority fields are set here.
    pub fn score(
        &mut self,
        fp: u64,
        host: &str,
        origin: &str,
        mut uri: CrawlUri,
        score: f32,
        f: UpdateFn,
    ) -> Result<Scored, FrontierError> {
        let Some(rid) = self.table.find(fp) else {
            uri.scores = 0;
            uri.score_sum = 0.0;
            let p = f.apply(&mut uri, score);
            self.insert(fp, host, origin, uri);
            return Ok(Scored::Inserted(p));
        };
        match self.table.slot(rid) {
            Slot::Available => self.rescore(rid, uri, score, f),
            Slot::Leased => Ok(Scored::InFlight),
            st => Ok(Scored::Ignored(st.state())),
        }
    }

    fn rescore(
        &mut self,
        rid: u32,
        from: CrawlUri,
        score: f32,
        f: UpdateFn,
    ) -> Result<Scored, FrontierError> {
        let old = self.table.prio(rid);
        let (scores, sum) = self.table.scores(rid);
        let (new, scores, sum) = f.combine(old, scores, sum, score);
        // The fields the scorer brings go into the URL's patch record (the latest breakdown,
        // the best inheritance, a via if it had none).
        let base = self.table.offset(rid);
        let previous = if self.table.patched(rid) {
            match records::decode(&self.journal.read(base)?) {
                Some(Record::Patch(p)) if p.rid == rid => Some(p),
                _ => None,
            }
        } else {
            None
        };
        let offset = match previous {
            Some(mut p) => {
                p.absorb(&from);
                self.journal.append_with(|v| records::patch(v, &p))?
            }
            None => {
                // The URL's own `via` wins over the scorer's: no need to write that one.
                let via = (!self.table.has_via(rid))
                    .then_some(from.via.as_deref())
                    .flatten();
                self.journal
                    .append_with(|v| records::first_patch(v, rid, base, &from, via))?
            }
        };
        self.table.set_offset(rid, offset);
        self.table.set_patched(rid, true);
        Ok(self.reposition(rid, old, new, scores, sum))
    }

    /// Moves a queued URL to the lowest priority, keeping its record and score totals (a
    /// likely copy of a page fetched already). Returns whether it moved: `false` for a URL
    /// unknown, not waiting, or already last.
    pub fn demote(&mut self, fp: u64) -> bool {
        let Some(rid) = self.table.find(fp) else {
            return false;
        };
        let old = self.table.prio(rid);
        if self.table.slot(rid) != Slot::Available || old <= 0.0 {
            return false;
        }
        let (scores, sum) = self.table.scores(rid);
        self.reposition(rid, old, 0.0, scores, sum);
        true
    }

    /// Gives a queued URL its new priority and score totals, logs it, and moves it in its
    /// host's queue (and the host in the schedule when its best URL changed).
    fn reposition(&mut self, rid: u32, old: f32, new: f32, scores: u32, sum: f32) -> Scored {
        let offset = self.table.offset(rid);
        self.table.set_scores(rid, new, scores, sum);
        self.log(Op::Score {
            rid,
            prio: new,
            scores,
            sum,
            offset,
        });
        let hid = self.table.host(rid);
        let (old_inv, new_inv) = (keys::inverted(old), keys::inverted(new));
        let Some(h) = self.hosts.get_mut(hid as usize) else {
            return Scored::Updated { old, new };
        };
        h.moved(old_inv, new_inv, rid, &self.table, &mut self.best);
        // Re-ranks the host at once when its best URL changed (a better URL makes it the next
        // choice); a waiting host is ranked when it comes due.
        let unchanged = match &h.place {
            Place::Waiting => true,
            Place::Ready(rank) => old_inv != rank.inv && new_inv >= rank.inv,
            Place::Idle => false,
        };
        if !unchanged {
            self.push(hid, std::time::Instant::now());
        }
        Scored::Updated { old, new }
    }

    /// Keeps a URL from ever being fetched in this crawl: removes it from its queue if queued.
    /// Returns the state it had, or `None` if it was unknown. A URL in flight is not stopped.
    pub fn blacklist(&mut self, fp: u64, host: &str) -> Result<Option<UrlState>, FrontierError> {
        let Some(rid) = self.table.find(fp) else {
            let hid = self.ids.get(host).copied().unwrap_or(NO_HOST);
            self.mark_unqueued(fp, hid, Slot::Blacklisted);
            return Ok(None);
        };
        let slot = self.table.slot(rid);
        if slot == Slot::Available {
            let hid = self.table.host(rid);
            let inv = keys::inverted(self.table.prio(rid));
            if let Some(h) = self.hosts.get_mut(hid as usize) {
                h.removed(inv, &mut self.best);
            }
            self.finish(rid, hid, Slot::Blacklisted, false);
            self.push(hid, std::time::Instant::now());
        }
        Ok(Some(slot.state()))
    }

    /// Records a URL seen only to be kept out (blacklisted, or finished in an older crawl
    /// state): no record, no queue entry.
    pub(super) fn mark_unqueued(&mut self, fp: u64, hid: u32, slot: Slot) {
        let rid = self.table.len() as u32;
        let row = table::Row {
            fp,
            host: hid,
            prio: 0.0,
            slot,
            scores: 0,
            sum: 0.0,
            offset: table::NO_RECORD,
        };
        if self.table.push(row).is_some() {
            self.log(Op::Add {
                rid,
                host: hid,
                fp,
                prio: 0.0,
                slot: slot as u8,
                scores: 0,
                sum: 0.0,
                offset: table::NO_RECORD,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply_all(f: UpdateFn, scores: &[f32]) -> f32 {
        let mut u = CrawlUri::seed("http://a/");
        u.priority = 0.5;
        let mut p = 0.0;
        for &s in scores {
            p = f.apply(&mut u, s);
        }
        p
    }

    #[test]
    fn update_functions_combine_scores_as_arcomem_defines() {
        let s = [0.2, 0.8, 0.5];
        assert_eq!(apply_all(UpdateFn::First, &s), 0.2);
        assert_eq!(apply_all(UpdateFn::Last, &s), 0.5);
        assert_eq!(apply_all(UpdateFn::Max, &s), 0.8);
        assert!((apply_all(UpdateFn::Avg, &s) - 0.5).abs() < 1e-6);
        let sum = apply_all(UpdateFn::Sum, &s);
        assert!((sum - (1.0 - (-1.5f32).exp())).abs() < 1e-6);
        assert!(
            apply_all(UpdateFn::Sum, &[1.0; 100]) <= 1.0,
            "SUM stays bounded"
        );
        assert_eq!(apply_all(UpdateFn::Last, &[f32::NAN]), 0.0);
    }
}
