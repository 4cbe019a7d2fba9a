//! The retry policy: what becomes of a URL after one attempt, decided from the attempt, the
//! retries already spent and the spec's limits alone, so it is tested without a server, a
//! frontier or a clock. The engine carries the decision out (logs, counters, the frontier's
//! completion).

use std::time::Duration;

use crate::frontier::politeness::FetchTiming;

/// One attempt at a URL, as the policy sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Attempt {
    /// The server answered (completely or not).
    Answer {
        /// Its status code.
        status: u16,
        /// The server closed the connection before the whole answer came
        /// (`WARC-Truncated: disconnect`).
        disconnected: bool,
        /// Its `Retry-After`, read.
        retry_after: Option<Duration>,
    },
    /// No answer: the fetch failed (`kind` as `FetchError::kind`), or the exchange could not be
    /// processed (`archive`).
    NoAnswer {
        /// The failure's kind, for the error counters and the crawl log.
        kind: &'static str,
        /// Whether trying again may help (a reset, a timeout; not a refused private address).
        retryable: bool,
    },
    /// The crawler's own shortage (it had no file descriptor for the socket): not the URL's
    /// failure nor its host's.
    Local,
}

/// What to do with the URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Decision {
    /// Back in its queue as it was: nothing counted, no pause for its host.
    Untried,
    /// Queued again with one more attempt counted, after the pause `timing` gives its host.
    Retry {
        /// The error counted (`http-503`, `disconnect`, `connect`, ...).
        error: String,
        /// The fetch's timing, with the backoff (and the server's `Retry-After`).
        timing: FetchTiming,
    },
    /// Given up on: counted as an error, never fetched again in this crawl.
    Fail {
        /// The error counted.
        error: &'static str,
        /// The fetch's timing, with the backoff the host pauses for.
        timing: FetchTiming,
    },
    /// An answer to archive and follow: a success, or a failure whose retries are spent.
    Keep,
}

/// The limits the policy reads.
#[derive(Debug, Clone, Copy)]
pub(super) struct RetryLimits {
    /// `limits.max_retries`: attempts after the first.
    pub max_retries: u8,
    /// `limits.retry_delay_ms`: the first backoff, doubled on each retry.
    pub retry_delay: Duration,
}

/// Decides what becomes of a URL after `attempt`, its `retries` spent before it, the attempt
/// having taken `took`. A server error (5xx), a `429` or an answer cut off by the server is
/// tried again while retries are left, and archived once they are spent; a failed fetch is
/// tried again when retrying may help, and given up on otherwise.
pub(super) fn decide(attempt: &Attempt, retries: u8, took: Duration, l: RetryLimits) -> Decision {
    let timing = |retry_after| FetchTiming {
        duration: took,
        retry_after,
        backoff: Some(backoff(l.retry_delay, retries)),
    };
    let left = retries < l.max_retries;
    match *attempt {
        Attempt::Local => Decision::Untried,
        Attempt::Answer {
            status,
            disconnected,
            retry_after,
        } => {
            let failed = status >= 500 || status == 429 || disconnected;
            if failed && left {
                Decision::Retry {
                    error: if disconnected {
                        "disconnect".to_string()
                    } else {
                        format!("http-{status}")
                    },
                    timing: timing(retry_after),
                }
            } else {
                Decision::Keep
            }
        }
        Attempt::NoAnswer { kind, retryable } if retryable && left => Decision::Retry {
            error: kind.to_string(),
            timing: timing(None),
        },
        Attempt::NoAnswer { kind, .. } => Decision::Fail {
            error: kind,
            timing: timing(None),
        },
    }
}

/// One attempt at a host's robots.txt, as the policy sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum RobotsAttempt {
    /// Rules to follow: the file, or an answer that stands for it (a `404` allows all).
    Rules,
    /// No rules: the fetch failed, or the server's answer is a temporary failure (5xx).
    Failed {
        /// The host's address is private and `network.allow_private` is off.
        private: bool,
    },
}

/// What becomes of a host after an attempt at its robots.txt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum RobotsDecision {
    /// The rules hold until they expire.
    Done,
    /// Asked for again after `retry_in`; its queue waits.
    Retry { retry_in: Duration },
    /// Refused by policy (a private address): asking again cannot help, its queue is refused.
    Refuse { retry_in: Duration },
    /// Failed more than `limits.max_retries` times: its queue is given up.
    GiveUp { retry_in: Duration },
}

/// Decides what becomes of a host after an attempt at its robots.txt, `failures` attempts
/// having failed before it. (An attempt that found no file descriptor is no attempt: the engine
/// asks for the file again, see `descriptors.rs`.) The backoff counts the earlier failures, as [`decide`]'s counts
/// retries; the host is given up on the failure past `max_retries`.
pub(super) fn decide_robots(
    attempt: RobotsAttempt,
    failures: u32,
    l: RetryLimits,
) -> RobotsDecision {
    let retry_in = backoff(l.retry_delay, failures.min(8) as u8);
    match attempt {
        RobotsAttempt::Rules => RobotsDecision::Done,
        RobotsAttempt::Failed { private: true } => RobotsDecision::Refuse { retry_in },
        RobotsAttempt::Failed { private: false } if failures >= u32::from(l.max_retries) => {
            RobotsDecision::GiveUp { retry_in }
        }
        RobotsAttempt::Failed { private: false } => RobotsDecision::Retry { retry_in },
    }
}

