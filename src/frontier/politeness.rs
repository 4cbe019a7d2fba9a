//! Per-host and per-IP politeness: when may the next fetch from a host start, and why not yet.
//!
//! A host may start a fetch when its own pause has elapsed, it has fewer fetches in flight than
//! `max_parallel_per_host`, and the politeness slot it shares with every host on the same IP
//! address has elapsed too and has room. The pause after a fetch is
//! `clamp(delay_factor × fetch duration, min_delay, max_delay)`, or the robots.txt Crawl-delay if
//! larger, or a server's Retry-After if larger still.

use serde::Serialize;
use std::collections::HashMap;
use std::net::IpAddr;
use std::time::{Duration, Instant};

/// Why a host is waiting; shown by the API and the cockpit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum WaitReason {
    /// Not waiting.
    Ready,
    /// The adaptive pause after the last fetch.
    AdaptiveDelay,
    /// robots.txt Crawl-delay.
    CrawlDelay,
    /// The server asked for a pause (`Retry-After` on 429/503).
    RetryAfter,
    /// Backing off after errors.
    ErrorBackoff,
    /// `max_pages_per_host` reached.
    BudgetExhausted,
    /// As many fetches in flight as allowed.
    Busy,
}

/// The knobs of the politeness policy.
#[derive(Debug, Clone)]
pub struct PolitenessConfig {
    /// Lower bound of the adaptive pause.
    pub min_delay: Duration,
    /// Upper bound of the adaptive pause.
    pub max_delay: Duration,
    /// Pause = factor × last fetch duration.
    pub delay_factor: f64,
    /// Fetches in flight per host.
    pub max_parallel_per_host: u32,
    /// Fetches in flight per IP address.
    pub max_parallel_per_ip: u32,
    /// Upper bound of an honoured Retry-After.
    pub max_retry_after: Duration,
}

/// The slot shared by all hosts on one IP address (or one host, before its IP is known).
#[derive(Debug, Default, Clone)]
pub struct Slot {
    /// Fetches in flight.
    pub inflight: u32,
    /// No fetch starts before this.
    pub next_allowed: Option<Instant>,
}

/// How a fetch ended, for the politeness policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FetchTiming {
    /// How long the exchange took.
    pub duration: Duration,
    /// A server-requested pause (429/503 `Retry-After`).
    pub retry_after: Option<Duration>,
    /// An error backoff (network errors, 5xx).
    pub backoff: Option<Duration>,
}

/// Computes the pause after a fetch and its reason.
pub fn pause_after(
    cfg: &PolitenessConfig,
    crawl_delay: Option<Duration>,
    t: &FetchTiming,
) -> (Duration, WaitReason) {
    // Validation bounds the factor and the delays, but this runs on every fetch of a long
    // crawl: a product too large for a `Duration` is taken as `max_delay` (never a panic, as
    // `mul_f64` would), and `min_delay` wins over a smaller `max_delay` (never a `clamp` panic).
    let product = t.duration.as_secs_f64() * cfg.delay_factor;
    let adaptive = Duration::try_from_secs_f64(product)
        .unwrap_or(cfg.max_delay)
        .min(cfg.max_delay)
        .max(cfg.min_delay);
    let mut best = (adaptive, WaitReason::AdaptiveDelay);
    if let Some(cd) = crawl_delay {
        if cd > best.0 {
            best = (cd, WaitReason::CrawlDelay);
        }
    }
    if let Some(b) = t.backoff {
        if b > best.0 {
            best = (b, WaitReason::ErrorBackoff);
        }
    }
    if let Some(ra) = t.retry_after {
        let ra = ra.min(cfg.max_retry_after);
        if ra > best.0 {
            best = (ra, WaitReason::RetryAfter);
        }
    }
    best
}

/// The longest wait [`after`] computes: a year, longer than any delay a valid spec allows.
pub const MAX_WAIT: Duration = Duration::from_secs(365 * 86_400);

