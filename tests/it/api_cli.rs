//! The `magpie serve` and `magpie submit` binaries: the generated token (stored 0600, printed
//! once), refusing non-loopback addresses without a token, Ctrl-C sealing files and keeping
//! state so a restarted server resumes a running crawl, and submit's batching and exit codes.

use crate::support;
use crate::web_support;

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::{harness, page, FixtureWeb, Reply};
use web_support::{idle_spec, open_warcs, status_json, TestServer, TOKEN};

/// A `magpie serve` child process and what it wrote on stderr.
struct Served {
    child: Child,
    base: String,
    stderr: Arc<Mutex<Vec<String>>>,
}

impl Served {
    /// Starts `magpie serve --data DATA --bind 127.0.0.1:0 ARGS` and waits until it listens.
    fn start(data: &Path, args: &[&str]) -> Served {
        let mut child = Command::new(env!("CARGO_BIN_EXE_magpie"))
            .args([
                "serve",
                "--data",
                data.to_str().unwrap(),
                "--bind",
                "127.0.0.1:0",
                "--grace-secs",
                "20",
            ])
            .args(args)
            .env_remove("MAGPIE_TOKEN")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn magpie serve");
        let stderr = Arc::new(Mutex::new(Vec::new()));
        // Standard output (the cockpit address) joins the same lines.
        let (out, lines) = (child.stdout.take().unwrap(), stderr.clone());
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                lines.lock().unwrap().push(line);
            }
        });
        let (tx, rx) = std::sync::mpsc::channel();
        let lines = stderr.clone();
        let pipe = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                if let Some(rest) = line.split("listening on http://").nth(1) {
                    let _ = tx.send(rest.split('/').next().unwrap_or("").to_string());
                }
                lines.lock().unwrap().push(line);
            }
        });
        let addr = rx
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|_| {
                let _ = child.kill();
                panic!("magpie serve did not start: {:?}", stderr.lock().unwrap())
            });
        Served {
            child,
            base: format!("http://{addr}"),
            stderr,
        }
    }

    fn stderr(&self) -> String {
        self.stderr.lock().unwrap().join("\n")
    }

    /// Sends SIGINT (Ctrl-C) and waits for a clean exit.
    fn interrupt(mut self) -> String {
        let pid = self.child.id() as libc::pid_t;
        // SAFETY: signalling a child process this test started and still owns.
        assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
        let deadline = Instant::now() + Duration::from_secs(40);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                std::thread::sleep(Duration::from_millis(100));
                let err = self.stderr();
                assert!(status.success(), "serve exited with {status}: {err}");
                return err;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("serve did not stop after Ctrl-C: {}", self.stderr());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Runs an async request on a throwaway runtime (the tests here are synchronous).
fn call<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(f)
}

fn post(base: &str, path: &str, token: Option<&str>, body: &Value) -> (u16, Value) {
    call(async {
        let mut req = reqwest::Client::new()
            .post(format!("{base}{path}"))
            .json(body);
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        status_json(req.send().await.unwrap()).await
    })
}

fn get(base: &str, path: &str) -> Value {
    call(async {
        let (status, v) = status_json(
            reqwest::Client::new()
                .get(format!("{base}{path}"))
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(status, 200, "{path}: {v}");
        v
    })
}

#[test]
fn serve_generates_a_private_token_and_prints_it_once() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let s = Served::start(&data, &[]);
    let err = s.stderr();
    let token = err
        .lines()
        .find_map(|l| l.split("shown only now): ").nth(1))
        .unwrap_or_else(|| panic!("no generated token in: {err}"))
        .to_string();
    assert_eq!(token.len(), 64);
    let file = data.join("api-token");
    assert_eq!(std::fs::read_to_string(&file).unwrap().trim(), token);
    assert_eq!(
        std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
        0o600
    );

    assert_eq!(
        post(&s.base, "/api/v1/crawls", None, &idle_spec("tok")).0,
        401
    );
    let anonymous_read = call(async {
        reqwest::get(format!("{}/api/v1/crawls", s.base))
            .await
            .unwrap()
            .status()
    });
    assert_eq!(anonymous_read, 401, "reads need the token by default");
    assert_eq!(
        post(&s.base, "/api/v1/crawls", Some(&token), &idle_spec("tok")).0,
        201
    );
    s.interrupt();

    let s = Served::start(&data, &["--public-reads"]);
    let err = s.stderr();
    assert!(
        !err.contains(&token),
        "the token is printed only when generated: {err}"
    );
    assert!(err.contains("API token: in the file"), "{err}");
    assert_eq!(get(&s.base, "/api/v1/crawls/tok")["state"], "created");
    assert_eq!(
        post(
            &s.base,
            "/api/v1/crawls/tok/start",
            Some(&token),
            &json!({})
        )
        .0,
        200
    );
    let base = s.base.clone();
    let all = s.interrupt();
    assert!(!all.contains(&token), "{all}");
    assert!(
        all.lines().any(|l| l == format!("{base}/login")),
        "the login page's address instead: {all}"
    );

    let s = Served::start(&data, &["--token", TOKEN, "--public-reads"]);
    assert_eq!(
        post(&s.base, "/api/v1/crawls/tok/stop", Some(&token), &json!({})).0,
        401,
        "an explicit token wins"
    );
    assert_eq!(
        std::fs::read_to_string(&file).unwrap().trim(),
        token,
        "and is not stored"
    );
    s.interrupt();
}

