//! Watching crawls over real HTTP: the frontier view (fetch order, host queues), server-sent
//! events (stats and notable events), Prometheus metrics, and the OpenAPI document.

use crate::web_support;

use serde_json::{json, Value};
use std::time::Duration;
use web_support::{idle_spec, TestServer};

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
    assert_eq!(
        (status, report["inserted"].as_u64()),
        (200, Some(3)),
        "{report}"
    );

    let (status, f) = srv.get_json("/api/v1/crawls/front/frontier?limit=10").await;
    assert_eq!(status, 200, "{f}");
    assert_eq!(f["crawl"], "front");
    let urls = f["urls"].as_array().unwrap();
    let order: Vec<&str> = urls.iter().map(|u| u["url"].as_str().unwrap()).collect();
    let want = [
        seed.clone(),
        format!("{seed}high"),
        format!("{seed}mid"),
        format!("{seed}low"),
    ];
    assert_eq!(order, want, "seed first, then by score");
    assert_eq!(
        (
            urls[0]["source"].as_str(),
            urls[0]["depth"].as_u64(),
            urls[0]["priority"].as_f64()
        ),
        (Some("seed"), Some(0), Some(1.0))
    );
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
    let (_, none) = srv
        .get_json("/api/v1/crawls/front/frontier?host=elsewhere.example")
        .await;
    assert_eq!(none["urls"], json!([]));
    assert_eq!(none["hosts"], json!([]));
    let (_, mine) = srv
        .get_json(&format!("/api/v1/crawls/front/frontier?host={host}"))
        .await;
    assert_eq!(mine["urls"].as_array().unwrap().len(), 4);
    for bad in ["limit=abc", "limit=-1", "bogus=1"] {
        let (status, body) = srv
            .get_json(&format!("/api/v1/crawls/front/frontier?{bad}"))
            .await;
        assert_eq!(
            (status, body["code"].as_str()),
            (400, Some("bad-request")),
            "{bad}: {body}"
        );
    }
    srv.stop().await;
}

/// Reads SSE frames until `want` returns true for one, or panics after `secs`.
async fn read_until(
    resp: &mut reqwest::Response,
    buf: &mut String,
    secs: u64,
    mut want: impl FnMut(&str, &Value) -> bool,
) -> Vec<(String, Value)> {
    let mut seen = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
    loop {
        while let Some(end) = buf.find("\n\n") {
            let frame: String = buf.drain(..end + 2).collect();
            let kind = frame
                .lines()
                .find_map(|l| l.strip_prefix("event: "))
                .unwrap_or("")
                .to_string();
            let data = frame
                .lines()
                .find_map(|l| l.strip_prefix("data: "))
                .unwrap_or("null");
            let data: Value =
                serde_json::from_str(data).unwrap_or_else(|e| panic!("data of {frame:?}: {e}"));
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
    let seen = read_until(&mut resp, &mut buf, 15, |k, d| {
        k == "stats" && d["state"] == "finished"
    })
    .await;
    let kinds: Vec<&str> = seen.iter().map(|(k, _)| k.as_str()).collect();
    for k in ["crawl-resumed", "host-blocked", "crawl-finished"] {
        assert!(kinds.contains(&k), "{k} in {kinds:?}");
    }
    let blocked = seen.iter().find(|(k, _)| k == "host-blocked").unwrap();
    assert_eq!(blocked.1["kind"], "host-blocked");
    assert!(
        blocked.1["detail"].as_str().unwrap().contains("robots.txt"),
        "{blocked:?}"
    );
    srv.stop().await;
    // The stream ends when the server shuts down.
    let rest = tokio::time::timeout(Duration::from_secs(5), async {
        while let Ok(Some(_)) = resp.chunk().await {}
    });
    assert!(rest.await.is_ok(), "the event stream ended with the server");
}

/// A metric family's name and type.
type Family = (String, String);
/// A sample: metric name, labels (without braces), value.
type Sample = (String, String, f64);

/// Checks the Prometheus text format line by line; returns (family types, samples).
fn parse_metrics(text: &str) -> (Vec<Family>, Vec<Sample>) {
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
        let (series, value) = line
            .rsplit_once(' ')
            .unwrap_or_else(|| panic!("sample line: {line}"));
        let value: f64 = value.parse().unwrap_or_else(|_| panic!("value of {line}"));
        let (name, labels) = series
            .split_once('{')
            .unwrap_or_else(|| panic!("labels in {line}"));
        // Every sample names its crawl, except the one naming the build.
        assert!(
            labels.ends_with('}')
                && (labels.starts_with("crawl=\"") || name == "magpie_build_info"),
            "{line}"
        );
        let family = name
            .trim_end_matches("_bucket")
            .trim_end_matches("_sum")
            .trim_end_matches("_count");
        assert!(
            types.iter().any(|(n, _)| n == name || n == family),
            "{name} declared before use"
        );
        samples.push((
            name.to_string(),
            labels.trim_end_matches('}').to_string(),
            value,
        ));
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
    srv.wait_for("m1", 10, "the queue size", |c| {
        c["stats"]["urls_queued"] == 4
    })
    .await;

    let resp = srv.get("/metrics").send().await.unwrap();
    assert_eq!(resp.status(), 200);
    assert!(resp.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/plain; version=0.0.4"));
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
        assert_eq!(
            get(
                "magpie_crawl_state",
                &format!("crawl=\"{c}\",state=\"created\"")
            ),
            1.0
        );
        assert_eq!(
            get("magpie_pages_fetched_total", &format!("crawl=\"{c}\"")),
            0.0
        );
        assert_eq!(
            get(
                "magpie_fetch_duration_seconds_bucket",
                &format!("crawl=\"{c}\",le=\"+Inf\"")
            ),
            0.0
        );
    }
    assert_eq!(get("magpie_urls_queued", "crawl=\"m1\""), 4.0);
    let build = format!(
        "version=\"{}\",commit=\"{}\"",
        env!("CARGO_PKG_VERSION"),
        magpie::web::metrics::COMMIT
    );
    assert_eq!(get("magpie_build_info", &build), 1.0);
    assert_eq!(
        get(
            "magpie_intake_items_total",
            "crawl=\"m1\",source=\"scorer-a\""
        ),
        2.0
    );
    assert_eq!(
        get(
            "magpie_intake_items_total",
            "crawl=\"m1\",source=\"intake\""
        ),
        1.0
    );

    let (status, doc) = srv.get_json("/api/v1/openapi.json").await;
    assert_eq!(status, 200);
    assert_eq!(doc["openapi"], "3.1.0");
    assert!(doc["paths"]["/api/v1/urls"]["post"].is_object());
    srv.stop().await;
}
