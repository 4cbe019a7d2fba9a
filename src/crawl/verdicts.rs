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
                    // A rule asks for a link when it follows or boosts it; queuing a link
                    // under its slashed URL, or deferring it, asks for nothing more than the
                    // default.
                    let asks = matches!(v.action, LinkAction::Follow | LinkAction::Boost);
                    let explicit = v.rule != DEFAULT_RULE && asks && v.instead.is_none();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aah::LinkVerdict;
    use crate::model::Hop;

    fn verdict(url: &str, rule: &str, instead: Option<&str>) -> LinkVerdict {
        LinkVerdict {
            url: url.into(),
            action: LinkAction::Follow,
            boost: None,
            rule: rule.into(),
            instead: instead.map(Into::into),
        }
    }

    #[test]
    fn a_link_queued_with_its_slash_keeps_a_default_verdict_and_its_new_url() {
        let link = |url: &str| Link {
            url: url.into(),
            hop: Hop::Link,
            context: "a/@href".into(),
            text: String::new(),
            block: None,
        };
        let links = vec![link("http://b/tags/birds"), link("http://b/feed")];
        let mut m = AppMatch::nothing("http://b/");
        m.links = vec![
            verdict(
                "http://b/tags/birds",
                "unknown/*/slash tags/*",
                Some("http://b/tags/birds/"),
            ),
            verdict("http://b/feed", "app/*/feeds", None),
        ];
        let mut deferred = verdict("http://b/wp-json/", "unknown/*/defer *", None);
        deferred.action = LinkAction::Defer;
        m.links.push(deferred);
        let links = [links, vec![link("http://b/wp-json/")]].concat();
        let judged = judge_links(&links, None, Some(&m));
        assert!(!judged[0].by_rule, "a slash asks for nothing");
        assert!(judged[1].by_rule);
        assert!(!judged[2].by_rule, "a deferred link asks for nothing");
        let queued = queued_instead(links, Some(&m));
        assert_eq!(queued[0].url, "http://b/tags/birds/");
        assert_eq!(queued[1].url, "http://b/feed");
        assert_eq!(queued[2].url, "http://b/wp-json/");
    }
}
