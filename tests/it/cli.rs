//! The command line: bad input gets one clear line and a non-zero exit (never a panic),
//! `--json` prints one summary object, `--fresh` moves the old crawl aside, `warc check` finds
//! defects by offset.

use crate::support;

use serde_json::json;
use std::path::Path;
use std::process::{Command, Output};
use support::{basic_site, FixtureWeb};

fn magpie(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_magpie"))
        .args(args)
        .output()
        .expect("run magpie")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn fails_with(o: &Output, needle: &str) {
    let err = stderr(o);
    assert!(!o.status.success(), "should fail: {err}");
    assert!(!err.contains("panicked"), "panicked: {err}");
    assert!(err.contains(needle), "expected {needle:?} in: {err}");
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

#[test]
fn bad_specs_name_the_field_and_leave_no_state() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let d = data.to_str().unwrap();
    let cases = [
        (
            r#"{"name":"x","seeds":["ftp://example.org/"]}"#,
            "seeds[0]: not an http(s) URL",
        ),
        (
            r#"{"name":"x","seeds":["not a url"]}"#,
            "seeds[0]: not a URL",
        ),
        (
            r#"{"name":"x","seeds":["http://a.org/"],"limits":{"max_pages":-1}}"#,
            "limits.max_pages",
        ),
        (
            r#"{"name":"x","seeds":["http://a.org/"],"scope":{"alow":[]}}"#,
            "unknown field `alow`",
        ),
        (
            r#"{"name":"x","seeds":["http://a.org/"],"scope":{"deny":["(["]}}"#,
            "scope.deny[0]",
        ),
        (
            r#"{"name":"x","seeds":["http://a.org/"],"politeness":{"delay_factor":-1}}"#,
            "politeness.delay_factor",
        ),
        ("{\"name\": \"x\",\n \"seeds\": [", "line 2"),
        (
            r#"{"name":"api-token","seeds":["http://a.org/"]}"#,
            "name: \"api-token\" is reserved",
        ),
        (
            r#"{"name":"x","seeds":["http://a.org/"]} trailing"#,
            "text after the spec's JSON object (trailing characters at line 1 column 40)",
        ),
    ];
    for (i, (text, needle)) in cases.iter().enumerate() {
        let spec = write(dir.path(), &format!("spec{i}.json"), text);
        fails_with(&magpie(&["crawl", &spec, "--data", d]), needle);
    }
    assert!(!data.exists(), "a refused spec creates nothing");
    fails_with(
        &magpie(&["crawl", "/nonexistent/spec.json", "--data", d]),
        "cannot read /nonexistent/spec.json",
    );
}

#[test]
fn an_unusable_data_folder_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let blocker = write(dir.path(), "file", "not a folder");
    let spec = write(
        dir.path(),
        "spec.json",
        r#"{"name":"x","seeds":["http://127.0.0.1:9/"]}"#,
    );
    let out = magpie(&["crawl", &spec, "--data", &format!("{blocker}/data")]);
    fails_with(&out, "data folder");
    let err = stderr(&out);
    assert_eq!(
        err.matches("(os error").count(),
        1,
        "the cause is said once: {err}"
    );
}

#[test]
fn json_summary_fresh_start_and_warc_check() {
    let web = FixtureWeb::start(1);
    let site = basic_site(&web, 0);
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let d = data.to_str().unwrap();
    let spec = json!({
        "name": "cli",
        "seeds": [site.seed],
        "politeness": { "min_delay_ms": 0, "max_delay_ms": 10 },
        "network": { "allow_private": true }
    });
    let spec = write(dir.path(), "spec.json", &spec.to_string());
    let first = magpie(&["crawl", &spec, "--data", d, "--json"]);
    assert!(first.status.success(), "{}", stderr(&first));
    let stdout = String::from_utf8_lossy(&first.stdout);
    assert_eq!(
        stdout.trim().lines().count(),
        1,
        "one JSON object: {stdout}"
    );
    let summary: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    for key in [
        "crawl",
        "pages_fetched",
        "responses_by_status",
        "bytes_received",
        "warc_bytes",
        "warc_files",
        "urls_queued",
        "urls_out_of_scope",
        "robots_blocked",
        "errors_by_kind",
        "elapsed_seconds",
        "pages_per_second",
    ] {
        assert!(summary.get(key).is_some(), "summary has {key}: {summary}");
    }
    assert_eq!(summary["crawl"], "cli");
    assert!(summary["pages_fetched"].as_u64().unwrap() > 5);

    let warcs = support::harness::warc_files(&data, "cli");
    let paths: Vec<&str> = warcs.iter().map(|p| p.to_str().unwrap()).collect();
    let ok = magpie(&[&["warc", "check"], paths.as_slice()].concat());
    assert!(ok.status.success(), "{}", stderr(&ok));

    // Corrupt a copy: flip a byte inside the second record's gzip member.
    let bytes = std::fs::read(&warcs[0]).unwrap();
    let mut bad = bytes.clone();
    let at = bytes.len() / 2;
    bad[at] ^= 0xff;
    let bad_path = write(dir.path(), "bad.warc.gz", "");
    std::fs::write(&bad_path, &bad).unwrap();
    let out = magpie(&["warc", "check", &bad_path]);
    assert!(!out.status.success());
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        report.contains("offset "),
        "defects carry offsets: {report}"
    );

    // A second run with --fresh moves the first crawl aside, WARC files included.
    let again = magpie(&["crawl", &spec, "--data", d, "--json", "--fresh"]);
    assert!(again.status.success(), "{}", stderr(&again));
    let aside: Vec<_> = std::fs::read_dir(&data)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("cli.old-"))
        .collect();
    assert_eq!(aside.len(), 1);
    let kept = std::fs::read_dir(aside[0].path().join("warc"))
        .unwrap()
        .count();
    assert_eq!(kept, warcs.len());
}

