//! Over real HTTP: what a topical crawl of the fixture web learned — the topic's top terms,
//! live relevance figures and recent fetches with their score components in the crawl view,
//! and the helper's relaxations (open crawls only).

mod support;
mod web_support;

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
