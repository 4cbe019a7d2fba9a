//! The engine's answers to the operator's commands (see `crawl/control.rs`): scored-URL
//! intake, blocked patterns, frontier and relaxation views. Each goes through the one way in
//! (`admit.rs`) or reads the parts, and commits before it answers.

use super::admit::{Action, Admitted, Arrival, Scoping};
use super::Engine;
use crate::aah::Adoption;
use crate::crawl::block::{compile, BlockReport, MAX_PATTERNS};
use crate::crawl::control::{FrontierView, Refusal};
use crate::crawl::CrawlError;
use crate::frontier::contract::CrawlFrontier;
use crate::intake::{IntakeReport, Rejected, ScoredUrl};
use crate::model::{CrawlUri, Hop};

impl<F: CrawlFrontier> Engine<F> {
    /// The helper's adopted relaxations (empty when the helper is off).
    pub(super) fn relaxations(&self, host: Option<&str>) -> Result<Vec<Adoption>, Refusal> {
        match &self.ctx.helper {
            Some(h) => Ok(h.relaxations(host)?),
            None => Ok(Vec::new()),
        }
    }

    /// Applies intake items and commits them at once, so the new order is visible immediately.
    pub(super) fn intake(
        &mut self,
        items: Vec<(usize, ScoredUrl)>,
    ) -> Result<IntakeReport, CrawlError> {
        let mut report = IntakeReport {
            received: items.len(),
            ..Default::default()
        };
        let max_len = self.spec.limits.max_url_length;
        for (index, item) in items {
            let reject = |reason: String| Rejected { index, reason };
            // Every text field is checked (no control character, `source` a token, `via` an
            // absolute URL) before anything of the item is stored or logged.
            let checked = match item.check(max_len) {
                Ok(c) => c,
                Err(reason) => {
                    report.rejected.push(reject(reason));
                    continue;
                }
            };
            let via_in_scope = checked
                .via
                .as_ref()
                .is_none_or(|v| self.ctx.scope.contains(v));
            let uri = CrawlUri {
                via: checked.via.as_ref().map(|v| v.as_str().to_string()),
                source: item.source_name().to_string(),
                hops: Hop::Link.code().to_string(),
                ..CrawlUri::seed(checked.url.as_str())
            };
            let (url, score) = (checked.url, checked.score);
            let action = match item.blacklist {
                true => Action::Blacklist,
                false => Action::Score(score.unwrap_or(0.0)),
            };
            let scope = Scoping::Decide {
                parent_in_scope: via_in_scope,
            };
            let admitted = self.admit(Arrival::new(url, uri, action, scope))?;
            if admitted != Admitted::Blocked {
                self.stats.intake(item.source_name());
            }
            match admitted {
                Admitted::Added => report.inserted += 1,
                Admitted::Updated => report.updated += 1,
                Admitted::Unchanged => report.ignored += 1,
                Admitted::Blacklisted { .. } => report.blacklisted += 1,
                Admitted::Blocked => report.rejected.push(reject("blocked by a pattern".into())),
                Admitted::OutOfScope(r) => report
                    .rejected
                    .push(reject(format!("out of scope ({})", r.as_str()))),
                Admitted::Copy(v) => report.rejected.push(reject(format!(
                    "a copy of a known page (rule {})",
                    v.name()
                ))),
            }
        }
        self.commit()?;
        Ok(report)
    }

    /// The frontier view for the API.
    pub(super) fn frontier_view(
        &self,
        limit: usize,
        host: Option<&str>,
    ) -> Result<FrontierView, Refusal> {
        let urls = self.frontier.peek(limit, host)?;
        let mut hosts = self.frontier.hosts();
        if let Some(h) = host {
            hosts.retain(|v| v.host == h);
        }
        Ok(FrontierView {
            urls,
            hosts,
            blocked: self.blocklist.patterns(),
        })
    }

    /// Blocks `pattern`: stored, applied to every queued URL, and to every URL offered later.
    pub(super) fn block(
        &mut self,
        pattern: &str,
    ) -> Result<Result<BlockReport, Refusal>, CrawlError> {
        let re = match compile(pattern) {
            Ok(r) => r,
            Err(e) => return Ok(Err(Refusal::BadPattern(e))),
        };
        if self.blocklist.len() >= MAX_PATTERNS {
            return Ok(Err(Refusal::TooManyPatterns(MAX_PATTERNS)));
        }
        let mut matching: Vec<String> = Vec::new();
        self.frontier.for_each_queued(&mut |_, u| {
            if re.is_match(&u.url) {
                matching.push(u.url);
            }
        })?;
        let mut removed = 0;
        for url in matching {
            let Ok(u) = url::Url::parse(&url) else {
                continue;
            };
            let a = Arrival::new(u, CrawlUri::seed(url), Action::Blacklist, Scoping::Decided);
            if self.admit(a)? == (Admitted::Blacklisted { was_queued: true }) {
                removed += 1;
            }
        }
        let (key, value) = self.blocklist.add(re)?;
        self.state.put(key, value);
        self.commit()?;
        self.stats.event(
            "pattern-blocked",
            format!("{pattern}: {removed} queued URLs removed"),
        );
        Ok(Ok(BlockReport {
            pattern: pattern.to_string(),
            removed,
            patterns: self.blocklist.len(),
        }))
    }

    /// Stops blocking `pattern` (stored at once); URLs it blacklisted stay blacklisted.
    pub(super) fn unblock(&mut self, pattern: &str) -> Result<Result<usize, Refusal>, CrawlError> {
        let Some((key, value)) = self.blocklist.remove(pattern)? else {
            return Ok(Err(Refusal::NotBlocked(pattern.to_string())));
        };
        self.state.put(key, value);
        self.commit()?;
        self.stats.event("pattern-unblocked", pattern.to_string());
        Ok(Ok(self.blocklist.len()))
    }
}
