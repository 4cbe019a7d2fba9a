//! Property test of the spec's numeric ranges: a spec whose numbers are anywhere in their
//! documented ranges (the extremes above all) validates, builds every typed config a crawl is
//! made of, and runs the engine's and the frontier's time computations without a panic.

use super::engine::retry::backoff;
use super::*;
use crate::frontier::contract::TestRules;
use crate::frontier::politeness::{self, pause_after, FetchTiming};
use crate::frontier::{Completion, Frontier, Lease};
use crate::model::CrawlUri;
use crate::spec::ranges::{INTEGER_RANGES, MAX_DELAY_FACTOR, MAX_WEIGHT};
use crate::store::Store;
use proptest::prelude::*;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A value of `least..=greatest`: an end most of the time, since overflows live there.
fn pick(choice: u8, r: u64, least: u64, greatest: u64) -> u64 {
    match choice % 5 {
        0 => least,
        1 | 2 => greatest,
        _ => least + r % (greatest - least + 1),
    }
}

fn pick_f(choice: u8, r: f64, greatest: f64) -> f64 {
    match choice % 4 {
        0 => 0.0,
        1 | 2 => greatest,
        _ => r * greatest,
    }
}

fn set(spec: &mut Value, path: &str, v: Value) {
    let (section, key) = path.split_once('.').expect("section.key");
    spec[section][key] = v;
}

/// The spec: every integer key, `delay_factor` and the weights drawn from their ranges.
fn spec_json(ints: &[(u8, u64)], floats: &[(u8, f64)]) -> Value {
    let mut spec = json!({
        "name": "extremes", "seeds": ["http://a.test/"],
        "scope": {}, "politeness": {}, "limits": {}, "warc": {}, "frontier": {},
        "scoring": {"weights": {}},
    });
    for (&(path, least, greatest), &(c, r)) in INTEGER_RANGES.iter().zip(ints) {
        set(&mut spec, path, json!(pick(c, r, least, greatest)));
    }
    let (min, max) = (
        spec["politeness"]["min_delay_ms"].as_u64().unwrap(),
        spec["politeness"]["max_delay_ms"].as_u64().unwrap(),
    );
    set(&mut spec, "politeness.min_delay_ms", json!(min.min(max)));
    set(&mut spec, "politeness.max_delay_ms", json!(min.max(max)));
    let (c, r) = floats[0];
    set(
        &mut spec,
        "politeness.delay_factor",
        json!(pick_f(c, r, MAX_DELAY_FACTOR)),
    );
    for (name, &(c, r)) in ["document", "paragraph", "anchor", "url", "parent"]
        .iter()
        .zip(&floats[1..])
    {
        spec["scoring"]["weights"][name] = json!(pick_f(c, r, f64::from(MAX_WEIGHT)) as f32);
    }
    spec
}

/// The longest fetch the spec lets happen, as the frontier would be told of it.
fn slowest_fetch(spec: &Spec) -> FetchTiming {
    let l = &spec.limits;
    FetchTiming {
        duration: l.timeout,
        retry_after: Some(Duration::from_secs(u64::MAX)),
        backoff: Some(backoff(l.retry_delay, l.max_retries)),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn specs_in_range_validate_and_run_without_panic(
        ints in proptest::collection::vec((any::<u8>(), any::<u64>()), INTEGER_RANGES.len()),
        floats in proptest::collection::vec((any::<u8>(), 0.0f64..=1.0), 6),
    ) {
        let json = spec_json(&ints, &floats);
        let spec = Spec::from_json(&json.to_string())
            .map_err(|e| TestCaseError::fail(format!("{e}: {json}")))?;
        let dir = tempfile::tempdir().unwrap();
        let opts = CrawlOptions { data: dir.path().into(), fresh: false, hostname: "h".into() };
        let fc = spec.frontier.clone();
        let stages = super::stages::Stages::derive(&spec, &opts);
        let fetch = stages.fetch;
        let _ = pipeline_ctx(&spec, stages.pipeline_text, None, None);
        let t0 = tokio::time::Instant::now();
        let deadline = crate::fetch::deadline_after(t0, fetch.total_timeout);
        prop_assert!(crate::fetch::deadline_after(t0, fetch.connect_timeout) <= deadline);

        // The engine's and the frontier's arithmetic, with the longest waits the spec allows.
        let now = Instant::now();
        let expires = politeness::after(now, spec.politeness.robots_ttl);
        let slow = slowest_fetch(&spec);
        let (pause, _) = pause_after(&fc.politeness, Some(Duration::MAX), &slow);
        prop_assert!(pause >= fc.politeness.min_delay);
        let mut f = Frontier::open(Store::temporary().unwrap(), fc).unwrap();
        f.offer(1, "a.test", "http://a.test", CrawlUri::seed("http://a.test/"));
        f.offer(2, "a.test", "http://a.test", CrawlUri::seed("http://a.test/2"));
        let mut at = now;
        for round in 0..4 {
            match f.next(at) {
                Some(Lease::Robots { host, .. }) if round == 0 => {
                    f.robots_failed(&host, backoff(spec.limits.retry_delay, 16), at);
                }
                Some(Lease::Robots { host, .. }) => {
                    let rules = Arc::new(TestRules {
                        deny: Vec::new(),
                        delay: Some(Duration::MAX),
                    });
                    f.robots_done(&host, rules, expires, Some(slow), at);
                }
                Some(Lease::Url(lease)) => f.complete(&lease, Completion::Retry, Some(slow), at),
                None => {}
            }
            let _ = f.peek(10, None).unwrap();
            at = f.next_wake().unwrap_or(at).max(at);
        }
        f.commit().unwrap();
    }
}

#[test]
fn the_reported_overflows_are_refused_naming_the_key() {
    let with = |section: &str| format!(r#"{{"name":"t","seeds":["http://x/"],{section}}}"#);
    let err = |s: &str| Spec::from_json(&with(s)).unwrap_err().to_string();
    assert_eq!(
        err(r#""politeness":{"robots_ttl_s":9300000000000000000}"#),
        "politeness.robots_ttl_s: 9300000000000000000 is out of range: must be from 0 to 31536000"
    );
    assert_eq!(
        err(r#""politeness":{"delay_factor":1e308}"#),
        "politeness.delay_factor: 1e308 is out of range: must be a number from 0 to 1000"
    );
    assert!(err(r#""scoring":{"weights":{"url":3e38}}"#)
        .starts_with("scoring.weights.url: 3e38 is out of range"));
    for &(path, least, greatest) in INTEGER_RANGES {
        let (section, key) = path.split_once('.').unwrap();
        let mut outside = vec![greatest + 1];
        if least > 0 {
            outside.push(least - 1);
        }
        for v in outside {
            let e = err(&format!(r#""{section}":{{"{key}":{v}}}"#));
            // Values past a narrow field type's maximum are refused by the JSON reader instead.
            assert!(e.starts_with(&format!("{path}: ")), "{path}={v}: {e}");
        }
    }
}
