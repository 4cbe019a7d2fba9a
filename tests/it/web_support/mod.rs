//! A real `magpie serve` API server for tests: the manager on a temporary data folder, the
//! actix server on 127.0.0.1 port 0, and a reqwest client that knows the token.

// Each test binary uses a different part of this module.
#![allow(dead_code)]

use magpie::manager::Manager;
use magpie::web::{self, AppState, WebConfig};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio::sync::oneshot;

/// The token test servers use.
pub const TOKEN: &str = "test-token-0123456789abcdef";

/// A running API server.
pub struct TestServer {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// The data folder.
    pub data: PathBuf,
    /// A client without default headers.
    pub client: reqwest::Client,
    stop: Option<oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<Result<(), web::error::WebError>>>,
}

impl TestServer {
    /// Starts a server on `data`; `tune` adjusts the configuration (token [`TOKEN`], reads
    /// open, 200 ms stats interval, 2 s grace).
    pub async fn start(data: &Path, tune: impl FnOnce(&mut WebConfig)) -> TestServer {
        let manager = Manager::open(data.to_path_buf(), "testhost".into())
            .await
            .expect("open manager");
        let mut config = WebConfig::new(TOKEN.into(), true);
        config.stats_interval = Duration::from_millis(200);
        config.grace = Duration::from_secs(5);
        config.workers = 1;
        // The tester's child process: this test binary is not `magpie`.
        config.xpath_runner = env!("CARGO_BIN_EXE_magpie").into();
        tune(&mut config);
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let base = format!("http://{}", listener.local_addr().expect("addr"));
        let (stop, stop_rx) = oneshot::channel::<()>();
        let state = AppState::new(manager, config);
        let task = tokio::spawn(web::serve(listener, state, async move {
            let _ = stop_rx.await;
        }));
        TestServer {
            base,
            data: data.to_path_buf(),
            client: reqwest::Client::builder()
                .timeout(Duration::from_secs(30))
                .build()
                .expect("client"),
            stop: Some(stop),
            task: Some(task),
        }
    }

    /// Shuts the server down (crawls seal their files and keep their state) and waits.
    pub async fn stop(mut self) {
        drop(self.stop.take());
        if let Some(task) = self.task.take() {
            task.await.expect("server task").expect("server ran");
        }
    }

    /// The absolute URL of `path`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// A POST with the token.
    pub fn post(&self, path: &str) -> reqwest::RequestBuilder {
        self.client.post(self.url(path)).bearer_auth(TOKEN)
    }

    /// A GET without the token.
    pub fn get(&self, path: &str) -> reqwest::RequestBuilder {
        self.client.get(self.url(path))
    }

    /// POSTs JSON with the token; returns the status and the JSON answer.
    pub async fn post_json(&self, path: &str, body: &Value) -> (u16, Value) {
        let resp = self.post(path).json(body).send().await.expect("POST");
        status_json(resp).await
    }

    /// GETs JSON with the token (so it works whether reads are open or not); returns the
    /// status and the JSON answer.
    pub async fn get_json(&self, path: &str) -> (u16, Value) {
        let resp = self.get(path).bearer_auth(TOKEN).send().await.expect("GET");
        status_json(resp).await
    }

    /// Creates a crawl; panics unless 201.
    pub async fn create(&self, spec: &Value) -> String {
        let (status, body) = self.post_json("/api/v1/crawls", spec).await;
        assert_eq!(status, 201, "create: {body}");
        body["id"].as_str().expect("id").to_string()
    }

    /// POSTs a lifecycle action (`start`, `pause`, ...); returns the status and answer.
    pub async fn action(&self, id: &str, action: &str) -> (u16, Value) {
        let resp = self
            .post(&format!("/api/v1/crawls/{id}/{action}"))
            .send()
            .await
            .expect("POST");
        status_json(resp).await
    }

    /// The crawl as `GET /api/v1/crawls/{id}` shows it.
    pub async fn crawl(&self, id: &str) -> Value {
        let (status, body) = self.get_json(&format!("/api/v1/crawls/{id}")).await;
        assert_eq!(status, 200, "get {id}: {body}");
        body
    }

    /// Polls the crawl until `pred` holds (or panics after `secs` seconds).
    pub async fn wait_for(
        &self,
        id: &str,
        secs: u64,
        what: &str,
        pred: impl Fn(&Value) -> bool,
    ) -> Value {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
        loop {
            let c = self.crawl(id).await;
            if pred(&c) {
                return c;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "timed out waiting for {what}: {c}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// The status and JSON body of a response (`Null` if the body is not JSON).
pub async fn status_json(resp: reqwest::Response) -> (u16, Value) {
    let status = resp.status().as_u16();
    let text = resp.text().await.expect("body");
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

/// A spec whose seed is a closed port on loopback: it never fetches anything useful.
pub fn idle_spec(name: &str) -> Value {
    json!({
        "name": name,
        "seeds": [format!("http://127.0.0.1:{}/", closed_port())],
        "network": { "allow_private": true },
        "limits": { "retry_delay_ms": 10, "max_retries": 0, "timeout_ms": 2000 },
        "politeness": { "min_delay_ms": 0, "delay_factor": 0.0 },
        "scope": { "sitemaps": false }
    })
}

/// A loopback listener that accepts connections (kernel backlog) but never answers: fetches
/// from it hang until the crawl's timeout.
pub fn black_hole() -> (std::net::TcpListener, String) {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/", l.local_addr().expect("addr"));
    (l, url)
}

/// A loopback port nothing listens on (bound, then released).
pub fn closed_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    l.local_addr().expect("addr").port()
}

/// Names of WARC files still open (`.open`) in a crawl's folder.
pub fn open_warcs(data: &Path, crawl: &str) -> Vec<String> {
    std::fs::read_dir(data.join(crawl).join("warc"))
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".open"))
                .collect()
        })
        .unwrap_or_default()
}
