//! What a steering change did, URL by URL: the cockpit's scores and blacklistings (from the
//! frontier inspector and the intake form) go through the same intake as `POST /api/v1/urls`
//! (`Manager::intake`), and each item's report says the priority before and after, and the
//! crawl's update function that combined them.
//!
//! A score is not a priority: a queued URL's new priority is `update(old, score)` with the
//! crawl's `frontier.update` (the running mean by default), so 0.99 sent to a URL at 0.11 gives
//! 0.55 under `avg`. Rather than let the operator guess, both priorities are read from the
//! frontier (the URL's host queue, before and after the change) and shown.

use crate::frontier::update::UpdateFn;
use crate::intake::{IntakeReport, ScoredUrl};
use crate::web::AppState;
use std::collections::{BTreeSet, HashMap};

/// How far into a host's queue the priorities are looked up (the inspector's own maximum).
const LOOKUP: usize = super::frontier::MAX_LIMIT;

/// One item's outcome.
pub struct Change {
    /// Its 0-based index among the items (the intake form's line order).
    pub index: usize,
    /// The URL as sent.
    pub url: String,
    /// What was asked: `score 0.990` or `blacklist`.
    pub asked: String,
    /// The priority before, or why there is none (`not queued`).
    pub before: String,
    /// The priority after, or why there is none (`blacklisted`, `not queued`).
    pub after: String,
    /// What happened, in words (`queued`, `rescored`, `rejected: ...`).
    pub result: String,
    /// Whether the item was applied.
    pub ok: bool,
}

/// What a steering request did: the intake's report, and each item's change.
pub struct Steered {
    /// The intake report (counts and rejections), as the API answers it.
    pub report: IntakeReport,
    /// One entry per item, in order.
    pub changes: Vec<Change>,
    /// The crawl's update function (`avg`, ...).
    pub update: &'static str,
    /// What it does, in words.
    pub update_help: &'static str,
}

/// The update function's name as a spec writes it.
pub fn update_name(u: UpdateFn) -> &'static str {
    match u {
        UpdateFn::First => "first",
        UpdateFn::Last => "last",
        UpdateFn::Max => "max",
        UpdateFn::Avg => "avg",
        UpdateFn::Sum => "sum",
    }
}

/// What the update function does to a queued URL's priority, in words.
pub fn update_help(u: UpdateFn) -> &'static str {
    match u {
        UpdateFn::First => "the first score a URL received is kept; later ones change nothing",
        UpdateFn::Last => "the latest score becomes the priority",
        UpdateFn::Max => "the priority is the highest score received",
        UpdateFn::Avg => {
            "the priority is the mean of all the scores the URL received, so one score does \
             not set it"
        }
        UpdateFn::Sum => "the priority is 1 − e^(−sum of the scores received)",
    }
}

/// The priorities of the queued URLs of `hosts` (the first [`LOOKUP`] of each host's queue).
/// A crawl whose frontier cannot be read gives none: the change is still applied and reported.
async fn priorities(state: &AppState, id: &str, hosts: &BTreeSet<String>) -> HashMap<String, f32> {
    let mut out = HashMap::new();
    for h in hosts {
        if let Ok(view) = state.manager.frontier(id, LOOKUP, Some(h.clone())).await {
            out.extend(view.urls.into_iter().map(|u| (u.url, u.priority)));
        }
    }
    out
}

fn three(p: f32) -> String {
    format!("{p:.3}")
}

/// Applies `items` (all for crawl `id`) through the intake and reports each one's change.
pub async fn apply(
    state: &AppState,
    id: &str,
    items: Vec<ScoredUrl>,
) -> Result<Steered, super::PageError> {
    let spec = state.manager.spec(id)?;
    let (max_len, update) = (spec.limits.max_url_length, spec.update);
    // The URL as the frontier keeps it (parsed, fragment dropped) and its host queue.
    let keys: Vec<Option<(String, String)>> = items
        .iter()
        .map(|i| {
            i.check(max_len)
                .ok()
                .map(|c| (c.url.as_str().to_string(), crate::uri::host_key(&c.url)))
        })
        .collect();
    let hosts: BTreeSet<String> = keys.iter().flatten().map(|(_, h)| h.clone()).collect();
    let before = priorities(state, id, &hosts).await;
    let asked: Vec<(String, String, bool)> = items
        .iter()
        .map(|i| {
            let what = match (i.blacklist, i.score) {
                (true, _) => "blacklist".to_string(),
                (false, Some(s)) => format!("score {s:.3}"),
                (false, None) => "no score".to_string(),
            };
            (i.url.clone(), what, i.blacklist)
        })
        .collect();
    let report = state.manager.intake(items).await;
    let after = priorities(state, id, &hosts).await;
    let changes = asked
        .into_iter()
        .zip(keys)
        .enumerate()
        .map(|(index, ((url, asked, blacklist), key))| {
            let was = key.as_ref().and_then(|(u, _)| before.get(u)).copied();
            let now = key.as_ref().and_then(|(u, _)| after.get(u)).copied();
            let not_queued = "not queued".to_string();
            let (result, ok) = match report.rejected.iter().find(|r| r.index == index) {
                Some(r) => (format!("rejected: {}", r.reason), false),
                None if blacklist => (
                    match was {
                        Some(_) => "blacklisted: left the queue, never fetched in this crawl",
                        None => "blacklisted: never fetched in this crawl",
                    }
                    .to_string(),
                    true,
                ),
                None => match (was, now) {
                    (None, Some(_)) => ("queued".to_string(), true),
                    (Some(a), Some(b)) if a == b => (
                        format!("unchanged ({} keeps it)", update_name(update)),
                        true,
                    ),
                    (Some(_), Some(_)) => ("rescored".to_string(), true),
                    _ => (
                        "not queued: already fetched, being fetched, blacklisted, or beyond the \
                         first 1000 URLs of its host"
                            .to_string(),
                        true,
                    ),
                },
            };
            Change {
                index,
                url,
                asked,
                before: was.map_or_else(|| not_queued.clone(), three),
                after: match (blacklist && ok, now) {
                    (true, _) => "blacklisted".to_string(),
                    (false, Some(p)) => three(p),
                    (false, None) => not_queued,
                },
                result,
                ok,
            }
        })
        .collect();
    Ok(Steered {
        report,
        changes,
        update: update_name(update),
        update_help: update_help(update),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_update_function_is_named_as_the_spec_writes_it() {
        for u in [
            UpdateFn::First,
            UpdateFn::Last,
            UpdateFn::Max,
            UpdateFn::Avg,
            UpdateFn::Sum,
        ] {
            let json = serde_json::to_value(u).unwrap();
            assert_eq!(json, update_name(u));
            assert!(!update_help(u).is_empty());
        }
    }
}
