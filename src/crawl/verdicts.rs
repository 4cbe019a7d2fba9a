//! The online stages' verdicts on a page's links, joined: the analysis's scores (in page
//! order) and the helper's verdicts (by URL), and the URL the helper queues in place of a link.

use std::collections::HashMap;

use crate::aah::{AppMatch, LinkAction, DEFAULT_RULE};
use crate::analysis::PageAnalysis;
use crate::model::{Link, ScoreParts};

/// The verdict of the online stages on one link of a page.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Judged {
    /// Analysis score, with the helper's boost added to the total.
    pub score: Option<ScoreParts>,
    /// The helper's priority boost.
    pub boost: f32,
    /// Do not queue (helper skip rule).
    pub skip: bool,
    /// The helper's verdict came from a knowledge-base rule, not the default (which is what
    /// lets the knowledge base ask for a discovery link).
    pub by_rule: bool,
    /// Spam: blacklist.
    pub blacklist: bool,
}

/// Joins analysis scores (one per link, in page order) and the helper's verdicts (by URL).
pub(super) fn judge_links(
    links: &[Link],
    a: Option<&PageAnalysis>,
    m: Option<&AppMatch>,
) -> Vec<Judged> {
    let verdicts: HashMap<&str, (LinkAction, f32, bool)> = m
        .map(|m| {
            m.links
                .iter()
                .map(|v| {
                    let explicit = v.rule != DEFAULT_RULE;
                    (v.url.as_str(), (v.action, v.boost.unwrap_or(0.0), explicit))
                })
                .collect()
        })
        .unwrap_or_default();
    links
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let (action, boost, explicit) =
                verdicts
                    .get(l.url.as_str())
                    .copied()
                    .unwrap_or((LinkAction::Follow, 0.0, false));
            // A deferred link goes below every other: its priority is brought to zero.
            let boost = match action {
                LinkAction::Boost => boost,
                LinkAction::Defer => -1.0,
                LinkAction::Follow | LinkAction::Skip => 0.0,
            };
            let ls = a.and_then(|a| a.links.get(i));
            Judged {
                score: ls.map(|s| ScoreParts {
                    total: if s.blacklist {
                        0.0
                    } else {
                        (s.parts.total + boost).clamp(0.0, 1.0)
                    },
                    ..s.parts
                }),
                boost,
                skip: action == LinkAction::Skip,
                by_rule: explicit,
                blacklist: ls.is_some_and(|s| s.blacklist),
            }
        })
        .collect()
}

/// The links with the URL the helper queues in place of each (see `LinkVerdict::instead`).
pub(super) fn queued_instead(mut links: Vec<Link>, m: Option<&AppMatch>) -> Vec<Link> {
    let instead: HashMap<&str, &str> = m
        .iter()
        .flat_map(|m| &m.links)
        .filter_map(|v| Some((v.url.as_str(), v.instead.as_deref()?)))
        .collect();
    if !instead.is_empty() {
        for l in &mut links {
            if let Some(w) = instead.get(l.url.as_str()) {
                l.url = (*w).to_owned();
            }
        }
    }
    links
}
