//! How choosy a focused crawl can afford to be: the regime (is it bound by its page budget or by
//! its time?) and the pace that keeps politeness slots from standing idle.
//!
//! Best-N-first ([`super::best_n`]) keeps the crawl's fetches among its N best queued URLs.
//! With politeness pauses those URLs sit on a few hosts that are pausing, and every other host,
//! ready to fetch, waits: with 1 s pauses on 48 hosts a focused crawl ran at about 4 pages/s
//! where 48 were allowed. That is right when pages are the scarce resource, and wasteful when
//! time is: a crawl that will run out of time before it runs out of pages should give every
//! idle slot the best URL of its host. So the crawl compares the rate at which its remaining
//! page budget must be spent with the rate politeness allows (its *capacity*), and a held-back
//! host is let go whenever the crawl falls behind the pace it needs.
//!
//! The rule (also in `docs/crawl-spec.md`, `limits.max_duration_s`): with `P` pages left, `T`
//! seconds left and a capacity of `C` pages/s,
//!
//! - a time limit, `P / T ≥ C`: **time-bound**. The budget cannot run out before the time, so
//!   the gate is off: every ready host fetches its best URL.
//! - a time limit, `P / T < C`: **page-bound**, paced at `1.1 × P / T`: the best-N gate holds,
//!   but whenever the crawl runs slower than that pace, the best held-back host goes anyway, so
//!   the budget is spent within the time and on the best URLs that fit.
//! - no time limit, `P / C` under a day: **page-bound**, paced at `C / 2`: the crawl keeps to its
//!   best URLs as long as it runs at least half as fast as politeness allows, so the budget
//!   takes at most about twice the time the fastest crawl would need.
//! - no time limit, `P / C` a day or more (an open-ended crawl an operator lets run):
//!   **time-bound**, as above.
//!
//! The capacity is the least of three estimates, kept as moving averages of what the crawl
//! saw: hosts with work (ready, pausing or fetching) divided by the mean time from one fetch of
//! a host to its next (the fetch plus the pause after it); the concurrency limit divided by the
//! mean fetch time; and what the processor threads can analyse (cores divided by the mean
//! processing time of a page), which is what binds when there is no politeness pause at all.

use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// The pace asked of a page-bound crawl with a time limit is this much above the bare need, so
/// that the budget is spent somewhat before the time is up.
pub const MARGIN: f64 = 1.1;
/// A page-bound crawl without a time limit may run this many times slower than its capacity.
pub const SLACK: f64 = 2.0;
/// Without a time limit, a budget that would last this long at full capacity is open-ended.
pub const OPEN_ENDED: Duration = Duration::from_secs(86_400);
/// Weight of a new sample in the moving averages.
const ALPHA: f64 = 0.05;

/// What binds the crawl.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Regime {
    /// No best-N gate (the crawl has no topic, or `frontier.best_n` is 0): every ready host
    /// fetches.
    Ungated,
    /// Pages are scarce: the gate holds, paced so the crawl does not fall too far behind.
    PageBound,
    /// Time is scarce: the gate is off, no politeness slot is left idle.
    TimeBound,
}

/// What the crawl has left, as the engine sees it.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// Pages of `limits.max_pages` not yet spent (fetches in flight counted as spent).
    pub pages_left: u64,
    /// Time left before `limits.max_duration_s` (`None`: no time limit).
    pub time_left: Option<Duration>,
    /// `limits.max_concurrency` as in force.
    pub concurrency: usize,
    /// Pages per second the processor threads can analyse (`None`: not measured yet).
    pub processing_rate: Option<f64>,
}

/// The regime and pace decided from a budget and a capacity.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Decision {
    /// What binds.
    pub regime: Regime,
    /// Pages per second the crawl should not fall below (0: none).
    pub pace: f64,
}

