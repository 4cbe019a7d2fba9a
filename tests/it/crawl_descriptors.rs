//! End-to-end: a crawl that runs out of file descriptors while fetching pauses, names the
//! cause, spends no retry, counts no error and loses no URL.
//!
//! `magpie crawl` runs with a soft and hard open-file limit of [`LIMIT`] (set in the child
//! before it runs, so its own raising of the soft limit to the hard one cannot lift it) against
//! a loopback server that holds every answer back for a moment, so 64 fetches in flight need
//! more sockets than the limit leaves once the crawl's own files are open.

use crate::support;

use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use support::harness;

/// Open files allowed to the crawl (soft and hard). Its own files (the store, the frontier's
/// log, the WARC file, the crawl log, the index's segment files, the runtime) take about 30,
/// so 64 sockets do not fit, and fewer do.
const LIMIT: libc::rlim_t = 48;
/// Pages linked from the root.
const PAGES: usize = 150;
/// How long the server holds each answer back: long enough for every fetch the crawl may
/// start to be in flight at once.
const HOLD: Duration = Duration::from_millis(200);

/// Requests received, by path.
type Hits = Arc<Mutex<BTreeMap<String, usize>>>;

/// Serves `/` (linking to `/p/0` ... `/p/{PAGES-1}`), the pages, and a robots.txt allowing
/// everything, each after [`HOLD`], one thread per connection.
fn slow_server() -> (String, Hits) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let hits: Hits = Arc::default();
    let seen = hits.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let seen = seen.clone();
            std::thread::spawn(move || answer(stream, &seen));
        }
    });
    (base, hits)
}

fn answer(mut s: TcpStream, hits: &Hits) {
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    let text = String::from_utf8_lossy(&head);
    let path = text.split(' ').nth(1).unwrap_or("/").to_string();
    *hits.lock().unwrap().entry(path.clone()).or_insert(0) += 1;
    std::thread::sleep(HOLD);
    let (ctype, body) = match path.as_str() {
        "/robots.txt" => ("text/plain", "User-agent: *\nAllow: /\n".to_string()),
        "/" => {
            let links: String = (0..PAGES)
                .map(|i| format!("<a href=\"/p/{i}\">page {i}</a>\n"))
                .collect();
            ("text/html", format!("<html><body>{links}</body></html>"))
        }
        p => (
            "text/html",
            format!("<html><head><title>{p}</title></head><body><p>{p}</p></body></html>"),
        ),
    };
    let _ = write!(
        s,
        "HTTP/1.0 200 OK\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
}

#[test]
fn running_out_of_descriptors_pauses_fetching_and_loses_no_url() {
    let (base, hits) = slow_server();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let spec = json!({
        "name": "fds",
        "seeds": [format!("{base}/")],
        "politeness": { "min_delay_ms": 0, "max_delay_ms": 0, "delay_factor": 0.0,
                        "max_parallel_per_host": 64, "max_parallel_per_ip": 64 },
        "limits": { "max_concurrency": 64, "timeout_ms": 20000, "max_retries": 3,
                    "retry_delay_ms": 50 },
        "scope": { "sitemaps": false },
        "network": { "allow_private": true }
    });
    let spec_path = dir.path().join("spec.json");
    std::fs::write(&spec_path, spec.to_string()).unwrap();

    let mut cmd = Command::new(env!("CARGO_BIN_EXE_magpie"));
    cmd.arg("crawl")
        .arg(&spec_path)
        .arg("--data")
        .arg(&data)
        .arg("--json")
        .env("MAGPIE_LOG", "magpie=warn");
    let lim = libc::rlimit {
        rlim_cur: LIMIT,
        rlim_max: LIMIT,
    };
    // SAFETY: only setrlimit, which is async-signal-safe, runs between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            if libc::setrlimit(libc::RLIMIT_NOFILE, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = cmd.output().expect("run magpie");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "the crawl completes: {stderr}");

    // The operator is told the cause and the way out, once.
    assert!(
        stderr.contains("out of file descriptors (EMFILE, open-file limit 48)"),
        "the log names the cause: {stderr}\nsummary: {stdout}"
    );
    assert!(stderr.contains("ulimit -Hn"), "and the remedy: {stderr}");
    let warnings = stderr
        .lines()
        .filter(|l| l.contains("WARN") && l.contains("out of file descriptors"))
        .count();
    assert_eq!(warnings, 1, "one warning: {stderr}");
    assert!(!stderr.contains("ERROR"), "{stderr}");

    // Nothing counted as failed, nothing retried.
    let summary: Value = serde_json::from_slice(&out.stdout).expect("summary");
    assert_eq!(summary["stop_reason"], "finished", "{summary}");
    assert_eq!(summary["pages_fetched"], PAGES as u64 + 1, "{summary}");
    assert_eq!(summary["retries"], 0, "{summary}");
    assert_eq!(summary["errors_by_kind"], json!({}), "{summary}");
    assert!(summary.get("fetching_paused").is_none(), "{summary}");

    // Every URL archived once: none lost, none twice.
    let recs = harness::records(&data, "fds");
    let captured = harness::captured(&recs);
    let archived: BTreeSet<String> = captured.iter().cloned().collect();
    assert_eq!(archived.len(), captured.len(), "a URL archived twice");
    let mut expected: BTreeSet<String> = (0..PAGES).map(|i| format!("{base}/p/{i}")).collect();
    expected.insert(format!("{base}/"));
    expected.insert(format!("{base}/robots.txt"));
    assert_eq!(archived, expected);

    // A URL that found no socket never reached the server: each was asked for once.
    let hits = hits.lock().unwrap();
    assert_eq!(hits.len(), PAGES + 2, "{hits:?}");
    assert!(hits.values().all(|&n| n == 1), "asked for twice: {hits:?}");

    // The crawl log has one line per fetch, each a 200: no failure, no retry.
    let log = std::fs::read_to_string(data.join("fds/logs/crawl.log")).unwrap();
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), PAGES + 2, "{log}");
    for line in lines {
        let status = line.split_whitespace().nth(1).unwrap_or_default();
        assert_eq!(status, "200", "{line}");
        assert!(!line.contains("retr"), "{line}");
    }
}
