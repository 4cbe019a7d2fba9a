//! Running out of file descriptors while fetching: the URL goes back untried, fetching pauses,
//! and resumes with fewer fetches in flight.
//!
//! Every fetch holds a socket, and a large response a spool file. When the process reaches its
//! open-file limit (`EMFILE`) or the system its own (`ENFILE`), connects fail. That is the
//! crawler's shortage, not the server's, so the URL goes back to its queue as it was: no retry
//! spent, no error counted against it or its host, nothing archived or logged as a fetch.
//! Instead of failing the whole frontier at full speed, fetching stops for a while (one second,
//! doubling while descriptors stay short, up to thirty) and the kept idle connections are
//! closed. The crawl's own files (WARC files, the index, the frontier's log) need descriptors
//! too, and a failed write of those stops the crawl; so fetching resumes with fewer fetches in
//! flight than there were at the shortage, leaving [`RESERVE`] descriptors (or half of those
//! the fetches held, if fewer) to the rest of the process, and the cap is lifted once
//! [`LIFT_AFTER`] has passed without a shortage.

use super::Engine;
use crate::fetch::FetchError;
use crate::frontier::contract::CrawlFrontier;
use std::time::{Duration, Instant};

/// The first pause.
const FIRST_PAUSE: Duration = Duration::from_secs(1);
/// The longest pause, reached by doubling while descriptors stay short.
const LONGEST_PAUSE: Duration = Duration::from_secs(30);
/// Descriptors left free for the crawl's own files when fetching resumes.
const RESERVE: usize = 32;
/// How long fetching runs under the lowered cap before it is lifted.
const LIFT_AFTER: Duration = Duration::from_secs(600);

/// Where the crawl stands with descriptors.
#[derive(Debug, Default)]
pub(super) struct Shortage {
    /// Fetching is paused until then.
    until: Option<Instant>,
    /// When the latest pause began: fetches started before it failed for the same shortage.
    since: Option<Instant>,
    /// The latest pause; zero once a fetch got its socket after it.
    pause: Duration,
    /// Most fetches in flight since the latest shortage.
    cap: Option<usize>,
}

/// What a shortage did to fetching.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Noted {
    /// Nothing new: the fetch started before the current pause, which it is part of.
    Known,
    /// Fetching paused for `pause`, then runs with at most `cap` fetches in flight. `first`:
    /// fetching had been working since the last pause (a new shortage, not a lasting one).
    Paused {
        pause: Duration,
        cap: usize,
        first: bool,
    },
}

/// The fetches allowed in flight after a shortage with `inflight` of them in flight: enough
/// fewer to leave descriptors for everything else.
fn lowered(inflight: usize) -> usize {
    inflight.saturating_sub((inflight / 2).min(RESERVE)).max(1)
}

impl Shortage {
    /// Whether fetching is paused at `now`.
    pub(super) fn paused(&self, now: Instant) -> bool {
        self.until.is_some_and(|u| now < u)
    }

    /// When the current pause ends.
    pub(super) fn until(&self) -> Option<Instant> {
        self.until
    }

    /// The fetches allowed in flight, of `max`.
    pub(super) fn limit(&self, max: usize) -> usize {
        self.cap.map_or(max, |c| c.min(max))
    }

    /// A fetch that started at `started` found no descriptor at `now`, with `inflight` fetches
    /// in flight (itself included).
    pub(super) fn ran_out(&mut self, started: Instant, inflight: usize, now: Instant) -> Noted {
        if self.since.is_some_and(|s| started < s) {
            return Noted::Known;
        }
        let first = self.pause.is_zero();
        self.pause = if first {
            FIRST_PAUSE
        } else {
            self.pause.saturating_mul(2).min(LONGEST_PAUSE)
        };
        self.since = Some(now);
        self.until = Some(crate::frontier::politeness::after(now, self.pause));
        let cap = self.limit(lowered(inflight));
        self.cap = Some(cap);
        Noted::Paused {
            pause: self.pause,
            cap,
            first,
        }
    }

    /// Ends the pause if its time is over at `now`; true the once it does.
    pub(super) fn resume_due(&mut self, now: Instant) -> bool {
        if self.until.is_some_and(|u| u <= now) {
            self.until = None;
            return true;
        }
        false
    }

    /// A fetch started at `started` got its socket: if it started after the latest pause,
    /// descriptors are to be had again, so the next shortage is a new one; and the cap is
    /// lifted after a long enough time without one.
    pub(super) fn worked(&mut self, started: Instant, now: Instant) {
        if self.since.is_some_and(|s| started < s) {
            return;
        }
        self.pause = Duration::ZERO;
        let quiet = self
            .since
            .is_some_and(|s| now.saturating_duration_since(s) >= LIFT_AFTER);
        if self.cap.is_some() && quiet {
            tracing::info!("file descriptors: fetching back to full concurrency");
            self.cap = None;
        }
    }
}

