//! The accepted range of every numeric spec key, checked by `Spec::validate`.
//!
//! Each range is wide enough for any sensible crawl and narrow enough that nothing computed from
//! the value can overflow or panic: every duration stays under a year, so an `Instant` plus it
//! always exists; factors and weights stay small, so products with fetch times and scores stay
//! finite; counts stay far from their type's maximum, so adding one never wraps. The same ranges
//! are listed in `docs/crawl-spec.md`; keep the two in step.

use super::{invalid, RawSpec, SpecError};

/// One day in milliseconds: the longest pause, timeout or backoff a spec may ask for.
pub const DAY_MS: u64 = 86_400_000;
/// One year in seconds: the longest robots.txt lifetime.
pub const YEAR_S: u64 = 31_536_000;
/// The largest multiplier of a fetch's duration (`politeness.delay_factor`).
pub const MAX_DELAY_FACTOR: f64 = 1000.0;
/// The largest weight of a score component (the analysis checks it).
pub use crate::analysis::MAX_WEIGHT;

/// Every integer key as (JSON path, least, greatest accepted).
pub const INTEGER_RANGES: &[(&str, u64, u64)] = &[
    ("scope.max_depth", 0, 10_000),
    ("scope.max_path_repeats", 0, 1_000),
    ("scope.max_redirects", 0, 1_000),
    ("scope.max_sitemap_depth", 1, 1_000),
    ("politeness.min_delay_ms", 0, DAY_MS),
    ("politeness.max_delay_ms", 0, DAY_MS),
    ("politeness.max_parallel_per_host", 1, 1_000),
    ("politeness.max_parallel_per_ip", 1, 1_000),
    ("politeness.max_retry_after_ms", 0, DAY_MS),
    ("politeness.robots_ttl_s", 0, YEAR_S),
    ("limits.max_pages", 1, 1_000_000_000_000),
    ("limits.max_bytes_per_page", 1, 1 << 32),
    ("limits.timeout_ms", 1, DAY_MS),
    ("limits.connect_timeout_ms", 1, DAY_MS),
    ("limits.max_pages_per_host", 1, 1_000_000_000_000),
    ("limits.max_url_length", 16, 65_536),
    ("limits.max_retries", 0, 16),
    ("limits.retry_delay_ms", 0, DAY_MS),
    ("limits.max_concurrency", 1, 10_000),
    ("limits.max_links_per_page", 0, 1_000_000),
    ("limits.max_duration_s", 1, YEAR_S),
    ("warc.max_file_bytes", 1024, 1 << 40),
    ("warc.gzip_level", 0, 9),
    ("frontier.balance_per_queue", 1, 1_000_000),
    ("frontier.best_n", 0, 1 << 40),
];

/// The value of every integer key of `raw`, by JSON path (`None`: unset, as
/// `max_parallel_per_ip` may be).
fn integer_values(raw: &RawSpec) -> [(&'static str, Option<u64>); 25] {
    let (s, p, l) = (&raw.scope, &raw.politeness, &raw.limits);
    [
        ("scope.max_depth", Some(s.max_depth.into())),
        ("scope.max_path_repeats", Some(s.max_path_repeats.into())),
        ("scope.max_redirects", Some(s.max_redirects.into())),
        ("scope.max_sitemap_depth", Some(s.max_sitemap_depth.into())),
        ("politeness.min_delay_ms", Some(p.min_delay_ms)),
        ("politeness.max_delay_ms", Some(p.max_delay_ms)),
        (
            "politeness.max_parallel_per_host",
            Some(p.max_parallel_per_host.into()),
        ),
        (
            "politeness.max_parallel_per_ip",
            p.max_parallel_per_ip.map(u64::from),
        ),
        ("politeness.max_retry_after_ms", Some(p.max_retry_after_ms)),
        ("politeness.robots_ttl_s", Some(p.robots_ttl_s)),
        ("limits.max_pages", Some(l.max_pages)),
        ("limits.max_bytes_per_page", Some(l.max_bytes_per_page)),
        ("limits.timeout_ms", Some(l.timeout_ms)),
        ("limits.connect_timeout_ms", Some(l.connect_timeout_ms)),
        ("limits.max_pages_per_host", Some(l.max_pages_per_host)),
        ("limits.max_url_length", Some(l.max_url_length as u64)),
        ("limits.max_retries", Some(l.max_retries.into())),
        ("limits.retry_delay_ms", Some(l.retry_delay_ms)),
        ("limits.max_concurrency", Some(l.max_concurrency as u64)),
        (
            "limits.max_links_per_page",
            Some(l.max_links_per_page as u64),
        ),
        ("limits.max_duration_s", l.max_duration_s),
        ("warc.max_file_bytes", Some(raw.warc.max_file_bytes)),
        ("warc.gzip_level", Some(raw.warc.gzip_level.into())),
        (
            "frontier.balance_per_queue",
            Some(raw.frontier.balance_per_queue.into()),
        ),
        ("frontier.best_n", raw.frontier.best_n),
    ]
}

/// A float as an operator would write it: plain when short, in exponent form when huge.
fn show<T: Into<f64> + std::fmt::Display + std::fmt::LowerExp + Copy>(v: T) -> String {
    let x: f64 = v.into();
    if x.is_finite() && x.abs() < 1e9 {
        v.to_string()
    } else {
        format!("{v:e}")
    }
}

/// Checks a float key (`f32` or `f64`): finite and within `least..=greatest`.
pub(super) fn check_float<T: Into<f64> + std::fmt::Display + std::fmt::LowerExp + Copy>(
    path: &str,
    value: T,
    least: f64,
    greatest: f64,
) -> Result<(), SpecError> {
    let x: f64 = value.into();
    if x.is_finite() && (least..=greatest).contains(&x) {
        Ok(())
    } else {
        Err(invalid(
            path,
            format!(
                "{} is out of range: must be a number from {} to {}",
                show(value),
                show(least),
                show(greatest)
            ),
        ))
    }
}

/// Checks every integer key and `politeness.delay_factor` against its range; the error names
/// the first key out of range, its value and the range.
pub(super) fn check(raw: &RawSpec) -> Result<(), SpecError> {
    for ((path, value), &(ranged, least, greatest)) in
        integer_values(raw).iter().zip(INTEGER_RANGES)
    {
        debug_assert_eq!(
            *path, ranged,
            "INTEGER_RANGES and integer_values in one order"
        );
        let Some(value) = *value else { continue };
        if !(least..=greatest).contains(&value) {
            return Err(invalid(
                *path,
                format!("{value} is out of range: must be from {least} to {greatest}"),
            ));
        }
    }
    check_float(
        "politeness.delay_factor",
        raw.politeness.delay_factor,
        0.0,
        MAX_DELAY_FACTOR,
    )
}
