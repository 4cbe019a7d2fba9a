//! The API describes itself truthfully: the served OpenAPI document is valid OpenAPI 3.1
//! (checked by `openapi-spec-validator`), and every route of a real server, driven through its
//! successes and its 4xx errors, answers with a status, media type and JSON body that the
//! document declares (bodies checked by Python's `jsonschema`, Draft 2020-12).
//!
//! Both checks run `tests/openapi/check.py`. Without Python's `openapi-spec-validator` they are
//! skipped with a note, unless `MAGPIE_REQUIRE_OPENAPI=1` (as in CI), when they fail.

use crate::support;
use crate::web_support;

use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use support::{basic_site, FixtureWeb};
use web_support::{black_hole, idle_spec, TestServer, TOKEN};

/// Whether the Python tools are there; panics when they are required and missing.
fn validator_available() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import openapi_spec_validator, jsonschema"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        if std::env::var("MAGPIE_REQUIRE_OPENAPI").as_deref() == Ok("1") {
            panic!("openapi-spec-validator is required (pip install openapi-spec-validator)");
        }
        eprintln!("note: openapi-spec-validator not available; OpenAPI checks skipped");
    }
    ok
}

/// Runs `check.py` on the document (and the samples, if given); panics with its output on
/// any problem.
fn check(doc: &Value, samples: Option<&[Value]>) {
    let dir = tempfile::tempdir().unwrap();
    let doc_file = dir.path().join("openapi.json");
    std::fs::write(&doc_file, doc.to_string()).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/openapi/check.py");
    let mut cmd = Command::new("python3");
    cmd.arg(script).arg(&doc_file);
    if let Some(samples) = samples {
        let file = dir.path().join("samples.json");
        std::fs::write(&file, Value::from(samples.to_vec()).to_string()).unwrap();
        cmd.arg(file);
    }
    let out = cmd.output().expect("python3 runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("{text}");
    assert!(out.status.success(), "OpenAPI check failed:\n{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_served_document_is_valid_openapi_3_1() {
    if !validator_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let (status, doc) = srv.get_json("/api/v1/openapi.json").await;
    assert_eq!(status, 200);
    assert_eq!(doc["openapi"], "3.1.0");
    check(&doc, None);
    srv.stop().await;
}

/// Records live responses with the route template they were sent to.
struct Recorder<'a> {
    srv: &'a TestServer,
    samples: Vec<Value>,
    surprises: Vec<String>,
}

impl Recorder<'_> {
    /// Sends a request (with the token unless `anonymous`), records the answer, and returns
    /// its status and JSON body (`Null` when not JSON).
    async fn call(
        &mut self,
        method: &str,
        route: &str,
        path: &str,
        body: Option<(&str, Vec<u8>)>,
        anonymous: bool,
    ) -> (u16, Value) {
        let url = self.srv.url(path);
        let mut req = match method {
            "post" => self.srv.client.post(url),
            "delete" => self.srv.client.delete(url),
            _ => self.srv.client.get(url),
        };
        if !anonymous {
            req = req.bearer_auth(TOKEN);
        }
        if let Some((ct, bytes)) = body {
            req = req.header("Content-Type", ct).body(bytes);
        }
        let resp = req.send().await.expect("request");
        let status = resp.status().as_u16();
        let ct = resp
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        let mut sample = json!({
            "method": method, "route": route, "path": path, "status": status, "content_type": ct,
        });
        let mut parsed = Value::Null;
        // An event stream never ends: its headers are what can be checked.
        if !ct.starts_with("text/event-stream") {
            let bytes = resp.bytes().await.expect("body");
            if ct.starts_with("application/json") {
                parsed = serde_json::from_slice(&bytes)
                    .unwrap_or_else(|e| panic!("{path}: JSON promised, not sent: {e}"));
                sample["body"] = parsed.clone();
            }
        }
        self.samples.push(sample);
        (status, parsed)
    }

    /// Notes an answer whose status is not the one the test meant to provoke.
    fn want(&mut self, want: u16, path: &str, got: (u16, Value)) -> (u16, Value) {
        if got.0 != want {
            self.surprises
                .push(format!("{path}: {} instead of {want}: {}", got.0, got.1));
        }
        got
    }

    async fn get(&mut self, want: u16, route: &str, path: &str) -> (u16, Value) {
        let got = self.call("get", route, path, None, false).await;
        self.want(want, path, got)
    }

    async fn post(&mut self, want: u16, route: &str, path: &str, body: &Value) -> (u16, Value) {
        let bytes = body.to_string().into_bytes();
        let body = Some(("application/json", bytes));
        let got = self.call("post", route, path, body, false).await;
        self.want(want, path, got)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_route_answers_as_the_document_declares() {
    if !validator_available() {
        return;
    }
    let web = FixtureWeb::start(2);
    let site = basic_site(&web, 0);
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let mut r = Recorder {
        srv: &srv,
        samples: vec![],
        surprises: vec![],
    };
    let spec = json!({
        "name": "c",
        "seeds": [site.seed],
        "network": { "allow_private": true },
        "topic": { "keywords": ["page", "link"] },
        "politeness": { "min_delay_ms": 0, "max_delay_ms": 100, "delay_factor": 0.0 },
        "limits": { "timeout_ms": 3000, "retry_delay_ms": 50, "max_pages": 100 }
    });
    let crawls = "/api/v1/crawls";
    let one = "/api/v1/crawls/{id}";
    r.post(201, crawls, crawls, &spec).await;
    r.post(409, crawls, crawls, &spec).await;
    r.post(400, crawls, crawls, &json!({})).await;
    let unknown = json!({"name": "u", "seeds": ["http://x.example/"], "bogus": 1});
    r.post(400, crawls, crawls, &unknown).await;
    let huge = vec![b' '; magpie::web::MAX_SPEC_BYTES + 1];
    let got = r
        .call(
            "post",
            crawls,
            crawls,
            Some(("application/json", huge)),
            false,
        )
        .await;
    r.want(413, crawls, got);
    let got = r.call("post", crawls, crawls, None, true).await;
    r.want(401, crawls, got);

    // The lifecycle, on an idle crawl (its frontier is open throughout): its seed never
    // answers for 3 s, so it cannot finish between `start` and `pause` on a slow machine.
    let (_hole, seed) = black_hole();
    let mut idle = idle_spec("idle");
    idle["seeds"] = serde_json::json!([seed]);
    idle["limits"]["timeout_ms"] = serde_json::json!(3_000);
    r.post(201, crawls, crawls, &idle).await;
    let front = "/api/v1/crawls/{id}/frontier";
    r.get(200, front, "/api/v1/crawls/idle/frontier").await;
    r.get(400, front, "/api/v1/crawls/idle/frontier?limit=abc")
        .await;
    r.get(404, front, "/api/v1/crawls/nope/frontier").await;
    let urls = "/api/v1/urls";
    let seed = idle_spec("x")["seeds"][0].as_str().unwrap().to_string();
    let items = json!([
        {"crawl_id": "idle", "url": format!("{seed}a"), "score": 0.5, "source": "ranker"},
        {"crawl_id": "idle", "url": "not a url", "score": 0.5},
    ]);
    r.post(200, urls, urls, &items).await;
    let bad = ("application/json", b"[{".to_vec());
    let got = r.call("post", urls, urls, Some(bad), false).await;
    r.want(400, urls, got);
    let block = "/api/v1/crawls/{id}/block";
    let path = "/api/v1/crawls/idle/block";
    r.post(200, block, path, &json!({"pattern": "/a$"})).await;
    r.post(400, block, path, &json!({"pattern": "("})).await;
    for (want, pattern) in [(200, "/a$"), (400, "/a$")] {
        let body = Some((
            "application/json",
            json!({ "pattern": pattern }).to_string().into_bytes(),
        ));
        let got = r.call("delete", block, path, body, false).await;
        r.want(want, path, got);
    }
    let relax = "/api/v1/crawls/{id}/relaxations";
    r.get(200, relax, "/api/v1/crawls/idle/relaxations").await;
    for (action, want) in [
        ("pause", 409),
        ("start", 200),
        ("pause", 200),
        ("resume", 200),
        ("stop", 200),
    ] {
        let route = format!("/api/v1/crawls/{{id}}/{action}");
        let path = format!("/api/v1/crawls/idle/{action}");
        let want = if action == "stop" { 200 } else { want };
        r.post(want, &route, &path, &json!({})).await;
        let path = format!("/api/v1/crawls/nope/{action}");
        r.post(404, &route, &path, &json!({})).await;
    }

    // A real crawl of the fixture web, with a topic and the helper on.
    r.post(
        200,
        "/api/v1/crawls/{id}/start",
        "/api/v1/crawls/c/start",
        &json!({}),
    )
    .await;
    srv.wait_for("c", 60, "the crawl to finish", |c| c["state"] == "finished")
        .await;
    r.get(200, crawls, crawls).await;
    r.get(200, one, "/api/v1/crawls/c").await;
    let rerun = "/api/v1/crawls/{id}/rerun";
    r.post(201, rerun, "/api/v1/crawls/idle/rerun", &json!({}))
        .await;
    r.post(404, rerun, "/api/v1/crawls/nope/rerun", &json!({}))
        .await;
    r.get(200, "/api/v1/workflows", "/api/v1/workflows").await;
    r.get(404, one, "/api/v1/crawls/nope").await;
    r.get(409, front, "/api/v1/crawls/c/frontier").await;
    r.get(409, relax, "/api/v1/crawls/c/relaxations").await;
    let events = "/api/v1/crawls/{id}/events";
    r.get(200, events, "/api/v1/crawls/c/events").await;
    r.get(404, events, "/api/v1/crawls/nope/events").await;
    let topic = "/api/v1/crawls/{id}/topic";
    r.get(200, topic, "/api/v1/crawls/c/topic?n=5").await;
    r.get(400, topic, "/api/v1/crawls/c/topic?n=x").await;
    r.get(404, topic, "/api/v1/crawls/nope/topic").await;
    let reports = "/api/v1/crawls/{id}/reports";
    r.get(200, reports, "/api/v1/crawls/c/reports").await;
    r.get(200, reports, "/api/v1/crawls/idle/reports").await;
    r.get(404, reports, "/api/v1/crawls/nope/reports").await;
    let log = "/api/v1/crawls/{id}/log";
    r.get(200, log, "/api/v1/crawls/c/log?limit=5").await;
    r.get(200, log, "/api/v1/crawls/c/log?status=2xx&hop=L&limit=2")
        .await;
    r.get(400, log, "/api/v1/crawls/c/log?status=lots").await;
    r.get(400, log, "/api/v1/crawls/c/log?before=elsewhere.log%3A0")
        .await;
    r.get(404, log, "/api/v1/crawls/nope/log").await;

    let search = "/api/v1/crawls/{id}/search";
    r.get(200, search, "/api/v1/crawls/c/search?q=page").await;
    r.get(200, search, "/api/v1/crawls/c/search").await;
    r.get(400, search, "/api/v1/crawls/c/search?q=%28").await;
    r.get(400, search, "/api/v1/crawls/c/search?page=x").await;
    r.get(404, search, "/api/v1/crawls/nope/search?q=a").await;
    let page = url_param(&site.pages[1]);
    let captures = "/api/v1/crawls/{id}/captures";
    let path = format!("/api/v1/crawls/c/captures?url={page}");
    r.get(200, captures, &path).await;
    r.get(400, captures, "/api/v1/crawls/c/captures").await;
    let capture = "/api/v1/crawls/{id}/capture";
    let path = format!("/api/v1/crawls/c/capture?url={page}");
    r.get(200, capture, &path).await;
    let missing = url_param(&site.not_found.replace("missing", "never"));
    let path = format!("/api/v1/crawls/c/capture?url={missing}");
    r.get(404, capture, &path).await;
    let info = "/api/v1/crawls/{id}/capture/info";
    let path = format!("/api/v1/crawls/c/capture/info?url={page}");
    r.get(200, info, &path).await;
    let path = format!("/api/v1/crawls/c/capture/info?url={page}&at=yesterday");
    r.get(400, info, &path).await;

    let export = "/api/v1/crawls/{id}/export";
    r.get(200, export, "/api/v1/crawls/c/export?q=page").await;
    r.get(400, export, "/api/v1/crawls/c/export?min_score=x")
        .await;
    let exports = "/api/v1/crawls/{id}/exports";
    let path = "/api/v1/crawls/c/exports";
    r.post(201, exports, path, &json!({"name": "ab", "q": "page"}))
        .await;
    r.post(409, exports, path, &json!({"name": "ab"})).await;
    r.post(400, exports, path, &json!({"min_score": "high"}))
        .await;
    r.get(200, exports, path).await;
    r.get(404, exports, "/api/v1/crawls/nope/exports").await;
    let preview = "/api/v1/crawls/{id}/exports/preview";
    let path = "/api/v1/crawls/c/exports/preview?q=page";
    r.get(200, preview, path).await;
    let file = "/api/v1/crawls/{id}/exports/{file}";
    r.get(200, file, "/api/v1/crawls/c/exports/ab.warc.gz")
        .await;
    let cdxj = "/api/v1/crawls/c/exports/ab.warc.gz.cdxj";
    r.get(200, file, cdxj).await;
    r.get(400, file, "/api/v1/crawls/c/exports/ab.txt").await;
    r.get(404, file, "/api/v1/crawls/c/exports/zz.warc.gz")
        .await;

    r.get(200, "/metrics", "/metrics").await;
    let doc_path = "/api/v1/openapi.json";
    let (_, doc) = r.get(200, doc_path, doc_path).await;

    // Every route of the server was driven at least once.
    let driven: BTreeSet<(String, String)> = r
        .samples
        .iter()
        .map(|s| {
            (
                s["method"].as_str().unwrap().into(),
                s["route"].as_str().unwrap().into(),
            )
        })
        .collect();
    for (method, route) in magpie::web::routes::ROUTES {
        assert!(
            driven.contains(&(method.to_string(), route.to_string())),
            "{method} {route} was not driven"
        );
    }
    assert!(
        r.samples
            .iter()
            .filter(|s| s["status"].as_u64() >= Some(400))
            .count()
            >= 20,
        "error answers are covered too"
    );
    assert!(
        r.surprises.is_empty(),
        "unexpected statuses:\n{}",
        r.surprises.join("\n")
    );
    check(&doc, Some(&r.samples));
    srv.stop().await;
}

fn url_param(u: &str) -> String {
    url::form_urlencoded::byte_serialize(u.as_bytes()).collect()
}