#[test]
fn progress_json_writes_one_event_a_second_on_stderr() {
    let web = FixtureWeb::start(1);
    let site = basic_site(&web, 0);
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    // 200 ms between fetches from the one host: a crawl of a few seconds.
    let spec = json!({
        "name": "progress",
        "seeds": [site.seed],
        "politeness": { "min_delay_ms": 200, "max_delay_ms": 200 },
        "network": { "allow_private": true }
    });
    let spec = write(dir.path(), "spec.json", &spec.to_string());
    let d = data.to_str().unwrap();
    let out = magpie(&["crawl", &spec, "--data", d, "--json", "--progress", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let events: Vec<serde_json::Value> = stderr(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert!(events.len() >= 2, "{events:?}");
    for e in &events {
        assert_eq!(e["event"], "progress");
        for key in [
            "elapsed_s",
            "pages",
            "queued",
            "pages_per_second",
            "errors",
            "hosts",
        ] {
            assert!(e[key].is_number(), "{key} in {e}");
        }
    }
    let last = events.last().unwrap()["pages"].as_u64().unwrap();
    assert!(last >= events[0]["pages"].as_u64().unwrap());
    let bad = magpie(&["crawl", &spec, "--data", d, "--progress", "loud"]);
    assert!(!bad.status.success() && stderr(&bad).contains("loud"));
}

#[test]
fn a_seed_refused_as_private_is_said_once_and_not_retried() {
    let web = FixtureWeb::start(1);
    let site = basic_site(&web, 0);
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let spec = json!({
        "name": "private",
        "seeds": [site.seed],
        "limits": { "retry_delay_ms": 10 }
    });
    let spec = write(dir.path(), "spec.json", &spec.to_string());
    let t0 = std::time::Instant::now();
    let out = magpie(&["crawl", &spec, "--data", data.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("refused: their address is private and network.allow_private is off"),
        "{err}"
    );
    assert_eq!(err.matches("private").count(), 2, "said once: {err}");
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        summary["errors_by_kind"]["private-address"], 2,
        "robots.txt and the seed"
    );
    assert!(
        web.hits().is_empty(),
        "nothing was sent to a private address"
    );
    assert!(
        t0.elapsed() < std::time::Duration::from_secs(5),
        "no retries with backoff"
    );
    let log = std::fs::read_to_string(data.join("private").join("logs").join("crawl.log")).unwrap();
    assert!(
        log.contains(&format!(" -7          - {} ", site.seed)),
        "{log}"
    );
}

#[test]
fn sample_web_writes_the_benchmark_web_as_files() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("web");
    let o = magpie(&[
        "sample-web",
        "--out",
        out.to_str().unwrap(),
        "--port",
        "9001",
        "--hosts",
        "2",
        "--pages",
        "7",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(said.contains("wrote 14 pages"), "{said}");
    let robots = std::fs::read_to_string(out.join("127.0.0.3/robots.txt")).unwrap();
    assert!(
        robots.contains("Sitemap: http://127.0.0.3:9001/sitemap.xml"),
        "{robots}"
    );
    assert!(out.join("127.0.0.2/index.html").is_file());
    // A file where the folder should be: one line naming it.
    let blocked = write(dir.path(), "file", "x");
    fails_with(
        &magpie(&[
            "sample-web",
            "--out",
            &blocked,
            "--hosts",
            "1",
            "--pages",
            "1",
        ]),
        "file/127.0.0.2/index.html: Not a directory",
    );
    fails_with(
        &magpie(&["sample-web", "--out", out.to_str().unwrap(), "--pages", "0"]),
        "pages_per_host must be at least 1",
    );
}
