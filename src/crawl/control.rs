//! Steering a running crawl: pause, resume, stop, scored-URL intake and frontier views, all sent
//! to the engine over one channel, so only the engine task ever touches the frontier.

use super::admit::{Action, Admitted, Arrival, Scoping};
use super::engine::Engine;
use crate::aah::Adoption;
use crate::frontier::host::HostView;
use crate::frontier::view::QueuedUrl;
use crate::intake::{IntakeReport, Rejected, ScoredUrl};
use crate::model::{CrawlUri, Hop};
use crate::uri;
use serde::Serialize;
use tokio::sync::oneshot;

/// A command for the engine.
#[derive(Debug)]
pub enum Control {
    /// Start no new fetches until resumed (fetches in flight finish; state stays on disk).
    Pause,
    /// Start fetching again.
    Resume,
    /// Finish fetches in flight, commit and seal the WARC files, and end the run.
    Stop,
    /// Apply scored URLs (already checked for syntax); the items keep their body indexes.
    Intake(Vec<(usize, ScoredUrl)>, oneshot::Sender<IntakeReport>),
    /// The next URLs in fetch order, and host queue states.
    Frontier {
        /// How many URLs.
        limit: usize,
        /// Only this host.
        host: Option<String>,
        /// Where the answer goes.
        reply: oneshot::Sender<Result<FrontierView, String>>,
    },
    /// Blacklist every URL matching a regular expression, queued now or found later.
    Block {
        /// The pattern.
        pattern: String,
        /// Where the answer goes (an unusable pattern is an `Err` saying why).
        reply: oneshot::Sender<Result<super::block::BlockReport, String>>,
    },
    /// The patterns the application-aware helper relaxed and adopted, with their evidence.
    Relaxations {
        /// Only this host.
        host: Option<String>,
        /// Where the answer goes.
        reply: oneshot::Sender<Result<Vec<Adoption>, String>>,
    },
}

/// The frontier as the API shows it.
#[derive(Debug, Clone, Serialize)]
pub struct FrontierView {
    /// URLs in the order they would be fetched.
    pub urls: Vec<QueuedUrl>,
    /// Host queues.
    pub hosts: Vec<HostView>,
}

impl Engine {
    /// The helper's adopted relaxations (empty when the helper is off).
    pub(super) fn relaxations(&self, host: Option<&str>) -> Result<Vec<Adoption>, String> {
        match &self.ctx.helper {
            Some(h) => h.relaxations(host).map_err(|e| e.to_string()),
            None => Ok(Vec::new()),
        }
    }

    /// Applies intake items and commits them at once, so the new order is visible immediately.
    pub(super) fn intake(
        &mut self,
        items: Vec<(usize, ScoredUrl)>,
    ) -> Result<IntakeReport, super::CrawlError> {
        let mut report = IntakeReport {
            received: items.len(),
            ..Default::default()
        };
        let max_len = self.spec.raw.limits.max_url_length;
        for (index, item) in items {
            let reject = |reason: String| Rejected { index, reason };
            let score = match item.check() {
                Ok(s) => s,
                Err(reason) => {
                    report.rejected.push(reject(reason));
                    continue;
                }
            };
            let url = match uri::parse_absolute(&item.url, max_len) {
                Ok(u) => u,
                Err(e) => {
                    report.rejected.push(reject(format!("bad URL: {e}")));
                    continue;
                }
            };
            let via_in_scope = item
                .via
                .as_deref()
                .and_then(|v| url::Url::parse(v).ok())
                .is_none_or(|v| self.ctx.scope.contains(&v));
            let uri = CrawlUri {
                via: item.via.clone(),
                source: item.source_name().to_string(),
                hops: Hop::Link.code().to_string(),
                ..CrawlUri::seed(url.as_str())
            };
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
    ) -> Result<FrontierView, String> {
        let urls = self.frontier.peek(limit, host).map_err(|e| e.to_string())?;
        let mut hosts = self.frontier.hosts();
        if let Some(h) = host {
            hosts.retain(|v| v.host == h);
        }
        Ok(FrontierView { urls, hosts })
    }
}
