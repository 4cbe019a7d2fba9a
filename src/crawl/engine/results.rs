//! Taking a worker's result back: a page archived, its outlinks queued and the frontier told,
//! or a failure judged by the retry policy (`retry.rs`); a robots.txt (`robots.rs`); a second
//! reading of the helper's (`reading.rs`).

use super::responses::retry_after;
use super::retry::{self, Attempt, Decision};
use super::spawn::FetchFailure;
use super::{Done, Engine, Processed, Span};
use crate::crawl::CrawlError;
use crate::frontier::contract::CrawlFrontier;
use crate::frontier::politeness::FetchTiming;
use crate::frontier::{Completion, UrlLease};
use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;

impl<F: CrawlFrontier> Engine<F> {
    /// Takes a worker's result back: archive, queue outlinks, tell the frontier.
    pub(super) fn finish(&mut self, done: Done) -> Result<(), CrawlError> {
        let now = Instant::now();
        match done {
            Done::Page(lease, result, span) => {
                self.fetch_ended(span);
                match result {
                    Ok(p) => self.finish_page(lease, *p, span, now),
                    Err(e) => self.fail_page(lease, e, span, now),
                }
            }
            Done::Robots(host, origin, result, span) => {
                self.fetch_ended(span);
                self.finish_robots(host, origin, result, span, now)
            }
            Done::Reread(r) => self.reread_done(r),
        }
    }

    fn fetch_ended(&mut self, span: Span) {
        self.inflight -= 1;
        self.stats.fetch_took(span.took.as_millis() as u64);
        self.since_commit += 1;
    }

    fn finish_page(
        &mut self,
        lease: UrlLease,
        mut p: Processed,
        span: Span,
        now: Instant,
    ) -> Result<(), CrawlError> {
        let took = span.took;
        self.shortage.worked(span.started, now);
        // What the helper learned from the page, and its later readings of earlier pages, are
        // kept whatever becomes of this page (a retry included).
        self.state.append(std::mem::take(&mut p.learned));
        let purge = self.keep_what_the_helper_learned(&mut p);
        self.archive_revisions()?;
        let info = &p.records.info;
        self.frontier.set_ip(&lease.host, info.ip);
        let status = info.status;
        let retry_after = retry_after(info.header("retry-after"));
        let attempt = Attempt::Answer {
            status,
            disconnected: info.truncated == Some(crate::model::Truncation::Disconnect),
            retry_after,
        };
        // A cut-off answer is archived, marked `WARC-Truncated: disconnect`, only when the
        // retries are spent.
        if let Decision::Retry { error, timing } =
            retry::decide(&attempt, lease.uri.retries, took, self.retry_limits())
        {
            let size = p.records.response_len;
            self.log_exchange(&lease.uri, &p.records.info, size, vec!["will-retry".into()])?;
            self.stats.retries.fetch_add(1, Relaxed);
            self.stats.error(&error);
            self.frontier
                .complete(&lease, Completion::Retry, Some(timing), now);
            return Ok(());
        }
        for note in &p.notes {
            self.stats.error(note);
        }
        let archived = self.archive(&p.records)?;
        let revisit = archived.revisit_of.is_some().then(|| "revisit".to_string());
        let mut notes: Vec<String> = revisit.into_iter().collect();
        notes.extend(self.learn_copies(&lease.host, &p.records.info)?);
        let size = p.records.response_len;
        self.log_exchange(&lease.uri, &p.records.info, size, notes)?;
        self.stats.pages.fetch_add(1, Relaxed);
        if (200..300).contains(&status) && archived.revisit_of.is_none() {
            self.stats.pages_archived.fetch_add(1, Relaxed);
        }
        self.stats.status(status);
        let inherited = p
            .page
            .as_ref()
            .and_then(|f| f.analysis.as_ref())
            .map_or(0.0, |a| a.inherited);
        let topic =
            self.online
                .after_page(&lease, status, p.page.take(), p.capture.take(), &archived)?;
        if let Some((key, value)) = topic {
            self.state.put(key, value);
        }
        let via = std::mem::take(&mut p.records.info.url);
        if let Some(why) = purge {
            self.drop_not_worth(&lease.host, &why)?;
        }
        self.offer_all(p.outlinks, &p.rejected, &via, inherited)?;
        let timing = FetchTiming {
            duration: took,
            retry_after,
            backoff: None,
        };
        self.frontier
            .complete(&lease, Completion::Done, Some(timing), now);
        Ok(())
    }

    fn fail_page(
        &mut self,
        lease: UrlLease,
        e: FetchFailure,
        span: Span,
        now: Instant,
    ) -> Result<(), CrawlError> {
        let e = match e {
            FetchFailure::State(e) => return Err(e),
            other => other,
        };
        let attempt = match &e {
            FetchFailure::State(_) => return Ok(()),
            FetchFailure::Fetch(f) if f.is_local() => Attempt::Local,
            FetchFailure::Fetch(f) => Attempt::NoAnswer {
                kind: f.kind(),
                retryable: f.retryable(),
            },
            other => {
                tracing::warn!(url = %lease.uri.url, "cannot process the exchange: {other}");
                Attempt::NoAnswer {
                    kind: "archive",
                    retryable: false,
                }
            }
        };
        let decision = retry::decide(&attempt, lease.uri.retries, span.took, self.retry_limits());
        let (how, kind, timing) = match decision {
            // (A failed fetch is never kept.)
            Decision::Untried | Decision::Keep => {
                // Not the URL's failure nor its host's: back as it was, nothing counted.
                self.frontier
                    .complete(&lease, Completion::Untried, None, now);
                if let FetchFailure::Fetch(f) = &e {
                    self.out_of_descriptors(f, span.started, now);
                }
                return Ok(());
            }
            Decision::Retry { error, timing } => (Completion::Retry, error, timing),
            Decision::Fail { error, timing } => (Completion::Failed, error.to_string(), timing),
        };
        self.shortage.worked(span.started, now);
        tracing::debug!(url = %lease.uri.url, error = ?e, "fetch failed");
        self.stats.error(&kind);
        let retry = how == Completion::Retry;
        self.log_failure(&lease.uri, &kind, retry)?;
        if retry {
            self.stats.retries.fetch_add(1, Relaxed);
        }
        self.frontier.complete(&lease, how, Some(timing), now);
        Ok(())
    }

    /// What the retry policy reads of the spec.
    pub(super) fn retry_limits(&self) -> retry::RetryLimits {
        retry::RetryLimits {
            max_retries: self.spec.limits.max_retries,
            retry_delay: self.spec.limits.retry_delay,
        }
    }
}
