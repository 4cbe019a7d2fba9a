//! The way into the frontier (an adopted copy rule alone blacklists or demotes URLs already
//! queued itself, `copies.rs`). Seeds, a page's outlinks, the sitemaps robots.txt names, the
//! scored URLs external processes POST, and blacklisting all arrive here as an [`Arrival`],
//! and one decision applies to each, in one order: blacklist, blocked patterns, scope, copy
//! rules (links and sitemaps only), then the frontier's offer (new URLs only) or update path
//! (the crawl's update function).

use super::Engine;
use crate::crawl::CrawlError;
use crate::frontier::contract::CrawlFrontier;
use crate::frontier::keys::UrlState;
use crate::frontier::update::Scored;
use crate::frontier::Offer;
use crate::model::CrawlUri;
use crate::scope::Reject;
use crate::uri;
use std::sync::atomic::Ordering::Relaxed;
use url::Url;

/// A URL on its way into the frontier.
pub(super) struct Arrival {
    /// Fingerprint of the canonical URL.
    pub fp: u64,
    /// The URL, parsed (its host names the queue).
    pub url: Url,
    /// What is queued: the URL as found, its hops, where it was found, its source, its
    /// priority when queued without a score.
    pub uri: CrawlUri,
    /// What to do with it.
    pub action: Action,
    /// Whether scope still has to be decided, and from what.
    pub scope: Scoping,
}

impl Arrival {
    /// An arrival of `url`, fingerprinted here.
    pub fn new(url: Url, uri: CrawlUri, action: Action, scope: Scoping) -> Arrival {
        Arrival {
            fp: uri::fingerprint(&uri::canonical(&url)),
            url,
            uri,
            action,
            scope,
        }
    }
}

/// What an arrival asks of the frontier.
pub(super) enum Action {
    /// Queue it if new, with `uri.priority`.
    Offer,
    /// Queue it or rescore it through the crawl's update function.
    Score(f32),
    /// Never fetch it: leave the queue, and refuse it from now on.
    Blacklist,
}

/// How scope applies.
pub(super) enum Scoping {
    /// Already decided (a worker scoped the page's links) or not asked (seeds, blacklisting).
    Decided,
    /// Decided here; `parent_in_scope` is whether the page it was found on is in scope.
    Decide {
        /// Whether the referring page is in scope (embeds may leave scope for one hop).
        parent_in_scope: bool,
    },
}

/// What became of an arrival.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Admitted {
    /// Newly queued.
    Added,
    /// Queued before, now with a new priority.
    Updated,
    /// Known, and left as it was (fetched, in flight, or queued without a new score).
    Unchanged,
    /// Blacklisted; `was_queued` if it left the queue.
    Blacklisted {
        /// It was queued until now.
        was_queued: bool,
    },
    /// It matches a blocked pattern.
    Blocked,
    /// Out of scope.
    OutOfScope(Reject),
    /// A copy of a page queued or fetched under another URL, by an adopted copy rule.
    Copy(crate::crawl::copies::Variant),
}

