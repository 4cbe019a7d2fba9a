//! A crawl's outcome in words: not only its lifecycle state (`finished` covers a crawl that
//! emptied its frontier, one that hit its page limit, one the operator stopped and one that
//! could fetch none of its seeds) but which of these happened, why, when and by whom.
//!
//! The outcome is derived from what the crawl already records (its state, the engine's stop
//! reason, its error, its counters, and who asked it to stop), so a crawl made by an older
//! version or by `magpie crawl` is classified too. The cockpit's badges, the API's `outcome`
//! and `magpie crawl --json` all come from [`classify`].

use super::status::CrawlState;
use crate::crawl::stats::Summary;
use serde::{Deserialize, Serialize};

/// Which way a crawl is or ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum OutcomeKind {
    /// Defined, not started.
    Created,
    /// Fetching.
    Running,
    /// Paused by the operator.
    Paused,
    /// Ended with nothing left to fetch.
    Completed,
    /// Ended at `limits.max_pages`.
    LimitReached,
    /// Ended because the operator (or a Ctrl-C) asked.
    Stopped,
    /// Ended by an error.
    Failed,
    /// Ended with nothing fetched: every seed was refused or failed.
    NoSeedReachable,
}

impl OutcomeKind {
    /// The kebab-case name, as the API spells it (also the badge's CSS class suffix).
    pub fn as_str(self) -> &'static str {
        match self {
            OutcomeKind::Created => "created",
            OutcomeKind::Running => "running",
            OutcomeKind::Paused => "paused",
            OutcomeKind::Completed => "completed",
            OutcomeKind::LimitReached => "limit-reached",
            OutcomeKind::Stopped => "stopped",
            OutcomeKind::Failed => "failed",
            OutcomeKind::NoSeedReachable => "no-seed-reachable",
        }
    }

    /// A short label for a badge.
    pub fn label(self) -> &'static str {
        match self {
            OutcomeKind::Created => "created",
            OutcomeKind::Running => "running",
            OutcomeKind::Paused => "paused",
            OutcomeKind::Completed => "completed",
            OutcomeKind::LimitReached => "limit reached",
            OutcomeKind::Stopped => "stopped",
            OutcomeKind::Failed => "failed",
            OutcomeKind::NoSeedReachable => "no seed reachable",
        }
    }
}

/// Who asked a crawl to stop, and when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StopMark {
    /// When the stop was asked (RFC 3339, UTC, seconds).
    pub at: String,
    /// Through what: `cockpit` or `api`.
    pub by: String,
}

impl StopMark {
    /// A stop asked now through `by`.
    pub fn now(by: &str) -> StopMark {
        StopMark {
            at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            by: by.to_string(),
        }
    }
}

/// A crawl's outcome: its kind and the reason in a sentence.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Outcome {
    /// Which way the crawl is or ended.
    pub kind: OutcomeKind,
    /// A short label for it (`limit reached`).
    pub label: String,
    /// Why, in a sentence: the limit, who stopped it and when, the error, what refused the
    /// seeds and what to change.
    pub reason: String,
    /// When it was stopped (for `stopped`), RFC 3339.
    pub at: Option<String>,
    /// Who stopped it (for `stopped`): `cockpit`, `api` or `magpie crawl`.
    pub by: Option<String>,
}

/// What to change, per error kind, when no seed could be fetched.
fn advice(kind: &str) -> &'static str {
    match kind {
        "private-address" => {
            "their addresses are private and network.allow_private (\"Allow private \
             addresses\") is off: turn it on to crawl them"
        }
        "dns" => "their host names do not resolve: check the spelling",
        "connect" => "nothing answered on their addresses: check the host and port",
        "timeout" => "their servers did not answer in time: raise limits.timeout_ms",
        "tls" => "their TLS handshakes failed",
        "scheme" => "their scheme is not http or https",
        _ => "the fetches failed",
    }
}

