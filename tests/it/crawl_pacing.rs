//! End-to-end: a real `magpie crawl` process decides how choosy its focused crawl can be from
//! what binds it (docs/crawl-spec.md, `limits.max_duration_s`). On a loopback web where one
//! host holds every on-topic page and seven others hold off-topic pages, with politeness
//! pauses, a crawl bound by time uses every host's politeness slot, while a crawl whose pages
//! are scarce keeps to the on-topic host; both say which regime they are in.

use crate::support;

use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};
use support::{FixtureWeb, Reply};

const HOSTS: usize = 8;
const PAGES: usize = 40;
const DELAY_MS: u64 = 200;

fn html(title: &str, body: &str) -> Reply {
    Reply::html(format!(
        "<!DOCTYPE html><html lang=\"en\"><head><title>{title}</title></head><body>{body}</body></html>"
    ))
}

/// Host 0: the seed, linking to its 40 solar-power pages and to every other host's home;
/// hosts 1-7: a home linking to 40 pages about cooking.
fn web() -> FixtureWeb {
    let web = FixtureWeb::start(HOSTS);
    let mut seed = String::from("<p>Solar power panels and solar energy news.</p>");
    for i in 0..PAGES {
        seed += &format!("<p><a href=\"/solar/{i}.html\">solar power panel {i}</a></p>");
        web.route(
            0,
            &format!("/solar/{i}.html"),
            html(
                &format!("Solar power {i}"),
                &format!("<p>Solar power panels turn solar energy into power, part {i}.</p>"),
            ),
        );
    }
    for h in 1..HOSTS {
        seed += &format!(
            "<p><a href=\"{}\">partner site {h}</a></p>",
            web.url(h, "/")
        );
        let mut home = String::from("<p>Recipes for the kitchen.</p>");
        for i in 0..PAGES {
            home += &format!("<p><a href=\"/pasta/{i}.html\">pasta recipe {i}</a></p>");
            web.route(
                h,
                &format!("/pasta/{i}.html"),
                html(
                    &format!("Pasta {i}"),
                    &format!("<p>Boil water, add salt, cook the pasta al dente, kitchen {h} step {i}.</p>"),
                ),
            );
        }
        web.route(h, "/", html("Kitchen", &home));
    }
    web.route(0, "/", html("Solar power", &seed));
    web
}

/// Runs `magpie crawl` on the spec; returns its `--json` summary and how long it took.
fn crawl(web: &FixtureWeb, data: &Path, name: &str, limits: Value) -> (Value, Duration) {
    let spec = json!({
        "name": name,
        "seeds": [web.url(0, "/")],
        "politeness": { "min_delay_ms": DELAY_MS, "max_delay_ms": DELAY_MS, "delay_factor": 0.0 },
        "limits": limits,
        "network": { "allow_private": true },
        "scope": { "allow": ["^http://127\\."], "sitemaps": false },
        "topic": { "keywords": ["solar power", "solar energy", "panel"] },
        "index": { "enabled": false }
    });
    let path = data.join(format!("{name}.json"));
    std::fs::write(&path, spec.to_string()).expect("write spec");
    let t0 = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_magpie"))
        .arg("crawl")
        .arg(&path)
        .arg("--data")
        .arg(data)
        .arg("--json")
        .output()
        .expect("magpie runs");
    let took = t0.elapsed();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "magpie crawl failed: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = stdout.lines().last().expect("a summary line");
    (serde_json::from_str(line).expect("JSON summary"), took)
}

/// Hosts of the fetched story pages (`/solar/` or `/pasta/`), from the crawl log.
fn story_hosts(data: &Path, name: &str) -> (usize, usize, std::collections::BTreeSet<String>) {
    let log = std::fs::read_to_string(data.join(name).join("logs/crawl.log")).expect("crawl log");
    let (mut solar, mut pasta) = (0, 0);
    let mut hosts = std::collections::BTreeSet::new();
    for line in log.lines() {
        let Some(url) = line.split_whitespace().find(|w| w.starts_with("http://")) else {
            continue;
        };
        if url.contains("/solar/") {
            solar += 1;
        } else if url.contains("/pasta/") {
            pasta += 1;
        } else {
            continue;
        }
        hosts.insert(url.split('/').nth(2).unwrap_or_default().to_string());
    }
    (solar, pasta, hosts)
}

#[test]
fn a_time_bound_crawl_leaves_no_politeness_slot_idle() {
    let web = web();
    let data = tempfile::tempdir().unwrap();
    // Far more pages than 8 hosts can serve in 3 s at one fetch per 200 ms each; best-N keeps
    // to the 4 best queued URLs, all on host 0.
    let (summary, took) = crawl(
        &web,
        data.path(),
        "timebound",
        json!({ "max_pages": 1_000_000, "max_duration_s": 3, "max_concurrency": 4 }),
    );
    assert_eq!(summary["stop_reason"], "max-duration", "{summary}");
    assert!(
        took < Duration::from_secs(10),
        "stopped at its time: {took:?}"
    );
    let pacing = &summary["pacing"];
    assert_eq!(pacing["regime"], "time-bound", "{summary}");
    assert!(
        pacing["why"].as_str().unwrap().starts_with("time-bound"),
        "{pacing}"
    );
    assert!(pacing["released"].as_u64().unwrap() > 0, "{summary}");
    let (solar, pasta, hosts) = story_hosts(data.path(), "timebound");

    // Best-N alone would keep to host 0 (5 pages/s, about 15 pages in 3 s); every slot used
    // gives 8 hosts at 5 pages/s.
    assert!(
        hosts.len() >= HOSTS - 1,
        "slots of every host used: {hosts:?}"
    );
    assert!(
        solar + pasta >= 45,
        "{solar} + {pasta} story pages in 3 s: politeness slots were left idle"
    );
    assert!(
        solar >= 8,
        "the best URLs still go first on the topical host: {solar}"
    );
}

#[test]
fn a_crawl_short_of_pages_keeps_to_the_best_urls() {
    let web = web();
    let data = tempfile::tempdir().unwrap();
    // 20 pages and a minute: best-N alone spends them in time, so nothing is released.
    let (summary, _) = crawl(
        &web,
        data.path(),
        "pagebound",
        json!({ "max_pages": 20, "max_duration_s": 60, "max_concurrency": 4 }),
    );
    assert_eq!(summary["stop_reason"], "max-pages", "{summary}");
    let pacing = &summary["pacing"];
    assert_eq!(pacing["regime"], "page-bound", "{summary}");
    assert_eq!(pacing["released"], 0, "{pacing}");
    let (solar, pasta, _) = story_hosts(data.path(), "pagebound");
    assert_eq!(pasta, 0, "no off-topic page while on-topic ones wait");
    assert!(solar >= 15, "{solar} on-topic pages");
    // status.json keeps the regime for `magpie serve`.
    let status: Value = serde_json::from_slice(
        &std::fs::read(data.path().join("pagebound/status.json")).expect("status.json"),
    )
    .expect("status.json is JSON");
    assert_eq!(
        status["counters"]["pacing"]["regime"], "page-bound",
        "{status}"
    );
}
