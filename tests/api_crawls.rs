//! The crawl resource over real HTTP: create, list, get, the lifecycle actions and their
//! 404/409 cases, bad specs naming their field, authentication, unknown routes, the frontier
//! view, server-sent events, metrics, the OpenAPI document, and state kept across a restart.

mod web_support;

use serde_json::{json, Value};
use std::time::Duration;
use web_support::{idle_spec, open_warcs, status_json, TestServer, TOKEN};

/// A loopback listener that accepts connections (kernel backlog) but never answers: fetches
/// from it hang until the crawl's timeout.
fn black_hole() -> (std::net::TcpListener, String) {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/", l.local_addr().unwrap());
    (l, url)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crawls_move_through_their_lifecycle() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let (_hole, seed) = black_hole();
    let spec = json!({
        "name": "life",
        "seeds": [seed],
        "network": { "allow_private": true },
        "limits": { "timeout_ms": 1500, "retry_delay_ms": 1000, "max_retries": 2 },
        "scope": { "sitemaps": false }
    });
    let resp = srv.post("/api/v1/crawls").json(&spec).send().await.unwrap();
    assert_eq!(resp.status(), 201);
    assert_eq!(resp.headers()["location"], "/api/v1/crawls/life");
    let (_, body) = status_json(resp).await;
    assert_eq!(body, json!({ "id": "life" }));

    let (status, dup) = srv.post_json("/api/v1/crawls", &spec).await;
    assert_eq!((status, dup["code"].as_str()), (409, Some("exists")), "{dup}");

    let (status, list) = srv.get_json("/api/v1/crawls").await;
    assert_eq!(status, 200);
    let crawls = list["crawls"].as_array().unwrap();
    assert_eq!(crawls.len(), 1);
    assert_eq!(crawls[0]["id"], "life");
    assert_eq!(crawls[0]["state"], "created");
    assert_eq!(crawls[0]["stats"]["pages_fetched"], 0);
    srv.wait_for("life", 10, "the seed to be queued", |c| c["stats"]["urls_queued"] == 1).await;

    let one = srv.crawl("life").await;
    assert_eq!(one["spec"]["limits"]["max_pages"], 10_000, "defaults filled in");
    assert_eq!(one["spec"]["frontier"]["update"], "avg");

    for action in ["pause", "resume"] {
        let (status, body) = srv.action("life", action).await;
        assert_eq!(status, 409, "{action} a created crawl: {body}");
        assert_eq!(body["code"], "wrong-state");
        assert_eq!(body["state"], "created");
    }
    assert_eq!(srv.action("life", "start").await, (200, json!({"id": "life", "state": "running"})));
    assert_eq!(srv.action("life", "start").await.0, 200, "starting a running crawl is harmless");
    assert_eq!(srv.action("life", "pause").await, (200, json!({"id": "life", "state": "paused"})));
    assert_eq!(srv.crawl("life").await["state"], "paused");
    assert_eq!(srv.action("life", "pause").await.0, 409, "pause a paused crawl");
    assert_eq!(srv.action("life", "resume").await, (200, json!({"id": "life", "state": "running"})));

    let (status, body) = srv.action("life", "stop").await;
    assert_eq!((status, &body["state"]), (200, &json!("finished")), "{body}");
    assert!(open_warcs(dir.path(), "life").is_empty(), "WARC files sealed");
    let status_file: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("life/status.json")).unwrap()).unwrap();
    assert_eq!(status_file["state"], "finished");
    assert_eq!(srv.action("life", "stop").await.0, 200, "stopping a finished crawl is harmless");
    assert_eq!(srv.action("life", "pause").await.0, 409);
    let (status, body) = srv.get_json("/api/v1/crawls/life/frontier").await;
    assert_eq!((status, body["code"].as_str()), (409, Some("wrong-state")), "{body}");

    assert_eq!(srv.action("life", "start").await.1["state"], "running", "a finished crawl runs again");
    let (status, body) = srv.action("life", "stop").await;
    assert_eq!((status, &body["state"]), (200, &json!("finished")), "{body}");
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_specs_are_refused_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let cases = [
        (json!({"name": "x", "seeds": ["ftp://example.org/"]}), "seeds[0]", "not an http(s) URL"),
        (json!({"name": "x", "seeds": ["http://a.org/"], "limits": {"max_pages": "many"}}), "limits.max_pages", "invalid type"),
        (json!({"name": "../x", "seeds": ["http://a.org/"]}), "name", "letters"),
        (json!({"name": "x", "seeds": []}), "seeds", "at least one"),
        (json!({"name": "x", "seeds": ["http://a.org/"], "frontier": {"update": "median"}}), "frontier.update", "unknown variant"),
        (json!({"name": "x", "seeds": ["http://a.org/"], "scope": {"deny": ["(["]}}), "scope.deny[0]", "regex"),
    ];
    for (spec, field, needle) in cases {
        let (status, body) = srv.post_json("/api/v1/crawls", &spec).await;
        assert_eq!(status, 400, "{spec}: {body}");
        assert_eq!(body["code"], "invalid-spec");
        assert_eq!(body["field"], field, "{body}");
        assert!(body["error"].as_str().unwrap().contains(needle), "{body}");
    }
    let resp = srv.post("/api/v1/crawls").body("{\"name\": \"x\",\n \"seeds\": [").send().await.unwrap();
    let (status, body) = status_json(resp).await;
    assert_eq!(status, 400);
    assert!(body["error"].as_str().unwrap().contains("line 2"), "{body}");
    let resp = srv.post("/api/v1/crawls").body(vec![0xff, 0xfe]).send().await.unwrap();
    assert_eq!(status_json(resp).await.0, 400, "not UTF-8");
    let resp = srv.post("/api/v1/crawls").body(vec![b' '; 2 * 1024 * 1024]).send().await.unwrap();
    assert_eq!(status_json(resp).await.0, 413, "a spec over 1 MiB");
    assert_eq!(srv.get_json("/api/v1/crawls").await.1, json!({"crawls": []}), "nothing created");
    assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none(), "no folder created");
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_crawls_and_routes() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    for path in ["/api/v1/crawls/nope", "/api/v1/crawls/nope/frontier", "/api/v1/crawls/nope/events"] {
        let (status, body) = srv.get_json(path).await;
        assert_eq!((status, body["code"].as_str()), (404, Some("not-found")), "{path}: {body}");
        assert!(body["error"].as_str().unwrap().contains("nope"));
    }
    for action in ["start", "pause", "resume", "stop"] {
        assert_eq!(srv.action("nope", action).await.0, 404, "{action}");
    }
    let (status, body) = srv.get_json("/api/v1/nothing").await;
    assert_eq!((status, body["code"].as_str()), (404, Some("no-route")));
    let resp = srv.client.delete(srv.url("/api/v1/crawls")).bearer_auth(TOKEN).send().await.unwrap();
    assert_eq!(resp.status(), 405);
    assert_eq!(resp.headers()["allow"], "GET, POST");
    let resp = srv.get("/api/v1/crawls/x/start").send().await.unwrap();
    assert_eq!(resp.status(), 405);
    assert_eq!(resp.headers()["allow"], "POST");
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn state_changes_need_the_token() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let spec = idle_spec("auth");
    let no_token = srv.client.post(srv.url("/api/v1/crawls")).json(&spec).send().await.unwrap();
    assert_eq!(no_token.status(), 401);
    assert_eq!(no_token.headers()["www-authenticate"], "Bearer realm=\"magpie\"");
    assert_eq!(status_json(no_token).await.1["code"], "unauthorized");
    let wrong = srv.client.post(srv.url("/api/v1/crawls")).bearer_auth("test-token-0123456789abcdeX").json(&spec);
    assert_eq!(wrong.send().await.unwrap().status(), 401);
    let basic = srv.client.post(srv.url("/api/v1/crawls")).header("Authorization", format!("Basic {TOKEN}"));
    assert_eq!(basic.json(&spec).send().await.unwrap().status(), 401);
    let urls = srv.client.post(srv.url("/api/v1/urls")).body("{}");
    assert_eq!(urls.send().await.unwrap().status(), 401);
    assert_eq!(srv.get_json("/api/v1/crawls").await, (200, json!({"crawls": []})), "reads are open on loopback");
    srv.create(&spec).await;
    let start = srv.client.post(srv.url("/api/v1/crawls/auth/start")).send().await.unwrap();
    assert_eq!(start.status(), 401);
    assert_eq!(srv.crawl("auth").await["state"], "created", "an unauthorized start does nothing");
    srv.stop().await;

    let closed = TestServer::start(dir.path(), |c| c.public_reads = false).await;
    for path in ["/api/v1/crawls", "/api/v1/crawls/auth", "/metrics", "/api/v1/openapi.json"] {
        assert_eq!(closed.get(path).send().await.unwrap().status(), 401, "{path} without token");
        let ok = closed.get(path).bearer_auth(TOKEN).send().await.unwrap();
        assert_eq!(ok.status(), 200, "{path} with token");
    }
    closed.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn frontier_shows_fetch_order_and_host_queues() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let spec = idle_spec("front");
    let seed = spec["seeds"][0].as_str().unwrap().to_string();
    srv.create(&spec).await;
    let items: Vec<Value> = [("/low", 0.2), ("/high", 0.9), ("/mid", 0.5)]
        .iter()
        .map(|(p, s)| json!({"crawl_id": "front", "url": format!("{seed}{}", &p[1..]), "score": s, "source": "ranker"}))
        .collect();
    let (status, report) = srv.post_json("/api/v1/urls", &json!(items)).await;
    assert_eq!((status, report["inserted"].as_u64()), (200, Some(3)), "{report}");

    let (status, f) = srv.get_json("/api/v1/crawls/front/frontier?limit=10").await;
    assert_eq!(status, 200, "{f}");
    assert_eq!(f["crawl"], "front");
    let urls = f["urls"].as_array().unwrap();
    let order: Vec<&str> = urls.iter().map(|u| u["url"].as_str().unwrap()).collect();
    let want = [seed.clone(), format!("{seed}high"), format!("{seed}mid"), format!("{seed}low")];
    assert_eq!(order, want, "seed first, then by score");
    assert_eq!((urls[0]["source"].as_str(), urls[0]["depth"].as_u64(), urls[0]["priority"].as_f64()), (Some("seed"), Some(0), Some(1.0)));
    let high = &urls[1];
    assert_eq!(high["source"], "ranker");
    assert_eq!(high["depth"], 1);
    assert_eq!(high["hops"], "L");
    assert_eq!(high["scores"], 1);
    assert_eq!(high["discovered"], 1);
    assert!((high["priority"].as_f64().unwrap() - 0.9).abs() < 1e-6);
    let hosts = f["hosts"].as_array().unwrap();
    assert_eq!(hosts.len(), 1);
    let host = urls[0]["host"].as_str().unwrap();
    assert_eq!(hosts[0]["host"], host);
    assert_eq!(hosts[0]["queued"], 4);
    assert!(hosts[0]["wait"].is_string());
    let at = hosts[0]["next_fetch_at"].as_str().unwrap();
    assert!(chrono::DateTime::parse_from_rfc3339(at).is_ok(), "{at}");

    let (_, two) = srv.get_json("/api/v1/crawls/front/frontier?limit=2").await;
    assert_eq!(two["urls"].as_array().unwrap().len(), 2);
    let (_, none) = srv.get_json("/api/v1/crawls/front/frontier?host=elsewhere.example").await;
    assert_eq!(none["urls"], json!([]));
    assert_eq!(none["hosts"], json!([]));
    let (_, mine) = srv.get_json(&format!("/api/v1/crawls/front/frontier?host={host}")).await;
    assert_eq!(mine["urls"].as_array().unwrap().len(), 4);
    for bad in ["limit=abc", "limit=-1", "bogus=1"] {
        let (status, body) = srv.get_json(&format!("/api/v1/crawls/front/frontier?{bad}")).await;
        assert_eq!((status, body["code"].as_str()), (400, Some("bad-request")), "{bad}: {body}");
    }
    srv.stop().await;
}