/// Decides the regime and pace (see the module documentation for the rule). `capacity` is in
/// pages per second; a capacity that is not a positive finite number counts as unknown, and an
/// unknown capacity keeps the gate as it is (page-bound, no pace).
pub fn decide(pages_left: u64, time_left: Option<Duration>, capacity: f64) -> Decision {
    let pages = pages_left as f64;
    let known = capacity.is_finite() && capacity > 0.0;
    match time_left {
        Some(t) => {
            let secs = t.as_secs_f64();
            let need = if secs > 0.0 {
                pages / secs
            } else {
                f64::INFINITY
            };
            if known && need >= capacity {
                Decision {
                    regime: Regime::TimeBound,
                    pace: capacity,
                }
            } else {
                Decision {
                    regime: Regime::PageBound,
                    pace: if need.is_finite() { need * MARGIN } else { 0.0 },
                }
            }
        }
        None if !known => Decision {
            regime: Regime::PageBound,
            pace: 0.0,
        },
        None if pages / capacity >= OPEN_ENDED.as_secs_f64() => Decision {
            regime: Regime::TimeBound,
            pace: capacity,
        },
        None => Decision {
            regime: Regime::PageBound,
            pace: capacity / SLACK,
        },
    }
}

/// A moving average that knows whether it has seen anything.
#[derive(Debug, Clone, Copy, Default)]
struct Ewma(Option<f64>);

impl Ewma {
    fn add(&mut self, x: f64) {
        if x.is_finite() {
            self.0 = Some(self.0.map_or(x, |m| m + ALPHA * (x - m)));
        }
    }
}

/// The frontier's pacing state: the decision in force, a token bucket filled at the pace (a
/// held-back host may go when a token is there; every URL handed out takes one), and the
/// averages the capacity is estimated from.
#[derive(Debug, Clone)]
pub struct Pacer {
    decision: Decision,
    capacity: f64,
    budget: Option<Budget>,
    tokens: f64,
    at: Option<Instant>,
    /// Mean time from a host's fetch to its next: the fetch's duration plus the pause after it.
    cycle: Ewma,
    /// Mean fetch duration.
    duration: Ewma,
    /// URLs handed out that best-N alone would have held back.
    released: u64,
    /// Ready hosts best-N held back when last looked at.
    held: u64,
}

impl Default for Pacer {
    fn default() -> Self {
        Pacer {
            decision: Decision {
                regime: Regime::PageBound,
                pace: 0.0,
            },
            capacity: f64::NAN,
            budget: None,
            tokens: 0.0,
            at: None,
            cycle: Ewma::default(),
            duration: Ewma::default(),
            released: 0,
            held: 0,
        }
    }
}

/// The pacing as shown by the API, `--json` and the cockpit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PacingView {
    /// What binds the crawl now: `page-bound`, `time-bound` or `ungated`.
    pub regime: Regime,
    /// Pages per second the crawl keeps to at least (0: none).
    pub pace: f64,
    /// Estimated pages per second the politeness rules, the concurrency limit and the processor
    /// threads allow (0: not known yet).
    pub capacity: f64,
    /// Pages of the budget left.
    pub pages_left: u64,
    /// Seconds left before the time limit (absent: no time limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds_left: Option<f64>,
    /// Ready hosts that wait because their best URL is not among the N best.
    pub hosts_held_back: u64,
    /// URLs handed out although best-N would have held their host back (to keep the pace).
    pub released: u64,
    /// The regime and why a ready host waits, in a sentence.
    pub why: String,
}

impl Pacer {
    /// Counts a finished fetch of `duration` followed by a pause of `pause`.
    pub fn fetched(&mut self, duration: Duration, pause: Duration) {
        self.duration.add(duration.as_secs_f64());
        self.cycle.add(duration.saturating_add(pause).as_secs_f64());
    }

    /// Decides again from `budget`, with `busy_hosts` hosts that have work (ready, pausing or
    /// fetching), and fills the bucket up to `now`.
    pub fn update(&mut self, budget: Budget, busy_hosts: u64, now: Instant) {
        let polite = self
            .cycle
            .0
            .map_or(f64::INFINITY, |c| busy_hosts as f64 / c.max(1e-6));
        let parallel = self
            .duration
            .0
            .map_or(f64::INFINITY, |d| budget.concurrency as f64 / d.max(1e-6));
        let processing = budget.processing_rate.unwrap_or(f64::INFINITY);
        let c = polite.min(parallel).min(processing);
        self.capacity = if c.is_finite() { c } else { f64::NAN };
        self.decision = decide(budget.pages_left, budget.time_left, self.capacity);
        self.budget = Some(budget);
        self.refill(now);
    }

    fn refill(&mut self, now: Instant) {
        let pace = self.decision.pace;
        if let Some(at) = self.at.filter(|at| now > *at) {
            let burst = pace.max(1.0);
            self.tokens = (self.tokens + pace * (now - at).as_secs_f64()).min(burst);
        }
        if self.at.is_none_or(|at| now > at) {
            self.at = Some(now);
        }
    }