/// Exponential backoff: `base × 2^attempt`, at most an hour.
pub(in crate::crawl) fn backoff(base: Duration, attempt: u8) -> Duration {
    base.saturating_mul(1u32 << attempt.min(16))
        .min(Duration::from_secs(3600))
}

#[cfg(test)]
mod tests {
    use super::*;

    const L: RetryLimits = RetryLimits {
        max_retries: 2,
        retry_delay: Duration::from_millis(100),
    };
    const TOOK: Duration = Duration::from_millis(30);

    fn answer(status: u16) -> Attempt {
        Attempt::Answer {
            status,
            disconnected: false,
            retry_after: None,
        }
    }

    #[test]
    fn backoff_doubles_and_is_bounded() {
        let ms = Duration::from_millis;
        assert_eq!(backoff(ms(100), 0), ms(100));
        assert_eq!(backoff(ms(100), 3), ms(800));
        assert_eq!(backoff(Duration::MAX, 40), Duration::from_secs(3600));
    }

    #[test]
    fn answers_are_kept_unless_the_server_failed_and_retries_are_left() {
        for status in [200, 204, 301, 304, 404, 410] {
            assert_eq!(
                decide(&answer(status), 0, TOOK, L),
                Decision::Keep,
                "{status}"
            );
        }
        for status in [500, 503, 429] {
            let Decision::Retry { error, timing } = decide(&answer(status), 1, TOOK, L) else {
                panic!("{status} with a retry left is retried");
            };
            assert_eq!(error, format!("http-{status}"));
            assert_eq!(timing.duration, TOOK);
            assert_eq!(timing.backoff, Some(Duration::from_millis(200)));
            // Retries spent: archived as it is.
            assert_eq!(decide(&answer(status), 2, TOOK, L), Decision::Keep);
        }
    }

    #[test]
    fn a_servers_retry_after_and_a_cut_off_answer_are_carried() {
        let wait = Some(Duration::from_secs(7));
        let busy = Attempt::Answer {
            status: 503,
            disconnected: false,
            retry_after: wait,
        };
        assert!(matches!(
            decide(&busy, 0, TOOK, L),
            Decision::Retry { timing, .. } if timing.retry_after == wait
        ));
        let cut = Attempt::Answer {
            status: 200,
            disconnected: true,
            retry_after: None,
        };
        assert!(matches!(
            decide(&cut, 0, TOOK, L),
            Decision::Retry { error, .. } if error == "disconnect"
        ));
        assert_eq!(decide(&cut, 2, TOOK, L), Decision::Keep);
    }

    #[test]
    fn a_robots_failure_backs_off_then_gives_the_host_up() {
        let failed = RobotsAttempt::Failed { private: false };
        let ms = Duration::from_millis;
        assert_eq!(
            decide_robots(failed, 0, L),
            RobotsDecision::Retry { retry_in: ms(100) }
        );
        assert_eq!(
            decide_robots(failed, 1, L),
            RobotsDecision::Retry { retry_in: ms(200) }
        );
        // The third failure is past `max_retries` (2).
        assert_eq!(
            decide_robots(failed, 2, L),
            RobotsDecision::GiveUp { retry_in: ms(400) }
        );
        // The backoff stops growing after eight failures.
        let many = RetryLimits {
            max_retries: u8::MAX,
            ..L
        };
        assert_eq!(
            decide_robots(failed, 40, many),
            decide_robots(failed, 8, many)
        );
    }

    #[test]
    fn robots_rules_and_a_private_address() {
        assert_eq!(
            decide_robots(RobotsAttempt::Rules, 5, L),
            RobotsDecision::Done
        );
        assert_eq!(
            decide_robots(RobotsAttempt::Failed { private: true }, 0, L),
            RobotsDecision::Refuse {
                retry_in: Duration::from_millis(100)
            }
        );
    }

    #[test]
    fn failed_fetches_are_retried_only_when_that_may_help() {
        let reset = Attempt::NoAnswer {
            kind: "connect",
            retryable: true,
        };
        assert!(matches!(decide(&reset, 0, TOOK, L), Decision::Retry { .. }));
        assert!(matches!(
            decide(&reset, 2, TOOK, L),
            Decision::Fail { error: "connect", timing } if timing.backoff == Some(Duration::from_millis(400))
        ));
        let private = Attempt::NoAnswer {
            kind: "private-address",
            retryable: false,
        };
        assert!(matches!(
            decide(&private, 0, TOOK, L),
            Decision::Fail { .. }
        ));
        let none = RetryLimits {
            max_retries: 0,
            ..L
        };
        assert!(matches!(
            decide(&reset, 0, TOOK, none),
            Decision::Fail { .. }
        ));
        assert_eq!(decide(&Attempt::Local, 9, TOOK, L), Decision::Untried);
    }
}
