//! End-to-end: `kill -9` a real `magpie crawl` process mid-crawl, run it again, and check that
//! nothing was lost, nothing was archived twice, and every WARC file is complete.

mod support;

use serde_json::json;
use std::collections::HashMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use support::{harness, FixtureWeb, Reply};

const PAGES: usize = 40;

fn site(web: &FixtureWeb, host: usize) -> Vec<String> {
    let paths: Vec<String> = (0..PAGES).map(|i| format!("/p{i}.html")).collect();
    let refs: Vec<&str> = paths.iter().map(String::as_str).collect();
    web.route(
        host,
        "/",
        Reply::html(support::page(&format!("home {host}"), "", &refs)),
    );
    for p in &paths {
        // Each page links to the next one too, so the crawl also discovers as it goes.
        let body = support::page(&format!("{host}{p}"), "", &["/"]);
        web.route(host, p, Reply::html(body));
    }
    web.route(
        host,
        "/robots.txt",
        Reply::typed("text/plain", "User-agent: *\nAllow: /\n"),
    );
    let mut urls: Vec<String> = paths.iter().map(|p| web.url(host, p)).collect();
    urls.push(web.url(host, "/"));
    urls
}

fn magpie(spec: &Path, data: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_magpie"));
    c.arg("crawl")
        .arg(spec)
        .arg("--data")
        .arg(data)
        .arg("--json");
    c.stdout(Stdio::piped()).stderr(Stdio::piped());
    c
}

#[test]
fn a_killed_crawl_resumes_without_losing_or_repeating_captures() {
    let web = FixtureWeb::start(2);
    let mut want: Vec<String> = site(&web, 0);
    want.extend(site(&web, 1));
    want.sort();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let spec_path = dir.path().join("spec.json");
    let spec = json!({
        "name": "resume",
        "seeds": [web.url(0, "/"), web.url(1, "/")],
        "scope": { "sitemaps": false },
        "politeness": { "min_delay_ms": 25, "max_delay_ms": 100, "delay_factor": 0.0 },
        "limits": { "timeout_ms": 3000 },
        "network": { "allow_private": true }
    });
    std::fs::write(&spec_path, spec.to_string()).unwrap();

    let mut child = magpie(&spec_path, &data).spawn().expect("start magpie");
    let t0 = Instant::now();
    while web.hits().len() < 30 {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "crawl made no progress"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "crawl ended before it could be killed"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().expect("SIGKILL");
    child.wait().unwrap();
    let hits_at_kill = web.hits().len();
    assert!(hits_at_kill < want.len(), "killed mid-crawl");

    let out = magpie(&spec_path, &data)
        .output()
        .expect("run magpie again");
    assert!(
        out.status.success(),
        "resume failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON summary");
    assert_eq!(summary["stop_reason"], "finished");
    assert_eq!(summary["urls_queued"], 0);

    // Every page archived exactly once across both runs (robots.txt is fetched once per run).
    let recs = harness::records(&data, "resume");
    let mut captured: Vec<String> = harness::captured(&recs)
        .into_iter()
        .filter(|u| !u.ends_with("/robots.txt"))
        .collect();
    captured.sort();
    assert_eq!(captured, want, "each page archived exactly once");

    // Only fetches that were in flight (or not yet committed) at the kill were repeated.
    let mut per_url: HashMap<(usize, String), usize> = HashMap::new();
    for h in web.hits().iter().filter(|h| h.target != "/robots.txt") {
        *per_url.entry((h.host, h.target.clone())).or_insert(0) += 1;
    }
    assert!(
        per_url.values().all(|&n| n <= 2),
        "no page fetched three times: {per_url:?}"
    );
    let repeated = per_url.values().filter(|&&n| n == 2).count();
    assert!(repeated <= 20, "{repeated} pages fetched twice");
    assert_eq!(per_url.len(), want.len());

    // No file is left open, and every file is complete and valid.
    let warc_dir = data.join("resume/warc");
    let names: Vec<String> = std::fs::read_dir(&warc_dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| n.ends_with(".warc.gz")), "{names:?}");
    let files = harness::warc_files(&data, "resume");
    for f in &files {
        let defects = magpie::archive::check_file(f).unwrap();
        assert!(defects.is_empty(), "{}: {defects:?}", f.display());
    }
    harness::warcio_check(&files);
}

