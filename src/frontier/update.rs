//! The priority update path: scores from the crawl's own analysis and from external scorers
//! (the JSON intake) change queued URLs' priorities in place, insert new URLs, or blacklist them.
//!
//! ARCOMEM §4.4 and §5.1: a queued URL's priority becomes `update(old, new)` with the crawl's
//! update function. The first real score always replaces the depth-based default priority.

use super::keys::{self, UrlState};
use super::{decode_entry, encode_entry, Frontier, FrontierError};
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
        let score = if score.is_finite() {
            score.clamp(0.0, 1.0)
        } else {
            0.0
        };
        let first = uri.scores == 0;
        uri.scores = uri.scores.saturating_add(1);
        uri.score_sum += score;
        let p = if first {
            match self {
                UpdateFn::Sum => sum_priority(score),
                _ => score,
            }
        } else {
            match self {
                UpdateFn::First => uri.priority,
                UpdateFn::Last => score,
                UpdateFn::Max => uri.priority.max(score),
                UpdateFn::Avg => uri.score_sum / uri.scores as f32,
                UpdateFn::Sum => sum_priority(uri.score_sum),
            }
        };
        uri.priority = p.clamp(0.0, 1.0);
        uri.priority
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
        match self.state(fp) {
            None => {
                uri.scores = 0;
                uri.score_sum = 0.0;
                let p = f.apply(&mut uri, score);
                self.offer(fp, host, origin, uri);
                Ok(Scored::Inserted(p))
            }
            Some(UrlState::Queued) => self.rescore(fp, host, uri, score, f),
            Some(st) => Ok(Scored::Ignored(st)),
        }
    }

    fn rescore(
        &mut self,
        fp: u64,
        host: &str,
        from: CrawlUri,
        score: f32,
        f: UpdateFn,
    ) -> Result<Scored, FrontierError> {
        let Some((key, mut uri)) = self.queued_entry(fp)? else {
            return Ok(Scored::Ignored(UrlState::Queued));
        };
        let h = self.hosts.get_mut(host);
        if h.as_ref().is_some_and(|h| h.leased.contains(&key)) {
            return Ok(Scored::InFlight);
        }
        let old = uri.priority;
        let new = f.apply(&mut uri, score);
        uri.discovered = uri.discovered.saturating_add(1);
        uri.source = from.source;
        if uri.via.is_none() {
            uri.via = from.via;
        }
        // The breakdown shown for a URL is that of its latest score; inheritance keeps the best
        // parent (SharkSearch).
        if from.parts.is_some() {
            uri.parts = from.parts;
        }
        uri.inherited = uri.inherited.max(from.inherited);
        let Some((old_inv, seq)) = keys::queue_position(&key) else {
            return Ok(Scored::Ignored(UrlState::Queued));
        };
        let inv = keys::inverted(new);
        let new_key = keys::queue_key_at(host, inv, seq);
        if let Some(h) = h {
            h.dequeue((old_inv, seq), &mut self.best);
            h.enqueue((inv, seq), &mut self.best);
        }
        self.ws.delete(key);
        self.ws.put(
            keys::seen_key(fp),
            keys::seen_value(UrlState::Queued, Some(&new_key)),
        );
        self.ws.put(new_key, encode_entry(fp, &uri));
        // Re-ranks the host at once: a better URL makes it the next choice.
        self.push(host, std::time::Instant::now());
        Ok(Scored::Updated { old, new })
    }

    /// The queue key and entry of a queued URL (staged or committed).
    pub(super) fn queued_entry(
        &self,
        fp: u64,
    ) -> Result<Option<(Vec<u8>, CrawlUri)>, FrontierError> {
        let Some(seen) = self.read(&keys::seen_key(fp))? else {
            return Ok(None);
        };
        if seen.first() != Some(&(UrlState::Queued as u8)) || seen.len() < 2 {
            return Ok(None);
        }
        let key = seen[1..].to_vec();
        let Some(entry) = self.read(&key)? else {
            return Ok(None);
        };
        Ok(decode_entry(&entry).map(|(_, u)| (key, u)))
    }

    /// Keeps a URL from ever being fetched in this crawl: removes it from its queue if queued.
    /// Returns the state it had, or `None` if it was unknown. A URL in flight is not stopped.
    pub fn blacklist(&mut self, fp: u64, host: &str) -> Result<Option<UrlState>, FrontierError> {
        let before = self.state(fp);
        match before {
            Some(UrlState::Queued) => {
                let Some((key, _)) = self.queued_entry(fp)? else {
                    return Ok(before);
                };
                let h = self.hosts.get_mut(host);
                if h.as_ref().is_some_and(|h| h.leased.contains(&key)) {
                    return Ok(before);
                }
                if let Some(h) = h {
                    if let Some(pos) = keys::queue_position(&key) {
                        h.dequeue(pos, &mut self.best);
                    }
                    h.queued = h.queued.saturating_sub(1);
                }
                self.queued = self.queued.saturating_sub(1);
                self.ws.delete(key);
                self.push(host, std::time::Instant::now());
            }
            Some(_) => return Ok(before),
            None => {}
        }
        self.ws.put(
            keys::seen_key(fp),
            keys::seen_value(UrlState::Blacklisted, None),
        );
        self.seen.insert(fp, UrlState::Blacklisted);
        Ok(before)
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