#[test]
fn a_public_address_needs_an_explicit_token() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let run = |args: &[&str], token_env: Option<&str>| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_magpie"));
        cmd.args(["serve", "--data", data.to_str().unwrap()])
            .args(args)
            .env_remove("MAGPIE_TOKEN");
        if let Some(t) = token_env {
            cmd.env("MAGPIE_TOKEN", t);
        }
        let out = cmd.output().unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (ok, err) = run(&["--bind", "0.0.0.0:0"], None);
    assert!(!ok && err.contains("without an explicit token"), "{err}");
    assert!(!err.contains("panicked"));
    assert!(!data.exists(), "nothing written when refused");
    let (ok, err) = run(
        &["--bind", "0.0.0.0:0", "--public-reads"],
        Some("a-long-enough-token-0123"),
    );
    assert!(!ok && err.contains("refusing --public-reads"), "{err}");
    let (ok, err) = run(&["--bind", "127.0.0.1:0", "--token", "short"], None);
    assert!(!ok && err.contains("invalid token"), "{err}");
    let (ok, err) = run(
        &["--bind", "0.0.0.0:0"],
        Some("has spaces in it, not allowed"),
    );
    assert!(
        !ok && err.contains("invalid token"),
        "MAGPIE_TOKEN is used and checked: {err}"
    );
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let (ok, err) = run(&["--bind", &addr], None);
    assert!(!ok && err.contains("cannot listen on"), "{err}");
    assert_eq!(
        err.matches("(os error").count(),
        1,
        "the cause is said once: {err}"
    );
    let (ok, err) = run(&["--bind", "localhost"], None);
    assert!(!ok && err.contains("localhost:8080"), "{err}");
    let (ok, err) = run(&["--bind", "127.0.0.1:0", "--allowed-host", "a b"], None);
    assert!(!ok && err.contains("--allowed-host \"a b\""), "{err}");
    assert!(
        !data.join("api-token").exists(),
        "no token is generated that was never shown"
    );
}