/// Reads SSE frames until `want` returns true for one, or panics after `secs`.
async fn read_until(resp: &mut reqwest::Response, buf: &mut String, secs: u64, mut want: impl FnMut(&str, &Value) -> bool) -> Vec<(String, Value)> {
    let mut seen = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
    loop {
        while let Some(end) = buf.find("\n\n") {
            let frame: String = buf.drain(..end + 2).collect();
            let kind = frame.lines().find_map(|l| l.strip_prefix("event: ")).unwrap_or("").to_string();
            let data = frame.lines().find_map(|l| l.strip_prefix("data: ")).unwrap_or("null");
            let data: Value = serde_json::from_str(data).unwrap_or_else(|e| panic!("data of {frame:?}: {e}"));
            let done = want(&kind, &data);
            seen.push((kind, data));
            if done {
                return seen;
            }
        }
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        let chunk = tokio::time::timeout(left, resp.chunk())
            .await
            .unwrap_or_else(|_| panic!("no wanted event in {secs} s; saw {seen:?}"))
            .expect("stream")
            .expect("stream ended");
        buf.push_str(std::str::from_utf8(&chunk).unwrap());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_deliver_stats_and_notable_events() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    srv.create(&idle_spec("ev")).await;
    let mut resp = srv.get("/api/v1/crawls/ev/events").send().await.unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["content-type"], "text/event-stream");
    let mut buf = String::new();
    let first = read_until(&mut resp, &mut buf, 5, |_, _| true);
    let first = first.await;
    assert_eq!(first[0].0, "stats");
    assert_eq!(first[0].1["id"], "ev");
    assert_eq!(first[0].1["state"], "created");
    assert!(first[0].1["stats"]["pages_fetched"].is_u64());
    let ticks = read_until(&mut resp, &mut buf, 5, |k, _| k == "stats").await;
    assert_eq!(ticks.len(), 1, "stats come every interval: {ticks:?}");

    // The seed's port is closed: robots.txt fails, the host is given up, the crawl finishes.
    assert_eq!(srv.action("ev", "start").await.0, 200);
    let seen = read_until(&mut resp, &mut buf, 15, |k, d| k == "stats" && d["state"] == "finished").await;
    let kinds: Vec<&str> = seen.iter().map(|(k, _)| k.as_str()).collect();
    for k in ["crawl-resumed", "host-blocked", "crawl-finished"] {
        assert!(kinds.contains(&k), "{k} in {kinds:?}");
    }
    let blocked = seen.iter().find(|(k, _)| k == "host-blocked").unwrap();
    assert_eq!(blocked.1["kind"], "host-blocked");
    assert!(blocked.1["detail"].as_str().unwrap().contains("robots.txt"), "{blocked:?}");
    srv.stop().await;
    // The stream ends when the server shuts down.
    let rest = tokio::time::timeout(Duration::from_secs(5), async {
        while let Ok(Some(_)) = resp.chunk().await {}
    });
    assert!(rest.await.is_ok(), "the event stream ended with the server");
}

