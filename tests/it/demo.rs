//! `magpie demo`, as a newcomer runs it: in the terminal it crawls the built-in sample site to
//! the end and leaves valid WARC files; with the cockpit it prints the dashboard's address,
//! serves a running crawl there, and Ctrl-C seals the crawl's files.

use crate::support;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use support::harness;

fn warcs(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

#[test]
fn the_terminal_demo_crawls_the_sample_site_into_valid_warcs() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_magpie"))
        .args(["demo", "--json", "--data"])
        .arg(dir.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // Three hosts of 40 pages, all linked: every page is reached, and analysed for the topic.
    assert!(
        summary["pages_fetched"].as_u64().unwrap() >= 120,
        "{summary}"
    );
    assert_eq!(
        summary["errors_by_kind"],
        serde_json::json!({}),
        "{summary}"
    );
    let files = warcs(&dir.path().join("demo/warc"));
    assert!(!files.is_empty());
    assert!(files
        .iter()
        .all(|f| f.to_string_lossy().ends_with(".warc.gz")));
    harness::warcio_check(&files);
}

#[test]
fn the_cockpit_demo_serves_a_running_crawl_and_ctrl_c_seals_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_magpie"))
        .args(["demo", "--bind", "127.0.0.1:0", "--data"])
        .arg(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let login = line.trim().to_string();
    let (dashboard, token) = login.split_once("?token=").expect("the address logs in");
    assert!(
        dashboard.starts_with("http://127.0.0.1:") && dashboard.contains("/crawls/demo-"),
        "prints the dashboard's address: {line:?}"
    );
    assert_eq!(
        token,
        std::fs::read_to_string(dir.path().join("api-token"))
            .unwrap()
            .trim()
    );
    let id = dashboard.rsplit('/').next().unwrap().to_string();
    let api = dashboard.replace(&format!("/crawls/{id}"), &format!("/api/v1/crawls/{id}"));
    let rt = tokio::runtime::Runtime::new().unwrap();
    let fetched = rt.block_on(async {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        // Without the login the cockpit sends the browser to /login.
        let anonymous = client.get(dashboard).send().await.unwrap();
        assert_eq!(anonymous.status(), 303);
        assert_eq!(anonymous.headers()["location"], "/login");
        // The printed address starts a session (its cookie) and goes on to the address without
        // the token (the page hands the form key to cockpit.js, which goes on).
        let first = client.get(&login).send().await.unwrap();
        assert_eq!(first.status(), 200);
        let cookie = first.headers()["set-cookie"].to_str().unwrap().to_string();
        let answer = first.text().await.unwrap();
        assert!(
            answer.contains(&format!("data-next=\"/crawls/{id}\"")),
            "{answer}"
        );
        assert!(
            cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"),
            "{cookie}"
        );
        let session = cookie.split(';').next().unwrap().to_string();
        let page = client
            .get(dashboard)
            .header("cookie", &session)
            .send()
            .await
            .unwrap();
        assert_eq!(page.status(), 200);
        assert!(page
            .text()
            .await
            .unwrap()
            .contains("Relevance over the crawl"));
        // The crawl runs: pages are fetched while the cockpit serves.
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            // The API takes the token, not the cockpit's cookie.
            let v: serde_json::Value = client
                .get(&api)
                .bearer_auth(token)
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            let n = v["stats"]["pages_fetched"].as_u64().unwrap_or(0);
            if n >= 5 {
                break n;
            }
            assert!(
                Instant::now() < deadline,
                "the demo crawl does not run: {v}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    });
    assert!(fetched >= 5);
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = child.wait().unwrap();
    assert!(status.success(), "Ctrl-C ends the demo cleanly: {status}");
    let files = warcs(&dir.path().join(&id).join("warc"));
    assert!(!files.is_empty());
    assert!(
        files
            .iter()
            .all(|f| !f.to_string_lossy().ends_with(".open")),
        "sealed: {files:?}"
    );
    harness::warcio_check(&files);
}