/// `now + wait`, the wait capped at [`MAX_WAIT`]: an `Instant` plus a `Duration` panics on
/// overflow, and the wait may come from a spec, a robots.txt or a server's header.
pub fn after(now: Instant, wait: Duration) -> Instant {
    let wait = wait.min(MAX_WAIT);
    now.checked_add(wait).unwrap_or(now)
}

/// The politeness slots by IP address, plus per-host slots for hosts whose IP is not known yet.
#[derive(Debug, Default)]
pub struct Slots {
    by_ip: HashMap<IpAddr, Slot>,
    by_host: HashMap<u32, Slot>,
}

/// Which slot a host uses.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum SlotId {
    /// Shared by every host on this address.
    Ip(IpAddr),
    /// The host alone, by host id (IP not known yet).
    Host(u32),
}

impl Slots {
    /// The slot, created on first use.
    pub fn get_mut(&mut self, id: &SlotId) -> &mut Slot {
        match id {
            SlotId::Ip(ip) => self.by_ip.entry(*ip).or_default(),
            SlotId::Host(h) => self.by_host.entry(*h).or_default(),
        }
    }

    /// The slot, if it exists.
    pub fn get(&self, id: &SlotId) -> Option<&Slot> {
        match id {
            SlotId::Ip(ip) => self.by_ip.get(ip),
            SlotId::Host(h) => self.by_host.get(h),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> PolitenessConfig {
        PolitenessConfig {
            min_delay: Duration::from_millis(100),
            max_delay: Duration::from_secs(2),
            delay_factor: 5.0,
            max_parallel_per_host: 1,
            max_parallel_per_ip: 1,
            max_retry_after: Duration::from_secs(10),
        }
    }

    fn timing(ms: u64) -> FetchTiming {
        FetchTiming {
            duration: Duration::from_millis(ms),
            retry_after: None,
            backoff: None,
        }
    }

    #[test]
    fn adaptive_pause_is_clamped() {
        let c = cfg();
        assert_eq!(
            pause_after(&c, None, &timing(1)).0,
            Duration::from_millis(100)
        );
        assert_eq!(
            pause_after(&c, None, &timing(60)).0,
            Duration::from_millis(300)
        );
        assert_eq!(
            pause_after(&c, None, &timing(5000)).0,
            Duration::from_secs(2)
        );
    }

    #[test]
    fn extreme_factors_and_delays_never_panic() {
        let huge = PolitenessConfig {
            delay_factor: 1e308,
            ..cfg()
        };
        assert_eq!(
            pause_after(&huge, None, &timing(30_000)).0,
            Duration::from_secs(2),
            "an overflowing product is max_delay"
        );
        let inverted = PolitenessConfig {
            min_delay: Duration::from_secs(5),
            max_delay: Duration::from_secs(1),
            ..cfg()
        };
        assert_eq!(
            pause_after(&inverted, None, &timing(1)).0,
            Duration::from_secs(5)
        );
        let t = FetchTiming {
            duration: Duration::MAX,
            retry_after: Some(Duration::MAX),
            backoff: Some(Duration::MAX),
        };
        let (d, _) = pause_after(&huge, Some(Duration::MAX), &t);
        let now = Instant::now();
        assert_eq!(after(now, d), now + MAX_WAIT);
        assert_eq!(
            after(now, Duration::from_secs(3)),
            now + Duration::from_secs(3)
        );
    }

    #[test]
    fn crawl_delay_and_retry_after_win_when_larger() {
        let c = cfg();
        let (d, why) = pause_after(&c, Some(Duration::from_secs(1)), &timing(10));
        assert_eq!((d, why), (Duration::from_secs(1), WaitReason::CrawlDelay));
        let t = FetchTiming {
            retry_after: Some(Duration::from_secs(3600)),
            ..timing(10)
        };
        let (d, why) = pause_after(&c, Some(Duration::from_secs(1)), &t);
        assert_eq!((d, why), (Duration::from_secs(10), WaitReason::RetryAfter));
    }
}
