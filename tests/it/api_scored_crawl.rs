//! End-to-end: an external scorer steers a crawl of the loopback fixture web over the API.
//! The crawl is created, primed with scores for ten pages and a blacklisted URL, then started
//! with one fetch per host at a time: the pages are fetched in descending score order, the
//! blacklisted URL (linked from every page) never, and each capture's WARC metadata names
//! the scorer as its `sourceTag`. Scores posted while a crawl runs reorder what is left of it.
//! Items whose text fields would forge a metadata field or a crawl-log line are refused, and
//! nothing of them reaches the archive, the log or `/metrics`.

use crate::support;
use crate::web_support;

use serde_json::{json, Value};
use support::{harness, page, FixtureWeb, Reply};
use web_support::TestServer;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fetch_order_follows_the_scores_posted_over_http() {
    let web = FixtureWeb::start(1);
    let pages: Vec<String> = (0..10).map(|i| format!("/p{i}.html")).collect();
    let mut home_links: Vec<&str> = pages.iter().map(String::as_str).collect();
    home_links.push("/blocked.html");
    web.route(0, "/", Reply::html(page("Home", "", &home_links)));
    for p in &pages {
        web.route(0, p, Reply::html(page(p, "", &["/blocked.html", "/"])));
    }
    web.route(0, "/blocked.html", Reply::html(page("Blocked", "", &[])));

    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let spec = json!({
        "name": "scored",
        "seeds": [web.url(0, "/")],
        "network": { "allow_private": true },
        "scope": { "sitemaps": false },
        "politeness": { "min_delay_ms": 0, "delay_factor": 0.0, "max_parallel_per_host": 1 },
        "limits": { "timeout_ms": 3000, "retry_delay_ms": 50 }
    });
    srv.create(&spec).await;

    let scores = [0.30, 0.90, 0.10, 0.70, 0.50, 0.20, 0.80, 0.40, 0.60, 0.05];
    let mut batch: Vec<Value> = pages
        .iter()
        .zip(scores)
        .map(|(p, s)| json!({"crawl_id": "scored", "url": web.url(0, p), "score": s, "source": "scorer-x"}))
        .collect();
    batch.push(json!({"crawl_id": "scored", "url": web.url(0, "/blocked.html"), "blacklist": true, "source": "scorer-x"}));
    let (status, report) = srv.post_json("/api/v1/urls", &json!(batch)).await;
    assert_eq!(status, 200, "{report}");
    assert_eq!(
        (report["inserted"].as_u64(), report["blacklisted"].as_u64()),
        (Some(10), Some(1)),
        "{report}"
    );
    assert_eq!(report["rejected"], json!([]));

    // A second opinion on p9 (0.05): the average 0.45 puts it between p4 (0.5) and p7 (0.4).
    let again = json!({"crawl_id": "scored", "url": web.url(0, "/p9.html"), "score": 0.85, "source": "scorer-y"});
    let (_, report) = srv.post_json("/api/v1/urls", &again).await;
    assert_eq!(report["updated"], 1, "{report}");

    let want = [
        "/p1.html", "/p6.html", "/p3.html", "/p8.html", "/p4.html", "/p9.html", "/p7.html",
        "/p0.html", "/p5.html", "/p2.html",
    ];
    let (_, f) = srv
        .get_json("/api/v1/crawls/scored/frontier?limit=20")
        .await;
    let planned: Vec<String> = f["urls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["url"].as_str().unwrap().to_string())
        .collect();
    let mut expected_plan = vec![web.url(0, "/")];
    expected_plan.extend(want.iter().map(|p| web.url(0, p)));
    assert_eq!(
        planned, expected_plan,
        "the frontier shows the scored order before the crawl starts"
    );
    let p9 = &f["urls"][6];
    assert_eq!(
        (p9["scores"].as_u64(), p9["source"].as_str()),
        (Some(2), Some("scorer-y")),
        "{p9}"
    );
    assert!(web.hits().is_empty(), "a created crawl fetches nothing");

    assert_eq!(srv.action("scored", "start").await.0, 200);
    let done = srv
        .wait_for("scored", 30, "the crawl to finish", |c| {
            c["state"] == "finished"
        })
        .await;
    assert_eq!(done["stats"]["pages_fetched"], 11, "{done}");

    let order: Vec<String> = web.hits_for(0).iter().map(|h| h.target.clone()).collect();
    assert_eq!(
        order[..2],
        ["/robots.txt".to_string(), "/".to_string()],
        "robots.txt, then the seed (priority 1)"
    );
    assert_eq!(
        order[2..],
        want.map(String::from),
        "pages in descending score order"
    );
    assert!(
        web.hits_to(0, "/blocked.html").is_empty(),
        "the blacklisted URL is never fetched"
    );

    let recs = harness::records(dir.path(), "scored");
    for (p, source) in [
        ("/p1.html", "scorer-x"),
        ("/p9.html", "scorer-y"),
        ("/", "seed"),
    ] {
        let meta = harness::one(&recs, "metadata", &web.url(0, p));
        let body = String::from_utf8_lossy(&meta.body);
        assert!(
            body.contains(&format!("sourceTag: {source}\r\n")),
            "{p}: {body}"
        );
    }
    harness::warcio_check(&harness::warc_files(dir.path(), "scored"));

    // Every fetch (robots.txt and 11 pages) is in the latency histogram.
    let text = srv
        .get("/metrics")
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let count = text
        .lines()
        .find_map(|l| l.strip_prefix("magpie_fetch_duration_seconds_count{crawl=\"scored\"} "))
        .unwrap_or_else(|| panic!("histogram count in\n{text}"));
    assert_eq!(count, "12");
    assert!(
        text.contains("magpie_pages_fetched_total{crawl=\"scored\"} 11\n"),
        "{text}"
    );
    assert!(
        text.contains("magpie_intake_items_total{crawl=\"scored\",source=\"scorer-x\"} 11\n"),
        "{text}"
    );
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scores_posted_while_the_crawl_runs_reorder_what_is_left() {
    let web = FixtureWeb::start(1);
    let pages: Vec<String> = (0..12).map(|i| format!("/q{i}.html")).collect();
    let links: Vec<&str> = pages.iter().map(String::as_str).collect();
    web.route(0, "/", Reply::html(page("Home", "", &links)));
    for p in &pages {
        web.route(0, p, Reply::html(page(p, "", &["/late.html"])));
    }
    web.route(0, "/late.html", Reply::html(page("Late", "", &[])));

    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    // One fetch at a time, 250 ms apart: the crawl runs for about four seconds.
    let spec = json!({
        "name": "live",
        "seeds": [web.url(0, "/")],
        "network": { "allow_private": true },
        "scope": { "sitemaps": false },
        "politeness": { "min_delay_ms": 250, "max_delay_ms": 250, "delay_factor": 0.0,
                        "max_parallel_per_host": 1 },
        "limits": { "timeout_ms": 3000, "retry_delay_ms": 50 }
    });
    srv.create(&spec).await;
    assert_eq!(srv.action("live", "start").await.0, 200);
    let targets = || -> Vec<String> { web.hits_for(0).iter().map(|h| h.target.clone()).collect() };
    let mut waited = 0;
    while !targets().contains(&"/q1.html".to_string()) {
        assert!(
            waited < 200,
            "the crawl never reached /q1.html: {:?}",
            targets()
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        waited += 1;
    }
    // The two pages discovered last jump the queue; /late.html (queued from q0 and q1) leaves it.
    let before = targets().len();
    let batch = json!([
        {"crawl_id": "live", "url": web.url(0, "/q11.html"), "score": 0.95, "source": "ranker"},
        {"crawl_id": "live", "url": web.url(0, "/q10.html"), "score": 0.9, "source": "ranker"},
        {"crawl_id": "live", "url": web.url(0, "/late.html"), "blacklist": true, "source": "ranker"},
    ]);
    let (status, report) = srv.post_json("/api/v1/urls", &batch).await;
    assert_eq!(status, 200, "{report}");
    assert_eq!(
        (report["updated"].as_u64(), report["blacklisted"].as_u64()),
        (Some(2), Some(1)),
        "both pages were still queued: {report}"
    );
    srv.wait_for("live", 30, "the crawl to finish", |c| {
        c["state"] == "finished"
    })
    .await;
    let order = targets();
    let after = &order[before..];
    // At most the fetch in flight and one chosen before the scores were committed come first.
    let q11 = after.iter().position(|t| t == "/q11.html").unwrap();
    assert!(q11 <= 2, "q11 comes next, not at {q11}: {after:?}");
    assert_eq!(after[q11 + 1], "/q10.html", "{after:?}");
    assert!(
        web.hits_to(0, "/late.html").is_empty(),
        "the URL blacklisted mid-crawl is never fetched: {order:?}"
    );
    assert_eq!(
        order.len(),
        14,
        "robots.txt, the home page and 12 pages: {order:?}"
    );
    srv.stop().await;
}

/// Intake items whose `source`, `via`, `url` or `crawl_id` would forge a metadata field or a
/// crawl-log line (CR LF, LF, NUL, a space, a 1 MiB name) are each refused with a reason naming
/// the field; the valid item of the same body is applied; nothing of the refused ones reaches
/// the frontier, the archive, the crawl log or `/metrics`. The crawl then writes a metadata
/// record with only its own fields, and crawl-log lines of exactly twelve columns, even for a
/// response whose `Content-Type` holds a tab and spaces.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forged_intake_fields_never_reach_the_archive_or_the_log() {
    let web = FixtureWeb::start(1);
    web.route(0, "/", Reply::html(page("Home", "", &["/odd.txt"])));
    web.route(0, "/a.html", Reply::html(page("A", "", &[])));
    web.route(0, "/odd.txt", Reply::typed("text/plain \t odd", "odd"));
    let bad: Vec<String> = (0..10)
        .map(|i| web.url(0, &format!("/bad{i}.html")))
        .collect();
    for i in 0..10 {
        let p = format!("/bad{i}.html");
        web.route(0, &p, Reply::html(page(&p, "", &[])));
    }

    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let seed = web.url(0, "/");
    let spec = json!({
        "name": "forge",
        "seeds": [seed],
        "network": { "allow_private": true },
        "scope": { "sitemaps": false },
        "politeness": { "min_delay_ms": 0, "delay_factor": 0.0 },
        "limits": { "timeout_ms": 3000, "retry_delay_ms": 50 }
    });
    srv.create(&spec).await;

    let forged = "\r\nWARC-Forged: 1";
    let item = |i: usize| json!({"crawl_id": "forge", "url": bad[i], "score": 0.9});
    let with = |i: usize, field: &str, value: String| {
        let mut v = item(i);
        v[field] = json!(value);
        v
    };
    let huge = "s".repeat(1 << 20);
    let batch = json!([
        with(0, "source", format!("scorer{forged}")),
        with(1, "via", format!("{seed}{forged}")),
        with(2, "source", "scorer\noutlink: http://evil.example/ L a/@href".into()),
        with(3, "via", format!("{seed}x\ny")),
        with(4, "source", "two words".into()),
        with(5, "via", format!("{seed} WARC-Forged: 1")),
        with(6, "source", "scorer\u{0}x".into()),
        with(7, "url", format!("{}{forged}", bad[7])),
        with(8, "source", huge.clone()),
        with(9, "crawl_id", "forge\n".into()),
        {"crawl_id": "forge", "url": web.url(0, "/a.html"), "score": 0.8,
         "source": "scorer-ok", "via": seed},
    ]);
    let resp = srv.post("/api/v1/urls").json(&batch).send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    let text = resp.text().await.unwrap();
    assert!(
        text.len() < 4096,
        "the report echoes no value: {} bytes",
        text.len()
    );
    let report: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        (report["received"].as_u64(), report["inserted"].as_u64()),
        (Some(11), Some(1)),
        "{report}"
    );
    let want = [
        "source: contains the control character U+000D",
        "via: contains the control character U+000D",
        "source: contains the control character U+000A",
        "via: contains the control character U+000A",
        "source: must be a token",
        "via: contains whitespace",
        "source: contains the control character U+0000",
        "url: contains the control character U+000D",
        "source: 1048576 bytes long, over the limit of 64",
        "crawl_id: contains the control character U+000A",
    ];
    let rejected = report["rejected"].as_array().unwrap();
    assert_eq!(rejected.len(), want.len(), "{report}");
    for (i, (r, w)) in rejected.iter().zip(want).enumerate() {
        assert_eq!(r["index"], i, "{report}");
        let reason = r["reason"].as_str().unwrap();
        assert!(
            reason.starts_with(w),
            "item {i}: {reason:?} should start {w:?}"
        );
    }

    let (_, f) = srv.get_json("/api/v1/crawls/forge/frontier?limit=50").await;
    let queued: Vec<&str> = f["urls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["url"].as_str().unwrap())
        .collect();
    assert_eq!(queued, [seed.as_str(), &web.url(0, "/a.html")], "{f}");

    assert_eq!(srv.action("forge", "start").await.0, 200);
    let done = srv
        .wait_for("forge", 30, "the crawl to finish", |c| {
            c["state"] == "finished"
        })
        .await;
    assert_eq!(done["stats"]["pages_fetched"], 3, "{done}");
    for p in 0..10 {
        assert!(
            web.hits_to(0, &format!("/bad{p}.html")).is_empty(),
            "bad{p} was fetched"
        );
    }

    // The archive: no forged field anywhere, and every warc-fields line is one of magpie's.
    let recs = harness::records(dir.path(), "forge");
    let known = [
        "via",
        "hopsFromSeed",
        "sourceTag",
        "fetchTimeMs",
        "magpie-priority",
        "magpie-relevance",
        "magpie-lang",
        "magpie-app",
        "magpie-level",
        "outlink",
    ];
    let mut metadata = 0;
    for r in &recs {
        let body = String::from_utf8_lossy(&r.body);
        for needle in ["WARC-Forged", "evil.example", "sssssssssssssssss"] {
            assert!(!body.contains(needle), "{} {}: {body}", r.kind, r.uri);
            assert!(
                r.fields
                    .iter()
                    .all(|(k, v)| !k.contains(needle) && !v.contains(needle)),
                "{r:?}"
            );
        }
        if r.kind == "metadata" && r.field("Content-Type") == Some("application/warc-fields") {
            metadata += 1;
            assert!(body.ends_with("\r\n"), "{body}");
            for line in body.trim_end_matches("\r\n").split("\r\n") {
                let name = line.split_once(": ").map_or("", |(n, _)| n);
                assert!(known.contains(&name), "{}: stray line {line:?}", r.uri);
                assert!(!line.contains(['\r', '\n', '\0']), "{line:?}");
            }
        }
    }
    assert_eq!(metadata, 4, "robots.txt and three pages");
    let meta = harness::one(&recs, "metadata", &web.url(0, "/a.html"));
    let body = String::from_utf8_lossy(&meta.body);
    assert!(body.starts_with(&format!("via: {seed}\r\n")), "{body}");
    assert!(body.contains("sourceTag: scorer-ok\r\n"), "{body}");
    harness::warcio_check(&harness::warc_files(dir.path(), "forge"));

    // The crawl log: twelve columns on every line; the odd Content-Type is one column.
    let logs = dir.path().join("forge").join("logs");
    let mut lines = Vec::new();
    for e in std::fs::read_dir(&logs).unwrap().flatten() {
        let text = std::fs::read_to_string(e.path()).unwrap();
        lines.extend(text.lines().map(String::from));
    }
    assert!(lines.len() >= 4, "{lines:?}");
    for l in &lines {
        assert_eq!(l.split_whitespace().count(), 12, "{l:?}");
        assert_eq!(l.split(' ').filter(|c| !c.is_empty()).count(), 12, "{l:?}");
        assert!(!l.contains("WARC-Forged") && !l.contains("bad"), "{l:?}");
    }
    let odd = lines
        .iter()
        .find(|l| l.contains("/odd.txt"))
        .unwrap_or_else(|| panic!("{lines:?}"));
    let mime = odd.split_whitespace().nth(6).unwrap();
    assert!(mime.starts_with("text/plain%"), "{odd}");
    assert!(lines.iter().any(|l| l.contains(" scorer-ok ")), "{lines:?}");

    // /metrics counts the one valid source, and stays small.
    let text = srv
        .get("/metrics")
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(text.len() < 64 << 10, "{} bytes", text.len());
    assert!(
        text.contains("magpie_intake_items_total{crawl=\"forge\",source=\"scorer-ok\"} 1\n"),
        "{text}"
    );
    assert_eq!(
        text.matches("magpie_intake_items_total{crawl=\"forge\"")
            .count(),
        1,
        "{text}"
    );
    srv.stop().await;
}