    /// The regime in force.
    #[cfg(test)]
    pub fn regime(&self) -> Regime {
        self.decision.regime
    }

    /// Whether a host best-N holds back may go now.
    pub fn may_release(&self) -> bool {
        self.decision.regime == Regime::TimeBound || self.tokens >= 1.0
    }

    /// Counts a URL handed out; `released` when best-N alone would have held it back.
    pub fn spend(&mut self, released: bool) {
        self.tokens = (self.tokens - 1.0).max(0.0);
        self.released += u64::from(released);
    }

    /// Remembers how many ready hosts best-N holds back.
    pub fn set_held(&mut self, held: u64) {
        self.held = held;
    }

    /// When the bucket will hold a token again (`None`: it does or never will).
    pub fn wake(&self) -> Option<Instant> {
        let pace = self.decision.pace;
        if self.may_release() || pace <= 0.0 {
            return None;
        }
        let secs = ((1.0 - self.tokens) / pace).min(OPEN_ENDED.as_secs_f64());
        self.at
            .map(|at| super::politeness::after(at, Duration::from_secs_f64(secs)))
    }

    /// The view served; `gated` says whether the crawl has a best-N gate at all.
    pub fn view(&self, gated: bool) -> PacingView {
        let regime = if gated {
            self.decision.regime
        } else {
            Regime::Ungated
        };
        let capacity = if self.capacity.is_finite() {
            self.capacity
        } else {
            0.0
        };
        let pages_left = self.budget.map_or(0, |b| b.pages_left);
        let seconds_left = self
            .budget
            .and_then(|b| b.time_left)
            .map(|t| t.as_secs_f64());
        let pace = if gated { self.decision.pace } else { 0.0 };
        let held = if gated { self.held } else { 0 };
        let why = explain(regime, pace, capacity, pages_left, seconds_left, held);
        PacingView {
            regime,
            pace,
            capacity,
            pages_left,
            seconds_left,
            hosts_held_back: held,
            released: self.released,
            why,
        }
    }
}