impl<F: CrawlFrontier> Engine<F> {
    /// Admits one URL into the frontier (see the module documentation for the order).
    pub(super) fn admit(&mut self, a: Arrival) -> Result<Admitted, CrawlError> {
        let (fp, host) = (a.fp, uri::host_key(&a.url));
        if let Action::Blacklist = a.action {
            let was = self.frontier.blacklist(fp, &host)?;
            return Ok(Admitted::Blacklisted {
                was_queued: was == Some(crate::frontier::keys::UrlState::Queued),
            });
        }
        if self.blocklist.matches(&a.uri.url) {
            return Ok(Admitted::Blocked);
        }
        if let Scoping::Decide { parent_in_scope } = a.scope {
            if let Err(r) = self.ctx.scope.decide(&a.url, &a.uri.hops, parent_in_scope) {
                return Ok(Admitted::OutOfScope(r));
            }
        }
        // Copy rules apply to what the crawl found itself (links, sitemaps), not to seeds or
        // to URLs an operator or a scorer named.
        let mut action = a.action;
        let mut uri = a.uri;
        if self.copies.any() && uri.source == "crawl" {
            let state = self.frontier.state(fp);
            let frontier = &self.frontier;
            let known = |f| super::copies::stands_for_copies(frontier.state(f));
            if state.is_none() {
                let redirected = uri.hops.ends_with(crate::model::Hop::Redirect.code());
                if let Some(v) = self.copies.skip_arrival(&host, &a.url, redirected, known) {
                    self.frontier.blacklist(fp, &host)?;
                    return Ok(Admitted::Copy(v));
                }
            }
            // A likely copy (see `Copies::suspect`) is queued last, and keeps that place.
            if matches!(state, None | Some(UrlState::Queued))
                && self.copies.suspect(&host, &a.url, known)
            {
                if state.is_some() {
                    return Ok(Admitted::Unchanged);
                }
                uri.priority = 0.0;
                action = Action::Offer;
            }
        }
        let origin = a.url.origin().ascii_serialization();
        let admitted = match action {
            Action::Score(s) => {
                let update = self.spec.update;
                match self.frontier.score(fp, &host, &origin, uri, s, update)? {
                    Scored::Inserted(_) => Admitted::Added,
                    Scored::Updated { .. } => Admitted::Updated,
                    Scored::InFlight | Scored::Ignored(_) => Admitted::Unchanged,
                }
            }
            _ => match self.frontier.offer(fp, &host, &origin, uri) {
                Offer::Added => Admitted::Added,
                _ => Admitted::Unchanged,
            },
        };
        if admitted == Admitted::Added {
            self.stats.discovered.fetch_add(1, Relaxed);
        }
        Ok(admitted)
    }

    /// Offers the seeds, and the topic's reference pages when the crawl has a topic, on every
    /// run: known ones are left alone, seeds added to the spec are queued.
    pub(in crate::crawl) fn offer_seeds(&mut self) -> Result<(), CrawlError> {
        let spec = self.spec.clone();
        let topical = self.online.topical();
        let references = spec
            .references
            .iter()
            .filter(|_| topical)
            .map(|u| (u.clone(), "reference"));
        let seeds = spec.seeds.iter().map(|s| (s.clone(), "seed"));
        for (url, source) in seeds.chain(references) {
            let uri = CrawlUri {
                source: source.into(),
                ..CrawlUri::seed(url.as_str())
            };
            self.admit(Arrival::new(url, uri, Action::Offer, Scoping::Decided))?;
        }
        Ok(())
    }
}

impl<F: CrawlFrontier> Engine<F> {
    /// Takes the URLs of `host` already queued that the helper has just learned are not worth
    /// a fetch (`/post/N` permalinks that only redirect, a navigation rule of an unknown
    /// application) out of the queue: the links found later are skipped by the helper, and
    /// those queued before it knew (the links of a host's first pages) would otherwise still
    /// be fetched. They are blacklisted, so a later link cannot queue them again.
    pub(super) fn drop_not_worth(&mut self, host: &str, why: &str) -> Result<(), CrawlError> {
        let Some(helper) = self.ctx.helper.clone() else {
            return Ok(());
        };
        let (mut doomed, mut moved) = (Vec::new(), Vec::new());
        self.frontier.for_each_queued_on(host, &mut |u| {
            if let Ok(url) = url::Url::parse(&u.url) {
                if helper.not_worth_queued(&url) {
                    doomed.push((url, u));
                } else if let Some(instead) = helper.queued_instead(&url) {
                    moved.push((url, instead, u));
                }
            }
        })?;
        let mut removed = 0;
        for (url, u) in doomed {
            let a = Arrival::new(url, u, Action::Blacklist, Scoping::Decided);
            if self.admit(a)? == (Admitted::Blacklisted { was_queued: true }) {
                removed += 1;
            }
        }
        // A URL the host redirects elsewhere leaves the queue for the URL it redirects to.
        let requeued = moved.len();
        for (url, instead, u) in moved {
            let again = CrawlUri {
                url: instead.to_string(),
                ..u.clone()
            };
            self.admit(Arrival::new(url, u, Action::Blacklist, Scoping::Decided))?;
            let a = Arrival::new(instead, again, Action::Offer, Scoping::Decided);
            self.admit(a)?;
        }
        self.stats.event(
            "helper-purge",
            format!("{host}: {why}; {removed} queued URLs removed, {requeued} queued in place of their redirects"),
        );
        Ok(())
    }
}