#[test]
fn ctrl_c_stops_cleanly_and_a_second_run_finishes_the_crawl() {
    let web = FixtureWeb::start(1);
    let mut want = site(&web, 0);
    want.sort();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let spec_path = dir.path().join("spec.json");
    let spec = json!({
        "name": "sigint",
        "seeds": [web.url(0, "/")],
        "scope": { "sitemaps": false },
        "politeness": { "min_delay_ms": 30, "max_delay_ms": 100, "delay_factor": 0.0 },
        "network": { "allow_private": true }
    });
    std::fs::write(&spec_path, spec.to_string()).unwrap();
    let child = magpie(&spec_path, &data).spawn().expect("start magpie");
    let t0 = Instant::now();
    while web.hits().len() < 10 {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "crawl made no progress"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    // SAFETY: sending a signal to our own child process.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON summary");
    assert_eq!(summary["stop_reason"], "interrupted");
    assert!(summary["urls_queued"].as_u64().unwrap() > 0);
    let names: Vec<String> = std::fs::read_dir(data.join("sigint/warc"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.iter().all(|n| n.ends_with(".warc.gz")),
        "sealed: {names:?}"
    );
    harness::warcio_check(&harness::warc_files(&data, "sigint"));

    let out = magpie(&spec_path, &data).output().unwrap();
    assert!(out.status.success());
    let mut captured: Vec<String> = harness::captured(&harness::records(&data, "sigint"))
        .into_iter()
        .filter(|u| !u.ends_with("/robots.txt"))
        .collect();
    captured.sort();
    assert_eq!(
        captured, want,
        "the second run completes the crawl, nothing twice"
    );
}

/// The crash window of a rotation: records appended, the file sealed, then `kill -9` before the
/// next commit. The committed checkpoint still names the sealed file at an earlier offset. This
/// state is made exactly by rewinding a finished crawl's checkpoint to a record in the middle
/// of a sealed file; the next run must keep every sealed file byte for byte.
#[test]
fn a_file_sealed_after_the_last_commit_is_never_cut_on_resume() {
    let web = FixtureWeb::start(1);
    site(&web, 0);
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let spec_path = dir.path().join("spec.json");
    let spec = json!({
        "name": "sealed",
        "seeds": [web.url(0, "/")],
        "scope": { "sitemaps": false },
        "politeness": { "min_delay_ms": 0, "max_delay_ms": 10, "delay_factor": 0.0 },
        "warc": { "max_file_bytes": 8000 },
        "network": { "allow_private": true }
    });
    std::fs::write(&spec_path, spec.to_string()).unwrap();
    let out = magpie(&spec_path, &data).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let files = harness::warc_files(&data, "sealed");
    assert!(files.len() >= 3, "rotated: {files:?}");

    // Rewind the checkpoint to the third record of the second-to-last sealed file.
    let victim = &files[files.len() - 2];
    let heads: Vec<u64> = {
        let f = std::fs::File::open(victim).unwrap();
        let mut r = magpie::archive::WarcReader::new(std::io::BufReader::new(f)).unwrap();
        let mut offsets = Vec::new();
        while let Some(h) = r.next_record().unwrap() {
            offsets.push(h.offset);
        }
        offsets
    };
    assert!(heads.len() > 3, "{heads:?}");
    {
        let store = magpie::store::Store::open(&data.join("sealed/state")).unwrap();
        let cp = json!({
            "file": victim.file_name().unwrap().to_string_lossy(),
            "offset": heads[3],
        });
        let mut ws = magpie::store::WriteSet::default();
        ws.put(
            magpie::frontier::keys::meta_key("checkpoint"),
            cp.to_string().into_bytes(),
        );
        store.commit(ws).unwrap();
    }
    let before: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();

    let out = magpie(&spec_path, &data).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for (f, bytes) in files.iter().zip(&before) {
        assert!(
            std::fs::read(f).unwrap() == *bytes,
            "{} changed on resume",
            f.display()
        );
    }
    harness::warcio_check(&harness::warc_files(&data, "sealed"));
}
