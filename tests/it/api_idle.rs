//! What crawls without an engine cost and show, on a real `magpie serve` process: created crawls
//! hold no threads and no open files until they start (and one then started still crawls), and
//! crawls made by `magpie crawl` or finished under an earlier server are listed, in the API and in
//! the metrics, with the counters they ended with.

use crate::support;
use crate::web_support;

use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::{basic_site, FixtureWeb};
use web_support::{idle_spec, status_json, TestServer, TOKEN};

/// A `magpie serve` child process on loopback, with reads open and the test token.
struct Served {
    child: Child,
    base: String,
    client: reqwest::Client,
    stderr: Arc<Mutex<Vec<String>>>,
}

impl Served {
    /// Starts `magpie serve --data DATA` on a free loopback port and waits until it listens.
    fn start(data: &Path) -> Served {
        let mut child = Command::new(env!("CARGO_BIN_EXE_magpie"))
            .args(["serve", "--data", data.to_str().unwrap()])
            .args(["--bind", "127.0.0.1:0", "--token", TOKEN, "--public-reads"])
            .env_remove("MAGPIE_TOKEN")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn magpie serve");
        let stderr = Arc::new(Mutex::new(Vec::new()));
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
            // One client, so the server holds the same one connection throughout.
            client: reqwest::Client::builder()
                .timeout(Duration::from_secs(30))
                .build()
                .unwrap(),
            stderr,
        }
    }

    async fn get(&self, path: &str) -> (u16, Value) {
        let resp = self.client.get(format!("{}{path}", self.base)).send();
        status_json(resp.await.expect("GET")).await
    }

    async fn text(&self, path: &str) -> String {
        let resp = self.client.get(format!("{}{path}", self.base)).send();
        resp.await.expect("GET").text().await.expect("body")
    }

    async fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        let resp = self
            .client
            .post(format!("{}{path}", self.base))
            .bearer_auth(TOKEN)
            .json(body)
            .send();
        status_json(resp.await.expect("POST")).await
    }

    /// Polls crawl `id` until `pred` holds, or panics after `secs` seconds.
    async fn wait_for(&self, id: &str, secs: u64, pred: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            let (_, c) = self.get(&format!("/api/v1/crawls/{id}")).await;
            if pred(&c) {
                return c;
            }
            assert!(
                Instant::now() < deadline,
                "crawl {id}: {c}\n{}",
                self.stderr.lock().unwrap().join("\n")
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The server's threads and open file descriptors, as Linux lists them. The threads of
    /// sled's IO pool are left out: the pool is one per process, started by the first store
    /// opened, and keeps seven threads waiting for good, however many crawls there are.
    #[cfg(target_os = "linux")]
    fn threads_and_fds(&self) -> (usize, usize) {
        let list = |what: &str| {
            std::fs::read_dir(format!("/proc/{}/{what}", self.child.id()))
                .unwrap_or_else(|e| panic!("/proc/{}/{what}: {e}", self.child.id()))
                .flatten()
        };
        let threads = list("task")
            .filter(|t| {
                let name = std::fs::read_to_string(t.path().join("comm")).unwrap_or_default();
                !name.starts_with("sled-io-")
            })
            .count();
        (threads, list("fd").count())
    }

    /// The same figures once they have held still for a moment (threads of a request just
    /// answered may still be winding down).
    #[cfg(target_os = "linux")]
    async fn settled(&self) -> (usize, usize) {
        let mut last = self.threads_and_fds();
        for _ in 0..20 {
            tokio::time::sleep(Duration::from_millis(100)).await;
            let now = self.threads_and_fds();
            if now == last {
                return now;
            }
            last = now;
        }
        last
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One sample of the Prometheus text, e.g. `magpie_pages_fetched_total{crawl="c"}`.
fn metric(text: &str, series: &str) -> f64 {
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' '))
        .unwrap_or_else(|| panic!("{series} in\n{text}"))
        .parse()
        .unwrap()
}

#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn created_crawls_hold_no_threads_or_files_until_they_start() {
    let web = FixtureWeb::start(1);
    let site = basic_site(&web, 0);
    let dir = tempfile::tempdir().unwrap();
    let srv = Served::start(dir.path());
    assert_eq!(srv.get("/api/v1/crawls").await.0, 200);
    let before = srv.settled().await;

    for i in 0..20 {
        let (status, body) = srv
            .post("/api/v1/crawls", &idle_spec(&format!("idle-{i:02}")))
            .await;
        assert_eq!(status, 201, "{body}");
    }
    // Listing them, reading one, its metrics and its topic opens nothing either.
    let (_, list) = srv.get("/api/v1/crawls").await;
    assert_eq!(list["crawls"].as_array().unwrap().len(), 20);
    assert_eq!(
        srv.get("/api/v1/crawls/idle-07").await.1["state"],
        "created"
    );
    assert!(srv.text("/metrics").await.contains("crawl=\"idle-19\""));
    assert_eq!(srv.get("/api/v1/crawls/idle-07/topic").await.0, 200);
    let after = srv.settled().await;
    // Before engines were opened on demand, each crawl held eleven threads and five files.
    // Threads get a wider margin than files: tokio's blocking pool keeps the few threads
    // that wrote the status files alive for ten seconds, and how many it started depends
    // on the machine. One thread per crawl would still show as twenty.
    assert!(
        after.0 < before.0 + 8 && after.1 <= before.1 + 2,
        "threads and fds before {before:?} and after 20 idle crawls {after:?}"
    );
    assert!(
        !dir.path().join("idle-00").join("state").exists(),
        "no store was opened"
    );

    // A crawl created among them and started crawls the fixture site to its end.
    let spec = json!({
        "name": "site",
        "seeds": [site.seed],
        "network": { "allow_private": true },
        "politeness": { "min_delay_ms": 0, "max_delay_ms": 10 },
    });
    assert_eq!(srv.post("/api/v1/crawls", &spec).await.0, 201);
    let (status, body) = srv.post("/api/v1/crawls/site/start", &json!({})).await;
    assert_eq!((status, &body["state"]), (200, &json!("running")), "{body}");
    let done = srv.wait_for("site", 60, |c| c["state"] == "finished").await;
    assert_eq!(done["stats"]["stop_reason"], "finished", "{done}");
    let fetched: Vec<String> = web.hits_for(0).iter().map(|h| h.target.clone()).collect();
    for page in ["/", "/a.html", "/b.html"] {
        assert!(fetched.iter().any(|t| t == page), "{page} in {fetched:?}");
    }
    assert!(
        done["stats"]["pages_fetched"].as_u64().unwrap() >= 3,
        "{done}"
    );
    // Its engine is gone with its end (the runtime's idle blocking threads leave after 10 s);
    // the idle crawls never got one.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let end = srv.settled().await;
        if end.0 <= before.0 + 2 && end.1 <= before.1 + 2 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "threads and fds before {before:?} and after the crawl ended {end:?}"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_shows_the_counters_magpie_crawl_ended_with() {
    let web = FixtureWeb::start(2);
    let site = basic_site(&web, 0);
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let spec_path = dir.path().join("spec.json");
    let spec = json!({
        "name": "cli",
        "seeds": [site.seed],
        "network": { "allow_private": true },
        "politeness": { "min_delay_ms": 0, "max_delay_ms": 10 },
    });
    std::fs::write(&spec_path, spec.to_string()).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_magpie"))
        .args(["crawl", spec_path.to_str().unwrap(), "--data"])
        .arg(&data)
        .args(["--json", "--progress", "none"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    let pages = summary["pages_fetched"].as_u64().unwrap();
    assert!(pages >= 3, "the fixture site was crawled: {summary}");

    let srv = Served::start(&data);
    let (_, list) = srv.get("/api/v1/crawls").await;
    let c = &list["crawls"][0];
    assert_eq!((&c["id"], &c["state"]), (&json!("cli"), &json!("finished")));
    for key in [
        "pages_fetched",
        "robots_fetches",
        "responses_by_status",
        "bytes_received",
        "warc_bytes",
        "urls_discovered",
        "urls_queued",
        "urls_out_of_scope",
        "out_of_scope_by_reason",
        "robots_blocked",
        "errors_by_kind",
        "hosts",
    ] {
        assert_eq!(
            c["stats"][key], summary[key],
            "{key}: {c} against {summary}"
        );
    }
    let text = srv.text("/metrics").await;
    for (series, key) in [
        ("magpie_pages_fetched_total", "pages_fetched"),
        ("magpie_received_bytes_total", "bytes_received"),
        ("magpie_warc_bytes_total", "warc_bytes"),
        ("magpie_urls_discovered_total", "urls_discovered"),
    ] {
        assert_eq!(
            metric(&text, &format!("{series}{{crawl=\"cli\"}}")),
            summary[key].as_u64().unwrap() as f64,
            "{series}"
        );
    }
    assert_eq!(
        metric(
            &text,
            "magpie_crawl_state{crawl=\"cli\",state=\"finished\"}"
        ),
        1.0
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crawl_finished_under_the_server_keeps_its_counters_after_a_restart() {
    let web = FixtureWeb::start(2);
    let site = basic_site(&web, 0);
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    srv.create(&json!({
        "name": "done",
        "seeds": [site.seed],
        "network": { "allow_private": true },
        "politeness": { "min_delay_ms": 0, "max_delay_ms": 10 },
    }))
    .await;
    assert_eq!(srv.action("done", "start").await.0, 200);
    let ended = srv
        .wait_for("done", 60, "the crawl to finish", |c| {
            c["state"] == "finished"
        })
        .await;
    assert!(
        ended["stats"]["pages_fetched"].as_u64().unwrap() >= 3,
        "{ended}"
    );
    srv.stop().await;

    let srv = TestServer::start(dir.path(), |_| {}).await;
    let again = srv.crawl("done").await;
    for key in [
        "pages_fetched",
        "warc_bytes",
        "urls_discovered",
        "responses_by_status",
    ] {
        assert_eq!(again["stats"][key], ended["stats"][key], "{key}: {again}");
    }
    assert_eq!(again["stats"]["stop_reason"], ended["stats"]["stop_reason"]);
    srv.stop().await;
}