/// Why nothing was fetched: each error kind with its count and advice, the robots.txt and
/// scope refusals.
fn nothing_fetched(s: &Summary) -> String {
    let mut causes: Vec<String> = s
        .errors_by_kind
        .iter()
        .filter(|(_, n)| **n > 0)
        .map(|(k, n)| format!("{n} refused or failed as {k}: {}", advice(k)))
        .collect();
    if s.robots_blocked > 0 {
        causes.push(format!(
            "{} forbidden by robots.txt (politeness.respect_robots)",
            s.robots_blocked
        ));
    }
    for (why, n) in &s.out_of_scope_by_reason {
        if *n > 0 {
            causes.push(format!("{n} out of scope ({why})"));
        }
    }
    if causes.is_empty() {
        "no page was fetched: the seeds gave nothing to fetch".into()
    } else {
        format!("no page was fetched: {}", causes.join("; "))
    }
}

/// The stop reason without the `(magpie crawl)` mark `status.json` adds for crawls run by the
/// command, and whether it was there.
fn split_cli(reason: &str) -> (&str, bool) {
    match reason.strip_suffix(" (magpie crawl)") {
        Some(r) => (r, true),
        None => (reason, false),
    }
}

/// Classifies a crawl from its state, the engine's stop reason (`finished`, `max-pages`,
/// `max-duration`, `interrupted`, as recorded), its error, its counters, the stop asked of it and its
/// `limits.max_pages`.
pub fn classify(
    state: CrawlState,
    stop_reason: Option<&str>,
    error: Option<&str>,
    stats: &Summary,
    stop: Option<&StopMark>,
    max_pages: u64,
) -> Outcome {
    let make = |kind: OutcomeKind, reason: String| Outcome {
        kind,
        label: kind.label().into(),
        reason,
        at: None,
        by: None,
    };
    match state {
        CrawlState::Created => make(OutcomeKind::Created, "not started yet".into()),
        CrawlState::Running => make(OutcomeKind::Running, "fetching".into()),
        CrawlState::Paused => make(
            OutcomeKind::Paused,
            "paused by the operator: nothing new is fetched until it is resumed".into(),
        ),
        CrawlState::Failed => make(
            OutcomeKind::Failed,
            format!("failed: {}", error.unwrap_or("no cause was recorded")),
        ),
        CrawlState::Finished => {
            let (reason, cli) = split_cli(stop_reason.unwrap_or(""));
            match reason {
                "max-pages" => make(
                    OutcomeKind::LimitReached,
                    format!(
                        "limits.max_pages reached: {} pages archived of {max_pages} allowed",
                        stats.pages_archived
                    ),
                ),
                "max-duration" => make(
                    OutcomeKind::LimitReached,
                    format!(
                        "limits.max_duration_s reached: {} pages archived in the time allowed",
                        stats.pages_archived
                    ),
                ),
                "interrupted" => {
                    let queued = stats.urls_queued;
                    match (stop, cli) {
                        (Some(m), _) => Outcome {
                            reason: format!(
                                "stopped by the operator (through the {}) at {}, with {queued} \
                                 URLs still queued",
                                if m.by == "api" { "API" } else { "cockpit" },
                                m.at
                            ),
                            at: Some(m.at.clone()),
                            by: Some(m.by.clone()),
                            ..make(OutcomeKind::Stopped, String::new())
                        },
                        (None, true) => Outcome {
                            by: Some("magpie crawl".into()),
                            ..make(
                                OutcomeKind::Stopped,
                                format!(
                                    "stopped in magpie crawl (Ctrl-C or a signal), with \
                                     {queued} URLs still queued"
                                ),
                            )
                        },
                        (None, false) => make(
                            OutcomeKind::Stopped,
                            format!("stopped before its end, with {queued} URLs still queued"),
                        ),
                    }
                }
                // `status.json` of a `magpie crawl` run that never recorded its end.
                "crawled by magpie crawl" => make(
                    OutcomeKind::Completed,
                    "crawled by magpie crawl (its end was not recorded)".into(),
                ),
                _ if stats.pages_fetched == 0 => {
                    make(OutcomeKind::NoSeedReachable, nothing_fetched(stats))
                }
                "finished" => make(
                    OutcomeKind::Completed,
                    format!(
                        "completed: nothing left to fetch ({} pages fetched)",
                        stats.pages_fetched
                    ),
                ),
                other => make(OutcomeKind::Completed, format!("ended: {other}")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crawl::stats::Stats;

    fn summary(pages: u64, errors: &[(&str, u64)]) -> Summary {
        let mut s = Stats::default().summary("c", "", vec![]);
        s.pages_fetched = pages;
        s.pages_archived = pages;
        s.urls_queued = 84;
        for (k, n) in errors {
            s.errors_by_kind.insert(k.to_string(), *n);
        }
        s
    }

    fn finished(reason: &str, s: &Summary, stop: Option<&StopMark>) -> Outcome {
        classify(CrawlState::Finished, Some(reason), None, s, stop, 100)
    }

    #[test]
    fn each_way_to_end_is_told_apart() {
        let some = summary(12, &[]);
        assert_eq!(
            finished("finished", &some, None).kind,
            OutcomeKind::Completed
        );
        let limit = finished("max-duration", &some, None);
        assert_eq!(limit.kind, OutcomeKind::LimitReached);
        assert!(limit.reason.contains("max_duration_s"), "{limit:?}");
        let limit = finished("max-pages", &some, None);
        assert_eq!(limit.kind, OutcomeKind::LimitReached);
        assert!(
            limit.reason.contains("12 pages archived of 100"),
            "{limit:?}"
        );

        let mark = StopMark {
            at: "2026-11-28T07:00:00Z".into(),
            by: "cockpit".into(),
        };
        let stopped = finished("interrupted", &some, Some(&mark));
        assert_eq!(stopped.kind, OutcomeKind::Stopped);
        assert_eq!(stopped.at.as_deref(), Some("2026-11-28T07:00:00Z"));
        assert_eq!(stopped.by.as_deref(), Some("cockpit"));
        assert!(
            stopped.reason.contains("operator")
                && stopped.reason.contains("2026-11-28T07:00:00Z")
                && stopped.reason.contains("84 URLs still queued"),
            "{stopped:?}"
        );
        let cli = finished("interrupted (magpie crawl)", &some, None);
        assert_eq!(
            (cli.kind, cli.by.as_deref()),
            (OutcomeKind::Stopped, Some("magpie crawl"))
        );

        let failed = classify(
            CrawlState::Failed,
            None,
            Some("disk full"),
            &some,
            None,
            100,
        );
        assert_eq!(failed.kind, OutcomeKind::Failed);
        assert!(failed.reason.contains("disk full"));
        assert_eq!(
            classify(CrawlState::Paused, None, None, &some, None, 1).kind,
            OutcomeKind::Paused
        );
    }

    #[test]
    fn a_crawl_that_fetched_nothing_says_what_refused_its_seeds() {
        let none = summary(0, &[("private-address", 6)]);
        let o = finished("finished", &none, None);
        assert_eq!(o.kind, OutcomeKind::NoSeedReachable);
        assert_eq!(o.label, "no seed reachable");
        assert!(
            o.reason.contains("6 refused or failed as private-address")
                && o.reason.contains("Allow private addresses"),
            "{o:?}"
        );
        let cli = finished("finished (magpie crawl)", &none, None);
        assert_eq!(cli.kind, OutcomeKind::NoSeedReachable);
        // Stopped before anything was fetched is still a stop, not a refusal.
        assert_eq!(
            finished("interrupted", &none, None).kind,
            OutcomeKind::Stopped
        );
    }

    #[test]
    fn names_are_stable() {
        let json = serde_json::to_value(OutcomeKind::NoSeedReachable).unwrap();
        assert_eq!(json, "no-seed-reachable");
        assert_eq!(OutcomeKind::LimitReached.as_str(), "limit-reached");
    }
}