/// Checks the Prometheus text format line by line; returns (family types, samples).
fn parse_metrics(text: &str) -> (Vec<(String, String)>, Vec<(String, String, f64)>) {
    let (mut types, mut samples) = (Vec::new(), Vec::new());
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            let (name, kind) = rest.split_once(' ').expect("TYPE line");
            assert!(["counter", "gauge", "histogram"].contains(&kind), "{line}");
            types.push((name.to_string(), kind.to_string()));
            continue;
        }
        if line.starts_with("# HELP ") {
            continue;
        }
        let (series, value) = line.rsplit_once(' ').unwrap_or_else(|| panic!("sample line: {line}"));
        let value: f64 = value.parse().unwrap_or_else(|_| panic!("value of {line}"));
        let (name, labels) = series.split_once('{').unwrap_or_else(|| panic!("labels in {line}"));
        assert!(labels.ends_with('}') && labels.starts_with("crawl=\""), "{line}");
        let family = name.trim_end_matches("_bucket").trim_end_matches("_sum").trim_end_matches("_count");
        assert!(types.iter().any(|(n, _)| n == name || n == family), "{name} declared before use");
        samples.push((name.to_string(), labels.trim_end_matches('}').to_string(), value));
    }
    (types, samples)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_and_openapi_are_served() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let seed = idle_spec("m1")["seeds"][0].as_str().unwrap().to_string();
    srv.create(&idle_spec("m1")).await;
    srv.create(&idle_spec("m2")).await;
    let items = json!([
        {"crawl_id": "m1", "url": format!("{seed}a"), "score": 0.5, "source": "scorer-a"},
        {"crawl_id": "m1", "url": format!("{seed}b"), "score": 0.6, "source": "scorer-a"},
        {"crawl_id": "m1", "url": format!("{seed}c"), "score": 0.7},
    ]);
    assert_eq!(srv.post_json("/api/v1/urls", &items).await.0, 200);
    // The engine publishes its queue size right after applying the batch.
    srv.wait_for("m1", 10, "the queue size", |c| c["stats"]["urls_queued"] == 4).await;

    let resp = srv.get("/metrics").send().await.unwrap();
    assert_eq!(resp.status(), 200);
    assert!(resp.headers()["content-type"].to_str().unwrap().starts_with("text/plain; version=0.0.4"));
    let text = resp.text().await.unwrap();
    let (types, samples) = parse_metrics(&text);
    assert!(types.contains(&("magpie_fetch_duration_seconds".into(), "histogram".into())));
    assert!(types.contains(&("magpie_pages_fetched_total".into(), "counter".into())));
    let get = |name: &str, labels: &str| {
        samples
            .iter()
            .find(|(n, l, _)| n == name && l == labels)
            .map(|s| s.2)
            .unwrap_or_else(|| panic!("{name}{{{labels}}} in\n{text}"))
    };
    for c in ["m1", "m2"] {
        assert_eq!(get("magpie_crawl_state", &format!("crawl=\"{c}\",state=\"created\"")), 1.0);
        assert_eq!(get("magpie_pages_fetched_total", &format!("crawl=\"{c}\"")), 0.0);
        assert_eq!(get("magpie_fetch_duration_seconds_bucket", &format!("crawl=\"{c}\",le=\"+Inf\"")), 0.0);
    }
    assert_eq!(get("magpie_urls_queued", "crawl=\"m1\""), 4.0);
    assert_eq!(get("magpie_intake_items_total", "crawl=\"m1\",source=\"scorer-a\""), 2.0);
    assert_eq!(get("magpie_intake_items_total", "crawl=\"m1\",source=\"intake\""), 1.0);

    let (status, doc) = srv.get_json("/api/v1/openapi.json").await;
    assert_eq!(status, 200);
    assert_eq!(doc["openapi"], "3.0.3");
    assert!(doc["paths"]["/api/v1/urls"]["post"].is_object());
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restarted_server_keeps_crawl_states_and_intake() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    srv.create(&idle_spec("kept")).await;
    srv.create(&idle_spec("done")).await;
    assert_eq!(srv.action("done", "start").await.0, 200);
    srv.wait_for("done", 15, "the idle crawl to finish", |c| c["state"] == "finished").await;
    srv.stop().await;

    let srv = TestServer::start(dir.path(), |_| {}).await;
    assert_eq!(srv.crawl("kept").await["state"], "created");
    assert_eq!(srv.crawl("done").await["state"], "finished");
    let seed = srv.crawl("kept").await["spec"]["seeds"][0].as_str().unwrap().to_string();
    let item = json!({"crawl_id": "kept", "url": format!("{seed}later"), "score": 0.4});
    let (_, report) = srv.post_json("/api/v1/urls", &item).await;
    assert_eq!(report["inserted"], 1, "a created crawl takes intake after a restart: {report}");
    let item = json!({"crawl_id": "done", "url": format!("{seed}later"), "score": 0.4});
    let (_, report) = srv.post_json("/api/v1/urls", &item).await;
    assert!(report["rejected"][0]["reason"].as_str().unwrap().contains("takes no intake"), "{report}");
    srv.stop().await;
}
