//! End-to-end: the crawl log (`DIR/<crawl>/logs/crawl.log`) has one line per fetch attempt,
//! with the columns of Heritrix's crawl.log, and a line for each URL refused by robots.txt,
//! scope or the private-address rule; it is rotated with the WARC files.

use crate::support;

use serde_json::json;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use support::{basic_site, harness, FixtureWeb};

/// Every line of every crawl log of the crawl, split into columns, oldest file first.
fn log_lines(data: &Path, crawl: &str) -> Vec<Vec<String>> {
    let dir = data.join(crawl).join("logs");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    // crawl.00000.log, crawl.00001.log, ..., then the current crawl.log.
    files.sort_by_key(|p| {
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        (name == "crawl.log", name)
    });
    files
        .iter()
        .flat_map(|f| {
            std::fs::read_to_string(f)
                .unwrap()
                .lines()
                .map(|l| l.split_whitespace().map(str::to_string).collect())
                .collect::<Vec<Vec<String>>>()
        })
        .collect()
}

#[test]
fn every_fetch_and_every_refusal_has_its_line() {
    let web = FixtureWeb::start(1);
    let site = basic_site(&web, 0);
    let data = tempfile::tempdir().unwrap();
    let spec = harness::spec(
        "logged",
        std::slice::from_ref(&site.seed),
        json!({ "scope": { "deny": ["/b\\.html$"] }, "warc": { "max_file_bytes": 4096 } }),
    );
    harness::run(spec, data.path());
    let lines = log_lines(data.path(), "logged");
    for l in &lines {
        assert_eq!(l.len(), 12, "12 columns: {l:?}");
    }
    let by_url: BTreeMap<&str, Vec<&Vec<String>>> =
        lines.iter().fold(BTreeMap::new(), |mut m, l| {
            m.entry(l[3].as_str()).or_default().push(l);
            m
        });
    // Every archived response has a line with its status, size, digest and timing.
    let recs = harness::records(data.path(), "logged");
    for r in recs
        .iter()
        .filter(|r| r.kind == "response" || r.kind == "revisit")
    {
        let l = by_url
            .get(r.uri.as_str())
            .unwrap_or_else(|| panic!("no line for {}: {lines:?}", r.uri))[0];
        assert_eq!(
            l[1].parse::<u16>().ok(),
            r.http_status(),
            "status of {}",
            r.uri
        );
        assert_eq!(Some(l[9].as_str()), r.field("WARC-Payload-Digest"));
        assert!(l[8].contains('+'), "fetch start+duration: {l:?}");
    }
    let status = |url: &str| by_url[url][0][1].clone();
    assert_eq!(
        by_url[site.robots.as_str()][0][4],
        "P",
        "robots.txt is a prerequisite"
    );
    assert_eq!(status(&site.disallowed), "-9998");
    assert_eq!(status(&web.url(0, "/b.html")), "-5000");
    assert!(by_url[web.url(0, "/b.html").as_str()][0][11].contains("denied"));
    assert_eq!(status(&site.not_found), "404");
    assert_eq!(by_url[web.url(0, "/a.html").as_str()][0][5], site.seed);
    // Rotated with the WARC files: one closed log per closed WARC file.
    let warcs = harness::warc_files(data.path(), "logged").len();
    let logs: BTreeSet<String> = std::fs::read_dir(data.path().join("logged").join("logs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(warcs > 1, "the small max_file_bytes rotates");
    assert_eq!(logs.len(), warcs, "{logs:?}");
    assert!(logs.contains("crawl.00000.log") && logs.contains("crawl.log"));
}

#[test]
fn a_private_address_refusal_is_logged() {
    let web = FixtureWeb::start(1);
    let site = basic_site(&web, 0);
    let data = tempfile::tempdir().unwrap();
    let spec = harness::spec(
        "private",
        std::slice::from_ref(&site.seed),
        json!({ "network": { "allow_private": false }, "limits": { "max_retries": 0 } }),
    );
    harness::run(spec, data.path());
    let lines = log_lines(data.path(), "private");
    assert!(
        lines
            .iter()
            .any(|l| l[1] == "-7" && l[11].contains("private-address")),
        "{lines:?}"
    );
}