/// What the operator is told: the cause, what fetching does now, and the way out.
fn message(errno: &str, pause: Duration, cap: usize) -> String {
    let limit = crate::process::open_file_limit()
        .map(|l| format!(", open-file limit {l}"))
        .unwrap_or_default();
    let remedy = if errno == "ENFILE" {
        "the system's file table is full: raise `fs.file-max` or close other programs"
    } else {
        "raise the open-file limit (`ulimit -Hn`, `LimitNOFILE=` under systemd)"
    };
    format!(
        "out of file descriptors ({errno}{limit}): fetching paused for {} s, then at most {cap} \
         fetches in flight; no URL is lost or counted as failed; {remedy}",
        pause.as_secs()
    )
}

impl<F: CrawlFrontier> Engine<F> {
    /// A fetch (of a page or of robots.txt) that started at `started` found no descriptor:
    /// pauses fetching unless this shortage is already known, telling the operator once.
    pub(super) fn out_of_descriptors(&mut self, e: &FetchError, started: Instant, now: Instant) {
        tracing::debug!("{e}");
        let inflight = self.inflight + 1;
        let Noted::Paused { pause, cap, first } = self.shortage.ran_out(started, inflight, now)
        else {
            return;
        };
        // The idle kept connections hold descriptors too.
        self.fetcher.close_idle();
        let errno = match e {
            FetchError::OutOfDescriptors { errno, .. } => *errno,
            _ => "EMFILE",
        };
        let text = message(errno, pause, cap);
        if first {
            tracing::warn!("{text}");
        } else {
            tracing::info!("{text}");
        }
        self.stats.set_fetching_paused(Some(text.clone()));
        self.stats
            .event("fetching-paused", format!("{}: {text}", self.spec.name()));
    }

    /// Ends a descriptor pause whose time is over.
    pub(super) fn resume_if_due(&mut self, now: Instant) {
        if self.shortage.resume_due(now) {
            self.stats.set_fetching_paused(None);
            let cap = self.shortage.limit(self.spec.limits.max_concurrency);
            self.stats.event(
                "fetching-resumed",
                format!("{}: at most {cap} fetches in flight", self.spec.name()),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shortage_pauses_once_and_longer_while_it_lasts() {
        let t0 = Instant::now();
        let s = |ms: u64| t0 + Duration::from_millis(ms);
        let mut sh = Shortage::default();
        assert!(!sh.paused(t0));
        assert_eq!(sh.limit(64), 64);
        // 64 fetches in flight, all started at t0, fail one after the other.
        assert_eq!(
            sh.ran_out(t0, 64, s(10)),
            Noted::Paused {
                pause: FIRST_PAUSE,
                cap: 32,
                first: true
            }
        );
        for i in 0..63 {
            assert_eq!(sh.ran_out(t0, 63 - i, s(11)), Noted::Known);
        }
        assert!(sh.paused(s(500)));
        assert_eq!(sh.until(), Some(s(1010)));
        assert!(!sh.resume_due(s(1009)));
        assert!(sh.resume_due(s(1010)));
        assert!(!sh.resume_due(s(1011)), "resumed once");
        assert_eq!(sh.limit(64), 32);
        // Fetches started after the pause fail again before any worked: a longer pause, fewer.
        let Noted::Paused { pause, cap, first } = sh.ran_out(s(1020), 32, s(1030)) else {
            panic!("a new pause");
        };
        assert_eq!((pause, cap, first), (FIRST_PAUSE * 2, 16, false));
        let mut at = 1030;
        for _ in 0..10 {
            assert!(sh.resume_due(s(at + 60_000)));
            at += 60_001;
            sh.ran_out(s(at), 16, s(at));
        }
        assert_eq!(sh.pause, LONGEST_PAUSE, "the pause stops growing");
        // A fetch that works resets the pause; the cap stays until long quiet.
        assert!(sh.resume_due(s(at + 60_000)));
        at += 60_000;
        sh.worked(s(at - 60_001), s(at));
        assert_eq!(
            sh.pause, LONGEST_PAUSE,
            "a fetch from before the pause tells nothing"
        );
        sh.worked(s(at), s(at));
        let Noted::Paused { pause, first, .. } = sh.ran_out(s(at + 1), 8, s(at + 2)) else {
            panic!("a new shortage");
        };
        assert_eq!((pause, first), (FIRST_PAUSE, true));
        assert!(sh.resume_due(s(at + 2000)));
        sh.worked(s(at + 2500), s(at + 3000));
        assert!(sh.limit(64) < 64);
        sh.worked(s(at + 2500), s(at + 2) + LIFT_AFTER);
        assert_eq!(sh.limit(64), 64, "lifted after long quiet");
    }

    #[test]
    fn the_cap_leaves_a_reserve_and_never_reaches_zero() {
        assert_eq!(lowered(1), 1);
        assert_eq!(lowered(2), 1);
        assert_eq!(lowered(40), 20);
        assert_eq!(lowered(64), 32);
        assert_eq!(lowered(1000), 1000 - RESERVE);
    }

    #[test]
    fn the_message_names_the_cause_and_the_way_out() {
        let m = message("EMFILE", Duration::from_secs(2), 12);
        for needle in [
            "out of file descriptors (EMFILE",
            "2 s",
            "at most 12",
            "ulimit",
        ] {
            assert!(m.contains(needle), "{needle} in {m}");
        }
        assert!(message("ENFILE", FIRST_PAUSE, 1).contains("fs.file-max"));
    }
}
