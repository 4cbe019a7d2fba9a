//! The scored-URL intake over real HTTP: the three body forms, per-item rejections with index
//! and reason, malformed bodies that apply nothing, and oversized bodies refused with 413
//! without being read to the end.

use crate::web_support;

use serde_json::{json, Value};
use std::io::{Read, Write};
use std::time::Duration;
use web_support::{idle_spec, status_json, TestServer, TOKEN};

/// Creates the crawl `name` and returns its seed (ends with `/`).
async fn crawl(srv: &TestServer, name: &str) -> String {
    let spec = idle_spec(name);
    srv.create(&spec).await;
    spec["seeds"][0].as_str().unwrap().to_string()
}

/// URLs queued in a crawl, from the frontier view.
async fn queued(srv: &TestServer, id: &str) -> Vec<String> {
    let (status, f) = srv
        .get_json(&format!("/api/v1/crawls/{id}/frontier?limit=1000"))
        .await;
    assert_eq!(status, 200, "{f}");
    f["urls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["url"].as_str().unwrap().to_string())
        .collect()
}

async fn post_raw(
    srv: &TestServer,
    content_type: &str,
    body: impl Into<reqwest::Body>,
) -> (u16, Value) {
    let resp = srv
        .post("/api/v1/urls")
        .header("content-type", content_type)
        .body(body)
        .send()
        .await
        .unwrap();
    status_json(resp).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn items_are_applied_or_rejected_one_by_one() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let seed = crawl(&srv, "in").await;

    let one = json!({"crawl_id": "in", "url": format!("{seed}one"), "score": 0.3, "source": "s1"});
    let (status, report) = srv.post_json("/api/v1/urls", &one).await;
    assert_eq!(status, 200);
    assert_eq!(
        report,
        json!({"received": 1, "inserted": 1, "updated": 0, "blacklisted": 0, "ignored": 0, "rejected": []})
    );

    let batch = json!([
        {"crawl_id": "in", "url": format!("{seed}two"), "score": 0.7},
        {"crawl_id": "in", "url": format!("{seed}big"), "score": 1.5},
        {"crawl_id": "in", "url": format!("{seed}neg"), "score": -0.1},
        {"crawl_id": "in", "url": format!("{seed}none")},
        {"crawl_id": "in", "url": "not a url", "score": 0.5},
        {"crawl_id": "in", "url": "http://example.org/elsewhere", "score": 0.5},
        {"crawl_id": "nope", "url": format!("{seed}x"), "score": 0.5},
        {"crawl_id": "in", "url": format!("{seed}one"), "score": 0.9},
        {"crawl_id": "in", "url": format!("{seed}banned"), "blacklist": true},
        {"crawl_id": "in", "url": "ftp://127.0.0.1/file", "score": 0.5},
    ]);
    let (status, report) = srv.post_json("/api/v1/urls", &batch).await;
    assert_eq!(status, 200, "{report}");
    assert_eq!(report["received"], 10);
    assert_eq!(report["inserted"], 1, "{report}");
    assert_eq!(report["updated"], 1, "{report}");
    assert_eq!(report["blacklisted"], 1, "{report}");
    let rejected: Vec<(u64, String)> = report["rejected"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["index"].as_u64().unwrap(),
                r["reason"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let want = [
        (1, "outside [0, 1]"),
        (2, "outside [0, 1]"),
        (3, "score is required"),
        (4, "bad URL"),
        (5, "out of scope"),
        (6, "unknown crawl"),
        (9, "bad URL"),
    ];
    assert_eq!(rejected.len(), want.len(), "{rejected:?}");
    for ((index, reason), (wi, wr)) in rejected.iter().zip(want) {
        assert_eq!(*index, wi, "{rejected:?}");
        assert!(
            reason.contains(wr),
            "item {index}: {reason:?} should say {wr:?}"
        );
    }
    let q = queued(&srv, "in").await;
    // `one` was scored 0.3 then 0.9: the default update (avg) puts it at 0.6, below `two`.
    assert_eq!(
        q,
        vec![seed.clone(), format!("{seed}two"), format!("{seed}one")]
    );

    // NDJSON, with a blank line; an item for a blacklisted URL is ignored.
    let nd = format!(
        "{}\n\n{}\n",
        json!({"crawl_id": "in", "url": format!("{seed}three"), "score": 0.1}),
        json!({"crawl_id": "in", "url": format!("{seed}banned"), "score": 1.0})
    );
    let (status, report) = post_raw(&srv, "application/x-ndjson", nd).await;
    assert_eq!(status, 200, "{report}");
    assert_eq!(
        (
            report["received"].as_u64(),
            report["inserted"].as_u64(),
            report["ignored"].as_u64()
        ),
        (Some(2), Some(1), Some(1)),
        "{report}"
    );
    assert!(!queued(&srv, "in").await.contains(&format!("{seed}banned")));
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_bodies_apply_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let seed = crawl(&srv, "bad").await;
    let good =
        |p: &str| json!({"crawl_id": "bad", "url": format!("{seed}{p}"), "score": 0.5}).to_string();

    let nd = format!(
        "{}\n{}\n{{\"crawl_id\": \"bad\", \"url\": \n",
        good("a"),
        good("b")
    );
    let (status, body) = post_raw(&srv, "application/x-ndjson", nd).await;
    assert_eq!(
        (status, body["code"].as_str(), body["line"].as_u64()),
        (400, Some("malformed-body"), Some(3)),
        "{body}"
    );

    let typed = format!(
        "[\n{},\n{{\"crawl_id\": \"bad\", \"url\": \"{seed}c\", \"score\": \"high\"}}\n]",
        good("d")
    );
    let (status, body) = post_raw(&srv, "application/json", typed).await;
    assert_eq!((status, body["line"].as_u64()), (400, Some(3)), "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("invalid type"),
        "{body}"
    );
    assert!(body["column"].as_u64().unwrap() > 1);

    let cases: [(&str, String, &str); 5] = [
        (
            "application/json",
            format!(r#"{{"crawl_id":"bad","url":"{seed}e","score":0.5,"rank":1}}"#),
            "unknown field `rank`",
        ),
        (
            "application/json",
            r#"{"url":"http://127.0.0.1/"}"#.into(),
            "missing field `crawl_id`",
        ),
        (
            "application/json",
            format!("{}\n{}", good("f"), good("g")),
            "trailing characters",
        ),
        ("application/json", "   ".into(), "empty body"),
        (
            "application/x-ndjson; charset=utf-8",
            "[1, 2]\n".into(),
            "invalid type",
        ),
    ];
    for (ct, body, needle) in cases {
        let (status, answer) = post_raw(&srv, ct, body.clone()).await;
        assert_eq!(status, 400, "{body}: {answer}");
        assert!(
            answer["error"].as_str().unwrap().contains(needle),
            "{body}: {answer}"
        );
    }
    let (status, _) = post_raw(&srv, "application/json", vec![b'[', 0xff, b']']).await;
    assert_eq!(status, 400, "not UTF-8");
    assert_eq!(
        queued(&srv, "bad").await,
        vec![seed],
        "nothing of a malformed body was applied"
    );
    srv.stop().await;
}

/// Sends `head` and then `body` on a raw connection and returns what the server answered.
fn raw_exchange(base: &str, head: &str, body: &[u8]) -> String {
    let addr = base.trim_start_matches("http://");
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(head.as_bytes()).unwrap();
    // The server may answer and close before the whole body is sent.
    let _ = s.write_all(body);
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                out.extend_from_slice(&buf[..n]);
                if out.windows(4).any(|w| w == b"\r\n\r\n") && out.ends_with(b"}") {
                    break;
                }
            }
            Err(_) => break,
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_bodies_get_413_without_being_read() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |c| c.max_body_bytes = 64 * 1024).await;
    let seed = crawl(&srv, "big").await;

    // A declared length of 10 GiB is refused before any of the body is read.
    let head = format!(
        "POST /api/v1/urls HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer {TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 10737418240\r\n\r\n"
    );
    let base = srv.base.clone();
    let answer = tokio::task::spawn_blocking(move || raw_exchange(&base, &head, b"["))
        .await
        .unwrap();
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(answer.contains("\"code\":\"too-large\""), "{answer}");

    // A chunked body without a length is cut off once it passes the limit.
    let item =
        json!({"crawl_id": "big", "url": format!("{seed}chunked"), "score": 0.5}).to_string();
    let mut chunked = Vec::new();
    for _ in 0..2000 {
        let line = format!("{item}\n");
        chunked.extend_from_slice(format!("{:x}\r\n{line}\r\n", line.len()).as_bytes());
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    let head = format!(
        "POST /api/v1/urls HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer {TOKEN}\r\nContent-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\n\r\n"
    );
    let base = srv.base.clone();
    let answer = tokio::task::spawn_blocking(move || raw_exchange(&base, &head, &chunked))
        .await
        .unwrap();
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");

    // An ordinary client posting a body over the limit gets 413 too.
    let line = format!("{item}\n");
    let body = line.repeat(64 * 1024 / line.len() + 1);
    let (status, answer) = post_raw(&srv, "application/x-ndjson", body).await;
    assert_eq!(
        (status, answer["code"].as_str()),
        (413, Some("too-large")),
        "{answer}"
    );
    assert!(answer["error"].as_str().unwrap().contains("65536"));

    // Just under the limit is fine.
    let body = line.repeat(64 * 1024 / line.len());
    let (status, answer) = post_raw(&srv, "application/x-ndjson", body).await;
    assert_eq!(
        (status, answer["inserted"].as_u64()),
        (200, Some(1)),
        "{answer}"
    );
    assert_eq!(
        queued(&srv, "big").await.len(),
        2,
        "the seed and the one URL of the accepted body"
    );
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scores_combine_with_the_crawls_update_function() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let cases = [
        ("first", 0.2_f64),
        ("last", 0.6),
        ("max", 0.6),
        ("avg", 0.4),
        ("sum", 1.0 - (-0.8_f64).exp()),
    ];
    for (update, want) in cases {
        let mut spec = idle_spec(&format!("u-{update}"));
        spec["frontier"] = json!({ "update": update });
        srv.create(&spec).await;
        let url = format!("{}page", spec["seeds"][0].as_str().unwrap());
        for score in [0.2, 0.6] {
            let item = json!({"crawl_id": format!("u-{update}"), "url": url, "score": score});
            assert_eq!(srv.post_json("/api/v1/urls", &item).await.0, 200);
        }
        let (_, f) = srv
            .get_json(&format!("/api/v1/crawls/u-{update}/frontier"))
            .await;
        let entry = f["urls"]
            .as_array()
            .unwrap()
            .iter()
            .find(|u| u["url"] == url.as_str())
            .unwrap_or_else(|| panic!("{url} queued: {f}"))
            .clone();
        let got = entry["priority"].as_f64().unwrap();
        assert!((got - want).abs() < 1e-5, "{update}: {got} != {want}");
        assert_eq!(entry["scores"], 2);
    }
    srv.stop().await;
}
