//! Over real HTTP: what a topical crawl of the fixture web learned — the topic's top terms,
//! live relevance figures and recent fetches with their score components in the crawl view,
//! and the helper's relaxations: a pattern relaxed and adopted during a crawl is served with
//! its evidence while the crawl is open.

use crate::support;
use crate::web_support;

use serde_json::json;
use support::{FixtureWeb, Reply};
use web_support::TestServer;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn topic_terms_focus_figures_and_relaxations_are_served() {
    let web = FixtureWeb::start(1);
    web.route(
        0,
        "/",
        Reply::html(
            "<!DOCTYPE html><html lang=\"en\"><head><title>Solar power</title></head><body>\
             <p>Solar power and photovoltaic panels for homes.</p>\
             <p><a href=\"/panels.html\">photovoltaic panels</a></p></body></html>",
        ),
    );
    web.route(
        0,
        "/panels.html",
        Reply::html(
            "<!DOCTYPE html><html lang=\"en\"><head><title>Panels</title></head><body>\
             <p>Photovoltaic panels convert solar power.</p></body></html>",
        ),
    );
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let spec = json!({
        "name": "learn",
        "seeds": [web.url(0, "/")],
        "network": { "allow_private": true },
        "scope": { "sitemaps": false },
        "politeness": { "min_delay_ms": 0, "delay_factor": 0.0 },
        "limits": { "timeout_ms": 3000 },
        "topic": { "keywords": ["solar power"] }
    });
    srv.create(&spec).await;
    // Nothing is published before the crawl first runs.
    let (status, t) = srv.get_json("/api/v1/crawls/learn/topic").await;
    assert_eq!(status, 200, "{t}");
    assert!(
        t["terms"].as_array().unwrap().is_empty(),
        "not run yet: {t}"
    );

    let (status, _) = srv.action("learn", "start").await;
    assert_eq!(status, 200);
    let c = srv
        .wait_for("learn", 20, "the crawl to finish", |c| {
            c["state"] == "finished"
        })
        .await;
    assert_eq!(c["stats"]["pages_analysed"], 2, "{c}");
    assert!(c["focus"]["harvest_ratio"].as_f64().unwrap() > 0.0, "{c}");
    let recent = c["focus"]["recent"].as_array().unwrap();
    let panels = recent
        .iter()
        .find(|r| r["url"].as_str().unwrap().ends_with("/panels.html"))
        .expect("panels in recent fetches");
    assert!(
        panels["components"]["anchor"].as_f64().unwrap() > 0.0,
        "{panels}"
    );
    assert_eq!(c["focus"]["languages"]["en"], 2);

    // The seed page was learned into the topic: its words now weigh in.
    let (_, t) = srv.get_json("/api/v1/crawls/learn/topic?n=50").await;
    let terms: Vec<&str> = t["terms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["term"].as_str().unwrap())
        .collect();
    assert!(
        terms.iter().any(|x| x.starts_with("photovolta")),
        "{terms:?}"
    );
    let (status, _) = srv.get_json("/api/v1/crawls/learn/topic?n=x").await;
    assert_eq!(status, 400);
    let (status, _) = srv.get_json("/api/v1/crawls/nope/topic").await;
    assert_eq!(status, 404);

    // Every captured URL's score breakdown is served with its capture.
    let enc: String = url::form_urlencoded::byte_serialize(web.url(0, "/").as_bytes()).collect();
    let (status, info) = srv
        .get_json(&format!("/api/v1/crawls/learn/capture/info?url={enc}"))
        .await;
    assert_eq!(status, 200, "{info}");
    let outlink = info["analysis"]["outlinks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["url"].as_str().unwrap().ends_with("/panels.html"))
        .expect("the seed's outlink");
    assert!(outlink["score"]["anchor"].as_f64().unwrap() > 0.0, "{info}");
    assert!(info["analysis"]["relevance"].as_f64().unwrap() > 0.0);

    // The helper's memory is only open while the crawl is.
    let (status, body) = srv.get_json("/api/v1/crawls/learn/relaxations").await;
    assert_eq!(status, 409, "{body}");
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn blocking_a_pattern_empties_its_queue_entries_and_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let spec = web_support::idle_spec("blk");
    let seed = spec["seeds"][0].as_str().unwrap().to_string();
    srv.create(&spec).await;
    let items: Vec<serde_json::Value> = ["print/1", "print/2", "article/1"]
        .iter()
        .map(|p| json!({"crawl_id": "blk", "url": format!("{seed}{p}"), "score": 0.5}))
        .collect();
    let (status, _) = srv.post_json("/api/v1/urls", &json!(items)).await;
    assert_eq!(status, 200);

    let unauthorized = reqwest::Client::new()
        .post(srv.url("/api/v1/crawls/blk/block"))
        .json(&json!({"pattern": "/print/"}))
        .send()
        .await
        .unwrap();
    assert_eq!(unauthorized.status().as_u16(), 401);
    for (body, field) in [
        (json!({"pattern": "(print"}), "pattern"),
        (json!({"pattern": ""}), "pattern"),
        (json!({"patern": "x"}), "patern"),
    ] {
        let (status, e) = srv.post_json("/api/v1/crawls/blk/block", &body).await;
        assert_eq!(status, 400, "{body} → {e}");
        assert!(e.to_string().contains(field), "{e}");
    }
    let (status, r) = srv
        .post_json("/api/v1/crawls/blk/block", &json!({"pattern": "/print/"}))
        .await;
    assert_eq!((status, r["removed"].as_u64()), (200, Some(2)), "{r}");
    let (_, f) = srv.get_json("/api/v1/crawls/blk/frontier").await;
    let urls: Vec<&str> = f["urls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["url"].as_str().unwrap())
        .collect();
    assert!(!urls.iter().any(|u| u.contains("/print/")), "{urls:?}");
    assert!(
        urls.contains(&format!("{seed}article/1").as_str()),
        "{urls:?}"
    );
    srv.stop().await;

    // The pattern is part of the crawl's state: after a restart it still keeps URLs out.
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let (_, r) = srv
        .post_json(
            "/api/v1/urls",
            &json!({"crawl_id": "blk", "url": format!("{seed}print/3"), "score": 1.0}),
        )
        .await;
    assert_eq!(r["rejected"][0]["reason"], "blocked by a pattern", "{r}");
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relaxation_adopted_in_a_crawl_is_served_with_its_evidence() {
    // phpBB topics whose post bodies carry `post-content` where the knowledge base expects
    // `content`: the helper must relax the body pattern and validate it on further topics.
    let topic = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/kb/phpbb/topic.html"),
    )
    .unwrap()
    .replace("class=\"content\"", "class=\"post-content\"");
    let web = FixtureWeb::start(1);
    let topics: Vec<String> = (1..=4).map(|t| format!("/viewtopic.php?t={t}")).collect();
    let extra: Vec<String> = (0..30).map(|i| format!("/page{i}.html")).collect();
    let links: String = topics
        .iter()
        .chain(&extra)
        .map(|p| format!("<a href=\"{p}\">{p}</a> "))
        .collect();
    web.route(
        0,
        "/",
        Reply::html(format!("<html><body><p>{links}</p></body></html>")),
    );
    for (i, t) in topics.iter().enumerate() {
        let page = topic.replace("Saw two herons", &format!("Topic {i}: saw two herons"));
        web.route(0, t, Reply::html(page));
    }
    for p in &extra {
        web.route(0, p, Reply::html("<html><body><p>filler</p></body></html>"));
    }
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    // 100 ms between fetches keeps the crawl open for a few seconds after the topics.
    let spec = json!({
        "name": "relax",
        "seeds": [web.url(0, "/")],
        "network": { "allow_private": true },
        "scope": { "sitemaps": false },
        "politeness": { "min_delay_ms": 100, "max_delay_ms": 100, "delay_factor": 0.0 },
        "limits": { "timeout_ms": 3000 }
    });
    srv.create(&spec).await;
    assert_eq!(srv.action("relax", "start").await.0, 200);
    let mut adopted = serde_json::Value::Null;
    for _ in 0..100 {
        let (status, body) = srv.get_json("/api/v1/crawls/relax/relaxations").await;
        assert_eq!(status, 200, "an open crawl answers: {body}");
        if body["relaxations"]
            .as_array()
            .is_some_and(|a| !a.is_empty())
        {
            adopted = body;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let a = &adopted["relaxations"][0];
    assert_eq!(a["application"], "phpbb", "{adopted}");
    assert_eq!(a["action"], "topic/post/body", "{a}");
    assert!(
        a["original"].as_str().unwrap().contains("@class='content'"),
        "{a}"
    );
    assert!(a["relaxed"].as_str().unwrap().contains("content"), "{a}");
    assert_ne!(a["original"], a["relaxed"]);
    assert_eq!(a["source"], "relaxation");
    // Found on one topic, validated on two more, in crawl order.
    let pages: Vec<String> = a["validated_on"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u.as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        pages,
        topics[..3]
            .iter()
            .map(|t| web.url(0, t))
            .collect::<Vec<_>>()
    );
    let host = a["host"].as_str().unwrap().to_string();
    let (_, one) = srv
        .get_json(&format!("/api/v1/crawls/relax/relaxations?host={host}"))
        .await;
    assert_eq!(one["relaxations"].as_array().unwrap().len(), 1, "{one}");
    let (_, none) = srv
        .get_json("/api/v1/crawls/relax/relaxations?host=elsewhere.example")
        .await;
    assert_eq!(none["relaxations"], json!([]), "{none}");
    srv.action("relax", "stop").await;
    srv.stop().await;

    // The adoption came back with the page it was made on and was committed with it: a helper
    // with no memory of the crawl reads it from the crawl's store.
    let store = magpie::store::Store::open(&dir.path().join("relax/state")).unwrap();
    let kb = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("kb");
    let helper = magpie::aah::Helper::load(&kb).unwrap().with_store(store);
    let stored = serde_json::to_value(helper.relaxations(None).unwrap()).unwrap();
    assert_eq!(stored, adopted["relaxations"]);
}