/// The sentence of [`PacingView::why`].
fn explain(
    regime: Regime,
    pace: f64,
    capacity: f64,
    pages: u64,
    seconds: Option<f64>,
    held: u64,
) -> String {
    let time = match seconds {
        Some(s) => format!("{s:.0} s left"),
        None => "no time limit".to_string(),
    };
    let cap = if capacity > 0.0 {
        format!("{capacity:.1} pages/s allowed")
    } else {
        "capacity not measured yet".to_string()
    };
    match regime {
        Regime::Ungated => {
            "ungated: no best-N gate (no topic, or frontier.best_n 0), every ready host fetches"
                .to_string()
        }
        Regime::TimeBound => format!(
            "time-bound: {pages} pages left, {time}, {cap}: no politeness slot is left idle, \
             every ready host fetches its best URL"
        ),
        Regime::PageBound => {
            let waits = if held == 0 {
                "no ready host waits".to_string()
            } else {
                format!("{held} ready host(s) wait because their best URL is not among the N best")
            };
            let paced = if pace > 0.0 {
                format!(", released when the crawl falls below {pace:.1} pages/s")
            } else {
                String::new()
            };
            format!("page-bound: {pages} pages left, {time}, {cap}: {waits}{paced}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: u64) -> Option<Duration> {
        Some(Duration::from_secs(s))
    }

    #[test]
    fn a_budget_that_outlasts_the_time_is_time_bound() {
        // 10,000 pages in 120 s need 83 pages/s; politeness allows 48.
        let d = decide(10_000, secs(120), 48.0);
        assert_eq!(d.regime, Regime::TimeBound);
        assert_eq!(d.pace, 48.0);
    }

    #[test]
    fn a_budget_that_runs_out_first_is_page_bound_and_paced_to_fit_the_time() {
        // 2,000 pages in 120 s need 16.7 pages/s; politeness allows 48.
        let d = decide(2_000, secs(120), 48.0);
        assert_eq!(d.regime, Regime::PageBound);
        assert!((d.pace - 2_000.0 / 120.0 * MARGIN).abs() < 1e-9, "{d:?}");
    }

    #[test]
    fn without_a_time_limit_a_budget_is_page_bound_at_half_the_capacity() {
        let d = decide(2_000, None, 48.0);
        assert_eq!(d.regime, Regime::PageBound);
        assert!((d.pace - 24.0).abs() < 1e-9);
    }

    #[test]
    fn an_open_ended_crawl_is_time_bound() {
        // 10^12 pages would take years at 48 pages/s.
        let d = decide(1_000_000_000_000, None, 48.0);
        assert_eq!(d.regime, Regime::TimeBound);
        // Just under a day of pages is still a budget.
        let d = decide(48 * 86_399, None, 48.0);
        assert_eq!(d.regime, Regime::PageBound);
    }

    #[test]
    fn an_unknown_capacity_keeps_the_gate_unpaced_without_a_time_limit() {
        assert_eq!(
            decide(2_000, None, f64::NAN),
            Decision {
                regime: Regime::PageBound,
                pace: 0.0
            }
        );
        // With a time limit the need alone sets the pace.
        let d = decide(100, secs(10), f64::NAN);
        assert_eq!(d.regime, Regime::PageBound);
        assert!((d.pace - 11.0).abs() < 1e-9);
        // No time left: nothing is gained by waiting.
        assert_eq!(decide(100, secs(0), 48.0).regime, Regime::TimeBound);
    }

    #[test]
    fn capacity_is_the_least_of_politeness_concurrency_and_processing() {
        let mut p = Pacer::default();
        let t0 = Instant::now();
        for _ in 0..200 {
            p.fetched(Duration::from_millis(10), Duration::from_millis(990));
        }
        let budget = Budget {
            pages_left: 2_000,
            time_left: None,
            concurrency: 64,
            processing_rate: Some(300.0),
        };
        // 48 hosts, one fetch a second each: 48 pages/s (concurrency allows 6,400, processing 300).
        p.update(budget, 48, t0);
        assert!((p.capacity - 48.0).abs() < 0.5, "{}", p.capacity);
        assert_eq!(p.regime(), Regime::PageBound);
        // No pause at all: the processor threads bind.
        let mut q = Pacer::default();
        for _ in 0..200 {
            q.fetched(Duration::from_millis(10), Duration::ZERO);
        }
        q.update(budget, 48, t0);
        assert!((q.capacity - 300.0).abs() < 1e-6, "{}", q.capacity);
    }

    #[test]
    fn the_bucket_fills_at_the_pace_and_each_url_takes_a_token() {
        let mut p = Pacer::default();
        let t0 = Instant::now();
        for _ in 0..100 {
            p.fetched(Duration::ZERO, Duration::from_secs(1));
        }
        let budget = Budget {
            pages_left: 2_000,
            time_left: None,
            concurrency: 64,
            processing_rate: None,
        };
        // 20 hosts at one fetch a second: capacity 20, pace 10 pages/s.
        p.update(budget, 20, t0);
        assert!(!p.may_release(), "an empty bucket holds hosts back");
        let wake = p.wake().expect("a paced bucket says when it fills");
        assert!(
            wake > t0 && wake <= t0 + Duration::from_millis(101),
            "{wake:?}"
        );
        p.update(budget, 20, t0 + Duration::from_millis(150));
        assert!(p.may_release(), "a token after 1/pace seconds");
        p.spend(true);
        assert!(!p.may_release());
        // A long lull does not save up more than a second of tokens.
        p.update(budget, 20, t0 + Duration::from_secs(60));
        for _ in 0..10 {
            assert!(p.may_release());
            p.spend(false);
        }
        assert!(!p.may_release());
        assert_eq!(p.view(true).released, 1);
    }

    #[test]
    fn a_time_bound_crawl_always_releases_and_says_why() {
        let mut p = Pacer::default();
        let t0 = Instant::now();
        p.fetched(Duration::ZERO, Duration::from_secs(1));
        let budget = Budget {
            pages_left: 1_000_000,
            time_left: Some(Duration::from_secs(120)),
            concurrency: 64,
            processing_rate: None,
        };
        p.update(budget, 48, t0);
        assert_eq!(p.regime(), Regime::TimeBound);
        assert!(p.may_release() && p.wake().is_none());
        let v = p.view(true);
        assert!(v.why.starts_with("time-bound"), "{}", v.why);
        assert_eq!(v.seconds_left, Some(120.0));
        assert_eq!(p.view(false).regime, Regime::Ungated);
    }
}