#[test]
fn a_running_crawl_resumes_when_the_server_restarts() {
    let web = FixtureWeb::start(1);
    web.route_prefix(0, "/n/", |target| {
        let k: u32 = target.trim_start_matches("/n/").parse().unwrap_or(0);
        let next = format!("/n/{}", k + 1);
        Reply::html(page(&format!("Node {k}"), "", &[&next]))
    });
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let spec = json!({
        "name": "chain",
        "seeds": [web.url(0, "/n/0")],
        "network": { "allow_private": true },
        "scope": { "sitemaps": false, "max_depth": 100 },
        "politeness": { "min_delay_ms": 100, "delay_factor": 0.0 },
        "limits": { "max_pages": 40, "timeout_ms": 3000 }
    });
    let s = Served::start(&data, &["--token", TOKEN, "--public-reads"]);
    assert_eq!(post(&s.base, "/api/v1/crawls", Some(TOKEN), &spec).0, 201);
    assert_eq!(
        post(
            &s.base,
            "/api/v1/crawls/chain/start",
            Some(TOKEN),
            &json!({})
        )
        .0,
        200
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    while get(&s.base, "/api/v1/crawls/chain")["stats"]["pages_fetched"]
        .as_u64()
        .unwrap()
        < 5
    {
        assert!(Instant::now() < deadline, "the crawl does not progress");
        std::thread::sleep(Duration::from_millis(50));
    }
    let err = s.interrupt();
    assert!(err.contains("keep their state"), "{err}");

    let status: Value =
        serde_json::from_str(&std::fs::read_to_string(data.join("chain/status.json")).unwrap())
            .unwrap();
    assert_eq!(status["state"], "running", "Ctrl-C keeps the crawl's state");
    assert!(
        open_warcs(&data, "chain").is_empty(),
        "Ctrl-C sealed the WARC files"
    );
    let before = web
        .hits()
        .iter()
        .filter(|h| h.target.starts_with("/n/"))
        .count();
    assert!(
        (5..40).contains(&before),
        "stopped mid-crawl: {before} pages"
    );

    let s = Served::start(&data, &["--token", TOKEN, "--public-reads"]);
    assert_eq!(get(&s.base, "/api/v1/crawls/chain")["state"], "running");
    let deadline = Instant::now() + Duration::from_secs(60);
    let done = loop {
        let c = get(&s.base, "/api/v1/crawls/chain");
        if c["state"] == "finished" {
            break c;
        }
        assert!(
            Instant::now() < deadline,
            "the resumed crawl does not finish: {c}"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(done["stats"]["pages_fetched"], 40, "{done}");
    assert_eq!(done["stats"]["stop_reason"], "max-pages");
    let targets: Vec<String> = web
        .hits()
        .iter()
        .filter(|h| h.target.starts_with("/n/"))
        .map(|h| h.target.clone())
        .collect();
    let want: Vec<String> = (0..40).map(|k| format!("/n/{k}")).collect();
    assert_eq!(
        targets, want,
        "the restart continued the chain, fetching nothing twice"
    );
    s.interrupt();

    let recs = harness::records(&data, "chain");
    let captured: Vec<String> = harness::captured(&recs)
        .into_iter()
        .filter(|u| u.contains("/n/"))
        .collect();
    assert_eq!(captured.len(), 40, "each page archived once");
    harness::warcio_check(&harness::warc_files(&data, "chain"));
}

/// Runs `magpie submit` with `input` on stdin; returns (success, stdout, stderr).
fn submit(base: &str, token: &str, input: String) -> (bool, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_magpie"))
        .args(["submit", "--server", base, "--batch", "1000"])
        .env("MAGPIE_TOKEN", token)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn submit_streams_ndjson_in_batches() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let spec = idle_spec("sub");
    let seed = spec["seeds"][0].as_str().unwrap().to_string();
    srv.create(&spec).await;
    let item = |i: usize, score: f64| {
        json!({"crawl_id": "sub", "url": format!("{seed}u{i}"), "score": score}).to_string()
    };

    // 2,500 items in three requests; a blank line; item 1,500 has a bad score.
    let mut input = String::new();
    for i in 0..2500 {
        input.push_str(&item(i, if i == 1500 { 7.0 } else { 0.5 }));
        input.push('\n');
        if i == 10 {
            input.push('\n');
        }
    }
    let base = srv.base.clone();
    let (ok, out, err) = tokio::task::spawn_blocking(move || submit(&base, TOKEN, input))
        .await
        .unwrap();
    assert!(ok, "{err}");
    let report: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(report["received"], 2500, "{report}");
    assert_eq!(report["inserted"], 2499);
    assert_eq!(report["rejected"].as_array().unwrap().len(), 1);
    assert_eq!(
        report["rejected"][0]["index"], 1500,
        "indexes count items across batches"
    );
    assert!(report["rejected"][0]["reason"]
        .as_str()
        .unwrap()
        .contains("outside [0, 1]"));
    let (_, f) = srv.get_json("/api/v1/crawls/sub/frontier?limit=5000").await;
    assert_eq!(
        f["urls"].as_array().unwrap().len(),
        2500,
        "the seed and 2,499 items"
    );

    // A malformed line fails its request (exit 1) but the other batches are applied.
    let mut input = String::new();
    for i in 3000..5000 {
        input.push_str(&if i == 4200 {
            "{\"crawl_id\": \"sub\",".to_string()
        } else {
            item(i, 0.5)
        });
        input.push('\n');
    }
    let base = srv.base.clone();
    let (ok, out, err) = tokio::task::spawn_blocking(move || submit(&base, TOKEN, input))
        .await
        .unwrap();
    assert!(!ok, "a failed request makes submit fail");
    assert!(
        err.contains("lines 1001-2000")
            && err.contains("input line 1201")
            && err.contains("HTTP 400"),
        "{err}"
    );
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        report["inserted"], 1000,
        "the good batch was applied: {report}"
    );

    let base = srv.base.clone();
    let one = item(9, 0.1);
    let (ok, _, err) =
        tokio::task::spawn_blocking(move || submit(&base, "wrong-token-0123456789", one))
            .await
            .unwrap();
    assert!(!ok && err.contains("HTTP 401"), "{err}");
    let (status, _) = status_json(srv.get("/api/v1/crawls/sub").send().await.unwrap()).await;
    assert_eq!(status, 200);
    srv.stop().await;
}

#[test]
fn localhost_binds_to_loopback() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_magpie"))
        .args(["serve", "--data", dir.path().to_str().unwrap()])
        .args(["--bind", "localhost:0"])
        .env_remove("MAGPIE_TOKEN")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pipe = child.stderr.take().unwrap();
    let listening = BufReader::new(pipe)
        .lines()
        .map_while(Result::ok)
        .find(|l| l.contains("listening on") || l.contains("error"));
    let _ = child.kill();
    let _ = child.wait();
    let line = listening.expect("a line about listening");
    assert!(line.contains("listening on http://127.0.0.1:"), "{line}");
}
