//! The engine's side of copy rules (`crawl::copies`): every fetched page teaches the learner,
//! an adopted rule is applied to what the host queued before, and each change is told in the
//! crawl log, the event stream and the statistics.

use super::Engine;
use crate::crawl::copies::Change;
use crate::crawl::crawl_log::Refused;
use crate::crawl::dedup::Dedup;
use crate::frontier::contract::CrawlFrontier;
use crate::frontier::keys::UrlState;
use crate::model::ExchangeInfo;

/// Whether a URL in this state stands for its copies: queued (to be archived) or fetched.
pub(super) fn stands_for_copies(state: Option<UrlState>) -> bool {
    matches!(state, Some(UrlState::Queued | UrlState::Done))
}

impl<F: CrawlFrontier> Engine<F> {
    /// Feeds a fetched exchange of `host` to the copy learner; returns the crawl log's
    /// annotations for it (`copy:RULE`, `copy-rule-adopted:RULE`, `copy-rule-refuted:RULE`).
    /// An adopted rule takes its copies out of the host's queue at once.
    pub(super) fn learn_copies(
        &mut self,
        host: &str,
        info: &ExchangeInfo,
    ) -> Result<Vec<String>, crate::crawl::CrawlError> {
        if !Dedup::applies_to(info) {
            return Ok(vec![]);
        }
        let Ok(url) = url::Url::parse(&info.url) else {
            return Ok(vec![]);
        };
        let changes = self.copies.observe(host, &url, &info.payload_digest);
        let mut notes = Vec::new();
        for c in changes {
            match c {
                Change::Example(v) => notes.push(format!("copy:{}", v.name())),
                Change::Adopted(v) => {
                    notes.push(format!("copy-rule-adopted:{}", v.name()));
                    let removed = self.drop_queued_copies(host)?;
                    // A name likely before had its suspects moved then.
                    let demoted = if self.copies.first_of_its_name(&v) && !self.copies.likely(&v) {
                        self.demote_queued_suspects()?
                    } else {
                        0
                    };
                    self.stats.event(
                        "copy-rule-adopted",
                        format!(
                            "{host}: {} (URLs differing by it serve the same page); {removed} queued copies removed, {demoted} likely copies on other hosts moved last",
                            v.name()
                        ),
                    );
                }
                Change::Likely(v) => {
                    let demoted = self.demote_queued_suspects()?;
                    self.stats.event(
                        "copy-rule-likely",
                        format!(
                            "{}: examples on several hosts and no counter-example; {demoted} likely copies on hosts still learning it moved last",
                            v.name()
                        ),
                    );
                }
                Change::Refuted(v) => {
                    notes.push(format!("copy-rule-refuted:{}", v.name()));
                    self.stats.event(
                        "copy-rule-refuted",
                        format!("{host}: {} (a pair served different pages)", v.name()),
                    );
                }
            }
        }
        Ok(notes)
    }

    /// Whether a URL about to be fetched is a likely copy (see `Copies::suspect`) not yet
    /// moved last: one found by the crawl, queued before the page it copies was known.
    pub(super) fn likely_copy(&self, l: &crate::frontier::UrlLease) -> bool {
        if !self.copies.any() || l.uri.source != "crawl" || l.uri.priority <= 0.0 {
            return false;
        }
        let Ok(url) = url::Url::parse(&l.uri.url) else {
            return false;
        };
        let frontier = &self.frontier;
        self.copies
            .suspect(&l.host, &url, |f| stands_for_copies(frontier.state(f)))
    }

    /// Applies the host's adopted copy rules to the URLs it has queued: each copy whose
    /// original is queued or fetched leaves the queue, logged as a refusal. Returns how many.
    fn drop_queued_copies(&mut self, host: &str) -> Result<usize, crate::crawl::CrawlError> {
        let mut queued = Vec::new();
        self.frontier
            .for_each_queued_on(host, &mut |u| queued.push(u))?;
        let mut removed = 0;
        for uri in queued {
            let Ok(url) = url::Url::parse(&uri.url) else {
                continue;
            };
            let frontier = &self.frontier;
            let redirected = uri.hops.ends_with(crate::model::Hop::Redirect.code());
            let known = |fp| stands_for_copies(frontier.state(fp));
            let Some(v) = self.copies.skip_arrival(host, &url, redirected, known) else {
                continue;
            };
            let fp = crate::uri::fingerprint(&crate::uri::canonical(&url));
            if self.frontier.blacklist(fp, host)? == Some(UrlState::Queued) {
                removed += 1;
                self.stats.reject("copy");
                let reason = format!("copy:{}", v.name());
                let via = uri.via.as_deref();
                self.log_refusal(
                    fp,
                    Refused::Blacklist,
                    &uri.url,
                    &uri.hops,
                    via,
                    &uri.source,
                    &reason,
                )?;
            }
        }
        Ok(removed)
    }

    /// Moves the likely copies queued on every host (see `Copies::suspect`) to the lowest
    /// priority: done once per rule name when it becomes likely crawl-wide and when it is
    /// first adopted, since the URLs queued before then were queued as usual. Returns how
    /// many moved.
    fn demote_queued_suspects(&mut self) -> Result<usize, crate::crawl::CrawlError> {
        let mut queued = Vec::new();
        self.frontier
            .for_each_queued(&mut |h, u| queued.push((h.to_string(), u)))?;
        let mut moved = 0;
        for (host, uri) in queued {
            // Seeds, reference pages and URLs a scorer sent keep their place (as in `admit`).
            if uri.source != "crawl" {
                continue;
            }
            let Ok(url) = url::Url::parse(&uri.url) else {
                continue;
            };
            let frontier = &self.frontier;
            if !self
                .copies
                .suspect(&host, &url, |fp| stands_for_copies(frontier.state(fp)))
            {
                continue;
            }
            let fp = crate::uri::fingerprint(&crate::uri::canonical(&url));
            moved += usize::from(self.frontier.demote(fp));
        }
        Ok(moved)
    }

    /// Stages the copy rules with the commit when they changed, and publishes them.
    pub(super) fn stage_copies(&mut self) -> Result<(), crate::crawl::CrawlError> {
        if let Some((key, value)) = self.copies.entry()? {
            self.state.put(key, value);
            *self
                .stats
                .copy_rules
                .lock()
                .unwrap_or_else(|p| p.into_inner()) = self.copies.views();
        }
        Ok(())
    }
}
